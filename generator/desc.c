/* Layer descriptions: a layer's canonical object decoded once into typed tensors and attributes,
 * the attributes those of its operator's table entry, defaults filled in from there. */
#include "desc.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ops/ops.h"

static const char *const pattern_names[FUSE_PATTERN_COUNT] = {
    [FUSE_NONE] = "", [FUSE_CONV_ACT] = "conv_act", [FUSE_CONV_ADD] = "conv_add",
    [FUSE_CONV_ADD_ACT] = "conv_add_act", [FUSE_CONV_BN] = "conv_bn", [FUSE_CONV_BN_ACT] = "conv_bn_act",
    [FUSE_CONV_BN_ADD] = "conv_bn_add", [FUSE_CONV_BN_ADD_ACT] = "conv_bn_add_act", [FUSE_GEMM_BIAS] = "gemm_bias",
    [FUSE_GEMM_BIAS_ACT] = "gemm_bias_act", [FUSE_GEMM_ACT] = "gemm_act", [FUSE_LAYERNORM] = "layernorm",
    [FUSE_GELU] = "gelu", [FUSE_QDQ_CONV] = "qdq_conv", [FUSE_QDQ_CONV_ACT] = "qdq_conv_act",
    [FUSE_QDQ_MATMUL] = "qdq_matmul", [FUSE_QDQ_MATMUL_ACT] = "qdq_matmul_act",
    [FUSE_ATTENTION] = "attention", [FUSE_GELU_TANH] = "gelu_tanh",
    [FUSE_ADD_LAYERNORM] = "add_layernorm", [FUSE_RMSNORM] = "rmsnorm", [FUSE_ROPE] = "rope", [FUSE_SILU] = "silu",
    [FUSE_ROPE_PAIRS] = "rope_pairs", [FUSE_SWIGLU] = "swiglu", [FUSE_GEGLU] = "geglu",
    [FUSE_ATTN_SCORES] = "attn_scores", [FUSE_ATTN_CONTEXT] = "attn_context",
};

const char *fusion_pattern_name(enum fusion_pattern p)
{
    return (unsigned)p < FUSE_PATTERN_COUNT ? pattern_names[p] : "";
}

enum fusion_pattern fusion_pattern_of(const char *name)
{
    for (int p = 1; name && p < FUSE_PATTERN_COUNT; p++)
        if (!strcmp(pattern_names[p], name))
            return (enum fusion_pattern)p;
    return FUSE_NONE;
}

bool fusion_is_conv(enum fusion_pattern p)
{
    return (p >= FUSE_CONV_ACT && p <= FUSE_CONV_BN_ADD_ACT) || p == FUSE_QDQ_CONV || p == FUSE_QDQ_CONV_ACT;
}

bool fusion_is_gemm(enum fusion_pattern p)
{
    return p == FUSE_GEMM_BIAS || p == FUSE_GEMM_BIAS_ACT || p == FUSE_GEMM_ACT;
}

bool fusion_has_bn(enum fusion_pattern p)
{
    return p == FUSE_CONV_BN || p == FUSE_CONV_BN_ACT || p == FUSE_CONV_BN_ADD || p == FUSE_CONV_BN_ADD_ACT;
}

bool fusion_has_add(enum fusion_pattern p)
{
    return p == FUSE_CONV_ADD || p == FUSE_CONV_ADD_ACT || p == FUSE_CONV_BN_ADD || p == FUSE_CONV_BN_ADD_ACT;
}

bool fusion_has_act(enum fusion_pattern p)
{
    return p == FUSE_CONV_ACT || p == FUSE_CONV_ADD_ACT || p == FUSE_CONV_BN_ACT || p == FUSE_CONV_BN_ADD_ACT ||
           p == FUSE_GEMM_BIAS_ACT || p == FUSE_GEMM_ACT || p == FUSE_QDQ_CONV_ACT || p == FUSE_QDQ_MATMUL_ACT;
}

bool fusion_is_qdq(enum fusion_pattern p)
{
    return p >= FUSE_QDQ_CONV && p <= FUSE_QDQ_MATMUL_ACT;
}

int64_t desc_count(const struct desc_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->rank; k++)
        if (__builtin_mul_overflow(n, t->d[k], &n))
            return INT64_MAX;
    return n;
}

bool desc_same_dims(const struct desc_tensor *a, const struct desc_tensor *b)
{
    return a->rank == b->rank && !memcmp(a->d, b->d, sizeof(a->d[0]) * (size_t)(a->rank > 0 ? a->rank : 0));
}

