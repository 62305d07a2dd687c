/* Plain C benchmarks for the reductions oneDNN has not (ReduceLogSum, ReduceLogSumExp,
 * ReduceSumSquare, and every reduction of an integer or 16-bit float tensor), for
 * MeanVarianceNormalization, Hardmax, and Softmax and LogSoftmax (beside oneDNN's). Inlined
 * after plain_ops.h (and plain_index.h), whose setup, kernel and verification call into it for
 * PL_REDUCE, PL_MVN, PL_HARDMAX and PL_SOFTMAX.
 *
 * A reduction keeps the reduced dims as 1 (keepdims only changes the output's view): op->axes
 * has bit k set when input dim k is reduced. The kernel walks the input once, row-major,
 * accumulating in double into one accumulator per output; the reference walks each output's
 * reduced sub-block in its own loop, in the same order, so the two agree exactly. */
#ifndef BENANZA_PLAIN_REDUCE_H
#define BENANZA_PLAIN_REDUCE_H

static inline double pl_reduce_init(int fn)
{
    return fn == PL_MUL ? 1 : fn == PL_MAX ? -INFINITY : fn == PL_MIN ? INFINITY : 0;
}

static inline double pl_reduce_step(int fn, double acc, double v)
{
    switch (fn) {
    case PL_MUL: return acc * v;
    case PL_MAX: return v > acc ? v : acc;
    case PL_MIN: return v < acc ? v : acc;
    case PL_SUMSQUARE: case PL_L2: return acc + v * v;
    case PL_L1: return acc + fabs(v);
    case PL_LOGSUMEXP: return acc + exp(v);
    default: return acc + v; /* sum, mean, log-sum */
    }
}

static inline double pl_reduce_final(int fn, double acc, int64_t count)
{
    switch (fn) {
    case PL_MEAN: return acc / (double)count;
    case PL_LOGSUM: case PL_LOGSUMEXP: return log(acc);
    case PL_L2: return sqrt(acc);
    default: return acc;
    }
}

/* Input strides into the accumulators (0 along reduced dims), the number of groups (one per
 * output) and of elements per group. */
static inline void pl_reduce_view(const struct pl_op *op, int64_t *acc_stride, int64_t *groups, int64_t *per)
{
    const struct pl_tensor *x = &op->in[0];
    int64_t g = 1, p = 1;
    for (int k = x->nd - 1; k >= 0; k--) {
        if (op->axes >> k & 1u) {
            acc_stride[k] = 0;
            p *= x->d[k];
        } else {
            acc_stride[k] = g;
            g *= x->d[k];
        }
    }
    *groups = g;
    *per = p;
}

/* Hardmax's and Softmax's view: [outer, dim, inner] along the axis, or [outer, rest] before
 * opset 13 (flag bit 0) */
static inline void pl_row_view(const struct pl_op *op, int64_t *outer, int64_t *dim, int64_t *inner)
{
    pl_axis_split(&op->in[0], op->axis, outer, dim, inner);
    if (op->flag & 1) {
        *dim *= *inner;
        *inner = 1;
    }
}

/* the next input element in row-major order: its accumulator's index pos follows */
static inline void pl_reduce_next(const struct pl_tensor *x, const int64_t *ast, int64_t *idx, int64_t *pos)
{
    for (int k = x->nd - 1; k >= 0; k--) {
        idx[k]++;
        *pos += ast[k];
        if (idx[k] < x->d[k])
            break;
        *pos -= ast[k] * idx[k];
        idx[k] = 0;
    }
}

/* ---- Softmax and LogSoftmax (PL_SOFTMAX) ----
 *
 * What a framework's CPU softmax does, in plain C: per row, its largest; e to each element's
 * difference from it; their sum; then each exponential times the sum's inverse (LogSoftmax:
 * the difference less the sum's log). Float, float16 and bfloat16 compute in float (the sums
 * in double), double in double. Rows of a few elements (a detector's two class scores for each
 * of 16800 anchors) are where a library's per-row set-up shows: the kernel takes the rows a
 * block at a time, the block's differences exponentiated in one loop that the compiler
 * vectorizes, so that a row of two costs about what its two elements cost.
 *
 * --verify: each row again in long double with libm's expl (no blocks, no pl_exp_neg), each
 * element within the type's tolerance (pl_count_far) of half its value times 1 + |d|, d its
 * difference from the row's largest (the rounding of d goes through e^d): in float 1e-6 of
 * y (1 + |d|), about 8 units in the last place, which an e^x some tens of units off fails
 * (LogSoftmax: of |d| + |log sum|, its two terms). */

/* the elements a block holds (its floats stay in the first-level cache; a row longer than
 * this is a block of its own) */
#define PL_SOFTMAX_BLOCK 2048

