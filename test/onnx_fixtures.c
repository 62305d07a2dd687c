/* Builds small ONNX models with protobuf-c: tests need valid and deliberately broken models
 * that do not depend on ../shared. */
#include "onnx_fixtures.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "onnx.pb-c.h"

static const char *const fixture_names[] = {
    [FIXTURE_TINY_CNN] = "tiny_cnn",
    [FIXTURE_SUBGRAPH] = "subgraph",
    [FIXTURE_DANGLING_INPUT] = "dangling_input",
    [FIXTURE_CYCLE] = "cycle",
    [FIXTURE_DUPLICATE_OUTPUT] = "duplicate_output",
    [FIXTURE_BAD_RAW_DATA] = "bad_raw_data",
    [FIXTURE_EXTERNAL_DATA] = "external_data",
    [FIXTURE_CONV_VARIANTS] = "conv_variants",
    [FIXTURE_TRANSFORMER_BITS] = "transformer_bits",
    [FIXTURE_CUSTOM_OP] = "custom_op",
    [FIXTURE_RESIDUAL] = "residual",
    [FIXTURE_WIDE_CONCAT] = "wide_concat",
    [FIXTURE_HOSTILE_NAMES] = "hostile_names",
    [FIXTURE_SELECTIONS] = "selections",
    [FIXTURE_DECONV] = "deconv",
    [FIXTURE_MATHS] = "maths",
    [FIXTURE_INDEXING] = "indexing",
    [FIXTURE_REDUCTIONS] = "reductions",
    [FIXTURE_QUANTIZED] = "quantized",
    [FIXTURE_POST_LN] = "post_ln",
};
_Static_assert(BZ_ARRAY_LEN(fixture_names) == FIXTURE_COUNT, "a name per fixture");

const char *fixture_name(enum fixture f)
{
    return (unsigned)f < FIXTURE_COUNT ? fixture_names[f] : "?";
}

int fixture_by_name(const char *name)
{
    for (int i = 0; i < FIXTURE_COUNT; i++)
        if (strcmp(fixture_names[i], name) == 0)
            return i;
    return -1;
}

/* Everything a fixture allocates lives in one arena, freed after packing. */
static struct bz_arena fa;

static char *s(const char *x)
{
    return bz_arena_strdup(&fa, x);
}

static Onnx__ValueInfoProto *vi(const char *name, int elem, int rank, ...)
{
    Onnx__ValueInfoProto *v = bz_arena_alloc(&fa, sizeof(*v));
    onnx__value_info_proto__init(v);
    v->name = s(name);
    Onnx__TypeProto *t = bz_arena_alloc(&fa, sizeof(*t));
    onnx__type_proto__init(t);
    Onnx__TypeProto__Tensor *tt = bz_arena_alloc(&fa, sizeof(*tt));
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    Onnx__TensorShapeProto *sh = bz_arena_alloc(&fa, sizeof(*sh));
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = (size_t)rank;
    sh->dim = bz_arena_array(&fa, (size_t)rank, sizeof(*sh->dim));
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = bz_arena_alloc(&fa, sizeof(*d));
        onnx__tensor_shape_proto__dimension__init(d);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = va_arg(ap, int64_t);
        sh->dim[i] = d;
    }
    va_end(ap);
    tt->shape = sh;
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = tt;
    v->type = t;
    return v;
}

/* A float initializer of the given dims filled with a simple ramp. */
static Onnx__TensorProto *init_f32(const char *name, int rank, ...)
{
    Onnx__TensorProto *t = bz_arena_alloc(&fa, sizeof(*t));
    onnx__tensor_proto__init(t);
    t->name = s(name);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->n_dims = (size_t)rank;
    t->dims = bz_arena_array(&fa, (size_t)rank, sizeof(int64_t));
    size_t n = 1;
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        t->dims[i] = va_arg(ap, int64_t);
        n *= (size_t)t->dims[i];
    }
    va_end(ap);
    float *data = bz_arena_array(&fa, n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        data[i] = (float)(i % 7) * 0.125f - 0.25f;
    t->has_raw_data = 1;
    t->raw_data.len = n * sizeof(float);
    t->raw_data.data = (uint8_t *)data;
    return t;
}

/* a 1-D int64 initializer of n values */
static Onnx__TensorProto *init_i64(const char *name, int n, ...)
{
    Onnx__TensorProto *t = bz_arena_alloc(&fa, sizeof(*t));
    onnx__tensor_proto__init(t);
    t->name = s(name);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    t->n_dims = 1;
    t->dims = bz_arena_array(&fa, 1, sizeof(int64_t));
    t->dims[0] = n;
    t->n_int64_data = (size_t)n;
    t->int64_data = bz_arena_array(&fa, (size_t)n, sizeof(int64_t));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        t->int64_data[i] = va_arg(ap, int64_t);
    va_end(ap);
    return t;
}

static Onnx__AttributeProto *attr_ints(const char *name, int n, ...)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&fa, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = s(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = (size_t)n;
    a->ints = bz_arena_array(&fa, (size_t)n, sizeof(int64_t));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        a->ints[i] = va_arg(ap, int64_t);
    va_end(ap);
    return a;
}

static Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&fa, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = s(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = 1;
    a->i = v;
    return a;
}

static Onnx__AttributeProto *attr_float(const char *name, float v)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&fa, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = s(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    a->has_f = 1;
    a->f = v;
    return a;
}

static Onnx__AttributeProto *attr_string(const char *name, const char *v)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&fa, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = s(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    a->has_s = 1;
    a->s.data = (uint8_t *)s(v);
    a->s.len = strlen(v);
    return a;
}

/* a scalar float initializer */
static Onnx__TensorProto *scalar_f32(const char *name, float v)
{
    Onnx__TensorProto *t = init_f32(name, 0);
    memcpy(t->raw_data.data, &v, sizeof(v));
    return t;
}

static Onnx__AttributeProto *attr_graph(const char *name, Onnx__GraphProto *g)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&fa, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = s(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    a->g = g;
    return a;
}

