/* Plain C benchmarks for the index, scan and selection operators oneDNN has not:
 * GatherElements, GatherND, ScatterElements (and the old Scatter), CumSum, Trilu, OneHot,
 * ReverseSequence, EyeLike, Range. Inlined after plain_ops.h, whose setup, kernel and
 * verification call into it for these kinds (PL_GATHER_ELEMENTS and after, up to PL_RANGE).
 *
 * The kernels walk their output (or, for a scatter, the updates) with an odometer and running
 * offsets; the references here compute the whole expected output from the definition with
 * their own index arithmetic (coordinates by division), and plain_ops.h compares. */
#ifndef BENANZA_PLAIN_INDEX_H
#define BENANZA_PLAIN_INDEX_H

/* element strides of a row-major tensor */
static inline void pl_strides(const struct pl_tensor *t, int64_t *st)
{
    int64_t acc = 1;
    for (int k = t->nd - 1; k >= 0; k--) {
        st[k] = acc;
        acc *= t->d[k];
    }
}

/* an index along a dim of size d, negative ones counted from the end */
static inline int64_t pl_wrap(int64_t v, int64_t d)
{
    return v < 0 ? v + d : v;
}

/* The inputs that hold indices or counts get valid values (the others keep the uniform
 * fill of pl_setup). */
static inline void pl_index_inputs(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    uint32_t seed = 4242u;
    switch (PL_KIND_OF(op)) {
    case PL_GATHER_ELEMENTS:
    case PL_SCATTER_ELEMENTS: {
        /* along the axis, in [-d, d): every third one negative */
        int64_t n = pl_count(&op->in[1]), d = op->in[0].d[op->axis];
        for (int64_t k = 0; k < n; k++) {
            int64_t v = (int64_t)((double)pl_rand_step(&seed) / 16777216.0 * (double)d);
            ((int64_t *)s->in[1])[k] = k % 3 == 0 ? v - d : v;
        }
        break;
    }
    case PL_GATHER_ND: {
        /* column c of an index row addresses data dim batch_dims + c */
        const struct pl_tensor *ix = &op->in[1];
        int q = (int)ix->d[ix->nd - 1];
        int64_t rows = q ? pl_count(ix) / q : 0;
        for (int64_t row = 0; row < rows; row++)
            for (int c = 0; c < q; c++) {
                int64_t d = op->in[0].d[op->k + c];
                int64_t v = (int64_t)((double)pl_rand_step(&seed) / 16777216.0 * (double)d);
                ((int64_t *)s->in[1])[row * q + c] = (row + c) % 3 == 0 ? v - d : v;
            }
        break;
    }
    case PL_ONEHOT: {
        /* indices in [-depth - 1, depth + 1): negative ones and a few outside (all off) */
        int64_t n = pl_count(&op->in[0]), depth = op->out.d[op->axis];
        for (int64_t k = 0; k < n; k++) {
            double u = (double)pl_rand_step(&seed) / 16777216.0;
            pl_store(s->in[0], op->in[0].dtype, k, floor(u * (double)(2 * depth + 2)) - (double)depth - 1);
        }
        pl_store(s->in[1], op->in[1].dtype, 0, (double)depth);
        break;
    }
    case PL_REVERSE_SEQUENCE: {
        /* each sequence's length in [1, T] */
        int64_t b = op->in[0].d[op->k], t = op->in[0].d[op->axis];
        for (int64_t k = 0; k < b; k++)
            ((int64_t *)s->in[1])[k] = 1 + (int64_t)((double)pl_rand_step(&seed) / 16777216.0 * (double)t);
        break;
    }
    case PL_RANGE: {
        /* start, limit, delta giving exactly the output's length, every value exact */
        double start = pl_is_float(op->out.dtype) ? 1.5 : 3, delta = pl_is_float(op->out.dtype) ? 0.5 : 2;
        pl_store(s->in[0], op->in[0].dtype, 0, start);
        pl_store(s->in[1], op->in[1].dtype, 0, start + delta * (double)op->out.d[0]);
        pl_store(s->in[2], op->in[2].dtype, 0, delta);
        break;
    }
    default:
        break;
    }
}

