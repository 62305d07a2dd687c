/* Sequences and optionals. The list operations (SequenceEmpty, SequenceConstruct,
 * SequenceInsert, SequenceErase, SequenceAt, SequenceLength) and the optional ones (Optional,
 * OptionalHasElement, OptionalGetElement) compute nothing a benchmark could time: a framework
 * moves references to tensors, not their data, so they are free nodes. gen does not track the
 * shapes of a sequence's tensors: what is read out of a sequence has its element type and an
 * unknown shape, and the layers reading it are unresolved (said, with the tensor). SequenceMap
 * runs a body per element: a control node, like Loop. SplitToSequence and ConcatFromSequence
 * move data: they get types, and are unresolved as a sequence's shapes are unknown. */
#include <string.h>

#include "ops.h"

/* the element type of input i (a tensor's, a sequence's or an optional's), or 0 */
static int elem_dtype(const struct infer_ctx *c, int i)
{
    const struct ir_value *v = op_in_value(c, i);
    return v ? v->type.dtype : 0;
}

static void infer_sequence_empty(struct infer_ctx *c)
{
    op_out_kind_only(c, 0, IR_TYPE_SEQUENCE, (int)op_attr_i(c, "dtype", IR_DTYPE_FLOAT));
}

/* SequenceConstruct, SequenceInsert, SequenceErase, SplitToSequence: a sequence of input 0's
 * element type */
static void infer_sequence_of_input(struct infer_ctx *c)
{
    op_out_kind_only(c, 0, IR_TYPE_SEQUENCE, elem_dtype(c, 0));
}

/* SequenceAt, ConcatFromSequence: a tensor of the element type, shape unknown */
static void infer_tensor_of_elements(struct infer_ctx *c)
{
    op_out_dtype_only(c, 0, elem_dtype(c, 0));
}

static void infer_sequence_length(struct infer_ctx *c)
{
    op_out(c, 0, IR_DTYPE_INT64, 0);
}

static void infer_optional(struct infer_ctx *c)
{
    const struct ir_value *v = op_in_value(c, 0);
    int dtype = v ? v->type.dtype : (int)op_attr_i(c, "type", 0);
    op_out_kind_only(c, 0, IR_TYPE_OPTIONAL, dtype);
}

static void infer_optional_has(struct infer_ctx *c)
{
    op_out(c, 0, IR_DTYPE_BOOL, 0);
}

/* OptionalGetElement: the element (a tensor, or a sequence when the optional holds one) */
static void infer_optional_get(struct infer_ctx *c)
{
    const struct ir_value *v = op_in_value(c, 0);
    if (v && v->type.kind == IR_TYPE_TENSOR) { /* a plain tensor passes through */
        op_out_type(c, 0, &v->type);
        return;
    }
    const struct ir_value *o = c->n->n_outputs ? c->n->outputs[0] : NULL;
    if (o && o->type.kind == IR_TYPE_SEQUENCE) /* as declared */
        return;
    op_out_dtype_only(c, 0, elem_dtype(c, 0));
}

/* SequenceMap: each output a sequence of what the body makes */
static void infer_sequence_map(struct infer_ctx *c)
{
    const struct ir_attr *a = ir_node_attr(c->n, "body");
    struct ir_graph *body = a && a->type == IR_ATTR_GRAPH ? a->u.g : NULL;
    if (!body) {
        op_fail(c, "SequenceMap without a body");
        return;
    }
    c->infer_graph(c, body);
    for (int i = 0; i < c->n->n_outputs && i < body->n_outputs; i++)
        op_out_kind_only(c, i, IR_TYPE_SEQUENCE, body->outputs[i]->type.dtype);
}

const struct op_def ops_sequence[] = {
    {"SequenceEmpty", infer_sequence_empty, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(0, 0, 1, 1, 0x0, 11, 0)},
    {"SequenceConstruct", infer_sequence_of_input, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 255, 1, 1, 0x0, 11, 0)},
    {"SequenceInsert", infer_sequence_of_input, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 11, 0)},
    {"SequenceErase", infer_sequence_of_input, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 11, 0)},
    {"SequenceAt", infer_tensor_of_elements, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 11, 0)},
    {"SequenceLength", infer_sequence_length, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 11, 0)},
    {"Optional", infer_optional, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(0, 1, 1, 1, 0x0, 15, 0)},
    {"OptionalHasElement", infer_optional_has, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(0, 1, 1, 1, 0x0, 15, 0)},
    {"OptionalGetElement", infer_optional_get, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 15, 0)},
    {"SequenceMap", infer_sequence_map, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 255, 1, 255, 0x1, 17, 0)},
    {"SplitToSequence", infer_sequence_of_input, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 11, 0)},
    {"ConcatFromSequence", infer_tensor_of_elements, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 11, 0)},
    {0},
};
