/* The CPU backend: each layer's plans (its operator's hooks, generator/ops/) rendered as
 * benchmarks: a oneDNN operation (runtime/dnnl_ops.h) once per implementation oneDNN offers for
 * it here (the primitive-descriptor iterator) and per data type, or plain C
 * (runtime/plain_*.h) where oneDNN has nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "calib.h"
#include "plan.h"
#include "re2posix.h"

/* bytes as a C string literal */
static void put_c_string(struct bz_buf *b, const char *s, size_t len)
{
    bz_buf_putc(b, '"');
    emit_escape_c(b, s ? s : "", s ? len : 0);
    bz_buf_putc(b, '"');
}

/* a list of strings as a C compound literal of string literals */
static void put_c_strings(struct bz_buf *b, const struct desc_strs *words)
{
    for (int w = 0; w < words->n; w++) {
        bz_buf_puts(b, w ? ",\n        " : "(const char *const[]){\n        ");
        put_c_string(b, words->v[w], words->len[w]);
    }
    bz_buf_puts(b, "}");
}

/* whether an input of OP is a single value (PLAN_PLAIN_SCALAR) */
static bool plain_has_scalar(const struct pl_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (pl_count(&op->in[i]) == 1)
            return true;
    return false;
}

static void render_plain(struct emit_ctx *e, int li, const struct pl_op *op)
{
    const struct layer *l = &e->p->layers.v[li];
    struct bz_buf file, title, key, init;
    bz_buf_init(&file);
    bz_buf_init(&title);
    bz_buf_init(&key);
    bz_buf_init(&init);
    const char *dt = layer_dtype_suffix(op->out.dtype);
    bz_buf_printf(&file, "%s-%s-c_plain", l->id, dt);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    bz_buf_printf(&init, "{\n    .kind = %s,\n    .fn = %s,\n    .nin = %d,\n    .in = {", plan_pl_kind_name(op->kind),
                  plan_pl_fn_name(op->fn), op->nin);
    for (int i = 0; i < op->nin; i++) {
        bz_buf_puts(&init, i ? ", " : "");
        plan_pl_tensor_init(&init, &op->in[i]);
    }
    bz_buf_puts(&init, "},\n    .out = ");
    plan_pl_tensor_init(&init, &op->out);
    static const char *const maps[] = {"PL_MAP_SLICE", "PL_MAP_PAD", "PL_MAP_TILE"};
    bz_buf_printf(&init, ",\n    .axis = %d,\n    .alpha = %.9ef,\n    .beta = %.9ef,\n    .map = %s,\n", op->axis,
                  op->alpha, op->beta, maps[op->map]);
    bz_buf_puts(&init, "    .start = {");
    for (int k = 0; k < op->out.nd; k++)
        bz_buf_printf(&init, "%s%lld", k ? ", " : "", (long long)op->start[k]);
    bz_buf_puts(&init, "},\n    .step = {");
    for (int k = 0; k < op->out.nd; k++)
        bz_buf_printf(&init, "%s%lld", k ? ", " : "", (long long)op->step[k]);
    bz_buf_puts(&init, "},\n");
    if (op->k || op->flag)
        bz_buf_printf(&init, "    .k = %lld,\n    .flag = %d,\n", (long long)op->k, op->flag);
    if (op->axes)
        bz_buf_printf(&init, "    .axes = 0x%xu,\n", op->axes);
    if (pl_kind_sample(op->kind)) {
        const struct pl_sample *rs = &op->rs;
        static const char *const modes[] = {"PL_SAMPLE_NEAREST", "PL_SAMPLE_LINEAR", "PL_SAMPLE_CUBIC"};
        static const char *const pads[] = {"PL_PAD_ZEROS", "PL_PAD_BORDER", "PL_PAD_REFLECTION"};
        bool resize = op->kind == PL_RESIZE;
        char coord[16];
        snprintf(coord, sizeof(coord), "%d", rs->coord); /* GridSample: align_corners */
        bz_buf_printf(&init, "    .rs = {.mode = %s, .coord = %s, .nearest = %s, .exclude_outside = %d, .antialias = %d,\n",
                      modes[rs->mode], resize ? plan_pl_coord_name(rs->coord) : coord,
                      resize ? plan_pl_nearest_name(rs->nearest) : pads[rs->nearest],
                      rs->exclude_outside, rs->antialias);
        bz_buf_printf(&init, "           .cubic_a = %.17g, .extrapolation = %.17g,\n           .scale = {", rs->cubic_a,
                      rs->extrapolation);
        for (int k = 0; k < op->out.nd; k++)
            bz_buf_printf(&init, "%s%.17g", k ? ", " : "", rs->scale[k]);
        bz_buf_puts(&init, "},\n           .roi = {");
        for (int k = 0; k < 2 * op->out.nd; k++)
            bz_buf_printf(&init, "%s%.17g", k ? ", " : "", rs->roi[k]);
        bz_buf_puts(&init, "}},\n");
    }
    if (op->kind == PL_EINSUM) {
        const struct pl_einsum *es = &op->es;
        bz_buf_printf(&init, "    .es = {.nlab = %d, .nout = %d,\n           .size = {", es->nlab, es->nout);
        for (int j = 0; j < es->nlab; j++)
            bz_buf_printf(&init, "%s%lld", j ? ", " : "", (long long)es->size[j]);
        bz_buf_puts(&init, "},\n           .lab = {");
        for (int i = 0; i <= PL_MAX_IN; i++) {
            const struct pl_tensor *t = i < op->nin ? &op->in[i] : i == PL_MAX_IN ? &op->out : NULL;
            bz_buf_printf(&init, "%s{", i ? ", " : "");
            for (int k = 0; t && k < t->nd; k++)
                bz_buf_printf(&init, "%s%d", k ? ", " : "", es->lab[i][k]);
            bz_buf_puts(&init, "}");
        }
        bz_buf_puts(&init, "}},\n");
    }
    if (pl_kind_signal(op->kind)) {
        const struct pl_sg *sg = &op->sg;
        bz_buf_printf(&init, "    .sg = {.length = %lld, .step = %lld, .inverse = %d, .periodic = %d, .window = %d},\n",
                      (long long)sg->length, (long long)sg->step, sg->inverse, sg->periodic, sg->window);
    }
    if (pl_kind_nn(op->kind) || op->kind == PL_NMS) {
        const struct pl_nn *nn = &op->nn;
        bz_buf_printf(&init, "    .nn = {.scale = %.17g, .sampling = %lld, .mode = %d, .half_pixel = %d,\n", nn->scale,
                      (long long)nn->sampling, nn->mode, nn->half_pixel);
        const int64_t *arrays[] = {nn->kernel, nn->stride, nn->pad, nn->inferred};
        static const char *const names[] = {"kernel", "stride", "pad", "inferred"};
        for (int j = 0; j < 4; j++) {
            bz_buf_printf(&init, "%s.%s = {", j ? " " : "           ", names[j]);
            for (int k = 0; k < (j == 3 ? op->out.nd : op->out.nd - 2); k++)
                bz_buf_printf(&init, "%s%lld", k ? ", " : "", (long long)arrays[j][k]);
            bz_buf_puts(&init, "},");
        }
        bz_buf_printf(&init, "\n           .same_shape = %d, .reduction = %d, .has_ignore = %d, .ignore = %lld, .log_prob = %d,\n"
                      "           .has_score = %d, .decay = %.17g, .epsilon = %.17g, .norm = %.17g, .norm_post = %.17g,\n"
                      "           .nesterov = %d,",
                      nn->same_shape, nn->reduction, nn->has_ignore, (long long)nn->ignore, nn->log_prob, nn->has_score,
                      nn->decay, nn->epsilon, nn->norm, nn->norm_post, nn->nesterov);
        if (op->kind == PL_TFIDF) {
            /* the pool and its tables, from the key, as arrays of static storage */
            const struct desc_attrs *a = &l->desc->a;
            bool text = op->in[0].dtype == PL_STRING;
            const struct desc_ints *ints[] = {&a->pool_int64s, &a->ngram_counts, &a->ngram_indexes};
            static const char *const fields[] = {"pool", "gram_start", "gram_index", "weights"};
            for (int j = 0; j < 4; j++) {
                int n = j == 3 ? a->weights.n : j == 0 && text ? a->pool_strings.n : ints[j]->n;
                bz_buf_printf(&init, "\n           .%s = ", fields[j]);
                if (!n) {
                    bz_buf_puts(&init, "NULL,");
                    continue;
                }
                bz_buf_puts(&init, j == 3 ? "(const float[]){" : "(const int64_t[]){");
                for (int k = 0; k < n; k++) {
                    if (j == 3) {
                        bz_buf_printf(&init, "%s%.9ef", k ? ", " : "", a->weights.v[k]);
                    } else if (text && j == 0) {
                        /* a string pool: the index of this text's first occurrence */
                        const struct desc_strs *ps = &a->pool_strings;
                        int first = k;
                        for (int q = 0; q < k && first == k; q++)
                            first = ps->len[q] == ps->len[k] && !memcmp(ps->v[q], ps->v[k], ps->len[k]) ? q : k;
                        bz_buf_printf(&init, "%s%d", k ? ", " : "", first);
                    } else {
                        bz_buf_printf(&init, "%s%lld", k ? ", " : "", (long long)ints[j]->v[k]);
                    }
                }
                bz_buf_puts(&init, "},");
            }
            if (text) {
                bz_buf_puts(&init, "\n           .pool_text = ");
                put_c_strings(&init, &a->pool_strings);
                bz_buf_puts(&init, ",");
            }
            bz_buf_printf(&init, "\n           .npool = %lld, .nstart = %lld, .nindex = %lld, .nweights = %lld, .min_gram = %d, "
                          ".max_gram = %d, .max_skip = %d, .tf_mode = %d,",
                          (long long)nn->npool, (long long)nn->nstart, (long long)nn->nindex, (long long)nn->nweights,
                          nn->min_gram, nn->max_gram, nn->max_skip, nn->tf_mode);
        }
        bz_buf_puts(&init, "},\n");
    }
    if (op->kind == PL_STR_NORMALIZE || op->kind == PL_STR_SPLIT) {
        /* the stopwords and the delimiter from the key, as string literals */
        const struct pl_str *st = &op->str;
        const struct desc_attrs *a = &l->desc->a;
        bz_buf_printf(&init, "    .str = {.case_change = %d, .sensitive = %d, .maxsplit = %lld, .nstop = %lld, .stop = ",
                      st->case_change, st->sensitive, (long long)st->maxsplit, (long long)st->nstop);
        if (st->nstop)
            put_c_strings(&init, &a->stopwords);
        else
            bz_buf_puts(&init, "NULL");
        bz_buf_puts(&init, ", .delim = ");
        if (st->delim)
            put_c_string(&init, a->delimiter, a->len_delimiter);
        else
            bz_buf_puts(&init, "NULL");
        bz_buf_puts(&init, "},\n");
    }
    if (op->kind == PL_STR_REGEX) {
        /* the pattern as gen translated it (the key holds the RE2 original) and its samples */
        struct rx_result rx;
        char why[160];
        if (plan_regex(l->desc, &rx, why, sizeof(why)) == 0) {
            size_t lens[RX_SAMPLES];
            for (int k = 0; k < rx.nsamples; k++)
                lens[k] = strlen(rx.samples[k]);
            struct desc_strs samples = {rx.nsamples, (const char *const *)rx.samples, lens};
            bz_buf_puts(&init, "    .str = {.regex = ");
            put_c_string(&init, rx.ere.data, rx.ere.len);
            bz_buf_printf(&init, ",\n        .nsamples = %d, .samples = ", rx.nsamples);
            put_c_strings(&init, &samples);
            bz_buf_puts(&init, "},\n");
        }
        rx_free(&rx);
    }
    if (op->kind == PL_RNN) {
        static const char *const acts[] = {"PL_ACT_RELU", "PL_ACT_TANH", "PL_ACT_SIGMOID", "PL_ACT_AFFINE",
                                           "PL_ACT_LEAKYRELU", "PL_ACT_THRESHOLDEDRELU", "PL_ACT_SCALEDTANH",
                                           "PL_ACT_HARDSIGMOID", "PL_ACT_ELU", "PL_ACT_SOFTSIGN", "PL_ACT_SOFTPLUS"};
        const struct pl_rnn *rn = &op->rnn;
        int n = rn->gates == 4 ? 3 : rn->gates == 3 ? 2 : 1;
        n *= op->in[2].d[0]; /* per direction */
        bz_buf_printf(&init, "    .rnn = {.gates = %d, .reverse = %d, .batch_first = %d, .lbr = %d, .input_forget = %d, .packed = %d,\n"
                      "            .has = 0x%xu, .clip = %.17g,\n            .act = {",
                      rn->gates, rn->reverse, rn->batch_first, rn->lbr, rn->input_forget, rn->packed, rn->has, rn->clip);
        for (int k = 0; k < n; k++)
            bz_buf_printf(&init, "%s%s", k ? ", " : "", acts[rn->act[k]]);
        bz_buf_puts(&init, "},\n            .alpha = {");
        for (int k = 0; k < n; k++)
            bz_buf_printf(&init, "%s%.9ef", k ? ", " : "", rn->alpha[k]);
        bz_buf_puts(&init, "},\n            .beta = {");
        for (int k = 0; k < n; k++)
            bz_buf_printf(&init, "%s%.9ef", k ? ", " : "", rn->beta[k]);
        bz_buf_puts(&init, "}},\n");
    }
    if (op->nsplit) {
        bz_buf_printf(&init, "    .nsplit = %d,\n    .split = {", op->nsplit);
        for (int j = 0; j < op->nsplit; j++)
            bz_buf_printf(&init, "%s%lld", j ? ", " : "", (long long)op->split[j]);
        bz_buf_puts(&init, "},\n");
    }
    bz_buf_puts(&init, "}");
    double bytes = (double)pl_count(&op->out) * (double)pl_esize(op->out.dtype), flops = (double)pl_count(&op->out);
    for (int i = 0; i < op->nin; i++)
        bytes += plan_pl_read_bytes(op, i);
    if (op->kind == PL_GATHER || op->kind == PL_CAST || op->kind == PL_EXPAND || op->kind == PL_MAP ||
        (op->kind == PL_SCATTER_ND && !op->flag) || op->kind == PL_SPLIT || op->kind == PL_GATHER_ELEMENTS ||
        op->kind == PL_GATHER_ND || (op->kind == PL_SCATTER_ELEMENTS && !op->flag) || op->kind == PL_TRILU ||
        op->kind == PL_ONEHOT || op->kind == PL_REVERSE_SEQUENCE || op->kind == PL_EYELIKE)
        flops = 0; /* data movement */
    /* quantizing: divide (or multiply), round, add, clamp; PL_ROPE: x cos + rotated x sin */
    if (pl_kind_quant(op->kind) || op->kind == PL_ROPE)
        flops = 3.0 * (double)pl_count(&op->out);
    if (op->kind == PL_BINARY && PL_GLU(op->fn)) /* act(g) u: as the group's kernel counts it */
        flops = plan_glu_flops(op->fn) * (double)pl_count(&op->out);
    if (op->kind == PL_REDUCE || op->kind == PL_HARDMAX) /* a step per input element */
        flops = (double)pl_count(&op->in[0]);
    if (op->kind == PL_DECONV_TILES) /* a multiply-add per input channel, per output element */
        flops = 2.0 * (double)pl_count(&op->out) * (double)op->in[0].d[1];
    if (op->kind == PL_RNN) { /* the gates' products, as oneDNN's RNN counts them */
        const struct pl_tensor *x = &op->in[0], *rw = &op->in[2];
        flops = 2.0 * (double)(x->d[0] * x->d[1]) * (double)(rw->d[0] * rw->d[1]) * (double)(x->d[2] + rw->d[2]);
    }
    if (op->kind == PL_SOFTMAX) /* as oneDNN's softmax counts it: 4 per element */
        flops = 4.0 * (double)pl_count(&op->out);
    if (op->kind == PL_MVN) /* sum, sum of squares, then subtract and divide */
        flops = 4.0 * (double)pl_count(&op->in[0]);
    if (op->kind == PL_EYELIKE) /* the input's values are not read */
        bytes = (double)pl_count(&op->out) * (double)pl_esize(op->out.dtype);
    if (op->kind == PL_SCATTER_ND) /* the data copied once, then the updates' slices */
        bytes = 2.0 * (double)pl_count(&op->out) * (double)pl_esize(op->out.dtype) +
                (double)pl_count(&op->in[1]) * 8 + 2.0 * (double)pl_count(&op->in[2]) * (double)pl_esize(op->in[2].dtype);
    if (op->kind == PL_ARG || op->kind == PL_TOPK) /* one comparison per input element (and the heap's) */
        flops = (double)pl_count(&op->in[0]) * (op->kind == PL_TOPK ? 1.0 + log2((double)(op->k > 1 ? op->k : 1)) : 1.0);
    if (op->kind == PL_RESIZE) {
        /* a multiply-add per tap, per dim resized (nearest: a gather) */
        flops = 0;
        double cur = (double)pl_count(&op->in[0]);
        for (int k = 0; k < op->in[0].nd && op->rs.mode != PL_SAMPLE_NEAREST; k++) {
            int n = pl_resize_ntaps(op, k);
            if (!n)
                continue;
            cur = cur / (double)op->in[0].d[k] * (double)op->out.d[k];
            flops += 2.0 * n * cur;
        }
    }
    if (op->kind == PL_GRID_SAMPLE) /* a multiply-add per tap combination, per output element */
        flops = 2.0 * (double)pl_count(&op->out) *
                pow(op->rs.mode == PL_SAMPLE_NEAREST ? 1 : op->rs.mode == PL_SAMPLE_LINEAR ? 2 : 4, op->in[0].nd - 2);
    if (op->kind == PL_EINSUM) { /* a multiply per operand and an add, per label combination */
        double combos = 1;
        for (int j = 0; j < op->es.nlab; j++)
            combos *= (double)op->es.size[j];
        flops = combos * op->nin;
    }
    if (op->kind == PL_DET) { /* LU: 2/3 M^3 per matrix */
        double m = (double)op->in[0].d[op->in[0].nd - 1];
        flops = 2.0 / 3.0 * m * m * m * (double)pl_count(&op->out);
    }
    if (op->kind == PL_ROI_ALIGN) /* 4 multiply-adds per sample; the samples depend on the regions */
        flops = 8.0 * (double)pl_count(&op->out);
    if (op->kind == PL_MAX_UNPOOL) /* data movement: the output zeroed, the input scattered */
        flops = 0;
    if (op->kind == PL_NONZERO || op->kind == PL_COMPRESS) /* a test (and a copy) per element */
        flops = (double)pl_count(&op->in[0]) * (op->kind == PL_NONZERO ? 2 : 0);
    if (op->kind == PL_UNIQUE) { /* the sort of the slices: a comparison of a slice per step */
        double nsl = (double)pl_count(&op->out) / (op->axis >= 0 ? (double)op->out.d[op->axis] : 1.0);
        double slices = (double)pl_count(&op->in[0]) / nsl;
        flops = slices * log2(slices > 1 ? slices : 2) * nsl;
    }
    if (op->kind == PL_NMS) { /* the sort, and up to k IoUs (about 12 operations) per candidate, per class */
        double nb = (double)op->in[1].d[2];
        flops = (double)(op->in[1].d[0] * op->in[1].d[1]) * (nb * log2(nb > 1 ? nb : 2) + 12.0 * nb * (double)op->k);
    }
    if (op->kind == PL_RANDOM) /* a generator step per value (normal: a log, a root, a sine), a search per sample */
        flops = (double)pl_count(&op->out) *
                (op->flag == 3 ? log2((double)op->in[0].d[1]) + 1 : op->flag == 1 ? 8.0 : 4.0);
    if (op->kind == PL_TFIDF) /* per token, skip distance and size: a binary search of the pool */
        flops = (double)pl_count(&op->in[0]) * (op->nn.max_skip + 1) * op->nn.max_gram *
                log2((double)(op->nn.npool > 1 ? op->nn.npool : 2));
    if (op->kind == PL_OPTIMIZER) /* about 10 operations per element (Adam: 16 and a root) */
        flops = (double)pl_count(&op->in[2]) * (op->flag == 2 ? 16.0 : 10.0);
    if (op->kind == PL_LOSS) /* a multiply per element (SCE: the log-sum-exp over the classes) */
        flops = (double)pl_count(&op->in[1]) * (op->flag ? 4.0 * (double)op->in[0].d[1] : 2.0);
    if (op->kind == PL_WINDOW) /* a cosine or two and a multiply-add per element */
        flops = 4.0 * (double)pl_count(&op->out);
    if (op->kind == PL_DFT || op->kind == PL_STFT) /* the customary 5 L log2 L of a complex FFT, per line */
        flops = 5.0 * (double)pl_signal_lines(op) * (double)op->sg.length * log2((double)op->sg.length);
    if (op->kind == PL_TOPK) /* and the indices output */
        bytes += (double)pl_count(&op->out) * 8;
    char fl[64], by[64];
    snprintf(fl, sizeof(fl), "%.17g", flops);
    snprintf(by, sizeof(by), "%.17g", bytes);
    struct bz_buf layer_macro;
    bz_buf_init(&layer_macro);
    emit_macro(&layer_macro, "BZ_OP", init.data);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:O}", "title", title.data, "layer",
                             l->id, "layer_name", l->name, "op", l->op, "dtype", dt, "file", file.data, "key_comment",
                             key.data, "uses", emit_uses(e, li), "layer_macro", layer_macro.data, "kind",
                             op->kind == PL_SPLIT && op->flag ? "PL_SPLIT (flag 1: the pieces joined, a Concat)"
                                                              : plan_pl_kind_name(op->kind),
                             "flops", fl, "bytes", by, "harness", emit_embedded_json("runtime/harness.h"));
    bz_buf_free(&layer_macro);
    if (data)
        emit_plain_headers(data, pl_families(op), (int)op->kind, false);
    emit_bench(e, l, file.data, ".c", "templates/cpu/plain.c.mustache", "cc_plain", data);
    bz_buf_free(&file);
    bz_buf_free(&title);
    bz_buf_free(&key);
    bz_buf_free(&init);
}

