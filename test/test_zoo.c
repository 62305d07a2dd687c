/* The built-in zoo: every model is read back by the onnx package (checker, shape inference,
 * parameter count against the published one: test/oracle/zoo_check.py) and by benanza
 * itself (every tensor resolved, outputs as declared, at two batch sizes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_load.h"
#include "shape.h"
#include "test.h"
#include "zoo/zoo.h"

struct zoo_case {
    const struct zoo_model *z;
    char name[64];
};

static char *oracle_text;

static void zoo_model_resolves(void **state)
{
    struct zoo_case *c = *state;
    int64_t params;
    size_t size;
    uint8_t *bytes = zoo_build(c->z, c->z->param_default, &size, &params);
    /* the builder's own tally must agree with the published count too */
    double err = (double)(params - c->z->published_params) / (double)c->z->published_params;
    assert_true(err < 0.005 && err > -0.005);
    for (int64_t batch = 1; batch <= 4; batch += 3) {
        struct ir_model *m;
        struct bz_buf e;
        bz_buf_init(&e);
        assert_int_equal(onnx_load_buffer(bytes, size, c->name, &m, &e), ONNX_LOAD_OK);
        struct shape_opts so = {.batch = batch};
        struct shape_result res;
        FILE *sink = tmpfile();
        struct bz_diag diag = {.out = sink};
        assert_int_equal(shape_infer(m, &so, &diag, &res), 0);
        fclose(sink);
        if (res.n_resolved != res.n_values || diag.warnings) {
            print_error("%s at batch %lld: %d of %d tensors resolved, %d warnings\n", c->name,
                        (long long)batch, res.n_resolved, res.n_values, diag.warnings);
            fail();
        }
        for (int i = 0; i < m->graph->n_outputs; i++) {
            const struct ir_type *t = &m->graph->outputs[i]->type, *d = &m->graph->outputs[i]->decl;
            assert_int_equal(t->rank, d->rank);
            assert_int_equal(t->dims[0].value, batch);
            for (int k = 1; k < t->rank; k++)
                assert_int_equal(t->dims[k].value, d->dims[k].value);
        }
        free(res.unsupported);
        ir_model_free(m);
        bz_buf_free(&e);
    }
    free(bytes);
    if (!oracle_text)
        TEST_SKIP("built and inferred; the onnx oracle did not run (BENANZA_ZOO_ORACLE; run make test)\n");
    char want[160];
    snprintf(want, sizeof(want), "ok   %s:", c->name);
    const char *line = strstr(oracle_text, want);
    if (!line) {
        print_error("the onnx oracle does not pass %s:\n%s", c->name, oracle_text);
        fail();
    }
    const char *eol = strchr(line, '\n');
    print_message("%.*s\n", (int)(eol ? eol - line : (long)strlen(line)), line);
}

static void zoo_spec_errors(void **state)
{
    (void)state;
    struct bz_buf err;
    bz_buf_init(&err);
    int64_t p;
    assert_null(zoo_parse("resnet51", &p, &err));
    assert_non_null(strstr(err.data, "no zoo model 'resnet51'"));
    bz_buf_clear(&err);
    assert_null(zoo_parse("resnet50:seq=4", &p, &err));
    assert_non_null(strstr(err.data, "takes no parameters"));
    bz_buf_clear(&err);
    assert_null(zoo_parse("bert_base:seq=0", &p, &err));
    bz_buf_clear(&err);
    assert_null(zoo_parse("bert_base:seq=513", &p, &err));
    assert_non_null(strstr(err.data, "512 positions"));
    assert_non_null(zoo_parse("gpt2:seq=1024", &p, &err));
    assert_int_equal(p, 1024);
    assert_non_null(zoo_parse("bert_base", &p, &err));
    assert_int_equal(p, 128);
    bz_buf_free(&err);
}

void test_zoo_group(struct test_totals *tot)
{
    size_t len;
    const char *path = test_env("BENANZA_ZOO_ORACLE", "");
    if (!*path || bz_read_file(path, 1 << 20, &oracle_text, &len) != BZ_READ_OK)
        oracle_text = NULL;
    struct zoo_case cases[16];
    struct CMUnitTest tests[17];
    size_t n = 0;
    for (const struct zoo_model *z = zoo_models; z->name && n < 16; z++, n++) {
        cases[n].z = z;
        struct bz_buf b;
        bz_buf_init(&b);
        zoo_file_name(&b, z, z->param_default);
        snprintf(cases[n].name, sizeof(cases[n].name), "%s", b.data);
        bz_buf_free(&b);
        tests[n] = (struct CMUnitTest){cases[n].name, zoo_model_resolves, NULL, NULL, &cases[n]};
    }
    tests[n++] = (struct CMUnitTest){"zoo_spec_errors", zoo_spec_errors, NULL, NULL, NULL};
    test_group_run(tot, "zoo", tests, n);
    free(oracle_text);
}
