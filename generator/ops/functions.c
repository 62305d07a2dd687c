/* ONNX operators that the standard defines as functions of other operators, and that gen
 * benchmarks as those (the expansions of ops.h), so that every backend sees what they compute
 * and gen's fusion finds its groups in them: Attention (opset 23) becomes the MatMul, Softmax
 * and MatMul that the attention group takes in; RMSNormalization and RotaryEmbedding (opset 23)
 * become the element-wise operators, reductions, slices and gathers of their function bodies
 * (which the rmsnorm and rope groups take in). A node an expansion does not cover keeps its
 * inferred shapes and is listed as an unsupported operator. Each expansion is held to ONNX
 * Runtime running the operator by test/oracle/onnx_functions_check.py. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"

/* Attention's dims as its inputs give them: 4-D [B, N, S, H] operands, or 3-D [B, S, N x H]
 * with q_num_heads and kv_num_heads; P the past's length (0 without one, -1 not known) */
struct att_dims {
    bool three;
    int64_t b, nq, nkv, s, l, h, hv, p;
};

static bool att_dims_of(struct infer_ctx *c, struct att_dims *a)
{
    const struct ir_type *q = op_in(c, 0), *k = op_in(c, 1), *v = op_in(c, 2);
    if (!q || !k || !v || q->rank != k->rank || q->rank != v->rank || (q->rank != 3 && q->rank != 4))
        return false;
    memset(a, 0, sizeof(*a));
    a->three = q->rank == 3;
    for (int i = 0; i < q->rank; i++)
        if (!dim_known(q->dims[i]) || !dim_known(k->dims[i]) || !dim_known(v->dims[i]))
            return false;
    a->b = q->dims[0].value;
    if (k->dims[0].value != a->b || v->dims[0].value != a->b)
        return false;
    if (a->three) {
        a->nq = op_attr_i(c, "q_num_heads", 0);
        a->nkv = op_attr_i(c, "kv_num_heads", 0);
        if (a->nq <= 0 || a->nkv <= 0 || q->dims[2].value % a->nq || k->dims[2].value % a->nkv ||
            v->dims[2].value % a->nkv)
            return false;
        a->s = q->dims[1].value;
        a->l = k->dims[1].value;
        a->h = q->dims[2].value / a->nq;
        a->hv = v->dims[2].value / a->nkv;
        if (k->dims[2].value / a->nkv != a->h || v->dims[1].value != a->l)
            return false;
    } else {
        a->nq = q->dims[1].value;
        a->nkv = k->dims[1].value;
        a->s = q->dims[2].value;
        a->l = k->dims[2].value;
        a->h = q->dims[3].value;
        a->hv = v->dims[3].value;
        if (k->dims[3].value != a->h || v->dims[1].value != a->nkv || v->dims[2].value != a->l)
            return false;
    }
    const struct ir_type *pk = op_in(c, 4);
    if (pk)
        a->p = pk->rank == 4 && dim_known(pk->dims[2]) ? pk->dims[2].value : -1;
    return a->b > 0 && a->nq > 0 && a->nkv > 0 && a->nq % a->nkv == 0;
}

/* Y [B, Nq, S, Hv] (3-D: [B, S, Nq x Hv]); present_key [B, Nkv, P + L, H], present_value
 * [B, Nkv, P + L, Hv] (V's type); qk_matmul_output [B, Nq, S, P + L]; the types alone where the
 * dims are not all known */
