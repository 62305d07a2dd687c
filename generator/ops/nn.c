/* Layers of detection, segmentation and training graphs that oneDNN has not (the CPU backend
 * benchmarks them in plain C, runtime/plain_nn.h): RoiAlign, MaxUnpool and the losses
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss; Det; TfIdfVectorizer. */
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* RoiAlign: [regions, C, output_height, output_width] */
static void infer_roi_align(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *rois = op_in(c, 1);
    struct ir_dim *d = op_out(c, 0, op_in_dtype(c, 0), 4);
    if (x && x->rank != 4) {
        op_fail(c, "RoiAlign needs a map [N, C, H, W], not rank %d", x->rank);
        return;
    }
    d[0] = rois && rois->rank == 2 ? rois->dims[0] : dim_unknown();
    d[1] = x ? x->dims[1] : dim_unknown();
    d[2] = dim_of(op_attr_i(c, "output_height", 1));
    d[3] = dim_of(op_attr_i(c, "output_width", 1));
}

/* the mode, the samples per bin, the scale and the coordinate transformation (opset 16's
 * default half_pixel; before it, no offset: output_half_pixel) */
static void canon_roi_align(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "mode");
    canon_set_s(attrs, "mode", a && a->type == IR_ATTR_STRING ? a->u.s.data : "avg");
    a = ir_node_attr(c->n, "coordinate_transformation_mode");
    canon_set_s(attrs, "coordinate_transformation_mode",
                a && a->type == IR_ATTR_STRING ? a->u.s.data : c->opset >= 16 ? "half_pixel" : "output_half_pixel");
    canon_default_i(c, attrs, "output_height", 1);
    canon_default_i(c, attrs, "output_width", 1);
    canon_default_i(c, attrs, "sampling_ratio", 0);
    canon_default_f(c, attrs, "spatial_scale", 1.0);
    const struct ir_type *x = canon_in(c, 0), *y = canon_out(c, 0);
    bz_buf_printf(name, "roialign_r%lld_", (long long)y->dims[0].value);
    canon_name_dims(name, x);
}

/* MaxUnpool: output_shape when given (a constant), else (in - 1) * stride - pads + kernel */
static void infer_max_unpool(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp);
    if (!x)
        return;
    const int64_t *ks, *sv, *pv;
    int nk = op_attr_ints(c, "kernel_shape", &ks), ns = op_attr_ints(c, "strides", &sv);
    int np = op_attr_ints(c, "pads", &pv);
    if (nk != nsp) {
        op_fail(c, "kernel_shape must have %d values", nsp);
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    if (op_in_value(c, 2)) {
        int64_t n;
        const int64_t *shape = op_in_ints(c, 2, &n);
        for (int k = 0; shape && n == x->rank && k < x->rank; k++)
            d[k] = dim_of(shape[k]);
        return;
    }
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 0; i < nsp; i++)
        if (dim_known(x->dims[2 + i]))
            d[2 + i] = dim_of((x->dims[2 + i].value - 1) * (ns > i ? sv[i] : 1) -
                              (np == 2 * nsp ? pv[i] + pv[i + nsp] : 0) + ks[i]);
}

static void canon_max_unpool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    canon_pool_window(c, attrs, x, k, s, d, p);
    json_object_del(attrs, "dilations");
    bz_buf_printf(name, "maxunpool%dd_", nsp);
    canon_name_dims(name, x);
    bz_buf_puts(name, "_to_");
    canon_name_dims(name, canon_out(c, 0));
}

/* the losses: per element [N, D...] with reduction none, else a scalar; SCE's second output
 * the log-probabilities, the input's shape */
static void infer_loss(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *t = op_in(c, 1);
    int dtype = op_in_dtype(c, 0);
    if (!strcmp(op_attr_s(c, "reduction", "mean"), "none")) {
        if (t) {
            struct ir_type ty = *t;
            ty.dtype = dtype;
            op_out_type(c, 0, &ty);
        } else {
            op_out_dtype_only(c, 0, dtype);
        }
    } else {
        op_out(c, 0, dtype, 0);
    }
    if (c->n->n_outputs > 1 && c->n->outputs[1]) {
        if (x)
            op_out_type(c, 1, x);
        else
            op_out_dtype_only(c, 1, dtype);
    }
}

static void canon_loss(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "reduction");
    canon_set_s(attrs, "reduction", a && a->type == IR_ATTR_STRING ? a->u.s.data : "mean");
    a = ir_node_attr(c->n, "ignore_index");
    if (a && a->type == IR_ATTR_INT)
        canon_set_i(attrs, "ignore_index", a->u.i);
    canon_set_i(attrs, "log_prob", c->n->n_outputs > 1 && c->n->outputs[1] != NULL);
    bz_buf_puts(name, !strcmp(c->n->op_type, "NegativeLogLikelihoodLoss") ? "nllloss_" : "sceloss_");
    canon_name_dims(name, canon_in(c, 0));
}

