/* agg_db.c: the results database (SQLite) and ingest of results, manifests and measured latencies. */
#include "agg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the parts table (a database of the days it had no idx column has it made again: a re-ingest
 * of the manifests fills it) */
#define AGG_FPART_SQL                                                                                  \
    "CREATE TABLE IF NOT EXISTS fpart(run INTEGER NOT NULL, grp INTEGER NOT NULL, idx INTEGER NOT NULL," \
    " pattern TEXT, layer TEXT, members TEXT, PRIMARY KEY(run, grp, idx));"

static const char agg_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS target(id INTEGER PRIMARY KEY, backend TEXT NOT NULL,"
    " device TEXT NOT NULL, lib TEXT NOT NULL, threads INTEGER NOT NULL, cc TEXT, sms INTEGER,"
    " UNIQUE(backend, device, lib, threads));"
    "CREATE TABLE IF NOT EXISTS result(target INTEGER NOT NULL, run TEXT NOT NULL,"
    " bench TEXT NOT NULL, host TEXT NOT NULL, time TEXT NOT NULL, layer TEXT NOT NULL,"
    " layer_name TEXT, op TEXT, impl TEXT, algo TEXT NOT NULL, dtype TEXT NOT NULL,"
    " math TEXT NOT NULL, prec TEXT NOT NULL, status TEXT NOT NULL, iters INTEGER,"
    " min_us REAL, median_us REAL, mean_us REAL, p90_us REAL, max_us REAL, stddev_us REAL,"
    " workspace_bytes INTEGER, flops REAL, bytes REAL, peak_rss_kb INTEGER, note TEXT,"
    " choice TEXT, chosen TEXT, src_ingest INTEGER, src_line INTEGER, method TEXT, kernel_us REAL,"
    " busy INTEGER, PRIMARY KEY(target, run, bench, host, time)) WITHOUT ROWID;"
    /* the fastest median per algorithm, kept up to date by ingest: reports read this, not
     * the million rows behind it */
    "CREATE TABLE IF NOT EXISTS best(target INTEGER NOT NULL, run TEXT NOT NULL,"
    " layer TEXT NOT NULL, prec TEXT NOT NULL, algo TEXT NOT NULL, median_us REAL NOT NULL,"
    " kernels TEXT, busy INTEGER, config TEXT, kernel_us REAL, PRIMARY KEY(target, run, layer, prec, algo)) WITHOUT ROWID;"
    /* the library's latest pick per target x run x layer x precision x source (heuristic,
     * find), kept by ingest for the same reason */
    "CREATE TABLE IF NOT EXISTS pick(target INTEGER NOT NULL, run TEXT NOT NULL,"
    " layer TEXT NOT NULL, prec TEXT NOT NULL, choice TEXT NOT NULL, chosen TEXT NOT NULL,"
    " time TEXT NOT NULL, PRIMARY KEY(target, run, layer, prec, choice)) WITHOUT ROWID;"
    /* the work of a layer in a type (per target: CPU and GPU count bytes alike, plain C may
     * differ), for the roofline; kept by ingest */
    "CREATE TABLE IF NOT EXISTS work(target INTEGER NOT NULL, layer TEXT NOT NULL, prec TEXT NOT NULL,"
    " flops REAL, bytes REAL, PRIMARY KEY(target, layer, prec)) WITHOUT ROWID;"
    /* gen --calibrate's rows (layer calib-...): the measured ceilings; the fastest row's
     * median, work and note (a CPU's datasheet arithmetic) */
    "CREATE TABLE IF NOT EXISTS calib(target INTEGER NOT NULL, layer TEXT NOT NULL, prec TEXT NOT NULL,"
    " median_us REAL NOT NULL, flops REAL, bytes REAL, note TEXT, PRIMARY KEY(target, layer, prec)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS layer(id TEXT PRIMARY KEY, kind TEXT, op TEXT, name TEXT,"
    " key TEXT);"
    "CREATE TABLE IF NOT EXISTS model_run(id INTEGER PRIMARY KEY, model TEXT NOT NULL,"
    " batch INTEGER NOT NULL, path TEXT, nodes INTEGER, UNIQUE(model, batch));"
    "CREATE TABLE IF NOT EXISTS node(run INTEGER NOT NULL, idx INTEGER NOT NULL, op TEXT,"
    " class TEXT, layer TEXT, grp INTEGER, preds TEXT, name TEXT, PRIMARY KEY(run, idx));"
    "CREATE TABLE IF NOT EXISTS fgroup(run INTEGER NOT NULL, grp INTEGER NOT NULL,"
    " pattern TEXT, layer TEXT, members TEXT, PRIMARY KEY(run, grp));"
    /* a group's parts fused on their own (the manifest's part lines, IDX their order: a
     * convolution's SiLU, the convolution with its batch norm), for the members' side of the
     * group's cost; a table of its own, so older databases take it */
    AGG_FPART_SQL
    /* the 4-D activations a channels-last plan may transpose (manifest relayout lines, in
     * their order: idx) */
    "CREATE TABLE IF NOT EXISTS relayout(run INTEGER NOT NULL, idx INTEGER NOT NULL, producer INTEGER,"
    " readers TEXT, elementwise TEXT, output INTEGER, to_nhwc TEXT, to_nchw TEXT, PRIMARY KEY(run, idx));"
    "CREATE TABLE IF NOT EXISTS measured(model TEXT NOT NULL, batch INTEGER NOT NULL,"
    " dtype TEXT NOT NULL, device TEXT NOT NULL, framework TEXT NOT NULL,"
    " threads INTEGER NOT NULL, node TEXT NOT NULL, latency_us REAL NOT NULL, runs INTEGER,"
    " note TEXT, PRIMARY KEY(model, batch, dtype, device, framework, threads, node));";

int agg_db_open(struct agg_db *d, const char *path, int create)
{
    memset(d, 0, sizeof(*d));
    d->path = path;
    struct stat st;
    if (!create && stat(path, &st) != 0) {
        fprintf(stderr,
                "%s: error: no database (run `agg ingest` first; `agg ingest DIR` keeps DIR/results.db, which "
                "`agg --db DIR/results.db report` reads): %s\n",
                path, strerror(errno));
        return -1;
    }
    /* one thread uses the connection: no per-call mutex */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: error: cannot open the database: %s\n", path,
                d->db ? sqlite3_errmsg(d->db) : "out of memory");
        agg_db_close(d);
        return -1;
    }
    sqlite3_busy_timeout(d->db, 5000);
    char *msg = NULL;
    /* a crash mid-ingest must not corrupt the database: SQLite's rollback journal keeps it
     * consistent (WAL would write a big ingest twice: to the log, then to the database); a
     * large page cache because inserting a million rows into a B-tree keyed by benchmark name
     * touches pages all over it; 64 KiB pages (new databases only) because its rows are long
     * (30 columns) and a shallower tree with fewer splits made a 1M-row ingest 15 % faster */
    if (sqlite3_exec(d->db, "PRAGMA page_size=65536; PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;"
                            " PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY;", NULL, NULL,
                     &msg) != SQLITE_OK ||
        sqlite3_exec(d->db, agg_schema_sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: error: not a benanza results database: %s\n", path,
                msg ? msg : "?");
        sqlite3_free(msg);
        agg_db_close(d);
        return -1;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT idx FROM fpart LIMIT 0", -1, &s, NULL) != SQLITE_OK &&
        sqlite3_exec(d->db, "DROP TABLE IF EXISTS fpart; " AGG_FPART_SQL, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: error: cannot make the parts table again: %s\n", path, msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_finalize(s);
        agg_db_close(d);
        return -1;
    }
    sqlite3_finalize(s);
    s = NULL;
    int ok = 0, have = -1;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM meta WHERE key='schema'", -1, &s, NULL) ==
        SQLITE_OK) {
        have = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    }
    sqlite3_finalize(s);
    if (have == AGG_DB_SCHEMA) {
        ok = 1;
    } else if (have == 0) {
        ok = sqlite3_exec(d->db, "INSERT INTO meta VALUES('schema','4')", NULL, NULL, NULL) == SQLITE_OK;
    } else if (have >= 1 && have <= 3) {
        /* schema 1 lacked the method, kernel_us and busy columns, schema 2 the best rows'
         * configuration, schema 3 their kernel time: added, the rows kept. The best rows'
         * kernel time comes from the row of their median, found through an index made for the
         * purpose (one pass over the results, not one per best row) */
        static const char *const step[] = {
            "ALTER TABLE result ADD COLUMN method TEXT; ALTER TABLE result ADD COLUMN kernel_us REAL;"
            " ALTER TABLE result ADD COLUMN busy INTEGER; ALTER TABLE best ADD COLUMN kernels TEXT;"
            " ALTER TABLE best ADD COLUMN busy INTEGER;",
            "ALTER TABLE best ADD COLUMN config TEXT;",
            "ALTER TABLE best ADD COLUMN kernel_us REAL;"
            " CREATE INDEX agg_upgrade_ix ON result(target, run, layer, prec, algo, median_us);"
            " UPDATE best SET kernel_us = (SELECT r.kernel_us FROM result r WHERE r.target = best.target"
            " AND r.run = best.run AND r.layer = best.layer AND r.prec = best.prec AND r.algo = best.algo"
            " AND r.status = 'ok' AND r.median_us = best.median_us LIMIT 1);"
            " DROP INDEX agg_upgrade_ix;",
        };
        char *q = agg_xprintf("BEGIN; %s%s%s UPDATE meta SET value='4' WHERE key='schema'; COMMIT;",
                              have <= 1 ? step[0] : "", have <= 2 ? step[1] : "", step[2]);
        ok = sqlite3_exec(d->db, q, NULL, NULL, &msg) == SQLITE_OK;
        free(q);
        if (!ok) {
            fprintf(stderr, "%s: error: cannot update the database from schema %d: %s\n", path, have, msg ? msg : "?");
            sqlite3_free(msg);
            sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        }
    } else if (have > 0) {
        fprintf(stderr, "%s: error: database schema %d, this agg reads %d\n", path, have, AGG_DB_SCHEMA);
    }
    /* a database written before the summary tables existed: fill them once from the
     * results (checked first: the fill scans every result row) */
    static const char *const fill[][2] = {
        {"best", "INSERT INTO best(target, run, layer, prec, algo, median_us, kernel_us) SELECT target, run, layer, prec, algo,"
                 " min(median_us), kernel_us FROM result" /* SQLite: a bare column of min()'s row */
                 " WHERE status='ok' GROUP BY target, run, layer, prec, algo"},
        {"pick", "INSERT INTO pick SELECT target, run, layer, prec, choice, chosen, max(time) FROM result"
                 " WHERE choice IS NOT NULL GROUP BY target, run, layer, prec, choice"},
        {"work", "INSERT INTO work SELECT target, layer, prec, max(flops), max(bytes) FROM result"
                 " WHERE status='ok' GROUP BY target, layer, prec"},
        {"calib", "INSERT INTO calib SELECT target, layer, prec, min(median_us), max(flops), max(bytes), note FROM result"
                  " WHERE status='ok' AND layer LIKE 'calib-%' GROUP BY target, layer, prec"},
    };
    for (int i = 0; ok && i < (int)(sizeof(fill) / sizeof(fill[0])); i++) {
        char *q = agg_xprintf("SELECT EXISTS(SELECT 1 FROM %s) OR NOT EXISTS(SELECT 1 FROM result)", fill[i][0]);
        int filled = 1;
        if (sqlite3_prepare_v2(d->db, q, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
            filled = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
        free(q);
        if (!filled && sqlite3_exec(d->db, fill[i][1], NULL, NULL, &msg) != SQLITE_OK) {
            fprintf(stderr, "%s: error: database: %s\n", path, msg ? msg : "?");
            sqlite3_free(msg);
            ok = 0;
        }
    }
    if (!ok) {
        agg_db_close(d);
        return -1;
    }
    return 0;
}

void agg_db_close(struct agg_db *d)
{
    if (d->db)
        sqlite3_close(d->db);
    d->db = NULL;
}

/* ---- shared ingest plumbing ---- */

struct agg_ing {
    struct agg_db *d;
    const char *path;
    const char *run;
    struct agg_ingest_stats *st;
    FILE *err;
    long bad_here;
    sqlite3_int64 ingest_id; /* tells rows of this file from rows an earlier ingest wrote */
    int whole_file;          /* a bad line rejects the whole file (manifests) */
    int cols1, cols2;        /* the column counts a record may have (0: any) */
};

static void agg_bad(struct agg_ing *g, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void agg_bad(struct agg_ing *g, long line, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* the message quotes the file: escaped, so that the file cannot drive the terminal */
    agg_fput_safe(g->err, g->path);
    fprintf(g->err, ":%ld: ", line);
    agg_fput_safe(g->err, msg);
    fputs(g->whole_file ? "\n" : " (row skipped)\n", g->err);
    g->st->rows_bad++;
    g->bad_here++;
}

static int agg_sql_fail(struct agg_ing *g, const char *what)
{
    fprintf(g->err, "%s: error: database %s: %s\n", g->d->path, what, sqlite3_errmsg(g->d->db));
    return -1;
}

static int agg_prepare(struct agg_ing *g, const char *sql, sqlite3_stmt **s)
{
    if (sqlite3_prepare_v2(g->d->db, sql, -1, s, NULL) != SQLITE_OK)
        return agg_sql_fail(g, "prepare");
    return 0;
}

/* every bound text lives in the reader's record until the statement has run */
static void agg_bind_text(sqlite3_stmt *s, int i, const char *v)
{
    sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

/* a number column: empty -> NULL; returns -1 (and says why) when not a number; s NULL:
 * checked and parsed only */
static int agg_bind_num(struct agg_ing *g, long line, sqlite3_stmt *s, int i, const char *col,
                        const char *v, int integer, int nonneg, double *out)
{
    *out = NAN;
    if (!*v) {
        if (s)
            sqlite3_bind_null(s, i);
        return 0;
    }
    double x;
    long n;
    if (integer ? agg_parse_long(v, &n) : agg_parse_double(v, &x)) {
        agg_bad(g, line, "column %s: '%.40s' is not %s", col, v, integer ? "an integer" : "a number");
        return -1;
    }
    if (integer)
        x = (double)n;
    if (nonneg && x < 0) {
        agg_bad(g, line, "column %s: negative value %s", col, v);
        return -1;
    }
    if (s && integer)
        sqlite3_bind_int64(s, i, n);
    else if (s)
        sqlite3_bind_double(s, i, x);
    *out = x;
    return 0;
}

static int agg_is_time(const char *t)
{
    /* YYYY-MM-DDTHH:MM:SSZ */
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(t) != sizeof(pat) - 1)
        return 0;
    for (size_t i = 0; pat[i]; i++) {
        if (pat[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != pat[i])
            return 0;
    }
    return 1;
}

static int agg_float_dtype(const char *t)
{
    return !strcmp(t, "f32") || !strcmp(t, "f16") || !strcmp(t, "bf16") || !strcmp(t, "tf32") ||
           !strcmp(t, "f64") || !strcmp(t, "f8");
}

/* the next record to ingest: 1, or 0 at the end of the file, -1 when reading failed (said).
 * Skipped here: the header (line 1, checked by the caller), blank lines, and a record cut
 * by the end of the file (reported) */
static int agg_next_row(struct agg_ing *g, struct agg_reader *r)
{
    int k;
    while ((k = agg_reader_next(r)) == 1) {
        /* a quote never closed swallows the lines after it: this record's first line is bad,
         * the rest is read again as rows of their own */
        int runaway = r->unclosed || (r->multiline && g->cols1 && r->nfields != g->cols1 && r->nfields != g->cols2);
        if (runaway && r->multiline) {
            agg_bad(g, r->line, "a quote that is not closed on its line");
            if (agg_reader_resync(r) != 0) {
                k = -1;
                break;
            }
            continue;
        }
        if (r->has_nul) {
            agg_bad(g, r->line, "a NUL byte in the row");
            continue;
        }
        if (r->truncated) {
            agg_bad(g, r->line, r->unclosed ? "a quote that is not closed (the file ends inside it)"
                                            : "truncated row (the file ends inside it)");
            continue;
        }
        if (r->line == 1 || (r->nfields == 1 && !*r->fields[0]))
            continue;
        return 1;
    }
    if (k < 0)
        fprintf(g->err, "%s: error: read failed: %s\n", g->path, strerror(errno));
    return k;
}

/* ---- results CSV ---- */

/* schema 2's columns; a schema 1 row (no method, kernel_us, busy) is read into the same places */
enum {
    RC_SCHEMA, RC_BENCH, RC_LAYER, RC_LAYER_NAME, RC_OP, RC_BACKEND, RC_IMPL, RC_DTYPE, RC_MATH,
    RC_STATUS, RC_ITERS, RC_MIN, RC_MEDIAN, RC_MEAN, RC_P90, RC_MAX, RC_STDDEV, RC_WORKSPACE,
    RC_FLOPS, RC_BYTES, RC_THREADS, RC_RSS, RC_DEVICE, RC_CC, RC_SMS, RC_LIB, RC_HOST, RC_TIME,
    RC_METHOD, RC_KERNEL_US, RC_BUSY, RC_NOTE, RC_COUNT
};
enum { RC_COUNT_V1 = 29 };
static const char *const agg_result_cols[RC_COUNT] = {
    "schema", "bench", "layer", "layer_name", "op", "backend", "impl", "dtype", "math",
    "status", "iters", "min_us", "median_us", "mean_us", "p90_us", "max_us", "stddev_us",
    "workspace_bytes", "flops", "bytes", "threads", "peak_rss_kb", "device", "cc", "sms", "lib",
    "host", "time", "method", "kernel_us", "busy", "note"};
static const char *const agg_methods[] = {"cpu", "blocking", "graph", "graph-host", "events", "cold", "cold-events"};
static const char *const agg_statuses[] = {"ok", "unsupported", "oom", "error", "nodevice",
                                           "wrong", "advice"};

/* the algorithm's name: the bench stem without its LAYER-TYPE- prefix (keeps layout and
 * primitive variants apart); the impl column when the stem has another form */
static const char *agg_algo_of(const char *bench, const char *layer, const char *impl)
{
    size_t n = strlen(layer);
    if (!strncmp(bench, layer, n) && bench[n] == '-') {
        const char *t = strchr(bench + n + 1, '-');
        if (t && t[1])
            return t + 1;
    }
    return impl;
}

/* note tokens are separated by "; ": choice=heuristic marks the library's default pick;
 * an advice row's note holds ranking=ALGO>ALGO>... */
/* The configuration a backend-API engine's or a cuBLASLt algorithm's row names at the start of
 * its note ("engine 12, heuristic mode A rank 0 of 3: numerical notes ...; knobs ...;
 * workspace ..." or "cuBLASLt heuristic rank 0 of 8: algo id ..."), up to the first tag
 * ("; key=value") or --verify's check ("; verify: ..."); NULL for other notes */
static char *agg_note_config(const char *note)
{
    if (!note || (strncmp(note, "engine ", 7) && strncmp(note, "cuBLASLt heuristic rank ", 24)))
        return NULL;
    size_t n = 0;
    for (; note[n]; n++) {
        if (note[n] != ';' || note[n + 1] != ' ')
            continue;
        if (!strncmp(note + n + 2, "verify: ", 8))
            break; /* --verify's check after the configuration */
        size_t k = n + 2;
        while ((note[k] >= 'a' && note[k] <= 'z') || note[k] == '_')
            k++;
        if (k > n + 2 && note[k] == '=')
            break;
    }
    char *c = agg_xmalloc(n + 1);
    memcpy(c, note, n);
    c[n] = '\0';
    return c;
}

static int agg_note_token(const char *note, const char *key, char *out, size_t n)
{
    size_t k = strlen(key);
    for (const char *p = note; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > k && !strncmp(p, key, k) && p[k] == '=') {
            size_t v = len - k - 1;
            if (v >= n)
                v = n - 1;
            memcpy(out, p + k + 1, v);
            out[v] = '\0';
            return 1;
        }
        p = e;
    }
    return 0;
}

static long agg_target_id(struct agg_ing *g, struct agg_map *cache, char **f, long threads)
{
    char *key = agg_xprintf("%s\x1f%s\x1f%s\x1f%ld", f[RC_BACKEND], f[RC_DEVICE], f[RC_LIB],
                            threads);
    void *v = agg_map_get(cache, key);
    if (v) {
        free(key);
        return (long)(intptr_t)v;
    }
    sqlite3_stmt *s = NULL;
    long id = -1, sms = 0;
    if (agg_prepare(g, "INSERT OR IGNORE INTO target(backend, device, lib, threads, cc, sms)"
                       " VALUES(?,?,?,?,?,?)", &s))
        goto out;
    agg_bind_text(s, 1, f[RC_BACKEND]);
    agg_bind_text(s, 2, f[RC_DEVICE]);
    agg_bind_text(s, 3, f[RC_LIB]);
    sqlite3_bind_int64(s, 4, threads);
    agg_bind_text(s, 5, f[RC_CC]);
    if (agg_parse_long(f[RC_SMS], &sms) == 0)
        sqlite3_bind_int64(s, 6, sms);
    if (sqlite3_step(s) != SQLITE_DONE) {
        agg_sql_fail(g, "insert");
        goto out;
    }
    sqlite3_finalize(s);
    s = NULL;
    if (agg_prepare(g, "SELECT id FROM target WHERE backend=? AND device=? AND lib=? AND threads=?",
                    &s))
        goto out;
    agg_bind_text(s, 1, f[RC_BACKEND]);
    agg_bind_text(s, 2, f[RC_DEVICE]);
    agg_bind_text(s, 3, f[RC_LIB]);
    sqlite3_bind_int64(s, 4, threads);
    if (sqlite3_step(s) == SQLITE_ROW)
        id = (long)sqlite3_column_int64(s, 0);
    if (id >= 0)
        agg_map_put(cache, key, (void *)(intptr_t)id);
out:
    sqlite3_finalize(s);
    free(key);
    return id;
}

/* The summary tables (best, pick) gathered in memory while a file is read and written once
 * per key, in key order, when the batch ends: one upsert per row into a second B-tree as large
 * as the result table cost about a fifth of an ingest. The key, "TARGET\x1fLAYER\x1fPREC\x1fALGO"
 * (PICK: CHOICE last) with the target zero-padded, sorts like the tables' primary keys; the
 * value keeps the lengths of its parts, since model text may contain any byte. */
struct agg_pend {
    unsigned layer_len, prec_len;
    double median;      /* best: the fastest median of the batch, its row's kernel time,
                           kernels, busy and configuration */
    double kernel_us;
    char *kernels, *config;
    int busy;
    char time[24];      /* pick: the latest row's time and choice */
    char *chosen;
    double flops, bytes; /* work: the layer's, the largest any row of the batch gave */
};

struct agg_summary {
    struct agg_map best, pick, work;
    sqlite3_stmt *calib; /* calibration rows (a handful) go straight to their table */
};

/* keys held before a flush: bounds memory on huge files; BENANZA_AGG_BATCH=N sets another
 * bound (the tests use a tiny one to make a small file flush many times) */
static size_t agg_pend_max(void)
{
    const char *e = getenv("BENANZA_AGG_BATCH");
    long n = e ? strtol(e, NULL, 10) : 0;
    return n > 0 ? (size_t)n : (size_t)1 << 18;
}

static struct agg_pend *agg_pend_at(struct agg_map *m, long tid, const char *layer,
                                    const char *prec, const char *last, int *fresh)
{
    size_t n = strlen(layer) + strlen(prec) + strlen(last) + 32;
    char stack[512], *key = n <= sizeof(stack) ? stack : agg_xmalloc(n);
    snprintf(key, n, "%020ld\x1f%s\x1f%s\x1f%s", tid, layer, prec, last);
    struct agg_pend *p = agg_map_get(m, key);
    *fresh = !p;
    if (!p) {
        p = agg_xcalloc(1, sizeof(*p));
        p->layer_len = (unsigned)strlen(layer);
        p->prec_len = (unsigned)strlen(prec);
        agg_map_put(m, key, p);
    }
    if (key != stack)
        free(key);
    return p;
}

static int agg_slot_cmp(const void *a, const void *b)
{
    return strcmp(((const struct agg_map_slot *)a)->key, ((const struct agg_map_slot *)b)->key);
}

static void agg_pend_free(void *v)
{
    struct agg_pend *p = v;
    free(p->chosen);
    free(p->kernels);
    free(p->config);
    free(p);
}

enum agg_pend_kind { AGG_PEND_BEST, AGG_PEND_PICK, AGG_PEND_WORK };

/* writes one map's entries through stmt (?1 target, ?2 run, ?3 layer, ?4 prec, ?5 algo or
 * choice, then the values) in key order and empties it; -1 on a database failure */
static int agg_pend_flush(struct agg_ing *g, struct agg_map *m, sqlite3_stmt *stmt, enum agg_pend_kind kind)
{
    /* the live slots, sorted, in an array of their own: the map itself stays as it is
     * and agg_map_free empties it */
    size_t n = 0;
    struct agg_map_slot *v = agg_xmalloc((m->n ? m->n : 1) * sizeof(*v));
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            v[n++] = m->slots[i];
    if (n > 1)
        qsort(v, n, sizeof(*v), agg_slot_cmp);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *k = v[i].key;
        const struct agg_pend *p = v[i].val;
        const char *layer = k + 21, *prec = layer + p->layer_len + 1;
        sqlite3_reset(stmt);
        sqlite3_bind_int64(stmt, 1, strtoll(k, NULL, 10));
        sqlite3_bind_text(stmt, 2, g->run, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 3, layer, (int)p->layer_len, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 4, prec, (int)p->prec_len, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 5, prec + p->prec_len + 1, -1, SQLITE_STATIC);
        if (kind == AGG_PEND_PICK) {
            sqlite3_bind_text(stmt, 6, p->chosen, -1, SQLITE_STATIC);
            sqlite3_bind_text(stmt, 7, p->time, -1, SQLITE_STATIC);
        } else if (kind == AGG_PEND_WORK) {
            sqlite3_bind_double(stmt, 6, p->flops);
            sqlite3_bind_double(stmt, 7, p->bytes);
        } else {
            sqlite3_bind_double(stmt, 6, p->median);
            if (p->kernels)
                sqlite3_bind_text(stmt, 7, p->kernels, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(stmt, 7);
            if (p->busy >= 0)
                sqlite3_bind_int(stmt, 8, p->busy);
            else
                sqlite3_bind_null(stmt, 8);
            if (p->config)
                sqlite3_bind_text(stmt, 9, p->config, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(stmt, 9);
            if (isnan(p->kernel_us))
                sqlite3_bind_null(stmt, 10);
            else
                sqlite3_bind_double(stmt, 10, p->kernel_us);
        }
        if (sqlite3_step(stmt) != SQLITE_DONE)
            rc = agg_sql_fail(g, "insert");
    }
    sqlite3_reset(stmt);
    free(v);
    agg_map_free(m, agg_pend_free);
    return rc;
}

static int agg_summary_flush(struct agg_ing *g, struct agg_summary *sm, sqlite3_stmt *best,
                             sqlite3_stmt *pick, sqlite3_stmt *work)
{
    int rc = agg_pend_flush(g, &sm->best, best, AGG_PEND_BEST);
    int rc2 = agg_pend_flush(g, &sm->pick, pick, AGG_PEND_PICK);
    int rc3 = agg_pend_flush(g, &sm->work, work, AGG_PEND_WORK);
    return rc || rc2 || rc3 ? -1 : 0;
}

/* validate and insert one results row; 0 added, 1 already there, -1 bad row, -2 db failure */
static int agg_result_row(struct agg_ing *g, struct agg_reader *r, sqlite3_stmt *ins,
                          sqlite3_stmt *same, struct agg_summary *sm, struct agg_map *targets)
{
    char **f = r->fields, *v1[RC_COUNT];
    long line = r->line;
    static char empty[] = "";
    if (r->nfields == RC_COUNT_V1 && !strcmp(f[RC_SCHEMA], "1")) {
        for (int i = 0; i < RC_METHOD; i++)
            v1[i] = f[i];
        v1[RC_METHOD] = v1[RC_KERNEL_US] = v1[RC_BUSY] = empty;
        v1[RC_NOTE] = f[RC_COUNT_V1 - 1];
        f = v1;
    } else if (r->nfields != RC_COUNT) {
        agg_bad(g, line, "%d columns, expected %d (schema 2) or %d (schema 1)", r->nfields, RC_COUNT, RC_COUNT_V1);
        return -1;
    } else if (strcmp(f[RC_SCHEMA], "2")) {
        agg_bad(g, line, "schema '%.20s', this agg reads schemas 1 and 2", f[RC_SCHEMA]);
        return -1;
    }
    static const int required[] = {RC_BENCH, RC_LAYER, RC_BACKEND, RC_DTYPE, RC_STATUS,
                                   RC_DEVICE, RC_HOST, RC_TIME};
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (!*f[required[i]]) {
            agg_bad(g, line, "column %s is empty", agg_result_cols[required[i]]);
            return -1;
        }
    }
    if (strcmp(f[RC_BACKEND], "cpu") && strcmp(f[RC_BACKEND], "cuda")) {
        agg_bad(g, line, "unknown backend '%.20s' (cpu or cuda)", f[RC_BACKEND]);
        return -1;
    }
    int known = 0;
    for (size_t i = 0; i < sizeof(agg_statuses) / sizeof(agg_statuses[0]); i++)
        known |= !strcmp(f[RC_STATUS], agg_statuses[i]);
    if (!known) {
        agg_bad(g, line, "unknown status '%.20s'", f[RC_STATUS]);
        return -1;
    }
    if (!agg_is_time(f[RC_TIME])) {
        agg_bad(g, line, "column time: '%.30s' is not YYYY-MM-DDTHH:MM:SSZ", f[RC_TIME]);
        return -1;
    }
    int method_ok = !*f[RC_METHOD];
    for (size_t i = 0; i < sizeof(agg_methods) / sizeof(agg_methods[0]); i++)
        method_ok |= !strcmp(f[RC_METHOD], agg_methods[i]);
    if (!method_ok) {
        agg_bad(g, line, "unknown method '%.20s'", f[RC_METHOD]);
        return -1;
    }
    if (*f[RC_BUSY] && strcmp(f[RC_BUSY], "0") && strcmp(f[RC_BUSY], "1")) {
        agg_bad(g, line, "column busy: '%.20s' is not 0, 1 or empty", f[RC_BUSY]);
        return -1;
    }
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    double v[RC_COUNT];
    static const int nums[] = {RC_ITERS, RC_MIN, RC_MEDIAN, RC_MEAN, RC_P90, RC_MAX, RC_STDDEV,
                               RC_WORKSPACE, RC_FLOPS, RC_BYTES, RC_THREADS, RC_RSS, RC_SMS,
                               RC_KERNEL_US, RC_BUSY};
    /* parameter index of each column in the insert statement below; 0: not bound here */
    static const int param[RC_COUNT] = {
        [RC_ITERS] = 15, [RC_MIN] = 16, [RC_MEDIAN] = 17, [RC_MEAN] = 18, [RC_P90] = 19,
        [RC_MAX] = 20, [RC_STDDEV] = 21, [RC_WORKSPACE] = 22, [RC_FLOPS] = 23, [RC_BYTES] = 24,
        [RC_RSS] = 25, [RC_KERNEL_US] = 32, [RC_BUSY] = 33};
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        int c = nums[i];
        int integer = c == RC_ITERS || c == RC_WORKSPACE || c == RC_THREADS || c == RC_RSS ||
                      c == RC_SMS || c == RC_BUSY;
        if (agg_bind_num(g, line, param[c] ? ins : NULL, param[c], agg_result_cols[c], f[c], integer, 1, &v[c]))
            return -1;
    }
    if (!strcmp(f[RC_STATUS], "ok")) {
        if (isnan(v[RC_MIN]) || isnan(v[RC_MEDIAN]) || isnan(v[RC_MAX]) || !(v[RC_ITERS] >= 1)) {
            agg_bad(g, line, "status ok without iters, min_us, median_us and max_us");
            return -1;
        }
        /* the statistics of one sample set are ordered; allow print rounding */
        double eps = 1e-6 * v[RC_MAX] + 1e-3;
        if (v[RC_MIN] > v[RC_MEDIAN] + eps || v[RC_MEDIAN] > v[RC_MAX] + eps ||
            (!isnan(v[RC_P90]) && (v[RC_P90] + eps < v[RC_MEDIAN] || v[RC_P90] > v[RC_MAX] + eps))) {
            agg_bad(g, line, "times out of order (min %s, median %s, p90 %s, max %s)", f[RC_MIN],
                    f[RC_MEDIAN], f[RC_P90], f[RC_MAX]);
            return -1;
        }
    }
    long threads = isnan(v[RC_THREADS]) ? 0 : (long)v[RC_THREADS];
    long tid = agg_target_id(g, targets, f, threads);
    if (tid < 0)
        return -2;
    const char *algo = agg_algo_of(f[RC_BENCH], f[RC_LAYER], f[RC_IMPL]);
    const char *math = *f[RC_MATH] ? f[RC_MATH] : "default";
    char prec[64];
    if (!agg_float_dtype(f[RC_DTYPE]))
        snprintf(prec, sizeof(prec), "*");
    else if (!strcmp(math, "default"))
        snprintf(prec, sizeof(prec), "%s", f[RC_DTYPE]);
    else
        snprintf(prec, sizeof(prec), "%s+%s", f[RC_DTYPE], math);
    char chosen[256];
    const char *choice = NULL;
    if (!strcmp(f[RC_STATUS], "advice")) {
        if (strcmp(f[RC_IMPL], "heuristic") && strcmp(f[RC_IMPL], "find")) {
            agg_bad(g, line, "advice row with impl '%.20s' (heuristic or find)", f[RC_IMPL]);
            return -1;
        }
        if (!agg_note_token(f[RC_NOTE], "ranking", chosen, sizeof(chosen)) || !*chosen) {
            agg_bad(g, line, "advice row without ranking=ALGO>... in its note");
            return -1;
        }
        chosen[strcspn(chosen, ">")] = '\0';
        choice = f[RC_IMPL];
    } else if (!strcmp(f[RC_STATUS], "ok") &&
               agg_note_token(f[RC_NOTE], "choice", chosen, sizeof(chosen)) &&
               !strcmp(chosen, "heuristic")) {
        choice = "heuristic";
        snprintf(chosen, sizeof(chosen), "%s", algo);
    }
    sqlite3_bind_int64(ins, 1, tid);
    agg_bind_text(ins, 2, g->run);
    agg_bind_text(ins, 3, f[RC_BENCH]);
    agg_bind_text(ins, 4, f[RC_HOST]);
    agg_bind_text(ins, 5, f[RC_TIME]);
    agg_bind_text(ins, 6, f[RC_LAYER]);
    agg_bind_text(ins, 7, f[RC_LAYER_NAME]);
    agg_bind_text(ins, 8, f[RC_OP]);
    agg_bind_text(ins, 9, f[RC_IMPL]);
    agg_bind_text(ins, 10, algo);
    agg_bind_text(ins, 11, f[RC_DTYPE]);
    agg_bind_text(ins, 12, math);
    agg_bind_text(ins, 13, prec);
    agg_bind_text(ins, 14, f[RC_STATUS]);
    agg_bind_text(ins, 26, f[RC_NOTE]);
    if (choice) {
        agg_bind_text(ins, 27, choice);
        agg_bind_text(ins, 28, chosen);
    }
    sqlite3_bind_int64(ins, 29, g->ingest_id);
    sqlite3_bind_int64(ins, 30, line);
    if (*f[RC_METHOD])
        agg_bind_text(ins, 31, f[RC_METHOD]);
    if (sqlite3_step(ins) != SQLITE_DONE)
        return agg_sql_fail(g, "insert"), -2;
    if (sqlite3_changes(g->d->db) > 0) {
        int fresh;
        if (choice) {
            struct agg_pend *p = agg_pend_at(&sm->pick, tid, f[RC_LAYER], prec, choice, &fresh);
            /* the latest row's choice; the first of equal times (as the table's upsert) */
            if (fresh || strcmp(f[RC_TIME], p->time) > 0) {
                free(p->chosen);
                p->chosen = agg_xstrdup(chosen);
                snprintf(p->time, sizeof(p->time), "%s", f[RC_TIME]);
            }
        }
        if (strcmp(f[RC_STATUS], "ok"))
            return 0;
        struct agg_pend *w = agg_pend_at(&sm->work, tid, f[RC_LAYER], prec, "", &fresh);
        if (fresh || v[RC_FLOPS] > w->flops)
            w->flops = isnan(v[RC_FLOPS]) ? 0 : v[RC_FLOPS];
        if (fresh || v[RC_BYTES] > w->bytes)
            w->bytes = isnan(v[RC_BYTES]) ? 0 : v[RC_BYTES];
        if (!strncmp(f[RC_LAYER], "calib-", 6)) {
            sqlite3_reset(sm->calib);
            sqlite3_bind_int64(sm->calib, 1, tid);
            agg_bind_text(sm->calib, 2, f[RC_LAYER]);
            agg_bind_text(sm->calib, 3, prec);
            sqlite3_bind_double(sm->calib, 4, v[RC_MEDIAN]);
            sqlite3_bind_double(sm->calib, 5, isnan(v[RC_FLOPS]) ? 0 : v[RC_FLOPS]);
            sqlite3_bind_double(sm->calib, 6, isnan(v[RC_BYTES]) ? 0 : v[RC_BYTES]);
            agg_bind_text(sm->calib, 7, f[RC_NOTE]);
            if (sqlite3_step(sm->calib) != SQLITE_DONE)
                return agg_sql_fail(g, "insert"), -2;
        }
        struct agg_pend *p = agg_pend_at(&sm->best, tid, f[RC_LAYER], prec, algo, &fresh);
        if (fresh || v[RC_MEDIAN] < p->median) {
            char names[512];
            p->median = v[RC_MEDIAN];
            p->kernel_us = v[RC_KERNEL_US];
            free(p->kernels);
            p->kernels = agg_note_token(f[RC_NOTE], "kernel_names", names, sizeof(names)) ? agg_xstrdup(names) : NULL;
            p->busy = isnan(v[RC_BUSY]) ? -1 : (int)v[RC_BUSY];
            free(p->config);
            p->config = agg_note_config(f[RC_NOTE]);
        }
        return 0;
    }
    /* already there: the same row again is fine, a different one under the same key is not */
    sqlite3_reset(same);
    sqlite3_bind_int64(same, 1, tid);
    agg_bind_text(same, 2, g->run);
    agg_bind_text(same, 3, f[RC_BENCH]);
    agg_bind_text(same, 4, f[RC_HOST]);
    agg_bind_text(same, 5, f[RC_TIME]);
    int differs = 1;
    long first_line = -1;
    if (sqlite3_step(same) == SQLITE_ROW) {
        if (sqlite3_column_int64(same, 3) == g->ingest_id)
            first_line = (long)sqlite3_column_int64(same, 4);
        const char *st = (const char *)sqlite3_column_text(same, 0);
        double med = sqlite3_column_type(same, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(same, 1);
        const char *note = (const char *)sqlite3_column_text(same, 2);
        differs = strcmp(st ? st : "", f[RC_STATUS]) || strcmp(note ? note : "", f[RC_NOTE]) ||
                  !((isnan(med) && isnan(v[RC_MEDIAN])) || med == v[RC_MEDIAN]);
    }
    sqlite3_reset(same);
    if (first_line >= 0) {
        /* the same key twice in one file is a broken file, not a re-ingest */
        agg_bad(g, line, "duplicate key: benchmark %.60s on the same host at the same time as line %ld",
                f[RC_BENCH], first_line);
        return -1;
    }
    if (differs) {
        agg_bad(g, line, "conflicts with a row already in the database (benchmark %.60s, same host and time, other values)",
                f[RC_BENCH]);
        return -1;
    }
    return 1;
}

static int agg_ingest_results(struct agg_ing *g, struct agg_reader *r)
{
    sqlite3_stmt *ins = NULL, *same = NULL, *best = NULL, *pick = NULL, *work = NULL;
    struct agg_map targets = {0};
    struct agg_summary sm = {0};
    size_t pend_max = agg_pend_max();
    int rc = -1;
    if (agg_prepare(g, "INSERT OR IGNORE INTO result VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                       "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &ins) ||
        agg_prepare(g, "SELECT status, median_us, note, src_ingest, src_line FROM result WHERE target=? AND run=? AND"
                       " bench=? AND host=? AND time=?", &same) ||
        agg_prepare(g, "INSERT INTO best VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10) ON CONFLICT DO UPDATE SET"
                       " median_us=?6, kernels=?7, busy=?8, config=?9, kernel_us=?10 WHERE ?6 < median_us", &best) ||
        agg_prepare(g, "INSERT INTO pick VALUES(?1,?2,?3,?4,?5,?6,?7) ON CONFLICT DO UPDATE SET"
                       " chosen=?6, time=?7 WHERE ?7 > time", &pick) ||
        /* ?2 (run) and ?5 are bound by the flush and unused here */
        agg_prepare(g, "INSERT INTO work VALUES(?1,?3,?4,?6,?7) ON CONFLICT DO UPDATE SET"
                       " flops=max(coalesce(flops, 0), ?6), bytes=max(coalesce(bytes, 0), ?7)", &work) ||
        agg_prepare(g, "INSERT INTO calib VALUES(?1,?2,?3,?4,?5,?6,?7) ON CONFLICT DO UPDATE SET"
                       " median_us=?4, flops=?5, bytes=?6, note=?7 WHERE ?4 < median_us", &sm.calib))
        goto out;
    int k;
    g->cols1 = RC_COUNT;
    g->cols2 = RC_COUNT_V1;
    while ((k = agg_next_row(g, r)) == 1) {
        if (!strcmp(r->fields[0], "schema"))
            continue; /* a header again (files appended to each other, or of another schema) */
        int x = agg_result_row(g, r, ins, same, &sm, &targets);
        if (x == -2)
            goto out;
        if ((sm.best.n >= pend_max || sm.pick.n >= pend_max || sm.work.n >= pend_max) &&
            agg_summary_flush(g, &sm, best, pick, work))
            goto out;
        if (x == 0)
            g->st->rows_added++;
        else if (x == 1)
            g->st->rows_same++;
    }
    if (k < 0 || agg_summary_flush(g, &sm, best, pick, work))
        goto out;
    rc = 0;
out:
    agg_map_free(&sm.best, agg_pend_free);
    agg_map_free(&sm.pick, agg_pend_free);
    agg_map_free(&sm.work, agg_pend_free);
    sqlite3_finalize(sm.calib);
    sqlite3_finalize(work);
    sqlite3_finalize(ins);
    sqlite3_finalize(same);
    sqlite3_finalize(best);
    sqlite3_finalize(pick);
    agg_map_free(&targets, NULL);
    return rc;
}

/* ---- manifest ---- */

static void agg_tsv_unescape(char *s)
{
    char *w = s;
    for (char *p = s; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            *w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
}

static int agg_int_list(const char *s)
{
    if (!strcmp(s, "-"))
        return 1;
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++) {
        if (!((*p >= '0' && *p <= '9') || (*p == ',' && p != s && p[1] && p[1] != ',')))
            return 0;
    }
    return 1;
}

struct agg_mrun {
    long id, nodes, groups, relayouts;
    unsigned char *grouped, *parted; /* per group index (below nodes): a group line came, the part lines */
    int *group_of;                   /* per node: 1 + the group whose line lists it, 0 none */
    unsigned char *in_part;          /* per node: a part line listed it */
};

static void agg_mrun_free(void *p)
{
    struct agg_mrun *mr = p;
    free(mr->grouped);
    free(mr->parted);
    free(mr->group_of);
    free(mr->in_part);
    free(mr);
}

/* whether every node of LIST ("1,2,3", each below the run's nodes) is a member of group A and
 * in no part yet; if so they are marked as in one */
static int agg_part_nodes(struct agg_mrun *mr, const char *list, long a)
{
    int n, ok = mr->group_of != NULL, *v = agg_parse_list(list, &n);
    if (!mr->in_part)
        mr->in_part = agg_xcalloc((size_t)mr->nodes + 1, 1);
    for (int k = 0; k < n && ok; k++)
        ok = mr->group_of[v[k]] == a + 1 && !mr->in_part[v[k]];
    for (int k = 0; k < n && ok; k++)
        mr->in_part[v[k]] = 1;
    free(v);
    return ok;
}

/* every number of a "1,2,3" list (or "-") is below n */
static int agg_list_below(const char *s, long n)
{
    if (!strcmp(s, "-"))
        return 1;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v >= n)
            return 0;
        s = *end == ',' ? end + 1 : end;
    }
    return 1;
}

