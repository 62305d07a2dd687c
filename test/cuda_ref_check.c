/* The CUDA benchmarks' host references (runtime/cuda_ref.h) held against the CPU backend:
 * oneDNN's reference implementations run on the same inputs (through the CPU backend's own
 * runtime, dnnl_ops.h and dnnl_bench.h), for every family --verify covers. Each case must
 * pass br_compare at f32's tolerance, and must fail it once one output element is moved by a
 * few tolerances: a reference that agrees with anything proves nothing.
 *
 * Built and run by the cuda test group (no GPU: cuDNN's headers for the enum names only):
 *     cc -std=c11 -I$CUDA_HOME/include test/cuda_ref_check.c -ldnnl -lcudnn -lcublasLt -lcublas -lcudart -lm */
#define _GNU_SOURCE
#include "../runtime/harness.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cudnn_ops.h"
#include "../runtime/cuda_ref.h"
#include "../runtime/dnnl_ops.h"
#include "../runtime/dnnl_bench.h"

static int failures, cases;

/* One oneDNN run through the reference implementation; every argument as plain f32 */
struct dn_run {
    struct bd_state b;
    float *data[BD_MAX_ARGS];
    long long count[BD_MAX_ARGS];
    dnnl_memory_t plain[BD_MAX_ARGS];
};

static int dn_exec(struct dn_run *x, const struct bd_op *op, const struct bd_arg *args, int nargs)
{
    memset(x, 0, sizeof(*x));
    struct bd_state *b = &x->b;
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    b->op = op;
    b->impl = "any";
    b->args = args;
    b->nargs = nargs;
    /* oneDNN's reference implementation, or its first where it has none (deconvolution) */
    if (dnnl_engine_create(&b->eng, dnnl_cpu, 0) || dnnl_stream_create(&b->stream, b->eng, dnnl_stream_default_flags) ||
        (bd_select(b, "any", 1, &b->pd, &r) != BH_OK && bd_select(b, "any", 0, &b->pd, &r) != BH_OK) || bd_alloc(b, b->pd, b->mem, b->exec, &b->nexec, &r) != BH_OK ||
        dnnl_primitive_create(&b->prim, b->pd) ||
        dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec) || dnnl_stream_wait(b->stream)) {
        fprintf(stderr, "oneDNN failed: %s\n", r.note);
        return -1;
    }
    for (int i = 0; i < nargs; i++) {
        const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(b->pd, dnnl_query_exec_arg_md, args[i].arg);
        dnnl_status_t st = args[i].output
                               ? bd_plain_copy(b->eng, b->stream, b->mem[i], md, &x->plain[i], &x->data[i])
                               : bd_input_plain(b, i, &x->plain[i], &x->data[i]);
        if (st != dnnl_success) {
            fprintf(stderr, "oneDNN: argument %d: %s\n", i, dnnl_status2str(st));
            return -1;
        }
        x->count[i] = 1;
        for (int k = 0; k < md->ndims; k++)
            x->count[i] *= md->dims[k];
    }
    return 0;
}

/* the residual of a sum post-op: dst as it was filled before the run */
static float *dn_initial(struct dn_run *x, int i)
{
    dnnl_memory_t p;
    float *d;
    if (bd_input_plain(&x->b, i, &p, &d) != dnnl_success)
        return NULL;
    float *copy = (float *)malloc(sizeof(float) * (size_t)x->count[i]);
    memcpy(copy, d, sizeof(float) * (size_t)x->count[i]);
    dnnl_memory_destroy(p);
    return copy;
}

static void dn_free(struct dn_run *x)
{
    for (int i = 0; i < BD_MAX_ARGS; i++)
        if (x->plain[i])
            dnnl_memory_destroy(x->plain[i]);
    bd_teardown(&x->b);
}

static double *dbl(const float *f, long long n)
{
    double *d = (double *)malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (long long i = 0; i < n; i++)
        d[i] = f[i];
    return d;
}

/* br_compare on oneDNN's output must pass; moved by 4 tolerances at one element it must not */
static void check(const char *name, const struct bc_lib_op *op, const struct br_io *io, const double *got,
                  const double *got_h)
{
    cases++;
    struct br_check c = br_compare(op, io, got, got_h);
    if (c.bad || c.checked == 0) {
        printf("FAIL %s: %lld of %lld beyond tolerance, first %lld (got %.9g want %.9g), max abs %.3g rel %.3g\n", name,
               c.bad, c.checked, c.first_bad, c.first_got, c.first_want, c.max_abs, c.max_rel);
        failures++;
        return;
    }
    long long n = c.total - (got_h ? (long long)op->batch * op->hidden * (op->bidir ? 2 : 1) : 0);
    double *moved = (double *)malloc(sizeof(double) * (size_t)n);
    memcpy(moved, got, sizeof(double) * (size_t)n);
    long long at = n / 2;
    /* past the tolerance of any element (worst ratio seen, f32 units): a clear step */
    moved[at] += 1e-3 * (1 + fabs(moved[at]));
    struct br_check m = br_compare(op, io, moved, got_h);
    free(moved);
    if (m.bad == 0) {
        printf("FAIL %s: an output moved by 1e-3 relative at %lld still passes\n", name, at);
        failures++;
        return;
    }
    printf("ok   %s: %lld elements, max abs err %.3g, worst %.3g x tolerance\n", name, c.checked, c.max_abs,
           c.worst_ratio);
}

/* ---- the cases ---- */

static struct bd_tensor bt(int nd, long long d0, long long d1, long long d2, long long d3, long long d4)
{
    struct bd_tensor t;
    memset(&t, 0, sizeof(t));
    t.nd = nd;
    long long d[5] = {d0, d1, d2, d3, d4};
    for (int i = 0; i < nd; i++)
        t.d[i] = d[i];
    return t;
}

static struct bc_tensor ct(const struct bd_tensor *t)
{
    struct bc_tensor c;
    memset(&c, 0, sizeof(c));
    c.nd = t->nd;
    for (int i = 0; i < t->nd; i++)
        c.d[i] = t->d[i];
    return c;
}

/* Conv [+ bias + residual + an activation] and its cuDNN description: N C spatial..., K,
 * kernel, stride, pad, dilation, groups; FUSED 1 for + bias [+ residual] + relu, 2 a SiLU
 * (oneDNN's swish post-op, x sigmoid(x)), 3 a Clip from 0 to 0.3 (cuDNN's clipped relu), 4
 * sigmoid, 5 tanh */
