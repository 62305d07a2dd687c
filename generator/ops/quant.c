/* Quantized operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (the input's
 * shape in the quantized or the float type), QLinearConv and ConvInteger (a convolution's
 * shape, the weight at another input), QLinearMatMul and MatMulInteger (a matmul's). Their keys
 * carry the zero points gen knows: a zero point is work (oneDNN's convolutions compensate for
 * it), so a layer with zero points and one without are different benchmarks. */
#include <string.h>

#include "../plan.h"
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

/* ---- backends ---- */

enum { Q_CONV = 1, Q_LINEAR = 2 }; /* QLinearConv: both; ConvInteger: Q_CONV; QLinearMatMul: Q_LINEAR */

/* A zero point of the key as a static oneDNN zero point: 0 when there is none; its value when
 * the key has one; when present but not known to gen (null), a nonzero one (u8: 128, s8: 1),
 * so that the benchmark takes the compensating path such a zero point needs. */
int plan_zero_point(const struct layer_desc *d, enum desc_attr id, int64_t value, dnnl_data_type_t dt)
{
    if (desc_present(d, id) && desc_known(d, id))
        return (int)value;
    return desc_present(d, id) ? (dt == dnnl_u8 ? 128 : 1) : 0;
}

/* QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger as oneDNN int8 primitives: the float
 * plan of the same operation (its weight or B read where the node has it), with the types
 * (oneDNN takes s8 weights: u8 ones are benchmarked as s8), the output scale of a QLinear layer
 * (per output channel when the weight's scale is) and the key's zero points. oneDNN's
 * convolutions take no weight zero point: a layer with a known nonzero one is refused, an
 * unknown one is taken as 0 (quantizers make int8 weights symmetric). */
static int qlinear_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    int v = d->def->ids.variant;
    bool conv = v & Q_CONV, qlinear = v & Q_LINEAR;
    if (which || d->nin < 1)
        return -1;
    /* the float operation's view: the data, the weight (B), the bias of a QLinearConv */
    struct desc_tensor ins[3] = {d->in[0]};
    struct layer_desc view = *d;
    view.in = ins;
    view.nin = 2;
    if (desc_in(d, qlinear ? 3 : 1))
        ins[1] = *desc_in(d, qlinear ? 3 : 1);
    if (conv && qlinear && desc_in(d, 8)) {
        ins[2] = *desc_in(d, 8);
        view.nin = 3;
    }
    if (conv ? plan_conv_dnnl(&view, false, p) : plan_matmul_dnnl(&view, false, false, p))
        return -1;
    struct bd_op *op = &p->op;
    op->qsrc = plan_bd_quant(desc_in(d, 0));
    op->qdst = plan_bd_quant(desc_out(d, 0));
    op->qwei = dnnl_s8;
    if (op->has_bias)
        op->qbias = dnnl_s32;
    if ((op->qsrc != dnnl_u8 && op->qsrc != dnnl_s8) || !op->qdst || (qlinear && op->qdst == dnnl_s32) ||
        (!qlinear && op->qdst != dnnl_s32))
        return -1;
    op->dt = op->qsrc;
    op->zp_src = conv ? plan_zero_point(d, DA_x_zero_point, d->a.x_zero_point, op->qsrc)
                      : plan_zero_point(d, DA_a_zero_point, d->a.a_zero_point, op->qsrc);
    if (conv && desc_present(d, DA_w_zero_point) && desc_known(d, DA_w_zero_point) && d->a.w_zero_point != 0)
        return -1;
    if (!conv)
        op->zp_wei = plan_zero_point(d, DA_b_zero_point, d->a.b_zero_point, dnnl_s8);
    if (qlinear) {
        op->zp_dst = plan_zero_point(d, DA_y_zero_point, d->a.y_zero_point, op->qdst);
        op->oscale = 1.0f / 64;
        struct bd_tensor ws;
        if (!plan_bd_tensor(desc_in(d, 4), &ws) && plan_bd_count(&ws) > 1) {
            op->oscale_n = (int)op->dst.d[conv ? 1 : op->dst.nd - 1];
            op->oscale_mask = 1 << (conv ? 1 : op->dst.nd - 1);
        }
    }
    p->quant = 1;
    return 0;
}

