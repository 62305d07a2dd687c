/* Data movement: Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad, DepthToSpace and
 * SpaceToDepth: their shapes (shape data carried through Concat, Slice and Gather), keys (Pad's
 * and Slice's constant inputs in them) and how each backend benchmarks them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* ---- Transpose, Concat, Split, Slice ---- */

static void infer_transpose(struct infer_ctx *c)
{
    const struct ir_type *t = op_in_known(c, 0);
    if (!t)
        return;
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
    const struct ir_type *t = op_in_known(c, 0);
    if (!t)
        return;
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
    const struct ir_type *t = op_in_known(c, 0);
    if (!t)
        return;
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

/* ---- backends ---- */

enum { MOVE_D2S = 1 };

/* a permutation as a oneDNN reorder: op.src the view read, op.perm its order in the output */
static int reorder_finish(struct cpu_plan *p)
{
    p->op.family = BD_REORDER;
    p->op.dst = p->op.src;
    plan_arg(p, "DNNL_ARG_FROM", 0, 0);
    plan_arg(p, "DNNL_ARG_TO", 1, 0);
    return 0;
}

/* Transpose as a oneDNN reorder: the logical dims the input's, the layout the permutation */
static int transpose_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    for (int k = 0; k < p->op.src.nd; k++)
        p->op.perm[k] = d->a.perm.n ? (int)d->a.perm.v[k] : p->op.src.nd - 1 - k;
    return reorder_finish(p);
}

/* DepthToSpace and SpaceToDepth: a permutation of a 6-D view of the input: DepthToSpace DCR
 * reads [N,b,b,C',H,W] as [N,C',H,b,W,b], CRD reads [N,C',b,b,H,W]; SpaceToDepth reads
 * [N,C,H',b,W',b] as [N,b,b,C,H',W'] */
static int depth_space_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    struct bd_op *op = &p->op;
    const struct bd_tensor x = op->src;
    int64_t bs = d->a.blocksize;
    if (x.nd != 4 || bs < 1)
        return -1;
    int64_t N = x.d[0], C = x.d[1], H = x.d[2], W = x.d[3];
    if (d->def->ids.variant == MOVE_D2S) {
        if (C % (bs * bs))
            return -1;
        bool crd = !strcmp(d->a.mode, "CRD");
        static const int dcr[6] = {0, 3, 4, 1, 5, 2}, crd_perm[6] = {0, 1, 4, 2, 5, 3};
        op->src = crd ? (struct bd_tensor){6, {N, C / (bs * bs), bs, bs, H, W}}
                      : (struct bd_tensor){6, {N, bs, bs, C / (bs * bs), H, W}};
        memcpy(op->perm, crd ? crd_perm : dcr, sizeof(dcr));
    } else {
        if (H % bs || W % bs)
            return -1;
        static const int s2d[6] = {0, 3, 5, 1, 2, 4};
        op->src = (struct bd_tensor){6, {N, C, H / bs, bs, W / bs, bs}};
        memcpy(op->perm, s2d, sizeof(s2d));
    }
    return reorder_finish(p);
}

/* Concat: oneDNN's concat primitive, in every activation layout (and plain C: concat_plain) */
static int concat_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    struct bd_op *op = &p->op;
    int n = d->nin;
    if (n < 2 || n > BD_MAX_CAT || plan_bd_tensor(desc_in(d, 1), &op->src1))
        return -1;
    for (int i = 2; i < n; i++)
        if (plan_bd_tensor(desc_in(d, i), &op->cat[i - 2]))
            return -1;
    op->ncat = n - 2;
    op->family = BD_CONCAT;
    op->axis = (int)d->a.axis;
    if (op->axis < 0)
        op->axis += op->src.nd;
    p->layouts = BD_LAYOUT_COUNT;
    static char srcs[BD_MAX_CAT][48];
    for (int i = 0; i < n; i++) {
        snprintf(srcs[i], sizeof(srcs[i]), "DNNL_ARG_MULTIPLE_SRC + %d", i);
        plan_arg(p, srcs[i], 0, 0);
    }
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->bytes = 8.0 * (double)plan_bd_count(&op->dst);
    return 0;
}

