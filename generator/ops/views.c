/* Views and shape queries (Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size) and constants:
 * they compute nothing at inference but carry shape data through the graph, so that shapes built
 * at run time (Shape -> Gather -> Concat -> Reshape) resolve statically. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

/* A view of known data keeps the data: output 0 holds input 0's values with dims d. */
static void keep_data_reshaped(struct infer_ctx *c, const struct ir_dim *d, int r)
{
    const struct ir_tensor *x = op_in_val(c, 0);
    if (!x || r > 64)
        return;
    int64_t dims[64];
    for (int k = 0; k < r; k++) {
        if (!dim_known(d[k]))
            return;
        dims[k] = d[k].value;
    }
    struct ir_tensor *y = op_tensor_new(c, x->dtype, r, dims);
    if (y->data_kept && y->nelem == x->nelem) {
        memcpy((void *)y->data, x->data, x->data_bytes);
        op_out_val(c, 0, y);
    }
}

/* ---- Shape, Size ---- */

static void infer_shape(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out(c, 0, IR_DTYPE_INT64, 1);
        return;
    }
    int64_t start = op_attr_i(c, "start", 0), end = op_attr_i(c, "end", t->rank);
    if (start < 0)
        start += t->rank;
    if (end < 0)
        end += t->rank;
    start = start < 0 ? 0 : start > t->rank ? t->rank : start;
    end = end < 0 ? 0 : end > t->rank ? t->rank : end;
    int n = end > start ? (int)(end - start) : 0;
    struct ir_dim *d = bz_arena_array(&c->m->arena, (size_t)(n ? n : 1), sizeof(*d));
    for (int k = 0; k < n; k++)
        d[k] = sym_from_dim(t->dims[start + k]);
    op_out_sym(c, 0, IR_DTYPE_INT64, d, n, 1);
}

static void infer_size(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    struct ir_dim d = dim_of(1);
    for (int k = 0; t && k < t->rank; k++)
        d = dim_mul(d, t->dims[k]);
    if (!t || !dim_known(d))
        d = sym_unknown();
    op_out_sym(c, 0, IR_DTYPE_INT64, &d, 1, 0);
}

/* output 0 of DTYPE where the shape (input I, 1-D) is not known: its rank is the shape's
 * length, where that is known */
