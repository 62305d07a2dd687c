/* The optimizers of the training domain (ai.onnx.preview.training): Adagrad, Momentum and
 * Adam update n tensors at once. Inputs: the learning rate R and the step count T (scalars),
 * then the n tensors of each role (X, G, then the states: H for Adagrad, V for Momentum, V
 * and H for Adam); outputs: the n new X, then the n new states of each role. Each output has
 * the shape of its input. The CPU backend benchmarks them in plain C (runtime/plain_nn.h). */
#include <string.h>

#include "../plan.h"
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

/* ---- backends: plain C (runtime/plain_nn.h) ---- */

/* R and T, then each role's n tensors as one (the update is element-wise: the same work),
 * checked to have the same shapes role by role */
static int optimizer_plain(const struct layer_desc *d, struct pl_op *op)
{
    int which = d->def->ids.variant; /* 0 Adagrad, 1 Momentum, 2 Adam */
    int roles = which == 2 ? 4 : 3;  /* X, G and the states */
    int nin = d->nin;
    if (plan_pl_start(d, PL_OPTIMIZER, PL_IDENTITY, -1, op) || nin < 2 + roles || (nin - 2) % roles)
        return -1;
    int n = (nin - 2) / roles;
    struct pl_tensor r, t;
    if (plan_pl_tensor(desc_in(d, 0), &r) || plan_pl_tensor(desc_in(d, 1), &t) || pl_count(&r) != 1 ||
        pl_count(&t) != 1 || !pl_is_float(r.dtype) || pl_is_float(t.dtype))
        return -1;
    int64_t total = 0;
    int dtype = 0;
    for (int j = 0; j < n; j++) {
        struct pl_tensor x;
        if (plan_pl_tensor(desc_in(d, 2 + j), &x) || !pl_is_float(x.dtype) || (dtype && x.dtype != dtype))
            return -1;
        dtype = x.dtype;
        for (int k = 1; k < roles; k++) {
            struct pl_tensor o;
            if (plan_pl_tensor(desc_in(d, 2 + k * n + j), &o) || !plan_pl_same(&o, &x) || o.dtype != dtype)
                return -1;
        }
        total += pl_count(&x);
    }
    op->nin = 2 + roles;
    op->in[0] = r;
    op->in[1] = t;
    for (int k = 0; k < roles; k++)
        op->in[2 + k] = (struct pl_tensor){dtype, 1, {total}};
    op->out = (struct pl_tensor){dtype, 1, {total * (roles - 1)}};
    op->flag = which;
    op->alpha = (float)d->a.alpha;
    op->beta = (float)d->a.beta;
    op->nn.decay = d->a.decay_factor;
    op->nn.epsilon = d->a.epsilon;
    op->nn.norm = d->a.norm_coefficient;
    op->nn.norm_post = d->a.norm_coefficient_post;
    op->nn.nesterov = !strcmp(d->a.mode, "nesterov");
    return 0;
}

PLAIN_PLANS(optimizer_plans, optimizer_plain, "plain C");

static const struct op_attr optimizer_attrs[] = {
    ATTR(alpha, 0), ATTR(beta, 0), ATTR(decay_factor, 0), ATTR(epsilon, 0), ATTR(norm_coefficient, 0),
    ATTR(norm_coefficient_post, 0), ATTR_S(mode, "standard"), ATTR_END};

const struct op_def ops_training[] = {
    {"Adagrad", infer_optimizer, 0, canon_optimizer, optimizer_attrs, &optimizer_plans, {.variant = 0}, .schema = OP_SCHEMA(3, 255, 1, 255, 0x3, 1, 0)},
    {"Momentum", infer_optimizer, 0, canon_optimizer, optimizer_attrs, &optimizer_plans, {.variant = 1}, .schema = OP_SCHEMA(3, 255, 1, 255, 0x3, 1, 0)},
    {"Adam", infer_optimizer, 0, canon_optimizer, optimizer_attrs, &optimizer_plans, {.variant = 2}, .schema = OP_SCHEMA(3, 255, 1, 255, 0x3, 1, 0)},
    {0},
};
