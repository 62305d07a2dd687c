/* The schema every node is checked against before its operator's code reads it (issue of
 * hostile input: a Conv without weights, a zero stride, group 0 once crashed gen). Input and
 * output counts per operator are the loosest over its ONNX versions (taken from the ONNX
 * specification, held against onnx.defs by test/oracle/schema_check.py); the attributes that
 * index, divide or size arrays get ranges by name (window ops: strides, dilations,
 * kernel_shape, pads, output_padding, group; LRN's size; the recurrent layers' hidden_size;
 * blocksize); a window op's input has at most 8 spatial dims.
 *
 * A node that breaks its schema is not valid ONNX: gen reports it as a located error and the
 * model fails (exit 3). A valid node gen cannot handle (9 spatial dims) is a warning and its
 * outputs stay unresolved. */
#include <stdint.h>
#include <string.h>

#include "ops.h"

struct op_schema {
    const char *domain, *name;
    unsigned char min_in, max_in, min_out, max_out; /* OP_MANY: any number */
    unsigned required; /* bit i: input i is required in every version (not optional, not variadic) */
};
enum { OP_MANY = 255 };

static const struct op_schema op_schemas[] = {
    /* control.c */
    {"", "If", 1, 1, 1, 255, 0x1},
    {"", "Loop", 2, 255, 1, 255, 0x0},
    {"", "Scan", 1, 255, 1, 255, 0x0},
    /* conv.c */
    {"", "Conv", 2, 3, 1, 1, 0x3},
    {"", "ConvTranspose", 2, 3, 1, 1, 0x3},
    /* elementwise.c */
    {"", "Abs", 1, 1, 1, 1, 0x1},
    {"", "Acos", 1, 1, 1, 1, 0x1},
    {"", "Acosh", 1, 1, 1, 1, 0x1},
    {"", "Add", 2, 2, 1, 1, 0x3},
    {"", "And", 2, 2, 1, 1, 0x3},
    {"", "Asin", 1, 1, 1, 1, 0x1},
    {"", "Asinh", 1, 1, 1, 1, 0x1},
    {"", "Atan", 1, 1, 1, 1, 0x1},
    {"", "Atanh", 1, 1, 1, 1, 0x1},
    {"", "BitShift", 2, 2, 1, 1, 0x3},
    {"", "BitwiseAnd", 2, 2, 1, 1, 0x3},
    {"", "BitwiseNot", 1, 1, 1, 1, 0x1},
    {"", "BitwiseOr", 2, 2, 1, 1, 0x3},
    {"", "BitwiseXor", 2, 2, 1, 1, 0x3},
    {"", "Cast", 1, 1, 1, 1, 0x1},
    {"", "CastLike", 2, 2, 1, 1, 0x3},
    {"", "Ceil", 1, 1, 1, 1, 0x1},
    {"", "Celu", 1, 1, 1, 1, 0x1},
    {"", "Clip", 1, 3, 1, 1, 0x1},
    {"", "Cos", 1, 1, 1, 1, 0x1},
    {"", "Cosh", 1, 1, 1, 1, 0x1},
    {"", "Div", 2, 2, 1, 1, 0x3},
    {"", "Dropout", 1, 3, 1, 2, 0x1},
    {"", "Elu", 1, 1, 1, 1, 0x1},
    {"", "Equal", 2, 2, 1, 1, 0x3},
    {"", "Erf", 1, 1, 1, 1, 0x1},
    {"", "Exp", 1, 1, 1, 1, 0x1},
    {"", "Floor", 1, 1, 1, 1, 0x1},
    {"", "Gelu", 1, 1, 1, 1, 0x1},
    {"", "Greater", 2, 2, 1, 1, 0x3},
    {"", "GreaterOrEqual", 2, 2, 1, 1, 0x3},
    {"", "HardSigmoid", 1, 1, 1, 1, 0x1},
    {"", "HardSwish", 1, 1, 1, 1, 0x1},
    {"", "Identity", 1, 1, 1, 1, 0x1},
    {"", "IsInf", 1, 1, 1, 1, 0x1},
    {"", "IsNaN", 1, 1, 1, 1, 0x1},
    {"", "LeakyRelu", 1, 1, 1, 1, 0x1},
    {"", "Less", 2, 2, 1, 1, 0x3},
    {"", "LessOrEqual", 2, 2, 1, 1, 0x3},
    {"", "Log", 1, 1, 1, 1, 0x1},
    {"", "Max", 1, 255, 1, 1, 0x0},
    {"", "Mean", 1, 255, 1, 1, 0x0},
    {"", "Min", 1, 255, 1, 1, 0x0},
    {"", "Mish", 1, 1, 1, 1, 0x1},
    {"", "Mod", 2, 2, 1, 1, 0x3},
    {"", "Mul", 2, 2, 1, 1, 0x3},
    {"", "Neg", 1, 1, 1, 1, 0x1},
    {"", "Not", 1, 1, 1, 1, 0x1},
    {"", "Or", 2, 2, 1, 1, 0x3},
    {"", "PRelu", 2, 2, 1, 1, 0x3},
    {"", "Pow", 2, 2, 1, 1, 0x3},
    {"", "Reciprocal", 1, 1, 1, 1, 0x1},
    {"", "Relu", 1, 1, 1, 1, 0x1},
    {"", "Round", 1, 1, 1, 1, 0x1},
    {"", "Selu", 1, 1, 1, 1, 0x1},
    {"", "Shrink", 1, 1, 1, 1, 0x1},
    {"", "Sigmoid", 1, 1, 1, 1, 0x1},
    {"", "Sign", 1, 1, 1, 1, 0x1},
    {"", "Sin", 1, 1, 1, 1, 0x1},
    {"", "Sinh", 1, 1, 1, 1, 0x1},
    {"", "Softplus", 1, 1, 1, 1, 0x1},
    {"", "Softsign", 1, 1, 1, 1, 0x1},
    {"", "Sqrt", 1, 1, 1, 1, 0x1},
    {"", "Sub", 2, 2, 1, 1, 0x3},
    {"", "Sum", 1, 255, 1, 1, 0x0},
    {"", "Tan", 1, 1, 1, 1, 0x1},
    {"", "Tanh", 1, 1, 1, 1, 0x1},
    {"", "ThresholdedRelu", 1, 1, 1, 1, 0x1},
    {"", "Where", 3, 3, 1, 1, 0x7},
    {"", "Xor", 2, 2, 1, 1, 0x3},
    /* linalg.c */
    {"", "Einsum", 1, 255, 1, 1, 0x0},
    {"", "Gemm", 2, 3, 1, 1, 0x3},
    {"", "MatMul", 2, 2, 1, 1, 0x3},
    /* nn.c */
    {"", "Compress", 2, 2, 1, 1, 0x3},
    {"", "Det", 1, 1, 1, 1, 0x1},
    {"", "MaxUnpool", 2, 3, 1, 1, 0x3},
    {"", "NegativeLogLikelihoodLoss", 2, 3, 1, 1, 0x3},
    {"", "NonMaxSuppression", 2, 5, 1, 1, 0x3},
    {"", "RoiAlign", 3, 3, 1, 1, 0x7},
    {"", "SoftmaxCrossEntropyLoss", 2, 3, 1, 2, 0x3},
    {"", "TfIdfVectorizer", 1, 1, 1, 1, 0x1},
    {"", "Unique", 1, 1, 1, 4, 0x1},
    /* norm.c */
    {"", "BatchNormalization", 5, 5, 1, 5, 0x1f},
    {"", "GroupNormalization", 3, 3, 1, 1, 0x7},
    {"", "InstanceNormalization", 3, 3, 1, 1, 0x7},
    {"", "LayerNormalization", 2, 3, 1, 3, 0x3},
    {"", "LpNormalization", 1, 1, 1, 1, 0x1},
    {"", "MeanVarianceNormalization", 1, 1, 1, 1, 0x1},
    /* pool.c */
    {"", "AveragePool", 1, 1, 1, 1, 0x1},
    {"", "GlobalAveragePool", 1, 1, 1, 1, 0x1},
    {"", "GlobalLpPool", 1, 1, 1, 1, 0x1},
    {"", "GlobalMaxPool", 1, 1, 1, 1, 0x1},
    {"", "LRN", 1, 1, 1, 1, 0x1},
    {"", "LpPool", 1, 1, 1, 1, 0x1},
    {"", "MaxPool", 1, 1, 1, 2, 0x1},
    /* quant.c */
    {"", "ConvInteger", 2, 4, 1, 1, 0x3},
    {"", "DequantizeLinear", 2, 3, 1, 1, 0x3},
    {"", "DynamicQuantizeLinear", 1, 1, 3, 3, 0x1},
    {"", "MatMulInteger", 2, 4, 1, 1, 0x3},
    {"", "QLinearConv", 8, 9, 1, 1, 0xff},
    {"", "QLinearMatMul", 8, 8, 1, 1, 0xff},
    {"", "QuantizeLinear", 2, 3, 1, 1, 0x3},
    /* reduce.c */
    {"", "ArgMax", 1, 1, 1, 1, 0x1},
    {"", "ArgMin", 1, 1, 1, 1, 0x1},
    {"", "Hardmax", 1, 1, 1, 1, 0x1},
    {"", "LogSoftmax", 1, 1, 1, 1, 0x1},
    {"", "ReduceL1", 1, 2, 1, 1, 0x1},
    {"", "ReduceL2", 1, 2, 1, 1, 0x1},
    {"", "ReduceLogSum", 1, 2, 1, 1, 0x1},
    {"", "ReduceLogSumExp", 1, 2, 1, 1, 0x1},
    {"", "ReduceMax", 1, 2, 1, 1, 0x1},
    {"", "ReduceMean", 1, 2, 1, 1, 0x1},
    {"", "ReduceMin", 1, 2, 1, 1, 0x1},
    {"", "ReduceProd", 1, 2, 1, 1, 0x1},
    {"", "ReduceSum", 1, 2, 1, 1, 0x1},
    {"", "ReduceSumSquare", 1, 2, 1, 1, 0x1},
    {"", "Softmax", 1, 1, 1, 1, 0x1},
    {"", "TopK", 1, 2, 2, 2, 0x1},
    /* resize.c */
    {"", "GridSample", 2, 2, 1, 1, 0x3},
    {"", "Resize", 1, 4, 1, 1, 0x1},
    {"", "Upsample", 1, 2, 1, 1, 0x1},
    /* rnn.c */
    {"", "GRU", 3, 6, 0, 2, 0x7},
    {"", "LSTM", 3, 8, 0, 3, 0x7},
    {"", "RNN", 3, 6, 0, 2, 0x7},
    /* sequence.c */
    {"", "ConcatFromSequence", 1, 1, 1, 1, 0x1},
    {"", "Optional", 0, 1, 1, 1, 0x0},
    {"", "OptionalGetElement", 1, 1, 1, 1, 0x1},
    {"", "OptionalHasElement", 0, 1, 1, 1, 0x0},
    {"", "SequenceAt", 2, 2, 1, 1, 0x3},
    {"", "SequenceConstruct", 1, 255, 1, 1, 0x0},
    {"", "SequenceEmpty", 0, 0, 1, 1, 0x0},
    {"", "SequenceErase", 1, 2, 1, 1, 0x1},
    {"", "SequenceInsert", 2, 3, 1, 1, 0x3},
    {"", "SequenceLength", 1, 1, 1, 1, 0x1},
    {"", "SequenceMap", 1, 255, 1, 255, 0x1},
    {"", "SplitToSequence", 1, 2, 1, 1, 0x1},
    /* signal.c */
    {"", "BlackmanWindow", 1, 1, 1, 1, 0x1},
    {"", "DFT", 1, 3, 1, 1, 0x1},
    {"", "HammingWindow", 1, 1, 1, 1, 0x1},
    {"", "HannWindow", 1, 1, 1, 1, 0x1},
    {"", "MelWeightMatrix", 5, 5, 1, 1, 0x1f},
    {"", "STFT", 2, 4, 1, 1, 0x3},
    /* tensor.c */
    {"", "Bernoulli", 1, 1, 1, 1, 0x1},
    {"", "Concat", 1, 255, 1, 1, 0x0},
    {"", "Constant", 0, 0, 1, 1, 0x0},
    {"", "ConstantOfShape", 1, 1, 1, 1, 0x1},
    {"", "CumSum", 2, 2, 1, 1, 0x3},
    {"", "DepthToSpace", 1, 1, 1, 1, 0x1},
    {"", "Expand", 2, 2, 1, 1, 0x3},
    {"", "EyeLike", 1, 1, 1, 1, 0x1},
    {"", "Flatten", 1, 1, 1, 1, 0x1},
    {"", "Gather", 2, 2, 1, 1, 0x3},
    {"", "GatherElements", 2, 2, 1, 1, 0x3},
    {"", "GatherND", 2, 2, 1, 1, 0x3},
    {"", "Multinomial", 1, 1, 1, 1, 0x1},
    {"", "NonZero", 1, 1, 1, 1, 0x1},
    {"", "OneHot", 3, 3, 1, 1, 0x7},
    {"", "Pad", 1, 4, 1, 1, 0x1},
    {"", "RandomNormal", 0, 0, 1, 1, 0x0},
    {"", "RandomNormalLike", 1, 1, 1, 1, 0x1},
    {"", "RandomUniform", 0, 0, 1, 1, 0x0},
    {"", "RandomUniformLike", 1, 1, 1, 1, 0x1},
    {"", "Range", 3, 3, 1, 1, 0x7},
    {"", "Reshape", 1, 2, 1, 1, 0x1},
    {"", "ReverseSequence", 2, 2, 1, 1, 0x3},
    {"", "Scatter", 3, 3, 1, 1, 0x7},
    {"", "ScatterElements", 3, 3, 1, 1, 0x7},
    {"", "ScatterND", 3, 3, 1, 1, 0x7},
    {"", "Shape", 1, 1, 1, 1, 0x1},
    {"", "Size", 1, 1, 1, 1, 0x1},
    {"", "Slice", 1, 5, 1, 1, 0x1},
    {"", "SpaceToDepth", 1, 1, 1, 1, 0x1},
    {"", "Split", 1, 2, 1, 255, 0x1},
    {"", "Squeeze", 1, 2, 1, 1, 0x1},
    {"", "Tile", 2, 3, 1, 1, 0x3},
    {"", "Transpose", 1, 1, 1, 1, 0x1},
    {"", "Trilu", 1, 2, 1, 1, 0x1},
    {"", "Unsqueeze", 1, 2, 1, 1, 0x1},
    /* text.c */
    {"", "RegexFullMatch", 1, 1, 1, 1, 0x1},
    {"", "StringConcat", 2, 2, 1, 1, 0x3},
    {"", "StringNormalizer", 1, 1, 1, 1, 0x1},
    {"", "StringSplit", 1, 1, 2, 2, 0x1},
    /* training.c */
    {"ai.onnx.preview.training", "Adagrad", 3, 255, 1, 255, 0x3},
    {"ai.onnx.preview.training", "Adam", 3, 255, 1, 255, 0x3},
    {"ai.onnx.preview.training", "Momentum", 3, 255, 1, 255, 0x3},
    /* msft.c: ONNX Runtime's contrib operators (its documentation; no onnx.defs schema) */
    {"com.microsoft", "Attention", 2, 7, 1, 2, 0x3},
    {"com.microsoft", "SkipLayerNormalization", 3, 5, 1, 4, 0x7},
    {"com.microsoft", "EmbedLayerNormalization", 7, 9, 2, 3, 0x6d},
    {"com.microsoft", "FastGelu", 1, 2, 1, 1, 0x1},
    {"com.microsoft", "BiasGelu", 2, 2, 1, 1, 0x3},
};

