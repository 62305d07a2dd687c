/* Shape inference driver and the helpers operator files use (ops/ops.h). */
#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

/* ---- helpers for operator files ---- */

void op_fail(struct infer_ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    struct bz_buf b;
    bz_buf_init(&b);
    ir_node_where(&b, c->n);
    bz_buf_puts(&b, ": ");
    va_list ap;
    va_start(ap, fmt);
    bz_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    bz_diag_warning(c->diag, c->m->path, "%s", b.data);
    bz_buf_free(&b);
}

int op_nin(const struct infer_ctx *c)
{
    return c->n->n_inputs;
}

const struct ir_value *op_in_value(const struct infer_ctx *c, int i)
{
    return i < c->n->n_inputs ? c->n->inputs[i] : NULL;
}

const struct ir_type *op_in(const struct infer_ctx *c, int i)
{
    const struct ir_value *v = op_in_value(c, i);
    if (!v || v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
        return NULL;
    return &v->type;
}

int op_in_dtype(const struct infer_ctx *c, int i)
{
    const struct ir_value *v = op_in_value(c, i);
    return v ? v->type.dtype : 0;
}

const struct ir_tensor *op_in_val(const struct infer_ctx *c, int i)
{
    const struct ir_value *v = op_in_value(c, i);
    return v && v->val && v->val->data_kept ? v->val : NULL;
}

bool dtype_is_float(int dtype)
{
    return dtype == IR_DTYPE_FLOAT || dtype == IR_DTYPE_DOUBLE || dtype == IR_DTYPE_FLOAT16 ||
           dtype == IR_DTYPE_BFLOAT16;
}

bool dtype_is_int(int dtype)
{
    switch (dtype) {
    case IR_DTYPE_INT8: case IR_DTYPE_INT16: case IR_DTYPE_INT32: case IR_DTYPE_INT64:
    case IR_DTYPE_UINT8: case IR_DTYPE_UINT16: case IR_DTYPE_UINT32: case IR_DTYPE_UINT64:
    case IR_DTYPE_BOOL:
        return true;
    default:
        return false;
    }
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

double tensor_get_f(const struct ir_tensor *t, int64_t k)
{
    const unsigned char *p = t->data;
    switch (t->dtype) {
    case IR_DTYPE_FLOAT: { float v; memcpy(&v, p + k * 4, 4); return v; }
    case IR_DTYPE_DOUBLE: { double v; memcpy(&v, p + k * 8, 8); return v; }
    case IR_DTYPE_FLOAT16: { uint16_t h; memcpy(&h, p + k * 2, 2); return half_to_float(h); }
    case IR_DTYPE_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p + k * 2, 2);
        uint32_t bits = (uint32_t)h << 16;
        float v;
        memcpy(&v, &bits, 4);
        return v;
    }
    case IR_DTYPE_UINT64: { uint64_t v; memcpy(&v, p + k * 8, 8); return (double)v; }
    default: return (double)tensor_get_i(t, k);
    }
}

int64_t tensor_get_i(const struct ir_tensor *t, int64_t k)
{
    const unsigned char *p = t->data;
    switch (t->dtype) {
    case IR_DTYPE_INT64: { int64_t v; memcpy(&v, p + k * 8, 8); return v; }
    case IR_DTYPE_UINT64: { uint64_t v; memcpy(&v, p + k * 8, 8); return (int64_t)v; }
    case IR_DTYPE_INT32: { int32_t v; memcpy(&v, p + k * 4, 4); return v; }
    case IR_DTYPE_UINT32: { uint32_t v; memcpy(&v, p + k * 4, 4); return v; }
    case IR_DTYPE_INT16: { int16_t v; memcpy(&v, p + k * 2, 2); return v; }
    case IR_DTYPE_UINT16: { uint16_t v; memcpy(&v, p + k * 2, 2); return v; }
    case IR_DTYPE_INT8: return (int8_t)p[k];
    case IR_DTYPE_UINT8:
    case IR_DTYPE_BOOL: return p[k];
    default: {
        double d = tensor_get_f(t, k);
        return isfinite(d) ? (int64_t)d : 0;
    }
    }
}

