/* agg_report.c: the reports as tables: lower bound, critical path, coverage, algorithm
 * selection, fusion, precision, framework comparison, devices side by side, top layers. */
#include "agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct agg_table *agg_table_new(const char *name, const char *title, const char *desc)
{
    struct agg_table *t = agg_xcalloc(1, sizeof(*t));
    t->name = agg_xstrdup(name);
    t->title = agg_xstrdup(title);
    t->desc = agg_xstrdup(desc);
    return t;
}

void agg_table_add_col(struct agg_table *t, const char *col, enum agg_col_kind kind)
{
    t->cols = agg_xrealloc(t->cols, (size_t)(t->ncols + 1) * sizeof(char *));
    t->kinds = agg_xrealloc(t->kinds, (size_t)(t->ncols + 1) * sizeof(*t->kinds));
    t->cols[t->ncols] = agg_xstrdup(col);
    t->kinds[t->ncols] = kind;
    t->ncols++;
}

int agg_table_row(struct agg_table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cells = agg_xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof(*t->cells));
    }
    struct agg_cellv *c = &t->cells[(size_t)t->nrows * (size_t)t->ncols];
    for (int i = 0; i < t->ncols; i++) {
        c[i].s = NULL;
        c[i].v = NAN;
    }
    return t->nrows++;
}

void agg_table_set_text(struct agg_table *t, int row, int col, const char *s)
{
    struct agg_cellv *c = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
    free(c->s);
    c->s = agg_xstrdup(s ? s : "");
}

void agg_table_set_num(struct agg_table *t, int row, int col, double v)
{
    t->cells[(size_t)row * (size_t)t->ncols + (size_t)col].v = v;
}

void agg_table_free(struct agg_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i].s);
    for (int i = 0; i < t->ncols; i++)
        free(t->cols[i]);
    free(t->cols);
    free(t->kinds);
    free(t->cells);
    free(t->name);
    free(t->title);
    free(t->desc);
    free(t);
}

/* ---- shared state of one build ---- */

enum { K_T = AGG_COL_TEXT, K_I = AGG_COL_INT, K_U = AGG_COL_US, K_R = AGG_COL_RATIO, K_P = AGG_COL_PCT };

struct agg_table *agg_new(const char *name, const char *title, const char *desc,
                                 const char *cols, const char *kinds)
{
    /* cols: names separated by '|'; kinds: one letter per column (t i u r p) */
    struct agg_table *t = agg_table_new(name, title, desc);
    char *copy = agg_xstrdup(cols), *save = NULL;
    int i = 0;
    for (char *c = strtok_r(copy, "|", &save); c; c = strtok_r(NULL, "|", &save), i++) {
        char k = kinds[i];
        agg_table_add_col(t, c, k == 'i' ? AGG_COL_INT : k == 'u' ? AGG_COL_US : k == 'r' ? AGG_COL_RATIO
                                : k == 'p' ? AGG_COL_PCT : k == 'n' ? AGG_COL_NUM : AGG_COL_TEXT);
    }
    free(copy);
    if ((size_t)t->ncols != strlen(kinds)) {
        /* a broken table definition is a bug in agg, never the user's input */
        fprintf(stderr, "agg: internal error: table %s has %d columns and %zu kinds\n", name, t->ncols,
                strlen(kinds));
        abort();
    }
    return t;
}

/* The busy column every timing report ends with: how many of the timings behind a row were
 * taken while other work competed for the cores (run_all's busy rows) */
int agg_busy_col(struct agg_table *t)
{
    agg_table_add_col(t, "busy", AGG_COL_INT);
    char *d = agg_xprintf("%s busy: timings behind the row taken while other work competed for the cores "
                          "(rows marked busy): figures that use them are unreliable.", t->desc);
    free(t->desc);
    t->desc = d;
    return t->ncols - 1;
}

static int agg_layer_busy(const struct agg_data *x, long target, const char *layer, const char *prec)
{
    const struct agg_algo_time *a = agg_best_at(x, target, layer, prec);
    return a && a->busy == 1;
}

/* the first columns of most tables: model, batch, type, device */
int agg_row_head(struct agg_table *t, const struct agg_combo *c)
{
    int r = agg_table_row(t);
    agg_table_set_text(t, r, 0, c->run->model);
    agg_table_set_num(t, r, 1, (double)c->run->batch);
    agg_table_set_text(t, r, 2, c->prec);
    agg_table_set_text(t, r, 3, c->target->label);
    return r;
}

static double agg_node_us(const struct agg_ctx *k, const struct agg_combo *c, const struct agg_node *n)
{
    (void)k;
    return c->b.node_us[n - c->run->nodes]; /* computed once per combination */
}

static double agg_ratio(double a, double b)
{
    return b > 0 && !isnan(a) ? a / b : NAN;
}


static struct agg_table *agg_rep_bound(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("bound", "Lower-bound latency",
        "Per model x batch x type x device. sequential: the sum over computing layers of the fastest ok "
        "algorithm (median); parallel: the critical path of the DAG with every layer at its fastest; fused: "
        "each fusion group at min(its fused benchmark, the sum of its members); covered: computing layers "
        "with a result (see the missing report for the others); layout: where some layer has a channels-last "
        "result, the plan whose fused sequential time is lower: nchw (no layer channels-last) or nhwc (every "
        "layer that has channels-last results at its fastest of those, the others as they are); other layout "
        "fused: the other plan's fused sequential time. The times are the chosen plan's. layout changes: the "
        "transposes the nhwc plan needs (at graph inputs and outputs, and between channels-last layers and the "
        "others; elementwise layers run in the layout of their input), counted in its times; layout change: "
        "their summed time (their Transpose benchmarks' fastest; changes without a result count 0 and are "
        "counted in changes missing). kernels sequential, kernels fused: the same plan on the GPU's kernel "
        "clock, each time its row's kernel_us (CUPTI's kernel durations, without the gaps between kernels "
        "that back-to-back launches leave): what a profiler's kernel-time sum of a framework compares with.",
        HEAD "computing|covered|sequential|parallel|fused|fused parallel|parallelism|layout|other layout fused|"
             "layout changes|layout change|changes missing|kernels sequential|kernels fused",
        HK "iiuuuurtuiuiuu");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        int r = agg_row_head(t, c);
        agg_table_set_num(t, r, bc, c->b.busy);
        agg_table_set_num(t, r, 4, c->b.computing);
        agg_table_set_num(t, r, 5, c->b.covered);
        agg_table_set_num(t, r, 6, c->b.seq);
        agg_table_set_num(t, r, 7, c->b.par);
        agg_table_set_num(t, r, 8, c->b.fused_seq);
        agg_table_set_num(t, r, 9, c->b.fused_par);
        agg_table_set_num(t, r, 10, agg_ratio(c->b.seq, c->b.par));
        if (c->b.layout && *c->b.layout) {
            agg_table_set_text(t, r, 11, c->b.layout);
            agg_table_set_num(t, r, 12, c->b.other_fused_seq);
        }
        if (c->b.relayouts) {
            agg_table_set_num(t, r, 13, c->b.relayouts);
            agg_table_set_num(t, r, 14, c->b.relayout_us);
            agg_table_set_num(t, r, 15, c->b.relayouts_unknown);
        }
        if (!isnan(c->b.kernel_fused_seq)) {
            agg_table_set_num(t, r, 16, c->b.kernel_seq);
            agg_table_set_num(t, r, 17, c->b.kernel_fused_seq);
        }
    }
    return t;
}

