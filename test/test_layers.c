/* Layer keys, free/computing classification, dedupe across models and batches, fusion
 * patterns and the manifest, on fixtures whose answers are worked out here by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "onnx_fixtures.h"
#include "emit.h"
#include "pipeline.h"
#include "plan.h"
#include "test.h"
#include "zoo/zoo.h"

static char dir[] = "/tmp/bz-test-layers-XXXXXX";

static char *write_fixture(enum fixture f)
{
    uint8_t *data;
    size_t n = fixture_build(f, &data);
    char *p = bz_malloc(strlen(dir) + 64);
    sprintf(p, "%s/%s.onnx", dir, fixture_name(f));
    assert_int_equal(bz_write_file_atomic(p, data, n), 0);
    free(data);
    return p;
}

static void run_pipeline(struct pipeline *p, char **models, int n, const int64_t *batches, int nb)
{
    struct shape_opts so = {0};
    FILE *sink = tmpfile();
    struct bz_diag diag = {.out = sink ? sink : stderr};
    pipeline_run(p, models, n, batches, nb, &so, NULL, &diag, false);
    if (sink)
        fclose(sink);
}

static void equal_convolutions_share_one_key(void **state)
{
    (void)state;
    char *m = write_fixture(FIXTURE_CONV_VARIANTS);
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, &m, 1, &b, 1);
    assert_int_equal(p.n_runs, 1);
    const struct model_run *r = &p.runs[0];
    assert_int_equal(r->counts[NODE_COMPUTE], 4);
    /* explicit pads, SAME_UPPER with the kernel from the weight, and defaults spelled out */
    assert_int_equal(r->layer[0], r->layer[1]);
    assert_int_equal(r->layer[0], r->layer[2]);
    assert_int_not_equal(r->layer[0], r->layer[3]);
    assert_int_equal(p.layers.n, 2);
    const struct layer *l = &p.layers.v[r->layer[0]];
    assert_string_equal(l->name, "conv2d_n1_c8_16x16_k8_3x3_s1_p1_d1_g1_f32");
    assert_int_equal(l->uses, 3);
    assert_string_equal(p.layers.v[r->layer[3]].name, "conv2d_n1_c8_16x16_k8_3x3_s2_p1_d1_g1_f32");
    assert_int_equal(strlen(l->id), 16);
    assert_non_null(strstr(l->key, "\"pads\":[1,1,1,1]"));
    assert_null(strstr(l->key, "auto_pad"));
    assert_int_equal(r->n_groups, 0); /* graph outputs: nothing to fuse */
    pipeline_free(&p);
    unlink(m);
    free(m);
}

static void fusion_of_a_transformer_block(void **state)
{
    (void)state;
    char *m = write_fixture(FIXTURE_TRANSFORMER_BITS);
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, &m, 1, &b, 1);
    const struct model_run *r = &p.runs[0];
    assert_int_equal(r->counts[NODE_COMPUTE], 16);
    assert_int_equal(r->n_groups, 3);
    const char *want_pattern[] = {"layernorm", "gelu", "gemm_bias"};
    const char *want_op[] = {"ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add", "Div+Erf+Add+Mul+Mul",
                             "MatMul+Add"};
    const int want_nodes[][10] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, -1}, {11, 12, 13, 14, 15, -1}, {9, 10, -1}};
    for (int g = 0; g < 3; g++) {
        const struct fusion_group *fg = &r->groups[g];
        assert_string_equal(fg->pattern, want_pattern[g]);
        assert_string_equal(p.layers.v[fg->layer].op, want_op[g]);
        assert_true(p.layers.v[fg->layer].fused);
        int k = 0;
        for (; want_nodes[g][k] >= 0; k++) {
            assert_int_equal(fg->nodes[k], want_nodes[g][k]);
            assert_int_equal(r->group[fg->nodes[k]], g);
        }
        assert_int_equal(fg->n_nodes, k);
    }
    pipeline_free(&p);
    unlink(m);
    free(m);
}

