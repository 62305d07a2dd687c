/* Plain C benchmarks for the operators oneDNN does not have: element-wise maths, broadcasting
 * binary ops and comparisons, Where, Cast, Expand, Gather. Inlined into generated files with
 * harness.h; libc and libm only. The timed kernel walks the output with an odometer (and a
 * flat loop when no input broadcasts); --verify recomputes every element independently from
 * its coordinates and compares. */
#ifndef BENANZA_PLAIN_OPS_H
#define BENANZA_PLAIN_OPS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum pl_kind { PL_UNARY, PL_BINARY, PL_WHERE, PL_CAST, PL_EXPAND, PL_GATHER, PL_MAP };

/* PL_MAP: every output element reads one input element (or writes 0): per dim, input
 * coordinate = start + step * output coordinate (Slice), output - pad with 0 outside (Pad),
 * or output mod the input dim (Tile). */
enum pl_map { PL_MAP_SLICE, PL_MAP_PAD, PL_MAP_TILE };

enum pl_fn {
    PL_ERF, PL_NEG, PL_ABS, PL_SQRT, PL_EXP, PL_LOG, PL_FLOOR, PL_CEIL, PL_ROUND, PL_SIGN, PL_SIN,
    PL_COS, PL_TAN, PL_TANH, PL_SIGMOID, PL_RECIPROCAL, PL_NOT, PL_HARDSIGMOID, PL_SELU, PL_SOFTSIGN,
    PL_SOFTPLUS, PL_ADD, PL_SUB, PL_MUL, PL_DIV, PL_POW, PL_MAX, PL_MIN, PL_MOD, PL_EQUAL, PL_LESS,
    PL_GREATER, PL_LESS_EQUAL, PL_GREATER_EQUAL, PL_AND, PL_OR, PL_XOR, PL_IDENTITY,
    /* for the CUDA kernels (oneDNN has these as primitives on the CPU) */
    PL_GELU, PL_PRELU, PL_HARDSWISH, PL_LEAKYRELU, PL_CLIP
};

/* element types, numbered as ONNX's */
enum { PL_FLOAT = 1, PL_UINT8 = 2, PL_INT8 = 3, PL_INT32 = 6, PL_INT64 = 7, PL_BOOL = 9, PL_DOUBLE = 11 };

struct pl_tensor {
    int dtype;
    int nd;
    int64_t d[8];
};

struct pl_op {
    enum pl_kind kind;
    enum pl_fn fn;
    int nin;
    struct pl_tensor in[3], out;
    int axis;                 /* Gather */
    float alpha, beta;        /* HardSigmoid, Selu */
    int map;                  /* PL_MAP: enum pl_map */
    int64_t start[8], step[8];/* PL_MAP: per output dim (Pad: start = -pad_begin, step 1) */
};

/* The input coordinate an output coordinate reads in dim k, or -1 outside (Pad). */
static inline int64_t pl_map_coord(const struct pl_op *op, int k, int64_t out)
{
    int64_t d = op->in[0].d[k];
    if (op->map == PL_MAP_TILE)
        return out % d;
    int64_t c = op->start[k] + op->step[k] * out;
    return c >= 0 && c < d ? c : -1;
}

static inline size_t pl_esize(int dt)
{
    return dt == PL_INT64 || dt == PL_DOUBLE ? 8 : dt == PL_FLOAT || dt == PL_INT32 ? 4 : 1;
}

static inline int64_t pl_count(const struct pl_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

static inline double pl_load(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case PL_FLOAT: return ((const float *)p)[i];
    case PL_DOUBLE: return ((const double *)p)[i];
    case PL_INT64: return (double)((const int64_t *)p)[i];
    case PL_INT32: return ((const int32_t *)p)[i];
    case PL_INT8: return ((const int8_t *)p)[i];
    default: return ((const uint8_t *)p)[i];
    }
}

static inline void pl_store(void *p, int dt, int64_t i, double v)
{
    switch (dt) {
    case PL_FLOAT: ((float *)p)[i] = (float)v; break;
    case PL_DOUBLE: ((double *)p)[i] = v; break;
    case PL_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case PL_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case PL_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case PL_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default: ((uint8_t *)p)[i] = (uint8_t)v; break;
    }
}