/* ---- rendering ---- */

static const char *dt_name(dnnl_data_type_t dt)
{
    switch (dt) {
    case dnnl_f32: return "f32";
    case dnnl_bf16: return "bf16";
    case dnnl_u8: return "u8";
    case dnnl_s8: return "s8";
    case dnnl_s32: return "i32";
    default: return "f16";
    }
}

static const char *dt_enum(dnnl_data_type_t dt)
{
    switch (dt) {
    case dnnl_f32: return "dnnl_f32";
    case dnnl_bf16: return "dnnl_bf16";
    case dnnl_u8: return "dnnl_u8";
    case dnnl_s8: return "dnnl_s8";
    case dnnl_s32: return "dnnl_s32";
    default: return "dnnl_f16";
    }
}

/* bytes per element, for the bytes a benchmark moves */
static double dt_bytes(dnnl_data_type_t dt)
{
    return dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_u8 || dt == dnnl_s8 ? 1 : 2;
}

static const char *const family_names[BD_FAMILY_COUNT] = {
    "BD_CONV", "BD_DECONV", "BD_POOL", "BD_ELTWISE", "BD_BNORM", "BD_LNORM", "BD_IP", "BD_MATMUL",
    "BD_BINARY", "BD_SOFTMAX", "BD_LRN", "BD_REDUCTION", "BD_REORDER", "BD_RNN", "BD_CONCAT",
    "BD_RESAMPLING", "BD_PRELU",
};

