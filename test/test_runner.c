/* The benchmark runner (runtime/run_all.c) with stand-in benchmarks (test/standin_bench.c, the
 * real harness around work that sleeps): -j with the GPU lock (timings never overlap, set-ups
 * do), SIGINT and SIGTERM, a file-size limit, a read-only results file, a partial last row, a
 * benchmark built late, rows that agg takes, and a busy machine. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime/harness.h"
#include "test.h"

static char dir[] = "/tmp/bz-test-runner-XXXXXX";
static int built;

/* A folder with the runner built and N stand-ins L0-f32-a.. of a backend */
static void folder(const char *name, int n, const char *backend)
{
    if (!built) {
        assert_int_equal(test_sh("cc -std=c11 -O1 -Wall -Wextra -Werror runtime/run_all.c -o '%s/run_all' && "
                                 "cc -std=c11 -O1 -Wall -Wextra -Werror test/standin_bench.c -o '%s/standin' -lm",
                                 dir, dir),
                         0);
        built = 1;
    }
    assert_int_equal(test_sh("rm -rf '%s/%s' && mkdir -p '%s/%s/bin' && cp '%s/run_all' '%s/%s/bin/run_all' && "
                             "printf '# file\\tlayer\\top\\tmodels\\tbackend\\n' > '%s/%s/benchmarks.tsv'",
                             dir, name, dir, name, dir, dir, name, dir, name),
                     0);
    for (int i = 0; i < n; i++)
        assert_int_equal(test_sh("cp '%s/standin' '%s/%s/bin/L%d-f32-a' && printf 'L%d-f32-a\\tL%d\\tRelu\\ttoy@1\\t%s\\n' >> "
                                 "'%s/%s/benchmarks.tsv'",
                                 dir, dir, name, i, i, i, backend, dir, name),
                         0);
}

struct ev {
    char name[64];
    long long t[4]; /* setup start, setup end, hold start, hold end */
};

/* The stand-ins' log: one struct per benchmark */
static int read_log(const char *path, struct ev *v, int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char n[64], e[64];
    long long t;
    int pid, nv = 0;
    while (fscanf(f, "%63s %63s %lld %d", n, e, &t, &pid) == 4) {
        int k;
        for (k = 0; k < nv && strcmp(v[k].name, n); k++)
            ;
        if (k == nv) {
            assert_true(nv < max);
            memset(&v[nv], 0, sizeof(v[nv]));
            snprintf(v[nv].name, sizeof(v[nv].name), "%s", n);
            nv++;
        }
        int slot = !strcmp(e, "setup_start") ? 0 : !strcmp(e, "setup_end") ? 1 : !strcmp(e, "hold_start") ? 2 : 3;
        v[k].t[slot] = t;
    }
    fclose(f);
    return nv;
}

/* -j 3: the holds (warm-up and timing under the lock) never overlap; the set-ups overlap each
 * other and others' holds; every benchmark has an ok row */
static void runner_lock_parallel(void **state)
{
    (void)state;
    folder("par", 6, "cuda");
    assert_int_equal(test_sh("cd '%s/par' && STANDIN_LOG=log STANDIN_SETUP_MS=300 STANDIN_HOLD_MS=120 bin/run_all -j 3 "
                             "> out 2> err && test $(grep -c ',ok,' results.csv) = 6 && test -e .gpu.lock && "
                             "test \"$(head -1 results.csv)\" = \"$(STANDIN_HOLD_MS=1 bin/L0-f32-a --header | head -1)\"",
                             dir),
                     0);
    char path[600];
    snprintf(path, sizeof(path), "%s/par/log", dir);
    struct ev v[16];
    int n = read_log(path, v, 16);
    assert_int_equal(n, 6);
    int setup_overlaps = 0;
    for (int i = 0; i < n; i++) {
        assert_true(v[i].t[2] >= v[i].t[1] && v[i].t[3] > v[i].t[2]);
        for (int j = i + 1; j < n; j++) {
            int holds = v[i].t[2] < v[j].t[3] && v[j].t[2] < v[i].t[3];
            if (holds)
                fail_msg("%s and %s held the GPU lock at the same time", v[i].name, v[j].name);
            setup_overlaps += v[i].t[0] < v[j].t[1] && v[j].t[0] < v[i].t[1];
        }
    }
    if (setup_overlaps == 0)
        fail_msg("no two set-ups overlapped with -j 3");
    /* -j 1: nothing overlaps at all */
    assert_int_equal(test_sh("cd '%s/par' && rm -f log && STANDIN_LOG=log STANDIN_SETUP_MS=50 bin/run_all -j 1 --again "
                             "> out 2> err",
                             dir),
                     0);
    n = read_log(path, v, 16);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            assert_false(v[i].t[0] < v[j].t[3] && v[j].t[0] < v[i].t[3]);
}

