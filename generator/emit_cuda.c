/* The CUDA backend: each unique layer becomes cuDNN/cuBLAS benchmarks (one per algorithm the
 * library has for the operation and per data type: templates/cuda/lib.c.mustache, plain C
 * built by the C compiler) or, where no library call does the work, a kernel of ours
 * (templates/cuda/kernel.cu.mustache, built by nvcc).
 *
 * gen needs no CUDA toolkit for this: the operation is written as a designated initializer of
 * struct bc_lib_op (runtime/cudnn_ops.h) with the libraries' enum names, so that the C
 * compiler on the benchmark machine checks every field and value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "calib.h"
#include "plan.h"

/* ---- the data types: storage type x math mode ---- */

struct cu_type {
    const char *stem;   /* in file names: f32, tf32, f16, f16tc, bf16, f8 */
    const char *dtype;  /* the CSV's dtype column */
    const char *bc;     /* enum bc_dtype */
    int tensor_op;      /* Tensor Core math (TF32 for f32 storage) */
    double size;        /* bytes per element */
};

static const struct cu_type cu_types[CU_NTYPES] = {
    {"f32", "f32", "BC_F32", 0, 4}, {"tf32", "tf32", "BC_F32", 1, 4}, {"f16", "f16", "BC_F16", 0, 2},
    {"f16tc", "f16", "BC_F16", 1, 2}, {"bf16", "bf16", "BC_BF16", 1, 2}, {"f8", "f8", "BC_F8", 1, 1},
};

/* gen --types: whether type TI is written (all where the option was not given) */
static bool type_on(const struct emit_ctx *e, int ti)
{
    return !e->cuda_types || (e->cuda_types >> ti & 1u);
}

/* fp8: cuBLASLt's GEMMs only, with leading dims multiples of 16 */
static bool plan_f8(const struct cu_plan *p)
{
    /* its output in bfloat16: of a plan with that type (an f16 model's has not) */
    return (p->lt || p->family == CU_LT) && p->k % 16 == 0 && p->n % 16 == 0 && (p->types & (1u << CU_BF16)) &&
           !p->lda && !p->ldb && !p->ldc; /* not a GEMM on operands in place: fp8 takes TN alone */
}

/* gen --types for a layer whose benchmarks come in the types HAS (bits CU_*): type TI where
 * named, and where a named type that agg falls back to TI from (tf32 to f32, f16tc to f16, f8
 * to bf16) has none of them: a batch norm, with no Tensor Core form, counts in an f16tc bound
 * at its f16 time; our kernels (HAS 0) are written in their storage type for either */
static bool type_wanted(const struct emit_ctx *e, unsigned has, int ti)
{
    static const int falls[][2] = {{CU_TF32, CU_F32}, {CU_F16TC, CU_F16}, {CU_F8, CU_BF16}};
    if (type_on(e, ti))
        return true;
    for (size_t i = 0; i < BZ_ARRAY_LEN(falls); i++)
        if (falls[i][1] == ti && type_on(e, falls[i][0]) && !(has >> falls[i][0] & 1u))
            return true;
    return false;
}

static bool plan_type_on(const struct emit_ctx *e, const struct cu_plan *p, int ti)
{
    /* the calibration copy: bytes, of no type */
    return p->family == CU_COPY || type_wanted(e, p->types | (plan_f8(p) ? 1u << CU_F8 : 0u), ti);
}

/* a kernel of ours in storage type PL_DT */
static bool kernel_type_on(const struct emit_ctx *e, int pl_dt)
{
    return type_wanted(e, 0, pl_dt == PL_FLOAT16 ? CU_F16 : pl_dt == PL_BFLOAT16 ? CU_BF16 : CU_F32);
}

int emit_cuda_type_mask(const char *list, unsigned *mask)
{
    *mask = 0;
    const char *s = list;
    while (*s) {
        size_t n = strcspn(s, ",");
        int ti = 0;
        while (ti < CU_NTYPES && (strlen(cu_types[ti].stem) != n || strncmp(cu_types[ti].stem, s, n) != 0))
            ti++;
        if (ti == CU_NTYPES)
            return -1;
        *mask |= 1u << ti;
        s += n;
        if (*s == ',' && *++s == '\0')
            return -1;
    }
    return *mask ? 0 : -1;
}

/* ---- rendering ---- */

static void tensor_init(struct bz_buf *b, const char *field, const struct cu_tensor *t)
{
    if (t->nd)
        emit_c_array(b, ", ", field, true, t->d, t->nd, "");
}

static void ints_init(struct bz_buf *b, const char *field, const int *v, int n)
{
    int64_t w[8];
    for (int k = 0; k < n; k++)
        w[k] = v[k];
    emit_c_array(b, ", ", field, false, w, n, "");
}