void tensor_set_f(struct ir_tensor *t, int64_t k, double v)
{
    unsigned char *p = (unsigned char *)t->data;
    switch (t->dtype) {
    case IR_DTYPE_FLOAT: { float f = (float)v; memcpy(p + k * 4, &f, 4); break; }
    case IR_DTYPE_DOUBLE: memcpy(p + k * 8, &v, 8); break;
    case IR_DTYPE_INT64: { int64_t i = (int64_t)v; memcpy(p + k * 8, &i, 8); break; }
    case IR_DTYPE_UINT64: { uint64_t i = (uint64_t)v; memcpy(p + k * 8, &i, 8); break; }
    case IR_DTYPE_INT32: { int32_t i = (int32_t)(int64_t)v; memcpy(p + k * 4, &i, 4); break; }
    case IR_DTYPE_UINT32: { uint32_t i = (uint32_t)(int64_t)v; memcpy(p + k * 4, &i, 4); break; }
    case IR_DTYPE_INT16: { int16_t i = (int16_t)(int64_t)v; memcpy(p + k * 2, &i, 2); break; }
    case IR_DTYPE_UINT16: { uint16_t i = (uint16_t)(int64_t)v; memcpy(p + k * 2, &i, 2); break; }
    case IR_DTYPE_INT8: p[k] = (unsigned char)(int8_t)(int64_t)v; break;
    case IR_DTYPE_UINT8: p[k] = (unsigned char)(int64_t)v; break;
    case IR_DTYPE_BOOL: p[k] = v != 0; break;
    default: break;
    }
}

bool tensor_foldable(const struct ir_tensor *t)
{
    return t && t->data_kept && t->nelem <= IR_TENSOR_KEEP_MAX &&
           (dtype_is_float(t->dtype) || dtype_is_int(t->dtype) || t->dtype == IR_DTYPE_DOUBLE);
}

const int64_t *op_in_ints(const struct infer_ctx *c, int i, int64_t *n)
{
    const struct ir_tensor *t = op_in_val(c, i);
    if (!t || !dtype_is_int(t->dtype))
        return NULL;
    int64_t *v = bz_arena_array(&c->m->arena, (size_t)(t->nelem ? t->nelem : 1), sizeof(int64_t));
    for (int64_t k = 0; k < t->nelem; k++)
        v[k] = tensor_get_i(t, k);
    *n = t->nelem;
    return v;
}

struct ir_dim *op_out(struct infer_ctx *c, int i, int dtype, int rank)
{
    if (i >= c->n->n_outputs || !c->n->outputs[i])
        return bz_arena_array(&c->m->arena, (size_t)(rank > 0 ? rank : 1), sizeof(struct ir_dim));
    struct ir_value *v = c->n->outputs[i];
    v->type.kind = IR_TYPE_TENSOR;
    v->type.dtype = dtype;
    v->type.rank = rank;
    v->type.dims = bz_arena_array(&c->m->arena, (size_t)(rank > 0 ? rank : 1), sizeof(struct ir_dim));
    for (int k = 0; k < rank; k++)
        v->type.dims[k] = dim_unknown();
    return v->type.dims;
}

void op_out_dims(struct infer_ctx *c, int i, int dtype, const struct ir_dim *d, int rank)
{
    struct ir_dim *o = op_out(c, i, dtype, rank);
    for (int k = 0; k < rank; k++)
        o[k] = d[k];
}

void op_out_type(struct infer_ctx *c, int i, const struct ir_type *t)
{
    if (!t) {
        return;
    }
    struct ir_dim *d = op_out(c, i, t->dtype, t->rank);
    for (int k = 0; k < t->rank; k++)
        d[k] = t->dims[k];
}

void op_out_kind_only(struct infer_ctx *c, int i, enum ir_type_kind kind, int dtype)
{
    if (i >= c->n->n_outputs || !c->n->outputs[i])
        return;
    struct ir_value *v = c->n->outputs[i];
    v->type.kind = kind;
    v->type.dtype = dtype;
    v->type.rank = -1;
    v->type.dims = NULL;
}

