/* Convolutions: Conv and ConvTranspose output shapes, with every auto_pad mode. */
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* kernel_shape from the attribute or from the weight's spatial dims */
static bool kernel_of(struct infer_ctx *c, const struct ir_type *w, int nsp, int64_t *k)
{
    const int64_t *ks;
    int n = op_attr_ints(c, "kernel_shape", &ks);
    for (int i = 0; i < nsp; i++) {
        if (n == nsp) {
            k[i] = ks[i];
        } else if (w && w->rank == nsp + 2 && dim_known(w->dims[2 + i])) {
            k[i] = w->dims[2 + i].value;
        } else {
            return false;
        }
    }
    return true;
}

static void ints_or(struct infer_ctx *c, const char *name, int n, int64_t dflt, int64_t *out)
{
    const int64_t *v;
    int cnt = op_attr_ints(c, name, &v);
    for (int i = 0; i < n; i++)
        out[i] = cnt > i ? v[i] : dflt;
}

void op_conv_shape(struct infer_ctx *c, int w_index, int dtype)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp), *w = op_in(c, w_index);
    if (!x)
        return;
    struct ir_dim *d = op_out(c, 0, dtype ? dtype : x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = w && w->rank >= 1 ? w->dims[0] : dim_unknown();
    int64_t k[8], s[8], dl[8], p[16];
    if (!kernel_of(c, w, nsp, k))
        return;
    ints_or(c, "strides", nsp, 1, s);
    ints_or(c, "dilations", nsp, 1, dl);
    ints_or(c, "pads", 2 * nsp, 0, p);
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    for (int i = 0; i < nsp; i++) {
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t ek = (k[i] - 1) * dl[i] + 1, n = in.value;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
            d[2 + i] = dim_of((n + s[i] - 1) / s[i]);
        else if (!strcmp(ap, "VALID"))
            d[2 + i] = dim_of((n - ek) / s[i] + 1);
        else
            d[2 + i] = dim_of((n + p[i] + p[i + nsp] - ek) / s[i] + 1);
    }
}

static void infer_conv(struct infer_ctx *c)
{
    op_conv_shape(c, 1, 0);
}

static void infer_conv_transpose(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp), *w = op_in(c, 1);
    if (!x)
        return;
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    int64_t group = op_attr_i(c, "group", 1);
    d[1] = w && w->rank >= 2 ? dim_mul(w->dims[1], dim_of(group)) : dim_unknown();
    int64_t k[8], s[8], dl[8], p[16], op[8];
    if (!kernel_of(c, w, nsp, k))
        return;
    ints_or(c, "strides", nsp, 1, s);
    ints_or(c, "dilations", nsp, 1, dl);
    ints_or(c, "pads", 2 * nsp, 0, p);
    ints_or(c, "output_padding", nsp, 0, op);
    const int64_t *os;
    int nos = op_attr_ints(c, "output_shape", &os);
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    for (int i = 0; i < nsp; i++) {
        if (nos >= nsp) {
            d[2 + i] = dim_of(os[nos - nsp + i]);
            continue;
        }
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t n = in.value;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
            d[2 + i] = dim_of(n * s[i]);
        else
            d[2 + i] = dim_of(s[i] * (n - 1) + op[i] + (k[i] - 1) * dl[i] + 1 - p[i] - p[i + nsp]);
    }
}

/* conv2d_n1_c64_56x56_k64_3x3_s1_p1_d1_g1 (and convtranspose2d_..., PREFIX2d_... with the weight
 * at input w_index for the quantized convolutions) */
