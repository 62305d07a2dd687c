/* End to end on the CPU backend: gen -> ninja -> run_all --verify -> bin/agg, on a fixture
 * model and on three shared models (a CNN, a transformer, an LSTM). One CSV row per benchmark, every row ok or unsupported, every
 * ok row verified against oneDNN's reference implementation, every computing layer covered. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onnx_fixtures.h"
#include "test.h"

static char dir[] = "/tmp/bz-test-e2e-XXXXXX";


/* `make asan-test` sets BENANZA_E2E_SEMANTICS=0: every test here then runs gen (sanitized:
 * inference, keys, plans, emission) and stops there. What follows gen (ninja, run_all, the
 * folder's bin/agg, the oracles on the kernels' outputs) is code built with the folder's own
 * flags, out of the sanitizers' reach, and make test runs it whole: running it twice would only
 * double CI's time. */
static int gen_only;

/* The aggregator the folder builds (bin/agg, the same embedded sources in every folder, about 6 s
 * of compiling) is built and used by the first folder this process builds; the others build
 * their benchmarks and the runner only and report with the project's agg (agg_cmd: the one
 * to run, empty before the first build) */
static char agg_cmd[PATH_MAX + 8];

/* an oracle script on a folder (nothing when only gen ran) */
static void run_oracle(const char *py, const char *script, const char *out)
{
    if (!gen_only)
        assert_int_equal(test_sh("%s test/oracle/%s '%s' > '%s.oracle.log'", py, script, out, out), 0);
}

static void check_folder(const char *out, const char *model_row)
{
    if (gen_only)
        return;
    char path[600], *text;
    size_t len;
    snprintf(path, sizeof(path), "%s/benchmarks.tsv", out);
    assert_int_equal(bz_read_file(path, 1 << 24, &text, &len), BZ_READ_OK);
    int benches = 0;
    for (char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
        benches += *p != '#' && *p != '\n';
    free(text);
    snprintf(path, sizeof(path), "%s/results.csv", out);
    assert_int_equal(bz_read_file(path, 1 << 26, &text, &len), BZ_READ_OK);
    int rows = 0, ok = 0, bad = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "schema,", 7))
            continue;
        rows++;
        /* status is field 10; the note is the last field */
        char *f = line;
        for (int k = 1; k < 10 && f; k++)
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        assert_non_null(f);
        if (!strncmp(f, "ok,", 3)) {
            ok++;
            /* the random generators: by their statistics (no oracle draws the same numbers) */
            if (!strstr(line, "verified against the reference") && !strstr(line, "verified by its statistics")) {
                print_error("not verified: %s\n", line);
                bad++;
            }
        } else if (strncmp(f, "unsupported,", 12) != 0) {
            print_error("bad row: %s\n", line);
            bad++;
        }
    }
    free(text);
    print_message("%s: %d benchmarks, %d rows, %d ok\n", out, benches, rows, ok);
    if (rows != benches)
        test_sh("cat '%s/results.csv' >&2", out);
    assert_int_equal(rows, benches);
    assert_true(ok > 0);
    assert_int_equal(bad, 0);
    /* every computing layer of the model has a result: the aggregator (the folder's bin/agg,
     * build_folder) ingests it and reports the bound */
    assert_int_equal(test_sh("cd '%s' && %s . --format json --report bound --type f32 > bound.json 2> agg.log", out, agg_cmd), 0);
    snprintf(path, sizeof(path), "%s/bound.json", out);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je), *r, *found = NULL;
    assert_non_null(j);
    size_t i;
    char model[256];
    snprintf(model, sizeof(model), "%s", model_row);
    model[strcspn(model, " ")] = '\0';
    json_array_foreach(json_object_get(json_array_get(json_object_get(j, "reports"), 0), "rows"), i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "model")), model))
            found = r;
    }
    if (!found)
        fail_msg("no bound for %s in %s", model, path);
    int covered = (int)json_number_value(json_object_get(found, "covered"));
    int total = (int)json_number_value(json_object_get(found, "computing"));
    print_message("%s: %d/%d layers covered, sequential %.1f us, fused %.1f us\n", model, covered, total,
                  json_number_value(json_object_get(found, "sequential")), json_number_value(json_object_get(found, "fused")));
    assert_true(total > 0);
    assert_int_equal(covered, total);
    assert_true(json_number_value(json_object_get(found, "sequential")) > 0);
    json_decref(j);
}

/* The folder's build has no warning flags (a user's compiler may differ): here gen writes
 * build.ninja with CC holding -Wall -Wextra -Werror, so that every generated C file (at the
 * folder's own -O0 or -O2, with the optimiser's warnings at -O2) compiles the way a bug
 * report's repro would be held to, in the one build the test makes */
#define GEN_CC "CC='cc -Wall -Wextra -Werror' "

static void build_folder(const char *out)
{
    if (!*agg_cmd) {
        assert_int_equal(test_sh("ninja -C '%s' > '%s.ninja.log' 2>&1 || { tail -30 '%s.ninja.log'; exit 1; }", out, out, out), 0);
        snprintf(agg_cmd, sizeof(agg_cmd), "./bin/agg");
        return;
    }
    char *agg = realpath(test_env("BENANZA_AGG", "bin/agg"), NULL);
    assert_non_null(agg);
    snprintf(agg_cmd, sizeof(agg_cmd), "'%s'", agg);
    free(agg);
    assert_int_equal(test_sh("ninja -C '%s' $(ninja -C '%s' -t targets all | awk -F': ' '$2 != \"cc_agg\" && $2 != \"phony\" "
                             "{print $1}') > '%s.ninja.log' 2>&1 || { tail -30 '%s.ninja.log'; exit 1; }",
                             out, out, out, out),
                     0);
}

static void run_folder(const char *gen_args, const char *out)
{
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    assert_int_equal(test_sh(GEN_CC "%s %s -o '%s' 2>'%s.gen.log'", gen, gen_args, out, out), 0);
    if (gen_only)
        return;
    build_folder(out);
    assert_int_equal(test_sh("cd '%s' && ./run_all -- --verify --warmup 1 --iters 2 --min-ms 1 > run_all.log", out), 0);
    /* a second run resumes: nothing left to run */
    assert_int_equal(test_sh("cd '%s' && ./run_all | grep -q 'nothing to run'", out), 0);
}

static void e2e_fixture(enum fixture f, const char *batch)
{
    uint8_t *data;
    size_t n = fixture_build(f, &data);
    char model[300], out[300], args[700], row[64];
    snprintf(model, sizeof(model), "%s/%s.onnx", dir, fixture_name(f));
    snprintf(out, sizeof(out), "%s/%s", dir, fixture_name(f));
    assert_int_equal(bz_write_file_atomic(model, data, n), 0);
    free(data);
    snprintf(args, sizeof(args), "-b %s '%s'", batch, model);
    run_folder(args, out);
    snprintf(row, sizeof(row), "%s ", fixture_name(f));
    check_folder(out, row);
}

/* a fixture through e2e_fixture, then an oracle script on its folder (skipped without
 * onnx.reference) */
static void e2e_fixture_oracle(enum fixture f, const char *batch, const char *script)
{
    const char *py = test_env("BENANZA_PYTHON", "python3");
    e2e_fixture(f, batch);
    char out[300];
    snprintf(out, sizeof(out), "%s/%s", dir, fixture_name(f));
    TEST_NEED_PY(py, "onnx.reference");
    run_oracle(py, script, out);
}

static void e2e_fixture_cnn(void **state)
{
    (void)state;
    e2e_fixture(FIXTURE_TINY_CNN, "2");
}

/* the residual block's fused layer is a convolution with sum and eltwise post-ops */
static void e2e_fixture_residual(void **state)
{
    (void)state;
    e2e_fixture(FIXTURE_RESIDUAL, "1");
}

/* a concat of ten inputs (more than the eight a fixed argument list would allow) */
static void e2e_fixture_wide_concat(void **state)
{
    (void)state;
    e2e_fixture(FIXTURE_WIDE_CONCAT, "1");
}

/* ONNX Runtime's per-node times (scripts/measure-ort --nodes) held against the bound: the
 * transformer fixture's decomposed LayerNorm, bias GEMM and erf GELU, which ONNX Runtime fuses
 * too, each a row of the nodes its fused node stands for; test/oracle/ort_nodes_check.py checks
 * the rows against gen's manifest and agg's framework-layers report */