static void case_conv(const char *name, int nsp, const long long *in, long long n, long long c, long long k,
                      int kern, int stride, int pad, int dil, int groups, int fused, int residual)
{
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_CONV;
    op.dt = dnnl_f32;
    op.alg = dnnl_convolution_direct;
    op.nsp = nsp;
    long long out[3];
    op.src.nd = op.dst.nd = 2 + nsp;
    op.src.d[0] = op.dst.d[0] = n;
    op.src.d[1] = c;
    op.dst.d[1] = k;
    for (int s = 0; s < nsp; s++) {
        out[s] = (in[s] + 2 * pad - dil * (kern - 1) - 1) / stride + 1;
        op.src.d[2 + s] = in[s];
        op.dst.d[2 + s] = out[s];
        op.strides[s] = stride;
        op.dil[s] = dil;
        op.kernel[s] = kern;
        op.pl[s] = pad;
        op.pr[s] = (out[s] - 1) * stride + dil * (kern - 1) + 1 - in[s] - pad;
    }
    /* grouped weights in oneDNN: [G, K/G, C/G, k...]; plain [K, C/G, k...] otherwise */
    op.wei.nd = 2 + nsp + (groups > 1);
    int o = groups > 1;
    if (o)
        op.wei.d[0] = groups;
    op.wei.d[o] = k / groups;
    op.wei.d[o + 1] = c / groups;
    for (int s = 0; s < nsp; s++)
        op.wei.d[o + 2 + s] = kern;
    struct bd_arg args[5] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_WEIGHTS, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    int nargs = 3;
    if (fused) {
        op.has_bias = 1;
        op.bias = bt(1, k, 0, 0, 0, 0);
        args[nargs++] = (struct bd_arg){DNNL_ARG_BIAS, 0, 0};
        op.post_sum = residual;
        static const int algs[] = {0, dnnl_eltwise_relu, dnnl_eltwise_swish, dnnl_eltwise_clip_v2, dnnl_eltwise_logistic,
                                   dnnl_eltwise_tanh};
        op.post_alg = algs[fused];
        op.post_alpha = fused == 2 ? 1.0f : 0.0f;
        op.post_beta = fused == 3 ? 0.3f : 0.0f; /* clip_v2 from alpha 0 to beta */
    }
    struct dn_run x;
    if (dn_exec(&x, &op, args, nargs)) {
        failures++;
        return;
    }
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = fused ? BC_CONV_FUSED : BC_CONV;
    cop.dt = BC_F32;
    cop.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cop.x = ct(&op.src);
    cop.y = ct(&op.dst);
    cop.w.nd = 2 + nsp;
    cop.w.d[0] = k;
    cop.w.d[1] = c / groups;
    for (int s = 0; s < nsp; s++) {
        cop.w.d[2 + s] = kern;
        cop.pad[s] = pad;
        cop.stride[s] = stride;
        cop.dil[s] = dil;
    }
    cop.nsp = nsp;
    cop.groups = groups;
    static const int acts[] = {0, CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_SWISH, CUDNN_ACTIVATION_CLIPPED_RELU,
                               CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH};
    cop.act = acts[fused];
    cop.coef = fused == 3 ? 0.3 : 0.0;
    cop.residual = residual;
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = dbl(x.data[0], x.count[0]);
    io.w = dbl(x.data[1], x.count[1]); /* [G, K/G, ...] is [K, ...] in memory */
    if (fused) {
        io.b = dbl(x.data[3], x.count[3]);
        if (residual) {
            float *z = dn_initial(&x, 2);
            io.z = dbl(z, x.count[2]);
            free(z);
        }
    }
    double *got = dbl(x.data[2], x.count[2]);
    check(name, &cop, &io, got, NULL);
    free(io.x), free(io.w), free(io.b), free(io.z), free(got);
    dn_free(&x);
}

/* ConvTranspose: oneDNN's deconvolution; cuDNN's backward data with the filter [IC, OC/g, k] */
static void case_deconv(const char *name, long long n, long long ic, long long oc, long long h, int kern, int stride,
                        int pad)
{
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_DECONV;
    op.dt = dnnl_f32;
    op.alg = dnnl_deconvolution_direct;
    op.nsp = 2;
    long long out = (h - 1) * stride - 2 * pad + kern;
    op.src = bt(4, n, ic, h, h, 0);
    op.dst = bt(4, n, oc, out, out, 0);
    op.wei = bt(4, oc, ic, kern, kern, 0);
    for (int s = 0; s < 2; s++) {
        op.strides[s] = stride;
        op.dil[s] = 1;
        op.kernel[s] = kern;
        op.pl[s] = op.pr[s] = pad;
    }
    struct bd_arg args[3] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_WEIGHTS, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    struct dn_run x;
    if (dn_exec(&x, &op, args, 3)) {
        failures++;
        return;
    }
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = BC_DECONV;
    cop.dt = BC_F32;
    cop.x = ct(&op.src);
    cop.y = ct(&op.dst);
    cop.w.nd = 4;
    cop.w.d[0] = ic;
    cop.w.d[1] = oc;
    cop.w.d[2] = cop.w.d[3] = kern;
    cop.nsp = 2;
    cop.groups = 1;
    for (int s = 0; s < 2; s++) {
        cop.pad[s] = pad;
        cop.stride[s] = stride;
        cop.dil[s] = 1;
    }
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = dbl(x.data[0], x.count[0]);
    /* oneDNN's [OC, IC, k, k] as cuDNN's [IC, OC, k, k] */
    io.w = (double *)malloc(sizeof(double) * (size_t)x.count[1]);
    long long kk = (long long)kern * kern;
    for (long long a = 0; a < oc; a++)
        for (long long b = 0; b < ic; b++)
            for (long long r = 0; r < kk; r++)
                io.w[(b * oc + a) * kk + r] = x.data[1][(a * ic + b) * kk + r];
    double *got = dbl(x.data[2], x.count[2]);
    check(name, &cop, &io, got, NULL);
    free(io.x), free(io.w), free(got);
    dn_free(&x);
}

static void case_pool(const char *name, int alg, int mode, int kern, int stride, int pad)
{
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_POOL;
    op.dt = dnnl_f32;
    op.alg = alg;
    op.nsp = 2;
    long long h = 9, out = (h + 2 * pad - kern) / stride + 1;
    op.src = bt(4, 2, 3, h, h, 0);
    op.dst = bt(4, 2, 3, out, out, 0);
    for (int s = 0; s < 2; s++) {
        op.strides[s] = stride;
        op.kernel[s] = kern;
        op.dil[s] = 1;
        op.pl[s] = pad;
        op.pr[s] = (out - 1) * stride + kern - h - pad;
    }
    struct bd_arg args[2] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    struct dn_run x;
    if (dn_exec(&x, &op, args, 2)) {
        failures++;
        return;
    }
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = BC_POOL;
    cop.dt = BC_F32;
    cop.mode = mode;
    cop.x = ct(&op.src);
    cop.y = ct(&op.dst);
    cop.nsp = 2;
    for (int s = 0; s < 2; s++) {
        cop.win[s] = kern;
        cop.stride[s] = stride;
        cop.pad[s] = pad;
        cop.dil[s] = 1;
    }
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = dbl(x.data[0], x.count[0]);
    double *got = dbl(x.data[1], x.count[1]);
    check(name, &cop, &io, got, NULL);
    free(io.x), free(got);
    dn_free(&x);
}

