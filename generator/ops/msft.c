/* ONNX Runtime's com.microsoft fused operators that transformer exports use, and how each is
 * written as the ONNX operators it fuses (the expansions of ops.h): shape inference replaces a
 * node by those, so that every backend benchmarks it as what it computes, the fusion groups
 * included (the attention, the GEMM epilogues). A node an expansion does not cover keeps its
 * inferred shapes and is listed as an unsupported operator (OP_FOREIGN). Each expansion is held
 * to ONNX Runtime running the operator by test/oracle/msft_expand_check.py. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"

/* ---- expansions ---- */


/* the inputs the expansions do not read must be absent */
static int refuse_inputs_from(struct infer_ctx *c, struct op_xp *x, int from, const char *what)
{
    for (int i = from; i < c->n->n_inputs; i++)
        if (c->n->inputs[i])
            return op_xp_refuse(x, "input %d (%s) is not written as ONNX operators", i, what);
    return 0;
}

/* Attention's additive mask over the scores [B, 1, S, T] (or [S, T] when only causal), as ONNX
 * Runtime builds it: 0 where a query may see a key, FILL where the key mask (raw 0/1 [B, T] or
 * [B, S, T], or key lengths [B]) hides it, plus FILL after the query's own position when
 * unidirectional (the two added, as ONNX Runtime adds them). The nodes are made once per graph
 * and shared by the attentions reading the same mask. NULL: no mask. */
static struct ir_value *attention_mask(struct op_xp *x, struct ir_value *mask, int dtype, int64_t b, int64_t s,
                                       int64_t t, bool causal, double fill)
{
    const struct ir_type *mt = mask ? &mask->type : NULL;
    bool dummy = mt && mt->rank == 2 && mt->dims[1].value == 1 && t > 1; /* [B, 1]: no mask */
    if ((!mt || dummy) && !causal)
        return NULL;
    char key[512];
    snprintf(key, sizeof(key), "attention mask|%s|%lld|%lld|%lld|%d|%.17g|%d", mt && !dummy ? mask->name : "-",
             (long long)b, (long long)s, (long long)t, causal, fill, dtype);
    struct ir_value *m = op_xp_memo(x, key);
    if (m)
        return m;
    struct ir_value *filler = op_xp_scalar(x, "mask_fill", dtype, fill);
    struct ir_value *pad = NULL;
    if (mt && !dummy) {
        struct ir_value *zero = op_xp_scalar(x, "mask_zero", dtype, 0);
        struct ir_value *keep;
        if (mt->rank == 1) {
            /* key lengths: a key at or past its batch's length is hidden */
            int64_t zr[1] = {0}, tr[1] = {t}, one[1] = {1}, col[2] = {b, 1};
            struct ir_value *pos = op_xp_op(x, "Range", "mask_positions",
                                            OP_XP_IN(op_xp_ints(x, "mask_start", mt->dtype, 0, 1, zr),
                                                     op_xp_ints(x, "mask_end", mt->dtype, 0, 1, tr),
                                                     op_xp_ints(x, "mask_step", mt->dtype, 0, 1, one)),
                                            NULL);
            struct ir_value *len = op_xp_op(x, "Reshape", "mask_lengths",
                                            OP_XP_IN(mask, op_xp_ints(x, "mask_lengths_shape", IR_DTYPE_INT64, 1, 2, col)),
                                            NULL);
            keep = op_xp_op(x, "Less", "mask_keep", OP_XP_IN(pos, len), NULL);
        } else {
            int64_t z[1] = {0};
            keep = op_xp_op(x, "Greater", "mask_keep", OP_XP_IN(mask, op_xp_ints(x, "mask_zero_i", mt->dtype, 0, 1, z)),
                            NULL);
        }
        struct ir_value *add = op_xp_op(x, "Where", "mask_add", OP_XP_IN(keep, zero, filler), NULL);
        int64_t shape[4] = {b, 1, mt->rank == 3 ? s : 1, t};
        pad = op_xp_op(x, "Reshape", "mask_heads", OP_XP_IN(add, op_xp_ints(x, "mask_heads_shape", IR_DTYPE_INT64, 1, 4, shape)),
                       NULL);
    }
    struct ir_value *tri = NULL;
    if (causal) {
        /* FILL above the diagonal shifted by the past length T - S: built from constants, so free */
        int64_t st[2] = {s, t}, k[1] = {t - s + 1};
        struct ir_value *full = op_xp_op(x, "Expand", "causal_fill",
                                         OP_XP_IN(filler, op_xp_ints(x, "causal_shape", IR_DTYPE_INT64, 1, 2, st)), NULL);
        tri = op_xp_op(x, "Trilu", "causal", OP_XP_IN(full, op_xp_ints(x, "causal_k", IR_DTYPE_INT64, 0, 1, k)), NULL);
        op_xp_attr_i(x, "upper", 1);
    }
    m = pad && tri ? op_xp_op(x, "Add", "mask", OP_XP_IN(pad, tri), NULL) : pad ? pad : tri;
    op_xp_memo_put(x, key, m);
    return m;
}

