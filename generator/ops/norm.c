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

const struct op_def ops_norm[] = {
    {"BatchNormalization", infer_batchnorm, 0, canon_norm},
    {"InstanceNormalization", infer_same_as_input, 0, canon_norm},
    {"LayerNormalization", infer_layernorm, 0, canon_norm},
    {"GroupNormalization", infer_same_as_input, 0, canon_norm},
    {"MeanVarianceNormalization", infer_same_as_input, 0, NULL},
    {"LpNormalization", infer_same_as_input, 0, NULL},
    {NULL, NULL, 0, NULL},
};
