/* Resize and Upsample: output dims from sizes, or from scales (floor(in * scale)). */
#include <math.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

static void scale_dims(struct infer_ctx *c, const struct ir_type *x, const double *sc, int n,
                       const int64_t *axes)
{
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    for (int k = 0; k < x->rank; k++)
        d[k] = x->dims[k];
    for (int k = 0; k < n; k++) {
        int a = axes ? op_axis(c, axes[k], x->rank) : k;
        if (a < 0)
            return;
        d[a] = dim_known(x->dims[a]) ? dim_of((int64_t)floor((double)x->dims[a].value * sc[k] + 1e-9))
                                     : dim_unknown();
    }
}

static void infer_resize(struct infer_ctx *c)
{
    const struct ir_type *x = op_in_known(c, 0);
    if (!x)
        return;
    const int64_t *axes = NULL;
    int na = c->opset >= 18 ? op_attr_ints(c, "axes", &axes) : -1;
    int n_exp = na >= 0 ? na : x->rank;
    double sc[64];
    if (x->rank > 64)
        return;
    if (!strcmp(c->n->op_type, "Upsample") && c->opset < 9) {
        const struct ir_attr *a = ir_node_attr(c->n, "scales");
        if (!a || a->type != IR_ATTR_FLOATS || (int)a->count != x->rank) {
            op_fail(c, "Upsample needs %d scales", x->rank);
            return;
        }
        for (int k = 0; k < x->rank; k++)
            sc[k] = a->u.floats[k];
        scale_dims(c, x, sc, x->rank, NULL);
        return;
    }
    int scales_in = c->opset >= 11 && !strcmp(c->n->op_type, "Resize") ? 2 : 1;
    /* sizes (opset 11+) win when given */
    if (scales_in == 2 && op_in_value(c, 3)) {
        const struct ir_dim *sd;
        int sr;
        int sn = op_in_sym(c, 3, &sd, &sr);
        if (sn == n_exp) {
            struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
            for (int k = 0; k < x->rank; k++)
                d[k] = x->dims[k];
            const char *policy = op_attr_s(c, "keep_aspect_ratio_policy", "stretch");
            if (strcmp(policy, "stretch") != 0) {
                /* one scale for all axes: the smallest (not_larger) or largest (not_smaller) */
                double s = -1;
                for (int k = 0; k < sn; k++) {
                    int a = axes ? op_axis(c, axes[k], x->rank) : k;
                    if (a < 0 || !sym_known(sd[k]) || !dim_known(x->dims[a]))
                        return;
                    double r = (double)sd[k].value / (double)x->dims[a].value;
                    if (s < 0 || (!strcmp(policy, "not_larger") ? r < s : r > s))
                        s = r;
                }
                for (int k = 0; k < sn; k++) {
                    int a = axes ? (int)axes[k] : k;
                    if (a < 0)
                        a += x->rank;
                    d[a] = dim_of((int64_t)floor((double)x->dims[a].value * s + 0.5));
                }
                return;
            }
            for (int k = 0; k < sn; k++) {
                int a = axes ? op_axis(c, axes[k], x->rank) : k;
                if (a < 0)
                    return;
                d[a] = dim_from_sym(sd[k]);
            }
            return;
        }
    }
    const struct ir_tensor *s = op_in_val(c, scales_in);
    if (s && s->nelem == n_exp && dtype_is_float(s->dtype)) {
        for (int k = 0; k < n_exp; k++)
            sc[k] = tensor_get_f(s, k);
        scale_dims(c, x, sc, n_exp, axes);
        return;
    }
    op_out(c, 0, x->dtype, x->rank);
}

/* The key of a Resize/Upsample says everything its output's values depend on, ONNX's defaults
 * filled in: mode, coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside, extrapolation_value, antialias; "scales", the scale of every dim (1 where
 * not resized) as the coordinate transformation uses it (the given scales, or output/input
 * when sizes were given); "roi" (starts..., ends... of every dim) for tf_crop_and_resize.
 * Before opset 11 (Upsample, Resize-10) the coordinates are asymmetric and nearest rounds
 * down. A scale or roi gen does not know is null: the plain C benchmark then refuses the
 * layer (oneDNN's resampling needs only the shapes). */
