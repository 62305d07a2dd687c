/* Plain C benchmarks for Resize/Upsample in every mode ONNX defines (nearest with its four
 * roundings, linear and cubic, antialiased or not, every coordinate transformation,
 * exclude_outside, tf_crop_and_resize with its extrapolation value) and for GridSample
 * (nearest, linear, cubic; zeros, border and reflection padding; any number of spatial dims).
 * Inlined after plain_ops.h, whose setup, kernel and verification call into it for
 * PL_RESIZE and PL_GRID_SAMPLE.
 *
 * Resize is separable: along each resized dim an output coordinate reads a few input
 * coordinates (its taps) with weights, the same for every line of that dim. Setup computes
 * the taps of every dim once (pl_resize_taps, the definition); the timed kernel gathers
 * (nearest) or resizes one dim at a time through float buffers (linear, cubic), as ONNX's own
 * definition does; the reference computes each output element on its own, in double, as the
 * product of its taps over all dims. GridSample computes its taps per output position from
 * the grid; its reference does so per element and channel, in double. */
#ifndef BENANZA_PLAIN_SAMPLE_H
#define BENANZA_PLAIN_SAMPLE_H

/* the taps of one resized dim: per output coordinate n taps (input index, weight), and
 * whether the coordinate lies outside the input (tf_crop_and_resize: the output is then the
 * extrapolation value) */
struct pl_dim_taps {
    int n;          /* 0: the dim is not resized (an identity) */
    int64_t *idx;
    float *w;
    unsigned char *outside;
};

struct pl_sample_state {
    struct pl_dim_taps dim[8];
    /* nearest: the input coordinate each output coordinate reads, and whether it is outside
     * (tf_crop_and_resize); NULL for a dim not resized */
    int64_t *pick[8];
    unsigned char *pick_out[8];
    float *buf[2];  /* Resize: the dims resized so far (linear, cubic) */
    float *x;       /* the input as float, when it is of another type */
};