static void tensor_init(struct bz_buf *b, const char *field, const struct bd_tensor *t)
{
    if (t->nd)
        emit_c_array(b, "    ", field, true, t->d, t->nd, ",\n");
}

static void dims_init(struct bz_buf *b, const char *field, const dnnl_dim_t *d, int n)
{
    emit_c_array(b, "    ", field, false, d, n, ",\n");
}

static const char *const family_what[BD_FAMILY_COUNT] = {
    "convolution", "deconvolution", "pooling", "eltwise", "batch normalization", "layer normalization",
    "inner product", "matmul", "binary", "softmax", "LRN", "reduction", "reorder", "RNN", "concat", "resampling",
    "PReLU",
};

static const char *const layout_names[BD_LAYOUT_COUNT] = {"BD_LAYOUT_PLAIN", "BD_LAYOUT_NHWC", "BD_LAYOUT_8C",
                                                          "BD_LAYOUT_16C"};

/* oneDNN's enum name of an algorithm kind (dnnl_convolution_direct, ...) */
static void alg_name(struct bz_buf *b, int alg)
{
    bz_buf_printf(b, "dnnl_%s", dnnl_alg_kind2str((dnnl_alg_kind_t)alg));
}

/* The bd_op as a C designated initializer (numbers and enum names only). */
static char *op_initializer(const struct bd_op *op)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_printf(&b, "{\n    .family = %s,\n    .dt = %s,\n", family_names[op->family], dt_enum(op->dt));
    if (op->alg) {
        bz_buf_puts(&b, "    .alg = ");
        alg_name(&b, op->alg);
        bz_buf_puts(&b, ",\n");
    }
    tensor_init(&b, "src", &op->src);
    tensor_init(&b, "wei", &op->wei);
    tensor_init(&b, "bias", &op->bias);
    tensor_init(&b, "dst", &op->dst);
    tensor_init(&b, "src1", &op->src1);
    if (op->has_bias)
        bz_buf_puts(&b, "    .has_bias = 1,\n");
    if (op->nsp) {
        bz_buf_printf(&b, "    .nsp = %d,\n", op->nsp);
        dims_init(&b, "strides", op->strides, op->nsp);
        dims_init(&b, "dil", op->dil, op->nsp);
        dims_init(&b, "kernel", op->kernel, op->nsp);
        dims_init(&b, "pl", op->pl, op->nsp);
        dims_init(&b, "pr", op->pr, op->nsp);
    }
    bz_buf_printf(&b, "    .alpha = %.9ef,\n    .beta = %.9ef,\n    .eps = %.9ef,\n    .p = %.9ef,\n", op->alpha,
                  op->beta, op->eps, op->p);
    bz_buf_printf(&b, "    .local_size = %lld,\n", (long long)op->local_size);
    if (op->family == BD_RNN)
        bz_buf_printf(&b, "    .axis = dnnl_%s,\n", dnnl_rnn_direction2str((dnnl_rnn_direction_t)op->axis));
    else
        bz_buf_printf(&b, "    .axis = %d,\n", op->axis);
    static const struct { unsigned bit; const char *name; } flags[] = {
        {dnnl_use_global_stats, "dnnl_use_global_stats"}, {dnnl_use_scale, "dnnl_use_scale"},
        {dnnl_use_shift, "dnnl_use_shift"},
    };
    bz_buf_puts(&b, "    .flags = ");
    int nf = 0;
    for (size_t i = 0; i < BZ_ARRAY_LEN(flags); i++)
        if (op->flags & flags[i].bit)
            bz_buf_printf(&b, "%s%s", nf++ ? " | " : "", flags[i].name);
    bz_buf_puts(&b, nf ? ",\n" : "0,\n");
    if (op->post_sum)
        bz_buf_puts(&b, "    .post_sum = 1,\n");
    if (op->post_alg) {
        bz_buf_puts(&b, "    .post_alg = ");
        alg_name(&b, op->post_alg);
        bz_buf_printf(&b, ",\n    .post_alpha = %.9ef,\n    .post_beta = %.9ef,\n", op->post_alpha, op->post_beta);
    }
    if (op->wei_transposed)
        bz_buf_puts(&b, "    .wei_transposed = 1,\n");
    if (op->src_transposed)
        bz_buf_puts(&b, "    .src_transposed = 1,\n");
    if (op->oscale != 0)
        bz_buf_printf(&b, "    .oscale = %.9ef,\n", op->oscale);
    if (bd_strided(&op->src, op->st_src))
        dims_init(&b, "st_src", op->st_src, op->src.nd);
    if (bd_strided(&op->wei, op->st_wei))
        dims_init(&b, "st_wei", op->st_wei, op->wei.nd);
    if (bd_strided(&op->dst, op->st_dst))
        dims_init(&b, "st_dst", op->st_dst, op->dst.nd);
    if (op->oscale_n > 1)
        bz_buf_printf(&b, "    .oscale_n = %d,\n    .oscale_mask = %d,\n", op->oscale_n, op->oscale_mask);
    if (op->qsrc)
        bz_buf_printf(&b, "    .qsrc = %s,\n    .qwei = %s,\n    .qdst = %s,\n", dt_enum(op->qsrc), dt_enum(op->qwei),
                      dt_enum(op->qdst));
    if (op->qbias)
        bz_buf_printf(&b, "    .qbias = %s,\n", dt_enum(op->qbias));
    if (op->zp_src || op->zp_wei || op->zp_dst)
        bz_buf_printf(&b, "    .zp_src = %d,\n    .zp_wei = %d,\n    .zp_dst = %d,\n", op->zp_src, op->zp_wei,
                      op->zp_dst);
    if (op->layout)
        bz_buf_printf(&b, "    .layout = %s,\n", layout_names[op->layout]);
    if (op->rnn_act) {
        bz_buf_puts(&b, "    .rnn_act = ");
        alg_name(&b, op->rnn_act);
        bz_buf_puts(&b, ",\n");
    }
    if (op->peephole)
        bz_buf_puts(&b, "    .peephole = 1,\n");
    if (op->ncat) {
        bz_buf_printf(&b, "    .ncat = %d,\n    .cat = {", op->ncat);
        for (int i = 0; i < op->ncat; i++) {
            bz_buf_printf(&b, "%s{%d, {", i ? ", " : "", op->cat[i].nd);
            for (int k = 0; k < op->cat[i].nd; k++)
                bz_buf_printf(&b, "%s%lld", k ? ", " : "", (long long)op->cat[i].d[k]);
            bz_buf_puts(&b, "}}");
        }
        bz_buf_puts(&b, "},\n");
    }
    if (op->family == BD_REORDER) {
        bz_buf_puts(&b, "    .perm = {");
        for (int k = 0; k < op->src.nd; k++)
            bz_buf_printf(&b, "%s%d", k ? ", " : "", op->perm[k]);
        bz_buf_puts(&b, "},\n");
    }
    bz_buf_puts(&b, "}");
    return bz_buf_steal(&b);
}

