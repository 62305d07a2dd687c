/* Pooling and local response normalisation. */
#include <math.h>
#include <string.h>

#include "ops.h"

static void infer_pool(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp);
    if (!x)
        return;
    const int64_t *ks, *sv, *dv, *pv;
    int nk = op_attr_ints(c, "kernel_shape", &ks);
    int ns = op_attr_ints(c, "strides", &sv);
    int nd = op_attr_ints(c, "dilations", &dv);
    int np = op_attr_ints(c, "pads", &pv);
    if (nk != nsp) {
        op_fail(c, "kernel_shape must have %d values", nsp);
        return;
    }
    bool ceil_mode = op_attr_i(c, "ceil_mode", 0) != 0;
    const char *ap = op_attr_s(c, "auto_pad", "NOTSET");
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 0; i < nsp; i++) {
        struct ir_dim in = x->dims[2 + i];
        if (!dim_known(in))
            continue;
        int64_t s = ns > i ? sv[i] : 1, dl = nd > i ? dv[i] : 1;
        int64_t pb = np == 2 * nsp ? pv[i] : 0, pe = np == 2 * nsp ? pv[i + nsp] : 0;
        int64_t ek = (ks[i] - 1) * dl + 1, n = in.value;
        int64_t out;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            out = (n + s - 1) / s;
        } else if (!strcmp(ap, "VALID")) {
            out = (n - ek) / s + 1;
        } else if (ceil_mode) {
            out = (int64_t)ceil((double)(n + pb + pe - ek) / (double)s) + 1;
            /* the last window must start inside the input or its left padding */
            if ((out - 1) * s >= n + pb)
                out--;
        } else {
            out = (n + pb + pe - ek) / s + 1;
        }
        d[2 + i] = dim_of(out);
    }
    if (c->n->n_outputs > 1 && c->n->outputs[1]) {
        struct ir_dim *di = op_out(c, 1, IR_DTYPE_INT64, x->rank);
        memcpy(di, c->n->outputs[0]->type.dims, (size_t)x->rank * sizeof(*di));
    }
}

static void infer_global_pool(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x || x->rank < 2) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 2; i < x->rank; i++)
        d[i] = dim_of(1);
}

/* maxpool2d_n1_c64_112x112_k3x3_s2_p1 */
static void canon_pool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    canon_pool_window(c, attrs, x, k, s, d, p);
    canon_default_i(c, attrs, "ceil_mode", 0);
    if (!strcmp(c->n->op_type, "AveragePool"))
        canon_default_i(c, attrs, "count_include_pad", 0);
    if (!strcmp(c->n->op_type, "MaxPool"))
        canon_default_i(c, attrs, "storage_order", 0);
    if (!strcmp(c->n->op_type, "LpPool"))
        canon_default_i(c, attrs, "p", 2);
    const char *op = !strcmp(c->n->op_type, "MaxPool") ? "maxpool" : !strcmp(c->n->op_type, "AveragePool") ? "avgpool" : "lppool";
    bz_buf_printf(name, "%s%dd_n%lld_c%lld_", op, nsp, (long long)x->dims[0].value, (long long)x->dims[1].value);
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)x->dims[2 + i].value);
    bz_buf_puts(name, "_k");
    for (int i = 0; i < nsp; i++)
        bz_buf_printf(name, "%s%lld", i ? "x" : "", (long long)k[i]);
    canon_name_list(name, "s", s, nsp);
    canon_name_list(name, "p", p, 2 * nsp);
}

static void canon_global_pool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    (void)attrs;
    const struct ir_type *x = canon_in(c, 0);
    bz_buf_printf(name, "%s_n%lld_c%lld_", !strcmp(c->n->op_type, "GlobalMaxPool") ? "globalmaxpool" : !strcmp(c->n->op_type, "GlobalAveragePool") ? "globalavgpool" : "globallppool",
                  (long long)x->dims[0].value, (long long)x->dims[1].value);
    for (int i = 2; i < x->rank; i++)
        bz_buf_printf(name, "%s%lld", i > 2 ? "x" : "", (long long)x->dims[i].value);
}

static void canon_lrn(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_default_f(c, attrs, "alpha", 1e-4);
    canon_default_f(c, attrs, "beta", 0.75);
    canon_default_f(c, attrs, "bias", 1.0);
    bz_buf_printf(name, "lrn_size%lld_", (long long)ir_node_attr_int(c->n, "size", 0));
    canon_name_dims(name, canon_in(c, 0));
}

const struct op_def ops_pool[] = {
    {"MaxPool", infer_pool, 0, canon_pool},
    {"AveragePool", infer_pool, 0, canon_pool},
    {"LpPool", infer_pool, 0, canon_pool},
    {"GlobalAveragePool", infer_global_pool, 0, canon_global_pool},
    {"GlobalMaxPool", infer_global_pool, 0, canon_global_pool},
    {"GlobalLpPool", infer_global_pool, 0, canon_global_pool},
    {"LRN", infer_same_as_input, 0, canon_lrn},
    {NULL, NULL, 0, NULL},
};
