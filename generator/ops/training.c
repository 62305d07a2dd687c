/* The optimizers of the training domain (ai.onnx.preview.training): Adagrad, Momentum and
 * Adam update n tensors at once. Inputs: the learning rate R and the step count T (scalars),
 * then the n tensors of each role (X, G, then the states: H for Adagrad, V for Momentum, V
 * and H for Adam); outputs: the n new X, then the n new states of each role. Each output has
 * the shape of its input. The CPU backend benchmarks them in plain C (runtime/plain_nn.h). */
#include <string.h>

#include "ops.h"

/* the state roles of an optimizer: 1 (Adagrad's H, Momentum's V) or 2 (Adam's V and H) */
int op_optimizer_states(const char *op)
{
    return !strcmp(op, "Adam") ? 2 : 1;
}

static void infer_optimizer(struct infer_ctx *c)
{
    int roles = 2 + op_optimizer_states(c->n->op_type), nin = op_nin(c);
    if (nin < 2 + roles || (nin - 2) % roles) {
        op_fail(c, "%s needs R, T and %d tensors per updated weight", c->n->op_type, roles);
        return;
    }
    int n = (nin - 2) / roles;
    /* output j of role k (X, then the states) is input 2 + n * (k == 0 ? 0 : k + 1) + j */
    for (int k = 0; k < roles - 1; k++)
        for (int j = 0; j < n; j++) {
            const struct ir_type *t = op_in(c, 2 + n * (k == 0 ? 0 : k + 1) + j);
            if (t)
                op_out_type(c, k * n + j, t);
            else
                op_out_dtype_only(c, k * n + j, op_in_dtype(c, 2 + j));
        }
}

/* the attributes with the spec's defaults (Momentum's have none) */
static void canon_optimizer(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const char *op = c->n->op_type;
    if (!strcmp(op, "Adagrad")) {
        canon_default_f(c, attrs, "decay_factor", 0);
        canon_default_f(c, attrs, "epsilon", 0);
        canon_default_f(c, attrs, "norm_coefficient", 0);
    } else if (!strcmp(op, "Adam")) {
        canon_default_f(c, attrs, "alpha", 0.9);
        canon_default_f(c, attrs, "beta", 0.999);
        canon_default_f(c, attrs, "epsilon", 0);
        canon_default_f(c, attrs, "norm_coefficient", 0);
        canon_default_f(c, attrs, "norm_coefficient_post", 0);
    } else {
        canon_default_f(c, attrs, "alpha", 0);
        canon_default_f(c, attrs, "beta", 0);
        canon_default_f(c, attrs, "norm_coefficient", 0);
        const struct ir_attr *a = ir_node_attr(c->n, "mode");
        canon_set_s(attrs, "mode", a && a->type == IR_ATTR_STRING ? a->u.s.data : "standard");
    }
    for (const char *p = op; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    int roles = 2 + op_optimizer_states(op), n = (c->n->n_inputs - 2) / roles;
    bz_buf_printf(name, "_n%d_", n);
    canon_name_dims(name, canon_in(c, 2));
}

const struct op_def ops_training[] = {
    {"Adagrad", infer_optimizer, 0, canon_optimizer},
    {"Momentum", infer_optimizer, 0, canon_optimizer},
    {"Adam", infer_optimizer, 0, canon_optimizer},
    {NULL, NULL, 0, NULL},
};
