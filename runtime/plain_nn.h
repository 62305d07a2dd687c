/* Plain C benchmarks for layers of detection, segmentation and training graphs that oneDNN has
 * not: RoiAlign (bilinear samples averaged or maxed per bin of each region), MaxUnpool (the
 * pooled values scattered back to where MaxPool found them), the two losses
 * (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: per element, summed or averaged with
 * class weights and an ignored class), the training domain's optimizers (Adagrad,
 * Momentum, Adam: element-wise updates of weights and their states) and TfIdfVectorizer of
 * integer or string tokens (the n-grams of a pool counted with skips, then weighted; strings
 * are first looked up in a hash table of the pool, plain_string.h), and a ConvTranspose whose
 * stride is its kernel (beside oneDNN's deconvolution). Inlined after plain_ops.h, whose setup, kernel and
 * verification call into it for these kinds (op->nn holds their parameters).
 *
 * Their index inputs (regions and their images, MaxPool's indices, class targets) are data a
 * benchmark must make valid: regions inside the feature map, from a tenth to half of it;
 * indices each inside its own pooling window, as MaxPool gives them; targets among the
 * classes, every seventh the ignored class when there is one; an optimizer's step count 5, its
 * learning rate 0.01 and its squared-gradient states non-negative; TfIdfVectorizer's tokens
 * drawn from its pool, so that its n-grams occur. --verify recomputes every
 * output element from its definition by another route (RoiAlign: each sample's bilinear
 * weights computed where it is used, no tables; MaxUnpool: the input walked backwards, the
 * first write to an element kept; the losses: in long double, classes outermost; the
 * optimizers: each element in long double from the update rule as ONNX writes it;
 * TfIdfVectorizer: each pool n-gram's occurrences counted by scanning the row for it). */
#ifndef BENANZA_PLAIN_NN_H
#define BENANZA_PLAIN_NN_H

/* ---- RoiAlign ---- */

/* region r in feature-map coordinates: start (y, x) and bin size (h, w); the samples per bin */
struct pl_roi_geom {
    double y0, x0, bh, bw;
    int64_t gh, gw;
};

static inline struct pl_roi_geom pl_roi_geom(const struct pl_state *s, int64_t r)
{
    const struct pl_op *op = s->op;
    const struct pl_nn *nn = &op->nn;
    int rdt = op->in[1].dtype;
    double off = nn->half_pixel ? 0.5 : 0, c[4];
    for (int k = 0; k < 4; k++)
        c[k] = pl_load(s->in[1], rdt, r * 4 + k) * nn->scale - off;
    double w = c[2] - c[0], h = c[3] - c[1];
    if (!nn->half_pixel) { /* malformed regions forced to 1x1 */
        w = w > 1 ? w : 1;
        h = h > 1 ? h : 1;
    }
    struct pl_roi_geom g;
    int64_t oh = op->out.d[2], ow = op->out.d[3];
    g.y0 = c[1];
    g.x0 = c[0];
    g.bh = h / (double)oh;
    g.bw = w / (double)ow;
    g.gh = nn->sampling > 0 ? nn->sampling : (int64_t)ceil(h / (double)oh);
    g.gw = nn->sampling > 0 ? nn->sampling : (int64_t)ceil(w / (double)ow);
    return g;
}

/* The four taps of a bilinear sample at (y, x) of an H x W map: offsets and weights; all
 * weights 0 outside [-1, H] x [-1, W] */
static inline void pl_roi_taps(double y, double x, int64_t H, int64_t W, int64_t *pos, double *w)
{
    if (y < -1.0 || y > (double)H || x < -1.0 || x > (double)W) {
        for (int k = 0; k < 4; k++)
            pos[k] = 0, w[k] = 0;
        return;
    }
    y = y > 0 ? y : 0;
    x = x > 0 ? x : 0;
    int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
    if (yl >= H - 1)
        yh = yl = H - 1, y = (double)yl;
    else
        yh = yl + 1;
    if (xl >= W - 1)
        xh = xl = W - 1, x = (double)xl;
    else
        xh = xl + 1;
    double ly = y - (double)yl, lx = x - (double)xl, hy = 1 - ly, hx = 1 - lx;
    pos[0] = yl * W + xl, pos[1] = yl * W + xh, pos[2] = yh * W + xl, pos[3] = yh * W + xh;
    w[0] = hy * hx, w[1] = hy * lx, w[2] = ly * hx, w[3] = ly * lx;
}

/* per region: the taps of every sample of every bin (tables shared by the channels), then
 * each channel's bins averaged (or the largest weighted tap); regions [BEGIN, END) on thread
 * TID's tables (s->naux taps each) */
