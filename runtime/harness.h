/* benanza benchmark harness: flags, warm-up and stopping rules, statistics, CSV rows.
 *
 * Inlined verbatim into every generated benchmark (gen embeds this file), so it uses libc
 * only and everything is static. A benchmark provides a struct bh_bench with callbacks;
 * bh_main runs it and prints one CSV row per run (the schema is in docs/formats.md).
 * Exit status: 0 ok (the row may still say unsupported or wrong), 2 bad flags,
 * 3 no device (CUDA), 4 an error row was printed. */
#ifndef BENANZA_HARNESS_H
#define BENANZA_HARNESS_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Schema 2 added method, kernel_us and busy before the note (docs/formats.md). */
#define BH_SCHEMA "2"
#define BH_CSV_HEADER                                                                               \
    "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,"      \
    "mean_us,p90_us,max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,"   \
    "sms,lib,host,time,method,kernel_us,busy,note"

/* BH_ADVICE: a row recording a library's own ranking of algorithms (no timing) */
enum bh_status { BH_OK = 0, BH_UNSUPPORTED, BH_OOM, BH_ERROR, BH_NODEVICE, BH_WRONG, BH_ADVICE, BH_STATUS_COUNT };
static const char *const bh_status_names[BH_STATUS_COUNT] = {"ok",       "unsupported", "oom",   "error",
                                                            "nodevice", "wrong",       "advice"};

struct bh_opts {
    int min_iters;     /* --iters: at least this many timed iterations */
    double min_ms;     /* --min-ms: and at least this much timed time */
    double max_ms;     /* --max-ms: stop timing after this (min_iters still honoured up to max_iters) */
    int max_iters;     /* --max-iters */
    int warmup;        /* --warmup: untimed iterations first */
    int threads;       /* --threads (CPU): 0 = all cores */
    int verify;        /* --verify: compare with the reference implementation */
    int header;        /* --header: print the CSV header line first */
    int cold;          /* --cold (CUDA): flush L2 before each single launch */
    int graph;         /* --graph (CUDA): time a CUDA graph of the sample's launches */
    int events;        /* --events (CUDA): one launch between two events (the host's enqueue time
                          where that is longer: for comparison only) */
    int no_cupti;      /* --no-cupti (CUDA): no kernel records */
    int min_ms_given;  /* --min-ms was given (else the backend's default) */
    const char *lock;  /* --lock FILE (else $BENANZA_GPU_LOCK): held while timing */
};

/* What a benchmark fills in; strings are static or owned by the benchmark. */
struct bh_result {
    enum bh_status status;
    char note[512];    /* failing call and message, verification error, ... */
    char tags[1024];   /* key=value facts appended to an ok or advice row's note (choice=heuristic) */
    char device[128];
    char cc[32];
    char sms[32];
    char lib[192];
    char math[32];
    char method[24];   /* how the time was taken: cpu, blocking, graph, graph-host, events, cold,
                          cold-events (docs/formats.md) */
    double workspace_bytes;
    double kernel_us;  /* CUDA: the GPU's own kernel time per iteration (CUPTI); < 0: none */
    int busy;          /* CPU: other work competed for the cores (1), did not (0); -1: not known */
    int threads;       /* threads the benchmark ran with (0: not applicable) */
    double *times_us;  /* timed iterations */
    int n_times, cap_times;
};

struct bh_bench {
    const char *bench;     /* file stem */
    const char *layer;     /* layer id */
    const char *layer_name;
    const char *op;
    const char *backend;   /* cpu | cuda */
    const char *impl;      /* the implementation / algorithm */
    const char *dtype;     /* f32 | tf32 | f16 | bf16 ... */
    double flops;          /* computed by gen */
    double bytes;          /* moved, computed by gen */
    void *state;
    /* setup: allocate and prepare; a non-ok status ends the run with that row */
    enum bh_status (*setup)(void *state, const struct bh_opts *o, struct bh_result *r);
    /* one timed iteration: returns the elapsed microseconds, or < 0 after setting r */
    double (*run)(void *state, struct bh_result *r);
    /* optional: compare with the reference; sets r->status = BH_WRONG and the note. Called
     * before timing and outside the GPU lock (a CUDA verify takes it for its device part) */
    enum bh_status (*verify)(void *state, struct bh_result *r);
    void (*teardown)(void *state);
    /* optional: the whole timing (warm-up, samples, r->times_us and r->method); without it
     * bh_measure times one run() per sample */
    void (*measure)(void *state, const struct bh_opts *o, struct bh_result *r);
};

