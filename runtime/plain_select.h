/* Plain C benchmarks for the operators whose output size depends on the data: NonZero,
 * Compress, Unique and NonMaxSuppression. An ahead-of-time benchmark cannot know the model's data, so
 * the output buffer has the largest size the inputs allow (op->out) and the benchmark runs on
 * data of its own, stated here: NonZero on the fill of pl_setup (floats all nonzero: the
 * largest output; bool half true; integers one in sixteen zero); Compress with every other
 * condition true; Unique on the fill too (floats all distinct: the largest output; integers
 * from sixteen values); NonMaxSuppression on boxes a twentieth to a third of a unit frame per side,
 * spread over it, with uniform scores in steps of 1/256 (as a quantized detector gives them:
 * equal scores are common, so the order among them, the lower index first, matters). s->selected holds what the kernel wrote (elements of
 * the output, which is laid out as for that count). --verify recomputes the output by another
 * route and compares exactly (NonZero: every element tested again, coordinates by division;
 * Compress: the kept positions listed first; Unique: a sorted list of the distinct slices
 * built by insertion; NonMaxSuppression: every candidate of a class
 * against every earlier kept one, after a full sort). Inlined after plain_ops.h. */
#ifndef BENANZA_PLAIN_SELECT_H
#define BENANZA_PLAIN_SELECT_H

/* ---- NonZero: int64 [rank, count], the coordinates of each nonzero element in order ---- */

/* element i is nonzero: bytes (bool, int8, uint8) and floats read as they are, the other
 * types through pl_load */
static inline int pl_nonzero_at(const void *p, int dt, int64_t i)
{
    if (dt == PL_BOOL || dt == PL_UINT8 || dt == PL_INT8)
        return ((const uint8_t *)p)[i] != 0;
    if (dt == PL_FLOAT)
        return ((const float *)p)[i] != 0;
    return pl_load(p, dt, i) != 0;
}

static inline void pl_kernel_nonzero(struct pl_state *s)
{
    const struct pl_tensor *x = &s->op->in[0];
    int64_t n = pl_count(x), count = 0;
    int nd = x->nd, dt = x->dtype;
    for (int64_t i = 0; i < n; i++)
        count += pl_nonzero_at(s->in[0], dt, i);
    int64_t *out = (int64_t *)s->out, c[8] = {0}, j = 0;
    for (int64_t i = 0; i < n; i++) {
        if (pl_nonzero_at(s->in[0], dt, i)) {
            for (int k = 0; k < nd; k++)
                out[k * count + j] = c[k];
            j++;
        }
        for (int k = nd - 1; k >= 0; k--) { /* the next coordinate */
            if (++c[k] < x->d[k])
                break;
            c[k] = 0;
        }
    }
    s->selected = nd * count;
}

/* ---- Compress: the slices along axis (flat: the elements) whose condition is true ---- */

static inline void pl_kernel_compress(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t outer = 1, dim = pl_count(x), inner = 1, ncond = pl_count(&op->in[1]);
    if (op->axis >= 0)
        pl_axis_split(x, op->axis, &outer, &dim, &inner);
    const uint8_t *cond = (const uint8_t *)s->in[1];
    size_t es = pl_esize(x->dtype);
    int64_t kept = 0;
    for (int64_t t = 0; t < dim && t < ncond; t++)
        kept += cond[t] != 0;
    char *out = (char *)s->out;
    const char *in = (const char *)s->in[0];
    for (int64_t a = 0; a < outer; a++) {
        int64_t j = 0;
        for (int64_t t = 0; t < dim && t < ncond; t++)
            if (cond[t]) {
                memcpy(out + (size_t)((a * kept + j) * inner) * es, in + (size_t)((a * dim + t) * inner) * es,
                       (size_t)inner * es);
                j++;
            }
    }
    s->selected = outer * kept * inner;
}

/* ---- Unique: the distinct slices along axis (flattened: elements), sorted or in order of
 * first occurrence; out the slices, aux the first indices, the inverse and the counts ---- */

