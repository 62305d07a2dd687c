/* The CPU backend: each unique layer is described as a oneDNN operation (runtime/dnnl_ops.h),
 * the implementations oneDNN offers for it here are enumerated through the primitive-
 * descriptor iterator, and one benchmark is rendered per implementation and data type. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/dnnl_ops.h"
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/plain_index.h"
#include "../runtime/plain_reduce.h"
#include "../runtime/plain_quant.h"
#include "../runtime/plain_sample.h"
#include "../runtime/plain_linalg.h"
#include "../runtime/plain_signal.h"
#include "../runtime/plain_string.h"
#include "../runtime/plain_nn.h"
#include "../runtime/plain_random.h"
#include "../runtime/plain_select.h"
#include "emit.h"
#include "re2posix.h"

/* ---- reading a layer's canonical parameters ---- */


static int tensor_of(const json_t *t, struct bd_tensor *out)
{
    memset(out, 0, sizeof(*out));
    int nd = emit_shape(t, out->d);
    if (nd < 0)
        return -1;
    out->nd = nd;
    return 0;
}

static int64_t nelem(const struct bd_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        if (__builtin_mul_overflow(n, t->d[k], &n))
            return INT64_MAX; /* shape inference keeps tensors far below this */
    return n;
}

static int ints_attr(const json_t *attrs, const char *name, dnnl_dim_t *out, int n, dnnl_dim_t dflt)
{
    const json_t *a = json_object_get(attrs, name);
    for (int k = 0; k < n; k++)
        out[k] = a && (size_t)k < json_array_size(a) ? json_integer_value(json_array_get(a, (size_t)k)) : dflt;
    return a ? (int)json_array_size(a) : -1;
}



/* ---- layers -> operations ---- */

struct cpu_plan {
    int layouts;            /* 1, or BD_LAYOUT_COUNT for 4-D ops that run between convolutions */
    struct bd_op op;
    int algs[2];            /* algorithm kinds to enumerate (conv: direct and winograd) */
    int n_algs;
    struct { const char *arg; int output, fill; } args[BD_MAX_CAT + 1]; /* BD_MAX_ARGS of dnnl_bench.h */
    int nargs;
    double flops, bytes;    /* per run, f32 bytes (scaled by the type later) */
    int quant;              /* an int8 plan: one type, op.qsrc's */
};

static void arg(struct cpu_plan *p, const char *name, int output, int fill)
{
    BZ_ASSERT(p->nargs < (int)BZ_ARRAY_LEN(p->args));
    p->args[p->nargs].arg = name;
    p->args[p->nargs].output = output;
    p->args[p->nargs].fill = fill;
    p->nargs++;
}

/* a normalisation with its own statistics and a scale and shift (InstanceNormalization as
 * batch norm, LayerNormalization): epsilon, flags and arguments */
static void scale_shift_norm(struct cpu_plan *p, const json_t *attrs)
{
    p->op.eps = (float)emit_num_attr(attrs, "epsilon", 1e-5);
    p->op.flags = dnnl_use_scale | dnnl_use_shift;
    arg(p, "DNNL_ARG_SRC", 0, 0);
    arg(p, "DNNL_ARG_SCALE", 0, 0);
    arg(p, "DNNL_ARG_SHIFT", 0, 0);
    arg(p, "DNNL_ARG_DST", 1, 0);
}

/* eltwise algorithm for an ONNX activation, with its alpha/beta; 0 when oneDNN has none */
static int eltwise_alg(const char *op, const json_t *attrs, float *alpha, float *beta)
{
    static const struct { const char *op; int alg; float alpha, beta; } fixed[] = {
        {"Relu", dnnl_eltwise_relu, 0, 0},      {"Sigmoid", dnnl_eltwise_logistic, 0, 0},
        {"Tanh", dnnl_eltwise_tanh, 0, 0},      {"Exp", dnnl_eltwise_exp, 0, 0},
        {"Log", dnnl_eltwise_log, 0, 0},        {"Sqrt", dnnl_eltwise_sqrt, 0, 0},
        {"Abs", dnnl_eltwise_abs, 0, 0},        {"Softplus", dnnl_eltwise_soft_relu, 0, 0},
        {"HardSwish", dnnl_eltwise_hardswish, 0, 0}, {"Mish", dnnl_eltwise_mish, 0, 0},
        {"Round", dnnl_eltwise_round, 0, 0},    {"Neg", dnnl_eltwise_linear, -1, 0},
        {"Reciprocal", dnnl_eltwise_pow, 1, -1}, /* 1 * x^-1 */
    };
    *alpha = 0;
    *beta = 0;
    for (size_t i = 0; i < BZ_ARRAY_LEN(fixed); i++)
        if (!strcmp(op, fixed[i].op)) {
            *alpha = fixed[i].alpha;
            *beta = fixed[i].beta;
            return fixed[i].alg;
        }
    if (!strcmp(op, "LeakyRelu")) {
        *alpha = (float)emit_num_attr(attrs, "alpha", 0.01);
        return dnnl_eltwise_relu;
    }
    if (!strcmp(op, "Elu")) {
        *alpha = (float)emit_num_attr(attrs, "alpha", 1.0);
        return dnnl_eltwise_elu;
    }
    if (!strcmp(op, "Gelu"))
        return !strcmp(emit_str_attr(attrs, "approximate", "none"), "tanh") ? dnnl_eltwise_gelu_tanh
                                                                        : dnnl_eltwise_gelu_erf;
    if (!strcmp(op, "Clip")) {
        *alpha = (float)emit_num_attr(attrs, "min", -3.4e38);
        *beta = (float)emit_num_attr(attrs, "max", 3.4e38);
        return dnnl_eltwise_clip_v2;
    }
    return 0;
}

static int plan_conv(const json_t *params, struct cpu_plan *p, bool transposed)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct bd_tensor x, w, y;
    if (tensor_of(emit_io(params, "inputs", 0), &x) || tensor_of(emit_io(params, "inputs", 1), &w) ||
        tensor_of(emit_io(params, "outputs", 0), &y) || x.nd < 3 || x.nd > 5)
        return -1;
    struct bd_op *op = &p->op;
    op->family = transposed ? BD_DECONV : BD_CONV;
    op->nsp = x.nd - 2;
    op->src = x;
    op->dst = y;
    int64_t g = (int64_t)emit_num_attr(attrs, "group", 1);
    /* ONNX weights: conv [OC, IC/g, k..], transposed [IC, OC/g, k..]; oneDNN wants
     * [OC, IC, k..] or, grouped, [g, OC/g, IC/g, k..] */
    int64_t oc = y.d[1], ic = x.d[1];
    op->wei.nd = g > 1 ? w.nd + 1 : w.nd;
    int o = 0;
    if (g > 1)
        op->wei.d[o++] = g;
    op->wei.d[o++] = oc / g;
    op->wei.d[o++] = ic / g;
    for (int k = 2; k < w.nd; k++)
        op->wei.d[o++] = w.d[k];
    const json_t *b = emit_io(params, "inputs", 2);
    if (b) {
        op->has_bias = 1;
        tensor_of(b, &op->bias);
    }
    ints_attr(attrs, "strides", op->strides, op->nsp, 1);
    ints_attr(attrs, "dilations", op->dil, op->nsp, 1);
    dnnl_dims_t pads;
    ints_attr(attrs, "pads", pads, 2 * op->nsp, 0);
    for (int k = 0; k < op->nsp; k++) {
        op->pl[k] = pads[k];
        op->pr[k] = pads[k + op->nsp];
        op->kernel[k] = w.d[2 + k];
    }
    if (transposed) {
        /* oneDNN wants the right padding that yields the output size (output_padding is in it) */
        for (int k = 0; k < op->nsp; k++) {
            int64_t ek = (w.d[2 + k] - 1) * op->dil[k] + 1;
            op->pr[k] = op->strides[k] * (x.d[2 + k] - 1) + ek - op->pl[k] - y.d[2 + k];
        }
    }
    p->algs[0] = transposed ? dnnl_deconvolution_direct : dnnl_convolution_direct;
    p->algs[1] = transposed ? dnnl_deconvolution_winograd : dnnl_convolution_winograd;
    p->n_algs = 2;
    arg(p, "DNNL_ARG_SRC", 0, 0);
    arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    if (op->has_bias)
        arg(p, "DNNL_ARG_BIAS", 0, 0);
    arg(p, "DNNL_ARG_DST", 1, 0);
    int64_t kvol = 1;
    for (int k = 0; k < op->nsp; k++)
        kvol *= w.d[2 + k];
    p->flops = 2.0 * (double)nelem(transposed ? &x : &y) * (double)(transposed ? oc / g : ic / g) * (double)kvol;
    p->bytes = 4.0 * (double)(nelem(&x) + nelem(&w) + nelem(&y));
    return 0;
}

static dnnl_data_type_t quant_type(const json_t *t);

static int plan_pool(const json_t *params, const char *opname, struct cpu_plan *p)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct bd_tensor x, y;
    if (tensor_of(emit_io(params, "inputs", 0), &x) || tensor_of(emit_io(params, "outputs", 0), &y) || x.nd < 3 || x.nd > 5)
        return -1;
    struct bd_op *op = &p->op;
    op->family = BD_POOL;
    op->nsp = x.nd - 2;
    op->src = x;
    op->dst = y;
    bool global = !strncmp(opname, "Global", 6);
    bool max = strstr(opname, "Max") != NULL;
    if (global) {
        for (int k = 0; k < op->nsp; k++) {
            op->kernel[k] = x.d[2 + k];
            op->strides[k] = 1;
            op->dil[k] = 1;
        }
    } else {
        dnnl_dims_t pads;
        ints_attr(attrs, "kernel_shape", op->kernel, op->nsp, 1);
        ints_attr(attrs, "strides", op->strides, op->nsp, 1);
        ints_attr(attrs, "dilations", op->dil, op->nsp, 1);
        ints_attr(attrs, "pads", pads, 2 * op->nsp, 0);
        for (int k = 0; k < op->nsp; k++) {
            op->pl[k] = pads[k];
            /* ceil_mode: the right padding that gives the output size */
            int64_t ek = (op->kernel[k] - 1) * op->dil[k] + 1;
            op->pr[k] = (y.d[2 + k] - 1) * op->strides[k] + ek - x.d[2 + k] - op->pl[k];
            if (op->pr[k] < 0)
                op->pr[k] = 0;
        }
    }
    p->layouts = BD_LAYOUT_COUNT;
    op->alg = max ? dnnl_pooling_max
                  : (emit_num_attr(attrs, "count_include_pad", 0) ? dnnl_pooling_avg_include_padding
                                                            : dnnl_pooling_avg_exclude_padding);
    p->algs[0] = op->alg;
    p->n_algs = 1;
    arg(p, "DNNL_ARG_SRC", 0, 0);
    arg(p, "DNNL_ARG_DST", 1, 0);
    int64_t kvol = 1;
    for (int k = 0; k < op->nsp; k++)
        kvol *= op->kernel[k];
    p->flops = (double)nelem(&y) * (double)kvol;
    p->bytes = 4.0 * (double)(nelem(&x) + nelem(&y));
    /* MaxPool of a quantized tensor (QOperator models pool u8/s8): oneDNN's int8 pooling, in
     * the tensor's one type */
    dnnl_data_type_t q = quant_type(emit_io(params, "inputs", 0));
    if (q == dnnl_u8 || q == dnnl_s8) {
        if (!max || quant_type(emit_io(params, "outputs", 0)) != q)
            return -1;
        op->qsrc = op->qdst = op->dt = q;
        p->quant = 1;
        p->bytes /= 4;
    }
    return 0;
}

/* Gemm as an inner product ([M,K] x [N,K]^T + [N]) or as a matmul; MatMul as a matmul with
 * its batch dims broadcast. */
static int plan_matmul(const json_t *params, const char *opname, struct cpu_plan *p, bool ip)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct bd_tensor a, b, y;
    if (tensor_of(emit_io(params, "inputs", 0), &a) || tensor_of(emit_io(params, "inputs", 1), &b) ||
        tensor_of(emit_io(params, "outputs", 0), &y))
        return -1;
    struct bd_op *op = &p->op;
    bool gemm = !strcmp(opname, "Gemm");
    int64_t ta = gemm ? (int64_t)emit_num_attr(attrs, "transA", 0) : 0, tb = gemm ? (int64_t)emit_num_attr(attrs, "transB", 0) : 0;
    double alpha = gemm ? emit_num_attr(attrs, "alpha", 1) : 1, beta = gemm ? emit_num_attr(attrs, "beta", 1) : 1;
    /* Gemm's C: any shape that broadcasts to [M, N] is the matmul's bias (beta scales its
     * values, not the work: a bias of beta C); with beta 0 there is none */
    const json_t *c = gemm && beta != 0 ? emit_io(params, "inputs", 2) : NULL;
    struct bd_tensor ct;
    if (c && (tensor_of(c, &ct) || ct.nd > 2 || (ct.nd >= 1 && ct.d[ct.nd - 1] != 1 && ct.d[ct.nd - 1] != y.d[1]) ||
              (ct.nd == 2 && ct.d[0] != 1 && ct.d[0] != y.d[0])))
        return -1;
    if (ip) {
        /* the inner product frameworks use: weights [N, K], a bias per column, no scaling */
        if (!gemm || !tb || ta || alpha != 1.0 || (c && (ct.nd != 1 || ct.d[0] != y.d[1])))
            return -1;
        op->family = BD_IP;
        op->src = a;
        op->wei = b; /* [N, K] */
        op->dst = y;
        if (c) {
            op->has_bias = 1;
            op->bias = ct;
        }
    } else {
        op->family = BD_MATMUL;
        /* 1-D operands become matrices; batch dims padded to the output's rank */
        struct bd_tensor aa = a, bb = b;
        if (a.nd == 1) {
            aa.nd = 2;
            aa.d[0] = 1;
            aa.d[1] = a.d[0];
        }
        if (b.nd == 1) {
            bb.nd = 2;
            bb.d[0] = b.d[0];
            bb.d[1] = 1;
        }
        if (gemm && tb) {
            /* [N, K] stored: described as [K, N] with transposed strides */
            bb.d[0] = b.d[1];
            bb.d[1] = b.d[0];
            op->wei_transposed = 1;
        }
        if (gemm && ta) {
            /* [K, M] stored: described as [M, K] with transposed strides */
            aa.d[0] = a.d[1];
            aa.d[1] = a.d[0];
            op->src_transposed = 1;
        }
        if (alpha != 1.0)
            op->oscale = (float)alpha;
        int nd = aa.nd > bb.nd ? aa.nd : bb.nd;
        struct bd_tensor *ts[2] = {&aa, &bb};
        for (int t = 0; t < 2; t++) {
            int pad = nd - ts[t]->nd;
            for (int k = ts[t]->nd - 1; k >= 0; k--)
                ts[t]->d[k + pad] = ts[t]->d[k];
            for (int k = 0; k < pad; k++)
                ts[t]->d[k] = 1;
            ts[t]->nd = nd;
        }
        op->src = aa;
        op->wei = bb;
        op->dst.nd = nd;
        for (int k = 0; k < nd - 2; k++)
            op->dst.d[k] = aa.d[k] > bb.d[k] ? aa.d[k] : bb.d[k];
        op->dst.d[nd - 2] = aa.d[nd - 2];
        op->dst.d[nd - 1] = bb.d[nd - 1];
        if (c) {
            /* C aligned on the right, padded with 1 */
            op->has_bias = 1;
            op->bias.nd = nd;
            for (int k = 0; k < nd; k++)
                op->bias.d[k] = k >= nd - ct.nd ? ct.d[k - (nd - ct.nd)] : 1;
        }
    }
    p->algs[0] = 0;
    p->n_algs = 1;
    arg(p, "DNNL_ARG_SRC", 0, 0);
    arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    if (op->has_bias)
        arg(p, "DNNL_ARG_BIAS", 0, 0);
    arg(p, "DNNL_ARG_DST", 1, 0);
    int64_t k = ta ? a.d[0] : a.nd >= 1 ? a.d[a.nd - 1] : 1;
    p->flops = 2.0 * (double)nelem(&y) * (double)k;
    p->bytes = 4.0 * (double)(nelem(&a) + nelem(&b) + nelem(&y));
    return 0;
}