static void e2e_framework_layers_ort(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    e2e_fixture(FIXTURE_TRANSFORMER_BITS, "1");
    if (gen_only)
        return;
    TEST_NEED_PY(py, "onnx, onnxruntime");
    char gen[4096], out[300];
    if (!realpath(test_env("BENANZA_GEN", "bin/gen"), gen))
        fail_msg("no gen");
    snprintf(out, sizeof(out), "%s/%s", dir, fixture_name(FIXTURE_TRANSFORMER_BITS));
    assert_int_equal(test_sh("%s scripts/measure-ort '%s.onnx' --gen '%s' --batch 1 --threads 2 --warmup 2 --runs 5 "
                             "--nodes --out '%s/measured.csv' > '%s.ort.log' 2>&1 || { cat '%s.ort.log'; exit 1; }",
                             py, out, gen, out, out, out),
                     0);
    assert_int_equal(test_sh("cd '%s' && %s . measured.csv --report framework-layers --format json > fl.json 2> fl.err "
                             "|| { cat fl.err; exit 1; }",
                             out, agg_cmd),
                     0);
    assert_int_equal(test_sh("%s test/oracle/ort_nodes_check.py '%s' '%s/fl.json'", py, out, out), 0);
    /* the same model with no node names (an exporter's that writes none): measure-ort names each
     * node `#INDEX`, its place in the file, and agg finds it by that in gen's manifest (a folder
     * of the nameless model, with the first folder's results: the layers are the same; the
     * project's agg, the folder is not built) */
    char *agg = realpath(test_env("BENANZA_AGG", "bin/agg"), NULL);
    assert_non_null(agg);
    assert_int_equal(test_sh("%s -c \"import onnx, sys; m = onnx.load(sys.argv[1]); "
                             "[n.ClearField('name') for n in m.graph.node]; onnx.save(m, sys.argv[2])\" "
                             "'%s.onnx' '%s-nameless.onnx' && %s -b 1 '%s-nameless.onnx' -o '%s-nameless' 2> /dev/null && "
                             "cp '%s/results.csv' '%s-nameless/' && "
                             "%s scripts/measure-ort '%s-nameless.onnx' --gen '%s' --batch 1 --threads 2 --warmup 2 "
                             "--runs 5 --nodes --out '%s-nameless/measured.csv' > '%s.ort.log' 2>&1 && "
                             "cd '%s-nameless' && grep -q ',#[0-9]' measured.csv && "
                             "%s . measured.csv --report framework-layers --format json > fl.json 2> fl.err || "
                             "{ cat '%s.ort.log' '%s-nameless/fl.err'; exit 1; }",
                             py, out, out, gen, out, out, out, out, py, out, gen, out, out, out, agg, out, out),
                     0);
    free(agg);
    assert_int_equal(test_sh("%s test/oracle/ort_nodes_check.py '%s-nameless' '%s-nameless/fl.json'", py, out, out), 0);
}

/* TopK, Split, Concat, ArgMax, ScatterND (plain C): verified in the benchmarks, and each kernel's
 * output on its own inputs held against onnx's reference by test/oracle/plain_check.py,
 * together with libonnx-testdata's ArgMax/ArgMin, ScatterND and Split models */
static void e2e_fixture_selections(void **state)
{
    (void)state;
    e2e_fixture_oracle(FIXTURE_SELECTIONS, "2", "plain_check.py");
    /* the f32 Concat's plain C in the 16-bit types too, held to the reference like the f32 one */
    if (!gen_only)
        assert_int_equal(test_sh("for t in f32 bf16 f16; do grep -q -- \"-$t-c_plain.c Concat: ok\" '%s/selections.oracle.log' || "
                                 "exit 1; done", dir),
                         0);
}

/* ARGS gets the quoted paths of libonnx-testdata's models test_NAME; -1 and the first one
 * missing in MISSING where one is not there */
static int node_model_paths(const char *const *models, size_t n, struct bz_buf *args, char *missing, size_t len)
{
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    for (size_t i = 0; i < n; i++) {
        snprintf(missing, len, "%s/node/test_%s/model.onnx", data, models[i]);
        if (access(missing, R_OK) != 0)
            return -1;
        bz_buf_printf(args, " '%s'", missing);
    }
    return 0;
}

static void e2e_node_models(const char *name, const char *const *models, size_t n, const char *oracle);

/* Maths in plain C that oneDNN has not (fixture 'maths', and libonnx-testdata's models of the
 * same operators, tiny ones): verified in the benchmarks, and each kernel's output on its own
 * inputs held against onnx's reference by test/oracle/plain_check.py */
