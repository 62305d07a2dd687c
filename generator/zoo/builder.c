/* ONNX graph builder over protobuf-c messages, all allocated in one arena. */
#include "zoo/builder.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

struct zb_list {
    void **v;
    size_t n, cap;
};

struct zb {
    struct bz_arena a;
    const char *name;
    int64_t opset;
    struct zb_list nodes, inits, inputs, outputs;
    int64_t params;
};

static void list_push(struct zb *b, struct zb_list *l, void *x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        void **nv = bz_arena_array(&b->a, cap, sizeof(void *));
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof(void *));
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = x;
}

struct zb *zb_new(const char *graph_name, int64_t opset)
{
    struct bz_arena a;
    bz_arena_init(&a);
    struct zb *b = bz_arena_alloc(&a, sizeof(*b));
    b->a = a;
    b->name = bz_arena_strdup(&b->a, graph_name);
    b->opset = opset;
    return b;
}

void zb_free(struct zb *b)
{
    if (!b)
        return;
    struct bz_arena a = b->a;
    bz_arena_free(&a);
}

const char *zb_name(struct zb *b, const char *fmt, ...)
{
    struct bz_buf t;
    bz_buf_init(&t);
    va_list ap;
    va_start(ap, fmt);
    bz_buf_vprintf(&t, fmt, ap);
    va_end(ap);
    char *s = bz_arena_strdup(&b->a, t.data);
    bz_buf_free(&t);
    return s;
}

static Onnx__ValueInfoProto *value_info(struct zb *b, const char *name, int dtype, int rank,
                                        const int64_t *dims, const char *const *params)
{
    Onnx__ValueInfoProto *v = bz_arena_alloc(&b->a, sizeof(*v));
    onnx__value_info_proto__init(v);
    v->name = bz_arena_strdup(&b->a, name);
    Onnx__TypeProto *t = bz_arena_alloc(&b->a, sizeof(*t));
    onnx__type_proto__init(t);
    Onnx__TypeProto__Tensor *tt = bz_arena_alloc(&b->a, sizeof(*tt));
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = dtype;
    if (rank >= 0) {
        Onnx__TensorShapeProto *sh = bz_arena_alloc(&b->a, sizeof(*sh));
        onnx__tensor_shape_proto__init(sh);
        sh->n_dim = (size_t)rank;
        sh->dim = bz_arena_array(&b->a, (size_t)rank, sizeof(*sh->dim));
        for (int i = 0; i < rank; i++) {
            Onnx__TensorShapeProto__Dimension *d = bz_arena_alloc(&b->a, sizeof(*d));
            onnx__tensor_shape_proto__dimension__init(d);
            if (dims[i] >= 0) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = dims[i];
            } else {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = bz_arena_strdup(&b->a, params && params[i] ? params[i] : "N");
            }
            sh->dim[i] = d;
        }
        tt->shape = sh;
    }
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = tt;
    v->type = t;
    return v;
}

const char *zb_input(struct zb *b, const char *name, int dtype, int rank, const int64_t *dims,
                     const char *const *dim_params)
{
    Onnx__ValueInfoProto *v = value_info(b, name, dtype, rank, dims, dim_params);
    list_push(b, &b->inputs, v);
    return v->name;
}

void zb_output(struct zb *b, const char *value, int dtype, int rank, const int64_t *dims)
{
    list_push(b, &b->outputs, value_info(b, value, dtype, rank, dims, NULL));
}

static Onnx__TensorProto *tensor(struct zb *b, const char *name, int dtype, int rank, const int64_t *dims)
{
    Onnx__TensorProto *t = bz_arena_alloc(&b->a, sizeof(*t));
    onnx__tensor_proto__init(t);
    t->name = bz_arena_strdup(&b->a, name);
    t->has_data_type = 1;
    t->data_type = dtype;
    t->n_dims = (size_t)rank;
    t->dims = bz_arena_memdup(&b->a, dims, (size_t)rank * sizeof(int64_t));
    return t;
}

const char *zb_weight(struct zb *b, const char *name, int rank, const int64_t *dims, bool learnable)
{
    Onnx__TensorProto *t = tensor(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims);
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    if (learnable)
        b->params += n;
    /* marked for zb_serialize: external data or none */
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    list_push(b, &b->inits, t);
    return t->name;
}

const char *zb_const_i64(struct zb *b, const char *name, int rank, const int64_t *dims, const int64_t *v)
{
    Onnx__TensorProto *t = tensor(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, rank, dims);
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)dims[i];
    t->n_int64_data = n;
    t->int64_data = bz_arena_memdup(&b->a, v, n * sizeof(int64_t));
    list_push(b, &b->inits, t);
    return t->name;
}

const char *zb_const_f32(struct zb *b, const char *name, float v)
{
    /* shared constants are made once per graph */
    for (size_t i = 0; i < b->inits.n; i++) {
        Onnx__TensorProto *o = b->inits.v[i];
        if (!strcmp(o->name, name))
            return o->name;
    }
    Onnx__TensorProto *t = tensor(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0, NULL);
    t->n_float_data = 1;
    t->float_data = bz_arena_memdup(&b->a, &v, sizeof(v));
    list_push(b, &b->inits, t);
    return t->name;
}

