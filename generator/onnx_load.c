/* ONNX loader: unpacks a ModelProto with protobuf-c, lowers it into the arena IR, frees the message. */
#include "onnx_load.h"

#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

static const char *const onnx_load_messages[] = {
    [ONNX_LOAD_OK] = "ok",
    [ONNX_LOAD_EREAD] = "cannot read the model",
    [ONNX_LOAD_EEMPTY] = "empty file",
    [ONNX_LOAD_EPARSE] = "not an ONNX model",
    [ONNX_LOAD_ENOTONNX] = "not an ONNX model",
    [ONNX_LOAD_EINVALID] = "inconsistent model",
};
_Static_assert(BZ_ARRAY_LEN(onnx_load_messages) == ONNX_LOAD_STATUS_COUNT, "message per status");

const char *onnx_load_strerror(enum onnx_load_status s)
{
    return (unsigned)s < ONNX_LOAD_STATUS_COUNT ? onnx_load_messages[s] : "unknown error";
}

/* The deepest nesting of subgraphs we follow; real models use a handful. */
enum { ONNX_LOAD_MAX_DEPTH = 64 };

struct lower_ctx {
    struct ir_model *m;
    struct bz_buf *err;
    /* "node[3] (If 'x').then_branch: " prefixes for errors inside subgraphs */
    struct bz_buf scope;
    int depth;
    bool failed;
};

static void lower_fail(struct lower_ctx *c, const char *fmt, ...) BZ_PRINTF(2, 3);
static void lower_fail(struct lower_ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return; /* the first error is the one reported */
    c->failed = true;
    bz_buf_clear(c->err);
    if (c->scope.len)
        bz_buf_append(c->err, c->scope.data, c->scope.len);
    va_list ap;
    va_start(ap, fmt);
    bz_buf_vprintf(c->err, fmt, ap);
    va_end(ap);
}

static const char *quoted(struct bz_buf *tmp, const char *s)
{
    bz_buf_clear(tmp);
    bz_buf_quote(tmp, s, strlen(s));
    return tmp->data ? tmp->data : "";
}

static const char *lower_str(struct lower_ctx *c, const char *s)
{
    return bz_arena_strdup(&c->m->arena, s ? s : "");
}

/* ---- types ---- */

static void lower_shape(struct lower_ctx *c, struct ir_type *t, const Onnx__TensorShapeProto *sp)
{
    if (!sp) {
        t->rank = -1;
        return;
    }
    t->rank = (int)sp->n_dim;
    t->dims = bz_arena_array(&c->m->arena, sp->n_dim, sizeof(*t->dims));
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sp->dim[i];
        t->dims[i].value = -1;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
            t->dims[i].value = d->dim_value;
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                 d->dim_param && *d->dim_param)
            t->dims[i].param = lower_str(c, d->dim_param);
    }
}