/* node("Conv", "conv1", "x,w,b", "y", attrs...) with NULL closing the attribute list */
static Onnx__NodeProto *node(const char *op, const char *name, const char *ins, const char *outs, ...)
{
    Onnx__NodeProto *n = bz_arena_alloc(&fa, sizeof(*n));
    onnx__node_proto__init(n);
    n->op_type = s(op);
    n->name = s(name);
    const char *lists[2] = {ins, outs};
    for (int l = 0; l < 2; l++) {
        size_t cnt = *lists[l] ? 1 : 0;
        for (const char *p = lists[l]; *p; p++)
            cnt += *p == ',';
        char **arr = bz_arena_array(&fa, cnt, sizeof(char *));
        const char *p = lists[l];
        for (size_t i = 0; i < cnt; i++) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            arr[i] = bz_arena_strndup(&fa, p, len);
            p += len + 1;
        }
        if (l == 0) {
            n->n_input = cnt;
            n->input = arr;
        } else {
            n->n_output = cnt;
            n->output = arr;
        }
    }
    va_list ap;
    va_start(ap, outs);
    Onnx__AttributeProto *a;
    Onnx__AttributeProto *attrs[16];
    size_t na = 0;
    while ((a = va_arg(ap, Onnx__AttributeProto *)) != NULL && na < 16)
        attrs[na++] = a;
    va_end(ap);
    n->n_attribute = na;
    n->attribute = bz_arena_memdup(&fa, attrs, na * sizeof(*attrs));
    return n;
}

#define LIST(type, ...)                                                                            \
    ((type *[]){__VA_ARGS__}), (sizeof((type *[]){__VA_ARGS__}) / sizeof(type *))

static Onnx__GraphProto *graph(const char *name, Onnx__NodeProto **nodes, size_t nn,
                               Onnx__ValueInfoProto **ins, size_t ni, Onnx__ValueInfoProto **outs,
                               size_t no, Onnx__TensorProto **inits, size_t nt)
{
    Onnx__GraphProto *g = bz_arena_alloc(&fa, sizeof(*g));
    onnx__graph_proto__init(g);
    g->name = s(name);
    g->n_node = nn;
    g->node = bz_arena_memdup(&fa, nodes, nn * sizeof(*nodes));
    g->n_input = ni;
    g->input = bz_arena_memdup(&fa, ins, ni * sizeof(*ins));
    g->n_output = no;
    g->output = bz_arena_memdup(&fa, outs, no * sizeof(*outs));
    g->n_initializer = nt;
    g->initializer = nt ? bz_arena_memdup(&fa, inits, nt * sizeof(*inits)) : NULL;
    return g;
}

static Onnx__GraphProto *tiny_cnn(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Conv", "conv1", "x,w1,b1", "c1", attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             attr_ints("kernel_shape", 2, 3L, 3L), NULL),
        node("Relu", "relu1", "c1", "r1", NULL),
        node("MaxPool", "pool1", "r1", "p1", attr_ints("kernel_shape", 2, 2L, 2L),
             attr_ints("strides", 2, 2L, 2L), NULL),
        node("Conv", "conv2", "p1,w2,b2", "c2", attr_ints("pads", 4, 1L, 1L, 1L, 1L), NULL),
        node("Relu", "relu2", "c2", "r2", NULL),
        node("GlobalAveragePool", "gap", "r2", "g", NULL),
        node("Flatten", "flatten", "g", "f", attr_int("axis", 1), NULL),
        node("Gemm", "fc", "f,w3,b3", "y", attr_int("transB", 1), NULL),
    };
    Onnx__TensorProto *inits[] = {
        init_f32("w1", 4, 8L, 3L, 3L, 3L), init_f32("b1", 1, 8L),
        init_f32("w2", 4, 16L, 8L, 3L, 3L), init_f32("b2", 1, 16L),
        init_f32("w3", 2, 10L, 16L), init_f32("b3", 1, 10L),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, 1L, 3L, 32L, 32L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, 1L, 10L)};
    return graph("tiny_cnn", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, inits, BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *subgraph_model(void)
{
    /* then: Relu(a) reads the outer value 'a'; else: Neg(b) reads 'b'. The outer nodes are
     * stored in reverse order, so the loader must sort them. */
    Onnx__GraphProto *then_g = graph("then", LIST(Onnx__NodeProto, node("Relu", "t", "a", "t_out", NULL)),
                                     NULL, 0,
                                     LIST(Onnx__ValueInfoProto, vi("t_out", 1, 1, 4L)), NULL, 0);
    Onnx__GraphProto *else_g = graph("else", LIST(Onnx__NodeProto, node("Neg", "e", "b", "e_out", NULL)),
                                     NULL, 0,
                                     LIST(Onnx__ValueInfoProto, vi("e_out", 1, 1, 4L)), NULL, 0);
    Onnx__NodeProto *nodes[] = {
        node("If", "branch", "cond", "y", attr_graph("then_branch", then_g),
             attr_graph("else_branch", else_g), NULL),
        node("Abs", "make_b", "x", "b", NULL),
        node("Sigmoid", "make_a", "x", "a", NULL),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 1, 4L), vi("cond", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 0)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 1, 4L)};
    return graph("subgraph", nodes, BZ_ARRAY_LEN(nodes), ins, 2, outs, 1, NULL, 0);
}