static void infer_attention(struct infer_ctx *c)
{
    struct att_dims a;
    int dt = op_in_dtype(c, 0), vdt = op_in_dtype(c, 2);
    if (!att_dims_of(c, &a)) {
        for (int k = 0; k < c->n->n_outputs && k < 4; k++)
            if (c->n->outputs[k])
                op_out_dtype_only(c, k, k == 2 ? vdt : dt);
        return;
    }
    struct ir_dim t = a.p < 0 ? dim_unknown() : dim_of(a.p + a.l);
    if (a.three) {
        struct ir_dim *y = op_out(c, 0, dt, 3);
        y[0] = dim_of(a.b), y[1] = dim_of(a.s), y[2] = dim_of(a.nq * a.hv);
    } else {
        struct ir_dim *y = op_out(c, 0, dt, 4);
        y[0] = dim_of(a.b), y[1] = dim_of(a.nq), y[2] = dim_of(a.s), y[3] = dim_of(a.hv);
    }
    for (int k = 1; k <= 2; k++)
        if (c->n->n_outputs > k && c->n->outputs[k]) {
            struct ir_dim *d = op_out(c, k, k == 2 ? vdt : dt, 4);
            d[0] = dim_of(a.b), d[1] = dim_of(a.nkv), d[2] = t, d[3] = dim_of(k == 1 ? a.h : a.hv);
        }
    if (c->n->n_outputs > 3 && c->n->outputs[3]) {
        struct ir_dim *d = op_out(c, 3, dt, 4);
        d[0] = dim_of(a.b), d[1] = dim_of(a.nq), d[2] = dim_of(a.s), d[3] = t;
    }
}

/* an operand as [B, N, rows, D]: a 3-D one split into its N heads */
static struct ir_value *att_heads(struct op_xp *x, struct ir_value *v, const struct att_dims *a, int64_t n, int64_t d,
                                 const char *part)
{
    if (!a->three)
        return v;
    static const int64_t to_heads[4] = {0, 2, 1, 3};
    char name[32];
    int64_t shape[4] = {0, 0, n, d};
    snprintf(name, sizeof(name), "%s_shape", part);
    struct ir_value *r = op_xp_op(x, "Reshape", name, OP_XP_IN(v, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 4, shape)), NULL);
    struct ir_value *t = op_xp_op(x, "Transpose", part, OP_XP_IN(r), NULL);
    op_xp_attr_ints(x, "perm", 4, to_heads);
    return t;
}

/* K or V [B, Nkv, T, D] with each head repeated R times in place ([h0, h0, h1, h1, ...]: grouped
 * query attention's sharing) */
static struct ir_value *att_repeat(struct op_xp *x, struct ir_value *v, const struct att_dims *a, int64_t t, int64_t d,
                                   const char *part)
{
    int64_t r = a->nq / a->nkv;
    if (r == 1)
        return v;
    char name[48];
    int64_t axis[1] = {2}, wide[5] = {a->b, a->nkv, r, t, d}, shape[4] = {a->b, a->nq, t, d};
    snprintf(name, sizeof(name), "%s_axis", part);
    struct ir_value *u = op_xp_op(x, "Unsqueeze", name, OP_XP_IN(v, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, axis)), NULL);
    snprintf(name, sizeof(name), "%s_wide", part);
    u = op_xp_op(x, "Expand", name, OP_XP_IN(u, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 5, wide)), NULL);
    snprintf(name, sizeof(name), "%s_shared", part);
    return op_xp_op(x, "Reshape", name, OP_XP_IN(u, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 4, shape)), NULL);
}

/* Attention (ONNX, opset 23): softmax(Q K^T x scale + mask) V over heads, K and V after the past
 * key and value, their heads shared by groups of query heads where there are fewer (grouped
 * query attention), is_causal a lower triangle aligned to the last query (a query sees the past
 * and the keys up to its own position); a bool mask hides the keys where it is false (-inf), a
 * float one is added. Written as ONNX's Reshape, Transpose, Concat, MatMul, Mul, Add, Softmax:
 * the form gen's fusion takes as one attention group. Not written: softcap, the QK output,
 * nonpad_kv_seqlen, a mask shorter than the keys, the sliding window. A row whose every key is
 * masked gives NaN here where ONNX gives zeros (no model's mask does that to a row it uses). */
