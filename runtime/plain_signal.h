/* Plain C benchmarks for the signal operators: DFT (forward and inverse, real or complex
 * input, one-sided output), STFT (frames of a signal, weighted by a window) and the window
 * generators (HannWindow, HammingWindow, BlackmanWindow) when their size is not a constant
 * (with a constant size gen counts them free: a framework computes them once, at load; the
 * size then comes from the output's shape). Inlined after
 * plain_ops.h, whose setup, kernel and verification call into it for these kinds (op->sg
 * holds their parameters).
 *
 * The transforms are a mixed-radix Cooley-Tukey FFT in double (recursive decimation in time
 * over the length's prime factors, a direct sum for each factor, so a length with a large
 * prime factor p costs about length * p); a real input is transformed as a complex one with
 * zero imaginary parts (no real-FFT halving). --verify computes every bin of every line (a
 * sample of the lines on a large layer) as the direct sum of its definition in long double
 * with its own twiddles; a window element by element in long double from another form of its
 * definition (Hann as (1 - cos) / 2). */
#ifndef BENANZA_PLAIN_SIGNAL_H
#define BENANZA_PLAIN_SIGNAL_H

#define PL_PI 3.14159265358979323846

/* the smallest prime factor of n (n itself when prime) */
static inline int64_t pl_fft_factor(int64_t n)
{
    for (int64_t f = 2; f * f <= n; f++)
        if (n % f == 0)
            return f;
    return n;
}

/* The DFT of the n complex values at x (interleaved re, im; consecutive values xs complex
 * elements apart) into y[0..2n) in order; tw holds exp(sign 2 pi i k / N) for k < N (N the
 * top length, tws = N / n), tmp room for the largest factor. */
static inline void pl_fft_rec(const double *x, int64_t xs, double *y, int64_t n, const double *tw, int64_t tws,
                              double *tmp)
{
    if (n == 1) {
        y[0] = x[0];
        y[1] = x[1];
        return;
    }
    int64_t r = pl_fft_factor(n), m = n / r;
    for (int64_t j = 0; j < r; j++)
        pl_fft_rec(x + 2 * j * xs, xs * r, y + 2 * j * m, m, tw, tws * r, tmp);
    /* y holds r transforms of length m; X[k + q m] = sum_j Y_j[k] w^(j (k + q m)) */
    for (int64_t k = 0; k < m; k++) {
        for (int64_t j = 0; j < r; j++) {
            tmp[2 * j] = y[2 * (j * m + k)];
            tmp[2 * j + 1] = y[2 * (j * m + k) + 1];
        }
        for (int64_t q = 0; q < r; q++) {
            int64_t e = k + q * m, step = e, at = 0; /* the exponent j e mod n, j = 0, 1, ... */
            double re = 0, im = 0;
            for (int64_t j = 0; j < r; j++) {
                const double *w = tw + 2 * at * tws;
                re += tmp[2 * j] * w[0] - tmp[2 * j + 1] * w[1];
                im += tmp[2 * j] * w[1] + tmp[2 * j + 1] * w[0];
                at += step;
                if (at >= n)
                    at -= n;
            }
            y[2 * e] = re;
            y[2 * e + 1] = im;
        }
    }
}

/* the transform length of a layer */
static inline int64_t pl_signal_length(const struct pl_op *op)
{
    return op->sg.length;
}

/* work: twiddles (2L), the line (2L), its transform (2L) and the factor buffer (2L) */
static inline enum bh_status pl_signal_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    if (PL_KIND_OF(op) == PL_STFT && op->nin == 2) {
        /* a Hann-like window in (0, 1]: weights that differ per tap */
        int64_t n = pl_count(&op->in[1]);
        for (int64_t i = 0; i < n; i++)
            pl_store(s->in[1], op->in[1].dtype, i, 0.5 + 0.5 * fabs(pl_load(s->in[1], op->in[1].dtype, i)));
    }
    if (PL_KIND_OF(op) == PL_WINDOW)
        return BH_OK;
    int64_t L = pl_signal_length(op);
    s->work = (double *)malloc((size_t)(8 * (L ? L : 1)) * sizeof(double));
    if (!s->work) {
        bh_note(r, "%s", "cannot allocate the transform's work space");
        return BH_OOM;
    }
    double sign = op->sg.inverse ? 1 : -1;
    for (int64_t k = 0; k < L; k++) {
        double a = sign * 2 * PL_PI * (double)k / (double)L;
        s->work[2 * k] = cos(a);
        s->work[2 * k + 1] = sin(a);
    }
    return BH_OK;
}

/* DFT's lines: dims before the axis (outer), after it up to the complex dim (inner); the
 * input's and output's complex dims (1: real, 2: re and im) */
