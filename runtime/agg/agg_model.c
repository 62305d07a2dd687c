/* agg_model.c: what the reports need, loaded from the database, and the lower-bound arithmetic. */
#include "agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *agg_col_dup(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return agg_xstrdup(t ? (const char *)t : "");
}

static char *agg_cell_key(long target, const char *layer, const char *prec)
{
    return agg_xprintf("%ld\x1f%s\x1f%s", target, layer, prec);
}

static struct agg_cell *agg_cell_for(struct agg_data *x, long target, const char *layer,
                                     const char *prec)
{
    char *k = agg_cell_key(target, layer, prec);
    struct agg_cell *c = agg_map_get(&x->cells, k);
    if (!c) {
        c = agg_xcalloc(1, sizeof(*c));
        c->best = -1;
        agg_map_put(&x->cells, k, c);
    }
    free(k);
    return c;
}

const struct agg_cell *agg_cell_get(const struct agg_data *x, long target, const char *layer,
                                    const char *prec)
{
    char *k = agg_cell_key(target, layer, prec);
    const struct agg_cell *c = agg_map_get(&x->cells, k);
    free(k);
    return c;
}

/* The precision a layer without rows at PREC runs in: Tensor Core math only changes the
 * layers with a matrix product, so X+tensor_op falls back to X, and tf32 (f32 storage) to
 * f32; NULL when there is nothing to fall back to (agg_best then tries the layer's own type). */
static const char *agg_prec_fallback(const char *prec, char *buf, size_t n)
{
    const char *plus = strchr(prec, '+');
    if (plus) {
        snprintf(buf, n, "%.*s", (int)(plus - prec), prec);
        return buf;
    }
    /* an fp8 plan runs what has no fp8 benchmark (all but the GEMMs) in bfloat16, as fp8
     * frameworks keep their activations */
    if (!strcmp(prec, "f8"))
        return "bf16+tensor_op";
    return !strcmp(prec, "tf32") ? "f32" : NULL;
}

/* Whether the fallback step FROM -> TO changes the storage: fp8 to its bfloat16 stand-in */
static int agg_prec_crosses(const char *from, const char *to)
{
    return !strncmp(from, "f8", 2) && strncmp(to, "f8", 2) != 0;
}

/* Where USED stands in PREC's plan: 2 PREC or a fallback of its storage (tf32 -> f32,
 * X+tensor_op -> X), 1 a stand-in of another storage (fp8's bfloat16), 0 outside it (as the
 * layer's own type, which agg_cands_get takes where the plan has no row) */
static int agg_prec_in_plan(const char *prec, const char *used)
{
    char cur[64], buf[64];
    int same = 2;
    snprintf(cur, sizeof(cur), "%s", prec);
    if (!strcmp(cur, used))
        return same;
    for (const char *p; (p = agg_prec_fallback(cur, buf, sizeof(buf))) != NULL;) {
        if (agg_prec_crosses(cur, p))
            same = 1;
        snprintf(cur, sizeof(cur), "%s", p);
        if (!strcmp(cur, used))
            return same;
    }
    return 0;
}

/* The cells a layer's time at PREC may come from, each with rows: PREC's own and its
 * fallbacks of the same storage (tf32 -> f32, X+tensor_op -> X): a framework allowed TF32 or
 * Tensor Cores may still take a kernel without them (cuDNN's and cuBLAS's heuristics do, and so
 * may a model's f32 attention where our TF32 kernel is the slower), so the layer runs at the
 * fastest of them; fp8's fallbacks (bfloat16, another storage) only where it has no row; the
 * layer's own type where none of those has one; and rows of no type ("*": index and mask
 * work). */
enum { AGG_CANDS = 8 };
struct agg_cands {
    int n;
    const struct agg_cell *cell[AGG_CANDS];
    char prec[AGG_CANDS][64];
};

static void agg_cands_add(struct agg_cands *k, const struct agg_cell *c, const char *prec)
{
    if (c && c->best >= 0 && k->n < AGG_CANDS) {
        k->cell[k->n] = c;
        snprintf(k->prec[k->n], sizeof(k->prec[0]), "%s", prec);
        k->n++;
    }
}

static void agg_cands_get(const struct agg_data *x, long target, const char *layer, const char *prec,
                          struct agg_cands *k)
{
    k->n = 0;
    agg_cands_add(k, agg_cell_get(x, target, layer, prec), prec);
    char cur[64], buf[64];
    snprintf(cur, sizeof(cur), "%s", prec);
    for (const char *p; (p = agg_prec_fallback(cur, buf, sizeof(buf))) != NULL;) {
        /* the step from fp8 to its bfloat16 stand-in changes the storage: only where fp8 (with
         * or without Tensor Core math) has no row; within either storage, the faster */
        int crossing = agg_prec_crosses(cur, p);
        snprintf(cur, sizeof(cur), "%s", p);
        if (crossing && k->n)
            break;
        agg_cands_add(k, agg_cell_get(x, target, layer, cur), cur);
    }
    /* a layer with no row at this precision runs in the type its model gives it: a Cast to f16
     * in an f32 model, or a layer only benchmarked in f32 (plain C) in a bf16 model */
    if (!k->n) {
        const struct agg_layer_info *l = agg_map_get(&x->layers, layer);
        if (l && l->prec && strcmp(l->prec, prec) != 0)
            agg_cands_add(k, agg_cell_get(x, target, layer, l->prec), l->prec);
    }
    agg_cands_add(k, agg_cell_get(x, target, layer, "*"), "*");
}

const struct agg_cell *agg_best_cell(const struct agg_data *x, long target, const char *layer, const char *prec,
                                     const char **cell_prec)
{
    static char used[64];
    struct agg_cands k;
    agg_cands_get(x, target, layer, prec, &k);
    int b = -1;
    for (int i = 0; i < k.n; i++)
        if (b < 0 || k.cell[i]->algos[k.cell[i]->best].us < k.cell[b]->algos[k.cell[b]->best].us)
            b = i;
    snprintf(used, sizeof(used), "%s", b >= 0 ? k.prec[b] : prec);
    if (cell_prec)
        *cell_prec = used;
    return b >= 0 ? k.cell[b] : NULL;
}

const struct agg_algo_time *agg_best_at(const struct agg_data *x, long target, const char *layer, const char *prec)
{
    const struct agg_cell *c = agg_best_cell(x, target, layer, prec, NULL);
    return c ? &c->algos[c->best] : NULL;
}

/* Whether an algorithm's time counts on the clock KERNEL (0 the median, 1 CUPTI's kernel time) */
static int agg_algo_timed(const struct agg_algo_time *a, int kernel)
{
    double v = kernel ? a->kus : a->us;
    return isfinite(v) && v > 0;
}