void op_out_dtype_only(struct infer_ctx *c, int i, int dtype)
{
    op_out_kind_only(c, i, IR_TYPE_TENSOR, dtype);
}

void op_out_val(struct infer_ctx *c, int i, struct ir_tensor *t)
{
    if (i >= c->n->n_outputs || !c->n->outputs[i])
        return;
    struct ir_dim *d = op_out(c, i, t->dtype, t->rank);
    for (int k = 0; k < t->rank; k++)
        d[k] = dim_of(t->dims[k]);
    c->n->outputs[i]->val = t;
}

struct ir_tensor *op_tensor_new(struct infer_ctx *c, int dtype, int rank, const int64_t *dims)
{
    struct ir_tensor *t = bz_arena_alloc(&c->m->arena, sizeof(*t));
    t->dtype = dtype;
    t->rank = rank;
    t->dims = bz_arena_array(&c->m->arena, (size_t)(rank > 0 ? rank : 1), sizeof(int64_t));
    t->nelem = 1;
    for (int k = 0; k < rank; k++) {
        t->dims[k] = dims[k];
        /* a count that does not fit is no tensor to fold: kept without its values */
        if (__builtin_mul_overflow(t->nelem, dims[k], &t->nelem))
            t->nelem = INT64_MAX;
    }
    t->location = IR_DATA_INLINE;
    t->ext_offset = t->ext_length = -1;
    int bits = ir_dtype_bits(dtype);
    if (t->nelem <= IR_TENSOR_KEEP_MAX && bits >= 8) {
        t->data_bytes = (size_t)t->nelem * (size_t)bits / 8;
        t->data = bz_arena_alloc(&c->m->arena, t->data_bytes ? t->data_bytes : 1);
        t->data_kept = true;
    }
    return t;
}

void op_out_ints(struct infer_ctx *c, int i, const int64_t *v, int rank, const int64_t *dims)
{
    struct ir_tensor *t = op_tensor_new(c, IR_DTYPE_INT64, rank, dims);
    if (t->data_kept && t->nelem)
        memcpy((void *)t->data, v, (size_t)t->nelem * sizeof(int64_t));
    op_out_val(c, i, t);
}

enum { SYM_MAX = 64 };

int op_in_sym(const struct infer_ctx *c, int i, const struct ir_dim **d, int *rank)
{
    const struct ir_value *v = op_in_value(c, i);
    if (!v)
        return -1;
    const struct ir_tensor *t = op_in_val(c, i);
    if (t && dtype_is_int(t->dtype) && t->rank <= 1 && t->nelem <= SYM_MAX) {
        struct ir_dim *out = bz_arena_array(&c->m->arena, (size_t)(t->nelem ? t->nelem : 1), sizeof(*out));
        for (int64_t k = 0; k < t->nelem; k++)
            out[k] = dim_of(tensor_get_i(t, k)); /* may be negative: data, not a dim */
        *d = out;
        *rank = t->rank;
        return (int)t->nelem;
    }
    if (v->sym_len >= 0) {
        *d = v->sym;
        *rank = v->type.rank == 0 ? 0 : 1;
        return v->sym_len;
    }
    return -1;
}

void op_out_sym(struct infer_ctx *c, int i, int dtype, const struct ir_dim *d, int n, int rank)
{
    if (i >= c->n->n_outputs || !c->n->outputs[i])
        return;
    bool all = true;
    for (int k = 0; k < n; k++)
        all = all && sym_known(d[k]);
    if (all && dtype_is_int(dtype)) {
        int64_t dims[1] = {n};
        struct ir_tensor *t = op_tensor_new(c, dtype, rank, dims);
        for (int k = 0; k < n; k++)
            tensor_set_f(t, k, (double)d[k].value);
        op_out_val(c, i, t);
    } else {
        struct ir_dim *od = op_out(c, i, dtype, rank);
        if (rank == 1)
            od[0] = dim_of(n);
    }
    struct ir_value *v = c->n->outputs[i];
    v->sym = bz_arena_memdup(&c->m->arena, d, (size_t)n * sizeof(*d));
    v->sym_len = n;
}