/* a residual sum's LayerNorm: Add -> LN and Add -> Add(bias) -> LN are groups, and so is one
 * whose sum is read beyond the LayerNorm too (here by a graph output; a pre-LN transformer's
 * next residual Add), which keeps the sum: its key says so, and its name */
static void fusion_of_residual_layernorms(void **state)
{
    (void)state;
    char *m = write_fixture(FIXTURE_POST_LN);
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, &m, 1, &b, 1);
    const struct model_run *r = &p.runs[0];
    assert_int_equal(r->counts[NODE_COMPUTE], 7);
    assert_int_equal(r->n_groups, 3);
    const int want[3][4] = {{0, 1, -1}, {2, 3, 4, -1}, {5, 6, -1}};
    const char *want_op[3] = {"Add+LayerNormalization", "Add+Add+LayerNormalization", "Add+LayerNormalization"};
    for (int g = 0; g < 3; g++) {
        const struct fusion_group *fg = &r->groups[g];
        const struct layer *l = &p.layers.v[fg->layer];
        assert_string_equal(fg->pattern, "add_layernorm");
        assert_string_equal(l->op, want_op[g]);
        int k = 0;
        for (; want[g][k] >= 0; k++)
            assert_int_equal(fg->nodes[k], want[g][k]);
        assert_int_equal(fg->n_nodes, k);
        assert_int_equal(l->desc->keeps_sum, g == 2);
        assert_int_equal(json_is_true(json_object_get(json_object_get(l->params, "add_layernorm"), "sum")), g == 2);
        assert_int_equal(strncmp(l->name, "add_layernorm_keep__", 20) == 0, g == 2);
    }
    pipeline_free(&p);
    unlink(m);
    free(m);
}

/* GPT-2's gelu_new written out (the zoo's, as Hugging Face exports it): one gelu_tanh group per
 * layer, its eight nodes from the Pow of the MLP's input to the last Mul, beside the GEMM
 * + bias group that makes that input. Its pre-LN residual stream: each residual Add with the
 * LayerNorm after it, the sum kept (read by the next residual Add too), but for the last
 * (ln_f), which alone reads it */
static void fusion_of_gelu_tanh(void **state)
{
    (void)state;
    struct bz_buf err;
    bz_buf_init(&err);
    int64_t param;
    const struct zoo_model *z = zoo_parse("gpt2:seq=8", &param, &err);
    assert_non_null(z);
    bz_buf_free(&err);
    char *m = bz_malloc(strlen(dir) + 32);
    sprintf(m, "%s/gpt2.onnx", dir);
    assert_int_equal(zoo_write_onnx(z, param, m, NULL), 0);
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, &m, 1, &b, 1);
    const struct model_run *r = &p.runs[0];
    const struct ir_graph *g = r->m->graph;
    int found = 0;
    for (int k = 0; k < r->n_groups; k++) {
        const struct fusion_group *fg = &r->groups[k];
        if (strcmp(fg->pattern, "gelu_tanh"))
            continue;
        found++;
        assert_string_equal(p.layers.v[fg->layer].op, "Pow+Mul+Add+Mul+Tanh+Add+Mul+Mul");
        assert_int_equal(fg->n_nodes, 8);
        assert_non_null(strstr(g->nodes[fg->nodes[0]].name, "mlp.act.pow"));
        assert_non_null(strstr(g->nodes[fg->nodes[7]].name, "mlp.act.mul_half"));
    }
    assert_int_equal(found, 12);
    int kept = 0, plain = 0;
    for (int k = 0; k < r->n_groups; k++) {
        const struct fusion_group *fg = &r->groups[k];
        if (strcmp(fg->pattern, "add_layernorm"))
            continue;
        assert_int_equal(fg->n_nodes, 2);
        assert_non_null(strstr(g->nodes[fg->nodes[0]].name, ".residual"));
        bool keeps = p.layers.v[fg->layer].desc->keeps_sum;
        kept += keeps;
        plain += !keeps;
        assert_int_equal(strcmp(g->nodes[fg->nodes[1]].name, "transformer.ln_f") == 0, !keeps);
    }
    assert_int_equal(kept, 23);
    assert_int_equal(plain, 1);
    pipeline_free(&p);
    unlink(m);
    sprintf(m, "%s/gpt2.onnx.data", dir);
    unlink(m);
    free(m);
}

