/* Linear algebra: Gemm, MatMul (numpy semantics, batched with broadcast), Einsum. */
#include <ctype.h>
#include <string.h>

#include "ops.h"

static void infer_gemm(struct infer_ctx *c)
{
    const struct ir_type *a = op_in(c, 0), *b = op_in(c, 1);
    int dtype = op_in_dtype(c, 0);
    if (!a || !b || a->rank != 2 || b->rank != 2) {
        op_out(c, 0, dtype, 2);
        return;
    }
    bool ta = op_attr_i(c, "transA", 0) != 0, tb = op_attr_i(c, "transB", 0) != 0;
    struct ir_dim *d = op_out(c, 0, dtype, 2);
    d[0] = a->dims[ta ? 1 : 0];
    d[1] = b->dims[tb ? 0 : 1];
}

static struct ir_dim bcast_dim(struct ir_dim x, struct ir_dim y)
{
    if (dim_known(x) && x.value == 1)
        return y;
    if (dim_known(y) && y.value == 1)
        return x;
    if (dim_known(x))
        return x;
    if (dim_known(y))
        return y;
    return dim_same(x, y) ? x : dim_unknown();
}

void op_matmul_shape(struct infer_ctx *c, int a_index, int b_index, int dtype)
{
    const struct ir_type *a = op_in(c, a_index), *b = op_in(c, b_index);
    if (!dtype)
        dtype = op_in_dtype(c, a_index);
    if (!a || !b || a->rank < 1 || b->rank < 1) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    /* 1-D operands are promoted, and the added dim is removed again */
    int ra = a->rank < 2 ? 2 : a->rank, rb = b->rank < 2 ? 2 : b->rank;
    struct ir_dim am = a->rank == 1 ? dim_of(1) : a->dims[a->rank - 2];
    struct ir_dim bn = b->rank == 1 ? dim_of(1) : b->dims[b->rank - 1];
    int batch = (ra > rb ? ra : rb) - 2;
    int r = batch + (a->rank > 1) + (b->rank > 1);
    struct ir_dim *d = op_out(c, 0, dtype, r);
    for (int k = 0; k < batch; k++) {
        int ia = k - (batch - (ra - 2)), ib = k - (batch - (rb - 2));
        struct ir_dim x = ia >= 0 && a->rank > 2 ? a->dims[ia] : dim_of(1);
        struct ir_dim y = ib >= 0 && b->rank > 2 ? b->dims[ib] : dim_of(1);
        d[k] = bcast_dim(x, y);
    }
    int j = batch;
    if (a->rank > 1)
        d[j++] = am;
    if (b->rank > 1)
        d[j++] = bn;
}

static void infer_matmul(struct infer_ctx *c)
{
    op_matmul_shape(c, 0, 1, 0);
}

/* Einsum: the dims of each label from the inputs; "..." broadcasts. */
static void infer_einsum(struct infer_ctx *c)
{
    const char *eq = op_attr_s(c, "equation", NULL);
    int dtype = op_in_dtype(c, 0);
    if (!eq) {
        op_fail(c, "Einsum without an equation");
        return;
    }
    struct ir_dim label[128];
    for (int l = 0; l < 128; l++)
        label[l] = dim_unknown();
    int count[128] = {0};
    bool seen[128] = {0};
    struct ir_dim ell[16];
    int ell_rank = 0;
    for (int k = 0; k < 16; k++)
        ell[k] = dim_of(1);
    const char *p = eq;
    int in = 0;
    while (*p && !(p[0] == '-' && p[1] == '>')) {
        const struct ir_type *t = op_in(c, in);
        char term[64];
        int n = 0;
        while (*p && *p != ',' && !(p[0] == '-' && p[1] == '>')) {
            if (!isspace((unsigned char)*p) && n < 63)
                term[n++] = *p;
            p++;
        }
        term[n] = '\0';
        if (!t) {
            op_out_dtype_only(c, 0, dtype);
            return;
        }
        int letters = 0;
        for (int k = 0; k < n; k++)
            letters += isalpha((unsigned char)term[k]) != 0;
        int er = t->rank - letters, dim = 0;
        if (er < 0 || er > 16) {
            op_fail(c, "equation term '%s' does not fit rank %d", term, t->rank);
            return;
        }
        for (int k = 0; k < n; k++) {
            if (term[k] == '.') {
                if (term[k + 1] == '.' && term[k + 2] == '.') {
                    for (int e = 0; e < er; e++) {
                        int slot = 16 - er + e;
                        ell[slot] = bcast_dim(ell[slot], t->dims[dim++]);
                    }
                    if (er > ell_rank)
                        ell_rank = er;
                    k += 2;
                }
                continue;
            }
            unsigned char l = (unsigned char)term[k];
            if (l >= 128)
                continue;
            struct ir_dim x = t->dims[dim++];
            label[l] = seen[l] ? bcast_dim(label[l], x) : x;
            seen[l] = true;
            count[l]++;
        }
        in++;
        if (*p == ',')
            p++;
    }
    char out[64];
    int no = 0;
    bool out_ell = false;
    if (p[0] == '-') {
        p += 2;
        for (; *p && no < 63; p++) {
            if (*p == '.') {
                out_ell = true;
                p += 2;
            } else if (!isspace((unsigned char)*p)) {
                out[no++] = *p;
            }
        }
    } else {
        out_ell = ell_rank > 0;
        for (int l = 0; l < 128; l++)
            if (count[l] == 1 && isalpha(l))
                out[no++] = (char)l;
    }
    int r = no + (out_ell ? ell_rank : 0);
    struct ir_dim *d = op_out(c, 0, dtype, r);
    int j = 0;
    /* an explicit output places the ellipsis where it is written */
    const char *spec = strstr(eq, "->");
    if (spec && out_ell) {
        spec += 2;
        for (; *spec; spec++) {
            if (*spec == '.') {
                for (int e = 0; e < ell_rank; e++)
                    d[j++] = ell[16 - ell_rank + e];
                spec += 2;
            } else if (isalpha((unsigned char)*spec)) {
                d[j++] = label[(unsigned char)*spec];
            }
        }
        return;
    }
    if (out_ell)
        for (int e = 0; e < ell_rank; e++)
            d[j++] = ell[16 - ell_rank + e];
    for (int k = 0; k < no; k++) {
        unsigned char l = (unsigned char)out[k];
        d[j++] = l < 128 && seen[l] ? label[l] : dim_unknown();
    }
}

