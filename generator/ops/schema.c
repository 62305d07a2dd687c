/* The check every node passes before its operator's code reads it (hostile input: a Conv
 * without weights, a zero stride, group 0 once crashed gen), driven by the operator table: the
 * input and output counts and required inputs of its schema (the loosest over its ONNX
 * versions, held against onnx.defs by test/oracle/schema_check.py), the ranges of its checked
 * attributes (desc.h's ATTR_MIN, ATTR_LIST), its own check where it has one (Einsum's
 * equation); a window operator's input has at most 8 spatial dims.
 *
 * A node that breaks its schema is not valid ONNX: gen reports it as a located error and the
 * model fails (exit 3). A valid node gen cannot handle (9 spatial dims, a value past INT32_MAX)
 * is a warning and its outputs stay unresolved. */
#include <stdint.h>
#include <string.h>

#include "../desc.h"
#include "ops.h"

bool op_schema_counts(const char *domain, const char *name, int *min_in, int *max_in, int *min_out, int *max_out,
                      unsigned *required)
{
    const struct op_def *d = op_find(domain, name);
    if (!d)
        return false;
    const struct op_schema *s = &d->schema;
    *required = s->required;
    *min_in = s->min_in;
    *max_in = s->max_in == OP_MANY ? -1 : s->max_in;
    *min_out = s->min_out;
    *max_out = s->max_out == OP_MANY ? -1 : s->max_out;
    return true;
}

/* every value at most this: shapes computed from them stay far inside int64 */
#define ATTR_MAX ((int64_t)INT32_MAX)

/* one checked attribute of a node: 0, -1 with why (a value ONNX forbids), 1 with why (more
 * values than gen handles, or a value past any tensor here) */
static int check_attr(const struct ir_node *n, const struct op_attr *r, struct bz_buf *why)
{
    const char *name = desc_attr_name(r->id);
    const struct ir_attr *a = ir_node_attr(n, name);
    if (!a)
        return 0;
    if (r->max_count == 0) {
        if (a->type != IR_ATTR_INT) {
            bz_buf_printf(why, "attribute %s is %s, not an int", name, ir_attr_type_name(a->type));
            return -1;
        }
        if (a->u.i < r->lo) {
            bz_buf_printf(why, "attribute %s is %lld; it must be at least %lld", name, (long long)a->u.i,
                          (long long)r->lo);
            return -1;
        }
        if (a->u.i > ATTR_MAX) {
            bz_buf_printf(why, "attribute %s is %lld: larger than any tensor gen handles", name, (long long)a->u.i);
            return 1;
        }
        return 0;
    }
    if (a->type != IR_ATTR_INTS) {
        bz_buf_printf(why, "attribute %s is %s, not a list of ints", name, ir_attr_type_name(a->type));
        return -1;
    }
    if (a->count > (size_t)r->max_count) {
        /* valid ONNX, beyond gen */
        bz_buf_printf(why, "attribute %s has %zu values; gen handles at most %d", name, a->count, r->max_count);
        return 1;
    }
    for (size_t k = 0; k < a->count; k++) {
        if (a->u.ints[k] < r->lo) {
            bz_buf_printf(why, "attribute %s[%zu] is %lld; it must be at least %lld", name, k, (long long)a->u.ints[k],
                          (long long)r->lo);
            return -1;
        }
        if (a->u.ints[k] > ATTR_MAX) {
            bz_buf_printf(why, "attribute %s[%zu] is %lld: larger than any tensor gen handles", name, k,
                          (long long)a->u.ints[k]);
            return 1;
        }
    }
    return 0;
}

int op_check_node(const struct ir_node *n, struct bz_buf *why)
{
    const struct op_def *d = op_find(n->domain, n->op_type);
    if (!d)
        return 0; /* not ours: the node is unsupported, nothing reads it */
    const struct op_schema *s = &d->schema;
    if (n->n_inputs < s->min_in || (s->max_in != OP_MANY && n->n_inputs > s->max_in)) {
        if (s->max_in == s->min_in)
            bz_buf_printf(why, "%d input%s; %s takes %d", n->n_inputs, n->n_inputs == 1 ? "" : "s", n->op_type,
                          s->min_in);
        else if (s->max_in == OP_MANY)
            bz_buf_printf(why, "%d input%s; %s takes at least %d", n->n_inputs, n->n_inputs == 1 ? "" : "s",
                          n->op_type, s->min_in);
        else
            bz_buf_printf(why, "%d input%s; %s takes %d to %d", n->n_inputs, n->n_inputs == 1 ? "" : "s", n->op_type,
                          s->min_in, s->max_in);
        return -1;
    }
    /* a required input given as "" is missing */
    for (int i = 0; i < 32 && i < n->n_inputs; i++)
        if ((s->required >> i & 1u) && !n->inputs[i]) {
            bz_buf_printf(why, "input %d is empty, but %s requires it", i, n->op_type);
            return -1;
        }
    if (n->n_outputs < s->min_out || (s->max_out != OP_MANY && n->n_outputs > s->max_out)) {
        bz_buf_printf(why, "%d output%s; %s has %d to %d", n->n_outputs, n->n_outputs == 1 ? "" : "s", n->op_type,
                      s->min_out, s->max_out == OP_MANY ? 1000000 : s->max_out);
        return -1;
    }
    int rc = 0;
    for (const struct op_attr *a = d->attrs; a && a->id != DA_COUNT && !rc; a++)
        if (a->checked)
            rc = check_attr(n, a, why);
    if (!rc && d->check)
        rc = d->check(n, why);
    return rc;
}

int op_check_shapes(const struct ir_node *n, struct bz_buf *why)
{
    const struct op_def *d = op_find(n->domain, n->op_type);
    if (d && (d->flags & OP_WINDOW) && n->n_inputs > 0 && n->inputs[0]) {
        const struct ir_type *t = &n->inputs[0]->type;
        if (t->kind == IR_TYPE_TENSOR && t->rank > 10) {
            bz_buf_printf(why, "%d spatial dims: gen handles at most 8", t->rank - 2);
            return 1;
        }
    }
    /* element counts that do not fit: shape arithmetic would overflow */
    for (int i = 0; i < n->n_inputs; i++) {
        const struct ir_value *v = n->inputs[i];
        if (!v || v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
            continue;
        double count = 1;
        for (int k = 0; k < v->type.rank; k++)
            if (v->type.dims[k].value > 0)
                count *= (double)v->type.dims[k].value;
        if (count > 4.5e15) { /* 2^52 */
            bz_buf_printf(why, "input '%s' has %.3g elements: too many to be a tensor here", v->name, count);
            return -1;
        }
    }
    return 0;
}
