/* Tensor manipulation: shape queries, views and copies (Reshape, Transpose, Concat, Slice,
 * Gather, Pad, ...), constants and ranges. They carry shape data through the graph, so that
 * shapes built at run time (Shape -> Gather -> Concat -> Reshape) resolve statically. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

static void set_out_dims(struct infer_ctx *c, int i, int dtype, const struct ir_dim *d, int rank)
{
    struct ir_dim *o = op_out(c, i, dtype, rank);
    for (int k = 0; k < rank; k++)
        o[k] = d[k];
}

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
        /* the target's length may still be known from its shape */
        const struct ir_type *st = op_in(c, 1);
        if (st && st->rank == 1 && dim_known(st->dims[0]))
            op_out(c, 0, dtype, (int)st->dims[0].value);
        else
            op_out_dtype_only(c, 0, dtype);
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
    } else {
        for (int k = 0; k < na; k++) {
            int a = op_axis(c, axes[k], t->rank);
            if (a < 0)
                return;
            drop[a] = true;
        }
    }
    struct ir_dim d[64];
    int r = 0;
    for (int k = 0; k < t->rank; k++)
        if (!drop[k])
            d[r++] = t->dims[k];
    set_out_dims(c, 0, t->dtype, d, r);
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
    set_out_dims(c, 0, t->dtype, d, r);
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    if (sn >= 0 && r <= 1)
        op_out_sym(c, 0, t->dtype, sd, sn, r);
    else
        keep_data_reshaped(c, d, r);
}

/* ---- Transpose, Concat, Split, Slice ---- */

static void infer_transpose(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    const int64_t *perm;
    int np = op_attr_ints(c, "perm", &perm);
    struct ir_dim *d = op_out(c, 0, t->dtype, t->rank);
    for (int k = 0; k < t->rank; k++) {
        int64_t p = np >= 0 ? (k < np ? perm[k] : -1) : t->rank - 1 - k;
        if (p < 0 || p >= t->rank) {
            op_fail(c, "perm does not fit rank %d", t->rank);
            return;
        }
        d[k] = t->dims[p];
    }
}

static void infer_concat(struct infer_ctx *c)
{
    int n = op_nin(c);
    const struct ir_type *t0 = NULL;
    for (int i = 0; i < n && !t0; i++)
        t0 = op_in(c, i);
    if (!t0) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int rank = t0->rank;
    int axis = op_axis(c, op_attr_i(c, "axis", c->opset < 4 ? 1 : 0), rank);
    if (axis < 0)
        return;
    struct ir_dim *d = op_out(c, 0, t0->dtype, rank);
    bool all_typed = true;
    for (int k = 0; k < rank; k++) {
        d[k] = k == axis ? dim_of(0) : dim_unknown();
        for (int i = 0; i < n; i++) {
            const struct ir_type *t = op_in(c, i);
            if (!t || t->rank != rank) {
                all_typed = false;
                continue;
            }
            if (k == axis) {
                d[k] = dim_known(d[k]) && dim_known(t->dims[k]) ? dim_of(d[k].value + t->dims[k].value)
                                                                : dim_unknown();
            } else if (!dim_known(d[k])) {
                if (dim_known(t->dims[k]) || (!d[k].param && t->dims[k].param) || i == 0)
                    d[k] = t->dims[k];
            } else if (dim_known(t->dims[k]) && t->dims[k].value != d[k].value) {
                op_fail(c, "inputs differ in dim %d (%lld and %lld), which is not the concat axis", k,
                        (long long)d[k].value, (long long)t->dims[k].value);
                return;
            }
        }
    }
    if (!all_typed)
        d[axis] = dim_unknown();
    /* concatenated shape data */
    if (rank == 1) {
        struct ir_dim buf[64];
        int total = 0;
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            const struct ir_dim *sd;
            int sr;
            int sn = op_in_sym(c, i, &sd, &sr);
            ok = sn >= 0 && total + sn <= 64;
            for (int k = 0; ok && k < sn; k++)
                buf[total++] = sd[k];
        }
        if (ok)
            op_out_sym(c, 0, t0->dtype, buf, total, 1);
    }
}

