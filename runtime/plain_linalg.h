/* Plain C benchmarks for Det (LU with partial pivoting per matrix, verified by full pivoting)
 * and Einsum (any equation gen can key: up to PL_MAX_IN operands, repeated
 * labels within an operand (diagonals), summed labels, the ellipsis broadcasting). Inlined
 * after plain_ops.h, whose kernel and verification call into it for PL_EINSUM.
 *
 * The labels are numbered with the output's first (op->es): the kernel walks the output in
 * order, and for each element the summed labels with an odometer, the innermost one as a
 * plain strided loop (a dot product when there are two float operands), accumulating in
 * double. This is the definition, not a GEMM: for an Einsum that is a batched matrix product,
 * the MatMul benchmarks of the same shapes are far faster, so this bound is a loose one (the
 * layer's own work, done plainly). The reference walks every combination of all labels once,
 * in label order, with offsets from coordinates, and adds each product to its output element. */
#ifndef BENANZA_PLAIN_LINALG_H
#define BENANZA_PLAIN_LINALG_H

/* The stride of every label in tensor i (PL_MAX_IN: the output): dims with the same label add
 * up (a diagonal); a dim of size 1 under a larger label broadcasts (0). */
static inline void pl_einsum_strides(const struct pl_op *op, int i, int64_t *st)
{
    const struct pl_tensor *t = i < PL_MAX_IN ? &op->in[i] : &op->out;
    const signed char *lab = op->es.lab[i];
    for (int l = 0; l < op->es.nlab; l++)
        st[l] = 0;
    int64_t acc = 1;
    for (int k = t->nd - 1; k >= 0; k--) {
        if (!(t->d[k] == 1 && op->es.size[lab[k]] != 1))
            st[lab[k]] += acc;
        acc *= t->d[k];
    }
}

/* The next combination of labels first..last (the last fastest), moving each input's offset
 * pos with it; 0 when they wrapped around (every combination done). */
static inline int pl_einsum_next(const struct pl_op *op, int first, int last, int64_t *idx,
                                 int64_t (*st)[PL_EINSUM_LABELS], int64_t *pos)
{
    for (int l = last; l >= first; l--) {
        idx[l]++;
        for (int i = 0; i < op->nin; i++)
            pos[i] += st[i][l];
        if (idx[l] < op->es.size[l])
            return 1;
        for (int i = 0; i < op->nin; i++)
            pos[i] -= st[i][l] * idx[l];
        idx[l] = 0;
    }
    return 0;
}

static inline void pl_kernel_einsum(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_einsum *es = &op->es;
    int nin = op->nin, nl = es->nlab, no = es->nout, odt = op->out.dtype, f32 = 1, empty = 0;
    int64_t st[PL_MAX_IN][PL_EINSUM_LABELS], step[PL_MAX_IN];
    for (int i = 0; i < nin; i++) {
        pl_einsum_strides(op, i, st[i]);
        f32 &= op->in[i].dtype == PL_FLOAT;
    }
    for (int l = no; l < nl; l++)
        empty |= es->size[l] == 0;
    /* the innermost summed label: a plain loop */
    int inner = nl > no ? nl - 1 : -1;
    int64_t kn = inner >= 0 ? es->size[inner] : 1, n = pl_count(&op->out);
    for (int i = 0; i < nin; i++)
        step[i] = inner >= 0 ? st[i][inner] : 0;
    int64_t oidx[PL_EINSUM_LABELS] = {0}, obase[PL_MAX_IN] = {0};
    for (int64_t e = 0; e < n; e++) {
        double acc = 0;
        int64_t sidx[PL_EINSUM_LABELS] = {0}, pos[PL_MAX_IN];
        for (int i = 0; i < nin; i++)
            pos[i] = obase[i];
        while (!empty) {
            if (f32 && nin == 2) {
                const float *a = (const float *)s->in[0] + pos[0], *b = (const float *)s->in[1] + pos[1];
                int64_t sa = step[0], sb = step[1];
                for (int64_t t = 0; t < kn; t++)
                    acc += (double)a[t * sa] * (double)b[t * sb];
            } else {
                for (int64_t t = 0; t < kn; t++) {
                    double p = 1;
                    for (int i = 0; i < nin; i++)
                        p *= pl_load(s->in[i], op->in[i].dtype, pos[i] + t * step[i]);
                    acc += p;
                }
            }
            if (!pl_einsum_next(op, no, nl - 2, sidx, st, pos))
                break;
        }
        pl_store(s->out, odt, e, acc);
        pl_einsum_next(op, 0, no - 1, oidx, st, obase);
    }
}