static const struct op_schema *op_schema_find(const char *domain, const char *name)
{
    const char *d = domain && !ir_domain_is_onnx(domain) ? domain : "";
    for (size_t i = 0; i < BZ_ARRAY_LEN(op_schemas); i++)
        if (!strcmp(op_schemas[i].name, name) && !strcmp(op_schemas[i].domain, d))
            return &op_schemas[i];
    return NULL;
}

bool op_schema_counts(const char *domain, const char *name, int *min_in, int *max_in, int *min_out, int *max_out,
                      unsigned *required)
{
    const struct op_schema *s = op_schema_find(domain, name);
    if (!s)
        return false;
    *required = s->required;
    *min_in = s->min_in;
    *max_in = s->max_in == OP_MANY ? -1 : s->max_in;
    *min_out = s->min_out;
    *max_out = s->max_out == OP_MANY ? -1 : s->max_out;
    return true;
}

/* the window operators: input 0 is [N, C, spatial...], their window attributes checked */
static bool op_is_window(const char *name)
{
    static const char *const w[] = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool",
                                    "LpPool", "MaxUnpool", "DeformConv", "Col2Im"};
    for (size_t i = 0; i < BZ_ARRAY_LEN(w); i++)
        if (!strcmp(name, w[i]))
            return true;
    return false;
}

