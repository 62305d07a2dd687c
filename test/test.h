/* Shared declarations of the unit-test groups (cmocka). */
#ifndef BENANZA_TEST_H
#define BENANZA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base.h"

/* One test group: runs its cmocka group and adds to the totals. */
struct test_totals {
    int run;
    int failed;
    int skipped;
};

extern int test_skipped; /* bumped by TEST_SKIP before cmocka's skip() */
#define TEST_SKIP(...)                                                                             \
    do {                                                                                           \
        print_message(__VA_ARGS__);                                                                \
        test_skipped++;                                                                            \
        skip();                                                                                    \
    } while (0)

void test_group_run(struct test_totals *tot, const char *name, struct CMUnitTest *tests, size_t n);

void test_base_group(struct test_totals *tot);
void test_mustache_group(struct test_totals *tot);
void test_mustache_spec_group(struct test_totals *tot);
void test_loader_group(struct test_totals *tot);
void test_cli_group(struct test_totals *tot);

/* Environment with a default: where the suite finds its inputs. */
const char *test_env(const char *name, const char *dflt);

#endif
