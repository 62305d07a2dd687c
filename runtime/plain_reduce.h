/* Plain C benchmarks for the reductions oneDNN has not (ReduceLogSum, ReduceLogSumExp,
 * ReduceSumSquare, and every reduction of an integer or 16-bit float tensor), for
 * MeanVarianceNormalization and for Hardmax. Inlined after plain_ops.h (and plain_index.h),
 * whose setup, kernel and verification call into it for PL_REDUCE, PL_MVN and PL_HARDMAX.
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

/* Hardmax's view: [outer, dim, inner] along the axis, or [outer, rest] before opset 13 */
static inline void pl_hardmax_view(const struct pl_op *op, int64_t *outer, int64_t *dim, int64_t *inner)
{
    pl_axis_split(&op->in[0], op->axis, outer, dim, inner);
    if (op->flag) {
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

static inline void pl_kernel_reduce(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int dt = x->dtype, odt = op->out.dtype;
    int64_t n = pl_count(x), ast[8], groups, per;
    if (PL_KIND_OF(op) == PL_HARDMAX) {
        int64_t outer, dim, inner;
        pl_hardmax_view(op, &outer, &dim, &inner);
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
        pl_hardmax_view(op, &outer, &dim, &inner);
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
