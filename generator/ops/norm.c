/* Normalisations: batch (inference), instance, layer, group, mean-variance. */
#include <string.h>

#include "../plan.h"
#include "ops.h"

static void infer_batchnorm(struct infer_ctx *c)
{
    infer_same_as_input(c);
    const struct ir_type *x = op_in(c, 0);
    /* training-mode outputs (running and saved mean/var) are per channel */
    for (int i = 1; i < c->n->n_outputs; i++) {
        if (!c->n->outputs[i])
            continue;
        struct ir_dim *d = op_out(c, i, op_in_dtype(c, i < 3 ? 3 : 0), 1);
        if (x && x->rank >= 2)
            d[0] = x->dims[1];
    }
}

static void infer_layernorm(struct infer_ctx *c)
{
    infer_same_as_input(c);
    const struct ir_type *x = op_in(c, 0);
    if (!x)
        return;
    int axis = op_axis(c, op_attr_i(c, "axis", -1), x->rank);
    if (axis < 0)
        return;
    int stash = (int)op_attr_i(c, "stash_type", IR_DTYPE_FLOAT);
    for (int i = 1; i < c->n->n_outputs && i < 3; i++) {
        if (!c->n->outputs[i])
            continue;
        struct ir_dim *d = op_out(c, i, stash, x->rank);
        for (int k = 0; k < x->rank; k++)
            d[k] = k < axis ? x->dims[k] : dim_of(1);
    }
}

static void canon_norm(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    canon_default_f(c, attrs, "epsilon", 1e-5);
    json_object_del(attrs, "momentum");   /* training only */
    json_object_del(attrs, "spatial");    /* opset < 9: always spatial in real models */
    json_object_del(attrs, "is_test");
    json_object_del(attrs, "consumed_inputs");
    if (!strcmp(c->n->op_type, "LayerNormalization")) {
        int64_t axis = ir_node_attr_int(c->n, "axis", -1);
        canon_set_i(attrs, "axis", axis < 0 ? axis + x->rank : axis);
        canon_default_i(c, attrs, "stash_type", 1);
    }
    const char *op = !strcmp(c->n->op_type, "BatchNormalization") ? "batchnorm"
                     : !strcmp(c->n->op_type, "LayerNormalization") ? "layernorm"
                     : !strcmp(c->n->op_type, "InstanceNormalization") ? "instancenorm" : "norm";
    bz_buf_printf(name, "%s_", op);
    canon_name_dims(name, x);
}

/* ---- backends ---- */

/* a normalisation with its own statistics and a scale and shift (InstanceNormalization as
 * batch norm, LayerNormalization): epsilon, flags and arguments */
static void scale_shift_norm(const struct layer_desc *d, struct cpu_plan *p)
{
    p->op.eps = (float)d->a.epsilon;
    p->op.flags = dnnl_use_scale | dnnl_use_shift;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_SCALE", 0, 0);
    plan_arg(p, "DNNL_ARG_SHIFT", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
}

/* BatchNormalization at inference: the model's statistics (global stats) */
static int batchnorm_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p) || p->op.src.nd < 2)
        return -1;
    p->layouts = BD_LAYOUT_COUNT;
    p->op.family = BD_BNORM;
    p->op.eps = (float)d->a.epsilon;
    p->op.flags = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_MEAN", 0, 0);
    plan_arg(p, "DNNL_ARG_VARIANCE", 0, 1);
    plan_arg(p, "DNNL_ARG_SCALE", 0, 0);
    plan_arg(p, "DNNL_ARG_SHIFT", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = 2.0 * (double)plan_bd_count(&p->op.dst);
    return 0;
}

static int batchnorm_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd > 5 ||
        p->x.nd < 2 || d->nout > 1)
        return -1;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    p->family = CU_BNORM;
    p->what = "cudnnBatchNormalizationForwardInference (spatial)";
    p->nhwc_types = p->x.nd >= 4 ? p->types : 0;
    p->eps = d->a.epsilon;
    p->flops = 2.0 * (double)plan_cu_count(&p->y);
    return 0;
}

/* our kernel: each element by its channel's factors from the model's statistics (inputs scale,
 * B, mean, var), NCHW and, 4-D, channels-last; in f32, f16 and bf16 with f32 parameters, as
 * cuDNN takes them */
static int batchnorm_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (d->nout > 1 || plan_ck_tensor(desc_in(d, 0), &k->pl.in[0]) || plan_ck_tensor(desc_out(d, 0), &k->pl.out) ||
        k->pl.in[0].nd < 2 || k->pl.in[0].nd > 5)
        return -1;
    k->kind = CK_BATCHNORM;
    k->eps = d->a.epsilon;
    k->what = "BatchNormalization (inference: the model's statistics)";
    k->flops = 2.0 * plan_pl_bytes(&k->pl.out) / 4; /* its bytes: cuda_layer's, for each type */
    return 0;
}