/* Every combination of all labels once, offsets from coordinates, each product added to its
 * output element in double; the error allowed an element is relative to the sum of its
 * products' magnitudes (1e-6 f32 and f64, 1e-3 f16, 8e-3 bf16; integers exactly). */
static inline enum bh_status pl_verify_einsum(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_einsum *es = &op->es;
    int nin = op->nin, nl = es->nlab, odt = op->out.dtype;
    int64_t n = pl_count(&op->out), combos = 1;
    for (int l = 0; l < nl; l++)
        combos *= es->size[l];
    double *want = (double *)calloc((size_t)(n ? n : 1), sizeof(double));
    double *mag = (double *)calloc((size_t)(n ? n : 1), sizeof(double));
    if (!want || !mag) {
        free(want);
        free(mag);
        bh_note(r, "%s", "cannot allocate the reference's output");
        return BH_OOM;
    }
    int64_t c[PL_EINSUM_LABELS] = {0};
    for (int64_t q = 0; q < combos; q++) {
        int64_t rem = q;
        for (int l = nl - 1; l >= 0; l--) {
            c[l] = rem % es->size[l];
            rem /= es->size[l];
        }
        double p = 1;
        for (int i = 0; i < nin; i++) {
            const struct pl_tensor *t = &op->in[i];
            int64_t off = 0;
            for (int k = 0; k < t->nd; k++)
                off = off * t->d[k] + (t->d[k] == 1 ? 0 : c[es->lab[i][k]]);
            p *= pl_load(s->in[i], t->dtype, off);
        }
        int64_t o = 0;
        for (int k = 0; k < op->out.nd; k++)
            o = o * op->out.d[k] + c[es->lab[PL_MAX_IN][k]];
        want[o] += p;
        mag[o] += fabs(p);
    }
    double tol = odt == PL_FLOAT16 ? 1e-3 : odt == PL_BFLOAT16 ? 8e-3 : pl_is_float(odt) ? 1e-6 : 0, worst = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = pl_load(s->out, odt, i), w = pl_is_float(odt) ? want[i] : (double)(int64_t)want[i];
        double d = fabs(g - w);
        if (d != d)
            d = INFINITY;
        if (d > tol * mag[i] + (pl_is_float(odt) ? 1e-30 : 0)) {
            bad++;
            worst = d > worst ? d : worst;
        }
    }
    free(want);
    free(mag);
    if (bad) {
        bh_note(r, "output differs from the reference (every label combination, in double): %lld elements, max error %.3g",
                (long long)bad, worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: every label combination in double (error within %.0e of each element's sum of magnitudes)",
            tol);
    return BH_OK;
}

/* ---- Det: [..., M, M] -> [...] ---- */

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDACC__)
#include <emmintrin.h>
#define PL_DET_SSE2 1
#endif

/* row i of a (M x M) minus f times row k, from column j on, each element as f * a[k][j]
 * subtracted alone: two columns at a time with SSE2 (gcc does not vectorize it by itself, as
 * the two rows are of one array), the rest one by one */
static inline void pl_det_row(double *a, int64_t M, int64_t i, int64_t k, int64_t j, double f)
{
    double *ri = a + i * M;
    const double *rk = a + k * M;
#ifdef PL_DET_SSE2
    __m128d vf = _mm_set1_pd(f);
    for (; j + 2 <= M; j += 2)
        _mm_storeu_pd(ri + j, _mm_sub_pd(_mm_loadu_pd(ri + j), _mm_mul_pd(vf, _mm_loadu_pd(rk + j))));
#endif
    for (; j < M; j++)
        ri[j] -= f * rk[j];
}

/* each matrix by LU with partial pivoting, in double (work: M x M), the multipliers by the
 * pivot's reciprocal (1000 matrices of 16 x 16, runs minutes apart: 0.93 to 1.04 ms with a
 * division per row, 0.72 to 0.74 with the reciprocal; ONNX Runtime 0.89 to 0.98) */