static char *op_initializer(const struct cu_plan *p, const struct cu_type *t, const char *algo, const char *mode)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_printf(&b, "{\n    .family = %s, .dt = %s, .tensor_op = %d, .algo = %s", cu_family_name(p->family), t->bc,
                  t->tensor_op, algo);
    if (mode)
        bz_buf_printf(&b, ", .mode = %s", mode);
    struct bz_buf ts;
    bz_buf_init(&ts);
    tensor_init(&ts, "x", &p->x);
    tensor_init(&ts, "w", &p->w);
    tensor_init(&ts, "y", &p->y);
    tensor_init(&ts, "x2", &p->x2);
    if (ts.len)
        bz_buf_printf(&b, ",\n    %s", ts.data + 2);
    bz_buf_free(&ts);
    if (p->nsp) {
        bz_buf_printf(&b, ",\n    .nsp = %d", p->nsp);
        ints_init(&b, "pad", p->pad, p->nsp);
        ints_init(&b, "stride", p->stride, p->nsp);
        ints_init(&b, "dil", p->dil, p->nsp);
        if (p->family == CU_POOL)
            ints_init(&b, "win", p->win, p->nsp);
        if (p->groups > 1)
            bz_buf_printf(&b, ", .groups = %d", p->groups);
    }
    if (p->act)
        bz_buf_printf(&b, ", .act = %s, .residual = %d", p->act, p->residual);
    if (p->family == CU_LT)
        bz_buf_printf(&b, ", .epilogue = %s", p->epilogue ? p->epilogue : "CUBLASLT_EPILOGUE_DEFAULT");
    if (p->att) {
        const struct desc_attention *a = p->att;
        bz_buf_printf(&b, ",\n    .att = {.b = %lld, .h = %lld, .sq = %lld, .skv = %lld, .d = %lld, .dv = %lld",
                      (long long)a->b, (long long)a->h, (long long)a->sq, (long long)a->skv, (long long)a->d,
                      (long long)a->dv);
        if (a->rep > 1) /* grouped-query attention: K and V of h / rep heads */
            bz_buf_printf(&b, ", .rep = %lld", (long long)a->rep);
        static const char *const names[5] = {"q", "k", "v", "o", "m"};
        const int64_t *st[5] = {a->q, a->k, a->v, a->o, a->m};
        for (int n = 0; n < 5; n++)
            bz_buf_printf(&b, ",\n            .%s = {%lld, %lld, %lld, %lld}", names[n], (long long)st[n][0],
                          (long long)st[n][1], (long long)st[n][2], (long long)st[n][3]);
        bz_buf_printf(&b, ",\n            .q_elems = %lld, .k_elems = %lld, .v_elems = %lld, .m_elems = %lld, .mask = %d, "
                          ".scale = %.17g}",
                      (long long)a->q_elems, (long long)a->k_elems, (long long)a->v_elems, (long long)a->m_elems,
                      a->mask == ATT_MASK_ADD ? 1 : 0, a->scale);
    }
    if (p->nhwc)
        bz_buf_puts(&b, ", .nhwc = 1");
    if (p->engine_fused)
        bz_buf_puts(&b, ", .fused = 1");
    if (p->coef != 0 || p->alpha != 0 || p->beta != 0 || p->eps != 0)
        bz_buf_printf(&b, ",\n    .coef = %.9g, .alpha = %.9g, .beta = %.9g, .eps = %.9g", p->coef, p->alpha, p->beta,
                      p->eps);
    if (p->lrn_n)
        bz_buf_printf(&b, ", .lrn_n = %d", p->lrn_n);
    if (p->seq)
        bz_buf_printf(&b, ",\n    .bidir = %d, .seq = %d, .batch = %d, .input = %d, .hidden = %d", p->bidir, p->seq,
                      p->batch, p->input, p->hidden);
    if (p->m)
        bz_buf_printf(&b,
                      ",\n    .m = %lld, .n = %lld, .k = %lld, .batch_count = %lld, .stride_a = %lld, .stride_b = %lld, "
                      ".stride_c = %lld, .ta = %d, .tb = %d, .beta_one = %d",
                      (long long)p->m, (long long)p->n, (long long)p->k, (long long)p->batch_count,
                      (long long)p->stride_a, (long long)p->stride_b, (long long)p->stride_c, p->ta, p->tb, p->beta_one);
    if (p->lda || p->ldb || p->ldc || p->a_elems || p->b_elems || p->c_elems || p->gemm_alpha != 0)
        bz_buf_printf(&b,
                      ",\n    .lda = %lld, .ldb = %lld, .ldc = %lld, .a_elems = %lld, .b_elems = %lld, .c_elems = %lld, "
                      ".gemm_alpha = %.17g",
                      (long long)p->lda, (long long)p->ldb, (long long)p->ldc, (long long)p->a_elems,
                      (long long)p->b_elems, (long long)p->c_elems, p->gemm_alpha);
    bz_buf_puts(&b, ",\n}");
    return bz_buf_steal(&b);
}