static void infer_split(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int nout = c->n->n_outputs;
    if (!t) {
        for (int i = 0; i < nout; i++)
            op_out_dtype_only(c, i, op_in_dtype(c, 0));
        return;
    }
    int axis = op_axis(c, op_attr_i(c, "axis", 0), t->rank);
    if (axis < 0)
        return;
    const int64_t *split = NULL;
    int64_t ns = -1;
    if (c->opset < 13) {
        int n = op_attr_ints(c, "split", &split);
        ns = n;
        if (n < 0 && c->opset < 2 && op_in_value(c, 1))
            split = op_in_ints(c, 1, &ns);
    } else if (op_in_value(c, 1)) {
        split = op_in_ints(c, 1, &ns);
        if (!split) {
            for (int i = 0; i < nout; i++)
                op_out(c, i, t->dtype, t->rank);
            for (int i = 0; i < nout; i++)
                for (int k = 0; k < t->rank; k++)
                    if (k != axis && c->n->outputs[i])
                        c->n->outputs[i]->type.dims[k] = t->dims[k];
            return;
        }
    }
    for (int i = 0; i < nout; i++) {
        struct ir_dim *d = op_out(c, i, t->dtype, t->rank);
        for (int k = 0; k < t->rank; k++)
            d[k] = t->dims[k];
        if (split && ns >= 0) {
            d[axis] = i < ns ? dim_of(split[i]) : dim_unknown();
        } else if (dim_known(t->dims[axis])) {
            int64_t total = t->dims[axis].value;
            int64_t parts = op_attr_i(c, "num_outputs", nout);
            int64_t chunk = (total + parts - 1) / parts; /* the last part may be smaller */
            int64_t size = i < parts - 1 ? chunk : total - chunk * (parts - 1);
            d[axis] = dim_of(size);
        } else {
            d[axis] = dim_unknown();
        }
    }
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void infer_slice(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    const int64_t *starts, *ends, *axes = NULL, *steps = NULL;
    int64_t n, n_ends, n_axes = -1, n_steps = -1;
    if (c->opset < 10) {
        int a = op_attr_ints(c, "starts", &starts);
        int b = op_attr_ints(c, "ends", &ends);
        int ax = op_attr_ints(c, "axes", &axes);
        n = a;
        n_ends = b;
        n_axes = ax;
    } else {
        starts = op_in_ints(c, 1, &n);
        ends = op_in_ints(c, 2, &n_ends);
        if (op_in_value(c, 3)) {
            axes = op_in_ints(c, 3, &n_axes);
            if (!axes)
                n_axes = -2;
        }
        if (op_in_value(c, 4)) {
            steps = op_in_ints(c, 4, &n_steps);
            if (!steps)
                n_steps = -2;
        }
    }
    if (!starts || !ends || n != n_ends || n_axes == -2 || n_steps == -2) {
        /* rank is kept; which dims change is not known */
        op_out(c, 0, t->dtype, t->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, t->rank);
    for (int k = 0; k < t->rank; k++)
        d[k] = t->dims[k];
    int64_t begin_of[64], end_of[64], step_of[64];
    bool sliced[64] = {0};
    if (t->rank > 64)
        return;
    for (int64_t k = 0; k < n; k++) {
        int a = op_axis(c, axes && n_axes > k ? axes[k] : k, t->rank);
        if (a < 0)
            return;
        int64_t step = steps && n_steps > k ? steps[k] : 1;
        if (step == 0) {
            op_fail(c, "slice step is 0");
            return;
        }
        sliced[a] = true;
        step_of[a] = step;
        if (!dim_known(t->dims[a])) {
            d[a] = dim_unknown();
            begin_of[a] = end_of[a] = 0;
            continue;
        }
        int64_t dim = t->dims[a].value, s = starts[k], e = ends[k];
        if (s < 0)
            s += dim;
        if (e < 0)
            e += dim;
        if (step > 0) {
            s = clamp64(s, 0, dim);
            e = clamp64(e, 0, dim);
            d[a] = dim_of(e > s ? (e - s + step - 1) / step : 0);
        } else {
            s = clamp64(s, 0, dim - 1);
            e = clamp64(e, -1, dim - 1);
            d[a] = dim_of(s > e ? (s - e + (-step) - 1) / (-step) : 0);
        }
        begin_of[a] = s;
        end_of[a] = e;
    }
    /* slicing shape data */
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    if (sn >= 0 && sr == 1 && t->rank == 1 && dim_known(d[0])) {
        struct ir_dim buf[64];
        int cnt = 0;
        int64_t step = sliced[0] ? step_of[0] : 1, s = sliced[0] ? begin_of[0] : 0;
        for (int64_t k = 0; k < d[0].value && cnt < 64; k++)
            buf[cnt++] = sd[s + k * step];
        op_out_sym(c, 0, t->dtype, buf, cnt, 1);
    }
}

/* ---- Gather and friends ---- */

static void infer_gather(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0), *ix = op_in(c, 1);
    if (!t || !ix) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int axis = op_axis(c, op_attr_i(c, "axis", 0), t->rank);
    if (axis < 0)
        return;
    int r = t->rank - 1 + ix->rank;
    struct ir_dim *d = op_out(c, 0, t->dtype, r);
    int j = 0;
    for (int k = 0; k < axis; k++)
        d[j++] = t->dims[k];
    for (int k = 0; k < ix->rank; k++)
        d[j++] = ix->dims[k];
    for (int k = axis + 1; k < t->rank; k++)
        d[j++] = t->dims[k];
    /* gathering from shape data */
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 0, &sd, &sr);
    int64_t ni;
    const int64_t *idx = op_in_ints(c, 1, &ni);
    if (sn >= 0 && sr == 1 && idx && ix->rank <= 1) {
        struct ir_dim buf[64];
        for (int64_t k = 0; k < ni && k < 64; k++) {
            int64_t p = idx[k] < 0 ? idx[k] + sn : idx[k];
            if (p < 0 || p >= sn) {
                op_fail(c, "index %lld is out of range", (long long)idx[k]);
                return;
            }
            buf[k] = sd[p];
        }
        if (ni <= 64)
            op_out_sym(c, 0, t->dtype, buf, (int)ni, ix->rank);
        return;
    }
    /* gathering from a small known tensor */
    const struct ir_tensor *x = op_in_val(c, 0);
    const struct ir_value *ov = c->n->outputs[0];
    if (tensor_foldable(x) && idx && ov) {
        int64_t dims[64];
        bool all = r <= 64;
        for (int k = 0; all && k < r; k++) {
            all = dim_known(ov->type.dims[k]);
            dims[k] = ov->type.dims[k].value;
        }
        if (!all)
            return;
        struct ir_tensor *y = op_tensor_new(c, x->dtype, r, dims);
        if (!y->data_kept)
            return;
        int64_t outer = 1, inner = 1, axis_n = x->dims[axis];
        for (int k = 0; k < axis; k++)
            outer *= x->dims[k];
        for (int k = axis + 1; k < x->rank; k++)
            inner *= x->dims[k];
        int64_t o = 0;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t q = 0; q < ni; q++) {
                int64_t p = idx[q] < 0 ? idx[q] + axis_n : idx[q];
                for (int64_t b = 0; b < inner; b++) {
                    int64_t src = (a * axis_n + p) * inner + b;
                    double v = dtype_is_int(x->dtype) ? (double)tensor_get_i(x, src) : tensor_get_f(x, src);
                    tensor_set_f(y, o++, v);
                }
            }
        op_out_val(c, 0, y);
    }
}