static const struct {
    const char *name;
    int dtype;
} dtype_names[] = {
    {"FLOAT", IR_DTYPE_FLOAT},   {"DOUBLE", IR_DTYPE_DOUBLE}, {"INT64", IR_DTYPE_INT64},       {"INT32", IR_DTYPE_INT32},
    {"INT16", IR_DTYPE_INT16},   {"INT8", IR_DTYPE_INT8},     {"UINT8", IR_DTYPE_UINT8},       {"UINT16", IR_DTYPE_UINT16},
    {"UINT32", IR_DTYPE_UINT32}, {"UINT64", IR_DTYPE_UINT64}, {"BOOL", IR_DTYPE_BOOL},         {"FLOAT16", IR_DTYPE_FLOAT16},
    {"BFLOAT16", IR_DTYPE_BFLOAT16}, {"STRING", IR_DTYPE_STRING},
};

/* A tensor of the key ({dtype, shape, const}); an element type gen has no benchmark type for
 * is IR_DTYPE_UNDEFINED's neighbour -1, so that it is present but matches nothing */
static void tensor_of(const json_t *t, struct desc_tensor *out)
{
    memset(out, 0, sizeof(*out));
    if (!json_is_object(t))
        return;
    const char *n = json_string_value(json_object_get(t, "dtype"));
    out->dtype = -1;
    for (size_t i = 0; n && i < BZ_ARRAY_LEN(dtype_names); i++)
        if (!strcmp(n, dtype_names[i].name))
            out->dtype = dtype_names[i].dtype;
    const json_t *shape = json_object_get(t, "shape");
    if (!json_is_array(shape) || json_array_size(shape) > DESC_MAX_RANK) {
        out->rank = -1;
    } else {
        out->rank = (int)json_array_size(shape);
        for (int k = 0; k < out->rank; k++)
            out->d[k] = json_integer_value(json_array_get(shape, (size_t)k));
    }
    out->is_const = json_is_true(json_object_get(t, "const"));
}

static void tensors_of(struct bz_arena *arena, const json_t *list, int *n, struct desc_tensor **out)
{
    *n = (int)json_array_size(list);
    *out = bz_arena_array(arena, (size_t)*n + 1, sizeof(**out));
    for (int i = 0; i < *n; i++)
        tensor_of(json_array_get(list, (size_t)i), &(*out)[i]);
}

static void set_bit(uint64_t *bits, enum desc_attr id)
{
    bits[id / 64] |= (uint64_t)1 << (id % 64);
}

/* a list attribute's elements into FIELD (its desc_ints, desc_floats or desc_strs, by KIND);
 * whether V is a list of elements of the kind's type (or absent) */
static bool decode_list(struct bz_arena *arena, const json_t *v, int kind, char *field)
{
    int n = (int)json_array_size(v);
    size_t slots = (size_t)n + 1;
    int64_t *iv = kind == DESC_AK_IS ? bz_arena_array(arena, slots, sizeof(int64_t)) : NULL;
    double *fv = kind == DESC_AK_FS ? bz_arena_array(arena, slots, sizeof(double)) : NULL;
    const char **sv = kind == DESC_AK_SS ? bz_arena_array(arena, slots, sizeof(char *)) : NULL;
    size_t *len = sv ? bz_arena_array(arena, slots, sizeof(size_t)) : NULL;
    bool known = !v || json_is_array(v);
    for (int k = 0; k < n; k++) {
        const json_t *x = json_array_get(v, (size_t)k);
        if (iv) {
            iv[k] = json_integer_value(x);
            known = known && json_is_integer(x);
        } else if (fv) {
            fv[k] = json_number_value(x);
            known = known && json_is_number(x);
        } else {
            sv[k] = json_is_string(x) ? json_string_value(x) : "";
            len[k] = json_is_string(x) ? json_string_length(x) : 0;
            known = known && json_is_string(x);
        }
    }
    if (iv)
        *(struct desc_ints *)(void *)field = (struct desc_ints){n, iv};
    else if (fv)
        *(struct desc_floats *)(void *)field = (struct desc_floats){n, fv};
    else
        *(struct desc_strs *)(void *)field = (struct desc_strs){n, sv, len};
    return known;
}

