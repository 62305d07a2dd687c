/* The random generators (RandomUniform, RandomNormal and their *Like forms, Bernoulli,
 * Multinomial): shapes and their plain C benchmarks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* RandomUniformLike, RandomNormalLike, Bernoulli, EyeLike: the input's shape, dtype from the attribute */
void infer_like_with_dtype(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int dtype = (int)op_attr_i(c, "dtype", op_in_dtype(c, 0));
    if (!t) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    op_out_dims(c, 0, dtype, t->dims, t->rank);
}

/* Multinomial: [batch, sample_size] of dtype (default int32) */
static void infer_multinomial(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    struct ir_dim *d = op_out(c, 0, (int)op_attr_i(c, "dtype", IR_DTYPE_INT32), 2);
    if (t && t->rank != 2) {
        op_fail(c, "Multinomial needs [batch, classes], not rank %d", t->rank);
        return;
    }
    d[0] = t ? t->dims[0] : dim_unknown();
    d[1] = dim_of(op_attr_i(c, "sample_size", 1));
}

/* RandomUniform, RandomNormal: shape and dtype from attributes */
static void infer_random(struct infer_ctx *c)
{
    const int64_t *shape;
    int n = op_attr_ints(c, "shape", &shape);
    int dtype = (int)op_attr_i(c, "dtype", IR_DTYPE_FLOAT);
    if (n < 0) {
        op_fail(c, "no 'shape' attribute");
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, n);
    for (int k = 0; k < n; k++)
        d[k] = dim_of(shape[k]);
}

/* ---- backends: plain C (runtime/plain_random.h) ---- */

enum { RND_UNIFORM, RND_NORMAL, RND_BERNOULLI, RND_MULTINOMIAL };

/* the distribution and its parameters; the seed (else a fixed one); the *Like forms read no
 * input, Bernoulli and Multinomial theirs */
static int random_plain(const struct layer_desc *d, struct pl_op *op)
{
    int dist = d->def->ids.variant;
    bool normal = dist == RND_NORMAL, bern = dist == RND_BERNOULLI, multi = dist == RND_MULTINOMIAL;
    if (plan_pl_start(d, PL_RANDOM, PL_IDENTITY, -1, op))
        return -1;
    op->flag = dist;
    op->alpha = (float)(normal ? d->a.mean : d->a.low);
    op->beta = (float)(normal ? d->a.scale : d->a.high);
    op->k = desc_present(d, DA_seed) && desc_known(d, DA_seed) ? (int64_t)d->a.seed * 7919 + 1 : 20201125;
    if (bern || multi) {
        op->nin = 1;
        if (plan_pl_tensor(desc_in(d, 0), &op->in[0]) || !pl_is_float(op->in[0].dtype))
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

PLAIN_PLANS(random_plans, random_plain, "plain C (verified by its statistics)");

static const struct op_attr uniform_attrs[] = {ATTR(low, 0), ATTR(high, 1), ATTR(seed, 0), ATTR_END};
static const struct op_attr normal_attrs[] = {ATTR(mean, 0), ATTR(scale, 1), ATTR(seed, 0), ATTR_END};

const struct op_def ops_random[] = {
    {"RandomUniformLike", infer_like_with_dtype, 0, NULL, uniform_attrs, &random_plans, {.variant = RND_UNIFORM}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"RandomNormalLike", infer_like_with_dtype, 0, NULL, normal_attrs, &random_plans, {.variant = RND_NORMAL}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Bernoulli", infer_like_with_dtype, 0, NULL, uniform_attrs, &random_plans, {.variant = RND_BERNOULLI}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 15, 0)},
    {"RandomUniform", infer_random, 0, NULL, uniform_attrs, &random_plans, {.variant = RND_UNIFORM}, .schema = OP_SCHEMA(0, 0, 1, 1, 0x0, 1, 0)},
    {"RandomNormal", infer_random, 0, NULL, normal_attrs, &random_plans, {.variant = RND_NORMAL}, .schema = OP_SCHEMA(0, 0, 1, 1, 0x0, 1, 0)},
    {"Multinomial", infer_multinomial, 0, NULL, uniform_attrs, &random_plans, {.variant = RND_MULTINOMIAL}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0)},
    {0},
};
