/* Loader tests: fixtures built here (valid, broken, truncated, random), and every model of
 * ../shared/models and libonnx-testdata held against the onnx package's own reading
 * (test/oracle/onnx_summary.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_fixtures.h"
#include "onnx_load.h"
#include "test.h"

static struct ir_model *load_fixture(enum fixture f, enum onnx_load_status *st, struct bz_buf *err)
{
    uint8_t *data;
    size_t n = fixture_build(f, &data);
    struct ir_model *m;
    *st = onnx_load_buffer(data, n, fixture_name(f), &m, err);
    free(data);
    return m;
}

static void tiny_cnn_lowers_to_ir(void **state)
{
    (void)state;
    struct bz_buf err;
    bz_buf_init(&err);
    enum onnx_load_status st;
    struct ir_model *m = load_fixture(FIXTURE_TINY_CNN, &st, &err);
    assert_int_equal(st, ONNX_LOAD_OK);
    const struct ir_graph *g = m->graph;
    assert_int_equal(m->ir_version, 8);
    assert_string_equal(m->producer_name, "benanza-fixture");
    assert_int_equal(ir_model_opset(m, ""), 13);
    assert_int_equal(ir_model_opset(m, "ai.onnx"), 13);
    assert_int_equal(ir_model_opset(m, "com.microsoft"), 0);
    assert_int_equal(g->n_nodes, 8);
    for (int i = 0; i < g->n_nodes; i++)
        assert_int_equal(g->topo[i], i); /* already sorted: file order kept */
    assert_int_equal(g->n_inputs, 1);
    assert_int_equal(g->inputs[0]->type.dtype, IR_DTYPE_FLOAT);
    assert_int_equal(g->inputs[0]->type.rank, 4);
    assert_int_equal(g->inputs[0]->type.dims[2].value, 32);
    const struct ir_node *conv = &g->nodes[0];
    assert_string_equal(conv->op_type, "Conv");
    assert_int_equal(conv->n_inputs, 3);
    assert_ptr_equal(conv->inputs[0], g->inputs[0]);
    const struct ir_attr *pads = ir_node_attr(conv, "pads");
    assert_non_null(pads);
    assert_int_equal(pads->type, IR_ATTR_INTS);
    assert_int_equal(pads->count, 4);
    assert_int_equal(pads->u.ints[3], 1);
    /* initializers: dims always, values kept for small tensors */
    struct ir_value *b1 = ir_graph_find(g, "b1");
    assert_non_null(b1);
    assert_non_null(b1->init);
    assert_int_equal(b1->init->nelem, 8);
    assert_true(b1->init->data_kept);
    assert_int_equal(b1->init->data_bytes, 32);
    float v[2];
    memcpy(v, b1->init->data, sizeof(v));
    assert_true(v[0] == -0.25f && v[1] == -0.125f);
    struct ir_value *w2 = ir_graph_find(g, "w2");
    assert_int_equal(w2->init->nelem, 16 * 8 * 9);
    assert_int_equal(w2->type.rank, 4); /* type taken from the initializer */
    assert_int_equal(ir_node_attr_int(&g->nodes[6], "axis", -1), 1);
    assert_int_equal(ir_node_attr_int(&g->nodes[6], "missing", 42), 42);
    ir_model_free(m);
    bz_buf_free(&err);
}

static void subgraphs_capture_outer_values_and_sort(void **state)
{
    (void)state;
    struct bz_buf err;
    bz_buf_init(&err);
    enum onnx_load_status st;
    struct ir_model *m = load_fixture(FIXTURE_SUBGRAPH, &st, &err);
    assert_int_equal(st, ONNX_LOAD_OK);
    const struct ir_graph *g = m->graph;
    const struct ir_node *iff = &g->nodes[0];
    assert_string_equal(iff->op_type, "If");
    assert_int_equal(iff->n_captures, 2);
    /* If reads a and b through its branches: it must come after both producers */
    assert_int_equal(g->topo[0], 1);
    assert_int_equal(g->topo[1], 2);
    assert_int_equal(g->topo[2], 0);
    const struct ir_attr *then_b = ir_node_attr(iff, "then_branch");
    assert_non_null(then_b);
    assert_int_equal(then_b->type, IR_ATTR_GRAPH);
    const struct ir_graph *tg = then_b->u.g;
    assert_ptr_equal(tg->parent, g);
    assert_ptr_equal(tg->owner, iff);
    assert_int_equal(tg->n_nodes, 1);
    assert_ptr_equal(tg->nodes[0].inputs[0], ir_graph_find(g, "a"));
    assert_null(ir_graph_find_local(tg, "a"));
    ir_model_free(m);
    bz_buf_free(&err);
}