void canon_conv_with(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name, int w_index,
                     const char *prefix)
{
    const struct ir_type *x = canon_in(c, 0), *w = canon_in(c, w_index);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    for (int i = 0; i < nsp && i < 8; i++)
        k[i] = w->dims[2 + i].value;
    canon_window(c, attrs, x, k, nsp, s, d, p);
    int64_t g = canon_default_i(c, attrs, "group", 1);
    bool tr = !strcmp(c->n->op_type, "ConvTranspose");
    if (tr) {
        int64_t op[8];
        const int64_t *v = NULL;
        int n = -1;
        const struct ir_attr *a = ir_node_attr(c->n, "output_padding");
        if (a && a->type == IR_ATTR_INTS) {
            v = a->u.ints;
            n = (int)a->count;
        }
        for (int i = 0; i < nsp; i++)
            op[i] = n > i ? v[i] : 0;
        a = ir_node_attr(c->n, "auto_pad");
        const char *ap = a && a->type == IR_ATTR_STRING ? a->u.s.data : "NOTSET";
        bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
        a = ir_node_attr(c->n, "output_shape");
        if (same || (a && a->type == IR_ATTR_INTS && (int)a->count >= nsp)) {
            /* the pads come from the output size, not from the convolution's SAME rule
             * (canon_window's): total = s (in - 1) + output_padding + (k - 1) d + 1 - out,
             * the odd pixel at the start except with SAME_UPPER (floor division, as onnx's
             * reference implementation); a negative end pad (an output larger than the
             * kernel reaches) is the same as that much more output_padding */
            const struct ir_type *y = canon_out(c, 0);
            for (int i = 0; i < nsp; i++) {
                int64_t total = s[i] * (x->dims[2 + i].value - 1) + op[i] + (k[i] - 1) * d[i] + 1 -
                                y->dims[2 + i].value;
                int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
                p[i] = !strcmp(ap, "SAME_UPPER") ? half : total - half;
                p[i + nsp] = total - p[i];
                if (p[i + nsp] < 0) {
                    op[i] -= p[i + nsp];
                    p[i + nsp] = 0;
                }
            }
            canon_set_ints(attrs, "pads", p, 2 * nsp);
        }
        canon_set_ints(attrs, "output_padding", op, nsp);
        json_object_del(attrs, "output_shape"); /* the output type says it */
    }
    const struct ir_type *y = canon_out(c, 0);
    bz_buf_printf(name, "%s%dd_n%lld_c%lld_", prefix ? prefix : tr ? "convtranspose" : "conv", nsp, (long long)x->dims[0].value,
                  (long long)x->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)x->dims[2 + i].value);
    bz_buf_printf(name, "_k%lld_", (long long)y->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)k[i]);
    canon_name_list(name, "s", s, nsp);
    canon_name_list(name, "p", p, 2 * nsp);
    canon_name_list(name, "d", d, nsp);
    bz_buf_printf(name, "_g%lld", (long long)g);
}

static void canon_conv(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_conv_with(c, attrs, name, 1, NULL);
}

/* ---- backends ---- */

/* The multiply-adds a convolution must do per output and input channel pair: the taps that
 * land inside the data, summed over the positions, not the kernel's volume times the output's
 * size: a tap on the zero padding costs nothing in oneDNN's and cuDNN's direct kernels, and a
 * 3x3 convolution over 8x8 with a pad of 1 has 0.84 of the taps the volume says (a count with
 * them made layers run faster than the CPU's peak allows). Per spatial dim, from each position
 * F of the iterated tensor (a convolution's output, a transposed one's input) tap k reaches
 * F * stride - pad + k * dilation of the other, of size TO. */
static double conv_taps(int nsp, const int64_t *from, const int64_t *to, const int64_t *kernel,
                        const int64_t *stride, const int64_t *dil, const int64_t *pad)
{
    double taps = 1;
    for (int k = 0; k < nsp; k++) {
        double dim = 0;
        for (int64_t f = 0; f < from[k]; f++)
            for (int64_t t = 0; t < kernel[k]; t++) {
                int64_t at = f * stride[k] - pad[k] + t * dil[k];
                dim += at >= 0 && at < to[k];
            }
        taps *= dim;
    }
    return taps;
}

int plan_conv_dnnl(const struct layer_desc *d, bool transposed, struct cpu_plan *p)
{
    struct bd_tensor x, w, y;
    memset(p, 0, sizeof(*p));
    if (plan_bd_tensor(desc_in(d, 0), &x) || plan_bd_tensor(desc_in(d, 1), &w) || plan_bd_tensor(desc_out(d, 0), &y) ||
        x.nd < 3 || x.nd > 5)
        return -1;
    struct bd_op *op = &p->op;
    op->family = transposed ? BD_DECONV : BD_CONV;
    op->nsp = x.nd - 2;
    op->src = x;
    op->dst = y;
    int64_t g = d->a.group;
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
    if (desc_in(d, 2)) {
        op->has_bias = 1;
        plan_bd_tensor(desc_in(d, 2), &op->bias);
    }
    int64_t pads[16];
    plan_ints(&d->a.strides, op->strides, op->nsp, 1);
    plan_ints(&d->a.dilations, op->dil, op->nsp, 1);
    plan_ints(&d->a.pads, pads, 2 * op->nsp, 0);
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
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    if (op->has_bias)
        plan_arg(p, "DNNL_ARG_BIAS", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    const struct bd_tensor *from = transposed ? &x : &y, *to = transposed ? &y : &x;
    p->flops = 2.0 * (double)(from->d[0] * from->d[1]) * (double)(transposed ? oc / g : ic / g) *
               conv_taps(op->nsp, from->d + 2, to->d + 2, op->kernel, op->strides, op->dil, op->pl);
    p->bytes = 4.0 * (double)(plan_bd_count(&x) + plan_bd_count(&w) + plan_bd_count(&y));
    return 0;
}

static int conv_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    return which ? -1 : plan_conv_dnnl(d, d->def->ids.variant != 0, p);
}