/* the element-wise-like families on one tensor shape (plus a second input where binary) */
static void case_simple(const char *name, struct bd_op *op, struct bd_arg *args, int nargs, struct bc_lib_op *cop,
                        int out_arg)
{
    struct dn_run x;
    if (dn_exec(&x, op, args, nargs)) {
        failures++;
        return;
    }
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = dbl(x.data[0], x.count[0]);
    for (int i = 1; i < nargs; i++) {
        double *d = args[i].output ? NULL : dbl(x.data[i], x.count[i]);
        switch (args[i].arg) {
        case DNNL_ARG_SRC_1: io.x2 = d; break;
        case DNNL_ARG_MEAN: io.mean = d; break;
        case DNNL_ARG_VARIANCE: io.var = d; break;
        case DNNL_ARG_SCALE: io.scale = d; break;
        case DNNL_ARG_SHIFT: io.shift = d; break;
        default: free(d); break;
        }
    }
    double *got = dbl(x.data[out_arg], x.count[out_arg]);
    check(name, cop, &io, got, NULL);
    free(io.x), free(io.x2), free(io.mean), free(io.var), free(io.scale), free(io.shift), free(got);
    dn_free(&x);
}

static void cases_simple(void)
{
    struct bd_tensor t = bt(4, 2, 3, 5, 4, 0);
    struct bd_arg a2[2] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    static const struct { const char *name; int dalg, cmode; float alpha, beta; } acts[] = {
        {"relu", dnnl_eltwise_relu, CUDNN_ACTIVATION_RELU, 0, 0},
        {"sigmoid", dnnl_eltwise_logistic, CUDNN_ACTIVATION_SIGMOID, 0, 0},
        {"tanh", dnnl_eltwise_tanh, CUDNN_ACTIVATION_TANH, 0, 0},
        {"elu", dnnl_eltwise_elu, CUDNN_ACTIVATION_ELU, 0.7f, 0},
        {"clipped relu", dnnl_eltwise_clip, CUDNN_ACTIVATION_CLIPPED_RELU, 0, 0.5f},
    };
    for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_ELTWISE, op.dt = dnnl_f32, op.alg = acts[i].dalg, op.src = op.dst = t;
        op.alpha = acts[i].alpha, op.beta = acts[i].beta;
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_ACT, c.dt = BC_F32, c.mode = acts[i].cmode, c.x = c.y = ct(&t);
        c.coef = acts[i].cmode == CUDNN_ACTIVATION_CLIPPED_RELU ? acts[i].beta : acts[i].alpha;
        char nm[64];
        snprintf(nm, sizeof(nm), "activation %s", acts[i].name);
        case_simple(nm, &op, a2, 2, &c, 1);
    }
    /* softmax over dim 1 of (outer, mid, inner, 1), and log-softmax */
    for (int log = 0; log < 2; log++) {
        struct bd_tensor v = bt(4, 2, 7, 3, 1, 0);
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_SOFTMAX, op.dt = dnnl_f32, op.alg = log ? dnnl_softmax_log : dnnl_softmax_accurate;
        op.src = op.dst = v, op.axis = 1;
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_SOFTMAX, c.dt = BC_F32, c.algo = log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
        c.mode = CUDNN_SOFTMAX_MODE_CHANNEL, c.x = c.y = ct(&v);
        case_simple(log ? "log-softmax" : "softmax", &op, a2, 2, &c, 1);
    }
    /* batch norm (inference): mean, variance (positive), scale, shift */
    {
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_BNORM, op.dt = dnnl_f32, op.src = op.dst = t, op.eps = 1e-3f;
        op.flags = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift;
        struct bd_arg a[6] = {{DNNL_ARG_SRC, 0, 0},   {DNNL_ARG_MEAN, 0, 0},  {DNNL_ARG_VARIANCE, 0, 1},
                              {DNNL_ARG_SCALE, 0, 0}, {DNNL_ARG_SHIFT, 0, 0}, {DNNL_ARG_DST, 1, 0}};
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_BNORM, c.dt = BC_F32, c.x = c.y = ct(&t), c.eps = 1e-3;
        case_simple("batch norm", &op, a, 6, &c, 5);
    }
    /* LRN across channels */
    {
        struct bd_tensor l = bt(4, 1, 7, 5, 5, 0);
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_LRN, op.dt = dnnl_f32, op.alg = dnnl_lrn_across_channels, op.src = op.dst = l;
        op.local_size = 5, op.alpha = 0.01f, op.beta = 0.75f, op.eps = 2.0f;
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_LRN, c.dt = BC_F32, c.x = c.y = ct(&l), c.lrn_n = 5, c.alpha = 0.01, c.beta = 0.75, c.coef = 2.0;
        case_simple("lrn", &op, a2, 2, &c, 1);
    }
    /* op tensor with a broadcast second operand */
    static const struct { const char *name; int dalg, cmode; double alpha; } ops[] = {
        {"op tensor add", dnnl_binary_add, CUDNN_OP_TENSOR_ADD, 1},
        {"op tensor sub", dnnl_binary_sub, CUDNN_OP_TENSOR_ADD, -1},
        {"op tensor mul", dnnl_binary_mul, CUDNN_OP_TENSOR_MUL, 1},
        {"op tensor max", dnnl_binary_max, CUDNN_OP_TENSOR_MAX, 1},
        {"op tensor min", dnnl_binary_min, CUDNN_OP_TENSOR_MIN, 1},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        struct bd_tensor b = bt(4, 1, 3, 1, 4, 0);
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_BINARY, op.dt = dnnl_f32, op.alg = ops[i].dalg, op.src = op.dst = t, op.src1 = b;
        struct bd_arg a[3] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_SRC_1, 0, 0}, {DNNL_ARG_DST, 1, 0}};
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_OPTENSOR, c.dt = BC_F32, c.mode = ops[i].cmode, c.alpha = ops[i].alpha;
        c.x = c.y = ct(&t), c.x2 = ct(&b);
        case_simple(ops[i].name, &op, a, 3, &c, 2);
    }
    /* reductions: over the two last dims, or over dim 1 */
    static const struct { const char *name; int dalg, cmode; float p; int last2; } reds[] = {
        {"reduce sum", dnnl_reduction_sum, CUDNN_REDUCE_TENSOR_ADD, 0, 1},
        {"reduce mean", dnnl_reduction_mean, CUDNN_REDUCE_TENSOR_AVG, 0, 0},
        {"reduce max", dnnl_reduction_max, CUDNN_REDUCE_TENSOR_MAX, 0, 1},
        {"reduce min", dnnl_reduction_min, CUDNN_REDUCE_TENSOR_MIN, 0, 0},
        {"reduce prod", dnnl_reduction_mul, CUDNN_REDUCE_TENSOR_MUL, 0, 0},
        {"reduce l1", dnnl_reduction_norm_lp_sum, CUDNN_REDUCE_TENSOR_NORM1, 1, 1},
        {"reduce l2", dnnl_reduction_norm_lp_sum, CUDNN_REDUCE_TENSOR_NORM2, 2, 1},
    };
    for (size_t i = 0; i < sizeof(reds) / sizeof(reds[0]); i++) {
        struct bd_tensor y = reds[i].last2 ? bt(4, 2, 3, 1, 1, 0) : bt(4, 2, 1, 5, 4, 0);
        struct bd_op op;
        memset(&op, 0, sizeof(op));
        op.family = BD_REDUCTION, op.dt = dnnl_f32, op.alg = reds[i].dalg, op.src = t, op.dst = y, op.p = reds[i].p;
        struct bc_lib_op c;
        memset(&c, 0, sizeof(c));
        c.family = BC_REDUCE, c.dt = BC_F32, c.mode = reds[i].cmode, c.x = ct(&t), c.y = ct(&y);
        case_simple(reds[i].name, &op, a2, 2, &c, 1);
    }
}

