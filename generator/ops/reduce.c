/* Reductions, softmax-like ops, ArgMax/ArgMin and TopK. */
#include <string.h>

#include "../plan.h"
#include "ops.h"

static void reduce_to(struct infer_ctx *c, int dtype, const int64_t *axes, int na, bool keep, int out)
{
    const struct ir_type *x = op_in(c, 0);
    bool red[64] = {0};
    if (!x || x->rank > 64)
        return;
    if (na < 0) {
        for (int k = 0; k < x->rank; k++)
            red[k] = true;
    }
    if (op_mark_axes(c, axes, na, x->rank, red))
        return;
    struct ir_dim d[64];
    int r = 0;
    for (int k = 0; k < x->rank; k++) {
        if (!red[k])
            d[r++] = x->dims[k];
        else if (keep)
            d[r++] = dim_of(1);
    }
    struct ir_dim *o = op_out(c, out, dtype, r);
    memcpy(o, d, (size_t)r * sizeof(*d));
}

static void infer_reduce(struct infer_ctx *c)
{
    const struct ir_type *x = op_in_known(c, 0);
    if (!x)
        return;
    int dtype = x->dtype;
    bool keep = op_attr_i(c, "keepdims", 1) != 0;
    /* axes became an input: ReduceSum at opset 13, the others at 18 */
    int since = !strcmp(c->n->op_type, "ReduceSum") ? 13 : 18;
    const int64_t *axes = NULL;
    int na;
    if (c->opset < since) {
        na = op_attr_ints(c, "axes", &axes);
    } else if (op_in_value(c, 1)) {
        int64_t n;
        axes = op_in_ints(c, 1, &n);
        if (!axes) {
            if (keep)
                op_out(c, 0, dtype, x->rank);
            else
                op_out_dtype_only(c, 0, dtype);
            return;
        }
        na = (int)n;
        if (na == 0)
            na = -1;
    } else {
        na = -1;
    }
    if (na < 0 && c->opset >= since && op_attr_i(c, "noop_with_empty_axes", 0)) {
        infer_same_as_input(c);
        return;
    }
    reduce_to(c, dtype, axes, na, keep, 0);
}

static void infer_argmax(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, IR_DTYPE_INT64);
        return;
    }
    int64_t axis = op_attr_i(c, "axis", 0);
    reduce_to(c, IR_DTYPE_INT64, &axis, 1, op_attr_i(c, "keepdims", 1) != 0, 0);
}

static void infer_topk(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        op_out_dtype_only(c, 1, IR_DTYPE_INT64);
        return;
    }
    int axis = op_axis(c, op_attr_i(c, "axis", -1), x->rank);
    if (axis < 0)
        return;
    struct ir_dim k = dim_unknown();
    if (c->opset < 10) {
        k = dim_of(op_attr_i(c, "k", 0));
    } else {
        int64_t n;
        const int64_t *kv = op_in_ints(c, 1, &n);
        if (kv && n == 1)
            k = dim_of(kv[0]);
    }
    for (int o = 0; o < 2; o++) {
        struct ir_dim *d = op_out(c, o, o ? IR_DTYPE_INT64 : x->dtype, x->rank);
        for (int a = 0; a < x->rank; a++)
            d[a] = a == axis ? k : x->dims[a];
    }
}

/* Softmax before opset 13 flattens to 2-D at axis (default 1); since 13 it works along one
 * axis (default -1): the key records which, so the two never share a benchmark. */
static void canon_softmax(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    bool old = c->opset < 13;
    int64_t axis = ir_node_attr_int(c->n, "axis", old ? 1 : -1);
    if (axis < 0)
        axis += x->rank;
    canon_set_i(attrs, "axis", axis);
    canon_set_i(attrs, "coerce_2d", old);
    const char *op = !strcmp(c->n->op_type, "LogSoftmax") ? "logsoftmax" : !strcmp(c->n->op_type, "Hardmax") ? "hardmax" : "softmax";
    bz_buf_printf(name, "%s_axis%lld%s_", op, (long long)axis, old ? "_2d" : "");
    canon_name_dims(name, x);
}