/* the slices' geometry: count (dim), values per slice (outer x inner) */
static inline void pl_unique_geom(const struct pl_op *op, int64_t *outer, int64_t *dim, int64_t *inner)
{
    *outer = *inner = 1;
    *dim = pl_count(&op->in[0]);
    if (op->axis >= 0)
        pl_axis_split(&op->in[0], op->axis, outer, dim, inner);
}

/* slices a and b compared as numpy's unique compares rows: values in (outer, inner) order;
 * the slices' geometry as pl_unique_geom gives it */
static inline int pl_unique_cmp_at(const struct pl_state *s, int64_t a, int64_t b, int64_t outer, int64_t dim,
                                   int64_t inner)
{
    int dt = s->op->in[0].dtype;
    if (outer * inner == 1) { /* elements (the flattened form) */
        double x = pl_load(s->in[0], dt, a), y = pl_load(s->in[0], dt, b);
        return x != y ? (x < y ? -1 : 1) : 0;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double x = pl_load(s->in[0], dt, (o * dim + a) * inner + i), y = pl_load(s->in[0], dt, (o * dim + b) * inner + i);
            if (x != y)
                return x < y ? -1 : 1;
        }
    return 0;
}

static inline int pl_unique_cmp(const struct pl_state *s, int64_t a, int64_t b)
{
    int64_t outer, dim, inner;
    pl_unique_geom(s->op, &outer, &dim, &inner);
    return pl_unique_cmp_at(s, a, b, outer, dim, inner);
}

/* qsort has no context: the state being sorted (one benchmark per process) */
static const struct pl_state *pl_unique_state;

static inline int pl_unique_order(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    int c = pl_unique_cmp(pl_unique_state, a, b);
    return c ? c : (a > b) - (a < b);
}

/* write unique slice u (by its first index f) as output slice j of k */
static inline void pl_unique_put(const struct pl_state *s, void *out, int64_t f, int64_t j, int64_t k)
{
    int64_t outer, dim, inner;
    pl_unique_geom(s->op, &outer, &dim, &inner);
    size_t es = pl_esize(s->op->in[0].dtype);
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)out + (size_t)((o * k + j) * inner) * es, (const char *)s->in[0] + (size_t)((o * dim + f) * inner) * es,
               (size_t)inner * es);
}

/* a slice's hash over its values as numbers (-0 as 0, so that equal values hash alike) */
static inline uint64_t pl_unique_hash(const struct pl_state *s, int64_t t, int64_t outer, int64_t dim, int64_t inner)
{
    uint64_t h = 1469598103934665603ull;
    int dt = s->op->in[0].dtype;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double v = pl_load(s->in[0], dt, (o * dim + t) * inner + i);
            uint64_t bits;
            v = v == 0 ? 0 : v;
            memcpy(&bits, &v, sizeof(bits));
            h = (h ^ bits) * 1099511628211ull;
        }
    h ^= h >> 30; /* splitmix64's finalizer: every bit reaches the low ones the table uses */
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/* A hash table of the distinct slices in order of first occurrence (their first indices, the
 * inverse, the counts), as frameworks count them; when sorted, the k distinct slices sorted
 * (qsort, k of them) and renumbered. work: dim + slots int64 */