static struct agg_table *agg_rep_path(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("path", "Critical path",
        "The nodes on the longest path of each model's DAG (each layer at its fastest): what the "
        "parallel bound is made of. Nodes that compute nothing are left out.",
        HEAD "step|node|op|time|cumulative", HK "ittuu");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        double cum = 0;
        int step = 0;
        for (int j = 0; j < c->b.npath; j++) {
            const struct agg_node *n = &c->run->nodes[c->b.path[j]];
            double us = agg_node_us(k, c, n);
            if (isnan(us))
                continue;
            cum += us;
            int r = agg_row_head(t, c);
            agg_table_set_num(t, r, 4, ++step);
            agg_table_set_text(t, r, 5, n->name);
            agg_table_set_text(t, r, 6, n->op);
            agg_table_set_num(t, r, 7, us);
            agg_table_set_num(t, r, 8, cum);
            agg_table_set_num(t, r, bc, c->b.node_busy[c->b.path[j]]);
        }
    }
    return t;
}

static struct agg_table *agg_rep_missing(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("missing", "Coverage: computing layers without a result",
        "Computing nodes whose layer has no ok result for the type on the device: the lower bound "
        "leaves them out. Unsupported operators (gen's report) are not computing nodes here.",
        HEAD "node|op|layer|layer name", HK "tttt");
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        for (int j = 0; j < c->run->nnodes; j++) {
            const struct agg_node *n = &c->run->nodes[j];
            if (!n->layer || strcmp(n->cls, "compute") || !isnan(agg_node_us(k, c, n)))
                continue;
            const struct agg_layer_info *l = agg_map_get(&k->x->layers, n->layer);
            int r = agg_row_head(t, c);
            agg_table_set_text(t, r, 4, n->name);
            agg_table_set_text(t, r, 5, n->op);
            agg_table_set_text(t, r, 6, n->layer);
            agg_table_set_text(t, r, 7, l ? l->name : "");
        }
    }
    return t;
}

static struct agg_table *agg_rep_algo(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("algo", "Algorithm selection",
        "The sequential bound with every layer at its fastest algorithm (best) vs at the library "
        "heuristic's choice (what a framework without autotuning gets) and at the measured search's "
        "choice (cudnnFind, with autotuning). Layers without a recorded choice count at their fastest.",
        HEAD "best|heuristic|heuristic loss|layers with choice|find|find loss", HK "uupiup");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        if (!c->b.heur_known && !c->b.find_known)
            continue;
        int r = agg_row_head(t, c);
        agg_table_set_num(t, r, bc, c->b.busy);
        agg_table_set_num(t, r, 4, c->b.seq);
        if (c->b.heur_known) {
            agg_table_set_num(t, r, 5, c->b.heur_seq);
            agg_table_set_num(t, r, 6, 100 * (c->b.heur_seq - c->b.seq) / c->b.seq);
        }
        agg_table_set_num(t, r, 7, c->b.heur_known > c->b.find_known ? c->b.heur_known : c->b.find_known);
        if (c->b.find_known) {
            agg_table_set_num(t, r, 8, c->b.find_seq);
            agg_table_set_num(t, r, 9, 100 * (c->b.find_seq - c->b.seq) / c->b.seq);
        }
    }
    return t;
}

struct agg_layer_use {
    const char *layer;
    long target;
    const char *prec;
    int uses;
};

/* layers used by the selected runs (with GROUPS, the fusion groups' fused layers too), per target x
 * precision, with their use counts */
static struct agg_layer_use *agg_layer_uses(struct agg_ctx *k, int groups, int *n)
{
    struct agg_map seen = {0};
    struct agg_layer_use *v = NULL;
    int cap = 0;
    *n = 0;
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        int nn = c->run->nnodes, ng = groups ? c->run->ngroups : 0;
        for (int j = 0; j < nn + ng; j++) {
            const char *layer;
            if (j < nn) {
                const struct agg_node *nd = &c->run->nodes[j];
                if (!nd->layer || strcmp(nd->cls, "compute"))
                    continue;
                layer = nd->layer;
            } else {
                layer = c->run->groups[j - nn].layer;
                if (!layer)
                    continue;
            }
            char *key = agg_xprintf("%ld\x1f%s\x1f%s", c->target->id, c->prec, layer);
            intptr_t at = (intptr_t)agg_map_get(&seen, key);
            if (!at) {
                if (*n == cap) {
                    cap = cap ? cap * 2 : 64;
                    v = agg_xrealloc(v, (size_t)cap * sizeof(*v));
                }
                v[*n] = (struct agg_layer_use){layer, c->target->id, c->prec, 0};
                at = ++*n;
                agg_map_put(&seen, key, (void *)at);
            }
            v[at - 1].uses++;
            free(key);
        }
    }
    agg_map_free(&seen, NULL);
    return v;
}

static const struct agg_target *agg_target_by_id(const struct agg_data *x, long id)
{
    for (int i = 0; i < x->ntargets; i++) {
        if (x->targets[i].id == id)
            return &x->targets[i];
    }
    return NULL;
}

/* a new row with the per-layer reports' first columns: device, type, layer, op, name, uses */
static int agg_layer_use_row(struct agg_table *t, struct agg_ctx *k, const struct agg_layer_use *u)
{
    const struct agg_layer_info *l = agg_map_get(&k->x->layers, u->layer);
    int r = agg_table_row(t);
    agg_table_set_text(t, r, 0, agg_target_by_id(k->x, u->target)->label);
    agg_table_set_text(t, r, 1, u->prec);
    agg_table_set_text(t, r, 2, u->layer);
    agg_table_set_text(t, r, 3, l ? l->op : "");
    agg_table_set_text(t, r, 4, l ? l->name : "");
    agg_table_set_num(t, r, 5, u->uses);
    return r;
}

static int agg_sort_col;
static int agg_cmp_rows_desc(const void *a, const void *b)
{
    const struct agg_cellv *x = a, *y = b;
    double u = x[agg_sort_col].v, v = y[agg_sort_col].v;
    if (isnan(u))
        u = -INFINITY;
    if (isnan(v))
        v = -INFINITY;
    return u < v ? 1 : u > v ? -1 : 0;
}

void agg_table_sort_desc(struct agg_table *t, int col)
{
    /* rows are contiguous runs of ncols cells: sort them as fixed-size records */
    agg_sort_col = col;
    if (t->nrows > 1)
        qsort(t->cells, (size_t)t->nrows, (size_t)t->ncols * sizeof(struct agg_cellv), agg_cmp_rows_desc);
}

/* one model's rows (from `first` on) of a where-the-time-goes table: largest total first,
 * then each row's share of the sequential bound, and its rank where rank_col >= 0 */
void agg_rank_rows(struct agg_table *t, int first, int total_col, int share_col, int rank_col, double seq)
{
    struct agg_table view = *t;
    view.cells = &t->cells[(size_t)first * (size_t)t->ncols];
    view.nrows = t->nrows - first;
    agg_table_sort_desc(&view, total_col);
    for (int r = first; r < t->nrows; r++) {
        if (rank_col >= 0)
            agg_table_set_num(t, r, rank_col, r - first + 1);
        agg_table_set_num(t, r, share_col,
                          seq > 0 ? 100 * t->cells[(size_t)r * (size_t)t->ncols + (size_t)total_col].v / seq : NAN);
    }
}