static void lower_type(struct lower_ctx *c, struct ir_type *t, const Onnx__TypeProto *tp)
{
    memset(t, 0, sizeof(*t));
    t->rank = -1;
    if (!tp)
        return;
    switch (tp->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        t->kind = IR_TYPE_TENSOR;
        t->dtype = tp->tensor_type->elem_type;
        lower_shape(c, t, tp->tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        t->kind = IR_TYPE_SPARSE_TENSOR;
        t->dtype = tp->sparse_tensor_type->elem_type;
        lower_shape(c, t, tp->sparse_tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: {
        struct ir_type inner;
        lower_type(c, &inner, tp->sequence_type->elem_type);
        t->kind = IR_TYPE_SEQUENCE;
        t->dtype = inner.dtype;
        break;
    }
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        t->kind = IR_TYPE_MAP;
        t->dtype = tp->map_type->key_type;
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
        struct ir_type inner;
        lower_type(c, &inner, tp->optional_type->elem_type);
        t->kind = IR_TYPE_OPTIONAL;
        t->dtype = inner.dtype;
        t->rank = inner.rank;
        t->dims = inner.dims;
        break;
    }
    default:
        break;
    }
}

/* ---- tensors ---- */

/* Number of entries a typed field must hold for a tensor of nelem elements. */
static int64_t typed_field_count(int dtype, int64_t nelem, size_t *n_have, const Onnx__TensorProto *tp)
{
    switch (dtype) {
    case IR_DTYPE_FLOAT:
        *n_have = tp->n_float_data;
        return nelem;
    case IR_DTYPE_COMPLEX64:
        *n_have = tp->n_float_data;
        return 2 * nelem;
    case IR_DTYPE_INT64:
        *n_have = tp->n_int64_data;
        return nelem;
    case IR_DTYPE_DOUBLE:
        *n_have = tp->n_double_data;
        return nelem;
    case IR_DTYPE_COMPLEX128:
        *n_have = tp->n_double_data;
        return 2 * nelem;
    case IR_DTYPE_UINT32:
    case IR_DTYPE_UINT64:
        *n_have = tp->n_uint64_data;
        return nelem;
    case IR_DTYPE_STRING:
        *n_have = tp->n_string_data;
        return nelem;
    case IR_DTYPE_UINT4:
    case IR_DTYPE_INT4:
    case IR_DTYPE_FLOAT4E2M1:
        *n_have = tp->n_int32_data;
        return (nelem + 1) / 2; /* two 4-bit elements per int32 entry */
    case IR_DTYPE_UINT2:
    case IR_DTYPE_INT2:
        *n_have = tp->n_int32_data;
        return (nelem + 3) / 4;
    default: /* every other type is carried in int32_data, one element per entry */
        *n_have = tp->n_int32_data;
        return nelem;
    }
}

/* Packs the typed field of a small tensor into its dtype's native layout. */
static void keep_typed_data(struct lower_ctx *c, struct ir_tensor *t, const Onnx__TensorProto *tp)
{
    int bits = ir_dtype_bits(t->dtype);
    if (bits < 8 || t->dtype == IR_DTYPE_STRING)
        return;
    size_t esize = (size_t)bits / 8;
    size_t n = (size_t)t->nelem;
    if (n == 0) {
        t->data_kept = true; /* an empty tensor: nothing to keep, all of it known */
        return;
    }
    unsigned char *out = bz_arena_array(&c->m->arena, n ? n : 1, esize);
    /* the types whose field holds the elements as they are */
    const void *same = NULL;
    if (t->dtype == IR_DTYPE_FLOAT || t->dtype == IR_DTYPE_COMPLEX64)
        same = tp->float_data;
    else if (t->dtype == IR_DTYPE_DOUBLE || t->dtype == IR_DTYPE_COMPLEX128)
        same = tp->double_data;
    else if (t->dtype == IR_DTYPE_INT64)
        same = tp->int64_data;
    else if (t->dtype == IR_DTYPE_UINT64)
        same = tp->uint64_data;
    if (same) {
        memcpy(out, same, n * esize);
    } else if (t->dtype == IR_DTYPE_UINT32) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)tp->uint64_data[i];
            memcpy(out + i * 4, &v, 4);
        }
    } else { /* int32_data: narrow each entry to the element size */
        for (size_t i = 0; i < n; i++) {
            int32_t v = tp->int32_data[i];
            if (esize == 4) {
                memcpy(out + i * 4, &v, 4);
            } else if (esize == 2) {
                uint16_t h = (uint16_t)v;
                memcpy(out + i * 2, &h, 2);
            } else {
                out[i] = (unsigned char)v;
            }
        }
    }
    t->data = out;
    t->data_bytes = n * esize;
    t->data_kept = true;
}

static struct ir_tensor *lower_tensor(struct lower_ctx *c, const Onnx__TensorProto *tp,
                                      const char *what)
{
    struct bz_buf q;
    bz_buf_init(&q);
    struct ir_tensor *t = bz_arena_alloc(&c->m->arena, sizeof(*t));
    t->name = lower_str(c, tp->name);
    t->dtype = tp->data_type;
    t->rank = (int)tp->n_dims;
    t->dims = bz_arena_memdup(&c->m->arena, tp->dims, tp->n_dims * sizeof(int64_t));
    t->ext_offset = -1;
    t->ext_length = -1;
    int64_t nelem = 1;
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0) {
            lower_fail(c, "%s '%s' has a negative dimension (%lld)", what, quoted(&q, t->name),
                       (long long)tp->dims[i]);
            goto out;
        }
        if (tp->dims[i] && nelem > INT64_MAX / tp->dims[i]) {
            lower_fail(c, "%s '%s' has more elements than can be counted", what,
                       quoted(&q, t->name));
            goto out;
        }
        nelem *= tp->dims[i];
    }
    t->nelem = nelem;
    if (!ir_dtype_name(t->dtype) || t->dtype == IR_DTYPE_UNDEFINED) {
        lower_fail(c, "%s '%s' has an unknown element type (%d)", what, quoted(&q, t->name),
                   t->dtype);
        goto out;
    }

    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        t->location = IR_DATA_EXTERNAL;
        for (size_t i = 0; i < tp->n_external_data; i++) {
            const char *k = tp->external_data[i]->key ? tp->external_data[i]->key : "";
            const char *v = tp->external_data[i]->value ? tp->external_data[i]->value : "";
            if (strcmp(k, "location") == 0)
                t->ext_location = lower_str(c, v);
            else if (strcmp(k, "offset") == 0)
                t->ext_offset = strtoll(v, NULL, 10);
            else if (strcmp(k, "length") == 0)
                t->ext_length = strtoll(v, NULL, 10);
            else if (strcmp(k, "checksum") == 0)
                t->ext_checksum = lower_str(c, v);
        }
        if (!t->ext_location) {
            lower_fail(c, "%s '%s' is stored externally but names no location", what,
                       quoted(&q, t->name));
        }
        goto out;
    }

    t->location = IR_DATA_INLINE;
    int bits = ir_dtype_bits(t->dtype);
    if (tp->has_raw_data && t->dtype != IR_DTYPE_STRING) {
        uint64_t need = ((uint64_t)nelem * (uint64_t)bits + 7) / 8;
        if ((uint64_t)tp->raw_data.len != need) {
            lower_fail(c, "%s '%s' holds %zu bytes of data, its type and shape need %llu", what,
                       quoted(&q, t->name), tp->raw_data.len, (unsigned long long)need);
            goto out;
        }
        if (nelem <= IR_TENSOR_KEEP_MAX && bits >= 8) {
            t->data = bz_arena_memdup(&c->m->arena, tp->raw_data.data, tp->raw_data.len);
            t->data_bytes = tp->raw_data.len;
            t->data_kept = true;
        }
        goto out;
    }
    size_t have = 0;
    int64_t want = typed_field_count(t->dtype, nelem, &have, tp);
    if ((int64_t)have != want) {
        /* An empty payload for a non-empty tensor is what "dims only" exporters
         * write; the generator needs dims only, so that is accepted. A payload
         * of the wrong size means a broken file. */
        if (have != 0) {
            lower_fail(c, "%s '%s' holds %zu values, its shape needs %lld", what,
                       quoted(&q, t->name), have, (long long)want);
        } else {
            t->location = IR_DATA_NONE;
        }
        goto out;
    }
    if (nelem <= IR_TENSOR_KEEP_MAX)
        keep_typed_data(c, t, tp);