int64_t op_attr_i(const struct infer_ctx *c, const char *name, int64_t dflt)
{
    return ir_node_attr_int(c->n, name, dflt);
}

float op_attr_f(const struct infer_ctx *c, const char *name, float dflt)
{
    return ir_node_attr_float(c->n, name, dflt);
}

const char *op_attr_s(const struct infer_ctx *c, const char *name, const char *dflt)
{
    const struct ir_attr *a = ir_node_attr(c->n, name);
    return a && a->type == IR_ATTR_STRING ? a->u.s.data : dflt;
}

int op_attr_ints(const struct infer_ctx *c, const char *name, const int64_t **v)
{
    const struct ir_attr *a = ir_node_attr(c->n, name);
    if (!a || a->type != IR_ATTR_INTS) {
        *v = NULL;
        return -1;
    }
    *v = a->u.ints;
    return (int)a->count;
}

bool dim_same(struct ir_dim a, struct ir_dim b)
{
    if (dim_known(a) || dim_known(b))
        return a.value == b.value;
    return a.param && b.param && strcmp(a.param, b.param) == 0;
}

struct ir_dim dim_mul(struct ir_dim a, struct ir_dim b)
{
    int64_t p;
    if (dim_known(a) && dim_known(b))
        return __builtin_mul_overflow(a.value, b.value, &p) ? dim_unknown() : dim_of(p);
    if (dim_known(a) && a.value == 1)
        return b;
    if (dim_known(b) && b.value == 1)
        return a;
    return dim_unknown();
}

int op_axis(struct infer_ctx *c, int64_t axis, int rank)
{
    if (axis < -rank || axis >= (rank > 0 ? rank : 1)) {
        op_fail(c, "axis %lld is out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

bool op_broadcast(struct infer_ctx *c, const int *inputs, int n, int out_dtype, int out_index)
{
    int rank = 0;
    for (int k = 0; k < n; k++) {
        const struct ir_type *t = op_in(c, inputs[k]);
        if (!t) {
            if (op_in_value(c, inputs[k]))
                op_out_dtype_only(c, out_index, out_dtype);
            return false;
        }
        if (t->rank > rank)
            rank = t->rank;
    }
    struct ir_dim *d = op_out(c, out_index, out_dtype, rank);
    for (int a = 0; a < rank; a++) {
        struct ir_dim r = dim_of(1);
        bool unknown = false;
        for (int k = 0; k < n; k++) {
            const struct ir_type *t = op_in(c, inputs[k]);
            int off = rank - t->rank;
            if (a < off)
                continue;
            struct ir_dim x = t->dims[a - off];
            if (dim_known(x) && x.value == 1)
                continue;
            if (dim_known(r) && r.value == 1) {
                r = x;
            } else if (dim_known(x) && dim_known(r)) {
                if (x.value != r.value) {
                    op_fail(c, "shapes cannot be broadcast: dim %lld against %lld", (long long)x.value,
                            (long long)r.value);
                    return false;
                }
            } else if (dim_known(x)) {
                r = x; /* a symbol meets a number: the number is what it must be */
            } else if (!dim_known(r) && !dim_same(r, x)) {
                unknown = true;
            }
        }
        d[a] = unknown ? dim_unknown() : r;
    }
    return true;
}

const struct ir_type *op_spatial_input(struct infer_ctx *c, int *nsp)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x || x->rank < 3) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return NULL;
    }
    *nsp = x->rank - 2;
    if (*nsp > 8) {
        op_fail(c, "more than 8 spatial dims");
        return NULL;
    }
    return x;
}

void infer_shape_as_input(struct infer_ctx *c, int dtype)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, t->rank);
    memcpy(d, t->dims, (size_t)t->rank * sizeof(*d));
}

void infer_same_as_input(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (t)
        op_out_type(c, 0, t);
    else
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
}

/* ---- the driver ---- */