static struct agg_table *agg_rep_algo_layers(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("algo-layers", "Algorithm selection per layer",
        "Per layer with a recorded library choice: the fastest algorithm vs the heuristic's and the "
        "search's picks; loss = uses x (heuristic time - fastest time), largest first. kernels: what the "
        "fastest and the heuristic's algorithm ran on the GPU (CUPTI), where recorded.",
        "device|type|layer|op|name|uses|fastest|fastest time|heuristic|heuristic time|heuristic/fastest|find|find time|loss|"
        "fastest kernels|heuristic kernels",
        "tttttituturtuu" "tt");
    int bc = agg_busy_col(t);
    int n;
    struct agg_layer_use *u = agg_layer_uses(k, 0, &n);
    for (int i = 0; i < n; i++) {
        /* the picks against the fastest of the same cell (this precision's library calls), not
         * a faster row another precision's cell lends the bound */
        const struct agg_cell *c = agg_cell_get(k->x, u[i].target, u[i].layer, u[i].prec);
        if (!c || (!c->heuristic && !c->find) || c->best < 0)
            continue;
        const struct agg_algo_time *ba = &c->algos[c->best];
        double best = ba->us;
        int r = agg_layer_use_row(t, k, &u[i]);
        agg_table_set_text(t, r, 6, ba->algo);
        agg_table_set_num(t, r, 7, best);
        if (ba && ba->kernels)
            agg_table_set_text(t, r, 14, ba->kernels);
        agg_table_set_num(t, r, bc, ba && ba->busy == 1);
        if (c->heuristic) {
            double h = agg_algo_us(k->x, u[i].target, u[i].layer, u[i].prec, c->heuristic);
            const struct agg_algo_time *ha = agg_algo_at(k->x, u[i].target, u[i].layer, u[i].prec, c->heuristic);
            if (ha && ha->kernels)
                agg_table_set_text(t, r, 15, ha->kernels);
            if (ha && ha->busy == 1 && ha != ba)
                agg_table_set_num(t, r, bc, t->cells[(size_t)r * (size_t)t->ncols + (size_t)bc].v + 1);
            agg_table_set_text(t, r, 8, c->heuristic);
            if (h >= 0) {
                agg_table_set_num(t, r, 9, h);
                agg_table_set_num(t, r, 10, h / best);
                agg_table_set_num(t, r, 13, u[i].uses * (h - best));
            }
        }
        if (c->find) {
            double f = agg_algo_us(k->x, u[i].target, u[i].layer, u[i].prec, c->find);
            agg_table_set_text(t, r, 11, c->find);
            if (f >= 0)
                agg_table_set_num(t, r, 12, f);
        }
    }
    free(u);
    agg_table_sort_desc(t, 13);
    return t;
}

/* an algorithm chosen by a library's heuristic query at run time: a backend-API engine
 * configuration (heurA_k, heurB_k, fallback_k in NCHW, the same after nhwc_ channels-last,
 * sdpa_heurA_k) or a cuBLASLt algorithm (ltK, ltnkK) */
static int agg_algo_configured(const char *a)
{
    if (!strncmp(a, "nhwc_", 5) || !strncmp(a, "sdpa_", 5))
        a += 5;
    return !strncmp(a, "heurA_", 6) || !strncmp(a, "heurB_", 6) || !strncmp(a, "fallback_", 9) ||
           (!strncmp(a, "lt", 2) && ((a[2] >= '0' && a[2] <= '9') || (!strncmp(a + 2, "nk", 2) && a[4] >= '0' && a[4] <= '9')));
}

static struct agg_table *agg_rep_engines(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("engines", "Engines and algorithms",
        "Per layer (fusion groups' fused layers too) with backend-API engine configurations, cuDNN fused "
        "attention or cuBLASLt algorithms: the fastest of those "
        "(engine: its file's algorithm, its configuration as the row's note gives it: the engine's global "
        "index, heuristic mode and rank, numerical notes, knobs; or cuBLASLt's algorithm id, tile, stages, "
        "split-k) vs the fastest of the layer's other benchmarks (the legacy cuDNN algorithms, cuBLAS, "
        "kernels of ours), with the kernels each ran (CUPTI); gain = uses x (other - engine), largest first.",
        "device|type|layer|op|name|uses|other|other time|other kernels|engine|engine time|engine config|"
        "engine kernels|engine/other|gain",
        "tttttituttuttru");
    int bc = agg_busy_col(t);
    int n;
    struct agg_layer_use *u = agg_layer_uses(k, 1, &n); /* fused layers too */
    for (int i = 0; i < n; i++) {
        const struct agg_cell *c = agg_best_cell(k->x, u[i].target, u[i].layer, u[i].prec, NULL);
        const struct agg_algo_time *eng = NULL, *oth = NULL;
        for (int a = 0; c && a < c->nalgos; a++) {
            const struct agg_algo_time *x = &c->algos[a];
            if (!isfinite(x->us))
                continue;
            if (agg_algo_configured(x->algo)) {
                if (!eng || x->us < eng->us)
                    eng = x;
            } else if (!oth || x->us < oth->us) {
                oth = x;
            }
        }
        if (!eng)
            continue;
        int r = agg_layer_use_row(t, k, &u[i]);
        if (oth) {
            agg_table_set_text(t, r, 6, oth->algo);
            agg_table_set_num(t, r, 7, oth->us);
            if (oth->kernels)
                agg_table_set_text(t, r, 8, oth->kernels);
            agg_table_set_num(t, r, 13, eng->us / oth->us);
            agg_table_set_num(t, r, 14, u[i].uses * (oth->us - eng->us));
        }
        agg_table_set_text(t, r, 9, eng->algo);
        agg_table_set_num(t, r, 10, eng->us);
        if (eng->config)
            agg_table_set_text(t, r, 11, eng->config);
        if (eng->kernels)
            agg_table_set_text(t, r, 12, eng->kernels);
        agg_table_set_num(t, r, bc, (eng->busy == 1) + (oth && oth->busy == 1));
    }
    free(u);
    agg_table_sort_desc(t, 14);
    return t;
}

static struct agg_table *agg_rep_fusion(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("fusion", "Layer fusion",
        "Fusion groups (gen's manifest) at their fused benchmark vs as separate layers, and the "
        "model's sequential bound unfused vs fused.",
        HEAD "groups|groups unfused|groups fused|sequential|fused|speedup", HK "iuuuur");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        if (!c->run->ngroups)
            continue;
        int r = agg_row_head(t, c);
        agg_table_set_num(t, r, bc, c->b.busy);
        agg_table_set_num(t, r, 4, c->run->ngroups);
        agg_table_set_num(t, r, 5, c->b.unfused_groups);
        agg_table_set_num(t, r, 6, c->b.fused_groups);
        agg_table_set_num(t, r, 7, c->b.seq);
        agg_table_set_num(t, r, 8, c->b.fused_seq);
        agg_table_set_num(t, r, 9, agg_ratio(c->b.seq, c->b.fused_seq));
    }
    return t;
}