static inline void pl_roi_regions(struct pl_state *s, int64_t begin, int64_t end, int tid)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t C = x->d[1], H = x->d[2], W = x->d[3], oh = op->out.d[2], ow = op->out.d[3];
    int64_t *pos = s->aux + 4 * s->naux * tid;
    double *wt = s->work + 4 * s->naux * tid;
    const int64_t *batch = (const int64_t *)s->in[2];
    int dt = x->dtype, odt = op->out.dtype, max_mode = op->nn.mode;
    for (int64_t r = begin; r < end; r++) {
        struct pl_roi_geom g = pl_roi_geom(s, r);
        int64_t per_bin = g.gh * g.gw, t = 0;
        for (int64_t ph = 0; ph < oh; ph++)
            for (int64_t pw = 0; pw < ow; pw++)
                for (int64_t iy = 0; iy < g.gh; iy++) {
                    double y = g.y0 + (double)ph * g.bh + ((double)iy + 0.5) * g.bh / (double)g.gh;
                    for (int64_t ix = 0; ix < g.gw; ix++, t++) {
                        double xx = g.x0 + (double)pw * g.bw + ((double)ix + 0.5) * g.bw / (double)g.gw;
                        pl_roi_taps(y, xx, H, W, pos + 4 * t, wt + 4 * t);
                    }
                }
        double count = (double)(per_bin > 1 ? per_bin : 1);
        if (dt == PL_FLOAT && odt == PL_FLOAT && !max_mode) { /* the common case, with typed loads */
            for (int64_t c = 0; c < C; c++) {
                const float *in = (const float *)s->in[0] + (batch[r] * C + c) * H * W;
                float *out = (float *)s->out + ((r * C + c) * oh) * ow;
                t = 0;
                for (int64_t b = 0; b < oh * ow; b++) {
                    double acc = 0;
                    for (int64_t q = 0; q < per_bin; q++, t++) {
                        const int64_t *p = pos + 4 * t;
                        const double *w = wt + 4 * t;
                        acc += w[0] * in[p[0]] + w[1] * in[p[1]] + w[2] * in[p[2]] + w[3] * in[p[3]];
                    }
                    out[b] = (float)(acc / count);
                }
            }
            continue;
        }
        for (int64_t c = 0; c < C; c++) {
            int64_t base = (batch[r] * C + c) * H * W, o = ((r * C + c) * oh) * ow;
            t = 0;
            for (int64_t b = 0; b < oh * ow; b++) {
                double acc = 0;
                for (int64_t q = 0; q < per_bin; q++, t++) {
                    const int64_t *p = pos + 4 * t;
                    const double *w = wt + 4 * t;
                    if (max_mode) {
                        double v = w[0] * pl_load(s->in[0], dt, base + p[0]);
                        for (int k = 1; k < 4; k++) {
                            double u = w[k] * pl_load(s->in[0], dt, base + p[k]);
                            v = u > v ? u : v;
                        }
                        acc = q == 0 || v > acc ? v : acc;
                    } else {
                        acc += w[0] * pl_load(s->in[0], dt, base + p[0]) + w[1] * pl_load(s->in[0], dt, base + p[1]) +
                               w[2] * pl_load(s->in[0], dt, base + p[2]) + w[3] * pl_load(s->in[0], dt, base + p[3]);
                    }
                }
                pl_store(s->out, odt, o + b, max_mode ? acc : acc / count);
            }
        }
    }
}

/* the regions split over the pool's threads */
static inline void pl_kernel_roi_align(struct pl_state *s)
{
    pl_par_run(s, s->op->out.d[0], pl_roi_regions);
}

/* ---- MaxUnpool ---- */

/* output offset of a flat index into the unpooled shape (embedded at the output's corner
 * when output_shape makes the output larger), -1 outside */
static inline int64_t pl_unpool_at(const struct pl_op *op, int64_t idx)
{
    const int64_t *in = op->nn.inferred;
    int nd = op->out.nd;
    int64_t at = 0, stride = 1;
    for (int k = nd - 1; k >= 0; k--) {
        int64_t c = idx % in[k];
        idx /= in[k];
        if (c >= op->out.d[k])
            return -1;
        at += c * stride;
        stride *= op->out.d[k];
    }
    return idx == 0 ? at : -1;
}

static inline void pl_kernel_max_unpool(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out), m = pl_count(&op->in[0]);
    int dt = op->in[0].dtype, odt = op->out.dtype;
    memset(s->out, 0, (size_t)n * pl_esize(odt));
    const int64_t *idx = (const int64_t *)s->in[1];
    if (op->nn.same_shape) {
        for (int64_t i = 0; i < m; i++)
            if (idx[i] >= 0 && idx[i] < n)
                pl_store(s->out, odt, idx[i], pl_load(s->in[0], dt, i));
        return;
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t at = pl_unpool_at(op, idx[i]);
        if (at >= 0)
            pl_store(s->out, odt, at, pl_load(s->in[0], dt, i));
    }
}

/* ---- the losses ---- */

/* NegativeLogLikelihoodLoss (flag 0) and SoftmaxCrossEntropyLoss (flag 1): x [N, C, D...],
 * target [N, D...]; per (n, d) the loss -w[t] x[n, t, d] (SCE: of log_softmax over C); the
 * log-probabilities kept in s->work when the node outputs them */
static inline void pl_kernel_loss(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_nn *nn = &op->nn;
    const struct pl_tensor *x = &op->in[0];
    int64_t N = x->d[0], C = x->d[1], D = pl_count(x) / (N > 0 && C > 0 ? N * C : 1);
    const int64_t *target = (const int64_t *)s->in[1];
    int dt = x->dtype, odt = op->out.dtype, sce = op->flag;
    double sum = 0, wsum = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            int64_t t = target[n * D + d], base = n * C * D + d;
            double lse = 0;
            if (sce) { /* log-sum-exp over the classes, shifted by the largest */
                double mx = pl_load(s->in[0], dt, base);
                for (int64_t c = 1; c < C; c++) {
                    double v = pl_load(s->in[0], dt, base + c * D);
                    mx = v > mx ? v : mx;
                }
                double e = 0;
                for (int64_t c = 0; c < C; c++)
                    e += exp(pl_load(s->in[0], dt, base + c * D) - mx);
                lse = mx + log(e);
                if (nn->log_prob)
                    for (int64_t c = 0; c < C; c++)
                        pl_store(s->work, dt, base + c * D, pl_load(s->in[0], dt, base + c * D) - lse);
            }
            double loss = 0, w = 0;
            if (!(nn->has_ignore && t == nn->ignore) && t >= 0 && t < C) {
                w = op->nin == 3 ? pl_load(s->in[2], op->in[2].dtype, t) : 1;
                loss = -w * (pl_load(s->in[0], dt, base + t * D) - lse);
            }
            if (nn->reduction == 0)
                pl_store(s->out, odt, n * D + d, loss);
            sum += loss;
            wsum += w;
        }
    if (nn->reduction == 1)
        pl_store(s->out, odt, 0, sum);
    else if (nn->reduction == 2)
        pl_store(s->out, odt, 0, sum / wsum);
}

/* ---- the optimizers ---- */

