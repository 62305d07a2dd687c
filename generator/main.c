/* gen: the benanza generator's command line. The pipeline is visible here: load -> (passes) -> print. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "dump.h"
#include "backends.h"
#include "calib.h"
#include "folder.h"
#include "exitcodes.h"
#include "mustache.h"
#include "onnx_load.h"
#include "ops/ops.h"
#include "pipeline.h"
#include "shape.h"
#include "version.h"
#include "zoo/zoo.h"
#include <errno.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    fputs("usage: gen MODEL.onnx... [-b N[,N...]] [-o DIR] [--strict] [shape options]\n"
          "       gen --layers MODEL.onnx... [-b N[,N...]] [shape options]\n"
          "       gen --dump MODEL.onnx...\n"
          "       gen --zoo NAME[:PARAM=V] --write-onnx FILE.onnx\n"
          "       gen --shapes MODEL.onnx... [-b N] [--dim [MODEL:]NAME=V] [--input-shape ...]\n"
          "       gen --graph MODEL.onnx [-b N] [--dim [MODEL:]NAME=V] [--input-shape ...]\n"
          "       gen --render TEMPLATE --data DATA.json [--partials DIR]\n"
          "       gen --ops\n"
          "       gen --help | --version\n"
          "\n"
          "benanza's generator: reads ONNX models and writes standalone micro-benchmarks.\n"
          "\n"
          "modes (the default: process the models and write the benchmark folder DIR):\n"
          "  --layers             print the unique layers across all models and batch sizes\n"
          "                       (id, uses, op, name, models) and per-model statistics\n"
          "  --dump               print a summary of each model: producer, IR version, opsets,\n"
          "                       inputs and outputs with shapes, op-type histogram, node list\n"
          "  --shapes             infer every tensor's type and shape and print them, one per\n"
          "                       line: name<TAB>ELEM_TYPE<TAB>d0,d1,... ('?' unknown dim,\n"
          "                       '*' unknown rank, an empty list for scalars)\n"
          "  --graph              print the model's main graph as gen benchmarks it, as JSON:\n"
          "                       its nodes (other runtimes' fused operators, com.microsoft\n"
          "                       Attention and the like, written as the ONNX operators they\n"
          "                       fuse), attributes, initializers and inferred types\n"
          "  --zoo NAME[:PARAM=V] add a built-in model (repeatable); it is written to\n"
          "                       DIR/zoo/NAME.onnx and processed with the others\n"
          "  --write-onnx FILE    with one --zoo: write it as FILE (weights as external data in\n"
          "                       a sparse, zero-filled FILE.data) and stop\n"
          "  --render TEMPLATE    render a Mustache template against --data and print it\n"
          "  --ops                print the operator table (Markdown; docs/ops.md): op, domain,\n"
          "                       opset versions, the inputs (count, the required ones) and\n"
          "                       outputs a node must have, its kind, and how the CPU and CUDA\n"
          "                       backends benchmark it\n"
          "\n"
          "options:\n"
          "  -o, --output DIR     where outputs go (default: out): manifest.tsv, bench/*.c,\n"
          "                       build.ninja, run_all, benchmarks.tsv (made with its parents)\n"
          "  --backend B          cpu (oneDNN; the default), cuda (cuDNN, cuBLAS and kernels of\n"
          "                       ours), all (both), auto (cpu, plus cuda where a CUDA toolkit\n"
          "                       is found at $CUDA_HOME or /usr/local/cuda) or none (no benchmark:\n"
          "                       the manifest, the runner and agg's sources)\n"
          "  --repro LAYER        write only that layer's benchmark files (id from --layers), flat\n"
          "                       in the output folder: a minimal repro for a bug report\n"
          "  --calibrate          also write the machine's calibration benchmarks (a large GEMM\n"
          "                       per type, a large copy, on GPUs an empty kernel): the measured\n"
          "                       ceilings of agg's roofline and predict reports; no model needed\n"
          "  --cuda-arch A,...    GPU architectures the .cu benchmarks are built for (default\n"
          "                       sm_90; PTX of the newest is included for later GPUs)\n"
          "  --top-k K            how many of a library heuristic's algorithms become benchmarks\n"
          "                       (cuDNN's engine configurations heurA_0 .. and nhwc_heurA_0 ..,\n"
          "                       and cuBLASLt's unless --lt-top-k; default 8, 0 for none, at most 64)\n"
          "  --lt-top-k K         cuBLASLt's alone (lt0 .. lt<K-1>, ltnk0 ..; default: --top-k's K):\n"
          "                       cuBLASLt offers at most 8 for most GEMMs, cuDNN many more\n"
          "  --heur-modes M,...   cuDNN's engine heuristics benchmarked: A, B, fallback (default A;\n"
          "                       each adds K files per convolution, type and layout)\n"
          "  --gemm-algos A       cublasGemmEx's algorithms benchmarked: all (default: the 24\n"
          "                       plain and 16 Tensor Core values beside the defaults) or\n"
          "                       default (the two defaults; on sm_90 cuBLAS runs the default's\n"
          "                       kernel for every value: measured on H100 and H200)\n"
          "  --types T,...        the CUDA data types written (default all): f32, tf32 (f32 data,\n"
          "                       TF32 Tensor Cores), f16, f16tc (f16 on Tensor Cores), bf16, f8;\n"
          "                       a layer with no tf32, f16tc or f8 form gets the type agg\n"
          "                       counts it at instead (f32, f16, bf16); our typed kernels\n"
          "                       (attention, Resize) follow their storage type (attention\n"
          "                       also in tf32), the others keep their layer's; a model\n"
          "                       exported in f16 or bf16 is written in its own type alone\n"
          "                       (f16 and f16tc, or bf16); on the CPU in its own type and\n"
          "                       in f32 (as a framework runs it where the CPU has no 16-bit\n"
          "                       kernel for the layer)\n"
          "  --strict             an unsupported operator is an error (exit 6)\n"
          "  --progress           show progress on standard error\n"
          "  -b, --batch N,...    batch sizes (each model is processed at each): the batch\n"
          "                       dim of every data input (dim 0, or dim 1 for recurrent\n"
          "                       layers' inputs in their default layout)\n"
          "  --dim [MODEL:]NAME=VALUE\n"
          "                       give the symbolic dim NAME (dim_param) a value; MODEL (the\n"
          "                       file name without .onnx) limits it to one model\n"
          "  --input-shape [MODEL:]INPUT=d0,d1,...\n"
          "                       the exact shape of a graph input (it overrides -b)\n"
          "  --data FILE          JSON data for --render\n"
          "  --partials DIR       where --render finds partials, as DIR/NAME.mustache\n"
          "                       (default: the template's own directory)\n"
          "  --max-model-size N   refuse model files larger than N bytes (default 2 GiB - 1)\n"
          "  -h, --help           this text\n"
          "  --version            print the version\n"
          "\n"
          "built-in zoo (--zoo NAME[:PARAM=N]):\n",
          out);
    for (const struct zoo_model *z = zoo_models; z->name; z++) {
        char name[64];
        if (z->param)
            snprintf(name, sizeof(name), "%s:%s=%lld", z->name, z->param, (long long)z->param_default);
        else
            snprintf(name, sizeof(name), "%s", z->name);
        fprintf(out, "  %-20s %s\n", name, z->description);
    }
    fputs("\n"
          "exit status: 0 ok, 2 usage, 3 a model could not be loaded, 4 template error,\n"
          "             5 a file could not be read or written, 6 unsupported operators with\n"
          "             --strict, 70 internal error\n",
          out);
}

static int cmd_dump(int argc, char **argv, const struct onnx_load_opts *lo)
{
    struct bz_diag diag = {0};
    struct bz_buf err;
    bz_buf_init(&err);
    for (int i = 0; i < argc; i++) {
        struct ir_model *m;
        enum onnx_load_status s = onnx_load_file(argv[i], lo, &m, &err);
        if (s != ONNX_LOAD_OK) {
            bz_diag_error(&diag, argv[i], "%s", err.data);
            continue; /* like a compiler: report, go on with the next model */
        }
        dump_model(stdout, m);
        fflush(stdout);
        ir_model_free(m);
    }
    bz_buf_free(&err);
    return diag.errors ? BZ_EXIT_MODEL : BZ_EXIT_OK;
}