/* GEMM: row-major [B,] M x K times K x N, A or B transposed, B shared, C accumulated; with a
 * cuBLASLt epilogue EPI (0: a cuBLAS GEMM), oneDNN's bias and eltwise post-op POST */
static void case_gemm(const char *name, long long batch, long long m, long long k, long long n, int ta, int tb,
                      int shared_a, int beta_one, int epi, int post)
{
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_MATMUL;
    op.dt = dnnl_f32;
    op.src = batch > 1 ? bt(3, shared_a ? 1 : batch, m, k, 0, 0) : bt(2, m, k, 0, 0, 0);
    op.wei = batch > 1 ? bt(3, batch, k, n, 0, 0) : bt(2, k, n, 0, 0, 0);
    op.dst = batch > 1 ? bt(3, batch, m, n, 0, 0) : bt(2, m, n, 0, 0, 0);
    op.src_transposed = ta;
    op.wei_transposed = tb;
    op.post_sum = beta_one;
    op.post_alg = post;
    int bias = epi == CUBLASLT_EPILOGUE_BIAS || epi == CUBLASLT_EPILOGUE_RELU_BIAS || epi == CUBLASLT_EPILOGUE_GELU_BIAS;
    if (bias) {
        op.has_bias = 1;
        op.bias = batch > 1 ? bt(3, 1, 1, n, 0, 0) : bt(2, 1, n, 0, 0, 0);
    }
    struct bd_arg args[4] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_WEIGHTS, 0, 0}, {DNNL_ARG_BIAS, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    if (!bias)
        args[2] = args[3];
    int dst = bias ? 3 : 2;
    struct dn_run x;
    if (dn_exec(&x, &op, args, bias ? 4 : 3)) {
        failures++;
        return;
    }
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = epi || post ? BC_LT : n == 1 && batch == 1 && !ta && !tb ? BC_GEMV : BC_GEMM;
    cop.epilogue = epi;
    cop.dt = BC_F32;
    cop.m = m, cop.n = n, cop.k = k, cop.ta = ta, cop.tb = tb, cop.beta_one = beta_one;
    cop.batch_count = batch;
    if (batch > 1) {
        cop.stride_a = shared_a ? 0 : m * k;
        cop.stride_b = k * n;
        cop.stride_c = m * n;
    }
    struct br_io io;
    memset(&io, 0, sizeof(io));
    /* bd_input_plain gives the logical matrices; stored transposed, as the benchmark keeps them */
    io.x = (double *)malloc(sizeof(double) * (size_t)x.count[0]);
    io.w = (double *)malloc(sizeof(double) * (size_t)x.count[1]);
    long long ba = shared_a ? 1 : batch;
    for (long long b = 0; b < ba; b++)
        for (long long i = 0; i < m; i++)
            for (long long j = 0; j < k; j++)
                io.x[b * m * k + (ta ? j * m + i : i * k + j)] = x.data[0][b * m * k + i * k + j];
    for (long long b = 0; b < batch; b++)
        for (long long i = 0; i < k; i++)
            for (long long j = 0; j < n; j++)
                io.w[b * k * n + (tb ? j * k + i : i * n + j)] = x.data[1][b * k * n + i * n + j];
    if (beta_one) {
        float *y0 = dn_initial(&x, dst);
        io.y0 = dbl(y0, x.count[dst]);
        free(y0);
    }
    if (bias)
        io.b = dbl(x.data[2], x.count[2]);
    double *got = dbl(x.data[dst], x.count[dst]);
    check(name, &cop, &io, got, NULL);
    free(io.x), free(io.w), free(io.y0), free(io.b), free(got);
    dn_free(&x);
}

/* An attention group's parts (gen's attn_scores and attn_context): a strided batched GEMM over
 * H heads of S queries and T keys, head sizes D (Q, K) and E (V), all different, reading the
 * projections' [S or T, H, D or E] buffers in place (their leading dim H D or H E, the heads D
 * or E apart). CONTEXT 0, the scores: scale Q K^T into a packed [H, S, T], K by rows (B stored
 * [n, k]); Q by columns where QT (a buffer [D, H, S]: A stored [k, m], lda H S). CONTEXT 1: P
 * [H, S, T] packed times V, the output written as [S, H, E] (ldc H E, the heads E apart).
 * oneDNN multiplies the packed heads; the test scatters them into the buffers' layouts by
 * their own indices. The BC_LT pass holds cuBLASLt's files to the same reference (their
 * layouts run on a GPU alone). */
static void case_gemm_inplace(const char *name, int context, int qt)
{
    const long long H = 3, S = 5, T = 7, D = 4, E = 6;
    const float scale = 0.5f;
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_MATMUL;
    op.dt = dnnl_f32;
    op.src = bt(3, H, S, context ? T : D, 0, 0);
    op.wei = bt(3, H, context ? T : D, context ? E : T, 0, 0);
    op.dst = bt(3, H, S, context ? E : T, 0, 0);
    if (!context) {
        op.post_alg = dnnl_eltwise_linear; /* scale x + 0 */
        op.post_alpha = scale;
    }
    struct bd_arg args[3] = {{DNNL_ARG_SRC, 0, 0}, {DNNL_ARG_WEIGHTS, 0, 0}, {DNNL_ARG_DST, 1, 0}};
    struct dn_run x;
    if (dn_exec(&x, &op, args, 3)) {
        failures++;
        return;
    }
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = BC_GEMM;
    cop.dt = BC_F32;
    cop.batch_count = H;
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = (double *)malloc(sizeof(double) * (size_t)x.count[0]);
    io.w = (double *)malloc(sizeof(double) * (size_t)x.count[1]);
    double *got = (double *)malloc(sizeof(double) * (size_t)x.count[2]);
    const float *a = x.data[0], *w = x.data[1], *y = x.data[2];
    if (!context) {
        cop.m = S, cop.n = T, cop.k = D, cop.tb = 1, cop.ta = qt, cop.gemm_alpha = scale;
        cop.lda = qt ? H * S : H * D, cop.ldb = H * D;
        cop.stride_a = qt ? S : D, cop.stride_b = D, cop.stride_c = S * T;
        cop.a_elems = S * H * D, cop.b_elems = T * H * D;
        for (long long h = 0; h < H; h++)
            for (long long e = 0; e < D; e++) {
                for (long long i = 0; i < S; i++) /* Q[h][i][e] in [S, H, D], or [D, H, S] */
                    io.x[qt ? (e * H + h) * S + i : (i * H + h) * D + e] = a[(h * S + i) * D + e];
                for (long long j = 0; j < T; j++) /* K[h][j][e] = K^T[h][e][j] in [T, H, D] */
                    io.w[(j * H + h) * D + e] = w[(h * D + e) * T + j];
            }
        for (long long i = 0; i < H * S * T; i++)
            got[i] = y[i];
    } else {
        cop.m = S, cop.n = E, cop.k = T;
        cop.ldb = H * E, cop.ldc = H * E;
        cop.stride_a = S * T, cop.stride_b = E, cop.stride_c = E;
        cop.b_elems = T * H * E, cop.c_elems = S * H * E;
        for (long long i = 0; i < H * S * T; i++)
            io.x[i] = a[i];
        for (long long h = 0; h < H; h++)
            for (long long e = 0; e < E; e++) {
                for (long long j = 0; j < T; j++) /* V[h][j][e] in [T, H, E] */
                    io.w[(j * H + h) * E + e] = w[(h * T + j) * E + e];
                for (long long i = 0; i < S; i++) /* out[h][i][e] in [S, H, E] */
                    got[(i * H + h) * E + e] = y[(h * S + i) * E + e];
            }
    }
    check(name, &cop, &io, got, NULL);
    cop.family = BC_LT;
    char lt[128];
    snprintf(lt, sizeof(lt), "%s (cublasLt)", name);
    check(lt, &cop, &io, got, NULL);
    free(io.x), free(io.w), free(got);
    dn_free(&x);
}