static inline void pl_kernel_unique(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t outer, dim, inner;
    pl_unique_geom(op, &outer, &dim, &inner);
    int64_t slots = pl_hash_slots(dim), *rank = (int64_t *)s->work, *slot = rank + dim;
    int64_t *first = s->aux, *inverse = s->aux + dim, *counts = s->aux + 2 * dim, k = 0;
    for (int64_t j = 0; j < slots; j++)
        slot[j] = -1;
    for (int64_t t = 0; t < dim; t++) {
        int64_t at = (int64_t)(pl_unique_hash(s, t, outer, dim, inner) & (uint64_t)(slots - 1));
        while (slot[at] >= 0 && pl_unique_cmp_at(s, first[slot[at]], t, outer, dim, inner) != 0)
            at = (at + 1) & (slots - 1);
        if (slot[at] < 0) {
            slot[at] = k;
            first[k] = t;
            counts[k++] = 0;
        }
        inverse[t] = slot[at];
        counts[slot[at]]++;
    }
    if (op->flag) { /* sorted: the k distinct slices by value, then renumbered */
        int64_t *order = slot; /* the table is done with: k slice indices, then k counts */
        for (int64_t j = 0; j < k; j++)
            order[j] = first[j];
        pl_unique_state = s;
        qsort(order, (size_t)k, sizeof(int64_t), pl_unique_order);
        for (int64_t j = 0; j < k; j++) /* rank of each first-occurrence id */
            rank[inverse[order[j]]] = j;
        for (int64_t j = 0; j < k; j++)
            order[k + rank[j]] = counts[j];
        for (int64_t j = 0; j < k; j++) {
            first[j] = order[j];
            counts[j] = order[k + j];
        }
        for (int64_t t = 0; t < dim; t++)
            inverse[t] = rank[inverse[t]];
    }
    for (int64_t j = 0; j < k; j++)
        pl_unique_put(s, s->out, first[j], j, k);
    s->selected = outer * k * inner;
    s->naux = k;
}

/* ---- NonMaxSuppression: int64 [selected, 3] rows (batch, class, box) ---- */

/* box i of batch b as (y1, x1, y2, x2) with y1 <= y2, x1 <= x2 */
static inline void pl_nms_box(const struct pl_state *s, int64_t b, int64_t i, double *o)
{
    const struct pl_tensor *bx = &s->op->in[0];
    double v[4];
    for (int k = 0; k < 4; k++)
        v[k] = pl_load(s->in[0], bx->dtype, (b * bx->d[1] + i) * 4 + k);
    if (s->op->flag) { /* center_point_box: (x_center, y_center, width, height) */
        o[0] = v[1] - v[3] / 2, o[1] = v[0] - v[2] / 2, o[2] = v[1] + v[3] / 2, o[3] = v[0] + v[2] / 2;
        return;
    }
    o[0] = fmin(v[0], v[2]), o[1] = fmin(v[1], v[3]), o[2] = fmax(v[0], v[2]), o[3] = fmax(v[1], v[3]);
}

static inline double pl_nms_iou(const double *a, const double *b)
{
    double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]), iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    if (ih <= 0 || iw <= 0)
        return 0;
    double inter = ih * iw, ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    return ua > 0 ? inter / ua : 0;
}

/* (score, index) pair a comes before pair b: the higher score, of equal ones the lower index */
static inline int pl_nms_better(const double *h, int64_t a, int64_t b)
{
    return h[2 * a] > h[2 * b] || (h[2 * a] == h[2 * b] && h[2 * a + 1] < h[2 * b + 1]);
}

/* a heap of n pairs whose root is the best: pair i sifted down */
static inline void pl_nms_sift(double *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, best = i;
        if (l < n && pl_nms_better(h, l, best))
            best = l;
        if (l + 1 < n && pl_nms_better(h, l + 1, best))
            best = l + 1;
        if (best == i)
            return;
        double t0 = h[2 * i], t1 = h[2 * i + 1];
        h[2 * i] = h[2 * best], h[2 * i + 1] = h[2 * best + 1];
        h[2 * best] = t0, h[2 * best + 1] = t1;
        i = best;
    }
}

/* candidates of one (batch, class) above the threshold as (score, index) pairs in h, made a
 * heap with the best at the root (the greedy pass takes them in order until the class has its
 * k: frameworks keep a priority queue, not a full sort); returns their count */
