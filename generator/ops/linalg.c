/* Linear algebra: Gemm, MatMul (numpy semantics, batched with broadcast), Einsum. */
#include <ctype.h>
#include <string.h>

#include "../plan.h"
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
    struct ir_dim ka = a->dims[ta ? 0 : 1], kb = b->dims[tb ? 1 : 0];
    if (dim_known(ka) && dim_known(kb) && ka.value != kb.value) {
        op_fail(c, "A's inner dim %lld is not B's %lld", (long long)ka.value, (long long)kb.value);
        return;
    }
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
    struct ir_dim ka = a->dims[a->rank - 1], kb = b->dims[b->rank == 1 ? 0 : b->rank - 2];
    if (dim_known(ka) && dim_known(kb) && ka.value != kb.value) {
        op_fail(c, "A's inner dim %lld is not B's %lld", (long long)ka.value, (long long)kb.value);
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

/* Einsum's equation: ASCII letters, commas, one "->", "..." and spaces; every output label
 * appears in an input, at most once in the output */
static int check_einsum(const struct ir_node *n, struct bz_buf *why)
{
    /* the operands are one variadic input: none of them may be left out */
    for (int i = 0; i < n->n_inputs; i++)
        if (!n->inputs[i]) {
            bz_buf_printf(why, "input %d is empty, but every Einsum operand is required", i);
            return -1;
        }
    const struct ir_attr *a = ir_node_attr(n, "equation");
    if (!a)
        return 0; /* the operator says it has none */
    if (a->type != IR_ATTR_STRING) {
        bz_buf_printf(why, "attribute equation is %s, not a string", ir_attr_type_name(a->type));
        return -1;
    }
    const char *eq = a->u.s.data;
    size_t len = a->u.s.len;
    bool in_label[128] = {false}, out_label[128] = {false};
    int arrows = 0, terms = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)eq[i];
        bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
        if (ch == '-' && i + 1 < len && eq[i + 1] == '>') {
            arrows++;
            i++;
        } else if (ch == '.') {
            if (i + 2 >= len || eq[i + 1] != '.' || eq[i + 2] != '.') {
                bz_buf_puts(why, "attribute equation has a '.' outside an ellipsis '...'");
                return -1;
            }
            i += 2;
        } else if (ch == ',') {
            if (arrows) {
                bz_buf_puts(why, "attribute equation has a ',' after '->'");
                return -1;
            }
            terms++;
        } else if (letter) {
            if (arrows) {
                if (out_label[ch]) {
                    bz_buf_printf(why, "attribute equation names output label '%c' twice", ch);
                    return -1;
                }
                out_label[ch] = true;
            } else {
                in_label[ch] = true;
            }
        } else if (ch != ' ') {
            bz_buf_printf(why, "attribute equation holds byte 0x%02x: only letters, ',', '->', '...' and spaces", ch);
            return -1;
        }
    }
    if (arrows > 1) {
        bz_buf_puts(why, "attribute equation has more than one '->'");
        return -1;
    }
    for (int l = 0; l < 128; l++)
        if (out_label[l] && !in_label[l]) {
            bz_buf_printf(why, "attribute equation's output label '%c' is in no input", l);
            return -1;
        }
    if (terms != n->n_inputs) {
        bz_buf_printf(why, "attribute equation has %d input term%s for %d input%s", terms, terms == 1 ? "" : "s",
                      n->n_inputs, n->n_inputs == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* ---- backends ---- */

enum { LINALG_GEMM = 1 };

/* Gemm as an inner product ([M,K] x [N,K]^T + [N]) or as a matmul; MatMul as a matmul with its
 * batch dims broadcast. */
int plan_matmul_dnnl(const struct layer_desc *d, bool gemm, bool ip, struct cpu_plan *p)
{
    struct bd_tensor a, b, y;
    memset(p, 0, sizeof(*p));
    if (plan_bd_tensor(desc_in(d, 0), &a) || plan_bd_tensor(desc_in(d, 1), &b) || plan_bd_tensor(desc_out(d, 0), &y))
        return -1;
    struct bd_op *op = &p->op;
    int64_t ta = gemm ? d->a.transA : 0, tb = gemm ? d->a.transB : 0;
    double alpha = gemm ? d->a.alpha : 1, beta = gemm ? d->a.beta : 1;
    /* Gemm's C: any shape that broadcasts to [M, N] is the matmul's bias (beta scales its
     * values, not the work: a bias of beta C); with beta 0 there is none */
    const struct desc_tensor *c = gemm && beta != 0 ? desc_in(d, 2) : NULL;
    struct bd_tensor ct;
    if (c && (plan_bd_tensor(c, &ct) || ct.nd > 2 || (ct.nd >= 1 && ct.d[ct.nd - 1] != 1 && ct.d[ct.nd - 1] != y.d[1]) ||
              (ct.nd == 2 && ct.d[0] != 1 && ct.d[0] != y.d[0])))
        return -1;
    if (ip) {
        /* the inner product frameworks use: weights [N, K], a bias per column, no scaling */
        if (!gemm || !tb || ta || alpha != 1.0 || (c && (ct.nd != 1 || ct.d[0] != y.d[1])))
            return -1;
        op->family = BD_IP;
        op->src = a;
        op->wei = b; /* [N, K] */
        op->dst = y;
        if (c) {
            op->has_bias = 1;
            op->bias = ct;
        }
    } else {
        op->family = BD_MATMUL;
        /* 1-D operands become matrices; batch dims padded to the output's rank */
        struct bd_tensor aa = a, bb = b;
        if (a.nd == 1) {
            aa.nd = 2;
            aa.d[0] = 1;
            aa.d[1] = a.d[0];
        }
        if (b.nd == 1) {
            bb.nd = 2;
            bb.d[0] = b.d[0];
            bb.d[1] = 1;
        }
        if (gemm && tb) {
            /* [N, K] stored: described as [K, N] with transposed strides */
            bb.d[0] = b.d[1];
            bb.d[1] = b.d[0];
            op->wei_transposed = 1;
        }
        if (gemm && ta) {
            /* [K, M] stored: described as [M, K] with transposed strides */
            aa.d[0] = a.d[1];
            aa.d[1] = a.d[0];
            op->src_transposed = 1;
        }
        if (alpha != 1.0)
            op->oscale = (float)alpha;
        int nd = aa.nd > bb.nd ? aa.nd : bb.nd;
        struct bd_tensor *ts[2] = {&aa, &bb};
        for (int t = 0; t < 2; t++) {
            int pad = nd - ts[t]->nd;
            for (int k = ts[t]->nd - 1; k >= 0; k--)
                ts[t]->d[k + pad] = ts[t]->d[k];
            for (int k = 0; k < pad; k++)
                ts[t]->d[k] = 1;
            ts[t]->nd = nd;
        }
        op->src = aa;
        op->wei = bb;
        op->dst.nd = nd;
        for (int k = 0; k < nd - 2; k++)
            op->dst.d[k] = aa.d[k] > bb.d[k] ? aa.d[k] : bb.d[k];
        op->dst.d[nd - 2] = aa.d[nd - 2];
        op->dst.d[nd - 1] = bb.d[nd - 1];
        if (c) {
            /* C aligned on the right, padded with 1 */
            op->has_bias = 1;
            op->bias.nd = nd;
            for (int k = 0; k < nd; k++)
                op->bias.d[k] = k >= nd - ct.nd ? ct.d[k - (nd - ct.nd)] : 1;
        }
    }
    p->algs[0] = 0;
    p->n_algs = 1;
    p->secondary = gemm && !ip;
    p->b_const = op->family == BD_MATMUL && !op->wei_transposed && b.nd == 2 && desc_in(d, 1)->is_const;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    if (op->has_bias)
        plan_arg(p, "DNNL_ARG_BIAS", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    int64_t k = ta ? a.d[0] : a.nd >= 1 ? a.d[a.nd - 1] : 1;
    p->flops = 2.0 * (double)plan_bd_count(&y) * (double)k;
    p->bytes = 4.0 * (double)(plan_bd_count(&a) + plan_bd_count(&b) + plan_bd_count(&y));
    return 0;
}

/* a Gemm is benchmarked as a matmul and as the inner product frameworks use for it */
static int matmul_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    bool gemm = d->def->ids.variant == LINALG_GEMM;
    if (which && !gemm)
        return -1;
    return plan_matmul_dnnl(d, gemm, which == 1, p);
}

/* cublasGemmAlgo_t: the plain algorithms for math without Tensor Cores, the _TENSOR_OP ones
 * for Tensor Core math */
#define CU_NO_TC ((1u << CU_F32) | (1u << CU_F16))
#define CU_TC ((1u << CU_TF32) | (1u << CU_F16TC) | (1u << CU_BF16))
static struct cu_algo gemm_algos[1 + 24 + 1 + 16];
static char gemm_names[BZ_ARRAY_LEN(gemm_algos)][2][48];

static void init_gemm_algos(void)
{
    if (gemm_algos[0].name)
        return;
    int n = 0;
    for (int tc = 0; tc < 2; tc++) {
        int count = tc ? 16 : 24;
        for (int a = -1; a < count; a++, n++) {
            if (a < 0) {
                snprintf(gemm_names[n][0], sizeof(gemm_names[n][0]), "%s", tc ? "default_tensor_op" : "default");
                snprintf(gemm_names[n][1], sizeof(gemm_names[n][1]), "%s",
                         tc ? "CUBLAS_GEMM_DEFAULT_TENSOR_OP" : "CUBLAS_GEMM_DEFAULT");
            } else {
                snprintf(gemm_names[n][0], sizeof(gemm_names[n][0]), "algo%d%s", a, tc ? "_tensor_op" : "");
                snprintf(gemm_names[n][1], sizeof(gemm_names[n][1]), "CUBLAS_GEMM_ALGO%d%s", a, tc ? "_TENSOR_OP" : "");
            }
            gemm_algos[n] = (struct cu_algo){gemm_names[n][0], gemm_names[n][1], tc ? CU_TC : CU_NO_TC};
        }
    }
}

/* Gemm and MatMul as row-major C[m,n] = A[m,k] B[k,n]; batch dims of A alone fold into m (what
 * frameworks do for a MatMul with weights), batch dims on both sides (or on B alone) become a
 * strided batched GEMM. */
static int matmul_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    struct cu_tensor a, b;
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &a) || plan_cu_tensor(desc_in(d, 1), &b) || plan_cu_tensor(desc_out(d, 0), &p->y) ||
        a.nd < 1 || b.nd < 1)
        return -1;
    if (d->def->ids.variant == LINALG_GEMM) {
        if (a.nd != 2 || b.nd != 2)
            return -1;
        p->ta = d->a.transA != 0;
        p->tb = d->a.transB != 0;
        p->m = p->ta ? a.d[1] : a.d[0];
        p->k = p->ta ? a.d[0] : a.d[1];
        p->n = p->tb ? b.d[0] : b.d[1];
        p->batch_count = 1;
        if (desc_in(d, 2) && d->a.beta != 0.0) {
            p->beta_one = 1;
            plan_cu_note(p, "the bias C is accumulated into the output (beta 1), as frameworks do after copying it there");
        }
    } else {
        int64_t ba = 1, bb = 1;
        p->m = a.nd == 1 ? 1 : a.d[a.nd - 2];
        p->k = a.d[a.nd - 1];
        p->n = b.nd == 1 ? 1 : b.d[b.nd - 1];
        for (int i = 0; i < a.nd - 2; i++)
            ba *= a.d[i];
        for (int i = 0; i < b.nd - 2; i++)
            bb *= b.d[i];
        if (bb == 1) {
            p->m *= ba; /* B shared by every batch: one GEMM over all rows of A */
            p->batch_count = 1;
        } else {
            /* batch dims must match one to one, or A's be absent */
            int64_t by = 1;
            for (int i = 0; i < p->y.nd - 2; i++)
                by *= p->y.d[i];
            if (!((ba == bb && ba == by) || (ba == 1 && bb == by)))
                return -1;
            p->batch_count = by;
            p->stride_a = ba == 1 ? 0 : p->m * p->k;
            p->stride_b = p->k * p->n;
            p->stride_c = p->m * p->n;
        }
    }
    if (p->m <= 0 || p->n <= 0 || p->k <= 0 || p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return -1;
    init_gemm_algos();
    p->family = CU_GEMM;
    p->what = p->batch_count > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx";
    p->algos = gemm_algos;
    p->nalgos = (int)BZ_ARRAY_LEN(gemm_algos);
    p->types = CU_ALL_TYPES;
    p->gemv = (p->m == 1 || p->n == 1) && !p->ta && !p->tb && p->batch_count == 1;
    p->lt = true;
    /* a weight [k, n] can be kept transposed at no cost per run: PyTorch's Linear holds
     * [n, k], which makes the GEMM TN (both operands K-major), the form Hopper's TF32 Tensor
     * Core kernels take their operands in */
    p->b_const = desc_in(d, 1)->is_const && b.nd == 2 && !p->tb && p->batch_count == 1;
    p->flops = 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)p->batch_count;
    p->elems = (double)(plan_cu_count(&a) + plan_cu_count(&b) + plan_cu_count(&p->y));
    return 0;
}