struct driver {
    const struct shape_opts *o;
    struct shape_result *res;
    bool batch_changed;
    int64_t batch_from, batch_to;
    struct ir_model *m;
};

static void note_unsupported(struct driver *d, const struct ir_node *n, int top_index)
{
    struct shape_result *r = d->res;
    r->n_unsupported_nodes++;
    for (int i = 0; i < r->n_unsupported_ops; i++)
        if (strcmp(r->unsupported[i].op, n->op_type) == 0 &&
            strcmp(r->unsupported[i].domain, n->domain) == 0) {
            r->unsupported[i].count++;
            return;
        }
    r->unsupported = bz_realloc(r->unsupported, (size_t)(r->n_unsupported_ops + 1) * sizeof(*r->unsupported));
    r->unsupported[r->n_unsupported_ops++] =
        (struct shape_unsupported){n->domain, n->op_type, 1, top_index};
}

static bool type_concrete(const struct ir_type *t)
{
    if (t->kind != IR_TYPE_TENSOR || t->rank < 0 || !t->dtype)
        return false;
    for (int k = 0; k < t->rank; k++)
        if (!dim_known(t->dims[k]))
            return false;
    return true;
}

bool shape_is_resolved(const struct ir_type *t)
{
    return type_concrete(t);
}

static int infer_graph(struct infer_ctx *parent, struct ir_graph *g);

static void merge_declared(struct ir_model *m, struct ir_value *v)
{
    const struct ir_type *dc = &v->decl;
    struct ir_type *t = &v->type;
    if (dc->kind == IR_TYPE_NONE)
        return;
    if (t->kind == IR_TYPE_NONE) {
        *t = *dc;
        return;
    }
    if (t->kind != IR_TYPE_TENSOR || dc->kind != IR_TYPE_TENSOR)
        return;
    if (!t->dtype)
        t->dtype = dc->dtype;
    if (dc->rank < 0)
        return;
    if (t->rank < 0) {
        t->rank = dc->rank;
        t->dims = dc->dims;
        return;
    }
    if (t->rank != dc->rank)
        return;
    bool need = false;
    for (int k = 0; k < t->rank; k++)
        need = need || (!dim_known(t->dims[k]) && (dim_known(dc->dims[k]) || (dc->dims[k].param && !t->dims[k].param)));
    if (!need)
        return;
    struct ir_dim *nd = bz_arena_array(&m->arena, (size_t)t->rank, sizeof(*nd));
    for (int k = 0; k < t->rank; k++)
        nd[k] = dim_known(t->dims[k]) || t->dims[k].param ? t->dims[k] : dc->dims[k];
    for (int k = 0; k < t->rank; k++)
        if (!dim_known(nd[k]) && dim_known(dc->dims[k]))
            nd[k] = dc->dims[k];
    t->dims = nd;
}

/* An output no machine could hold (a dim beyond 2^40, or more than 2^52 elements: shapes
 * computed from absurd constants) is not kept: nothing downstream computes with it. */
enum { SHAPE_DIM_MAX_LOG2 = 40, SHAPE_ELEMS_MAX_LOG2 = 52 };
static void drop_oversized(struct driver *d, const struct ir_node *n, struct bz_diag *diag)
{
    for (int k = 0; k < n->n_outputs; k++) {
        struct ir_value *v = n->outputs[k];
        if (!v || v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
            continue;
        double count = 1;
        bool huge = false;
        for (int a = 0; a < v->type.rank; a++) {
            int64_t x = v->type.dims[a].value;
            if (x > ((int64_t)1 << SHAPE_DIM_MAX_LOG2))
                huge = true;
            if (x > 0)
                count *= (double)x;
        }
        if (!huge && count <= (double)((int64_t)1 << SHAPE_ELEMS_MAX_LOG2))
            continue;
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, n);
        bz_diag_warning(diag, d->m->path, "%s: output '%s' would have %.3g elements: too large to be a tensor, left "
                        "unresolved", w.data, v->name, count);
        bz_buf_free(&w);
        v->type.rank = -1;
        v->type.dims = NULL;
        v->val = NULL;
        v->sym = NULL;
        v->sym_len = -1;
    }
}