static inline double bh_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Milliseconds from the process's exec to now: the dynamic loader's and the libraries'
 * start-up before main (the start time in /proc/self/stat counts clock ticks since boot);
 * -1 where that is unknown */
static inline double bh_since_exec_ms(void)
{
#ifdef CLOCK_BOOTTIME
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long start = 0;
    int field = 2;
    char *save = NULL;
    for (char *t = p ? strtok_r(p + 1, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save))
        if (++field == 22) {
            start = strtoull(t, NULL, 10);
            break;
        }
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (!start || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return -1;
    return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - (double)start / (double)hz) * 1e3;
#else
    return -1;
#endif
}

static inline void bh_note(struct bh_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note, sizeof(r->note), fmt, ap);
    va_end(ap);
}

/* "; key=value" appended to the facts of an ok or advice row */
static inline void bh_tag(struct bh_result *r, const char *fmt, ...)
{
    size_t n = strlen(r->tags);
    if (n + 3 >= sizeof(r->tags))
        return;
    if (n) {
        memcpy(r->tags + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->tags + n, sizeof(r->tags) - n, fmt, ap);
    va_end(ap);
}

/* The GPU lock: one benchmark at a time warms up and times (run_all -j starts several, whose
 * set-up and tear-down overlap). An exclusive flock(2) on the file run_all names; nested
 * takes count. Returns 0, or -1 after a note when the file cannot be locked. */
static int bh_lock_fd = -1, bh_lock_depth;
static const char *bh_lock_path;

static inline int bh_gpu_lock(struct bh_result *r)
{
    if (!bh_lock_path || !*bh_lock_path)
        return 0;
    if (bh_lock_depth++ > 0)
        return 0;
    int fd = open(bh_lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        bh_lock_depth = 0;
        bh_note(r, "cannot open the GPU lock %s: %s", bh_lock_path, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        bh_note(r, "cannot lock %s: %s", bh_lock_path, strerror(errno));
        close(fd);
        bh_lock_depth = 0;
        return -1;
    }
    bh_lock_fd = fd;
    return 0;
}

static inline void bh_gpu_unlock(void)
{
    if (bh_lock_depth == 0 || --bh_lock_depth > 0)
        return;
    if (bh_lock_fd >= 0) {
        flock(bh_lock_fd, LOCK_UN);
        close(bh_lock_fd);
    }
    bh_lock_fd = -1;
}

/* The threads a CPU benchmark runs with when --threads does not say: OMP_NUM_THREADS, else the
 * cores this process may run on (as OpenMP counts them for oneDNN's files), else those online */
static inline int bh_cpu_threads(void)
{
    const char *e = getenv("OMP_NUM_THREADS");
    int n = e ? atoi(e) : 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (n <= 0 && sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    return n > 0 ? n : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The load on the cores a CPU benchmark may run on: their busy time in /proc/stat, less the
 * process's own CPU time, over the benchmark's set-up and timing. Other work that takes more
 * than the cores the benchmark leaves free (plus a fifth of a core) makes the row `busy`. */
struct bh_load {
    double cpu_s;     /* busy seconds of the allowed cores */
    double own_s;     /* this process's user + system seconds */
    double wall_s;
    int ncpu;         /* allowed cores found in /proc/stat */
    int ok;
};

static inline void bh_load_take(struct bh_load *l)
{
    memset(l, 0, sizeof(*l));
    cpu_set_t set;
    CPU_ZERO(&set);
    int have_set = sched_getaffinity(0, sizeof(set), &set) == 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    double hz = (double)sysconf(_SC_CLK_TCK);
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        int cpu;
        unsigned long long v[8] = {0};
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
            continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7]) < 5)
            continue;
        if (have_set && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)))
            continue;
        /* user nice system idle iowait irq softirq steal: busy is all but idle and iowait */
        l->cpu_s += (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
        l->ncpu++;
    }
    fclose(f);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    l->own_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec * 1e-6;
    l->wall_s = bh_now_us() * 1e-6;
    l->ok = l->ncpu > 0;
}