static void canon_resize(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0), *y = canon_out(c, 0);
    int r = x->rank;
    bool upsample = !strcmp(c->n->op_type, "Upsample"), v11 = !upsample && c->opset >= 11;
    const struct ir_attr *ma = ir_node_attr(c->n, "mode");
    const char *mode = ma && ma->type == IR_ATTR_STRING ? ma->u.s.data : "nearest";
    canon_set_s(attrs, "mode", !strcmp(mode, "bilinear") ? "linear" : mode);
    if (v11) {
        const struct ir_attr *a = ir_node_attr(c->n, "coordinate_transformation_mode");
        canon_set_s(attrs, "coordinate_transformation_mode",
                    a && a->type == IR_ATTR_STRING ? a->u.s.data : "half_pixel");
        a = ir_node_attr(c->n, "nearest_mode");
        canon_set_s(attrs, "nearest_mode", a && a->type == IR_ATTR_STRING ? a->u.s.data : "round_prefer_floor");
    } else {
        canon_set_s(attrs, "coordinate_transformation_mode", "asymmetric");
        canon_set_s(attrs, "nearest_mode", "floor");
    }
    canon_default_f(c, attrs, "cubic_coeff_a", -0.75);
    canon_default_i(c, attrs, "exclude_outside", 0);
    canon_default_f(c, attrs, "extrapolation_value", 0);
    canon_default_i(c, attrs, "antialias", 0);
    json_object_del(attrs, "keep_aspect_ratio_policy");
    json_object_del(attrs, "axes");
    json_object_del(attrs, "scales");
    /* the dims the scales and roi name (opset 18's axes), in order */
    int64_t axes[64];
    int na = r;
    const int64_t *av = NULL;
    const struct ir_attr *aa = v11 && c->opset >= 18 ? ir_node_attr(c->n, "axes") : NULL;
    if (aa && aa->type == IR_ATTR_INTS) {
        av = aa->u.ints;
        na = (int)aa->count;
    }
    bool known = r <= 64 && na <= r;
    for (int k = 0; known && k < na; k++) {
        axes[k] = av ? (av[k] < 0 ? av[k] + r : av[k]) : k;
        known = axes[k] >= 0 && axes[k] < r;
    }
    double sc[64];
    for (int k = 0; k < r && k < 64; k++)
        sc[k] = 1;
    const struct ir_tensor *sizes = v11 ? canon_const_input(c, 3) : NULL;
    const struct ir_tensor *scales = upsample && c->opset < 9 ? NULL : canon_const_input(c, v11 ? 2 : 1);
    const char *policy = "stretch";
    const struct ir_attr *pa = ir_node_attr(c->n, "keep_aspect_ratio_policy");
    if (pa && pa->type == IR_ATTR_STRING && c->opset >= 18)
        policy = pa->u.s.data;
    if (upsample && c->opset < 9) {
        const struct ir_attr *a = ir_node_attr(c->n, "scales");
        known = known && a && a->type == IR_ATTR_FLOATS && (int)a->count == r;
        for (int k = 0; known && k < r; k++)
            sc[k] = a->u.floats[k];
    } else if (v11 && c->n->n_inputs > 3 && c->n->inputs[3]) {
        /* sizes: output / input (the shapes say it where gen does not know the sizes), or one
         * scale for every axis under a keep-aspect policy */
        bool stretch = !strcmp(policy, "stretch");
        known = known && (sizes ? sizes->nelem == na : stretch);
        double common = -1;
        for (int k = 0; known && k < na; k++) {
            int64_t size = sizes ? tensor_get_i(sizes, k) : y->dims[axes[k]].value;
            double q = (double)size / (double)x->dims[axes[k]].value;
            sc[axes[k]] = q;
            if (common < 0 || (!strcmp(policy, "not_larger") ? q < common : q > common))
                common = q;
        }
        for (int k = 0; known && k < na && strcmp(policy, "stretch") != 0; k++)
            sc[axes[k]] = common;
    } else {
        known = known && scales && scales->nelem == na && dtype_is_float(scales->dtype);
        for (int k = 0; known && k < na; k++)
            sc[axes[k]] = tensor_get_f(scales, k);
    }
    if (known) {
        json_t *list = json_array();
        for (int k = 0; k < r; k++)
            json_array_append_new(list, json_real(sc[k]));
        json_object_set_new(attrs, "scales", list);
    } else {
        json_object_set_new(attrs, "scales", json_null());
    }
    json_object_del(attrs, "roi");
    const struct ir_attr *cm = ir_node_attr(c->n, "coordinate_transformation_mode");
    if (v11 && cm && cm->type == IR_ATTR_STRING && !strcmp(cm->u.s.data, "tf_crop_and_resize")) {
        const struct ir_tensor *roi = canon_const_input(c, 1);
        bool rk = known && roi && roi->nelem == 2 * na && dtype_is_float(roi->dtype);
        json_t *list = rk ? json_array() : json_null();
        for (int e = 0; rk && e < 2; e++)
            for (int k = 0; k < r; k++) {
                double v = e; /* the whole dim where not resized */
                for (int j = 0; j < na; j++)
                    if (axes[j] == k)
                        v = tensor_get_f(roi, e * na + j);
                json_array_append_new(list, json_real(v));
            }
        json_object_set_new(attrs, "roi", list);
    }
    bz_buf_printf(name, "%s_", upsample ? "upsample" : "resize");
    canon_name_dims(name, x);
    bz_buf_printf(name, "_to_");
    canon_name_dims(name, y);
    bz_buf_printf(name, "_%s", json_string_value(json_object_get(attrs, "mode")));
}