static inline void pl_dft_lines(const struct pl_op *op, int64_t *outer, int64_t *inner, int64_t *cin, int64_t *cout)
{
    const struct pl_tensor *x = &op->in[0];
    *outer = *inner = 1;
    for (int k = 0; k < op->axis; k++)
        *outer *= x->d[k];
    for (int k = op->axis + 1; k < x->nd - 1; k++)
        *inner *= x->d[k];
    *cin = x->d[x->nd - 1];
    *cout = op->out.d[op->out.nd - 1];
}

/* The complex value t of the line a DFT or STFT transforms (zero past the input, and the
 * frame weighted by the window) */
static inline void pl_signal_value(const struct pl_state *s, int64_t line, int64_t t, double *re, double *im)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int dt = x->dtype;
    int64_t c = x->d[x->nd - 1];
    *re = *im = 0;
    if (PL_KIND_OF(op) == PL_DFT) {
        int64_t outer, inner, cin, cout, n = x->d[op->axis];
        pl_dft_lines(op, &outer, &inner, &cin, &cout);
        if (t >= n)
            return;
        int64_t o = line / inner, i = line % inner, at = ((o * n + t) * inner + i) * c;
        *re = pl_load(s->in[0], dt, at);
        *im = c == 2 ? pl_load(s->in[0], dt, at + 1) : 0;
        return;
    }
    /* STFT: line = batch * frames + frame */
    int64_t frames = op->out.d[1], b = line / frames, f = line % frames, len = x->d[1];
    int64_t at = (b * len + f * op->sg.step + t) * c;
    double w = op->nin == 2 ? pl_load(s->in[1], op->in[1].dtype, t) : 1;
    *re = w * pl_load(s->in[0], dt, at);
    *im = c == 2 ? w * pl_load(s->in[0], dt, at + 1) : 0;
}

/* the number of lines and the output offset of (line, bin, part) */
static inline int64_t pl_signal_lines(const struct pl_op *op)
{
    if (PL_KIND_OF(op) == PL_STFT)
        return op->out.d[0] * op->out.d[1];
    int64_t outer, inner, cin, cout;
    pl_dft_lines(op, &outer, &inner, &cin, &cout);
    return outer * inner;
}

static inline int64_t pl_signal_out_at(const struct pl_op *op, int64_t line, int64_t bin, int part)
{
    int64_t bins = PL_KIND_OF(op) == PL_DFT ? op->out.d[op->axis] : op->out.d[2];
    if (PL_KIND_OF(op) == PL_STFT)
        return (line * bins + bin) * 2 + part;
    int64_t outer, inner, cin, cout;
    pl_dft_lines(op, &outer, &inner, &cin, &cout);
    int64_t o = line / inner, i = line % inner;
    return ((o * bins + bin) * inner + i) * cout + part;
}

/* the tolerance of a type, relative to the largest magnitude an element can have */
static inline double pl_signal_tol(int dt)
{
    return dt == PL_FLOAT16 ? 2e-3 : dt == PL_BFLOAT16 ? 1.6e-2 : dt == PL_DOUBLE ? 1e-12 : 2e-6;
}

/* the windows: N = size (periodic) or size - 1 */
static inline void pl_kernel_window(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = op->out.d[0];
    double N = (double)(op->sg.periodic ? n : n - 1);
    for (int64_t i = 0; i < n; i++) {
        double a = 2 * PL_PI * (double)i / N, v;
        if (op->sg.window == 0) {
            double h = sin(PL_PI * (double)i / N);
            v = h * h;
        } else if (op->sg.window == 1) {
            v = 25.0 / 46.0 - 21.0 / 46.0 * cos(a);
        } else {
            v = 0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a);
        }
        pl_store(s->out, op->out.dtype, i, v);
    }
}