/* other work between two readings, in cores; -1 when unknown */
static inline double bh_load_others(const struct bh_load *a, const struct bh_load *b)
{
    double wall = b->wall_s - a->wall_s;
    if (!a->ok || !b->ok || a->ncpu != b->ncpu || wall <= 0)
        return -1;
    double others = (b->cpu_s - a->cpu_s) - (b->own_s - a->own_s);
    return others > 0 ? others / wall : 0;
}

/* Whether other work took more than FREE_CORES (the cores the benchmark leaves free) plus a
 * fifth of a core between two readings: 1, 0, or -1 when unknown; *OTHERS gets its estimate.
 * /proc/stat counts in clock ticks (USER_HZ: 10 ms), each core's busy time read up to about a
 * tick off at each end, so two ticks a core over the window are what its resolution alone can
 * show: over a 75 ms window on 2 cores, 0.53 cores. Only other work beyond that counts (make
 * demo's short benchmarks on a quiet machine read 0.20-0.59 cores over 32-93 ms windows: 63
 * of 736 rows were busy). */
static inline int bh_load_busy(const struct bh_load *a, const struct bh_load *b, double free_cores, double *others)
{
    *others = bh_load_others(a, b);
    if (*others < 0)
        return -1;
    double wall = b->wall_s - a->wall_s, hz = (double)sysconf(_SC_CLK_TCK);
    double resolution = hz > 0 ? 2.0 * a->ncpu / hz / wall : 0;
    return *others - resolution > (free_cores > 0 ? free_cores : 0) + 0.2;
}

/* The device column of a CPU benchmark: the CPU's model name, "cpu" where /proc/cpuinfo
 * does not say. */