/* Attention (com.microsoft): input [B, S, H_in] x weights [H_in, Hq + Hk + Hv] + bias -> Q, K, V
 * of num_heads heads, K and V after the past's ([2, B, N, P, D]); present = the two stacked;
 * softmax(Q K^T x scale + mask) V, heads merged: ONNX's MatMul, Add, Split, Reshape, Transpose,
 * Concat, Mul, Softmax, in the form gen's fusion takes as one attention group. */
static int expand_attention(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *in = op_xp_concrete(c, 0, 3), *w = op_xp_concrete(c, 1, 2), *bias = op_in(c, 2);
    const struct ir_type *mask = op_in(c, 3), *past = op_in(c, 4);
    int64_t heads = op_attr_i(c, "num_heads", 0);
    if (!in || !w)
        return op_xp_refuse(x, "the input and the weights need known shapes (give --dim or --input-shape)");
    if (!op_xp_float(in->dtype))
        return op_xp_refuse(x, "a %s input (f32, f16 and bf16 are)", ir_dtype_name(in->dtype));
    if (refuse_inputs_from(c, x, 5, "relative position bias, past sequence length"))
        return 1;
    if (op_attr_i(c, "do_rotary", 0) || op_attr_i(c, "past_present_share_buffer", 0))
        return op_xp_refuse(x, "rotary embeddings and a shared past/present buffer are not");
    int64_t b = in->dims[0].value, s = in->dims[1].value, hin = in->dims[2].value, all = w->dims[1].value;
    int64_t hq = all / 3, hk = all / 3, hv = all / 3;
    const int64_t *qkv;
    if (op_attr_ints(c, "qkv_hidden_sizes", &qkv) == 3) {
        hq = qkv[0];
        hk = qkv[1];
        hv = qkv[2];
    } else if (all % 3) {
        return op_xp_refuse(x, "weights of %lld columns do not split in three", (long long)all);
    }
    if (w->dims[0].value != hin || hq <= 0 || hv <= 0 || hq + hk + hv != all || hq != hk || heads <= 0 || hq % heads ||
        hv % heads)
        return op_xp_refuse(x, "weights [%lld, %lld] do not fit an input of %lld and %lld heads", (long long)w->dims[0].value,
                            (long long)all, (long long)hin, (long long)heads);
    if (bias && !(bias->rank == 1 && bias->dims[0].value == all))
        return op_xp_refuse(x, "a bias that is not [%lld]", (long long)all);
    int64_t d = hq / heads, dv = hv / heads, p = 0;
    if (past) {
        past = op_xp_concrete(c, 4, 5);
        if (!past || hk != hv || past->dims[0].value != 2 || past->dims[1].value != b ||
            past->dims[2].value != heads || past->dims[4].value != d)
            return op_xp_refuse(x, "a past that is not [2, %lld, %lld, P, %lld] with P known", (long long)b,
                                (long long)heads, (long long)d);
        p = past->dims[3].value;
    }
    int64_t t = p + s;
    if (op_xp_out(x, 1) && hk != hv)
        return op_xp_refuse(x, "a present of K and V of different head sizes");
    if (mask) {
        mask = op_xp_concrete(c, 3, -1);
        bool ok = mask && (mask->dtype == IR_DTYPE_INT32 || mask->dtype == IR_DTYPE_INT64);
        if (ok && mask->rank == 1)
            ok = mask->dims[0].value == b;
        else if (ok && mask->rank == 2)
            ok = mask->dims[0].value == b && (mask->dims[1].value == t || mask->dims[1].value == 1);
        else if (ok && mask->rank == 3)
            ok = mask->dims[0].value == b && mask->dims[1].value == s && mask->dims[2].value == t;
        else
            ok = false;
        if (!ok)
            return op_xp_refuse(x, "a mask index other than key lengths [B], a key mask [B, T] or [B, S, T]");
    }
    double scale = op_attr_f(c, "scale", 0);
    if (scale == 0)
        scale = 1.0 / sqrt((double)d);
    double fill = op_attr_f(c, "mask_filter_value", -10000.0f);
    bool causal = op_attr_i(c, "unidirectional", 0) != 0;
    int dt = in->dtype;

    struct ir_value *qkv_v = op_xp_op(x, "MatMul", "qkv_matmul", OP_XP_IN(op_xp_in(x, 0), op_xp_in(x, 1)), NULL);
    if (bias)
        qkv_v = op_xp_op(x, "Add", "qkv", OP_XP_IN(qkv_v, op_xp_in(x, 2)), NULL);
    struct ir_value *parts[3] = {NULL, NULL, NULL};
    int64_t sizes[3] = {hq, hk, hv};
    op_xp_node(x, "Split", "split", OP_XP_IN(qkv_v, op_xp_ints(x, "split_sizes", IR_DTYPE_INT64, 1, 3, sizes)), 3, parts);
    op_xp_attr_i(x, "axis", -1);
    static const int64_t to_heads[4] = {0, 2, 1, 3};
    int64_t qshape[4] = {0, 0, heads, d}, vshape[4] = {0, 0, heads, dv};
    struct ir_value *qs = op_xp_ints(x, "heads_shape", IR_DTYPE_INT64, 1, 4, qshape);
    struct ir_value *vs = dv == d ? qs : op_xp_ints(x, "v_heads_shape", IR_DTYPE_INT64, 1, 4, vshape);
    static const char *const names[3][2] = {{"q_heads", "q"}, {"k_heads", "k"}, {"v_heads", "v"}};
    struct ir_value *qkvt[3];
    for (int k = 0; k < 3; k++) {
        struct ir_value *r = op_xp_op(x, "Reshape", names[k][0], OP_XP_IN(parts[k], k == 2 ? vs : qs), NULL);
        qkvt[k] = op_xp_op(x, "Transpose", names[k][1], OP_XP_IN(r), NULL);
        op_xp_attr_ints(x, "perm", 4, to_heads);
    }
    struct ir_value *kall = qkvt[1], *vall = qkvt[2];
    if (p > 0) {
        struct ir_value *halves[2] = {NULL, NULL};
        int64_t ones[2] = {1, 1}, zero[1] = {0};
        op_xp_node(x, "Split", "past", OP_XP_IN(op_xp_in(x, 4), op_xp_ints(x, "past_sizes", IR_DTYPE_INT64, 1, 2, ones)), 2,
                   halves);
        op_xp_attr_i(x, "axis", 0);
        struct ir_value *axis0 = op_xp_ints(x, "past_axis", IR_DTYPE_INT64, 1, 1, zero);
        struct ir_value *pk = op_xp_op(x, "Squeeze", "past_k", OP_XP_IN(halves[0], axis0), NULL);
        struct ir_value *pv = op_xp_op(x, "Squeeze", "past_v", OP_XP_IN(halves[1], axis0), NULL);
        kall = op_xp_op(x, "Concat", "k_all", OP_XP_IN(pk, kall), NULL);
        op_xp_attr_i(x, "axis", 2);
        vall = op_xp_op(x, "Concat", "v_all", OP_XP_IN(pv, vall), NULL);
        op_xp_attr_i(x, "axis", 2);
    }
    if (op_xp_out(x, 1)) {
        int64_t zero[1] = {0};
        struct ir_value *axis0 = op_xp_ints(x, "present_axis", IR_DTYPE_INT64, 1, 1, zero);
        struct ir_value *k5 = op_xp_op(x, "Unsqueeze", "present_k", OP_XP_IN(kall, axis0), NULL);
        struct ir_value *v5 = op_xp_op(x, "Unsqueeze", "present_v", OP_XP_IN(vall, axis0), NULL);
        op_xp_op(x, "Concat", "present", OP_XP_IN(k5, v5), op_xp_out(x, 1));
        op_xp_attr_i(x, "axis", 0);
    }
    struct ir_value *m = attention_mask(x, mask ? op_xp_in(x, 3) : NULL, dt, b, s, t, causal, fill);
    op_xp_sdpa(x, qkvt[0], kall, vall, dt, scale, m, hv, op_xp_out(x, 0));
    return 0;
}

