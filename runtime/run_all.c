/* run_all: runs a benchmark folder's benchmarks and appends each one's CSV row to the results
 * the moment it ends (docs/formats.md). Copied into every benchmark folder by gen and built
 * there (by ninja, or by the ./run_all wrapper on first use); plain C and POSIX, no library.
 *
 * - CPU benchmarks run one at a time. CUDA benchmarks run up to -j at a time: each starts,
 *   sets up and tears down beside the others, but warms up and times only while it holds the
 *   GPU lock (an flock on FOLDER/.gpu.lock, named to it in BENANZA_GPU_LOCK), so that no two
 *   ever time at once.
 * - A row is written whole (one write; a short write is undone) or the run stops with a
 *   message and exit status 5. A partial last line found at start is dropped, and that
 *   benchmark runs again.
 * - SIGINT and SIGTERM end the run at once: the running benchmarks are killed and get no row;
 *   the exit status is 130 or 143.
 * - Rows that say nodevice, and error rows for benchmarks that were not built, do not count as
 *   finished: they run again (where there is a GPU, once built).
 * - The load of other work on the machine is measured at the start and the end; a busy
 *   machine gets a warning (CPU timings are then unreliable; the rows say `busy`). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RA_SCHEMA "2"
#define RA_HEADER                                                                                   \
    "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,"      \
    "mean_us,p90_us,max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,"   \
    "sms,lib,host,time,method,kernel_us,busy,note"
enum { RA_COL_BENCH = 1, RA_COL_STATUS = 9, RA_COL_BUSY = 30, RA_NCOLS = 32 };

/* exit statuses (docs/formats.md) */
enum { RA_EXIT_OK = 0, RA_EXIT_USAGE = 2, RA_EXIT_WRITE = 5, RA_EXIT_INT = 130, RA_EXIT_TERM = 143 };

struct ra_bench {
    char *file, *layer, *op, *models, *backend;
};

struct ra_child {
    pid_t pid;
    int out, err;          /* pipe ends; -1 once closed */
    int bench;             /* index into the selection */
    double start;
    char *buf;             /* standard output */
    size_t len, cap;
    char tail[240];        /* the end of standard error */
    size_t tail_len;
    int killed_for_time;
};

static volatile sig_atomic_t ra_signal;

static void ra_on_signal(int sig)
{
    ra_signal = sig;
}

static double ra_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *ra_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "run_all: error: out of memory\n");
        exit(70);
    }
    return p;
}

static char *ra_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(ra_alloc(n), s, n);
}

/* ---- the results file ---- */

/* The fields of one CSV record (RFC 4180 quoting), into fields[] (at most max); returns the
 * count. The line is modified in place. */
static int ra_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *w = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else if (!*p) {
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',')
                *w++ = *p++;
        }
        char end = *p;
        *w = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (end != ',')
            break;
        p++;
    }
    return n;
}

struct ra_names {
    char **v;
    size_t n, cap;
};

static void ra_names_add(struct ra_names *s, const char *name)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        char **v = realloc(s->v, s->cap * sizeof(*v));
        if (!v) {
            fprintf(stderr, "run_all: error: out of memory\n");
            exit(70);
        }
        s->v = v;
    }
    s->v[s->n++] = ra_strdup(name);
}

static int ra_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ra_names_has(const struct ra_names *s, const char *name)
{
    return s->n && bsearch(&name, s->v, s->n, sizeof(char *), ra_cmp_str) != NULL;
}

/* Reads the results: the benchmarks already finished (a row other than nodevice, or an error
 * row for a benchmark that was not built), whether the file's header is this schema's, and
 * its size. A partial last line (a run killed while writing) is cut off. Returns 0, or -1
 * after a message. */