/* one element's update: x, g and the states s0 (H or V), s1 (Adam's H) in, the new ones out */
static inline void pl_optimizer_step(const struct pl_op *op, double r, int64_t t, double *x, double g, double *s0,
                                     double *s1)
{
    const struct pl_nn *nn = &op->nn;
    double gr = nn->norm * *x + g;
    if (op->flag == 0) { /* Adagrad */
        double rate = r / (1 + (double)t * nn->decay);
        *s0 += gr * gr;
        *x -= rate * gr / (sqrt(*s0) + nn->epsilon);
    } else if (op->flag == 1) { /* Momentum */
        *s0 = op->alpha * *s0 + (t > 0 ? op->beta : 1.0) * gr;
        *x -= r * (nn->nesterov ? gr + op->alpha * *s0 : *s0);
    } else { /* Adam */
        *s0 = op->alpha * *s0 + (1 - op->alpha) * gr;
        *s1 = op->beta * *s1 + (1 - op->beta) * gr * gr;
        double rate = t > 0 ? r * sqrt(1 - pow(op->beta, (double)t)) / (1 - pow(op->alpha, (double)t)) : r;
        *x = (1 - nn->norm_post) * (*x - rate * *s0 / (sqrt(*s1) + nn->epsilon));
    }
}

static inline void pl_kernel_optimizer(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->in[2]), t = (int64_t)pl_load(s->in[1], op->in[1].dtype, 0);
    double r = pl_load(s->in[0], op->in[0].dtype, 0);
    int dt = op->in[2].dtype, odt = op->out.dtype, adam = op->flag == 2;
    for (int64_t i = 0; i < n; i++) {
        double x = pl_load(s->in[2], dt, i), s0 = pl_load(s->in[4], dt, i);
        double s1 = adam ? pl_load(s->in[5], dt, i) : 0;
        pl_optimizer_step(op, r, t, &x, pl_load(s->in[3], dt, i), &s0, &s1);
        pl_store(s->out, odt, i, x);
        pl_store(s->out, odt, n + i, s0);
        if (adam)
            pl_store(s->out, odt, 2 * n + i, s1);
    }
}

/* ---- TfIdfVectorizer ---- */

/* an n-gram of the pool: its tokens, size and output index */
struct pl_tfidf_gram {
    const int64_t *tok;
    int64_t n, out;
};

static inline int pl_tfidf_order(const void *a, const void *b)
{
    const struct pl_tfidf_gram *x = (const struct pl_tfidf_gram *)a, *y = (const struct pl_tfidf_gram *)b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (int64_t k = 0; k < x->n; k++)
        if (x->tok[k] != y->tok[k])
            return x->tok[k] < y->tok[k] ? -1 : 1;
    return 0;
}

/* the same, equal n-grams in pool order (a pool that repeats an n-gram counts it at the
 * output index of its last occurrence, as ONNX Runtime and onnx's reference do) */
static inline int pl_tfidf_sort(const void *a, const void *b)
{
    const struct pl_tfidf_gram *x = (const struct pl_tfidf_gram *)a, *y = (const struct pl_tfidf_gram *)b;
    int c = pl_tfidf_order(a, b);
    return c ? c : x->tok < y->tok ? -1 : x->tok > y->tok;
}

/* The pool's n-grams with a size in [min_gram, max_gram] into g (when not NULL), in pool order;
 * returns their count. Size n starts at gram_start[n - 1]; ids count the n-grams of every
 * size, and n-gram id's output index is gram_index[id]. */
static inline int64_t pl_tfidf_grams(const struct pl_nn *nn, struct pl_tfidf_gram *g)
{
    int64_t count = 0, id = 0;
    for (int64_t i = 0; i < nn->nstart; i++) {
        int64_t n = i + 1, start = nn->gram_start[i], end = i + 1 < nn->nstart ? nn->gram_start[i + 1] : nn->npool;
        for (int64_t at = start; at + n <= end; at += n, id++) {
            if (n < nn->min_gram || n > nn->max_gram || id >= nn->nindex)
                continue;
            if (g)
                g[count] = (struct pl_tfidf_gram){nn->pool + at, n, nn->gram_index[id]};
            count++;
        }
    }
    return count;
}

/* a row's counts to out (of type dt), weighted as the mode says */
static inline void pl_tfidf_weigh(const struct pl_op *op, void *out, int dt, const double *freq, int64_t row)
{
    const struct pl_nn *nn = &op->nn;
    int64_t os = op->out.d[op->out.nd - 1];
    for (int64_t i = 0; i < os; i++) {
        double f = freq[i], w = i < nn->nweights ? nn->weights[i] : 1, v;
        if (nn->tf_mode == 0)
            v = f;
        else if (nn->tf_mode == 1)
            v = f > 0 ? w : 0;
        else
            v = w * f;
        pl_store(out, dt, row * os + i, v);
    }
}

/* per row: for each skip distance, each start and each size, the n-gram looked up (binary
 * search) in the sorted pool (s->work, s->naux of them); unigrams counted at distance 1 only */
static inline void pl_kernel_tfidf(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_nn *nn = &op->nn;
    const struct pl_tfidf_gram *g = (const struct pl_tfidf_gram *)s->work;
    const int64_t *x = (const int64_t *)s->in[0];
    int64_t N = op->in[0].d[op->in[0].nd - 1], rows = op->in[0].nd == 2 ? op->in[0].d[0] : 1;
    int64_t os = op->out.d[op->out.nd - 1];
    double *freq = (double *)s->aux;
    int64_t key[16];
#if PL_FAMILIES & PL_FAM_STRING
    if (op->in[0].dtype == PL_STRING) { /* strings: each token's number in the pool (-1: none) */
        const int64_t *slot = (const int64_t *)s->table;
        int64_t *ids = (int64_t *)s->table + pl_hash_slots(nn->npool), m = pl_count(&op->in[0]);
        char *const *text = (char *const *)s->in[0];
        for (int64_t i = 0; i < m; i++) {
            int64_t at = pl_text_find(slot, nn->pool_text, nn->npool, text[i], 0);
            ids[i] = at < 0 ? -1 : nn->pool[at];
        }
        x = ids;
    }
#endif
    for (int64_t b = 0; b < rows; b++) {
        const int64_t *row = x + b * N;
        for (int64_t i = 0; i < os; i++)
            freq[i] = 0;
        int64_t first = nn->min_gram;
        for (int64_t d = 1; d <= nn->max_skip + 1 && first <= nn->max_gram; d++) {
            for (int64_t i = 0; i + d * (first - 1) < N; i++)
                for (int64_t n = first; n <= nn->max_gram && i + d * (n - 1) < N; n++) {
                    for (int64_t k = 0; k < n; k++)
                        key[k] = row[i + k * d];
                    struct pl_tfidf_gram want = {key, n, 0};
                    const struct pl_tfidf_gram *hit =
                        (const struct pl_tfidf_gram *)bsearch(&want, g, (size_t)s->naux, sizeof(*g), pl_tfidf_order);
                    if (hit && hit->out < os)
                        freq[hit->out]++;
                }
            if (first == 1) /* unigrams are the same at every distance */
                first = 2;
        }
        pl_tfidf_weigh(op, s->out, op->out.dtype, freq, b);
    }
}