int agg_best_pair(const struct agg_data *x, long ta, long tb, const char *layer, const char *prec, int kernel,
                  double *ua, double *ub)
{
    struct agg_cands ka, kb;
    agg_cands_get(x, ta, layer, prec, &ka);
    agg_cands_get(x, tb, layer, prec, &kb);
    *ua = *ub = INFINITY;
    for (int i = 0; i < ka.n; i++)
        for (int j = 0; j < kb.n; j++) {
            if (strcmp(ka.prec[i], kb.prec[j]))
                continue;
            const struct agg_cell *ca = ka.cell[i], *cb = kb.cell[j];
            for (int p = 0; p < ca->nalgos; p++) {
                const struct agg_algo_time *a = &ca->algos[p];
                if (!agg_algo_timed(a, kernel))
                    continue;
                for (int q = 0; q < cb->nalgos; q++) {
                    const struct agg_algo_time *b = &cb->algos[q];
                    if (strcmp(a->algo, b->algo) || !agg_algo_timed(b, kernel))
                        continue;
                    *ua = fmin(*ua, kernel ? a->kus : a->us);
                    *ub = fmin(*ub, kernel ? b->kus : b->us);
                }
            }
        }
    return isfinite(*ua) && isfinite(*ub) ? 0 : -1;
}

const struct agg_work *agg_work_at(const struct agg_data *x, long target, const char *layer, const char *prec)
{
    const char *used;
    if (!agg_best_cell(x, target, layer, prec, &used))
        return NULL;
    char *k = agg_cell_key(target, layer, used);
    const struct agg_work *w = agg_map_get(&x->work, k);
    free(k);
    return w;
}

int agg_best(const struct agg_data *x, long target, const char *layer, const char *prec,
             double *us, const char **algo)
{
    const struct agg_algo_time *best = agg_best_at(x, target, layer, prec);
    if (!best)
        return -1;
    *us = best->us;
    if (algo)
        *algo = best->algo;
    return 0;
}

const struct agg_algo_time *agg_algo_at(const struct agg_data *x, long target, const char *layer, const char *prec,
                                        const char *algo)
{
    const struct agg_cell *c = agg_cell_get(x, target, layer, prec);
    for (int i = 0; c && i < c->nalgos; i++) {
        if (!strcmp(c->algos[i].algo, algo))
            return &c->algos[i];
    }
    return NULL;
}

double agg_algo_us(const struct agg_data *x, long target, const char *layer, const char *prec,
                   const char *algo)
{
    const struct agg_cell *c = agg_cell_get(x, target, layer, prec);
    for (int i = 0; c && i < c->nalgos; i++) {
        if (!strcmp(c->algos[i].algo, algo))
            return c->algos[i].us;
    }
    return -1;
}

static void agg_cell_free(void *p)
{
    struct agg_cell *c = p;
    for (int i = 0; i < c->nalgos; i++) {
        free(c->algos[i].algo);
        free(c->algos[i].kernels);
        free(c->algos[i].config);
    }
    free(c->algos);
    free(c->heuristic);
    free(c->find);
    free(c);
}

static void agg_layer_free(void *p)
{
    struct agg_layer_info *l = p;
    free(l->op);
    free(l->prec);
    free(l->name);
    free(l->kind);
    free(l);
}

static int agg_prec_in(char **v, int n, const char *p)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(v[i], p))
            return 1;
    }
    return 0;
}

static int agg_prec_cmp(const void *a, const void *b)
{
    /* f32 first (the baseline of speedups), then by name */
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int fx = !strcmp(x, "f32"), fy = !strcmp(y, "f32");
    if (fx != fy)
        return fy - fx;
    return strcmp(x, y);
}

/* the report targets one database target's rows count for */
#define AGG_MAX_FEED 16
struct agg_feed {
    int n;
    int to[AGG_MAX_FEED];
    int one_thread; /* the rows are our plain C's on one thread (they feed every thread count) */
};

#define AGG_STEP(s, what)                                                                       \
    do {                                                                                        \
        if (sqlite3_prepare_v2(d->db, (what), -1, &(s), NULL) != SQLITE_OK) {                   \
            fprintf(err, "%s: error: database read: %s\n", d->path, sqlite3_errmsg(d->db));     \
            goto fail;                                                                          \
        }                                                                                       \
    } while (0)