static void e2e_maths(void **state)
{
    (void)state;
    e2e_fixture_oracle(FIXTURE_MATHS, "2", "plain_check.py");
    static const char *const models[] = {
        "acos", "asin", "asinh", "atan", "cosh", "sinh", "isinf_negative", "celu", "shrink_hard",
        "thresholdedrelu_default", "mean_one_input", "sum_example", "min_example", "mod_mixed_sign_int64",
        "mod_uint8", "prelu_broadcast", "prelu_example",
    };
    e2e_node_models("maths_models", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* Index, scan, pad and slice operators in plain C (fixture 'indexing': constant axes, k, pads
 * and slice windows at sizes where a wrong index shows; and libonnx-testdata's models of the
 * same operators): verified in the benchmarks, and each kernel's output on its own inputs held
 * against onnx's reference by test/oracle/plain_check.py */
static void e2e_indexing(void **state)
{
    (void)state;
    e2e_fixture_oracle(FIXTURE_INDEXING, "2", "plain_check.py");
    static const char *const models[] = {
        "gathernd_example_float32", "gathernd_example_int32_batch_dim1", "scatter_elements_with_duplicate_indices",
        "scatter_elements_with_negative_indices", "scatter_with_axis", "scatternd_add", "scatternd_multiply",
        "eyelike_populate_off_main_diagonal", "eyelike_with_dtype", "range_float_type_positive_delta",
        "range_int32_type_negative_delta", "reversesequence_time",
    };
    e2e_node_models("indexing_models", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* Reductions, MVN, Hardmax, BitShift, 16-bit float casts and folds of many inputs in plain C
 * (fixture 'reductions', and libonnx-testdata's models of them), against onnx's reference */
static void e2e_reductions(void **state)
{
    (void)state;
    e2e_fixture_oracle(FIXTURE_REDUCTIONS, "2", "plain_check.py");
    static const char *const models[] = {
        "reduce_log_sum_asc_axes", "reduce_log_sum_exp_do_not_keepdims_random", "reduce_sum_square_keepdims_random",
        "mvn", "hardmax_axis_1", "hardmax_one_hot", "bitshift_left_uint16", "bitshift_right_uint64",
        "cast_FLOAT_to_FLOAT16", "cast_FLOAT16_to_FLOAT", "cast_FLOAT_to_BFLOAT16", "max_uint16", "min_int16",
        "mod_mixed_sign_float16", "mod_uint32", "pow_types_int64_int64",
    };
    e2e_node_models("reduction_models", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* Quantized models: the QDQ chain's two int8 fusion groups and the QOperator forms as oneDNN
 * int8 primitives (verified against oneDNN's ref_int8), Quantize/Dequantize/DynamicQuantize in
 * plain C (held against onnx's reference); and libonnx-testdata's quantized models */
static void e2e_quantized(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    e2e_fixture(FIXTURE_QUANTIZED, "2");
    char out[300];
    snprintf(out, sizeof(out), "%s/%s", dir, fixture_name(FIXTURE_QUANTIZED));
    /* the QDQ chain became two int8 fusion groups */
    assert_int_equal(test_sh("grep -c '\\bqdq_conv_act\\b' '%s/manifest.tsv' | grep -qv '^0$' && "
                             "grep -c '\\bqdq_matmul\\b' '%s/manifest.tsv' | grep -qv '^0$'", out, out), 0);
    TEST_NEED_PY(py, "onnx.reference");
    run_oracle(py, "plain_check.py", out);
    static const char *const models[] = {
        "quantizelinear", "quantizelinear_axis", "dequantizelinear", "dequantizelinear_axis",
        "dynamicquantizelinear", "dynamicquantizelinear_max_adjusted", "qlinearconv", "qlinearmatmul_2D",
        "qlinearmatmul_3D", "convinteger_with_padding", "convinteger_without_padding", "matmulinteger",
        "maxpool_2d_uint8",
    };
    e2e_node_models("quantized_models", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* Models that a test/oracle script writes (SCRIPT OUTDIR; SCRIPT may hold its arguments before
 * the folder) and libonnx-testdata's NODE_MODELS beside them (their parameter inputs made
 * constants by test/oracle/freeze_inputs.py when FREEZE; without libonnx-testdata, the written
 * models only) through gen -> ninja -> run_all --verify, then the oracle script ORACLE on the
 * folder; at least MIN_OK of its lines must match OK_PATTERN (grep). */
static void e2e_written_models(const char *name, const char *script, const char *const *node_models, size_t n,
                               bool freeze, const char *first_model, const char *ok_pattern, int min_ok,
                               const char *oracle)
{
    const char *py = test_env("BENANZA_PYTHON", "python3");
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    TEST_NEED_PY(py, "onnx.reference");
    char src[300], out[300], args[400], row[300];
    snprintf(src, sizeof(src), "%s/%s_models", dir, name);
    snprintf(out, sizeof(out), "%s/%s", dir, name);
    assert_int_equal(test_sh("%s test/oracle/%s '%s'", py, script, src), 0);
    for (size_t i = 0; i < n; i++) {
        char model[600];
        snprintf(model, sizeof(model), "%s/node/test_%s", data, node_models[i]);
        if (access(model, R_OK) != 0) {
            print_message("%s is not there (libonnx-testdata): the written models only\n", model);
            break;
        }
        assert_int_equal(freeze ? test_sh("%s test/oracle/freeze_inputs.py '%s' '%s/test_%s.onnx'", py, model, src,
                                          node_models[i])
                                : test_sh("cp '%s/model.onnx' '%s/test_%s.onnx'", model, src, node_models[i]),
                         0);
    }
    snprintf(args, sizeof(args), "'%s'/*.onnx", src);
    run_folder(args, out);
    snprintf(row, sizeof(row), "%s ", first_model);
    check_folder(out, row);
    run_oracle(py, oracle, out);
    if (!gen_only)
        assert_int_equal(test_sh("test $(grep -c '%s' '%s.oracle.log') -ge %d", ok_pattern, out, min_ok), 0);
}

/* Softmax and LogSoftmax in plain C beside oneDNN's: test/oracle/softmax_models.py's models
 * (rows of two over several blocks, rows longer than a block, the channels, the 2-D view before
 * opset 13, double) and libonnx-testdata's; every plain C file, in each type gen writes it in,
 * verified in the benchmark and held against onnx's reference */
static void e2e_softmax(void **state)
{
    (void)state;
    static const char *const node_models[] = {"softmax_axis_0", "softmax_example", "logsoftmax_axis_1",
                                              "logsoftmax_large_number"};
    e2e_written_models("softmax", "softmax_models.py", node_models, BZ_ARRAY_LEN(node_models), false,
                       "softmax_rows_of_two", "Softmax: ok", 11, "plain_check.py");
    if (gen_only)
        return;
    /* an f32 layer's plain C also in bf16 and f16, each held to the reference */
    assert_int_equal(test_sh("for t in f32 bf16 f16; do grep -q -- \"-$t-c_plain.c Softmax: ok\" '%s/softmax.oracle.log' || "
                             "exit 1; done",
                             dir),
                     0);
}

/* The plain C files of the ops OPS (an awk pattern) in folder NAME, at least MIN_SPLIT of them
 * with a kernel that splits its work over threads (pl_par_run): each verified on one thread and
 * on three (more than CI's cores, and than some files' shares), every row ok and at its thread
 * count (column 21, threads: the others at one), at least MIN_SPLIT rows at three */
static void plain_threads_check(const char *name, const char *ops, int min_split)
{
    if (gen_only)
        return;
    for (int t = 1; t <= 3; t += 2)
        assert_int_equal(test_sh("cd '%s/%s' && for f in $(awk -F'\t' '$3 ~ /^(%s)$/ && $1 ~ /c_plain$/ { print $1 }' "
                                 "benchmarks.tsv); do ./bin/$f --verify --threads %d --iters 2 --min-ms 1; done | awk -F, "
                                 "'$10 != \"ok\" || ($21 != %d && $21 != 1) { print $2, $10, $21; bad = 1 } $21 == %d { n++ } "
                                 "END { if (n < %d) print n \" rows at %d threads\"; exit bad || n < %d }'",
                                 dir, name, ops, t, t, t, min_split, t, min_split),
                         0);
}

/* Binary operations of a tensor and one constant value (test/oracle/scalar_models.py): their plain
 * C files, beside oneDNN's where oneDNN takes the layer and alone where it does not (the constant
 * first in a Sub or Div), verified in the benchmarks and held to onnx's reference by plain_check.py
 * (float exactly); and Slices of short rows (a memcpy of constant size per row), verified in the
 * benchmarks */
static void e2e_scalar_binary(void **state)
{
    (void)state;
    e2e_written_models("scalar_binary", "scalar_models.py", NULL, 0, false, "mul_scalar_second",
                       "c_plain.c [A-Z][a-z]*: ok", 11, "plain_check.py");
    /* the two large ones split over threads */
    plain_threads_check("scalar_binary", "Add|Sub|Mul|Div", 2);
}

/* ConvTranspose whose stride is its kernel in plain C beside oneDNN's (test/oracle/deconv_models.py:
 * one output channel, channels no multiple of four, no bias, a batch, 3 x 1 and 3 x 3 kernels, long rows;
 * a padded one that plain C leaves to oneDNN): each plain C file verified in the benchmark and
 * held to onnx's reference by plain_check.py */
static void e2e_deconv_plain(void **state)
{
    (void)state;
    e2e_written_models("deconv_plain", "deconv_models.py", NULL, 0, false, "deconv_one_channel",
                       "c_plain.c ConvTranspose: ok", 6, "plain_check.py");
    if (gen_only)
        return;
    assert_int_equal(test_sh("test $(ls '%s/deconv_plain/bench' | grep -c c_plain) -eq 6", dir), 0);
    plain_threads_check("deconv_plain", "ConvTranspose", 6);
}

/* Convolution groups with an activation, LeakyRelu among them as ONNX Runtime's CPU convolution
 * runs it fused (conv_act, conv_bn_act): test/oracle/conv_act_check.py's models, each group's
 * oneDNN files verified against oneDNN's reference and their post-op held to onnx's Conv and
 * activation on the benchmark's own inputs */
static void e2e_conv_act(void **state)
{
    (void)state;
    e2e_written_models("conv_act", "conv_act_check.py model", NULL, 0, false, "conv_leakyrelu", "LeakyRelu max error",
                       4, "conv_act_check.py");
    /* four LeakyRelu groups (one with a batch norm), one Relu6, three Relu groups with a batch
     * norm; conv_bn parts: the LeakyRelu group's and the grouped (not depthwise) Relu one's */
    char out[300];
    snprintf(out, sizeof(out), "%s/conv_act", dir);
    assert_int_equal(test_sh("cd '%s' && test $(grep -c '^layer.*\tfused\tConv+LeakyRelu\t' manifest.tsv) = 3 && "
                             "grep -q '^layer.*\tfused\tConv+BatchNormalization+LeakyRelu\t' manifest.tsv && "
                             "test $(grep -c '^layer.*\tfused\tConv+BatchNormalization+Relu\t' manifest.tsv) = 3 && "
                             "grep -q '^layer.*\tfused\tConv+Clip\t' manifest.tsv && "
                             "runs=$(awk -F'\t' '$1 == \"run\" && $3 ~ /^(gconv_bn_relu|conv_bn_leakyrelu)$/ { print $2 }' "
                             "manifest.tsv | sort | tr '\\n' ' ') && "
                             "test \"$(awk -F'\t' '$1 == \"part\" && $4 == \"conv_bn\" { print $2 }' manifest.tsv | sort | "
                             "tr '\\n' ' ')\" = \"$runs\" && test $(grep -c '^part' manifest.tsv) = 2",
                             out),
                     0);
}

/* Activations libonnx-testdata (ONNX 1.12) lacks: Swish (opset 24), test/oracle/activation_models.py's
 * models in float (oneDNN's eltwise, verified against oneDNN's reference) and double (plain C,
 * held against onnx's reference) */
static void e2e_activations(void **state)
{
    (void)state;
    e2e_written_models("activations", "activation_models.py", NULL, 0, false, "swish_default", "Swish: ok", 1,
                       "plain_check.py");
    if (gen_only)
        return;
    /* a plain C file compiles only its PL_KIND's code: an operation of another kind put in by
     * hand is refused (an error row, exit 4), never run through the wrong kernel */
    char out[300];
    snprintf(out, sizeof(out), "%s/activations", dir);
    assert_int_equal(test_sh("cd '%s' && f=$(ls bench/*-c_plain.c | head -1) && k=$(sed -n 's/^#define PL_KIND //p' \"$f\") && "
                             "test -n \"$k\" && o=PL_UNARY && { [ $k != PL_UNARY ] || o=PL_CAST; } && "
                             "sed \"0,/\\.kind = $k,/s//.kind = $o,/\" \"$f\" > other.c && ! cmp -s \"$f\" other.c && "
                             "cc -std=c11 -O1 other.c -o other -lm && { ./other --verify > other.csv; test $? = 4; } && "
                             "grep -q ',error,.*is not the file.s PL_KIND' other.csv",
                             out),
                     0);
}

/* Resize/Upsample in every ONNX mode and GridSample, in plain C: test/oracle/resample_models.py's
 * models (antialiasing, half_pixel_symmetric, opset 18's axes and keep_aspect_ratio_policy,
 * uint8 and float16, trilinear, N-D GridSample, ...) and libonnx-testdata's, whose scales,
 * sizes and roi freeze_inputs.py makes constants as real models have them: verified in the
 * benchmarks, and each kernel held against onnx's reference */
static void e2e_resampling(void **state)
{
    (void)state;
    static const char *const node_models[] = {
        "resize_downsample_scales_cubic_A_n0p5_exclude_outside", "resize_tf_crop_and_resize",
        "resize_upsample_sizes_nearest_floor_align_corners", "resize_upsample_scales_cubic_asymmetric",
        "gridsample_reflection_padding", "gridsample_aligncorners_true", "upsample_nearest",
    };
    e2e_written_models("resampling", "resample_models.py", node_models, BZ_ARRAY_LEN(node_models), true,
                       "resize_linear_antialias", "Resize: ok\\|Upsample: ok\\|GridSample: ok", 24, "plain_check.py");
}

/* Einsum in plain C: test/oracle/einsum_models.py's models (attention's products, a chain of
 * three, the ellipsis broadcasting, an implicit output, a diagonal, int64, float16) and
 * libonnx-testdata's five: verified in the benchmarks, each kernel held against onnx's
 * reference */
static void e2e_einsum(void **state)
{
    (void)state;
    static const char *const node_models[] = {"einsum_batch_diagonal", "einsum_batch_matmul", "einsum_inner_prod",
                                              "einsum_sum", "einsum_transpose"};
    e2e_written_models("einsum", "einsum_models.py", node_models, BZ_ARRAY_LEN(node_models), false,
                       "einsum_attention_scores", "Einsum: ok", 8, "plain_check.py");
}

/* DFT and STFT in plain C (a mixed-radix FFT) and the windows: test/oracle/signal_models.py's
 * models (real and complex input, inverse, padded and truncated lengths, onesided, a prime
 * length, double, opset 20's axis input, an STFT fed by HannWindow, which gen counts free, the
 * three windows with a runtime size) and libonnx-testdata's five:
 * verified in the benchmarks against the direct sums, each kernel held against onnx's reference */
static void e2e_signal(void **state)
{
    (void)state;
    static const char *const node_models[] = {"dft", "dft_axis", "dft_inverse", "stft", "stft_with_window"};
    e2e_written_models("signal", "signal_models.py", node_models, BZ_ARRAY_LEN(node_models), true, "dft_real_axis1",
                       "DFT: ok\\|STFT: ok\\|Window: ok", 11, "plain_check.py");
}

/* Det, RoiAlign, MaxUnpool, the two losses and the training optimizers in plain C:
 * test/oracle/nn_models.py's models (batches of 4 x 4 and 16 x 16 matrices, double; RoiAlign averaged and
 * maxed, fixed and adaptive sampling, both offsets; MaxUnpool with disjoint and overlapping
 * windows and a larger output_shape; each reduction, class weights, an ignored class, SCE's
 * log-probabilities; Adagrad, Nesterov Momentum, Adam in double; TfIdfVectorizer in each mode)
 * and libonnx-testdata's:
 * verified in the benchmarks, each kernel held against onnx's reference */
static void e2e_nn(void **state)
{
    (void)state;
    static const char *const node_models[] = {
        "det_2d", "det_nd", "roialign_aligned_false", "roialign_aligned_true", "maxunpool_export_without_output_shape",
        "maxunpool_export_with_output_shape", "nllloss_NCd1d2_with_weight_reduction_mean", "nllloss_NCd1_ii",
        "sce_mean_weight_ii", "sce_NCd1d2d3_sum_weight_high_ii", "sce_mean_log_prob", "adagrad_multiple", "adam",
        "momentum_multiple", "nesterov_momentum", "tfidfvectorizer_tf_batch_uniandbigrams_skip5",
        "tfidfvectorizer_tf_onlybigrams_levelempty",
    };
    e2e_written_models("nn", "nn_models.py", node_models, BZ_ARRAY_LEN(node_models), true, "det_one",
                       "Det: ok\\|RoiAlign: ok\\|MaxUnpool: ok\\|LogLikelihoodLoss: ok\\|CrossEntropyLoss: ok\\|Adagrad: ok\\|Momentum: ok\\|Adam: ok",
                       17, "plain_check.py");
    plain_threads_check("nn", "RoiAlign", 4);
}

/* NonZero, Compress, Unique and NonMaxSuppression in plain C (outputs whose size depends on the
 * data): test/oracle/select_models.py's fifteen models (NonZero of float, bool and int32;
 * Compress along an axis, flattened, with a short condition; Unique flattened, unsorted, along
 * an axis, all distinct; NMS in both box formats, with and without a score threshold, 500
 * boxes, IoU thresholds of 0 and 1) and libonnx-testdata's: verified in the benchmarks, each kernel's
 * output and count held against onnx's reference */
static void e2e_select(void **state)
{
    (void)state;
    static const char *const node_models[] = {
        "nonzero_example", "compress_0", "compress_default_axis", "nonmaxsuppression_center_point_box_format",
        "nonmaxsuppression_two_classes", "nonmaxsuppression_limit_output_size", "nonmaxsuppression_two_batches",
        "unique_not_sorted_without_axis", "unique_sorted_with_axis", "unique_sorted_with_axis_3d",
        "unique_sorted_with_negative_axis",
    };
    e2e_written_models("select", "select_models.py", node_models, BZ_ARRAY_LEN(node_models), true, "nonzero_float",
                       "NonZero: ok\\|Compress: ok\\|NonMaxSuppression: ok\\|Unique: ok", 15, "plain_check.py");
}

/* The operators on tensors of strings in plain C: test/oracle/string_models.py's models (casts
 * from and to the numeric types, StringNormalizer in each mode, TfIdfVectorizer
 * of a string pool with a repeated word, StringConcat, StringSplit, RegexFullMatch) and
 * libonnx-testdata's casts and StringNormalizers: verified in the benchmarks, each kernel held
 * against onnx's reference */
static void e2e_strings(void **state)
{
    (void)state;
    static const char *const node_models[] = {
        "cast_FLOAT_to_STRING", "cast_STRING_to_FLOAT", "castlike_FLOAT_to_STRING", "castlike_STRING_to_FLOAT",
        "strnormalizer_export_monday_casesensintive_lower", "strnormalizer_export_monday_casesensintive_nochangecase",
        "strnormalizer_export_monday_casesensintive_upper", "strnormalizer_export_monday_empty_output",
        "strnormalizer_export_monday_insensintive_upper_twodim", "strnormalizer_nostopwords_nochangecase",
    };
    e2e_written_models("strings", "string_models.py", node_models, BZ_ARRAY_LEN(node_models), false,
                       "cast_float_to_string", "Cast: ok\\|CastLike: ok\\|StringNormalizer: ok\\|TfIdfVectorizer: ok\\|"
                       "StringConcat: ok\\|StringSplit: ok\\|RegexFullMatch: ok", 35, "plain_check.py");
}

/* Scan's shapes (a control node, like Loop): the outputs that follow it must be known, so the
 * layers reading them are made; test/oracle/scan_check.py holds them against onnx's inference */
static void e2e_scan_shapes(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx");
    char out[300];
    snprintf(out, sizeof(out), "%s/scan", dir);
    assert_int_equal(test_sh("%s test/oracle/scan_check.py '%s' '%s'", py, test_env("BENANZA_GEN", "bin/gen"), out), 0);
}

/* Sequences and optionals (libonnx-testdata's): the list and optional operations are free
 * nodes, SequenceMap a control node; none is reported unsupported */
static void e2e_sequence_classes(void **state)
{
    (void)state;
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    static const char *const models[] = {"sequence_insert_at_back", "optional_get_element", "optional_has_element_empty",
                                         "sequence_map_add_2_sequences_expanded", "sequence_map_identity_1_sequence"};
    char out[300];
    snprintf(out, sizeof(out), "%s/sequences", dir);
    for (size_t i = 0; i < BZ_ARRAY_LEN(models); i++) {
        if (test_sh("test -r '%s/node/test_%s/model.onnx'", data, models[i]) != 0)
            TEST_SKIP("skipped: %s/node/test_%s is not there (libonnx-testdata)\n", data, models[i]);
        assert_int_equal(test_sh("%s --backend none -o '%s' '%s/node/test_%s/model.onnx' > '%s.log' 2>&1", gen, out, data,
                                 models[i], out),
                         0);
        assert_int_not_equal(test_sh("grep -q 'not supported' '%s.log'", out), 0);
        /* every top-level node of these is free or control */
        assert_int_equal(test_sh("awk -F'\t' '$1 == \"node\" && $5 != \"free\" && $5 != \"control\" { bad = 1 } "
                                 "END { exit bad }' '%s/manifest.tsv'", out),
                         0);
    }
    /* the last one: its SequenceMap */
    assert_int_equal(test_sh("grep -q 'SequenceMap.control' '%s/manifest.tsv'", out), 0);
}

/* Control-flow bodies (libonnx-testdata's Scan, Loop and If): their computing nodes become
 * layers and are benchmarked and verified (not nodes of the run: how often a body runs is
 * data), and gen --layers counts them per model; a model with a top-level layer beside them
 * gets its bound */
static void e2e_control_bodies(void **state)
{
    (void)state;
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    static const char *const models[] = {"scan9_sum", "loop11", "if", "relu"};
    char out[300], args[1600] = "";
    snprintf(out, sizeof(out), "%s/bodies", dir);
    for (size_t i = 0; i < BZ_ARRAY_LEN(models); i++) {
        if (test_sh("test -r '%s/node/test_%s/model.onnx'", data, models[i]) != 0)
            TEST_SKIP("skipped: %s/node/test_%s is not there (libonnx-testdata)\n", data, models[i]);
        size_t at = strlen(args);
        snprintf(args + at, sizeof(args) - at, " '%s/node/test_%s/model.onnx'", data, models[i]);
    }
    assert_int_equal(test_sh("%s --layers %s > '%s.layers' 2>&1", gen, args, out), 0);
    assert_int_equal(test_sh("grep -q '^test_scan9_sum  *1 computing nodes with a layer, 0 with' '%s.layers'", out), 0);
    assert_int_equal(test_sh("grep -q '^test_loop11  *1 computing nodes with a layer' '%s.layers'", out), 0);
    run_folder(args, out);
    /* the Scan body's Add is a layer of the manifest, though no node of a run is */
    assert_int_equal(test_sh("grep -q '^layer.*Add.add_2_f32' '%s/manifest.tsv'", out), 0);
    assert_int_equal(test_sh("grep -q '^node.*Add' '%s/manifest.tsv'", out), 1);
    check_folder(out, "test_relu ");
}

/* The random generators in plain C: test/oracle/random_models.py's six models and libonnx-
 * testdata's Bernoulli models; no oracle draws the same numbers, so every benchmark's --verify
 * (the statistics: range, mean and variance, count of ones, chi-square of the class counts)
 * must pass */
static void e2e_random(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    const char *data = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    TEST_NEED_PY(py, "onnx");
    char src[300], out[300], args[400];
    snprintf(src, sizeof(src), "%s/random_models", dir);
    snprintf(out, sizeof(out), "%s/random", dir);
    assert_int_equal(test_sh("%s test/oracle/random_models.py '%s'", py, src), 0);
    test_sh("for t in bernoulli bernoulli_double bernoulli_seed; do test -r '%s/node/test_$t/model.onnx' && "
            "cp '%s/node/test_$t/model.onnx' '%s/test_$t.onnx'; done", data, data, src);
    snprintf(args, sizeof(args), "'%s'/*.onnx", src);
    run_folder(args, out);
    check_folder(out, "random_uniform ");
    if (!gen_only)
        assert_int_equal(test_sh("test $(grep -c 'verified by its statistics' '%s/results.csv') -ge 6", out), 0);
}

/* A shared model at batch 1 with the dim bindings of bench/shared_models.args. */
static void e2e_shared(const char *name)
{
    char model[4200], out[300], args[8400];
    snprintf(model, sizeof(model), "%s/models/%s.onnx", test_env("BENANZA_SHARED", "../shared"), name);
    if (access(model, R_OK) != 0)
        TEST_SKIP("skipped: %s is not there (no ../shared)\n", model);
    char *bind;
    size_t len;
    assert_int_equal(bz_read_file(test_env("BENANZA_SHARED_ARGS", "bench/shared_models.args"), 1 << 20, &bind, &len),
                     BZ_READ_OK);
    struct bz_buf flags;
    bz_buf_init(&flags);
    for (char *line = strtok(bind, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] == '-')
            bz_buf_printf(&flags, " '%s'", line);
    snprintf(out, sizeof(out), "%s/%s", dir, name);
    snprintf(args, sizeof(args), "-b 1%s '%s'", flags.data ? flags.data : "", model);
    bz_buf_free(&flags);
    free(bind);
    run_folder(args, out);
    char row[300];
    snprintf(row, sizeof(row), "%s ", name);
    check_folder(out, row);
}

static void e2e_shared_cnn(void **state)
{
    (void)state;
    e2e_shared("resnet20-cifar10-pytorch-opset9");
}

/* DistilBERT's MatMuls of a constant 2-D weight (one alone, one in a MatMul+Add group) have a
 * -matmul_nk file beside each -matmul one but the reference: the same BZ_OP with the weight
 * stored [n, k] (`.wei_transposed = 1`, what tells oneDNN so), run and verified by check_folder
 * like the rest; its Gemms (transB: already [n, k]) and the attention's MatMuls (no constant)
 * have none */
static void e2e_shared_transformer(void **state)
{
    (void)state;
    e2e_shared("distilbert-tiny-cls-pytorch-opset11");
    char out[300];
    snprintf(out, sizeof(out), "%s/distilbert-tiny-cls-pytorch-opset11", dir);
    assert_int_equal(test_sh("cd '%s' && op() { sed -n '/^#define BZ_OP/,/^#define BZ_ARGS/p' \"$1\"; } && n=0 && "
                             "for f in bench/*-matmul_nk.c; do "
                             "  p=${f%%_nk.c}.c; [ -f \"$p\" ] || { echo \"no $p beside $f\"; exit 1; }; "
                             "  op \"$p\" > op.a && op \"$f\" > op.b; d=$(diff op.a op.b | grep '^[<>]'); "
                             "  case \"$d\" in '> '*'.wei_transposed = 1, \\') ;; *) echo \"$f: BZ_OP differs: $d\"; exit 1 ;; esac; "
                             "  case $f in *ref_any*) echo \"$f: a reference\"; exit 1 ;; esac; "
                             "  n=$((n + 1)); done; "
                             "l=$(ls bench/*-f32-*-matmul_nk.c | sed 's|bench/||; s|-.*||' | sort -u | while read -r id; do "
                             "    awk -F'\\t' -v id=\"$id\" '$1 == \"layer\" && $2 == id { print $4 }' manifest.tsv; "
                             "  done | sort | tr '\\n' ' '); "
                             "[ \"$l\" = 'MatMul MatMul+Add ' ] || { echo \"layers with -matmul_nk files: $l\"; exit 1; }; "
                             "[ $n -ge 2 ]",
                             out),
                     0);
}

static void e2e_shared_lstm(void **state)
{
    (void)state;
    e2e_shared("lstm-bidi-byte-sb-pytorch-opset9");
}

/* Node models of libonnx-testdata through the whole chain, in one folder named NAME; with
 * ORACLE, a script of test/oracle run on the folder must pass too. */
static void e2e_node_models(const char *name, const char *const *models, size_t n, const char *oracle)
{
    const char *py = test_env("BENANZA_PYTHON", "python3");
    if (oracle)
        TEST_NEED_PY(py, "onnx.reference");
    struct bz_buf args;
    bz_buf_init(&args);
    char missing[600];
    if (node_model_paths(models, n, &args, missing, sizeof(missing))) {
        bz_buf_free(&args);
        TEST_SKIP("skipped: %s is not there (libonnx-testdata)\n", missing);
    }
    char out[300], row[300];
    snprintf(out, sizeof(out), "%s/%s", dir, name);
    run_folder(args.data, out);
    bz_buf_free(&args);
    snprintf(row, sizeof(row), "test_%s ", models[0]);
    check_folder(out, row);
    if (oracle)
        run_oracle(py, oracle, out);
}

/* The permutations (DepthToSpace in both modes, SpaceToDepth, Transpose): every row verified
 * in the benchmark, and every view + permutation held against onnx's reference
 * implementation by test/oracle/permute_check.py. */
static void e2e_permutations(void **state)
{
    (void)state;
    static const char *const models[] = {
        "depthtospace_crd_mode", "depthtospace_dcr_mode", "depthtospace_example", "spacetodepth",
        "spacetodepth_example",  "transpose_default",     "transpose_all_permutations_3",
    };
    e2e_node_models("permutations", models, BZ_ARRAY_LEN(models), "permute_check.py");
}

/* InstanceNormalization as a batch norm over the [1, N*C, spatial] view */
static void e2e_instancenorm(void **state)
{
    (void)state;
    static const char *const models[] = {"instancenorm_epsilon", "instancenorm_example"};
    e2e_node_models("instancenorm", models, BZ_ARRAY_LEN(models), NULL);
}

/* libonnx-testdata's selection, scatter, split and concat models (plain C), against
 * onnx.reference */
static void e2e_selections(void **state)
{
    (void)state;
    static const char *const models[] = {
        "argmax_keepdims_random_select_last_index", "argmax_no_keepdims_random", "argmin_default_axis_example",
        "argmin_negative_axis_keepdims_random_select_last_index", "scatternd", "split_variable_parts_2d",
        "split_equal_parts_default_axis", "split_zero_size_splits", "concat_1d_axis_0", "concat_2d_axis_negative_1",
        "concat_3d_axis_negative_3",
    };
    e2e_node_models("selection_models", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* ConvTranspose: oneDNN has no reference deconvolution, so --verify holds each
 * implementation against a plain C one; test/oracle/deconv_check.py holds both the operation
 * gen describes and that plain C against onnx's reference, on the benchmark's own inputs.
 * The fixture has grouped, dilated, strided (with output_padding), depthwise 1-D and 3-D
 * layers; libonnx-testdata adds pads, auto_pad SAME, output_shape and kernel_shape. */
static void e2e_deconv(void **state)
{
    (void)state;
    e2e_fixture_oracle(FIXTURE_DECONV, "2", "deconv_check.py");
    if (!gen_only) {
        /* a oneDNN file holds its own family's code alone (BD_FAMILIES): a deconvolution file
         * (the RNN reference left out of it) told it has none refuses its layer (an error row,
         * exit 4), never verifies it as a convolution */
        char out[300];
        snprintf(out, sizeof(out), "%s/%s", dir, fixture_name(FIXTURE_DECONV));
        assert_int_equal(test_sh("cd '%s' && f=$(grep -l '^#define BD_FAMILIES 0x4u$' bench/*.c | head -1) && test -n \"$f\" && "
                                 "grep -q '\\.family = BD_DECONV,' \"$f\" && ! grep -q 'bd_verify_rnn' \"$f\" && "
                                 "sed 's/^#define BD_FAMILIES 0x4u$/#define BD_FAMILIES 0x0u/' \"$f\" > nofam.c && "
                                 "cc -std=c11 nofam.c -o nofam -ldnnl -lm && { ./nofam --verify > nofam.csv; test $? = 4; } && "
                                 "grep -q ',error,.*has no code in this file' nofam.csv",
                                 out),
                         0);
    }
    static const char *const models[] = {
        "convtranspose", "convtranspose_1d", "convtranspose_3d", "convtranspose_autopad_same",
        "convtranspose_dilations", "convtranspose_kernel_shape", "convtranspose_output_shape", "convtranspose_pad",
        "convtranspose_pads", "convtranspose_with_kernel",
    };
    e2e_node_models("deconv_models", models, BZ_ARRAY_LEN(models), "deconv_check.py");
}

/* A convolution's work is the taps inside the data (gen's conv_taps), not the kernel's volume
 * times the output: test/oracle/conv_work_check.py has onnx's reference count them (ones
 * convolved with ones) for every Conv, ConvInteger and ConvTranspose layer of libonnx-testdata's
 * models (pads, asymmetric pads, auto_pad, strides, dilations, output_padding, output_shape,
 * 1-D and 3-D) and the deconvolution fixture, in the CPU and the CUDA files. gen only. */
static void e2e_conv_work(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    TEST_NEED_PY(py, "onnx.reference");
    static const char *const models[] = {
        "conv_with_autopad_same", "conv_with_strides_and_asymmetric_padding", "conv_with_strides_padding",
        "conv_with_strides_no_padding", "convinteger_with_padding", "convtranspose_1d", "convtranspose_3d",
        "convtranspose_autopad_same", "convtranspose_dilations", "convtranspose_output_shape", "convtranspose_pads",
    };
    uint8_t *bytes;
    size_t n = fixture_build(FIXTURE_DECONV, &bytes);
    char fixture[300], out[300];
    snprintf(fixture, sizeof(fixture), "%s/conv_work.onnx", dir);
    snprintf(out, sizeof(out), "%s/conv_work", dir);
    assert_int_equal(bz_write_file_atomic(fixture, bytes, n), 0);
    free(bytes);
    struct bz_buf args;
    bz_buf_init(&args);
    bz_buf_printf(&args, " '%s'", fixture);
    char missing[600];
    if (node_model_paths(models, BZ_ARRAY_LEN(models), &args, missing, sizeof(missing))) {
        bz_buf_free(&args);
        TEST_SKIP("skipped: %s is not there (libonnx-testdata)\n", missing);
    }
    assert_int_equal(test_sh("%s %s -b 2 --backend all -o '%s' 2>'%s.gen.log' >/dev/null", gen, args.data, out, out), 0);
    bz_buf_free(&args);
    assert_int_equal(test_sh("%s test/oracle/conv_work_check.py '%s' > '%s.oracle.log'", py, out, out), 0);
}

/* The attention pattern in every transformer of ../shared/models and the zoo: gen's attention
 * groups are counted against test/oracle/attention_check.py's own walk of each model, and each
 * fused layer's description (shape, strides, scale, mask) against ONNX Runtime running the
 * group's nodes. ONNX Runtime's own export (gpt2-tiny-random-ort-fused) has its 5 attentions
 * fused already, as com.microsoft Attention nodes: the walk is of the ONNX nodes gen writes them
 * as (gen --graph). And Llama's grouped-query attention as PyTorch exports it (a model the oracle
 * writes): K's and V's repeated heads read in place; a padding mask; a cross-attention (queries
 * and keys of two lengths, head sizes of two). Each group's two parts (the scores' and the
 * context's strided batched GEMMs, the operands in place) are counted (none for grouped-query
 * attention; at batch 2 none where the projections' heads are no one batch stride apart), and
 * each part layer's CUDA and CPU benchmarks (gen --repro) are held to ONNX Runtime running the
 * part's nodes: the GEMM or the strided oneDNN matmul its BZ_OP describes, computed by numpy on
 * the buffers as the runtime reads them. gen only. */
/* a model attention_check.py writes (its KIND: model, padding-model, cross-model) as
 * DIR/NAME.onnx, its path in PATH */
static void attention_model(const char *py, const char *kind, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.onnx", dir, name);
    assert_int_equal(test_sh("%s test/oracle/attention_check.py %s '%s'", py, kind, path), 0);
}

static void e2e_attention(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    TEST_NEED_PY(py, "onnx, onnxruntime");
    static const char *const shared[] = {"distilbert-tiny-cls-pytorch-opset11=2/4", "cct-transformer-fp32-opset20=2/4",
                                         "gpt2-tiny-random-ort-fused-opset11=5/10"};
    struct bz_buf args, expect;
    bz_buf_init(&args);
    bz_buf_init(&expect);
    bz_buf_puts(&args, "--zoo bert_base --zoo gpt2 --zoo vit_base");
    bz_buf_puts(&expect, " bert_base-seq128=12/24 gpt2-seq128=12/24 vit_base=12/24");
    /* Llama's grouped-query attention as PyTorch exports it (the oracle writes it): its group
     * holds the repeats of K's and V's heads, its key their unrepeated buffers */
    char gqa[300];
    attention_model(py, "model", "llama_gqa", gqa, sizeof(gqa));
    bz_buf_printf(&args, " '%s' '--dim=llama_gqa:seq=7'", gqa);
    bz_buf_puts(&expect, " llama_gqa=1/0 '--dim=llama_gqa:seq=7'");
    /* and BERT's padding mask [batch, 1, 1, seq]: its key's mask strides 0 over heads and
     * queries */
    char pad[300];
    attention_model(py, "padding-model", "padding", pad, sizeof(pad));
    bz_buf_printf(&args, " '%s' '--dim=padding:seq=24'", pad);
    bz_buf_puts(&expect, " padding=1/2 '--dim=padding:seq=24'");
    /* and a cross-attention: queries and keys of two lengths, Q's and V's heads of two sizes */
    char cross[300];
    attention_model(py, "cross-model", "cross", cross, sizeof(cross));
    bz_buf_printf(&args, " '%s'", cross);
    bz_buf_puts(&expect, " cross=1/2");
    /* at batch 2 the projections' [b, s, h, d] heads are no one batch stride apart: the cross
     * attention has no part, the padding model (Q and K already [b, h, s, d]) its scores alone */
    char b2[300];
    snprintf(b2, sizeof(b2), "%s/attention_b2", dir);
    assert_int_equal(test_sh("%s '%s' '%s' '--dim=padding:seq=24' -b 2 --backend none -o '%s' 2>'%s.gen.log' >/dev/null && "
                             "%s test/oracle/attention_check.py '%s' cross=1/0 padding=1/1 '--dim=padding:seq=24' > "
                             "'%s.oracle.log' || { cat '%s.oracle.log' >&2; exit 1; }",
                             gen, cross, pad, b2, b2, py, b2, b2, b2),
                     0);
    const char *root = test_env("BENANZA_SHARED", "../shared");
    char path[4300];
    int have_shared = 0;
    for (size_t i = 0; i < BZ_ARRAY_LEN(shared); i++) {
        snprintf(path, sizeof(path), "%s/models/%.*s.onnx", root, (int)(strchr(shared[i], '=') - shared[i]), shared[i]);
        if (access(path, R_OK) != 0)
            continue;
        bz_buf_printf(&args, " '%s'", path);
        bz_buf_printf(&expect, " %s", shared[i]);
        have_shared++;
    }
    /* the dims of the dynamic ones, as make bench binds them */
    char *bind;
    size_t len;
    assert_int_equal(bz_read_file(test_env("BENANZA_SHARED_ARGS", "bench/shared_models.args"), 1 << 20, &bind, &len),
                     BZ_READ_OK);
    for (char *line = strtok(bind, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "--dim=", 6)) {
            bz_buf_printf(&args, " '%s'", line);
            bz_buf_printf(&expect, " '%s'", line);
        }
    free(bind);
    char out[300];
    snprintf(out, sizeof(out), "%s/attention", dir);
    assert_int_equal(test_sh("%s %s -b 1 --backend none -o '%s' 2>'%s.gen.log' >/dev/null", gen, args.data, out, out), 0);
    int rc = test_sh("%s test/oracle/attention_check.py '%s'%s > '%s.oracle.log'", py, out, expect.data, out);
    bz_buf_free(&args);
    bz_buf_free(&expect);
    if (rc != 0) {
        test_sh("cat '%s.oracle.log' >&2", out);
        fail();
    }
    if (!have_shared)
        TEST_SKIP("the zoo's transformers checked; %s/models is not there (no ../shared)\n", root);
}

/* The gated linear units. SwiGLU whose gate and up are the halves of one projection's Split
 * (Phi-3's MLP as PyTorch exports it): one swiglu group holding the Split, its plain C benchmark
 * (built into a driver) against ONNX Runtime running the group's nodes, in f32 and f16, the gate
 * either half; the two-input group where the halves are not of the last axis or the up half is
 * read elsewhere (test/oracle/swiglu_check.py); the SiLUs in it held to silu_check.py's walk.
 * GeGLU (Gemma, T5 v1.1, Stable Diffusion's GEGLU) in every GELU form gen fuses, of two
 * projections or of one's halves, f32 and f16: one geglu group with its GELU as a part, its
 * plain C benchmark against ONNX Runtime; none where the GELU is read elsewhere or u broadcasts
 * (test/oracle/geglu_check.py) */
static void e2e_glu(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx, onnxruntime, ml_dtypes");
    int rc = test_sh("%s test/oracle/swiglu_check.py '%s/swiglu' > '%s/glu.log' 2>&1 && "
                     "%s test/oracle/silu_check.py '%s/swiglu/out0' >> '%s/glu.log' 2>&1 && "
                     "%s test/oracle/geglu_check.py '%s/geglu' >> '%s/glu.log' 2>&1",
                     py, dir, dir, py, dir, dir, py, dir, dir);
    if (rc != 0) {
        test_sh("cat '%s/glu.log' >&2", dir);
        fail();
    }
}

/* ONNX Runtime's com.microsoft fused operators as gen writes them (ONNX operators) against ONNX
 * Runtime running them: every form of each (test/oracle/msft_expand_check.py), and the whole of
 * ../shared's gpt2-tiny-random-ort-fused where it is there. gen only. */
static void e2e_msft_expansion(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx, onnxruntime");
    const char *root = test_env("BENANZA_SHARED", "../shared");
    char models[4200];
    snprintf(models, sizeof(models), "%s/models/gpt2-tiny-random-ort-fused-opset11.onnx", root);
    bool shared = access(models, R_OK) == 0;
    snprintf(models, sizeof(models), "%s/models", root);
    int rc = test_sh("%s test/oracle/msft_expand_check.py '%s/msft' %s%s%s > '%s/msft.log' 2>&1", py, dir,
                     shared ? "'" : "", shared ? models : "", shared ? "'" : "", dir);
    if (rc != 0) {
        test_sh("cat '%s/msft.log' >&2", dir);
        fail();
    }
    if (!shared)
        TEST_SKIP("the fused operators' forms checked; %s is not there (no ../shared)\n", models);
}

/* ONNX's own Attention, RMSNormalization and RotaryEmbedding (opset 23), which the standard
 * defines as functions, as gen writes them (ONNX operators; its fusion takes an Attention's as
 * one attention group, an RMSNorm's over the last axis as one rmsnorm group, a rotation by halves
 * as one rope group, a rotation by pairs as one rope_pairs group, and finds the last two in
 * PyTorch's exports too (the halves by two Slices or by a Split; each fused rotation's plain C
 * file held to ONNX Runtime), the rotation by pairs held to its definition, and Llama's grouped-query
 * attention as PyTorch exports it, K's and V's repeated heads in its group) against ONNX Runtime
 * running them: 4-D and 3-D operands, grouped query
 * heads, masks, causal with a past, the present outputs; normalized axes, f16 with a float
 * stash; rotation by halves and interleaved, whole and partial, tables read at position ids or
 * given per token (test/oracle/onnx_functions_check.py). gen only. */
static void e2e_onnx_functions(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx, onnxruntime");
    int rc = test_sh("%s test/oracle/onnx_functions_check.py '%s/functions' > '%s/functions.log' 2>&1", py, dir, dir);
    if (rc == 77) {
        test_sh("cat '%s/functions.log' >&2", dir);
        TEST_SKIP("skipped: this ONNX Runtime runs no opset-23 Attention to hold gen to\n");
        return;
    }
    if (rc != 0) {
        test_sh("cat '%s/functions.log' >&2", dir);
        fail();
    }
}

/* Recurrent layers (LSTM with and without peepholes, GRU, vanilla RNN; batch-first layouts,
 * initial biases): oneDNN's RNN primitive has no reference implementation beside the one it
 * runs, so its rows are held against the plain C recurrent layer of dnnl_bench.h; the plain C
 * benchmarks beside them (plain_rnn.h) verify against their own long-double definition, and
 * plain_check.py holds them to ONNX Runtime's layer on their inputs */
static void e2e_recurrent(void **state)
{
    (void)state;
    static const char *const models[] = {
        "lstm_defaults", "lstm_with_peepholes", "lstm_with_initial_bias", "lstm_batchwise",
        "gru_defaults", "gru_seq_length", "gru_with_initial_bias", "gru_batchwise",
        "rnn_seq_length", "simple_rnn_defaults", "simple_rnn_with_initial_bias", "simple_rnn_batchwise",
    };
    e2e_node_models("recurrent", models, BZ_ARRAY_LEN(models), "plain_check.py");
}

/* The plain C recurrent layers on test/oracle/rnn_models.py's models, which take every path
 * of plain_rnn.h (both GRU forms, clip, input_forget, sequence_lens, peepholes, batch-first,
 * the activations with their alphas, betas and defaults, weights constant or not, a long
 * bidirectional LSTM): each file verified in the benchmark and held to ONNX Runtime's layer by
 * plain_check.py, and each bidirectional one on one thread and on three */
static void e2e_recurrent_plain(void **state)
{
    (void)state;
    e2e_written_models("recurrent_plain", "rnn_models.py", NULL, 0, false, "gru_lbr_bidirectional", "c_plain.c [A-Z]*: ok",
                       12, "plain_check.py");
    /* a bidirectional layer's two directions on two threads */
    plain_threads_check("recurrent_plain", "LSTM|GRU|RNN", 6);
}

/* Models whose every tensor is f16 or bf16, as exported after .half() or .bfloat16()
 * (test/oracle/half_models.py: a CNN with a Gemm, a LayerNorm and a Transpose; an MLP) on the
 * CPU: each layer in the model's type (oneDNN's, and plain C's where oneDNN has none here: on
 * AVX2 most of those rows say unsupported) and in f32, as a framework runs it where the CPU has
 * no 16-bit kernel for it, the f32 files saying so; none in the other 16-bit type. Every row ok
 * or unsupported, every ok row verified, and each model's f32 bound covers all its layers */
static void e2e_half_models(void **state)
{
    (void)state;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx, ml_dtypes");
    char models[300], out[300], args[700];
    snprintf(models, sizeof(models), "%s/half_models", dir);
    snprintf(out, sizeof(out), "%s/half", dir);
    assert_int_equal(test_sh("%s test/oracle/half_models.py '%s'", py, models), 0);
    snprintf(args, sizeof(args), "-b 1 '%s/f16_cnn.onnx' '%s/bf16_mlp.onnx'", models, models);
    run_folder(args, out);
    assert_int_equal(test_sh("cd '%s' && for t in f16 bf16; do awk -F'\t' -v t=\"_$t\" "
                             "'$1 == \"layer\" && substr($5, length($5) - length(t) + 1) == t {print $2}' manifest.tsv > ids.$t; "
                             "test -s ids.$t || exit 1; ls bench | grep -F -f ids.$t | sed 's/^[0-9a-f]*-//; s/-.*//' | sort -u | "
                             "tr '\\n' ' ' > types.$t; done && test \"$(cat types.f16)\" = 'f16 f32 ' && "
                             "test \"$(cat types.bf16)\" = 'bf16 f32 ' && "
                             "for f in bench/*-f32-*.c; do grep -q \"Note: the model's tensors are b\\{0,1\\}f16; this is the layer in f32\" \"$f\" "
                             "|| { echo \"$f: no note\"; exit 1; }; done",
                             out),
                     0);
    check_folder(out, "f16_cnn ");
    check_folder(out, "bf16_mlp ");
    /* each model is bounded in f32 and in its own type, not in the other model's: no layer of
     * f16_cnn has a bf16 row, and its f16 rows are no bf16 plan (where the folder ran) */
    if (!gen_only)
        assert_int_equal(test_sh("cd '%s' && %s . --report bound --format csv > types.csv 2>> agg.log && "
                                 "test \"$(awk -F, 'NR > 1 {print $1 \" \" $3}' types.csv | sort | tr '\\n' ';')\" = "
                                 "'bf16_mlp bf16;bf16_mlp f32;f16_cnn f16;f16_cnn f32;' || { cat types.csv; exit 1; }",
                                 out, agg_cmd),
                         0);
}

/* Round: oneDNN 2.6 describes it in f32 only; its bf16/f16 rows must say unsupported, not error */
static void e2e_f32_only(void **state)
{
    (void)state;
    static const char *const models[] = {"round"};
    e2e_node_models("f32_only", models, BZ_ARRAY_LEN(models), NULL);
}

/* the first row of a json report table */
static json_t *first_row(json_t *j, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(j, "reports"), i, t)
    {
        if (!strcmp(json_string_value(json_object_get(t, "name")), name))
            return json_array_get(json_object_get(t, "rows"), 0);
    }
    return NULL;
}

static double jnum(json_t *row, const char *col)
{
    json_t *v = json_object_get(row, col);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* gen --calibrate with the tiny CNN: its CPU benchmarks and the calibration ones run at one
 * thread and at two; agg's roofline finds the measured ceilings (a GEMM's FLOP/s, a copy's
 * bytes/s) and the CPU's datasheet arithmetic beside them, and predicts the two-thread bound
 * from the one-thread rows, with the error against the two-thread measurement */
static void e2e_calibrate(void **state)
{
    (void)state;
    uint8_t *data;
    size_t n = fixture_build(FIXTURE_TINY_CNN, &data);
    char model[300], out[300];
    snprintf(model, sizeof(model), "%s/tinycnn.onnx", dir);
    snprintf(out, sizeof(out), "%s/calib", dir);
    assert_int_equal(bz_write_file_atomic(model, data, n), 0);
    free(data);
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    assert_int_equal(test_sh(GEN_CC "%s --calibrate -b 1 '%s' -o '%s' 2>'%s.gen.log'", gen, model, out, out), 0);
    assert_int_equal(test_sh("grep -q '^calib-cpu-gemm-f32-any-matmul\tcalib-cpu-gemm\tMatMul\t\tcpu$' '%s/benchmarks.tsv' && "
                             "grep -q '^calib-cpu-copy-f32-any\t' '%s/benchmarks.tsv' && ! grep -q calib- '%s/manifest.tsv'",
                             out, out, out),
                     0);
    if (gen_only)
        return;
    build_folder(out);
    for (int t = 1; t <= 2; t++)
        assert_int_equal(test_sh("cd '%s' && ./run_all --results r%d.csv -- --threads %d --warmup 1 --iters 3 --min-ms 1 "
                                 "> run%d.log 2>&1",
                                 out, t, t, t),
                         0);
    assert_int_equal(test_sh("cd '%s' && grep -q 'calib-cpu-gemm-f32-any-matmul,.*,ok,.*cpu_peak_gflops=f32:' r1.csv", out), 0);
    assert_int_equal(test_sh("cd '%s' && %s --db p.db ingest manifest.tsv r1.csv r2.csv > ingest.log 2>&1 && "
                             "%s --db p.db report --format json --type f32 --report roofline-models,roofline "
                             "> roof.json 2> roof.err && %s --db p.db report --format json --type f32 --to threads=2 "
                             "--report prediction > pred.json 2> pred.err",
                             out, agg_cmd, agg_cmd, agg_cmd),
                     0);
    char path[400];
    snprintf(path, sizeof(path), "%s/roof.json", out);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    json_t *m = first_row(j, "roofline-models");
    assert_non_null(m);
    double sheet = jnum(m, "peak datasheet"), meas = jnum(m, "peak measured"), bw = jnum(m, "GB/s measured");
    print_message("calibration: peak %.1f GFLOP/s measured, %.1f by the CPU's arithmetic; copy %.2f GB/s; "
                  "floor %.1f us vs bound %.1f us\n", meas, sheet, bw, jnum(m, "floor measured"), jnum(m, "sequential"));
    assert_true(meas > 0 && sheet > 0 && bw > 0);
    /* the physical floor is below what the layers took, where the calibration's GEMM and copy
     * were timed on a quiet machine (another lane of make test beside them can halve the
     * GEMM's peak, and the floor made of it then passes layers timed when the cores were free) */
    assert_true(jnum(m, "floor measured") > 0);
    if (test_sh("cd '%s' && awk -F, '$2 ~ /^calib-cpu-(gemm-f32|copy)/ && $31 == \"1\"' r1.csv r2.csv | grep -q .", out) == 0)
        print_message("e2e_calibrate: the calibration was timed on a busy machine: floor check skipped\n");
    else
        assert_true(jnum(m, "floor measured") < jnum(m, "sequential"));
    assert_non_null(first_row(j, "roofline"));
    json_decref(j);
    snprintf(path, sizeof(path), "%s/pred.json", out);
    j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    json_t *p = first_row(j, "prediction");
    assert_non_null(p);
    print_message("prediction of 2 threads from 1: %g layers, median error %.1f%%, bound error %.1f%%\n",
                  jnum(p, "layers"), jnum(p, "layer error median"), jnum(p, "bound error"));
    assert_true(jnum(p, "layers") > 0 && jnum(p, "layer error median") >= 0 && jnum(p, "bound error") >= 0);
    json_decref(j);
}

void test_e2e_group(struct test_totals *tot)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    gen_only = !strcmp(test_env("BENANZA_E2E_SEMANTICS", "1"), "0");
    if (gen_only)
        fprintf(stderr, "e2e-cpu: BENANZA_E2E_SEMANTICS=0: gen only; building and running the generated code is "
                        "make test's\n");
    struct CMUnitTest tests[] = {
        cmocka_unit_test(e2e_fixture_cnn),
        cmocka_unit_test(e2e_calibrate),
        cmocka_unit_test(e2e_fixture_residual),
        cmocka_unit_test(e2e_fixture_wide_concat),
        cmocka_unit_test(e2e_fixture_selections),
        cmocka_unit_test(e2e_maths),
        cmocka_unit_test(e2e_framework_layers_ort),
        cmocka_unit_test(e2e_activations),
        cmocka_unit_test(e2e_indexing),
        cmocka_unit_test(e2e_reductions),
        cmocka_unit_test(e2e_softmax),
        cmocka_unit_test(e2e_conv_act),
        cmocka_unit_test(e2e_quantized),
        cmocka_unit_test(e2e_resampling),
        cmocka_unit_test(e2e_einsum),
        cmocka_unit_test(e2e_signal),
        cmocka_unit_test(e2e_nn),
        cmocka_unit_test(e2e_random),
        cmocka_unit_test(e2e_select),
        cmocka_unit_test(e2e_strings),
        cmocka_unit_test(e2e_control_bodies),
        cmocka_unit_test(e2e_scan_shapes),
        cmocka_unit_test(e2e_sequence_classes),
        cmocka_unit_test(e2e_permutations),
        cmocka_unit_test(e2e_selections),
        cmocka_unit_test(e2e_instancenorm),
        cmocka_unit_test(e2e_f32_only),
        cmocka_unit_test(e2e_half_models),
        cmocka_unit_test(e2e_deconv),
        cmocka_unit_test(e2e_conv_work),
        cmocka_unit_test(e2e_attention),
        cmocka_unit_test(e2e_glu),
        cmocka_unit_test(e2e_msft_expansion),
        cmocka_unit_test(e2e_onnx_functions),
        cmocka_unit_test(e2e_recurrent),
        cmocka_unit_test(e2e_recurrent_plain),
        cmocka_unit_test(e2e_scalar_binary),
        cmocka_unit_test(e2e_deconv_plain),
        cmocka_unit_test(e2e_shared_cnn),
        cmocka_unit_test(e2e_shared_transformer),
        cmocka_unit_test(e2e_shared_lstm),
    };
    test_group_run(tot, "e2e-cpu", tests, BZ_ARRAY_LEN(tests));
    /* BENANZA_KEEP=1 leaves the generated folders for a look (as in the other groups) */
    if (getenv("BENANZA_KEEP"))
        fprintf(stderr, "e2e-cpu: the generated folders are kept in %s\n", dir);
    else if (test_sh("rm -rf '%s'", dir) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}