static void decode_attr(struct bz_arena *arena, const json_t *attrs, const struct op_attr *spec, struct desc_attrs *a)
{
    char *field = (char *)a + desc_attr_offset(spec->id);
    const json_t *v = json_object_get(attrs, desc_attr_name(spec->id));
    bool known = false;
    if (v)
        set_bit(a->present, spec->id);
    switch (desc_attr_kind(spec->id)) {
    case DESC_AK_I: {
        /* a real where an integer belongs: its whole part, where an int64 holds it (a model's
         * 1e40 or NaN is no number to convert: the default stays, and the value is unknown) */
        double r = json_is_number(v) ? json_number_value(v) : spec->dflt;
        int64_t x = r > -9.2e18 && r < 9.2e18 ? (int64_t)r : (int64_t)spec->dflt;
        if (json_is_integer(v))
            x = json_integer_value(v);
        memcpy(field, &x, sizeof(x));
        known = json_is_integer(v) || !v;
        break;
    }
    case DESC_AK_F: {
        double x = json_is_number(v) ? json_number_value(v) : spec->dflt;
        memcpy(field, &x, sizeof(x));
        known = json_is_number(v) || !v;
        break;
    }
    case DESC_AK_S: {
        const char *s = json_is_string(v) ? json_string_value(v) : spec->sdflt;
        size_t len = json_is_string(v) ? json_string_length(v) : s ? strlen(s) : 0;
        memcpy(field, &s, sizeof(s));
        if (spec->id == DA_delimiter)
            a->len_delimiter = len;
        if (spec->id == DA_pattern)
            a->len_pattern = len;
        known = json_is_string(v) || !v;
        break;
    }
    case DESC_AK_IS:
    case DESC_AK_FS:
    case DESC_AK_SS:
        known = decode_list(arena, v, desc_attr_kind(spec->id), field);
        break;
    }
    if (known)
        set_bit(a->known, spec->id);
}

/* a number of the key, or the strings fusion.c writes for those JSON lacks */
static double number_any(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s)
        return !strcmp(s, "inf") ? INFINITY : !strcmp(s, "-inf") ? -INFINITY : NAN;
    return json_number_value(v);
}

static void ints_of(const json_t *list, int64_t *out, int n)
{
    for (int k = 0; k < n; k++)
        out[k] = json_integer_value(json_array_get(list, (size_t)k));
}

/* the "attention" object of an attention group (NULL when it has none or it is malformed) */
static const struct desc_attention *attention_of(struct bz_arena *arena, const json_t *o)
{
    if (!json_is_object(o) || json_array_size(json_object_get(o, "shape")) != 6)
        return NULL;
    struct desc_attention *a = bz_arena_alloc(arena, sizeof(*a));
    memset(a, 0, sizeof(*a));
    int64_t shape[6];
    ints_of(json_object_get(o, "shape"), shape, 6);
    a->b = shape[0], a->h = shape[1], a->sq = shape[2], a->skv = shape[3], a->d = shape[4], a->dv = shape[5];
    ints_of(json_object_get(o, "q"), a->q, 4);
    ints_of(json_object_get(o, "k"), a->k, 4);
    ints_of(json_object_get(o, "v"), a->v, 4);
    ints_of(json_object_get(o, "o"), a->o, 4);
    ints_of(json_object_get(o, "mask_strides"), a->m, 4);
    a->q_elems = json_integer_value(json_object_get(o, "q_elems"));
    a->k_elems = json_integer_value(json_object_get(o, "k_elems"));
    a->v_elems = json_integer_value(json_object_get(o, "v_elems"));
    a->m_elems = json_integer_value(json_object_get(o, "mask_elems"));
    a->scale = json_number_value(json_object_get(o, "scale"));
    const char *m = json_string_value(json_object_get(o, "mask"));
    a->mask = m && !strcmp(m, "add") ? ATT_MASK_ADD : m && !strcmp(m, "select") ? ATT_MASK_SELECT : ATT_MASK_NONE;
    a->fill = number_any(json_object_get(o, "fill"));
    a->fill_when = (int)json_integer_value(json_object_get(o, "fill_when"));
    const json_t *rep = json_object_get(o, "rep");
    a->rep = rep ? json_integer_value(rep) : 1;
    for (int k = 0; k < 6; k++)
        if (shape[k] <= 0)
            return NULL;
    if (a->rep < 1 || a->h % a->rep)
        return NULL;
    return a;
}

/* the float type of D's tensors (of its float ones alone where FLOATS_ONLY), -1 where it has
 * none, 0 where a tensor is of another type or two float types meet */
