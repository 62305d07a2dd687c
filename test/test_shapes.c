/* Shape inference against onnx.shape_inference.infer_shapes(data_prop=True), computed on the
 * fly by test/oracle/shape_summary.py, for every shared and libonnx-testdata model: every
 * tensor that onnx resolves must have the same element type and dims here. Tensors we
 * resolve and onnx does not are listed; models onnx refuses or cannot fully read are said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_load.h"
#include "shape.h"
#include "test.h"

struct oracle_model {
    const char *path;
    char **lines; /* "path\ttensor\telem\tdims" (borrowed) */
    size_t n;
};

struct shapes_case {
    const char *path;
    const struct oracle_model *om; /* NULL: the oracle has nothing for it */
};

/* totals printed after the groups */
static int extra_resolved, refused_models, noschema_models;

static void format_dims(struct bz_buf *b, const struct ir_type *t)
{
    if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
        bz_buf_putc(b, '*');
        return;
    }
    for (int k = 0; k < t->rank; k++) {
        if (k)
            bz_buf_putc(b, ',');
        if (t->dims[k].value >= 0)
            bz_buf_printf(b, "%lld", (long long)t->dims[k].value);
        else
            bz_buf_putc(b, '?');
    }
}

static void shapes_model(void **state)
{
    struct shapes_case *c = *state;
    if (!c->om)
        TEST_SKIP("no oracle line for %s (run through make test)\n", c->path);
    struct ir_model *m;
    struct bz_buf err;
    bz_buf_init(&err);
    if (onnx_load_file(c->path, NULL, &m, &err) != ONNX_LOAD_OK) {
        print_error("%s: %s\n", c->path, err.data);
        fail();
    }
    struct bz_diag diag = {.out = stderr};
    struct shape_result res;
    /* warnings go to a scratch file: a test log is no place for them */
    FILE *sink = tmpfile();
    diag.out = sink ? sink : stderr;
    assert_int_equal(shape_infer(m, NULL, &diag, &res), 0);
    if (sink)
        fclose(sink);

    /* our tensors by escaped name */
    const struct ir_graph *g = m->graph;
    char **names = bz_calloc((size_t)g->n_values + 1, sizeof(char *));
    bool *matched = bz_calloc((size_t)g->n_values + 1, sizeof(bool));
    for (int i = 0; i < g->n_values; i++) {
        struct bz_buf b;
        bz_buf_init(&b);
        test_esc(&b, g->values[i]->name);
        names[i] = bz_buf_steal(&b);
    }
    int mismatches = 0, compared = 0;
    for (size_t k = 0; k < c->om->n; k++) {
        char *line = bz_strdup(c->om->lines[k]);
        char *f[4] = {0};
        char *save = NULL, *p = strtok_r(line, "\t", &save);
        for (int i = 0; i < 4 && p; i++, p = strtok_r(NULL, "\t", &save))
            f[i] = p;
        if (f[1] && f[1][0] == '!') {
            if (!strcmp(f[1], "!MODEL")) {
                /* the count of tensor lines; nothing to say */
            } else if (!strcmp(f[1], "!REFUSED")) {
                print_message("note: onnx refuses %s in strict mode: %s\n", c->path, f[2] ? f[2] : "");
                refused_models++;
            } else {
                print_message("note: onnx has no schema for %s in %s: those outputs are not compared\n",
                              f[2] ? f[2] : "?", c->path);
                noschema_models++;
            }
            free(line);
            continue;
        }
        if (!f[3] || strchr(f[3], '?') || strchr(f[3], '*')) {
            free(line);
            continue; /* onnx does not resolve it */
        }
        int idx = -1;
        for (int i = 0; i < g->n_values && idx < 0; i++)
            if (!strcmp(names[i], f[1]))
                idx = i;
        compared++;
        if (idx < 0) {
            if (mismatches++ < 10)
                print_error("%s: onnx has tensor %s, we do not\n", c->path, f[1]);
            free(line);
            continue;
        }
        matched[idx] = true;
        const struct ir_type *t = &g->values[idx]->type;
        struct bz_buf ours;
        bz_buf_init(&ours);
        format_dims(&ours, t);
        if (strcmp(ours.data, f[3]) != 0 || t->dtype != atoi(f[2])) {
            if (mismatches++ < 10)
                print_error("%s: %s: onnx %s [%s], ours %s [%s]\n", c->path, f[1],
                            ir_dtype_name(atoi(f[2])), f[3], ir_dtype_name(t->dtype), ours.data);
        }
        bz_buf_free(&ours);
        free(line);
    }
    int extra = 0;
    struct bz_buf list;
    bz_buf_init(&list);
    for (int i = 0; i < g->n_values; i++) {
        if (!matched[i] && shape_is_resolved(&g->values[i]->type)) {
            if (extra < 5)
                bz_buf_printf(&list, "%s%s", extra ? ", " : "", names[i]);
            extra++;
        }
    }
    if (extra) {
        print_message("note: %s: we resolve %d tensor%s that onnx does not: %s%s\n", c->path, extra,
                      extra == 1 ? "" : "s", list.data, extra > 5 ? ", ..." : "");
        extra_resolved += extra;
    }
    bz_buf_free(&list);
    for (int i = 0; i < g->n_values; i++)
        free(names[i]);
    free(names);
    free(matched);
    free(res.unsupported);
    ir_model_free(m);
    bz_buf_free(&err);
    if (mismatches) {
        print_error("%s: %d of %d tensors that onnx resolves differ\n", c->path, mismatches, compared);
        fail();
    }
}