static inline int64_t pl_nms_candidates(const struct pl_state *s, int64_t b, int64_t c, double *h)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *sc = &op->in[1];
    int64_t N = sc->d[2], n = 0;
    for (int64_t i = 0; i < N; i++) {
        double v = pl_load(s->in[1], sc->dtype, (b * sc->d[1] + c) * N + i);
        if (op->nn.has_score && !(v > op->beta))
            continue; /* the score threshold, when one was given */
        h[2 * n] = v;
        h[2 * n + 1] = (double)i;
        n++;
    }
    for (int64_t i = n / 2 - 1; i >= 0; i--)
        pl_nms_sift(h, n, i);
    return n;
}

/* The boxes of one batch as five columns of N (y1, x1, y2, x2 and the area), as pl_nms_box and
 * pl_nms_iou compute them: made once per batch, not per class and candidate */
static inline void pl_nms_columns(const struct pl_state *s, int64_t b, int64_t N, double *col)
{
    for (int64_t i = 0; i < N; i++) {
        double o[4];
        pl_nms_box(s, b, i, o);
        for (int k = 0; k < 4; k++)
            col[k * N + i] = o[k];
        col[4 * N + i] = (o[2] - o[0]) * (o[3] - o[1]);
    }
}

/* IoU of the candidate (y1, x1, y2, x2, area ar) with kept box q of the columns kp (N apart):
 * pl_nms_iou's arithmetic in the same order, the areas made beforehand */
static inline double pl_nms_iou_col(double y1, double x1, double y2, double x2, double ar, const double *kp, int64_t N,
                                    int64_t q)
{
    double t = kp[q] > y1 ? kp[q] : y1, l = kp[N + q] > x1 ? kp[N + q] : x1;
    double bt = kp[2 * N + q] < y2 ? kp[2 * N + q] : y2, r = kp[3 * N + q] < x2 ? kp[3 * N + q] : x2;
    double ih = bt - t, iw = r - l;
    if (!(ih > 0 && iw > 0))
        return 0;
    double inter = ih * iw, ua = ar + kp[4 * N + q] - inter;
    return ua > 0 ? inter / ua : 0;
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDACC__)
#include <emmintrin.h>
#define PL_NMS_SSE2 1
/* the kept boxes [q, q + 2) at once: a lane suppresses when its intersection has height,
 * width and union above 0 and inter / union > alpha (for alpha >= 0 that is pl_nms_iou_col >
 * alpha, the same operations per lane); returns the lanes' mask */
static inline int pl_nms_pair_sse2(__m128d y1, __m128d x1, __m128d y2, __m128d x2, __m128d ar, __m128d alpha,
                                   const double *kp, int64_t N, int64_t q)
{
    __m128d zero = _mm_setzero_pd();
    __m128d ih = _mm_sub_pd(_mm_min_pd(_mm_loadu_pd(kp + 2 * N + q), y2), _mm_max_pd(_mm_loadu_pd(kp + q), y1));
    __m128d iw = _mm_sub_pd(_mm_min_pd(_mm_loadu_pd(kp + 3 * N + q), x2), _mm_max_pd(_mm_loadu_pd(kp + N + q), x1));
    __m128d inter = _mm_mul_pd(ih, iw), ua = _mm_sub_pd(_mm_add_pd(ar, _mm_loadu_pd(kp + 4 * N + q)), inter);
    __m128d m = _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(ih, zero), _mm_cmpgt_pd(iw, zero)), _mm_cmpgt_pd(ua, zero));
    return _mm_movemask_pd(_mm_and_pd(m, _mm_cmpgt_pd(_mm_div_pd(inter, ua), alpha)));
}
#endif

/* box i of the columns col overlaps one of the nk kept boxes (columns kp, N apart) by an IoU
 * above alpha; two kept boxes at a time with SSE2 (no branch on the overlap, which a detector's
 * boxes make unpredictable), the rest one by one */