static int plan_binary(const json_t *params, const char *opname, struct cpu_plan *p)
{
    struct bd_tensor a, b, y;
    if (json_array_size(json_object_get(params, "inputs")) != 2 || tensor_of(emit_io(params, "inputs", 0), &a) ||
        tensor_of(emit_io(params, "inputs", 1), &b) || tensor_of(emit_io(params, "outputs", 0), &y))
        return -1;
    static const struct { const char *op; int alg; bool commutes; } algs[] = {
        {"Add", dnnl_binary_add, true}, {"Sum", dnnl_binary_add, true}, {"Mul", dnnl_binary_mul, true},
        {"Max", dnnl_binary_max, true}, {"Min", dnnl_binary_min, true}, {"Sub", dnnl_binary_sub, false},
        {"Div", dnnl_binary_div, false},
    };
    int alg = 0;
    bool commutes = false;
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
        if (!strcmp(algs[i].op, opname)) {
            alg = algs[i].alg;
            commutes = algs[i].commutes;
        }
    if (!alg)
        return -1;
    /* oneDNN broadcasts the second source only: the first must have the output's shape */
    bool a_full = a.nd == y.nd && !memcmp(a.d, y.d, sizeof(dnnl_dim_t) * (size_t)y.nd);
    bool b_full = b.nd == y.nd && !memcmp(b.d, y.d, sizeof(dnnl_dim_t) * (size_t)y.nd);
    if (!a_full) {
        if (!b_full || !commutes)
            return -1;
        struct bd_tensor t = a;
        a = b;
        b = t;
    }
    int pad = y.nd - b.nd;
    for (int k = b.nd - 1; k >= 0; k--)
        b.d[k + pad] = b.d[k];
    for (int k = 0; k < pad; k++)
        b.d[k] = 1;
    b.nd = y.nd;
    struct bd_op *op = &p->op;
    p->layouts = BD_LAYOUT_COUNT;
    op->family = BD_BINARY;
    op->src = a;
    op->src1 = b;
    op->dst = y;
    op->alg = alg;
    p->algs[0] = alg;
    p->n_algs = 1;
    arg(p, "DNNL_ARG_SRC_0", 0, 0);
    arg(p, "DNNL_ARG_SRC_1", 0, 0);
    arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = (double)nelem(&y);
    p->bytes = 4.0 * (double)(nelem(&a) + nelem(&b) + nelem(&y));
    return 0;
}

/* [d0..dn] -> [prod(d0..axis-1), prod(axis..dn)] */
static void flatten_at(struct bd_tensor *t, int axis)
{
    int64_t a = 1, b = 1;
    for (int k = 0; k < t->nd; k++) {
        if (k < axis)
            a *= t->d[k];
        else
            b *= t->d[k];
    }
    t->nd = 2;
    t->d[0] = a;
    t->d[1] = b;
}

/* LSTM / GRU / RNN: ONNX X [T, N, C] (layout 0; layout 1's [N, T, C] is the same work),
 * W [D, G*H, C], R [D, G*H, H]. oneDNN's layouts for weights and outputs are its own. */
static int plan_rnn(const json_t *params, const char *opname, struct cpu_plan *p)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct bd_tensor x, w;
    if (tensor_of(emit_io(params, "inputs", 0), &x) || tensor_of(emit_io(params, "inputs", 1), &w) || x.nd != 3 || w.nd != 3)
        return -1;
    bool batch_first = emit_num_attr(attrs, "layout", 0) != 0;
    int64_t T = batch_first ? x.d[1] : x.d[0], N = batch_first ? x.d[0] : x.d[1], C = x.d[2];
    int64_t D = w.d[0], G = !strcmp(opname, "LSTM") ? 4 : !strcmp(opname, "GRU") ? 3 : 1, H = w.d[1] / G;
    /* cell clipping, coupled input-forget gates and parametrised activations: oneDNN has none
     * (gen lists such a layer rather than time another cell) */
    if (json_object_get(attrs, "clip") || emit_num_attr(attrs, "input_forget", 0) != 0 ||
        json_object_get(attrs, "activation_alpha") || json_object_get(attrs, "activation_beta"))
        return -1;
    /* activations: per direction, LSTM f g h (Sigmoid Tanh Tanh), GRU f g (Sigmoid Tanh), RNN f
     * (Tanh); oneDNN's LSTM and GRU have only the defaults, its vanilla RNN Tanh, Relu or Sigmoid */
    const json_t *acts = json_object_get(attrs, "activations");
    int nf = G == 4 ? 3 : G == 3 ? 2 : 1, rnn_act = 0;
    if (acts && json_array_size(acts) != (size_t)(nf * D))
        return -1;
    for (int64_t k = 0; acts && k < nf * D; k++) {
        const char *a = json_string_value(json_array_get(acts, (size_t)k));
        int f = (int)(k % nf);
        if (!a)
            return -1;
        if (G == 1) {
            int alg = !strcmp(a, "Tanh") ? dnnl_eltwise_tanh : !strcmp(a, "Relu") ? dnnl_eltwise_relu
                      : !strcmp(a, "Sigmoid") ? dnnl_eltwise_logistic : 0;
            if (!alg || (k && alg != rnn_act))
                return -1; /* one activation for both directions */
            rnn_act = alg;
        } else if (strcmp(a, f == 0 ? "Sigmoid" : "Tanh") != 0) {
            return -1;
        }
    }
    const char *dir = emit_str_attr(attrs, "direction", "forward");
    struct bd_op *op = &p->op;
    op->family = BD_RNN;
    op->alg = G == 4 ? dnnl_vanilla_lstm : G == 3 ? (emit_num_attr(attrs, "linear_before_reset", 0) ? dnnl_lbr_gru : dnnl_vanilla_gru)
                                                 : dnnl_vanilla_rnn;
    op->axis = !strcmp(dir, "bidirectional") ? dnnl_bidirectional_concat
               : !strcmp(dir, "reverse")     ? dnnl_unidirectional_right2left
                                             : dnnl_unidirectional_left2right;
    op->src = (struct bd_tensor){3, {T, N, C}};
    op->dst = (struct bd_tensor){3, {T, N, D * H}};
    op->wei = (struct bd_tensor){5, {1, D, C, G, H}};
    op->src1 = (struct bd_tensor){5, {1, D, H, G, H}};
    op->bias = (struct bd_tensor){4, {1, D, op->alg == dnnl_lbr_gru ? G + 1 : G, H}};
    op->has_bias = 1;
    op->rnn_act = rnn_act == dnnl_eltwise_tanh ? 0 : rnn_act;
    op->peephole = G == 4 && emit_io(params, "inputs", 7) != NULL;
    p->algs[0] = op->alg;
    p->n_algs = 1;
    arg(p, "DNNL_ARG_SRC_LAYER", 0, 0);
    arg(p, "DNNL_ARG_SRC_ITER", 0, 0);
    if (G == 4)
        arg(p, "DNNL_ARG_SRC_ITER_C", 0, 0);
    /* weights at the scale of their fan-in: with uniform [-1, 1] the recurrence of a wide
     * layer is chaotic (spectral radius about sqrt(H / 3)), float rounding grows without
     * bound over the steps and no two correct implementations agree; at 1 / sqrt(fan-in) it
     * contracts and the gates stay out of saturation, so --verify can see a wrong cell */
    arg(p, "DNNL_ARG_WEIGHTS_LAYER", 0, C > 1 ? (int)C : 0);
    arg(p, "DNNL_ARG_WEIGHTS_ITER", 0, H > 1 ? (int)H : 0);
    if (op->peephole)
        arg(p, "DNNL_ARG_WEIGHTS_PEEPHOLE", 0, 0);
    arg(p, "DNNL_ARG_BIAS", 0, 0);
    arg(p, "DNNL_ARG_DST_LAYER", 1, 0);
    arg(p, "DNNL_ARG_DST_ITER", 1, 0);
    if (G == 4)
        arg(p, "DNNL_ARG_DST_ITER_C", 1, 0);
    p->flops = 2.0 * (double)(T * N * D * G * H) * (double)(C + H);
    p->bytes = 4.0 * (double)(T * N * C + T * N * D * H + D * G * H * (C + H));
    return 0;
}

/* oneDNN's int8 types for ONNX's quantized element types (0: none) */
static dnnl_data_type_t quant_type(const json_t *t)
{
    const char *n = t ? json_string_value(json_object_get(t, "dtype")) : NULL;
    return !n ? 0 : !strcmp(n, "UINT8") ? dnnl_u8 : !strcmp(n, "INT8") ? dnnl_s8 : !strcmp(n, "INT32") ? dnnl_s32 : 0;
}

/* A zero point of the key as a static oneDNN zero point: 0 when there is none; its value when
 * the key has one; when present but not known to gen (null), a nonzero one (u8: 128, s8: 1),
 * so that the benchmark takes the compensating path such a zero point needs. */
static int zero_point(const json_t *attrs, const char *name, dnnl_data_type_t dt)
{
    const json_t *z = json_object_get(attrs, name);
    if (json_is_integer(z))
        return (int)json_integer_value(z);
    return z ? (dt == dnnl_u8 ? 128 : 1) : 0;
}

/* QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger as oneDNN int8 primitives: the float
 * plan of the same operation (its weight or B read where the node has it), with the types
 * (oneDNN takes s8 weights: u8 ones are benchmarked as s8), the output scale of a QLinear
 * layer (per output channel when the weight's scale is) and the key's zero points. oneDNN's
 * convolutions take no weight zero point: a layer with a known nonzero one is refused, an
 * unknown one is taken as 0 (quantizers make int8 weights symmetric). */
static int plan_quant(const json_t *params, const char *opname, struct cpu_plan *p)
{
    bool conv = strstr(opname, "Conv") != NULL, qlinear = !strncmp(opname, "QLinear", 7);
    const json_t *attrs = json_object_get(params, "attrs");
    json_t *ins = json_array();
    json_array_append(ins, (json_t *)json_array_get(json_object_get(params, "inputs"), 0));
    json_array_append(ins, (json_t *)json_array_get(json_object_get(params, "inputs"), qlinear ? 3 : 1));
    if (conv && qlinear && emit_io(params, "inputs", 8))
        json_array_append(ins, (json_t *)emit_io(params, "inputs", 8));
    json_t *view = json_pack("{s:O,s:o,s:O}", "attrs", attrs ? attrs : json_object(), "inputs", ins, "outputs",
                             json_object_get(params, "outputs"));
    int rc = !view ? -1 : conv ? plan_conv(view, p, false) : plan_matmul(view, "MatMul", p, false);
    json_decref(view);
    if (rc)
        return -1;
    struct bd_op *op = &p->op;
    op->qsrc = quant_type(emit_io(params, "inputs", 0));
    op->qdst = quant_type(emit_io(params, "outputs", 0));
    op->qwei = dnnl_s8;
    if (op->has_bias)
        op->qbias = dnnl_s32;
    if ((op->qsrc != dnnl_u8 && op->qsrc != dnnl_s8) || !op->qdst || (qlinear && op->qdst == dnnl_s32) ||
        (!qlinear && op->qdst != dnnl_s32))
        return -1;
    op->dt = op->qsrc;
    op->zp_src = zero_point(attrs, conv ? "x_zero_point" : "a_zero_point", op->qsrc);
    if (conv && json_is_integer(json_object_get(attrs, "w_zero_point")) &&
        json_integer_value(json_object_get(attrs, "w_zero_point")) != 0)
        return -1;
    if (!conv)
        op->zp_wei = zero_point(attrs, "b_zero_point", dnnl_s8);
    if (qlinear) {
        op->zp_dst = zero_point(attrs, "y_zero_point", op->qdst);
        op->oscale = 1.0f / 64;
        struct bd_tensor ws;
        if (!tensor_of(emit_io(params, "inputs", 4), &ws) && nelem(&ws) > 1) {
            op->oscale_n = (int)op->dst.d[conv ? 1 : op->dst.nd - 1];
            op->oscale_mask = 1 << (conv ? 1 : op->dst.nd - 1);
        }
    }
    p->quant = 1;
    return 0;
}