/* Reductions: the reduced axes, positive and sorted, whichever way the opset gave them. */
static void canon_reduce(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0), *y = canon_out(c, 0);
    bool keep = ir_node_attr_int(c->n, "keepdims", 1) != 0;
    int64_t axes[64];
    int n = 0;
    /* the reduced axes are where the output lost or shrank a dim */
    if (keep && y->rank == x->rank) {
        for (int k = 0; k < x->rank && n < 64; k++)
            if (y->dims[k].value == 1 && x->dims[k].value != 1)
                axes[n++] = k;
    }
    const struct ir_attr *a = ir_node_attr(c->n, "axes");
    if (!(keep && y->rank == x->rank) || (a && a->type == IR_ATTR_INTS)) {
        n = 0;
        if (a && a->type == IR_ATTR_INTS) {
            for (size_t k = 0; k < a->count && n < 64; k++)
                axes[n++] = a->u.ints[k] < 0 ? a->u.ints[k] + x->rank : a->u.ints[k];
        } else if (c->n->n_inputs > 1 && c->n->inputs[1] && c->n->inputs[1]->val && c->n->inputs[1]->val->data_kept) {
            const struct ir_tensor *t = c->n->inputs[1]->val;
            for (int64_t k = 0; k < t->nelem && n < 64; k++) {
                int64_t v = tensor_get_i(t, k);
                axes[n++] = v < 0 ? v + x->rank : v;
            }
        }
        if (n == 0)
            for (int k = 0; k < x->rank && n < 64; k++)
                axes[n++] = k;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int64_t t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    canon_set_ints(attrs, "axes", axes, n);
    canon_set_i(attrs, "keepdims", keep);
    json_object_del(attrs, "noop_with_empty_axes");
    const char *op = c->n->op_type;
    for (const char *p = op; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, x);
    canon_name_list(name, "ax", axes, n);
}

/* ---- backends ---- */

/* the reduced dims of a rank-n input, from the key's axes (positive, sorted) */
static unsigned reduced_axes(const struct layer_desc *d, int n)
{
    unsigned m = 0;
    for (int k = 0; k < d->a.axes.n; k++)
        if (d->a.axes.v[k] >= 0 && d->a.axes.v[k] < n)
            m |= 1u << d->a.axes.v[k];
    return m;
}

/* oneDNN's reduction: the output with the reduced dims kept as 1 (keepdims only changes the view) */
static int reduce_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    struct bd_tensor x, y;
    memset(p, 0, sizeof(*p));
    if (which || !d->def->ids.dnnl || plan_bd_tensor(desc_in(d, 0), &x) || plan_bd_tensor(desc_out(d, 0), &y))
        return -1;
    struct bd_op *op = &p->op;
    op->src = x;
    op->dst = x;
    unsigned axes = reduced_axes(d, x.nd);
    for (int k = 0; k < x.nd; k++)
        if (axes >> k & 1u)
            op->dst.d[k] = 1;
    p->n_algs = 1;
    p->bytes = 4.0 * (double)(plan_bd_count(&x) + plan_bd_count(&y));
    op->family = BD_REDUCTION;
    op->alg = p->algs[0] = d->def->ids.dnnl;
    op->p = d->def->ids.dnnl_alpha;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = (double)plan_bd_count(&x);
    return 0;
}

/* plain C reductions (plain_reduce.h): every type, one double accumulator per output */
static int reduce_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_REDUCE, d->def->ids.pl_fn, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    op->axes = 0;
    for (int j = 0; j < d->a.axes.n; j++) {
        int a = plan_axis(d->a.axes.v[j], x->nd);
        if (a < 0)
            return -1;
        op->axes |= 1u << a;
    }
    int64_t groups = 1;
    for (int k = 0; k < x->nd; k++)
        if (!(op->axes >> k & 1u))
            groups *= x->d[k];
    return pl_count(&op->out) != groups ? -1 : 0;
}

static int reduce_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    if (!d->def->ids.cudnn || plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) ||
        p->x.nd > 5)
        return -1;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    p->y = p->x;
    unsigned axes = reduced_axes(d, p->x.nd);
    for (int k = 0; k < p->x.nd; k++)
        if (axes >> k & 1u)
            p->y.d[k] = 1;
    p->family = CU_REDUCE;
    p->what = "cudnnReduceTensor";
    p->mode = d->def->ids.cudnn;
    p->flops = (double)plan_cu_count(&p->x);
    return 0;
}