int agg_data_load(struct agg_db *d, const struct agg_filter *flt, struct agg_data *x, FILE *err)
{
    memset(x, 0, sizeof(*x));
    sqlite3_stmt *s = NULL;
    struct agg_map run_ix = {0}, target_ix = {0};
    int caps = 0;

    AGG_STEP(s, "SELECT id, model, batch FROM model_run ORDER BY model, batch");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *model = (const char *)sqlite3_column_text(s, 1);
        long batch = (long)sqlite3_column_int64(s, 2);
        if (!agg_glob(flt->model, model ? model : "") || (flt->batch >= 0 && batch != flt->batch))
            continue;
        if (x->nruns == caps) {
            caps = caps ? caps * 2 : 16;
            x->runs = agg_xrealloc(x->runs, (size_t)caps * sizeof(*x->runs));
        }
        struct agg_run *r = &x->runs[x->nruns++];
        memset(r, 0, sizeof(*r));
        r->id = (long)sqlite3_column_int64(s, 0);
        r->model = agg_col_dup(s, 1);
        r->batch = batch;
        agg_map_put_id(&run_ix, r->id, (void *)(intptr_t)(x->nruns));
    }
    sqlite3_finalize(s);
    s = NULL;

    AGG_STEP(s, "SELECT run, count(*) FROM node GROUP BY run");
    while (sqlite3_step(s) == SQLITE_ROW) {
        intptr_t i = (intptr_t)agg_map_get_id(&run_ix, sqlite3_column_int64(s, 0));
        if (i)
            x->runs[i - 1].nodes = agg_xcalloc((size_t)sqlite3_column_int(s, 1), sizeof(struct agg_node));
    }
    sqlite3_finalize(s);
    s = NULL;
    AGG_STEP(s, "SELECT run, idx, op, class, layer, grp, preds, name FROM node WHERE idx >= 0 AND idx <"
                " (SELECT count(*) FROM node AS o WHERE o.run = node.run) ORDER BY run, idx");
    while (sqlite3_step(s) == SQLITE_ROW) {
        intptr_t i = (intptr_t)agg_map_get_id(&run_ix, sqlite3_column_int64(s, 0));
        if (!i)
            continue;
        struct agg_run *r = &x->runs[i - 1];
        /* ingest keeps indices below the run's node count; a database written otherwise
         * must not index past the arrays */
        sqlite3_int64 idx = sqlite3_column_int64(s, 1);
        if (!r->nodes || idx < 0 || idx > INT32_MAX - 1)
            continue;
        struct agg_node *n = &r->nodes[r->nnodes++];
        n->idx = (int)idx;
        n->op = agg_col_dup(s, 2);
        n->cls = agg_col_dup(s, 3);
        n->layer = sqlite3_column_type(s, 4) == SQLITE_NULL ? NULL : agg_col_dup(s, 4);
        n->group = sqlite3_column_int(s, 5);
        n->preds = agg_parse_list((const char *)sqlite3_column_text(s, 6), &n->npreds);
        n->name = agg_col_dup(s, 7);
    }
    sqlite3_finalize(s);
    s = NULL;
    for (int i = 0; i < x->nruns; i++) {
        struct agg_run *r = &x->runs[i];
        for (int j = 0; j < r->nnodes; j++)
            r->npos = r->nodes[j].idx >= r->npos ? r->nodes[j].idx + 1 : r->npos;
        r->pos = agg_xmalloc(((size_t)r->npos + 1) * sizeof(int));
        for (int j = 0; j < r->npos; j++)
            r->pos[j] = -1;
        for (int j = 0; j < r->nnodes; j++)
            r->pos[r->nodes[j].idx] = j;
    }
    AGG_STEP(s, "SELECT run, grp, pattern, layer, members FROM fgroup ORDER BY run, grp");
    while (sqlite3_step(s) == SQLITE_ROW) {
        intptr_t i = (intptr_t)agg_map_get_id(&run_ix, sqlite3_column_int64(s, 0));
        if (!i)
            continue;
        struct agg_run *r = &x->runs[i - 1];
        r->groups = agg_xrealloc(r->groups, (size_t)(r->ngroups + 1) * sizeof(*r->groups));
        struct agg_group *g = &r->groups[r->ngroups++];
        memset(g, 0, sizeof(*g));
        g->id = sqlite3_column_int(s, 1);
        g->pattern = agg_col_dup(s, 2);
        g->layer = agg_col_dup(s, 3);
        g->members = agg_parse_list((const char *)sqlite3_column_text(s, 4), &g->nmembers);
    }
    sqlite3_finalize(s);
    s = NULL;

    AGG_STEP(s, "SELECT run, grp, pattern, layer, members FROM fpart ORDER BY run, grp, idx");
    while (sqlite3_step(s) == SQLITE_ROW) {
        intptr_t i = (intptr_t)agg_map_get_id(&run_ix, sqlite3_column_int64(s, 0));
        if (!i)
            continue;
        struct agg_run *r = &x->runs[i - 1];
        int gid = sqlite3_column_int(s, 1);
        for (int j = 0; j < r->ngroups; j++) {
            struct agg_group *g = &r->groups[j];
            if (g->id != gid)
                continue;
            g->parts = agg_xrealloc(g->parts, (size_t)(g->nparts + 1) * sizeof(*g->parts));
            struct agg_part *pt = &g->parts[g->nparts++];
            pt->pattern = agg_col_dup(s, 2);
            pt->layer = agg_col_dup(s, 3);
            pt->nodes = agg_parse_list((const char *)sqlite3_column_text(s, 4), &pt->nnodes);
            break;
        }
    }
    sqlite3_finalize(s);
    s = NULL;

    AGG_STEP(s, "SELECT run, producer, readers, elementwise, output, to_nhwc, to_nchw FROM relayout ORDER BY run, idx");
    while (sqlite3_step(s) == SQLITE_ROW) {
        intptr_t i = (intptr_t)agg_map_get_id(&run_ix, sqlite3_column_int64(s, 0));
        if (!i)
            continue;
        struct agg_run *r = &x->runs[i - 1];
        r->relayouts = agg_xrealloc(r->relayouts, (size_t)(r->nrelayouts + 1) * sizeof(*r->relayouts));
        struct agg_relayout *l = &r->relayouts[r->nrelayouts++];
        l->producer = sqlite3_column_int(s, 1);
        l->readers = agg_parse_list((const char *)sqlite3_column_text(s, 2), &l->nreaders);
        l->elem = agg_parse_list((const char *)sqlite3_column_text(s, 3), &l->nelem);
        l->output = sqlite3_column_int(s, 4);
        l->to_nhwc = agg_col_dup(s, 5);
        l->to_nchw = agg_col_dup(s, 6);
    }
    sqlite3_finalize(s);
    s = NULL;

    /* the layer's own output type, from its key (a fused layer's: its last member's where that
     * is a float type, an rmsnorm group's cast back to f16; else its first member's, a QDQ
     * group's float) */
    AGG_STEP(s, "SELECT id, kind, op, name, CASE WHEN json_valid(key) THEN coalesce("
                "json_extract(key, '$.outputs[0].dtype'), CASE WHEN json_extract(key, '$.members[#-1].outputs[0].dtype')"
                " IN ('FLOAT', 'FLOAT16', 'BFLOAT16') THEN json_extract(key, '$.members[#-1].outputs[0].dtype')"
                " ELSE json_extract(key, '$.members[0].outputs[0].dtype') END) END FROM layer");
    while (sqlite3_step(s) == SQLITE_ROW) {
        static const char *const precs[][2] = {
            {"FLOAT", "f32"}, {"FLOAT16", "f16"}, {"BFLOAT16", "bf16"}, {"DOUBLE", "f64"}};
        struct agg_layer_info *l = agg_xmalloc(sizeof(*l));
        l->kind = agg_col_dup(s, 1);
        l->op = agg_col_dup(s, 2);
        l->name = agg_col_dup(s, 3);
        const char *own = (const char *)sqlite3_column_text(s, 4);
        l->prec = NULL;
        for (size_t i = 0; own && i < sizeof(precs) / sizeof(precs[0]); i++)
            if (!strcmp(own, precs[i][0]))
                l->prec = agg_xstrdup(precs[i][1]);
        agg_map_put(&x->layers, (const char *)sqlite3_column_text(s, 0), l);
    }
    sqlite3_finalize(s);
    s = NULL;

    /* targets: a device with a library version (and, on CPUs, a thread count). Benchmarks of
     * our own code (lib "benanza ...": plain C, our CUDA kernels) join every library target
     * of their device (on a CPU, those of at least their thread count: plain C's kernels that
     * split their work run on the benchmark's threads, the others on one): they fill the
     * layers the library has no primitive for. Without a library target, our own code's
     * targets of one device and lib are reported as one (its first) */
    /* (a target with no timed row and no library pick, such as run_all's own error rows with
     * device "unknown", reports nothing and is left out) */
    AGG_STEP(s, "SELECT id, backend, device, lib, threads, cc, sms, lib LIKE 'benanza %' FROM target"
                " WHERE EXISTS (SELECT 1 FROM best WHERE best.target = target.id)"
                " OR EXISTS (SELECT 1 FROM pick WHERE pick.target = target.id) ORDER BY id");
    struct agg_target *all = NULL;
    int nall = 0, cap_all = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *dev = (const char *)sqlite3_column_text(s, 2);
        if (!agg_glob(flt->device, dev ? dev : ""))
            continue;
        if (nall == cap_all) {
            cap_all = cap_all ? cap_all * 2 : 4;
            all = agg_xrealloc(all, (size_t)cap_all * sizeof(*all));
        }
        struct agg_target *t = &all[nall++];
        memset(t, 0, sizeof(*t));
        t->id = (long)sqlite3_column_int64(s, 0);
        t->backend = agg_col_dup(s, 1);
        t->device = agg_col_dup(s, 2);
        t->lib = agg_col_dup(s, 3);
        t->threads = (long)sqlite3_column_int64(s, 4);
        t->cc = agg_col_dup(s, 5);
        t->sms = (long)sqlite3_column_int64(s, 6);
        t->nprecs = sqlite3_column_int(s, 7); /* own code (a flag until the split below) */
    }
    sqlite3_finalize(s);
    s = NULL;
    char *own = agg_xcalloc((size_t)nall + 1, 1);
    for (int i = 0; i < nall; i++) {
        own[i] = (char)all[i].nprecs;
        all[i].nprecs = 0;
    }
    char *beside = agg_xcalloc((size_t)nall + 1, 1); /* a library target on the same device */
    for (int i = 0; i < nall; i++) {
        for (int j = 0; j < nall; j++)
            beside[i] |= !own[j] && !strcmp(all[j].backend, all[i].backend) && !strcmp(all[j].device, all[i].device);
    }
    x->targets = agg_xcalloc((size_t)nall + 1, sizeof(*x->targets));
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < nall; i++) {
            if (pass == 0 ? own[i] : (!own[i] || beside[i]))
                continue;
            int joins = 0; /* another thread count of an own target reported alone: fed below */
            for (int k = 0; pass == 1 && k < x->ntargets; k++)
                joins |= !strcmp(x->targets[k].backend, all[i].backend) && !strcmp(x->targets[k].device, all[i].device) &&
                         !strcmp(x->targets[k].lib, all[i].lib);
            if (joins)
                continue;
            struct agg_target *t = &x->targets[x->ntargets++];
            *t = all[i];
            agg_ceil_reset(&t->sheet, "");
            agg_ceil_reset(&t->meas, "");
            if (!strcmp(t->backend, "cpu") && !own[i])
                t->label = agg_xprintf("%s, %s, %ld threads", t->device, t->lib, t->threads);
            else
                t->label = agg_xprintf("%s, %s", t->device, t->lib);
            memset(&all[i], 0, sizeof(all[i]));
        }
    }
    /* which report targets each database target's rows feed */
    for (int k = 0; k < x->ntargets; k++) {
        struct agg_feed *f = agg_xcalloc(1, sizeof(*f));
        f->to[f->n++] = k;
        f->one_thread = !strcmp(x->targets[k].backend, "cpu") && !strncmp(x->targets[k].lib, "benanza ", 8) &&
                        x->targets[k].threads <= 1;
        agg_map_put_id(&target_ix, x->targets[k].id, f);
    }
    for (int i = 0; i < nall; i++) {
        if (!own[i] || !all[i].backend)
            continue; /* library targets and own targets reported alone are done */
        struct agg_feed *f = agg_xcalloc(1, sizeof(*f));
        int cpu = !strcmp(all[i].backend, "cpu");
        f->one_thread = cpu && all[i].threads <= 1;
        for (int k = 0; k < x->ntargets && f->n < AGG_MAX_FEED; k++) {
            const struct agg_target *t = &x->targets[k];
            int library = strncmp(t->lib, "benanza ", 8) != 0;
            if (!strcmp(t->backend, all[i].backend) && !strcmp(t->device, all[i].device) &&
                (!cpu || !library || t->threads >= all[i].threads))
                f->to[f->n++] = k;
        }
        agg_map_put_id(&target_ix, all[i].id, f);
        free(all[i].backend);
        free(all[i].device);
        free(all[i].lib);
        free(all[i].cc);
    }
    free(all);
    free(own);
    free(beside);

    /* every algorithm's fastest median per target x layer x precision (repeated runs: the
     * best one, from the table ingest keeps); --run restricts to one ingest label. Rows come
     * in key order, so consecutive rows mostly share a cell: the last one is kept at hand. */
    AGG_STEP(s, "SELECT target, layer, prec, algo, median_us, kernels, busy, config, kernel_us FROM best WHERE ?1 IS NULL OR run=?1");
    if (flt->run)
        sqlite3_bind_text(s, 1, flt->run, -1, SQLITE_STATIC);
    long last_target = -1;
    const struct agg_feed *feed = NULL;
    char last_layer[128] = "", last_prec[64] = "";
    struct agg_cell *last_cells[AGG_MAX_FEED] = {0};
    while (sqlite3_step(s) == SQLITE_ROW) {
        long tid = (long)sqlite3_column_int64(s, 0);
        const char *layer = (const char *)sqlite3_column_text(s, 1);
        const char *prec = (const char *)sqlite3_column_text(s, 2);
        const char *algo = (const char *)sqlite3_column_text(s, 3);
        double us = sqlite3_column_double(s, 4);
        if (!layer || !prec || !algo)
            continue;
        int same = tid == last_target && !strcmp(layer, last_layer) && !strcmp(prec, last_prec);
        if (!same) {
            feed = agg_map_get_id(&target_ix, tid);
            last_target = tid;
            snprintf(last_layer, sizeof(last_layer), "%s", layer);
            snprintf(last_prec, sizeof(last_prec), "%s", prec);
            int wanted = feed && (!strcmp(prec, "*") || agg_glob(flt->type, prec)) &&
                         strlen(layer) < sizeof(last_layer) && strlen(prec) < sizeof(last_prec);
            /* every type is kept, the wanted ones or not: agg_best falls back to the layer's
             * own type and to the precisions agg_prec_fallback names (tf32 to f32, f8 to
             * bf16+tensor_op); --type chooses the precisions reported */
            int kept = feed && strlen(layer) < sizeof(last_layer) && strlen(prec) < sizeof(last_prec);
            for (int fi = 0; feed && fi < feed->n; fi++) {
                struct agg_target *t = &x->targets[feed->to[fi]];
                last_cells[fi] = kept ? agg_cell_for(x, t->id, layer, prec) : NULL;
                if (wanted && strcmp(prec, "*") && !agg_prec_in(t->precs, t->nprecs, prec)) {
                    t->precs = agg_xrealloc(t->precs, (size_t)(t->nprecs + 1) * sizeof(char *));
                    t->precs[t->nprecs++] = agg_xstrdup(prec);
                }
            }
        }
        for (int fi = 0; feed && fi < feed->n; fi++) {
            struct agg_cell *c = last_cells[fi];
            if (!c)
                continue;
            int i = 0;
            while (i < c->nalgos && strcmp(c->algos[i].algo, algo))
                i++;
            if (i == c->nalgos) {
                if (c->nalgos == c->cap) {
                    c->cap = c->cap ? c->cap * 2 : 4;
                    c->algos = agg_xrealloc(c->algos, (size_t)c->cap * sizeof(*c->algos));
                }
                c->algos[i].algo = agg_xstrdup(algo);
                c->algos[i].us = INFINITY;
                c->algos[i].kus = NAN;
                c->algos[i].kernels = NULL;
                c->algos[i].config = NULL;
                c->algos[i].one_thread = feed->one_thread;
                c->nalgos++;
            }
            if (us < c->algos[i].us) {
                const char *kn = (const char *)sqlite3_column_text(s, 5);
                c->algos[i].us = us;
                /* the kernel clock: the kernels' summed durations, but never above the time per
                 * launch (kernels that overlap, as cuDNN's FFT ones on their own streams, sum to
                 * more than the GPU took; a CUPTI sample can be slower than the timed ones) */
                double ku = sqlite3_column_type(s, 8) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 8);
                c->algos[i].kus = isnan(ku) ? NAN : ku < us ? ku : us;
                free(c->algos[i].kernels);
                c->algos[i].kernels = kn ? agg_xstrdup(kn) : NULL;
                const char *cf = (const char *)sqlite3_column_text(s, 7);
                free(c->algos[i].config);
                c->algos[i].config = cf ? agg_xstrdup(cf) : NULL;
                c->algos[i].busy = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
            }
            if (c->best < 0 || c->algos[i].us < c->algos[c->best].us)
                c->best = i;
        }
    }
    sqlite3_finalize(s);
    s = NULL;
    for (int i = 0; i < x->ntargets; i++)
        if (x->targets[i].nprecs > 1)
            qsort(x->targets[i].precs, (size_t)x->targets[i].nprecs, sizeof(char *), agg_prec_cmp);

    /* the library's picks: the latest row that says what it chose */
    AGG_STEP(s, "SELECT target, layer, prec, choice, chosen, max(time) FROM pick"
                " WHERE ?1 IS NULL OR run=?1 GROUP BY target, layer, prec, choice");
    if (flt->run)
        sqlite3_bind_text(s, 1, flt->run, -1, SQLITE_STATIC);
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *prec = (const char *)sqlite3_column_text(s, 2);
        const char *choice = (const char *)sqlite3_column_text(s, 3);
        const struct agg_feed *cf = agg_map_get_id(&target_ix, sqlite3_column_int64(s, 0));
        if (!cf || !prec || !choice || !agg_glob(flt->type, prec))
            continue;
        for (int fi = 0; fi < cf->n; fi++) {
            struct agg_cell *c = agg_cell_for(x, x->targets[cf->to[fi]].id,
                                              (const char *)sqlite3_column_text(s, 1), prec);
            char **slot = !strcmp(choice, "find") ? &c->find : &c->heuristic;
            free(*slot);
            *slot = agg_col_dup(s, 4);
        }
    }
    sqlite3_finalize(s);
    s = NULL;

    /* the layers' work (the roofline's and the prediction's), per report target */
    AGG_STEP(s, "SELECT target, layer, prec, flops, bytes FROM work");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const struct agg_feed *wf = agg_map_get_id(&target_ix, sqlite3_column_int64(s, 0));
        const char *layer = (const char *)sqlite3_column_text(s, 1), *prec = (const char *)sqlite3_column_text(s, 2);
        for (int fi = 0; wf && layer && prec && fi < wf->n; fi++) {
            char *key = agg_cell_key(x->targets[wf->to[fi]].id, layer, prec);
            struct agg_work *w = agg_map_get(&x->work, key);
            if (!w) {
                w = agg_xcalloc(1, sizeof(*w));
                agg_map_put(&x->work, key, w);
            }
            w->flops = fmax(w->flops, sqlite3_column_double(s, 3));
            w->bytes = fmax(w->bytes, sqlite3_column_double(s, 4));
            free(key);
        }
    }
    sqlite3_finalize(s);
    s = NULL;
    /* the ceilings: gen --calibrate's rows, then the datasheets */
    AGG_STEP(s, "SELECT target, layer, prec, median_us, flops, bytes, note FROM calib");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const struct agg_feed *cf = agg_map_get_id(&target_ix, sqlite3_column_int64(s, 0));
        const char *layer = (const char *)sqlite3_column_text(s, 1), *prec = (const char *)sqlite3_column_text(s, 2);
        for (int fi = 0; cf && layer && prec && fi < cf->n; fi++) {
            struct agg_target *t = &x->targets[cf->to[fi]];
            agg_ceil_calib_row(t, layer, prec, sqlite3_column_double(s, 3), sqlite3_column_double(s, 4),
                               sqlite3_column_double(s, 5), (const char *)sqlite3_column_text(s, 6));
            snprintf(t->meas.source, sizeof(t->meas.source), "calibration");
        }
    }
    sqlite3_finalize(s);
    s = NULL;
    if (agg_specs_load(flt->specs, &x->specs, err))
        goto fail;
    agg_ceil_sheets(x);

    AGG_STEP(s, "SELECT model, batch, dtype, device, framework, threads, node, latency_us, runs,"
                " note FROM measured ORDER BY model, batch, dtype, device, framework, node");
    caps = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *model = (const char *)sqlite3_column_text(s, 0);
        long batch = (long)sqlite3_column_int64(s, 1);
        const char *dtype = (const char *)sqlite3_column_text(s, 2);
        const char *dev = (const char *)sqlite3_column_text(s, 3);
        if (!agg_glob(flt->model, model ? model : "") || (flt->batch >= 0 && batch != flt->batch) ||
            !agg_glob(flt->type, dtype ? dtype : "") || !agg_glob(flt->device, dev ? dev : ""))
            continue;
        if (x->nmeasured == caps) {
            caps = caps ? caps * 2 : 16;
            x->measured = agg_xrealloc(x->measured, (size_t)caps * sizeof(*x->measured));
        }
        struct agg_measured *m = &x->measured[x->nmeasured++];
        m->model = agg_col_dup(s, 0);
        m->batch = batch;
        m->dtype = agg_col_dup(s, 2);
        m->device = agg_col_dup(s, 3);
        m->framework = agg_col_dup(s, 4);
        m->threads = (long)sqlite3_column_int64(s, 5);
        m->node = agg_col_dup(s, 6);
        m->latency_us = sqlite3_column_double(s, 7);
        m->runs = (long)sqlite3_column_int64(s, 8);
        m->note = agg_col_dup(s, 9);
    }
    sqlite3_finalize(s);
    agg_map_free(&run_ix, NULL);
    agg_map_free(&target_ix, free);
    return 0;