static int plan_layer(const json_t *params, struct cpu_plan *p)
{
    memset(p, 0, sizeof(*p));
    const char *opname = json_string_value(json_object_get(params, "op"));
    const json_t *attrs = json_object_get(params, "attrs");
    if (!opname || strcmp(json_string_value(json_object_get(params, "domain")), "") != 0)
        return -1;
    if (!strcmp(opname, "QLinearConv") || !strcmp(opname, "ConvInteger") || !strcmp(opname, "QLinearMatMul") ||
        !strcmp(opname, "MatMulInteger"))
        return plan_quant(params, opname, p);
    if (!strcmp(opname, "Conv"))
        return plan_conv(params, p, false);
    if (!strcmp(opname, "ConvTranspose"))
        return plan_conv(params, p, true);
    if (strstr(opname, "Pool") && strcmp(opname, "LpPool") && strcmp(opname, "GlobalLpPool"))
        return plan_pool(params, opname, p);
    if (!strcmp(opname, "Gemm") || !strcmp(opname, "MatMul"))
        return plan_matmul(params, opname, p, false);
    if (!strcmp(opname, "LSTM") || !strcmp(opname, "GRU") || !strcmp(opname, "RNN"))
        return plan_rnn(params, opname, p);
    if (!strcmp(opname, "Add") || !strcmp(opname, "Sub") || !strcmp(opname, "Mul") || !strcmp(opname, "Div") ||
        !strcmp(opname, "Max") || !strcmp(opname, "Min") || !strcmp(opname, "Sum"))
        return plan_binary(params, opname, p);
    struct bd_tensor x, y;
    if (tensor_of(emit_io(params, "inputs", 0), &x) || tensor_of(emit_io(params, "outputs", 0), &y))
        return -1;
    struct bd_op *op = &p->op;
    op->src = x;
    op->dst = y;
    p->n_algs = 1;
    p->bytes = 4.0 * (double)(nelem(&x) + nelem(&y));
    p->flops = (double)nelem(&y);
    if (!strcmp(opname, "Concat")) {
        size_t n = json_array_size(json_object_get(params, "inputs"));
        if (n < 2 || n > BD_MAX_CAT || tensor_of(emit_io(params, "inputs", 1), &op->src1))
            return -1;
        for (size_t i = 2; i < n; i++)
            if (tensor_of(emit_io(params, "inputs", i), &op->cat[i - 2]))
                return -1;
        op->ncat = (int)n - 2;
        op->family = BD_CONCAT;
        op->axis = (int)emit_num_attr(attrs, "axis", 0);
        if (op->axis < 0)
            op->axis += x.nd;
        p->layouts = BD_LAYOUT_COUNT;
        static char srcs[BD_MAX_CAT][32];
        for (size_t i = 0; i < n; i++) {
            snprintf(srcs[i], sizeof(srcs[i]), "DNNL_ARG_MULTIPLE_SRC + %zu", i);
            arg(p, srcs[i], 0, 0);
        }
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = 0;
        p->bytes = 8.0 * (double)nelem(&y);
        return 0;
    }
    if (!strcmp(opname, "Resize") || !strcmp(opname, "Upsample")) {
        const char *mode = emit_str_attr(attrs, "mode", "nearest");
        if (x.nd < 3 || x.nd > 5)
            return -1;
        if (!strcmp(mode, "nearest"))
            op->alg = dnnl_resampling_nearest;
        else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
            op->alg = dnnl_resampling_linear;
        else
            return -1; /* cubic: oneDNN has none */
        /* oneDNN resamples the spatial dims only */
        if (x.d[0] != y.d[0] || x.d[1] != y.d[1])
            return -1;
        op->family = BD_RESAMPLING;
        p->algs[0] = op->alg;
        p->layouts = BD_LAYOUT_COUNT;
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = (double)nelem(&y) * (op->alg == dnnl_resampling_linear ? 8.0 : 1.0);
        return 0;
    }
    if (!strcmp(opname, "PRelu")) {
        struct bd_tensor slope;
        if (tensor_of(emit_io(params, "inputs", 1), &slope) || slope.nd > x.nd)
            return -1;
        /* the slope broadcast to the input's rank */
        op->wei.nd = x.nd;
        for (int k = 0; k < x.nd; k++)
            op->wei.d[k] = k < x.nd - slope.nd ? 1 : slope.d[k - (x.nd - slope.nd)];
        op->family = BD_PRELU;
        p->layouts = BD_LAYOUT_COUNT;
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        return 0;
    }
    if (!strcmp(opname, "Transpose")) {
        const json_t *perm = json_object_get(attrs, "perm");
        op->family = BD_REORDER;
        for (int k = 0; k < x.nd; k++)
            op->perm[k] = perm ? (int)json_integer_value(json_array_get(perm, (size_t)k)) : x.nd - 1 - k;
        op->dst = x; /* logical dims: the input's; the layout carries the permutation */
        arg(p, "DNNL_ARG_FROM", 0, 0);
        arg(p, "DNNL_ARG_TO", 1, 0);
        p->flops = 0;
        return 0;
    }
    if (!strcmp(opname, "DepthToSpace") || !strcmp(opname, "SpaceToDepth")) {
        /* a permutation of a 6-D view of the input: DepthToSpace DCR reads [N,b,b,C',H,W] as
         * [N,C',H,b,W,b], CRD reads [N,C',b,b,H,W]; SpaceToDepth reads [N,C,H',b,W',b] as
         * [N,b,b,C,H',W'] */
        int64_t bs = (int64_t)emit_num_attr(attrs, "blocksize", 0);
        if (x.nd != 4 || bs < 1)
            return -1;
        int64_t N = x.d[0], C = x.d[1], H = x.d[2], W = x.d[3];
        op->family = BD_REORDER;
        if (opname[0] == 'D') {
            if (C % (bs * bs))
                return -1;
            bool crd = !strcmp(emit_str_attr(attrs, "mode", "DCR"), "CRD");
            static const int dcr[6] = {0, 3, 4, 1, 5, 2}, crd_perm[6] = {0, 1, 4, 2, 5, 3};
            op->src = crd ? (struct bd_tensor){6, {N, C / (bs * bs), bs, bs, H, W}}
                          : (struct bd_tensor){6, {N, bs, bs, C / (bs * bs), H, W}};
            memcpy(op->perm, crd ? crd_perm : dcr, sizeof(dcr));
        } else {
            if (H % bs || W % bs)
                return -1;
            static const int s2d[6] = {0, 3, 5, 1, 2, 4};
            op->src = (struct bd_tensor){6, {N, C, H / bs, bs, W / bs, bs}};
            memcpy(op->perm, s2d, sizeof(s2d));
        }
        op->dst = op->src;
        arg(p, "DNNL_ARG_FROM", 0, 0);
        arg(p, "DNNL_ARG_TO", 1, 0);
        p->flops = 0;
        return 0;
    }
    float alpha, beta;
    int ealg = eltwise_alg(opname, attrs, &alpha, &beta);
    if (ealg) {
        p->layouts = BD_LAYOUT_COUNT;
        op->family = BD_ELTWISE;
        op->alg = p->algs[0] = ealg;
        op->alpha = alpha;
        op->beta = beta;
        arg(p, "DNNL_ARG_SRC", 0, !strcmp(opname, "Log") || !strcmp(opname, "Sqrt") || !strcmp(opname, "Reciprocal"));
        arg(p, "DNNL_ARG_DST", 1, 0);
        return 0;
    }
    if (!strcmp(opname, "BatchNormalization")) {
        if (x.nd < 2)
            return -1;
        p->layouts = BD_LAYOUT_COUNT;
        op->family = BD_BNORM;
        op->eps = (float)emit_num_attr(attrs, "epsilon", 1e-5);
        op->flags = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift;
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_MEAN", 0, 0);
        arg(p, "DNNL_ARG_VARIANCE", 0, 1);
        arg(p, "DNNL_ARG_SCALE", 0, 0);
        arg(p, "DNNL_ARG_SHIFT", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = 2.0 * (double)nelem(&y);
        return 0;
    }
    if (!strcmp(opname, "InstanceNormalization")) {
        /* per (image, channel) statistics over the spatial dims: oneDNN's batch norm computing
         * its own statistics over the view [1, N*C, spatial...] (scale and shift repeated per
         * image), in the plain layout only (a blocked layout of N*C is not one of the model's) */
        if (x.nd < 3)
            return -1;
        op->src.d[0] = 1;
        op->src.d[1] = x.d[0] * x.d[1];
        op->dst = op->src;
        op->family = BD_BNORM;
        scale_shift_norm(p, attrs);
        p->flops = 5.0 * (double)nelem(&y); /* mean, variance, normalise */
        return 0;
    }
    if (!strcmp(opname, "LayerNormalization")) {
        int axis = (int)emit_num_attr(attrs, "axis", x.nd - 1);
        if (axis != x.nd - 1) {
            flatten_at(&op->src, axis);
            flatten_at(&op->dst, axis);
        }
        op->family = BD_LNORM;
        scale_shift_norm(p, attrs);
        p->flops = 5.0 * (double)nelem(&y);
        return 0;
    }
    if (!strcmp(opname, "Softmax") || !strcmp(opname, "LogSoftmax")) {
        int axis = (int)emit_num_attr(attrs, "axis", x.nd - 1);
        if (emit_num_attr(attrs, "coerce_2d", 0)) {
            flatten_at(&op->src, axis);
            flatten_at(&op->dst, axis);
            axis = 1;
        }
        op->family = BD_SOFTMAX;
        op->axis = axis;
        op->alg = p->algs[0] = !strcmp(opname, "Softmax") ? dnnl_softmax_accurate : dnnl_softmax_log;
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = 4.0 * (double)nelem(&y);
        return 0;
    }
    if (!strcmp(opname, "LRN")) {
        p->layouts = BD_LAYOUT_COUNT;
        op->family = BD_LRN;
        op->alg = p->algs[0] = dnnl_lrn_across_channels;
        op->local_size = (dnnl_dim_t)emit_num_attr(attrs, "size", 5);
        op->alpha = (float)emit_num_attr(attrs, "alpha", 1e-4);
        op->beta = (float)emit_num_attr(attrs, "beta", 0.75);
        op->eps = (float)emit_num_attr(attrs, "bias", 1.0); /* oneDNN's k */
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = (double)nelem(&y) * (double)(op->local_size + 3);
        return 0;
    }
    static const struct { const char *op; int alg; float p; } reductions[] = {
        {"ReduceMean", dnnl_reduction_mean, 0}, {"ReduceSum", dnnl_reduction_sum, 0},
        {"ReduceMax", dnnl_reduction_max, 0},   {"ReduceMin", dnnl_reduction_min, 0},
        {"ReduceProd", dnnl_reduction_mul, 0},  {"ReduceL2", dnnl_reduction_norm_lp_sum, 2},
        {"ReduceL1", dnnl_reduction_norm_lp_sum, 1},
    };
    for (size_t i = 0; i < sizeof(reductions) / sizeof(reductions[0]); i++) {
        if (strcmp(reductions[i].op, opname) != 0)
            continue;
        /* the output with the reduced dims kept as 1 (keepdims only changes the view) */
        op->dst = x;
        emit_reduced_dims(attrs, op->dst.d, x.nd);
        op->family = BD_REDUCTION;
        op->alg = p->algs[0] = reductions[i].alg;
        op->p = reductions[i].p;
        arg(p, "DNNL_ARG_SRC", 0, 0);
        arg(p, "DNNL_ARG_DST", 1, 0);
        p->flops = (double)nelem(&x);
        return 0;
    }
    return -1;
}

/* A fusion group as one oneDNN primitive: the first member's operation with the batch norm
 * folded into the weights and bias, and the activation as an eltwise post-op. */
static int plan_fused(const json_t *params, struct cpu_plan *p)
{
    const char *pattern = json_string_value(json_object_get(params, "pattern"));
    const json_t *members = json_object_get(params, "members");
    const json_t *first = json_array_get(members, 0);
    if (!pattern || !first)
        return -1;
    bool conv = !strncmp(pattern, "conv_", 5), gemm = !strncmp(pattern, "gemm_", 5);
    if (!strcmp(pattern, "gelu") || !strcmp(pattern, "layernorm")) {
        /* the group's input is the first member's first input, its output the last member's */
        struct bd_tensor x, y;
        const json_t *last = json_array_get(members, json_array_size(members) - 1);
        if (tensor_of(emit_io(first, "inputs", 0), &x) || tensor_of(emit_io(last, "outputs", 0), &y))
            return -1;
        memset(p, 0, sizeof(*p));
        p->op.src = x;
        p->op.dst = y;
        p->n_algs = 1;
        p->bytes = 4.0 * (double)(nelem(&x) + nelem(&y));
        if (!strcmp(pattern, "gelu")) {
            p->op.family = BD_ELTWISE;
            p->op.alg = p->algs[0] = dnnl_eltwise_gelu_erf;
            p->flops = 8.0 * (double)nelem(&y);
            arg(p, "DNNL_ARG_SRC", 0, 0);
            arg(p, "DNNL_ARG_DST", 1, 0);
            return 0;
        }
        /* decomposed LayerNorm over the last axis (what the pattern matched), with scale and
         * shift when its Mul/Add are there; the epsilon does not change the time */
        p->op.family = BD_LNORM;
        p->op.eps = 1e-5f;
        bool affine = json_array_size(members) >= 9;
        p->op.flags = affine ? dnnl_use_scale | dnnl_use_shift : 0;
        p->flops = 5.0 * (double)nelem(&y);
        arg(p, "DNNL_ARG_SRC", 0, 0);
        if (affine) {
            arg(p, "DNNL_ARG_SCALE", 0, 0);
            arg(p, "DNNL_ARG_SHIFT", 0, 0);
        }
        arg(p, "DNNL_ARG_DST", 1, 0);
        return 0;
    }
    if (!strncmp(pattern, "qdq_", 4)) {
        /* DequantizeLinear -> Conv or MatMul [-> Relu] -> QuantizeLinear: one int8 primitive
         * (the frameworks' QLinearConv / QLinearMatMul): the types and zero points of the two
         * ends, per-tensor output scale, the activation as a post-op */
        size_t n = json_array_size(members);
        const json_t *core = json_array_get(members, 1), *q = json_array_get(members, n - 1);
        bool qconv = !strncmp(pattern, "qdq_conv", 8);
        if (n < 3 || (qconv ? plan_conv(core, p, false) : plan_matmul(core, "MatMul", p, false)))
            return -1;
        struct bd_op *op = &p->op;
        op->qsrc = quant_type(emit_io(first, "inputs", 0));
        op->qdst = quant_type(emit_io(q, "outputs", 0));
        op->qwei = dnnl_s8;
        if ((op->qsrc != dnnl_u8 && op->qsrc != dnnl_s8) || (op->qdst != dnnl_u8 && op->qdst != dnnl_s8))
            return -1;
        op->dt = op->qsrc;
        op->zp_src = zero_point(json_object_get(first, "attrs"), "zero_point", op->qsrc);
        op->zp_dst = zero_point(json_object_get(q, "attrs"), "zero_point", op->qdst);
        op->oscale = 1.0f / 64;
        if (n == 4) {
            float alpha, beta;
            const json_t *act = json_array_get(members, 2);
            op->post_alg = eltwise_alg(json_string_value(json_object_get(act, "op")), json_object_get(act, "attrs"),
                                       &alpha, &beta);
            op->post_alpha = alpha;
            op->post_beta = beta;
            if (!op->post_alg)
                return -1;
        }
        p->quant = 1;
        return 0;
    }
    if (!conv && !gemm)
        return -1;
    if (conv ? plan_conv(first, p, false) : plan_matmul(first, json_string_value(json_object_get(first, "op")), p, false))
        return -1;
    struct bd_op *op = &p->op;
    if (!strncmp(pattern, "conv_bn", 7) || !strcmp(pattern, "gemm_bias") || !strcmp(pattern, "gemm_bias_act")) {
        if (!op->has_bias) {
            /* a folded BN or the Add becomes the primitive's bias */
            op->has_bias = 1;
            if (conv) {
                op->bias.nd = 1;
                op->bias.d[0] = op->dst.d[1];
            } else {
                op->bias.nd = op->dst.nd;
                for (int k = 0; k < op->dst.nd - 1; k++)
                    op->bias.d[k] = 1;
                op->bias.d[op->dst.nd - 1] = op->dst.d[op->dst.nd - 1];
            }
            /* the BIAS argument goes before DST */
            p->args[p->nargs] = p->args[p->nargs - 1];
            p->args[p->nargs - 1].arg = "DNNL_ARG_BIAS";
            p->args[p->nargs - 1].output = 0;
            p->args[p->nargs - 1].fill = 0;
            p->nargs++;
        }
    }
    op->post_sum = strstr(pattern, "_add") != NULL;
    const json_t *last = emit_fused_act(params);
    const char *act = last ? json_string_value(json_object_get(last, "op")) : NULL;
    if (act) {
        float alpha, beta;
        op->post_alg = eltwise_alg(act, json_object_get(last, "attrs"), &alpha, &beta);
        if (!op->post_alg)
            return -1;
        op->post_alpha = alpha;
        op->post_beta = beta;
    }
    return 0;
}

/* ---- plain C: what oneDNN does not have ---- */

static int onnx_dtype(const json_t *t)
{
    const char *n = t ? json_string_value(json_object_get(t, "dtype")) : NULL;
    static const struct { const char *name; int dt; } types[] = {
        {"FLOAT", PL_FLOAT},       {"DOUBLE", PL_DOUBLE},   {"INT64", PL_INT64},   {"INT32", PL_INT32},
        {"INT16", PL_INT16},       {"INT8", PL_INT8},       {"UINT8", PL_UINT8},   {"UINT16", PL_UINT16},
        {"UINT32", PL_UINT32},     {"UINT64", PL_UINT64},   {"BOOL", PL_BOOL},     {"FLOAT16", PL_FLOAT16},
        {"BFLOAT16", PL_BFLOAT16}, {"STRING", PL_STRING},
    };
    for (size_t i = 0; n && i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcmp(types[i].name, n))
            return types[i].dt;
    return 0;
}

static int pl_tensor_of(const json_t *t, struct pl_tensor *out)
{
    struct bd_tensor b;
    if (tensor_of(t, &b) || !(out->dtype = onnx_dtype(t)))
        return -1;
    out->nd = b.nd;
    for (int k = 0; k < b.nd; k++)
        out->d[k] = b.d[k];
    return 0;
}

static bool same_dims(const struct pl_tensor *a, const struct pl_tensor *b)
{
    return a->nd == b->nd && !memcmp(a->d, b->d, sizeof(a->d[0]) * (size_t)a->nd);
}

static int norm_axis(int64_t axis, int rank)
{
    if (axis < 0)
        axis += rank;
    return axis >= 0 && axis < rank ? (int)axis : -1;
}

/* The kinds of plain_index.h and plain_reduce.h: their parameters, and the checks that keep
 * every kernel inside its buffers (shapes that do not fit together are refused). */
static int plan_plain_more(const char *name, const json_t *attrs, struct pl_op *op)
{
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    switch (op->kind) {
    case PL_GATHER_ELEMENTS:
    case PL_SCATTER_ELEMENTS: {
        const struct pl_tensor *ix = &op->in[1];
        if ((op->axis = norm_axis((int64_t)emit_num_attr(attrs, "axis", 0), x->nd)) < 0 || ix->nd != x->nd)
            return -1;
        for (int k = 0; k < x->nd; k++)
            if (ix->d[k] > x->d[k] && k != op->axis)
                return -1;
        if (op->kind == PL_GATHER_ELEMENTS ? !same_dims(y, ix) || y->dtype != x->dtype
                                           : !same_dims(&op->in[2], ix) || !same_dims(y, x) || op->in[2].dtype != x->dtype)
            return -1;
        if (op->kind == PL_SCATTER_ELEMENTS) {
            static const char *const how[] = {"none", "add", "mul", "max", "min"};
            const char *red = emit_str_attr(attrs, "reduction", "none");
            op->flag = -1;
            for (int j = 0; j < 5; j++)
                if (!strcmp(red, how[j]))
                    op->flag = j;
            if (op->flag < 0)
                return -1;
        }
        op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
        return 0;
    }
    case PL_GATHER_ND: {
        const struct pl_tensor *ix = &op->in[1];
        int64_t b = (int64_t)emit_num_attr(attrs, "batch_dims", 0);
        int q = ix->nd ? (int)ix->d[ix->nd - 1] : 0;
        if (ix->nd < 1 || q < 1 || b < 0 || b + q > x->nd || b >= ix->nd || y->nd != ix->nd - 1 + x->nd - (int)b - q ||
            y->dtype != x->dtype)
            return -1;
        for (int k = 0; k < b; k++)
            if (ix->d[k] != x->d[k])
                return -1;
        for (int k = 0; k < y->nd; k++)
            if (y->d[k] != (k < ix->nd - 1 ? ix->d[k] : x->d[k - (ix->nd - 1) + b + q]))
                return -1;
        op->k = b;
        op->in[1].dtype = PL_INT64;
        return 0;
    }
    case PL_CUMSUM: {
        /* the axis is an input: its value is in the key when gen knew it */
        const json_t *a = json_object_get(attrs, "axis");
        if (!json_is_integer(a) || (op->axis = norm_axis(json_integer_value(a), x->nd)) < 0 || !same_dims(y, x))
            return -1;
        op->flag = (emit_num_attr(attrs, "exclusive", 0) != 0) | (emit_num_attr(attrs, "reverse", 0) != 0) << 1;
        return 0;
    }
    case PL_TRILU: {
        const json_t *k = json_object_get(attrs, "k");
        if (x->nd < 2 || !same_dims(y, x) || (k && !json_is_integer(k)))
            return -1;
        op->k = k ? json_integer_value(k) : 0;
        op->flag = emit_num_attr(attrs, "upper", 1) != 0;
        return 0;
    }
    case PL_ONEHOT: {
        if ((op->axis = norm_axis((int64_t)emit_num_attr(attrs, "axis", -1), y->nd)) < 0 || y->nd != x->nd + 1 ||
            pl_count(&op->in[1]) != 1 || pl_count(&op->in[2]) != 2 || y->dtype != op->in[2].dtype)
            return -1;
        for (int k = 0, j = 0; k < y->nd; k++)
            if (k != op->axis && y->d[k] != x->d[j++])
                return -1;
        return 0;
    }
    case PL_REVERSE_SEQUENCE: {
        int t = norm_axis((int64_t)emit_num_attr(attrs, "time_axis", 0), x->nd);
        int b = norm_axis((int64_t)emit_num_attr(attrs, "batch_axis", 1), x->nd);
        if (t < 0 || b < 0 || t == b || !same_dims(y, x) || pl_count(&op->in[1]) != x->d[b])
            return -1;
        op->axis = t;
        op->k = b;
        op->in[1].dtype = PL_INT64;
        return 0;
    }
    case PL_EYELIKE:
        if (x->nd != 2 || !same_dims(y, x))
            return -1;
        op->k = (int64_t)emit_num_attr(attrs, "k", 0);
        return 0;
    case PL_RANGE:
        if (y->nd != 1 || pl_count(&op->in[0]) != 1 || pl_count(&op->in[1]) != 1 || pl_count(&op->in[2]) != 1 ||
            op->in[0].dtype != y->dtype)
            return -1;
        return 0;
    case PL_HARDMAX: {
        /* the axis and the pre-13 2-D view, as the key's canonical form has them */
        if ((op->axis = norm_axis((int64_t)emit_num_attr(attrs, "axis", -1), x->nd)) < 0 || !same_dims(y, x))
            return -1;
        op->flag = emit_num_attr(attrs, "coerce_2d", 0) != 0;
        return 0;
    }
    case PL_REDUCE:
    case PL_MVN: {
        /* the reduced axes (the key lists them, positive); MVN's default is [0, 2, 3] */
        const json_t *axes = json_object_get(attrs, "axes");
        static const int64_t mvn[3] = {0, 2, 3};
        size_t na = axes ? json_array_size(axes) : op->kind == PL_MVN ? 3 : 0;
        op->axes = 0;
        for (size_t j = 0; j < na; j++) {
            int a = norm_axis(axes ? json_integer_value(json_array_get(axes, j)) : mvn[j], x->nd);
            if (a < 0)
                return -1;
            op->axes |= 1u << a;
        }
        int64_t groups = 1;
        for (int k = 0; k < x->nd; k++)
            if (!(op->axes >> k & 1u))
                groups *= x->d[k];
        if (op->kind == PL_MVN ? !same_dims(y, x) : pl_count(y) != groups)
            return -1;
        (void)name;
        return 0;
    }
    case PL_QUANTIZE:
    case PL_DEQUANTIZE: {
        /* a per-tensor scale, or one per element of the axis (the zero point alike) */
        int64_t ns = pl_count(&op->in[1]);
        if (!same_dims(y, x) || !pl_is_float(op->kind == PL_QUANTIZE ? x->dtype : y->dtype) ||
            pl_is_float(op->kind == PL_QUANTIZE ? y->dtype : x->dtype) || !pl_is_float(op->in[1].dtype) ||
            (op->nin > 2 && (pl_count(&op->in[2]) != ns || pl_is_float(op->in[2].dtype))))
            return -1;
        if (ns > 1 && ((op->axis = norm_axis((int64_t)emit_num_attr(attrs, "axis", 1), x->nd)) < 0 ||
                       x->d[op->axis] != ns))
            return -1;
        return 0;
    }
    case PL_DYNQUANT:
        return same_dims(y, x) && x->dtype == PL_FLOAT && y->dtype == PL_UINT8 ? 0 : -1;
    default:
        return -1;
    }
}

/* index of s in list (n names), or -1 */
static int name_index(const char *s, const char *const *list, int n)
{
    for (int i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return i;
    return -1;
}

/* Resize/Upsample and GridSample: the modes, scales and roi from the key (gen's canonical
 * form, generator/ops/resize.c); refused where the key does not say them */
static int plan_plain_sample(const json_t *attrs, struct pl_op *op)
{
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    const struct pl_tensor *x = &op->in[0];
    struct pl_sample *rs = &op->rs;
    const char *mode = emit_str_attr(attrs, "mode", "nearest");
    rs->mode = name_index(!strcmp(mode, "bilinear") ? "linear" : !strcmp(mode, "bicubic") ? "cubic" : mode, modes, 3);
    if (rs->mode < 0 || x->dtype == PL_BOOL || op->out.dtype != x->dtype)
        return -1;
    if (op->kind == PL_GRID_SAMPLE) {
        /* X [N, C, D1..Dr], grid [N, H1..Hr, r] -> [N, C, H1..Hr] */
        static const char *const pads[] = {"zeros", "border", "reflection"};
        const struct pl_tensor *g = &op->in[1];
        int r = x->nd - 2;
        rs->nearest = name_index(emit_str_attr(attrs, "padding_mode", "zeros"), pads, 3);
        rs->coord = emit_num_attr(attrs, "align_corners", 0) != 0;
        if (r < 1 || r > 5 || rs->nearest < 0 || !pl_is_float(g->dtype) || g->nd != x->nd || g->d[x->nd - 1] != r ||
            op->out.nd != x->nd || g->d[0] != x->d[0] || op->out.d[0] != x->d[0] || op->out.d[1] != x->d[1])
            return -1;
        for (int k = 0; k < r; k++)
            if (op->out.d[2 + k] != g->d[1 + k])
                return -1;
        return 0;
    }
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                         "asymmetric", "tf_crop_and_resize"};
    static const char *const rounds[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    rs->coord = name_index(emit_str_attr(attrs, "coordinate_transformation_mode", "half_pixel"), coords, 6);
    rs->nearest = name_index(emit_str_attr(attrs, "nearest_mode", "round_prefer_floor"), rounds, 4);
    rs->cubic_a = emit_num_attr(attrs, "cubic_coeff_a", -0.75);
    rs->exclude_outside = emit_num_attr(attrs, "exclude_outside", 0) != 0;
    rs->extrapolation = emit_num_attr(attrs, "extrapolation_value", 0);
    rs->antialias = emit_num_attr(attrs, "antialias", 0) != 0;
    const json_t *scales = json_object_get(attrs, "scales"), *roi = json_object_get(attrs, "roi");
    if (rs->coord < 0 || rs->nearest < 0 || x->nd != op->out.nd || json_array_size(scales) != (size_t)x->nd ||
        (rs->antialias && rs->mode == PL_SAMPLE_NEAREST))
        return -1;
    for (int k = 0; k < x->nd; k++) {
        rs->scale[k] = json_number_value(json_array_get(scales, (size_t)k));
        if (!(rs->scale[k] > 0) || (x->d[k] == 0) != (op->out.d[k] == 0))
            return -1;
    }
    if (rs->coord == PL_COORD_TF_CROP_AND_RESIZE) {
        if (json_array_size(roi) != (size_t)(2 * x->nd))
            return -1;
        for (int k = 0; k < 2 * x->nd; k++)
            rs->roi[k] = json_number_value(json_array_get(roi, (size_t)k));
    }
    for (int k = 0; k < x->nd; k++)
        if (pl_resize_ntaps(op, k) > 64)
            return -1; /* an antialiasing window this wide: the reference takes 64 taps */
    return 0;
}

/* Einsum: the key's explicit equation (generator/ops/linalg.c) as labels of every dim; the
 * ellipsis' dims, aligned on the right, are labels of their own (ids 52 on); the output's
 * labels numbered first, then the summed ones in order of appearance */
static int plan_plain_einsum(const json_t *attrs, struct pl_op *op)
{
    const char *eq = emit_str_attr(attrs, "equation", NULL);
    const char *arrow = eq ? strstr(eq, "->") : NULL;
    if (!arrow || op->out.dtype == PL_BOOL)
        return -1;
    enum { NIDS = 52 + 8 };
    int id_of[NIDS], nlab = 0, ell = 0;
    signed char raw[PL_MAX_IN + 1][8]; /* ids before numbering */
    int64_t size[NIDS];
    for (int k = 0; k < NIDS; k++) {
        id_of[k] = -1;
        size[k] = -1;
    }
    /* the ellipsis rank: the largest an input's term leaves for it */
    const char *p = eq;
    for (int i = 0; i < op->nin; i++) {
        int letters = 0, dots = 0;
        for (; *p && *p != ',' && p != arrow; p++)
            letters += isalpha((unsigned char)*p) != 0, dots += *p == '.';
        if (dots != 0 && dots != 3)
            return -1;
        int er = op->in[i].nd - letters;
        if (er < 0 || (er > 0 && !dots) || op->in[i].dtype != op->out.dtype)
            return -1;
        ell = er > ell ? er : ell;
        if (*p == ',')
            p++;
    }
    if (p != arrow)
        return -1; /* more terms than inputs */
    p = eq;
    for (int i = 0; i <= op->nin; i++) {
        const struct pl_tensor *t = i < op->nin ? &op->in[i] : &op->out;
        const char *end = i < op->nin ? p + strcspn(p, ",-") : p + strlen(p);
        if (i == op->nin)
            p = arrow + 2, end = p + strlen(p);
        int letters = 0;
        for (const char *q = p; q < end; q++)
            letters += isalpha((unsigned char)*q) != 0;
        int er = t->nd - letters, dim = 0;
        if (er < 0 || t->nd > 8)
            return -1;
        for (const char *q = p; q < end; q++) {
            if (*q == '.') {
                for (int e = 0; e < er; e++, dim++)
                    raw[i][dim] = (signed char)(52 + ell - er + e);
                q += 2;
                continue;
            }
            if (!isalpha((unsigned char)*q))
                return -1;
            raw[i][dim++] = (signed char)(*q >= 'a' ? *q - 'a' + 26 : *q - 'A');
        }
        if (dim != t->nd)
            return -1;
        for (int k = 0; k < t->nd; k++) {
            int id = raw[i][k];
            if (size[id] < 0 || size[id] == 1)
                size[id] = t->d[k];
            else if (t->d[k] != 1 && t->d[k] != size[id])
                return -1; /* dims that do not fit */
        }
        p = end + (i < op->nin && *end == ',');
    }
    /* output labels first (each once), then the summed ones */
    for (int k = 0; k < op->out.nd; k++) {
        int id = raw[op->nin][k];
        if (id_of[id] >= 0 || size[id] != op->out.d[k])
            return -1;
        id_of[id] = nlab++;
    }
    op->es.nout = nlab;
    for (int i = 0; i < op->nin; i++)
        for (int k = 0; k < op->in[i].nd; k++)
            if (id_of[raw[i][k]] < 0) {
                if (nlab == PL_EINSUM_LABELS)
                    return -1;
                id_of[raw[i][k]] = nlab++;
            }
    op->es.nlab = nlab;
    for (int id = 0; id < NIDS; id++)
        if (id_of[id] >= 0)
            op->es.size[id_of[id]] = size[id];
    for (int i = 0; i <= op->nin; i++) {
        const struct pl_tensor *t = i < op->nin ? &op->in[i] : &op->out;
        for (int k = 0; k < t->nd; k++)
            op->es.lab[i < op->nin ? i : PL_MAX_IN][k] = (signed char)id_of[raw[i][k]];
    }
    return 0;
}

/* a known integer of the key (a constant input gen folded into it); -1 when absent or null */
static int key_int(const json_t *attrs, const char *name, int64_t *v)
{
    const json_t *a = json_object_get(attrs, name);
    if (!json_is_integer(a))
        return -1;
    *v = json_integer_value(a);
    return 0;
}

/* DFT, STFT and the windows: the lengths and steps from the key, checked against the shapes
 * the kernel walks (a layer whose deciding inputs gen does not know is refused) */
static int plan_plain_signal(const char *name, const json_t *params, const json_t *attrs, struct pl_op *op)
{
    struct pl_sg *sg = &op->sg;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if (!pl_is_float(y->dtype))
        return -1;
    if (op->kind == PL_WINDOW) { /* a size gen does not know: the output's shape says it */
        sg->window = !strcmp(name, "HannWindow") ? 0 : !strcmp(name, "HammingWindow") ? 1 : 2;
        sg->periodic = emit_num_attr(attrs, "periodic", 1) != 0;
        return y->nd == 1 && y->d[0] >= 1 ? 0 : -1;
    }
    if (x->dtype != y->dtype || x->nd < 2 || x->d[x->nd - 1] < 1 || x->d[x->nd - 1] > 2)
        return -1;
    if (op->kind == PL_STFT) {
        int64_t fl;
        if (key_int(attrs, "frame_step", &sg->step) || key_int(attrs, "frame_length", &fl) || x->nd != 3 ||
            y->nd != 4 || sg->step <= 0 || fl <= 0 || fl > x->d[1])
            return -1;
        sg->length = fl;
        if (emit_io(params, "inputs", 2)) {
            op->nin = 2;
            if (pl_tensor_of(emit_io(params, "inputs", 2), &op->in[1]) || op->in[1].nd != 1 || op->in[1].d[0] != fl)
                return -1;
        }
        int onesided = emit_num_attr(attrs, "onesided", 1) != 0;
        return y->d[0] == x->d[0] && y->d[1] == (x->d[1] - fl) / sg->step + 1 &&
                       y->d[2] == (onesided ? fl / 2 + 1 : fl) && y->d[3] == 2
                   ? 0
                   : -1;
    }
    /* DFT: the inverse of a onesided spectrum (a real output) is not benchmarked */
    int64_t axis, len;
    const json_t *dl = json_object_get(attrs, "dft_length");
    if (key_int(attrs, "axis", &axis) || axis < 0 || axis >= x->nd - 1 || (dl && key_int(attrs, "dft_length", &len)))
        return -1;
    op->axis = (int)axis;
    sg->inverse = emit_num_attr(attrs, "inverse", 0) != 0;
    int onesided = emit_num_attr(attrs, "onesided", 0) != 0;
    if (!dl)
        len = x->d[axis];
    sg->length = len;
    if ((sg->inverse && onesided) || len < 1 || y->nd != x->nd || y->d[y->nd - 1] != 2 ||
        y->d[axis] != (onesided ? len / 2 + 1 : len))
        return -1;
    for (int k = 0; k < x->nd - 1; k++)
        if (k != axis && y->d[k] != x->d[k])
            return -1;
    return 0;
}

/* an int array of the key into v (n values); -1 when it is not that */
static int key_ints(const json_t *attrs, const char *name, int64_t *v, int n)
{
    const json_t *a = json_object_get(attrs, name);
    if (json_array_size(a) != (size_t)n)
        return -1;
    for (int k = 0; k < n; k++) {
        if (!json_is_integer(json_array_get(a, (size_t)k)))
            return -1;
        v[k] = json_integer_value(json_array_get(a, (size_t)k));
    }
    return 0;
}

/* a training optimizer: R and T, then each role's n tensors as one (the update is element-wise:
 * the same work), checked to have the same shapes role by role */
static int plan_plain_optimizer(const char *name, const json_t *params, const json_t *attrs, struct pl_op *op)
{
    struct pl_nn *nn = &op->nn;
    int roles = !strcmp(name, "Adam") ? 4 : 3; /* X, G and the states (generator/ops/training.c) */
    size_t nin = json_array_size(json_object_get(params, "inputs"));
    if (nin < (size_t)(2 + roles) || (nin - 2) % (size_t)roles)
        return -1;
    int n = (int)(nin - 2) / roles;
    struct pl_tensor r, t;
    if (pl_tensor_of(emit_io(params, "inputs", 0), &r) || pl_tensor_of(emit_io(params, "inputs", 1), &t) ||
        pl_count(&r) != 1 || pl_count(&t) != 1 || !pl_is_float(r.dtype) || pl_is_float(t.dtype))
        return -1;
    int64_t total = 0;
    int dtype = 0;
    for (int j = 0; j < n; j++) {
        struct pl_tensor x;
        if (pl_tensor_of(emit_io(params, "inputs", (size_t)(2 + j)), &x) || !pl_is_float(x.dtype) ||
            (dtype && x.dtype != dtype))
            return -1;
        dtype = x.dtype;
        for (int k = 1; k < roles; k++) {
            struct pl_tensor o;
            if (pl_tensor_of(emit_io(params, "inputs", (size_t)(2 + k * n + j)), &o) || !same_dims(&o, &x) ||
                o.dtype != dtype)
                return -1;
        }
        total += pl_count(&x);
    }
    op->nin = 2 + roles;
    op->in[0] = r;
    op->in[1] = t;
    for (int k = 0; k < roles; k++)
        op->in[2 + k] = (struct pl_tensor){dtype, 1, {total}};
    op->out = (struct pl_tensor){dtype, 1, {total * (roles - 1)}};
    op->flag = !strcmp(name, "Adagrad") ? 0 : !strcmp(name, "Momentum") ? 1 : 2;
    op->alpha = (float)emit_num_attr(attrs, "alpha", 0);
    op->beta = (float)emit_num_attr(attrs, "beta", 0);
    nn->decay = emit_num_attr(attrs, "decay_factor", 0);
    nn->epsilon = emit_num_attr(attrs, "epsilon", 0);
    nn->norm = emit_num_attr(attrs, "norm_coefficient", 0);
    nn->norm_post = emit_num_attr(attrs, "norm_coefficient_post", 0);
    nn->nesterov = !strcmp(emit_str_attr(attrs, "mode", "standard"), "nesterov");
    return 0;
}

/* RegexFullMatch's pattern (the key's attribute) translated by re2posix.c into rx (to be
 * freed with rx_free whatever the outcome); 0, or -1 with the reason in why */
static int layer_pattern(const json_t *attrs, struct rx_result *rx, char *why, size_t why_len)
{
    const json_t *pattern = json_object_get(attrs, "pattern");
    if (!json_is_string(pattern)) {
        memset(rx, 0, sizeof(*rx));
        snprintf(why, why_len, "no pattern");
        return -1;
    }
    return rx_translate(json_string_value(pattern), json_string_length(pattern), rx, why, why_len);
}

/* Cast to or from strings (numbers of every type but bfloat16, which neither oracle takes;
 * from a string, not to bool: frameworks disagree on what text is true), StringNormalizer ([C] or
 * [1, C]; the output the largest it can be: every element kept), StringConcat (the inputs
 * broadcast) and StringSplit (the output [..., 8]: the benchmark's texts have at most eight
 * parts; fewer with maxsplit) */
static int plan_plain_string(const json_t *attrs, struct pl_op *op)
{
    const struct pl_tensor *x = &op->in[0];
    struct pl_str *st = &op->str;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i].dtype != PL_STRING && op->kind != PL_STR_CAST)
            return -1;
    if (op->kind == PL_STR_CONCAT) {
        const struct pl_tensor *y = &op->out;
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < op->in[i].nd; k++) {
                int ko = k + y->nd - op->in[i].nd;
                if (op->in[i].nd > y->nd || (op->in[i].d[k] != y->d[ko] && op->in[i].d[k] != 1))
                    return -1;
            }
        return y->dtype == PL_STRING && y->nd <= 8 ? 0 : -1;
    }
    if (op->kind == PL_STR_REGEX) { /* a pattern re2posix.c can translate */
        struct rx_result rx;
        char why[160];
        int bad = layer_pattern(attrs, &rx, why, sizeof(why));
        rx_free(&rx);
        return bad || op->out.dtype != PL_BOOL || !same_dims(x, &op->out) ? -1 : 0;
    }
    if (op->kind == PL_STR_SPLIT) {
        const char *delim = emit_str_attr(attrs, "delimiter", "");
        const json_t *most = json_object_get(attrs, "maxsplit");
        st->delim = *delim ? delim : NULL;
        st->maxsplit = json_is_integer(most) ? json_integer_value(most) : -1;
        if (x->nd >= 8 || op->out.dtype != PL_STRING || (most && st->maxsplit < 0))
            return -1;
        op->out = *x;
        op->out.dtype = PL_STRING;
        op->out.nd = x->nd + 1;
        op->out.d[x->nd] = st->maxsplit >= 0 && st->maxsplit < 7 ? st->maxsplit + 1 : 8;
        return 0;
    }
    if (op->kind == PL_STR_CAST) {
        int other = x->dtype == PL_STRING ? op->out.dtype : x->dtype;
        return other != PL_STRING && other != PL_BFLOAT16 && !(other == PL_BOOL && x->dtype == PL_STRING) &&
                       same_dims(x, &op->out)
                   ? 0
                   : -1;
    }
    static const char *const actions[] = {"NONE", "LOWER", "UPPER"};
    const char *action = emit_str_attr(attrs, "case_change_action", "NONE");
    st->case_change = -1;
    for (int j = 0; j < 3; j++)
        if (!strcmp(action, actions[j]))
            st->case_change = j;
    st->sensitive = emit_num_attr(attrs, "is_case_sensitive", 0) != 0;
    st->nstop = (int64_t)json_array_size(json_object_get(attrs, "stopwords"));
    if (st->case_change < 0 || x->nd < 1 || x->nd > 2 || (x->nd == 2 && x->d[0] != 1) || op->out.nd != x->nd ||
        op->out.dtype != PL_STRING)
        return -1;
    op->out = *x;
    return 0;
}