static void dedupe_across_models_and_batches(void **state)
{
    (void)state;
    char *m = write_fixture(FIXTURE_TINY_CNN);
    char *models[2] = {m, m};
    int64_t batches[2] = {1, 4};
    struct pipeline p;
    run_pipeline(&p, models, 2, batches, 2);
    assert_int_equal(p.n_runs, 4);
    for (int i = 0; i < 4; i++) {
        const struct model_run *r = &p.runs[i];
        /* Conv, Relu, MaxPool, Conv, Relu, GlobalAveragePool, Gemm compute; Flatten is a view */
        assert_int_equal(r->counts[NODE_COMPUTE], 7);
        assert_int_equal(r->counts[NODE_FREE], 1);
        assert_int_equal(r->cls[6], NODE_FREE);
        assert_int_equal(r->unique_layers, 7);
        assert_int_equal(r->n_groups, 2); /* conv1+relu1, conv2+relu2 */
        assert_string_equal(r->groups[0].pattern, "conv_act");
    }
    /* 7 single-node and 2 fused layers per batch size; the second copy adds none */
    assert_int_equal(p.layers.n, 18);
    const struct layer *conv1 = &p.layers.v[p.runs[0].layer[0]];
    assert_string_equal(conv1->name, "conv2d_n1_c3_32x32_k8_3x3_s1_p1_d1_g1_f32");
    assert_int_equal(conv1->uses, 2);
    assert_int_equal(conv1->n_models, 2);
    assert_string_equal(p.layers.v[p.runs[1].layer[0]].name, "conv2d_n4_c3_32x32_k8_3x3_s1_p1_d1_g1_f32");
    assert_string_equal(p.layers.v[p.runs[0].layer[7]].name, "gemm_m1_n10_k16_tb_bias_f32");

    /* the manifest: one layer line per layer, a run line and a node line per node */
    char out[256];
    snprintf(out, sizeof(out), "%s/out", dir);
    assert_int_equal(pipeline_write_manifest(&p, out), 0);
    char path[300], *text;
    size_t len;
    snprintf(path, sizeof(path), "%s/manifest.tsv", out);
    assert_int_equal(bz_read_file(path, 1 << 24, &text, &len), BZ_READ_OK);
    int layers = 0, runs = 0, nodes = 0, groups = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        layers += !strncmp(line, "layer\t", 6);
        runs += !strncmp(line, "run\t", 4);
        nodes += !strncmp(line, "node\t", 5);
        groups += !strncmp(line, "group\t", 6);
    }
    assert_int_equal(layers, 18);
    assert_int_equal(runs, 4);
    assert_int_equal(nodes, 32);
    assert_int_equal(groups, 8);
    free(text);
    /* conv2 (node 3) depends on the pool (node 2) */
    assert_int_equal(bz_read_file(path, 1 << 24, &text, &len), BZ_READ_OK);
    assert_non_null(strstr(text, "node\t0\t3\tConv\tcompute\t"));
    char *n3 = strstr(text, "node\t0\t3\tConv\t");
    char *eol = strchr(n3, '\n');
    *eol = '\0';
    assert_non_null(strstr(n3, "\t1\t2\tconv2")); /* fusion group 1, predecessor node 2 */
    free(text);
    unlink(path);
    rmdir(out);
    pipeline_free(&p);
    unlink(m);
    free(m);
}

/* Conv -> BN -> Add(residual) -> Relu is one group: a convolution with the BN folded in and
 * sum and eltwise post-ops */
static void fusion_of_a_residual_block(void **state)
{
    (void)state;
    char *m = write_fixture(FIXTURE_RESIDUAL);
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, &m, 1, &b, 1);
    const struct model_run *r = &p.runs[0];
    assert_int_equal(r->counts[NODE_COMPUTE], 4);
    assert_int_equal(r->n_groups, 1);
    assert_string_equal(r->groups[0].pattern, "conv_bn_add_act");
    assert_int_equal(r->groups[0].n_nodes, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(r->groups[0].nodes[k], k);
    assert_string_equal(p.layers.v[r->groups[0].layer].op, "Conv+BatchNormalization+Add+Relu");
    pipeline_free(&p);
    unlink(m);
    free(m);
}