fail:
    sqlite3_finalize(s);
    agg_map_free(&run_ix, NULL);
    agg_map_free(&target_ix, free);
    agg_data_free(x);
    return -1;
}

void agg_data_free(struct agg_data *x)
{
    for (int i = 0; i < x->nruns; i++) {
        struct agg_run *r = &x->runs[i];
        for (int j = 0; j < r->nnodes; j++) {
            struct agg_node *n = &r->nodes[j];
            free(n->op);
            free(n->cls);
            free(n->layer);
            free(n->name);
            free(n->preds);
        }
        for (int j = 0; j < r->ngroups; j++) {
            free(r->groups[j].pattern);
            free(r->groups[j].layer);
            free(r->groups[j].members);
            for (int q = 0; q < r->groups[j].nparts; q++) {
                free(r->groups[j].parts[q].pattern);
                free(r->groups[j].parts[q].layer);
                free(r->groups[j].parts[q].nodes);
            }
            free(r->groups[j].parts);
        }
        for (int j = 0; j < r->nrelayouts; j++) {
            free(r->relayouts[j].readers);
            free(r->relayouts[j].elem);
            free(r->relayouts[j].to_nhwc);
            free(r->relayouts[j].to_nchw);
        }
        free(r->relayouts);
        free(r->nodes);
        free(r->pos);
        free(r->groups);
        free(r->model);
    }
    free(x->runs);
    for (int i = 0; i < x->ntargets; i++) {
        struct agg_target *t = &x->targets[i];
        free(t->backend);
        free(t->device);
        free(t->lib);
        free(t->cc);
        free(t->label);
        for (int j = 0; j < t->nprecs; j++)
            free(t->precs[j]);
        free(t->precs);
    }
    free(x->targets);
    for (int i = 0; i < x->nmeasured; i++) {
        struct agg_measured *m = &x->measured[i];
        free(m->model);
        free(m->dtype);
        free(m->device);
        free(m->framework);
        free(m->note);
        free(m->node);
    }
    free(x->measured);
    agg_map_free(&x->layers, agg_layer_free);
    agg_map_free(&x->cells, agg_cell_free);
    agg_map_free(&x->work, free);
    agg_specs_free(&x->specs);
    memset(x, 0, sizeof(*x));
}