static int agg_ingest_manifest(struct agg_ing *g, struct agg_reader *r)
{
    sqlite3_stmt *layer = NULL, *run = NULL, *runid = NULL, *node = NULL, *grp = NULL,
                 *del_n = NULL, *del_g = NULL, *rel = NULL, *del_r = NULL, *part = NULL, *del_p = NULL;
    struct agg_map runs = {0}; /* manifest RUN -> model_run id */
    int rc = -1, k;
    g->whole_file = 1;
    /* upserts that change nothing leave sqlite3_changes() at 0: that is how a re-ingest of
     * the same manifest is told from a new one */
    if (agg_prepare(g, "INSERT INTO layer VALUES(?1,?2,?3,?4,?5) ON CONFLICT(id) DO UPDATE SET"
                       " kind=?2, op=?3, name=?4, key=?5 WHERE kind IS NOT ?2 OR op IS NOT ?3 OR"
                       " name IS NOT ?4 OR key IS NOT ?5", &layer) ||
        agg_prepare(g, "INSERT INTO model_run(model, batch, path, nodes) VALUES(?1,?2,?3,?4)"
                       " ON CONFLICT(model, batch) DO UPDATE SET path=?3, nodes=?4 WHERE path IS NOT"
                       " ?3 OR nodes IS NOT ?4", &run) ||
        agg_prepare(g, "SELECT id FROM model_run WHERE model=? AND batch=?", &runid) ||
        agg_prepare(g, "INSERT INTO node VALUES(?1,?2,?3,?4,?5,?6,?7,?8) ON CONFLICT(run, idx) DO"
                       " UPDATE SET op=?3, class=?4, layer=?5, grp=?6, preds=?7, name=?8 WHERE op IS"
                       " NOT ?3 OR class IS NOT ?4 OR layer IS NOT ?5 OR grp IS NOT ?6 OR preds IS"
                       " NOT ?7 OR name IS NOT ?8", &node) ||
        agg_prepare(g, "INSERT INTO fgroup VALUES(?1,?2,?3,?4,?5) ON CONFLICT(run, grp) DO UPDATE"
                       " SET pattern=?3, layer=?4, members=?5 WHERE pattern IS NOT ?3 OR layer IS"
                       " NOT ?4 OR members IS NOT ?5", &grp) ||
        agg_prepare(g, "INSERT INTO fpart VALUES(?1,?2,?3,?4,?5,?6) ON CONFLICT(run, grp, idx) DO UPDATE"
                       " SET pattern=?4, layer=?5, members=?6 WHERE pattern IS NOT ?4 OR layer IS"
                       " NOT ?5 OR members IS NOT ?6", &part) ||
        agg_prepare(g, "DELETE FROM fpart WHERE run=?1 AND ((grp=?2 AND idx>=?3) OR grp>=?4)", &del_p) ||
        agg_prepare(g, "DELETE FROM node WHERE run=? AND idx>=?", &del_n) ||
        agg_prepare(g, "DELETE FROM fgroup WHERE run=? AND grp>=?", &del_g) ||
        agg_prepare(g, "INSERT INTO relayout VALUES(?1,?2,?3,?4,?5,?6,?7,?8) ON CONFLICT(run, idx) DO UPDATE SET"
                       " producer=?3, readers=?4, elementwise=?5, output=?6, to_nhwc=?7, to_nchw=?8 WHERE"
                       " producer IS NOT ?3 OR readers IS NOT ?4 OR elementwise IS NOT ?5 OR output IS NOT ?6"
                       " OR to_nhwc IS NOT ?7 OR to_nchw IS NOT ?8", &rel) ||
        agg_prepare(g, "DELETE FROM relayout WHERE run=? AND idx>=?", &del_r))
        goto out;
    while ((k = agg_next_row(g, r)) == 1) {
        char **f = r->fields;
        int n = r->nfields;
        long line = r->line, a, b;
        for (int i = 0; i < n; i++)
            agg_tsv_unescape(f[i]);
        sqlite3_stmt *s = NULL;
        if (!strcmp(f[0], "layer")) {
            if (n != 7) {
                agg_bad(g, line, "layer line with %d fields, expected 7", n);
                continue;
            }
            s = layer;
            sqlite3_reset(s);
            agg_bind_text(s, 1, f[1]);
            agg_bind_text(s, 2, f[2]);
            agg_bind_text(s, 3, f[3]);
            agg_bind_text(s, 4, f[4]);
            agg_bind_text(s, 5, f[6]);
        } else if (!strcmp(f[0], "run")) {
            if (n != 6 || agg_parse_long(f[3], &a) || a < 0 || agg_parse_long(f[5], &b) || b < 0) {
                agg_bad(g, line, "run line: expected RUN MODEL BATCH PATH NODES");
                continue;
            }
            sqlite3_reset(run);
            agg_bind_text(run, 1, f[2]);
            sqlite3_bind_int64(run, 2, a);
            agg_bind_text(run, 3, f[4]);
            sqlite3_bind_int64(run, 4, b);
            if (sqlite3_step(run) != SQLITE_DONE) {
                agg_sql_fail(g, "insert");
                goto out;
            }
            int changed = sqlite3_changes(g->d->db) > 0;
            sqlite3_reset(runid);
            agg_bind_text(runid, 1, f[2]);
            sqlite3_bind_int64(runid, 2, a);
            if (sqlite3_step(runid) != SQLITE_ROW) {
                agg_sql_fail(g, "select");
                goto out;
            }
            long id = (long)sqlite3_column_int64(runid, 0);
            if (agg_map_get(&runs, f[1])) {
                agg_bad(g, line, "run %s defined twice", f[1]);
                continue;
            }
            struct agg_mrun *mr = agg_xcalloc(1, sizeof(*mr));
            mr->id = id;
            mr->nodes = b;
            agg_map_put(&runs, f[1], mr);
            if (changed)
                g->st->rows_added++;
            else
                g->st->rows_same++;
            continue;
        } else if (!strcmp(f[0], "part")) {
            /* part RUN GROUP PATTERN LAYER MEMBERS, after its group's line */
            struct agg_mrun *id = n > 1 ? agg_map_get(&runs, f[1]) : NULL;
            if (n != 6 || agg_parse_long(f[2], &a) || a < 0 || !agg_int_list(f[5])) {
                agg_bad(g, line, "part line: malformed fields");
                continue;
            }
            if (!id || a >= id->groups || !id->grouped || !id->grouped[a]) {
                agg_bad(g, line, "part line for group %ld of run %s, which no group line defined before", a, f[1]);
                continue;
            }
            if (!agg_list_below(f[5], id->nodes) || !strcmp(f[5], "-")) {
                agg_bad(g, line, "part line: no nodes, or an index beyond the run's %ld nodes", id->nodes);
                continue;
            }
            if (!id->parted)
                id->parted = agg_xcalloc((size_t)id->nodes + 1, 1); /* groups <= nodes */
            if (id->parted[a] == AGG_MAX_PARTS) {
                agg_bad(g, line, "part line: more than %d parts for group %ld", AGG_MAX_PARTS, a);
                continue;
            }
            if (!agg_part_nodes(id, f[5], a)) {
                agg_bad(g, line, "part line: a node that is not a member of group %ld, or in another part of it", a);
                continue;
            }
            s = part;
            sqlite3_reset(s);
            sqlite3_bind_int64(s, 1, id->id);
            sqlite3_bind_int64(s, 2, a);
            sqlite3_bind_int64(s, 3, id->parted[a]++);
            agg_bind_text(s, 4, f[3]);
            agg_bind_text(s, 5, f[4]);
            agg_bind_text(s, 6, f[5]);
        } else if (!strcmp(f[0], "node") || !strcmp(f[0], "group")) {
            int is_node = f[0][0] == 'n';
            struct agg_mrun *id = n > 1 ? agg_map_get(&runs, f[1]) : NULL;
            long gi = -1;
            if (n != (is_node ? 9 : 6) || agg_parse_long(f[2], &a) || a < 0 ||
                (is_node && strcmp(f[6], "-") && (agg_parse_long(f[6], &gi) || gi < 0)) ||
                !agg_int_list(is_node ? f[7] : f[5])) {
                agg_bad(g, line, "%s line: malformed fields", f[0]);
                continue;
            }
            if (!id) {
                agg_bad(g, line, "%s line for run %s, which no run line defined before", f[0], f[1]);
                continue;
            }
            /* indices within the run: a node (or group) index below its node count, and so
             * every predecessor and member */
            if (!agg_list_below(is_node ? f[7] : f[5], id->nodes) || a >= id->nodes) {
                agg_bad(g, line, "%s line: an index beyond the run's %ld nodes", f[0], id->nodes);
                continue;
            }
            s = is_node ? node : grp;
            sqlite3_reset(s);
            sqlite3_bind_int64(s, 1, id->id);
            if (!is_node && a + 1 > id->groups)
                id->groups = a + 1;
            if (!is_node) {
                if (!id->grouped)
                    id->grouped = agg_xcalloc((size_t)id->nodes + 1, 1); /* group indices are below nodes */
                id->grouped[a] = 1;
                if (!id->group_of)
                    id->group_of = agg_xcalloc((size_t)id->nodes + 1, sizeof(int));
                int nm, *mv = agg_parse_list(f[5], &nm);
                for (int j = 0; j < nm; j++)
                    id->group_of[mv[j]] = (int)a + 1;
                free(mv);
            }
            sqlite3_bind_int64(s, 2, a);
            agg_bind_text(s, 3, f[3]);
            agg_bind_text(s, 4, f[4]);
            if (is_node) {
                if (strcmp(f[5], "-"))
                    agg_bind_text(s, 5, f[5]);
                else
                    sqlite3_bind_null(s, 5);
                sqlite3_bind_int64(s, 6, gi);
                agg_bind_text(s, 7, f[7]);
                agg_bind_text(s, 8, f[8]);
            } else {
                agg_bind_text(s, 5, f[5]);
            }
        } else if (!strcmp(f[0], "relayout")) {
            /* relayout RUN PRODUCER|- READERS ELEMENTWISE OUTPUT TO_NHWC TO_NCHW */
            struct agg_mrun *id = n > 1 ? agg_map_get(&runs, f[1]) : NULL;
            long prod = -1;
            if (n != 8 || (strcmp(f[2], "-") && (agg_parse_long(f[2], &prod) || prod < 0)) || !agg_int_list(f[3]) ||
                !agg_int_list(f[4]) || (strcmp(f[5], "0") && strcmp(f[5], "1")) || !*f[6] || !*f[7]) {
                agg_bad(g, line, "relayout line: expected RUN PRODUCER READERS ELEMENTWISE OUTPUT TO_NHWC TO_NCHW");
                continue;
            }
            if (!id) {
                agg_bad(g, line, "relayout line for run %s, which no run line defined before", f[1]);
                continue;
            }
            if (prod >= id->nodes || !agg_list_below(f[3], id->nodes) || !agg_list_below(f[4], id->nodes)) {
                agg_bad(g, line, "relayout line: an index beyond the run's %ld nodes", id->nodes);
                continue;
            }
            s = rel;
            sqlite3_reset(s);
            sqlite3_bind_int64(s, 1, id->id);
            sqlite3_bind_int64(s, 2, id->relayouts++);
            sqlite3_bind_int64(s, 3, prod);
            agg_bind_text(s, 4, f[3]);
            agg_bind_text(s, 5, f[4]);
            sqlite3_bind_int64(s, 6, f[5][0] == '1');
            agg_bind_text(s, 7, f[6]);
            agg_bind_text(s, 8, f[7]);
        } else {
            agg_bad(g, line, "unknown line kind '%.20s'", f[0]);
            continue;
        }
        if (sqlite3_step(s) != SQLITE_DONE) {
            agg_sql_fail(g, "insert");
            goto out;
        }
        if (sqlite3_changes(g->d->db) > 0)
            g->st->rows_added++;
        else
            g->st->rows_same++;
    }
    if (k < 0)
        goto out;
    if (g->bad_here) {
        /* half a manifest would mix this run's nodes with an older one's: none of it */
        agg_fput_safe(g->err, g->path);
        fprintf(g->err, ": error: %ld bad line%s: the manifest is not ingested\n", g->bad_here,
                g->bad_here == 1 ? "" : "s");
        goto out;
    }
    /* a manifest describes its runs completely: drop what an older one had beyond them */
    for (size_t i = 0; i < runs.cap; i++) {
        struct agg_mrun *mr = runs.slots[i].key ? runs.slots[i].val : NULL;
        if (!mr)
            continue;
        sqlite3_reset(del_n);
        sqlite3_reset(del_g);
        sqlite3_bind_int64(del_n, 1, mr->id);
        sqlite3_bind_int64(del_n, 2, mr->nodes);
        sqlite3_bind_int64(del_g, 1, mr->id);
        sqlite3_bind_int64(del_g, 2, mr->groups);
        sqlite3_reset(del_r);
        sqlite3_bind_int64(del_r, 1, mr->id);
        sqlite3_bind_int64(del_r, 2, mr->relayouts);
        if (sqlite3_step(del_n) != SQLITE_DONE || sqlite3_step(del_g) != SQLITE_DONE ||
            sqlite3_step(del_r) != SQLITE_DONE) {
            agg_sql_fail(g, "delete");
            goto out;
        }
        /* the parts a group has no more, and those of groups beyond the run's */
        for (long gi = 0; gi <= mr->groups; gi++) {
            sqlite3_reset(del_p);
            sqlite3_bind_int64(del_p, 1, mr->id);
            sqlite3_bind_int64(del_p, 2, gi);
            sqlite3_bind_int64(del_p, 3, gi < mr->groups && mr->parted ? mr->parted[gi] : 0);
            sqlite3_bind_int64(del_p, 4, mr->groups);
            if (sqlite3_step(del_p) != SQLITE_DONE) {
                agg_sql_fail(g, "delete");
                goto out;
            }
        }
    }
    rc = 0;
out:
    sqlite3_finalize(layer);
    sqlite3_finalize(run);
    sqlite3_finalize(runid);
    sqlite3_finalize(node);
    sqlite3_finalize(grp);
    sqlite3_finalize(del_n);
    sqlite3_finalize(del_g);
    sqlite3_finalize(rel);
    sqlite3_finalize(del_r);
    sqlite3_finalize(part);
    sqlite3_finalize(del_p);
    agg_map_free(&runs, agg_mrun_free);
    return rc;
}