/* tokens from the pool (so that its n-grams occur); the pool's n-grams sorted */
static inline enum bh_status pl_tfidf_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_nn *nn = &op->nn;
    uint32_t seed = 99991u;
    int64_t m = pl_count(&op->in[0]), ng = pl_tfidf_grams(nn, NULL);
#if PL_FAMILIES & PL_FAM_STRING
    if (op->in[0].dtype == PL_STRING) {
        /* strings: the pool's, every fourth a word outside it; the pool's table, and room for
         * the tokens' numbers after it */
        char *arena = s->text[0] = (char *)malloc((size_t)(m ? m : 1) * 48);
        int64_t slots = pl_hash_slots(nn->npool);
        s->table = malloc((size_t)(slots + m) * sizeof(int64_t));
        if (!arena || !s->table) {
            bh_note(r, "%s", "cannot allocate the tokens");
            return BH_OOM;
        }
        for (int64_t i = 0; i < m; i++) {
            char *t = ((char **)s->in[0])[i] = arena + i * 48;
            uint32_t u = pl_rand_step(&seed);
            if (u % 4 == 3 || !nn->npool)
                snprintf(t, 48, "w%u", u % 1000u);
            else
                snprintf(t, 48, "%s", nn->pool_text[(u >> 2) % (uint32_t)nn->npool]);
        }
        pl_text_table((int64_t *)s->table, nn->pool_text, nn->npool, 0);
    }
#endif
    for (int64_t i = 0; i < m && op->in[0].dtype != PL_STRING; i++)
        ((int64_t *)s->in[0])[i] = nn->npool ? nn->pool[pl_rand_step(&seed) % (uint32_t)nn->npool] : 0;
    s->work = (double *)malloc((size_t)(ng ? ng : 1) * sizeof(struct pl_tfidf_gram));
    s->aux = (int64_t *)malloc((size_t)(op->out.d[op->out.nd - 1] + 1) * sizeof(double));
    if (!s->work || !s->aux) {
        bh_note(r, "%s", "cannot allocate the pool's table");
        return BH_OOM;
    }
    pl_tfidf_grams(nn, (struct pl_tfidf_gram *)s->work);
    struct pl_tfidf_gram *g = (struct pl_tfidf_gram *)s->work;
    qsort(g, (size_t)ng, sizeof(*g), pl_tfidf_sort);
    s->naux = 0;
    for (int64_t j = 0; j < ng; j++) /* of equal n-grams, the last in the pool */
        if (j + 1 == ng || pl_tfidf_order(&g[j], &g[j + 1]))
            g[s->naux++] = g[j];
    return BH_OK;
}

/* each pool n-gram's occurrences by scanning the row for it at each distance it counts at */
static inline void pl_reference_tfidf(const struct pl_state *s, double *want, double *mag)
{
    const struct pl_op *op = s->op;
    const struct pl_nn *nn = &op->nn;
    int64_t N = op->in[0].d[op->in[0].nd - 1], rows = op->in[0].nd == 2 ? op->in[0].d[0] : 1;
    int64_t os = op->out.d[op->out.nd - 1], ng = pl_tfidf_grams(nn, NULL);
    struct pl_tfidf_gram *g = (struct pl_tfidf_gram *)malloc((size_t)(ng ? ng : 1) * sizeof(*g));
    double *freq = (double *)calloc((size_t)(os ? os : 1), sizeof(double));
    if (!g || !freq) { /* nothing to compare with: every element differs */
        for (int64_t i = 0; i < rows * os; i++)
            want[i] = NAN, mag[i] = 0;
        free(g);
        free(freq);
        return;
    }
    pl_tfidf_grams(nn, g);
    for (int64_t b = 0; b < rows; b++) {
        const int64_t *row = op->in[0].dtype == PL_STRING ? NULL : (const int64_t *)s->in[0] + b * N;
        for (int64_t i = 0; i < os; i++)
            freq[i] = 0;
        for (int64_t j = 0; j < ng; j++) {
            int later = 0; /* an equal n-gram later in the pool takes the counts */
            for (int64_t q = j + 1; q < ng && !later; q++) {
                int64_t k = 0, a = g[j].tok - nn->pool, c = g[q].tok - nn->pool;
                while (g[q].n == g[j].n && k < g[j].n &&
                       (op->in[0].dtype == PL_STRING ? !strcmp(nn->pool_text[a + k], nn->pool_text[c + k])
                                                     : nn->pool[a + k] == nn->pool[c + k]))
                    k++;
                later = g[q].n == g[j].n && k == g[j].n;
            }
            if (later)
                continue;
            int64_t dmax = g[j].n == 1 ? 1 : nn->max_skip + 1;
            for (int64_t d = 1; d <= dmax; d++)
                for (int64_t i = 0; i + d * (g[j].n - 1) < N; i++) {
                    int64_t k = 0;
                    if (op->in[0].dtype == PL_STRING) /* the texts themselves, compared */
                        while (k < g[j].n && !strcmp(((char *const *)s->in[0])[b * N + i + k * d],
                                                     nn->pool_text[g[j].tok - nn->pool + k]))
                            k++;
                    else
                        while (k < g[j].n && row[i + k * d] == g[j].tok[k])
                            k++;
                    freq[g[j].out] += k == g[j].n;
                }
        }
        for (int64_t i = 0; i < os; i++) { /* TF: the count; IDF: the weight if any; TFIDF: their product */
            double w = nn->nweights ? nn->weights[i] : 1;
            want[b * os + i] = nn->tf_mode == 0 ? freq[i] : nn->tf_mode == 1 ? (freq[i] != 0) * w : freq[i] * w;
        }
    }
    for (int64_t i = 0; i < rows * os; i++)
        mag[i] = 0; /* counts and their products: exact */
    free(g);
    free(freq);
}