/* the rows (slices of SLICE = dim x inner elements) a block holds, and the floats of a block
 * (a row longer than PL_SOFTMAX_BLOCK is a block of its own) */
static inline int64_t pl_softmax_rows(int64_t slice, int64_t *cap)
{
    *cap = slice > PL_SOFTMAX_BLOCK ? slice : PL_SOFTMAX_BLOCK;
    return slice > 0 && slice < PL_SOFTMAX_BLOCK ? PL_SOFTMAX_BLOCK / slice : 1;
}

/* the work space in doubles: a row's sums (double, inner of them), then in floats the block's
 * exponentials (cap), its rows' largest (cap: a block holds no more rows' worth of them than
 * its elements) and a row's inverses (or logs) of its sums (inner); pl_kernel_softmax lays
 * them out */
static inline int64_t pl_softmax_work(const struct pl_op *op)
{
    int64_t outer, dim, inner, cap;
    pl_row_view(op, &outer, &dim, &inner);
    pl_softmax_rows(dim * inner, &cap);
    return inner + (2 * cap + inner + 1) / 2;
}

/* double: each row on its own, e^d into the output, then divided by the sum (LogSoftmax: d
 * less the sum's log) */
static inline void pl_softmax_double(struct pl_state *s, int64_t outer, int64_t dim, int64_t inner)
{
    const double *x = (const double *)s->in[0];
    double *y = (double *)s->out;
    int log_form = s->op->flag & 2;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t c = 0; c < inner; c++) {
            const double *xr = x + a * dim * inner + c;
            double *yr = y + a * dim * inner + c, m = xr[0], sum = 0;
            for (int64_t t = 1; t < dim; t++)
                m = xr[t * inner] > m ? xr[t * inner] : m;
            for (int64_t t = 0; t < dim; t++) {
                double e = exp(xr[t * inner] - m);
                yr[t * inner] = e;
                sum += e;
            }
            double ls = log(sum);
            for (int64_t t = 0; t < dim; t++)
                yr[t * inner] = log_form ? xr[t * inner] - m - ls : yr[t * inner] / sum;
        }
}

/* a block's rows NA from row A0 (in the float types): their largest into m, the differences
 * into w, exponentiated, then each row's sums (double, into sum), their inverses or logs (q)
 * and its outputs. pl_kernel_softmax calls it
 * with INNER the constant 1 where it is (the last axis), so that the compiler drops the loops
 * over it there: a row of two is then a few instructions. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pl_softmax_block(struct pl_state *s, int64_t a0, int64_t na, int64_t dim, int64_t inner,
                                    double *sum, float *w, float *m, float *q)
{
    const struct pl_op *op = s->op;
    int dt = op->in[0].dtype, odt = op->out.dtype, log_form = op->flag & 2;
    int64_t slice = dim * inner;
    const float *xf = dt == PL_FLOAT ? (const float *)s->in[0] : NULL;
    float *yf = odt == PL_FLOAT ? (float *)s->out : NULL;
    /* each row's largest, and each element's difference from it */
    for (int64_t a = 0; a < na; a++) {
        int64_t at = (a0 + a) * slice;
        float *mx = m + a * inner, *wa = w + a * slice;
        if (xf) {
            const float *x = xf + at;
            for (int64_t c = 0; c < inner; c++)
                mx[c] = x[c];
            for (int64_t t = 1; t < dim; t++)
                for (int64_t c = 0; c < inner; c++)
                    mx[c] = x[t * inner + c] > mx[c] ? x[t * inner + c] : mx[c];
            for (int64_t t = 0; t < dim; t++)
                for (int64_t c = 0; c < inner; c++)
                    wa[t * inner + c] = x[t * inner + c] - mx[c];
        } else {
            for (int64_t c = 0; c < inner; c++)
                mx[c] = (float)pl_load(s->in[0], dt, at + c);
            for (int64_t t = 1; t < dim; t++)
                for (int64_t c = 0; c < inner; c++) {
                    float v = (float)pl_load(s->in[0], dt, at + t * inner + c);
                    mx[c] = v > mx[c] ? v : mx[c];
                }
            for (int64_t t = 0; t < dim; t++)
                for (int64_t c = 0; c < inner; c++)
                    wa[t * inner + c] = (float)pl_load(s->in[0], dt, at + t * inner + c) - mx[c];
        }
    }
    pl_exp_neg_n(w, na * slice);
    /* each row's sums, their inverses (or logs), then its outputs */
    for (int64_t a = 0; a < na; a++) {
        int64_t at = (a0 + a) * slice;
        const float *mx = m + a * inner, *wa = w + a * slice;
        for (int64_t c = 0; c < inner; c++)
            sum[c] = 0;
        for (int64_t t = 0; t < dim; t++)
            for (int64_t c = 0; c < inner; c++)
                sum[c] += wa[t * inner + c];
        for (int64_t c = 0; c < inner; c++)
            q[c] = (float)(log_form ? log(sum[c]) : 1 / sum[c]);
        if (yf && !log_form) {
            float *y = yf + at;
            for (int64_t t = 0; t < dim; t++)
                for (int64_t c = 0; c < inner; c++)
                    y[t * inner + c] = wa[t * inner + c] * q[c];
        } else if (yf && xf) {
            const float *x = xf + at;
            float *y = yf + at;
            for (int64_t t = 0; t < dim; t++)
                for (int64_t c = 0; c < inner; c++)
                    y[t * inner + c] = (x[t * inner + c] - mx[c]) - q[c];
        } else {
            for (int64_t t = 0; t < dim; t++)
                for (int64_t c = 0; c < inner; c++) {
                    int64_t i = t * inner + c;
                    float v = log_form ? ((float)pl_load(s->in[0], dt, at + i) - mx[c]) - q[c] : wa[i] * q[c];
                    pl_store(s->out, odt, at + i, v);
                }
        }
    }
}