static void render_lib(struct emit_ctx *e, int li, const struct cu_plan *p, int ti, enum cu_family family,
                       const char *algo_name, const char *algo_value, const char *mode)
{
    const struct layer *l = &e->p->layers.v[li];
    const struct cu_type *t = &cu_types[ti];
    struct cu_plan q = *p;
    q.family = family;
    struct bz_buf file, title, key, what, dtc;
    bz_buf_init(&file);
    bz_buf_init(&title);
    bz_buf_init(&key);
    bz_buf_init(&what);
    bz_buf_init(&dtc);
    bz_buf_printf(&file, "%s-%s-%s", l->id, t->stem, algo_name);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    if (family == CU_ADVICE)
        bz_buf_printf(&what, "%s", strcmp(algo_name, "heuristic") ? "cudnnFindConvolutionForwardAlgorithmEx's measured ranking of the forward algorithms"
                                                                  : "cudnnGetConvolutionForwardAlgorithm_v7's heuristic ranking of the forward algorithms");
    else if (family == CU_GEMV)
        bz_buf_puts(&what, "cublasSgemv");
    else if (family == CU_ENGINE)
        bz_buf_printf(&what, "cuDNN's backend (graph) API%s%s%s, the engine configuration its heuristic (%s) ranks %s, "
                             "%s tensors", p->engine_fused ? ", the graph conv -> + bias" : "",
                      p->engine_fused && p->residual ? " -> + residual" : "",
                      !p->engine_fused || !p->act                          ? ""
                      : !strcmp(p->act, "CUDNN_ACTIVATION_RELU")           ? " -> relu"
                      : !strcmp(p->act, "CUDNN_ACTIVATION_SWISH")          ? " -> swish (SiLU, x sigmoid(x))"
                      : !strcmp(p->act, "CUDNN_ACTIVATION_SIGMOID")        ? " -> sigmoid"
                      : !strcmp(p->act, "CUDNN_ACTIVATION_TANH")           ? " -> tanh"
                      : !strcmp(p->act, "CUDNN_ACTIVATION_CLIPPED_RELU")   ? " -> relu clipped at coef (a Clip from 0)"
                                                                           : "",
                      mode, algo_value, p->nhwc ? "channels-last" : "NCHW");
    else if (family == CU_SDPA)
        bz_buf_printf(&what, "cuDNN's fused attention through the backend (graph) API, the engine configuration its "
                             "heuristic (%s) ranks %s", mode, algo_value);
    else if (family == CU_LT)
        bz_buf_printf(&what, "cublasLtMatmul%s%s%s, the algorithm cublasLtMatmulAlgoGetHeuristic ranks %s",
                      p->epilogue ? " with " : "", p->epilogue ? p->epilogue : "", p->tb ? ", B stored [n, k]" : "",
                      algo_value);
    else
        bz_buf_printf(&what, "%s, algorithm %s%s", p->what, algo_value,
                      p->nhwc ? ", channels-last (NHWC) tensors" : "");
    bz_buf_printf(&dtc, "%s, %s", t->dtype,
                  t->tensor_op ? (ti == CU_TF32 ? "TF32 Tensor Core math" : "Tensor Core math allowed")
                               : "no Tensor Cores");
    char *init = op_initializer(&q, t, algo_value, mode);
    json_t *notes = json_array();
    for (int i = 0; i < p->nnotes; i++) {
        struct bz_buf s;
        bz_buf_init(&s);
        emit_comment_text(&s, p->notes[i]);
        json_array_append_new(notes, json_string(s.data));
        bz_buf_free(&s);
    }
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", p->flops);
    double nbytes = p->elems * t->size;
    if (ti == CU_F8) { /* elems counts A, B, the output and a bias: the last two in bfloat16 */
        double batches = p->batch_count > 1 ? (double)p->batch_count : 1, out = (double)p->m * (double)p->n * batches;
        nbytes += out + (p->epilogue && strstr(p->epilogue, "BIAS") ? (double)p->n : 0);
    }
    snprintf(bytes, sizeof(bytes), "%.17g", nbytes);
    struct bz_buf layer_macro;
    bz_buf_init(&layer_macro);
    /* the family as a constant, and the runtime's code for the others left out (cudnn_ops.h) */
    emit_cuda_defines(&layer_macro, (int)q.family);
    emit_macro(&layer_macro, "BZ_OP", init);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:s,s:O,s:O}", "title",
                             title.data, "layer", l->id, "layer_name", l->name, "op", l->op, "impl", algo_name, "what",
                             what.data, "dtype", t->dtype, "dtype_comment", dtc.data, "file", file.data, "key_comment",
                             key.data, "uses", emit_uses(e, li), "notes", notes, "layer_macro", layer_macro.data,
                             "flops", flops, "bytes", bytes, "harness", emit_embedded_json("runtime/harness.h"), "cuda_bench",
                             emit_embedded_json("runtime/cuda_bench.h"));
    emit_cuda_runtime(data, (int)q.family);
    bz_buf_free(&layer_macro);
    emit_bench(e, l, file.data, ".c", "templates/cuda/lib.c.mustache", "cc_cuda", data);
    free(init);
    bz_buf_free(&file);
    bz_buf_free(&title);
    bz_buf_free(&key);
    bz_buf_free(&what);
    bz_buf_free(&dtc);
}

/* A heuristic's first --top-k answers (cuBLASLt's: --lt-top-k), one file each: PREFIX followed
 * by the rank */
static void render_ranks(struct emit_ctx *e, int li, const struct cu_plan *p, int ti, enum cu_family family,
                         const char *prefix, const char *mode)
{
    int n = family == CU_LT ? e->lt_top_k : e->top_k;
    for (int k = 0; k < n; k++) {
        char name[48], value[16];
        snprintf(name, sizeof(name), "%s%d", prefix, k);
        snprintf(value, sizeof(value), "%d", k);
        render_lib(e, li, p, ti, family, name, value, mode);
    }
}