/* ---- setup, kernel, verification ---- */

/* ---- ConvTranspose whose stride is its kernel (PL_DECONV_TILES) ----
 *
 * Each input pixel (i, j) writes its own KH x KW tile of the output: y[n, oc, i KH + a, j KW + b]
 * = bias[oc] + sum over ic of x[n, ic, i, j] w[ic, oc, a, b], a product of the input's channels
 * by the weight's, then a depth-to-space (as a framework runs it: a GEMM, then the tiles
 * scattered). A block of input rows at a time (PL_DECONV_BLOCK pixels or a row), per output
 * channel and group of four taps: eight pixels' sums of the four taps held in local arrays of
 * four floats (one SSE2 vector each under gcc's -O2, kept in registers) over every input
 * channel, each pixel of x loaded once per group, the weights broadcast ahead (work: per input
 * channel four taps of four lanes); then the planes of sums (work: one per tap) interleaved into
 * the output rows. oneDNN 2.6's deconvolution of a detector's last layer, 24 channels of 320 x
 * 320 to one of 640 x 640, takes 3 ms on the AVX-512 machine of docs/results/cpu/README.md,
 * ONNX Runtime 0.67 ms. --verify: each output element from the definition in long double,
 * within float's tolerance of the sum of its terms' magnitudes. */
#define PL_DECONV_BLOCK 1024

/* input rows a block takes, of W pixels each */
static inline int64_t pl_deconv_rows(int64_t W)
{
    return W > 0 && W < PL_DECONV_BLOCK ? PL_DECONV_BLOCK / W : 1;
}

/* floats of the work space: a plane per tap, the broadcast weights (16 per input channel), the
 * block's input packed (pl_deconv_pack) */
static inline int64_t pl_deconv_work(const struct pl_op *op)
{
    int64_t W = op->in[0].d[3], block = pl_deconv_rows(W) * (W ? W : 1);
    return (op->nn.kernel[0] * op->nn.kernel[1] + op->in[0].d[1]) * block + 16 * op->in[0].d[1];
}

/* a[k len + p] = b + sum over ic of wq[16 ic + 4 k] x[ic HW + p], for p < LEN and the NT (1 to
 * 4) taps k of a group; wq holds each channel's four taps' weights four times (a vector each,
 * zero past NT). The first LEN - LEN % 8 pixels are read from xb, eight pixels of channel ic at
 * xb + (p / 8) VS + ic CS (x itself: VS 8, CS HW; pl_deconv_pack's copy: VS 8 IC, CS 8), the
 * others from x. */
static inline void pl_deconv_taps4(float *a, int64_t len, int nt, const float *xb, int64_t vs, int64_t cs,
                                   const float *x, int64_t HW, int64_t IC, const float *wq, float b)
{
    int64_t p = 0;
    for (; p + 8 <= len; p += 8) {
        float u0[4], u1[4], u2[4], u3[4], z0[4], z1[4], z2[4], z3[4];
        for (int q = 0; q < 4; q++)
            u0[q] = u1[q] = u2[q] = u3[q] = z0[q] = z1[q] = z2[q] = z3[q] = b;
        const float *xp = xb + p / 8 * vs, *wc = wq;
        for (int64_t ic = 0; ic < IC; ic++, xp += cs, wc += 16) {
            float v[4], y[4], w0[4], w1[4], w2[4], w3[4];
            for (int q = 0; q < 4; q++) {
                v[q] = xp[q];
                y[q] = xp[4 + q];
                w0[q] = wc[q];
                w1[q] = wc[4 + q];
                w2[q] = wc[8 + q];
                w3[q] = wc[12 + q];
            }
            for (int q = 0; q < 4; q++) {
                u0[q] += w0[q] * v[q];
                u1[q] += w1[q] * v[q];
                u2[q] += w2[q] * v[q];
                u3[q] += w3[q] * v[q];
                z0[q] += w0[q] * y[q];
                z1[q] += w1[q] * y[q];
                z2[q] += w2[q] * y[q];
                z3[q] += w3[q] * y[q];
            }
        }
        for (int q = 0; q < 4; q++) {
            a[p + q] = u0[q];
            a[p + 4 + q] = z0[q];
        }
        for (int q = 0; nt > 1 && q < 4; q++) {
            a[len + p + q] = u1[q];
            a[len + p + 4 + q] = z1[q];
        }
        for (int q = 0; nt > 2 && q < 4; q++) {
            a[2 * len + p + q] = u2[q];
            a[2 * len + p + 4 + q] = z2[q];
        }
        for (int q = 0; nt > 3 && q < 4; q++) {
            a[3 * len + p + q] = u3[q];
            a[3 * len + p + 4 + q] = z3[q];
        }
    }
    for (; p < len; p++)
        for (int k = 0; k < nt; k++) {
            float sum = b;
            for (int64_t ic = 0; ic < IC; ic++)
                sum += wq[16 * ic + 4 * k] * x[ic * HW + p];
            a[k * len + p] = sum;
        }
}

/* xb[(p / 8) IC 8 + 8 ic + p % 8] = x[ic HW + p] for p < LEN8 (a multiple of 8): eight pixels'
 * channels side by side, read in order by pl_deconv_taps4 (x's channel planes lie HW apart, a
 * multiple of 4 KiB at detectors' sizes: read in place, the channels of a pixel fall in one set
 * of the L1 cache, likely why that was slower). Two channels at a time, so that their stores
 * fill a cache line (written half by half, a line of xb leaves the L1 cache between its halves). With
 * one output channel no copy is made: it cost more than it saved, and so did summing four
 * channels at a time into the planes (1.8 to 1.9 times slower). */
