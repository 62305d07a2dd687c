/* Normalisations: batch (inference), instance, layer, group, mean-variance. */
#include <string.h>

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

const struct op_def ops_norm[] = {
    {"BatchNormalization", infer_batchnorm, 0},
    {"InstanceNormalization", infer_same_as_input, 0},
    {"LayerNormalization", infer_layernorm, 0},
    {"GroupNormalization", infer_same_as_input, 0},
    {"MeanVarianceNormalization", infer_same_as_input, 0},
    {"LpNormalization", infer_same_as_input, 0},
    {NULL, NULL, 0},
};