/* Einsum: the key's explicit equation (canon_einsum) as labels of every dim; the ellipsis'
 * dims, aligned on the right, are labels of their own (ids 52 on); the output's labels
 * numbered first, then the summed ones in order of appearance */
static int einsum_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (d->nin < 1 || d->nin > PL_MAX_IN || plan_pl_start(d, PL_EINSUM, PL_IDENTITY, d->nin, op))
        return -1;
    const char *eq = d->a.equation;
    const char *arrow = eq ? strstr(eq, "->") : NULL;
    if (!arrow || op->out.dtype == PL_BOOL)
        return -1;
    enum { NIDS = 52 + 8 };
    int id_of[NIDS], nlab = 0, ell = 0;
    signed char raw[PL_MAX_IN + 1][8]; /* ids before numbering */
    int64_t size[NIDS];
    for (int k = 0; k < NIDS; k++) {
        id_of[k] = -1;
        size[k] = -1;
    }
    /* the ellipsis rank: the largest an input's term leaves for it */
    const char *p = eq;
    for (int i = 0; i < op->nin; i++) {
        int letters = 0, dots = 0;
        for (; *p && *p != ',' && p != arrow; p++)
            letters += isalpha((unsigned char)*p) != 0, dots += *p == '.';
        if (dots != 0 && dots != 3)
            return -1;
        int er = op->in[i].nd - letters;
        if (er < 0 || (er > 0 && !dots) || op->in[i].dtype != op->out.dtype)
            return -1;
        ell = er > ell ? er : ell;
        if (*p == ',')
            p++;
    }
    if (p != arrow)
        return -1; /* more terms than inputs */
    p = eq;
    for (int i = 0; i <= op->nin; i++) {
        const struct pl_tensor *t = i < op->nin ? &op->in[i] : &op->out;
        const char *end = i < op->nin ? p + strcspn(p, ",-") : p + strlen(p);
        if (i == op->nin)
            p = arrow + 2, end = p + strlen(p);
        int letters = 0;
        for (const char *q = p; q < end; q++)
            letters += isalpha((unsigned char)*q) != 0;
        int er = t->nd - letters, dim = 0;
        if (er < 0 || t->nd > 8)
            return -1;
        for (const char *q = p; q < end; q++) {
            if (*q == '.') {
                for (int e = 0; e < er; e++, dim++)
                    raw[i][dim] = (signed char)(52 + ell - er + e);
                q += 2;
                continue;
            }
            if (!isalpha((unsigned char)*q))
                return -1;
            raw[i][dim++] = (signed char)(*q >= 'a' ? *q - 'a' + 26 : *q - 'A');
        }
        if (dim != t->nd)
            return -1;
        for (int k = 0; k < t->nd; k++) {
            int id = raw[i][k];
            if (size[id] < 0 || size[id] == 1)
                size[id] = t->d[k];
            else if (t->d[k] != 1 && t->d[k] != size[id])
                return -1; /* dims that do not fit */
        }
        p = end + (i < op->nin && *end == ',');
    }
    /* output labels first (each once), then the summed ones */
    for (int k = 0; k < op->out.nd; k++) {
        int id = raw[op->nin][k];
        if (id_of[id] >= 0 || size[id] != op->out.d[k])
            return -1;
        id_of[id] = nlab++;
    }
    op->es.nout = nlab;
    for (int i = 0; i < op->nin; i++)
        for (int k = 0; k < op->in[i].nd; k++)
            if (id_of[raw[i][k]] < 0) {
                if (nlab == PL_EINSUM_LABELS)
                    return -1;
                id_of[raw[i][k]] = nlab++;
            }
    op->es.nlab = nlab;
    for (int id = 0; id < NIDS; id++)
        if (id_of[id] >= 0)
            op->es.size[id_of[id]] = size[id];
    for (int i = 0; i <= op->nin; i++) {
        const struct pl_tensor *t = i < op->nin ? &op->in[i] : &op->out;
        for (int k = 0; k < t->nd; k++)
            op->es.lab[i < op->nin ? i : PL_MAX_IN][k] = (signed char)id_of[raw[i][k]];
    }
    return 0;
}