/* INT and TERM end the run at once: status 130/143, the running benchmark killed and without a
 * row, the finished rows kept; the next run resumes */
static void runner_signals(void **state)
{
    (void)state;
    static const struct { const char *sig; int status; } sigs[] = {{"INT", 130}, {"TERM", 143}};
    for (int s = 0; s < 2; s++) {
        folder("sig", 3, "cpu");
        assert_int_equal(
            test_sh("cd '%s/sig' || exit 9; STANDIN_BACKEND=cpu STANDIN_LOG=log STANDIN_HOLD_MS=60000 bin/run_all > out 2> err & "
                    "pid=$!; for i in $(seq 100); do grep -q hold_start log 2>/dev/null && break; sleep 0.1; done; "
                    "grep -q hold_start log || exit 11; t0=$(date +%%s%%N); kill -%s $pid; wait $pid; rc=$?; "
                    "t1=$(date +%%s%%N); test $rc = %d || exit 12; test $(( (t1 - t0) / 1000000 )) -lt 3000 || exit 13; "
                    "child=$(awk '$2 == \"hold_start\" {print $4}' log | head -1); sleep 0.2; "
                    "kill -0 $child 2>/dev/null && exit 14; test $(grep -c ',ok,' results.csv) = 0 || exit 15; "
                    "grep -q stopped err || exit 16; exit 0",
                    dir, sigs[s].sig, sigs[s].status),
            0);
        /* the next run resumes and finishes */
        assert_int_equal(test_sh("cd '%s/sig' && STANDIN_BACKEND=cpu STANDIN_HOLD_MS=1 bin/run_all > out 2> err && "
                                 "test $(grep -c ',ok,' results.csv) = 3",
                                 dir),
                         0);
    }
}

/* A file-size limit (ulimit -f) reached mid-run: the run stops with status 5 and a message,
 * the results end with a whole row, the rows before are kept; a later run goes on */
static void runner_file_limit(void **state)
{
    (void)state;
    folder("limit", 40, "cuda");
    /* 2 blocks of 1 KiB: the header and a few rows fit, not 40 */
    assert_int_equal(test_sh("cd '%s/limit' && (ulimit -f 2; STANDIN_HOLD_MS=1 bin/run_all -j 2 > out 2> err; echo $? > "
                             "status); test \"$(cat status)\" = 5 && grep -q 'cannot write a row' err && "
                             "test \"$(tail -c 1 results.csv | od -An -c | tr -d ' ')\" = '\\n' && "
                             "n=$(grep -c ',ok,' results.csv) && test $n -ge 1 && test $n -lt 40 && "
                             "STANDIN_HOLD_MS=1 bin/run_all -j 2 > out 2> err && test $(grep -c ',ok,' results.csv) = 40",
                             dir),
                     0);
    /* a full device: /dev/full refuses every write */
    assert_int_equal(test_sh("cd '%s/limit' && STANDIN_HOLD_MS=1 bin/run_all --results /dev/full --again > out 2> err; "
                             "test $? = 5 && grep -q 'No space left' err",
                             dir),
                     0);
}