/* output like input 1 in shape, input 0 in type (GatherElements) */
static void infer_gather_elements(struct infer_ctx *c)
{
    const struct ir_type *ix = op_in(c, 1);
    if (!ix) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    set_out_dims(c, 0, op_in_dtype(c, 0), ix->dims, ix->rank);
}

static void infer_gather_nd(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0), *ix = op_in(c, 1);
    if (!t || !ix || ix->rank < 1 || !dim_known(ix->dims[ix->rank - 1])) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int b = (int)op_attr_i(c, "batch_dims", 0);
    int64_t last = ix->dims[ix->rank - 1].value;
    int r = ix->rank - 1 + t->rank - (int)last - b;
    if (r < 0) {
        op_fail(c, "indices do not fit the data");
        return;
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, r);
    int j = 0;
    for (int k = 0; k < ix->rank - 1; k++)
        d[j++] = ix->dims[k];
    for (int k = b + (int)last; k < t->rank; k++)
        d[j++] = t->dims[k];
}

/* ---- Expand, Tile, Pad, DepthToSpace, SpaceToDepth ---- */

static void infer_expand(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    const struct ir_dim *sd;
    int sr;
    int sn = op_in_sym(c, 1, &sd, &sr);
    if (!t || sn < 0) {
        const struct ir_type *st = op_in(c, 1);
        if (t && st && st->rank == 1 && dim_known(st->dims[0]))
            op_out(c, 0, t->dtype, (int)(st->dims[0].value > t->rank ? st->dims[0].value : t->rank));
        else
            op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int r = sn > t->rank ? sn : t->rank;
    struct ir_dim *d = op_out(c, 0, t->dtype, r);
    for (int k = 0; k < r; k++) {
        int a = k - (r - t->rank), b = k - (r - sn);
        struct ir_dim x = a >= 0 ? t->dims[a] : dim_of(1);
        struct ir_dim y = b >= 0 ? dim_from_sym(sd[b]) : dim_of(1);
        if (dim_known(x) && x.value == 1)
            d[k] = y;
        else if (dim_known(y) && y.value == 1)
            d[k] = x;
        else if (dim_known(x))
            d[k] = x;
        else if (dim_known(y))
            d[k] = y;
        else
            d[k] = dim_same(x, y) ? x : dim_unknown();
    }
}

static void infer_tile(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int64_t n;
    const int64_t *rep = op_in_ints(c, 1, &n);
    if (!t) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, t->rank);
    if (!rep || n != t->rank)
        return;
    for (int k = 0; k < t->rank; k++)
        d[k] = dim_mul(t->dims[k], dim_of(rep[k]));
}