static inline void pl_kernel_det(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t M = x->d[x->nd - 1], count = pl_count(&op->out);
    double *a = s->work;
    for (int64_t b = 0; b < count; b++) {
        if (x->dtype == PL_FLOAT) {
            const float *xb = (const float *)s->in[0] + b * M * M;
            for (int64_t i = 0; i < M * M; i++)
                a[i] = xb[i];
        } else {
            for (int64_t i = 0; i < M * M; i++)
                a[i] = pl_load(s->in[0], x->dtype, b * M * M + i);
        }
        double det = 1;
        for (int64_t k = 0; k < M && det != 0; k++) {
            int64_t p = k;
            double big = fabs(a[k * M + k]);
            for (int64_t i = k + 1; i < M; i++)
                if (fabs(a[i * M + k]) > big)
                    p = i, big = fabs(a[i * M + k]);
            if (big == 0) {
                det = 0;
                break;
            }
            if (p != k) {
                for (int64_t j = k; j < M; j++) {
                    double t = a[k * M + j];
                    a[k * M + j] = a[p * M + j];
                    a[p * M + j] = t;
                }
                det = -det;
            }
            double piv = a[k * M + k], inv = 1 / piv;
            det *= piv;
            for (int64_t i = k + 1; i < M; i++)
                pl_det_row(a, M, i, k, k + 1, a[i * M + k] * inv);
        }
        pl_store(s->out, op->out.dtype, b, det);
    }
}

/* every matrix again by elimination with full pivoting (rows and columns) in long double;
 * the error allowed is relative to Hadamard's bound (the product of the rows' norms) */
static inline enum bh_status pl_verify_det(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t M = x->d[x->nd - 1], count = pl_count(&op->out), bad = 0;
    int odt = op->out.dtype;
    double tol = odt == PL_FLOAT16 ? 2e-3 : odt == PL_BFLOAT16 ? 1.6e-2 : odt == PL_DOUBLE ? 1e-12 : 2e-6, worst = 0;
    long double *a = (long double *)malloc((size_t)(M > 0 ? M * M : 1) * sizeof(long double));
    if (!a) {
        bh_note(r, "%s", "cannot allocate the reference's work space");
        return BH_OOM;
    }
    for (int64_t b = 0; b < count; b++) {
        long double bound = 1, det = 1;
        for (int64_t i = 0; i < M; i++) {
            long double n2 = 0;
            for (int64_t j = 0; j < M; j++) {
                a[i * M + j] = pl_load(s->in[0], x->dtype, b * M * M + i * M + j);
                n2 += a[i * M + j] * a[i * M + j];
            }
            bound *= sqrtl(n2);
        }
        for (int64_t k = 0; k < M; k++) {
            int64_t pr = k, pc = k;
            for (int64_t i = k; i < M; i++)
                for (int64_t j = k; j < M; j++)
                    if (fabsl(a[i * M + j]) > fabsl(a[pr * M + pc]))
                        pr = i, pc = j;
            if (a[pr * M + pc] == 0) {
                det = 0;
                break;
            }
            if (pr != k) {
                for (int64_t j = 0; j < M; j++) {
                    long double t = a[k * M + j];
                    a[k * M + j] = a[pr * M + j];
                    a[pr * M + j] = t;
                }
                det = -det;
            }
            if (pc != k) {
                for (int64_t i = 0; i < M; i++) {
                    long double t = a[i * M + k];
                    a[i * M + k] = a[i * M + pc];
                    a[i * M + pc] = t;
                }
                det = -det;
            }
            det *= a[k * M + k];
            for (int64_t i = k + 1; i < M; i++) {
                long double f = a[i * M + k] / a[k * M + k];
                for (int64_t j = k; j < M; j++)
                    a[i * M + j] -= f * a[k * M + j];
            }
        }
        double d = fabs(pl_load(s->out, odt, b) - (double)det);
        if (d != d)
            d = INFINITY;
        if (d > tol * (double)bound + 1e-300) {
            bad++;
            worst = d > worst ? d : worst;
        }
    }
    free(a);
    if (bad) {
        bh_note(r, "output differs from the reference (full pivoting in long double): %lld matrices, max error %.3g",
                (long long)bad, worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: full pivoting in long double (error within %.0e of Hadamard's bound)", tol);
    return BH_OK;
}

#endif
