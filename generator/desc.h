/* A layer as the backends read it: its tensors typed and its attributes decoded once, every
 * ONNX default filled in by the operator's table (generator/ops/), so that no backend reads the
 * canonical key or compares operator names. */
#ifndef BENANZA_DESC_H
#define BENANZA_DESC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base.h"

#define DESC_MAX_RANK 8

/* A tensor of the layer (ONNX element type and shape); dtype 0 for an omitted optional input.
 * rank -1: more than DESC_MAX_RANK dims (no backend plans such a layer). A dim of -1 is sized
 * by the data (the outputs of NonZero, Unique, ...). */
struct desc_tensor {
    int dtype;
    int rank;
    int64_t d[DESC_MAX_RANK];
    bool is_const;
};

struct desc_ints {
    int n;
    const int64_t *v;
};
struct desc_floats {
    int n;
    const double *v;
};
struct desc_strs {
    int n;
    const char *const *v;
    const size_t *len;
};

/* Every attribute a backend reads, by its ONNX name, with its kind: I an integer, F a float, S a
 * string (its bytes, UTF-8 or \xNN as the key holds them), IS/FS/SS lists. A scalar of the key
 * that gen did not know (null: a constant input it could not read) keeps the default and is
 * not known (desc_known). */
#define DESC_ATTRS(I, F, S, IS, FS, SS)                                                                      \
    I(axis) I(group) I(transA) I(transB) I(keepdims) I(select_last_index) I(coerce_2d) I(size)             \
    I(hidden_size) I(layout) I(input_forget) I(linear_before_reset) I(count_include_pad) I(ceil_mode)      \
    I(blocksize) I(batch_dims) I(upper) I(k) I(exclusive) I(reverse) I(time_axis) I(batch_axis)            \
    I(detect_positive) I(detect_negative) I(fmod) I(sampling_ratio) I(ignore_index) I(log_prob)            \
    I(onesided) I(inverse) I(frame_step) I(frame_length) I(dft_length) I(periodic) I(sorted) I(largest)    \
    I(center_point_box) I(max_output_boxes_per_class) I(is_case_sensitive) I(maxsplit)                     \
    I(min_gram_length) I(max_gram_length) I(max_skip_count) I(exclude_outside) I(antialias)                \
    I(align_corners) I(x_zero_point) I(w_zero_point) I(a_zero_point) I(b_zero_point) I(y_zero_point)       \
    I(zero_point)                                                                                          \
    F(alpha) F(beta) F(gamma) F(epsilon) F(bias) F(lambd) F(min) F(max) F(value) F(cubic_coeff_a)           \
    F(extrapolation_value) F(spatial_scale) F(iou_threshold) F(score_threshold) F(decay_factor)            \
    F(norm_coefficient) F(norm_coefficient_post) F(mean) F(scale) F(low) F(high) F(seed) F(clip) F(exponent) \
    S(mode) S(direction) S(approximate) S(reduction) S(coordinate_transformation_mode) S(nearest_mode)     \
    S(padding_mode) S(case_change_action) S(equation) S(pattern) S(delimiter)                              \
    IS(strides) IS(dilations) IS(pads) IS(kernel_shape) IS(output_padding) IS(output_shape) IS(perm) IS(axes) IS(starts)   \
    IS(steps) IS(ngram_counts) IS(ngram_indexes) IS(pool_int64s)                                           \
    FS(scales) FS(roi) FS(weights) FS(activation_alpha) FS(activation_beta)                                \
    SS(activations) SS(stopwords) SS(pool_strings)

enum desc_attr {
#define DESC_ID(n) DA_##n,
    DESC_ATTRS(DESC_ID, DESC_ID, DESC_ID, DESC_ID, DESC_ID, DESC_ID)
#undef DESC_ID
    DA_COUNT
};