/* Recurrent layers: oneDNN's weights [1, D, in, G, H] and [1, D, H, G, H], as cuDNN's per-gate
 * [H, in] matrices, with the gates in cuDNN's order (GRU: oneDNN u r o, cuDNN r z h) */
static void case_rnn(const char *name, int mode, int bidir)
{
    int T = 3, N = 2, I = 4, H = 5, D = bidir ? 2 : 1;
    int G = mode == CUDNN_LSTM ? 4 : mode == CUDNN_GRU ? 3 : 1, GB = mode == CUDNN_GRU ? 4 : G;
    struct bd_op op;
    memset(&op, 0, sizeof(op));
    op.family = BD_RNN;
    op.dt = dnnl_f32;
    op.alg = mode == CUDNN_LSTM ? dnnl_vanilla_lstm : mode == CUDNN_GRU ? dnnl_lbr_gru : dnnl_vanilla_rnn;
    op.axis = bidir ? dnnl_bidirectional_concat : dnnl_unidirectional_left2right;
    op.src = bt(3, T, N, I, 0, 0);
    op.dst = bt(3, T, N, (long long)D * H, 0, 0);
    op.wei = bt(5, 1, D, I, G, H);
    op.src1 = bt(5, 1, D, H, G, H);
    op.bias = bt(4, 1, D, GB, H, 0);
    struct bd_arg args[9];
    int na = 0;
    args[na++] = (struct bd_arg){DNNL_ARG_SRC_LAYER, 0, 0};
    args[na++] = (struct bd_arg){DNNL_ARG_SRC_ITER, 0, 0};
    if (mode == CUDNN_LSTM)
        args[na++] = (struct bd_arg){DNNL_ARG_SRC_ITER_C, 0, 0};
    args[na++] = (struct bd_arg){DNNL_ARG_WEIGHTS_LAYER, 0, I};
    args[na++] = (struct bd_arg){DNNL_ARG_WEIGHTS_ITER, 0, H};
    args[na++] = (struct bd_arg){DNNL_ARG_BIAS, 0, 0};
    int out_y = na;
    args[na++] = (struct bd_arg){DNNL_ARG_DST_LAYER, 1, 0};
    int out_h = na;
    args[na++] = (struct bd_arg){DNNL_ARG_DST_ITER, 1, 0};
    if (mode == CUDNN_LSTM)
        args[na++] = (struct bd_arg){DNNL_ARG_DST_ITER_C, 1, 0};
    struct dn_run x;
    if (dn_exec(&x, &op, args, na)) {
        failures++;
        return;
    }
    int lstm = mode == CUDNN_LSTM, wl = lstm ? 3 : 2, wi = wl + 1, bi = wi + 1;
    struct bc_lib_op cop;
    memset(&cop, 0, sizeof(cop));
    cop.family = BC_RNN, cop.dt = BC_F32, cop.mode = mode, cop.bidir = bidir;
    cop.seq = T, cop.batch = N, cop.input = I, cop.hidden = H;
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = dbl(x.data[0], x.count[0]);
    io.hx = dbl(x.data[1], x.count[1]);
    if (lstm)
        io.cx = dbl(x.data[2], x.count[2]);
    /* per direction and gate: W [H, I], R [H, H], bW and bR [H] */
    double *store = (double *)calloc((size_t)D * 2 * G * (H * I + H * H + 2 * H), sizeof(double)), *p = store;
    for (int d = 0; d < D; d++)
        for (int cg = 0; cg < G; cg++) {
            int dg = mode == CUDNN_GRU ? (cg == 0 ? 1 : cg == 1 ? 0 : 2) : cg; /* oneDNN's gate for cuDNN's */
            double *W = p, *R = p + H * I, *bw = R + H * H, *br = bw + H;
            p = br + H;
            for (int h = 0; h < H; h++) {
                for (int i = 0; i < I; i++)
                    W[h * I + i] = x.data[wl][(((long long)d * I + i) * G + dg) * H + h];
                for (int i = 0; i < H; i++)
                    R[h * H + i] = x.data[wi][(((long long)d * H + i) * G + dg) * H + h];
                bw[h] = x.data[bi][((long long)d * GB + dg) * H + h];
                br[h] = mode == CUDNN_GRU && cg == 2 ? x.data[bi][((long long)d * GB + 3) * H + h] : 0;
            }
            io.rw[d][cg] = W, io.rw[d][G + cg] = R, io.rb[d][cg] = bw, io.rb[d][G + cg] = br;
            io.rw_ld[d][cg] = I, io.rw_ld[d][G + cg] = H;
        }
    double *got = dbl(x.data[out_y], x.count[out_y]), *got_h = dbl(x.data[out_h], x.count[out_h]);
    check(name, &cop, &io, got, got_h);
    free(io.x), free(io.hx), free(io.cx), free(store), free(got), free(got_h);
    dn_free(&x);
}

/* A channels-last buffer back to NCHW (what --verify does to an NHWC convolution's tensors
 * before the reference reads them): against this file's own NCHW -> NHWC loop, exactly */
static void case_nhwc_order(void)
{
    struct bc_tensor t = {5, {2, 3, 4, 5, 6}};
    long long n = 2 * 3 * 4 * 5 * 6, sp = 4 * 5 * 6;
    double *nchw = (double *)malloc(sizeof(double) * (size_t)n), *v = (double *)malloc(sizeof(double) * (size_t)n);
    for (long long i = 0; i < n; i++)
        nchw[i] = (double)i;
    for (long long b = 0; b < 2; b++)
        for (long long c = 0; c < 3; c++)
            for (long long s = 0; s < sp; s++)
                v[(b * sp + s) * 3 + c] = nchw[(b * 3 + c) * sp + s];
    cases++;
    if (br_nhwc_to_nchw(v, &t) || memcmp(v, nchw, sizeof(double) * (size_t)n)) {
        printf("FAIL nhwc to nchw: not the NCHW order back\n");
        failures++;
    } else {
        printf("ok   nhwc to nchw\n");
    }
    free(nchw);
    free(v);
}

/* cuDNN's backend API takes the engine benchmarks' convolution (tensors, descriptor, forward
 * operation: every attribute's type and value) without a GPU; the graph and its engines need one */