/* SkipLayerNormalization: LayerNorm(input + skip [+ bias]) over the last axis; output 3 the sum,
 * outputs 1 and 2 the mean and inverse standard deviation, as LayerNormalization's */
static int expand_skip_layernorm(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *in = op_xp_concrete(c, 0, -1), *gamma = op_in(c, 2);
    if (!in || in->rank < 2 || !gamma || !op_xp_concrete(c, 1, -1))
        return op_xp_refuse(x, "the input and the skip need known shapes (give --dim or --input-shape)");
    if (!op_xp_float(in->dtype))
        return op_xp_refuse(x, "a %s input (f32, f16 and bf16 are)", ir_dtype_name(in->dtype));
    bool bias = op_xp_in(x, 4) != NULL;
    struct ir_value *sum = op_xp_op(x, "Add", "add_skip", OP_XP_IN(op_xp_in(x, 0), op_xp_in(x, 1)),
                                    bias ? NULL : op_xp_out(x, 3));
    if (bias)
        sum = op_xp_op(x, "Add", "add_bias", OP_XP_IN(sum, op_xp_in(x, 4)), op_xp_out(x, 3));
    struct ir_value *outs[3] = {op_xp_out(x, 0), op_xp_out(x, 1), op_xp_out(x, 2)};
    int nout = outs[2] ? 3 : outs[1] ? 2 : 1;
    op_xp_node(x, "LayerNormalization", "layernorm", OP_XP_IN(sum, op_xp_in(x, 2), op_xp_in(x, 3)), nout, outs);
    op_xp_attr_i(x, "axis", -1);
    op_xp_attr_f(x, "epsilon", op_attr_f(c, "epsilon", 1e-12f));
    return 0;
}