int agg_node_pos(const struct agg_run *r, int idx)
{
    return idx >= 0 && idx < r->npos ? r->pos[idx] : -1;
}

/* the position of node I's K-th pred, both as REP maps them (NULL: themselves), in *P and *I;
 * 0 when that is no edge (no such node, or a node's own) */
static int agg_edge(const struct agg_run *r, const int *rep, int i, int k, int *p, int *to)
{
    *p = agg_node_pos(r, r->nodes[i].preds[k]);
    *to = rep ? rep[i] : i;
    if (*p >= 0 && rep)
        *p = rep[*p];
    return *p >= 0 && *p != *to;
}

/* node weight of the longest-path pass: finish[i] = w[i] + max over preds finish[p];
 * the nodes' order in the manifest is topological (ONNX requires it; gen checks for
 * cycles), but a pred that comes later is handled by Kahn's order anyway. REP (or NULL)
 * contracts nodes: each edge runs between the nodes REP maps its ends to, an edge inside one
 * such node is none (a fusion group as one node: its members' edges to the rest of the graph
 * are its own, whichever member they touch) */
static double agg_critical_path(const struct agg_run *r, const double *w, const int *rep, int **path, int *npath,
                                int *cut, char *left)
{
    int n = r->nnodes;
    int *indeg = agg_xcalloc((size_t)n, sizeof(int)), *order = agg_xmalloc((size_t)n * sizeof(int));
    int *nsucc = agg_xcalloc((size_t)n + 1, sizeof(int)), *succ;
    int edges = 0, p, to;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < r->nodes[i].npreds; k++) {
            if (agg_edge(r, rep, i, k, &p, &to)) {
                indeg[to]++;
                nsucc[p + 1]++;
                edges++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        nsucc[i + 1] += nsucc[i];
    succ = agg_xmalloc((size_t)(edges ? edges : 1) * sizeof(int));
    int *fill = agg_xcalloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < r->nodes[i].npreds; k++) {
            if (agg_edge(r, rep, i, k, &p, &to))
                succ[nsucc[p] + fill[p]++] = to;
        }
    }
    int head = 0, tail = 0;
    for (int i = 0; i < n; i++) {
        if (!indeg[i])
            order[tail++] = i;
    }
    double *finish = agg_xcalloc((size_t)n, sizeof(double));
    int *from = agg_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        from[i] = -1;
    while (head < tail) {
        int i = order[head++];
        finish[i] += w[i];
        for (int e = nsucc[i]; e < nsucc[i + 1]; e++) {
            int j = succ[e];
            if (from[j] < 0 || finish[i] > finish[j]) {
                finish[j] = finish[i];
                from[j] = i;
            }
            if (--indeg[j] == 0)
                order[tail++] = j;
        }
    }
    /* nodes on a cycle (never in a valid manifest; where REP closes one, the caller's to
     * handle: *CUT) are left out */
    *cut = tail < n;
    if (left) {
        memset(left, 1, (size_t)n);
        for (int q = 0; q < tail; q++)
            left[order[q]] = 0;
    }
    int end = -1;
    for (int q = 0; q < tail; q++) {
        int i = order[q];
        if (end < 0 || finish[i] > finish[end])
            end = i;
    }
    double len = end >= 0 ? finish[end] : 0;
    *npath = 0;
    *path = NULL;
    if (end >= 0 && len > 0) {
        int cnt = 0;
        for (int i = end; i >= 0; i = from[i])
            cnt++;
        *path = agg_xmalloc((size_t)cnt * sizeof(int));
        for (int i = end, k = cnt - 1; i >= 0; i = from[i], k--)
            (*path)[k] = i;
        *npath = cnt;
    }
    free(indeg);
    free(order);
    free(nsucc);
    free(succ);
    free(fill);
    free(finish);
    free(from);
    return len;
}