/* A results file that cannot be written: one message, status 5, nothing run */
static void runner_readonly(void **state)
{
    (void)state;
    folder("ro", 2, "cuda");
    /* root writes read-only files: the check runs as nobody where the suite runs as root */
    const char *as = "";
    if (geteuid() == 0) {
        if (test_sh("command -v setpriv > /dev/null") != 0) {
            TEST_SKIP("running as root without setpriv: a read-only file cannot be made; skipped\n");
            return;
        }
        as = "setpriv --reuid=65534 --regid=65534 --clear-groups";
        assert_int_equal(test_sh("chmod 755 '%s' && chmod -R a+rX '%s/ro'", dir, dir), 0);
    }
    assert_int_equal(test_sh("cd '%s/ro' && printf 'x\\n' > results.csv && chmod 444 results.csv && "
                             "STANDIN_LOG=/dev/null %s bin/run_all > out 2> err; test $? = 5 && "
                             "grep -q 'cannot write results.csv' err && test \"$(cat results.csv)\" = x",
                             dir, as),
                     0);
}

/* A partial last row (a run killed while writing) is dropped and its benchmark runs again; a
 * benchmark not built gets an error row that does not count as finished; every row passes agg */
static void runner_partial_row_and_late_build(void **state)
{
    (void)state;
    folder("part", 3, "cuda");
    assert_int_equal(test_sh("cd '%s/part' && STANDIN_HOLD_MS=1 bin/run_all --layer L0 > out 2> err && "
                             "printf '2,L1-f32-a,L1,standin,Re' >> results.csv && mv bin/L2-f32-a L2.bin && "
                             "STANDIN_HOLD_MS=1 bin/run_all > out 2> err && grep -q 'dropped a partial last row of L1-f32-a' err && "
                             "grep -q '^2,L1-f32-a,.*,ok,' results.csv && grep -q '^2,L2-f32-a,.*,error,.*not built' results.csv && "
                             "! grep -q ',Re$' results.csv && mv L2.bin bin/L2-f32-a && "
                             "STANDIN_HOLD_MS=1 bin/run_all > out 2> err && grep -q '^2,L2-f32-a,.*,ok,' results.csv && "
                             "STANDIN_HOLD_MS=1 bin/run_all > out 2> err && grep -q 'nothing to run' out",
                             dir),
                     0);
    /* a benchmark that dies gets an error row with the reason; agg takes every row */
    char agg[4096];
    if (!realpath(test_env("BENANZA_AGG", "bin/agg"), agg))
        fail_msg("no agg at %s", test_env("BENANZA_AGG", "bin/agg"));
    assert_int_equal(test_sh("cd '%s/part' && STANDIN_EXIT=7 bin/run_all --again --layer L1 > out 2> err && "
                             "grep -q 'L1-f32-a.*exited with status 7 and no row' results.csv && "
                             "%s --db agg.db ingest results.csv > agg.out 2>&1 && grep -q ', 0 bad' agg.out",
                             dir, agg),
                     0);
    /* an error row's type comes after the layer in the file's name, a layer with dashes too */
    assert_int_equal(test_sh("cd '%s/part' && printf 'calib-cpu-gemm-bf16-any\tcalib-cpu-gemm\tMatMul\t\tcuda\n' >> benchmarks.tsv && "
                             "STANDIN_HOLD_MS=1 bin/run_all > out 2> err && "
                             "test \"$(awk -F, '$2 == \"calib-cpu-gemm-bf16-any\" {print $8, $10}' results.csv)\" = 'bf16 error'",
                             dir),
                     0);
}

/* The busy check's arithmetic: other work counts beyond what /proc/stat's ticks resolve (two a
 * core over the window), so a short benchmark on a quiet machine is not busy, and a core of
 * other work over a long enough window is */
static void busy_check_resolution(void **state)
{
    (void)state;
    double hz = (double)sysconf(_SC_CLK_TCK), others;
    struct bh_load a = {0.0, 0.0, 10.0, 2, 1}, b = a;
    /* 75 ms on 2 cores, the benchmark on both: one tick of other work (0.13 cores) and a few
     * (0.4 cores) are within the resolution (0.53 cores at 100 ticks a second) */
    b.wall_s = a.wall_s + 0.075;
    b.own_s = 0.15;
    b.cpu_s = 0.15 + 1 / hz;
    assert_int_equal(bh_load_busy(&a, &b, 0, &others), 0);
    assert_true(others > 0);
    b.cpu_s = 0.15 + 0.03;
    assert_int_equal(bh_load_busy(&a, &b, 0, &others), 0);
    /* a whole core of other work over the same 75 ms: busy */
    b.cpu_s = 0.15 + 0.075;
    assert_int_equal(bh_load_busy(&a, &b, 0, &others), 1);
    assert_true(others > 0.99 && others < 1.01);
    /* half a core over 2 s: busy; the same where the benchmark leaves a core free: not */
    b.wall_s = a.wall_s + 2;
    b.own_s = 2;
    b.cpu_s = 3;
    assert_int_equal(bh_load_busy(&a, &b, 0, &others), 1);
    assert_int_equal(bh_load_busy(&a, &b, 1, &others), 0);
    /* readings that cannot be compared: unknown */
    b.ncpu = 3;
    assert_int_equal(bh_load_busy(&a, &b, 0, &others), -1);
}