static const struct op_plans matmul_plans = {matmul_dnnl, NULL, matmul_cudnn, NULL, NULL, 0,
    .how = {"oneDNN matmul (Gemm: also inner product)", NULL, "cuBLAS GEMM, every cublasGemmAlgo_t (one side a vector: also cublasSgemv)", NULL}};
PLAIN_PLANS(einsum_plans, einsum_plain, "plain C");

static const struct op_attr gemm_attrs[] = {ATTR(transA, 0), ATTR(transB, 0), ATTR(alpha, 1), ATTR(beta, 1), ATTR_END};
static const struct op_attr einsum_attrs[] = {ATTR_S(equation, NULL), ATTR_END};

const struct op_def ops_linalg[] = {
    {"Gemm", infer_gemm, 0, canon_gemm, gemm_attrs, &matmul_plans, {.variant = LINALG_GEMM}, .schema = OP_SCHEMA(2, 3, 1, 1, 0x3, 1, 0)},
    {"MatMul", infer_matmul, 0, canon_matmul, NULL, &matmul_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0)},
    {"Einsum", infer_einsum, 0, canon_einsum, einsum_attrs, &einsum_plans, {0}, .check = check_einsum, .schema = OP_SCHEMA(1, 255, 1, 1, 0x0, 12, 0)},
    {0},
};
