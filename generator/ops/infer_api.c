/* The helpers operators' shape inference uses (declared in ops/ops.h): reading a node's inputs
 * and attributes, setting its outputs, shape data, small tensors for folding, broadcasting. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/harness.h"
/* the 16-bit float conversions only: no family's kernel is referenced here */
#define PL_FAMILIES 0u
#include "../../runtime/plain_ops.h"
#include "ops.h"

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

const struct ir_type *op_in_known(struct infer_ctx *c, int i)
{
    const struct ir_type *t = op_in(c, i);
    if (!t)
        op_out_dtype_only(c, 0, op_in_dtype(c, i));
    return t;
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

double tensor_get_f(const struct ir_tensor *t, int64_t k)
{
    const unsigned char *p = t->data;
    switch (t->dtype) {
    case IR_DTYPE_FLOAT: { float v; memcpy(&v, p + k * 4, 4); return v; }
    case IR_DTYPE_DOUBLE: { double v; memcpy(&v, p + k * 8, 8); return v; }
    case IR_DTYPE_FLOAT16: { uint16_t h; memcpy(&h, p + k * 2, 2); return pl_f16_to_f32(h); }
    case IR_DTYPE_BFLOAT16: { uint16_t h; memcpy(&h, p + k * 2, 2); return pl_bf16_to_f32(h); }
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
    case IR_DTYPE_FLOAT16: { uint16_t h = pl_f32_to_f16((float)v); memcpy(p + k * 2, &h, 2); break; }
    case IR_DTYPE_BFLOAT16: { uint16_t h = pl_f32_to_bf16((float)v); memcpy(p + k * 2, &h, 2); break; }
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

int op_mark_axes(struct infer_ctx *c, const int64_t *axes, int na, int rank, bool *mark)
{
    for (int k = 0; k < na; k++) {
        int a = op_axis(c, axes[k], rank);
        if (a < 0)
            return -1;
        mark[a] = true;
    }
    return 0;
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

void infer_bool_unary(struct infer_ctx *c)
{
    infer_shape_as_input(c, IR_DTYPE_BOOL);
}

void infer_rows(struct infer_ctx *c, int dtype, struct ir_dim last, const char *shapes)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    if (x->rank < 1 || x->rank > 2) {
        op_fail(c, "%s needs %s, not rank %d", c->n->op_type, shapes, x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, x->rank);
    if (x->rank == 2)
        d[0] = x->dims[0];
    d[x->rank - 1] = last;
}