static Onnx__GraphProto *conv_variants(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Conv", "explicit", "x,w", "ya", attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             attr_ints("kernel_shape", 2, 3L, 3L), attr_ints("strides", 2, 1L, 1L), NULL),
        node("Conv", "same_upper", "x,w", "yb", attr_string("auto_pad", "SAME_UPPER"), NULL),
        node("Conv", "defaults", "x,w", "yc", attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             attr_ints("dilations", 2, 1L, 1L), attr_int("group", 1), NULL),
        node("Conv", "strided", "x,w", "yd", attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             attr_ints("strides", 2, 2L, 2L), NULL),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 1L, 8L, 16L, 16L)};
    Onnx__ValueInfoProto *outs[] = {vi("ya", 1, 4, 1L, 8L, 16L, 16L), vi("yb", 1, 4, 1L, 8L, 16L, 16L),
                                    vi("yc", 1, 4, 1L, 8L, 16L, 16L), vi("yd", 1, 4, 1L, 8L, 8L, 8L)};
    return graph("conv_variants", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 4,
                 LIST(Onnx__TensorProto, init_f32("w", 4, 8L, 8L, 3L, 3L)));
}

static Onnx__GraphProto *transformer_bits(void)
{
    Onnx__NodeProto *nodes[] = {
        node("ReduceMean", "ln_mean", "x", "m", attr_ints("axes", 1, -1L), NULL),
        node("Sub", "ln_sub", "x,m", "d", NULL),
        node("Pow", "ln_pow", "d,two", "p", NULL),
        node("ReduceMean", "ln_var", "p", "v", attr_ints("axes", 1, -1L), NULL),
        node("Add", "ln_eps", "v,eps", "ve", NULL),
        node("Sqrt", "ln_sqrt", "ve", "sd", NULL),
        node("Div", "ln_div", "d,sd", "nrm", NULL),
        node("Mul", "ln_scale", "nrm,gamma", "g", NULL),
        node("Add", "ln_shift", "g,beta", "ln", NULL),
        node("MatMul", "fc", "ln,w", "mm", NULL),
        node("Add", "fc_bias", "mm,b", "h", NULL),
        node("Div", "gelu_div", "h,sqrt2", "q", NULL),
        node("Erf", "gelu_erf", "q", "e", NULL),
        node("Add", "gelu_add", "e,one", "e1", NULL),
        node("Mul", "gelu_mul", "h,e1", "hm", NULL),
        node("Mul", "gelu_half", "hm,half", "y", NULL),
    };
    Onnx__TensorProto *inits[] = {
        scalar_f32("two", 2.0f), scalar_f32("eps", 1e-5f), scalar_f32("sqrt2", 1.4142135f),
        scalar_f32("one", 1.0f), scalar_f32("half", 0.5f), init_f32("gamma", 1, 32L),
        init_f32("beta", 1, 32L), init_f32("w", 2, 32L, 64L), init_f32("b", 1, 64L),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 3, 2L, 16L, 32L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 3, 2L, 16L, 64L)};
    return graph("transformer_bits", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, inits, BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *post_ln(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Add", "res1", "x,y", "s1", NULL),
        node("LayerNormalization", "ln1", "s1,g,b", "o1", attr_int("axis", -1), attr_float("epsilon", 1e-5f), NULL),
        node("Add", "res2", "o1,y", "s2", NULL),
        node("Add", "bias2", "s2,bias", "s3", NULL),
        node("LayerNormalization", "ln2", "s3,g,b", "o2", attr_int("axis", -1), NULL),
        node("Add", "res3", "o2,x", "s4", NULL),
        node("LayerNormalization", "ln3", "s4,g,b", "o3", NULL),
    };
    Onnx__TensorProto *inits[] = {init_f32("g", 1, 8L), init_f32("b", 1, 8L), init_f32("bias", 1, 8L)};
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 3, 2L, 4L, 8L), vi("y", 1, 3, 2L, 4L, 8L)};
    Onnx__ValueInfoProto *outs[] = {vi("o3", 1, 3, 2L, 4L, 8L), vi("s4", 1, 3, 2L, 4L, 8L)};
    return graph("post_ln", nodes, BZ_ARRAY_LEN(nodes), ins, 2, outs, 2, inits, BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *custom_op(void)
{
    Onnx__NodeProto *f1 = node("Frobnicate", "frob1", "r", "f1", NULL);
    Onnx__NodeProto *f2 = node("Frobnicate", "frob2", "f1", "f2", NULL);
    f1->domain = s("com.example");
    f2->domain = s("com.example");
    Onnx__NodeProto *nodes[] = {node("Relu", "relu", "x", "r", NULL), f1, f2,
                                node("Sigmoid", "sigmoid", "f2", "y", NULL)};
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 2, 4L, 8L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 2, 4L, 8L)};
    return graph("custom", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, NULL, 0);
}

static Onnx__GraphProto *residual(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Conv", "conv", "x,w", "c", attr_ints("pads", 4, 1L, 1L, 1L, 1L), NULL),
        node("BatchNormalization", "bn", "c,scale,bias,mean,var", "b", NULL),
        node("Add", "residual", "b,x", "a", NULL),
        node("Relu", "relu", "a", "y", NULL),
    };
    Onnx__TensorProto *inits[] = {
        init_f32("w", 4, 8L, 8L, 3L, 3L), init_f32("scale", 1, 8L), init_f32("bias", 1, 8L),
        init_f32("mean", 1, 8L), init_f32("var", 1, 8L),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 1L, 8L, 8L, 8L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 4, 1L, 8L, 8L, 8L)};
    return graph("residual", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, inits, BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *wide_concat(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Relu", "relu", "x", "r", NULL),
        node("Concat", "concat", "r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x,r,x",
             "y", attr_int("axis", 1), NULL),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 1L, 2L, 4L, 4L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 4, 1L, 80L, 4L, 4L)};
    return graph("wide_concat", nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, NULL, 0);
}