static void infer_node(struct driver *d, struct ir_graph *g, struct ir_node *n, struct bz_diag *diag,
                       int top_index)
{
    struct infer_ctx c = {
        .m = d->m, .g = g, .n = n, .opset = ir_model_opset(d->m, n->domain), .diag = diag,
        .infer_graph = infer_graph, .driver = d, .batch_from = d->batch_from, .batch_to = d->batch_to,
    };
    const struct op_def *def = op_find(n->domain, n->op_type);
    if (def && c.opset == 0 && ir_domain_is_onnx(n->domain))
        c.opset = 1;
    /* the node against its operator's schema first: no operator code reads a node that
     * breaks it (its outputs stay unknown) */
    struct bz_buf why;
    bz_buf_init(&why);
    int bad = op_check_node(n, &why);
    if (!bad && def)
        bad = op_check_shapes(n, &why);
    if (bad) {
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, n);
        if (bad < 0) {
            bz_diag_error(diag, d->m->path, "%s: %s", w.data, why.data);
            d->res->n_invalid++;
        } else {
            bz_diag_warning(diag, d->m->path, "%s: %s: its outputs stay unresolved", w.data, why.data);
        }
        bz_buf_free(&w);
        bz_buf_free(&why);
        return;
    }
    bz_buf_free(&why);
    if (def)
        def->infer(&c);
    if (c.failed) {
        /* inference gave up on this node (said): what it set of its outputs is not to be
         * trusted (a Reshape to a batch-1 constant after -b 2 would carry batch 1 onwards and
         * mix batches); its outputs stay unknown, and the nodes after it unresolved */
        for (int k = 0; k < n->n_outputs; k++) {
            struct ir_value *v = n->outputs[k];
            if (!v)
                continue;
            v->type.rank = -1;
            v->type.dims = NULL;
            v->val = NULL;
            v->sym = NULL;
            v->sym_len = -1;
        }
    }
    drop_oversized(d, n, diag);
    if (!def || (def->flags & OP_FOREIGN))
        note_unsupported(d, n, top_index);
    /* What the exporter declared fills what inference cannot say (as onnx merges
     * value_info), unless the batch was changed: then declarations are stale. */
    for (int k = 0; k < n->n_outputs && !d->batch_changed; k++) {
        struct ir_value *v = n->outputs[k];
        if (v)
            merge_declared(d->m, v);
    }
    for (int k = 0; k < n->n_outputs; k++) {
        struct ir_value *v = n->outputs[k];
        if (!v || d->batch_changed || !type_concrete(&v->decl) || !type_concrete(&v->type))
            continue;
        bool same = v->decl.rank == v->type.rank && v->decl.dtype == v->type.dtype;
        for (int a = 0; same && a < v->type.rank; a++)
            same = v->decl.dims[a].value == v->type.dims[a].value;
        if (!same) {
            struct bz_buf b, x, y;
            bz_buf_init(&b);
            bz_buf_init(&x);
            bz_buf_init(&y);
            ir_node_where(&b, n);
            ir_type_format(&x, &v->type);
            ir_type_format(&y, &v->decl);
            bz_diag_warning(diag, d->m->path, "%s: output '%s' is inferred as %s but declared as %s",
                            b.data, v->name, x.data, y.data);
            bz_buf_free(&b);
            bz_buf_free(&x);
            bz_buf_free(&y);
            d->res->n_conflicts++;
        }
    }
}

static void reset_graph(struct ir_graph *g)
{
    for (int i = 0; i < g->n_values; i++) {
        struct ir_value *v = g->values[i];
        if (v->init)
            v->val = v->init;
        if (v->producer >= 0) {
            memset(&v->type, 0, sizeof(v->type));
            v->type.rank = -1;
            v->sym = NULL;
            v->sym_len = -1;
            if (!v->init)
                v->val = NULL;
        }
    }
}

