/* agg.c: benanza's aggregator: ingest results, manifests and measured latencies into a
 * SQLite database, and print the reports. */
#include "agg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AGG_DEFAULT_DB
#define AGG_DEFAULT_DB "out/results.db"
#endif

static void agg_usage(FILE *f)
{
    fprintf(f,
        "usage: agg [--db FILE] ingest [--run LABEL] PATH...\n"
        "       agg [--db FILE] report [options]\n"
        "       agg [--db FILE] [--run LABEL] [report options] PATH...   (ingest, then report)\n"
        "       agg specs [--specs FILE] [--format F]   (the GPU spec table)\n"
        "       agg --help | --version\n"
        "\n"
        "benanza's aggregator. PATH is a results CSV (run_all), a manifest (gen's manifest.tsv),\n"
        "a measured-latency CSV (scripts/measure-ort) or a benchmark folder holding them; in the\n"
        "ingest-then-report form a file's folder is searched for manifest.tsv too. Ingesting the\n"
        "same file twice changes nothing; a bad row is reported as FILE:LINE: reason and skipped.\n"
        "\n"
        "  --db FILE        the database (default %s, or DIR/results.db when the first PATH\n"
        "                   is a folder: ingest and ingest-then-report; created by ingest)\n"
        "  --run LABEL      ingest and ingest-then-report: label these rows' run (default none);\n"
        "                   report: only that run\n"
        "report options:\n"
        "  --report NAMES   comma-separated, or all (default): %s\n"
        "  --format F       table (default), csv, json, md or html\n"
        "  --model PAT      models matching a shell pattern;  --batch N  one batch size\n"
        "  --type PAT       types (f32, f16, bf16, f16+tensor_op, ...);  --device PAT  devices\n"
        "  --top N          table and md: rows per model shown in long tables (default 10; 0 all)\n"
        "  --colour WHEN    auto (default: on a terminal), always or never\n"
        "  --to GPU         predict each model on GPU (a name from `agg specs`) from every other GPU\n"
        "                   measured, or --to threads=N: a CPU at N threads from its other counts;\n"
        "                   adds the predict reports (and prediction, where GPU is measured too)\n"
        "  --from PAT       predict only from the devices matching a shell pattern\n"
        "  --specs FILE     the GPU spec table (default: the built-in runtime/agg/gpu_specs.tsv)\n"
        "  -o FILE          write the report to FILE (whole or not at all) instead of stdout; a\n"
        "                   device or a FIFO there (/dev/null) is written to, not replaced\n"
        "\n"
        "exit status: 0 ok, 2 bad command line, 3 bad rows or files were skipped (the rest was\n"
        "ingested), 4 nothing to report, 5 database or output file error, 70 internal error\n",
        AGG_DEFAULT_DB, agg_report_names());
}

struct agg_opts {
    const char *db, *run, *report, *out, *colour, *to, *from;
    struct agg_filter flt;
    struct agg_out_opts out_opts;
    int mode; /* 0 both, 1 ingest, 2 report */
    int db_given;
    char **paths;
    int npaths;
};

static int agg_parse(int argc, char **argv, struct agg_opts *o)
{
    o->db = AGG_DEFAULT_DB;
    o->flt.batch = -1;
    o->out_opts.top = 10;
    o->colour = "auto";
    o->paths = agg_xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(var)                                                                              \
    do {                                                                                       \
        if (!v) {                                                                              \
            fprintf(stderr, "agg: error: %s needs a value\n", a);                              \
            return -1;                                                                         \
        }                                                                                      \
        (var) = v;                                                                             \
        i++;                                                                                   \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            agg_usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("agg (benanza) %s, SQLite %s\n", AGG_VERSION, sqlite3_libversion());
            exit(0);
        } else if (!strcmp(a, "--db")) {
            TAKE(o->db);
            o->db_given = 1;
        } else if (!strcmp(a, "--run")) {
            TAKE(o->run);
        } else if (!strcmp(a, "--report")) {
            TAKE(o->report);
        } else if (!strcmp(a, "--model")) {
            TAKE(o->flt.model);
        } else if (!strcmp(a, "--type")) {
            TAKE(o->flt.type);
        } else if (!strcmp(a, "--device")) {
            TAKE(o->flt.device);
        } else if (!strcmp(a, "--to")) {
            TAKE(o->to);
        } else if (!strcmp(a, "--from")) {
            TAKE(o->from);
        } else if (!strcmp(a, "--specs")) {
            TAKE(o->flt.specs);
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            TAKE(o->out);
        } else if (!strcmp(a, "--colour") || !strcmp(a, "--color")) {
            TAKE(o->colour);
            if (strcmp(o->colour, "auto") && strcmp(o->colour, "always") && strcmp(o->colour, "never")) {
                fprintf(stderr, "agg: error: --colour takes auto, always or never\n");
                return -1;
            }
        } else if (!strcmp(a, "--batch") || !strcmp(a, "--top")) {
            const char *s;
            long n;
            TAKE(s);
            if (agg_parse_long(s, &n) || n < 0) {
                fprintf(stderr, "agg: error: %s takes a non-negative integer, not '%s'\n", a, s);
                return -1;
            }
            if (a[2] == 'b')
                o->flt.batch = n;
            else
                o->out_opts.top = (int)n;
        } else if (!strcmp(a, "--format")) {
            const char *s;
            TAKE(s);
            static const char *const names[] = {"table", "csv", "json", "md", "html"};
            int k = -1;
            for (int j = 0; j < 5; j++)
                k = !strcmp(s, names[j]) ? j : k;
            if (k < 0) {
                fprintf(stderr, "agg: error: --format takes table, csv, json, md or html, not '%s'\n", s);
                return -1;
            }
            o->out_opts.format = (enum agg_format)k;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "agg: error: unknown option '%s' (agg --help)\n", a);
            return -1;
        } else if (o->mode == 0 && o->npaths == 0 && !strcmp(a, "ingest")) {
            o->mode = 1;
        } else if (o->mode == 0 && o->npaths == 0 && !strcmp(a, "report")) {
            o->mode = 2;
        } else if (o->mode == 0 && o->npaths == 0 && !strcmp(a, "specs")) {
            o->mode = 3;
        } else {
            o->paths[o->npaths++] = argv[i];
        }