/* One spinning process per core: CPU rows say busy=1, run_all warns at the start and the end */
static void runner_busy(void **state)
{
    (void)state;
    folder("busy", 2, "cpu");
    assert_int_equal(test_sh("cd '%s/busy' && n=$(nproc); pids=; for i in $(seq $n); do "
                             "(while :; do :; done) & pids=\"$pids $!\"; done; sleep 0.3; "
                             "STANDIN_BACKEND=cpu STANDIN_SPIN_MS=400 bin/run_all > out 2> err; rc=$?; kill $pids; "
                             "test $rc = 0 && grep -q 'busy at the start' err && grep -q 'rows were timed while other work' err "
                             "&& test $(awk -F, '$10 == \"ok\" && $31 == \"1\"' results.csv | wc -l) = 2",
                             dir),
                     0);
    /* a quiet machine: busy=0 (where this machine stays quiet: other tests may run beside, and
     * a row timed while they did says busy=1 and is counted in run_all's warning) */
    assert_int_equal(test_sh("cd '%s/busy' && STANDIN_BACKEND=cpu STANDIN_SPIN_MS=200 bin/run_all --again > out 2> err && "
                             "if grep -q -e 'busy at the start' -e 'rows were timed while other work' err; then "
                             "echo 'runner_busy: machine busy, quiet check skipped'; "
                             "else test $(awk -F, '$10 == \"ok\" && $31 == \"0\"' results.csv | wc -l) = 2; fi",
                             dir),
                     0);
}

/* The harness's time cap (bh_measure, a CPU benchmark's loop): runs of 60 ms under a 150 ms
 * cap make one warm-up run (over a tenth of the cap) and three timed ones (60, 120, 180 ms:
 * the cap, not --iters 10, ends it); runs of 200 ms, longer than the cap, make one run in all,
 * the warm-up's, which is the row's one sample */
static void runner_time_cap(void **state)
{
    (void)state;
    folder("cap", 1, "cpu");
    static const struct {
        int ms, runs, iters;
    } cases[] = {{60, 4, 3}, {200, 1, 1}};
    for (size_t i = 0; i < BZ_ARRAY_LEN(cases); i++)
        assert_int_equal(test_sh("cd '%s/cap' && rm -f log && STANDIN_LOG=log STANDIN_BACKEND=cpu STANDIN_RUN_MS=%d "
                                 "bin/L0-f32-a --warmup 3 --iters 10 --min-ms 1 --max-ms 150 > row && "
                                 "test $(grep -c ' run ' log) = %d && awk -F, '$10 == \"ok\" && $11 == %d' row | grep -q .",
                                 dir, cases[i].ms, cases[i].runs, cases[i].iters),
                         0);
}

void test_runner_group(struct test_totals *tot)
{
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make %s\n", dir);
        exit(1);
    }
    struct CMUnitTest tests[] = {
        cmocka_unit_test(runner_lock_parallel),   cmocka_unit_test(runner_signals),
        cmocka_unit_test(runner_file_limit),      cmocka_unit_test(runner_readonly),
        cmocka_unit_test(runner_partial_row_and_late_build), cmocka_unit_test(busy_check_resolution),
        cmocka_unit_test(runner_busy),
        cmocka_unit_test(runner_time_cap),
    };
    test_group_run(tot, "runner", tests, BZ_ARRAY_LEN(tests));
    if (!getenv("BENANZA_KEEP"))
        test_sh("rm -rf '%s'", dir);
}