/* TfIdfVectorizer of an integer or a string pool: the sizes of the key's arrays (render_plain
 * prints the arrays themselves from the key; a string pool as its texts and, as the pool, each
 * text's first index among them) */
static int plan_plain_tfidf(const json_t *attrs, struct pl_op *op)
{
    struct pl_nn *nn = &op->nn;
    static const char *const modes[] = {"TF", "IDF", "TFIDF"};
    const char *mode = emit_str_attr(attrs, "mode", "");
    bool text = op->in[0].dtype == PL_STRING;
    const json_t *pool = json_object_get(attrs, text ? "pool_strings" : "pool_int64s");
    const json_t *start = json_object_get(attrs, "ngram_counts");
    const json_t *index = json_object_get(attrs, "ngram_indexes"), *w = json_object_get(attrs, "weights");
    nn->tf_mode = -1;
    for (int j = 0; j < 3; j++)
        if (!strcmp(mode, modes[j]))
            nn->tf_mode = j;
    nn->npool = (int64_t)json_array_size(pool);
    nn->nstart = (int64_t)json_array_size(start);
    nn->nindex = (int64_t)json_array_size(index);
    nn->nweights = (int64_t)json_array_size(w);
    nn->min_gram = (int)emit_num_attr(attrs, "min_gram_length", 0);
    nn->max_gram = (int)emit_num_attr(attrs, "max_gram_length", 0);
    nn->max_skip = (int)emit_num_attr(attrs, "max_skip_count", 0);
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if (nn->tf_mode < 0 || !nn->npool || !nn->nstart || !nn->nindex || nn->min_gram < 1 || nn->max_gram < nn->min_gram ||
        nn->max_gram > 16 || nn->max_skip < 0 || (x->dtype != PL_INT64 && x->dtype != PL_INT32 && !text) || x->nd < 1 ||
        x->nd > 2 || y->dtype != PL_FLOAT || y->nd != x->nd || (x->nd == 2 && y->d[0] != x->d[0]))
        return -1;
    if (!text)
        op->in[0].dtype = PL_INT64; /* int32 tokens are benchmarked as int64 */
    return 0;
}