static void infer_pad(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    const int64_t *pads;
    int64_t np;
    if (c->opset < 11) {
        int k = op_attr_ints(c, c->opset < 2 ? "paddings" : "pads", &pads);
        np = k;
    } else {
        pads = op_in_ints(c, 1, &np);
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, t->rank);
    if (!pads)
        return;
    const int64_t *axes = NULL;
    int64_t na = t->rank;
    if (c->opset >= 18 && op_in_value(c, 3)) {
        axes = op_in_ints(c, 3, &na);
        if (!axes)
            return;
    }
    if (np != 2 * na) {
        op_fail(c, "pads has %lld values for %lld axes", (long long)np, (long long)na);
        return;
    }
    for (int k = 0; k < t->rank; k++)
        d[k] = t->dims[k];
    for (int64_t k = 0; k < na; k++) {
        int a = op_axis(c, axes ? axes[k] : k, t->rank);
        if (a < 0)
            return;
        int64_t sum;
        bool fits = !__builtin_add_overflow(t->dims[a].value, pads[k], &sum) &&
                    !__builtin_add_overflow(sum, pads[k + na], &sum);
        d[a] = dim_known(t->dims[a]) && fits ? dim_of(sum) : dim_unknown();
    }
}

static void infer_depth_space(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int64_t bs = op_attr_i(c, "blocksize", 1);
    if (!t || t->rank != 4 || bs <= 0) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    bool to_space = !strcmp(c->n->op_type, "DepthToSpace");
    struct ir_dim *d = op_out(c, 0, t->dtype, 4);
    d[0] = t->dims[0];
    struct ir_dim C = t->dims[1], H = t->dims[2], W = t->dims[3];
    if (to_space) {
        d[1] = dim_known(C) ? dim_of(C.value / (bs * bs)) : dim_unknown();
        d[2] = dim_mul(H, dim_of(bs));
        d[3] = dim_mul(W, dim_of(bs));
    } else {
        d[1] = dim_mul(C, dim_of(bs * bs));
        d[2] = dim_known(H) ? dim_of(H.value / bs) : dim_unknown();
        d[3] = dim_known(W) ? dim_of(W.value / bs) : dim_unknown();
    }
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
        const struct ir_type *st = op_in(c, 0);
        if (st && st->rank == 1 && dim_known(st->dims[0]))
            op_out(c, 0, dtype, (int)st->dims[0].value);
        else
            op_out_dtype_only(c, 0, dtype);
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

static void infer_range(struct infer_ctx *c)
{
    int dtype = op_in_dtype(c, 0);
    const struct ir_tensor *s = op_in_val(c, 0), *l = op_in_val(c, 1), *dl = op_in_val(c, 2);
    if (!s || !l || !dl) {
        op_out(c, 0, dtype, 1);
        return;
    }
    double start = tensor_get_f(s, 0), limit = tensor_get_f(l, 0), delta = tensor_get_f(dl, 0);
    if (delta == 0) {
        op_fail(c, "Range with delta 0");
        return;
    }
    double cnt = ceil((limit - start) / delta);
    int64_t n = cnt > 0 ? (int64_t)cnt : 0;
    int64_t dims[1] = {n};
    struct ir_tensor *t = op_tensor_new(c, dtype, 1, dims);
    if (t->data_kept) {
        for (int64_t k = 0; k < n; k++)
            tensor_set_f(t, k, start + (double)k * delta);
        op_out_val(c, 0, t);
    } else {
        op_out(c, 0, dtype, 1)[0] = dim_of(n);
    }
}

static void infer_nonzero(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_INT64, 2);
    if (t)
        d[0] = dim_of(t->rank);
}

