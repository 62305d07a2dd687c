/* Pooling and local response normalisation. */
#include <math.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

static void infer_pool(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp);
    if (!x)
        return;
    const int64_t *ks, *sv, *dv, *pv;
    int nk = op_attr_ints(c, "kernel_shape", &ks);
    int ns = op_attr_ints(c, "strides", &sv);
    int nd = op_attr_ints(c, "dilations", &dv);
    int np = op_attr_ints(c, "pads", &pv);
    if (nk != nsp) {
        op_fail(c, "kernel_shape must have %d values", nsp);
        return;
    }
    bool ceil_mode = op_attr_i(c, "ceil_mode", 0) != 0;
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 0; i < nsp; i++) {
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t s = ns > i ? sv[i] : 1, dl = nd > i ? dv[i] : 1;
        int64_t pb = np == 2 * nsp ? pv[i] : 0, pe = np == 2 * nsp ? pv[i + nsp] : 0;
        int64_t ek = (ks[i] - 1) * dl + 1, n = in.value;
        int64_t out;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            out = (n + s - 1) / s;
        } else if (!strcmp(ap, "VALID")) {
            out = (n - ek) / s + 1;
        } else if (ceil_mode) {
            out = (int64_t)ceil((double)(n + pb + pe - ek) / (double)s) + 1;
            /* the last window must start inside the input or its left padding */
            if ((out - 1) * s >= n + pb)
                out--;
        } else {
            out = (n + pb + pe - ek) / s + 1;
        }
        d[2 + i] = dim_of(out);
    }
    if (c->n->n_outputs > 1 && c->n->outputs[1]) {
        struct ir_dim *di = op_out(c, 1, IR_DTYPE_INT64, x->rank);
        memcpy(di, c->n->outputs[0]->type.dims, (size_t)x->rank * sizeof(*di));
    }
}

static void infer_global_pool(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x || x->rank < 2) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 2; i < x->rank; i++)
        d[i] = dim_of(1);
}

/* maxpool2d_n1_c64_112x112_k3x3_s2_p1 */
static void canon_pool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    canon_pool_window(c, attrs, x, k, s, d, p);
    canon_default_i(c, attrs, "ceil_mode", 0);
    if (!strcmp(c->n->op_type, "AveragePool"))
        canon_default_i(c, attrs, "count_include_pad", 0);
    if (!strcmp(c->n->op_type, "MaxPool"))
        canon_default_i(c, attrs, "storage_order", 0);
    if (!strcmp(c->n->op_type, "LpPool"))
        canon_default_i(c, attrs, "p", 2);
    const char *op = !strcmp(c->n->op_type, "MaxPool") ? "maxpool" : !strcmp(c->n->op_type, "AveragePool") ? "avgpool" : "lppool";
    bz_buf_printf(name, "%s%dd_n%lld_c%lld_", op, nsp, (long long)x->dims[0].value, (long long)x->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)x->dims[2 + i].value);
    bz_buf_puts(name, "_k");
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)k[i]);
    canon_name_list(name, "s", s, nsp);
    canon_name_list(name, "p", p, 2 * nsp);
}

static void canon_global_pool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    (void)attrs;
    const struct ir_type *x = canon_in(c, 0);
    bz_buf_printf(name, "%s_n%lld_c%lld_", !strcmp(c->n->op_type, "GlobalMaxPool") ? "globalmaxpool" : !strcmp(c->n->op_type, "GlobalAveragePool") ? "globalavgpool" : "globallppool",
                  (long long)x->dims[0].value, (long long)x->dims[1].value);
    for (int i = 2; i < x->rank; i++)
        bz_buf_printf(name, "%s%lld", i > 2 ? "x" : "", (long long)x->dims[i].value);
}

static void canon_lrn(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_default_f(c, attrs, "alpha", 1e-4);
    canon_default_f(c, attrs, "beta", 0.75);
    canon_default_f(c, attrs, "bias", 1.0);
    bz_buf_printf(name, "lrn_size%lld_", (long long)ir_node_attr_int(c->n, "size", 0));
    canon_name_dims(name, canon_in(c, 0));
}

/* ---- backends ---- */

enum { POOL_MAX = 1, POOL_GLOBAL = 2 };

static int pool_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    struct bd_tensor x, y;
    memset(p, 0, sizeof(*p));
    /* a float layer, or MaxPool of a quantized one (u8, s8) */
    int t = plan_layer_dtype(d);
    if (which || (t != IR_DTYPE_FLOAT && t != IR_DTYPE_UINT8 && t != IR_DTYPE_INT8) ||
        plan_bd_tensor(desc_in(d, 0), &x) || plan_bd_tensor(desc_out(d, 0), &y) || x.nd < 3 || x.nd > 5)
        return -1;
    struct bd_op *op = &p->op;
    op->family = BD_POOL;
    op->nsp = x.nd - 2;
    op->src = x;
    op->dst = y;
    bool max = d->def->ids.variant & POOL_MAX;
    if (d->def->ids.variant & POOL_GLOBAL) {
        for (int k = 0; k < op->nsp; k++) {
            op->kernel[k] = x.d[2 + k];
            op->strides[k] = 1;
            op->dil[k] = 1;
        }
    } else {
        int64_t pads[16];
        plan_ints(&d->a.kernel_shape, op->kernel, op->nsp, 1);
        plan_ints(&d->a.strides, op->strides, op->nsp, 1);
        plan_ints(&d->a.dilations, op->dil, op->nsp, 1);
        plan_ints(&d->a.pads, pads, 2 * op->nsp, 0);
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
    op->alg = max ? dnnl_pooling_max : d->a.count_include_pad ? dnnl_pooling_avg_include_padding
                                                              : dnnl_pooling_avg_exclude_padding;
    p->algs[0] = op->alg;
    p->n_algs = 1;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    int64_t kvol = 1;
    for (int k = 0; k < op->nsp; k++)
        kvol *= op->kernel[k];
    p->flops = (double)plan_bd_count(&y) * (double)kvol;
    p->bytes = 4.0 * (double)(plan_bd_count(&x) + plan_bd_count(&y));
    /* MaxPool of a quantized tensor (QOperator models pool u8/s8): oneDNN's int8 pooling, in
     * the tensor's one type */
    dnnl_data_type_t q = plan_bd_quant(desc_in(d, 0));
    if (q == dnnl_u8 || q == dnnl_s8) {
        if (!max || plan_bd_quant(desc_out(d, 0)) != q)
            return -1;
        op->qsrc = op->qdst = op->dt = q;
        p->quant = 1;
        p->bytes /= 4;
    }
    return 0;
}