static void out_rank_of_shape(struct infer_ctx *c, int i, int dtype)
{
    const struct ir_type *st = op_in(c, i);
    if (st && st->rank == 1 && dim_known(st->dims[0]))
        op_out(c, 0, dtype, (int)st->dims[0].value);
    else
        op_out_dtype_only(c, 0, dtype);
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze ---- */

static void infer_reshape(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    const struct ir_dim *target;
    int trank, n;
    struct ir_dim *attr_target = NULL;
    if (c->opset < 5) {
        const int64_t *v;
        n = op_attr_ints(c, "shape", &v);
        if (n < 0) {
            op_fail(c, "Reshape before opset 5 needs a 'shape' attribute");
            return;
        }
        attr_target = bz_arena_array(&c->m->arena, (size_t)(n ? n : 1), sizeof(*attr_target));
        for (int k = 0; k < n; k++)
            attr_target[k] = dim_of(v[k]);
        target = attr_target;
    } else {
        n = op_in_sym(c, 1, &target, &trank);
    }
    int dtype = op_in_dtype(c, 0);
    if (n < 0) {
        out_rank_of_shape(c, 1, dtype);
        return;
    }
    bool allowzero = op_attr_i(c, "allowzero", 0) != 0;
    struct ir_dim *d = op_out(c, 0, dtype, n);
    int minus = -1;
    struct ir_dim known_prod = dim_of(1);
    bool prod_ok = true;
    for (int k = 0; k < n; k++) {
        struct ir_dim x = target[k];
        if (sym_known(x) && x.value == 0 && !allowzero) {
            d[k] = t && k < t->rank ? t->dims[k] : dim_unknown();
        } else if (sym_known(x) && x.value == -1) {
            minus = k;
            continue;
        } else {
            d[k] = dim_from_sym(x);
        }
        if (dim_known(d[k]))
            known_prod = dim_mul(known_prod, d[k]);
        if (!dim_known(d[k]) || !dim_known(known_prod))
            prod_ok = false;
    }
    int64_t in_total = 1;
    bool in_known = t != NULL;
    for (int k = 0; t && k < t->rank; k++) {
        if (!dim_known(t->dims[k]) || __builtin_mul_overflow(in_total, t->dims[k].value, &in_total))
            in_known = false;
    }
    /* A target written for the model's own batch (caffe2 exports bake [1, -1] in):
     * after -b, its leading dim follows the new batch when that makes the sizes agree. */
    if (c->batch_from > 0 && n >= 1 && sym_known(target[0]) && target[0].value == c->batch_from &&
        in_known && t->rank >= 1 && dim_known(t->dims[0]) && t->dims[0].value == c->batch_to &&
        in_total % c->batch_to == 0) {
        int64_t rest = 1;
        bool rest_known = true;
        for (int k = 1; k < n; k++) {
            if (k == minus)
                continue;
            if (!dim_known(d[k]) || __builtin_mul_overflow(rest, d[k].value, &rest))
                rest_known = false;
        }
        int64_t old_total = 0, new_total = 0;
        rest_known = rest_known && !__builtin_mul_overflow(rest, c->batch_from, &old_total) &&
                     !__builtin_mul_overflow(rest, c->batch_to, &new_total);
        bool agrees_old = rest_known && minus < 0 && old_total == in_total;
        if (!agrees_old) {
            d[0] = dim_of(c->batch_to);
            known_prod = dim_of(rest_known ? new_total : 0);
            prod_ok = rest_known;
        }
    }
    if (minus >= 0) {
        d[minus] = dim_unknown();
        if (t && prod_ok) {
            int64_t total = 1;
            bool all = true;
            for (int k = 0; k < t->rank; k++) {
                if (!dim_known(t->dims[k]) || __builtin_mul_overflow(total, t->dims[k].value, &total))
                    all = false;
            }
            if (all && known_prod.value > 0)
                d[minus] = dim_of(total / known_prod.value);
        }
    }
    if (in_known && minus < 0) {
        int64_t out_total = 1;
        bool out_known = true;
        for (int k = 0; k < n; k++) {
            if (!dim_known(d[k]) || __builtin_mul_overflow(out_total, d[k].value, &out_total))
                out_known = false;
        }
        if (out_known && out_total != in_total) {
            op_fail(c, "cannot reshape %lld elements into %lld", (long long)in_total, (long long)out_total);
            return;
        }
    }
    const struct ir_value *ov = c->n->outputs[0];
    if (ov)
        keep_data_reshaped(c, ov->type.dims, ov->type.rank);
    /* shape data passes through a reshape to rank 0/1 */
    if (ov && ov->type.rank <= 1 && !ov->val) {
        const struct ir_dim *sd;
        int sr;
        int sn = op_in_sym(c, 0, &sd, &sr);
        if (sn >= 0 && (ov->type.rank == 0 ? sn == 1 : true))
            op_out_sym(c, 0, dtype, sd, sn, ov->type.rank);
    }
}

static void infer_flatten(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out(c, 0, op_in_dtype(c, 0), 2);
        return;
    }
    int64_t axis = op_attr_i(c, "axis", 1);
    if (axis < 0)
        axis += t->rank;
    if (axis < 0 || axis > t->rank) {
        op_fail(c, "axis %lld is out of range for rank %d", (long long)axis, t->rank);
        return;
    }
    struct ir_dim a = dim_of(1), b = dim_of(1);
    for (int k = 0; k < t->rank; k++) {
        if (k < axis)
            a = dim_mul(a, t->dims[k]);
        else
            b = dim_mul(b, t->dims[k]);
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, 2);
    d[0] = a;
    d[1] = b;
}

/* axes from the attribute (older opsets) or from input 1; -1 when unknown, -2 when absent */
static int get_axes(struct infer_ctx *c, int since, int input, const int64_t **axes)
{
    if (c->opset < since) {
        return op_attr_ints(c, "axes", axes) >= 0 ? op_attr_ints(c, "axes", axes) : -2;
    }
    if (!op_in_value(c, input))
        return -2;
    int64_t n;
    *axes = op_in_ints(c, input, &n);
    return *axes ? (int)n : -1;
}