static void render_plan(struct emit_ctx *e, int li, const struct cu_plan *p)
{
    for (int ti = 0; ti < CU_NTYPES; ti++) {
        if (!plan_type_on(e, p, ti))
            continue;
        if (ti == CU_F8) {
            /* fp8: cuBLASLt only, TN (A as [m, k], B as [n, k], as fp8 frameworks keep the
             * weights), leading dims multiples of 16 */
            if (plan_f8(p)) {
                struct cu_plan f8 = *p;
                f8.ta = 0;
                f8.tb = 1;
                plan_cu_note(&f8, "fp8 e4m3 operands, A as [m, k] and B as [n, k] (the layout cuBLASLt's fp8 GEMMs take), "
                                  "the output in bfloat16");
                render_ranks(e, li, &f8, ti, CU_LT, "lt", NULL);
            }
            continue;
        }
        if (!(p->types & (1u << ti)))
            continue;
        for (int a = 0; a < p->nalgos; a++) {
            if (p->algos[a].types && !(p->algos[a].types & (1u << ti)))
                continue;
            if (e->gemm_default_only && p->family == CU_GEMM && strncmp(p->algos[a].name, "default", 7) != 0)
                continue;
            const char *mode = p->mode;
            render_lib(e, li, p, ti, p->family, p->algos[a].name, p->algos[a].value, mode);
        }
        if (p->advice) {
            render_lib(e, li, p, ti, CU_ADVICE, "heuristic", "0", "0");
            render_lib(e, li, p, ti, CU_ADVICE, "find", "0", "1");
        }
        if (p->gemv && ti == CU_F32)
            render_lib(e, li, p, ti, CU_GEMV, "gemv", "0", NULL);
        /* channels-last: a convolution's implicit GEMM algorithms, a ConvTranspose's algorithms
         * 0 and 1 (cuDNN's FFT and Winograd take NCHW only), the others' all */
        if (p->nhwc_types & (1u << ti)) {
            struct cu_plan cl = *p;
            cl.nhwc = true;
            bool conv = p->family == CU_CONV || p->family == CU_CONV_FUSED;
            for (int a = 0; a < p->nalgos; a++) {
                if (conv && strncmp(p->algos[a].name, "implicit_", 9) != 0)
                    continue;
                if (p->family == CU_DECONV && strcmp(p->algos[a].name, "algo0") && strcmp(p->algos[a].name, "algo1"))
                    continue;
                if (p->algos[a].types && !(p->algos[a].types & (1u << ti)))
                    continue;
                char name[48];
                snprintf(name, sizeof(name), "nhwc_%s", p->algos[a].name);
                render_lib(e, li, &cl, ti, p->family, name, p->algos[a].value, p->mode);
            }
        }
        /* the backend API's engine configurations: each heuristic mode's first --top-k, in each
         * layout the type has (NCHW files heurA_k, channels-last nhwc_heurA_k) */
        if (p->engines) {
            static const char *const modes[3][3] = {{"heurA_", "nhwc_heurA_", "CUDNN_HEUR_MODE_A"},
                                                    {"heurB_", "nhwc_heurB_", "CUDNN_HEUR_MODE_B"},
                                                    {"fallback_", "nhwc_fallback_", "CUDNN_HEUR_MODE_FALLBACK"}};
            for (int nhwc = 0; nhwc < 2; nhwc++) {
                if (nhwc && !(p->nhwc_types & (1u << ti)))
                    continue;
                struct cu_plan en = *p;
                en.nhwc = nhwc;
                en.engine_fused = p->family == CU_CONV_FUSED;
                for (int m = 0; m < 3; m++)
                    if (e->heur_modes >> m & 1u)
                        render_ranks(e, li, &en, ti, CU_ENGINE, modes[m][nhwc], modes[m][2]);
            }
        }
        /* cuDNN's fused attention: heuristic mode A's first --top-k configurations */
        if (p->family == CU_SDPA)
            render_ranks(e, li, p, ti, CU_SDPA, "sdpa_heurA_", "CUDNN_HEUR_MODE_A");
        if ((p->lt || p->family == CU_LT) && (CU_LT_TYPES & (1u << ti))) {
            render_ranks(e, li, p, ti, CU_LT, "lt", NULL);
            /* a constant B also stored [n, k]: the same GEMM with the weight prepacked */
            if (p->b_const && !p->tb) {
                struct cu_plan nk = *p;
                nk.tb = 1;
                plan_cu_note(&nk, "B, a constant, stored as [n, k] (K-major): the layout frameworks keep a linear "
                                  "layer's weight in");
                render_ranks(e, li, &nk, ti, CU_LT, "ltnk", NULL);
            }
        }
    }
}

/* ---- kernels of ours ---- */