/* a channels-last algorithm (gen's nhwc_* benchmarks) */
static int agg_algo_cl(const char *algo)
{
    return !strncmp(algo, "nhwc_", 5);
}

/* The fastest of LAYER's algorithms under a layout plan (0 any, 1 NCHW, 2 NHWC) among the cells
 * agg_cands_get names, and its row; *CELL and PREC_USED (64 bytes), where not NULL, the cell
 * and precision it is in; CL counts the layers that ran channels-last. In the NHWC plan a
 * layer with a channels-last result in any of those cells takes the fastest of those. */
static const struct agg_algo_time *agg_best_plan(const struct agg_data *x, long target, const char *layer,
                                                 const char *prec, int plan, int *cl, const struct agg_cell **cell,
                                                 char *prec_used)
{
    struct agg_cands k;
    agg_cands_get(x, target, layer, prec, &k);
    int has_cl = 0;
    for (int j = 0; j < k.n && plan == 2; j++)
        for (int i = 0; i < k.cell[j]->nalgos; i++)
            has_cl |= agg_algo_cl(k.cell[j]->algos[i].algo) && isfinite(k.cell[j]->algos[i].us);
    const struct agg_algo_time *best = NULL;
    int from = -1;
    for (int j = 0; j < k.n; j++)
        for (int i = 0; i < k.cell[j]->nalgos; i++) {
            const struct agg_algo_time *a = &k.cell[j]->algos[i];
            int want = plan == 0 || (plan == 1 ? !agg_algo_cl(a->algo) : !has_cl || agg_algo_cl(a->algo));
            if (want && isfinite(a->us) && (!best || a->us < best->us)) {
                best = a;
                from = j;
            }
        }
    if (best && plan == 2 && has_cl)
        (*cl)++;
    if (cell)
        *cell = from >= 0 ? k.cell[from] : NULL;
    if (prec_used)
        snprintf(prec_used, 64, "%s", from >= 0 ? k.prec[from] : prec);
    return best;
}

static int agg_bound_plan(const struct agg_data *x, const struct agg_run *r, const struct agg_target *t,
                          const char *prec, int plan, struct agg_bound *b, int *cl);

/* One layout change of a relayout value: its Transpose's fastest time on node I (the reader
 * that needs it, or the producer for a graph output) */
static void agg_relayout_charge(const struct agg_data *x, const struct agg_target *t, const char *prec,
                                const char *layer, int i, double *w, double *wf, struct agg_bound *b)
{
    const struct agg_algo_time *at = agg_best_at(x, t->id, layer, prec);
    b->relayouts++;
    if (!at) {
        b->relayouts_unknown++;
        return;
    }
    b->relayout_us += at->us;
    b->seq += at->us;
    b->kernel_seq += at->kus;
    b->kernel_fused_seq += at->kus;
    if (i >= 0) {
        w[i] += at->us;
        wf[i] += at->us;
    }
}

/* The NHWC plan's layout changes. LAY holds each node's layout where its benchmark decides it:
 * 1 channels-last, 0 not, 3 and 2 the same for a member of a group whose fused benchmark
 * counts, -1 none. An elementwise node not in a fused group runs in the layout of the first
 * relayout value it reads; every other node, free and unsupported ones too, in NCHW. A value
 * is made in its producer's layout (a graph input: NCHW); each other layout its readers (and a
 * graph output: NCHW) need costs one Transpose, on the first node that needs it. The values
 * come in a topological order of their producers, so a producer's layout is known first. */
