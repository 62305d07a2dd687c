/* Quantized operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (the input's
 * shape in the quantized or the float type), QLinearConv and ConvInteger (a convolution's
 * shape, the weight at another input), QLinearMatMul and MatMulInteger (a matmul's). Their keys
 * carry the zero points gen knows: a zero point is work (oneDNN's convolutions compensate for
 * it), so a layer with zero points and one without are different benchmarks. */
#include <string.h>

#include "ops.h"

static void infer_quantize(struct infer_ctx *c)
{
    /* the zero point's type, else output_dtype (opset 21), else uint8 */
    int dt = op_in_value(c, 2) ? op_in_dtype(c, 2) : (int)op_attr_i(c, "output_dtype", 0);
    infer_shape_as_input(c, dt ? dt : IR_DTYPE_UINT8);
}

static void infer_dequantize(struct infer_ctx *c)
{
    /* the scale's type (float, float16, bfloat16) */
    infer_shape_as_input(c, op_in_dtype(c, 1) ? op_in_dtype(c, 1) : IR_DTYPE_FLOAT);
}

/* y (uint8, the input's shape), y_scale (a float scalar), y_zero_point (a uint8 scalar) */
static void infer_dynamic_quantize(struct infer_ctx *c)
{
    infer_shape_as_input(c, IR_DTYPE_UINT8);
    if (c->n->n_outputs > 1 && c->n->outputs[1])
        op_out(c, 1, IR_DTYPE_FLOAT, 0);
    if (c->n->n_outputs > 2 && c->n->outputs[2])
        op_out(c, 2, IR_DTYPE_UINT8, 0);
}

/* QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]): y_zp's type */
static void infer_qlinear_conv(struct infer_ctx *c)
{
    op_conv_shape(c, 3, op_in_dtype(c, 7) ? op_in_dtype(c, 7) : op_in_dtype(c, 0));
}

static void infer_conv_integer(struct infer_ctx *c)
{
    op_conv_shape(c, 1, IR_DTYPE_INT32);
}

/* QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) */
static void infer_qlinear_matmul(struct infer_ctx *c)
{
    op_matmul_shape(c, 0, 3, op_in_dtype(c, 7) ? op_in_dtype(c, 7) : op_in_dtype(c, 0));
}

static void infer_matmul_integer(struct infer_ctx *c)
{
    op_matmul_shape(c, 0, 1, IR_DTYPE_INT32);
}

/* A zero point input as NAME in the key: 0 when absent, its value when gen knows it and every
 * element is the same, null otherwise. */
static void canon_zero_point(const struct canon_ctx *c, struct json_t *attrs, const char *name, int i)
{
    const struct ir_value *v = i < c->n->n_inputs ? c->n->inputs[i] : NULL;
    if (!v) {
        canon_set_i(attrs, name, 0);
        return;
    }
    const struct ir_tensor *t = v->val && v->val->data_kept && v->val->nelem >= 1 ? v->val : NULL;
    int64_t z = t ? tensor_get_i(t, 0) : 0;
    for (int64_t k = 1; t && k < t->nelem; k++)
        if (tensor_get_i(t, k) != z)
            t = NULL;
    if (t)
        canon_set_i(attrs, name, z);
    else
        json_object_set_new(attrs, name, json_null());
}

/* QuantizeLinear, DequantizeLinear: the axis of a per-axis scale (positive; dropped for a
 * per-tensor one) and the zero point */
static void canon_quantize(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0), *scale = canon_in(c, 1);
    int64_t n = 1;
    for (int k = 0; scale && k < scale->rank; k++)
        n *= scale->dims[k].value;
    if (scale && scale->rank == 1 && n > 1) {
        int64_t axis = ir_node_attr_int(c->n, "axis", 1);
        canon_set_i(attrs, "axis", axis < 0 ? axis + x->rank : axis);
    } else {
        json_object_del(attrs, "axis");
    }
    canon_zero_point(c, attrs, "zero_point", 2);
    bz_buf_printf(name, "%s_", !strcmp(c->n->op_type, "QuantizeLinear") ? "quantize" : "dequantize");
    canon_name_dims(name, x);
}

static void canon_qlinear_conv(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_conv_with(c, attrs, name, 3, "qconv");
    canon_zero_point(c, attrs, "x_zero_point", 2);
    canon_zero_point(c, attrs, "w_zero_point", 5);
    canon_zero_point(c, attrs, "y_zero_point", 7);
}

static void canon_conv_integer(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_conv_with(c, attrs, name, 1, "convint");
    canon_zero_point(c, attrs, "x_zero_point", 2);
    canon_zero_point(c, attrs, "w_zero_point", 3);
}

static void canon_qlinear_matmul(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_matmul_with(c, name, 3, "qmatmul");
    canon_zero_point(c, attrs, "a_zero_point", 2);
    canon_zero_point(c, attrs, "b_zero_point", 5);
    canon_zero_point(c, attrs, "y_zero_point", 7);
}

static void canon_matmul_integer(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_matmul_with(c, name, 1, "matmulint");
    canon_zero_point(c, attrs, "a_zero_point", 2);
    canon_zero_point(c, attrs, "b_zero_point", 3);
}

const struct op_def ops_quant[] = {
    {"QuantizeLinear", infer_quantize, 0, canon_quantize},
    {"DequantizeLinear", infer_dequantize, 0, canon_quantize},
    {"DynamicQuantizeLinear", infer_dynamic_quantize, 0, NULL},
    {"QLinearConv", infer_qlinear_conv, 0, canon_qlinear_conv},
    {"ConvInteger", infer_conv_integer, 0, canon_conv_integer},
    {"QLinearMatMul", infer_qlinear_matmul, 0, canon_qlinear_matmul},
    {"MatMulInteger", infer_matmul_integer, 0, canon_matmul_integer},
    {NULL, NULL, 0, NULL},
};
