/* Control flow: If (both branches inferred, outputs merged), Loop and Scan. */
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

/* Scan (opset 9 on): N state values then M scan inputs; the body sees the states and one
 * slice of each scan input (its scan axis removed); outputs: the final states, then each
 * scan output stacked along its scan_output_axes (default 0), as long as the scan */
static void infer_scan(struct infer_ctx *c)
{
    struct ir_graph *body = graph_attr(c, "body");
    int64_t m = op_attr_i(c, "num_scan_inputs", -1);
    int nin = op_nin(c), n_state = nin - (int)m;
    if (!body || m < 1 || n_state < 0) {
        op_fail(c, "Scan needs a body and num_scan_inputs");
        return;
    }
    if (c->opset < 9) {
        op_fail(c, "Scan before opset 9 (with a batch dim) is not inferred");
        return;
    }
    const int64_t *in_axes, *out_axes;
    int nia = op_attr_ints(c, "scan_input_axes", &in_axes), noa = op_attr_ints(c, "scan_output_axes", &out_axes);
    struct ir_dim len = dim_unknown();
    for (int i = 0; i < nin && i < body->n_inputs; i++) {
        const struct ir_value *outer = op_in_value(c, i);
        bool typed = body->inputs[i]->type.kind != IR_TYPE_NONE; /* the body says it already */
        if (!outer)
            continue;
        if (i < n_state || outer->type.kind != IR_TYPE_TENSOR || outer->type.rank < 1) {
            if (!typed)
                body->inputs[i]->type = outer->type;
            continue;
        }
        int r = outer->type.rank, j = i - n_state;
        int axis = nia > j ? (int)(in_axes[j] < 0 ? in_axes[j] + r : in_axes[j]) : 0;
        if (axis < 0 || axis >= r) {
            op_fail(c, "scan input axis out of range");
            return;
        }
        if (!dim_known(len))
            len = outer->type.dims[axis];
        if (typed)
            continue;
        struct ir_type t = outer->type;
        t.rank = r - 1;
        t.dims = bz_arena_array(&c->m->arena, (size_t)r, sizeof(struct ir_dim)); /* not the outer's */
        for (int k = 0, q = 0; k < r; k++)
            if (k != axis)
                t.dims[q++] = outer->type.dims[k];
        body->inputs[i]->type = t;
    }
    c->infer_graph(c, body);
    for (int i = 0; i < c->n->n_outputs && i < body->n_outputs; i++) {
        const struct ir_type *t = &body->outputs[i]->type;
        if (i < n_state) {
            const struct ir_value *init = op_in_value(c, i);
            merge_into(c, i, t, init ? &init->type : t);
        } else if (t->kind == IR_TYPE_TENSOR && t->rank >= 0) {
            int j = i - n_state, r = t->rank + 1;
            int axis = noa > j ? (int)(out_axes[j] < 0 ? out_axes[j] + r : out_axes[j]) : 0;
            if (axis < 0 || axis >= r)
                continue;
            struct ir_dim *d = op_out(c, i, t->dtype, r);
            for (int k = 0, q = 0; k < r; k++)
                d[k] = k == axis ? len : t->dims[q++];
        }
    }
}

const struct op_def ops_control[] = {
    {"If", infer_if, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 255, 0x1, 1, 0)},
    {"Loop", infer_loop, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 255, 1, 255, 0x0, 1, 0)},
    {"Scan", infer_scan, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 255, 1, 255, 0x0, 8, 0)},
    {0},
};