struct impl_list {
    char names[32][96];
    int algs[32];
    int n;
    int cur_alg;
};

static void collect_impl(const char *name, void *ud)
{
    struct impl_list *l = ud;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name) && l->algs[i] == l->cur_alg)
            return;
    if (l->n < 32) {
        snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
        l->algs[l->n++] = l->cur_alg;
    }
}

static const char *const layout_suffix[BD_LAYOUT_COUNT] = {"", "-nhwc", "-8c", "-16c"};

static void render_bench(struct emit_ctx *e, int li, const struct cpu_plan *plan, dnnl_data_type_t dt,
                         const char *impl, int alg, int layout)
{
    /* the primitive is part of the name: a Gemm is benchmarked as inner product and matmul */
    const char *prim = plan->op.family == BD_IP       ? "-ip"
                       : plan->op.family != BD_MATMUL ? ""
                       : plan->nk                     ? "-matmul_nk"
                                                      : "-matmul";
    const struct layer *l = &e->p->layers.v[li];
    struct bd_op op = plan->op;
    op.dt = dt;
    op.layout = layout;
    if (plan->n_algs > 1 || alg)
        op.alg = alg;
    struct bz_buf file, safe_impl, title, key;
    bz_buf_init(&file);
    bz_buf_init(&safe_impl);
    bz_buf_init(&title);
    bz_buf_init(&key);
    for (const char *c = impl; *c; c++)
        bz_buf_putc(&safe_impl, (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_'));
    bz_buf_printf(&file, "%s-%s-%s%s%s%s", l->id, dt_name(dt), safe_impl.data, prim,
                  alg == dnnl_convolution_winograd || alg == dnnl_deconvolution_winograd ? "-wino" : "",
                  layout_suffix[layout]);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    char *init = op_initializer(&op);
    struct bz_buf layer_macro, args;
    bz_buf_init(&layer_macro);
    bz_buf_init(&args);
    emit_macro(&layer_macro, "BZ_OP", init);
    for (int i = 0; i < plan->nargs; i++)
        bz_buf_printf(&args, "{%s, %d, %d},%s", plan->args[i].arg, plan->args[i].output, plan->args[i].fill,
                      i + 1 < plan->nargs ? "\n" : "");
    bz_buf_puts(&layer_macro, "\n");
    emit_macro(&layer_macro, "BZ_ARGS", args.data);
    unsigned fam_bit = bd_family_bit(op.family);
    bz_buf_printf(&layer_macro,
                  "\n/* the family whose own code (descriptor, reference) this benchmark holds, 0 for none:\n"
                  " * the others' is left out (runtime/dnnl_ops.h) */\n#define BD_FAMILIES 0x%xu",
                  fam_bit);
    double scale = dt_bytes(dt) / 4;
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", plan->flops);
    snprintf(bytes, sizeof(bytes), "%.17g", plan->bytes * scale);
    struct bz_buf impl_comment;
    bz_buf_init(&impl_comment);
    emit_comment_text(&impl_comment, impl);
    /* what a framework asks oneDNN for: plain layout, direct algorithm, a Gemm as inner
     * product; oneDNN's first implementation for it is the library's heuristic choice */
    int is_default = layout == 0 && alg != dnnl_convolution_winograd && alg != dnnl_deconvolution_winograd &&
                     !plan->secondary;
    /* a 16-bit model's layer in f32: what a framework runs where the CPU has no 16-bit kernel */
    int ft = desc_float_type(l->desc);
    char upcast[200] = "";
    if (dt == dnnl_f32 && (ft == IR_DTYPE_FLOAT16 || ft == IR_DTYPE_BFLOAT16))
        snprintf(upcast, sizeof(upcast),
                 "the model's tensors are %s; this is the layer in f32, as a framework runs it where\n"
                 " * the CPU has no %s kernel for it (agg counts it in the model's f32 bound)",
                 ft == IR_DTYPE_FLOAT16 ? "f16" : "bf16", ft == IR_DTYPE_FLOAT16 ? "f16" : "bf16");
    json_t *data = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:i,s:s,s:O}", "title", title.data, "layer",
        l->id, "layer_name", l->name, "op", l->op, "impl", impl, "impl_comment", impl_comment.data, "dtype",
        dt_name(dt), "file", file.data, "key_comment", key.data, "uses", emit_uses(e, li), "layer_macro",
        layer_macro.data, "what",
        plan->nk ? "matmul, its constant weights stored [n, k] (as frameworks keep a linear layer's)"
                 : family_what[op.family],
        "flops", flops, "bytes", bytes, "default_variant", is_default,
        "upcast", upcast, "harness", emit_embedded_json("runtime/harness.h"));
    emit_dnnl_runtime(data, fam_bit);
    emit_bench(e, l, file.data, ".c", "templates/cpu/dnnl.c.mustache", "cc_cpu", data);
    free(init);
    bz_buf_free(&layer_macro);
    bz_buf_free(&args);
    bz_buf_free(&impl_comment);
    bz_buf_free(&file);
    bz_buf_free(&safe_impl);
    bz_buf_free(&title);
    bz_buf_free(&key);
}