static void expect_invalid(enum fixture f, const char *message)
{
    struct bz_buf err;
    bz_buf_init(&err);
    enum onnx_load_status st;
    struct ir_model *m = load_fixture(f, &st, &err);
    assert_null(m);
    assert_int_equal(st, ONNX_LOAD_EINVALID);
    if (!strstr(err.data, message)) {
        print_error("message: %s\nwanted: %s\n", err.data, message);
        fail();
    }
    assert_null(strchr(err.data, '\n'));
    bz_buf_free(&err);
}

static void inconsistent_graphs_are_located(void **state)
{
    (void)state;
    expect_invalid(FIXTURE_DANGLING_INPUT,
                   "node[1] (Add 'add'): input 'ghost' is not produced by any node, graph input or initializer");
    expect_invalid(FIXTURE_CYCLE, "the graph has a cycle through 2 nodes: node[1] (Relu 'second') -> node[0] (Add 'first') -> node[1] (Relu 'second')");
    expect_invalid(FIXTURE_DUPLICATE_OUTPUT, "node[1] (Sigmoid 'two'): output 'y' is already produced by node[0] (Relu 'one')");
    expect_invalid(FIXTURE_BAD_RAW_DATA, "initializer 'w' holds 10 bytes of data, its type and shape need 16");
}

static void external_data_is_recorded_not_read(void **state)
{
    (void)state;
    struct bz_buf err;
    bz_buf_init(&err);
    enum onnx_load_status st;
    struct ir_model *m = load_fixture(FIXTURE_EXTERNAL_DATA, &st, &err);
    assert_int_equal(st, ONNX_LOAD_OK);
    const struct ir_tensor *w = ir_graph_find(m->graph, "w")->init;
    assert_int_equal(w->location, IR_DATA_EXTERNAL);
    assert_string_equal(w->ext_location, "weights.bin");
    assert_int_equal(w->ext_offset, 4096);
    assert_int_equal(w->ext_length, 16000);
    assert_int_equal(w->nelem, 4000);
    assert_false(w->data_kept);
    ir_model_free(m);
    bz_buf_free(&err);
}

static void truncated_and_random_bytes_never_crash(void **state)
{
    (void)state;
    uint8_t *data;
    size_t n = fixture_build(FIXTURE_TINY_CNN, &data);
    struct bz_buf err;
    bz_buf_init(&err);
    int failures = 0;
    for (size_t cut = 0; cut < n; cut++) {
        struct ir_model *m;
        enum onnx_load_status st = onnx_load_buffer(data, cut, "cut", &m, &err);
        if (st == ONNX_LOAD_OK) {
            ir_model_free(m); /* a cut at a field boundary can still be a valid model */
        } else {
            assert_null(m);
            assert_true(err.len > 0);
            failures++;
        }
    }
    assert_true(failures > (int)n * 9 / 10);
    struct ir_model *m;
    assert_int_equal(onnx_load_buffer(data, n / 2, "half", &m, &err), ONNX_LOAD_EPARSE);
    assert_int_equal(onnx_load_buffer(data, 0, "empty", &m, &err), ONNX_LOAD_EEMPTY);

    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint8_t buf[4096];
    for (int round = 0; round < 300; round++) {
        size_t len = 1 + (size_t)(round * 13) % sizeof(buf);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        enum onnx_load_status st = onnx_load_buffer(buf, len, "random", &m, &err);
        assert_int_not_equal(st, ONNX_LOAD_OK);
        assert_null(m);
    }
    free(data);
    bz_buf_free(&err);
}

/* ---- the model corpus against the oracle ---- */

static const char type_kind_letter[IR_TYPE_KIND_COUNT] = {
    [IR_TYPE_NONE] = '-', [IR_TYPE_TENSOR] = 'T', [IR_TYPE_SPARSE_TENSOR] = 'S',
    [IR_TYPE_SEQUENCE] = 'Q', [IR_TYPE_MAP] = 'M', [IR_TYPE_OPTIONAL] = 'O',
};

