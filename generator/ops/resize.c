/* Resize and Upsample: output dims from sizes, or from scales (floor(in * scale)). */
#include <math.h>
#include <string.h>

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
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
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

const struct op_def ops_resize[] = {
    {"Resize", infer_resize, 0, NULL},
    {"Upsample", infer_resize, 0, NULL},
    {NULL, NULL, 0, NULL},
};