/* EmbedLayerNormalization: LayerNorm(word[ids] + position[position ids, or 0..S-1] [+
 * segment[segment ids]]); output 2 the sum; output 1 (mask index) each batch's count of mask
 * values equal to 1 (0 without a mask) */
static int expand_embed_layernorm(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *ids = op_xp_concrete(c, 0, 2), *word = op_xp_concrete(c, 2, 2), *pos = op_xp_concrete(c, 3, 2);
    if (!ids || !word || !pos)
        return op_xp_refuse(x, "the ids and the embeddings need known shapes (give --dim or --input-shape)");
    if (!op_xp_float(word->dtype))
        return op_xp_refuse(x, "%s embeddings (f32, f16 and bf16 are)", ir_dtype_name(word->dtype));
    if ((op_xp_in(x, 1) != NULL) != (op_xp_in(x, 4) != NULL))
        return op_xp_refuse(x, "segment ids without a segment embedding (or the other way round)");
    if (refuse_inputs_from(c, x, 9, "beyond position ids"))
        return 1;
    int64_t b = ids->dims[0].value, s = ids->dims[1].value;
    struct ir_value *sum = op_xp_op(x, "Gather", "word", OP_XP_IN(op_xp_in(x, 2), op_xp_in(x, 0)), NULL);
    struct ir_value *pids = op_xp_in(x, 8);
    if (!pids) {
        int64_t z[1] = {0}, e[1] = {s}, one[1] = {1};
        pids = op_xp_op(x, "Range", "positions",
                        OP_XP_IN(op_xp_ints(x, "positions_start", IR_DTYPE_INT64, 0, 1, z),
                                 op_xp_ints(x, "positions_end", IR_DTYPE_INT64, 0, 1, e),
                                 op_xp_ints(x, "positions_step", IR_DTYPE_INT64, 0, 1, one)),
                        NULL);
    }
    struct ir_value *pe = op_xp_op(x, "Gather", "position", OP_XP_IN(op_xp_in(x, 3), pids), NULL);
    bool seg = op_xp_in(x, 1) != NULL;
    sum = op_xp_op(x, "Add", "add_position", OP_XP_IN(sum, pe), seg ? NULL : op_xp_out(x, 2));
    if (seg) {
        struct ir_value *se = op_xp_op(x, "Gather", "segment", OP_XP_IN(op_xp_in(x, 4), op_xp_in(x, 1)), NULL);
        sum = op_xp_op(x, "Add", "add_segment", OP_XP_IN(sum, se), op_xp_out(x, 2));
    }
    op_xp_op(x, "LayerNormalization", "layernorm", OP_XP_IN(sum, op_xp_in(x, 5), op_xp_in(x, 6)), op_xp_out(x, 0));
    op_xp_attr_i(x, "axis", -1);
    op_xp_attr_f(x, "epsilon", op_attr_f(c, "epsilon", 1e-12f));
    if (op_xp_out(x, 1)) {
        int64_t bs[1] = {b}, one[1] = {1}, zero[1] = {0};
        struct ir_value *mask = op_xp_in(x, 7);
        if (mask) {
            int mdt = mask->type.dtype ? mask->type.dtype : IR_DTYPE_INT32;
            struct ir_value *ones = op_xp_op(x, "Equal", "mask_ones",
                                             OP_XP_IN(mask, op_xp_ints(x, "mask_one", mdt, 0, 1, one)), NULL);
            ones = op_xp_op(x, "Cast", "mask_ones_i", OP_XP_IN(ones), NULL);
            op_xp_attr_i(x, "to", IR_DTYPE_INT32);
            op_xp_op(x, "ReduceSum", "mask_index", OP_XP_IN(ones, op_xp_ints(x, "mask_axis", IR_DTYPE_INT64, 1, 1, one)),
                     op_xp_out(x, 1));
            op_xp_attr_i(x, "keepdims", 0);
        } else {
            op_xp_op(x, "Expand", "mask_index",
                     OP_XP_IN(op_xp_ints(x, "mask_none", IR_DTYPE_INT32, 0, 1, zero),
                              op_xp_ints(x, "mask_index_shape", IR_DTYPE_INT64, 1, 1, bs)),
                     op_xp_out(x, 1));
        }
    }
    return 0;
}

