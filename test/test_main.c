/* The unit-test runner: every cmocka group, then one closing line with the totals. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "test.h"

int test_skipped;

const char *test_env(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* each test's time, measured from the end of the one before it (so its setup counts), printed
 * above its OK line where it passes a second: where the suite's time goes. With it the
 * processor time of the test and the commands it ran (user and system, waited-for children
 * included): two lanes share the machine's cores, so a test's wall time depends on what runs
 * beside it, its processor time much less */
static struct timespec test_last;
static double test_cpu_last;

static double test_cpu(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    double s = 0;
    const struct timeval *tv[4] = {&self.ru_utime, &self.ru_stime, &kids.ru_utime, &kids.ru_stime};
    for (int i = 0; i < 4; i++)
        s += (double)tv[i]->tv_sec + (double)tv[i]->tv_usec / 1e6;
    return s;
}

static double test_since(struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
    *t0 = t1;
    return s;
}

static int test_timed(void **state)
{
    (void)state;
    double s = test_since(&test_last), cpu = test_cpu();
    if (s >= 1.0)
        printf("[  time  ] %.1f s, %.1f s of processor time\n", s, cpu - test_cpu_last);
    test_cpu_last = cpu;
    return 0;
}

/* NAME is one of LIST's comma-separated names */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        if (strcspn(p, ",") == n && !strncmp(p, name, n))
            return true;
    }
    return false;
}

void test_group_run(struct test_totals *tot, const char *name, struct CMUnitTest *tests, size_t n)
{
    /* BENANZA_TEST_GROUP=NAME[,NAME...] runs those groups (while working on one);
     * BENANZA_TEST_SKIP=NAME[,NAME...] all but those (scripts/test-lanes) */
    const char *only = getenv("BENANZA_TEST_GROUP"), *skip = getenv("BENANZA_TEST_SKIP");
    if (only && *only && !in_list(only, name))
        return;
    if (skip && *skip && in_list(skip, name))
        return;
    /* BENANZA_TEST_ONLY=PATTERN runs the tests whose names match (cmocka's * and ?); the
     * totals still count the whole group */
    const char *pattern = getenv("BENANZA_TEST_ONLY");
    if (pattern && *pattern)
        cmocka_set_test_filter(pattern);
    int before = test_skipped;
    for (size_t i = 0; i < n; i++)
        if (!tests[i].teardown_func)
            tests[i].teardown_func = test_timed;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    test_last = t0;
    test_cpu_last = test_cpu();
    int failed = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
    /* where the suite's time goes (CI must stay well inside its limit) */
    printf("[ group ] %s: %.1f s\n", name, test_since(&t0));
    tot->run += (int)n;
    tot->failed += failed;
    tot->skipped += test_skipped - before;
}

int main(void)
{
    struct test_totals tot = {0};
    test_base_group(&tot);
    test_mustache_group(&tot);
    test_mustache_spec_group(&tot);
    test_loader_group(&tot);
    test_shapes_group(&tot);
    test_layers_group(&tot);
    test_zoo_group(&tot);
    test_cli_group(&tot);
    test_agg_group(&tot);
    test_runner_group(&tot);
    test_e2e_group(&tot);
    test_cuda_group(&tot);
    int passed = tot.run - tot.failed - tot.skipped;
    printf("\ntotal: %d passed, %d failed, %d skipped\n", passed, tot.failed, tot.skipped);
    return tot.failed ? 1 : 0;
}