static void summarize_value(struct bz_buf *b, const struct ir_value *v, const struct ir_type *t)
{
    test_esc(b, v->name);
    bz_buf_printf(b, ":%c:%d", type_kind_letter[t->kind], t->dtype);
    if (t->kind == IR_TYPE_TENSOR || t->kind == IR_TYPE_SPARSE_TENSOR) {
        if (t->rank < 0) {
            bz_buf_puts(b, ":*");
            return;
        }
        bz_buf_putc(b, ':');
        for (int i = 0; i < t->rank; i++) {
            if (i)
                bz_buf_putc(b, ',');
            if (t->dims[i].value >= 0)
                bz_buf_printf(b, "%lld", (long long)t->dims[i].value);
            else if (t->dims[i].param)
                test_esc(b, t->dims[i].param);
            else
                bz_buf_putc(b, '?');
        }
    }
}

struct opcount {
    char *key;
    int n;
};

static void walk(const struct ir_graph *g, struct opcount **ops, int *n_ops, long *nodes, long *attrs)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *nd = &g->nodes[i];
        (*nodes)++;
        *attrs += nd->n_attrs;
        struct bz_buf k;
        bz_buf_init(&k);
        test_esc(&k, nd->domain);
        bz_buf_putc(&k, ':');
        test_esc(&k, nd->op_type);
        int j;
        for (j = 0; j < *n_ops; j++)
            if (strcmp((*ops)[j].key, k.data) == 0)
                break;
        if (j == *n_ops) {
            *ops = bz_realloc(*ops, (size_t)(*n_ops + 1) * sizeof(**ops));
            (*ops)[j] = (struct opcount){bz_buf_steal(&k), 0};
            (*n_ops)++;
        }
        (*ops)[j].n++;
        bz_buf_free(&k);
        for (int a = 0; a < nd->n_attrs; a++) {
            if (nd->attrs[a].type == IR_ATTR_GRAPH && nd->attrs[a].u.g)
                walk(nd->attrs[a].u.g, ops, n_ops, nodes, attrs);
            if (nd->attrs[a].type == IR_ATTR_GRAPHS)
                for (size_t s = 0; s < nd->attrs[a].count; s++)
                    walk(nd->attrs[a].u.graphs[s], ops, n_ops, nodes, attrs);
        }
    }
}

static int opcount_cmp(const void *a, const void *b)
{
    return strcmp(((const struct opcount *)a)->key, ((const struct opcount *)b)->key);
}

/* The same line as the oracle's, from our IR. */
static void summarize(struct bz_buf *b, const char *path, const struct ir_model *m)
{
    const struct ir_graph *g = m->graph;
    bz_buf_printf(b, "%s\t%lld\t", path, (long long)m->ir_version);
    test_esc(b, m->producer_name);
    bz_buf_putc(b, '\t');
    for (int i = 0; i < m->n_opsets; i++) {
        if (i)
            bz_buf_putc(b, ';');
        test_esc(b, m->opsets[i].domain);
        bz_buf_printf(b, ":%lld", (long long)m->opsets[i].version);
    }
    struct opcount *ops = NULL;
    int n_ops = 0;
    long nodes = 0, attrs = 0;
    walk(g, &ops, &n_ops, &nodes, &attrs);
    long long params = 0;
    for (int i = 0; i < g->n_initializers; i++)
        params += g->initializers[i]->init->nelem;
    bz_buf_printf(b, "\t%d\t%ld\t%ld\t%d\t%lld\t", g->n_nodes, nodes, attrs, g->n_initializers, params);
    /* graph inputs and outputs with the types the file declares for them */
    for (int i = 0; i < g->n_inputs; i++) {
        if (i)
            bz_buf_putc(b, ';');
        summarize_value(b, g->inputs[i], &g->inputs[i]->type);
    }
    bz_buf_putc(b, '\t');
    for (int i = 0; i < g->n_outputs; i++) {
        if (i)
            bz_buf_putc(b, ';');
        summarize_value(b, g->outputs[i], &g->outputs[i]->type);
    }
    bz_buf_putc(b, '\t');
    qsort(ops, (size_t)n_ops, sizeof(*ops), opcount_cmp);
    for (int i = 0; i < n_ops; i++) {
        bz_buf_printf(b, "%s%s=%d", i ? ";" : "", ops[i].key, ops[i].n);
        free(ops[i].key);
    }
    free(ops);
}