/* Det, RoiAlign, MaxUnpool and the losses: parameters from the key, shapes checked against
 * what the kernels walk */
static int plan_plain_nn(const char *name, const json_t *params, const json_t *attrs, struct pl_op *op)
{
    struct pl_nn *nn = &op->nn;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if (!pl_is_float(x->dtype) || y->dtype != x->dtype)
        return -1;
    if (op->kind == PL_DET) {
        if (x->nd < 2 || x->d[x->nd - 1] != x->d[x->nd - 2] || y->nd != x->nd - 2)
            return -1;
        return 0;
    }
    if (op->kind == PL_ROI_ALIGN) {
        const char *mode = emit_str_attr(attrs, "mode", "avg");
        const char *ctm = emit_str_attr(attrs, "coordinate_transformation_mode", "half_pixel");
        if ((strcmp(mode, "avg") && strcmp(mode, "max")) || (strcmp(ctm, "half_pixel") && strcmp(ctm, "output_half_pixel")))
            return -1;
        nn->mode = !strcmp(mode, "max");
        nn->half_pixel = !strcmp(ctm, "half_pixel");
        nn->sampling = (int64_t)emit_num_attr(attrs, "sampling_ratio", 0);
        nn->scale = emit_num_attr(attrs, "spatial_scale", 1.0);
        op->in[2].dtype = PL_INT64;
        const struct pl_tensor *r = &op->in[1];
        return x->nd == 4 && r->nd == 2 && r->d[1] == 4 && pl_is_float(r->dtype) && op->in[2].nd == 1 &&
                       op->in[2].d[0] == r->d[0] && y->nd == 4 && y->d[0] == r->d[0] && y->d[1] == x->d[1] &&
                       nn->sampling >= 0 && nn->scale > 0 && x->d[0] > 0
                   ? 0
                   : -1;
    }
    if (op->kind == PL_MAX_UNPOOL) {
        int nsp = x->nd - 2;
        int64_t pads[12];
        if (nsp < 1 || nsp > 6 || y->nd != x->nd || key_ints(attrs, "kernel_shape", nn->kernel, nsp) ||
            key_ints(attrs, "strides", nn->stride, nsp) || key_ints(attrs, "pads", pads, 2 * nsp) ||
            op->in[1].nd != x->nd)
            return -1;
        op->in[1].dtype = PL_INT64;
        nn->inferred[0] = x->d[0];
        nn->inferred[1] = x->d[1];
        nn->same_shape = 1;
        for (int k = 0; k < nsp; k++) {
            nn->pad[k] = pads[k];
            nn->inferred[2 + k] = (x->d[2 + k] - 1) * nn->stride[k] - pads[k] - pads[k + nsp] + nn->kernel[k];
            if (nn->kernel[k] < 1 || nn->inferred[2 + k] < 1)
                return -1;
        }
        for (int k = 0; k < x->nd; k++) {
            if (op->in[1].d[k] != x->d[k] || y->d[k] < nn->inferred[k])
                return -1; /* an output smaller than the unpooled shape cannot hold it */
            nn->same_shape &= y->d[k] == nn->inferred[k];
        }
        return 0;
    }
    /* the losses: x [N, C, D...], target [N, D...], weights [C] */
    static const char *const reductions[] = {"none", "sum", "mean"};
    const char *red = emit_str_attr(attrs, "reduction", "mean");
    nn->reduction = -1;
    for (int j = 0; j < 3; j++)
        if (!strcmp(red, reductions[j]))
            nn->reduction = j;
    const json_t *ig = json_object_get(attrs, "ignore_index");
    nn->has_ignore = json_is_integer(ig);
    nn->ignore = nn->has_ignore ? json_integer_value(ig) : 0;
    nn->log_prob = emit_num_attr(attrs, "log_prob", 0) != 0;
    op->flag = !strcmp(name, "SoftmaxCrossEntropyLoss");
    const struct pl_tensor *t = &op->in[1];
    if (nn->reduction < 0 || x->nd < 2 || t->nd != x->nd - 1 || t->d[0] != x->d[0] || x->d[1] < 1 ||
        (t->dtype != PL_INT64 && t->dtype != PL_INT32) || (nn->log_prob && !op->flag))
        return -1;
    op->in[1].dtype = PL_INT64;
    for (int k = 1; k < t->nd; k++)
        if (t->d[k] != x->d[k + 1])
            return -1;
    if (emit_io(params, "inputs", 2)) {
        op->nin = 3;
        if (pl_tensor_of(emit_io(params, "inputs", 2), &op->in[2]) || op->in[2].nd != 1 || op->in[2].d[0] != x->d[1] ||
            !pl_is_float(op->in[2].dtype))
            return -1;
    }
    if (nn->reduction == 0 ? (y->nd != t->nd || pl_count(y) != pl_count(t)) : y->nd != 0)
        return -1;
    return 0;
}