/* QuantizeLinear, DequantizeLinear: a per-tensor scale, or one per element of the axis (the
 * zero point alike); plain C in float as ONNX defines them */
static int quantize_plain(const struct layer_desc *d, struct pl_op *op)
{
    int kind = d->def->ids.pl_kind;
    if (plan_pl_start(d, kind, PL_IDENTITY, desc_in(d, 2) ? 3 : 2, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    int64_t ns = pl_count(&op->in[1]);
    if (!plan_pl_same(y, x) || !pl_is_float(kind == PL_QUANTIZE ? x->dtype : y->dtype) ||
        pl_is_float(kind == PL_QUANTIZE ? y->dtype : x->dtype) || !pl_is_float(op->in[1].dtype) ||
        (op->nin > 2 && (pl_count(&op->in[2]) != ns || pl_is_float(op->in[2].dtype))))
        return -1;
    if (ns > 1 && ((op->axis = plan_axis(d->a.axis, x->nd)) < 0 || x->d[op->axis] != ns))
        return -1;
    return 0;
}

static int dynamic_quantize_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_DYNQUANT, PL_IDENTITY, -1, op))
        return -1;
    return plan_pl_same(&op->out, &op->in[0]) && op->in[0].dtype == PL_FLOAT && op->out.dtype == PL_UINT8 ? 0 : -1;
}

static const struct op_plans qlinear_plans = {qlinear_dnnl, NULL, NULL, NULL, NULL, PLAN_DNNL_INT8,
    .how = {"oneDNN int8 convolution or matmul", NULL, NULL, NULL}};
PLAIN_PLANS(quantize_plans, quantize_plain, "plain C");
PLAIN_PLANS(dynamic_quantize_plans, dynamic_quantize_plain, "plain C");

static const struct op_attr quantize_attrs[] = {ATTR(axis, 1), ATTR(zero_point, 0), ATTR_END};
static const struct op_attr qconv_attrs[] = {ATTR_MIN(group, 1, 1), ATTR_LIST(strides, 1, 8), ATTR_LIST(dilations, 1, 8),
                                             ATTR_LIST(pads, 0, 16), ATTR_LIST(kernel_shape, 1, 8),
                                             ATTR(x_zero_point, 0), ATTR(w_zero_point, 0), ATTR(y_zero_point, 0),
                                             ATTR_END};
static const struct op_attr qmatmul_attrs[] = {ATTR(a_zero_point, 0), ATTR(b_zero_point, 0), ATTR(y_zero_point, 0),
                                               ATTR_END};

const struct op_def ops_quant[] = {
    {"QuantizeLinear", infer_quantize, 0, canon_quantize, quantize_attrs, &quantize_plans, {.pl_kind = PL_QUANTIZE}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 10, 0)},
    {"DequantizeLinear", infer_dequantize, 0, canon_quantize, quantize_attrs, &quantize_plans, {.pl_kind = PL_DEQUANTIZE}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 10, 0)},
    {"DynamicQuantizeLinear", infer_dynamic_quantize, 0, NULL, NULL, &dynamic_quantize_plans, {0}, .schema = OP_SCHEMA(1, 1, 3, 3, 0x1, 11, 0)},
    {"QLinearConv", infer_qlinear_conv, OP_WINDOW, canon_qlinear_conv, qconv_attrs, &qlinear_plans, {.variant = Q_CONV | Q_LINEAR}, .schema = OP_SCHEMA(8, 9, 1, 1, 0xff, 10, 0)},
    {"ConvInteger", infer_conv_integer, OP_WINDOW, canon_conv_integer, qconv_attrs, &qlinear_plans, {.variant = Q_CONV}, .schema = OP_SCHEMA(2, 4, 1, 1, 0x3, 10, 0)},
    {"QLinearMatMul", infer_qlinear_matmul, 0, canon_qlinear_matmul, qmatmul_attrs, &qlinear_plans, {.variant = Q_LINEAR}, .schema = OP_SCHEMA(8, 8, 1, 1, 0xff, 10, 0)},
    {"MatMulInteger", infer_matmul_integer, 0, canon_matmul_integer, qmatmul_attrs, &qlinear_plans, {0}, .schema = OP_SCHEMA(2, 4, 1, 1, 0x3, 10, 0)},
    {0},
};