static inline void pl_deconv_pack(float *xb, const float *x, int64_t HW, int64_t IC, int64_t len8)
{
    for (int64_t ic = 0; ic < IC; ic += 2)
        for (int64_t p = 0; p < len8; p += 8)
            for (int64_t c = ic; c < ic + 2 && c < IC; c++) /* eight floats: a memcpy of constant size */
                memcpy(xb + p * IC + 8 * c, x + c * HW + p, 8 * sizeof(float));
}

/* blocks of input rows of every image, [begin, end), on thread TID's scratch */
static inline void pl_deconv_blocks(struct pl_state *s, int64_t begin, int64_t end, int tid)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *xt = &op->in[0];
    int64_t IC = xt->d[1], H = xt->d[2], W = xt->d[3], OC = op->out.d[1];
    int64_t KH = op->nn.kernel[0], KW = op->nn.kernel[1], T = KH * KW, HW = H * W, rows = pl_deconv_rows(W);
    int64_t per = (H + rows - 1) / rows; /* blocks per image */
    const float *x = (const float *)s->in[0], *w = (const float *)s->in[1];
    const float *bias = op->nin > 2 ? (const float *)s->in[2] : NULL;
    float *y = (float *)s->out, *acc = (float *)s->work + tid * pl_deconv_work(op), *wq = acc + T * rows * W;
    float *xb = wq + 16 * IC;
    for (int64_t item = begin; item < end; item++) {
        int64_t n = item / per, i0 = item % per * rows;
        int64_t nr = H - i0 < rows ? H - i0 : rows, len = nr * W;
        const float *xs = x + n * IC * HW + i0 * W;
        int pack = OC > 1; /* one output channel reads each pixel once: no copy pays */
        if (pack)
            pl_deconv_pack(xb, xs, HW, IC, len - len % 8);
        for (int64_t oc = 0; oc < OC; oc++) {
            for (int64_t t0 = 0; t0 < T; t0 += 4) {
                int nt = T - t0 < 4 ? (int)(T - t0) : 4;
                for (int64_t ic = 0; ic < IC; ic++) /* channel ic's taps t0 .. t0 + 3 at w[ic, oc] */
                    for (int k = 0; k < 4; k++)
                        for (int q = 0; q < 4; q++)
                            wq[16 * ic + 4 * k + q] = k < nt ? w[(ic * OC + oc) * T + t0 + k] : 0.0f;
                pl_deconv_taps4(acc + t0 * len, len, nt, pack ? xb : xs, pack ? 8 * IC : 8, pack ? 8 : HW, xs, HW, IC,
                                wq, bias ? bias[oc] : 0.0f);
            }
            /* the planes into the output rows: pixel (i, j)'s tap (a, b) at row i KH + a,
             * column j KW + b */
            for (int64_t i = 0; i < nr; i++)
                for (int64_t a = 0; a < KH; a++) {
                    float *row = y + ((n * OC + oc) * H * KH + (i0 + i) * KH + a) * W * KW;
                    const float *plane = acc + a * KW * len + i * W;
                    for (int64_t j = 0; j < W; j++) /* the row written in order */
                        for (int64_t b = 0; b < KW; b++)
                            row[j * KW + b] = plane[b * len + j];
                }
        }
    }
}

/* the blocks of every image split over the pool's threads */
static inline void pl_kernel_deconv_tiles(struct pl_state *s)
{
    const struct pl_tensor *xt = &s->op->in[0];
    int64_t rows = pl_deconv_rows(xt->d[3]);
    pl_par_run(s, xt->d[0] * ((xt->d[2] + rows - 1) / rows), pl_deconv_blocks);
}

