/* ONNX operators that the standard defines as functions of other operators, and that gen
 * benchmarks as those (the expansions of ops.h), so that every backend sees what they compute
 * and gen's fusion finds its groups in them: Attention (opset 23) becomes the MatMul, Softmax
 * and MatMul that the attention group takes in. A node an expansion does not cover keeps its
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

const struct op_def ops_functions[] = {
    {"Attention", infer_attention, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(3, 7, 1, 4, 0x7, 23, 0),
     .expand = expand_attention},
    {0},
};
