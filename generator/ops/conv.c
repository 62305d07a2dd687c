/* Convolutions: Conv and ConvTranspose output shapes, with every auto_pad mode. */
#include <string.h>

#include "ops.h"

/* kernel_shape from the attribute or from the weight's spatial dims */
static bool kernel_of(struct infer_ctx *c, const struct ir_type *w, int nsp, int64_t *k)
{
    const int64_t *ks;
    int n = op_attr_ints(c, "kernel_shape", &ks);
    for (int i = 0; i < nsp; i++) {
        if (n == nsp) {
            k[i] = ks[i];
        } else if (w && w->rank == nsp + 2 && dim_known(w->dims[2 + i])) {
            k[i] = w->dims[2 + i].value;
        } else {
            return false;
        }
    }
    return true;
}

static void ints_or(struct infer_ctx *c, const char *name, int n, int64_t dflt, int64_t *out)
{
    const int64_t *v;
    int cnt = op_attr_ints(c, name, &v);
    for (int i = 0; i < n; i++)
        out[i] = cnt > i ? v[i] : dflt;
}

void op_conv_shape(struct infer_ctx *c, int w_index, int dtype)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp), *w = op_in(c, w_index);
    if (!x)
        return;
    struct ir_dim *d = op_out(c, 0, dtype ? dtype : x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = w && w->rank >= 1 ? w->dims[0] : dim_unknown();
    int64_t k[8], s[8], dl[8], p[16];
    if (!kernel_of(c, w, nsp, k))
        return;
    ints_or(c, "strides", nsp, 1, s);
    ints_or(c, "dilations", nsp, 1, dl);
    ints_or(c, "pads", 2 * nsp, 0, p);
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    for (int i = 0; i < nsp; i++) {
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t ek = (k[i] - 1) * dl[i] + 1, n = in.value;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
            d[2 + i] = dim_of((n + s[i] - 1) / s[i]);
        else if (!strcmp(ap, "VALID"))
            d[2 + i] = dim_of((n - ek) / s[i] + 1);
        else
            d[2 + i] = dim_of((n + p[i] + p[i + nsp] - ek) / s[i] + 1);
    }
}

static void infer_conv(struct infer_ctx *c)
{
    op_conv_shape(c, 1, 0);
}

static void infer_conv_transpose(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp), *w = op_in(c, 1);
    if (!x)
        return;
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    int64_t group = op_attr_i(c, "group", 1);
    d[1] = w && w->rank >= 2 ? dim_mul(w->dims[1], dim_of(group)) : dim_unknown();
    int64_t k[8], s[8], dl[8], p[16], op[8];
    if (!kernel_of(c, w, nsp, k))
        return;
    ints_or(c, "strides", nsp, 1, s);
    ints_or(c, "dilations", nsp, 1, dl);
    ints_or(c, "pads", 2 * nsp, 0, p);
    ints_or(c, "output_padding", nsp, 0, op);
    const int64_t *os;
    int nos = op_attr_ints(c, "output_shape", &os);
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    for (int i = 0; i < nsp; i++) {
        if (nos >= nsp) {
            d[2 + i] = dim_of(os[nos - nsp + i]);
            continue;
        }
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t n = in.value;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
            d[2 + i] = dim_of(n * s[i]);
        else
            d[2 + i] = dim_of(s[i] * (n - 1) + op[i] + (k[i] - 1) * dl[i] + 1 - p[i] - p[i + nsp]);
    }
}

/* conv2d_n1_c64_56x56_k64_3x3_s1_p1_d1_g1 (and convtranspose2d_..., PREFIX2d_... with the weight
 * at input w_index for the quantized convolutions) */
void canon_conv_with(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name, int w_index,
                     const char *prefix)
{
    const struct ir_type *x = canon_in(c, 0), *w = canon_in(c, w_index);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    for (int i = 0; i < nsp && i < 8; i++)
        k[i] = w->dims[2 + i].value;
    canon_window(c, attrs, x, k, nsp, s, d, p);
    int64_t g = canon_default_i(c, attrs, "group", 1);
    bool tr = !strcmp(c->n->op_type, "ConvTranspose");
    if (tr) {
        int64_t op[8];
        const int64_t *v = NULL;
        int n = -1;
        const struct ir_attr *a = ir_node_attr(c->n, "output_padding");
        if (a && a->type == IR_ATTR_INTS) {
            v = a->u.ints;
            n = (int)a->count;
        }
        for (int i = 0; i < nsp; i++)
            op[i] = n > i ? v[i] : 0;
        a = ir_node_attr(c->n, "auto_pad");
        const char *ap = a && a->type == IR_ATTR_STRING ? a->u.s.data : "NOTSET";
        bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
        a = ir_node_attr(c->n, "output_shape");
        if (same || (a && a->type == IR_ATTR_INTS && (int)a->count >= nsp)) {
            /* the pads come from the output size, not from the convolution's SAME rule
             * (canon_window's): total = s (in - 1) + output_padding + (k - 1) d + 1 - out,
             * the odd pixel at the start except with SAME_UPPER (floor division, as onnx's
             * reference implementation); a negative end pad (an output larger than the
             * kernel reaches) is the same as that much more output_padding */
            const struct ir_type *y = canon_out(c, 0);
            for (int i = 0; i < nsp; i++) {
                int64_t total = s[i] * (x->dims[2 + i].value - 1) + op[i] + (k[i] - 1) * d[i] + 1 -
                                y->dims[2 + i].value;
                int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
                p[i] = !strcmp(ap, "SAME_UPPER") ? half : total - half;
                p[i + nsp] = total - p[i];
                if (p[i + nsp] < 0) {
                    op[i] -= p[i + nsp];
                    p[i + nsp] = 0;
                }
            }
            canon_set_ints(attrs, "pads", p, 2 * nsp);
        }
        canon_set_ints(attrs, "output_padding", op, nsp);
        json_object_del(attrs, "output_shape"); /* the output type says it */
    }
    const struct ir_type *y = canon_out(c, 0);
    bz_buf_printf(name, "%s%dd_n%lld_c%lld_", prefix ? prefix : tr ? "convtranspose" : "conv", nsp, (long long)x->dims[0].value,
                  (long long)x->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)x->dims[2 + i].value);
    bz_buf_printf(name, "_k%lld_", (long long)y->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)k[i]);
    canon_name_list(name, "s", s, nsp);
    canon_name_list(name, "p", p, 2 * nsp);
    canon_name_list(name, "d", d, nsp);
    bz_buf_printf(name, "_g%lld", (long long)g);
}

static void canon_conv(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_conv_with(c, attrs, name, 1, NULL);
}

const struct op_def ops_conv[] = {
    {"Conv", infer_conv, 0, canon_conv},
    {"ConvTranspose", infer_conv_transpose, 0, canon_conv},
    {NULL, NULL, 0, NULL},
};