static int cmd_graph(const char *path, const struct onnx_load_opts *lo, const struct shape_opts *so)
{
    struct bz_diag diag = {0};
    struct bz_buf err;
    bz_buf_init(&err);
    struct ir_model *m;
    if (onnx_load_file(path, lo, &m, &err) != ONNX_LOAD_OK) {
        bz_diag_error(&diag, path, "%s", err.data);
        bz_buf_free(&err);
        return BZ_EXIT_MODEL;
    }
    bz_buf_free(&err);
    struct shape_result res;
    int bad = shape_infer(m, so, &diag, &res);
    free(res.unsupported);
    if (!bad) {
        dump_graph_json(stdout, m);
        fflush(stdout);
    }
    ir_model_free(m);
    return bad ? BZ_EXIT_MODEL : BZ_EXIT_OK;
}

static int cmd_shapes(int argc, char **argv, const struct onnx_load_opts *lo,
                      const struct shape_opts *so)
{
    struct bz_diag diag = {0};
    struct bz_buf err;
    bz_buf_init(&err);
    for (int i = 0; i < argc; i++) {
        struct ir_model *m;
        if (onnx_load_file(argv[i], lo, &m, &err) != ONNX_LOAD_OK) {
            bz_diag_error(&diag, argv[i], "%s", err.data);
            continue;
        }
        struct shape_result res;
        if (shape_infer(m, so, &diag, &res) != 0) {
            free(res.unsupported);
            ir_model_free(m);
            continue; /* not valid: said, nothing printed for it */
        }
        if (argc > 1)
            printf("# %s\n", argv[i]);
        shape_print(stdout, m);
        for (int u = 0; u < res.n_unsupported_ops; u++)
            bz_diag_warning(&diag, argv[i], "operator %s%s%s is not supported: %d node%s not benchmarked",
                            res.unsupported[u].domain, *res.unsupported[u].domain ? ":" : "",
                            res.unsupported[u].op, res.unsupported[u].count,
                            res.unsupported[u].count == 1 ? "" : "s");
        free(res.unsupported);
        ir_model_free(m);
    }
    bz_buf_free(&err);
    return diag.errors ? BZ_EXIT_MODEL : BZ_EXIT_OK;
}