/* The bk_op's fields as the statements of the macro BZ_DESCRIBE(op) (enum names and numbers) */
static char *kernel_describe(const struct cu_kernel *k)
{
    static const char *const kernel_kinds[] = {"BK_PLAIN", "BK_TRANSPOSE", "BK_CONCAT",   "BK_LAYERNORM",
                                               "BK_RESIZE", "BK_EMPTY",     "BK_ATTENTION", "BK_BATCHNORM"};
    static const char *const maps[] = {"PL_MAP_SLICE", "PL_MAP_PAD", "PL_MAP_TILE"};
    const struct pl_op *pl = &k->pl;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_printf(&b, "do {\n    (op)->kind = %s;\n", kernel_kinds[k->kind]);
    if (k->kind == CK_PLAIN)
        bz_buf_printf(&b, "    (op)->pl.kind = %s;\n    (op)->pl.fn = %s;\n    (op)->pl.nin = %d;\n",
                      plan_pl_kind_name(pl->kind), plan_pl_fn_name(pl->fn), pl->nin);
    for (int i = 0; i < pl->nin || (i == 0 && pl->in[0].nd); i++) {
        bz_buf_printf(&b, "    (op)->pl.in[%d] = (struct pl_tensor)", i);
        plan_pl_tensor_init(&b, &pl->in[i]);
        bz_buf_puts(&b, ";\n");
    }
    bz_buf_puts(&b, "    (op)->pl.out = (struct pl_tensor)");
    plan_pl_tensor_init(&b, &pl->out);
    bz_buf_puts(&b, ";\n");
    if (pl->axis)
        bz_buf_printf(&b, "    (op)->pl.axis = %d;\n", pl->axis);
    if (pl->alpha != 0 || pl->beta != 0)
        bz_buf_printf(&b, "    (op)->pl.alpha = %.9ef;\n    (op)->pl.beta = %.9ef;\n", pl->alpha, pl->beta);
    if (pl->flag)
        bz_buf_printf(&b, "    (op)->pl.flag = %d;\n", pl->flag);
    if (pl->kind == PL_MAP) {
        bz_buf_printf(&b, "    (op)->pl.map = %s;\n", maps[pl->map]);
        for (int d = 0; d < pl->out.nd; d++)
            bz_buf_printf(&b, "    (op)->pl.start[%d] = %lld;\n    (op)->pl.step[%d] = %lld;\n", d,
                          (long long)pl->start[d], d, (long long)pl->step[d]);
    }
    if (pl->kind == PL_SPLIT) {
        bz_buf_printf(&b, "    (op)->pl.nsplit = %d;\n", pl->nsplit);
        for (int j = 0; j < pl->nsplit; j++)
            bz_buf_printf(&b, "    (op)->pl.split[%d] = %lld;\n", j, (long long)pl->split[j]);
    }
    if (k->kind == CK_TRANSPOSE)
        for (int d = 0; d < pl->out.nd; d++)
            bz_buf_printf(&b, "    (op)->perm[%d] = %d;\n", d, k->perm[d]);
    if (k->kind == CK_CONCAT) {
        bz_buf_printf(&b, "    (op)->axis = %d;\n    (op)->ncat = %d;\n", k->axis, k->ncat);
        for (int i = 0; i < k->ncat; i++) {
            bz_buf_printf(&b, "    (op)->cat[%d] = (struct pl_tensor)", i);
            plan_pl_tensor_init(&b, &k->cat[i]);
            bz_buf_puts(&b, ";\n");
        }
    }
    if (k->kind == CK_RESIZE) {
        bz_buf_printf(&b, "    (op)->linear = %d;\n    (op)->pl.rs.coord = %s;\n    (op)->pl.rs.nearest = %s;\n", k->linear,
                      plan_pl_coord_name(pl->rs.coord), plan_pl_nearest_name(pl->rs.nearest));
        for (int d = 0; d < pl->out.nd; d++)
            bz_buf_printf(&b, "    (op)->pl.rs.scale[%d] = %.17g;\n", d, pl->rs.scale[d]);
    }
    if (k->nhwc)
        bz_buf_puts(&b, "    (op)->nhwc = 1;\n");
    if (k->kind == CK_LAYERNORM)
        bz_buf_printf(&b, "    (op)->eps = %.9ef;\n    (op)->affine = %d;\n", k->eps, k->affine);
    if (k->kind == CK_BATCHNORM)
        bz_buf_printf(&b, "    (op)->eps = %.9ef;\n", k->eps);
    if (k->kind == CK_LAYERNORM && k->residual)
        bz_buf_printf(&b, "    (op)->residual = %d;\n", k->residual);
    if (k->kind == CK_LAYERNORM && k->keep_sum)
        bz_buf_puts(&b, "    (op)->keep_sum = 1;\n");
    if (k->kind == CK_LAYERNORM && k->rms)
        bz_buf_puts(&b, "    (op)->rms = 1;\n");
    if (k->kind == CK_ATTENTION) {
        const struct desc_attention *a = k->att;
        static const char *const names[5] = {"aq", "ak", "av", "ao", "am"};
        const int64_t *st[5] = {a->q, a->k, a->v, a->o, a->m};
        bz_buf_printf(&b, "    (op)->ab = %lld;\n    (op)->ah = %lld;\n    (op)->asq = %lld;\n    (op)->askv = %lld;\n"
                          "    (op)->ad = %lld;\n    (op)->adv = %lld;\n",
                      (long long)a->b, (long long)a->h, (long long)a->sq, (long long)a->skv, (long long)a->d,
                      (long long)a->dv);
        for (int t = 0; t < 5; t++)
            for (int d = 0; d < 4; d++)
                bz_buf_printf(&b, "    (op)->%s[%d] = %lld;\n", names[t], d, (long long)st[t][d]);
        char fill[40];
        if (isfinite(a->fill))
            snprintf(fill, sizeof(fill), "%.9ef", a->fill);
        else
            snprintf(fill, sizeof(fill), "%s", a->fill != a->fill ? "NAN" : a->fill > 0 ? "INFINITY" : "-INFINITY");
        bz_buf_printf(&b, "    (op)->aq_elems = %lld;\n    (op)->ak_elems = %lld;\n    (op)->av_elems = %lld;\n"
                          "    (op)->am_elems = %lld;\n    (op)->amask = %d;\n    (op)->afill_when = %d;\n"
                          "    (op)->ascale = %.9ef;\n    (op)->afill = %s;\n",
                      (long long)a->q_elems, (long long)a->k_elems, (long long)a->v_elems, (long long)a->m_elems,
                      (int)a->mask, a->fill_when, a->scale, fill);
        if (a->rep > 1)
            bz_buf_printf(&b, "    (op)->arep = %lld;\n", (long long)a->rep);
        if (k->tf32)
            bz_buf_puts(&b, "    (op)->tf32 = 1;\n");
        if (k->split)
            bz_buf_puts(&b, "    (op)->asplit = 1;\n");
    }
    bz_buf_puts(&b, "} while (0)");
    return bz_buf_steal(&b);
}