/* per (image, channel) statistics over the spatial dims: oneDNN's batch norm computing its own
 * statistics over the view [1, N*C, spatial...] (scale and shift repeated per image), in the
 * plain layout only (a blocked layout of N*C is not one of the model's) */
static int instancenorm_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p) || p->op.src.nd < 3)
        return -1;
    p->op.src.d[1] = p->op.src.d[0] * p->op.src.d[1];
    p->op.src.d[0] = 1;
    p->op.dst = p->op.src;
    p->op.family = BD_BNORM;
    scale_shift_norm(d, p);
    p->flops = 5.0 * (double)plan_bd_count(&p->op.dst); /* mean, variance, normalise */
    return 0;
}

static int layernorm_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    int axis = (int)d->a.axis;
    if (axis != p->op.src.nd - 1) {
        plan_bd_flatten(&p->op.src, axis);
        plan_bd_flatten(&p->op.dst, axis);
    }
    p->op.family = BD_LNORM;
    scale_shift_norm(d, p);
    p->flops = 5.0 * (double)plan_bd_count(&p->op.dst);
    return 0;
}

/* LayerNormalization over dims axis..: rows of their product, one block per row */
static int layernorm_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (plan_ck_tensor(desc_in(d, 0), &k->pl.in[0]) || plan_ck_tensor(desc_out(d, 0), &k->pl.out))
        return -1;
    int axis = (int)d->a.axis;
    if (axis < 0)
        axis += k->pl.out.nd;
    int64_t cols = 1;
    for (int j = axis; j < k->pl.out.nd; j++)
        cols *= k->pl.out.d[j];
    k->pl.out.d[axis] = cols;
    k->pl.out.nd = axis + 1;
    k->pl.in[0] = k->pl.out;
    k->affine = 1;
    k->eps = d->a.epsilon;
    k->kind = CK_LAYERNORM;
    k->what = "LayerNormalization";
    plan_ck_finish(k);
    return 0;
}

/* MeanVarianceNormalization: (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9) over the axes
 * (default [0, 2, 3]) */
static int mvn_plain(const struct layer_desc *d, struct pl_op *op)
{
    static const int64_t mvn[3] = {0, 2, 3};
    if (plan_pl_start(d, PL_MVN, PL_IDENTITY, -1, op))
        return -1;
    bool given = desc_present(d, DA_axes);
    int na = given ? d->a.axes.n : 3;
    op->axes = 0;
    for (int j = 0; j < na; j++) {
        int a = plan_axis(given ? d->a.axes.v[j] : mvn[j], op->in[0].nd);
        if (a < 0)
            return -1;
        op->axes |= 1u << a;
    }
    return plan_pl_same(&op->out, &op->in[0]) ? 0 : -1;
}

static const struct op_plans batchnorm_plans = {batchnorm_dnnl, NULL, batchnorm_cudnn, batchnorm_kernel, NULL,
    PLAN_KERNEL_TOO, .how = {"oneDNN batch normalization (global statistics)", NULL, "cuDNN batch normalization (inference)", "kernel of ours (NCHW, and a 4-D one channels-last; f32, f16, bf16)"}};
static const struct op_plans instancenorm_plans = {instancenorm_dnnl, NULL, NULL, NULL, NULL, 0,
    .how = {"oneDNN batch normalization over [1, N*C, ...]", NULL, NULL, NULL}};
static const struct op_plans layernorm_plans = {layernorm_dnnl, NULL, NULL, layernorm_kernel, NULL, 0,
    .how = {"oneDNN layer normalization", NULL, NULL, "kernel of ours"}};
PLAIN_PLANS(mvn_plans, mvn_plain, "plain C");

static const struct op_attr norm_attrs[] = {ATTR(epsilon, 1e-5), ATTR_END};
static const struct op_attr layernorm_attrs[] = {ATTR(epsilon, 1e-5), ATTR(axis, -1), ATTR_END};
static const struct op_attr mvn_attrs[] = {ATTR(axes, 0), ATTR_END};

const struct op_def ops_norm[] = {
    {"BatchNormalization", infer_batchnorm, 0, canon_norm, norm_attrs, &batchnorm_plans, {0}, .schema = OP_SCHEMA(5, 5, 1, 5, 0x1f, 1, 0)},
    {"InstanceNormalization", infer_same_as_input, 0, canon_norm, norm_attrs, &instancenorm_plans, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 1, 0)},
    {"LayerNormalization", infer_layernorm, 0, canon_norm, layernorm_attrs, &layernorm_plans, {0}, .schema = OP_SCHEMA(2, 3, 1, 3, 0x3, 17, 0)},
    {"GroupNormalization", infer_same_as_input, 0, canon_norm, norm_attrs, NULL, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 18, 0)},
    {"MeanVarianceNormalization", infer_same_as_input, 0, NULL, mvn_attrs, &mvn_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0)},
    {"LpNormalization", infer_same_as_input, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {0},
};