static struct agg_table *agg_rep_fusion_groups(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("fusion-groups", "Fusion per group",
        "Each fusion group: the sum of its members' fastest times vs its fused benchmark's fastest; "
        "what the fused bound costs it at (bound: min(fused, its members with each of its parts fused "
        "on their own where that is faster)) and as what (bound as: the fused benchmark's algorithm, "
        "members, or members (parts fused)).",
        HEAD "group|pattern|nodes|members|fused|speedup|bound|bound as", HK "ittuurut");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        for (int g = 0; g < c->run->ngroups; g++) {
            const struct agg_group *gr = &c->run->groups[g];
            struct agg_buf names = {0};
            double members = 0;
            int all = 1, busy = agg_layer_busy(k->x, c->target->id, gr->layer, c->prec);
            for (int m = 0; m < gr->nmembers; m++) {
                int j = agg_node_pos(c->run, gr->members[m]);
                if (j < 0)
                    continue;
                const struct agg_node *n = &c->run->nodes[j];
                double us = agg_node_us(k, c, n);
                busy += c->b.node_busy[j];
                if (!isnan(us))
                    members += us;
                else if (!strcmp(n->cls, "compute"))
                    all = 0;
                agg_buf_printf(&names, "%s%s", m ? " + " : "", n->name);
            }
            double fused;
            int r = agg_row_head(t, c);
            agg_table_set_num(t, r, 4, gr->id);
            agg_table_set_num(t, r, bc, busy);
            agg_table_set_text(t, r, 5, gr->pattern);
            agg_table_set_text(t, r, 6, names.p ? names.p : "");
            if (all)
                agg_table_set_num(t, r, 7, members);
            if (agg_best(k->x, c->target->id, gr->layer, c->prec, &fused, NULL) == 0) {
                agg_table_set_num(t, r, 8, fused);
                if (all)
                    agg_table_set_num(t, r, 9, members / fused);
            }
            if (c->b.group_algo && c->b.group_algo[g] && isfinite(c->b.group_us[g])) {
                agg_table_set_num(t, r, 10, c->b.group_us[g]);
                agg_table_set_text(t, r, 11, c->b.group_algo[g]);
            }
            agg_buf_free(&names);
        }
    }
    return t;
}

const struct agg_combo *agg_find_combo(struct agg_ctx *k, const struct agg_run *r,
                                              const struct agg_target *t, const char *prec)
{
    for (int i = 0; i < k->nc; i++) {
        if (k->c[i].run == r && k->c[i].target == t && !strcmp(k->c[i].prec, prec))
            return &k->c[i];
    }
    return NULL;
}

static struct agg_table *agg_rep_precision(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("precision", "Precision and Tensor Cores",
        "Each model's bounds per type (fp32, tf32, fp16, fp16 with tensor-op math, bf16) and the "
        "speedup over fp32; compare coverage before reading a speedup: a type whose layers lack "
        "results has a smaller bound for that reason alone.",
        HEAD "covered|sequential|fused|speedup vs f32|fused speedup vs f32", HK "iuurr");
    int bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        int r = agg_row_head(t, c);
        agg_table_set_num(t, r, 4, c->b.covered);
        agg_table_set_num(t, r, 5, c->b.seq);
        agg_table_set_num(t, r, 6, c->b.fused_seq);
        const struct agg_combo *base = agg_find_combo(k, c->run, c->target, "f32");
        agg_table_set_num(t, r, bc, c->b.busy + (base && base != c ? base->b.busy : 0));
        if (base) {
            agg_table_set_num(t, r, 7, agg_ratio(base->b.seq, c->b.seq));
            agg_table_set_num(t, r, 8, agg_ratio(base->b.fused_seq, c->b.fused_seq));
        }
    }
    return t;
}

static struct agg_table *agg_rep_precision_layers(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("precision-layers", "Precision per layer",
        "Each layer's fastest time per type and its speedup over fp32 (devices with more than one type).",
        "device|type|layer|op|name|uses|time|algorithm|speedup vs f32", "tttttiutr");
    int bc = agg_busy_col(t);
    int n;
    struct agg_layer_use *u = agg_layer_uses(k, 0, &n);
    for (int i = 0; i < n; i++) {
        const struct agg_target *tg = agg_target_by_id(k->x, u[i].target);
        double us, base;
        const char *algo;
        if (tg->nprecs < 2 || agg_best(k->x, u[i].target, u[i].layer, u[i].prec, &us, &algo))
            continue;
        int r = agg_layer_use_row(t, k, &u[i]);
        agg_table_set_num(t, r, 6, us);
        agg_table_set_text(t, r, 7, algo);
        int busy = agg_layer_busy(k->x, u[i].target, u[i].layer, u[i].prec);
        if (agg_best(k->x, u[i].target, u[i].layer, "f32", &base, NULL) == 0) {
            agg_table_set_num(t, r, 8, base / us);
            busy += strcmp(u[i].prec, "f32") && agg_layer_busy(k->x, u[i].target, u[i].layer, "f32");
        }
        agg_table_set_num(t, r, bc, busy);
    }
    free(u);
    return t;
}

/* The precision a framework's row is held against: on a GPU, f16 and bf16 in a framework run
 * on Tensor Cores and tf32 is Tensor Core math by definition (f16+tensor_op, ...); a CPU's
 * types are plain. */
static void agg_measured_prec(const struct agg_target *t, const char *dtype, char *out, size_t n)
{
    int tc = !strcmp(t->backend, "cuda") && (!strcmp(dtype, "f16") || !strcmp(dtype, "bf16") || !strcmp(dtype, "tf32"));
    snprintf(out, n, "%s%s", dtype, tc ? "+tensor_op" : "");
}

static const struct agg_combo *agg_combo_for_measured(struct agg_ctx *k, const struct agg_measured *m)
{
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        char prec[64];
        agg_measured_prec(c->target, m->dtype, prec, sizeof(prec));
        if (!strcmp(c->run->model, m->model) && c->run->batch == m->batch &&
            !strcmp(c->prec, prec) && !strcmp(c->target->device, m->device) &&
            (strcmp(c->target->backend, "cpu") || c->target->threads == m->threads))
            return c;
    }
    return NULL;
}

/* The check of a bound against what a framework achieved: a bound above it is no bound */
static const char agg_not_a_bound[] = "NOT A BOUND: above measured";

/* A framework figure that is a profiler's sum of kernel durations (scripts/measure-torch's
 * "kernels" mode), not a wall-clock latency: it holds no gap between kernels, so it is held
 * against the bound on the kernel clock where every time has one */
static int agg_kernel_sum(const char *framework)
{
    size_t n = strlen(framework);
    return n >= 8 && !strcmp(framework + n - 8, " kernels");
}

/* NAME is one of LIST's SEP-separated items */
static int agg_in_sep_list(const char *list, const char *name, int sep)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, sep);
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* The index of the node of run R named NAME (its first LEN bytes), or -1. "#I" (I decimal
 * digits) names the manifest's node I where that node has no name (measure-ort's name for a
 * model node without one: its place in the file) */
static int agg_node_named(const struct agg_run *r, const char *name, size_t len)
{
    for (int j = 0; j < r->nnodes; j++)
        if (strlen(r->nodes[j].name) == len && !strncmp(r->nodes[j].name, name, len))
            return j;
    if (len < 2 || len > 10 || name[0] != '#')
        return -1;
    long idx = 0;
    for (size_t k = 1; k < len; k++) {
        if (name[k] < '0' || name[k] > '9')
            return -1;
        idx = idx * 10 + (name[k] - '0');
    }
    int j = idx < r->npos ? r->pos[idx] : -1;
    return j >= 0 && !r->nodes[j].name[0] ? j : -1;
}