static void agg_relayout_costs(const struct agg_data *x, const struct agg_run *r, const struct agg_target *t,
                               const char *prec, signed char *lay, double *w, double *wf, struct agg_bound *b)
{
    int n = r->nnodes;
    char *elem = agg_xcalloc((size_t)n + 1, 1);
    for (int v = 0; v < r->nrelayouts; v++)
        for (int k = 0; k < r->relayouts[v].nelem; k++) {
            int q = agg_node_pos(r, r->relayouts[v].elem[k]);
            if (q >= 0)
                elem[q] = 1;
        }
    /* fixed layouts: fused members as their group ran, elementwise nodes open (-1), the rest
     * as their benchmark ran (NCHW without one) */
    for (int i = 0; i < n; i++)
        lay[i] = lay[i] >= 2 ? lay[i] - 2 : elem[i] ? -1 : lay[i] < 0 ? 0 : lay[i];
    for (int v = 0; v < r->nrelayouts; v++) {
        const struct agg_relayout *l = &r->relayouts[v];
        int p = l->producer >= 0 ? agg_node_pos(r, l->producer) : -1;
        int have = p >= 0 && lay[p] > 0 ? 1 : 0;
        int paid[2] = {0, 0};
        for (int k = 0; k < l->nreaders; k++) {
            int q = agg_node_pos(r, l->readers[k]);
            if (q < 0)
                continue;
            if (lay[q] < 0) { /* an elementwise node's first value: its layout */
                lay[q] = (signed char)have;
                continue;
            }
            int need = lay[q];
            if (need != have && !paid[need]) {
                paid[need] = 1;
                agg_relayout_charge(x, t, prec, need ? l->to_nhwc : l->to_nchw, q, w, wf, b);
            }
        }
        if (l->output && have && !paid[0])
            agg_relayout_charge(x, t, prec, l->to_nchw, p, w, wf, b);
    }
    free(elem);
}

int agg_bound_compute(const struct agg_data *x, const struct agg_run *r, const struct agg_target *t,
                      const char *prec, struct agg_bound *b)
{
    int cl = 0;
    int rc = agg_bound_plan(x, r, t, prec, 2, b, &cl);
    b->layout = "";
    b->other_fused_seq = NAN;
    if (!cl)
        return rc; /* no channels-last result: one plan */
    struct agg_bound nchw;
    int cl2 = 0;
    int rc2 = agg_bound_plan(x, r, t, prec, 1, &nchw, &cl2);
    if (rc2 == 0 && (rc != 0 || nchw.fused_seq < b->fused_seq)) {
        double other = rc == 0 ? b->fused_seq : NAN;
        nchw.relayouts = b->relayouts;
        nchw.relayouts_unknown = b->relayouts_unknown;
        nchw.relayout_us = b->relayout_us;
        agg_bound_free(b);
        *b = nchw;
        b->layout = "nchw";
        b->other_fused_seq = other;
        return 0;
    }
    b->layout = "nhwc";
    b->other_fused_seq = rc2 == 0 ? nchw.fused_seq : NAN;
    agg_bound_free(&nchw);
    return rc;
}

/* The sum of W and WK over the nodes NODES[0..N) (node indices; those not in the run left out)
 * in *US and *KUS, the last one's position in *LAST (-1: none); whether each is known or not a
 * computing node */
static int agg_sum_nodes(const struct agg_run *r, const int *nodes, int n, const double *w, const double *wk,
                         const char *known, double *us, double *kus, int *last)
{
    int all = 1;
    *us = *kus = 0;
    *last = -1;
    for (int k = 0; k < n; k++) {
        int m = agg_node_pos(r, nodes[k]);
        if (m < 0)
            continue;
        *us += w[m];
        *kus += wk[m];
        all &= known[m] || strcmp(r->nodes[m].cls, "compute");
        *last = m;
    }
    return all;
}