/* Softmax and LogSoftmax: along the key's axis, or over the 2-D view before opset 13 */
static int softmax_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    struct bd_op *op = &p->op;
    int axis = (int)d->a.axis;
    if (d->a.coerce_2d) {
        plan_bd_flatten(&op->src, axis);
        plan_bd_flatten(&op->dst, axis);
        axis = 1;
    }
    op->family = BD_SOFTMAX;
    op->axis = axis;
    op->alg = p->algs[0] = d->def->ids.dnnl;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = 4.0 * (double)plan_bd_count(&op->dst);
    return 0;
}

/* Softmax and LogSoftmax in plain C (plain_reduce.h), beside oneDNN's: its jit kernels set up
 * each row, and on rows of a few elements (a detector's two class scores for each anchor) that
 * costs more than the rows' arithmetic; a framework's softmax takes such rows at the rate of
 * their elements. Every float type (double: plain C's alone). */
static int softmax_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_SOFTMAX, PL_IDENTITY, -1, op) || (op->axis = plan_axis(d->a.axis, op->in[0].nd)) < 0 ||
        !plan_pl_same(&op->out, &op->in[0]) || op->out.dtype != op->in[0].dtype || !pl_is_float(op->out.dtype))
        return -1;
    op->flag = (d->a.coerce_2d != 0) | (d->def->ids.dnnl == dnnl_softmax_log) << 1;
    return 0;
}

static int softmax_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    static const struct cu_algo softmax_algos[] = {
        {"fast", "CUDNN_SOFTMAX_FAST", 0},
        {"accurate", "CUDNN_SOFTMAX_ACCURATE", 0},
    };
    static const struct cu_algo logsoftmax_algos[] = {{"log", "CUDNN_SOFTMAX_LOG", 0}};
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd > 5)
        return -1;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    int axis = (int)d->a.axis;
    if (axis < 0)
        axis += p->x.nd;
    /* the sizes as (outer, axis, inner, 1) */
    int64_t outer = 1, mid = 1, inner = 1;
    for (int k = 0; k < p->x.nd; k++) {
        if (k < axis)
            outer *= p->x.d[k];
        else if (k == axis || d->a.coerce_2d)
            mid *= p->x.d[k];
        else
            inner *= p->x.d[k];
    }
    /* over the channels of an image activation (axis 1 of 4 dims): channels-last too, the view
     * (N, C, H W, 1) with C's stride 1, as a framework with channels_last runs it */
    bool channels = axis == 1 && !d->a.coerce_2d && p->x.nd == 4;
    p->x = (struct cu_tensor){4, {outer, mid, inner, 1}};
    p->y = p->x;
    p->family = CU_SOFTMAX;
    if (channels && inner > 1)
        p->nhwc_types = p->types;
    p->what = "cudnnSoftmaxForward";
    p->mode = "CUDNN_SOFTMAX_MODE_CHANNEL";
    bool log = d->def->ids.dnnl == dnnl_softmax_log;
    p->algos = log ? logsoftmax_algos : softmax_algos;
    p->nalgos = log ? 1 : 2;
    p->flops = 4.0 * (double)plan_cu_count(&p->y);
    return 0;
}

/* Hardmax: 1 at each row's first largest (the axis and the pre-13 2-D view as the key has them) */
static int hardmax_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_HARDMAX, PL_IDENTITY, -1, op) || (op->axis = plan_axis(d->a.axis, op->in[0].nd)) < 0 ||
        !plan_pl_same(&op->out, &op->in[0]))
        return -1;
    op->flag = d->a.coerce_2d != 0;
    return 0;
}

/* ArgMax/ArgMin (row by row along the axis) and TopK (a heap of the k best per slice) */
static int arg_topk_plain(const struct layer_desc *d, struct pl_op *op)
{
    int kind = d->def->ids.pl_kind;
    if (plan_pl_start(d, kind, d->def->ids.pl_fn, -1, op))
        return -1;
    int64_t axis = d->a.axis < 0 ? d->a.axis + op->in[0].nd : d->a.axis;
    if (axis < 0 || axis >= op->in[0].nd)
        return -1;
    op->axis = (int)axis;
    if (kind == PL_ARG) {
        if (op->out.dtype != PL_INT64)
            return -1;
        op->flag = d->a.select_last_index != 0;
        return 0;
    }
    if (op->out.nd != op->in[0].nd)
        return -1;
    op->k = op->out.d[op->axis];
    op->flag = d->a.largest != 0;
    return 0;
}