/* NonZero, Compress, NonMaxSuppression, Unique: the output is as large as the inputs allow (what it
 * holds depends on the data) */
static int plan_plain_select(const json_t *attrs, struct pl_op *op)
{
    const struct pl_tensor *x = &op->in[0];
    int64_t n = pl_count(x);
    if (op->kind == PL_NONZERO) {
        if (x->nd < 1 || op->out.dtype != PL_INT64)
            return -1;
        op->out.nd = 2;
        op->out.d[0] = x->nd;
        op->out.d[1] = n;
        return 0;
    }
    if (op->kind == PL_COMPRESS) {
        const json_t *axis = json_object_get(attrs, "axis");
        int64_t nc = pl_count(&op->in[1]);
        if (op->in[1].dtype != PL_BOOL || op->in[1].nd != 1 || op->out.dtype != x->dtype)
            return -1;
        op->out = *x;
        op->axis = -1;
        if (!axis) {
            op->out.nd = 1;
            op->out.d[0] = nc < n ? nc : n;
            return 0;
        }
        if (!json_is_integer(axis) || json_integer_value(axis) < 0 || json_integer_value(axis) >= x->nd)
            return -1;
        op->axis = (int)json_integer_value(axis);
        op->out.d[op->axis] = nc < x->d[op->axis] ? nc : x->d[op->axis];
        return 0;
    }
    if (op->kind == PL_UNIQUE) { /* the slices along axis (else the elements); as many unique as slices */
        const json_t *axis = json_object_get(attrs, "axis");
        op->flag = emit_num_attr(attrs, "sorted", 1) != 0;
        if (op->out.dtype != x->dtype || x->nd < 1)
            return -1;
        op->out = *x;
        op->axis = -1;
        if (!axis) {
            op->out.nd = 1;
            op->out.d[0] = n;
            return 0;
        }
        if (!json_is_integer(axis) || json_integer_value(axis) < 0 || json_integer_value(axis) >= x->nd)
            return -1;
        op->axis = (int)json_integer_value(axis);
        return 0;
    }
    /* NonMaxSuppression: boxes [B, N, 4], scores [B, C, N] */
    const struct pl_tensor *sc = &op->in[1];
    const json_t *score = json_object_get(attrs, "score_threshold"), *iou = json_object_get(attrs, "iou_threshold");
    if (key_int(attrs, "max_output_boxes_per_class", &op->k) || !json_is_number(iou) ||
        (score && !json_is_number(score)) || x->nd != 3 || x->d[2] != 4 || sc->nd != 3 || sc->d[0] != x->d[0] ||
        sc->d[2] != x->d[1] || !pl_is_float(x->dtype) || !pl_is_float(sc->dtype) || op->k < 0)
        return -1;
    op->alpha = (float)json_number_value(iou);
    op->nn.has_score = score != NULL;
    op->beta = score ? (float)json_number_value(score) : 0;
    op->flag = emit_num_attr(attrs, "center_point_box", 0) != 0;
    op->out.nd = 2;
    op->out.d[0] = sc->d[0] * sc->d[1] * (op->k < sc->d[2] ? op->k : sc->d[2]);
    op->out.d[1] = 3;
    return 0;
}