/* Concat in plain C too (what ONNX Runtime's Concat is: a copy of each piece's rows): Split's
 * copy the other way (PL_SPLIT, flag 1), its input the pieces one after the other */
static int concat_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_SPLIT, PL_IDENTITY, 0, op))
        return -1;
    int n = d->nin, nd = op->out.nd;
    int64_t axis = d->a.axis < 0 ? d->a.axis + nd : d->a.axis;
    if (n < 1 || n > PL_MAX_PIECES || axis < 0 || axis >= nd)
        return -1;
    int64_t sum = 0;
    for (int j = 0; j < n; j++) {
        struct pl_tensor t;
        if (plan_pl_tensor(desc_in(d, j), &t) || t.nd != nd || t.dtype != op->out.dtype)
            return -1;
        op->split[j] = t.d[axis];
        sum += t.d[axis];
    }
    if (sum != op->out.d[axis])
        return -1;
    op->nsplit = n;
    op->axis = (int)axis;
    op->flag = 1;
    op->nin = 1;
    op->in[0] = op->out;
    return 0;
}

/* a Concat neither oneDNN nor plain C takes says why */
static int concat_why_not(const struct layer_desc *d, char *why, size_t why_len)
{
    if (d->nout && desc_out(d, 0)->dtype == IR_DTYPE_STRING)
        snprintf(why, why_len, "a Concat of strings is not benchmarked");
    else if (d->nin > PL_MAX_PIECES)
        snprintf(why, why_len, "%d inputs: oneDNN's concat takes up to %d of a float type, plain C up to %d",
                 d->nin, BD_MAX_CAT, PL_MAX_PIECES);
    else
        return -1;
    return 0;
}

static int expand_plain(const struct layer_desc *d, struct pl_op *op)
{
    return plan_pl_start(d, PL_EXPAND, PL_IDENTITY, -1, op);
}

static int gather_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_GATHER, PL_IDENTITY, -1, op))
        return -1;
    op->axis = (int)(d->a.axis < 0 ? d->a.axis + op->in[0].nd : d->a.axis);
    op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
    return 0;
}

static int split_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_SPLIT, PL_IDENTITY, -1, op))
        return -1;
    int64_t axis = d->a.axis < 0 ? d->a.axis + op->in[0].nd : d->a.axis;
    if (axis < 0 || axis >= op->in[0].nd)
        return -1;
    op->axis = (int)axis;
    /* the pieces' sizes from the outputs' shapes; out: the pieces one after the other */
    int n = d->nout;
    if (n < 1 || n > (int)BZ_ARRAY_LEN(op->split))
        return -1;
    for (int j = 0; j < n; j++) {
        struct pl_tensor t;
        if (plan_pl_tensor(desc_out(d, j), &t) || t.nd != op->in[0].nd)
            return -1;
        op->split[j] = t.d[op->axis];
    }
    op->nsplit = n;
    op->out = op->in[0];
    return 0;
}

/* Tile: every output element reads input coordinate mod the input dim */
static int tile_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_MAP, PL_IDENTITY, -1, op) || op->in[0].nd != op->out.nd)
        return -1;
    op->map = PL_MAP_TILE;
    return 0;
}

/* Pad: the padding as the key gives it (a negative one crops); modes constant (with its value),
 * reflect, edge, wrap; pads gen did not know: the same work split evenly (constant mode) */