static const struct op_plans reduce_plans = {reduce_dnnl, reduce_plain, reduce_cudnn, NULL, NULL, PLAN_BY_IDS,
    .how = {"oneDNN reduction", "plain C", "cuDNN reduce tensor", NULL}};
static const struct op_plans softmax_plans = {softmax_dnnl, softmax_plain, softmax_cudnn, NULL, NULL,
    PLAN_PLAIN_TOO | PLAN_PLAIN_TYPES,
    .how = {"oneDNN softmax", "plain C", "cuDNN softmax (fast, accurate; log); over the channels channels-last too", NULL}};
PLAIN_PLANS(hardmax_plans, hardmax_plain, "plain C");
PLAIN_PLANS(arg_topk_plans, arg_topk_plain, "plain C");

static const struct op_attr reduce_attrs[] = {ATTR(axes, 0), ATTR(keepdims, 1), ATTR_END};
static const struct op_attr softmax_attrs[] = {ATTR(axis, -1), ATTR(coerce_2d, 0), ATTR_END};
static const struct op_attr arg_attrs[] = {ATTR(axis, 0), ATTR(keepdims, 1), ATTR(select_last_index, 0), ATTR_END};
static const struct op_attr topk_attrs[] = {ATTR(axis, -1), ATTR(largest, 1), ATTR(sorted, 1), ATTR_END};

/* name; oneDNN's reduction (and its p), plain C's function, cuDNN's reduce op */
#define REDUCE(name, dnnl, p, fn, cudnn, sch) \
    {#name, infer_reduce, 0, canon_reduce, reduce_attrs, &reduce_plans, {dnnl, p, 0, 0, PL_REDUCE, fn, cudnn, 0}, .schema = sch},

const struct op_def ops_reduce[] = {
    REDUCE(ReduceMean, dnnl_reduction_mean, 0, PL_MEAN, "CUDNN_REDUCE_TENSOR_AVG", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceSum, dnnl_reduction_sum, 0, PL_ADD, "CUDNN_REDUCE_TENSOR_ADD", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceMax, dnnl_reduction_max, 0, PL_MAX, "CUDNN_REDUCE_TENSOR_MAX", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceMin, dnnl_reduction_min, 0, PL_MIN, "CUDNN_REDUCE_TENSOR_MIN", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceProd, dnnl_reduction_mul, 0, PL_MUL, "CUDNN_REDUCE_TENSOR_MUL", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceL1, dnnl_reduction_norm_lp_sum, 1, PL_L1, "CUDNN_REDUCE_TENSOR_NORM1", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceL2, dnnl_reduction_norm_lp_sum, 2, PL_L2, "CUDNN_REDUCE_TENSOR_NORM2", OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceLogSum, 0, 0, PL_LOGSUM, NULL, OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceLogSumExp, 0, 0, PL_LOGSUMEXP, NULL, OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    REDUCE(ReduceSumSquare, 0, 0, PL_SUMSQUARE, NULL, OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0))
    {"ArgMax", infer_argmax, 0, NULL, arg_attrs, &arg_topk_plans, {.pl_kind = PL_ARG, .pl_fn = PL_MAX}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"ArgMin", infer_argmax, 0, NULL, arg_attrs, &arg_topk_plans, {.pl_kind = PL_ARG, .pl_fn = PL_MIN}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"TopK", infer_topk, 0, NULL, topk_attrs, &arg_topk_plans, {.pl_kind = PL_TOPK, .pl_fn = PL_IDENTITY}, .schema = OP_SCHEMA(1, 2, 2, 2, 0x1, 1, 0)},
    {"Softmax", infer_same_as_input, 0, canon_softmax, softmax_attrs, &softmax_plans, {.dnnl = dnnl_softmax_accurate}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"LogSoftmax", infer_same_as_input, 0, canon_softmax, softmax_attrs, &softmax_plans, {.dnnl = dnnl_softmax_log}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Hardmax", infer_same_as_input, 0, canon_softmax, softmax_attrs, &hardmax_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {0},
};