static int expand_attention(struct infer_ctx *c, struct op_xp *x)
{
    struct att_dims a;
    const struct ir_type *q = op_in(c, 0), *mask = op_in(c, 3), *pk = op_in(c, 4), *pv = op_in(c, 5);
    if (!att_dims_of(c, &a))
        return op_xp_refuse(x, "Q, K and V need known shapes that fit together (3-D with q_num_heads and "
                               "kv_num_heads, or 4-D), and kv heads that divide the query heads");
    if (!op_xp_float(q->dtype))
        return op_xp_refuse(x, "a %s input (f32, f16 and bf16 are)", ir_dtype_name(q->dtype));
    for (int i = 1; i < 6; i++) {
        const struct ir_type *o = i == 3 ? NULL : op_in(c, i);
        if (o && o->dtype != q->dtype)
            return op_xp_refuse(x, "input %d of type %s beside a %s query (one type throughout is)", i,
                                ir_dtype_name(o->dtype), ir_dtype_name(q->dtype));
    }
    int64_t sp = op_attr_i(c, "softmax_precision", 0);
    if (sp && sp != q->dtype)
        return op_xp_refuse(x, "softmax_precision %lld, not the inputs' type", (long long)sp);
    if (c->n->n_inputs > 6 && c->n->inputs[6])
        return op_xp_refuse(x, "nonpad_kv_seqlen is not written as ONNX operators");
    if (op_attr_f(c, "softcap", 0) != 0)
        return op_xp_refuse(x, "softcap is not written as ONNX operators");
    if (c->n->n_outputs > 3 && c->n->outputs[3])
        return op_xp_refuse(x, "the QK product output (qk_matmul_output) is not written as ONNX operators");
    if (op_attr_i(c, "left_window_size", -1) != -1 || op_attr_i(c, "right_window_size", -1) != -1)
        return op_xp_refuse(x, "a sliding window is not written as ONNX operators");
    if (!pk != !pv)
        return op_xp_refuse(x, "a past key without a past value (or the other way round)");
    if (pk) {
        pk = op_xp_concrete(c, 4, 4);
        pv = op_xp_concrete(c, 5, 4);
        if (!pk || !pv || pk->dims[0].value != a.b || pk->dims[1].value != a.nkv || pk->dims[3].value != a.h ||
            pv->dims[0].value != a.b || pv->dims[1].value != a.nkv || pv->dims[2].value != a.p ||
            pv->dims[3].value != a.hv)
            return op_xp_refuse(x, "a past key and value that are not [%lld, %lld, P, %lld] and [%lld, %lld, P, %lld]",
                                (long long)a.b, (long long)a.nkv, (long long)a.h, (long long)a.b, (long long)a.nkv,
                                (long long)a.hv);
    }
    int64_t t = a.p + a.l;
    if (mask) {
        mask = op_xp_concrete(c, 3, -1);
        if (!mask || mask->rank < 1 || mask->rank > 4 || mask->dims[mask->rank - 1].value != t ||
            (mask->dtype != IR_DTYPE_BOOL && mask->dtype != q->dtype))
            return op_xp_refuse(x, "a mask that is not bool or the inputs' type, or whose last dim is not the %lld keys",
                                (long long)t);
    }
    int dt = q->dtype;
    double scale = op_attr_f(c, "scale", NAN);
    if (isnan(scale))
        scale = 1.0 / sqrt((double)a.h);
    bool causal = op_attr_i(c, "is_causal", 0) != 0;

    struct ir_value *qh = att_heads(x, op_xp_in(x, 0), &a, a.nq, a.h, "q");
    struct ir_value *kh = att_heads(x, op_xp_in(x, 1), &a, a.nkv, a.h, "k");
    struct ir_value *vh = att_heads(x, op_xp_in(x, 2), &a, a.nkv, a.hv, "v");
    if (pk) {
        /* the cache: the past's keys and values first */
        kh = op_xp_op(x, "Concat", "k_all", OP_XP_IN(op_xp_in(x, 4), kh), op_xp_out(x, 1));
        op_xp_attr_i(x, "axis", 2);
        vh = op_xp_op(x, "Concat", "v_all", OP_XP_IN(op_xp_in(x, 5), vh), op_xp_out(x, 2));
        op_xp_attr_i(x, "axis", 2);
    } else {
        for (int k = 1; k <= 2; k++)
            if (op_xp_out(x, k))
                op_xp_op(x, "Identity", k == 1 ? "present_key" : "present_value", OP_XP_IN(k == 1 ? kh : vh),
                         op_xp_out(x, k));
    }
    kh = att_repeat(x, kh, &a, t, a.h, "k");
    vh = att_repeat(x, vh, &a, t, a.hv, "v");
    /* the additive mask: the given one (a bool one as 0 where true, -inf where false), plus
     * -inf above the diagonal that ends at the last key when causal */
    struct ir_value *m = NULL;
    if (mask) {
        m = op_xp_in(x, 3);
        if (mask->dtype == IR_DTYPE_BOOL)
            m = op_xp_op(x, "Where", "mask_add",
                         OP_XP_IN(m, op_xp_scalar(x, "mask_zero", dt, 0), op_xp_scalar(x, "mask_fill", dt, -INFINITY)),
                         NULL);
    }
    if (causal) {
        int64_t st[2] = {a.s, t}, k[1] = {a.p + 1};
        struct ir_value *full =
            op_xp_op(x, "Expand", "causal_fill",
                     OP_XP_IN(op_xp_scalar(x, "causal_value", dt, -INFINITY), op_xp_ints(x, "causal_shape", IR_DTYPE_INT64, 1, 2, st)),
                     NULL);
        struct ir_value *tri =
            op_xp_op(x, "Trilu", "causal", OP_XP_IN(full, op_xp_ints(x, "causal_k", IR_DTYPE_INT64, 0, 1, k)), NULL);
        op_xp_attr_i(x, "upper", 1);
        m = m ? op_xp_op(x, "Add", "mask", OP_XP_IN(m, tri), NULL) : tri;
    }
    op_xp_sdpa(x, qh, kh, vh, dt, scale, m, a.three ? a.nq * a.hv : 0, op_xp_out(x, 0));
    return 0;
}

