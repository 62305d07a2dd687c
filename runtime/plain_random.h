/* Plain C benchmarks for the random generators: RandomUniform[Like], RandomNormal[Like],
 * Bernoulli and Multinomial (PL_RANDOM; op->flag the distribution). Inlined after
 * plain_ops.h, whose kernel and verification call into it.
 *
 * The numbers come from splitmix64 (seeded from the node's seed, else a fixed one), 53 bits
 * per uniform; normals by Box-Muller, two per pair of uniforms; Multinomial by a cumulative
 * table per row (softmax of the input's log-probabilities) and a binary search per sample.
 * No framework draws the same numbers (ONNX leaves the generator to the runtime), so the
 * output cannot be held against an oracle value by value: --verify tests the statistics
 * instead, each at six standard errors (the range of every value; the mean and the variance
 * of uniforms and normals; Bernoulli's count of ones against the sum of its probabilities;
 * Multinomial's counts per class against the expected ones, by a chi-square bound). */
#ifndef BENANZA_PLAIN_RANDOM_H
#define BENANZA_PLAIN_RANDOM_H

enum { PL_RAND_UNIFORM, PL_RAND_NORMAL, PL_RAND_BERNOULLI, PL_RAND_MULTINOMIAL };

static inline uint64_t pl_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double pl_uniform(uint64_t *s)
{
    return (double)(pl_splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* a row of Multinomial: its cumulative table (unnormalised) in cdf[0..C) */
static inline void pl_multinomial_row(const struct pl_state *s, int64_t b, double *cdf)
{
    const struct pl_tensor *x = &s->op->in[0];
    int64_t C = x->d[1];
    double mx = -INFINITY, acc = 0;
    for (int64_t c = 0; c < C; c++) {
        double v = pl_load(s->in[0], x->dtype, b * C + c);
        mx = v > mx ? v : mx;
    }
    for (int64_t c = 0; c < C; c++) {
        acc += exp(pl_load(s->in[0], x->dtype, b * C + c) - mx);
        cdf[c] = acc;
    }
}

static inline void pl_kernel_random(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int odt = op->out.dtype;
    int64_t n = pl_count(&op->out);
    uint64_t st = (uint64_t)op->k;
    switch (op->flag) {
    case PL_RAND_UNIFORM:
        for (int64_t i = 0; i < n; i++)
            pl_store(s->out, odt, i, op->alpha + (op->beta - op->alpha) * pl_uniform(&st));
        break;
    case PL_RAND_NORMAL:
        for (int64_t i = 0; i < n; i += 2) {
            double r = sqrt(-2 * log(1 - pl_uniform(&st))), a = 2 * 3.14159265358979323846 * pl_uniform(&st);
            pl_store(s->out, odt, i, op->alpha + op->beta * r * cos(a));
            if (i + 1 < n)
                pl_store(s->out, odt, i + 1, op->alpha + op->beta * r * sin(a));
        }
        break;
    case PL_RAND_BERNOULLI:
        for (int64_t i = 0; i < n; i++)
            pl_store(s->out, odt, i, pl_uniform(&st) < pl_load(s->in[0], op->in[0].dtype, i));
        break;
    default: { /* Multinomial: [batch, C] -> [batch, samples] */
        int64_t B = op->in[0].d[0], C = op->in[0].d[1], S = op->out.d[1];
        for (int64_t b = 0; b < B; b++) {
            pl_multinomial_row(s, b, s->work);
            for (int64_t j = 0; j < S; j++) {
                double u = pl_uniform(&st) * s->work[C - 1];
                int64_t lo = 0, hi = C - 1; /* the first class whose cumulative sum passes u */
                while (lo < hi) {
                    int64_t mid = (lo + hi) / 2;
                    if (s->work[mid] > u)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                pl_store(s->out, odt, b * S + j, (double)lo);
            }
        }
    }
    }
}

static inline enum bh_status pl_verify_random(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    int odt = op->out.dtype;
    int64_t n = pl_count(&op->out), outside = 0;
    char what[160];
    double got = 0, want = 0, allowed = 0;
    if (op->flag == PL_RAND_UNIFORM || op->flag == PL_RAND_NORMAL) {
        long double sum = 0, sq = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = pl_load(s->out, odt, i);
            outside += v != v || (op->flag == PL_RAND_UNIFORM && (v < op->alpha || v > op->beta));
            sum += v;
            sq += (long double)v * v;
        }
        double mean = n ? (double)(sum / n) : 0, var = n ? (double)(sq / n) - mean * mean : 0;
        double mu = op->flag ? op->alpha : (op->alpha + op->beta) / 2.0;
        double sigma2 = op->flag ? (double)op->beta * op->beta : (op->beta - op->alpha) * (op->beta - op->alpha) / 12.0;
        /* the mean within 6 standard errors; the variance within 6 of its own (normal: 2
         * sigma^4 / n; below that for uniforms), plus the type's rounding */
        double ulp = odt == PL_FLOAT16 ? 1e-3 : odt == PL_BFLOAT16 ? 8e-3 : 1e-7;
        double em = n ? 6 * sqrt(sigma2 / (double)n) + ulp * sqrt(sigma2 + mu * mu) : 0;
        double ev = n ? 6 * sigma2 * sqrt(2.0 / (double)n) + 2 * ulp * (sigma2 + mu * mu) : 0;
        if (n > 1 && (fabs(mean - mu) > em || fabs(var - sigma2) > ev)) {
            bh_note(r, "statistics off: mean %.6g (want %.6g +- %.3g), variance %.6g (want %.6g +- %.3g)", mean, mu, em,
                    var, sigma2, ev);
            return BH_WRONG;
        }
        snprintf(what, sizeof(what), "mean %.4g and variance %.4g of %lld values", mean, var, (long long)n);
    } else if (op->flag == PL_RAND_BERNOULLI) {
        long double ones = 0, p = 0, v = 0;
        for (int64_t i = 0; i < n; i++) {
            double x = pl_load(s->out, odt, i), q = pl_load(s->in[0], op->in[0].dtype, i);
            outside += x != 0 && x != 1;
            ones += x;
            p += q;
            v += q * (1 - q);
        }
        got = (double)ones, want = (double)p, allowed = 6 * sqrt((double)v) + 1;
        if (fabs(got - want) > allowed) {
            bh_note(r, "statistics off: %.0f ones, want %.1f +- %.1f", got, want, allowed);
            return BH_WRONG;
        }
        snprintf(what, sizeof(what), "%.0f ones of %lld (expected %.1f)", got, (long long)n, want);
    } else {
        /* chi-square of the counts per (row, class) with expected count >= 5 */
        int64_t B = op->in[0].d[0], C = op->in[0].d[1], S = op->out.d[1], dof = 0;
        double chi = 0;
        int64_t *count = (int64_t *)calloc((size_t)(C ? C : 1), sizeof(int64_t));
        double *cdf = (double *)malloc((size_t)(C ? C : 1) * sizeof(double));
        if (!count || !cdf) {
            free(count);
            free(cdf);
            bh_note(r, "%s", "cannot allocate the reference's work space");
            return BH_OOM;
        }
        for (int64_t b = 0; b < B; b++) {
            memset(count, 0, (size_t)C * sizeof(int64_t));
            for (int64_t j = 0; j < S; j++) {
                double v = pl_load(s->out, odt, b * S + j);
                if (v >= 0 && v < (double)C && v == floor(v))
                    count[(int64_t)v]++;
                else
                    outside++;
            }
            /* the class probabilities from the definition, in long double */
            long double mx = -INFINITY, total = 0;
            for (int64_t c = 0; c < C; c++)
                mx = fmaxl(mx, (long double)pl_load(s->in[0], op->in[0].dtype, b * C + c));
            for (int64_t c = 0; c < C; c++)
                total += cdf[c] = (double)expl((long double)pl_load(s->in[0], op->in[0].dtype, b * C + c) - mx);
            for (int64_t c = 0; c < C; c++) {
                double e = (double)S * cdf[c] / (double)total;
                if (e >= 5) {
                    chi += ((double)count[c] - e) * ((double)count[c] - e) / e;
                    dof++;
                }
            }
        }
        free(count);
        free(cdf);
        allowed = (double)dof + 6 * sqrt(2.0 * (double)dof) + 10;
        if (chi > allowed) {
            bh_note(r, "statistics off: chi-square %.1f over %lld cells, allowed %.1f", chi, (long long)dof, allowed);
            return BH_WRONG;
        }
        snprintf(what, sizeof(what), "chi-square %.1f over %lld cells (allowed %.1f)", chi, (long long)dof, allowed);
    }
    if (outside) {
        bh_note(r, "%lld values outside the distribution's range", (long long)outside);
        return BH_WRONG;
    }
    bh_note(r, "verified by its statistics (no oracle draws the same numbers): %s", what);
    return BH_OK;
}

#endif