static void render_kernel(struct emit_ctx *e, int li, const struct cu_kernel *k)
{
    const struct layer *l = &e->p->layers.v[li];
    const char *dtype = k->tf32 ? "tf32" : layer_dtype_suffix(k->pl.out.dtype == PL_FLOAT ? 1 : k->pl.out.dtype);
    struct bz_buf file, title, key, what;
    bz_buf_init(&file);
    bz_buf_init(&title);
    bz_buf_init(&key);
    bz_buf_init(&what);
    const char *impl = k->nhwc ? "nhwc_kernel" : k->split ? "kernel_split" : "kernel";
    bz_buf_printf(&file, "%s-%s-%s", l->id, dtype, impl);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    emit_comment_text(&what, k->what);
    if (k->nhwc)
        bz_buf_puts(&what, ", input and output channels-last (NHWC)");
    if (k->split)
        bz_buf_puts(&what, ", 16 queries a block and each key tile split across its warps (bk_attention_split)");
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", k->flops);
    snprintf(bytes, sizeof(bytes), "%.17g", k->bytes);
    static const char *const kinds[] = {"element-wise (bk_elementwise, bk_flat4, bk_gather or bk_split)", "transpose (bk_transpose)",
                                        "concat (bk_concat)", "LayerNorm (bk_layernorm)", "resize (bk_resize)",
                                        "empty (bk_empty: the launch floor)",
                                        "flash attention (bk_attention_tc, bk_attention_rows or bk_attention_split)",
                                        "batch norm (bk_batchnorm)"};
    char *describe = kernel_describe(k);
    struct bz_buf layer_macro;
    bz_buf_init(&layer_macro);
    emit_macro(&layer_macro, "BZ_DESCRIBE(op)", describe);
    free(describe);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:O,s:O,s:O}", "title",
                             title.data, "layer", l->id, "layer_name", l->name, "op", l->op, "impl", impl, "what",
                             what.data, "dtype", dtype, "file", file.data, "key_comment", key.data, "uses", emit_uses(e, li),
                             "layer_macro", layer_macro.data, "kernel_kind", kinds[k->kind], "flops", flops, "bytes",
                             bytes, "harness", emit_embedded_json("runtime/harness.h"), "cuda_bench",
                             emit_embedded_json("runtime/cuda_bench.h"), "cuda_kernels", emit_embedded_json("runtime/cuda_kernels.cuh"));
    bz_buf_free(&layer_macro);
    /* the one kernel kind (and type of the templated ones) nvcc is to compile, and an
     * element-wise kernel's one function */
    int odt = k->pl.out.dtype;
    bool fn = k->kind == CK_PLAIN && (k->pl.kind == PL_UNARY || k->pl.kind == PL_BINARY);
    char select[400];
    snprintf(select, sizeof(select),
             "/* the kernel this benchmark launches (runtime/cuda_kernels.cuh): the others are left out */\n"
             "#define BK_KINDS 0x%02xu\n#define BK_TYPES 0x%xu%s%s%s",
             1u << k->kind, k->tf32 ? 8u : odt == PL_FLOAT16 ? 2u : odt == PL_BFLOAT16 ? 4u : 1u,
             k->kind != CK_ATTENTION ? "" : k->split ? "\n#define BK_ATTS 0x2u" : "\n#define BK_ATTS 0x1u",
             fn ? "\n#define BK_FN " : "", fn ? plan_pl_fn_name(k->pl.fn) : "");
    if (data) {
        emit_plain_headers(data, pl_family(k->pl.kind), k->kind == CK_PLAIN ? (int)k->pl.kind : -1, true);
        json_object_set_new(data, "kernel_select", json_string(select));
    }
    emit_bench(e, l, file.data, ".cu", "templates/cuda/kernel.cu.mustache", "nvcc", data);
    bz_buf_free(&file);
    bz_buf_free(&title);
    bz_buf_free(&key);
    bz_buf_free(&what);
}

/* A kernel of ours for the layer: its operator's own (Transpose, Concat, Resize, LayerNorm, the
 * fused GELU and LayerNorm), else its plain C operation where the kernels have it (the
 * element-wise kinds, Gather, Slice/Pad/Tile, Split, ScatterND (a reduction only in f32); not
 * a fold of three inputs, nor Mean) */