/* The bound of a framework row's node column: one node's name, or several joined by '+' (a
 * module that is several nodes of gen's model, as measure-torch gives a Linear: MatMul + Add).
 * Several: the sum of their computing nodes' fastest times, where the list holds every
 * computing member of a fusion group that group's cost in the fused bound in place of its
 * members' (on both clocks). One: that node's own time. *op: the node's op, the group's pattern
 * where the list is one group's members, else the ops joined by '+'; *algo (ALGON bytes): the
 * algorithms behind the time, each once, joined by '+' (a group at its members' sum
 * "members"), "-" where none; *busy: a time behind it was taken on a busy machine. -1 when a
 * name is not a node of the run. */
static void agg_add_name(char *list, size_t n, const char *name)
{
    size_t have = strlen(list);
    if (name && !agg_in_sep_list(list, name, '+') && have + strlen(name) + 2 <= n)
        snprintf(list + have, n - have, "%s%s", have ? "+" : "", name);
}

/* REASON added to WHY (N bytes), "; " between reasons, each once */
static void agg_why_add(char *why, size_t n, const char *reason)
{
    size_t have = strlen(why);
    if (!strstr(why, reason) && have + strlen(reason) + 3 <= n)
        snprintf(why + have, n - have, "%s%s", have ? "; " : "", reason);
}

/* a precision's storage type: f16+tensor_op -> f16, tf32 -> f32 */
static void agg_storage(const char *prec, char *out, size_t n)
{
    const char *plus = strchr(prec, '+');
    snprintf(out, n, "%.*s", (int)(plus ? (size_t)(plus - prec) : strlen(prec)), prec);
    if (!strcmp(out, "tf32"))
        snprintf(out, n, "f32");
}

/* Why a node's time may sit above a framework's: the algorithm ALGO behind it, in precision
 * USED ("" none) for the bound's PREC: a row of another storage type (the layer has none in
 * PREC's), a kernel of ours (algorithm kernel, kernel_split, nhwc_kernel; c_plain, a plain C file, or
 * c:plain, its impl column where the file's name has another form), or the fastest library
 * configuration benanza benchmarked */
static void agg_why_node(char *why, size_t n, const char *algo, const char *used, const char *prec)
{
    char a[24], b[24], text[160];
    agg_storage(used, a, sizeof(a));
    agg_storage(prec, b, sizeof(b));
    if (*used && strcmp(used, "*") && strcmp(a, b)) {
        snprintf(text, sizeof(text), "counted at %s (no %s row)", used, b);
        agg_why_add(why, n, text);
    }
    if (!algo)
        return;
    if (strstr(algo, "kernel") || !strcmp(algo, "c_plain") || !strcmp(algo, "c:plain"))
        snprintf(text, sizeof(text), "a kernel of ours (%s): benanza's code to speed up", algo);
    else
        snprintf(text, sizeof(text), "the fastest library configuration benchmarked (%s): the framework runs one "
                                     "benanza does not benchmark", algo);
    agg_why_add(why, n, text);
}

/* and a group's: at its members' sum because its fused benchmark has no ok row or is slower,
 * else its fused row's algorithm */
static void agg_why_group(char *why, size_t n, const struct agg_combo *c, int g)
{
    if (strncmp(c->b.group_algo[g], "members", 7) != 0) {
        agg_why_node(why, n, c->b.group_algo[g], "", c->prec);
        return;
    }
    agg_why_add(why, n, c->b.group_fused[g] == 1 ? "a fusion group at its members' sum: its fused benchmark is slower"
                        : c->b.group_fused[g] == 2
                            ? "a fusion group at its members' sum: its fused benchmark has ok rows only in the other layout"
                            : "a fusion group at its members' sum: its fused benchmark has no ok row");
    if (strcmp(c->b.group_algo[g], "members") != 0)
        agg_why_add(why, n, "its parts fused on their own (a convolution with its batch norm folded, a SiLU as a silu group, "
                            "a GEMM with its bias, an attention's two products as GEMMs on the heads in place) counted at "
                            "those layers' times");
}

/* Marks in IN (the run's nnodes + 1 bytes) the nodes LIST names, several joined by '+', and adds
 * each node's op to OP (OPN bytes; NULL: none), each op once; -1 when a name is no node of R */
static int agg_mark_nodes(const struct agg_run *r, const char *list, char *in, char *op, size_t opn)
{
    for (const char *p = list;;) {
        const char *e = strchr(p, '+');
        int at = agg_node_named(r, p, e ? (size_t)(e - p) : strlen(p));
        if (at < 0)
            return -1;
        if (!in[at] && op)
            agg_add_name(op, opn, r->nodes[at].op);
        in[at] = 1;
        if (!e)
            return 0;
        p = e + 1;
    }
}

static int agg_nodes_bound(const struct agg_combo *c, const char *list, double *us, double *kus, char *op,
                           size_t opn, char *algo, size_t algon, char *why, size_t whyn, int *busy)
{
    const struct agg_run *r = c->run;
    int n = r->nnodes, one = agg_node_named(r, list, strlen(list)); /* a name may hold a '+' itself */
    algo[0] = why[0] = '\0';
    if (one >= 0) {
        *us = c->b.node_us[one];
        *kus = c->b.node_kus[one];
        *busy = c->b.node_busy[one];
        snprintf(op, opn, "%s", r->nodes[one].op);
        snprintf(algo, algon, "%s", c->b.node_algo[one] ? c->b.node_algo[one] : "-");
        agg_why_node(why, whyn, c->b.node_algo[one], c->b.node_prec[one], c->prec);
        return 0;
    }
    char *in = agg_xcalloc((size_t)n + 1, 1);
    op[0] = '\0';
    if (agg_mark_nodes(r, list, in, op, opn)) {
        free(in);
        return -1;
    }
    char *done = agg_xcalloc((size_t)n + 1, 1);
    int groups = 0, grouped = 0, computing = 0, whole = -1;
    *us = *kus = 0;
    *busy = 0;
    for (int g = 0; g < r->ngroups; g++) {
        const struct agg_group *gr = &r->groups[g];
        int all = 1, members = 0;
        for (int m = 0; m < gr->nmembers && all; m++) {
            int q = agg_node_pos(r, gr->members[m]);
            if (q < 0 || strcmp(r->nodes[q].cls, "compute"))
                continue;
            members++;
            all = in[q];
        }
        if (!all || !members)
            continue;
        *us += c->b.group_us[g];
        *kus += c->b.group_kus[g];
        agg_add_name(algo, algon, c->b.group_algo[g]);
        agg_why_group(why, whyn, c, g);
        for (int m = 0; m < gr->nmembers; m++) {
            int q = agg_node_pos(r, gr->members[m]);
            if (q >= 0 && !strcmp(r->nodes[q].cls, "compute")) {
                done[q] = 1;
                *busy |= c->b.node_busy[q];
                grouped++;
            }
        }
        groups++;
        whole = g;
    }
    for (int j = 0; j < n; j++) {
        if (!in[j] || strcmp(r->nodes[j].cls, "compute"))
            continue;
        computing++;
        if (done[j])
            continue;
        *us += c->b.node_us[j];
        *kus += c->b.node_kus[j];
        agg_add_name(algo, algon, c->b.node_algo[j]);
        agg_why_node(why, whyn, c->b.node_algo[j], c->b.node_prec[j], c->prec);
        *busy |= c->b.node_busy[j];
    }
    if (groups == 1 && grouped == computing)
        snprintf(op, opn, "%s", r->groups[whole].pattern);
    if (!computing)
        *us = *kus = NAN;
    if (!algo[0])
        snprintf(algo, algon, "-");
    free(in);
    free(done);
    return 0;
}