static int float_type_of(const struct layer_desc *d, bool floats_only)
{
    int t = -1;
    for (int k = 0; k < d->nin + d->nout; k++) {
        const struct desc_tensor *x = k < d->nin ? &d->in[k] : &d->out[k - d->nin];
        if (!x->dtype)
            continue; /* an omitted input */
        bool is_float = x->dtype == IR_DTYPE_FLOAT || x->dtype == IR_DTYPE_FLOAT16 || x->dtype == IR_DTYPE_BFLOAT16;
        if (!is_float && floats_only)
            continue;
        if (!is_float || (t > 0 && x->dtype != t))
            return 0;
        t = x->dtype;
    }
    return t;
}

/* a node: every tensor of that one type; a group: every float tensor of its members (a mask's
 * bool, a Gather's indices aside), the group's own too */
int desc_float_type(const struct layer_desc *d)
{
    int t = float_type_of(d, d->nmembers > 0);
    for (int m = 0; t && m < d->nmembers; m++) {
        int mt = float_type_of(&d->members[m], true);
        if (!mt || (t > 0 && mt > 0 && mt != t))
            return 0;
        t = mt > 0 ? mt : t;
    }
    return t > 0 ? t : 0;
}

struct layer_desc *desc_retyped(struct bz_arena *arena, const struct layer_desc *d, int to)
{
    struct layer_desc *r = bz_arena_memdup(arena, d, sizeof(*d));
    r->in = d->nin ? bz_arena_memdup(arena, d->in, (size_t)d->nin * sizeof(*d->in)) : NULL;
    r->out = d->nout ? bz_arena_memdup(arena, d->out, (size_t)d->nout * sizeof(*d->out)) : NULL;
    for (int k = 0; k < d->nin + d->nout; k++) {
        struct desc_tensor *x = k < d->nin ? &r->in[k] : &r->out[k - d->nin];
        if (x->dtype == IR_DTYPE_FLOAT16 || x->dtype == IR_DTYPE_BFLOAT16)
            x->dtype = to;
    }
    if (d->nmembers) {
        r->members = bz_arena_array(arena, (size_t)d->nmembers, sizeof(*r->members));
        for (int m = 0; m < d->nmembers; m++)
            r->members[m] = *desc_retyped(arena, &d->members[m], to);
    }
    return r;
}

void desc_build(struct bz_arena *arena, const json_t *params, struct layer_desc *d)
{
    memset(d, 0, sizeof(*d));
    const char *pattern = json_string_value(json_object_get(params, "pattern"));
    if (pattern) {
        const json_t *members = json_object_get(params, "members");
        d->op = "Fusion";
        d->pattern = fusion_pattern_of(pattern);
        d->nmembers = (int)json_array_size(members);
        d->members = bz_arena_array(arena, (size_t)d->nmembers + 1, sizeof(*d->members));
        for (int m = 0; m < d->nmembers; m++)
            desc_build(arena, json_array_get(members, (size_t)m), &d->members[m]);
        if (d->pattern == FUSE_ATTENTION || d->pattern == FUSE_ATTN_SCORES || d->pattern == FUSE_ATTN_CONTEXT)
            d->attention = attention_of(arena, json_object_get(params, pattern));
        if (d->pattern == FUSE_ADD_LAYERNORM)
            d->keeps_sum = json_is_true(json_object_get(json_object_get(params, "add_layernorm"), "sum"));
        if (d->pattern == FUSE_SWIGLU || d->pattern == FUSE_GEGLU) {
            const json_t *glu = json_object_get(json_object_get(params, pattern), "gate");
            d->glu_gate = json_is_integer(glu) && json_integer_value(glu) >= 0 && json_integer_value(glu) <= 1
                              ? (int)json_integer_value(glu)
                              : -1;
        }
        if (d->pattern == FUSE_RMSNORM) {
            const json_t *r = json_object_get(params, "rmsnorm");
            d->rms_eps = json_number_value(json_object_get(r, "epsilon"));
            d->rms_scale = json_is_true(json_object_get(r, "scale"));
        }
        return;
    }
    d->op = json_string_value(json_object_get(params, "op"));
    d->def = op_find(json_string_value(json_object_get(params, "domain")), d->op ? d->op : "");
    tensors_of(arena, json_object_get(params, "inputs"), &d->nin, &d->in);
    tensors_of(arena, json_object_get(params, "outputs"), &d->nout, &d->out);
    const json_t *attrs = json_object_get(params, "attrs");
    for (const struct op_attr *spec = d->def ? d->def->attrs : NULL; spec && spec->id != DA_COUNT; spec++)
        decode_attr(arena, attrs, spec, &d->a);
}