#undef TAKE
    }
    if (o->mode == 1 && !o->npaths) {
        fprintf(stderr, "agg: error: ingest needs at least one file or folder\n");
        return -1;
    }
    if (o->mode == 3 && o->npaths) {
        fprintf(stderr, "agg: error: specs takes no files ('%s')\n", o->paths[0]);
        return -1;
    }
    if (o->mode == 2 && o->npaths) {
        fprintf(stderr, "agg: error: report takes no files ('%s'): ingest them first, or leave out `report`\n",
                o->paths[0]);
        return -1;
    }
    if (o->mode == 0 && !o->npaths) {
        agg_usage(stderr);
        return -1;
    }
    return 0;
}

static int agg_is_dir(const char *p);

/* without --db, a benchmark folder keeps its database: `agg DIR` uses DIR/results.db */
static void agg_default_db(struct agg_opts *o, char **owned)
{
    *owned = NULL;
    if (o->db_given || o->mode == 2 || !o->npaths || !agg_is_dir(o->paths[0]))
        return;
    *owned = agg_xprintf("%s/results.db", o->paths[0]);
    o->db = *owned;
}

static int agg_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int agg_do_ingest(struct agg_db *d, struct agg_opts *o, int beside)
{
    struct agg_ingest_stats st = {0};
    int rc = 0;
    for (int i = 0; i < o->npaths; i++) {
        const char *p = o->paths[i];
        if (beside && !agg_is_dir(p)) {
            /* `agg results.csv`: its manifest lives beside it */
            char *dir = agg_xstrdup(p), *slash = strrchr(dir, '/');
            char *m = slash ? (slash[1] = '\0', agg_xprintf("%smanifest.tsv", dir)) : agg_xstrdup("manifest.tsv");
            int given = 0;
            for (int j = 0; j < o->npaths; j++)
                given |= !strcmp(o->paths[j], m);
            if (!given && access(m, R_OK) == 0 && strcmp(m, p))
                agg_ingest_path(d, m, o->run, &st, stderr);
            free(m);
            free(dir);
        }
        struct agg_ingest_stats before = st;
        if (agg_ingest_path(d, p, o->run, &st, stderr))
            rc = -1;
        fputs("agg: ", stderr);
        agg_fput_safe(stderr, p);
        fprintf(stderr, ": %ld rows added, %ld already there, %ld bad (database ", st.rows_added - before.rows_added,
                st.rows_same - before.rows_same, st.rows_bad - before.rows_bad);
        agg_fput_safe(stderr, d->path);
        fputs(")\n", stderr);
    }
    if (rc || st.rows_bad || st.files_bad)
        return AGG_EXIT_BADROWS;
    return 0;
}