/* FastGelu: GELU's tanh approximation of input + bias; BiasGelu: GELU (erf) of A + B;
 * Gelu: GELU (erf) */
static int expand_gelu(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *in = op_in(c, 0);
    if (!in || !op_xp_float(in->dtype))
        return op_xp_refuse(x, "the input needs a known float type (f32, f16, bf16)");
    struct ir_value *y = op_xp_in(x, 0);
    if (op_xp_in(x, 1))
        y = op_xp_op(x, "Add", "add_bias", OP_XP_IN(y, op_xp_in(x, 1)), NULL);
    op_xp_op(x, "Gelu", "gelu", OP_XP_IN(y), op_xp_out(x, 0));
    if (!strcmp(c->n->op_type, "FastGelu"))
        op_xp_attr_s(x, "approximate", "tanh");
    return 0;
}

/* ---- shapes ---- */

/* Attention: input [B, S, H_in], weights [H_in, 3*H] -> output [B, S, H] */
static void infer_attention(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *w = op_in(c, 1);
    if (!x || x->rank != 3) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, 3);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    const int64_t *qkv;
    int n = op_attr_ints(c, "qkv_hidden_sizes", &qkv);
    if (n == 3)
        d[2] = dim_of(qkv[2]);
    else if (w && w->rank == 2 && dim_known(w->dims[1]))
        d[2] = dim_of(w->dims[1].value / 3);
}

/* SkipLayerNormalization: output and the skip-bias sum like the input */
static void infer_skip_layernorm(struct infer_ctx *c)
{
    infer_same_as_input(c);
    const struct ir_type *x = op_in(c, 0);
    if (x && c->n->n_outputs > 3 && c->n->outputs[3])
        op_out_type(c, 3, x);
}

/* EmbedLayerNormalization: input_ids [B, S], word_embedding [V, H] -> [B, S, H], mask [B] */
static void infer_embed_layernorm(struct infer_ctx *c)
{
    const struct ir_type *ids = op_in(c, 0), *we = op_in(c, 2);
    int dtype = op_in_dtype(c, 2);
    if (!ids || ids->rank != 2) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, 3);
    d[0] = ids->dims[0];
    d[1] = ids->dims[1];
    d[2] = we && we->rank == 2 ? we->dims[1] : dim_unknown();
    if (c->n->n_outputs > 1 && c->n->outputs[1])
        op_out(c, 1, IR_DTYPE_INT32, 1)[0] = ids->dims[0];
    if (c->n->n_outputs > 2 && c->n->outputs[2])
        op_out_type(c, 2, &c->n->outputs[0]->type);
}

const struct op_def ops_msft[] = {
    {"Attention", infer_attention, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 7, 1, 2, 0x3, 1, 0), .expand = expand_attention},
    {"SkipLayerNormalization", infer_skip_layernorm, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(3, 5, 1, 4, 0x7, 1, 0), .expand = expand_skip_layernorm},
    {"EmbedLayerNormalization", infer_embed_layernorm, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(7, 9, 2, 3, 0x6d, 1, 0), .expand = expand_embed_layernorm},
    {"FastGelu", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0), .expand = expand_gelu},
    {"BiasGelu", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0), .expand = expand_gelu},
    {"Gelu", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0), .expand = expand_gelu},
    {0},
};