static int pool_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd < 3 ||
        p->x.nd > 5 || d->nout > 1)
        return -1;
    p->nsp = p->x.nd - 2;
    bool global = d->def->ids.variant & POOL_GLOBAL, max = d->def->ids.variant & POOL_MAX;
    int pads[6] = {0};
    plan_int32s(&d->a.dilations, p->dil, p->nsp, 1);
    for (int k = 0; k < p->nsp; k++)
        if (p->dil[k] != 1)
            return -1; /* cuDNN pooling has no dilation */
    if (global) {
        for (int k = 0; k < p->nsp; k++) {
            p->win[k] = (int)p->x.d[2 + k];
            p->stride[k] = 1;
        }
    } else {
        plan_int32s(&d->a.kernel_shape, p->win, p->nsp, 1);
        plan_int32s(&d->a.strides, p->stride, p->nsp, 1);
        plan_int32s(&d->a.pads, pads, 2 * p->nsp, 0);
        plan_cu_window(p, pads, p->win);
    }
    p->mode = max ? "CUDNN_POOLING_MAX"
                  : d->a.count_include_pad ? "CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"
                                           : "CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING";
    if (p->nsp == 1)
        plan_cu_lift_1d(p, false);
    p->family = CU_POOL;
    p->what = "cudnnPoolingForward";
    p->nhwc_types = p->x.nd >= 4 ? p->types : 0;
    int64_t wvol = 1;
    for (int k = 0; k < p->nsp; k++)
        wvol *= p->win[k];
    p->flops = (double)plan_cu_count(&p->y) * (double)wvol;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    return 0;
}

/* LRN across channels: oneDNN's k is ONNX's bias */
static int lrn_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    struct bd_op *op = &p->op;
    p->layouts = BD_LAYOUT_COUNT;
    op->family = BD_LRN;
    op->alg = p->algs[0] = dnnl_lrn_across_channels;
    op->local_size = (dnnl_dim_t)d->a.size;
    op->alpha = (float)d->a.alpha;
    op->beta = (float)d->a.beta;
    op->eps = (float)d->a.bias;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = (double)plan_bd_count(&op->dst) * (double)(op->local_size + 3);
    return 0;
}

static int lrn_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd > 5)
        return -1;
    p->lrn_n = (int)d->a.size;
    if (p->lrn_n < 1 || p->lrn_n > 16 || p->x.nd != 4)
        return -1;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    p->family = CU_LRN;
    p->what = "cudnnLRNCrossChannelForward";
    p->alpha = d->a.alpha;
    p->beta = d->a.beta;
    p->coef = d->a.bias;
    p->flops = (double)plan_cu_count(&p->y) * (p->lrn_n + 3);
    return 0;
}

static const struct op_plans pool_plans = {pool_dnnl, NULL, pool_cudnn, NULL, NULL, 0,
    .how = {"oneDNN pooling", NULL, "cuDNN pooling", NULL}};
static const struct op_plans maxpool_plans = {pool_dnnl, NULL, pool_cudnn, NULL, NULL, PLAN_DNNL_INT8,
    .how = {"oneDNN pooling (also int8)", NULL, "cuDNN pooling", NULL}};
static const struct op_plans lrn_plans = {lrn_dnnl, NULL, lrn_cudnn, NULL, NULL, 0,
    .how = {"oneDNN LRN", NULL, "cuDNN LRN", NULL}};

static const struct op_attr pool_attrs[] = {ATTR_LIST(kernel_shape, 1, 8), ATTR_LIST(strides, 1, 8), ATTR_LIST(dilations, 1, 8),
                                            ATTR_LIST(pads, 0, 16), ATTR(count_include_pad, 0), ATTR_END};
static const struct op_attr lrn_attrs[] = {ATTR_MIN(size, 5, 1), ATTR(alpha, 1e-4), ATTR(beta, 0.75), ATTR(bias, 1.0), ATTR_END};

const struct op_def ops_pool[] = {
    {"MaxPool", infer_pool, OP_WINDOW, canon_pool, pool_attrs, &maxpool_plans, {.variant = POOL_MAX}, .schema = OP_SCHEMA(1, 1, 1, 2, 0x1, 1, 0)},
    {"AveragePool", infer_pool, OP_WINDOW, canon_pool, pool_attrs, &pool_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"LpPool", infer_pool, OP_WINDOW, canon_pool, pool_attrs, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"GlobalAveragePool", infer_global_pool, 0, canon_global_pool, NULL, &pool_plans, {.variant = POOL_GLOBAL}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"GlobalMaxPool", infer_global_pool, 0, canon_global_pool, NULL, &pool_plans, {.variant = POOL_GLOBAL | POOL_MAX}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"GlobalLpPool", infer_global_pool, 0, canon_global_pool, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"LRN", infer_same_as_input, 0, canon_lrn, lrn_attrs, &lrn_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {0},
};
