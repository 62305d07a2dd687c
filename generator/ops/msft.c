/* ONNX Runtime's com.microsoft fused operators that transformer exports use. Their shapes
 * are inferred, so that the ONNX layers around them resolve; they are not benchmarked
 * (OP_FOREIGN: listed as unsupported operators). */
#include <string.h>

#include "ops.h"

/* Attention: input [B, S, H_in], weights [H_in, 3*H] -> output [B, S, H] */
static void infer_attention(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *w = op_in(c, 1);
    if (!x || x->rank != 3) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, 3);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    const int64_t *qkv;
    int n = op_attr_ints(c, "qkv_hidden_sizes", &qkv);
    if (n == 3)
        d[2] = dim_of(qkv[2]);
    else if (w && w->rank == 2 && dim_known(w->dims[1]))
        d[2] = dim_of(w->dims[1].value / 3);
}

/* SkipLayerNormalization: output and the skip-bias sum like the input */
static void infer_skip_layernorm(struct infer_ctx *c)
{
    infer_same_as_input(c);
    const struct ir_type *x = op_in(c, 0);
    if (x && c->n->n_outputs > 3 && c->n->outputs[3])
        op_out_type(c, 3, x);
}

/* EmbedLayerNormalization: input_ids [B, S], word_embedding [V, H] -> [B, S, H], mask [B] */
static void infer_embed_layernorm(struct infer_ctx *c)
{
    const struct ir_type *ids = op_in(c, 0), *we = op_in(c, 2);
    int dtype = op_in_dtype(c, 2);
    if (!ids || ids->rank != 2) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, 3);
    d[0] = ids->dims[0];
    d[1] = ids->dims[1];
    d[2] = we && we->rank == 2 ? we->dims[1] : dim_unknown();
    if (c->n->n_outputs > 1 && c->n->outputs[1])
        op_out(c, 1, IR_DTYPE_INT32, 1)[0] = ids->dims[0];
    if (c->n->n_outputs > 2 && c->n->outputs[2])
        op_out_type(c, 2, &c->n->outputs[0]->type);
}

const struct op_def ops_msft[] = {
    {"Attention", infer_attention, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 7, 1, 2, 0x3, 1, 0)},
    {"SkipLayerNormalization", infer_skip_layernorm, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(3, 5, 1, 4, 0x7, 1, 0)},
    {"EmbedLayerNormalization", infer_embed_layernorm, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(7, 9, 2, 3, 0x6d, 1, 0)},
    {"FastGelu", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0)},
    {"BiasGelu", infer_same_as_input, OP_FOREIGN, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0)},
    {0},
};