/* TfIdfVectorizer: float [max(ngram_indexes) + 1], or [B, that] for a batch of rows */
static void infer_tfidf(struct infer_ctx *c)
{
    const int64_t *ix;
    int n = op_attr_ints(c, "ngram_indexes", &ix);
    int64_t size = 0;
    for (int k = 0; k < n; k++)
        size = ix[k] + 1 > size ? ix[k] + 1 : size;
    infer_rows(c, IR_DTYPE_FLOAT, dim_of(size), "[N] or [B, N]");
}

/* Det: [..., M, M] -> [...] */
static void infer_det(struct infer_ctx *c)
{
    const struct ir_type *x = op_in_known(c, 0);
    if (!x)
        return;
    int dtype = x->dtype;
    if (x->rank < 2) {
        op_fail(c, "Det needs square matrices [..., M, M], not rank %d", x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, x->rank - 2);
    for (int k = 0; k < x->rank - 2; k++)
        d[k] = x->dims[k];
}

/* ---- backends: plain C (runtime/plain_nn.h, Det in plain_linalg.h) ---- */

enum { NN_SCE = 1 }; /* SoftmaxCrossEntropyLoss */

/* a float kind whose output has the input's type */
static int nn_start(const struct layer_desc *d, int kind, struct pl_op *op)
{
    if (plan_pl_start(d, kind, PL_IDENTITY, -1, op))
        return -1;
    return pl_is_float(op->in[0].dtype) && op->out.dtype == op->in[0].dtype ? 0 : -1;
}

static int det_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (nn_start(d, PL_DET, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    return x->nd < 2 || x->d[x->nd - 1] != x->d[x->nd - 2] || y->nd != x->nd - 2 ? -1 : 0;
}

static int roi_align_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (nn_start(d, PL_ROI_ALIGN, op))
        return -1;
    struct pl_nn *nn = &op->nn;
    const struct pl_tensor *x = &op->in[0], *y = &op->out, *r = &op->in[1];
    const char *mode = d->a.mode, *ctm = d->a.coordinate_transformation_mode;
    if ((strcmp(mode, "avg") && strcmp(mode, "max")) || (strcmp(ctm, "half_pixel") && strcmp(ctm, "output_half_pixel")))
        return -1;
    nn->mode = !strcmp(mode, "max");
    nn->half_pixel = !strcmp(ctm, "half_pixel");
    nn->sampling = d->a.sampling_ratio;
    nn->scale = d->a.spatial_scale;
    op->in[2].dtype = PL_INT64;
    return x->nd == 4 && r->nd == 2 && r->d[1] == 4 && pl_is_float(r->dtype) && op->in[2].nd == 1 &&
                   op->in[2].d[0] == r->d[0] && y->nd == 4 && y->d[0] == r->d[0] && y->d[1] == x->d[1] &&
                   nn->sampling >= 0 && nn->scale > 0 && x->d[0] > 0
               ? 0
               : -1;
}

/* an int list of the key into v (n values); -1 when it is not that */
static int key_ints(const struct desc_ints *l, bool known, int64_t *v, int n)
{
    if (!known || l->n != n)
        return -1;
    for (int k = 0; k < n; k++)
        v[k] = l->v[k];
    return 0;
}

static int max_unpool_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (nn_start(d, PL_MAX_UNPOOL, op))
        return -1;
    struct pl_nn *nn = &op->nn;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    int nsp = x->nd - 2;
    int64_t pads[12];
    if (nsp < 1 || nsp > 6 || y->nd != x->nd ||
        key_ints(&d->a.kernel_shape, desc_known(d, DA_kernel_shape) && desc_present(d, DA_kernel_shape), nn->kernel, nsp) ||
        key_ints(&d->a.strides, desc_known(d, DA_strides) && desc_present(d, DA_strides), nn->stride, nsp) ||
        key_ints(&d->a.pads, desc_known(d, DA_pads) && desc_present(d, DA_pads), pads, 2 * nsp) ||
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
static int loss_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (nn_start(d, PL_LOSS, op))
        return -1;
    static const char *const reductions[] = {"none", "sum", "mean"};
    struct pl_nn *nn = &op->nn;
    const struct pl_tensor *x = &op->in[0], *y = &op->out, *t = &op->in[1];
    nn->reduction = -1;
    for (int j = 0; j < 3; j++)
        if (!strcmp(d->a.reduction, reductions[j]))
            nn->reduction = j;
    nn->has_ignore = desc_present(d, DA_ignore_index) && desc_known(d, DA_ignore_index);
    nn->ignore = nn->has_ignore ? d->a.ignore_index : 0;
    nn->log_prob = d->a.log_prob != 0;
    op->flag = d->def->ids.variant == NN_SCE;
    if (nn->reduction < 0 || x->nd < 2 || t->nd != x->nd - 1 || t->d[0] != x->d[0] || x->d[1] < 1 ||
        (t->dtype != PL_INT64 && t->dtype != PL_INT32) || (nn->log_prob && !op->flag))
        return -1;
    op->in[1].dtype = PL_INT64;
    for (int k = 1; k < t->nd; k++)
        if (t->d[k] != x->d[k + 1])
            return -1;
    if (desc_in(d, 2)) {
        op->nin = 3;
        if (plan_pl_tensor(desc_in(d, 2), &op->in[2]) || op->in[2].nd != 1 || op->in[2].d[0] != x->d[1] ||
            !pl_is_float(op->in[2].dtype))
            return -1;
    }
    if (nn->reduction == 0 ? (y->nd != t->nd || pl_count(y) != pl_count(t)) : y->nd != 0)
        return -1;
    return 0;
}

/* TfIdfVectorizer of an integer or a string pool: the sizes of the key's lists (the backend
 * prints the lists themselves; a string pool as its texts and, as the pool, each text's first
 * index among them) */
static int tfidf_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_TFIDF, PL_IDENTITY, -1, op))
        return -1;
    struct pl_nn *nn = &op->nn;
    static const char *const modes[] = {"TF", "IDF", "TFIDF"};
    bool text = op->in[0].dtype == PL_STRING;
    nn->tf_mode = -1;
    for (int j = 0; j < 3; j++)
        if (!strcmp(d->a.mode, modes[j]))
            nn->tf_mode = j;
    nn->npool = text ? d->a.pool_strings.n : d->a.pool_int64s.n;
    nn->nstart = d->a.ngram_counts.n;
    nn->nindex = d->a.ngram_indexes.n;
    nn->nweights = d->a.weights.n;
    nn->min_gram = (int)d->a.min_gram_length;
    nn->max_gram = (int)d->a.max_gram_length;
    nn->max_skip = (int)d->a.max_skip_count;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if (nn->tf_mode < 0 || !nn->npool || !nn->nstart || !nn->nindex || nn->min_gram < 1 || nn->max_gram < nn->min_gram ||
        nn->max_gram > 16 || nn->max_skip < 0 || (x->dtype != PL_INT64 && x->dtype != PL_INT32 && !text) || x->nd < 1 ||
        x->nd > 2 || y->dtype != PL_FLOAT || y->nd != x->nd || (x->nd == 2 && y->d[0] != x->d[0]))
        return -1;
    if (!text)
        op->in[0].dtype = PL_INT64; /* int32 tokens are benchmarked as int64 */
    return 0;
}