out:
    bz_buf_free(&q);
    return t;
}

static struct ir_sparse_tensor *lower_sparse(struct lower_ctx *c, const Onnx__SparseTensorProto *sp)
{
    struct ir_sparse_tensor *s = bz_arena_alloc(&c->m->arena, sizeof(*s));
    s->rank = (int)sp->n_dims;
    s->dims = bz_arena_memdup(&c->m->arena, sp->dims, sp->n_dims * sizeof(int64_t));
    if (sp->values)
        s->values = lower_tensor(c, sp->values, "sparse tensor values");
    if (sp->indices)
        s->indices = lower_tensor(c, sp->indices, "sparse tensor indices");
    return s;
}

/* ---- graphs ---- */

static struct ir_graph *lower_graph(struct lower_ctx *c, const Onnx__GraphProto *gp,
                                    struct ir_graph *parent, struct ir_node *owner);

/* Attribute type when the file does not say (very old exporters): from the field set. */
static int infer_attr_type(const Onnx__AttributeProto *ap)
{
    if (ap->has_type && ap->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return ap->type;
    if (ap->has_f)
        return IR_ATTR_FLOAT;
    if (ap->has_i)
        return IR_ATTR_INT;
    if (ap->has_s)
        return IR_ATTR_STRING;
    if (ap->t)
        return IR_ATTR_TENSOR;
    if (ap->g)
        return IR_ATTR_GRAPH;
    if (ap->sparse_tensor)
        return IR_ATTR_SPARSE_TENSOR;
    if (ap->tp)
        return IR_ATTR_TYPE_PROTO;
    if (ap->n_floats)
        return IR_ATTR_FLOATS;
    if (ap->n_ints)
        return IR_ATTR_INTS;
    if (ap->n_strings)
        return IR_ATTR_STRINGS;
    if (ap->n_tensors)
        return IR_ATTR_TENSORS;
    if (ap->n_graphs)
        return IR_ATTR_GRAPHS;
    if (ap->n_sparse_tensors)
        return IR_ATTR_SPARSE_TENSORS;
    if (ap->n_type_protos)
        return IR_ATTR_TYPE_PROTOS;
    return IR_ATTR_UNDEFINED;
}

static struct ir_graph *lower_subgraph(struct lower_ctx *c, struct ir_node *n, const char *attr,
                                       int idx, const Onnx__GraphProto *gp, struct ir_graph *g)
{
    if (c->depth >= ONNX_LOAD_MAX_DEPTH) {
        lower_fail(c, "subgraphs nested deeper than %d levels", ONNX_LOAD_MAX_DEPTH);
        return NULL;
    }
    size_t mark = c->scope.len;
    ir_node_where(&c->scope, n);
    bz_buf_putc(&c->scope, '.');
    bz_buf_quote(&c->scope, attr, strlen(attr));
    if (idx >= 0)
        bz_buf_printf(&c->scope, "[%d]", idx);
    bz_buf_puts(&c->scope, ": ");
    c->depth++;
    struct ir_graph *sub = lower_graph(c, gp, g, n);
    c->depth--;
    c->scope.len = mark;
    if (c->scope.data)
        c->scope.data[mark] = '\0';
    return sub;
}

static void lower_attr(struct lower_ctx *c, struct ir_attr *a, const Onnx__AttributeProto *ap,
                       struct ir_node *n, struct ir_graph *g)
{
    struct bz_arena *ar = &c->m->arena;
    a->name = lower_str(c, ap->name);
    a->ref_attr_name = ap->ref_attr_name ? lower_str(c, ap->ref_attr_name) : NULL;
    a->type = infer_attr_type(ap);
    switch (a->type) {
    case IR_ATTR_FLOAT:
        a->u.f = ap->f;
        break;
    case IR_ATTR_INT:
        a->u.i = ap->i;
        break;
    case IR_ATTR_STRING:
        a->u.s.data = bz_arena_strndup(ar, (const char *)ap->s.data, ap->s.len);
        a->u.s.len = ap->s.len;
        break;
    case IR_ATTR_TENSOR:
        if (ap->t)
            a->u.t = lower_tensor(c, ap->t, "tensor attribute");
        break;
    case IR_ATTR_GRAPH:
        if (ap->g)
            a->u.g = lower_subgraph(c, n, a->name, -1, ap->g, g);
        break;
    case IR_ATTR_SPARSE_TENSOR:
        if (ap->sparse_tensor)
            a->u.sparse = lower_sparse(c, ap->sparse_tensor);
        break;
    case IR_ATTR_TYPE_PROTO:
        if (ap->tp) {
            a->u.tp = bz_arena_alloc(ar, sizeof(*a->u.tp));
            lower_type(c, a->u.tp, ap->tp);
        }
        break;
    case IR_ATTR_FLOATS:
        a->count = ap->n_floats;
        a->u.floats = bz_arena_memdup(ar, ap->floats, ap->n_floats * sizeof(float));
        break;
    case IR_ATTR_INTS:
        a->count = ap->n_ints;
        a->u.ints = bz_arena_memdup(ar, ap->ints, ap->n_ints * sizeof(int64_t));
        break;
    case IR_ATTR_STRINGS:
        a->count = ap->n_strings;
        a->u.strings = bz_arena_array(ar, ap->n_strings, sizeof(struct ir_string));
        for (size_t i = 0; i < ap->n_strings; i++) {
            a->u.strings[i].data =
                bz_arena_strndup(ar, (const char *)ap->strings[i].data, ap->strings[i].len);
            a->u.strings[i].len = ap->strings[i].len;
        }
        break;
    case IR_ATTR_TENSORS:
        a->count = ap->n_tensors;
        a->u.tensors = bz_arena_array(ar, ap->n_tensors, sizeof(struct ir_tensor *));
        for (size_t i = 0; i < ap->n_tensors; i++)
            a->u.tensors[i] = lower_tensor(c, ap->tensors[i], "tensor attribute");
        break;
    case IR_ATTR_GRAPHS:
        a->count = ap->n_graphs;
        a->u.graphs = bz_arena_array(ar, ap->n_graphs, sizeof(struct ir_graph *));
        for (size_t i = 0; i < ap->n_graphs && !c->failed; i++)
            a->u.graphs[i] = lower_subgraph(c, n, a->name, (int)i, ap->graphs[i], g);
        break;
    case IR_ATTR_SPARSE_TENSORS:
        a->count = ap->n_sparse_tensors;
        a->u.sparses = bz_arena_array(ar, ap->n_sparse_tensors, sizeof(struct ir_sparse_tensor *));
        for (size_t i = 0; i < ap->n_sparse_tensors; i++)
            a->u.sparses[i] = lower_sparse(c, ap->sparse_tensors[i]);
        break;
    case IR_ATTR_TYPE_PROTOS:
        a->count = ap->n_type_protos;
        a->u.tps = bz_arena_array(ar, ap->n_type_protos, sizeof(struct ir_type *));
        for (size_t i = 0; i < ap->n_type_protos; i++) {
            a->u.tps[i] = bz_arena_alloc(ar, sizeof(struct ir_type));
            lower_type(c, a->u.tps[i], ap->type_protos[i]);
        }
        break;
    default:
        break;
    }
}

/* A Constant node's value, whichever attribute holds it, as a tensor. */
static struct ir_tensor *constant_value(struct lower_ctx *c, const struct ir_node *n)
{
    struct bz_arena *ar = &c->m->arena;
    for (int i = 0; i < n->n_attrs; i++) {
        const struct ir_attr *a = &n->attrs[i];
        if (a->type == IR_ATTR_TENSOR && strcmp(a->name, "value") == 0)
            return a->u.t;
        if (a->type == IR_ATTR_SPARSE_TENSOR && strcmp(a->name, "sparse_value") == 0 && a->u.sparse) {
            struct ir_tensor *t = bz_arena_alloc(ar, sizeof(*t));
            t->dtype = a->u.sparse->values ? a->u.sparse->values->dtype : IR_DTYPE_UNDEFINED;
            t->rank = a->u.sparse->rank;
            t->dims = a->u.sparse->dims;
            t->nelem = 1;
            for (int k = 0; k < t->rank; k++)
                t->nelem *= t->dims[k];
            t->ext_offset = t->ext_length = -1;
            return t;
        }
        /* value_float, value_ints, ...: a scalar, or a list as a 1-D tensor */
        static const struct { const char *name; enum ir_attr_type type; int dtype; bool list; } values[] = {
            {"value_float", IR_ATTR_FLOAT, IR_DTYPE_FLOAT, false},
            {"value_int", IR_ATTR_INT, IR_DTYPE_INT64, false},
            {"value_string", IR_ATTR_STRING, IR_DTYPE_STRING, false},
            {"value_floats", IR_ATTR_FLOATS, IR_DTYPE_FLOAT, true},
            {"value_ints", IR_ATTR_INTS, IR_DTYPE_INT64, true},
            {"value_strings", IR_ATTR_STRINGS, IR_DTYPE_STRING, true},
        };
        size_t v = 0;
        while (v < BZ_ARRAY_LEN(values) && (a->type != values[v].type || strcmp(a->name, values[v].name)))
            v++;
        if (v == BZ_ARRAY_LEN(values))
            continue;
        struct ir_tensor *t = bz_arena_alloc(ar, sizeof(*t));
        t->dtype = values[v].dtype;
        t->nelem = values[v].list ? (int64_t)a->count : 1;
        if (a->type == IR_ATTR_FLOAT)
            t->data = bz_arena_memdup(ar, &a->u.f, sizeof(float));
        else if (a->type == IR_ATTR_INT)
            t->data = bz_arena_memdup(ar, &a->u.i, sizeof(int64_t));
        else if (a->type == IR_ATTR_FLOATS)
            t->data = a->u.floats;
        else if (a->type == IR_ATTR_INTS)
            t->data = a->u.ints;
        if (t->data)
            t->data_bytes = (size_t)t->nelem * (t->dtype == IR_DTYPE_FLOAT ? sizeof(float) : sizeof(int64_t));
        t->rank = values[v].list ? 1 : 0;
        if (values[v].list) {
            t->dims = bz_arena_alloc(ar, sizeof(int64_t));
            t->dims[0] = t->nelem;
        }
        t->location = IR_DATA_INLINE;
        t->data_kept = t->data != NULL;
        t->ext_offset = t->ext_length = -1;
        return t;
    }
    return NULL;
}

static void type_from_tensor(struct lower_ctx *c, struct ir_type *ty, const struct ir_tensor *t)
{
    ty->kind = IR_TYPE_TENSOR;
    ty->dtype = t->dtype;
    ty->rank = t->rank;
    ty->dims = bz_arena_array(&c->m->arena, (size_t)t->rank, sizeof(struct ir_dim));
    for (int i = 0; i < t->rank; i++)
        ty->dims[i].value = t->dims[i];
}

/* Records that the subgraph chain up to the scope of v depends on v. */
static void note_capture(struct lower_ctx *c, struct ir_graph *g, struct ir_value *v)
{
    for (; g && g != v->graph; g = g->parent) {
        struct ir_node *owner = (struct ir_node *)g->owner;
        if (!owner)
            break;
        bool seen = false;
        for (int i = 0; i < owner->n_captures && !seen; i++)
            seen = owner->captures[i] == v;
        if (seen)
            continue;
        if ((owner->n_captures & (owner->n_captures - 1)) == 0) {
            size_t cap = owner->n_captures ? (size_t)owner->n_captures * 2 : 4;
            struct ir_value **nc = bz_arena_array(&c->m->arena, cap, sizeof(*nc));
            if (owner->n_captures)
                memcpy(nc, owner->captures, (size_t)owner->n_captures * sizeof(*nc));
            owner->captures = nc;
        }
        owner->captures[owner->n_captures++] = v;
    }
}

static struct ir_value *resolve(struct lower_ctx *c, struct ir_graph *g, const char *name)
{
    struct ir_value *v = ir_graph_find(g, name);
    if (v && v->graph != g)
        note_capture(c, g, v);
    return v;
}

static int node_dep(const struct ir_graph *g, const struct ir_value *v)
{
    return v && v->graph == g ? v->producer : -1;
}

/* After Kahn's algorithm stalls, the nodes left with indeg > 0 include at least one cycle
 * (and whatever depends on it). Walking back through unfinished producers must revisit a
 * node: that loop is the cycle named in the message. */
static void report_cycle(struct lower_ctx *c, const struct ir_graph *g, const int *indeg)
{
    int n = g->n_nodes;
    int *step = bz_malloc((size_t)n * sizeof(int));
    int *path = bz_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        step[i] = -1;
    int x = 0;
    while (indeg[x] == 0)
        x++;
    int len = 0;
    while (step[x] < 0) {
        step[x] = len;
        path[len++] = x;
        const struct ir_node *nd = &g->nodes[x];
        int next = -1;
        for (int k = 0; k < nd->n_inputs + nd->n_captures && next < 0; k++) {
            const struct ir_value *v = k < nd->n_inputs ? nd->inputs[k] : nd->captures[k - nd->n_inputs];
            int p = node_dep(g, v);
            if (p >= 0 && indeg[p] > 0)
                next = p;
        }
        BZ_ASSERT(next >= 0);
        x = next;
    }
    /* path[step[x] .. len) is the loop, walked from consumers to producers */
    int first = step[x], cycle_len = len - first;
    struct bz_buf w;
    bz_buf_init(&w);
    for (int k = len - 1; k >= first && k >= len - 4; k--) {
        ir_node_where(&w, &g->nodes[path[k]]);
        bz_buf_puts(&w, " -> ");
    }
    if (cycle_len > 4)
        bz_buf_puts(&w, "... -> ");
    ir_node_where(&w, &g->nodes[path[len - 1]]);
    lower_fail(c, "the graph has a cycle through %d node%s: %s", cycle_len, cycle_len == 1 ? "" : "s",
               w.data);
    bz_buf_free(&w);
    free(path);
    free(step);
}

static void topo_sort(struct lower_ctx *c, struct ir_graph *g)
{
    int *indeg = NULL;
    if (ir_graph_sort(c->m, g, &indeg) < g->n_nodes)
        report_cycle(c, g, indeg);
    free(indeg);
}

static void describe_producer(struct bz_buf *b, const struct ir_value *v)
{
    if (v->producer >= 0)
        ir_node_where(b, &v->graph->nodes[v->producer]);
    else if (v->init && !v->is_input)
        bz_buf_puts(b, "an initializer");
    else
        bz_buf_puts(b, "a graph input");
}

/* the value an initializer NAME (WHAT: "initializer", ...) defines: a new one, or the graph input
 * of that name (before IR version 4 initializers are inputs too); NULL after the error when
 * it is defined twice */
static struct ir_value *initializer_value(struct lower_ctx *c, struct ir_graph *g, const char *name,
                                          const char *what)
{
    struct ir_value *v = ir_graph_find_local(g, name);
    if (v && (v->init || !v->is_input)) {
        struct bz_buf q;
        bz_buf_init(&q);
        lower_fail(c, "%s '%s' is defined twice", what, quoted(&q, name));
        bz_buf_free(&q);
        return NULL;
    }
    return v ? v : ir_graph_add_value(c->m, g, name);
}

static struct ir_graph *lower_graph(struct lower_ctx *c, const Onnx__GraphProto *gp,
                                    struct ir_graph *parent, struct ir_node *owner)
{
    struct bz_arena *ar = &c->m->arena;
    struct bz_buf q, w;
    bz_buf_init(&q);
    bz_buf_init(&w);
    struct ir_graph *g = bz_arena_alloc(ar, sizeof(*g));
    g->name = lower_str(c, gp->name);
    g->doc = lower_str(c, gp->doc_string);
    g->parent = parent;
    g->owner = owner;

    /* graph inputs */
    g->n_inputs = (int)gp->n_input;
    g->inputs = bz_arena_array(ar, gp->n_input, sizeof(struct ir_value *));
    for (size_t i = 0; i < gp->n_input; i++) {
        const char *name = gp->input[i]->name ? gp->input[i]->name : "";
        struct ir_value *v = ir_graph_add_value(c->m, g, name);
        if (!v) {
            lower_fail(c, "graph input '%s' is declared twice", quoted(&q, name));
            goto out;
        }
        v->is_input = true;
        v->has_value_info = gp->input[i]->type != NULL;
        lower_type(c, &v->type, gp->input[i]->type);
        g->inputs[i] = v;
    }

    /* initializers: before IR version 4 they are also listed as inputs */
    g->n_initializers = (int)gp->n_initializer;
    g->initializers = bz_arena_array(ar, gp->n_initializer, sizeof(struct ir_value *));
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        struct ir_value *v = initializer_value(c, g, tp->name ? tp->name : "", "initializer");
        if (!v)
            goto out;
        v->init = lower_tensor(c, tp, "initializer");
        if (c->failed)
            goto out;
        if (v->type.kind == IR_TYPE_NONE || v->type.rank < 0)
            type_from_tensor(c, &v->type, v->init);
        g->initializers[i] = v;
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        const char *name = sp->values && sp->values->name ? sp->values->name : "";
        struct ir_value *v = initializer_value(c, g, name, "sparse initializer");
        if (!v)
            goto out;
        struct ir_sparse_tensor *s = lower_sparse(c, sp);
        if (c->failed)
            goto out;
        v->type.kind = IR_TYPE_SPARSE_TENSOR;
        v->type.dtype = s->values ? s->values->dtype : IR_DTYPE_UNDEFINED;
        v->type.rank = s->rank;
        v->type.dims = bz_arena_array(ar, (size_t)s->rank, sizeof(struct ir_dim));
        for (int k = 0; k < s->rank; k++)
            v->type.dims[k].value = s->dims[k];
        g->n_sparse_initializers++;
    }

    /* pass 1: every node output is defined exactly once in this scope */
    g->n_nodes = (int)gp->n_node;
    g->nodes = bz_arena_array(ar, gp->n_node, sizeof(struct ir_node));
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        struct ir_node *n = &g->nodes[i];
        n->index = (int)i;
        n->name = lower_str(c, np->name);
        n->op_type = lower_str(c, np->op_type);
        n->domain = lower_str(c, np->domain);
        n->doc = lower_str(c, np->doc_string);
        if (!*n->op_type) {
            bz_buf_clear(&w);
            ir_node_where(&w, n);
            lower_fail(c, "%s has no operator type", w.data);
            goto out;
        }
        n->n_outputs = (int)np->n_output;
        n->outputs = bz_arena_array(ar, np->n_output, sizeof(struct ir_value *));
        for (size_t k = 0; k < np->n_output; k++) {
            const char *name = np->output[k] ? np->output[k] : "";
            if (!*name)
                continue; /* an omitted optional output */
            struct ir_value *v = ir_graph_add_value(c->m, g, name);
            if (!v) {
                struct ir_value *old = ir_graph_find_local(g, name);
                bz_buf_clear(&w);
                ir_node_where(&w, n);
                bz_buf_puts(&w, ": output '");
                bz_buf_quote(&w, name, strlen(name));
                bz_buf_puts(&w, "' is already produced by ");
                describe_producer(&w, old);
                lower_fail(c, "%s", w.data);
                goto out;
            }
            v->producer = (int)i;
            n->outputs[k] = v;
        }
    }

    /* pass 2: inputs resolve against this scope and the enclosing ones; attributes
     * (and with them subgraphs, which may read any value defined above) */
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        struct ir_node *n = &g->nodes[i];
        n->n_inputs = (int)np->n_input;
        n->inputs = bz_arena_array(ar, np->n_input, sizeof(struct ir_value *));
        for (size_t k = 0; k < np->n_input; k++) {
            const char *name = np->input[k] ? np->input[k] : "";
            if (!*name)
                continue; /* an omitted optional input */
            struct ir_value *v = resolve(c, g, name);
            if (!v) {
                bz_buf_clear(&w);
                ir_node_where(&w, n);
                lower_fail(c, "%s: input '%s' is not produced by any node, graph input or initializer",
                           w.data, quoted(&q, name));
                goto out;
            }
            n->inputs[k] = v;
        }
        n->n_attrs = (int)np->n_attribute;
        n->attrs = bz_arena_array(ar, np->n_attribute, sizeof(struct ir_attr));
        for (size_t k = 0; k < np->n_attribute && !c->failed; k++)
            lower_attr(c, &n->attrs[k], np->attribute[k], n, g);
        if (c->failed)
            goto out;
        if (strcmp(n->op_type, "Constant") == 0 && ir_domain_is_onnx(n->domain) &&
            n->n_outputs == 1 && n->outputs[0]) {
            struct ir_tensor *t = constant_value(c, n);
            if (t) {
                n->outputs[0]->init = t;
                type_from_tensor(c, &n->outputs[0]->type, t);
            }
        }
    }

    /* graph outputs */
    g->n_outputs = (int)gp->n_output;
    g->outputs = bz_arena_array(ar, gp->n_output, sizeof(struct ir_value *));
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name ? gp->output[i]->name : "";
        struct ir_value *v = resolve(c, g, name);
        if (!v) {
            lower_fail(c, "graph output '%s' is not produced by any node, graph input or initializer",
                       quoted(&q, name));
            goto out;
        }
        v->is_output = true;
        if (gp->output[i]->type && v->graph == g) {
            struct ir_type t;
            lower_type(c, &t, gp->output[i]->type);
            if (v->type.kind == IR_TYPE_NONE || (v->type.rank < 0 && t.rank >= 0))
                v->type = t;
            v->has_value_info = true;
        }
        g->outputs[i] = v;
    }

    /* value_info: types the exporter recorded for intermediate values */
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const Onnx__ValueInfoProto *vi = gp->value_info[i];
        struct ir_value *v = vi->name ? ir_graph_find_local(g, vi->name) : NULL;
        if (!v || !vi->type || v->init)
            continue;
        struct ir_type t;
        lower_type(c, &t, vi->type);
        if (v->type.kind == IR_TYPE_NONE || (v->type.rank < 0 && t.rank >= 0)) {
            v->type = t;
            v->has_value_info = true;
        }
    }

    for (int i = 0; i < g->n_values; i++)
        g->values[i]->decl = g->values[i]->type;
    topo_sort(c, g);