static void infer_squeeze(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    const int64_t *axes;
    int na = get_axes(c, 13, 1, &axes);
    if (!t || na == -1) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    bool drop[64] = {0};
    if (t->rank > 64)
        return;
    if (na == -2) {
        for (int k = 0; k < t->rank; k++) {
            if (!dim_known(t->dims[k])) {
                op_out_dtype_only(c, 0, t->dtype); /* cannot tell which dims are 1 */
                return;
            }
            drop[k] = t->dims[k].value == 1;
        }
    } else if (op_mark_axes(c, axes, na, t->rank, drop)) {
        return;
    }
    struct ir_dim d[64];
    int r = 0;
    for (int k = 0; k < t->rank; k++)
        if (!drop[k])
            d[r++] = t->dims[k];
    op_out_dims(c, 0, t->dtype, d, r);
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    if (sn == 1 && r == 0)
        op_out_sym(c, 0, t->dtype, sd, 1, 0);
    else if (sn >= 0 && r == 1)
        op_out_sym(c, 0, t->dtype, sd, sn, 1);
    else
        keep_data_reshaped(c, d, r);
}

static void infer_unsqueeze(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    const int64_t *axes;
    int na = get_axes(c, 13, 1, &axes);
    if (!t || na < 0) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int r = t->rank + na;
    if (r > 64)
        return;
    bool ins[64] = {0};
    for (int k = 0; k < na; k++) {
        int a = op_axis(c, axes[k], r);
        if (a < 0)
            return;
        ins[a] = true;
    }
    struct ir_dim d[64];
    for (int k = 0, j = 0; k < r; k++)
        d[k] = ins[k] ? dim_of(1) : t->dims[j++];
    op_out_dims(c, 0, t->dtype, d, r);
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    if (sn >= 0 && r <= 1)
        op_out_sym(c, 0, t->dtype, sd, sn, r);
    else
        keep_data_reshaped(c, d, r);
}

/* ---- constants and ranges ---- */

static void infer_constant(struct infer_ctx *c)
{
    struct ir_value *v = c->n->n_outputs ? c->n->outputs[0] : NULL;
    if (!v || !v->init) {
        op_fail(c, "Constant without a value");
        return;
    }
    op_out_val(c, 0, v->init);
    if (!v->init->data_kept) {
        v->val = NULL; /* large: dims only */
    }
}

static void infer_constant_of_shape(struct infer_ctx *c)
{
    const struct ir_attr *a = ir_node_attr(c->n, "value");
    const struct ir_tensor *fill = a && a->type == IR_ATTR_TENSOR ? a->u.t : NULL;
    int dtype = fill ? fill->dtype : IR_DTYPE_FLOAT;
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    if (sn < 0) {
        out_rank_of_shape(c, 0, dtype);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, sn);
    int64_t dims[64];
    bool all = sn <= 64;
    for (int k = 0; k < sn; k++) {
        d[k] = dim_from_sym(sd[k]);
        all = all && dim_known(d[k]);
        if (k < 64)
            dims[k] = d[k].value;
    }
    if (!all)
        return;
    struct ir_tensor *t = op_tensor_new(c, dtype, sn, dims);
    if (t->data_kept && (dtype_is_int(dtype) || dtype_is_float(dtype))) {
        double v = fill && fill->data_kept && fill->nelem >= 1
                       ? (dtype_is_int(dtype) ? (double)tensor_get_i(fill, 0) : tensor_get_f(fill, 0))
                       : 0.0;
        for (int64_t k = 0; k < t->nelem; k++)
            tensor_set_f(t, k, v);
        op_out_val(c, 0, t);
    }
}

const struct op_def ops_views[] = {
    {"Shape", infer_shape, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Size", infer_size, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Reshape", infer_reshape, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0)},
    {"Flatten", infer_flatten, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Squeeze", infer_squeeze, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0)},
    {"Unsqueeze", infer_unsqueeze, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 0)},
    {"Constant", infer_constant, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(0, 0, 1, 1, 0x0, 1, 0)},
    {"ConstantOfShape", infer_constant_of_shape, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0)},
    {0},
};