/* gen's command line as a shell would take it back (for the files' headers) */
static char *command_line(int argc, char **argv)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, "gen");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool plain = *a != '\0';
        for (const char *c = a; *c && plain; c++)
            plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    strchr("-_./,:=+@%", *c);
        bz_buf_putc(&b, ' ');
        if (plain) {
            bz_buf_puts(&b, a);
            continue;
        }
        bz_buf_putc(&b, '\'');
        for (const char *c = a; *c; c++)
            bz_buf_puts(&b, *c == '\'' ? "'\\''" : (char[2]){*c, 0});
        bz_buf_putc(&b, '\'');
    }
    return bz_buf_steal(&b);
}

/* The pipeline: load -> shapes -> layers -> fusion for every model and batch (pipeline_run),
 * then plan -> emit for every backend (folder_write). */
static int cmd_process(int argc, char **argv, const struct onnx_load_opts *lo, const struct shape_opts *so,
                       const int64_t *batches, int n_batches, bool print_layers, bool strict,
                       const struct folder_opts *fo)
{
    struct bz_diag diag = {0};
    struct pipeline p;
    pipeline_run(&p, argv, argc, batches, n_batches, so, lo, &diag, fo->progress);
    int rc = BZ_EXIT_OK;
    if (p.models_failed) {
        /* every model was checked and each error said (located): nothing is written from a
         * partial set, and no summary claims otherwise */
        pipeline_free(&p);
        return BZ_EXIT_MODEL;
    }
    if (print_layers) {
        pipeline_print_layers(stdout, &p);
        fflush(stdout);
    }
    if (fo->dir && (fo->backends & BACKEND_CUDA))
        pipeline_relayouts(&p);
    if (fo->dir && fo->calibrate)
        calib_add(&p.layers, fo->backends);
    if (fo->dir && fo->repro)
        rc = folder_repro(&p, fo, &diag);
    else if (fo->dir)
        rc = folder_write(&p, fo, &diag);
    if (strict && p.unsupported_nodes) {
        bz_diag_error(&diag, "gen", "%d nodes have unsupported operators (--strict)", p.unsupported_nodes);
        rc = BZ_EXIT_UNSUPPORTED;
    }
    pipeline_free(&p);
    return rc;
}

/* the zoo model SPEC names (and its parameter), or NULL after saying why not */
static const struct zoo_model *zoo_spec(const char *spec, int64_t *param)
{
    struct bz_buf err;
    bz_buf_init(&err);
    const struct zoo_model *z = zoo_parse(spec, param, &err);
    if (!z)
        bz_diag_error(NULL, "gen", "%s", err.data);
    bz_buf_free(&err);
    return z;
}