static inline enum bh_status pl_nn_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    uint32_t seed = 777u;
    if (PL_KIND_OF(op) == PL_ROI_ALIGN) {
        /* regions inside the map, a tenth to half of it per side, in image coordinates
         * (divided by the scale); images spread over the batch */
        const struct pl_tensor *x = &op->in[0];
        int64_t R = op->in[1].d[0], most = 1;
        double H = (double)x->d[2], W = (double)x->d[3];
        for (int64_t i = 0; i < R; i++) {
            double u[4];
            for (int k = 0; k < 4; k++)
                u[k] = (double)pl_rand_step(&seed) / 16777216.0;
            double w = W * (0.1 + 0.4 * u[2]), h = H * (0.1 + 0.4 * u[3]), x0 = (W - w) * u[0], y0 = (H - h) * u[1];
            double box[4] = {x0, y0, x0 + w, y0 + h};
            for (int k = 0; k < 4; k++)
                pl_store(s->in[1], op->in[1].dtype, i * 4 + k, box[k] / op->nn.scale);
            ((int64_t *)s->in[2])[i] = (int64_t)(pl_rand_step(&seed) % (uint32_t)(x->d[0] ? x->d[0] : 1));
        }
        for (int64_t i = 0; i < R; i++) { /* room for the largest region's tables */
            struct pl_roi_geom g = pl_roi_geom(s, i);
            int64_t n = g.gh * g.gw * op->out.d[2] * op->out.d[3];
            most = n > most ? n : most;
        }
        s->naux = most; /* per thread */
        s->aux = (int64_t *)malloc((size_t)(4 * most * pl_par_threads(s)) * sizeof(int64_t));
        s->work = (double *)malloc((size_t)(4 * most * pl_par_threads(s)) * sizeof(double));
    } else if (PL_KIND_OF(op) == PL_MAX_UNPOOL) {
        /* each index inside its own window (a random tap of it, clipped to the unpooled
         * shape), flat over the whole unpooled tensor as MaxPool's */
        const struct pl_tensor *x = &op->in[0];
        int64_t m = pl_count(x);
        for (int64_t i = 0; i < m; i++) {
            int64_t rem = i, c[8], flat = 0;
            for (int k = x->nd - 1; k >= 0; k--) {
                c[k] = rem % x->d[k];
                rem /= x->d[k];
            }
            for (int k = 0; k < x->nd; k++) {
                int64_t v = c[k];
                if (k >= 2) {
                    int j = k - 2;
                    v = c[k] * op->nn.stride[j] - op->nn.pad[j] +
                        (int64_t)(pl_rand_step(&seed) % (uint32_t)op->nn.kernel[j]);
                    v = v < 0 ? 0 : v >= op->nn.inferred[k] ? op->nn.inferred[k] - 1 : v;
                }
                flat = flat * op->nn.inferred[k] + v;
            }
            ((int64_t *)s->in[1])[i] = flat;
        }
        return BH_OK;
    } else if (PL_KIND_OF(op) == PL_TFIDF) {
        return pl_tfidf_setup(s, r);
    } else if (PL_KIND_OF(op) == PL_DECONV_TILES) {
        /* per thread: a plane of sums per tap, a block of input rows long, the broadcast
         * weights and the block's input packed */
        s->work = (double *)malloc((size_t)(pl_par_threads(s) * pl_deconv_work(op)) * sizeof(float));
    } else if (PL_KIND_OF(op) == PL_OPTIMIZER) {
        /* the fifth step at rate 0.01; squared-gradient states non-negative */
        pl_store(s->in[0], op->in[0].dtype, 0, 0.01);
        pl_store(s->in[1], op->in[1].dtype, 0, 5);
        int64_t n = pl_count(&op->in[2]);
        int sq = op->flag == 0 ? 4 : op->flag == 2 ? 5 : -1;
        for (int64_t i = 0; sq > 0 && i < n; i++)
            pl_store(s->in[sq], op->in[sq].dtype, i, fabs(pl_load(s->in[sq], op->in[sq].dtype, i)));
        return BH_OK;
    } else {
        /* class targets; every seventh the ignored class when there is one; weights in (0.5, 1.5] */
        int64_t n = pl_count(&op->in[1]), C = op->in[0].d[1];
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)s->in[1])[i] = op->nn.has_ignore && i % 7 == 3 ? op->nn.ignore
                                                                       : (int64_t)(pl_rand_step(&seed) % (uint32_t)C);
        if (op->nin == 3)
            for (int64_t c = 0; c < C; c++)
                pl_store(s->in[2], op->in[2].dtype, c, 1 + 0.5 * pl_load(s->in[2], op->in[2].dtype, c));
        if (op->nn.log_prob)
            s->work = (double *)malloc((size_t)pl_count(&op->in[0]) * pl_esize(op->in[0].dtype) + 1);
        else
            return BH_OK;
    }
    if (!s->work || (PL_KIND_OF(op) == PL_ROI_ALIGN && !s->aux)) {
        bh_note(r, "%s", "cannot allocate the work space");
        return BH_OOM;
    }
    return BH_OK;
}

static inline void pl_kernel_nn(struct pl_state *s)
{
    if (PL_KIND_OF(s->op) == PL_ROI_ALIGN)
        pl_kernel_roi_align(s);
    else if (PL_KIND_OF(s->op) == PL_OPTIMIZER)
        pl_kernel_optimizer(s);
    else if (PL_KIND_OF(s->op) == PL_TFIDF)
        pl_kernel_tfidf(s);
    else if (PL_KIND_OF(s->op) == PL_MAX_UNPOOL)
        pl_kernel_max_unpool(s);
    else if (PL_KIND_OF(s->op) == PL_DECONV_TILES)
        pl_kernel_deconv_tiles(s);
    else
        pl_kernel_loss(s);
}