struct corpus_case {
    char *path;
    const char *oracle; /* the oracle's line, or NULL */
    bool have_oracle;
};

static void corpus_model(void **state)
{
    struct corpus_case *c = *state;
    struct ir_model *m;
    struct bz_buf err;
    bz_buf_init(&err);
    enum onnx_load_status st = onnx_load_file(c->path, NULL, &m, &err);
    if (st != ONNX_LOAD_OK) {
        print_error("%s: error: %s\n", c->path, err.data);
        fail();
    }
    if (!c->have_oracle) {
        ir_model_free(m);
        bz_buf_free(&err);
        TEST_SKIP("loaded; not compared: no oracle summary (run through make test)\n");
    }
    if (!c->oracle) {
        print_error("%s: the oracle has no line for this model\n", c->path);
        fail();
    }
    struct bz_buf ours;
    bz_buf_init(&ours);
    summarize(&ours, c->path, m);
    if (strcmp(ours.data, c->oracle) != 0) {
        print_error("ours:   %s\noracle: %s\n", ours.data, c->oracle);
        fail();
    }
    bz_buf_free(&ours);
    ir_model_free(m);
    bz_buf_free(&err);
}

static void corpus_absent(void **state)
{
    TEST_SKIP("%s\n", (const char *)*state);
}

static void corpus_group(struct test_totals *tot, const char *group, const char *const *dirs,
                         size_t n_dirs, char **oracle_lines, size_t n_oracle, bool have_oracle)
{
    char **paths;
    size_t n = test_find_models(dirs, n_dirs, &paths);
    static char why[2][4400];
    if (n == 0) {
        char *w = why[strcmp(group, "models-shared") == 0 ? 0 : 1];
        snprintf(w, sizeof(why[0]), "skipped: no models under %s%s", dirs[0],
                 n_dirs > 1 ? " and the other test-data folders" : "");
        struct CMUnitTest t = {group, corpus_absent, NULL, NULL, w};
        test_group_run(tot, group, &t, 1);
        free(paths);
        return;
    }
    struct corpus_case *cases = bz_calloc(n, sizeof(*cases));
    struct CMUnitTest *tests = bz_calloc(n, sizeof(*tests));
    for (size_t i = 0; i < n; i++) {
        cases[i].path = paths[i];
        cases[i].have_oracle = have_oracle;
        size_t plen = strlen(paths[i]);
        for (size_t k = 0; k < n_oracle && !cases[i].oracle; k++)
            if (strncmp(oracle_lines[k], paths[i], plen) == 0 && oracle_lines[k][plen] == '\t')
                cases[i].oracle = oracle_lines[k];
        tests[i] = (struct CMUnitTest){paths[i], corpus_model, NULL, NULL, &cases[i]};
    }
    test_group_run(tot, group, tests, n);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    free(cases);
    free(tests);
}

void test_loader_group(struct test_totals *tot)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(tiny_cnn_lowers_to_ir),
        cmocka_unit_test(subgraphs_capture_outer_values_and_sort),
        cmocka_unit_test(inconsistent_graphs_are_located),
        cmocka_unit_test(external_data_is_recorded_not_read),
        cmocka_unit_test(truncated_and_random_bytes_never_crash),
    };
    test_group_run(tot, "loader", tests, BZ_ARRAY_LEN(tests));

    char *oracle;
    size_t n_lines;
    char **lines = test_read_lines(test_env("BENANZA_ORACLE", ""), &n_lines, &oracle);
    bool have_oracle = lines != NULL;
    if (!have_oracle)
        printf("loader: no oracle summary (BENANZA_ORACLE): models are loaded, not compared\n");
    char dirs[4][4096];
    const char *dp[4];
    size_t nd;
    test_model_dirs("shared", dirs, dp, &nd);
    corpus_group(tot, "models-shared", dp, nd, lines, n_lines, have_oracle);
    test_model_dirs("testdata", dirs, dp, &nd);
    corpus_group(tot, "models-onnx-testdata", dp, nd, lines, n_lines, have_oracle);
    free(lines);
    free(oracle);
}