static const dnnl_data_type_t float_types[3] = {dnnl_f32, dnnl_bf16, dnnl_f16};

/* a calibration layer (gen --calibrate): oneDNN's first choice, the GEMM in each float type */
static void cpu_calib(struct emit_ctx *e, int li)
{
    const struct layer *l = &e->p->layers.v[li];
    struct cpu_plan plan;
    if (calib_dnnl(l, &plan))
        return;
    for (int t = 0; t < (l->calib == CALIB_GEMM ? 3 : 1); t++)
        render_bench(e, li, &plan, float_types[t], "any", 0, 0);
}

/* a layer's benchmarks: each implementation oneDNN has for its plans, in each type and layout;
 * plain C where oneDNN has nothing */
static void cpu_layer(struct emit_ctx *e, int li, void *engine)
{
    const struct layer *l = &e->p->layers.v[li];
    const struct layer_desc *d = l->desc;
    if (l->calib) {
        cpu_calib(e, li);
        return;
    }
    const struct op_plans *h = plan_hooks(d);
    /* float layers in f32, bf16 and f16; the quantized ones (whose hooks take int8) in their
     * int8 types; a second plan (a Gemm's inner product) whatever the type */
    int out_dtype = plan_layer_dtype(d);
    /* a layer of an f16 or bf16 model (every float tensor in that type): its f32 form's plans,
     * in that type and in f32 (a CPU without 16-bit kernels for the layer, AVX2's for most,
     * runs it so in a framework: ONNX Runtime casts to float around such nodes), not in the
     * other 16-bit type */
    int ft = desc_float_type(d);
    dnnl_data_type_t storage = ft == IR_DTYPE_FLOAT16 ? dnnl_f16 : ft == IR_DTYPE_BFLOAT16 ? dnnl_bf16 : dnnl_data_type_undef;
    struct bz_arena view;
    bz_arena_init(&view);
    const struct layer_desc *pd = storage != dnnl_data_type_undef ? desc_retyped(&view, d, IR_DTYPE_FLOAT) : d;
    bool takes = h && h->dnnl &&
                 (out_dtype == IR_DTYPE_FLOAT || storage != dnnl_data_type_undef || (h->flags & PLAN_DNNL_INT8));
    struct cpu_plan plans[3];
    int ok[3];
    memset(plans, 0, sizeof(plans));
    ok[0] = takes ? h->dnnl(pd, 0, &plans[0]) : -1;
    ok[1] = h && h->dnnl && !l->fused ? h->dnnl(pd, 1, &plans[1]) : -1;
    /* a matmul of a constant 2-D weight (a MatMul's, a Gemm's without transB, a gemm group's)
     * also with the weight stored [n, k], as frameworks keep a linear layer's and as ONNX
     * Runtime prepacks it: on an AVX2 CPU oneDNN 2.6's gemm:jit took BERT's m128 n3072 k768 in
     * 3.4 to 4.1 ms so, 6.6 to 7.1 ms with B as [k, n] (docs/results/cpu/epyc-avx2.md) */
    ok[2] = -1;
    if (ok[0] == 0 && plans[0].b_const && !plans[0].quant) {
        plans[2] = plans[0];
        plans[2].op.wei_transposed = 1;
        plans[2].nk = 1;
        plans[2].secondary = 1;
        ok[2] = 0;
    }
    bool none = ok[0] != 0 && ok[1] != 0 && ok[2] != 0;
    /* plain C where oneDNN has nothing (a fusion group's: the rotary embedding), and beside
     * it where the hooks ask (Resize: every ONNX mode exactly) */
    struct pl_op pop;
    bool plain_done = false;
    if ((none || (h && (h->flags & (PLAN_PLAIN_TOO | PLAN_PLAIN_SCALAR)))) && h && h->plain && h->plain(d, &pop) == 0 &&
        (none || (h->flags & PLAN_PLAIN_TOO) || plain_has_scalar(&pop))) {
        render_plain(e, li, &pop);
        plain_done = true;
        /* a copy's plain C in the other types oneDNN's files are in (an f32 layer's bf16 and
         * f16, where oneDNN's reference implementation may be the only one; a 16-bit model's
         * f32): its cost is its bytes */
        if (!none && (h->flags & PLAN_PLAIN_TYPES)) {
            int own = pop.out.dtype, others[2], n = 0;
            if (storage == dnnl_data_type_undef && own == PL_FLOAT) {
                others[n++] = PL_BFLOAT16;
                others[n++] = PL_FLOAT16;
            } else if (storage != dnnl_data_type_undef && (own == PL_BFLOAT16 || own == PL_FLOAT16)) {
                others[n++] = PL_FLOAT;
            }
            for (int t = 0; t < n; t++) {
                struct pl_op typed = pop;
                for (int i = 0; i < typed.nin; i++)
                    typed.in[i].dtype = typed.in[i].dtype == own ? others[t] : typed.in[i].dtype;
                typed.out.dtype = others[t];
                render_plain(e, li, &typed);
            }
        }
        if (none) {
            bz_arena_free(&view);
            return;
        }
    }
    if (none) {
        char why[256];
        if (!l->fused && h && h->why_not && h->why_not(d, why, sizeof(why)) == 0)
            bz_diag_warning(e->diag, "gen", "layer %s (%s): %s", l->name, l->op, why);
        if (!l->fused)
            emit_skip(e, l->op);
        bz_arena_free(&view);
        return;
    }
    bool quant = ok[0] == 0 && plans[0].quant;
    int ntypes = quant ? 1 : 3, found = 0;
    for (int t = 0; t < ntypes; t++) {
        dnnl_data_type_t dt = quant ? plans[0].op.qsrc : float_types[t];
        if (!quant && storage != dnnl_data_type_undef && dt != storage && dt != dnnl_f32)
            continue;
        for (int which = 0; which < 3; which++) {
            const struct cpu_plan *pl = &plans[which];
            if (ok[which] != 0)
                continue;
            int layouts = pl->layouts > 1 && pl->op.src.nd == 4 ? pl->layouts : 1, any_impl = 0;
            for (int lay = 0; lay < layouts; lay++) {
                struct impl_list impls;
                impls.n = 0;
                for (int a = 0; a < pl->n_algs; a++) {
                    struct bd_op op = pl->op;
                    op.dt = dt;
                    op.layout = lay;
                    if (pl->n_algs > 1)
                        op.alg = pl->algs[a];
                    impls.cur_alg = pl->n_algs > 1 ? pl->algs[a] : 0;
                    bd_enumerate((dnnl_engine_t)engine, &op, collect_impl, &impls);
                }
                /* the reference implementation once, in the plain layout and the layer's own
                 * weights: it is there to check the others, not to compete in every layout */
                for (int i = 0; i < impls.n; i++)
                    if ((lay == 0 && !pl->nk) || strncmp(impls.names[i], "ref", 3) != 0)
                        render_bench(e, li, pl, dt, impls.names[i], impls.algs[i], lay);
                any_impl += impls.n;
            }
            /* nothing here for this type: one benchmark that says so where it runs (and
             * picks oneDNN's first choice on a machine that has one) */
            if (!any_impl)
                render_bench(e, li, pl, dt, "any", pl->n_algs > 1 ? pl->algs[0] : 0, 0);
            if (quant || storage == dnnl_data_type_undef || dt == storage)
                found += any_impl;
        }
    }
    /* a 16-bit model's layer that oneDNN has no implementation of in its type here (a machine
     * without AVX512-FP16 or AMX): plain C beside it too, where plain C takes the layer */
    if (storage != dnnl_data_type_undef && !quant && !found && !plain_done && h->plain && h->plain(d, &pop) == 0)
        render_plain(e, li, &pop);
    bz_arena_free(&view);
}

void emit_cpu(struct emit_ctx *e)
{
    dnnl_engine_t eng;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) {
        bz_diag_error(e->diag, "gen", "cannot create a oneDNN CPU engine: the CPU backend is skipped");
        e->failed++;
        return;
    }
    emit_each_layer(e, cpu_layer, eng);
    dnnl_engine_destroy(eng);
}