struct attr_rule {
    const char *name;
    int64_t min;   /* every value at least this */
    int max_count; /* list attributes: at most this many values (0: a single int) */
};
/* every value at most this: shapes computed from them stay far inside int64 */
#define ATTR_MAX ((int64_t)INT32_MAX)

static const struct attr_rule window_rules[] = {
    {"strides", 1, 8}, {"dilations", 1, 8}, {"kernel_shape", 1, 8}, {"pads", 0, 16}, {"output_padding", 0, 8},
    {"output_shape", 0, 8}, {"group", 1, 0},
};
static const struct { const char *op; struct attr_rule rule; } op_rules[] = {
    {"LRN", {"size", 1, 0}},           {"RNN", {"hidden_size", 1, 0}},     {"GRU", {"hidden_size", 1, 0}},
    {"LSTM", {"hidden_size", 1, 0}},   {"DepthToSpace", {"blocksize", 1, 0}}, {"SpaceToDepth", {"blocksize", 1, 0}},
};

/* one rule on one attribute: 0, -1 with why (a value ONNX forbids), 1 with why (more values
 * than gen handles) */
static int check_attr(const struct ir_node *n, const struct attr_rule *r, struct bz_buf *why)
{
    const struct ir_attr *a = ir_node_attr(n, r->name);
    if (!a)
        return 0;
    if (r->max_count == 0) {
        if (a->type != IR_ATTR_INT) {
            bz_buf_printf(why, "attribute %s is %s, not an int", r->name, ir_attr_type_name(a->type));
            return -1;
        }
        if (a->u.i < r->min) {
            bz_buf_printf(why, "attribute %s is %lld; it must be at least %lld", r->name, (long long)a->u.i,
                          (long long)r->min);
            return -1;
        }
        if (a->u.i > ATTR_MAX) {
            bz_buf_printf(why, "attribute %s is %lld: larger than any tensor gen handles", r->name, (long long)a->u.i);
            return 1;
        }
        return 0;
    }
    if (a->type != IR_ATTR_INTS) {
        bz_buf_printf(why, "attribute %s is %s, not a list of ints", r->name, ir_attr_type_name(a->type));
        return -1;
    }
    if (a->count > (size_t)r->max_count) {
        /* valid ONNX, beyond gen */
        bz_buf_printf(why, "attribute %s has %zu values; gen handles at most %d", r->name, a->count, r->max_count);
        return 1;
    }
    for (size_t k = 0; k < a->count; k++) {
        if (a->u.ints[k] < r->min) {
            bz_buf_printf(why, "attribute %s[%zu] is %lld; it must be at least %lld", r->name, k,
                          (long long)a->u.ints[k], (long long)r->min);
            return -1;
        }
        if (a->u.ints[k] > ATTR_MAX) {
            bz_buf_printf(why, "attribute %s[%zu] is %lld: larger than any tensor gen handles", r->name, k,
                          (long long)a->u.ints[k]);
            return 1;
        }
    }
    return 0;
}

