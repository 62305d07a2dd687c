/* Plain C benchmarks for QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear. Inlined
 * after plain_ops.h, whose setup, kernel and verification call into it for PL_QUANTIZE,
 * PL_DEQUANTIZE and PL_DYNQUANT.
 *
 * Arithmetic in float, as ONNX defines it: QuantizeLinear y = saturate(round(x / scale) + zp)
 * with rounding half to even; DequantizeLinear y = (x - zp) * scale; a per-axis scale and zero
 * point follow the output's axis. DynamicQuantizeLinear computes its uint8 scale and zero point
 * from the input's range (with 0 in it) first, then quantizes. */
#ifndef BENANZA_PLAIN_QUANT_H
#define BENANZA_PLAIN_QUANT_H

#include <float.h>

/* The scale (and zero point) element of output element i: per tensor, or along op->axis. */
static inline int64_t pl_quant_index(const struct pl_op *op, int64_t i)
{
    if (pl_count(&op->in[1]) <= 1)
        return 0;
    int64_t outer, dim, inner;
    pl_axis_split(&op->out, op->axis, &outer, &dim, &inner);
    return i / inner % dim;
}

static inline double pl_quantize_one(int odt, float x, float scale, double zp)
{
    float q = x / scale;
    return pl_saturate(odt, nearbyint((double)q) + zp);
}

