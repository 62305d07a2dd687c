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

void test_shapes_group(struct test_totals *tot);
void test_layers_group(struct test_totals *tot);
void test_zoo_group(struct test_totals *tot);
void test_e2e_group(struct test_totals *tot);
void test_cuda_group(struct test_totals *tot);
void test_agg_group(struct test_totals *tot);
void test_runner_group(struct test_totals *tot);

/* Every *.onnx under the folders, sorted; returns the count (paths malloc'd). */
size_t test_find_models(const char *const *dirs, size_t n_dirs, char ***paths);
/* The name escaping of test/oracle/onnx_summary.py's esc(). */
void test_esc(struct bz_buf *b, const char *s);
/* The lines of a file, split in place inside *storage (both malloc'd); NULL if unreadable. */
char **test_read_lines(const char *path, size_t *n, char **storage);
/* The model folders of a corpus: "shared" (../shared/models) or "testdata" (libonnx-testdata). */
void test_model_dirs(const char *which, char dirs[][4096], const char **ptrs, size_t *n);

/* Runs a shell command (printf-style); its exit status, 128 when it did not exit. */
int test_sh(const char *fmt, ...) BZ_PRINTF(1, 2);

/* Whether the Python interpreter PY imports MODULES (an import statement's list: "onnx,
 * onnxruntime"); the oracles' modules come from scripts/setup. */
bool test_py_has(const char *py, const char *modules);
/* In a test that needs MODULES in PY: where one is missing, the test is skipped, saying so */
#define TEST_NEED_PY(py, modules)                                                                  \
    do {                                                                                           \
        if (!test_py_has((py), (modules))) {                                                       \
            TEST_SKIP("skipped: %s cannot import %s (scripts/setup installs them)\n", (py), (modules)); \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Environment with a default: where the suite finds its inputs. */
const char *test_env(const char *name, const char *dflt);

/* The shared models' folder (BENANZA_SHARED, default ../shared, then /models) into OUT, N
 * bytes; whether it is there (a user's fresh clone has none: the tests that need it skip) */
bool test_shared_models(char *out, size_t n);

#endif