static inline double pl_apply(const struct pl_op *op, double a, double b)
{
    switch (op->fn) {
    case PL_ERF: return erf(a);
    case PL_NEG: return -a;
    case PL_ABS: return fabs(a);
    case PL_SQRT: return sqrt(a);
    case PL_EXP: return exp(a);
    case PL_LOG: return log(a);
    case PL_FLOOR: return floor(a);
    case PL_CEIL: return ceil(a);
    case PL_ROUND: return nearbyint(a);
    case PL_SIGN: return (a > 0) - (a < 0);
    case PL_SIN: return sin(a);
    case PL_COS: return cos(a);
    case PL_TAN: return tan(a);
    case PL_TANH: return tanh(a);
    case PL_SIGMOID: return 1.0 / (1.0 + exp(-a));
    case PL_RECIPROCAL: return 1.0 / a;
    case PL_NOT: return a == 0;
    case PL_HARDSIGMOID: return fmax(0.0, fmin(1.0, op->alpha * a + op->beta));
    case PL_SELU: return op->beta * (a > 0 ? a : op->alpha * (exp(a) - 1));
    case PL_SOFTSIGN: return a / (1 + fabs(a));
    case PL_SOFTPLUS: return log1p(exp(a));
    case PL_ADD: return a + b;
    case PL_SUB: return a - b;
    case PL_MUL: return a * b;
    case PL_DIV: return op->out.dtype == PL_FLOAT || op->out.dtype == PL_DOUBLE ? a / b : (b != 0 ? trunc(a / b) : 0);
    case PL_POW: return pow(a, b);
    case PL_MAX: return a > b ? a : b;
    case PL_MIN: return a < b ? a : b;
    case PL_MOD: return b != 0 ? fmod(a, b) : 0;
    case PL_EQUAL: return a == b;
    case PL_LESS: return a < b;
    case PL_GREATER: return a > b;
    case PL_LESS_EQUAL: return a <= b;
    case PL_GREATER_EQUAL: return a >= b;
    case PL_AND: return (a != 0) && (b != 0);
    case PL_OR: return (a != 0) || (b != 0);
    case PL_XOR: return (a != 0) != (b != 0);
    case PL_IDENTITY: return a;
    case PL_GELU: return 0.5 * a * (1.0 + erf(a / sqrt(2.0)));
    case PL_PRELU: return a < 0 ? a * b : a;
    case PL_HARDSWISH: return a * fmax(0.0, fmin(1.0, a / 6.0 + 0.5));
    case PL_LEAKYRELU: return a < 0 ? op->alpha * a : a;
    case PL_CLIP: return a < op->alpha ? op->alpha : a > op->beta ? op->beta : a;
    }
    return a;
}

struct pl_state {
    const struct pl_op *op;
    void *in[3], *out, *check;
    int64_t strides[3][8]; /* per input, per output dim: 0 where the input broadcasts */
    int flat;              /* no input broadcasts: one flat loop */
};