int emit_plain_plan(const json_t *params, struct pl_op *op)
{
    static const struct { const char *op; enum pl_kind kind; enum pl_fn fn; } ops[] = {
        {"Erf", PL_UNARY, PL_ERF}, {"Neg", PL_UNARY, PL_NEG}, {"Abs", PL_UNARY, PL_ABS},
        {"Sqrt", PL_UNARY, PL_SQRT}, {"Exp", PL_UNARY, PL_EXP}, {"Log", PL_UNARY, PL_LOG},
        {"Floor", PL_UNARY, PL_FLOOR}, {"Ceil", PL_UNARY, PL_CEIL}, {"Round", PL_UNARY, PL_ROUND},
        {"Sign", PL_UNARY, PL_SIGN}, {"Sin", PL_UNARY, PL_SIN}, {"Cos", PL_UNARY, PL_COS},
        {"Tan", PL_UNARY, PL_TAN}, {"Tanh", PL_UNARY, PL_TANH}, {"Sigmoid", PL_UNARY, PL_SIGMOID},
        {"Reciprocal", PL_UNARY, PL_RECIPROCAL}, {"Not", PL_UNARY, PL_NOT},
        {"HardSigmoid", PL_UNARY, PL_HARDSIGMOID}, {"Selu", PL_UNARY, PL_SELU},
        {"Softsign", PL_UNARY, PL_SOFTSIGN}, {"Softplus", PL_UNARY, PL_SOFTPLUS},
        {"Add", PL_BINARY, PL_ADD}, {"Sub", PL_BINARY, PL_SUB}, {"Mul", PL_BINARY, PL_MUL},
        {"Div", PL_BINARY, PL_DIV}, {"Pow", PL_BINARY, PL_POW}, {"Max", PL_BINARY, PL_MAX},
        {"Min", PL_BINARY, PL_MIN}, {"Mod", PL_BINARY, PL_MOD}, {"Sum", PL_BINARY, PL_ADD},
        {"Mean", PL_BINARY, PL_ADD},
        {"Equal", PL_BINARY, PL_EQUAL}, {"Less", PL_BINARY, PL_LESS}, {"Greater", PL_BINARY, PL_GREATER},
        {"LessOrEqual", PL_BINARY, PL_LESS_EQUAL}, {"GreaterOrEqual", PL_BINARY, PL_GREATER_EQUAL},
        {"And", PL_BINARY, PL_AND}, {"Or", PL_BINARY, PL_OR}, {"Xor", PL_BINARY, PL_XOR},
        {"Where", PL_WHERE, PL_IDENTITY}, {"Cast", PL_CAST, PL_IDENTITY}, {"CastLike", PL_CAST, PL_IDENTITY},
        {"BitShift", PL_BINARY, PL_BITSHIFT},
        {"Expand", PL_EXPAND, PL_IDENTITY}, {"Gather", PL_GATHER, PL_IDENTITY},
        {"Slice", PL_MAP, PL_IDENTITY}, {"Pad", PL_MAP, PL_IDENTITY}, {"Tile", PL_MAP, PL_IDENTITY},
        {"Gelu", PL_UNARY, PL_GELU}, {"PRelu", PL_BINARY, PL_PRELU}, {"HardSwish", PL_UNARY, PL_HARDSWISH},
        {"LeakyRelu", PL_UNARY, PL_LEAKYRELU}, {"Clip", PL_UNARY, PL_CLIP},
        {"ScatterND", PL_SCATTER_ND, PL_IDENTITY}, {"Split", PL_SPLIT, PL_IDENTITY},
        {"ArgMax", PL_ARG, PL_MAX}, {"ArgMin", PL_ARG, PL_MIN}, {"TopK", PL_TOPK, PL_IDENTITY},
        {"Asin", PL_UNARY, PL_ASIN}, {"Acos", PL_UNARY, PL_ACOS}, {"Atan", PL_UNARY, PL_ATAN},
        {"Sinh", PL_UNARY, PL_SINH}, {"Cosh", PL_UNARY, PL_COSH}, {"Asinh", PL_UNARY, PL_ASINH},
        {"Acosh", PL_UNARY, PL_ACOSH}, {"Atanh", PL_UNARY, PL_ATANH}, {"IsInf", PL_UNARY, PL_ISINF},
        {"IsNaN", PL_UNARY, PL_ISNAN}, {"Celu", PL_UNARY, PL_CELU}, {"Shrink", PL_UNARY, PL_SHRINK},
        {"ThresholdedRelu", PL_UNARY, PL_THRESHOLDED_RELU},
        {"GatherElements", PL_GATHER_ELEMENTS, PL_IDENTITY}, {"ScatterElements", PL_SCATTER_ELEMENTS, PL_IDENTITY},
        {"Scatter", PL_SCATTER_ELEMENTS, PL_IDENTITY}, {"GatherND", PL_GATHER_ND, PL_IDENTITY},
        {"CumSum", PL_CUMSUM, PL_ADD}, {"Trilu", PL_TRILU, PL_IDENTITY}, {"OneHot", PL_ONEHOT, PL_IDENTITY},
        {"ReverseSequence", PL_REVERSE_SEQUENCE, PL_IDENTITY}, {"EyeLike", PL_EYELIKE, PL_IDENTITY},
        {"Range", PL_RANGE, PL_IDENTITY}, {"Hardmax", PL_HARDMAX, PL_IDENTITY},
        {"MeanVarianceNormalization", PL_MVN, PL_IDENTITY},
        {"ReduceSum", PL_REDUCE, PL_ADD}, {"ReduceMean", PL_REDUCE, PL_MEAN}, {"ReduceMax", PL_REDUCE, PL_MAX},
        {"ReduceMin", PL_REDUCE, PL_MIN}, {"ReduceProd", PL_REDUCE, PL_MUL}, {"ReduceL1", PL_REDUCE, PL_L1},
        {"ReduceL2", PL_REDUCE, PL_L2}, {"ReduceLogSum", PL_REDUCE, PL_LOGSUM},
        {"ReduceLogSumExp", PL_REDUCE, PL_LOGSUMEXP}, {"ReduceSumSquare", PL_REDUCE, PL_SUMSQUARE},
        {"QuantizeLinear", PL_QUANTIZE, PL_IDENTITY}, {"DequantizeLinear", PL_DEQUANTIZE, PL_IDENTITY},
        {"DynamicQuantizeLinear", PL_DYNQUANT, PL_IDENTITY},
        {"Resize", PL_RESIZE, PL_IDENTITY}, {"Upsample", PL_RESIZE, PL_IDENTITY},
        {"GridSample", PL_GRID_SAMPLE, PL_IDENTITY}, {"Einsum", PL_EINSUM, PL_IDENTITY},
        {"DFT", PL_DFT, PL_IDENTITY}, {"STFT", PL_STFT, PL_IDENTITY}, {"Det", PL_DET, PL_IDENTITY},
        {"HannWindow", PL_WINDOW, PL_IDENTITY}, {"HammingWindow", PL_WINDOW, PL_IDENTITY},
        {"BlackmanWindow", PL_WINDOW, PL_IDENTITY},
        {"RoiAlign", PL_ROI_ALIGN, PL_IDENTITY}, {"MaxUnpool", PL_MAX_UNPOOL, PL_IDENTITY},
        {"NegativeLogLikelihoodLoss", PL_LOSS, PL_IDENTITY}, {"SoftmaxCrossEntropyLoss", PL_LOSS, PL_IDENTITY},
        {"RandomUniform", PL_RANDOM, PL_IDENTITY}, {"RandomUniformLike", PL_RANDOM, PL_IDENTITY},
        {"RandomNormal", PL_RANDOM, PL_IDENTITY}, {"RandomNormalLike", PL_RANDOM, PL_IDENTITY},
        {"Bernoulli", PL_RANDOM, PL_IDENTITY}, {"Multinomial", PL_RANDOM, PL_IDENTITY},
        {"NonZero", PL_NONZERO, PL_IDENTITY}, {"Compress", PL_COMPRESS, PL_IDENTITY},
        {"NonMaxSuppression", PL_NMS, PL_IDENTITY}, {"Unique", PL_UNIQUE, PL_IDENTITY},
        {"Adagrad", PL_OPTIMIZER, PL_IDENTITY}, {"Momentum", PL_OPTIMIZER, PL_IDENTITY}, {"Adam", PL_OPTIMIZER, PL_IDENTITY},
        {"TfIdfVectorizer", PL_TFIDF, PL_IDENTITY}, {"StringNormalizer", PL_STR_NORMALIZE, PL_IDENTITY},
        {"StringConcat", PL_STR_CONCAT, PL_IDENTITY}, {"StringSplit", PL_STR_SPLIT, PL_IDENTITY},
        {"RegexFullMatch", PL_STR_REGEX, PL_IDENTITY},
    };
    /* data inputs per kind (Expand's shape and CumSum's axis are data for gen, not for the kernel) */
    static const signed char nins[] = {
        [PL_UNARY] = 1, [PL_BINARY] = 2, [PL_WHERE] = 3, [PL_CAST] = 1, [PL_EXPAND] = 1, [PL_GATHER] = 2,
        [PL_MAP] = 1, [PL_SCATTER_ND] = 3, [PL_SPLIT] = 1, [PL_ARG] = 1, [PL_TOPK] = 1,
        [PL_GATHER_ELEMENTS] = 2, [PL_SCATTER_ELEMENTS] = 3, [PL_GATHER_ND] = 2, [PL_CUMSUM] = 1, [PL_TRILU] = 1,
        [PL_ONEHOT] = 3, [PL_REVERSE_SEQUENCE] = 2, [PL_EYELIKE] = 1, [PL_RANGE] = 3, [PL_REDUCE] = 1,
        [PL_MVN] = 1, [PL_HARDMAX] = 1, [PL_QUANTIZE] = 3, [PL_DEQUANTIZE] = 3, [PL_DYNQUANT] = 1,
        [PL_RESIZE] = 1, [PL_GRID_SAMPLE] = 2, [PL_EINSUM] = 1, [PL_DFT] = 1, [PL_STFT] = 1, [PL_WINDOW] = 0,
        [PL_DET] = 1, [PL_ROI_ALIGN] = 3, [PL_MAX_UNPOOL] = 2, [PL_LOSS] = 2, [PL_RANDOM] = 0,
        [PL_NONZERO] = 1, [PL_COMPRESS] = 2, [PL_NMS] = 2, [PL_UNIQUE] = 1, [PL_OPTIMIZER] = 0,
        [PL_TFIDF] = 1, [PL_STR_CAST] = 1, [PL_STR_NORMALIZE] = 1, [PL_STR_CONCAT] = 2, [PL_STR_SPLIT] = 1,
        [PL_STR_REGEX] = 1,
    };
    _Static_assert(BZ_ARRAY_LEN(nins) == PL_STR_REGEX + 1, "inputs of every kind");
    const char *name = json_string_value(json_object_get(params, "op"));
    const json_t *attrs = json_object_get(params, "attrs");
    memset(op, 0, sizeof(*op));
    int found = -1;
    for (size_t i = 0; name && i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strcmp(ops[i].op, name))
            found = (int)i;
    if (found < 0 || pl_tensor_of(emit_io(params, "outputs", 0), &op->out))
        return -1;
    op->kind = ops[found].kind;
    op->fn = ops[found].fn;
    op->nin = nins[op->kind];
    if ((op->kind == PL_QUANTIZE || op->kind == PL_DEQUANTIZE) && !emit_io(params, "inputs", 2))
        op->nin = 2; /* no zero point */
    if (op->kind == PL_EINSUM) {
        size_t n = json_array_size(json_object_get(params, "inputs"));
        if (n < 1 || n > PL_MAX_IN)
            return -1;
        op->nin = (int)n;
    }
    if (op->kind == PL_BINARY) {
        /* Sum, Min, Max and Mean take one to PL_MAX_IN inputs here (a fold; Mean divides), the
         * others two; one input is a copy */
        size_t n = json_array_size(json_object_get(params, "inputs"));
        bool nary = !strcmp(name, "Sum") || !strcmp(name, "Min") || !strcmp(name, "Max") || !strcmp(name, "Mean");
        if (n < 1 || n > PL_MAX_IN || (n != 2 && !nary))
            return -1;
        op->nin = (int)n;
        op->flag = !strcmp(name, "Mean") && n > 1;
        if (n == 1)
            op->kind = PL_CAST;
    }
    for (int i = 0; i < op->nin; i++)
        if (pl_tensor_of(emit_io(params, "inputs", (size_t)i), &op->in[i]))
            return -1;
    /* strings: the string kinds only; a cast with a string on one side is one of them */
    bool strings = op->out.dtype == PL_STRING;
    for (int i = 0; i < op->nin; i++)
        strings = strings || op->in[i].dtype == PL_STRING;
    if (strings && op->kind == PL_CAST)
        op->kind = PL_STR_CAST;
    if (strings && !pl_kind_string(op->kind) && op->kind != PL_TFIDF) /* TfIdfVectorizer: string tokens */
        return -1;
    if (pl_kind_string(op->kind))
        return plan_plain_string(attrs, op);
    if (op->kind == PL_MAP) {
        /* the map from the shapes and the node's known constant inputs, in the key */
        const struct pl_tensor *x = &op->in[0];
        if (x->nd != op->out.nd)
            return -1;
        const json_t *pads = json_object_get(attrs, "pads"), *starts = json_object_get(attrs, "starts");
        const json_t *steps = json_object_get(attrs, "steps"), *value = json_object_get(attrs, "value");
        if (!strcmp(name, "Tile")) {
            op->map = PL_MAP_TILE;
        } else if (!strcmp(name, "Pad")) {
            /* the padding as the key gives it (a negative one crops); modes constant (with its
             * value), reflect, edge, wrap */
            static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
            const char *mode = emit_str_attr(attrs, "mode", "constant");
            op->map = PL_MAP_PAD;
            op->flag = -1;
            for (int j = 0; j < 4; j++)
                if (!strcmp(mode, modes[j]))
                    op->flag = j;
            if (op->flag < 0 || (value && !json_is_number(value)))
                return -1;
            op->alpha = value ? (float)json_number_value(value) : 0;
            for (int k = 0; k < x->nd; k++) {
                int64_t extra = op->out.d[k] - x->d[k];
                if (json_array_size(pads) == (size_t)(2 * x->nd)) {
                    int64_t b = json_integer_value(json_array_get(pads, (size_t)k));
                    int64_t e = json_integer_value(json_array_get(pads, (size_t)(k + x->nd)));
                    if (b + e != extra)
                        return -1;
                    op->start[k] = -b;
                } else {
                    /* pads gen did not know: the same work split evenly (constant mode) */
                    if (extra < 0 || op->flag != 0)
                        return -1;
                    op->start[k] = -(extra / 2);
                }
                op->step[k] = 1;
                /* reflect mirrors once: pads of at most dim - 1; edge and wrap need data */
                if ((op->flag == 1 && (-op->start[k] > x->d[k] - 1 || op->start[k] + op->out.d[k] - 1 > 2 * (x->d[k] - 1))) ||
                    (op->flag >= 2 && x->d[k] == 0 && op->out.d[k] > 0))
                    return -1;
            }
        } else {
            /* Slice: each dim's window from its start in steps, as the key gives them (else a
             * window at 0 with unit steps: the same work, placed where gen could not know) */
            op->map = PL_MAP_SLICE;
            bool known = json_array_size(starts) == (size_t)x->nd && json_array_size(steps) == (size_t)x->nd;
            for (int k = 0; k < x->nd; k++) {
                op->start[k] = known ? json_integer_value(json_array_get(starts, (size_t)k)) : 0;
                op->step[k] = known ? json_integer_value(json_array_get(steps, (size_t)k)) : 1;
                int64_t last = op->start[k] + op->step[k] * (op->out.d[k] - 1);
                if (op->out.d[k] > 0 && (op->step[k] == 0 || op->start[k] < 0 || op->start[k] >= x->d[k] || last < 0 ||
                                         last >= x->d[k]))
                    return -1; /* the window must lie inside the input */
            }
        }
    }
    if (op->kind == PL_SCATTER_ND) {
        /* indices [..., q] (q <= rank of data), updates = indices[:-1] + data[q:]; no reduction */
        const struct pl_tensor *d = &op->in[0], *ix = &op->in[1];
        const char *red = emit_str_attr(attrs, "reduction", "none");
        if ((strcmp(red, "none") && strcmp(red, "add") && strcmp(red, "mul") && strcmp(red, "max") &&
             strcmp(red, "min")) || ix->nd < 1 || ix->d[ix->nd - 1] < 1 || ix->d[ix->nd - 1] > d->nd ||
            op->out.nd != d->nd)
            return -1;
        int q = (int)ix->d[ix->nd - 1];
        const struct pl_tensor *u = &op->in[2];
        if (u->nd != ix->nd - 1 + d->nd - q)
            return -1;
        for (int k = 0; k < u->nd; k++)
            if (u->d[k] != (k < ix->nd - 1 ? ix->d[k] : d->d[k - (ix->nd - 1) + q]))
                return -1; /* shapes that do not fit together (the kernel would read past them) */
        op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
    }
    if (op->kind == PL_SPLIT || op->kind == PL_ARG || op->kind == PL_TOPK) {
        int64_t axis = (int64_t)emit_num_attr(attrs, "axis", op->kind == PL_TOPK ? -1 : 0);
        if (axis < 0)
            axis += op->in[0].nd;
        if (axis < 0 || axis >= op->in[0].nd)
            return -1;
        op->axis = (int)axis;
    }
    if (op->kind == PL_SPLIT) {
        /* the pieces' sizes from the outputs' shapes; out: the pieces one after the other */
        size_t n = json_array_size(json_object_get(params, "outputs"));
        if (n < 1 || n > BZ_ARRAY_LEN(op->split))
            return -1;
        for (size_t j = 0; j < n; j++) {
            struct pl_tensor t;
            if (pl_tensor_of(emit_io(params, "outputs", j), &t) || t.nd != op->in[0].nd)
                return -1;
            op->split[j] = t.d[op->axis];
        }
        op->nsplit = (int)n;
        op->out = op->in[0];
    }
    if (op->kind == PL_ARG) {
        if (op->out.dtype != PL_INT64)
            return -1;
        op->flag = emit_num_attr(attrs, "select_last_index", 0) != 0;
    }
    if (op->kind == PL_TOPK) {
        if (op->out.nd != op->in[0].nd)
            return -1;
        op->k = op->out.d[op->axis];
        op->flag = emit_num_attr(attrs, "largest", 1) != 0;
    }
    if (op->kind == PL_SCATTER_ND) {
        static const char *const how[] = {"none", "add", "mul", "max", "min"};
        const char *red = emit_str_attr(attrs, "reduction", "none");
        for (int j = 0; j < 5; j++)
            if (!strcmp(red, how[j]))
                op->flag = j;
    }
    if (pl_kind_index(op->kind) || pl_kind_reduce(op->kind) || pl_kind_quant(op->kind))
        return plan_plain_more(name, attrs, op);
    if (pl_kind_sample(op->kind))
        return plan_plain_sample(attrs, op);
    if (op->kind == PL_EINSUM)
        return plan_plain_einsum(attrs, op);
    if (pl_kind_signal(op->kind))
        return plan_plain_signal(name, params, attrs, op);
    if (op->kind == PL_OPTIMIZER)
        return plan_plain_optimizer(name, params, attrs, op);
    if (op->kind == PL_TFIDF)
        return plan_plain_tfidf(attrs, op);
    if (pl_kind_nn(op->kind) || op->kind == PL_DET)
        return plan_plain_nn(name, params, attrs, op);
    if (pl_kind_select(op->kind))
        return plan_plain_select(attrs, op);
    if (op->kind == PL_RANDOM) {
        /* the distribution and its parameters; the seed (else a fixed one); the *Like forms
         * read no input, Bernoulli and Multinomial theirs */
        bool normal = !strncmp(name, "RandomNormal", 12), bern = !strcmp(name, "Bernoulli");
        bool multi = !strcmp(name, "Multinomial");
        op->flag = multi ? 3 : bern ? 2 : normal;
        op->alpha = (float)emit_num_attr(attrs, normal ? "mean" : "low", 0);
        op->beta = (float)emit_num_attr(attrs, normal ? "scale" : "high", 1);
        const json_t *seed = json_object_get(attrs, "seed");
        op->k = json_is_number(seed) ? (int64_t)json_number_value(seed) * 7919 + 1 : 20201125;
        if (bern || multi) {
            op->nin = 1;
            if (pl_tensor_of(emit_io(params, "inputs", 0), &op->in[0]) || !pl_is_float(op->in[0].dtype))
                return -1;
        }
        if (multi)
            return op->in[0].nd == 2 && op->in[0].d[1] > 0 && op->out.nd == 2 && op->out.d[0] == op->in[0].d[0] &&
                           (op->out.dtype == PL_INT32 || op->out.dtype == PL_INT64)
                       ? 0
                       : -1;
        if (bern)
            return pl_count(&op->in[0]) == pl_count(&op->out) ? 0 : -1;
        return pl_is_float(op->out.dtype) && (!normal || op->beta >= 0) && op->beta >= (normal ? 0 : op->alpha) ? 0 : -1;
    }
    if (op->kind == PL_GATHER) {
        int64_t axis = (int64_t)emit_num_attr(attrs, "axis", 0);
        op->axis = (int)(axis < 0 ? axis + op->in[0].nd : axis);
        if (op->in[1].dtype != PL_INT64) {
            op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
        }
    }
    if (op->fn == PL_GELU && strcmp(emit_str_attr(attrs, "approximate", "none"), "none") != 0)
        return -1; /* the tanh approximation is another function */
    if (op->fn == PL_LEAKYRELU)
        op->alpha = (float)emit_num_attr(attrs, "alpha", 0.01);
    if (op->fn == PL_CLIP) {
        /* the bounds as gen knows them (attributes, or constant inputs folded into them) */
        const json_t *lo = json_object_get(attrs, "min"), *hi = json_object_get(attrs, "max");
        if (json_array_size(json_object_get(params, "inputs")) > 1 && !lo && !hi)
            return -1;
        op->alpha = lo ? (float)json_number_value(lo) : -3.4e38f;
        op->beta = hi ? (float)json_number_value(hi) : 3.4e38f;
    }
    if (op->fn == PL_MOD) {
        op->flag = emit_num_attr(attrs, "fmod", 0) != 0;
        if (!op->flag && pl_is_float(op->out.dtype))
            return -1; /* ONNX wants fmod 1 for floating point */
    }
    if (op->fn == PL_BITSHIFT) {
        if (!pl_is_unsigned(op->out.dtype) || op->out.dtype == PL_BOOL)
            return -1; /* ONNX shifts unsigned integers only */
        op->flag = !strcmp(emit_str_attr(attrs, "direction", ""), "RIGHT");
    }
    if (op->fn == PL_ISINF)
        op->flag = (emit_num_attr(attrs, "detect_positive", 1) != 0) | (emit_num_attr(attrs, "detect_negative", 1) != 0) << 1;
    if (op->fn == PL_CELU)
        op->alpha = (float)emit_num_attr(attrs, "alpha", 1.0);
    if (op->fn == PL_THRESHOLDED_RELU)
        op->alpha = (float)emit_num_attr(attrs, "alpha", 1.0);
    if (op->fn == PL_SHRINK) {
        op->alpha = (float)emit_num_attr(attrs, "bias", 0.0);
        op->beta = (float)emit_num_attr(attrs, "lambd", 0.5);
    }
    if (op->fn == PL_HARDSIGMOID) {
        op->alpha = (float)emit_num_attr(attrs, "alpha", 0.2);
        op->beta = (float)emit_num_attr(attrs, "beta", 0.5);
    } else if (op->fn == PL_SELU) {
        op->alpha = (float)emit_num_attr(attrs, "alpha", 1.67326319217681884765625);
        op->beta = (float)emit_num_attr(attrs, "gamma", 1.05070102214813232421875);
    }
    return 0;
}

static void pl_tensor_init(struct bz_buf *b, const struct pl_tensor *t)
{
    bz_buf_printf(b, "{%d, %d, {", t->dtype, t->nd);
    for (int k = 0; k < t->nd; k++)
        bz_buf_printf(b, "%s%lld", k ? ", " : "", (long long)t->d[k]);
    bz_buf_puts(b, "}}");
}