static inline int pl_nms_suppressed(const double *col, int64_t N, int64_t i, const double *kp, int64_t nk, double alpha)
{
    double y1 = col[i], x1 = col[N + i], y2 = col[2 * N + i], x2 = col[3 * N + i], ar = col[4 * N + i];
    int64_t q = 0;
#ifdef PL_NMS_SSE2
    if (alpha >= 0) {
        __m128d vy1 = _mm_set1_pd(y1), vx1 = _mm_set1_pd(x1), vy2 = _mm_set1_pd(y2), vx2 = _mm_set1_pd(x2);
        __m128d var = _mm_set1_pd(ar), va = _mm_set1_pd(alpha);
        for (; q + 2 <= nk; q += 2)
            if (pl_nms_pair_sse2(vy1, vx1, vy2, vx2, var, va, kp, N, q))
                return 1;
    }
#endif
    for (; q < nk; q++)
        if (pl_nms_iou_col(y1, x1, y2, x2, ar, kp, N, q) > alpha)
            return 1;
    return 0;
}

/* greedy: each candidate kept unless it overlaps a kept one by more than the IoU threshold,
 * up to k per class; in s->work the candidates (2N), the batch's boxes as columns (5N), the kept
 * ones' columns (5N) */
static inline void pl_kernel_nms(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t B = op->in[1].d[0], C = op->in[1].d[1], N = op->in[1].d[2], rows = 0;
    int64_t *out = (int64_t *)s->out;
    double *h = s->work, *col = s->work + 2 * N, *kp = col + 5 * N;
    for (int64_t b = 0; b < B; b++) {
        pl_nms_columns(s, b, N, col);
        for (int64_t c = 0; c < C; c++) {
            int64_t n = pl_nms_candidates(s, b, c, h), nk = 0;
            while (n > 0 && nk < op->k) {
                int64_t best = (int64_t)h[1];
                h[0] = h[2 * (n - 1)], h[1] = h[2 * (n - 1) + 1]; /* popped: the last to the root */
                pl_nms_sift(h, --n, 0);
                if (pl_nms_suppressed(col, N, best, kp, nk, op->alpha))
                    continue;
                for (int k = 0; k < 5; k++)
                    kp[k * N + nk] = col[k * N + best];
                nk++;
                out[3 * rows] = b, out[3 * rows + 1] = c, out[3 * rows + 2] = best;
                rows++;
            }
        }
    }
    s->selected = 3 * rows;
}

static inline enum bh_status pl_select_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    uint32_t seed = 31337u;
    if (PL_KIND_OF(op) == PL_COMPRESS) {
        int64_t n = pl_count(&op->in[1]);
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)s->in[1])[i] = (uint8_t)(i % 2 == 0);
    }
    if (PL_KIND_OF(op) == PL_UNIQUE) {
        int64_t outer, dim, inner;
        pl_unique_geom(op, &outer, &dim, &inner);
        s->work = (double *)malloc((size_t)((dim ? dim : 1) + pl_hash_slots(dim)) * sizeof(int64_t));
        s->aux = (int64_t *)malloc((size_t)(3 * (dim ? dim : 1)) * sizeof(int64_t));
        if (!s->work || !s->aux) {
            bh_note(r, "%s", "cannot allocate the work space");
            return BH_OOM;
        }
        return BH_OK;
    }
    if (PL_KIND_OF(op) != PL_NMS)
        return BH_OK;
    const struct pl_tensor *bx = &op->in[0];
    int64_t boxes = bx->d[0] * bx->d[1], N = bx->d[1];
    for (int64_t i = 0; i < boxes; i++) {
        double u[4];
        for (int k = 0; k < 4; k++)
            u[k] = (double)pl_rand_step(&seed) / 16777216.0;
        double h = 0.05 + 0.28 * u[2], w = 0.05 + 0.28 * u[3], y = (1 - h) * u[0], x = (1 - w) * u[1];
        double v[4] = {y, x, y + h, x + w};
        if (op->flag) /* center_point_box */
            v[0] = x + w / 2, v[1] = y + h / 2, v[2] = w, v[3] = h;
        for (int k = 0; k < 4; k++)
            pl_store(s->in[0], bx->dtype, i * 4 + k, v[k]);
    }
    int64_t n = pl_count(&op->in[1]);
    for (int64_t i = 0; i < n; i++)
        pl_store(s->in[1], op->in[1].dtype, i, (double)(pl_rand_step(&seed) % 256u) / 256.0);
    /* candidates (2N), the batch's boxes (5N) and the kept ones (5N) */
    s->work = (double *)malloc((size_t)(12 * (N ? N : 1)) * sizeof(double));
    if (!s->work) {
        bh_note(r, "%s", "cannot allocate the work space");
        return BH_OOM;
    }
    return BH_OK;
}