static void infer_onehot(struct infer_ctx *c)
{
    const struct ir_type *ix = op_in(c, 0);
    if (!ix) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 2));
        return;
    }
    int r = ix->rank + 1;
    int axis = op_axis(c, op_attr_i(c, "axis", -1), r);
    if (axis < 0)
        return;
    const struct ir_tensor *depth = op_in_val(c, 1);
    struct ir_dim *d = op_out(c, 0, op_in_dtype(c, 2), r);
    for (int k = 0, j = 0; k < r; k++)
        d[k] = k == axis ? (depth ? dim_of((int64_t)tensor_get_f(depth, 0)) : dim_unknown()) : ix->dims[j++];
}

/* RandomUniformLike, RandomNormalLike, Bernoulli: the input's shape, dtype from the attribute */
static void infer_random_like(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int dtype = (int)op_attr_i(c, "dtype", op_in_dtype(c, 0));
    if (!t) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    set_out_dims(c, 0, dtype, t->dims, t->rank);
}

/* Multinomial: [batch, sample_size] of dtype (default int32) */
static void infer_multinomial(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    struct ir_dim *d = op_out(c, 0, (int)op_attr_i(c, "dtype", IR_DTYPE_INT32), 2);
    if (t && t->rank != 2) {
        op_fail(c, "Multinomial needs [batch, classes], not rank %d", t->rank);
        return;
    }
    d[0] = t ? t->dims[0] : dim_unknown();
    d[1] = dim_of(op_attr_i(c, "sample_size", 1));
}

/* RandomUniform, RandomNormal: shape and dtype from attributes */
static void infer_random(struct infer_ctx *c)
{
    const int64_t *shape;
    int n = op_attr_ints(c, "shape", &shape);
    int dtype = (int)op_attr_i(c, "dtype", IR_DTYPE_FLOAT);
    if (n < 0) {
        op_fail(c, "no 'shape' attribute");
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, n);
    for (int k = 0; k < n; k++)
        d[k] = dim_of(shape[k]);
}

static void infer_same_as_data(struct infer_ctx *c)
{
    infer_same_as_input(c);
}

/* Constant inputs that change what a layer computes are put in its key as attributes: a
 * value gen does not know is null there, and the CPU backend then refuses the layer rather
 * than guess it. */
const struct ir_tensor *canon_const_input(const struct canon_ctx *c, int i)
{
    const struct ir_value *v = i < c->n->n_inputs ? c->n->inputs[i] : NULL;
    return v && v->val && v->val->data_kept && v->val->nelem >= 1 ? v->val : NULL;
}

void canon_const_scalar(const struct canon_ctx *c, struct json_t *attrs, const char *name, int i, bool integer,
                        const double *dflt)
{
    if (i >= c->n->n_inputs || !c->n->inputs[i]) {
        if (dflt && integer)
            canon_set_i(attrs, name, (int64_t)*dflt);
        else if (dflt)
            canon_set_f(attrs, name, *dflt);
        return;
    }
    const struct ir_tensor *t = canon_const_input(c, i);
    if (!t || t->nelem != 1)
        json_object_set_new(attrs, name, json_null());
    else if (integer)
        canon_set_i(attrs, name, tensor_get_i(t, 0));
    else
        canon_set_f(attrs, name, tensor_get_f(t, 0));
}

static void canon_name_op(const struct canon_ctx *c, struct bz_buf *name)
{
    for (const char *p = c->n->op_type; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, canon_in(c, 0));
}

/* CumSum: the axis input (positive), exclusive and reverse with their defaults */
static void canon_cumsum(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_tensor *a = canon_const_input(c, 1);
    const struct ir_type *x = canon_in(c, 0);
    if (a && a->nelem == 1) {
        int64_t axis = tensor_get_i(a, 0);
        canon_set_i(attrs, "axis", axis < 0 ? axis + x->rank : axis);
    } else {
        json_object_set_new(attrs, "axis", json_null());
    }
    canon_default_i(c, attrs, "exclusive", 0);
    canon_default_i(c, attrs, "reverse", 0);
    canon_name_op(c, name);
}