static inline void bh_cpu_device(struct bh_result *r)
{
    snprintf(r->device, sizeof(r->device), "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(r->device, sizeof(r->device), "%s", strchr(line, ':') + 2);
            r->device[strcspn(r->device, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
}

/* The clock this core runs at now, in MHz, or 0: a chain of dependent adds, one a cycle on
 * every x86-64 and Arm core, timed over 1.6 M cycles, the fastest of 60 tries (a try the
 * scheduler interrupts runs slow, never fast; agg keeps the fastest clock of all the rows). A virtual machine's /proc/cpuinfo gives the
 * nominal clock, and turbo runs above it: a 2-core AMD EPYC VM says 2596 MHz and runs 2871
 * (its FMA throughput agrees: 91.7 GFLOP/s a thread = 2.87 GHz x 32). */
static inline double bh_cpu_clock_mhz(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
    double best = 0;
    unsigned long x = 0;
    enum { BH_CLOCK_LOOPS = 50000, BH_CLOCK_ADDS = 32 };
    for (int trial = 0; trial < 60; trial++) {
        double t0 = bh_now_us();
        for (long i = 0; i < BH_CLOCK_LOOPS; i++) {
#if defined(__x86_64__)
#define BH_ADD __asm__ volatile("add $1, %0" : "+r"(x));
#else
#define BH_ADD __asm__ volatile("add %0, %0, #1" : "+r"(x));
#endif
            BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD
            BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD
            BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD
            BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD BH_ADD
#undef BH_ADD
        }
        double us = bh_now_us() - t0;
        if (us > 0 && (double)BH_CLOCK_LOOPS * (double)BH_CLOCK_ADDS / us > best)
            best = (double)BH_CLOCK_LOOPS * (double)BH_CLOCK_ADDS / us;
    }
    return x == (unsigned long)60 * BH_CLOCK_LOOPS * BH_CLOCK_ADDS ? best : 0;
#else
    return 0;
#endif
}

/* The CPU's peak FLOP/s by its datasheet arithmetic and its last-level cache, for gen
 * --calibrate's rows (agg's roofline reads them): threads x clock x f32 multiply-adds per cycle x 2, from /proc/cpuinfo.
 * The clock is the highest of cpufreq's maximum, "cpu MHz", the model name's "@ x.xxGHz" and
 * the one measured (bh_cpu_clock_mhz): a peak is an upper bound, and a layer faster than it
 * a measurement error, so the clock is the fastest the core is seen to run.
 * Multiply-adds per cycle assume two FMA pipes of the widest vector unit: 32 with AVX-512
 * (AMD before Zen 5 runs it on 256-bit pipes: 16), 16 with AVX2 and FMA, 8 otherwise. bf16
 * and f16 twice the f32 rate where the CPU has AVX512_BF16 / AVX512_FP16, else the f32 rate
 * (oneDNN converts them). Tags "cpu_peak_gflops=f32:X,bf16:Y,f16:Z" and how it was made. */
static inline void bh_cpu_peak_tag(struct bh_result *r, int threads)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    double mhz = 0;
    int avx512 = 0, avx2 = 0, fma = 0, bf16 = 0, fp16 = 0, amd = 0, family = 0, flags_seen = 0;
    while (f && fgets(line, sizeof(line), f)) {
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        if (!strncmp(line, "cpu MHz", 7) && atof(v) > mhz)
            mhz = atof(v);
        else if (!strncmp(line, "vendor_id", 9))
            amd = strstr(v, "AuthenticAMD") != NULL;
        else if (!strncmp(line, "cpu family", 10))
            family = atoi(v);
        else if (!strncmp(line, "model name", 10) && strstr(v, "GHz")) {
            const char *at = strchr(v, '@');
            if (at && atof(at + 1) * 1000 > mhz)
                mhz = atof(at + 1) * 1000;
        } else if (!strncmp(line, "flags", 5) && !flags_seen) {
            flags_seen = 1;
            avx512 = strstr(v, " avx512f") != NULL;
            avx2 = strstr(v, " avx2") != NULL;
            fma = strstr(v, " fma") != NULL;
            bf16 = strstr(v, " avx512_bf16") != NULL;
            fp16 = strstr(v, " avx512_fp16") != NULL;
        }
    }
    if (f)
        fclose(f);
    FILE *q = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    long khz = 0;
    if (q && fscanf(q, "%ld", &khz) == 1 && khz / 1000.0 > mhz)
        mhz = khz / 1000.0;
    if (q)
        fclose(q);
    double nominal = mhz, measured = bh_cpu_clock_mhz();
    if (measured > mhz)
        mhz = measured;
    if (mhz <= 0 || threads <= 0)
        return;
    int fmas = avx512 && !(amd && family < 0x1A) ? 32 : (avx512 || (avx2 && fma)) ? 16 : 8;
    double g = threads * mhz / 1000.0 * fmas * 2;
    bh_tag(r, "cpu_peak_gflops=f32:%.1f,bf16:%.1f,f16:%.1f", g, bf16 ? 2 * g : g, fp16 ? 2 * g : g);
    bh_tag(r, "cpu_peak=%d threads x %.2f GHz (%s) x %d f32 FMA/cycle x 2", threads, mhz / 1000.0,
           measured >= mhz && measured > nominal ? "measured, above the nominal" : "nominal", fmas);
    /* the last-level cache: a layer whose data fit in it runs from it, not from memory */
    long llc = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], unit = 'K';
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *c = fopen(path, "r");
        long kb = 0;
        if (c && fscanf(c, "%ld%c", &kb, &unit) >= 1)
            llc = (unit == 'M' ? kb * 1024 : kb) > llc ? (unit == 'M' ? kb * 1024 : kb) : llc;
        if (c)
            fclose(c);
    }
    if (llc > 0)
        bh_tag(r, "cpu_llc_kb=%ld", llc);
}

static inline int bh_add_time(struct bh_result *r, double us)
{
    if (r->n_times == r->cap_times) {
        int cap = r->cap_times ? r->cap_times * 2 : 256;
        double *t = (double *)realloc(r->times_us, (size_t)cap * sizeof(double));
        if (!t)
            return -1;
        r->times_us = t;
        r->cap_times = cap;
    }
    r->times_us[r->n_times++] = us;
    return 0;
}

struct bh_stats {
    double min, median, mean, p90, max, stddev;
};