/* DynamicQuantizeLinear's scale and zero point from the range of x, 0 included */
static inline void pl_dynquant_params(const struct pl_state *s, float *scale, double *zp)
{
    const struct pl_op *op = s->op;
    float lo = 0, hi = 0;
    int64_t n = pl_count(&op->in[0]);
    const float *x = op->in[0].dtype == PL_FLOAT ? (const float *)s->in[0] : NULL;
    for (int64_t i = 0; i < n; i++) {
        float v = x ? x[i] : (float)pl_load(s->in[0], op->in[0].dtype, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    *scale = (hi - lo) / 255.0f;
    float z = 0.0f - lo / *scale;
    *zp = nearbyint((double)(z < 0 ? 0 : z > 255 ? 255 : z));
}

/* float rounded to the nearest integer, ties to even, in the default rounding mode: adding and
 * subtracting 1.5 * 2^23 leaves no fraction bits (for |v| < 2^22; callers clamp first). The
 * generated files are built without -ffast-math, so no compiler may fold the two away. */
static inline float pl_round_even(float v)
{
    return (v + 12582912.0f) - 12582912.0f;
}

/* f32 -> u8/s8 and u8/s8 -> f32, per tensor or per axis: the loops frameworks vectorize; the
 * same arithmetic as the general path (float division, ties to even, saturation) */
static inline int pl_kernel_quant_fast(struct pl_state *s, float dscale, double dzp)
{
    const struct pl_op *op = s->op;
    int xdt = op->in[0].dtype, odt = op->out.dtype, q = PL_KIND_OF(op) != PL_DEQUANTIZE;
    int qdt = q ? odt : xdt;
    if ((q ? xdt : odt) != PL_FLOAT || (qdt != PL_UINT8 && qdt != PL_INT8) ||
        (PL_KIND_OF(op) != PL_DYNQUANT && (op->in[1].dtype != PL_FLOAT || (op->nin > 2 && op->in[2].dtype != qdt))))
        return 0;
    int64_t outer = 1, dim = 1, inner = pl_count(&op->out);
    if (PL_KIND_OF(op) != PL_DYNQUANT && pl_count(&op->in[1]) > 1)
        pl_axis_split(&op->out, op->axis, &outer, &dim, &inner);
    float lo = qdt == PL_UINT8 ? 0.0f : -128.0f, hi = qdt == PL_UINT8 ? 255.0f : 127.0f;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t c = 0; c < dim; c++) {
            float scale = dscale, zp = (float)dzp;
            if (PL_KIND_OF(op) != PL_DYNQUANT) {
                scale = ((const float *)s->in[1])[c];
                zp = op->nin > 2 ? (float)pl_load(s->in[2], qdt, c) : 0.0f;
            }
            int64_t base = (a * dim + c) * inner;
            if (!q) {
                float *y = (float *)s->out + base;
                if (qdt == PL_UINT8)
                    for (int64_t i = 0; i < inner; i++)
                        y[i] = ((float)((const uint8_t *)s->in[0])[base + i] - zp) * scale;
                else
                    for (int64_t i = 0; i < inner; i++)
                        y[i] = ((float)((const int8_t *)s->in[0])[base + i] - zp) * scale;
                continue;
            }
            const float *x = (const float *)s->in[0] + base;
            for (int64_t i = 0; i < inner; i++) {
                float v = x[i] / scale;
                v = v < -4194304.0f ? -4194304.0f : v > 4194304.0f ? 4194304.0f : v; /* |v| < 2^22 */
                v = pl_round_even(v) + zp;
                v = v < lo ? lo : v > hi ? hi : v;
                if (qdt == PL_UINT8)
                    ((uint8_t *)s->out)[base + i] = (uint8_t)(int)v;
                else
                    ((int8_t *)s->out)[base + i] = (int8_t)(int)v;
            }
        }
    return 1;
}

static inline void pl_kernel_quant(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out);
    int xdt = op->in[0].dtype, odt = op->out.dtype;
    float fscale = 0;
    double fzp = 0;
    if (PL_KIND_OF(op) == PL_DYNQUANT)
        pl_dynquant_params(s, &fscale, &fzp);
    if (pl_kernel_quant_fast(s, fscale, fzp))
        return;
    if (PL_KIND_OF(op) == PL_DYNQUANT) {
        for (int64_t i = 0; i < n; i++)
            pl_store(s->out, odt, i, pl_quantize_one(odt, (float)pl_load(s->in[0], xdt, i), fscale, fzp));
        return;
    }
    int sdt = op->in[1].dtype, zdt = op->nin > 2 ? op->in[2].dtype : 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t q = pl_quant_index(op, i);
        float scale = (float)pl_load(s->in[1], sdt, q);
        double zp = zdt ? pl_load(s->in[2], zdt, q) : 0;
        if (PL_KIND_OF(op) == PL_QUANTIZE)
            pl_store(s->out, odt, i, pl_quantize_one(odt, (float)pl_load(s->in[0], xdt, i), scale, zp));
        else
            pl_store(s->out, odt, i, (double)(((float)pl_load(s->in[0], xdt, i) - (float)zp) * scale));
    }
}

/* The reference: each element with its scale and zero point found from its coordinates */
static inline int64_t pl_reference_quant(const struct pl_state *s, void *want)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out), coord[8];
    int xdt = op->in[0].dtype, odt = op->out.dtype;
    float dscale = 0;
    double dzp = 0;
    if (PL_KIND_OF(op) == PL_DYNQUANT)
        pl_dynquant_params(s, &dscale, &dzp);
    for (int64_t i = 0; i < n; i++) {
        float scale = dscale;
        double zp = dzp;
        if (PL_KIND_OF(op) != PL_DYNQUANT) {
            int64_t q = 0;
            if (pl_count(&op->in[1]) > 1) {
                pl_coords(&op->out, i, coord);
                q = coord[op->axis];
            }
            scale = (float)pl_load(s->in[1], op->in[1].dtype, q);
            zp = op->nin > 2 ? pl_load(s->in[2], op->in[2].dtype, q) : 0;
        }
        float x = (float)pl_load(s->in[0], xdt, i);
        double v = PL_KIND_OF(op) == PL_DEQUANTIZE ? (double)((x - (float)zp) * scale) : pl_quantize_one(odt, x, scale, zp);
        pl_store(want, odt, i, v);
    }
    return n;
}

#endif