static int pad_plain(const struct layer_desc *d, struct pl_op *op)
{
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
    if (plan_pl_start(d, PL_MAP, PL_IDENTITY, -1, op) || op->in[0].nd != op->out.nd)
        return -1;
    const struct pl_tensor *x = &op->in[0];
    op->map = PL_MAP_PAD;
    op->flag = -1;
    for (int j = 0; j < 4; j++)
        if (!strcmp(d->a.mode, modes[j]))
            op->flag = j;
    if (op->flag < 0 || (desc_present(d, DA_value) && !desc_known(d, DA_value)))
        return -1;
    op->alpha = (float)d->a.value;
    for (int k = 0; k < x->nd; k++) {
        int64_t extra = op->out.d[k] - x->d[k];
        if (d->a.pads.n == 2 * x->nd) {
            int64_t b = d->a.pads.v[k], e = d->a.pads.v[k + x->nd];
            if (b + e != extra)
                return -1;
            op->start[k] = -b;
        } else {
            if (extra < 0 || op->flag != 0)
                return -1;
            op->start[k] = -(extra / 2);
        }
        op->step[k] = 1;
        /* reflect mirrors once: pads of at most dim - 1; edge and wrap need data */
        if ((op->flag == 1 && (-op->start[k] > x->d[k] - 1 || op->start[k] + op->out.d[k] - 1 > 2 * (x->d[k] - 1))) ||
            (op->flag >= 2 && x->d[k] == 0 && op->out.d[k] > 0))
            return -1;
    }
    return 0;
}

/* Slice: each dim's window from its start in steps, as the key gives them (else a window at 0
 * with unit steps: the same work, placed where gen could not know) */
static int slice_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_MAP, PL_IDENTITY, -1, op) || op->in[0].nd != op->out.nd)
        return -1;
    const struct pl_tensor *x = &op->in[0];
    op->map = PL_MAP_SLICE;
    bool known = d->a.starts.n == x->nd && d->a.steps.n == x->nd;
    for (int k = 0; k < x->nd; k++) {
        op->start[k] = known ? d->a.starts.v[k] : 0;
        op->step[k] = known ? d->a.steps.v[k] : 1;
        int64_t last = op->start[k] + op->step[k] * (op->out.d[k] - 1);
        if (op->out.d[k] > 0 && (op->step[k] == 0 || op->start[k] < 0 || op->start[k] >= x->d[k] || last < 0 ||
                                 last >= x->d[k]))
            return -1; /* the window must lie inside the input */
    }
    return 0;
}

static int transpose_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (plan_ck_tensor(desc_in(d, 0), &k->pl.in[0]) || plan_ck_tensor(desc_out(d, 0), &k->pl.out))
        return -1;
    int nd = k->pl.in[0].nd;
    for (int j = 0; j < nd; j++)
        k->perm[j] = d->a.perm.n ? (int)d->a.perm.v[j] : nd - 1 - j;
    k->kind = CK_TRANSPOSE;
    k->what = "Transpose";
    plan_ck_finish(k);
    return 0;
}

/* A 4-D Transpose between NCHW and NHWC (a layout plan's change, gen's relayout layers, or a
 * model's own): cudnnTransformTensor, in every plain type, beside our kernel */
static int transpose_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    struct cu_tensor in, out;
    if (plan_cu_tensor(desc_in(d, 0), &in) || plan_cu_tensor(desc_out(d, 0), &out) || in.nd != 4 ||
        d->a.perm.n != 4)
        return -1;
    static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
    bool fwd = !memcmp(d->a.perm.v, to_nhwc, sizeof(to_nhwc)), back = !memcmp(d->a.perm.v, to_nchw, sizeof(to_nchw));
    if (!fwd && !back)
        return -1;
    /* x and y: the logical NCHW tensor, the layouts in the mode */
    p->x = fwd ? in : out;
    p->y = p->x;
    p->mode = fwd ? "0" : "1";
    p->family = CU_RELAYOUT;
    p->what = "cudnnTransformTensor";
    plan_cu_note(p, "%s", fwd ? "NCHW -> NHWC" : "NHWC -> NCHW");
    p->flops = 0;
    p->elems = 2.0 * (double)plan_cu_count(&p->x);
    return 0;
}