static inline int bh_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts t in place. Median and p90 by linear interpolation between order statistics. */
static inline struct bh_stats bh_stats_of(double *t, int n)
{
    struct bh_stats s;
    memset(&s, 0, sizeof(s));
    if (n <= 0)
        return s;
    qsort(t, (size_t)n, sizeof(double), bh_cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += t[i];
    s.min = t[0];
    s.max = t[n - 1];
    s.mean = sum / n;
    double pos = 0.5 * (n - 1), frac = pos - floor(pos);
    int k = (int)floor(pos);
    s.median = k + 1 < n ? t[k] * (1 - frac) + t[k + 1] * frac : t[k];
    pos = 0.9 * (n - 1);
    frac = pos - floor(pos);
    k = (int)floor(pos);
    s.p90 = k + 1 < n ? t[k] * (1 - frac) + t[k + 1] * frac : t[k];
    double var = 0;
    for (int i = 0; i < n; i++)
        var += (t[i] - s.mean) * (t[i] - s.mean);
    s.stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
    return s;
}

/* A CSV field: quoted when it holds a comma, quote, CR or LF (RFC 4180). */
static inline void bh_csv_field(FILE *out, const char *s, int last)
{
    if (!s)
        s = "";
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s == '\r' || *s == '\n' ? ' ' : *s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
    fputc(last ? '\n' : ',', out);
}

static inline void bh_csv_num(FILE *out, double v, int have)
{
    if (have)
        fprintf(out, "%.6g,", v);
    else
        fputc(',', out);
}

static inline void bh_print_row(FILE *out, const struct bh_bench *b, const struct bh_result *r, const struct bh_opts *o)
{
    struct bh_stats s = bh_stats_of(r->times_us, r->n_times);
    int have = r->status == BH_OK && r->n_times > 0;
    char host[256] = "", when[64] = "";
    gethostname(host, sizeof(host) - 1);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tmv);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    bh_csv_field(out, BH_SCHEMA, 0);
    bh_csv_field(out, b->bench, 0);
    bh_csv_field(out, b->layer, 0);
    bh_csv_field(out, b->layer_name, 0);
    bh_csv_field(out, b->op, 0);
    bh_csv_field(out, b->backend, 0);
    bh_csv_field(out, b->impl, 0);
    bh_csv_field(out, b->dtype, 0);
    bh_csv_field(out, r->math, 0);
    bh_csv_field(out, bh_status_names[r->status], 0);
    fprintf(out, "%d,", have ? r->n_times : 0);
    bh_csv_num(out, s.min, have);
    bh_csv_num(out, s.median, have);
    bh_csv_num(out, s.mean, have);
    bh_csv_num(out, s.p90, have);
    bh_csv_num(out, s.max, have);
    bh_csv_num(out, s.stddev, have);
    fprintf(out, "%.0f,%.0f,%.0f,%d,%ld,", r->workspace_bytes, b->flops, b->bytes,
            r->threads ? r->threads : o->threads, (long)ru.ru_maxrss);
    bh_csv_field(out, r->device, 0);
    bh_csv_field(out, r->cc, 0);
    bh_csv_field(out, r->sms, 0);
    bh_csv_field(out, r->lib, 0);
    bh_csv_field(out, host, 0);
    bh_csv_field(out, when, 0);
    bh_csv_field(out, have ? r->method : "", 0);
    bh_csv_num(out, r->kernel_us, have && r->kernel_us >= 0);
    if (r->busy >= 0)
        fprintf(out, "%d,", r->busy);
    else
        fputc(',', out);
    char note[sizeof(r->note) + sizeof(r->tags) + 2];
    int facts = r->status == BH_OK || r->status == BH_ADVICE;
    snprintf(note, sizeof(note), "%s%s%s", r->note, facts && *r->tags && *r->note ? "; " : "", facts ? r->tags : "");
    bh_csv_field(out, note, 1);
    fflush(out);
}

static inline int bh_parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < 0 || v > 100000000)
        return -1;
    *out = (int)v;
    return 0;
}