/* Trilu: the diagonal k (input 1, default 0) and upper (default 1) */
static void canon_trilu(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_tensor *k = canon_const_input(c, 1);
    if (k && k->nelem == 1)
        canon_set_i(attrs, "k", tensor_get_i(k, 0));
    else if (c->n->n_inputs > 1 && c->n->inputs[1])
        json_object_set_new(attrs, "k", json_null());
    else
        canon_set_i(attrs, "k", 0);
    canon_default_i(c, attrs, "upper", 1);
    canon_name_op(c, name);
}

/* The ints of a constant input (count in *n), NULL when gen does not know them. */
static const struct ir_tensor *canon_ints(const struct canon_ctx *c, int i, int64_t *v, int max, int *n)
{
    const struct ir_tensor *t = canon_const_input(c, i);
    if (!t || t->nelem > max)
        return NULL;
    for (int64_t k = 0; k < t->nelem; k++)
        v[k] = tensor_get_i(t, k);
    *n = (int)t->nelem;
    return t;
}

static bool canon_has_input(const struct canon_ctx *c, int i)
{
    return i < c->n->n_inputs && c->n->inputs[i];
}

/* Pad: the padding of every dim (begin..., end...), whatever the opset gave (attribute,
 * input, input with axes), the mode, and the constant value; null where gen does not know. */
static void canon_pad(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int r = x->rank, known = r <= 8, n = 0, na = r;
    int64_t pads[16] = {0}, given[16], axes[8];
    const struct ir_attr *m = ir_node_attr(c->n, "mode");
    const char *mode = m && m->type == IR_ATTR_STRING ? m->u.s.data : "constant";
    double value = 0;
    bool value_known = true;
    for (int k = 0; k < 8; k++)
        axes[k] = k;
    if (c->opset < 11) {
        const struct ir_attr *a = ir_node_attr(c->n, c->opset < 2 ? "paddings" : "pads");
        known = known && a && a->type == IR_ATTR_INTS && (int)a->count == 2 * r;
        for (int k = 0; known && k < 2 * r; k++)
            given[k] = a->u.ints[k];
        n = 2 * r;
        value = ir_node_attr_float(c->n, "value", 0);
    } else {
        if (c->opset >= 18 && canon_has_input(c, 3))
            known = known && canon_ints(c, 3, axes, 8, &na);
        known = known && canon_ints(c, 1, given, 16, &n) && n == 2 * na;
        if (canon_has_input(c, 2)) {
            const struct ir_tensor *v = canon_const_input(c, 2);
            value_known = v && v->nelem == 1;
            value = value_known ? tensor_get_f(v, 0) : 0;
        }
    }
    for (int k = 0; known && k < na; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
        if (a < 0 || a >= r) {
            known = 0;
            break;
        }
        pads[a] = given[k];
        pads[a + r] = given[k + na];
    }
    json_object_del(attrs, "paddings");
    if (known)
        canon_set_ints(attrs, "pads", pads, 2 * r);
    else
        json_object_set_new(attrs, "pads", json_null());
    canon_set_s(attrs, "mode", mode);
    if (strcmp(mode, "constant") != 0)
        json_object_del(attrs, "value");
    else if (value_known)
        canon_set_f(attrs, "value", value);
    else
        json_object_set_new(attrs, "value", json_null());
    canon_name_op(c, name);
    if (strcmp(mode, "constant") != 0)
        bz_buf_printf(name, "_%s", mode);
}

/* Slice: where each dim's window starts and its step (the output's dims say how many), from
 * the attributes or the inputs, clamped as ONNX clamps them; null where gen does not know. */