static inline void pl_kernel_select(struct pl_state *s)
{
    if (PL_KIND_OF(s->op) == PL_NONZERO)
        pl_kernel_nonzero(s);
    else if (PL_KIND_OF(s->op) == PL_UNIQUE)
        pl_kernel_unique(s);
    else if (PL_KIND_OF(s->op) == PL_COMPRESS)
        pl_kernel_compress(s);
    else
        pl_kernel_nms(s);
}

/* the reference's output into want (int64 for NonZero and NMS, the input's type for
 * Compress); returns its element count, -1 when out of memory */
static inline int64_t pl_reference_select(const struct pl_state *s, void *want)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t n = 0;
    if (PL_KIND_OF(op) == PL_NONZERO) {
        int64_t m = pl_count(x), count = 0;
        for (int64_t i = 0; i < m; i++)
            count += pl_load(s->in[0], x->dtype, i) != 0;
        for (int64_t i = 0, j = 0; i < m; i++) {
            if (pl_load(s->in[0], x->dtype, i) == 0)
                continue;
            int64_t rem = i;
            for (int k = x->nd - 1; k >= 0; k--) {
                ((int64_t *)want)[k * count + j] = rem % x->d[k];
                rem /= x->d[k];
            }
            j++;
        }
        return x->nd * count;
    }
    if (PL_KIND_OF(op) == PL_COMPRESS) {
        /* the kept positions first, then each output element from its coordinates */
        int64_t outer = 1, dim = pl_count(x), inner = 1, nc = pl_count(&op->in[1]), kept = 0;
        if (op->axis >= 0)
            pl_axis_split(x, op->axis, &outer, &dim, &inner);
        int64_t *pos = (int64_t *)malloc((size_t)(dim ? dim : 1) * sizeof(int64_t));
        if (!pos)
            return -1;
        for (int64_t t = 0; t < dim && t < nc; t++)
            if (((const uint8_t *)s->in[1])[t])
                pos[kept++] = t;
        n = outer * kept * inner;
        for (int64_t i = 0; i < n; i++) {
            int64_t in_i = i % inner, t = i / inner % kept, a = i / (inner * kept);
            pl_store(want, x->dtype, i, pl_load(s->in[0], x->dtype, (a * dim + pos[t]) * inner + in_i));
        }
        free(pos);
        return n;
    }
    /* NMS: per class, a full sort, then every candidate against every kept one */
    int64_t B = op->in[1].d[0], C = op->in[1].d[1], N = op->in[1].d[2], rows = 0;
    double *h = (double *)malloc((size_t)(2 * (N ? N : 1)) * sizeof(double));
    int64_t *kept = (int64_t *)malloc((size_t)(N ? N : 1) * sizeof(int64_t));
    if (!h || !kept) {
        free(h);
        free(kept);
        return -1;
    }
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            int64_t cand = pl_nms_candidates(s, b, c, h), nk = 0;
            qsort(h, (size_t)cand, 2 * sizeof(double), pl_rank_largest); /* the heap, sorted */
            for (int64_t j = 0; j < cand && nk < op->k; j++) {
                double box[4], other[4];
                pl_nms_box(s, b, (int64_t)h[2 * j + 1], box);
                int keep = 1;
                for (int64_t q = 0; q < nk; q++) {
                    pl_nms_box(s, b, kept[q], other);
                    keep &= !(pl_nms_iou(box, other) > op->alpha);
                }
                if (keep) {
                    kept[nk++] = (int64_t)h[2 * j + 1];
                    int64_t *w = (int64_t *)want + 3 * rows++;
                    w[0] = b, w[1] = c, w[2] = kept[nk - 1];
                }
            }
        }
    free(h);
    free(kept);
    return 3 * rows;
}