/* ---- measured latencies ---- */

static int agg_ingest_measured(struct agg_ing *g, struct agg_reader *r, int has_node)
{
    sqlite3_stmt *ins = NULL, *upd = NULL;
    int rc = -1, k;
    int ncols = has_node ? 10 : 9;
    g->cols1 = g->cols2 = ncols;
    if (agg_prepare(g, "INSERT OR IGNORE INTO measured VALUES(?,?,?,?,?,?,?,?,?,?)", &ins) ||
        agg_prepare(g, "UPDATE measured SET latency_us=?8, runs=?9, note=?10 WHERE model=?1 AND"
                       " batch=?2 AND dtype=?3 AND device=?4 AND framework=?5 AND threads=?6 AND"
                       " node=?7 AND (latency_us<>?8 OR runs IS NOT ?9 OR note IS NOT ?10)", &upd))
        goto out;
    while ((k = agg_next_row(g, r)) == 1) {
        char **f = r->fields;
        long line = r->line, batch, threads, runs = 0;
        double lat;
        if (r->nfields != ncols) {
            agg_bad(g, line, "%d columns, expected %d", r->nfields, ncols);
            continue;
        }
        if (!*f[0] || !*f[2] || !*f[3] || !*f[4]) {
            agg_bad(g, line, "model, dtype, device and framework must not be empty");
            continue;
        }
        if (agg_parse_long(f[1], &batch) || batch < 0 || agg_parse_long(f[5], &threads) ||
            threads < 0 || (*f[7] && (agg_parse_long(f[7], &runs) || runs < 0))) {
            agg_bad(g, line, "batch, threads and runs must be non-negative integers");
            continue;
        }
        if (agg_parse_double(f[6], &lat) || !(lat > 0)) {
            agg_bad(g, line, "column latency_us: '%.30s' is not a positive number", f[6]);
            continue;
        }
        for (int pass = 0; pass < 2; pass++) {
            sqlite3_stmt *s = pass ? upd : ins;
            sqlite3_reset(s);
            agg_bind_text(s, 1, f[0]);
            sqlite3_bind_int64(s, 2, batch);
            agg_bind_text(s, 3, f[2]);
            agg_bind_text(s, 4, f[3]);
            agg_bind_text(s, 5, f[4]);
            sqlite3_bind_int64(s, 6, threads);
            agg_bind_text(s, 7, has_node ? f[9] : "");
            sqlite3_bind_double(s, 8, lat);
            sqlite3_bind_int64(s, 9, runs);
            agg_bind_text(s, 10, f[8]);
            if (sqlite3_step(s) != SQLITE_DONE) {
                agg_sql_fail(g, "insert");
                goto out;
            }
            if (sqlite3_changes(g->d->db) > 0) {
                g->st->rows_added++;
                break;
            }
            if (pass)
                g->st->rows_same++;
        }
    }
    if (k < 0)
        goto out;
    rc = 0;
out:
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    return rc;
}