static Onnx__GraphProto *selections(void)
{
    Onnx__NodeProto *nodes[] = {
        node("TopK", "topk_largest", "x,k4", "tv,ti", NULL),
        node("TopK", "topk_smallest", "x,k3", "sv,si", attr_int("axis", 1), attr_int("largest", 0), NULL),
        node("Split", "split", "x,sizes", "s0,s1", attr_int("axis", 2), NULL),
        node("ArgMax", "argmax", "x", "am", attr_int("axis", 1), attr_int("keepdims", 0),
             attr_int("select_last_index", 1), NULL),
        node("ScatterND", "scatter", "x,idx,upd", "sc", NULL),
        /* Concat in plain C too: three pieces (one of them Split's first) along a middle
         * axis; int64 along the last (no oneDNN form); one piece */
        node("Concat", "concat", "s1,x,s0", "cc", attr_int("axis", 2), NULL),
        node("Concat", "concat_i64", "am,am", "ci", attr_int("axis", -1), NULL),
        node("Concat", "concat_one", "upd", "c1", attr_int("axis", 0), NULL),
    };
    Onnx__TensorProto *idx = init_i64("idx", 12, 0L, 1L, 1L, 5L, 0L, 3L, 1L, 0L, 0L, 0L, 1L, 2L);
    idx->n_dims = 3; /* [2, 3, 2]: six (n, c) rows */
    idx->dims = bz_arena_array(&fa, 3, sizeof(int64_t));
    idx->dims[0] = 2;
    idx->dims[1] = 3;
    idx->dims[2] = 2;
    Onnx__TensorProto *inits[] = {init_i64("k4", 1, 4L), init_i64("k3", 1, 3L), init_i64("sizes", 2, 3L, 7L), idx};
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 2L, 6L, 10L, 12L), vi("upd", 1, 4, 2L, 3L, 10L, 12L)};
    Onnx__ValueInfoProto *outs[] = {
        vi("tv", 1, 4, 2L, 6L, 10L, 4L), vi("ti", 7, 4, 2L, 6L, 10L, 4L), vi("sv", 1, 4, 2L, 3L, 10L, 12L),
        vi("si", 7, 4, 2L, 3L, 10L, 12L), vi("s0", 1, 4, 2L, 6L, 3L, 12L), vi("s1", 1, 4, 2L, 6L, 7L, 12L),
        vi("am", 7, 3, 2L, 10L, 12L), vi("sc", 1, 4, 2L, 6L, 10L, 12L), vi("cc", 1, 4, 2L, 6L, 20L, 12L),
        vi("ci", 7, 3, 2L, 10L, 24L), vi("c1", 1, 4, 2L, 3L, 10L, 12L)};
    return graph("selections", nodes, BZ_ARRAY_LEN(nodes), ins, 2, outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *deconv(void)
{
    Onnx__NodeProto *nodes[] = {
        node("ConvTranspose", "grouped", "x,w,b", "y", attr_int("group", 2), attr_ints("strides", 2, 2L, 1L),
             attr_ints("dilations", 2, 2L, 1L), attr_ints("pads", 4, 1L, 0L, 1L, 0L),
             attr_ints("output_padding", 2, 1L, 0L), NULL),
        node("ConvTranspose", "depthwise_1d", "x1,w1", "y1", attr_int("group", 4), attr_ints("strides", 1, 3L),
             attr_ints("pads", 2, 1L, 2L), NULL),
        node("ConvTranspose", "volume", "x2,w2,b2", "y2", attr_ints("strides", 3, 2L, 2L, 2L), NULL),
    };
    Onnx__TensorProto *inits[] = {
        init_f32("w", 4, 4L, 3L, 3L, 2L), init_f32("b", 1, 6L), init_f32("w1", 3, 4L, 1L, 3L),
        init_f32("w2", 5, 2L, 3L, 2L, 2L, 2L), init_f32("b2", 1, 3L),
    };
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 2L, 4L, 6L, 5L), vi("x1", 1, 3, 2L, 4L, 7L),
                                   vi("x2", 1, 5, 2L, 2L, 3L, 4L, 4L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 4, 2L, 6L, 14L, 6L), vi("y1", 1, 3, 2L, 4L, 18L),
                                    vi("y2", 1, 5, 2L, 3L, 6L, 8L, 8L)};
    return graph("deconv", nodes, BZ_ARRAY_LEN(nodes), ins, BZ_ARRAY_LEN(ins), outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

/* a 0-D int64 initializer */
static Onnx__TensorProto *scalar_i64(const char *name, int64_t v)
{
    Onnx__TensorProto *t = init_i64(name, 1, v);
    t->n_dims = 0;
    return t;
}

/* Index, scan, pad and slice operators with the constant inputs that decide what they compute
 * (CumSum's axis, Trilu's k, the pads and slice windows), at sizes where a wrong index shows;
 * opset 19 (ScatterElements max, Pad wrap) */
static Onnx__GraphProto *indexing(void)
{
    Onnx__NodeProto *nodes[] = {
        node("GatherElements", "gather_elements", "x,gi", "ge", attr_int("axis", 1), NULL),
        node("ScatterElements", "scatter_add", "x,si,su", "sa", attr_int("axis", 2), attr_string("reduction", "add"),
             NULL),
        node("ScatterElements", "scatter_max", "x,si,su", "sm", attr_int("axis", 2), attr_string("reduction", "max"),
             NULL),
        node("GatherND", "gather_nd_batch", "x,ni", "gn", attr_int("batch_dims", 1), NULL),
        node("ScatterND", "scatter_nd_mul", "x,ndi,ndu", "sn", attr_string("reduction", "mul"), NULL),
        node("CumSum", "cumsum_exclusive_reverse", "x,ax2", "cs", attr_int("exclusive", 1), attr_int("reverse", 1),
             NULL),
        node("CumSum", "cumsum_int", "i,axm1", "ci", NULL),
        node("Trilu", "trilu_lower", "x,km1", "tl", attr_int("upper", 0), NULL),
        node("Trilu", "trilu_upper", "x,k2", "tu", NULL),
        node("OneHot", "onehot", "oi,depth,onoff", "oh", attr_int("axis", 1), NULL),
        node("ReverseSequence", "reverse_sequence", "rs,lens", "rv", NULL),
        node("EyeLike", "eyelike", "e", "ey", attr_int("k", 2), attr_int("dtype", 6), NULL),
        node("Range", "range", "r0,r1,r2", "rg", NULL),
        node("Pad", "pad_reflect", "x,pr", "pr_out", attr_string("mode", "reflect"), NULL),
        node("Pad", "pad_edge_crop", "x,pe", "pe_out", attr_string("mode", "edge"), NULL),
        node("Pad", "pad_wrap", "x,pw", "pw_out", attr_string("mode", "wrap"), NULL),
        node("Pad", "pad_value", "x,pc,pv", "pc_out", NULL),
        node("Slice", "slice_steps", "x,ss,se,sx,st", "sl", NULL),
        /* one run of 66000 bytes read from 36400 bytes into its input: 16 bytes from where
         * the output starts modulo a page, but for pl_place's offset of the first read */
        node("Slice", "slice_channels", "xc,xc_s,xc_e,xc_a", "slc", NULL),
    };
    Onnx__TensorProto *ndi = init_i64("ndi", 12, 0L, 1L, 1L, 5L, 0L, 3L, 1L, 0L, 0L, 0L, 1L, 2L);
    ndi->n_dims = 3; /* [2, 3, 2]: six (n, c) rows */
    ndi->dims = bz_arena_array(&fa, 3, sizeof(int64_t));
    ndi->dims[0] = 2;
    ndi->dims[1] = 3;
    ndi->dims[2] = 2;
    Onnx__TensorProto *inits[] = {
        ndi, scalar_i64("ax2", 2), scalar_i64("axm1", -1), scalar_i64("km1", -1), scalar_i64("k2", 2),
        scalar_i64("depth", 7), init_f32("onoff", 1, 2L),
        init_i64("pr", 8, 0L, 0L, 2L, 3L, 0L, 0L, 1L, 2L), init_i64("pe", 8, 0L, 1L, -2L, 4L, 0L, 0L, 3L, -1L),
        init_i64("pw", 8, 0L, 0L, 3L, 13L, 0L, 0L, 12L, 1L), init_i64("pc", 8, 1L, 0L, 0L, 2L, 0L, 2L, 1L, 0L),
        scalar_f32("pv", 1.5f), init_i64("ss", 2, 1L, 9L), init_i64("se", 2, 10L, 0L), init_i64("sx", 2, 2L, 3L),
        init_i64("st", 2, 2L, -2L), init_i64("xc_s", 1, 91L), init_i64("xc_e", 1, 256L), init_i64("xc_a", 1, 1L),
    };
    Onnx__ValueInfoProto *ins[] = {
        vi("x", 1, 4, 2L, 6L, 10L, 12L), vi("gi", 7, 4, 2L, 4L, 10L, 12L), vi("si", 7, 4, 2L, 6L, 5L, 12L),
        vi("su", 1, 4, 2L, 6L, 5L, 12L), vi("ni", 7, 3, 2L, 3L, 2L), vi("ndu", 1, 4, 2L, 3L, 10L, 12L),
        vi("i", 6, 3, 3L, 5L, 9L), vi("oi", 7, 2, 2L, 5L), vi("rs", 1, 3, 6L, 3L, 12L), vi("lens", 7, 1, 3L),
        vi("e", 1, 2, 10L, 12L), vi("r0", 1, 0), vi("r1", 1, 0), vi("r2", 1, 0), vi("xc", 1, 4, 1L, 256L, 10L, 10L),
    };
    Onnx__ValueInfoProto *outs[] = {
        vi("ge", 1, 4, 2L, 4L, 10L, 12L), vi("sa", 1, 4, 2L, 6L, 10L, 12L), vi("sm", 1, 4, 2L, 6L, 10L, 12L),
        vi("gn", 1, 2, 2L, 3L, 12L),      vi("sn", 1, 4, 2L, 6L, 10L, 12L), vi("cs", 1, 4, 2L, 6L, 10L, 12L),
        vi("ci", 6, 3, 3L, 5L, 9L),       vi("tl", 1, 4, 2L, 6L, 10L, 12L), vi("tu", 1, 4, 2L, 6L, 10L, 12L),
        vi("oh", 1, 3, 2L, 7L, 5L),       vi("rv", 1, 3, 6L, 3L, 12L),      vi("ey", 6, 2, 10L, 12L),
        vi("rg", 1, 1, 20L),              vi("pr_out", 1, 4, 2L, 6L, 13L, 17L), vi("pe_out", 1, 4, 2L, 7L, 11L, 15L),
        vi("pw_out", 1, 4, 2L, 6L, 25L, 26L), vi("pc_out", 1, 4, 3L, 8L, 11L, 14L), vi("sl", 1, 4, 2L, 6L, 5L, 5L),
        vi("slc", 1, 4, 1L, 165L, 10L, 10L),
    };
    return graph("indexing", nodes, BZ_ARRAY_LEN(nodes), ins, BZ_ARRAY_LEN(ins), outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

/* Reductions oneDNN has not and the 16-bit and unsigned types of the plain kernels: ReduceLogSum,
 * ReduceLogSumExp, ReduceSumSquare (axes as inputs, opset 19), an integer ReduceProd,
 * MeanVarianceNormalization, Hardmax, BitShift, casts to and from f16 and bf16, Max of five */
static Onnx__GraphProto *reductions(void)
{
    Onnx__NodeProto *nodes[] = {
        node("ReduceLogSum", "logsum", "p,a13", "ls", attr_int("keepdims", 0), NULL),
        node("ReduceLogSumExp", "logsumexp", "x,a2", "lse", NULL),
        node("ReduceSumSquare", "sumsquare", "x,a013", "ss", NULL),
        node("ReduceProd", "prod_int", "i,a1", "pi", NULL),
        node("MeanVarianceNormalization", "mvn", "x", "mvn", NULL),
        node("Hardmax", "hardmax", "x", "hm", attr_int("axis", 2), NULL),
        node("BitShift", "shift_right", "u,v", "sr", attr_string("direction", "RIGHT"), NULL),
        node("BitShift", "shift_left", "w,v8", "sl", attr_string("direction", "LEFT"), NULL),
        node("Cast", "to_f16", "x", "h", attr_int("to", 10), NULL),
        node("Cast", "to_bf16", "x", "b", attr_int("to", 16), NULL),
        node("Cast", "f16_to_f32", "h16", "hf", attr_int("to", 1), NULL),
        node("Max", "max5", "x,m1,m2,m3,m4", "mx", NULL),
    };
    Onnx__TensorProto *inits[] = {
        init_i64("a13", 2, 1L, 3L), init_i64("a2", 1, 2L), init_i64("a013", 3, 0L, 1L, 3L), init_i64("a1", 1, 1L),
    };
    Onnx__ValueInfoProto *ins[] = {
        vi("x", 1, 4, 2L, 6L, 10L, 12L), vi("p", 1, 4, 2L, 6L, 10L, 12L), vi("i", 6, 3, 3L, 4L, 5L),
        vi("u", 12, 3, 2L, 5L, 7L), vi("v", 12, 2, 5L, 7L), vi("w", 2, 3, 2L, 5L, 7L), vi("v8", 2, 1, 7L),
        vi("h16", 10, 3, 2L, 5L, 7L), vi("m1", 1, 1, 12L), vi("m2", 1, 3, 6L, 1L, 12L), vi("m3", 1, 4, 2L, 1L, 10L, 1L),
        vi("m4", 1, 4, 2L, 6L, 10L, 12L),
    };
    Onnx__ValueInfoProto *outs[] = {
        vi("ls", 1, 2, 2L, 10L),         vi("lse", 1, 4, 2L, 6L, 1L, 12L), vi("ss", 1, 4, 1L, 1L, 10L, 1L),
        vi("pi", 6, 3, 3L, 1L, 5L),      vi("mvn", 1, 4, 2L, 6L, 10L, 12L), vi("hm", 1, 4, 2L, 6L, 10L, 12L),
        vi("sr", 12, 3, 2L, 5L, 7L),     vi("sl", 2, 3, 2L, 5L, 7L),      vi("h", 10, 4, 2L, 6L, 10L, 12L),
        vi("b", 16, 4, 2L, 6L, 10L, 12L), vi("hf", 1, 3, 2L, 5L, 7L),     vi("mx", 1, 4, 2L, 6L, 10L, 12L),
    };
    return graph("reductions", nodes, BZ_ARRAY_LEN(nodes), ins, BZ_ARRAY_LEN(ins), outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

/* An initializer of an 8-bit integer type (elem UINT8 or INT8) filled with a small ramp, or of
 * float type with values positive and small (for scales) */
static Onnx__TensorProto *init_q(const char *name, int elem, int rank, ...)
{
    Onnx__TensorProto *t = bz_arena_alloc(&fa, sizeof(*t));
    onnx__tensor_proto__init(t);
    t->name = s(name);
    t->has_data_type = 1;
    t->data_type = elem;
    t->n_dims = (size_t)rank;
    t->dims = bz_arena_array(&fa, (size_t)rank ? (size_t)rank : 1, sizeof(int64_t));
    size_t n = 1;
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        t->dims[i] = va_arg(ap, int64_t);
        n *= (size_t)t->dims[i];
    }
    va_end(ap);
    size_t es = elem == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ? 4 : 1;
    uint8_t *data = bz_arena_array(&fa, n * es, 1);
    for (size_t i = 0; i < n; i++) {
        if (es == 4) {
            float v = 0.0125f + 0.0025f * (float)(i % 5);
            memcpy(data + 4 * i, &v, 4);
        } else {
            data[i] = (uint8_t)(elem == ONNX__TENSOR_PROTO__DATA_TYPE__INT8 ? (int)(i % 9) - 4 : 100 + (int)(i % 7));
        }
    }
    t->has_raw_data = 1;
    t->raw_data.len = n * es;
    t->raw_data.data = data;
    return t;
}

/* Quantized operators: a QDQ chain (Quantize -> Dequantize -> Conv (weights Dequantize(int8
 * constant)) -> Relu -> Quantize -> Dequantize -> MatMul -> Quantize: two fused int8 layers), and
 * the QOperator forms (QLinearConv with per-channel weight scales, ConvInteger, QLinearMatMul,
 * MatMulInteger, DynamicQuantizeLinear, a per-axis DequantizeLinear) */
static Onnx__GraphProto *quantized(void)
{
    Onnx__NodeProto *nodes[] = {
        node("QuantizeLinear", "q_in", "x,sx,zx", "xq", NULL),
        node("DequantizeLinear", "dq_in", "xq,sx,zx", "xd", NULL),
        node("DequantizeLinear", "dq_w", "wq,sw,zw", "wd", NULL),
        node("Conv", "conv", "xd,wd", "c", attr_ints("pads", 4, 1L, 1L, 1L, 1L), NULL),
        node("Relu", "relu", "c", "r", NULL),
        node("QuantizeLinear", "q_c", "r,sx,zx", "rq", NULL),
        node("DequantizeLinear", "dq_c", "rq,sx,zx", "rd", NULL),
        node("DequantizeLinear", "dq_b", "bq,sw,zw", "bd", NULL),
        node("MatMul", "matmul", "rd,bd", "m", NULL),
        node("QuantizeLinear", "q_m", "m,sx,zx", "mq", NULL),
        node("QLinearConv", "qlinearconv", "xq,sx,zx,wq,swc,zwc,sx,zx", "qc", attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             NULL),
        node("ConvInteger", "convinteger", "xq,wq8,zx", "ci", attr_ints("strides", 2, 2L, 2L), NULL),
        node("QLinearMatMul", "qlinearmatmul", "aq,sa,za,bq,sw,zw,sa,za", "qm", NULL),
        node("MatMulInteger", "matmulinteger", "aq,bq", "mi", NULL),
        node("DynamicQuantizeLinear", "dynamic", "x", "dy,dys,dyz", NULL),
        node("DequantizeLinear", "dq_axis", "qa,sc,zc", "da", attr_int("axis", 1), NULL),
    };
    Onnx__TensorProto *inits[] = {
        init_q("sx", 1, 0), init_q("zx", 2, 0), init_q("wq", 3, 4, 16L, 8L, 3L, 3L), init_q("sw", 1, 0),
        init_q("zw", 3, 0), init_q("bq", 3, 2L, 12L, 20L), init_q("swc", 1, 1, 16L), init_q("zwc", 3, 1, 16L),
        init_q("wq8", 2, 4, 16L, 8L, 3L, 3L), init_q("sa", 1, 0), init_q("za", 3, 0), init_q("sc", 1, 1, 6L),
        init_q("zc", 2, 1, 6L),
    };
    /* zwc (the per-channel weight zero points) must be 0 for oneDNN: the ramp gives -4.., so
     * overwrite it */
    memset(inits[7]->raw_data.data, 0, inits[7]->raw_data.len);
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 4, 2L, 8L, 10L, 12L), vi("aq", 3, 3, 2L, 7L, 12L),
                                   vi("qa", 2, 4, 2L, 6L, 5L, 5L)};
    Onnx__ValueInfoProto *outs[] = {
        vi("mq", 2, 4, 2L, 16L, 10L, 20L), vi("qc", 2, 4, 2L, 16L, 10L, 12L), vi("ci", 6, 4, 2L, 16L, 4L, 5L),
        vi("qm", 3, 3, 2L, 7L, 20L),       vi("mi", 6, 3, 2L, 7L, 20L),       vi("dy", 2, 4, 2L, 8L, 10L, 12L),
        vi("da", 1, 4, 2L, 6L, 5L, 5L),
    };
    return graph("quantized", nodes, BZ_ARRAY_LEN(nodes), ins, BZ_ARRAY_LEN(ins), outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *maths(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Mod", "mod_sign_of_divisor", "i,j", "m0", NULL),
        node("Mod", "fmod_broadcast", "x,r", "m1", attr_int("fmod", 1), NULL),
        node("Mean", "mean3", "x,r,z", "mean", NULL),
        node("Max", "max3", "x,z,r", "mx", NULL),
        node("Acosh", "acosh", "x", "ach", NULL),
        node("Atanh", "atanh", "x", "ath", NULL),
        node("IsInf", "isinf_positive_only", "x", "inf", attr_int("detect_negative", 0), NULL),
        node("IsNaN", "isnan", "x", "nan", NULL),
        node("Shrink", "shrink", "x", "shr", attr_float("bias", 0.125f), attr_float("lambd", 0.375f), NULL),
        node("Celu", "celu", "x", "celu", attr_float("alpha", 0.5f), NULL),
        node("ThresholdedRelu", "trelu", "x", "tr", attr_float("alpha", 0.25f), NULL),
        /* a power by a constant (the exponent in the key: one input), a fraction of one
         * (positive inputs), and a power by a tensor (two inputs) */
        node("Pow", "cube", "x,three", "cube", NULL),
        node("Pow", "root", "x,half", "root", NULL),
        node("Pow", "pow_by_tensor", "x,r", "pw", NULL),
        /* powers whose result at 0 or below is no number (positive inputs, [1, 16) in an
         * integer type): by a negative constant, and an integer's by a fraction */
        node("Pow", "reciprocal_square", "x,mtwo", "rsq", NULL),
        node("Pow", "int_root", "i,half", "iroot", NULL),
        node("Pow", "int_reciprocal", "i,mtwo", "irsq", NULL),
    };
    Onnx__ValueInfoProto *ins[] = {vi("i", 6, 3, 2L, 5L, 7L), vi("j", 6, 3, 2L, 5L, 7L), vi("x", 1, 3, 2L, 5L, 7L),
                                   vi("r", 1, 2, 1L, 7L), vi("z", 1, 3, 2L, 1L, 7L)};
    Onnx__ValueInfoProto *outs[] = {
        vi("m0", 6, 3, 2L, 5L, 7L),  vi("m1", 1, 3, 2L, 5L, 7L),  vi("mean", 1, 3, 2L, 5L, 7L),
        vi("mx", 1, 3, 2L, 5L, 7L),  vi("ach", 1, 3, 2L, 5L, 7L), vi("ath", 1, 3, 2L, 5L, 7L),
        vi("inf", 9, 3, 2L, 5L, 7L), vi("nan", 9, 3, 2L, 5L, 7L), vi("shr", 1, 3, 2L, 5L, 7L),
        vi("celu", 1, 3, 2L, 5L, 7L), vi("tr", 1, 3, 2L, 5L, 7L), vi("cube", 1, 3, 2L, 5L, 7L),
        vi("root", 1, 3, 2L, 5L, 7L), vi("pw", 1, 3, 2L, 5L, 7L), vi("rsq", 1, 3, 2L, 5L, 7L),
        vi("iroot", 6, 3, 2L, 5L, 7L), vi("irsq", 6, 3, 2L, 5L, 7L)};
    Onnx__TensorProto *inits[] = {scalar_f32("three", 3.0f), scalar_f32("half", 0.5f), scalar_f32("mtwo", -2.0f)};
    return graph("maths", nodes, BZ_ARRAY_LEN(nodes), ins, BZ_ARRAY_LEN(ins), outs, BZ_ARRAY_LEN(outs), inits,
                 BZ_ARRAY_LEN(inits));
}

/* names that would break generated C, shell or Ninja text if pasted in raw */
#define HOSTILE "*/ \"q\" 'q' \\ $HOME $(id) ../../x\n#define\r\t\xff\xfe\xc3\xa9 ?\?="
static Onnx__GraphProto *hostile_names(void)
{
    Onnx__NodeProto *nodes[] = {
        node("Conv", "conv " HOSTILE, "x " HOSTILE ",w " HOSTILE, "c " HOSTILE, attr_ints("pads", 4, 1L, 1L, 1L, 1L),
             NULL),
        node("Relu", "relu\\", "c " HOSTILE, "r */", NULL),
        node("Transpose", "/* transpose", "r */", "t $x", attr_ints("perm", 4, 0L, 2L, 3L, 1L), NULL),
        node("Add", "add\n\"", "t $x,b ../", "y " HOSTILE, NULL),
    };
    Onnx__TensorProto *inits[] = {init_f32("w " HOSTILE, 4, 8L, 4L, 3L, 3L), init_f32("b ../", 1, 8L)};
    Onnx__ValueInfoProto *ins[] = {vi("x " HOSTILE, 1, 4, 1L, 4L, 6L, 6L)};
    Onnx__ValueInfoProto *outs[] = {vi("y " HOSTILE, 1, 4, 1L, 6L, 6L, 8L)};
    return graph("graph " HOSTILE, nodes, BZ_ARRAY_LEN(nodes), ins, 1, outs, 1, inits, BZ_ARRAY_LEN(inits));
}

static Onnx__GraphProto *broken(enum fixture f)
{
    Onnx__ValueInfoProto *ins[] = {vi("x", 1, 1, 4L)};
    Onnx__ValueInfoProto *outs[] = {vi("y", 1, 1, 4L)};
    switch (f) {
    case FIXTURE_DANGLING_INPUT:
        return graph("dangling", LIST(Onnx__NodeProto, node("Relu", "r", "x", "h", NULL),
                                      node("Add", "add", "h,ghost", "y", NULL)),
                     ins, 1, outs, 1, NULL, 0);
    case FIXTURE_CYCLE:
        return graph("cycle", LIST(Onnx__NodeProto, node("Add", "first", "x,b", "a", NULL),
                                   node("Relu", "second", "a", "b", NULL),
                                   node("Identity", "out", "a", "y", NULL)),
                     ins, 1, outs, 1, NULL, 0);
    case FIXTURE_DUPLICATE_OUTPUT:
        return graph("dup", LIST(Onnx__NodeProto, node("Relu", "one", "x", "y", NULL),
                                 node("Sigmoid", "two", "x", "y", NULL)),
                     ins, 1, outs, 1, NULL, 0);
    case FIXTURE_BAD_RAW_DATA: {
        Onnx__TensorProto *w = init_f32("w", 1, 4L);
        w->raw_data.len -= 6; /* two and a half floats missing */
        return graph("badraw", LIST(Onnx__NodeProto, node("Add", "add", "x,w", "y", NULL)), ins, 1,
                     outs, 1, LIST(Onnx__TensorProto, w));
    }
    case FIXTURE_EXTERNAL_DATA: {
        Onnx__TensorProto *w = init_f32("w", 2, 1000L, 4L);
        w->has_raw_data = 0;
        w->has_data_location = 1;
        w->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
        w->n_external_data = 3;
        w->external_data = bz_arena_array(&fa, 3, sizeof(*w->external_data));
        const char *kv[3][2] = {{"location", "weights.bin"}, {"offset", "4096"}, {"length", "16000"}};
        for (int i = 0; i < 3; i++) {
            Onnx__StringStringEntryProto *e = bz_arena_alloc(&fa, sizeof(*e));
            onnx__string_string_entry_proto__init(e);
            e->key = s(kv[i][0]);
            e->value = s(kv[i][1]);
            w->external_data[i] = e;
        }
        Onnx__ValueInfoProto *in2[] = {vi("x", 1, 2, 2L, 1000L)};
        Onnx__ValueInfoProto *out2[] = {vi("y", 1, 2, 2L, 4L)};
        return graph("ext", LIST(Onnx__NodeProto, node("MatMul", "mm", "x,w", "y", NULL)), in2, 1,
                     out2, 1, LIST(Onnx__TensorProto, w));
    }
    default:
        return NULL;
    }
}

size_t fixture_build(enum fixture f, uint8_t **out)
{
    bz_arena_init(&fa);
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.producer_name = s("benanza-fixture");
    m.producer_version = s("1");
    Onnx__OperatorSetIdProto *op = bz_arena_alloc(&fa, sizeof(*op));
    onnx__operator_set_id_proto__init(op);
    op->domain = s("");
    op->has_version = 1;
    op->version = f == FIXTURE_INDEXING || f == FIXTURE_REDUCTIONS || f == FIXTURE_QUANTIZED ? 19
                  : f == FIXTURE_POST_LN                                                    ? 17
                                                                                            : 13;
    m.n_opset_import = 1;
    m.opset_import = bz_arena_memdup(&fa, &op, sizeof(op));
    switch (f) {
    case FIXTURE_TINY_CNN: m.graph = tiny_cnn(); break;
    case FIXTURE_SUBGRAPH: m.graph = subgraph_model(); break;
    case FIXTURE_CONV_VARIANTS: m.graph = conv_variants(); break;
    case FIXTURE_TRANSFORMER_BITS: m.graph = transformer_bits(); break;
    case FIXTURE_CUSTOM_OP: m.graph = custom_op(); break;
    case FIXTURE_RESIDUAL: m.graph = residual(); break;
    case FIXTURE_WIDE_CONCAT: m.graph = wide_concat(); break;
    case FIXTURE_HOSTILE_NAMES: m.graph = hostile_names(); break;
    case FIXTURE_SELECTIONS: m.graph = selections(); break;
    case FIXTURE_DECONV: m.graph = deconv(); break;
    case FIXTURE_MATHS: m.graph = maths(); break;
    case FIXTURE_INDEXING: m.graph = indexing(); break;
    case FIXTURE_REDUCTIONS: m.graph = reductions(); break;
    case FIXTURE_QUANTIZED: m.graph = quantized(); break;
    case FIXTURE_POST_LN: m.graph = post_ln(); break;
    default: m.graph = broken(f); break;
    }
    BZ_ASSERT(m.graph != NULL);
    size_t n = onnx__model_proto__get_packed_size(&m);
    *out = bz_malloc(n);
    onnx__model_proto__pack(&m, *out);
    bz_arena_free(&fa);
    return n;
}
