/* Control flow: If (both branches inferred, outputs merged) and Loop. */
#include <string.h>

#include "ops.h"

static struct ir_graph *graph_attr(struct infer_ctx *c, const char *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, name);
    return a && a->type == IR_ATTR_GRAPH ? a->u.g : NULL;
}

/* The type both branches agree on: element type, rank, and each dim where they agree. */
static void merge_into(struct infer_ctx *c, int out, const struct ir_type *a, const struct ir_type *b)
{
    if (!a || !b || a->kind != IR_TYPE_TENSOR || b->kind != IR_TYPE_TENSOR) {
        if (a && b && a->kind == b->kind && a->dtype == b->dtype)
            op_out_dtype_only(c, out, a->dtype);
        return;
    }
    if (a->rank < 0 || b->rank < 0 || a->rank != b->rank) {
        op_out_dtype_only(c, out, a->dtype);
        return;
    }
    struct ir_dim *d = op_out(c, out, a->dtype, a->rank);
    for (int k = 0; k < a->rank; k++)
        d[k] = dim_same(a->dims[k], b->dims[k]) ? a->dims[k] : dim_unknown();
}

static void infer_if(struct infer_ctx *c)
{
    struct ir_graph *t = graph_attr(c, "then_branch"), *e = graph_attr(c, "else_branch");
    if (!t || !e) {
        op_fail(c, "If without both branches");
        return;
    }
    c->infer_graph(c, t);
    c->infer_graph(c, e);
    for (int i = 0; i < c->n->n_outputs; i++) {
        const struct ir_type *a = i < t->n_outputs ? &t->outputs[i]->type : NULL;
        const struct ir_type *b = i < e->n_outputs ? &e->outputs[i]->type : NULL;
        merge_into(c, i, a, b);
    }
}

static void infer_loop(struct infer_ctx *c)
{
    struct ir_graph *body = graph_attr(c, "body");
    if (!body) {
        op_fail(c, "Loop without a body");
        return;
    }
    /* body inputs: iteration number, condition, then the loop-carried values */
    for (int i = 2; i < body->n_inputs && i < op_nin(c); i++) {
        const struct ir_value *outer = op_in_value(c, i);
        if (outer && body->inputs[i]->type.kind == IR_TYPE_NONE)
            body->inputs[i]->type = outer->type;
    }
    c->infer_graph(c, body);
    int n_carried = op_nin(c) - 2;
    int64_t nt;
    const int64_t *trip = op_in_value(c, 0) ? op_in_ints(c, 0, &nt) : NULL;
    for (int i = 0; i < c->n->n_outputs; i++) {
        int bo = i + 1; /* body output 0 is the condition */
        if (bo >= body->n_outputs)
            break;
        const struct ir_type *t = &body->outputs[bo]->type;
        if (i < n_carried) {
            /* a carried value's shape may change between iterations: keep what is stable */
            const struct ir_value *init = op_in_value(c, i + 2);
            merge_into(c, i, t, init ? &init->type : t);
        } else if (t->kind == IR_TYPE_TENSOR && t->rank >= 0) {
            struct ir_dim *d = op_out(c, i, t->dtype, t->rank + 1);
            d[0] = trip && nt == 1 ? dim_of(trip[0]) : dim_unknown();
            for (int k = 0; k < t->rank; k++)
                d[k + 1] = t->dims[k];
        }
    }
}

const struct op_def ops_control[] = {
    {"If", infer_if, 0, NULL},
    {"Loop", infer_loop, 0, NULL},
    {NULL, NULL, 0, NULL},
};