PLAIN_PLANS(det_plans, det_plain, "plain C (LU)");
PLAIN_PLANS(roi_align_plans, roi_align_plain, "plain C");
PLAIN_PLANS(max_unpool_plans, max_unpool_plain, "plain C");
PLAIN_PLANS(loss_plans, loss_plain, "plain C");
PLAIN_PLANS(tfidf_plans, tfidf_plain, "plain C");

static const struct op_attr roi_align_attrs[] = {ATTR_S(mode, "avg"), ATTR_S(coordinate_transformation_mode, "half_pixel"),
                                                 ATTR(sampling_ratio, 0), ATTR(spatial_scale, 1.0), ATTR_END};
static const struct op_attr max_unpool_attrs[] = {ATTR_LIST(kernel_shape, 1, 8), ATTR_LIST(strides, 1, 8),
                                                  ATTR_LIST(pads, 0, 16), ATTR_END};
static const struct op_attr loss_attrs[] = {ATTR_S(reduction, "mean"), ATTR(ignore_index, 0), ATTR(log_prob, 0), ATTR_END};
static const struct op_attr tfidf_attrs[] = {ATTR_S(mode, ""), ATTR(pool_int64s, 0), ATTR(pool_strings, 0),
                                             ATTR(ngram_counts, 0), ATTR(ngram_indexes, 0), ATTR(weights, 0),
                                             ATTR(min_gram_length, 0), ATTR(max_gram_length, 0),
                                             ATTR(max_skip_count, 0), ATTR_END};

const struct op_def ops_nn[] = {
    {"RoiAlign", infer_roi_align, 0, canon_roi_align, roi_align_attrs, &roi_align_plans, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 10, 0)},
    {"MaxUnpool", infer_max_unpool, OP_WINDOW, canon_max_unpool, max_unpool_attrs, &max_unpool_plans, {0}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 9, 0)},
    {"NegativeLogLikelihoodLoss", infer_loss, 0, canon_loss, loss_attrs, &loss_plans, {0}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 12, 0)},
    {"SoftmaxCrossEntropyLoss", infer_loss, 0, canon_loss, loss_attrs, &loss_plans, {.variant = NN_SCE}, .schema = OP_SCHEMA(2, 3, 1, 2, 0x3, 12, 0)},
    {"Det", infer_det, 0, NULL, NULL, &det_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 11, 0)},
    {"TfIdfVectorizer", infer_tfidf, 0, NULL, tfidf_attrs, &tfidf_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0)},
    {0},
};