static void case_backend_op(const char *name, int nsp, const long long *x, const long long *wt, const long long *yd,
                            int pad, int stride, int dil, int nhwc, int dt, int fused, int act, int residual)
{
    struct bc_lib_op op;
    memset(&op, 0, sizeof(op));
    op.family = BC_ENGINE, op.dt = dt, op.nsp = nsp, op.nhwc = nhwc;
    op.fused = fused, op.act = act ? act : CUDNN_ACTIVATION_IDENTITY, op.residual = residual;
    op.x.nd = op.w.nd = op.y.nd = nsp + 2;
    for (int k = 0; k < nsp + 2; k++)
        op.x.d[k] = x[k], op.w.d[k] = wt[k], op.y.d[k] = yd[k];
    for (int k = 0; k < nsp; k++)
        op.pad[k] = pad, op.stride[k] = stride, op.dil[k] = dil;
    struct bc_lib_state f;
    memset(&f, 0, sizeof(f));
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    enum bh_status st = bc_be_conv_op(&f, &op, &r);
    int nops = f.be_nops;
    bc_engine_teardown(&f);
    cases++;
    if (st == BH_OK && nops != 1 + (fused ? 1 + residual + (act != 0) : 0)) {
        printf("FAIL backend operation, %s: %d operations\n", name, nops);
        failures++;
    } else if (st != BH_OK) {
        printf("FAIL backend operation, %s: %s\n", name, r.note);
        failures++;
    } else {
        printf("ok   backend operation, %s\n", name);
    }
}

/* fp8 e4m3 (bc_f2e4m3, bc_e4m3_value): every code but the NaNs back to itself; rounding to
 * nearest even at the ties, saturation at 448, the subnormals */
static void case_e4m3(void)
{
    int bad = 0;
    for (int c = 0; c < 256; c++) {
        if ((c & 0x7f) == 0x7f)
            continue;
        unsigned char back = bc_f2e4m3((float)bc_e4m3_value((unsigned char)c));
        if (back != c) {
            printf("FAIL fp8 e4m3: code 0x%02x (%g) comes back as 0x%02x\n", c, bc_e4m3_value((unsigned char)c), back);
            bad++;
        }
    }
    static const struct {
        float v;
        unsigned char code;
    } known[] = {{1.0f, 0x38}, {-2.0f, 0xc0}, {448.0f, 0x7e}, {1000.0f, 0x7e}, {0.001953125f, 0x01},
                 {0.0009765625f, 0x00}, {1.0625f, 0x38}, {1.1875f, 0x3a}, {0.015625f, 0x08}, {0.013671875f, 0x07}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (bc_f2e4m3(known[i].v) != known[i].code) {
            printf("FAIL fp8 e4m3: %g encodes as 0x%02x, not 0x%02x\n", known[i].v, bc_f2e4m3(known[i].v), known[i].code);
            bad++;
        }
    cases++;
    failures += bad != 0;
    if (!bad)
        printf("ok   fp8 e4m3 encoding and decoding\n");
}

/* An fp8 GEMM's check (BC_LT, dt f8: e4m3 operands, B stored [n, k], a bfloat16 output): the
 * exact product rounded to bfloat16 passes, one element 5% off does not */
static void case_f8_gemm(void)
{
    const long long m = 32, n = 48, k = 64;
    struct bc_lib_op op;
    memset(&op, 0, sizeof(op));
    op.family = BC_LT, op.dt = BC_F8, op.tensor_op = 1, op.m = m, op.n = n, op.k = k, op.tb = 1, op.batch_count = 1;
    op.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = (double *)malloc(sizeof(double) * (size_t)(m * k));
    io.w = (double *)malloc(sizeof(double) * (size_t)(n * k));
    double *got = (double *)malloc(sizeof(double) * (size_t)(m * n));
    unsigned seed = 7;
    for (long long i = 0; i < m * k; i++)
        io.x[i] = bc_e4m3_value(bc_f2e4m3(2.0f * bc_rand(&seed) - 1.0f));
    for (long long i = 0; i < n * k; i++)
        io.w[i] = bc_e4m3_value(bc_f2e4m3(2.0f * bc_rand(&seed) - 1.0f));
    for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
            double acc = 0;
            for (long long c = 0; c < k; c++)
                acc += io.x[i * k + c] * io.w[j * k + c];
            unsigned short b = bc_f2bf((float)acc);
            unsigned bits = (unsigned)b << 16;
            float f;
            memcpy(&f, &bits, 4);
            got[i * n + j] = f;
        }
    struct br_check ok = br_compare(&op, &io, got, NULL);
    got[m * n / 2] += 0.05 * (1 + fabs(got[m * n / 2]));
    struct br_check moved = br_compare(&op, &io, got, NULL);
    cases++;
    if (ok.bad || ok.checked != m * n || !moved.bad) {
        printf("FAIL fp8 gemm: %lld of %lld beyond the tolerance; moved: %lld\n", ok.bad, ok.checked, moved.bad);
        failures++;
    } else {
        printf("ok   fp8 gemm: %lld elements, worst %.3g x tolerance\n", ok.checked, ok.worst_ratio);
    }
    free(io.x), free(io.w), free(got);
}

/* cuDNN's fused attention graph (bc_be_sdpa_ops): every tensor and operation finalized by
 * cuDNN without a GPU; with MISMATCH, K's head size differs from Q's in the first product,
 * which cuDNN must refuse. REP > 1: grouped-query attention, K and V of 12 / REP heads. MASK 1:
 * BERT's padding mask [b, 1, 1, skv]; 2: a causal one [1, 1, sq, skv]; each must reach the graph
 * as PyTorch expands an attn_mask for cuDNN, [b, 1, sq, skv] at stride 0 where it broadcasts */
