/* The official Mustache spec (../shared/testdata/mustache-spec, one JSON file per module) run as it is:
 * required modules and the optional ~inheritance and ~dynamic-names ones. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mustache.h"
#include "test.h"

/* ~lambdas needs code in the data, which JSON cannot carry: not a module we claim. */
static const char *const spec_modules[] = {
    "comments", "delimiters", "interpolation", "inverted", "partials", "sections",
    "~inheritance", "~dynamic-names",
};

struct spec_case {
    char *name;
    const char *module;
    json_t *test; /* borrowed from the module's document */
};

struct spec_tally {
    int passed, total;
};
static struct spec_tally tally[BZ_ARRAY_LEN(spec_modules)];

static int partial_from_json(void *ud, const char *name, char **src, size_t *len)
{
    const json_t *partials = ud;
    const json_t *p = partials ? json_object_get(partials, name) : NULL;
    if (!p || !json_is_string(p))
        return 0;
    *src = bz_strndup(json_string_value(p), json_string_length(p));
    *len = json_string_length(p);
    return 1;
}

static void run_spec_case(void **state)
{
    struct spec_case *c = *state;
    const json_t *t = c->test;
    const json_t *tpl = json_object_get(t, "template");
    const json_t *expected = json_object_get(t, "expected");
    assert_non_null(tpl);
    assert_non_null(expected);
    struct mustache_opts o = {.partial = partial_from_json,
                              .partial_ud = json_object_get(t, "partials")};
    struct bz_buf out, err;
    bz_buf_init(&out);
    bz_buf_init(&err);
    int st = mustache_render(c->name, json_string_value(tpl), json_string_length(tpl),
                             json_object_get(t, "data"), &o, &out, &err);
    if (st != MUSTACHE_OK)
        print_error("render failed: %s\n", err.data);
    assert_int_equal(st, MUSTACHE_OK);
    if (out.len != json_string_length(expected) ||
        memcmp(out.data ? out.data : "", json_string_value(expected), out.len) != 0) {
        print_error("expected: [%s]\n     got: [%s]\n", json_string_value(expected),
                    out.data ? out.data : "");
        fail();
    }
    for (size_t m = 0; m < BZ_ARRAY_LEN(spec_modules); m++)
        if (strcmp(spec_modules[m], c->module) == 0)
            tally[m].passed++;
    bz_buf_free(&out);
    bz_buf_free(&err);
}

static void spec_absent(void **state)
{
    TEST_SKIP("%s\n", (const char *)*state);
}

void test_mustache_spec_group(struct test_totals *tot)
{
    const char *shared = test_env("BENANZA_SHARED", "../shared");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/testdata/mustache-spec", shared);
    json_t *docs[BZ_ARRAY_LEN(spec_modules)] = {0};
    struct spec_case *cases = NULL;
    struct CMUnitTest *tests = NULL;
    size_t n = 0, cap = 0;
    static char why[4200];
    for (size_t m = 0; m < BZ_ARRAY_LEN(spec_modules); m++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s.json", dir, spec_modules[m]);
        json_error_t je;
        docs[m] = json_load_file(path, 0, &je);
        if (!docs[m])
            continue;
        json_t *list = json_object_get(docs[m], "tests");
        for (size_t i = 0; i < json_array_size(list); i++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                cases = bz_realloc(cases, cap * sizeof(*cases));
            }
            json_t *t = json_array_get(list, i);
            char name[512];
            snprintf(name, sizeof(name), "spec %s: %s", spec_modules[m],
                     json_string_value(json_object_get(t, "name")));
            cases[n] = (struct spec_case){bz_strdup(name), spec_modules[m], t};
            tally[m].total++;
            n++;
        }
    }
    if (n == 0) {
        snprintf(why, sizeof(why), "skipped: the Mustache spec is not at %s (no ../shared)", dir);
        struct CMUnitTest t = {"mustache spec", spec_absent, NULL, NULL, why};
        test_group_run(tot, "mustache-spec", &t, 1);
        return;
    }
    tests = bz_calloc(n, sizeof(*tests));
    for (size_t i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){cases[i].name, run_spec_case, NULL, NULL, &cases[i]};
    test_group_run(tot, "mustache-spec", tests, n);

    int passed = 0, req_passed = 0, req_total = 0;
    for (size_t m = 0; m < BZ_ARRAY_LEN(spec_modules); m++) {
        passed += tally[m].passed;
        if (spec_modules[m][0] != '~') {
            req_passed += tally[m].passed;
            req_total += tally[m].total;
        }
    }
    printf("mustache spec: %d/%zu passed (required %d/%d", passed, n, req_passed, req_total);
    for (size_t m = 0; m < BZ_ARRAY_LEN(spec_modules); m++)
        if (spec_modules[m][0] == '~')
            printf(", %s %d/%d", spec_modules[m], tally[m].passed, tally[m].total);
    printf(")\n");
    for (size_t i = 0; i < n; i++)
        free(cases[i].name);
    free(cases);
    free(tests);
    for (size_t m = 0; m < BZ_ARRAY_LEN(spec_modules); m++)
        json_decref(docs[m]);
}