/* Einsum: the equation without spaces and with its output written out (the implicit one is
 * the ellipsis, then the labels used once, in ASCII order), so that equal layers share a key */
static void canon_einsum(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "equation");
    const char *eq = a && a->type == IR_ATTR_STRING ? a->u.s.data : "";
    struct bz_buf e;
    bz_buf_init(&e);
    int count[128] = {0};
    bool ell = false, arrow = false;
    for (const char *p = eq; *p; p++) {
        if (isspace((unsigned char)*p))
            continue;
        if (p[0] == '-' && p[1] == '>')
            arrow = true;
        if (!arrow && (unsigned char)*p < 128 && isalpha((unsigned char)*p))
            count[(unsigned char)*p]++;
        if (!arrow && *p == '.')
            ell = true;
        bz_buf_putc(&e, *p);
    }
    if (!arrow) {
        bz_buf_puts(&e, ell ? "->..." : "->");
        for (int l = 0; l < 128; l++)
            if (count[l] == 1 && isalpha(l))
                bz_buf_putc(&e, (char)l);
    }
    canon_set_s(attrs, "equation", e.data ? e.data : "");
    bz_buf_free(&e);
    bz_buf_puts(name, "einsum");
    for (int i = 0; i < c->n->n_inputs; i++) {
        bz_buf_putc(name, '_');
        canon_name_dims(name, canon_in(c, i));
    }
}

/* gemm_m1_n1000_k2048_tb */
static void canon_gemm(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *a = canon_in(c, 0);
    int64_t ta = canon_default_i(c, attrs, "transA", 0), tb = canon_default_i(c, attrs, "transB", 0);
    canon_default_f(c, attrs, "alpha", 1.0);
    canon_default_f(c, attrs, "beta", 1.0);
    const struct ir_type *y = canon_out(c, 0);
    bz_buf_printf(name, "gemm_m%lld_n%lld_k%lld%s%s%s", (long long)y->dims[0].value, (long long)y->dims[1].value,
                  (long long)a->dims[ta ? 0 : 1].value, ta ? "_ta" : "", tb ? "_tb" : "",
                  c->n->n_inputs > 2 && c->n->inputs[2] ? "_bias" : "");
}

/* matmul_b12_m128_n64_k128 (batch = product of the output's leading dims; PREFIX_... with B at
 * input b_index for the quantized products) */
void canon_matmul_with(const struct canon_ctx *c, struct bz_buf *name, int b_index, const char *prefix)
{
    const struct ir_type *a = canon_in(c, 0), *y = canon_out(c, 0);
    int64_t k = a->dims[a->rank - 1].value, m = a->rank > 1 ? a->dims[a->rank - 2].value : 1;
    const struct ir_type *b = canon_in(c, b_index);
    int64_t n = b->rank > 1 ? b->dims[b->rank - 1].value : 1, batch = 1;
    for (int i = 0; i < y->rank - 2; i++)
        batch *= y->dims[i].value;
    bz_buf_printf(name, "%s", prefix ? prefix : "matmul");
    if (batch > 1)
        bz_buf_printf(name, "_b%lld", (long long)batch);
    bz_buf_printf(name, "_m%lld_n%lld_k%lld", (long long)m, (long long)n, (long long)k);
}

static void canon_matmul(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    (void)attrs;
    canon_matmul_with(c, name, 1, NULL);
}

const struct op_def ops_linalg[] = {
    {"Gemm", infer_gemm, 0, canon_gemm},
    {"MatMul", infer_matmul, 0, canon_matmul},
    {"Einsum", infer_einsum, 0, canon_einsum},
    {NULL, NULL, 0, NULL},
};