/* Einsum's equation: ASCII letters, commas, one "->", "..." and spaces; every output label
 * appears in an input, at most once in the output */
static int check_einsum(const struct ir_node *n, struct bz_buf *why)
{
    const struct ir_attr *a = ir_node_attr(n, "equation");
    if (!a)
        return 0; /* the operator says it has none */
    if (a->type != IR_ATTR_STRING) {
        bz_buf_printf(why, "attribute equation is %s, not a string", ir_attr_type_name(a->type));
        return -1;
    }
    const char *eq = a->u.s.data;
    size_t len = a->u.s.len;
    bool in_label[128] = {false}, out_label[128] = {false};
    int arrows = 0, terms = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)eq[i];
        bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
        if (ch == '-' && i + 1 < len && eq[i + 1] == '>') {
            arrows++;
            i++;
        } else if (ch == '.') {
            if (i + 2 >= len || eq[i + 1] != '.' || eq[i + 2] != '.') {
                bz_buf_puts(why, "attribute equation has a '.' outside an ellipsis '...'");
                return -1;
            }
            i += 2;
        } else if (ch == ',') {
            if (arrows) {
                bz_buf_puts(why, "attribute equation has a ',' after '->'");
                return -1;
            }
            terms++;
        } else if (letter) {
            if (arrows) {
                if (out_label[ch]) {
                    bz_buf_printf(why, "attribute equation names output label '%c' twice", ch);
                    return -1;
                }
                out_label[ch] = true;
            } else {
                in_label[ch] = true;
            }
        } else if (ch != ' ') {
            bz_buf_printf(why, "attribute equation holds byte 0x%02x: only letters, ',', '->', '...' and spaces", ch);
            return -1;
        }
    }
    if (arrows > 1) {
        bz_buf_puts(why, "attribute equation has more than one '->'");
        return -1;
    }
    for (int l = 0; l < 128; l++)
        if (out_label[l] && !in_label[l]) {
            bz_buf_printf(why, "attribute equation's output label '%c' is in no input", l);
            return -1;
        }
    if (terms != n->n_inputs) {
        bz_buf_printf(why, "attribute equation has %d input term%s for %d input%s", terms, terms == 1 ? "" : "s",
                      n->n_inputs, n->n_inputs == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int op_check_node(const struct ir_node *n, struct bz_buf *why)
{
    const struct op_schema *s = op_schema_find(n->domain, n->op_type);
    if (s) {
        if (n->n_inputs < s->min_in || (s->max_in != OP_MANY && n->n_inputs > s->max_in)) {
            if (s->max_in == s->min_in)
                bz_buf_printf(why, "%d input%s; %s takes %d", n->n_inputs, n->n_inputs == 1 ? "" : "s", n->op_type,
                              s->min_in);
            else if (s->max_in == OP_MANY)
                bz_buf_printf(why, "%d input%s; %s takes at least %d", n->n_inputs, n->n_inputs == 1 ? "" : "s",
                              n->op_type, s->min_in);
            else
                bz_buf_printf(why, "%d input%s; %s takes %d to %d", n->n_inputs, n->n_inputs == 1 ? "" : "s",
                              n->op_type, s->min_in, s->max_in);
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
    }
    int rc = 0;
    if (ir_domain_is_onnx(n->domain) && op_is_window(n->op_type)) {
        for (size_t i = 0; i < BZ_ARRAY_LEN(window_rules) && !rc; i++)
            rc = check_attr(n, &window_rules[i], why);
    }
    for (size_t i = 0; i < BZ_ARRAY_LEN(op_rules) && !rc; i++)
        if (ir_domain_is_onnx(n->domain) && !strcmp(n->op_type, op_rules[i].op))
            rc = check_attr(n, &op_rules[i].rule, why);
    if (!rc && ir_domain_is_onnx(n->domain) && !strcmp(n->op_type, "Einsum"))
        rc = check_einsum(n, why);
    return rc;
}

int op_check_shapes(const struct ir_node *n, struct bz_buf *why)
{
    if (ir_domain_is_onnx(n->domain) && op_is_window(n->op_type) && n->n_inputs > 0 && n->inputs[0]) {
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