static inline enum bh_status pl_verify_window(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    int64_t n = op->out.d[0], bad = 0;
    double tol = pl_signal_tol(op->out.dtype), worst = 0;
    long double N = (long double)(op->sg.periodic ? n : n - 1);
    for (int64_t i = 0; i < n; i++) {
        long double a = 2 * acosl(-1) * (long double)i / N;
        long double want = op->sg.window == 0   ? (1 - cosl(a)) / 2
                           : op->sg.window == 1 ? (25 - 21 * cosl(a)) / 46
                                                : 0.42L - 0.5L * cosl(a) + 0.08L * cosl(2 * a);
        double d = fabs(pl_load(s->out, op->out.dtype, i) - (double)want);
        if (d != d)
            d = INFINITY;
        if (d > tol) {
            bad++;
            worst = d > worst ? d : worst;
        }
    }
    if (bad) {
        bh_note(r, "output differs from the reference (the definition in long double): %lld elements, max error %.3g",
                (long long)bad, worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: the definition in long double (error within %.0e)", tol);
    return BH_OK;
}

static inline void pl_kernel_signal(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_sg *sg = &op->sg;
    int odt = op->out.dtype;
    if (PL_KIND_OF(op) == PL_WINDOW) {
        pl_kernel_window(s);
        return;
    }
    int64_t L = pl_signal_length(op), lines = pl_signal_lines(op);
    int64_t bins = PL_KIND_OF(op) == PL_DFT ? op->out.d[op->axis] : op->out.d[2];
    int complex_out = op->out.d[op->out.nd - 1] == 2;
    double *tw = s->work, *x = s->work + 2 * L, *y = s->work + 4 * L, *tmp = s->work + 6 * L;
    double norm = sg->inverse ? 1.0 / (double)L : 1.0;
    for (int64_t line = 0; line < lines; line++) {
        for (int64_t t = 0; t < L; t++)
            pl_signal_value(s, line, t, &x[2 * t], &x[2 * t + 1]);
        pl_fft_rec(x, 1, y, L, tw, 1, tmp);
        for (int64_t b = 0; b < bins; b++) {
            pl_store(s->out, odt, pl_signal_out_at(op, line, b, 0), y[2 * b] * norm);
            if (complex_out)
                pl_store(s->out, odt, pl_signal_out_at(op, line, b, 1), y[2 * b + 1] * norm);
        }
    }
}

static inline enum bh_status pl_verify_signal(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    if (PL_KIND_OF(op) == PL_WINDOW)
        return pl_verify_window(s, r);
    int odt = op->out.dtype;
    double tol = pl_signal_tol(odt), worst = 0;
    int64_t bad = 0, checked = 0;
    int64_t L = pl_signal_length(op), lines = pl_signal_lines(op);
    int64_t bins = PL_KIND_OF(op) == PL_DFT ? op->out.d[op->axis] : op->out.d[2];
    int complex_out = op->out.d[op->out.nd - 1] == 2;
    /* about 1e8 multiply-adds of the direct sums at most: every line, or every n-th */
    double work = (double)lines * (double)bins * (double)L;
    int64_t every = work > 1e8 ? (int64_t)(work / 1e8) + 1 : 1;
    long double pi2 = 2 * acosl(-1) * (op->sg.inverse ? 1 : -1);
    double *v = (double *)malloc((size_t)(2 * (L ? L : 1)) * sizeof(double));
    long double *w = (long double *)malloc((size_t)(2 * (L ? L : 1)) * sizeof(long double));
    if (!v || !w) {
        free(v);
        free(w);
        bh_note(r, "%s", "cannot allocate the reference's work space");
        return BH_OOM;
    }
    for (int64_t k = 0; k < L; k++) { /* its own twiddles, in long double */
        w[2 * k] = cosl(pi2 * (long double)k / (long double)L);
        w[2 * k + 1] = sinl(pi2 * (long double)k / (long double)L);
    }
    for (int64_t line = 0; line < lines; line += every) {
        double mag = 0; /* the sum of the line's magnitudes bounds every bin */
        for (int64_t t = 0; t < L; t++) {
            pl_signal_value(s, line, t, &v[2 * t], &v[2 * t + 1]);
            mag += fabs(v[2 * t]) + fabs(v[2 * t + 1]);
        }
        if (op->sg.inverse)
            mag /= (double)L;
        for (int64_t b = 0; b < bins; b++) {
            long double re = 0, im = 0;
            for (int64_t t = 0, e = 0; t < L; t++, e = (e + b) % L) {
                re += v[2 * t] * w[2 * e] - v[2 * t + 1] * w[2 * e + 1];
                im += v[2 * t] * w[2 * e + 1] + v[2 * t + 1] * w[2 * e];
            }
            if (op->sg.inverse) {
                re /= (long double)L;
                im /= (long double)L;
            }
            for (int part = 0; part <= complex_out; part++) {
                double d = fabs(pl_load(s->out, odt, pl_signal_out_at(op, line, b, part)) - (double)(part ? im : re));
                if (d != d)
                    d = INFINITY;
                checked++;
                if (d > tol * (mag > 1e-30 ? mag : 1e-30)) {
                    bad++;
                    worst = d > worst ? d : worst;
                }
            }
        }
    }
    free(v);
    free(w);
    if (bad) {
        bh_note(r, "output differs from the reference (the direct sum in long double): %lld of %lld elements, max error %.3g",
                (long long)bad, (long long)checked, worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: the direct sum in long double, %lld elements%s (error within %.0e of each "
            "line's sum of magnitudes)", (long long)checked, every > 1 ? " of a sample of the lines" : "", tol);
    return BH_OK;
}

#endif