static const struct cu_algo conv_algos[] = {
    {"implicit_gemm", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", 0},
    {"implicit_precomp_gemm", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM", 0},
    {"gemm", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", 0},
    {"direct", "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT", 0},
    {"fft", "CUDNN_CONVOLUTION_FWD_ALGO_FFT", 0},
    {"fft_tiling", "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING", 0},
    {"winograd", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", 0},
    {"winograd_nonfused", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", 0},
};
static const struct cu_algo deconv_algos[] = {
    {"algo0", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_0", 0},
    {"algo1", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1", 0},
    {"fft", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT", 0},
    {"fft_tiling", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING", 0},
    {"winograd", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD", 0},
    {"winograd_nonfused", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED", 0},
};

static int conv_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    bool transposed = d->def->ids.variant != 0;
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_in(d, 1), &p->w) ||
        plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd < 3 || p->x.nd > 5 || p->w.nd != p->x.nd)
        return -1;
    p->nsp = p->x.nd - 2;
    p->groups = (int)d->a.group;
    int pads[6], kernel[3];
    plan_int32s(&d->a.strides, p->stride, p->nsp, 1);
    plan_int32s(&d->a.dilations, p->dil, p->nsp, 1);
    plan_int32s(&d->a.pads, pads, 2 * p->nsp, 0);
    for (int k = 0; k < p->nsp; k++)
        kernel[k] = (int)p->w.d[2 + k];
    int64_t oc = p->y.d[1], ic = p->x.d[1], k64[3], s64[3], d64[3], p64[3];
    for (int k = 0; k < p->nsp; k++) {
        k64[k] = kernel[k];
        s64[k] = p->stride[k];
        d64[k] = p->dil[k];
        p64[k] = pads[k];
    }
    const struct cu_tensor *from = transposed ? &p->x : &p->y, *to = transposed ? &p->y : &p->x;
    p->flops = 2.0 * (double)(from->d[0] * from->d[1]) * (double)(transposed ? oc / p->groups : ic / p->groups) *
               conv_taps(p->nsp, from->d + 2, to->d + 2, k64, s64, d64, p64);
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->w) + plan_cu_count(&p->y));
    if (!transposed) {
        /* ONNX weights [OC, IC/g, k...] are cuDNN's filter [K, C, k...] */
        plan_cu_window(p, pads, kernel);
        p->family = CU_CONV;
        p->what = "cudnnConvolutionForward";
        p->algos = conv_algos;
        p->nalgos = (int)BZ_ARRAY_LEN(conv_algos);
        p->advice = true;
    } else {
        /* the data gradient of the convolution from y to x: ONNX weights [IC, OC/g, k...] are
         * that convolution's filter [K, C, k...]; output_padding is in y's size */
        for (int k = 0; k < p->nsp; k++) {
            /* cuDNN pads both sides alike: the smaller pad, or the larger where the smaller
             * cannot give y's size (an odd SAME padding) */
            int pb = pads[k], pe = pads[k + p->nsp];
            int64_t ek = (int64_t)(kernel[k] - 1) * p->dil[k] + 1, need = 0;
            for (int larger = 0; larger < 2; larger++) {
                p->pad[k] = (pb < pe) != larger ? pb : pe;
                need = (p->x.d[2 + k] - 1) * p->stride[k] + ek - 2 * p->pad[k];
                if (p->y.d[2 + k] >= need && p->y.d[2 + k] <= need + p->stride[k] - 1)
                    break;
            }
            if (p->y.d[2 + k] < need || p->y.d[2 + k] > need + p->stride[k] - 1) {
                plan_cu_note(p, "output dim %d run as %lld (from %lld) for padding %d+%d", 2 + k, (long long)need,
                             (long long)p->y.d[2 + k], pb, pe);
                p->y.d[2 + k] = need;
            }
        }
        p->family = CU_DECONV;
        p->what = "cudnnConvolutionBackwardData (ConvTranspose is the data gradient of a convolution)";
        p->algos = deconv_algos;
        p->nalgos = (int)BZ_ARRAY_LEN(deconv_algos);
    }
    if (p->nsp == 1)
        plan_cu_lift_1d(p, true);
    p->nhwc_types = CU_ALL_TYPES;
    p->engines = p->family == CU_CONV;
    p->types = CU_ALL_TYPES;
    return 0;
}

/* A 2-D ConvTranspose whose stride is its kernel in plain C beside oneDNN's (runtime/plain_nn.h):
 * no pads, no dilation, one group, float; the output the input's size times the kernel's. Each
 * input pixel writes its own tile of the output, a product and a depth-to-space, as frameworks
 * run it; oneDNN 2.6's deconvolution is far slower on such a layer of few output channels (a
 * detector's last upsampling: 3 ms against ONNX Runtime's 0.67, docs/results/cpu/README.md) */
static int conv_plain(const struct layer_desc *d, struct pl_op *op)
{
    const struct desc_tensor *x = desc_in(d, 0), *w = desc_in(d, 1), *y = desc_out(d, 0);
    if (d->def->ids.variant != 1 || !x || !w || !y || x->rank != 4 || w->rank != 4 || y->rank != 4 ||
        x->dtype != IR_DTYPE_FLOAT || w->dtype != IR_DTYPE_FLOAT || y->dtype != IR_DTYPE_FLOAT || d->a.group != 1 ||
        (desc_in(d, 2) && desc_in(d, 2)->dtype != IR_DTYPE_FLOAT))
        return -1;
    int64_t strides[2], dil[2], pads[4];
    plan_ints(&d->a.strides, strides, 2, 1);
    plan_ints(&d->a.dilations, dil, 2, 1);
    plan_ints(&d->a.pads, pads, 4, 0);
    for (int k = 0; k < 2; k++)
        if (strides[k] != w->d[2 + k] || dil[k] != 1 || pads[k] || pads[k + 2] || y->d[2 + k] != x->d[2 + k] * strides[k])
            return -1;
    const struct desc_tensor *b = desc_in(d, 2);
    if (w->d[0] != x->d[1] || y->d[1] != w->d[1] || y->d[0] != x->d[0] || w->d[2] * w->d[3] > 16 ||
        (b && (b->rank != 1 || b->d[0] != y->d[1])))
        return -1;
    if (plan_pl_start(d, PL_DECONV_TILES, PL_IDENTITY, b ? 3 : 2, op))
        return -1;
    op->nn.kernel[0] = w->d[2];
    op->nn.kernel[1] = w->d[3];
    op->nn.stride[0] = strides[0];
    op->nn.stride[1] = strides[1];
    return 0;
}

static const struct op_plans conv_plans = {conv_dnnl, conv_plain, conv_cudnn, NULL, NULL, PLAN_PLAIN_TOO,
    .how = {"oneDNN convolution, direct and Winograd", "plain C (a ConvTranspose whose stride is its kernel)", "cuDNN convolution, its 8 forward algorithms, the implicit GEMMs channels-last (NHWC, every type), the backend API's engine configurations (heuristic mode A, both layouts, every type), and its heuristic and Find choices (ConvTranspose: backward data, 6 algorithms, and algorithms 0 and 1 channels-last)", NULL}};

static const struct op_attr conv_attrs[] = {ATTR_MIN(group, 1, 1), ATTR_LIST(strides, 1, 8), ATTR_LIST(dilations, 1, 8),
                                            ATTR_LIST(pads, 0, 16), ATTR_LIST(kernel_shape, 1, 8),
                                            ATTR_LIST(output_padding, 0, 8), ATTR_LIST(output_shape, 0, 8), ATTR_END};

const struct op_def ops_conv[] = {
    {"Conv", infer_conv, OP_WINDOW, canon_conv, conv_attrs, &conv_plans, {0}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 1, 0)},
    {"ConvTranspose", infer_conv_transpose, OP_WINDOW, canon_conv, conv_attrs, &conv_plans, {.variant = 1}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 1, 0)},
    {0},
};