static inline void bh_usage(const char *prog, FILE *out)
{
    fprintf(out,
            "usage: %s [--header] [--iters N] [--min-ms T] [--max-ms T] [--max-iters N] [--warmup N]\n"
            "          [--threads N] [--verify] [--cold] [--graph] [--events] [--no-cupti] [--lock FILE]\n"
            "Runs one benchmark and prints one CSV row (with --header, the header line first).\n"
            "Timing: --warmup untimed iterations (default 3), then at least --iters timed samples\n"
            "(default 10) and --min-ms of timed time (default 100 on CPUs, 30 on GPUs), at most\n"
            "--max-iters (default 100000); --max-ms (default 5000) caps the timed time, even below\n"
            "--iters (on a CPU a warm-up run as long as the cap is the one sample). On a GPU a sample\n"
            "is a batch of launches queued behind a blocking kernel and timed by the GPU (--graph:\n"
            "replayed from a CUDA graph; --events: one launch between two\n"
            "events, which times the host where it enqueues slower than the GPU runs; --cold: one\n"
            "launch after the L2 cache is flushed); CUPTI's kernel records give kernel_us (--no-cupti:\n"
            "not collected). --lock FILE (or $BENANZA_GPU_LOCK): hold an exclusive lock on FILE while\n"
            "timing, so that benchmarks started side by side (run_all -j) never time at once.\n",
            prog);
}

/* Returns 0, or 2 after a message on a bad flag; 1 for --help. */
static inline int bh_parse_args(int argc, char **argv, struct bh_opts *o)
{
    o->min_iters = 10;
    o->min_ms = 100;
    o->max_ms = 5000;
    o->max_iters = 100000;
    o->warmup = 3;
    o->threads = 0;
    o->verify = o->header = o->cold = o->graph = o->events = o->no_cupti = o->min_ms_given = 0;
    o->lock = getenv("BENANZA_GPU_LOCK");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int v;
        if (!strcmp(a, "--header")) {
            o->header = 1;
        } else if (!strcmp(a, "--verify")) {
            o->verify = 1;
        } else if (!strcmp(a, "--cold")) {
            o->cold = 1;
        } else if (!strcmp(a, "--graph")) {
            o->graph = 1;
        } else if (!strcmp(a, "--events")) {
            o->events = 1;
        } else if (!strcmp(a, "--no-cupti")) {
            o->no_cupti = 1;
        } else if (!strcmp(a, "--lock") && i + 1 < argc) {
            o->lock = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            bh_usage(argv[0], stdout);
            return 1;
        } else if (i + 1 < argc && !bh_parse_int(argv[i + 1], &v) &&
                   (!strcmp(a, "--iters") || !strcmp(a, "--min-ms") || !strcmp(a, "--max-ms") ||
                    !strcmp(a, "--max-iters") || !strcmp(a, "--warmup") || !strcmp(a, "--threads"))) {
            i++;
            if (!strcmp(a, "--iters"))
                o->min_iters = v > 0 ? v : 1;
            else if (!strcmp(a, "--min-ms"))
                o->min_ms = v, o->min_ms_given = 1;
            else if (!strcmp(a, "--max-ms"))
                o->max_ms = v;
            else if (!strcmp(a, "--max-iters"))
                o->max_iters = v > 0 ? v : 1;
            else if (!strcmp(a, "--warmup"))
                o->warmup = v;
            else
                o->threads = v;
        } else {
            fprintf(stderr, "%s: error: bad or incomplete flag '%s' (see --help)\n", argv[0], a);
            return 2;
        }
    }
    if (o->max_iters < o->min_iters)
        o->max_iters = o->min_iters;
    if (o->graph + o->events + o->cold > 1) {
        fprintf(stderr, "%s: error: --graph, --events and --cold are different methods: choose one\n", argv[0]);
        return 2;
    }
    return 0;
}

/* Warm-up, then time until both minimums are met or a maximum is reached. The time cap wins
 * over the iteration minimum (one timed iteration at least), so that a slow implementation
 * (a reference one) costs about --max-ms, not --iters times its run; warm-up stops after one
 * run that alone takes a tenth of the cap, and a warm-up run that alone takes the whole cap
 * is the one sample (no cache warmed by it changes a run that long; a reference GEMM of a
 * language model's head, 97 s a run, then fits run_all's timeout once, not twice). */