/* ConvTranspose pads from the output size (auto_pad SAME, output_shape): libonnx-testdata's
 * models, worked out by hand from the operator's definition. output_shape [10, 8] with
 * strides [3, 2] on a 3x3 input and a 3x3 kernel: total padding 3*2 + 3 - 10 = -1 and
 * 2*2 + 3 - 8 = -1, no pad at the start and the end's -1 is one more output_padding: the very
 * layer that convtranspose_pad states with output_padding [1, 1]. SAME_UPPER, stride 2, 3x3
 * input and kernel: output 6, total 2*2 + 3 - 6 = 1, the odd pixel at the end. */
static void transposed_pads_from_the_output_size(void **state)
{
    (void)state;
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    static const char *const names[] = {"convtranspose_output_shape", "convtranspose_pad", "convtranspose_autopad_same"};
    char *models[3];
    for (int i = 0; i < 3; i++) {
        models[i] = bz_malloc(strlen(data) + 64);
        sprintf(models[i], "%s/node/test_%s/model.onnx", data, names[i]);
        if (access(models[i], R_OK) != 0) {
            for (int k = 0; k <= i; k++)
                free(models[k]);
            TEST_SKIP("skipped: no libonnx-testdata at %s\n", data);
        }
    }
    struct pipeline p;
    int64_t b = 0;
    run_pipeline(&p, models, 3, &b, 1);
    assert_int_equal(p.n_runs, 3);
    assert_int_equal(p.runs[0].layer[0], p.runs[1].layer[0]);
    const struct layer *l = &p.layers.v[p.runs[0].layer[0]];
    assert_non_null(strstr(l->key, "\"output_padding\":[1,1],\"pads\":[0,0,0,0],\"strides\":[3,2]"));
    assert_null(strstr(l->key, "output_shape"));
    l = &p.layers.v[p.runs[2].layer[0]];
    assert_non_null(strstr(l->key, "\"output_padding\":[0,0],\"pads\":[0,0,1,1],\"strides\":[2,2]"));
    assert_null(strstr(l->key, "auto_pad"));
    assert_int_equal(p.layers.n, 2);
    pipeline_free(&p);
    for (int i = 0; i < 3; i++)
        free(models[i]);
}

/* the layers a backend has no benchmark for, counted per op and said once per backend: each
 * backend's count starts from nothing (the CUDA warning once carried the CPU's counts) */
static void skipped_layers_counted_per_backend(void **state)
{
    (void)state;
    struct emit_ctx e = {0};
    struct bz_buf b;
    bz_buf_init(&b);
    emit_skip(&e, "Pad");
    emit_skip(&e, "CumSum");
    emit_skip(&e, "Pad");
    emit_skipped_take(&e, &b);
    assert_string_equal(b.data, "Pad 2, CumSum 1");
    bz_buf_clear(&b);
    emit_skip(&e, "CumSum");
    emit_skipped_take(&e, &b);
    assert_string_equal(b.data, "CumSum 1");
    bz_buf_clear(&b);
    emit_skipped_take(&e, &b);
    assert_int_equal(b.len, 0);
    /* past 64 kinds the first 64 are kept and counted */
    char names[70][16];
    for (int i = 0; i < 70; i++) {
        snprintf(names[i], sizeof(names[i]), "Op%d", i);
        emit_skip(&e, names[i]);
    }
    emit_skip(&e, "Op0");
    assert_int_equal(e.n_skipped, 64);
    assert_int_equal(e.skipped[0].n, 2);
    bz_buf_free(&b);
}

/* gen's trimming of the inlined runtime: a conditional on a family mask whose names it knows is
 * decided (directives and all), nested ones too; any other is kept as written; the oneDNN
 * headers hold their own family's references alone */