/* Keys' cubic convolution kernel with parameter a */
static inline double pl_cubic(double a, double x)
{
    x = fabs(x);
    if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

/* How many taps an output coordinate of dim k reads (0: the dim is an identity). */
static inline int pl_resize_ntaps(const struct pl_op *op, int k)
{
    const struct pl_sample *rs = &op->rs;
    int nd = op->in[0].nd;
    int crop = rs->coord == PL_COORD_TF_CROP_AND_RESIZE && (rs->roi[k] != 0 || rs->roi[nd + k] != 1);
    if (op->in[0].d[k] == op->out.d[k] && fabs(rs->scale[k] - 1) <= 1e-9 && !crop)
        return 0;
    if (rs->mode == PL_SAMPLE_NEAREST)
        return 2;
    double s = rs->scale[k] < 1 ? rs->scale[k] : 1;
    if (rs->antialias && rs->mode == PL_SAMPLE_LINEAR)
        return 2 - 2 * ((int)floor(-1 / s) + 1);
    if (rs->antialias)
        return 2 - 2 * ((int)floor(-2 / s) + 1);
    return rs->mode == PL_SAMPLE_LINEAR ? 2 : 4;
}

/* The taps of output coordinate o of dim k, from ONNX's definition: the coordinate in the
 * input (the coordinate transformation), the weights of the mode at its fractional part, on
 * the n input coordinates nearest to it (clamped to the input: the edge repeats; with
 * exclude_outside those outside weigh 0 and the others are renormalised). Returns whether
 * the coordinate is outside the input for tf_crop_and_resize. */
static inline int pl_resize_taps(const struct pl_op *op, int k, int n, int64_t o, int64_t *idx, double *w)
{
    const struct pl_sample *rs = &op->rs;
    int nd = op->in[0].nd;
    int64_t in = op->in[0].d[k], out_int = op->out.d[k];
    double scale = rs->scale[k], out = scale * (double)in, y = (double)o, x;
    int outside = 0;
    switch (rs->coord) {
    case PL_COORD_ALIGN_CORNERS: x = out == 1 ? 0 : y * (double)(in - 1) / (out - 1); break;
    case PL_COORD_ASYMMETRIC: x = y / scale; break;
    case PL_COORD_TF_CROP_AND_RESIZE: {
        double a = rs->roi[k], b = rs->roi[nd + k];
        x = out == 1 ? (b - a) * (double)(in - 1) / 2 : y * (b - a) * (double)(in - 1) / (out - 1);
        x += a * (double)(in - 1);
        outside = x < 0 || x > (double)(in - 1);
        break;
    }
    case PL_COORD_PYTORCH_HALF_PIXEL: x = out == 1 ? -0.5 : (y + 0.5) / scale - 0.5; break;
    case PL_COORD_HALF_PIXEL_SYMMETRIC: {
        double adjustment = (double)out_int / out, center = (double)in / 2;
        x = center * (1 - adjustment) + (y + 0.5) / scale - 0.5;
        break;
    }
    default: x = (y + 0.5) / scale - 0.5; break;
    }
    double xi = floor(x), ratio = x == xi ? 1 : x - xi;
    /* the n nearest input coordinates, the lower one preferred: n is even here */
    int64_t first = (int64_t)xi - n / 2 + (x == xi ? 0 : 1);
    double sum = 0;
    double s = scale < 1 ? scale : 1;
    int start = rs->antialias ? (rs->mode == PL_SAMPLE_LINEAR ? (int)floor(-1 / s) + 1 : (int)floor(-2 / s) + 1) : 0;
    for (int t = 0; t < n; t++) {
        double c;
        if (rs->mode == PL_SAMPLE_NEAREST) {
            int pick; /* 1: the upper of the two */
            if (ratio == 1)
                pick = 1;
            else if (rs->nearest == PL_NEAREST_ROUND_PREFER_FLOOR)
                pick = ratio > 0.5;
            else if (rs->nearest == PL_NEAREST_ROUND_PREFER_CEIL)
                pick = ratio >= 0.5;
            else
                pick = rs->nearest == PL_NEAREST_CEIL;
            c = t == pick;
        } else if (!rs->antialias) {
            c = rs->mode == PL_SAMPLE_LINEAR ? (t ? ratio : 1 - ratio) : pl_cubic(rs->cubic_a, ratio + 1 - t);
        } else if (rs->mode == PL_SAMPLE_LINEAR) {
            double a = fabs((double)(start + t) - ratio) * s;
            c = a < 1 ? 1 - a : 0;
        } else {
            c = pl_cubic(rs->cubic_a, s * ((double)(start + t) - ratio));
        }
        w[t] = c;
        idx[t] = first + t;
    }
    if (rs->antialias) { /* the window's weights sum to one */
        for (int t = 0; t < n; t++)
            sum += w[t];
        for (int t = 0; t < n; t++)
            w[t] /= sum;
    }
    if (rs->exclude_outside) {
        sum = 0;
        for (int t = 0; t < n; t++) {
            if (idx[t] < 0 || idx[t] >= in)
                w[t] = 0;
            sum += w[t];
        }
        for (int t = 0; t < n && sum != 0; t++)
            w[t] /= sum;
    }
    for (int t = 0; t < n; t++)
        idx[t] = idx[t] < 0 ? 0 : idx[t] >= in ? in - 1 : idx[t];
    return outside;
}

/* GridSample: input coordinate of a grid value g in a dim of length len */
static inline float pl_grid_denormalize(float g, int64_t len, int align_corners)
{
    return align_corners ? (g + 1) / 2.0f * (float)(len - 1) : ((g + 1) * (float)len - 1) / 2.0f;
}

/* reflect x about [lo, hi] until inside */
static inline double pl_grid_reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (x < lo) {
        double dx = lo - x;
        int64_t n = (int64_t)(dx / range);
        double r = dx - (double)n * range;
        return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        int64_t n = (int64_t)(dx / range);
        double r = dx - (double)n * range;
        return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

/* The taps of one spatial dim of one grid point (ONNX's GridSample): the coordinate from the
 * grid value, rounded half to even for nearest; outside the borders clamped (border) or
 * reflected (reflection); then 1, 2 or 4 input coordinates with weights. A tap outside the
 * input reads 0 (zeros: idx -1), the edge (border) or its reflection. Returns the count. */
static inline int pl_grid_taps(const struct pl_op *op, int k, float g, int64_t *idx, double *w)
{
    const struct pl_sample *rs = &op->rs;
    int64_t len = op->in[0].d[2 + k];
    int ac = rs->coord, pad = rs->nearest;
    double lo = ac ? 0 : -0.5, hi = ac ? (double)len - 1 : (double)len - 0.5;
    float x = pl_grid_denormalize(g, len, ac);
    if (rs->mode == PL_SAMPLE_NEAREST)
        x = nearbyintf(x);
    if (x < lo || x > hi) {
        if (pad == PL_PAD_BORDER)
            x = x < 0 ? 0 : x > (float)(len - 1) ? (float)(len - 1) : x;
        else if (pad == PL_PAD_REFLECTION)
            x = (float)pl_grid_reflect(x, lo, hi);
    }
    int n = rs->mode == PL_SAMPLE_NEAREST ? 1 : rs->mode == PL_SAMPLE_LINEAR ? 2 : 4;
    int64_t x0 = (int64_t)floorf(x);
    float f = x - (float)x0;
    for (int t = 0; t < n; t++) {
        int64_t i;
        if (n == 1) {
            i = (int64_t)x; /* truncated, as ONNX's int cast */
            w[t] = 1;
        } else if (n == 2) {
            i = x0 + t;
            w[t] = t ? f : 1 - f;
        } else {
            i = x0 - 1 + t;
            w[t] = pl_cubic(-0.75, (double)f + 1 - t);
        }
        if (i < 0 || i >= len) {
            if (pad == PL_PAD_ZEROS)
                i = -1;
            else if (pad == PL_PAD_BORDER)
                i = i < 0 ? 0 : len - 1;
            else
                i = (int64_t)pl_grid_reflect((double)i, lo, hi);
        }
        idx[t] = i;
    }
    return n;
}

static inline enum bh_status pl_sample_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    struct pl_sample_state *st = (struct pl_sample_state *)calloc(1, sizeof(*st));
    if (!st) {
        bh_note(r, "%s", "cannot allocate the tables");
        return BH_OOM;
    }
    s->sample = st;
    const struct pl_tensor *x = &op->in[0];
    if (PL_KIND_OF(op) == PL_GRID_SAMPLE) {
        /* grid values in [-1.25, 1.25]: some points outside the input, so the padding mode counts */
        int64_t n = pl_count(&op->in[1]);
        for (int64_t i = 0; i < n; i++)
            pl_store(s->in[1], op->in[1].dtype, i, 1.25 * pl_load(s->in[1], op->in[1].dtype, i));
        return BH_OK;
    }
    int64_t cur = pl_count(x), most = cur;
    for (int k = 0; k < x->nd; k++) {
        struct pl_dim_taps *t = &st->dim[k];
        t->n = pl_resize_ntaps(op, k);
        if (!t->n)
            continue;
        int64_t o = op->out.d[k], m = o * t->n;
        t->idx = (int64_t *)malloc((size_t)(m ? m : 1) * sizeof(int64_t));
        t->w = (float *)malloc((size_t)(m ? m : 1) * sizeof(float));
        t->outside = (unsigned char *)malloc((size_t)(o ? o : 1));
        double *w = (double *)malloc((size_t)t->n * sizeof(double));
        if (!t->idx || !t->w || !t->outside || !w) {
            free(w);
            bh_note(r, "%s", "cannot allocate the tables");
            return BH_OOM;
        }
        int crop = 0;
        for (int64_t j = 0; j < o; j++) {
            t->outside[j] = (unsigned char)pl_resize_taps(op, k, t->n, j, t->idx + j * t->n, w);
            crop |= t->outside[j];
            for (int q = 0; q < t->n; q++)
                t->w[j * t->n + q] = (float)w[q];
        }
        free(w);
        if (op->rs.mode == PL_SAMPLE_NEAREST) { /* the tap of weight 1 */
            if (!(st->pick[k] = (int64_t *)malloc((size_t)(o ? o : 1) * sizeof(int64_t)))) {
                bh_note(r, "%s", "cannot allocate the tables");
                return BH_OOM;
            }
            for (int64_t j = 0; j < o; j++)
                st->pick[k][j] = t->idx[j * t->n + (t->w[j * t->n] == 0)];
            st->pick_out[k] = crop ? t->outside : NULL;
        }
        cur = x->d[k] ? cur / x->d[k] * o : 0;
        most = cur > most ? cur : most;
    }
    if (op->rs.mode != PL_SAMPLE_NEAREST) {
        for (int b = 0; b < 2; b++)
            if (!(st->buf[b] = (float *)malloc((size_t)(most ? most : 1) * sizeof(float)))) {
                bh_note(r, "%s", "cannot allocate the work buffers");
                return BH_OOM;
            }
        if (x->dtype != PL_FLOAT && !(st->x = (float *)malloc((size_t)(pl_count(x) ? pl_count(x) : 1) * sizeof(float)))) {
            bh_note(r, "%s", "cannot allocate the work buffers");
            return BH_OOM;
        }
    }
    return BH_OK;
}

static inline void pl_sample_free(struct pl_state *s)
{
    struct pl_sample_state *st = (struct pl_sample_state *)s->sample;
    if (!st)
        return;
    for (int k = 0; k < 8; k++) {
        free(st->dim[k].idx);
        free(st->dim[k].w);
        free(st->dim[k].outside);
        free(st->pick[k]);
    }
    free(st->buf[0]);
    free(st->buf[1]);
    free(st->x);
    free(st);
    s->sample = NULL;
}

/* an output value in the output's type: integers rounded half to even and saturated */
static inline void pl_sample_store(void *p, int dt, int64_t i, double v)
{
    if (!pl_is_float(dt))
        v = pl_saturate(dt, nearbyint(v));
    pl_store(p, dt, i, v);
}

/* Resize, nearest: one gather, output row by output row (all dims but the last); a row that
 * reads the same input row as the one before it is a copy of that output row */
static inline void pl_resize_nearest(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_sample_state *st = (const struct pl_sample_state *)s->sample;
    const struct pl_tensor *x = &op->in[0];
    int nd = op->out.nd, dt = x->dtype, odt = op->out.dtype;
    int64_t n = pl_count(&op->out), stride[8], idx[8] = {0}, acc = 1, prev = -1;
    size_t es = pl_esize(dt);
    for (int k = nd - 1; k >= 0; k--) {
        stride[k] = acc;
        acc *= x->d[k];
    }
    int64_t last = nd ? op->out.d[nd - 1] : 1;
    const int64_t *col = st->pick[nd ? nd - 1 : 0];
    const unsigned char *col_out = st->pick_out[nd ? nd - 1 : 0];
    char *out = (char *)s->out;
    const char *in = (const char *)s->in[0];
    for (int64_t i = 0; i < n && last > 0; i += last) {
        int64_t base = 0, outside = 0;
        for (int k = 0; k < nd - 1; k++) {
            base += (st->pick[k] ? st->pick[k][idx[k]] : idx[k]) * stride[k];
            outside |= st->pick_out[k] ? st->pick_out[k][idx[k]] : 0;
        }
        char *row = out + (size_t)i * pl_esize(odt);
        if (outside) {
            for (int64_t c = 0; c < last; c++)
                pl_sample_store(s->out, odt, i + c, op->rs.extrapolation);
            base = -2;
        } else if (base == prev) {
            memcpy(row, row - (size_t)last * pl_esize(odt), (size_t)last * pl_esize(odt));
        } else if (dt != odt || col_out) {
            for (int64_t c = 0; c < last; c++)
                if (col_out && col_out[c])
                    pl_sample_store(s->out, odt, i + c, op->rs.extrapolation);
                else
                    pl_store(s->out, odt, i + c, pl_load(s->in[0], dt, base + (col ? col[c] : c)));
        } else if (!col) {
            memcpy(row, in + (size_t)base * es, (size_t)last * es);
        } else if (es == 4) {
            const uint32_t *src = (const uint32_t *)in + base;
            uint32_t *dst = (uint32_t *)row;
            for (int64_t c = 0; c < last; c++)
                dst[c] = src[col[c]];
        } else if (es == 2) {
            const uint16_t *src = (const uint16_t *)in + base;
            uint16_t *dst = (uint16_t *)row;
            for (int64_t c = 0; c < last; c++)
                dst[c] = src[col[c]];
        } else if (es == 1) {
            const uint8_t *src = (const uint8_t *)in + base;
            for (int64_t c = 0; c < last; c++)
                row[c] = (char)src[col[c]];
        } else {
            const uint64_t *src = (const uint64_t *)in + base;
            uint64_t *dst = (uint64_t *)row;
            for (int64_t c = 0; c < last; c++)
                dst[c] = src[col[c]];
        }
        prev = base;
        for (int k = nd - 2; k >= 0; k--) {
            if (++idx[k] < op->out.d[k])
                break;
            idx[k] = 0;
        }
    }
}

/* Resize, linear and cubic: one dim at a time, through float buffers */
static inline void pl_resize_separable(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    struct pl_sample_state *st = (struct pl_sample_state *)s->sample;
    const struct pl_tensor *x = &op->in[0];
    int nd = x->nd, odt = op->out.dtype, passes = 0, done = 0;
    int64_t n = pl_count(x), cur[8];
    for (int k = 0; k < nd; k++) {
        cur[k] = x->d[k];
        passes += st->dim[k].n > 0;
    }
    const float *src = (const float *)s->in[0];
    if (x->dtype != PL_FLOAT) {
        for (int64_t i = 0; i < n; i++)
            st->x[i] = (float)pl_load(s->in[0], x->dtype, i);
        src = st->x;
    }
    int64_t count = n;
    for (int k = 0; k < nd; k++) {
        const struct pl_dim_taps *t = &st->dim[k];
        if (!t->n)
            continue;
        done++;
        int direct = done == passes && odt == PL_FLOAT; /* the last pass writes the output */
        float *dst = direct ? (float *)s->out : st->buf[done & 1];
        int64_t outer = 1, inner = 1, in = cur[k], out = op->out.d[k];
        for (int j = 0; j < k; j++)
            outer *= cur[j];
        for (int j = k + 1; j < nd; j++)
            inner *= cur[j];
        float extra = (float)op->rs.extrapolation;
        if (inner == 1) { /* the last dim: a short dot product per output element */
            for (int64_t a = 0; a < outer; a++) {
                const float *row = src + a * in;
                float *d = dst + a * out;
                if (t->n == 2) /* linear: two taps, unrolled */
                    for (int64_t o = 0; o < out; o++)
                        d[o] = t->w[2 * o] * row[t->idx[2 * o]] + t->w[2 * o + 1] * row[t->idx[2 * o + 1]];
                else
                    for (int64_t o = 0; o < out; o++) {
                        const int64_t *ix = t->idx + o * t->n;
                        const float *w = t->w + o * t->n;
                        float v = 0;
                        for (int q = 0; q < t->n; q++)
                            v += w[q] * row[ix[q]];
                        d[o] = v;
                    }
                for (int64_t o = 0; o < out; o++)
                    if (t->outside[o])
                        d[o] = extra;
            }
            cur[k] = out;
            count = outer * out * inner;
            src = dst;
            continue;
        }
        for (int64_t a = 0; a < outer; a++)
            for (int64_t o = 0; o < out; o++) {
                float *d = dst + (a * out + o) * inner;
                if (t->outside[o]) {
                    for (int64_t c = 0; c < inner; c++)
                        d[c] = extra;
                    continue;
                }
                const int64_t *ix = t->idx + o * t->n;
                const float *w = t->w + o * t->n;
                const float *s0 = src + (a * in + ix[0]) * inner;
                if (t->n == 2) { /* linear: both lines in one sweep */
                    const float *s1 = src + (a * in + ix[1]) * inner;
                    float w0 = w[0], w1 = w[1];
                    for (int64_t c = 0; c < inner; c++)
                        d[c] = w0 * s0[c] + w1 * s1[c];
                    continue;
                }
                for (int64_t c = 0; c < inner; c++)
                    d[c] = w[0] * s0[c];
                for (int q = 1; q < t->n; q++) {
                    const float *sq = src + (a * in + ix[q]) * inner;
                    float wq = w[q];
                    for (int64_t c = 0; c < inner; c++)
                        d[c] += wq * sq[c];
                }
            }
        cur[k] = out;
        count = outer * out * inner;
        src = dst;
    }
    if (passes == 0 || odt != PL_FLOAT)
        for (int64_t i = 0; i < count; i++)
            pl_sample_store(s->out, odt, i, src[i]);
}

/* GridSample: per output position, the taps of each spatial dim, then every channel */
static inline void pl_grid_sample(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0], *g = &op->in[1];
    int nsp = x->nd - 2, dt = x->dtype, odt = op->out.dtype;
    int64_t nb = x->d[0], ch = x->d[1], plane = 1, pts = 1;
    for (int k = 0; k < nsp; k++) {
        plane *= x->d[2 + k];
        pts *= op->out.d[2 + k];
    }
    int64_t idx[8][4], stride[8], cnt[8];
    double w[8][4];
    for (int64_t k = nsp - 1, acc = 1; k >= 0; k--) {
        stride[k] = acc;
        acc *= x->d[2 + k];
    }
    const float *gf = g->dtype == PL_FLOAT ? (const float *)s->in[1] : NULL;
    const float *xf = dt == PL_FLOAT ? (const float *)s->in[0] : NULL;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t p = 0; p < pts; p++) {
            int64_t gp = (b * pts + p) * nsp;
            for (int k = 0; k < nsp; k++) { /* the grid's last dim lists the coordinates innermost first */
                float gv = gf ? gf[gp + nsp - 1 - k] : (float)pl_load(s->in[1], g->dtype, gp + nsp - 1 - k);
                cnt[k] = pl_grid_taps(op, k, gv, idx[k], w[k]);
            }
            for (int64_t c = 0; c < ch; c++) {
                const int64_t base = (b * ch + c) * plane;
                double acc = 0;
                int t[8] = {0};
                for (;;) { /* every combination of the dims' taps */
                    double wt = 1;
                    int64_t off = base, zero = 0;
                    for (int k = 0; k < nsp; k++) {
                        wt *= w[k][t[k]];
                        zero |= idx[k][t[k]] < 0;
                        off += idx[k][t[k]] * stride[k];
                    }
                    if (!zero)
                        acc += wt * (xf ? xf[off] : pl_load(s->in[0], dt, off));
                    int k = nsp - 1;
                    while (k >= 0 && ++t[k] == cnt[k])
                        t[k--] = 0;
                    if (k < 0)
                        break;
                }
                pl_sample_store(s->out, odt, (b * ch + c) * pts + p, acc);
            }
        }
}