static void case_backend_sdpa(const char *name, int dt, int mask, int mismatch, int rep)
{
    struct bc_lib_op op;
    memset(&op, 0, sizeof(op));
    op.family = BC_SDPA, op.dt = dt;
    struct bc_att *a = &op.att;
    a->b = 2, a->h = 12, a->sq = 128, a->skv = 96, a->d = 64, a->dv = 64, a->scale = 0.125, a->mask = mask, a->rep = rep;
    /* [b, s, h, d] buffers: the heads split by strides, as gen records BERT's (K's and V's of
     * their own head count) */
    long long hk = rep > 1 ? 12 / rep : 12;
    long long qs[4] = {128 * 768, 64, 768, 1}, ks[4] = {96 * hk * 64, 64, hk * 64, 1};
    long long pad[4] = {96, 0, 0, 1}, causal[4] = {0, 0, 96, 1};
    memcpy(a->q, qs, sizeof(qs)), memcpy(a->o, qs, sizeof(qs)), memcpy(a->k, ks, sizeof(ks)), memcpy(a->v, ks, sizeof(ks));
    if (mask)
        memcpy(a->m, mask == 1 ? pad : causal, sizeof(pad));
    /* the mask's dims and strides in the graph: PyTorch's expand of it */
    int64_t md[4], ms[4];
    const int64_t want_md[4] = {2, 1, 128, 96}, pad_ms[4] = {96, 96, 0, 1}, causal_ms[4] = {0, 128 * 96, 96, 1};
    bc_be_sdpa_mask_dims(a, md, ms);
    if (mask && (memcmp(md, want_md, sizeof(md)) || memcmp(ms, mask == 1 ? pad_ms : causal_ms, sizeof(ms)))) {
        cases++, failures++;
        printf("FAIL backend attention graph, %s: the mask as [%lld %lld %lld %lld] at strides [%lld %lld %lld %lld]\n", name,
               (long long)md[0], (long long)md[1], (long long)md[2], (long long)md[3], (long long)ms[0], (long long)ms[1],
               (long long)ms[2], (long long)ms[3]);
        return;
    }
    struct bc_lib_state f;
    memset(&f, 0, sizeof(f));
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    enum bh_status st;
    if (mismatch) {
        /* K's head size 32 against Q's 64, or (REP) REP K heads, 12 not a multiple of them */
        cudnnBackendDescriptor_t q, k, s;
        int64_t qd[4] = {2, 12, 128, 64}, kd[4] = {2, rep ? rep : 12, rep ? 64 : 32, 96}, sd[4] = {2, 12, 128, 96};
        int64_t qst[4] = {128 * 768, 64, 768, 1}, kst[4] = {96 * kd[1] * 64, 64, 1, kd[1] * 64},
                sst[4] = {12 * 128 * 96, 128 * 96, 96, 1};
        st = bc_be_t4(&f, BC_UID_Q, qd, qst, CUDNN_DATA_HALF, 0, 0, &q, &r);
        if (st == BH_OK)
            st = bc_be_t4(&f, BC_UID_K, kd, kst, CUDNN_DATA_HALF, 0, 0, &k, &r);
        if (st == BH_OK)
            st = bc_be_t4(&f, BC_UID_SDPA_VIRT, sd, sst, CUDNN_DATA_FLOAT, 1, 0, &s, &r);
        if (st == BH_OK)
            st = bc_be_matmul(&f, q, k, s, &r);
    } else {
        st = bc_be_sdpa_ops(&f, &op, &r);
    }
    int nops = f.be_nops;
    bc_engine_teardown(&f);
    cases++;
    if (mismatch ? st == BH_OK : st != BH_OK || nops != 10 + !!mask) {
        printf("FAIL backend attention graph, %s: %s (%d operations)\n", name, mismatch ? "accepted" : r.note, nops);
        failures++;
    } else {
        printf("ok   backend attention graph, %s\n", name);
    }
}

/* A rank-3 attention (one head, which gen records at stride 0): the graph is built with the
 * head's stride that a packed tensor would have (bc_be_unit_strides). cuDNN's finalize without
 * a handle takes the stride 0 as well; whether its engines would refuse it, only a GPU shows */
static void case_backend_sdpa_rank3(void)
{
    struct bc_lib_op op;
    memset(&op, 0, sizeof(op));
    op.family = BC_SDPA, op.dt = BC_F16;
    struct bc_att *a = &op.att;
    a->b = 3, a->h = 1, a->sq = 50, a->skv = 50, a->d = 64, a->dv = 64, a->scale = 0.125;
    long long st3[4] = {50 * 64, 0, 64, 1};
    memcpy(a->q, st3, sizeof(st3)), memcpy(a->k, st3, sizeof(st3)), memcpy(a->v, st3, sizeof(st3)), memcpy(a->o, st3, sizeof(st3));
    int64_t kd[4] = {3, 1, 64, 50}, ks[4] = {50 * 64, 0, 1, 64}; /* K^T's */
    bc_be_unit_strides(kd, ks);
    struct bc_lib_state f;
    memset(&f, 0, sizeof(f));
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    enum bh_status st = bc_be_sdpa_ops(&f, &op, &r);
    bc_engine_teardown(&f);
    cases++;
    if (st != BH_OK || ks[1] != 50 * 64 || ks[0] != 50 * 64 || ks[2] != 1 || ks[3] != 64) {
        printf("FAIL backend attention graph, rank 3: %s (K^T's head stride %lld)\n", st != BH_OK ? r.note : "built",
               (long long)ks[1]);
        failures++;
    } else {
        printf("ok   backend attention graph, rank 3 (one head, its stride the packed one)\n");
    }
}

/* An f16 output in the subnormals (below 2^-14), where f16's steps are 2^-24 apart: each
 * product rounded to its nearest f16 must pass, as cuDNN's f16 Mul and BatchNormalization
 * write them (the H200 run of 2026-11-26 found these "wrong"); one two steps off must not. */
static double f16_nearest_subnormal(double v)
{
    return nearbyint(v / br_acc) * br_acc;
}

static void case_f16_subnormal(void)
{
    enum { N = 64 };
    struct bc_lib_op op;
    memset(&op, 0, sizeof(op));
    op.family = BC_OPTENSOR, op.dt = BC_F16, op.mode = CUDNN_OP_TENSOR_MUL, op.alpha = 1;
    op.x.nd = op.x2.nd = op.y.nd = 1;
    op.x.d[0] = op.x2.d[0] = op.y.d[0] = N;
    double a[N], b[N], got[N];
    for (int i = 0; i < N; i++) {
        a[i] = (i + 1) * 0x1p-10 - 0x1p-12;  /* f16 values: 2^-10 steps under 1/16 */
        b[i] = (N - i) * 0x1p-13 * (i % 2 ? -1 : 1);
        got[i] = f16_nearest_subnormal(a[i] * b[i]);
    }
    struct br_io io;
    memset(&io, 0, sizeof(io));
    io.x = a, io.x2 = b;
    cases++;
    struct br_check c = br_compare(&op, &io, got, NULL);
    int ok = c.bad == 0 && c.checked == N;
    got[0] += 2 * br_acc; /* 5.7e-6: a subnormal */
    struct br_check m = br_compare(&op, &io, got, NULL);
    if (!ok)
        printf("FAIL f16 subnormal products: %lld of %lld beyond tolerance, first %lld (got %.9g want %.9g)\n", c.bad,
               c.checked, c.first_bad, c.first_got, c.first_want);
    else if (m.bad == 0)
        printf("FAIL f16 subnormal products: one two subnormal steps off still passes\n");
    else
        printf("ok   f16 subnormal products: %lld elements, worst %.3g x tolerance\n", c.checked, c.worst_ratio);
    failures += !ok || m.bad == 0;
}