static int plan_kernel(const struct layer_desc *d, const struct op_plans *h, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (h->kernel)
        return h->kernel(d, k);
    if (!h->plain || h->plain(d, &k->pl))
        return -1;
    bool nary = k->pl.kind == PL_BINARY && (k->pl.nin != 2 || (k->pl.flag && k->pl.fn == PL_ADD));
    bool scatter = k->pl.kind == PL_SCATTER_ND && (!k->pl.flag || k->pl.out.dtype == PL_FLOAT);
    /* PL_SPLIT's other way (a plain C Concat: flag 1) is not our Split kernel's */
    if ((k->pl.kind > PL_MAP && k->pl.kind != PL_SPLIT && !scatter) || nary || (k->pl.kind == PL_SPLIT && k->pl.flag))
        return -1;
    k->kind = CK_PLAIN;
    k->what = d->op;
    plan_ck_finish(k);
    return 0;
}

/* Kernel K in the 16-bit float type DT as well: its f32 tensors (inputs, output, Concat's
 * pieces; LayerNorm's scale, shift and bias rows follow the output) retyped, its bytes those
 * of the new types. Element-wise kernels, LayerNorm, Transpose and Concat whose output is f32,
 * but not a Cast (its types are the point) nor a ScatterND's reduction (f32 atomics). False
 * where K has no such form. */
static bool kernel_retype(struct cu_kernel *k, int dt)
{
    bool kind = k->kind == CK_PLAIN || k->kind == CK_LAYERNORM || k->kind == CK_TRANSPOSE || k->kind == CK_CONCAT;
    if (!kind || k->pl.out.dtype != PL_FLOAT || (k->kind == CK_PLAIN && k->pl.kind == PL_CAST) ||
        (k->kind == CK_PLAIN && k->pl.kind == PL_SCATTER_ND && k->pl.flag))
        return false;
    for (int i = 0; i < k->pl.nin || (i == 0 && k->pl.in[0].nd); i++)
        if (k->pl.in[i].dtype == PL_FLOAT)
            k->pl.in[i].dtype = dt;
    for (int i = 0; i < k->ncat; i++)
        k->cat[i].dtype = dt;
    k->pl.out.dtype = dt;
    if (k->kind == CK_PLAIN)
        plan_ck_finish(k); /* the index and condition inputs keep their bytes */
    else
        k->bytes *= (double)pl_esize(dt) / 4.0;
    return true;
}

/* a layer's benchmarks: cuDNN's or cuBLAS's plan in each algorithm, a kernel of ours where no
 * library call does the layer (or beside it, where the hooks ask) */