static int agg_bound_plan(const struct agg_data *x, const struct agg_run *r, const struct agg_target *t,
                          const char *prec, int plan, struct agg_bound *b, int *cl)
{
    memset(b, 0, sizeof(*b));
    int n = r->nnodes;
    double *w = agg_xcalloc((size_t)n + 1, sizeof(double));
    double *wf = agg_xcalloc((size_t)n + 1, sizeof(double));
    char *known = agg_xcalloc((size_t)n + 1, 1);
    signed char *lay = agg_xmalloc((size_t)n + 1); /* the NHWC plan's layout per node: 1 NHWC */
    memset(lay, -1, (size_t)n + 1);
    b->node_us = agg_xmalloc(((size_t)n + 1) * sizeof(double));
    b->node_kus = agg_xmalloc(((size_t)n + 1) * sizeof(double));
    b->node_busy = agg_xcalloc((size_t)n + 1, 1);
    b->group_us = agg_xcalloc((size_t)r->ngroups + 1, sizeof(double));
    b->group_kus = agg_xcalloc((size_t)r->ngroups + 1, sizeof(double));
    b->node_algo = agg_xcalloc((size_t)n + 1, sizeof(*b->node_algo));
    b->group_algo = agg_xcalloc((size_t)r->ngroups + 1, sizeof(*b->group_algo));
    b->node_prec = agg_xcalloc((size_t)n + 1, sizeof(*b->node_prec));
    b->group_fused = agg_xcalloc((size_t)r->ngroups + 1, 1);
    /* whether PREC is this model's plan (see the return): some layer timed by a row of PREC's
     * storage that is not of its own type (gen wrote it in PREC: --types asked), and the
     * layers' own types, counted */
    int converted = 0, nty = 0, tyn[8] = {0};
    const char *ty[8];
    double *wk = agg_xcalloc((size_t)n + 1, sizeof(double)); /* the kernel clock's w and wf */
    double *wkf = agg_xcalloc((size_t)n + 1, sizeof(double));
    for (int i = 0; i < n; i++) {
        const struct agg_node *nd = &r->nodes[i];
        b->node_us[i] = NAN;
        b->node_kus[i] = NAN;
        if (strcmp(nd->cls, "compute") || !nd->layer)
            continue;
        b->computing++;
        const struct agg_cell *c = NULL;
        char used[64];
        const struct agg_layer_info *l = agg_map_get(&x->layers, nd->layer);
        int k = 0;
        while (l && l->prec && k < nty && strcmp(ty[k], l->prec))
            k++;
        if (l && l->prec && k < 8) {
            ty[k] = l->prec;
            tyn[k]++;
            nty += k == nty;
        }
        const struct agg_algo_time *at = agg_best_plan(x, t->id, nd->layer, prec, plan, cl, &c, used);
        if (at) {
            double us = at->us;
            b->covered++;
            converted |= agg_prec_in_plan(prec, used) == 2 && (!l || !l->prec || strcmp(used, l->prec) != 0);
            known[i] = 1;
            w[i] = us;
            lay[i] = agg_algo_cl(at->algo) ? 1 : 0;
            b->node_us[i] = us;
            b->node_algo[i] = at->algo;
            snprintf(b->node_prec[i], sizeof(b->node_prec[i]), "%.23s", used);
            b->seq += us;
            wk[i] = b->node_kus[i] = at->kus;
            if (at->busy == 1) {
                b->node_busy[i] = 1;
                b->busy++;
            }
            /* the library's own picks in the cell the fastest row is in (not another
             * precision's gap counted as theirs) */
            double h = c && c->heuristic ? agg_algo_us(x, t->id, nd->layer, used, c->heuristic) : -1;
            double f = c && c->find ? agg_algo_us(x, t->id, nd->layer, used, c->find) : -1;
            b->heur_seq += h >= 0 ? h : us;
            b->find_seq += f >= 0 ? f : us;
            b->heur_known += h >= 0;
            b->find_known += f >= 0;
        }
        wf[i] = w[i];
        wkf[i] = wk[i];
    }
    /* fused: a group costs min(its fused benchmark, the sum of its members). Fused, its time
     * sits on its last member and the critical path takes the group as that one node (REP):
     * a value may leave a group through another member too (an add_layernorm group's kept
     * sum), and the fused kernel makes it only as it runs. At its members' sum the members run
     * one by one, each at its own time on its own node. */
    int *rep = agg_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        rep[i] = i;
    for (int g = 0; g < r->ngroups; g++) {
        const struct agg_group *gr = &r->groups[g];
        double members, kmembers;
        int last, all = agg_sum_nodes(r, gr->members, gr->nmembers, w, wk, known, &members, &kmembers, &last);
        /* parts fused on their own (a convolution's SiLU as the silu group frameworks run
         * beside the convolution, the convolution with its batch norm folded): the members'
         * side takes each where it beats its nodes, and those nodes are known through it */
        double unfused = members;
        const struct agg_algo_time *pts[AGG_MAX_PARTS] = {NULL};
        int part_last[AGG_MAX_PARTS], used = 0;
        for (int q = 0; q < gr->nparts && q < AGG_MAX_PARTS; q++) {
            const struct agg_part *pp = &gr->parts[q];
            double us, kus;
            int none = 0, pall = agg_sum_nodes(r, pp->nodes, pp->nnodes, w, wk, known, &us, &kus, &part_last[q]);
            const struct agg_algo_time *pt = agg_best_plan(x, t->id, pp->layer, prec, plan, &none, NULL, NULL);
            if (pt && (!pall || pt->us < us) && part_last[q] >= 0) {
                members += pt->us - us;
                kmembers += pt->kus - kus;
                pts[q] = pt;
                used++;
            }
        }
        if (used) { /* known: every member outside the parts used, or inside one */
            all = 1;
            for (int k = 0; k < gr->nmembers; k++) {
                int m = agg_node_pos(r, gr->members[k]), in = 0;
                for (int q = 0; q < gr->nparts && q < AGG_MAX_PARTS; q++)
                    for (int j = 0; pts[q] && j < gr->parts[q].nnodes; j++)
                        in |= gr->parts[q].nodes[j] == gr->members[k];
                if (m >= 0 && !in)
                    all &= known[m] || strcmp(r->nodes[m].cls, "compute");
            }
        }
        double cost = members, kcost = kmembers;
        b->group_algo[g] = used ? "members (parts fused)" : "members";
        const struct agg_algo_time *at = agg_best_plan(x, t->id, gr->layer, prec, plan, cl, NULL, NULL);
        int unused = 0;
        b->group_fused[g] = at ? 1 : agg_best_plan(x, t->id, gr->layer, prec, 0, &unused, NULL, NULL) ? 2 : 0;
        if (at && (!all || at->us < members) && last >= 0) {
            cost = at->us;
            kcost = at->kus;
            b->group_algo[g] = at->algo;
            b->busy += at->busy == 1;
            for (int k = 0; k < gr->nmembers; k++) {
                int m = agg_node_pos(r, gr->members[k]);
                if (m < 0)
                    continue;
                /* the fused benchmark runs every member in its layout */
                lay[m] = agg_algo_cl(at->algo) ? 3 : 2;
                wf[m] = wkf[m] = 0;
                rep[m] = last;
            }
            wf[last] = cost;
            wkf[last] = kcost;
        } else {
            /* each part used: its time on its last node, its nodes one node of the critical path */
            for (int q = 0; q < gr->nparts && q < AGG_MAX_PARTS; q++) {
                if (!pts[q])
                    continue;
                for (int k = 0; k < gr->parts[q].nnodes; k++) {
                    int m = agg_node_pos(r, gr->parts[q].nodes[k]);
                    if (m < 0)
                        continue;
                    wf[m] = wkf[m] = 0;
                    rep[m] = part_last[q];
                }
                wf[part_last[q]] = pts[q]->us;
                wkf[part_last[q]] = pts[q]->kus;
                b->busy += pts[q]->busy == 1;
            }
        }
        b->unfused_groups += unfused;
        b->fused_groups += cost;
        b->group_us[g] = cost;
        b->group_kus[g] = kcost;
    }
    if (plan == 2)
        agg_relayout_costs(x, r, t, prec, lay, w, wf, b);
    b->fused_seq = 0;
    for (int i = 0; i < n; i++) {
        b->fused_seq += wf[i];
        b->kernel_seq += wk[i];
        b->kernel_fused_seq += wkf[i];
    }
    free(wk);
    free(wkf);
    int *fp = NULL, nfp = 0;
    /* a transpose charged to a member (a relayout into it) runs before the group: on its node */
    for (int i = 0; i < n; i++)
        if (rep[i] != i) {
            wf[rep[i]] += wf[i];
            wf[i] = 0;
        }
    int cut = 0;
    char *left = agg_xmalloc((size_t)n + 1);
    b->fused_par = agg_critical_path(r, wf, rep, &fp, &nfp, &cut, left);
    free(fp);
    while (cut) {
        /* a group taken as one node closed a cycle: a value it keeps reaches back into it by
         * a path of nodes outside (a Shape reading a member: fusion lets a Shape read inside).
         * Those groups' members as nodes of their own (the group's time on its last one), the
         * other groups still one node each */
        int undone = 0;
        for (int i = 0; i < n; i++)
            if (rep[i] != i && left[rep[i]]) {
                rep[i] = i;
                undone = 1;
            }
        b->fused_par = agg_critical_path(r, wf, undone ? rep : NULL, &fp, &nfp, &cut, left);
        free(fp);
        if (!undone)
            break;
    }
    free(left);
    free(rep);
    b->par = agg_critical_path(r, w, NULL, &b->path, &b->npath, &cut, NULL);
    free(w);
    free(wf);
    free(known);
    free(lay);
    /* PREC is the model's plan where its layers' most common own type is of PREC's storage, or
     * where gen wrote some layer in PREC beside its own type; not an f16 model under a bf16 plan
     * that another model's rows brought (its layers in their own f16 alone), nor an f32 model
     * under an f16 plan that its one Cast to f16 brought, nor a model without fp8 GEMMs under
     * the f8 plan (its bfloat16 stand-ins another storage); a model without float layers
     * (integer work) has every plan */
    int most = -1;
    for (int k = 0; k < nty; k++)
        if (most < 0 || tyn[k] > tyn[most])
            most = k;
    int mine = most < 0 || converted || agg_prec_in_plan(prec, ty[most]) == 2;
    return b->covered > 0 && mine ? 0 : -1;
}

void agg_bound_free(struct agg_bound *b)
{
    free(b->path);
    free(b->node_us);
    free(b->node_kus);
    free(b->group_us);
    free(b->group_kus);
    free(b->node_algo);
    free(b->group_algo);
    free(b->node_prec);
    free(b->group_fused);
    free(b->node_busy);
    b->path = NULL;
    b->node_us = NULL;
    b->node_kus = NULL;
    b->group_us = NULL;
    b->group_kus = NULL;
    b->node_algo = NULL;
    b->group_algo = NULL;
    b->node_prec = NULL;
    b->group_fused = NULL;
    b->node_busy = NULL;
}