/* RMSNormalization (opset 23): X / sqrt(mean(X^2 over the axes from `axis` on) + epsilon) x
 * scale, the first stage in float where stash_type says so (1, the default: X cast to float and
 * the normalized value back to X's type before the scale, as the standard's function body
 * does). Written as Mul, ReduceMean, Add, Sqrt, Div, Mul (and the Casts). */
static int expand_rms_normalization(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *in = op_in(c, 0), *scale = op_in(c, 1);
    if (!in || in->rank < 1)
        return op_xp_refuse(x, "X needs a known rank of at least 1");
    if (!op_xp_float(in->dtype) || !scale || scale->dtype != in->dtype)
        return op_xp_refuse(x, "X and scale of one float type (f32, f16, bf16) are written as ONNX operators");
    int64_t axis = op_attr_i(c, "axis", -1), stash = op_attr_i(c, "stash_type", IR_DTYPE_FLOAT);
    if (axis < 0)
        axis += in->rank;
    if (axis < 0 || axis >= in->rank)
        return op_xp_refuse(x, "axis %lld outside X's rank %d", (long long)op_attr_i(c, "axis", -1), in->rank);
    if (stash != IR_DTYPE_FLOAT && stash != in->dtype)
        return op_xp_refuse(x, "stash_type %lld (float, or X's own type, is written)", (long long)stash);
    int64_t axes[8];
    int n = 0;
    for (int64_t a = axis; a < in->rank && n < 8; a++)
        axes[n++] = a;
    if (axis + n != in->rank)
        return op_xp_refuse(x, "more than 8 normalized axes");
    int st = (int)stash;
    struct ir_value *v = op_xp_in(x, 0);
    if (st != in->dtype) {
        v = op_xp_op(x, "Cast", "x_float", OP_XP_IN(v), NULL);
        op_xp_attr_i(x, "to", st);
    }
    struct ir_value *sq = op_xp_op(x, "Mul", "square", OP_XP_IN(v, v), NULL);
    struct ir_value *ms =
        op_xp_op(x, "ReduceMean", "mean_square", OP_XP_IN(sq, op_xp_ints(x, "axes", IR_DTYPE_INT64, 1, n, axes)), NULL);
    op_xp_attr_i(x, "keepdims", 1);
    struct ir_value *e =
        op_xp_op(x, "Add", "plus_epsilon", OP_XP_IN(ms, op_xp_scalar(x, "epsilon", st, op_attr_f(c, "epsilon", 1e-5f))), NULL);
    struct ir_value *rms = op_xp_op(x, "Sqrt", "rms", OP_XP_IN(e), NULL);
    struct ir_value *nv = op_xp_op(x, "Div", "normalized", OP_XP_IN(v, rms), NULL);
    if (st != in->dtype) {
        nv = op_xp_op(x, "Cast", "normalized_back", OP_XP_IN(nv), NULL);
        op_xp_attr_i(x, "to", in->dtype);
    }
    op_xp_op(x, "Mul", "scaled", OP_XP_IN(nv, op_xp_in(x, 1)), op_xp_out(x, 0));
    return 0;
}