static inline void pl_kernel_index(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    int64_t n = pl_count(y);
    size_t es = pl_esize(y->dtype);
    switch (PL_KIND_OF(op)) {
    case PL_GATHER_ELEMENTS:
    case PL_SCATTER_ELEMENTS: {
        /* the odometer over the indices' shape; the data offset runs without the axis term,
         * which comes from the index */
        const struct pl_tensor *ix = &op->in[1];
        int nd = ix->nd, ax = op->axis, scatter = PL_KIND_OF(op) == PL_SCATTER_ELEMENTS;
        int64_t dst[8], idx[8] = {0}, base = 0, m = pl_count(ix), dim = x->d[ax];
        pl_strides(x, dst);
        const int64_t *iv = (const int64_t *)s->in[1];
        if (scatter)
            memcpy(s->out, s->in[0], (size_t)pl_count(x) * es);
        for (int64_t i = 0; i < m; i++) {
            int64_t o = base + pl_wrap(iv[i], dim) * dst[ax];
            if (!scatter)
                memcpy((char *)s->out + i * (int64_t)es, (const char *)s->in[0] + o * (int64_t)es, es);
            else if (!op->flag)
                memcpy((char *)s->out + o * (int64_t)es, (const char *)s->in[2] + i * (int64_t)es, es);
            else
                pl_store(s->out, y->dtype, o,
                         pl_scatter_apply(op->flag, pl_load(s->out, y->dtype, o), pl_load(s->in[2], op->in[2].dtype, i)));
            for (int k = nd - 1; k >= 0; k--) {
                idx[k]++;
                base += k == ax ? 0 : dst[k];
                if (idx[k] < ix->d[k])
                    break;
                base -= k == ax ? 0 : dst[k] * idx[k];
                idx[k] = 0;
            }
        }
        return;
    }
    case PL_GATHER_ND: {
        /* one slice copy per index row */
        const struct pl_tensor *ix = &op->in[1];
        int b = (int)op->k, q = (int)ix->d[ix->nd - 1];
        int64_t rows = q ? pl_count(ix) / q : 0, batches = 1, slice = 1, per_batch = 1, st[8];
        for (int k = 0; k < b; k++)
            batches *= x->d[k];
        for (int k = b; k < x->nd; k++)
            per_batch *= x->d[k];
        for (int k = b + q; k < x->nd; k++)
            slice *= x->d[k];
        pl_strides(x, st);
        const int64_t *iv = (const int64_t *)s->in[1];
        int64_t rows_per_batch = batches ? rows / batches : 0;
        for (int64_t r = 0; r < rows; r++) {
            int64_t o = rows_per_batch ? r / rows_per_batch * per_batch : 0;
            for (int c = 0; c < q; c++)
                o += pl_wrap(iv[r * q + c], x->d[b + c]) * st[b + c];
            memcpy((char *)s->out + r * slice * (int64_t)es, (const char *)s->in[0] + o * (int64_t)es,
                   (size_t)(slice * (int64_t)es));
        }
        return;
    }
    case PL_CUMSUM: {
        /* a running sum along the axis, rounded to the type at every step (as numpy's) */
        int64_t outer, dim, inner;
        pl_axis_split(x, op->axis, &outer, &dim, &inner);
        int excl = op->flag & 1, rev = op->flag & 2, dt = y->dtype;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t c = 0; c < inner; c++) {
                double acc = 0;
                for (int64_t t = 0; t < dim; t++) {
                    int64_t j = rev ? dim - 1 - t : t, e = (a * dim + j) * inner + c;
                    double before = acc;
                    acc = pl_round(dt, acc + pl_load(s->in[0], dt, e));
                    pl_store(s->out, dt, e, excl ? before : acc);
                }
            }
        return;
    }
    case PL_TRILU: {
        /* per matrix row: the kept run copied, the rest zero */
        int64_t rows = x->d[x->nd - 2], cols = x->d[x->nd - 1], mats = rows * cols != 0 ? n / (rows * cols) : 0;
        for (int64_t m = 0; m < mats; m++)
            for (int64_t i = 0; i < rows; i++) {
                char *o = (char *)s->out + ((m * rows + i) * cols) * (int64_t)es;
                const char *src = (const char *)s->in[0] + ((m * rows + i) * cols) * (int64_t)es;
                /* upper keeps j >= i + k, lower keeps j <= i + k */
                int64_t lo = op->flag ? i + op->k : 0, hi = op->flag ? cols : i + op->k + 1;
                lo = lo < 0 ? 0 : lo > cols ? cols : lo;
                hi = hi < lo ? lo : hi > cols ? cols : hi;
                memset(o, 0, (size_t)(lo * (int64_t)es));
                memcpy(o + lo * (int64_t)es, src + lo * (int64_t)es, (size_t)((hi - lo) * (int64_t)es));
                memset(o + hi * (int64_t)es, 0, (size_t)((cols - hi) * (int64_t)es));
            }
        return;
    }
    case PL_ONEHOT: {
        /* all off, then one on per index inside [-depth, depth) */
        const struct pl_tensor *ix = &op->in[0];
        double off = pl_load(s->in[2], op->in[2].dtype, 0), on = pl_load(s->in[2], op->in[2].dtype, 1);
        for (int64_t i = 0; i < n; i++)
            pl_store(s->out, y->dtype, i, off);
        int64_t depth = y->d[op->axis], outer = 1, inner = 1, m = pl_count(ix);
        for (int k = 0; k < op->axis; k++)
            outer *= y->d[k];
        inner = outer ? m / outer : 0;
        for (int64_t i = 0; i < m; i++) {
            int64_t v = (int64_t)pl_load(s->in[0], ix->dtype, i);
            if (v < -depth || v >= depth)
                continue;
            int64_t a = inner ? i / inner : 0, c = inner ? i % inner : 0;
            pl_store(s->out, y->dtype, (a * depth + pl_wrap(v, depth)) * inner + c, on);
        }
        return;
    }
    case PL_REVERSE_SEQUENCE: {
        /* [.., T, .., B, ..]: for batch b the first len[b] steps reversed, the rest copied */
        int64_t st[8], idx[8] = {0};
        pl_strides(x, st);
        const int64_t *len = (const int64_t *)s->in[1];
        int ta = op->axis, ba = (int)op->k;
        for (int64_t i = 0; i < n; i++) {
            int64_t t = idx[ta], l = len[idx[ba]];
            int64_t src = i + (t < l ? (l - 1 - 2 * t) * st[ta] : 0);
            memcpy((char *)s->out + i * (int64_t)es, (const char *)s->in[0] + src * (int64_t)es, es);
            for (int k = x->nd - 1; k >= 0 && ++idx[k] == x->d[k]; k--)
                idx[k] = 0;
        }
        return;
    }
    case PL_EYELIKE: {
        int64_t rows = y->d[0], cols = y->d[1];
        memset(s->out, 0, (size_t)(n * (int64_t)es));
        for (int64_t i = 0; i < rows; i++)
            if (i + op->k >= 0 && i + op->k < cols)
                pl_store(s->out, y->dtype, i * cols + i + op->k, 1);
        return;
    }
    case PL_RANGE: {
        double start = pl_load(s->in[0], op->in[0].dtype, 0), delta = pl_load(s->in[2], op->in[2].dtype, 0);
        for (int64_t i = 0; i < n; i++)
            pl_store(s->out, y->dtype, i, start + (double)i * delta);
        return;
    }
    default:
        return;
    }
}