static void canon_slice(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int r = x->rank, known = r <= 8, n = 0, ne = 0, na = -1, ns = -1;
    int64_t starts[8], ends[8], axes[8], steps[8], begin[8], step[8];
    if (c->opset < 10) {
        const struct ir_attr *a = NULL;
        known = known && (a = ir_node_attr(c->n, "starts")) && a->type == IR_ATTR_INTS && a->count <= 8;
        for (int k = 0; known && k < (int)a->count; k++)
            starts[n++] = a->u.ints[k];
        known = known && (a = ir_node_attr(c->n, "ends")) && a->type == IR_ATTR_INTS && (int)a->count == n;
        for (int k = 0; known && k < n; k++)
            ends[k] = a->u.ints[k];
        if (known && (a = ir_node_attr(c->n, "axes")) && a->type == IR_ATTR_INTS && (int)a->count == n) {
            na = n;
            for (int k = 0; k < n; k++)
                axes[k] = a->u.ints[k];
        }
    } else {
        known = known && canon_ints(c, 1, starts, 8, &n) && canon_ints(c, 2, ends, 8, &ne) && ne == n;
        if (known && canon_has_input(c, 3))
            known = canon_ints(c, 3, axes, 8, &na) && na == n;
        if (known && canon_has_input(c, 4))
            known = canon_ints(c, 4, steps, 8, &ns) && ns == n;
    }
    for (int k = 0; k < r && k < 8; k++) {
        begin[k] = 0;
        step[k] = 1;
    }
    for (int k = 0; known && k < n; k++) {
        int64_t a = na >= 0 ? axes[k] : k, st = ns >= 0 ? steps[k] : 1;
        if (a < 0)
            a += r;
        if (a < 0 || a >= r || st == 0 || x->dims[a].value < 0) {
            known = 0;
            break;
        }
        int64_t dim = x->dims[a].value, b = starts[k] < 0 ? starts[k] + dim : starts[k];
        b = st > 0 ? (b < 0 ? 0 : b > dim ? dim : b) : (b < 0 ? 0 : b > dim - 1 ? dim - 1 : b);
        begin[a] = b;
        step[a] = st;
    }
    json_object_del(attrs, "ends");
    json_object_del(attrs, "axes");
    if (known) {
        canon_set_ints(attrs, "starts", begin, r);
        canon_set_ints(attrs, "steps", step, r);
    } else {
        json_object_set_new(attrs, "starts", json_null());
        json_object_set_new(attrs, "steps", json_null());
    }
    canon_name_op(c, name);
}

#define TENSOR_OPS(X)                                                                              \
    X(Shape, infer_shape, OP_FREE, NULL) X(Size, infer_size, OP_FREE, NULL)                         \
    X(Reshape, infer_reshape, OP_FREE, NULL) X(Flatten, infer_flatten, OP_FREE, NULL)               \
    X(Squeeze, infer_squeeze, OP_FREE, NULL) X(Unsqueeze, infer_unsqueeze, OP_FREE, NULL)           \
    X(Transpose, infer_transpose, 0, NULL) X(Concat, infer_concat, 0, NULL)                         \
    X(Split, infer_split, 0, NULL) X(Slice, infer_slice, 0, canon_slice) X(Gather, infer_gather, 0, NULL)  \
    X(GatherElements, infer_gather_elements, 0, NULL) X(GatherND, infer_gather_nd, 0, NULL)          \
    X(ScatterND, infer_same_as_data, 0, NULL) X(ScatterElements, infer_same_as_data, 0, NULL)       \
    X(Scatter, infer_same_as_data, 0, NULL) X(Expand, infer_expand, 0, NULL)                        \
    X(Tile, infer_tile, 0, NULL) X(Pad, infer_pad, 0, canon_pad)                                     \
    X(DepthToSpace, infer_depth_space, 0, NULL) X(SpaceToDepth, infer_depth_space, 0, NULL)         \
    X(Constant, infer_constant, OP_FREE, NULL) X(ConstantOfShape, infer_constant_of_shape, 0, NULL) \
    X(Range, infer_range, 0, NULL) X(NonZero, infer_nonzero, OP_DATA_SIZED, NULL) X(OneHot, infer_onehot, 0, NULL) \
    X(Trilu, infer_same_as_data, 0, canon_trilu) X(CumSum, infer_same_as_data, 0, canon_cumsum)     \
    X(ReverseSequence, infer_same_as_data, 0, NULL) X(EyeLike, infer_random_like, 0, NULL)              \
    X(RandomUniformLike, infer_random_like, 0, NULL) X(RandomNormalLike, infer_random_like, 0, NULL) \
    X(Bernoulli, infer_random_like, 0, NULL) X(RandomUniform, infer_random, 0, NULL)                \
    X(RandomNormal, infer_random, 0, NULL) X(Multinomial, infer_multinomial, 0, NULL)

#define AS_DEF(name, fn, flags, canon) {#name, fn, flags, canon},
const struct op_def ops_tensor[] = {TENSOR_OPS(AS_DEF){NULL, NULL, 0, NULL}};