static inline void pl_kernel_softmax(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t outer, dim, inner, cap;
    pl_row_view(op, &outer, &dim, &inner);
    if (dim * inner == 0)
        return;
    if (op->in[0].dtype == PL_DOUBLE) {
        pl_softmax_double(s, outer, dim, inner);
        return;
    }
    int64_t rows = pl_softmax_rows(dim * inner, &cap);
    /* pl_softmax_work's layout */
    double *sum = s->work;
    float *w = (float *)(s->work + inner), *m = w + cap, *q = m + cap;
    for (int64_t a0 = 0; a0 < outer; a0 += rows) {
        int64_t na = outer - a0 < rows ? outer - a0 : rows;
        if (inner == 1)
            pl_softmax_block(s, a0, na, dim, 1, sum, w, m, q);
        else
            pl_softmax_block(s, a0, na, dim, inner, sum, w, m, q);
    }
}

/* every output element and its magnitude from its row, in long double */
static inline void pl_reference_softmax(const struct pl_state *s, double *want, double *mag)
{
    const struct pl_op *op = s->op;
    int dt = op->in[0].dtype, log_form = op->flag & 2;
    int64_t outer, dim, inner;
    pl_row_view(op, &outer, &dim, &inner);
    for (int64_t a = 0; a < outer; a++)
        for (int64_t c = 0; c < inner; c++) {
            int64_t base = a * dim * inner + c;
            long double m = -INFINITY, sum = 0;
            for (int64_t t = 0; t < dim; t++) {
                long double v = pl_load(s->in[0], dt, base + t * inner);
                m = v > m ? v : m;
            }
            for (int64_t t = 0; t < dim; t++)
                sum += expl((long double)pl_load(s->in[0], dt, base + t * inner) - m);
            long double ls = logl(sum);
            for (int64_t t = 0; t < dim; t++) {
                int64_t i = base + t * inner;
                long double x = pl_load(s->in[0], dt, i), d = x - m;
                want[i] = (double)(log_form ? d - ls : expl(d) / sum);
                mag[i] = 0.5 * (log_form ? (double)(fabsl(d) + fabsl(ls)) : fabs(want[i]) * (double)(1 + fabsl(d)));
            }
        }
}

static inline enum bh_status pl_verify_softmax(struct pl_state *s, struct bh_result *r)
{
    return pl_verify_near(s, r, pl_reference_softmax, "each row in long double",
                          " (within the type's tolerance of each element's magnitude)");
}

static inline void pl_kernel_reduce(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int dt = x->dtype, odt = op->out.dtype;
    int64_t n = pl_count(x), ast[8], groups, per;
    if (PL_KIND_OF(op) == PL_SOFTMAX) {
        pl_kernel_softmax(s);
        return;
    }
    if (PL_KIND_OF(op) == PL_HARDMAX) {
        int64_t outer, dim, inner;
        pl_row_view(op, &outer, &dim, &inner);
        for (int64_t a = 0; a < outer; a++)
            for (int64_t c = 0; c < inner; c++) {
                int64_t base = a * dim * inner + c, best = 0;
                double bv = pl_load(s->in[0], dt, base);
                for (int64_t t = 1; t < dim; t++) {
                    double v = pl_load(s->in[0], dt, base + t * inner);
                    if (v > bv) {
                        bv = v;
                        best = t;
                    }
                }
                for (int64_t t = 0; t < dim; t++)
                    pl_store(s->out, odt, base + t * inner, t == best);
            }
        return;
    }
    pl_reduce_view(op, ast, &groups, &per);
    double *acc = s->work, *sq = s->work + groups;
    int fn = PL_KIND_OF(op) == PL_MVN ? PL_ADD : op->fn;
    for (int64_t g = 0; g < groups; g++) {
        acc[g] = pl_reduce_init(fn);
        if (PL_KIND_OF(op) == PL_MVN)
            sq[g] = 0;
    }
    int64_t idx[8] = {0}, pos = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = pl_load(s->in[0], dt, i);
        acc[pos] = pl_reduce_step(fn, acc[pos], v);
        if (PL_KIND_OF(op) == PL_MVN)
            sq[pos] += v * v;
        pl_reduce_next(x, ast, idx, &pos);
    }
    if (PL_KIND_OF(op) == PL_REDUCE) {
        for (int64_t g = 0; g < groups; g++)
            pl_store(s->out, odt, g, pl_reduce_final(fn, acc[g], per));
        return;
    }
    /* MVN as ONNX defines it: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) */
    for (int64_t g = 0; g < groups; g++) {
        double mean = acc[g] / (double)per;
        acc[g] = mean;
        sq[g] = sqrt(sq[g] / (double)per - mean * mean) + 1e-9;
    }
    memset(idx, 0, sizeof(idx));
    pos = 0;
    for (int64_t i = 0; i < n; i++) {
        pl_store(s->out, odt, i, (pl_load(s->in[0], dt, i) - acc[pos]) / sq[pos]);
        pl_reduce_next(x, ast, idx, &pos);
    }
}