static int cmd_write_zoo(const char *spec, const char *path)
{
    int64_t param, params;
    const struct zoo_model *z = zoo_spec(spec, &param);
    if (!z)
        return BZ_EXIT_USAGE;
    /* the model and FILE.data are written whole and renamed over what was there: never over a
     * device, a pipe or a folder */
    struct bz_buf data;
    bz_buf_init(&data);
    bz_buf_printf(&data, "%s.data", path);
    const char *const both[2] = {path, data.data};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(both[i], &st) == 0 && !S_ISREG(st.st_mode)) {
            bz_diag_error(NULL, both[i], "cannot write: not a regular file (--write-onnx replaces FILE and FILE.data)");
            bz_buf_free(&data);
            return BZ_EXIT_IO;
        }
    }
    bz_buf_free(&data);
    int e = zoo_write_onnx(z, param, path, &params);
    if (e) {
        bz_diag_error(NULL, path, "cannot write: %s", strerror(e));
        return BZ_EXIT_IO;
    }
    printf("%s: %s, %lld parameters (published: %lld)\n", path, z->description, (long long)params,
           (long long)z->published_params);
    return BZ_EXIT_OK;
}

/* The zoo model SPEC written to DIR/zoo/ and its path (malloc'd); NULL (and *rc the exit
 * status) on failure. */
static char *write_zoo_model(const char *spec, const char *dir, int *rc)
{
    *rc = BZ_EXIT_USAGE;
    int64_t param;
    const struct zoo_model *z = zoo_spec(spec, &param);
    if (!z)
        return NULL;
    struct bz_buf path;
    bz_buf_init(&path);
    bz_buf_printf(&path, "%s", dir);
    if ((errno = bz_mkdir_p(path.data)) != 0)
        goto fail;
    bz_buf_puts(&path, "/zoo");
    if (mkdir(path.data, 0755) != 0 && errno != EEXIST)
        goto fail;
    bz_buf_putc(&path, '/');
    zoo_file_name(&path, z, param);
    bz_buf_puts(&path, ".onnx");
    int e = zoo_write_onnx(z, param, path.data, NULL);
    if (e) {
        errno = e;
        goto fail;
    }
    return bz_buf_steal(&path);
fail:
    *rc = BZ_EXIT_IO;
    bz_diag_error(NULL, path.data, "cannot write the zoo model: %s", strerror(errno));
    bz_buf_free(&path);
    return NULL;
}

/* The operator table: what a node of each operator must have, and what gen makes of it */
static int cmd_ops(void)
{
    op_table_print(stdout);
    return BZ_EXIT_OK;
}

static int cmd_render(const char *tpl_path, const char *data_path, const char *partials_dir)
{
    char *src;
    size_t len;
    enum bz_read_status rs = bz_read_file(tpl_path, (size_t)64 << 20, &src, &len);
    if (rs != BZ_READ_OK) {
        bz_diag_error(NULL, tpl_path, "cannot read the template: %s", bz_read_strerror(rs));
        return BZ_EXIT_IO;
    }
    json_t *data = NULL;
    if (data_path) {
        json_error_t je;
        data = json_load_file(data_path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!data) {
            struct bz_buf where;
            bz_buf_init(&where);
            bz_buf_printf(&where, "%s:%d:%d", data_path, je.line, je.column);
            bz_diag_error(NULL, where.data, "bad JSON data: %s", je.text);
            bz_buf_free(&where);
            free(src);
            return BZ_EXIT_IO;
        }
    }
    /* partials default to the template's directory */
    char *dir = NULL;
    if (partials_dir) {
        dir = bz_strdup(partials_dir);
    } else {
        const char *slash = strrchr(tpl_path, '/');
        dir = slash ? bz_strndup(tpl_path, (size_t)(slash - tpl_path)) : bz_strdup(".");
    }
    struct mustache_opts mo = {
        .partial = mustache_partial_from_dir,
        .partial_ud = dir,
        .flags = MUSTACHE_STRICT_PARTIALS,
    };
    struct bz_buf out, err;
    bz_buf_init(&out);
    bz_buf_init(&err);
    int st = mustache_render(tpl_path, src, len, data, &mo, &out, &err);
    int rc = BZ_EXIT_OK;
    if (st < 0) {
        bz_diag_error(NULL, NULL, "%s", err.data);
        rc = st == MUSTACHE_ELOADER ? BZ_EXIT_IO : BZ_EXIT_TEMPLATE;
    } else {
        fwrite(out.data ? out.data : "", 1, out.len, stdout);
        if (fflush(stdout) != 0) {
            bz_diag_error(NULL, NULL, "cannot write the rendering to standard output");
            rc = BZ_EXIT_IO;
        }
    }
    bz_buf_free(&out);
    bz_buf_free(&err);
    free(dir);
    json_decref(data);
    free(src);
    return rc;
}