/* The expected output of the kinds above into want (the output's type), from the definition;
 * returns the number of elements it covers (all of them). */
static inline int64_t pl_reference_index(const struct pl_state *s, void *want)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    int64_t n = pl_count(y), coord[8], c2[8];
    int dt = y->dtype;
    switch (PL_KIND_OF(op)) {
    case PL_GATHER_ELEMENTS:
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            coord[op->axis] = pl_wrap(((const int64_t *)s->in[1])[i], x->d[op->axis]);
            pl_store(want, dt, i, pl_load(s->in[0], x->dtype, pl_offset(x, coord)));
        }
        break;
    case PL_SCATTER_ELEMENTS: {
        /* the data, then every update in the order of the updates */
        const struct pl_tensor *ix = &op->in[1];
        for (int64_t i = 0; i < n; i++)
            pl_store(want, dt, i, pl_load(s->in[0], x->dtype, i));
        for (int64_t u = 0; u < pl_count(ix); u++) {
            pl_coords(ix, u, coord);
            coord[op->axis] = pl_wrap(((const int64_t *)s->in[1])[u], x->d[op->axis]);
            int64_t o = pl_offset(x, coord);
            pl_store(want, dt, o, pl_scatter_apply(op->flag, pl_load(want, dt, o), pl_load(s->in[2], op->in[2].dtype, u)));
        }
        break;
    }
    case PL_GATHER_ND: {
        /* output coordinates: the index row's (batch dims first), then the slice's */
        const struct pl_tensor *ix = &op->in[1];
        int b = (int)op->k, q = (int)ix->d[ix->nd - 1], lead = ix->nd - 1;
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            int64_t row = 0;
            for (int k = 0; k < lead; k++)
                row = row * ix->d[k] + coord[k];
            for (int k = 0; k < b; k++)
                c2[k] = coord[k];
            for (int c = 0; c < q; c++)
                c2[b + c] = pl_wrap(((const int64_t *)s->in[1])[row * q + c], x->d[b + c]);
            for (int k = b + q; k < x->nd; k++)
                c2[k] = coord[lead + k - b - q];
            pl_store(want, dt, i, pl_load(s->in[0], x->dtype, pl_offset(x, c2)));
        }
        break;
    }
    case PL_CUMSUM: {
        /* each element as the sum of its prefix (suffix when reversed), in the same order and
         * the same rounding as the definition's running sum */
        int excl = op->flag & 1, rev = op->flag & 2;
        int64_t st[8];
        pl_strides(x, st);
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            int64_t j = coord[op->axis], dim = x->d[op->axis], steps = rev ? dim - 1 - j : j;
            double acc = 0;
            for (int64_t t = 0; t <= steps - excl; t++) {
                int64_t at = rev ? dim - 1 - t : t;
                acc = pl_round(dt, acc + pl_load(s->in[0], dt, i + (at - j) * st[op->axis]));
            }
            pl_store(want, dt, i, acc);
        }
        break;
    }
    case PL_TRILU:
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            int64_t r = coord[y->nd - 2], c = coord[y->nd - 1];
            int keep = op->flag ? c - r >= op->k : c - r <= op->k;
            pl_store(want, dt, i, keep ? pl_load(s->in[0], x->dtype, i) : 0);
        }
        break;
    case PL_ONEHOT: {
        double off = pl_load(s->in[2], op->in[2].dtype, 0), on = pl_load(s->in[2], op->in[2].dtype, 1);
        int64_t depth = y->d[op->axis];
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            int m = 0;
            for (int k = 0; k < y->nd; k++)
                if (k != op->axis)
                    c2[m++] = coord[k];
            int64_t v = (int64_t)pl_load(s->in[0], x->dtype, pl_offset(x, c2));
            int hot = v >= -depth && v < depth && pl_wrap(v, depth) == coord[op->axis];
            pl_store(want, dt, i, hot ? on : off);
        }
        break;
    }
    case PL_REVERSE_SEQUENCE:
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            int64_t l = ((const int64_t *)s->in[1])[coord[op->k]];
            if (coord[op->axis] < l)
                coord[op->axis] = l - 1 - coord[op->axis];
            pl_store(want, dt, i, pl_load(s->in[0], x->dtype, pl_offset(x, coord)));
        }
        break;
    case PL_EYELIKE:
        for (int64_t i = 0; i < n; i++) {
            pl_coords(y, i, coord);
            pl_store(want, dt, i, coord[1] - coord[0] == op->k);
        }
        break;
    case PL_RANGE: {
        double start = pl_load(s->in[0], op->in[0].dtype, 0), limit = pl_load(s->in[1], op->in[1].dtype, 0);
        double delta = pl_load(s->in[2], op->in[2].dtype, 0);
        /* the length the definition gives must be the output's */
        if ((int64_t)ceil((limit - start) / delta) != n)
            return -1;
        for (int64_t i = 0; i < n; i++)
            pl_store(want, dt, i, start + (double)i * delta);
        break;
    }
    default:
        return -1;
    }
    return n;
}

#endif