static inline uint32_t pl_rand_step(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Broadcast strides of input t against the output (numpy rules, aligned on the right). */
static inline void pl_bcast_strides(const struct pl_tensor *t, const struct pl_tensor *out, int64_t *st)
{
    int64_t acc = 1;
    for (int k = out->nd - 1; k >= 0; k--) {
        int j = k - (out->nd - t->nd);
        if (j < 0) {
            st[k] = 0;
            continue;
        }
        st[k] = t->d[j] == 1 && out->d[k] != 1 ? 0 : acc;
        acc *= t->d[j];
    }
}

static inline enum bh_status pl_setup(void *state, const struct bh_opts *o, struct bh_result *r)
{
    struct pl_state *s = (struct pl_state *)state;
    const struct pl_op *op = s->op;
    (void)o;
    r->threads = 1;
    snprintf(r->lib, sizeof(r->lib), "%s", "benanza plain C");
    bh_cpu_device(r);
    uint32_t seed = 12345u;
    for (int i = 0; i < op->nin; i++) {
        const struct pl_tensor *t = &op->in[i];
        int64_t n = pl_count(t);
        s->in[i] = malloc((size_t)(n ? n : 1) * pl_esize(t->dtype));
        if (!s->in[i]) {
            bh_note(r, "cannot allocate %lld elements", (long long)n);
            return BH_OOM;
        }
        int positive = op->kind == PL_UNARY && (op->fn == PL_LOG || op->fn == PL_SQRT);
        for (int64_t k = 0; k < n; k++) {
            double v = (double)pl_rand_step(&seed) / 16777216.0;
            if (op->kind == PL_GATHER && i == 1) {
                int64_t dim = op->in[0].d[op->axis];
                v = (double)(int64_t)(v * (double)dim) - (k % 3 == 0 ? (double)dim : 0); /* negative ones too */
            } else if (t->dtype == PL_BOOL) {
                v = v < 0.5;
            } else if (t->dtype != PL_FLOAT && t->dtype != PL_DOUBLE) {
                v = (double)(int64_t)(v * 16) - 8 + (op->fn == PL_DIV || op->fn == PL_MOD ? 17 : 0);
            } else {
                v = positive ? 0.5 + v : 2 * v - 1;
            }
            pl_store(s->in[i], t->dtype, k, v);
        }
        if (op->kind != PL_GATHER && op->kind != PL_MAP)
            pl_bcast_strides(t, &op->out, s->strides[i]);
    }
    int64_t n = pl_count(&op->out);
    s->out = malloc((size_t)(n ? n : 1) * pl_esize(op->out.dtype));
    s->check = malloc((size_t)(n ? n : 1) * pl_esize(op->out.dtype));
    if (!s->out || !s->check) {
        bh_note(r, "cannot allocate the output (%lld elements)", (long long)n);
        return BH_OOM;
    }
    s->flat = op->kind != PL_GATHER && op->kind != PL_MAP;
    for (int i = 0; i < op->nin && s->flat; i++)
        s->flat = pl_count(&op->in[i]) == n;
    return BH_OK;
}

static inline void pl_kernel(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
    if (op->kind == PL_GATHER) {
        /* [outer, axis, inner] -> [outer, indices, inner], one row copy per index */
        const struct pl_tensor *d = &op->in[0];
        int64_t outer = 1, inner = 1, ni = pl_count(&op->in[1]), dim = d->d[op->axis];
        for (int k = 0; k < op->axis; k++)
            outer *= d->d[k];
        for (int k = op->axis + 1; k < d->nd; k++)
            inner *= d->d[k];
        size_t es = pl_esize(d->dtype);
        const int64_t *idx = (const int64_t *)s->in[1];
        char *o = (char *)s->out;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t q = 0; q < ni; q++) {
                int64_t j = idx[q] < 0 ? idx[q] + dim : idx[q];
                memcpy(o, (const char *)s->in[0] + ((a * dim + j) * inner) * (int64_t)es, (size_t)(inner * (int64_t)es));
                o += inner * (int64_t)es;
            }
        return;
    }
    if (op->kind == PL_MAP) {
        /* the odometer over the output; the input offset of the innermost run follows by steps */
        const struct pl_tensor *t = &op->in[0];
        int nd = op->out.nd;
        int64_t istride[8], idx[8] = {0}, acc = 1;
        for (int k = nd - 1; k >= 0; k--) {
            istride[k] = acc;
            acc *= t->d[k];
        }
        size_t es = pl_esize(t->dtype);
        int64_t inner = nd ? op->out.d[nd - 1] : 1;
        for (int64_t i = 0; i < n; i += inner) {
            int64_t base = 0;
            int outside = 0;
            for (int k = 0; k < nd - 1; k++) {
                int64_t c = pl_map_coord(op, k, idx[k]);
                if (c < 0)
                    outside = 1;
                base += c * istride[k];
            }
            char *o = (char *)s->out + i * (int64_t)es;
            if (outside) {
                memset(o, 0, (size_t)(inner * (int64_t)es));
            } else if (op->map == PL_MAP_SLICE && op->step[nd - 1] == 1 && es == 4) {
                memcpy(o, (const char *)s->in[0] + (base + op->start[nd - 1]) * 4, (size_t)inner * 4);
            } else {
                for (int64_t j = 0; j < inner; j++) {
                    int64_t c = pl_map_coord(op, nd - 1, j);
                    pl_store(s->out, odt, i + j, c < 0 ? 0 : pl_load(s->in[0], t->dtype, base + c));
                }
            }
            for (int k = nd - 2; k >= 0; k--) {
                if (++idx[k] < op->out.d[k])
                    break;
                idx[k] = 0;
            }
        }
        return;
    }
    if (s->flat && op->kind == PL_UNARY && op->in[0].dtype == PL_FLOAT && odt == PL_FLOAT) {
        const float *x = (const float *)s->in[0];
        float *y = (float *)s->out;
        for (int64_t i = 0; i < n; i++)
            y[i] = (float)pl_apply(op, x[i], 0);
        return;
    }
    int64_t idx[8] = {0}, pos[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double a = pl_load(s->in[0], op->in[0].dtype, s->flat ? i : pos[0]);
        double v;
        if (op->kind == PL_BINARY)
            v = pl_apply(op, a, pl_load(s->in[1], op->in[1].dtype, s->flat ? i : pos[1]));
        else if (op->kind == PL_WHERE)
            v = a != 0 ? pl_load(s->in[1], op->in[1].dtype, s->flat ? i : pos[1])
                       : pl_load(s->in[2], op->in[2].dtype, s->flat ? i : pos[2]);
        else if (op->kind == PL_UNARY)
            v = pl_apply(op, a, 0);
        else
            v = a; /* Cast, Expand */
        pl_store(s->out, odt, i, v);
        if (s->flat)
            continue;
        for (int k = op->out.nd - 1; k >= 0; k--) { /* the odometer */
            idx[k]++;
            for (int j = 0; j < op->nin; j++)
                pos[j] += s->strides[j][k];
            if (idx[k] < op->out.d[k])
                break;
            for (int j = 0; j < op->nin; j++)
                pos[j] -= s->strides[j][k] * idx[k];
            idx[k] = 0;
        }
    }
}