static int ra_results_scan(const char *path, struct ra_names *finished, int *header_ok, off_t *size)
{
    *header_ok = 0;
    *size = 0;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "run_all: error: cannot read %s: %s\n", path, strerror(errno));
            return -1;
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fprintf(stderr, "run_all: error: %s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    char *text = ra_alloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t k = read(fd, text + got, (size_t)st.st_size - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    text[got] = '\0';
    size_t keep = got;
    while (keep > 0 && text[keep - 1] != '\n')
        keep--;
    if (keep < got) {
        char *nl = memchr(text + keep, ',', got - keep);
        char bench[160] = "";
        if (nl) {
            char *e = memchr(nl + 1, ',', (size_t)(text + got - nl - 1));
            snprintf(bench, sizeof(bench), "%.*s", e ? (int)(e - nl - 1) : 0, nl + 1);
        }
        if (ftruncate(fd, (off_t)keep) != 0) {
            fprintf(stderr, "run_all: error: %s ends with a partial row that cannot be cut off: %s\n", path,
                    strerror(errno));
            free(text);
            close(fd);
            return -1;
        }
        fprintf(stderr, "run_all: %s: dropped a partial last row%s%s (it runs again)\n", path, *bench ? " of " : "",
                bench);
        text[keep] = '\0';
    }
    close(fd);
    *size = (off_t)keep;
    char *line = text;
    int first = 1;
    while (*line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        if (first) {
            *header_ok = !strcmp(line, RA_HEADER);
            first = 0;
        } else if (strncmp(line, "schema,", 7) != 0 && n) {
            char *f[RA_NCOLS + 1];
            int nf = ra_csv_split(line, f, RA_NCOLS + 1);
            if (nf > RA_COL_STATUS && *f[RA_COL_BENCH]) {
                const char *note = f[(nf < RA_NCOLS + 1 ? nf : RA_NCOLS + 1) - 1];
                int redo = !strcmp(f[RA_COL_STATUS], "nodevice") ||
                           (!strcmp(f[RA_COL_STATUS], "error") && !strncmp(note, "not built", 9));
                if (!redo)
                    ra_names_add(finished, f[RA_COL_BENCH]);
            }
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    free(text);
    if (finished->n > 1)
        qsort(finished->v, finished->n, sizeof(char *), ra_cmp_str);
    return 0;
}

/* Appends one line whole: one write of line + '\n'; a short or failed write is cut off again
 * and reported. Returns 0 or -1. */
static int ra_append(int fd, const char *path, const char *line)
{
    size_t n = strlen(line);
    char *buf = ra_alloc(n + 1);
    memcpy(buf, line, n);
    buf[n] = '\n';
    struct stat st;
    off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
    ssize_t w = write(fd, buf, n + 1);
    int err = errno;
    free(buf);
    if (w == (ssize_t)(n + 1))
        return 0;
    if (w >= 0)
        err = w == 0 ? EIO : ENOSPC;
    if (before >= 0 && ftruncate(fd, before) != 0)
        fprintf(stderr, "run_all: error: %s: a partial row could not be cut off (%s): the next run drops it\n", path,
                strerror(errno));
    fprintf(stderr, "run_all: error: cannot write a row to %s: %s; the run stops (the rows before it are kept)\n", path,
            strerror(err));
    return -1;
}

/* ---- rows of our own ---- */

/* A CSV field with quotes where needed, control bytes as spaces */
static void ra_field(char *out, size_t cap, size_t *len, const char *s, int last)
{
    int quote = strpbrk(s, ",\"") != NULL;
    size_t n = *len;
    if (quote && n + 1 < cap)
        out[n++] = '"';
    for (; *s && n + 3 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"')
            out[n++] = '"';
        out[n++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    if (quote && n + 1 < cap)
        out[n++] = '"';
    if (n + 1 < cap)
        out[n++] = last ? '\0' : ',';
    out[n < cap ? n : cap - 1] = '\0';
    *len = n;
}

/* The data type of a benchmark from its file stem LAYER-TYPE-IMPL (f16tc: f16 data); LAYER may
 * hold dashes (a calibration layer: calib-cpu-gemm) */
static void ra_stem_type(const char *file, const char *layer, char *out, size_t n)
{
    size_t ll = strlen(layer);
    const char *a = ll && !strncmp(file, layer, ll) && file[ll] == '-' ? file + ll : strchr(file, '-');
    const char *b = a ? strchr(a + 1, '-') : NULL;
    snprintf(out, n, "%.*s", a && b ? (int)(b - a - 1) : 1, a && b ? a + 1 : "?");
    if (!strcmp(out, "f16tc"))
        snprintf(out, n, "f16");
}

/* An error row for a benchmark that gave none: every column agg requires is there */
static void ra_error_row(char *out, size_t cap, const struct ra_bench *b, const char *why)
{
    char host[256] = "", when[32], type[32];
    gethostname(host, sizeof(host) - 1);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tmv);
    ra_stem_type(b->file, b->layer, type, sizeof(type));
    size_t len = 0;
    const char *cols[RA_NCOLS] = {RA_SCHEMA, b->file, b->layer, "", b->op, b->backend, "", type, "", "error", "0",
                                  "", "", "", "", "", "", "0", "0", "0", "0", "0", "unknown", "", "", "", host, when,
                                  "", "", "", why};
    for (int i = 0; i < RA_NCOLS; i++)
        ra_field(out, cap, &len, cols[i], i == RA_NCOLS - 1);
}

/* ---- the machine's load ---- */

/* Busy cores of the whole machine (all CPUs), over a short interval: other work, since
 * run_all itself sleeps meanwhile */
static double ra_busy_cores(int *ncpu)
{
    double busy[2] = {0, 0}, t[2];
    *ncpu = 0;
    double hz = (double)sysconf(_SC_CLK_TCK);
    for (int k = 0; k < 2; k++) {
        if (k)
            usleep(300000);
        t[k] = ra_now();
        FILE *f = fopen("/proc/stat", "r");
        char line[512];
        int n = 0;
        while (f && fgets(line, sizeof(line), f)) {
            unsigned long long v[8] = {0};
            int cpu;
            if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
                continue;
            if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                       &v[5], &v[6], &v[7]) < 5)
                continue;
            busy[k] += (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
            n++;
        }
        if (f)
            fclose(f);
        if (!n)
            return -1;
        *ncpu = n;
    }
    return (busy[1] - busy[0]) / (t[1] - t[0]);
}

static void ra_warn_busy(const char *when)
{
    int ncpu;
    double b = ra_busy_cores(&ncpu);
    if (b >= 0 && b > 0.5)
        fprintf(stderr,
                "run_all: warning: the machine is busy %s: other processes keep %.1f of %d cores busy. CPU timings "
                "are then slower and noisy (their rows say busy); stop that work, or leave its cores free with "
                "`./run_all -- --threads N`\n",
                when, b, ncpu);
}

/* ---- running ---- */

static void ra_usage(FILE *out)
{
    fprintf(out,
            "usage: ./run_all [--op PATTERN] [--model PATTERN] [--layer PATTERN] [--backend cpu|cuda]\n"
            "                 [-j N] [--timeout S] [--results FILE] [--again] [--list] [-- BENCHMARK FLAGS...]\n"
            "Runs every benchmark of this folder (or those whose op, model or layer matches the shell\n"
            "patterns, or of one backend), appending one CSV row each to results.csv (--results FILE)\n"
            "the moment it ends. Benchmarks that already have a row are skipped (--again runs them\n"
            "anyway); a nodevice row does not count, nor an error row of a benchmark that was not built.\n"
            "CPU benchmarks run one at a time. CUDA benchmarks start -j N at a time (default: half the\n"
            "cores, 2 to 8; the first alone): they set up side by side, and one at a time holds the GPU\n"
            "to time (a lock on .gpu.lock). When a CUDA benchmark finds no GPU, the other CUDA\n"
            "benchmarks are skipped.\n"
            "A benchmark that runs longer than --timeout seconds (default 120) is killed and gets an\n"
            "error row. Flags after -- go to every benchmark (e.g. --verify, --threads 2, --cold).\n"
            "Ctrl-C (or SIGTERM) stops at once: running benchmarks get no row. Exit status: 0 done\n"
            "(whatever the rows say), 2 bad arguments, 5 the results could not be written, 130/143\n"
            "interrupted.\n");
}

static int ra_parse_pos(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 100000)
        return -1;
    *out = (int)v;
    return 0;
}

static void ra_child_read(struct ra_child *c, int which)
{
    char buf[4096];
    int fd = which ? c->err : c->out;
    ssize_t k = read(fd, buf, sizeof(buf));
    if (k <= 0) {
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        close(fd);
        if (which)
            c->err = -1;
        else
            c->out = -1;
        return;
    }
    if (which) {
        for (ssize_t i = 0; i < k; i++) {
            if (c->tail_len == sizeof(c->tail) - 1) {
                memmove(c->tail, c->tail + 1, sizeof(c->tail) - 2);
                c->tail_len--;
            }
            c->tail[c->tail_len++] = buf[i];
        }
        c->tail[c->tail_len] = '\0';
        return;
    }
    if (c->len + (size_t)k + 1 > c->cap) {
        size_t cap = (c->cap ? c->cap * 2 : 8192) + (size_t)k;
        char *p = realloc(c->buf, cap);
        if (!p) {
            fprintf(stderr, "run_all: error: out of memory\n");
            exit(70);
        }
        c->buf = p;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, buf, (size_t)k);
    c->len += (size_t)k;
    c->buf[c->len] = '\0';
}

/* Starts bin/FILE with the flags; its standard output and error come back through pipes */
static int ra_spawn(struct ra_child *c, const struct ra_bench *b, char **flags, int nflags, const char *lock)
{
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof(path), "bin/%s", b->file);
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        if (lock && !strcmp(b->backend, "cuda"))
            setenv("BENANZA_GPU_LOCK", lock, 1);
        char **argv = ra_alloc(sizeof(char *) * (size_t)(nflags + 2));
        argv[0] = path;
        for (int i = 0; i < nflags; i++)
            argv[1 + i] = flags[i];
        argv[1 + nflags] = NULL;
        execv(path, argv);
        fprintf(stderr, "cannot run %s: %s", path, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(po[1]);
    close(pe[1]);
    memset(c, 0, sizeof(*c));
    c->pid = pid;
    c->out = po[0];
    c->err = pe[0];
    c->start = ra_now();
    return 0;
}

/* The row a finished benchmark gave, or an error row of ours; *rc its exit status */
static void ra_child_row(struct ra_child *c, const struct ra_bench *b, int status, char *row, size_t cap, int *rc)
{
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    /* its row: the last line that starts as one (a library may print after it) */
    char prefix[4200], *last = NULL;
    snprintf(prefix, sizeof(prefix), "%s,%s,", RA_SCHEMA, b->file);
    size_t plen = strlen(prefix);
    for (char *line = c->buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        if (!strncmp(line, prefix, plen))
            last = line;
        line = nl ? nl + 1 : NULL;
    }
    if (last && strlen(last) < cap && !c->killed_for_time) {
        snprintf(row, cap, "%s", last);
        return;
    }
    char why[400], err[240];
    size_t k = 0;
    for (const char *p = c->tail; *p && k + 1 < sizeof(err); p++)
        err[k++] = (*p == '\n' || *p == '\r') ? ' ' : *p;
    err[k] = '\0';
    while (k > 0 && err[k - 1] == ' ')
        err[--k] = '\0';
    if (c->killed_for_time)
        snprintf(why, sizeof(why), "timed out after %.0f s: killed", ra_now() - c->start);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "killed by signal %d (%s) and no row%s%.200s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)), *err ? ": " : "", err);
    else
        snprintf(why, sizeof(why), "exited with status %d and no row%s%.200s", *rc, *err ? ": " : "", err);
    ra_error_row(row, cap, b, why);
}

/* Kills every running benchmark and waits for them */
static void ra_kill_all(struct ra_child *run, int nrun)
{
    for (int i = 0; i < nrun; i++)
        kill(-run[i].pid, SIGKILL);
    for (int i = 0; i < nrun; i++) {
        waitpid(run[i].pid, NULL, 0);
        if (run[i].out >= 0)
            close(run[i].out);
        if (run[i].err >= 0)
            close(run[i].err);
        free(run[i].buf);
    }
}

static void ra_progress(int tty, int done, int total, double start, const char *name)
{
    double el = ra_now() - start;
    if (tty) {
        char eta[32] = "?";
        if (done > 0)
            snprintf(eta, sizeof(eta), "%.0fs", el * (total - done) / done);
        int w = total ? 30 * done / total : 30;
        fprintf(stdout, "\r[%-30.*s] %d/%d ETA %s %-40.40s", w, "##############################", done, total, eta,
                name);
    } else {
        fprintf(stdout, "[%d/%d] %s\n", done, total, name);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *op = "*", *model = "*", *layer = "*", *backend = "*", *results = "results.csv";
    int timeout = 120, again = 0, list = 0, jobs = 0;
    char **flags = NULL;
    int nflags = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            flags = argv + i + 1;
            nflags = argc - i - 1;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ra_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--again")) {
            again = 1;
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (v && (!strcmp(a, "--op") || !strcmp(a, "--model") || !strcmp(a, "--layer") ||
                         !strcmp(a, "--backend") || !strcmp(a, "--results"))) {
            if (!strcmp(a, "--op"))
                op = v;
            else if (!strcmp(a, "--model"))
                model = v;
            else if (!strcmp(a, "--layer"))
                layer = v;
            else if (!strcmp(a, "--backend"))
                backend = v;
            else
                results = v;
            i++;
        } else if (v && (!strcmp(a, "--timeout") || !strcmp(a, "-j") || !strcmp(a, "--jobs"))) {
            if (ra_parse_pos(v, !strcmp(a, "--timeout") ? &timeout : &jobs)) {
                fprintf(stderr, "run_all: error: %s needs a positive number, not '%s' (see --help)\n", a, v);
                return RA_EXIT_USAGE;
            }
            i++;
        } else if (!strncmp(a, "-j", 2) && a[2]) {
            if (ra_parse_pos(a + 2, &jobs)) {
                fprintf(stderr, "run_all: error: bad %s (see --help)\n", a);
                return RA_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "run_all: error: unknown or incomplete argument '%s' (see --help)\n", a);
            return RA_EXIT_USAGE;
        }
    }
    if (strcmp(backend, "*") && strcmp(backend, "cpu") && strcmp(backend, "cuda")) {
        fprintf(stderr, "run_all: error: --backend is cpu or cuda, not '%s'\n", backend);
        return RA_EXIT_USAGE;
    }
    if (!jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN) / 2;
        jobs = n < 2 ? 2 : n > 8 ? 8 : (int)n;
    }

    /* the folder's benchmarks, then the selection */
    FILE *tsv = fopen("benchmarks.tsv", "r");
    if (!tsv) {
        fprintf(stderr, "run_all: error: benchmarks.tsv: %s (run it in a folder gen wrote)\n", strerror(errno));
        return RA_EXIT_USAGE;
    }
    struct ra_bench *all = NULL;
    size_t nall = 0, capall = 0;
    char *line = NULL;
    size_t lcap = 0;
    while (getline(&line, &lcap, tsv) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        char *f[5] = {0};
        char *p = line;
        for (int k = 0; k < 5; k++) {
            f[k] = p;
            p = p ? strchr(p, '\t') : NULL;
            if (p)
                *p++ = '\0';
        }
        if (!f[0] || !f[1] || !f[2] || !f[3])
            continue;
        if (nall == capall) {
            capall = capall ? 2 * capall : 512;
            struct ra_bench *v = realloc(all, capall * sizeof(*all));
            if (!v) {
                fprintf(stderr, "run_all: error: out of memory\n");
                return 70;
            }
            all = v;
        }
        all[nall++] = (struct ra_bench){ra_strdup(f[0]), ra_strdup(f[1]), ra_strdup(f[2]), ra_strdup(f[3]),
                                        ra_strdup(f[4] && *f[4] ? f[4] : "cpu")};
    }
    free(line);
    fclose(tsv);

    struct ra_names finished = {0};
    int header_ok = 0;
    off_t size = 0;
    if (ra_results_scan(results, &finished, &header_ok, &size) != 0)
        return RA_EXIT_WRITE;
    /* CPU ones first (one at a time, alone), then the CUDA ones (side by side) */
    int *sel = ra_alloc(sizeof(int) * (nall ? nall : 1));
    int nsel = 0, matched = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nall; i++) {
            const struct ra_bench *b = &all[i];
            if ((pass == 0) != (strcmp(b->backend, "cuda") != 0))
                continue;
            if (fnmatch(op, b->op, 0) || fnmatch(layer, b->layer, 0) || fnmatch(backend, b->backend, 0))
                continue;
            /* a benchmark of no model (gen --calibrate's) is in every selection by models */
            int m_ok = !*b->models && !strcmp(model, "*");
            char *models = ra_strdup(b->models), *save = NULL;
            for (char *m = strtok_r(models, ",", &save); m && !m_ok; m = strtok_r(NULL, ",", &save))
                m_ok = !fnmatch(model, m, 0);
            free(models);
            if (!m_ok)
                continue;
            matched++;
            if (!again && ra_names_has(&finished, b->file))
                continue;
            sel[nsel++] = (int)i;
        }
    if (list) {
        for (int i = 0; i < nsel; i++)
            printf("%s\n", all[sel[i]].file);
        return 0;
    }
    if (nsel == 0) {
        if (matched)
            printf("run_all: nothing to run (all %d selected benchmarks have rows in %s; --again runs them again)\n",
                   matched, results);
        else
            printf("run_all: nothing to run: no benchmark of this folder matches the selection\n");
        return 0;
    }

    /* the results file, open for whole-row appends; a read-only one stops the run here */
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit is a failed write, not a dead run_all */
    signal(SIGPIPE, SIG_IGN);
    int rfd = open(results, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (rfd < 0) {
        fprintf(stderr, "run_all: error: cannot write %s: %s\n", results, strerror(errno));
        return RA_EXIT_WRITE;
    }
    if (!header_ok && ra_append(rfd, results, RA_HEADER) != 0)
        return RA_EXIT_WRITE;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = ra_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int ncpu_sel = 0;
    for (int i = 0; i < nsel; i++)
        ncpu_sel += strcmp(all[sel[i]].backend, "cuda") != 0;
    if (ncpu_sel)
        ra_warn_busy("at the start");
    char cwd[4096], lock[4200];
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    snprintf(lock, sizeof(lock), "%s/.gpu.lock", cwd);

    int tty = isatty(1);
    double start = ra_now();
    struct ra_child *run = ra_alloc(sizeof(*run) * (size_t)jobs);
    int nrun = 0, next = 0, done = 0, nogpu = 0, gpu_ok = 0, skipped_gpu = 0, failed_write = 0, busy_rows = 0,
        cpu_rows = 0;
    static char row[16384];
    while ((next < nsel || nrun > 0) && !ra_signal && !failed_write) {
        /* start what may start: a CPU benchmark only alone, CUDA ones up to -j */
        while (next < nsel && !ra_signal) {
            const struct ra_bench *b = &all[sel[next]];
            int cuda = !strcmp(b->backend, "cuda");
            if (cuda && nogpu) {
                skipped_gpu++;
                next++;
                done++;
                continue;
            }
            /* the first CUDA benchmark runs alone: where there is no GPU, one finds out */
            if (nrun >= (cuda ? (gpu_ok ? jobs : 1) : 1))
                break;
            char exe[4200];
            snprintf(exe, sizeof(exe), "bin/%s", b->file);
            if (access(exe, X_OK) != 0) {
                ra_error_row(row, sizeof(row), b, "not built: run ninja first");
                next++;
                done++;
                if (ra_append(rfd, results, row) != 0) {
                    failed_write = 1;
                    break;
                }
                continue;
            }
            if (ra_spawn(&run[nrun], b, flags, nflags, lock) != 0) {
                fprintf(stderr, "run_all: error: cannot start %s: %s\n", exe, strerror(errno));
                failed_write = 1;
                break;
            }
            run[nrun++].bench = sel[next++];
            ra_progress(tty, tty ? done : next, nsel, start, b->file);
        }
        if (nrun == 0)
            continue;
        /* wait for output, an end, or the time limit */
        struct pollfd pf[64];
        int map[64][2], np = 0;
        for (int i = 0; i < nrun && np < 62; i++) {
            if (run[i].out >= 0) {
                pf[np] = (struct pollfd){run[i].out, POLLIN, 0};
                map[np][0] = i, map[np++][1] = 0;
            }
            if (run[i].err >= 0) {
                pf[np] = (struct pollfd){run[i].err, POLLIN, 0};
                map[np][0] = i, map[np++][1] = 1;
            }
        }
        int k = poll(pf, (nfds_t)np, np ? 200 : 20);
        for (int i = 0; k > 0 && i < np; i++)
            if (pf[i].revents)
                ra_child_read(&run[map[i][0]], map[i][1]);
        for (int i = 0; i < nrun; i++) {
            struct ra_child *c = &run[i];
            if (!c->killed_for_time && ra_now() - c->start > timeout) {
                kill(-c->pid, SIGKILL);
                c->killed_for_time = 1;
            }
            if (c->out >= 0 || c->err >= 0) {
                if (!c->killed_for_time)
                    continue;
                /* killed: whatever it left in the pipes is not waited for */
                if (c->out >= 0)
                    close(c->out), c->out = -1;
                if (c->err >= 0)
                    close(c->err), c->err = -1;
            }
            if (ra_signal) /* interrupted: no more rows */
                break;
            int status = 0;
            pid_t w = waitpid(c->pid, &status, c->killed_for_time ? 0 : WNOHANG);
            if (w != c->pid)
                continue;
            const struct ra_bench *b = &all[c->bench];
            int rc;
            ra_child_row(c, b, status, row, sizeof(row), &rc);
            free(c->buf);
            run[i] = run[--nrun];
            i--;
            done++;
            if (strcmp(b->backend, "cuda")) {
                char *f[RA_NCOLS + 1], *copy = ra_strdup(row);
                int nf = ra_csv_split(copy, f, RA_NCOLS + 1);
                cpu_rows++;
                busy_rows += nf == RA_NCOLS && !strcmp(f[RA_COL_BUSY], "1");
                free(copy);
            }
            if (ra_append(rfd, results, row) != 0) {
                failed_write = 1;
                break;
            }
            if (!strcmp(b->backend, "cuda") && rc != 3)
                gpu_ok = 1;
            if (!strcmp(b->backend, "cuda") && rc == 3 && !nogpu) {
                nogpu = 1;
                if (tty)
                    printf("\n");
                printf("run_all: %s found no GPU: the other CUDA benchmarks are skipped in this run (they run where "
                       "there is one)\n",
                       b->file);
            }
            if (tty)
                ra_progress(tty, done, nsel, start, b->file);
        }
    }
    if (ra_signal || failed_write) {
        ra_kill_all(run, nrun);
        if (tty)
            printf("\n");
        if (ra_signal) {
            fprintf(stderr, "run_all: %s: stopped; %d of %d benchmarks ran, the rest run next time\n",
                    ra_signal == SIGINT ? "interrupted" : "terminated", done, nsel);
            return ra_signal == SIGINT ? RA_EXIT_INT : RA_EXIT_TERM;
        }
        return RA_EXIT_WRITE;
    }
    if (tty)
        printf("\n");
    if (close(rfd) != 0) {
        fprintf(stderr, "run_all: error: %s: %s\n", results, strerror(errno));
        return RA_EXIT_WRITE;
    }
    if (skipped_gpu)
        printf("run_all: %d CUDA benchmarks skipped: no GPU\n", skipped_gpu);
    if (busy_rows)
        fprintf(stderr,
                "run_all: warning: %d of %d CPU rows were timed while other work competed for their cores (busy): "
                "their times are not reliable; run them again on a quiet machine (--again)\n",
                busy_rows, cpu_rows);
    if (ncpu_sel)
        ra_warn_busy("at the end");
    /* the folder's rows by status */
    FILE *f = fopen(results, "r");
    char *l = NULL;
    size_t lc = 0;
    const char *names[] = {"ok", "unsupported", "oom", "error", "nodevice", "wrong", "advice"};
    long counts[7] = {0}, other = 0, rows = 0;
    while (f && getline(&l, &lc, f) > 0) {
        if (!strncmp(l, "schema,", 7))
            continue;
        l[strcspn(l, "\r\n")] = '\0';
        char *fl[RA_NCOLS + 1];
        int nf = ra_csv_split(l, fl, RA_NCOLS + 1);
        if (nf <= RA_COL_STATUS)
            continue;
        rows++;
        int hit = 0;
        for (int i = 0; i < 7 && !hit; i++)
            if (!strcmp(fl[RA_COL_STATUS], names[i]))
                counts[i]++, hit = 1;
        other += !hit;
    }
    free(l);
    if (f)
        fclose(f);
    printf("run_all: %ld rows in %s:", rows, results);
    for (int i = 0, first = 1; i < 7; i++)
        if (counts[i]) {
            printf("%s %s %ld", first ? "" : ",", names[i], counts[i]);
            first = 0;
        }
    if (other)
        printf(", other %ld", other);
    printf("\n");
    return 0;
}