struct desc_attrs {
#define DESC_I(n) int64_t n;
#define DESC_F(n) double n;
#define DESC_S(n) const char *n;
#define DESC_IS(n) struct desc_ints n;
#define DESC_FS(n) struct desc_floats n;
#define DESC_SS(n) struct desc_strs n;
    DESC_ATTRS(DESC_I, DESC_F, DESC_S, DESC_IS, DESC_FS, DESC_SS)
#undef DESC_I
#undef DESC_F
#undef DESC_S
#undef DESC_IS
#undef DESC_FS
#undef DESC_SS
    size_t len_delimiter, len_pattern; /* the byte lengths of the strings that may hold a NUL */
    uint64_t present[(DA_COUNT + 63) / 64]; /* the key holds it (a value, or null) */
    uint64_t known[(DA_COUNT + 63) / 64];   /* its value is known: the key's, of its kind (a list:
                                               every element), or the default where the key has
                                               none; not known: null, or another kind */
};

/* One attribute of an operator's schema: the field it fills, its ONNX default (numbers; a
 * string's in sdflt), and what the node check (ops/schema.c) holds a node's value to where it is
 * checked: an int (or a list of at most max_count ints) of at least lo, at most INT32_MAX. */
struct op_attr {
    enum desc_attr id;
    double dflt;
    const char *sdflt;
    bool checked;
    int64_t lo;
    int max_count;
};
#define ATTR(name, dflt) {DA_##name, (dflt), NULL, false, 0, 0}
#define ATTR_S(name, dflt) {DA_##name, 0, (dflt), false, 0, 0}
#define ATTR_MIN(name, dflt, lo) {DA_##name, (dflt), NULL, true, (lo), 0}
#define ATTR_LIST(name, lo, max_count) {DA_##name, 0, NULL, true, (lo), (max_count)}
#define ATTR_END {DA_COUNT, 0, NULL, false, 0, 0}

/* What gen fuses (generator/fusion.c), as the key names it ("conv_bn_act", ...). */
enum fusion_pattern {
    FUSE_NONE = 0,
    FUSE_CONV_ACT, FUSE_CONV_ADD, FUSE_CONV_ADD_ACT, FUSE_CONV_BN, FUSE_CONV_BN_ACT, FUSE_CONV_BN_ADD,
    FUSE_CONV_BN_ADD_ACT, FUSE_GEMM_BIAS, FUSE_GEMM_BIAS_ACT, FUSE_GEMM_ACT, FUSE_LAYERNORM, FUSE_GELU,
    FUSE_QDQ_CONV, FUSE_QDQ_CONV_ACT, FUSE_QDQ_MATMUL, FUSE_QDQ_MATMUL_ACT, FUSE_ATTENTION, FUSE_GELU_TANH,
    FUSE_ADD_LAYERNORM, FUSE_RMSNORM, FUSE_ROPE, FUSE_SILU, FUSE_ROPE_PAIRS,
    FUSE_SWIGLU, FUSE_GEGLU, FUSE_ATTN_SCORES, FUSE_ATTN_CONTEXT, FUSE_PATTERN_COUNT
};
const char *fusion_pattern_name(enum fusion_pattern p);
enum fusion_pattern fusion_pattern_of(const char *name);
/* the pattern's parts: a convolution first (conv_*, qdq_conv*), a Gemm/MatMul first, a folded
 * batch norm, a residual sum, an activation last, a quantized pair around it */
bool fusion_is_conv(enum fusion_pattern p);
bool fusion_is_gemm(enum fusion_pattern p);
bool fusion_has_bn(enum fusion_pattern p);
bool fusion_has_add(enum fusion_pattern p);
bool fusion_has_act(enum fusion_pattern p);
bool fusion_is_qdq(enum fusion_pattern p);

/* A fused attention (pattern "attention", and its parts "attn_scores" and "attn_context"):
 * softmax(Q K^T x scale [+ mask]) V over batch b, heads h, sq queries, skv keys, head sizes d
 * (Q, K) and dv (V). Each operand's element strides along (batch, head, row, col) in the
 * buffer of *_elems elements it is read from (K's rows are the keys); the mask's along the
 * scores' (batch, head, query, key), 0 where it broadcasts. The mask adds to the scores
 * (ATT_MASK_ADD) or, where it is FILL_WHEN (1: true, 0: false), puts FILL in their place
 * (ATT_MASK_SELECT, a bool mask). */