static void shapes_absent(void **state)
{
    TEST_SKIP("%s\n", (const char *)*state);
}

static void shapes_corpus(struct test_totals *tot, const char *group, const char *which,
                          char **lines, size_t n_lines)
{
    char dirs[4][4096];
    const char *dp[4];
    size_t nd;
    test_model_dirs(which, dirs, dp, &nd);
    char **paths;
    size_t n = test_find_models(dp, nd, &paths);
    static char why[2][4400];
    if (n == 0 || !lines) {
        char *w = why[strcmp(which, "shared") == 0 ? 0 : 1];
        snprintf(w, sizeof(why[0]), "skipped: %s", !lines ? "no shape oracle (BENANZA_SHAPE_ORACLE; run make test)"
                                                           : "no models (../shared or libonnx-testdata absent)");
        struct CMUnitTest t = {group, shapes_absent, NULL, NULL, w};
        test_group_run(tot, group, &t, 1);
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        return;
    }
    struct oracle_model *om = bz_calloc(n, sizeof(*om));
    struct shapes_case *cases = bz_calloc(n, sizeof(*cases));
    struct CMUnitTest *tests = bz_calloc(n, sizeof(*tests));
    /* the oracle is sorted by path like our list: one pass pairs them */
    size_t li = 0;
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(paths[i]);
        om[i].path = paths[i];
        while (li < n_lines && strncmp(lines[li], paths[i], plen) < 0)
            li++;
        size_t start = li;
        while (li < n_lines && strncmp(lines[li], paths[i], plen) == 0 && lines[li][plen] == '\t')
            li++;
        om[i].lines = lines + start;
        om[i].n = li - start;
        if (om[i].n == 0) {
            /* not found in order (paths with tabs or odd sorting): search all */
            for (size_t k = 0; k < n_lines; k++)
                if (!strncmp(lines[k], paths[i], plen) && lines[k][plen] == '\t') {
                    om[i].lines = lines + k;
                    om[i].n = 1;
                    while (k + om[i].n < n_lines && !strncmp(lines[k + om[i].n], paths[i], plen) &&
                           lines[k + om[i].n][plen] == '\t')
                        om[i].n++;
                    break;
                }
            li = start;
        }
        cases[i] = (struct shapes_case){paths[i], om[i].n ? &om[i] : NULL};
        tests[i] = (struct CMUnitTest){paths[i], shapes_model, NULL, NULL, &cases[i]};
    }
    test_group_run(tot, group, tests, n);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    free(om);
    free(cases);
    free(tests);
}

void test_shapes_group(struct test_totals *tot)
{
    char *storage;
    size_t n_lines;
    char **lines = test_read_lines(test_env("BENANZA_SHAPE_ORACLE", ""), &n_lines, &storage);
    shapes_corpus(tot, "shapes-shared", "shared", lines, n_lines);
    shapes_corpus(tot, "shapes-onnx-testdata", "testdata", lines, n_lines);
    printf("shapes: %d tensors resolved here that onnx leaves unresolved; onnx refuses %d model%s "
           "in strict mode and has no schema for ops in %d\n",
           extra_resolved, refused_models, refused_models == 1 ? "" : "s", noschema_models);
    free(lines);
    free(storage);
}