static int infer_graph(struct infer_ctx *parent, struct ir_graph *g)
{
    struct driver *d = parent->driver;
    reset_graph(g);
    for (int i = 0; i < g->n_nodes; i++)
        infer_node(d, g, &g->nodes[g->topo[i]], parent->diag, parent->n ? parent->n->index : g->topo[i]);
    return 0;
}

bool shape_parse_binding(char *arg, struct shape_dim_binding *b)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    *eq = '\0';
    char *end;
    long long v = strtoll(eq + 1, &end, 10);
    if (*end || eq[1] == '\0' || v < 0)
        return false;
    char *colon = strchr(arg, ':');
    b->model = colon ? arg : NULL;
    if (colon)
        *colon = '\0';
    b->name = colon ? colon + 1 : arg;
    b->value = v;
    return *b->name != '\0';
}

bool shape_parse_input_shape(char *arg, struct shape_input_shape *s)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    *eq = '\0';
    char *colon = strchr(arg, ':');
    s->model = colon ? arg : NULL;
    if (colon)
        *colon = '\0';
    s->input = colon ? colon + 1 : arg;
    s->rank = 0;
    char *p = eq + 1;
    if (*p == '\0')
        return *s->input != '\0'; /* a scalar */
    for (;;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || s->rank == 16)
            return false;
        s->dims[s->rank++] = v;
        if (*end == '\0')
            break;
        if (*end != ',')
            return false;
        p = end + 1;
    }
    return *s->input != '\0';
}

/* A binding scoped to MODEL applies when MODEL is the name gen gives the model (its base
 * name without .onnx, or DIR for DIR/model.onnx) or the base name with or without .onnx. */
static bool scope_matches(const char *scope, const char *path)
{
    if (!scope)
        return true;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(scope);
    if (strncmp(base, scope, n) == 0 && (base[n] == '\0' || strcmp(base + n, ".onnx") == 0))
        return true;
    char *name = bz_model_name(path);
    bool same = strcmp(name, scope) == 0;
    free(name);
    return same;
}

/* Which dim of a graph input is the batch: 0, except where a recurrent layer reads the
 * input as X or as an initial state in its default layout ([seq, batch, ...] and
 * [directions, batch, hidden]): then 1. */
static int batch_dim(const struct ir_graph *g, const struct ir_value *v)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        bool rnn = !strcmp(n->op_type, "LSTM") || !strcmp(n->op_type, "GRU") || !strcmp(n->op_type, "RNN");
        if (!rnn || !ir_domain_is_onnx(n->domain))
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == v && (k == 0 || k == 5 || k == 6))
                return ir_node_attr_int(n, "layout", 0) ? 0 : 1;
    }
    return 0;
}

int shape_infer(struct ir_model *m, const struct shape_opts *o, struct bz_diag *diag,
                struct shape_result *res)
{
    static const struct shape_opts none = {0};
    if (!o)
        o = &none;
    memset(res, 0, sizeof(*res));
    struct driver d = {.o = o, .res = res, .m = m};
    struct ir_graph *g = m->graph;