int main(void)
{
    case_f16_subnormal();
    case_nhwc_order();
    case_e4m3();
    case_f8_gemm();
    case_backend_sdpa("f16, no mask", BC_F16, 0, 0, 0);
    case_backend_sdpa("bf16, a padding mask [b, 1, 1, skv]", BC_BF16, 1, 0, 0);
    case_backend_sdpa("f16, a causal mask [1, 1, sq, skv]", BC_F16, 2, 0, 0);
    case_backend_sdpa("Q K^T with K's head size wrong", BC_F16, 0, 1, 0);
    case_backend_sdpa("f16, grouped-query: 12 query heads, 4 K and V heads", BC_F16, 0, 0, 3);
    case_backend_sdpa("bf16, multi-query with a mask: 1 K and V head", BC_BF16, 1, 0, 12);
    case_backend_sdpa("Q K^T with 12 query heads and 5 K heads", BC_F16, 0, 1, 5);
    case_backend_sdpa_rank3();
    {
        long long x[] = {2, 64, 56, 56}, w[] = {256, 64, 1, 1}, y[] = {2, 256, 56, 56};
        long long x3[] = {1, 8, 9, 10, 11}, w3[] = {16, 8, 3, 3, 3}, y3[] = {1, 16, 9, 10, 11};
        long long xg[] = {1, 32, 28, 28}, wg[] = {32, 1, 3, 3}, yg[] = {1, 32, 14, 14};
        case_backend_op("1x1 channels-last f16", 2, x, w, y, 0, 1, 1, 1, BC_F16, 0, 0, 0);
        case_backend_op("1x1 NCHW f32", 2, x, w, y, 0, 1, 1, 0, BC_F32, 0, 0, 0);
        case_backend_op("3-d 3x3x3 channels-last bf16", 3, x3, w3, y3, 1, 1, 1, 1, BC_BF16, 0, 0, 0);
        case_backend_op("depthwise 3x3 stride 2 channels-last f16", 2, xg, wg, yg, 1, 2, 1, 1, BC_F16, 0, 0, 0);
        case_backend_op("conv + bias", 2, x, w, y, 0, 1, 1, 1, BC_F16, 1, 0, 0);
        case_backend_op("conv + bias + relu", 2, x, w, y, 0, 1, 1, 1, BC_BF16, 1, CUDNN_ACTIVATION_RELU, 0);
        case_backend_op("conv + bias + residual + relu", 2, x, w, y, 0, 1, 1, 1, BC_F16, 1, CUDNN_ACTIVATION_RELU, 1);
        case_backend_op("conv + bias + residual + relu NCHW f32", 2, x, w, y, 0, 1, 1, 0, BC_F32, 1, CUDNN_ACTIVATION_RELU,
                        1);
        case_backend_op("conv + bias + swish", 2, x, w, y, 0, 1, 1, 1, BC_F16, 1, CUDNN_ACTIVATION_SWISH, 0);
        case_backend_op("conv + bias + relu6", 2, x, w, y, 0, 1, 1, 1, BC_F16, 1, CUDNN_ACTIVATION_CLIPPED_RELU, 0);
        case_backend_op("conv + bias + sigmoid NCHW f32", 2, x, w, y, 0, 1, 1, 0, BC_F32, 1, CUDNN_ACTIVATION_SIGMOID, 0);
        case_backend_op("conv + bias + residual + tanh", 2, x, w, y, 0, 1, 1, 1, BC_BF16, 1, CUDNN_ACTIVATION_TANH, 1);
        case_backend_op("conv + bias + residual + swish NCHW tf32", 2, x, w, y, 0, 1, 1, 0, BC_F32, 1,
                        CUDNN_ACTIVATION_SWISH, 1);
    }
    long long in2[2] = {9, 9}, in2b[2] = {7, 8}, in3[3] = {4, 5, 6};
    case_conv("conv 3x3 stride 2 pad 1", 2, in2, 2, 3, 4, 3, 2, 1, 1, 1, 0, 0);
    case_conv("conv grouped dilated", 2, in2b, 1, 4, 6, 3, 1, 2, 2, 2, 0, 0);
    case_conv("conv 1x1", 2, in2, 1, 8, 5, 1, 1, 0, 1, 1, 0, 0);
    case_conv("conv 3-d", 3, in3, 1, 2, 3, 3, 1, 1, 1, 1, 0, 0);
    case_conv("conv + bias + relu", 2, in2, 1, 3, 4, 3, 1, 1, 1, 1, 1, 0);
    case_conv("conv + bias + residual + relu", 2, in2, 1, 3, 4, 3, 2, 1, 1, 1, 1, 1);
    case_conv("conv + bias + silu", 2, in2, 1, 3, 4, 3, 1, 1, 1, 1, 2, 0);
    case_conv("conv + bias + residual + silu", 2, in2, 2, 3, 4, 3, 2, 1, 1, 1, 2, 1);
    case_conv("conv + bias + clip from 0 to 0.3", 2, in2, 1, 3, 4, 3, 1, 1, 1, 1, 3, 0);
    case_conv("conv + bias + residual + sigmoid", 2, in2, 1, 3, 4, 3, 1, 1, 1, 1, 4, 1);
    case_conv("conv + bias + tanh", 2, in2, 1, 3, 4, 3, 2, 1, 1, 1, 5, 0);
    case_deconv("conv transpose stride 2", 1, 4, 3, 5, 3, 2, 1);
    case_deconv("conv transpose stride 1", 2, 3, 2, 4, 2, 1, 0);
    case_pool("max pool", dnnl_pooling_max, CUDNN_POOLING_MAX, 3, 2, 1);
    case_pool("average pool with padding", dnnl_pooling_avg_include_padding,
              CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 3, 2, 1);
    case_pool("average pool without padding", dnnl_pooling_avg_exclude_padding,
              CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 3, 2, 1);
    case_pool("global average pool", dnnl_pooling_avg_exclude_padding, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 9,
              1, 0);
    cases_simple();
    case_gemm("gemm", 1, 5, 7, 3, 0, 0, 0, 0, 0, 0);
    case_gemm("gemm transposed A", 1, 5, 7, 3, 1, 0, 0, 0, 0, 0);
    case_gemm("gemm transposed B, C accumulated", 1, 6, 4, 5, 0, 1, 0, 1, 0, 0);
    case_gemm("gemm batched", 3, 4, 6, 5, 0, 0, 0, 0, 0, 0);
    case_gemm("gemm batched, A shared", 2, 4, 6, 5, 0, 0, 1, 0, 0, 0);
    case_gemm("gemv", 1, 6, 9, 1, 0, 0, 0, 0, 0, 0);
    case_gemm("cublasLt + bias", 1, 5, 7, 6, 0, 0, 0, 0, CUBLASLT_EPILOGUE_BIAS, 0);
    case_gemm("cublasLt + bias + relu, B transposed", 1, 5, 7, 6, 0, 1, 0, 0, CUBLASLT_EPILOGUE_RELU_BIAS,
              dnnl_eltwise_relu);
    case_gemm("cublasLt + bias + gelu (tanh)", 1, 6, 8, 5, 0, 0, 0, 0, CUBLASLT_EPILOGUE_GELU_BIAS,
              dnnl_eltwise_gelu_tanh);
    case_gemm("cublasLt + relu, batched", 2, 4, 6, 5, 0, 0, 0, 0, CUBLASLT_EPILOGUE_RELU, dnnl_eltwise_relu);
    case_gemm_inplace("attention scores in place (Q of [S, H, D], K of [T, H, D], scaled)", 0, 0);
    case_gemm_inplace("attention scores in place (Q by columns, [D, H, S])", 0, 1);
    case_gemm_inplace("attention context in place (V of [T, H, E], the output [S, H, E])", 1, 0);
    case_rnn("lstm", CUDNN_LSTM, 0);
    case_rnn("lstm bidirectional", CUDNN_LSTM, 1);
    case_rnn("gru (linear before reset)", CUDNN_GRU, 0);
    case_rnn("rnn tanh", CUDNN_RNN_TANH, 0);
    printf("%d of %d host references agree with oneDNN's\n", cases - failures, cases);
    return failures ? 1 : 0;
}