/* a Slice of V's last axis (axis 3 of its 4-D form): START to END by STEP */
static struct ir_value *rope_slice(struct op_xp *x, struct ir_value *v, int64_t start, int64_t end, int64_t step,
                                   const char *part)
{
    char name[48];
    int64_t b[1] = {start}, e[1] = {end}, a[1] = {3}, st[1] = {step};
    snprintf(name, sizeof(name), "%s_start", part);
    struct ir_value *sb = op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, b);
    snprintf(name, sizeof(name), "%s_end", part);
    struct ir_value *se = op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, e);
    snprintf(name, sizeof(name), "%s_axis", part);
    struct ir_value *sa = op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, a);
    snprintf(name, sizeof(name), "%s_step", part);
    return op_xp_op(x, "Slice", part, OP_XP_IN(v, sb, se, sa, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, st)), NULL);
}

/* cos or sin for every token, as [B, S, R/2] (gathered at the position ids where there are
 * some), with a unit axis where X's 4-D form has its heads (1: [B, N, S, H]; 2: [B, S, N, H]) */
static struct ir_value *rope_table(struct op_xp *x, int input, bool ids, int64_t heads_axis, const char *part)
{
    char name[48];
    struct ir_value *t = op_xp_in(x, input);
    if (ids) {
        snprintf(name, sizeof(name), "%s_at", part);
        t = op_xp_op(x, "Gather", name, OP_XP_IN(t, op_xp_in(x, 3)), NULL);
    }
    int64_t axis[1] = {heads_axis};
    snprintf(name, sizeof(name), "%s_heads", part);
    return op_xp_op(x, "Unsqueeze", part, OP_XP_IN(t, op_xp_ints(x, name, IR_DTYPE_INT64, 1, 1, axis)), NULL);
}

/* RotaryEmbedding (opset 23): each head's first R dims (rotary_embedding_dim, else the head
 * size) rotated by the angle of the token's position: with x1, x2 its two halves (interleaved:
 * its even and odd dims), x1 cos - x2 sin and x1 sin + x2 cos, put back in their places
 * (written as x cos + rotate_half(x) sin by halves, the form gen's rope group takes, and by
 * pairs as x cos + rotate_pairs(x) sin, the rope_pairs group's); the other
 * dims as they are. X is [B, N, S, H], or [B, S, N x H] with num_heads (worked on as
 * [B, S, N, H] and reshaped back); cos and sin are [max position + 1, R/2] read at
 * position_ids [B, S], or [B, S, R/2] without them. Written as Reshape, Gather, Unsqueeze,
 * Slice, Neg, Mul, Sub, Add, Concat. */