/* GridSample: X [N, C, D1..Dr] sampled at grid [N, H1..Hr, r] -> [N, C, H1..Hr] */
static void infer_grid_sample(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *g = op_in(c, 1);
    int dtype = op_in_dtype(c, 0);
    if (!x || !g) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    if (x->rank < 3 || g->rank != x->rank) {
        op_fail(c, "GridSample's input (rank %d) and grid (rank %d) do not fit", x->rank, g->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, x->rank);
    d[0] = dim_known(x->dims[0]) ? x->dims[0] : g->dims[0];
    d[1] = x->dims[1];
    for (int k = 2; k < x->rank; k++)
        d[k] = g->dims[k - 1];
}

/* GridSample: the modes under their opset 20 names, defaults filled in */
static void canon_grid_sample(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "mode");
    const char *mode = a && a->type == IR_ATTR_STRING ? a->u.s.data : c->opset >= 20 ? "linear" : "bilinear";
    mode = !strcmp(mode, "bilinear") ? "linear" : !strcmp(mode, "bicubic") ? "cubic" : mode;
    canon_set_s(attrs, "mode", mode);
    a = ir_node_attr(c->n, "padding_mode");
    canon_set_s(attrs, "padding_mode", a && a->type == IR_ATTR_STRING ? a->u.s.data : "zeros");
    canon_default_i(c, attrs, "align_corners", 0);
    bz_buf_puts(name, "gridsample_");
    canon_name_dims(name, canon_in(c, 0));
    bz_buf_puts(name, "_to_");
    canon_name_dims(name, canon_out(c, 0));
    bz_buf_printf(name, "_%s", mode);
}

/* ---- backends ---- */

/* index of s in list (n names), or -1 */
static int name_index(const char *s, const char *const *list, int n)
{
    for (int i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return i;
    return -1;
}

/* oneDNN resamples the spatial dims at half-pixel positions, nearest and linear: other ONNX
 * coordinate modes are the same work at shifted positions (the plain C benchmark beside it
 * computes the layer's own values) */
static int resize_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    if (which || plan_dnnl_start(d, p))
        return -1;
    struct bd_op *op = &p->op;
    const char *mode = d->a.mode;
    const struct bd_tensor *x = &op->src, *y = &op->dst;
    if (x->nd < 3 || x->nd > 5)
        return -1;
    if (!strcmp(mode, "nearest"))
        op->alg = dnnl_resampling_nearest;
    else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
        op->alg = dnnl_resampling_linear;
    else
        return -1; /* cubic: oneDNN has none */
    if (x->d[0] != y->d[0] || x->d[1] != y->d[1])
        return -1;
    op->family = BD_RESAMPLING;
    p->algs[0] = op->alg;
    p->layouts = BD_LAYOUT_COUNT;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = (double)plan_bd_count(y) * (op->alg == dnnl_resampling_linear ? 8.0 : 1.0);
    return 0;
}

/* Resize/Upsample and GridSample in plain C: the modes, scales and roi from the key; refused
 * where the key does not say them */
