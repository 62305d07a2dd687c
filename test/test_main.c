/* The unit-test runner: every cmocka group, then one closing line with the totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"

int test_skipped;

const char *test_env(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

void test_group_run(struct test_totals *tot, const char *name, struct CMUnitTest *tests, size_t n)
{
    /* BENANZA_TEST_GROUP=NAME runs one group (while working on it) */
    const char *only = getenv("BENANZA_TEST_GROUP");
    if (only && *only && strcmp(only, name))
        return;
    /* BENANZA_TEST_ONLY=PATTERN runs the tests whose names match (cmocka's * and ?); the
     * totals still count the whole group */
    const char *pattern = getenv("BENANZA_TEST_ONLY");
    if (pattern && *pattern)
        cmocka_set_test_filter(pattern);
    int before = test_skipped;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int failed = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* where the suite's time goes (CI must stay well inside its limit) */
    printf("[ group ] %s: %.1f s\n", name, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
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