static int concat_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    int n = d->nin;
    if (n < 1 || n > 64 || plan_ck_tensor(desc_out(d, 0), &k->pl.out))
        return -1;
    for (int i = 0; i < n; i++)
        if (plan_ck_tensor(desc_in(d, i), &k->cat[i]))
            return -1;
    k->pl.in[0] = k->cat[0];
    k->ncat = n;
    k->axis = (int)d->a.axis;
    if (k->axis < 0)
        k->axis += k->pl.out.nd;
    k->kind = CK_CONCAT;
    k->what = "Concat";
    plan_ck_finish(k);
    return 0;
}

static const struct op_plans transpose_plans = {transpose_dnnl, NULL, transpose_cudnn, transpose_kernel, NULL,
    PLAN_KERNEL_TOO, .how = {"oneDNN reorder", NULL, "cudnnTransformTensor (4-D, NCHW <-> NHWC)", "kernel of ours"}};
static const struct op_plans depth_space_plans = {depth_space_dnnl, NULL, NULL, NULL, NULL, 0,
    .how = {"oneDNN reorder of a 6-D view", NULL, NULL, NULL}};
static const struct op_plans concat_plans = {concat_dnnl, concat_plain, NULL, concat_kernel, concat_why_not,
    PLAN_PLAIN_TOO | PLAN_PLAIN_TYPES, .how = {"oneDNN concat", "plain C", NULL, "kernel of ours"}};
static const struct op_plans expand_plans = {NULL, expand_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};
static const struct op_plans gather_plans = {NULL, gather_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};
static const struct op_plans split_plans = {NULL, split_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};
static const struct op_plans tile_plans = {NULL, tile_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};
static const struct op_plans pad_plans = {NULL, pad_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C (every mode)", NULL, "kernel of ours"}};
static const struct op_plans slice_plans = {NULL, slice_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};

static const struct op_attr transpose_attrs[] = {ATTR(perm, 0), ATTR_END};
static const struct op_attr axis0[] = {ATTR(axis, 0), ATTR_END};
static const struct op_attr slice_attrs[] = {ATTR(starts, 0), ATTR(steps, 0), ATTR_END};
static const struct op_attr pad_attrs[] = {ATTR(pads, 0), ATTR_S(mode, "constant"), ATTR(value, 0), ATTR_END};
static const struct op_attr depth_space_attrs[] = {ATTR_MIN(blocksize, 0, 1), ATTR_S(mode, "DCR"), ATTR_END};

const struct op_def ops_movement[] = {
    {"Transpose", infer_transpose, 0, NULL, transpose_attrs, &transpose_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Concat", infer_concat, 0, NULL, axis0, &concat_plans, {0}, .schema = OP_SCHEMA(1, 255, 1, 1, 0x0, 1, 0)},
    {"Split", infer_split, 0, NULL, axis0, &split_plans, {0}, .schema = OP_SCHEMA(1, 2, 1, 255, 0x1, 1, 0)},
    {"Slice", infer_slice, 0, canon_slice, slice_attrs, &slice_plans, {0}, .schema = OP_SCHEMA(1, 5, 1, 1, 0x1, 1, 0)},
    {"Gather", infer_gather, 0, NULL, axis0, &gather_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0)},
    {"Expand", infer_expand, 0, NULL, NULL, &expand_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 8, 0)},
    {"Tile", infer_tile, 0, NULL, NULL, &tile_plans, {0}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 1, 0)},
    {"Pad", infer_pad, 0, canon_pad, pad_attrs, &pad_plans, {0}, .schema = OP_SCHEMA(1, 4, 1, 1, 0x1, 1, 0)},
    {"DepthToSpace", infer_depth_space, 0, NULL, depth_space_attrs, &depth_space_plans, {.variant = MOVE_D2S}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"SpaceToDepth", infer_depth_space, 0, NULL, depth_space_attrs, &depth_space_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {0},
};