out:
    bz_buf_free(&q);
    bz_buf_free(&w);
    return g;
}

static void lower_model(struct lower_ctx *c, const Onnx__ModelProto *mp)
{
    struct ir_model *m = c->m;
    struct bz_arena *ar = &m->arena;
    m->ir_version = mp->ir_version;
    m->producer_name = lower_str(c, mp->producer_name);
    m->producer_version = lower_str(c, mp->producer_version);
    m->domain = lower_str(c, mp->domain);
    m->model_version = mp->has_model_version ? mp->model_version : 0;
    m->doc = lower_str(c, mp->doc_string);

    m->n_opsets = (int)mp->n_opset_import;
    m->opsets = bz_arena_array(ar, mp->n_opset_import, sizeof(struct ir_opset));
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        m->opsets[i].domain = lower_str(c, mp->opset_import[i]->domain);
        m->opsets[i].version = mp->opset_import[i]->version;
    }
    m->n_props = (int)mp->n_metadata_props;
    m->props = bz_arena_array(ar, mp->n_metadata_props, sizeof(struct ir_prop));
    for (size_t i = 0; i < mp->n_metadata_props; i++) {
        m->props[i].key = lower_str(c, mp->metadata_props[i]->key);
        m->props[i].value = lower_str(c, mp->metadata_props[i]->value);
    }
    m->n_functions = (int)mp->n_functions;
    m->functions = bz_arena_array(ar, mp->n_functions, sizeof(struct ir_function));
    for (size_t i = 0; i < mp->n_functions; i++) {
        const Onnx__FunctionProto *fp = mp->functions[i];
        m->functions[i].name = lower_str(c, fp->name);
        m->functions[i].domain = lower_str(c, fp->domain);
        m->functions[i].n_nodes = (int)fp->n_node;
        m->functions[i].n_inputs = (int)fp->n_input;
        m->functions[i].n_outputs = (int)fp->n_output;
    }
    m->graph = lower_graph(c, mp->graph, NULL, NULL);
}