enum att_mask { ATT_MASK_NONE, ATT_MASK_ADD, ATT_MASK_SELECT };
struct desc_attention {
    int64_t b, h, sq, skv, d, dv;
    int64_t rep; /* query heads per K and V head (grouped-query attention; 1: one each) */
    int64_t q[4], k[4], v[4], o[4], m[4];
    int64_t q_elems, k_elems, v_elems, m_elems;
    double scale, fill;
    enum att_mask mask;
    int fill_when;
};

struct op_def;

struct layer_desc {
    const struct op_def *def;   /* the operator (NULL for a fusion group) */
    const char *op;             /* its ONNX name, for messages and comments only */
    int nin, nout;
    struct desc_tensor *in, *out;
    struct desc_attrs a;
    /* a fusion group: its pattern and its members' descriptions, in data-flow order */
    enum fusion_pattern pattern;
    int nmembers;
    struct layer_desc *members;
    const struct desc_attention *attention; /* pattern "attention": what its kernels read;
                                   "attn_scores" and "attn_context", an attention group's parts:
                                   the same fields, those of their operands alone (q, k and the
                                   scale; v and o) */
    bool keeps_sum;             /* pattern "add_layernorm": the sum is an output too, read
                                   beyond the group (a pre-LN transformer's residual stream) */
    double rms_eps;             /* pattern "rmsnorm": its epsilon, and whether a scale follows */
    bool rms_scale;
    int glu_gate;               /* pattern "swiglu" or "geglu" that holds the Split of one
                                   projection: the half of it that is the gate (0 the first, 1
                                   the second); -1 none said */
};

static inline bool desc_present(const struct layer_desc *d, enum desc_attr id)
{
    return d->a.present[id / 64] >> (id % 64) & 1u;
}
static inline bool desc_known(const struct layer_desc *d, enum desc_attr id)
{
    return d->a.known[id / 64] >> (id % 64) & 1u;
}
/* a Clip from 0 whose upper bound is known (a.max): Relu6 and kin, cuDNN's clipped relu */
static inline bool desc_clip_from_zero(const struct layer_desc *d)
{
    return desc_present(d, DA_min) && desc_known(d, DA_min) && d->a.min == 0.0 && desc_present(d, DA_max) &&
           desc_known(d, DA_max);
}
/* input i when the layer has it (not omitted), else NULL */
static inline const struct desc_tensor *desc_in(const struct layer_desc *d, int i)
{
    return i >= 0 && i < d->nin && d->in[i].dtype ? &d->in[i] : NULL;
}
static inline const struct desc_tensor *desc_out(const struct layer_desc *d, int i)
{
    return i >= 0 && i < d->nout && d->out[i].dtype ? &d->out[i] : NULL;
}
/* elements of a tensor (INT64_MAX past the range) */
int64_t desc_count(const struct desc_tensor *t);
bool desc_same_dims(const struct desc_tensor *a, const struct desc_tensor *b);

/* an attribute's ONNX name, kind (I, F, S, IS, FS, SS of DESC_ATTRS) and place in struct
 * desc_attrs (generator/attrs.c) */
enum desc_attr_kind { DESC_AK_I, DESC_AK_F, DESC_AK_S, DESC_AK_IS, DESC_AK_FS, DESC_AK_SS };
const char *desc_attr_name(enum desc_attr id);
enum desc_attr_kind desc_attr_kind(enum desc_attr id);
size_t desc_attr_offset(enum desc_attr id);

/* Decodes a layer's canonical object (PARAMS: op, domain, attrs, inputs, outputs; or a fusion
 * group's pattern and members) into D, its storage in ARENA; the attributes are those of the
 * operator's table entry, each at its default where the key does not give it. */
void desc_build(struct bz_arena *arena, const json_t *params, struct layer_desc *d);
/* The one float type (IR_DTYPE_FLOAT, _FLOAT16, _BFLOAT16) of every tensor of a node D, or of
 * every float tensor of a group's members (a mask's bool aside); 0 where a node's tensor is of
 * another type, or two float types meet (a Cast) */
int desc_float_type(const struct layer_desc *d);
/* D with every 16-bit float tensor of type TO (an f16 model's layer as the f32 one whose f16
 * form the libraries' plans describe), in storage of ARENA */
struct layer_desc *desc_retyped(struct bz_arena *arena, const struct layer_desc *d, int to);

#endif