static void cuda_layer(struct emit_ctx *e, int li, void *unused)
{
    (void)unused;
    const struct layer *l = &e->p->layers.v[li];
    const struct layer_desc *d = l->desc;
    const struct op_plans *h = plan_hooks(d);
    struct cu_plan plan;
    struct cu_kernel kern;
    if (l->calib) { /* gen --calibrate */
        if (calib_cuda(l, &plan) == 0)
            render_plan(e, li, &plan);
        else if (calib_kernel(l, &kern) == 0)
            render_kernel(e, li, &kern);
        return;
    }
    memset(&plan, 0, sizeof(plan));
    /* the libraries' plans describe an f32 layer in every type: a layer of an f16 or bf16 model
     * (desc_float_type: every tensor of a node, every float one of a group, in that type) is
     * planned as its f32 form and written in the types of
     * its storage (f16: f16 and f16tc; bf16: bf16, and fp8 with its bf16 output), as a
     * framework runs the model in that type */
    int ft = desc_float_type(d);
    unsigned storage = ft == IR_DTYPE_FLOAT16    ? (1u << CU_F16) | (1u << CU_F16TC)
                       : ft == IR_DTYPE_BFLOAT16 ? 1u << CU_BF16
                                                 : 0u;
    int storage_pl = ft == IR_DTYPE_FLOAT16 ? PL_FLOAT16 : ft == IR_DTYPE_BFLOAT16 ? PL_BFLOAT16 : 0;
    struct bz_arena view;
    bz_arena_init(&view);
    const struct layer_desc *as_f32 = storage ? desc_retyped(&view, d, IR_DTYPE_FLOAT) : NULL;
    int ok = -1;
    if (h && h->cudnn && storage)
        ok = h->cudnn(as_f32, &plan);
    else if (h && h->cudnn && plan_layer_dtype(d) == IR_DTYPE_FLOAT)
        ok = h->cudnn(d, &plan);
    if (ok == 0 && storage) {
        plan.types &= storage;
        plan.nhwc_types &= storage;
        if (!plan.types)
            ok = -1; /* no form in the model's type (cuDNN's RNN has no bf16) */
    }
    if (ok == 0 && storage && e->cuda_types && !(e->cuda_types & plan.types)) {
        /* --types names none of the model's types: the layer in them all, as a kernel of ours
         * is written in its layer's own type whatever the list */
        unsigned named = e->cuda_types;
        e->cuda_types |= plan.types;
        render_plan(e, li, &plan);
        e->cuda_types = named;
    } else if (ok == 0) {
        render_plan(e, li, &plan);
    }
    /* a kernel of ours: where no library call does the layer, and beside cuDNN's where the
     * hooks ask (binary ops: cuDNN accepts fewer broadcasts) */
    bool want = ok != 0 || (h && (h->flags & PLAN_KERNEL_TOO));
    /* a layer of a 16-bit model that our kernel takes in f32 only: its f32 form retyped to
     * the model's type, that type alone */
    bool planned = want && h && plan_kernel(d, h, &kern) == 0, retyped = false;
    if (want && h && !planned && storage_pl && plan_kernel(as_f32, h, &kern) == 0 && kernel_retype(&kern, storage_pl))
        planned = retyped = true;
    if (planned && (kern.kind == CK_ATTENTION || kern.kind == CK_RESIZE || kern.kind == CK_BATCHNORM)) {
        /* f32 (CUDA cores) and the two 16-bit types (Tensor Cores for attention): the bytes
         * at each; a Resize or a batch norm of a 4-D activation channels-last too, for an NHWC
         * plan (a batch norm's parameter rows stay f32, as cuDNN takes them); and an
         * attention's tf32 file (f32 data on TF32 Tensor Cores, bk_attention_tc<float>) for the
         * head sizes that kernel takes (multiples of 16 up to 128) */
        static const struct {
            int dtype, tf32;
        } types[] = {{PL_FLOAT, 0}, {PL_FLOAT16, 0}, {PL_BFLOAT16, 0}, {PL_FLOAT, 1}};
        const struct desc_attention *a = kern.att;
        /* the head sizes the Tensor Core and split attention kernels take */
        bool tc_heads = kern.kind == CK_ATTENTION && a->d % 16 == 0 && a->dv % 16 == 0 && a->d <= 128 && a->dv <= 128;
        for (size_t t = 0; t < BZ_ARRAY_LEN(types); t++) {
            bool on = !types[t].tf32 ? kernel_type_on(e, types[t].dtype) : tc_heads && type_on(e, CU_TF32);
            if (storage_pl) /* a 16-bit model's layer: in its own type, whatever the list */
                on = !types[t].tf32 && types[t].dtype == storage_pl;
            if (!on)
                continue;
            double es = (double)pl_esize(types[t].dtype);
            kern.pl.out.dtype = types[t].dtype;
            kern.tf32 = types[t].tf32;
            if (kern.kind == CK_RESIZE || kern.kind == CK_BATCHNORM) {
                kern.pl.in[0].dtype = types[t].dtype;
                kern.bytes = es * (double)(pl_count(&kern.pl.in[0]) + pl_count(&kern.pl.out)) +
                             (kern.kind == CK_BATCHNORM ? 16.0 * (double)kern.pl.out.d[1] : 0.0);
                kern.nhwc = 0;
                render_kernel(e, li, &kern);
                kern.nhwc = kern.pl.out.nd == 4;
                if (kern.nhwc)
                    render_kernel(e, li, &kern);
                continue;
            }
            kern.bytes = es * (double)(a->q_elems + a->k_elems + a->v_elems + pl_count(&kern.pl.out)) +
                         (double)a->m_elems * (a->mask == ATT_MASK_SELECT ? 1.0 : es);
            kern.split = 0;
            render_kernel(e, li, &kern);
            /* and bk_attention_split beside it, for the head sizes it takes */
            kern.split = tc_heads;
            if (kern.split)
                render_kernel(e, li, &kern);
        }
    } else if (planned) {
        /* in the layer's own types, and where those are f32, in f16 and bf16 as well: a model
         * run in a 16-bit type stores these tensors in it */
        render_kernel(e, li, &kern);
        static const int halves[] = {PL_FLOAT16, PL_BFLOAT16};
        for (size_t t = 0; t < BZ_ARRAY_LEN(halves) && !retyped; t++) {
            struct cu_kernel k16 = kern;
            if (kernel_type_on(e, halves[t]) && kernel_retype(&k16, halves[t]))
                render_kernel(e, li, &k16);
        }
    }
    else if (ok != 0 && !l->fused) /* a group's members are benchmarked one by one */
        emit_skip(e, l->op);
    bz_arena_free(&view);
}

void emit_cuda(struct emit_ctx *e)
{
    emit_each_layer(e, cuda_layer, NULL);
}

const char *emit_cuda_home(void)
{
    const char *h = getenv("CUDA_HOME");
    return h && *h ? h : "/usr/local/cuda";
}

bool emit_cuda_found(void)
{
    struct bz_buf p;
    bz_buf_init(&p);
    bz_buf_printf(&p, "%s/include/cuda_runtime_api.h", emit_cuda_home());
    bool found = access(p.data, R_OK) == 0;
    bz_buf_free(&p);
    return found;
}

int emit_cuda_arch_flags(const char *archs, struct bz_buf *b)
{
    int newest = 0, n = 0;
    const char *s = archs;
    while (*s) {
        char *end;
        if (strncmp(s, "sm_", 3) != 0)
            return -1;
        long v = strtol(s + 3, &end, 10);
        if (end == s + 3 || v < 10 || v > 1000 || (*end && *end != ',' && !(*end >= 'a' && *end <= 'z')))
            return -1;
        while (*end >= 'a' && *end <= 'z') /* sm_90a */
            end++;
        if (*end && *end != ',')
            return -1;
        if (b)
            bz_buf_printf(b, "%s-gencode arch=compute_%.*s,code=sm_%.*s", n ? " " : "", (int)(end - s - 3), s + 3,
                          (int)(end - s - 3), s + 3);
        if (v > newest)
            newest = (int)v;
        n++;
        s = *end ? end + 1 : end;
    }
    if (!n)
        return -1;
    if (b)
        bz_buf_printf(b, " -gencode arch=compute_%d,code=compute_%d", newest, newest);
    return 0;
}