static inline double pl_run(void *state, struct bh_result *r)
{
    (void)r;
    double t0 = bh_now_us();
    pl_kernel((struct pl_state *)state);
    return bh_now_us() - t0;
}

/* Every output element from its coordinates: the input positions by division, not by the
 * kernel's running offsets. */
static inline enum bh_status pl_verify(void *state, struct bh_result *r)
{
    struct pl_state *s = (struct pl_state *)state;
    const struct pl_op *op = s->op;
    pl_kernel(s);
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t coord[8], rem = i;
        for (int k = op->out.nd - 1; k >= 0; k--) {
            coord[k] = op->out.d[k] ? rem % op->out.d[k] : 0;
            rem = op->out.d[k] ? rem / op->out.d[k] : 0;
        }
        double want;
        if (op->kind == PL_MAP) {
            int64_t src = 0;
            int outside = 0;
            for (int k = 0; k < op->out.nd; k++) {
                int64_t c = op->map == PL_MAP_TILE ? coord[k] % op->in[0].d[k] : op->start[k] + op->step[k] * coord[k];
                if (c < 0 || c >= op->in[0].d[k])
                    outside = 1;
                src = src * op->in[0].d[k] + (outside ? 0 : c);
            }
            want = outside ? 0 : pl_load(s->in[0], op->in[0].dtype, src);
        } else if (op->kind == PL_GATHER) {
            const struct pl_tensor *d = &op->in[0];
            int ni = op->in[1].nd;
            int64_t qi = 0;
            for (int k = 0; k < ni; k++)
                qi = qi * op->in[1].d[k] + coord[op->axis + k];
            int64_t j = ((const int64_t *)s->in[1])[qi];
            if (j < 0)
                j += d->d[op->axis];
            int64_t src = 0;
            for (int k = 0; k < d->nd; k++) {
                int64_t c = k < op->axis ? coord[k] : k == op->axis ? j : coord[k - 1 + ni];
                src = src * d->d[k] + c;
            }
            want = pl_load(s->in[0], d->dtype, src);
        } else {
            double v[3] = {0, 0, 0};
            for (int j = 0; j < op->nin; j++) {
                const struct pl_tensor *t = &op->in[j];
                int64_t p = 0;
                for (int k = 0; k < t->nd; k++) {
                    int ok = k + (op->out.nd - t->nd);
                    p = p * t->d[k] + (t->d[k] == 1 ? 0 : coord[ok]);
                }
                v[j] = pl_load(s->in[j], t->dtype, p);
            }
            want = op->kind == PL_BINARY ? pl_apply(op, v[0], v[1])
                   : op->kind == PL_WHERE ? (v[0] != 0 ? v[1] : v[2])
                   : op->kind == PL_UNARY ? pl_apply(op, v[0], 0) : v[0];
        }
        pl_store(s->check, odt, 0, want); /* rounded to the output type like the kernel's */
        double w = pl_load(s->check, odt, 0), got = pl_load(s->out, odt, i);
        double d = fabs(got - w);
        if (d != d && w == w)
            d = INFINITY;
        if (d > worst)
            worst = d;
    }
    if (worst > 0) {
        bh_note(r, "output differs from the independent reference: max error %.3g", worst);
        return BH_WRONG;
    }
    bh_note(r, "%s", "verified against the reference: an independent element-by-element computation (max error 0)");
    return BH_OK;
}

static inline void pl_teardown(void *state)
{
    struct pl_state *s = (struct pl_state *)state;
    for (int i = 0; i < 3; i++)
        free(s->in[i]);
    free(s->out);
    free(s->check);
}

#endif