/* Unique by another route: each slice searched (binary search) in a sorted list of the
 * distinct ones so far, inserted when new; then the outputs compared with the kernel's */
static inline enum bh_status pl_verify_unique(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    int64_t outer, dim, inner;
    pl_unique_geom(op, &outer, &dim, &inner);
    int64_t *list = (int64_t *)malloc((size_t)(3 * (dim ? dim : 1)) * sizeof(int64_t));
    int64_t *cnt = list + dim, *pos = list + 2 * dim, k = 0, bad = 0;
    if (!list) {
        bh_note(r, "%s", "cannot allocate the reference's work space");
        return BH_OOM;
    }
    for (int64_t t = 0; t < dim; t++) { /* list: first indices, sorted by value */
        int64_t lo = 0, hi = k;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (pl_unique_cmp(s, list[mid], t) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < k && pl_unique_cmp(s, list[lo], t) == 0) {
            cnt[lo]++;
            continue;
        }
        memmove(list + lo + 1, list + lo, (size_t)(k - lo) * sizeof(int64_t));
        memmove(cnt + lo + 1, cnt + lo, (size_t)(k - lo) * sizeof(int64_t));
        list[lo] = t;
        cnt[lo] = 1;
        k++;
    }
    /* pos[j]: where sorted unique j is in the output (unsorted: by first occurrence) */
    for (int64_t j = 0; j < k; j++) {
        pos[j] = j;
        if (!op->flag) {
            pos[j] = 0;
            for (int64_t q = 0; q < k; q++)
                pos[j] += list[q] < list[j];
        }
    }
    bad += s->naux != k;
    for (int64_t j = 0; j < k && !bad; j++) {
        int64_t p = pos[j];
        bad += s->aux[p] != list[j] || s->aux[2 * dim + p] != cnt[j];
        for (int64_t o = 0; o < outer && !bad; o++)
            for (int64_t i = 0; i < inner; i++)
                bad += pl_load(s->out, op->out.dtype, (o * k + p) * inner + i) !=
                       pl_load(s->in[0], op->in[0].dtype, (o * dim + list[j]) * inner + i);
    }
    for (int64_t t = 0; t < dim && !bad; t++) /* the inverse: the unique slice equal to t */
        bad += s->aux[dim + t] < 0 || s->aux[dim + t] >= k ||
               pl_unique_cmp(s, s->aux[s->aux[dim + t]], t) != 0;
    free(list);
    if (bad) {
        bh_note(r, "output differs from the reference (a sorted list of the distinct slices): %lld unique written, %lld wanted, or different values or indices",
                (long long)s->naux, (long long)k);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: a sorted list of the distinct slices built by insertion, exactly (%lld unique of %lld)",
            (long long)k, (long long)dim);
    return BH_OK;
}

static inline enum bh_status pl_verify_select(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    if (PL_KIND_OF(op) == PL_UNIQUE)
        return pl_verify_unique(s, r);
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
    void *want = malloc((size_t)(n ? n : 1) * pl_esize(odt));
    int64_t m = want ? pl_reference_select(s, want) : -1;
    if (m < 0) {
        free(want);
        bh_note(r, "%s", "cannot allocate the reference's output");
        return BH_OOM;
    }
    int64_t bad = m != s->selected;
    for (int64_t i = 0; i < m && !bad; i++)
        bad += pl_load(s->out, odt, i) != pl_load(want, odt, i);
    free(want);
    if (bad) {
        bh_note(r, "output differs from the reference: %lld elements written, %lld wanted, or different values",
                (long long)s->selected, (long long)m);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: recomputed by another route, exactly (%lld of at most %lld elements)",
            (long long)m, (long long)n);
    return BH_OK;
}

#endif