static int agg_ingest_file(struct agg_db *d, const char *path, const char *run,
                           struct agg_ingest_stats *st, FILE *err)
{
    static unsigned serial;
    struct agg_ing g = {.d = d, .path = path, .run = run ? run : "", .st = st, .err = err,
                        .ingest_id = ((sqlite3_int64)time(NULL) << 24) ^ ((sqlite3_int64)getpid() << 8) ^
                                     (sqlite3_int64)++serial};
    struct agg_reader r;
    char head[128] = "";
    FILE *f = fopen(path, "rb");
    if (!f) {
        agg_fput_safe(err, path);
        fprintf(err, ": error: cannot read: %s\n", strerror(errno));
        st->files_bad++;
        return -1;
    }
    size_t n = fread(head, 1, sizeof(head) - 1, f);
    head[n] = '\0';
    fclose(f);
    if (n >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
        memmove(head, head + 3, n - 2); /* a UTF-8 byte-order mark */
    enum { K_RESULTS, K_MANIFEST, K_MEASURED, K_MEASURED_NODE, K_NONE } kind = K_NONE;
    if (!strncmp(head, "schema,bench,layer,", 19))
        kind = K_RESULTS;
    else if (!strncmp(head, "benanza-manifest\t1\n", 19) || !strncmp(head, "benanza-manifest\t1\r", 19))
        kind = K_MANIFEST;
    else if (!strncmp(head, "model,batch,dtype,device,framework,threads,latency_us,runs,note", 63))
        kind = !strncmp(head + 63, ",node", 5) ? K_MEASURED_NODE : K_MEASURED;
    if (kind == K_NONE) {
        agg_fput_safe(err, path);
        if (!strncmp(head, "benanza-manifest\t", 17))
            fprintf(err, ":1: error: manifest version is not 1\n");
        else
            fprintf(err, ":1: error: not a benanza results CSV, manifest or measured-latency file\n");
        st->files_bad++;
        return -1;
    }
    if (agg_reader_open(&r, path, kind == K_MANIFEST ? '\t' : ',')) {
        fprintf(err, "%s: error: cannot read: %s\n", path, strerror(errno));
        st->files_bad++;
        return -1;
    }
    /* one transaction per file: fast, and a failure leaves the database as it was (and its
     * rows are not counted as added) */
    struct agg_ingest_stats before = *st;
    int rc = -1;
    if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        agg_sql_fail(&g, "begin");
        goto out;
    }
    if (kind == K_RESULTS)
        rc = agg_ingest_results(&g, &r);
    else if (kind == K_MANIFEST)
        rc = agg_ingest_manifest(&g, &r);
    else
        rc = agg_ingest_measured(&g, &r, kind == K_MEASURED_NODE);
    if (rc == 0 && sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = agg_sql_fail(&g, "commit");
    if (rc != 0) {
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        st->rows_added = before.rows_added;
        st->rows_same = before.rows_same;
    }
out:
    agg_reader_close(&r);
    if (rc)
        st->files_bad++;
    return rc;
}

int agg_ingest_path(struct agg_db *d, const char *path, const char *run,
                    struct agg_ingest_stats *st, FILE *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        agg_fput_safe(err, path);
        fprintf(err, ": error: %s\n", strerror(errno));
        st->files_bad++;
        return -1;
    }
    if (!S_ISDIR(sb.st_mode))
        return agg_ingest_file(d, path, run, st, err);
    static const char *const names[] = {"manifest.tsv", "results.csv", "measured.csv"};
    int found = 0, rc = 0;
    for (int i = 0; i < 3; i++) {
        char *p = agg_xprintf("%s/%s", path, names[i]);
        if (stat(p, &sb) == 0) {
            found++;
            if (agg_ingest_file(d, p, run, st, err))
                rc = -1;
        }
        free(p);
    }
    if (!found) {
        fprintf(err, "%s: error: no manifest.tsv, results.csv or measured.csv in this folder\n", path);
        st->files_bad++;
        return -1;
    }
    return rc;
}