/* a timed run of US microseconds kept as a sample; -1 where there is no memory for it (the
 * row is then oom) */
static inline int bh_sample(struct bh_result *r, double us)
{
    if (bh_add_time(r, us) == 0)
        return 0;
    r->status = BH_OOM;
    bh_note(r, "out of memory for timings");
    return -1;
}

static inline void bh_measure(struct bh_bench *b, const struct bh_opts *o, struct bh_result *r)
{
    for (int i = 0; i < o->warmup; i++) {
        double us = b->run(b->state, r);
        if (us < 0)
            return;
        if (us >= o->max_ms * 1e3) {
            bh_sample(r, us);
            return;
        }
        if (us >= o->max_ms * 1e2)
            break;
    }
    double total = 0;
    while (r->n_times < o->max_iters) {
        double us = b->run(b->state, r);
        if (us < 0 || bh_sample(r, us) != 0)
            return;
        total += us;
        int enough = r->n_times >= o->min_iters && total >= o->min_ms * 1e3;
        if (enough || total >= o->max_ms * 1e3)
            break;
    }
}

static inline int bh_main(int argc, char **argv, struct bh_bench *b)
{
    struct bh_opts o;
    int pa = bh_parse_args(argc, argv, &o);
    if (pa)
        return pa == 1 ? 0 : 2;
    int cpu = b->backend && !strcmp(b->backend, "cpu");
    if (!cpu && !o.min_ms_given)
        o.min_ms = 30; /* a GPU sample is a batch of launches: fewer milliseconds suffice */
    bh_lock_path = o.lock;
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    snprintf(r.math, sizeof(r.math), "%s", "default");
    snprintf(r.method, sizeof(r.method), "%s", cpu ? "cpu" : "");
    r.kernel_us = -1;
    r.busy = -1;
    if (o.header)
        printf("%s\n", BH_CSV_HEADER);
    struct bh_load l0, l1;
    if (cpu)
        bh_load_take(&l0);
    /* where a benchmark's wall time goes: phases_ms (docs/formats.md) */
    double load_ms = bh_since_exec_ms(), t0 = bh_now_us();
    r.status = b->setup(b->state, &o, &r);
    double t1 = bh_now_us();
    if (r.status == BH_OK && o.verify && b->verify)
        r.status = b->verify(b->state, &r);
    double t2 = bh_now_us(), t3 = t2, t4 = t2;
    if (r.status == BH_OK) {
        int locked = bh_gpu_lock(&r);
        t3 = bh_now_us();
        if (locked != 0) {
            r.status = BH_ERROR;
        } else {
            if (b->measure)
                b->measure(b->state, &o, &r);
            else
                bh_measure(b, &o, &r);
            bh_gpu_unlock();
        }
        t4 = bh_now_us();
    }
    bh_tag(&r, "phases_ms=load:%.0f,setup:%.0f,verify:%.0f,wait:%.0f,measure:%.0f", load_ms, (t1 - t0) * 1e-3,
           (t2 - t1) * 1e-3, (t3 - t2) * 1e-3, (t4 - t3) * 1e-3);
    if (cpu && r.status == BH_OK) {
        bh_load_take(&l1);
        int used = r.threads > 0 ? r.threads : o.threads > 0 ? o.threads : 1;
        double others;
        int busy = bh_load_busy(&l0, &l1, (double)l0.ncpu - used, &others);
        if (busy >= 0) {
            r.busy = busy;
            if (r.busy)
                bh_tag(&r, "busy_cores=%.2f", others);
        }
        /* gen --calibrate: the datasheet arithmetic beside the measured ceiling */
        if (b->layer && !strncmp(b->layer, "calib-", 6))
            bh_cpu_peak_tag(&r, r.threads > 0 ? r.threads : o.threads > 0 ? o.threads : 1);
    }
    bh_print_row(stdout, b, &r, &o);
    if (b->teardown)
        b->teardown(b->state);
    free(r.times_us);
    return r.status == BH_NODEVICE ? 3 : r.status == BH_ERROR || r.status == BH_OOM ? 4 : 0;
}

#endif