/* Union-find over the framework rows: the root of row I's set */
static int agg_set_root(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* The framework rows held together (UP, a union-find over k->x->measured): rows of one
 * framework and combination that each hold part of a fusion group the fused bound costs as one
 * (its fused benchmark, or its parts fused: not "members"), as a framework's modules split a
 * Conv + BatchNormalization + Relu or an Add + LayerNormalization that benanza counts as one
 * kernel. Each row's node time alone would be the node's unfused one, which the fused bound
 * does not count. A row holding a whole group, and a row naming one node whose name holds a
 * '+' (the joined list could not be read back), stay as they are. */
static void agg_framework_sets(struct agg_ctx *k, int *up)
{
    struct agg_map owner = {0}; /* "combo\x1fframework\x1fgroup" -> first row + 1 */
    for (int i = 0; i < k->x->nmeasured; i++) {
        up[i] = i;
        const struct agg_measured *m = &k->x->measured[i];
        const struct agg_combo *c = *m->node ? agg_combo_for_measured(k, m) : NULL;
        if (!c)
            continue;
        const struct agg_run *r = c->run;
        if (strchr(m->node, '+') && agg_node_named(r, m->node, strlen(m->node)) >= 0)
            continue;
        char *in = agg_xcalloc((size_t)r->nnodes + 1, 1);
        int ok = agg_mark_nodes(r, m->node, in, NULL, 0) == 0;
        for (int g = 0; ok && g < r->ngroups; g++) {
            if (!c->b.group_algo[g] || !strcmp(c->b.group_algo[g], "members"))
                continue;
            int touch = 0, all = 1;
            for (int q = 0; q < r->groups[g].nmembers; q++) {
                int at = agg_node_pos(r, r->groups[g].members[q]);
                if (at >= 0 && !strcmp(r->nodes[at].cls, "compute")) {
                    touch |= in[at];
                    all &= in[at];
                }
            }
            if (!touch || all) /* a row holding the whole group is held against it alone */
                continue;
            char *key = agg_xprintf("%ld\x1f%s\x1f%d", (long)(c - k->c), m->framework, g);
            intptr_t first = (intptr_t)agg_map_get(&owner, key);
            if (first) { /* the earlier row's set takes this one's: the smaller index the root */
                int a = agg_set_root(up, (int)first - 1), b = agg_set_root(up, i);
                up[a > b ? a : b] = a < b ? a : b;
            } else {
                agg_map_put(&owner, key, (void *)(intptr_t)(i + 1));
            }
            free(key);
        }
        free(in);
    }
    agg_map_free(&owner, NULL);
}

/* One framework-layers row: a framework row of a node (or the root of its set, UP) held against
 * the bound, on the clock the framework report uses for that framework */
struct agg_fw_layer {
    const struct agg_combo *c; /* NULL: no bound for its model, batch, type and device */
    char *nodes;               /* the set's node lists joined by '+' */
    double measured, us;       /* their times summed; the bound (NAN: none) */
    int found, kclock, busy;   /* found: every name is a node of the run */
    char op[128], algo[160], why[480];
};

/* Measured row I as a framework-layers row; L->nodes NULL where it is none (a whole model's
 * row, or a row whose set another row leads) */
static void agg_fw_layer_eval(struct agg_ctx *k, int *up, int i, struct agg_fw_layer *L)
{
    const struct agg_measured *m = &k->x->measured[i];
    memset(L, 0, sizeof(*L));
    if (!*m->node || agg_set_root(up, i) != i)
        return;
    /* the set's rows (this one first): their nodes joined, their times summed */
    L->nodes = agg_xstrdup(m->node);
    L->measured = m->latency_us;
    for (int j = i + 1; j < k->x->nmeasured; j++) {
        if (agg_set_root(up, j) != i)
            continue;
        char *more = agg_xprintf("%s+%s", L->nodes, k->x->measured[j].node);
        free(L->nodes);
        L->nodes = more;
        L->measured += k->x->measured[j].latency_us;
    }
    L->c = agg_combo_for_measured(k, m);
    double kus = NAN;
    L->us = NAN;
    L->found = L->c && agg_nodes_bound(L->c, L->nodes, &L->us, &kus, L->op, sizeof(L->op), L->algo, sizeof(L->algo),
                                       L->why, sizeof(L->why), &L->busy) == 0;
    L->kclock = L->found && agg_kernel_sum(m->framework) && !isnan(kus);
    if (L->kclock)
        L->us = kus;
}

/* Every measured row as agg_fw_layer_eval makes it (k->x->nmeasured of them; free with
 * agg_fw_layers_free) */
static struct agg_fw_layer *agg_fw_layers(struct agg_ctx *k)
{
    int n = k->x->nmeasured;
    int *up = agg_xmalloc(((size_t)n + 1) * sizeof(int));
    struct agg_fw_layer *all = agg_xcalloc((size_t)n + 1, sizeof(*all));
    agg_framework_sets(k, up);
    for (int i = 0; i < n; i++)
        agg_fw_layer_eval(k, up, i, &all[i]);
    free(up);
    return all;
}

static void agg_fw_layers_free(struct agg_ctx *k, struct agg_fw_layer *all)
{
    for (int i = 0; i < k->x->nmeasured; i++)
        free(all[i].nodes);
    free(all);
}

/* a framework-layers row above the framework's time: one that makes the bound no bound */
static int agg_fw_layer_above(const struct agg_fw_layer *L)
{
    return L->found && !isnan(L->us) && L->us > L->measured;
}

/* The framework report's columns 15 to 18 for the whole-model row M (bound C), in table T's row
 * R, from the framework-layers rows ALL of M's framework and bound: how many are above the
 * framework's time, their summed excess, and the op whose rows hold the most of it. Nothing
 * where the framework timed no node. */
static void agg_fw_excess(struct agg_ctx *k, const struct agg_fw_layer *all, const struct agg_measured *m,
                          const struct agg_combo *c, struct agg_table *t, int r)
{
    int n = k->x->nmeasured, rows = 0, above = 0, nops = 0;
    double excess = 0;
    struct {
        const char *op;
        double excess;
    } *ops = agg_xcalloc((size_t)n + 1, sizeof(*ops));
    for (int i = 0; i < n; i++) {
        const struct agg_fw_layer *L = &all[i];
        if (!L->nodes || L->c != c || strcmp(k->x->measured[i].framework, m->framework))
            continue;
        rows++;
        if (!agg_fw_layer_above(L))
            continue;
        above++;
        excess += L->us - L->measured;
        int o = 0;
        while (o < nops && strcmp(ops[o].op, L->op))
            o++;
        if (o == nops)
            ops[nops++].op = L->op;
        ops[o].excess += L->us - L->measured;
    }
    if (rows) {
        agg_table_set_num(t, r, 15, above);
        agg_table_set_num(t, r, 16, excess);
        int most = -1;
        for (int o = 0; o < nops; o++)
            if (most < 0 || ops[o].excess > ops[most].excess)
                most = o;
        if (most >= 0) {
            agg_table_set_text(t, r, 17, ops[most].op);
            agg_table_set_num(t, r, 18, ops[most].excess);
        }
    }
    free(ops);
}

static struct agg_table *agg_rep_framework(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("framework", "Framework vs lower bound",
        "A framework's measured end-to-end latency (measured.csv) beside the lower bound on the same "
        "device, type, batch and threads (on a GPU a framework's f16, bf16 and tf32 are held against the "
        "Tensor Core precisions); overhead = measured - fused bound: the time no layer explains. check: "
        "a fused bound above the measured time is no bound, and says so (a negative overhead never "
        "stands without it). clock: the bound's times are the benchmarks' medians (the GPU's time per "
        "launch, back to back), or for a framework's kernel-time sum (a profiler's, such as "
        "measure-torch's kernels mode) their kernel_us, CUPTI's kernel durations alike (the bound "
        "report's kernels columns). Where the framework also timed nodes (its framework-layers rows "
        "of the same model, batch, type, device and, on a CPU, threads): layers above, how many of "
        "those rows have a bound above the framework's own time for them (framework-layers' NOT A "
        "BOUND rows, each with its why); their excess, the sum of their bound - measured; most excess "
        "op, the op column shared by the rows that hold the most of that sum (an op, a fusion "
        "pattern, or a row's ops joined by '+'), and its excess. Empty where the framework timed no "
        "node; the op empty where no row is above.",
        HEAD "framework|threads|measured|bound|fused bound|measured/fused bound|overhead|overhead share|note|check|clock"
             "|layers above|their excess|most excess op|its excess",
        HK "tiuuurupt" "tt" "iutu");
    int bc = agg_busy_col(t);
    struct agg_fw_layer *all = agg_fw_layers(k);
    for (int i = 0; i < k->x->nmeasured; i++) {
        const struct agg_measured *m = &k->x->measured[i];
        if (*m->node)
            continue;
        const struct agg_combo *c = agg_combo_for_measured(k, m);
        int r = agg_table_row(t);
        agg_table_set_text(t, r, 0, m->model);
        agg_table_set_num(t, r, 1, (double)m->batch);
        agg_table_set_text(t, r, 2, m->dtype);
        agg_table_set_text(t, r, 3, c ? c->target->label : m->device);
        agg_table_set_text(t, r, 4, m->framework);
        agg_table_set_num(t, r, 5, (double)m->threads);
        agg_table_set_num(t, r, 6, m->latency_us);
        if (!c) {
            agg_table_set_text(t, r, 12, "no lower bound for this model, batch, type and device");
            continue;
        }
        int kclock = agg_kernel_sum(m->framework) && !isnan(c->b.kernel_fused_seq);
        double seq = kclock ? c->b.kernel_seq : c->b.seq, fused = kclock ? c->b.kernel_fused_seq : c->b.fused_seq;
        agg_table_set_num(t, r, bc, c->b.busy);
        agg_table_set_num(t, r, 7, seq);
        agg_table_set_num(t, r, 8, fused);
        agg_table_set_num(t, r, 9, agg_ratio(m->latency_us, fused));
        agg_table_set_num(t, r, 10, m->latency_us - fused);
        agg_table_set_num(t, r, 11, 100 * (m->latency_us - fused) / m->latency_us);
        if (c->b.covered < c->b.computing)
            agg_table_set_text(t, r, 12, "bound misses layers (see missing)");
        else if (agg_kernel_sum(m->framework) && !kclock)
            agg_table_set_text(t, r, 12, "a kernel-time sum held against medians: some time has no kernel_us");
        agg_table_set_text(t, r, 13, fused > m->latency_us ? agg_not_a_bound : "ok");
        agg_table_set_text(t, r, 14, kclock ? "kernels" : "median");
        agg_fw_excess(k, all, m, c, t, r);
    }
    agg_fw_layers_free(k, all);
    return t;
}

static struct agg_table *agg_rep_framework_layers(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("framework-layers", "Framework vs lower bound per layer",
        "Per-node kernel times from measured.csv (its node column) beside the node's fastest benchmark, "
        "on the clock the framework report uses for the same framework (a kernel-time sum against "
        "kernel_us where the node has it; clock says which). A framework module that is several nodes (node A+B+...) is held against their "
        "sum, a fusion group whose computing members it holds all at the group's cost in the fused bound "
        "(op: the group's pattern); rows that each hold part of a group the fused bound costs as one (a "
        "framework's Conv, BatchNormalization and Relu modules where benanza runs one fused convolution) "
        "are one row, their nodes joined and their times summed. algorithm: the benchmarks behind the bound (members: a group at "
        "its members' sum; kernel: a kernel of ours). check: a benchmark slower than the framework's "
        "own kernels for the node makes the model's bound no bound; why, on such a row, says what sets "
        "the bound there: a kernel of ours (benanza's code to speed up), the fastest library "
        "configuration benchmarked (the framework runs one benanza does not benchmark), a fusion group "
        "at its members' sum (its fused benchmark slower, or without an ok row), a row of another "
        "storage type (the layer has none in the bound's).",
        HEAD "framework|node|op|measured|bound|measured/bound|gap|check|clock|algorithm|why", HK "tttuuru" "tttt");
    int bc = agg_busy_col(t);
    struct agg_fw_layer *all = agg_fw_layers(k);
    for (int i = 0; i < k->x->nmeasured; i++) {
        const struct agg_measured *m = &k->x->measured[i];
        const struct agg_fw_layer *L = &all[i];
        if (!L->nodes)
            continue;
        int r = agg_table_row(t);
        agg_table_set_text(t, r, 0, m->model);
        agg_table_set_num(t, r, 1, (double)m->batch);
        agg_table_set_text(t, r, 2, m->dtype);
        agg_table_set_text(t, r, 3, L->c ? L->c->target->label : m->device);
        agg_table_set_text(t, r, 4, m->framework);
        agg_table_set_text(t, r, 5, L->nodes);
        agg_table_set_num(t, r, 7, L->measured);
        if (!L->found)
            continue;
        agg_table_set_text(t, r, 6, L->op);
        agg_table_set_text(t, r, 13, L->algo);
        agg_table_set_text(t, r, 12, L->kclock ? "kernels" : "median");
        agg_table_set_num(t, r, bc, L->busy);
        agg_table_set_num(t, r, 8, L->us);
        agg_table_set_num(t, r, 9, agg_ratio(L->measured, L->us));
        if (!isnan(L->us)) {
            agg_table_set_num(t, r, 10, L->measured - L->us);
            agg_table_set_text(t, r, 11, agg_fw_layer_above(L) ? agg_not_a_bound : "ok");
            if (agg_fw_layer_above(L))
                agg_table_set_text(t, r, 14, L->why);
        }
    }
    agg_fw_layers_free(k, all);
    agg_table_sort_desc(t, 10);
    return t;
}

static struct agg_table *agg_rep_devices(struct agg_ctx *k)
{
    if (k->x->ntargets < 2)
        return NULL;
    struct agg_table *t = agg_new("devices", "Across devices",
        "The fused lower bound of each model on every device (and library version) side by side, "
        "with the ratio to the first device: below 1 is faster.",
        "model|batch|type", "tit");
    for (int d = 0; d < k->x->ntargets; d++) {
        char *c1 = agg_xprintf("%s", k->x->targets[d].label);
        agg_table_add_col(t, c1, AGG_COL_US);
        free(c1);
        if (d) {
            char *c2 = agg_xprintf("ratio %d/1", d + 1);
            agg_table_add_col(t, c2, AGG_COL_RATIO);
            free(c2);
        }
    }
    int bc = agg_busy_col(t);
    /* one row per run x precision found on any device */
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = k->c[j].run == c->run && !strcmp(k->c[j].prec, c->prec);
        if (dup)
            continue;
        int r = agg_table_row(t);
        agg_table_set_text(t, r, 0, c->run->model);
        agg_table_set_num(t, r, 1, (double)c->run->batch);
        agg_table_set_text(t, r, 2, c->prec);
        double first = NAN;
        int busy = 0;
        for (int d = 0, col = 3; d < k->x->ntargets; d++) {
            const struct agg_combo *o = agg_find_combo(k, c->run, &k->x->targets[d], c->prec);
            double v = o ? o->b.fused_seq : NAN;
            busy += o ? o->b.busy : 0;
            agg_table_set_num(t, r, bc, busy);
            if (d == 0)
                first = v;
            agg_table_set_num(t, r, col++, v);
            if (d)
                agg_table_set_num(t, r, col++, agg_ratio(v, first));
        }
    }
    return t;
}