static int expand_rotary_embedding(struct infer_ctx *c, struct op_xp *x)
{
    const struct ir_type *in = op_xp_concrete(c, 0, -1), *cs = op_in(c, 1), *sn = op_in(c, 2), *pid = op_in(c, 3);
    if (!in || (in->rank != 3 && in->rank != 4))
        return op_xp_refuse(x, "X needs known dims, 3-D or 4-D");
    if (!op_xp_float(in->dtype) || !cs || !sn || cs->dtype != in->dtype || sn->dtype != in->dtype)
        return op_xp_refuse(x, "X, cos_cache and sin_cache of one float type (f32, f16, bf16) are written as ONNX operators");
    bool three = in->rank == 3;
    int64_t heads = op_attr_i(c, "num_heads", 0), h;
    if (three) {
        if (heads <= 0 || in->dims[2].value % heads)
            return op_xp_refuse(x, "a 3-D X needs num_heads that divides its last dim");
        h = in->dims[2].value / heads;
    } else {
        h = in->dims[3].value;
    }
    int64_t r = op_attr_i(c, "rotary_embedding_dim", 0);
    if (r == 0)
        r = h;
    if (r < 2 || r % 2 || r > h)
        return op_xp_refuse(x, "rotary_embedding_dim %lld: an even number up to the head size %lld is",
                            (long long)r, (long long)h);
    int want = pid ? 2 : 3;
    if (cs->rank != want || sn->rank != want || !dim_known(cs->dims[want - 1]) || cs->dims[want - 1].value != r / 2 ||
        !dim_known(sn->dims[want - 1]) || sn->dims[want - 1].value != r / 2)
        return op_xp_refuse(x, "cos_cache and sin_cache that are not %s with a last dim of %lld",
                            pid ? "2-D (with position_ids)" : "3-D (without position_ids)", (long long)(r / 2));
    if (pid && pid->dtype != IR_DTYPE_INT64)
        return op_xp_refuse(x, "position_ids of type %s (int64 is)", ir_dtype_name(pid->dtype));
    bool inter = op_attr_i(c, "interleaved", 0) != 0;

    struct ir_value *v = op_xp_in(x, 0);
    int64_t b = in->dims[0].value, s = in->dims[1].value;
    if (three) {
        int64_t shape[4] = {b, s, heads, h};
        v = op_xp_op(x, "Reshape", "heads", OP_XP_IN(v, op_xp_ints(x, "heads_shape", IR_DTYPE_INT64, 1, 4, shape)), NULL);
    }
    int64_t hax = three ? 2 : 1;
    struct ir_value *cv = rope_table(x, 1, pid != NULL, hax, "cos"), *sv = rope_table(x, 2, pid != NULL, hax, "sin");
    struct ir_value *rot = r < h ? rope_slice(x, v, 0, r, 1, "rotated") : v;
    /* the node that makes the result writes the original's output */
    struct ir_value *y = op_xp_out(x, 0), *out;
    struct ir_value *to = !three && r == h ? y : NULL;
    if (inter) {
        /* by pairs, as GPT-J's rotate_every_two writes it (the form gen's rope_pairs group
         * takes): x cos_pairs + rotate_pairs(x) sin_pairs, rotate_pairs(x) = stack(-x_odd,
         * x_even) flattened along the last dim, each table with every value twice in a row,
         * [..., R/2] -> [..., R/2, 2] -> [..., R] */
        int64_t last[1] = {4}, shape[4] = {0, 0, 0, r};
        struct ir_value *ax = op_xp_ints(x, "pair_axis", IR_DTYPE_INT64, 1, 1, last);
        struct ir_value *full = op_xp_ints(x, "pairs_shape", IR_DTYPE_INT64, 1, 4, shape);
        struct ir_value *tab[2], *src[2] = {cv, sv};
        static const char *const tn[2][3] = {{"cos_pair", "cos_pairs", "cos_twice"}, {"sin_pair", "sin_pairs", "sin_twice"}};
        for (int k = 0; k < 2; k++) {
            struct ir_value *u = op_xp_op(x, "Unsqueeze", tn[k][0], OP_XP_IN(src[k], ax), NULL);
            struct ir_value *two = op_xp_op(x, "Concat", tn[k][1], OP_XP_IN(u, u), NULL);
            op_xp_attr_i(x, "axis", 4);
            tab[k] = op_xp_op(x, "Reshape", tn[k][2], OP_XP_IN(two, full), NULL);
        }
        struct ir_value *odd = rope_slice(x, rot, 1, r, 2, "x_odd"), *even = rope_slice(x, rot, 0, r, 2, "x_even");
        struct ir_value *ng = op_xp_op(x, "Neg", "x_odd_neg", OP_XP_IN(odd), NULL);
        struct ir_value *pr = op_xp_op(x, "Concat", "pairs",
                                       OP_XP_IN(op_xp_op(x, "Unsqueeze", "neg_pair", OP_XP_IN(ng, ax), NULL),
                                                op_xp_op(x, "Unsqueeze", "even_pair", OP_XP_IN(even, ax), NULL)),
                                       NULL);
        op_xp_attr_i(x, "axis", 4);
        struct ir_value *rp = op_xp_op(x, "Reshape", "rotate_pairs", OP_XP_IN(pr, full), NULL);
        struct ir_value *xc = op_xp_op(x, "Mul", "x_cos", OP_XP_IN(rot, tab[0]), NULL);
        struct ir_value *rs = op_xp_op(x, "Mul", "rotated_sin", OP_XP_IN(rp, tab[1]), NULL);
        out = op_xp_op(x, "Add", "rotated_all", OP_XP_IN(xc, rs), to);
    } else {
        /* by halves, as PyTorch writes it (the form gen's rope group takes): x cos_full +
         * rotate_half(x) sin_full, rotate_half(x) = (-x2, x1), each table twice along the
         * last dim */
        struct ir_value *cf = op_xp_op(x, "Concat", "cos_full", OP_XP_IN(cv, cv), NULL);
        op_xp_attr_i(x, "axis", 3);
        struct ir_value *sf = op_xp_op(x, "Concat", "sin_full", OP_XP_IN(sv, sv), NULL);
        op_xp_attr_i(x, "axis", 3);
        struct ir_value *x2 = rope_slice(x, rot, r / 2, r, 1, "x2");
        struct ir_value *ng = op_xp_op(x, "Neg", "x2_neg", OP_XP_IN(x2), NULL);
        struct ir_value *x1 = rope_slice(x, rot, 0, r / 2, 1, "x1");
        struct ir_value *rh = op_xp_op(x, "Concat", "rotate_half", OP_XP_IN(ng, x1), NULL);
        op_xp_attr_i(x, "axis", 3);
        struct ir_value *xc = op_xp_op(x, "Mul", "x_cos", OP_XP_IN(rot, cf), NULL);
        struct ir_value *rs = op_xp_op(x, "Mul", "rotated_sin", OP_XP_IN(rh, sf), NULL);
        out = op_xp_op(x, "Add", "rotated_all", OP_XP_IN(xc, rs), to);
    }
    if (r < h) {
        out = op_xp_op(x, "Concat", "with_rest", OP_XP_IN(out, rope_slice(x, v, r, h, 1, "rest")), three ? NULL : y);
        op_xp_attr_i(x, "axis", 3);
    }
    if (three) {
        int64_t shape[3] = {b, s, heads * h};
        op_xp_op(x, "Reshape", "merged", OP_XP_IN(out, op_xp_ints(x, "merged_shape", IR_DTYPE_INT64, 1, 3, shape)), y);
    }
    return 0;
}

const struct op_def ops_functions[] = {
    {"Attention", infer_attention, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(3, 7, 1, 4, 0x7, 23, 0),
     .expand = expand_attention},
    {"RMSNormalization", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 23, 0),
     .expand = expand_rms_normalization},
    {"RotaryEmbedding", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(3, 4, 1, 1, 0x7, 23, 0),
     .expand = expand_rotary_embedding},
    {0},
};