/* Highest IR version we accept; ONNX is at 12 in 2026, this leaves room and
 * still rejects random bytes that happen to decode as a varint field 1. */
enum { ONNX_MAX_IR_VERSION = 100 };

enum onnx_load_status onnx_load_buffer(const void *data, size_t size, const char *path,
                                       struct ir_model **out, struct bz_buf *err)
{
    *out = NULL;
    bz_buf_clear(err);
    if (size == 0) {
        bz_buf_puts(err, "empty file, not an ONNX model");
        return ONNX_LOAD_EEMPTY;
    }
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, data);
    if (!mp) {
        bz_buf_printf(err, "not an ONNX model: the %zu bytes do not decode as an ONNX ModelProto "
                           "(truncated, corrupt or another format)",
                      size);
        return ONNX_LOAD_EPARSE;
    }
    if (!mp->has_ir_version || mp->ir_version < 1 || mp->ir_version > ONNX_MAX_IR_VERSION) {
        if (mp->has_ir_version)
            bz_buf_printf(err, "not an ONNX model: IR version %lld is not one ONNX has",
                          (long long)mp->ir_version);
        else
            bz_buf_puts(err, "not an ONNX model: it has no IR version");
        onnx__model_proto__free_unpacked(mp, NULL);
        return ONNX_LOAD_ENOTONNX;
    }
    if (!mp->graph) {
        bz_buf_puts(err, "not an ONNX model: it has no graph");
        onnx__model_proto__free_unpacked(mp, NULL);
        return ONNX_LOAD_ENOTONNX;
    }

    struct bz_arena arena;
    bz_arena_init(&arena);
    struct ir_model *m = bz_arena_alloc(&arena, sizeof(*m));
    m->arena = arena;
    m->path = bz_arena_strdup(&m->arena, path ? path : "");
    m->file_bytes = size;
    struct lower_ctx c = {.m = m, .err = err};
    bz_buf_init(&c.scope);
    lower_model(&c, mp);
    bz_buf_free(&c.scope);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (c.failed) {
        ir_model_free(m);
        return ONNX_LOAD_EINVALID;
    }
    *out = m;
    return ONNX_LOAD_OK;
}

enum onnx_load_status onnx_load_file(const char *path, const struct onnx_load_opts *opts,
                                     struct ir_model **out, struct bz_buf *err)
{
    *out = NULL;
    bz_buf_clear(err);
    size_t max = opts && opts->max_bytes ? opts->max_bytes : ONNX_LOAD_MAX_BYTES_DEFAULT;
    char *data;
    size_t size;
    enum bz_read_status rs = bz_read_file(path, max, &data, &size);
    if (rs != BZ_READ_OK) {
        if (rs == BZ_READ_TOOBIG)
            bz_buf_printf(err, "file is larger than the %zu-byte limit for one ONNX model", max);
        else
            bz_buf_printf(err, "cannot read the model: %s", bz_read_strerror(rs));
        return ONNX_LOAD_EREAD;
    }
    enum onnx_load_status s = onnx_load_buffer(data, size, path, out, err);
    free(data);
    return s;
}