/* The two top tables: per model, the nodes' fastest times summed by layer or by operator type,
 * each row counting its nodes, ranked largest first with each row's share of the bound */
static void agg_top_rows(struct agg_ctx *k, struct agg_table *t, int by_op)
{
    int count = by_op ? 5 : 8, total = by_op ? 6 : 10, bc = agg_busy_col(t);
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        struct agg_map seen = {0};
        int first = t->nrows;
        for (int j = 0; j < c->run->nnodes; j++) {
            const struct agg_node *n = &c->run->nodes[j];
            double us = agg_node_us(k, c, n);
            if (isnan(us))
                continue;
            const char *key = by_op ? n->op : n->layer;
            intptr_t at = (intptr_t)agg_map_get(&seen, key);
            if (!at) {
                int r = agg_row_head(t, c);
                if (by_op) {
                    agg_table_set_text(t, r, 4, n->op);
                } else {
                    const struct agg_layer_info *l = agg_map_get(&k->x->layers, n->layer);
                    agg_table_set_text(t, r, 5, n->layer);
                    agg_table_set_text(t, r, 6, n->op);
                    agg_table_set_text(t, r, 7, l ? l->name : "");
                    agg_table_set_num(t, r, 9, us);
                }
                agg_table_set_num(t, r, count, 0);
                agg_table_set_num(t, r, total, 0);
                agg_table_set_num(t, r, bc, 0);
                at = r + 1;
                agg_map_put(&seen, key, (void *)at);
            }
            struct agg_cellv *row = &t->cells[(size_t)(at - 1) * (size_t)t->ncols];
            row[count].v += 1;
            row[total].v += us;
            row[bc].v += c->b.node_busy[j];
        }
        agg_map_free(&seen, NULL);
        agg_rank_rows(t, first, total, total + 1, by_op ? -1 : 4, c->b.seq);
    }
}