static Onnx__AttributeProto *attr(struct zb *b, const struct za *z)
{
    Onnx__AttributeProto *a = bz_arena_alloc(&b->a, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = bz_arena_strdup(&b->a, z->name);
    a->has_type = 1;
    switch (z->kind) {
    case ZA_KIND_INT:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        a->has_i = 1;
        a->i = z->i;
        break;
    case ZA_KIND_INTS:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        a->n_ints = (size_t)z->n;
        a->ints = bz_arena_memdup(&b->a, z->ints, (size_t)z->n * sizeof(int64_t));
        break;
    case ZA_KIND_FLOAT:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
        a->has_f = 1;
        a->f = z->f;
        break;
    case ZA_KIND_STRING:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        a->has_s = 1;
        a->s.data = (uint8_t *)bz_arena_strdup(&b->a, z->s);
        a->s.len = strlen(z->s);
        break;
    case ZA_KIND_TENSOR_F: {
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
        int64_t one = 1;
        Onnx__TensorProto *t = tensor(b, "value", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &one);
        t->n_float_data = 1;
        t->float_data = bz_arena_memdup(&b->a, &z->f, sizeof(float));
        a->t = t;
        break;
    }
    case ZA_KIND_END:
        break;
    }
    return a;
}

const char *zb_node(struct zb *b, const char *op, const char *name, const char *const *inputs,
                    const struct za *attrs, int n_outputs)
{
    Onnx__NodeProto *n = bz_arena_alloc(&b->a, sizeof(*n));
    onnx__node_proto__init(n);
    n->op_type = bz_arena_strdup(&b->a, op);
    n->name = bz_arena_strdup(&b->a, name);
    size_t ni = 0;
    while (inputs && inputs[ni])
        ni++;
    n->n_input = ni;
    n->input = bz_arena_array(&b->a, ni, sizeof(char *));
    for (size_t i = 0; i < ni; i++)
        n->input[i] = bz_arena_strdup(&b->a, inputs[i]);
    n->n_output = (size_t)n_outputs;
    n->output = bz_arena_array(&b->a, (size_t)n_outputs, sizeof(char *));
    for (int k = 0; k < n_outputs; k++)
        n->output[k] = (char *)zb_name(b, "%s_out%d", name, k);
    size_t na = 0;
    while (attrs && attrs[na].kind != ZA_KIND_END)
        na++;
    n->n_attribute = na;
    n->attribute = bz_arena_array(&b->a, na, sizeof(*n->attribute));
    for (size_t i = 0; i < na; i++)
        n->attribute[i] = attr(b, &attrs[i]);
    list_push(b, &b->nodes, n);
    return n->output[0];
}

const char *zb_out(struct zb *b, const char *node_output0, int k)
{
    size_t len = strlen(node_output0);
    BZ_ASSERT(len > 5 && !strcmp(node_output0 + len - 5, "_out0"));
    return zb_name(b, "%.*s_out%d", (int)(len - 5), node_output0, k);
}

int64_t zb_params(const struct zb *b)
{
    return b->params;
}

uint8_t *zb_serialize(struct zb *b, const char *producer, const char *doc, const char *data_file,
                      size_t *size, uint64_t *data_bytes)
{
    uint64_t offset = 0;
    for (size_t i = 0; i < b->inits.n; i++) {
        Onnx__TensorProto *t = b->inits.v[i];
        if (!t->has_data_location)
            continue;
        if (!data_file) {
            /* dims only: the payload is simply absent */
            t->has_data_location = 0;
            t->n_external_data = 0;
            continue;
        }
        uint64_t n = 4;
        for (size_t k = 0; k < t->n_dims; k++)
            n *= (uint64_t)t->dims[k];
        const char *kv[3][2] = {{"location", data_file}, {"offset", zb_name(b, "%llu", (unsigned long long)offset)},
                                {"length", zb_name(b, "%llu", (unsigned long long)n)}};
        t->n_external_data = 3;
        t->external_data = bz_arena_array(&b->a, 3, sizeof(*t->external_data));
        for (int k = 0; k < 3; k++) {
            Onnx__StringStringEntryProto *e = bz_arena_alloc(&b->a, sizeof(*e));
            onnx__string_string_entry_proto__init(e);
            e->key = (char *)kv[k][0];
            e->value = bz_arena_strdup(&b->a, kv[k][1]);
            t->external_data[k] = e;
        }
        offset += (n + 63) & ~(uint64_t)63;
    }
    if (data_bytes)
        *data_bytes = offset;

    Onnx__GraphProto g;
    onnx__graph_proto__init(&g);
    g.name = (char *)b->name;
    g.n_node = b->nodes.n;
    g.node = (Onnx__NodeProto **)b->nodes.v;
    g.n_initializer = b->inits.n;
    g.initializer = (Onnx__TensorProto **)b->inits.v;
    g.n_input = b->inputs.n;
    g.input = (Onnx__ValueInfoProto **)b->inputs.v;
    g.n_output = b->outputs.n;
    g.output = (Onnx__ValueInfoProto **)b->outputs.v;

    Onnx__OperatorSetIdProto op;
    onnx__operator_set_id_proto__init(&op);
    op.domain = "";
    op.has_version = 1;
    op.version = b->opset;
    Onnx__OperatorSetIdProto *ops[1] = {&op};

    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = b->opset >= 19 ? 9 : 8; /* the IR version that goes with the opset */
    m.producer_name = (char *)producer;
    m.producer_version = "1";
    m.doc_string = (char *)doc;
    m.n_opset_import = 1;
    m.opset_import = ops;
    m.graph = &g;
    *size = onnx__model_proto__get_packed_size(&m);
    uint8_t *out = bz_malloc(*size);
    onnx__model_proto__pack(&m, out);
    return out;
}