static inline void pl_kernel_sample(struct pl_state *s)
{
    if (PL_KIND_OF(s->op) == PL_GRID_SAMPLE)
        pl_grid_sample(s);
    else if (s->op->rs.mode == PL_SAMPLE_NEAREST)
        pl_resize_nearest(s);
    else
        pl_resize_separable(s);
}

/* The tolerance of a resampled value, relative to the largest one: float arithmetic in the
 * kernel against double in the reference (and one rounding of the output type); integers
 * within one step (a value near .5 may round either way) */
static inline double pl_sample_tolerance(int dt)
{
    return dt == PL_FLOAT ? 1e-5 : dt == PL_FLOAT16 ? 2e-3 : dt == PL_BFLOAT16 ? 1.6e-2 : dt == PL_DOUBLE ? 1e-5 : 0;
}

/* Each output element on its own, in double: Resize as the product of its taps over all dims
 * (from pl_resize_taps, not from the kernel's tables), GridSample from its grid point */
static inline enum bh_status pl_verify_sample(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int nd = op->out.nd, odt = op->out.dtype;
    int64_t n = pl_count(&op->out);
    double *want = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    int64_t (*ti)[64] = (int64_t(*)[64])malloc(8 * sizeof(*ti));
    double (*tw)[64] = (double(*)[64])malloc(8 * sizeof(*tw));
    if (!want || !ti || !tw) {
        free(want);
        free(ti);
        free(tw);
        bh_note(r, "%s", "cannot allocate the reference's output");
        return BH_OOM;
    }
    int cnt[8];
    double largest = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t coord[8], rem = i;
        for (int k = nd - 1; k >= 0; k--) {
            coord[k] = op->out.d[k] ? rem % op->out.d[k] : 0;
            rem = op->out.d[k] ? rem / op->out.d[k] : 0;
        }
        double v = 0;
        int first = PL_KIND_OF(op) == PL_GRID_SAMPLE ? 2 : 0, outside = 0, fit = 1;
        for (int k = first; k < nd; k++) {
            if (PL_KIND_OF(op) == PL_GRID_SAMPLE) {
                int nsp = nd - 2;
                int64_t gp = coord[0];
                for (int j = 2; j < nd; j++)
                    gp = gp * op->out.d[j] + coord[j];
                float gv = (float)pl_load(s->in[1], op->in[1].dtype, gp * nsp + (nsp - 1 - (k - 2)));
                cnt[k] = pl_grid_taps(op, k - 2, gv, ti[k], tw[k]);
                continue;
            }
            int nt = pl_resize_ntaps(op, k);
            if (!nt) {
                cnt[k] = 1;
                ti[k][0] = coord[k];
                tw[k][0] = 1;
                continue;
            }
            if (nt > 64) {
                fit = 0;
                break;
            }
            cnt[k] = nt;
            outside |= pl_resize_taps(op, k, nt, coord[k], ti[k], tw[k]);
        }
        if (!fit) {
            free(want);
            free(ti);
            free(tw);
            bh_note(r, "%s", "the reference takes at most 64 taps per dim");
            return BH_WRONG;
        }
        if (outside) {
            v = op->rs.extrapolation;
        } else {
            int t[8] = {0};
            for (;;) {
                double wt = 1;
                int64_t off = 0, zero = 0;
                for (int k = 0; k < nd; k++) {
                    if (PL_KIND_OF(op) == PL_GRID_SAMPLE && k < 2) {
                        off = off * x->d[k] + coord[k];
                        continue;
                    }
                    wt *= tw[k][t[k]];
                    zero |= ti[k][t[k]] < 0;
                    off = off * x->d[k] + (ti[k][t[k]] < 0 ? 0 : ti[k][t[k]]);
                }
                if (!zero)
                    v += wt * pl_load(s->in[0], x->dtype, off);
                int k = nd - 1;
                while (k >= first && ++t[k] == cnt[k])
                    t[k--] = 0;
                if (k < first)
                    break;
            }
        }
        want[i] = pl_is_float(odt) ? v : pl_saturate(odt, nearbyint(v));
        largest = fabs(want[i]) > largest ? fabs(want[i]) : largest;
    }
    double tol = pl_sample_tolerance(odt), worst = 0;
    double allowed = pl_is_float(odt) ? tol * (largest > 1e-30 ? largest : 1) : 1;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(pl_load(s->out, odt, i) - want[i]);
        if (d != d)
            d = INFINITY;
        worst = d > worst ? d : worst;
    }
    free(want);
    free(ti);
    free(tw);
    if (worst > allowed) {
        bh_note(r, "output differs from the reference (each element from its taps, in double): max error %.3g, allowed %.3g",
                worst, allowed);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: each element from its taps in double (max error %.3g, allowed %.3g: %s)",
            worst, allowed, pl_is_float(odt) ? "relative to the largest value" : "one step");
    return BH_OK;
}

#endif