static struct agg_table *agg_rep_top_layers(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("top-layers", "Where the time goes: layers",
        "Per model: each layer's total (uses x fastest time) and its share of the sequential bound, largest first.",
        HEAD "rank|layer|op|name|uses|time per use|total|share", HK "itttiuup");
    agg_top_rows(k, t, 0);
    return t;
}

static struct agg_table *agg_rep_top_ops(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("top-ops", "Where the time goes: operator types",
        "Per model: the time of each operator type over its nodes at their fastest, largest first.",
        HEAD "op|nodes|total|share", HK "tiup");
    agg_top_rows(k, t, 1);
    return t;
}

static const struct {
    const char *name;
    struct agg_table *(*build)(struct agg_ctx *);
} agg_reports[] = {
    {"bound", agg_rep_bound},
    {"missing", agg_rep_missing},
    {"path", agg_rep_path},
    {"algo", agg_rep_algo},
    {"algo-layers", agg_rep_algo_layers},
    {"engines", agg_rep_engines},
    {"fusion", agg_rep_fusion},
    {"fusion-groups", agg_rep_fusion_groups},
    {"precision", agg_rep_precision},
    {"precision-layers", agg_rep_precision_layers},
    {"framework", agg_rep_framework},
    {"framework-layers", agg_rep_framework_layers},
    {"devices", agg_rep_devices},
    {"top-layers", agg_rep_top_layers},
    {"top-ops", agg_rep_top_ops},
    {"roofline", agg_rep_roofline},
    {"roofline-models", agg_rep_roofline_models},
    {"predict", agg_rep_predict},
    {"prediction", agg_rep_prediction},
};
#define AGG_NREPORTS ((int)(sizeof(agg_reports) / sizeof(agg_reports[0])))
_Static_assert(AGG_NREPORTS <= AGG_MAX_REPORTS, "AGG_MAX_REPORTS too small");

const char *agg_report_names(void)
{
    return "bound, missing, path, algo, algo-layers, engines, fusion, fusion-groups, precision, "
           "precision-layers, framework, framework-layers, devices, top-layers, top-ops, roofline, "
           "roofline-models, predict, prediction";
}


/* only: NULL or "all" for every report, else a comma-separated list; returns the number of
 * tables, or -1 when a name is unknown */
int agg_reports_build(const struct agg_data *x, const char *only, struct agg_table **out)
{
    if (only && strcmp(only, "all")) {
        for (const char *p = only; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int ok = 0;
            for (int i = 0; i < AGG_NREPORTS; i++)
                ok |= strlen(agg_reports[i].name) == len && !strncmp(agg_reports[i].name, p, len);
            if (!ok) {
                fprintf(stderr, "agg: error: unknown report '%.*s' (reports: %s)\n", (int)len, p,
                        agg_report_names());
                return -1;
            }
            p = e ? e + 1 : p + len;
        }
    }
    struct agg_ctx k = {x, NULL, 0};
    int cap = 0;
    for (int i = 0; i < x->nruns; i++) {
        for (int j = 0; j < x->ntargets; j++) {
            const struct agg_target *t = &x->targets[j];
            for (int p = 0; p < t->nprecs; p++) {
                struct agg_bound b;
                if (agg_bound_compute(x, &x->runs[i], t, t->precs[p], &b)) {
                    agg_bound_free(&b);
                    continue;
                }
                if (k.nc == cap) {
                    cap = cap ? cap * 2 : 16;
                    k.c = agg_xrealloc(k.c, (size_t)cap * sizeof(*k.c));
                }
                k.c[k.nc++] = (struct agg_combo){&x->runs[i], t, t->precs[p], b};
            }
        }
    }
    int n = 0;
    for (int i = 0; i < AGG_NREPORTS; i++) {
        if (only && strcmp(only, "all") && !agg_in_sep_list(only, agg_reports[i].name, ','))
            continue;
        struct agg_table *t = agg_reports[i].build(&k);
        if (t)
            out[n++] = t;
    }
    for (int i = 0; i < k.nc; i++)
        agg_bound_free(&k.c[i].b);
    free(k.c);
    return n;
}