/* the command line as typed, taken before getopt permutes argv and the options are parsed */
static char *gen_cmdline;

int main(int argc, char **argv)
{
    gen_cmdline = command_line(argc, argv);
    enum { OPT_SHAPES = 300, OPT_DIM, OPT_INPUT_SHAPE, OPT_LAYERS, OPT_STRICT, OPT_PROGRESS, OPT_ZOO,
           OPT_WRITE_ONNX, OPT_BACKEND, OPT_CUDA_ARCH, OPT_REPRO, OPT_CALIBRATE, OPT_TOP_K, OPT_LT_TOP_K,
           OPT_HEUR_MODES, OPT_TYPES, OPT_GEMM_ALGOS };
    enum { OPT_DUMP = 256, OPT_RENDER, OPT_DATA, OPT_PARTIALS, OPT_VERSION, OPT_MAX_SIZE, OPT_OPS, OPT_GRAPH };
    static const struct option longopts[] = {
        {"dump", no_argument, NULL, OPT_DUMP},
        {"ops", no_argument, NULL, OPT_OPS},
        {"shapes", no_argument, NULL, OPT_SHAPES},
        {"graph", no_argument, NULL, OPT_GRAPH},
        {"layers", no_argument, NULL, OPT_LAYERS},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"zoo", required_argument, NULL, OPT_ZOO},
        {"write-onnx", required_argument, NULL, OPT_WRITE_ONNX},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"cuda-arch", required_argument, NULL, OPT_CUDA_ARCH},
        {"top-k", required_argument, NULL, OPT_TOP_K},
        {"lt-top-k", required_argument, NULL, OPT_LT_TOP_K},
        {"heur-modes", required_argument, NULL, OPT_HEUR_MODES},
        {"types", required_argument, NULL, OPT_TYPES},
        {"gemm-algos", required_argument, NULL, OPT_GEMM_ALGOS},
        {"repro", required_argument, NULL, OPT_REPRO},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"output", required_argument, NULL, 'o'},
        {"batch", required_argument, NULL, 'b'},
        {"dim", required_argument, NULL, OPT_DIM},
        {"input-shape", required_argument, NULL, OPT_INPUT_SHAPE},
        {"render", required_argument, NULL, OPT_RENDER},
        {"data", required_argument, NULL, OPT_DATA},
        {"partials", required_argument, NULL, OPT_PARTIALS},
        {"max-model-size", required_argument, NULL, OPT_MAX_SIZE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    bool dump = false, shapes = false, graph = false, layers = false, strict = false, progress = false, calibrate = false;
    const char *out_dir = "out";
    const char *zoo_specs[16];
    int n_zoo = 0;
    const char *write_onnx = NULL;
    unsigned backends = BACKEND_CPU;
    const char *cuda_arch = "sm_90", *repro = NULL;
    int top_k = 8, lt_top_k = -1; /* -1: --top-k's */
    unsigned heur_modes = 1u; /* bit 0 A, 1 B, 2 fallback */
    unsigned cuda_types = 0;  /* --types: all */
    bool gemm_default_only = false; /* --gemm-algos default */
    int64_t batches[32] = {0};
    int n_batches = 0;
    struct shape_opts so = {0};
    struct shape_dim_binding bindings[64];
    struct shape_input_shape input_shapes[64];
    const char *render = NULL, *data = NULL, *partials = NULL;
    struct onnx_load_opts lo = {0};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hb:o:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DUMP: dump = true; break;
        case OPT_SHAPES: shapes = true; break;
        case OPT_GRAPH: graph = true; break;
        case 'b': {
            n_batches = 0;
            for (char *p = optarg;;) {
                char *end;
                long long v = strtoll(p, &end, 10);
                if (end == p || v <= 0 || (*end && *end != ',') || n_batches == 32) {
                    bz_diag_error(NULL, "gen", "-b wants positive batch sizes separated by commas, not '%s'", optarg);
                    return BZ_EXIT_USAGE;
                }
                batches[n_batches++] = v;
                if (!*end)
                    break;
                p = end + 1;
            }
            so.batch = batches[0];
            break;
        }
        case 'o': out_dir = optarg; break;
        case OPT_LAYERS: layers = true; break;
        case OPT_STRICT: strict = true; break;
        case OPT_PROGRESS: progress = true; break;
        case OPT_ZOO:
            if (n_zoo == 16) {
                bz_diag_error(NULL, "gen", "at most 16 --zoo models");
                return BZ_EXIT_USAGE;
            }
            zoo_specs[n_zoo++] = optarg;
            break;
        case OPT_WRITE_ONNX: write_onnx = optarg; break;
        case OPT_BACKEND:
            if (!strcmp(optarg, "cpu")) {
                backends = BACKEND_CPU;
            } else if (!strcmp(optarg, "cuda")) {
                backends = BACKEND_CUDA;
            } else if (!strcmp(optarg, "all")) {
                backends = BACKEND_CPU | BACKEND_CUDA;
            } else if (!strcmp(optarg, "auto")) {
                backends = BACKEND_CPU | (emit_cuda_found() ? BACKEND_CUDA : 0);
            } else if (!strcmp(optarg, "none")) {
                backends = 0;
            } else {
                bz_diag_error(NULL, "gen", "--backend wants cpu, cuda, all, auto or none, not '%s'", optarg);
                return BZ_EXIT_USAGE;
            }
            break;
        case OPT_CALIBRATE: calibrate = true; break;
        case OPT_REPRO:
            if (strlen(optarg) != 16 || strspn(optarg, "0123456789abcdef") != 16) {
                bz_diag_error(NULL, "gen", "--repro wants a layer id (16 hex digits, from gen --layers), not '%s'",
                              optarg);
                return BZ_EXIT_USAGE;
            }
            repro = optarg;
            break;
        case OPT_CUDA_ARCH:
            if (emit_cuda_arch_flags(optarg, NULL) != 0) {
                bz_diag_error(NULL, "gen", "--cuda-arch wants architectures like sm_80,sm_90, not '%s'", optarg);
                return BZ_EXIT_USAGE;
            }
            cuda_arch = optarg;
            break;
        case OPT_TOP_K:
        case OPT_LT_TOP_K: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 0 || v > 64) {
                bz_diag_error(NULL, "gen", "--%s wants a count from 0 to 64, not '%s'",
                              c == OPT_TOP_K ? "top-k" : "lt-top-k", optarg);
                return BZ_EXIT_USAGE;
            }
            *(c == OPT_TOP_K ? &top_k : &lt_top_k) = (int)v;
            break;
        }
        case OPT_HEUR_MODES: {
            heur_modes = 0;
            char buf[64];
            snprintf(buf, sizeof(buf), "%s", optarg);
            for (char *save = NULL, *m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save))
                heur_modes |= !strcmp(m, "A") ? 1u : !strcmp(m, "B") ? 2u : !strcmp(m, "fallback") ? 4u : 8u;
            if (!heur_modes || (heur_modes & 8u) || strlen(optarg) >= sizeof(buf)) {
                bz_diag_error(NULL, "gen", "--heur-modes wants A, B and fallback separated by commas, not '%s'", optarg);
                return BZ_EXIT_USAGE;
            }
            break;
        }
        case OPT_GEMM_ALGOS:
            if (strcmp(optarg, "all") && strcmp(optarg, "default")) {
                bz_diag_error(NULL, "gen", "--gemm-algos wants all or default, not '%s'", optarg);
                return BZ_EXIT_USAGE;
            }
            gemm_default_only = !strcmp(optarg, "default");
            break;
        case OPT_TYPES:
            if (emit_cuda_type_mask(optarg, &cuda_types) != 0) {
                bz_diag_error(NULL, "gen", "--types wants f32, tf32, f16, f16tc, bf16 and f8 separated by commas, not '%s'",
                              optarg);
                return BZ_EXIT_USAGE;
            }
            break;
        case OPT_DIM: {
            char shown[256];
            snprintf(shown, sizeof(shown), "%s", optarg);
            if (so.n_bindings == 64 || !shape_parse_binding(optarg, &bindings[so.n_bindings])) {
                bz_diag_error(NULL, "gen", "--dim wants [MODEL:]NAME=VALUE with VALUE >= 0, not '%s'", shown);
                return BZ_EXIT_USAGE;
            }
            so.n_bindings++;
            so.bindings = bindings;
            break;
        }
        case OPT_INPUT_SHAPE: {
            char shown[256];
            snprintf(shown, sizeof(shown), "%s", optarg);
            if (so.n_input_shapes == 64 ||
                !shape_parse_input_shape(optarg, &input_shapes[so.n_input_shapes])) {
                bz_diag_error(NULL, "gen", "--input-shape wants [MODEL:]INPUT=d0,d1,... (up to 16 dims), not '%s'",
                              shown);
                return BZ_EXIT_USAGE;
            }
            so.n_input_shapes++;
            so.input_shapes = input_shapes;
            break;
        }
        case OPT_RENDER: render = optarg; break;
        case OPT_DATA: data = optarg; break;
        case OPT_PARTIALS: partials = optarg; break;
        case OPT_MAX_SIZE: {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || v == 0) {
                bz_diag_error(NULL, "gen", "--max-model-size wants a positive number of bytes, not '%s'",
                              optarg);
                return BZ_EXIT_USAGE;
            }
            lo.max_bytes = (size_t)v;
            break;
        }
        case 'h': usage(stdout); return BZ_EXIT_OK;
        case OPT_OPS: return cmd_ops();
        case OPT_VERSION: printf("gen (benanza) %s\n", BENANZA_VERSION); return BZ_EXIT_OK;
        default:
            bz_diag_error(NULL, "gen", "unknown or incomplete option '%s' (see gen --help)",
                          argv[optind - 1]);
            return BZ_EXIT_USAGE;
        }
    }
    if (render) {
        if (dump || optind < argc) {
            bz_diag_error(NULL, "gen", "--render takes one template and no models (see gen --help)");
            return BZ_EXIT_USAGE;
        }
        return cmd_render(render, data, partials);
    }
    if (shapes) {
        if (optind >= argc) {
            bz_diag_error(NULL, "gen", "--shapes needs at least one model file");
            return BZ_EXIT_USAGE;
        }
        return cmd_shapes(argc - optind, argv + optind, &lo, &so);
    }
    if (graph) {
        if (optind + 1 != argc || n_batches > 1) {
            bz_diag_error(NULL, "gen", "--graph takes one model file and at most one batch size");
            return BZ_EXIT_USAGE;
        }
        return cmd_graph(argv[optind], &lo, &so);
    }
    if (dump) {
        if (optind >= argc) {
            bz_diag_error(NULL, "gen", "--dump needs at least one model file");
            return BZ_EXIT_USAGE;
        }
        return cmd_dump(argc - optind, argv + optind, &lo);
    }
    if (write_onnx) {
        if (n_zoo != 1 || optind < argc) {
            bz_diag_error(NULL, "gen", "--write-onnx writes exactly one --zoo model");
            return BZ_EXIT_USAGE;
        }
        return cmd_write_zoo(zoo_specs[0], write_onnx);
    }
    if (optind >= argc && n_zoo == 0 && !calibrate) {
        usage(stderr);
        return BZ_EXIT_USAGE;
    }
    if (n_batches == 0)
        n_batches = 1; /* batches[0] == 0: as each model says */
    /* zoo models are written to DIR/zoo and processed like files */
    int n_models = argc - optind + n_zoo;
    char **models = bz_calloc((size_t)n_models + 1, sizeof(char *));
    for (int i = 0; i < n_zoo; i++) {
        int zrc;
        models[i] = write_zoo_model(zoo_specs[i], out_dir, &zrc);
        if (!models[i]) {
            for (int k = 0; k < i; k++)
                free(models[k]);
            free(models);
            return zrc;
        }
    }
    for (int i = optind; i < argc; i++)
        models[n_zoo + i - optind] = bz_strdup(argv[i]);
    struct folder_opts fo = {layers ? NULL : out_dir, backends, cuda_arch, repro, gen_cmdline, progress, calibrate,
                             top_k, lt_top_k >= 0 ? lt_top_k : top_k, heur_modes, cuda_types, gemm_default_only};
    int rc = cmd_process(n_models, models, &lo, &so, batches, n_batches, layers, strict, &fo);
    free(gen_cmdline);
    gen_cmdline = NULL;
    for (int i = 0; i < n_models; i++)
        free(models[i]);
    free(models);
    return rc;
}