static void runtime_trimmed_to_families(void **state)
{
    (void)state;
    static const char text[] = "a\n"
                               "#if PL_FAMILIES & PL_FAM_INDEX\nidx\n#if PL_FAMILIES & PL_FAM_QUANT\niq\n#endif\n#else\nnoidx\n#endif\n"
                               "#if PL_FAMILIES & (PL_FAM_REDUCE | PL_FAM_QUANT)\nrq\n#endif\n"
                               "#if defined(X)\nx\n#else\ny\n#endif\n"
                               "#ifndef PL_KERNEL_ONLY\nhost\n#endif\n"
                               "#if PL_FAMILIES & PL_FAM_BOGUS\nbogus\n#endif\n"
                               "#if PL_FAMILIES & ~(PL_FAM_QUANT)\nnotq\n#endif\nz\n";
    struct bz_buf b;
    bz_buf_init(&b);
    emit_trim_plain(&b, text, strlen(text), PL_FAM_QUANT, false);
    assert_string_equal(b.data, "a\nnoidx\nrq\n#if defined(X)\nx\n#else\ny\n#endif\nhost\n"
                                "#if PL_FAMILIES & PL_FAM_BOGUS\nbogus\n#endif\nz\n");
    bz_buf_clear(&b);
    emit_trim_plain(&b, text, strlen(text), PL_FAM_INDEX | PL_FAM_QUANT, true);
    assert_string_equal(b.data, "a\nidx\niq\nrq\n#if defined(X)\nx\n#else\ny\n#endif\n"
                                "#if PL_FAMILIES & PL_FAM_BOGUS\nbogus\n#endif\nnotq\nz\n");
    /* what gen does not decide is kept as written, for the preprocessor: an or without the
     * parentheses, a typo; an #elif after decided branches is decided too, or becomes the #if
     * of what is left; a line of any length */
    static const char text2[] = "#if PL_FAMILIES & PL_FAM_QUANT | PL_FAM_INDEX\np\n#endif\n"
                                "#if PL_FAMILIES & (PL_FAM_QUANT || PL_FAM_INDEX)\nq\n#endif\n"
                                "#if PL_FAMILIES & PL_FAM_INDEX\nA\n#elif PL_FAMILIES & PL_FAM_QUANT\nB\n#elif defined(Y)\nC\n"
                                "#else\nD\n#endif\n"
                                "#if PL_FAMILIES & (PL_FAM_INDEX | PL_FAM_SAMPLE | PL_FAM_LINALG | PL_FAM_SIGNAL | PL_FAM_NN | "
                                "PL_FAM_RANDOM | PL_FAM_SELECT | PL_FAM_STRING | PL_FAM_INDEX | PL_FAM_SAMPLE | PL_FAM_REDUCE)\n"
                                "long\n#endif\n";
    static const char kept[] = "#if PL_FAMILIES & PL_FAM_QUANT | PL_FAM_INDEX\np\n#endif\n"
                               "#if PL_FAMILIES & (PL_FAM_QUANT || PL_FAM_INDEX)\nq\n#endif\n";
    static const struct {
        unsigned mask;
        const char *rest;
    } elifs[] = {
        {PL_FAM_QUANT, "B\n"},
        {PL_FAM_INDEX | PL_FAM_QUANT, "A\n"},
        {PL_FAM_REDUCE, "#if defined(Y)\nC\n#else\nD\n#endif\nlong\n"},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(elifs); i++) {
        bz_buf_clear(&b);
        emit_trim_plain(&b, text2, strlen(text2), elifs[i].mask, false);
        char want[400];
        snprintf(want, sizeof(want), "%s%s%s", kept, elifs[i].rest, elifs[i].mask & PL_FAM_INDEX ? "long\n" : "");
        assert_string_equal(b.data, want);
    }
    bz_buf_free(&b);
    /* the oneDNN headers: an RNN file has the RNN reference and none of the others' */
    static const char *const refs[] = {"bd_verify_reorder(", "bd_verify_concat(", "bd_verify_deconv(", "bd_verify_rnn("};
    static const unsigned bits[] = {BD_FAM_REORDER, BD_FAM_CONCAT, BD_FAM_DECONV, BD_FAM_RNN};
    for (unsigned mask = 0; mask <= BD_FAM_RNN; mask = mask ? mask << 1 : 1) {
        json_t *data = json_object();
        emit_dnnl_runtime(data, mask);
        const char *bench = json_string_value(json_object_get(data, "dnnl_bench"));
        const char *ops = json_string_value(json_object_get(data, "dnnl_ops"));
        assert_non_null(bench);
        assert_non_null(ops);
        assert_null(strstr(bench, "#if BD_FAMILIES"));
        assert_null(strstr(ops, "#if BD_FAMILIES"));
        assert_non_null(strstr(ops, "#ifndef BD_FAMILIES"));
        for (size_t i = 0; i < BZ_ARRAY_LEN(refs); i++)
            assert_int_equal(strstr(bench, refs[i]) != NULL, (mask & bits[i]) != 0);
        assert_int_equal(strstr(ops, "bd_rnn_desc(const") != NULL, mask == BD_FAM_RNN);
        json_decref(data);
    }
    /* the CUDA library headers: each family's file calls its own setup, launch and teardown and
     * the host reference its --verify holds it to (an engine its convolutions', a layout
     * change a copy's), and those of the families it does not meet are not in it (an engine's
     * file, which meets the convolutions, keeps their setup too); its defines name the
     * families it meets */
    /* every family but cuBLAS's, cuBLASLt's and a copy's */
#define CUDNN_FAMS (~(1u << CU_GEMM | 1u << CU_GEMV | 1u << CU_LT | 1u << CU_COPY))
    static const struct {
        const char *call;    /* in cudnn_ops.h, cuda_ref.h or cublas_ops.h */
        unsigned families;   /* the files that have it (bits 1 << CU_*) */
    } calls[] = {
        {"return bc_conv_setup(s, f, op, r);", 1u << CU_CONV | 1u << CU_CONV_FUSED | 1u << CU_DECONV | 1u << CU_ENGINE},
        {"bc_advice(s, f, op, r);", 1u << CU_ADVICE},
        {"return bc_engine_setup(s, f, op, r);", 1u << CU_ENGINE},
        {"return bc_sdpa_setup(s, f, op, r);", 1u << CU_SDPA},
        {"case BC_RNN: {", 1u << CU_RNN},
        {"return bc_blas_setup(s, f, op, r);", 1u << CU_GEMM | 1u << CU_GEMV},
        {"return bc_lt_setup(s, f, op, r);", 1u << CU_LT},
        {"return bc_dnn_setup(s, f, op, r);", CUDNN_FAMS},
        {"return bc_blas_launch(s, f, op, r);", 1u << CU_GEMM | 1u << CU_GEMV},
        {"return bc_lt_launch(s, f, op, r);", 1u << CU_LT},
        {"return bc_dnn_launch(s, f, op, r);", CUDNN_FAMS},
        {"    bc_dnn_teardown(f);", CUDNN_FAMS},
        {"    bc_lt_teardown(f);", 1u << CU_LT},
        {"    bc_engine_teardown(f);", 1u << CU_ENGINE | 1u << CU_SDPA},
        {"bc_lt_has_bias(op->epilogue) && !(io.b = bc_fetch(s, f->b, r))", 1u << CU_LT},
        {"(st = bc_rnn_weights(s, f, op, io.w, &io, r))", 1u << CU_RNN},
        {"return br_conv_at(op, io, i, mag);", 1u << CU_CONV | 1u << CU_CONV_FUSED | 1u << CU_ENGINE},
        {"return br_deconv_at(op, io, i, mag);", 1u << CU_DECONV},
        {"return br_gemm_at(op, io, i, mag);", 1u << CU_GEMM | 1u << CU_GEMV},
        {"return br_lt_at(op, io, i, mag);", 1u << CU_LT},
        {"return br_pool_at(op, io, i, mag);", 1u << CU_POOL},
        {"br_rnn(op, io, ref, rh, NULL);", 1u << CU_RNN},
        {"return br_sdpa_compare(op, io, got);", 1u << CU_SDPA},
        {"br_small_all(op, io, ref, mag) < 0", 1u << CU_COPY | 1u << CU_RELAYOUT | 1u << CU_ACT | 1u << CU_BNORM | 1u << CU_LRN |
                                                1u << CU_OPTENSOR | 1u << CU_SOFTMAX | 1u << CU_REDUCE},
        {"    case BC_COPY:\n", 1u << CU_COPY | 1u << CU_RELAYOUT},
        {"    case BC_ACT:\n        for", 1u << CU_ACT},
        {"long long c = op->x.d[1], inner = ny / (op->x.d[0] * c);", 1u << CU_BNORM},
        {"long long C = op->x.d[1], inner = ny / (op->x.d[0] * C);", 1u << CU_LRN},
        {"    case BC_OPTENSOR:\n        for", 1u << CU_OPTENSOR},
        {"/* over dim 1 of the (outer, mid, inner, 1) view */", 1u << CU_SOFTMAX},
        {"/* every x element goes to the y element with its reduced coordinates", 1u << CU_REDUCE},
    };
#undef CUDNN_FAMS
    static const char *const cuda_headers[] = {"cudnn_ops", "cuda_ref", "cublas_ops"};
    for (int fam = 0; fam < CU_FAMILY_COUNT; fam++) {
        json_t *data = json_object();
        struct bz_buf defs;
        bz_buf_init(&defs);
        emit_cuda_runtime(data, fam);
        emit_cuda_defines(&defs, fam);
        char all[3 * 80000];
        size_t at = 0;
        for (size_t h = 0; h < BZ_ARRAY_LEN(cuda_headers); h++) {
            const char *t = json_string_value(json_object_get(data, cuda_headers[h]));
            assert_non_null(t);
            if (strstr(t, "\n#if BC_FAMILIES"))
                fail_msg("%s: %s: %.100s", cu_family_name((enum cu_family)fam), cuda_headers[h], strstr(t, "\n#if BC_FAMILIES") + 1);
            assert_true(at + strlen(t) < sizeof(all));
            memcpy(all + at, t, strlen(t) + 1);
            at += strlen(t);
        }
        for (size_t i = 0; i < BZ_ARRAY_LEN(calls); i++)
            if ((strstr(all, calls[i].call) != NULL) != ((calls[i].families >> fam & 1u) != 0))
                fail_msg("%s: \"%s\" %s", cu_family_name((enum cu_family)fam), calls[i].call,
                         calls[i].families >> fam & 1u ? "missing" : "there");
        /* an engine is checked as a convolution, fused or not; a layout change as a copy */
        char want[160];
        snprintf(want, sizeof(want), "#define BC_FAMILY %s\n#define BC_FAMILIES (BC_FAM_%s%s)\n",
                 cu_family_name((enum cu_family)fam), cu_family_name((enum cu_family)fam) + 3,
                 fam == CU_ENGINE     ? " | BC_FAM_CONV | BC_FAM_CONV_FUSED"
                 : fam == CU_RELAYOUT ? " | BC_FAM_COPY"
                                      : "");
        if (!strstr(defs.data, want))
            fail_msg("%s: want %s in %s", cu_family_name((enum cu_family)fam), want, defs.data);
        bz_buf_free(&defs);
        json_decref(data);
    }
}

void test_layers_group(struct test_totals *tot)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_convolutions_share_one_key),
        cmocka_unit_test(fusion_of_a_transformer_block),
        cmocka_unit_test(fusion_of_gelu_tanh),
        cmocka_unit_test(fusion_of_residual_layernorms),
        cmocka_unit_test(fusion_of_a_residual_block),
        cmocka_unit_test(dedupe_across_models_and_batches),
        cmocka_unit_test(transposed_pads_from_the_output_size),
        cmocka_unit_test(skipped_layers_counted_per_backend),
        cmocka_unit_test(runtime_trimmed_to_families),
    };
    test_group_run(tot, "layers", tests, BZ_ARRAY_LEN(tests));
    rmdir(dir);
}