/* Group g's statistics (or reduction) from its own walk over the reduced coordinates. */
static inline void pl_reduce_group(const struct pl_state *s, int64_t g, int fn, double *acc, double *sq, int64_t *per)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t base[8], red[8], count = 1;
    int nr = 0;
    /* the group's coordinates in the kept dims (row-major over them) */
    for (int k = x->nd - 1; k >= 0; k--) {
        if (op->axes >> k & 1u) {
            base[k] = 0;
            count *= x->d[k];
        } else {
            base[k] = g % x->d[k];
            g /= x->d[k];
        }
    }
    for (int k = 0; k < x->nd; k++)
        if (op->axes >> k & 1u)
            red[nr++] = k;
    *acc = pl_reduce_init(fn);
    *sq = 0;
    for (int64_t j = 0; j < count; j++) {
        int64_t rem = j, c[8];
        memcpy(c, base, sizeof(c));
        for (int r = nr - 1; r >= 0; r--) {
            c[red[r]] = rem % x->d[red[r]];
            rem /= x->d[red[r]];
        }
        double v = pl_load(s->in[0], x->dtype, pl_offset(x, c));
        *acc = pl_reduce_step(fn, *acc, v);
        *sq += v * v;
    }
    *per = count;
}

static inline int64_t pl_reference_reduce(const struct pl_state *s, void *want)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int odt = op->out.dtype;
    int64_t n = pl_count(x), coord[8];
    if (PL_KIND_OF(op) == PL_HARDMAX) {
        /* every element: 1 where it is its row's first largest */
        int64_t outer, dim, inner;
        pl_row_view(op, &outer, &dim, &inner);
        for (int64_t i = 0; i < n; i++) {
            int64_t a = i / (dim * inner), t = i / inner % dim, c = i % inner, first = -1;
            double best = -INFINITY;
            for (int64_t u = 0; u < dim; u++) {
                double v = pl_load(s->in[0], x->dtype, (a * dim + u) * inner + c);
                if (first < 0 || v > best) {
                    best = v;
                    first = u;
                }
            }
            pl_store(want, odt, i, t == first);
        }
        return n;
    }
    int64_t ast[8], groups, per;
    pl_reduce_view(op, ast, &groups, &per);
    if (PL_KIND_OF(op) == PL_REDUCE) {
        for (int64_t g = 0; g < groups; g++) {
            double acc, sq;
            pl_reduce_group(s, g, op->fn, &acc, &sq, &per);
            pl_store(want, odt, g, pl_reduce_final(op->fn, acc, per));
        }
        return groups;
    }
    double *stat = (double *)malloc((size_t)(2 * (groups ? groups : 1)) * sizeof(double));
    if (!stat)
        return -1;
    for (int64_t g = 0; g < groups; g++) {
        double acc, sq;
        pl_reduce_group(s, g, PL_ADD, &acc, &sq, &per);
        stat[2 * g] = acc / (double)per;
        stat[2 * g + 1] = sqrt(sq / (double)per - stat[2 * g] * stat[2 * g]) + 1e-9;
    }
    /* every element from its group, found from its coordinates */
    for (int64_t i = 0; i < n; i++) {
        pl_coords(x, i, coord);
        int64_t g = 0;
        for (int k = 0; k < x->nd; k++)
            if (!(op->axes >> k & 1u))
                g = g * x->d[k] + coord[k];
        pl_store(want, odt, i, (pl_load(s->in[0], x->dtype, i) - stat[2 * g]) / stat[2 * g + 1]);
    }
    free(stat);
    return n;
}

#endif