    /* graph inputs: declared types, then the batch and the symbol bindings */
    struct ir_dim first_batch = dim_unknown();
    bool have_first = false;
    for (int i = 0; i < g->n_inputs; i++) {
        struct ir_value *v = g->inputs[i];
        if (v->init)
            continue;
        if (v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
            continue;
        struct ir_dim *dims = bz_arena_array(&m->arena, (size_t)(v->type.rank ? v->type.rank : 1),
                                             sizeof(*dims));
        memcpy(dims, v->type.dims, (size_t)v->type.rank * sizeof(*dims));
        v->type.dims = dims;
        for (int k = 0; k < v->type.rank; k++) {
            for (int b = 0; b < o->n_bindings; b++)
                if (dims[k].param && strcmp(dims[k].param, o->bindings[b].name) == 0 &&
                    scope_matches(o->bindings[b].model, m->path))
                    dims[k] = dim_of(o->bindings[b].value);
        }
        const struct shape_input_shape *given = NULL;
        for (int s = 0; s < o->n_input_shapes; s++)
            if (!strcmp(o->input_shapes[s].input, v->name) && scope_matches(o->input_shapes[s].model, m->path))
                given = &o->input_shapes[s];
        if (given) {
            /* an explicit shape is the final word, batch included */
            v->type.rank = given->rank;
            v->type.dims = bz_arena_array(&m->arena, (size_t)(given->rank ? given->rank : 1), sizeof(*dims));
            for (int k = 0; k < given->rank; k++)
                v->type.dims[k] = dim_of(given->dims[k]);
            if (o->batch > 0) {
                d.batch_changed = true;
                d.batch_to = o->batch;
            }
            continue;
        }
        int bd = batch_dim(g, v);
        if (o->batch > 0 && bd >= 0 && bd < v->type.rank) {
            /* the first data input defines the model's batch; other inputs follow only
             * when their batch dim is the same (a streaming cache of another size is not
             * batched) */
            struct ir_dim was = v->decl.dims[bd];
            if (!have_first) {
                first_batch = was;
                have_first = true;
            } else if (!dim_same(was, first_batch)) {
                continue;
            }
            if (!dim_known(dims[bd]) || dims[bd].value != o->batch) {
                d.batch_changed = true;
                if (dim_known(dims[bd]) && !d.batch_from)
                    d.batch_from = dims[bd].value;
                d.batch_to = o->batch;
            }
            dims[bd] = dim_of(o->batch);
        }
    }
    struct infer_ctx top = {.m = m, .g = g, .diag = diag, .infer_graph = infer_graph, .driver = &d};
    int warnings_before = diag ? diag->warnings : 0;
    infer_graph(&top, g);
    if (d.batch_changed && diag && diag->warnings > warnings_before + res->n_unsupported_ops) {
        /* the usual cause: an input whose batch is not its leading dim (a streaming cache) */
        struct bz_buf kept;
        bz_buf_init(&kept);
        for (int i = 0; i < g->n_inputs; i++) {
            const struct ir_value *v = g->inputs[i];
            if (v->init || v->type.rank < 1 || v->decl.rank != v->type.rank)
                continue;
            bool same = true;
            for (int k = 0; k < v->type.rank; k++)
                same = same && dim_same(v->type.dims[k], v->decl.dims[k]);
            if (same && kept.len < 400) {
                bz_buf_printf(&kept, "%s'%s' ", kept.len ? ", " : "", v->name);
                ir_type_format(&kept, &v->type);
            }
        }
        bz_diag_warning(diag, m->path,
                        "after setting the batch to %lld some shapes do not fit; inputs left at their "
                        "declared batch: %s; give their shapes with --input-shape",
                        (long long)o->batch, kept.len ? kept.data : "none");
        bz_buf_free(&kept);
    }

    res->n_values = g->n_values;
    for (int i = 0; i < g->n_values; i++)
        res->n_resolved += type_concrete(&g->values[i]->type);
    return res->n_invalid ? -1 : 0;
}

static void print_value(struct bz_buf *b, const struct ir_value *v)
{
    bz_buf_quote(b, v->name, strlen(v->name));
    bz_buf_putc(b, '\t');
    const struct ir_type *t = &v->type;
    const char *dn = t->dtype ? ir_dtype_name(t->dtype) : NULL;
    bz_buf_puts(b, dn ? dn : "?");
    bz_buf_putc(b, '\t');
    if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
        bz_buf_puts(b, "*");
    } else {
        for (int k = 0; k < t->rank; k++) {
            if (k)
                bz_buf_putc(b, ',');
            if (dim_known(t->dims[k]))
                bz_buf_printf(b, "%lld", (long long)t->dims[k].value);
            else
                bz_buf_putc(b, '?');
        }
    }
    bz_buf_putc(b, '\n');
}

void shape_print(FILE *out, const struct ir_model *m)
{
    struct bz_buf b;
    bz_buf_init(&b);
    const struct ir_graph *g = m->graph;
    for (int i = 0; i < g->n_values; i++)
        print_value(&b, g->values[i]);
    fwrite(b.data ? b.data : "", 1, b.len, out);
    bz_buf_free(&b);
}