/* a JSON string as a C string literal */
static void put_c_string(struct bz_buf *b, const json_t *word)
{
    bz_buf_putc(b, '"');
    emit_escape_c(b, json_string_value(word) ? json_string_value(word) : "", json_string_length(word));
    bz_buf_putc(b, '"');
}

/* a JSON array of strings as a C compound literal of string literals */
static void put_c_strings(struct bz_buf *b, const json_t *words)
{
    for (size_t w = 0; w < json_array_size(words); w++) {
        bz_buf_puts(b, w ? ",\n        " : "(const char *const[]){\n        ");
        put_c_string(b, json_array_get(words, w));
    }
    bz_buf_puts(b, "}");
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
    bz_buf_printf(&init, "{\n    .kind = %d,\n    .fn = %d,\n    .nin = %d,\n    .in = {", op->kind, op->fn, op->nin);
    for (int i = 0; i < op->nin; i++) {
        bz_buf_puts(&init, i ? ", " : "");
        pl_tensor_init(&init, &op->in[i]);
    }
    bz_buf_puts(&init, "},\n    .out = ");
    pl_tensor_init(&init, &op->out);
    bz_buf_printf(&init, ",\n    .axis = %d,\n    .alpha = %.9ef,\n    .beta = %.9ef,\n    .map = %d,\n", op->axis,
                  op->alpha, op->beta, op->map);
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
        bz_buf_printf(&init, "    .rs = {.mode = %d, .coord = %d, .nearest = %d, .exclude_outside = %d, .antialias = %d,\n",
                      rs->mode, rs->coord, rs->nearest, rs->exclude_outside, rs->antialias);
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
            const json_t *attrs = json_object_get(l->params, "attrs");
            bool text = op->in[0].dtype == PL_STRING;
            static const char *const keys[] = {"pool_int64s", "ngram_counts", "ngram_indexes", "weights"};
            static const char *const fields[] = {"pool", "gram_start", "gram_index", "weights"};
            for (int j = 0; j < 4; j++) {
                const json_t *a = json_object_get(attrs, j == 0 && text ? "pool_strings" : keys[j]);
                bz_buf_printf(&init, "\n           .%s = ", fields[j]);
                if (!json_array_size(a)) {
                    bz_buf_puts(&init, "NULL,");
                    continue;
                }
                bz_buf_puts(&init, j == 3 ? "(const float[]){" : "(const int64_t[]){");
                for (size_t k = 0; k < json_array_size(a); k++) {
                    const json_t *v = json_array_get(a, k);
                    size_t first = k; /* a string pool: the index of this text's first occurrence */
                    for (size_t q = 0; text && j == 0 && q < k && first == k; q++)
                        first = json_equal(json_array_get(a, q), v) ? q : k;
                    if (j == 3)
                        bz_buf_printf(&init, "%s%.9ef", k ? ", " : "", json_number_value(v));
                    else if (text && j == 0)
                        bz_buf_printf(&init, "%s%zu", k ? ", " : "", first);
                    else
                        bz_buf_printf(&init, "%s%lld", k ? ", " : "", (long long)json_integer_value(v));
                }
                bz_buf_puts(&init, "},");
            }
            if (text) {
                bz_buf_puts(&init, "\n           .pool_text = ");
                put_c_strings(&init, json_object_get(attrs, "pool_strings"));
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
        const json_t *attrs = json_object_get(l->params, "attrs");
        bz_buf_printf(&init, "    .str = {.case_change = %d, .sensitive = %d, .maxsplit = %lld, .nstop = %lld, .stop = ",
                      st->case_change, st->sensitive, (long long)st->maxsplit, (long long)st->nstop);
        if (st->nstop)
            put_c_strings(&init, json_object_get(attrs, "stopwords"));
        else
            bz_buf_puts(&init, "NULL");
        bz_buf_puts(&init, ", .delim = ");
        if (st->delim)
            put_c_string(&init, json_object_get(attrs, "delimiter"));
        else
            bz_buf_puts(&init, "NULL");
        bz_buf_puts(&init, "},\n");
    }
    if (op->kind == PL_STR_REGEX) {
        /* the pattern as gen translated it (the key holds the RE2 original) and its samples */
        struct rx_result rx;
        char why[160];
        if (layer_pattern(json_object_get(l->params, "attrs"), &rx, why, sizeof(why)) == 0) {
            json_t *ere = json_stringn(rx.ere.data, rx.ere.len), *samples = json_array();
            for (int k = 0; k < rx.nsamples; k++)
                json_array_append_new(samples, json_string(rx.samples[k]));
            bz_buf_puts(&init, "    .str = {.regex = ");
            put_c_string(&init, ere);
            bz_buf_printf(&init, ",\n        .nsamples = %d, .samples = ", rx.nsamples);
            put_c_strings(&init, samples);
            bz_buf_puts(&init, "},\n");
            json_decref(ere);
            json_decref(samples);
        }
        rx_free(&rx);
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
        bytes += (double)pl_count(&op->in[i]) * (double)pl_esize(op->in[i].dtype);
    if (op->kind == PL_GATHER || op->kind == PL_CAST || op->kind == PL_EXPAND || op->kind == PL_MAP ||
        (op->kind == PL_SCATTER_ND && !op->flag) || op->kind == PL_SPLIT || op->kind == PL_GATHER_ELEMENTS ||
        op->kind == PL_GATHER_ND || (op->kind == PL_SCATTER_ELEMENTS && !op->flag) || op->kind == PL_TRILU ||
        op->kind == PL_ONEHOT || op->kind == PL_REVERSE_SEQUENCE || op->kind == PL_EYELIKE)
        flops = 0; /* data movement */
    if (pl_kind_quant(op->kind)) /* divide (or multiply), round, add, clamp */
        flops = 3.0 * (double)pl_count(&op->out);
    if (op->kind == PL_REDUCE || op->kind == PL_HARDMAX) /* a step per input element */
        flops = (double)pl_count(&op->in[0]);
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
    size_t hl;
    const char *harness = emit_embedded("runtime/harness.h", &hl);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s%}", "title", title.data, "layer", l->id,
                             "layer_name", l->name, "op", l->op, "dtype", dt, "file", file.data, "key_comment", key.data,
                             "uses", emit_uses(e->p, li, 6), "op_init", init.data, "flops", fl, "bytes", by, "harness",
                             harness, hl);
    if (data)
        emit_plain_headers(data, pl_families(op));
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "bench/%s.c", file.data);
    if (data && emit_render(e, "templates/cpu/plain.c.mustache", data, rel.data) == 0)
        emit_add_bench(e, file.data, l, "cc_plain");
    json_decref(data);
    bz_buf_free(&rel);
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

/* The bd_op as a C designated initializer (numbers and enum names only). */
static char *op_initializer(const struct bd_op *op)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_printf(&b, "{\n    .family = %s,\n    .dt = %s,\n    .alg = %d,\n", family_names[op->family],
                  dt_enum(op->dt), op->alg);
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
    bz_buf_printf(&b, "    .local_size = %lld,\n    .axis = %d,\n    .flags = %uu,\n", (long long)op->local_size,
                  op->axis, op->flags);
    if (op->post_sum)
        bz_buf_puts(&b, "    .post_sum = 1,\n");
    if (op->post_alg)
        bz_buf_printf(&b, "    .post_alg = %d,\n    .post_alpha = %.9ef,\n    .post_beta = %.9ef,\n", op->post_alg,
                      op->post_alpha, op->post_beta);
    if (op->wei_transposed)
        bz_buf_puts(&b, "    .wei_transposed = 1,\n");
    if (op->src_transposed)
        bz_buf_puts(&b, "    .src_transposed = 1,\n");
    if (op->oscale != 0)
        bz_buf_printf(&b, "    .oscale = %.9ef,\n", op->oscale);
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
        bz_buf_printf(&b, "    .layout = %d,\n", op->layout);
    if (op->rnn_act)
        bz_buf_printf(&b, "    .rnn_act = %d,\n", op->rnn_act);
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
    const char *prim = plan->op.family == BD_IP ? "-ip" : plan->op.family == BD_MATMUL ? "-matmul" : "";
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
    json_t *args = json_array();
    for (int i = 0; i < plan->nargs; i++)
        json_array_append_new(args, json_pack("{s:s,s:i,s:i}", "arg", plan->args[i].arg, "output",
                                              plan->args[i].output, "fill", plan->args[i].fill));
    double scale = dt_bytes(dt) / 4;
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", plan->flops);
    snprintf(bytes, sizeof(bytes), "%.17g", plan->bytes * scale);
    struct bz_buf impl_comment;
    bz_buf_init(&impl_comment);
    emit_comment_text(&impl_comment, impl);
    size_t hl, ol, bl;
    const char *harness = emit_embedded("runtime/harness.h", &hl);
    const char *ops = emit_embedded("runtime/dnnl_ops.h", &ol);
    const char *bench = emit_embedded("runtime/dnnl_bench.h", &bl);
    /* what a framework asks oneDNN for: plain layout, direct algorithm, a Gemm as inner
     * product; oneDNN's first implementation for it is the library's heuristic choice */
    int is_default = layout == 0 && alg != dnnl_convolution_winograd && alg != dnnl_deconvolution_winograd &&
                     !(plan->op.family == BD_MATMUL && !strncmp(l->op, "Gemm", 4));
    json_t *data = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:o,s:s,s:s,s:i,s:s%,s:s%,s:s%}", "title", title.data, "layer",
        l->id, "layer_name", l->name, "op", l->op, "impl", impl, "impl_comment", impl_comment.data, "dtype",
        dt_name(dt), "file", file.data, "key_comment", key.data, "uses", emit_uses(e->p, li, 6), "op_init", init,
        "args", args, "flops", flops, "bytes", bytes, "default_variant", is_default, "harness", harness, hl, "dnnl_ops", ops, ol,
        "dnnl_bench", bench, bl);
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "bench/%s.c", file.data);
    if (data && emit_render(e, "templates/cpu/dnnl.c.mustache", data, rel.data) == 0)
        emit_add_bench(e, file.data, l, "cc_cpu");
    json_decref(data);
    free(init);
    bz_buf_free(&rel);
    bz_buf_free(&impl_comment);
    bz_buf_free(&file);
    bz_buf_free(&safe_impl);
    bz_buf_free(&title);
    bz_buf_free(&key);
}

void emit_cpu(struct emit_ctx *e)
{
    dnnl_engine_t eng;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) {
        bz_diag_error(e->diag, "gen", "cannot create a oneDNN CPU engine: the CPU backend is skipped");
        e->failed++;
        return;
    }
    const struct layer_set *s = &e->p->layers;
    struct op_count {
        const char *op;
        int n;
    } skipped[64];
    int n_skipped = 0;
    static const dnnl_data_type_t dts[3] = {dnnl_f32, dnnl_bf16, dnnl_f16};
    for (int li = 0; li < s->n; li++) {
        const struct layer *l = &s->v[li];
        if (e->only_layer && strcmp(l->id, e->only_layer) != 0)
            continue;
        struct cpu_plan plan;
        memset(&plan, 0, sizeof(plan));
        const json_t *out0 = l->fused ? NULL : emit_io(l->params, "outputs", 0);
        const char *dtn = out0 ? json_string_value(json_object_get(out0, "dtype")) : "FLOAT";
        /* float layers in f32, bf16 and f16; the quantized ones (a quantized output, or a QDQ group)
         * in their int8 types */
        bool quant = !l->fused && (!strcmp(l->op, "QLinearConv") || !strcmp(l->op, "ConvInteger") ||
                                   !strcmp(l->op, "QLinearMatMul") || !strcmp(l->op, "MatMulInteger") ||
                                   (!strcmp(l->op, "MaxPool") && dtn && (!strcmp(dtn, "UINT8") || !strcmp(dtn, "INT8"))));
        int ok = (dtn && !strcmp(dtn, "FLOAT")) || quant
                     ? (l->fused ? plan_fused(l->params, &plan) : plan_layer(l->params, &plan)) : -1;
        /* a Gemm is also an inner product, the primitive frameworks use for it */
        struct cpu_plan ip;
        memset(&ip, 0, sizeof(ip));
        int ip_ok = !l->fused && !strcmp(l->op, "Gemm") ? plan_matmul(l->params, "Gemm", &ip, true) : -1;
        struct pl_op pop;
        /* Resize: also in plain C, which computes every ONNX mode exactly (oneDNN's resampling
         * has its own coordinate rule: the same work, not always the same values) */
        bool resize = !l->fused && (!strcmp(l->op, "Resize") || !strcmp(l->op, "Upsample"));
        if (((ok != 0 && ip_ok != 0) || resize) && !l->fused && emit_plain_plan(l->params, &pop) == 0) {
            render_plain(e, li, &pop);
            if (ok != 0 && ip_ok != 0)
                continue;
        }
        if (ok != 0 && ip_ok != 0) {
            struct rx_result rx;
            char why[160];
            if (!l->fused && !strcmp(l->op, "RegexFullMatch")) { /* say why */
                if (layer_pattern(json_object_get(l->params, "attrs"), &rx, why, sizeof(why)) < 0)
                    bz_diag_warning(e->diag, "gen", "layer %s (RegexFullMatch): its pattern is not benchmarked: %s",
                                    l->name, why);
                rx_free(&rx);
            }
            if (!l->fused) {
                int k;
                for (k = 0; k < n_skipped && strcmp(skipped[k].op, l->op); k++)
                    ;
                if (k == n_skipped && n_skipped < 64)
                    skipped[n_skipped++] = (struct op_count){l->op, 0};
                if (k < 64)
                    skipped[k].n++;
            }
            continue;
        }
        int ntypes = ok == 0 && plan.quant ? 1 : 3;
        for (int d = 0; d < ntypes; d++) {
            dnnl_data_type_t dt = ok == 0 && plan.quant ? plan.op.qsrc : dts[d];
            for (int which = 0; which < 2; which++) {
                const struct cpu_plan *pl = which ? &ip : &plan;
                if ((which ? ip_ok : ok) != 0)
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
                        bd_enumerate(eng, &op, collect_impl, &impls);
                    }
                    /* the reference implementation once, in the plain layout: it is there to
                     * check the others, not to compete in every layout */
                    for (int i = 0; i < impls.n; i++)
                        if (lay == 0 || strncmp(impls.names[i], "ref", 3) != 0)
                            render_bench(e, li, pl, dt, impls.names[i], impls.algs[i], lay);
                    any_impl += impls.n;
                }
                /* nothing here for this type: one benchmark that says so where it runs (and
                 * picks oneDNN's first choice on a machine that has one) */
                if (!any_impl)
                    render_bench(e, li, pl, dt, "any", pl->n_algs > 1 ? pl->algs[0] : 0, 0);
            }
        }
    }
    dnnl_engine_destroy(eng);
    for (int k = 0; k < n_skipped; k++)
        bz_buf_printf(&e->skipped, "%s%s %d", e->skipped.len ? ", " : "", skipped[k].op, skipped[k].n);
}