static int sample_plain(const struct layer_desc *d, struct pl_op *op)
{
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    if (plan_pl_start(d, d->def->ids.pl_kind, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    struct pl_sample *rs = &op->rs;
    const char *mode = d->a.mode;
    rs->mode = name_index(!strcmp(mode, "bilinear") ? "linear" : !strcmp(mode, "bicubic") ? "cubic" : mode, modes, 3);
    if (rs->mode < 0 || x->dtype == PL_BOOL || op->out.dtype != x->dtype)
        return -1;
    if (op->kind == PL_GRID_SAMPLE) {
        /* X [N, C, D1..Dr], grid [N, H1..Hr, r] -> [N, C, H1..Hr] */
        static const char *const pads[] = {"zeros", "border", "reflection"};
        const struct pl_tensor *g = &op->in[1];
        int r = x->nd - 2;
        rs->nearest = name_index(d->a.padding_mode, pads, 3);
        rs->coord = d->a.align_corners != 0;
        if (r < 1 || r > 5 || rs->nearest < 0 || !pl_is_float(g->dtype) || g->nd != x->nd || g->d[x->nd - 1] != r ||
            op->out.nd != x->nd || g->d[0] != x->d[0] || op->out.d[0] != x->d[0] || op->out.d[1] != x->d[1])
            return -1;
        for (int k = 0; k < r; k++)
            if (op->out.d[2 + k] != g->d[1 + k])
                return -1;
        return 0;
    }
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                         "asymmetric", "tf_crop_and_resize"};
    static const char *const rounds[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    rs->coord = name_index(d->a.coordinate_transformation_mode, coords, 6);
    rs->nearest = name_index(d->a.nearest_mode, rounds, 4);
    rs->cubic_a = d->a.cubic_coeff_a;
    rs->exclude_outside = d->a.exclude_outside != 0;
    rs->extrapolation = d->a.extrapolation_value;
    rs->antialias = d->a.antialias != 0;
    if (rs->coord < 0 || rs->nearest < 0 || x->nd != op->out.nd || d->a.scales.n != x->nd ||
        (rs->antialias && rs->mode == PL_SAMPLE_NEAREST))
        return -1;
    for (int k = 0; k < x->nd; k++) {
        rs->scale[k] = d->a.scales.v[k];
        if (!(rs->scale[k] > 0) || (x->d[k] == 0) != (op->out.d[k] == 0))
            return -1;
    }
    if (rs->coord == PL_COORD_TF_CROP_AND_RESIZE) {
        if (d->a.roi.n != 2 * x->nd)
            return -1;
        for (int k = 0; k < 2 * x->nd; k++)
            rs->roi[k] = d->a.roi.v[k];
    }
    for (int k = 0; k < x->nd; k++)
        if (pl_resize_ntaps(op, k) > 64)
            return -1; /* an antialiasing window this wide: the reference takes 64 taps */
    return 0;
}

/* our kernel: the last two dims resampled, nearest (any rounding) or bilinear, at the layer's
 * coordinate transformation and scales (what the plain C Resize reads from the key); not
 * tf_crop_and_resize, antialiasing or cubic */
static int resize_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    struct pl_op rs;
    if (plan_ck_tensor(desc_in(d, 0), &k->pl.in[0]) || plan_ck_tensor(desc_out(d, 0), &k->pl.out) ||
        k->pl.in[0].nd < 3 || k->pl.in[0].nd != k->pl.out.nd || sample_plain(d, &rs) || rs.kind != PL_RESIZE ||
        rs.rs.mode == PL_SAMPLE_CUBIC || rs.rs.coord == PL_COORD_TF_CROP_AND_RESIZE || rs.rs.antialias)
        return -1;
    for (int j = 0; j < k->pl.out.nd - 2; j++)
        if (k->pl.in[0].d[j] != k->pl.out.d[j])
            return -1;
    k->pl.rs = rs.rs;
    k->linear = rs.rs.mode == PL_SAMPLE_LINEAR;
    k->kind = CK_RESIZE;
    k->what = k->linear ? "Resize (bilinear)" : "Resize (nearest)";
    plan_ck_finish(k);
    return 0;
}

static const struct op_plans resize_plans = {resize_dnnl, sample_plain, NULL, resize_kernel, NULL, PLAN_PLAIN_TOO,
    .how = {"oneDNN resampling (nearest, linear)", "plain C (every mode, beside oneDNN)", NULL, "kernel of ours (nearest, bilinear; every coordinate transformation but tf_crop_and_resize; not antialiased; f32, f16, bf16; a 4-D one channels-last too)"}};
PLAIN_PLANS(grid_sample_plans, sample_plain, "plain C");

static const struct op_attr resize_attrs[] = {
    ATTR_S(mode, "nearest"), ATTR_S(coordinate_transformation_mode, "half_pixel"),
    ATTR_S(nearest_mode, "round_prefer_floor"), ATTR(cubic_coeff_a, -0.75), ATTR(exclude_outside, 0),
    ATTR(extrapolation_value, 0), ATTR(antialias, 0), ATTR(scales, 0), ATTR(roi, 0), ATTR_END};
static const struct op_attr grid_sample_attrs[] = {ATTR_S(mode, "nearest"), ATTR_S(padding_mode, "zeros"),
                                                   ATTR(align_corners, 0), ATTR_END};

const struct op_def ops_resize[] = {
    {"GridSample", infer_grid_sample, 0, canon_grid_sample, grid_sample_attrs, &grid_sample_plans, {.pl_kind = PL_GRID_SAMPLE}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 16, 0)},
    {"Resize", infer_resize, 0, canon_resize, resize_attrs, &resize_plans, {.pl_kind = PL_RESIZE}, .schema = OP_SCHEMA(1, 4, 1, 1, 0x1, 10, 0)},
    {"Upsample", infer_resize, 0, canon_resize, resize_attrs, &resize_plans, {.pl_kind = PL_RESIZE}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 1, 9)},
    {0},
};