static int agg_do_report(struct agg_db *d, struct agg_opts *o)
{
    struct agg_data x;
    o->flt.run = o->mode == 0 ? NULL : o->run;
    if (agg_data_load(d, &o->flt, &x, stderr))
        return AGG_EXIT_DB;
    int rc = 0;
    struct agg_table *t[AGG_MAX_REPORTS];
    int n = 0;
    if (o->to && x.nruns && x.ntargets) {
        int pr = agg_predict(&x, o->to, o->from, stderr);
        if (pr) {
            rc = pr == -1 ? AGG_EXIT_USAGE : AGG_EXIT_NODATA;
            goto out;
        }
    }
    if (!x.nruns || !x.ntargets) {
        fprintf(stderr, "agg: %s: nothing to report for this selection: %s\n", o->db,
                !x.nruns ? "no model (ingest gen's manifest.tsv)" : "no results (ingest run_all's results.csv)");
        rc = AGG_EXIT_NODATA;
        goto out;
    }
    n = agg_reports_build(&x, o->report, t);
    if (n < 0) {
        rc = AGG_EXIT_USAGE;
        n = 0;
        goto out;
    }
    FILE *f = stdout;
    char *tmp = NULL;
    /* --out FILE: written whole beside it and renamed over it; a device or a pipe there
     * (/dev/null, /dev/stdout, a FIFO) is written to, never replaced */
    struct stat st;
    bool stream = o->out && stat(o->out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    if (o->out) {
        tmp = stream ? NULL : agg_xprintf("%s.tmp.%ld", o->out, (long)getpid());
        f = fopen(stream ? o->out : tmp, "w");
        if (!f) {
            fprintf(stderr, "%s: error: cannot write: %s\n", o->out, strerror(errno));
            free(tmp);
            rc = AGG_EXIT_DB;
            goto out;
        }
    }
    o->out_opts.colour = !strcmp(o->colour, "always") ||
                         (!strcmp(o->colour, "auto") && !o->out && isatty(1) && !getenv("NO_COLOR") &&
                          (!getenv("TERM") || strcmp(getenv("TERM"), "dumb")));
    if (o->out_opts.format == AGG_FMT_HTML)
        agg_out_html(f, &x, t, n);
    else
        agg_out_tables(f, t, n, &o->out_opts);
    if (o->out) {
        int bad = ferror(f) | (fclose(f) != 0);
        if (bad || (tmp && rename(tmp, o->out) != 0)) {
            fprintf(stderr, "%s: error: cannot write: %s\n", o->out, strerror(errno));
            if (tmp)
                unlink(tmp);
            rc = AGG_EXIT_DB;
        }
        free(tmp);
    } else if (fflush(stdout) != 0) {
        rc = AGG_EXIT_DB;
    }
out:
    for (int i = 0; i < n; i++)
        agg_table_free(t[i]);
    agg_data_free(&x);
    return rc;
}

/* agg specs: the GPU spec table as a report table */
static int agg_do_specs(struct agg_opts *o)
{
    struct agg_specs s;
    if (agg_specs_load(o->flt.specs, &s, stderr))
        return AGG_EXIT_USAGE;
    struct agg_table *t = agg_new("specs", "GPU spec table",
        "The datasheet ceilings the roofline and predict reports use (dense tensor core figures, FP32 accumulation).",
        "name|match|SMs|boost MHz|L2 MB|GB/s|FP32 TFLOP/s|FP16 TFLOP/s|TF32 TC|FP16 TC|BF16 TC|FP8 TC|source",
        "ttnnnnnnnnnnt");
    for (int i = 0; i < s.n; i++) {
        const struct agg_gpu_spec *g = &s.v[i];
        int r = agg_table_row(t);
        agg_table_set_text(t, r, 0, g->name);
        agg_table_set_text(t, r, 1, g->match);
        agg_table_set_num(t, r, 2, g->sms);
        agg_table_set_num(t, r, 3, g->boost_mhz);
        agg_table_set_num(t, r, 4, g->l2_mb);
        agg_table_set_num(t, r, 5, g->bw / 1e9);
        static const enum agg_peak cols[] = {AGG_P_F32, AGG_P_F16, AGG_P_TF32, AGG_P_F16TC, AGG_P_BF16TC, AGG_P_FP8};
        for (int c = 0; c < 6; c++)
            agg_table_set_num(t, r, 6 + c, g->peak[cols[c]] / 1e12);
        agg_table_set_text(t, r, 12, g->source);
    }
    o->out_opts.top = 0;
    agg_out_tables(stdout, &t, 1, &o->out_opts);
    agg_table_free(t);
    agg_specs_free(&s);
    return fflush(stdout) ? AGG_EXIT_DB : AGG_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct agg_opts o = {0};
    if (agg_parse(argc, argv, &o)) {
        free(o.paths);
        return AGG_EXIT_USAGE;
    }
    if (o.mode == 3) {
        free(o.paths);
        return agg_do_specs(&o);
    }
    char *owned_db;
    agg_default_db(&o, &owned_db);
    /* every input first: a missing one is one error, and no database is made for nothing */
    int missing = 0;
    for (int i = 0; o.mode != 2 && i < o.npaths; i++) {
        struct stat sb;
        if (stat(o.paths[i], &sb) != 0) {
            agg_fput_safe(stderr, o.paths[i]);
            fprintf(stderr, ": error: %s\n", strerror(errno));
            missing++;
        }
    }
    if (missing) {
        free(owned_db);
        free(o.paths);
        return AGG_EXIT_BADROWS;
    }
    struct agg_db d;
    if (agg_db_open(&d, o.db, o.mode != 2)) {
        free(owned_db);
        free(o.paths);
        return o.mode == 2 && access(o.db, F_OK) != 0 ? AGG_EXIT_NODATA : AGG_EXIT_DB;
    }
    int rc = 0, rc2 = 0;
    if (o.mode != 2)
        rc = agg_do_ingest(&d, &o, o.mode == 0);
    if (o.mode != 1)
        rc2 = agg_do_report(&d, &o);
    agg_db_close(&d);
    free(owned_db);
    free(o.paths);
    return rc2 ? rc2 : rc;
}