/* the reference of every output element into want (doubles); mag: a scale per element */
static inline void pl_reference_nn(const struct pl_state *s, double *want, double *mag)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int dt = x->dtype;
    int64_t n = pl_count(&op->out);
    if (PL_KIND_OF(op) == PL_DECONV_TILES) {
        /* each output element from its coordinates: its input pixel and tap, summed over the
         * input channels */
        int64_t IC = x->d[1], H = x->d[2], W = x->d[3], OC = op->out.d[1], KH = op->nn.kernel[0], KW = op->nn.kernel[1];
        int64_t OH = H * KH, OW = W * KW;
        for (int64_t o = 0; o < n; o++) {
            int64_t ox = o % OW, oy = o / OW % OH, oc = o / (OW * OH) % OC, b = o / (OW * OH * OC);
            long double sum = op->nin > 2 ? pl_load(s->in[2], dt, oc) : 0, size = fabsl(sum);
            for (int64_t ic = 0; ic < IC; ic++) {
                long double t = (long double)pl_load(s->in[0], dt, ((b * IC + ic) * H + oy / KH) * W + ox / KW) *
                                pl_load(s->in[1], dt, ((ic * OC + oc) * KH + oy % KH) * KW + ox % KW);
                sum += t;
                size += fabsl(t);
            }
            want[o] = (double)sum;
            mag[o] = (double)size * (double)(1 + IC / 4); /* a float sum of IC terms rounds IC times */
        }
        return;
    }
    if (PL_KIND_OF(op) == PL_ROI_ALIGN) {
        int64_t C = x->d[1], H = x->d[2], W = x->d[3], oh = op->out.d[2], ow = op->out.d[3];
        for (int64_t i = 0; i < n; i++) {
            int64_t pw = i % ow, ph = i / ow % oh, c = i / (ow * oh) % C, r = i / (ow * oh * C);
            struct pl_roi_geom g = pl_roi_geom(s, r);
            int64_t base = (((const int64_t *)s->in[2])[r] * C + c) * H * W;
            double acc = 0, m = 0;
            int first = 1;
            for (int64_t iy = 0; iy < g.gh; iy++)
                for (int64_t ix = 0; ix < g.gw; ix++) {
                    int64_t p[4];
                    double w[4], v = 0;
                    pl_roi_taps(g.y0 + (double)ph * g.bh + ((double)iy + 0.5) * g.bh / (double)g.gh,
                                g.x0 + (double)pw * g.bw + ((double)ix + 0.5) * g.bw / (double)g.gw, H, W, p, w);
                    for (int k = 0; k < 4; k++) {
                        double u = w[k] * pl_load(s->in[0], dt, base + p[k]);
                        v = op->nn.mode ? (k == 0 || u > v ? u : v) : v + u;
                        m = fabs(pl_load(s->in[0], dt, base + p[k])) > m ? fabs(pl_load(s->in[0], dt, base + p[k])) : m;
                    }
                    acc = op->nn.mode ? (first || v > acc ? v : acc) : acc + v;
                    first = 0;
                }
            int64_t cnt = g.gh * g.gw;
            want[i] = op->nn.mode ? acc : acc / (double)(cnt > 1 ? cnt : 1);
            mag[i] = m;
        }
    } else if (PL_KIND_OF(op) == PL_TFIDF) {
        pl_reference_tfidf(s, want, mag);
    } else if (PL_KIND_OF(op) == PL_OPTIMIZER) {
        /* the update rule as ONNX writes it, in long double */
        const struct pl_nn *nn = &op->nn;
        int64_t m = pl_count(&op->in[2]);
        int xdt = op->in[2].dtype;
        long double r = pl_load(s->in[0], op->in[0].dtype, 0), t = pl_load(s->in[1], op->in[1].dtype, 0);
        long double al = op->alpha, be = op->beta;
        for (int64_t i = 0; i < m; i++) {
            long double xv = pl_load(s->in[2], xdt, i), g = pl_load(s->in[3], xdt, i), a = pl_load(s->in[4], xdt, i);
            long double b = op->flag == 2 ? pl_load(s->in[5], xdt, i) : 0, gr = nn->norm * xv + g, xn, an, bn = 0;
            if (op->flag == 0) {
                an = a + gr * gr;
                xn = xv - r / (1 + t * nn->decay) * gr / (sqrtl(an) + nn->epsilon);
            } else if (op->flag == 1) {
                an = al * a + (t > 0 ? be : 1) * gr;
                xn = nn->nesterov ? xv - r * (gr + al * an) : xv - r * an;
            } else {
                an = al * a + (1 - al) * gr;
                bn = be * b + (1 - be) * gr * gr;
                long double ra = t > 0 ? r * sqrtl(1 - powl(be, t)) / (1 - powl(al, t)) : r;
                xn = (1 - nn->norm_post) * (xv - ra * (an / (sqrtl(bn) + nn->epsilon)));
            }
            long double v[3] = {xn, an, bn};
            for (int k = 0; k < 2 + (op->flag == 2); k++) {
                want[k * m + i] = (double)v[k];
                mag[k * m + i] = fabs((double)v[k]) + fabs((double)xv) + 1e-3;
            }
        }
    } else if (PL_KIND_OF(op) == PL_MAX_UNPOOL) {
        /* backwards: the last write to an element is the first one seen here */
        int64_t m = pl_count(x);
        const int64_t *idx = (const int64_t *)s->in[1];
        for (int64_t i = 0; i < n; i++)
            want[i] = 0, mag[i] = -1;
        for (int64_t i = m - 1; i >= 0; i--) {
            int64_t rem = idx[i], at = 0, ok = 1, c[8];
            for (int k = op->out.nd - 1; k >= 0; k--) {
                c[k] = rem % op->nn.inferred[k];
                rem /= op->nn.inferred[k];
            }
            for (int k = 0; k < op->out.nd; k++) {
                ok &= c[k] < op->out.d[k];
                at = at * op->out.d[k] + c[k];
            }
            if (ok && rem == 0 && mag[at] < 0) {
                want[at] = pl_load(s->in[0], dt, i);
                mag[at] = 0;
            }
        }
        for (int64_t i = 0; i < n; i++)
            mag[i] = 0; /* exact */
    } else {
        int64_t N = x->d[0], C = x->d[1], D = pl_count(x) / (N > 0 && C > 0 ? N * C : 1);
        const int64_t *target = (const int64_t *)s->in[1];
        long double sum = 0, wsum = 0, abs_sum = 0;
        long double *lse = (long double *)calloc((size_t)(N > 0 && D > 0 ? N * D : 1), sizeof(long double));
        if (op->flag && lse) { /* log(sum exp) per (n, d), classes outermost */
            for (int64_t c = 0; c < C; c++)
                for (int64_t nd = 0; nd < N * D; nd++)
                    lse[nd] += expl((long double)pl_load(s->in[0], dt, (nd / D) * C * D + c * D + nd % D));
            for (int64_t nd = 0; nd < N * D; nd++)
                lse[nd] = logl(lse[nd]);
        }
        for (int64_t nd = 0; nd < N * D; nd++) {
            int64_t t = target[nd];
            long double w = 0, l = 0;
            if (!(op->nn.has_ignore && t == op->nn.ignore)) {
                w = op->nin == 3 ? pl_load(s->in[2], op->in[2].dtype, t) : 1;
                l = -w * ((long double)pl_load(s->in[0], dt, (nd / D) * C * D + t * D + nd % D) - (lse ? lse[nd] : 0));
            }
            if (op->nn.reduction == 0) {
                want[nd] = (double)l;
                mag[nd] = fabs((double)l) + (lse ? fabs((double)lse[nd]) : 0);
            }
            sum += l;
            wsum += w;
            abs_sum += fabsl(l) + (lse ? fabsl(lse[nd]) : 0);
        }
        free(lse);
        if (op->nn.reduction) {
            want[0] = (double)(op->nn.reduction == 1 ? sum : sum / wsum);
            mag[0] = (double)(op->nn.reduction == 1 ? abs_sum : abs_sum / (wsum > 0 ? wsum : 1));
        }
    }
}

static inline enum bh_status pl_verify_nn(struct pl_state *s, struct bh_result *r)
{
    return pl_verify_near(s, r, pl_reference_nn, "each element from its definition",
                          PL_KIND_OF(s->op) == PL_MAX_UNPOOL ? " (exactly)"
                                                             : " (within the type's tolerance of its magnitude)");
}

#endif
