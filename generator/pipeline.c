/* gen's first stages, per model and batch: load -> shapes -> layers -> fusion (then the
 * backends plan and emit: folder.c); the layer table and the manifest. */
#include "pipeline.h"

#include "fusion.h"
#include "relayout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void report_run(const struct model_run *r, struct bz_diag *diag)
{
    struct bz_buf where;
    bz_buf_init(&where);
    bz_buf_puts(&where, r->path);
    if (r->batch > 0)
        bz_buf_printf(&where, " (batch %lld)", (long long)r->batch);
    /* unsupported operators: once per op, with how many nodes and the first one */
    const struct ir_graph *g = r->m->graph;
    for (int i = 0; i < r->n_nodes; i++) {
        if (r->cls[i] != NODE_UNSUPPORTED)
            continue;
        bool first = true;
        int count = 0;
        for (int k = 0; k < r->n_nodes; k++) {
            if (r->cls[k] != NODE_UNSUPPORTED || strcmp(g->nodes[k].op_type, g->nodes[i].op_type) ||
                strcmp(g->nodes[k].domain, g->nodes[i].domain))
                continue;
            if (k < i)
                first = false;
            count++;
        }
        if (!first)
            continue;
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, &g->nodes[i]);
        bz_diag_warning(diag, where.data, "operator %s%s%s is not supported: %d node%s not benchmarked (first: %s)",
                        g->nodes[i].domain, *g->nodes[i].domain ? ":" : "", g->nodes[i].op_type, count,
                        count == 1 ? "" : "s", w.data);
        bz_buf_free(&w);
    }
    int shown = 0;
    for (int i = 0; i < r->n_nodes; i++) {
        if (r->cls[i] != NODE_UNRESOLVED)
            continue;
        if (shown++ < 5) {
            struct bz_buf w;
            bz_buf_init(&w);
            ir_node_where(&w, &g->nodes[i]);
            bz_diag_warning(diag, where.data, "%s: the shape of '%s' is not known (give --dim or --input-shape)",
                            w.data, r->why[i]);
            bz_buf_free(&w);
        }
    }
    if (shown > 5)
        bz_diag_warning(diag, where.data, "%d more nodes with unknown shapes", shown - 5);
    bz_buf_free(&where);
}

void pipeline_run(struct pipeline *p, char **models, int n_models, const int64_t *batches,
                  int n_batches, const struct shape_opts *so, const struct onnx_load_opts *lo,
                  struct bz_diag *diag, bool progress)
{
    memset(p, 0, sizeof(*p));
    layer_set_init(&p->layers);
    p->runs = bz_calloc((size_t)(n_models * n_batches) + 1, sizeof(*p->runs));
    struct bz_buf err;
    bz_buf_init(&err);
    for (int i = 0; i < n_models; i++) {
        for (int b = 0; b < n_batches; b++) {
            if (progress)
                fprintf(stderr, "\r[%d/%d] %s", i * n_batches + b + 1, n_models * n_batches, models[i]);
            struct ir_model *m;
            if (onnx_load_file(models[i], lo, &m, &err) != ONNX_LOAD_OK) {
                if (progress)
                    fputc('\n', stderr);
                bz_diag_error(diag, models[i], "%s", err.data);
                p->models_failed++;
                break;
            }
            struct shape_opts o = *so;
            o.batch = batches[b];
            struct shape_result res;
            if (progress)
                fputc('\n', stderr);
            int invalid = shape_infer(m, &o, diag, &res);
            free(res.unsupported);
            if (invalid) {
                /* nodes that break their operator's schema: said, the model is not used */
                ir_model_free(m);
                p->models_failed++;
                break;
            }
            struct model_run *r = &p->runs[p->n_runs];
            r->name = bz_model_name(models[i]);
            r->path = models[i];
            r->batch = batches[b];
            r->m = m;
            layers_add_run(&p->layers, r, p->n_runs);
            fusion_find(&p->layers, r, p->n_runs);
            p->unsupported_nodes += r->counts[NODE_UNSUPPORTED];
            p->unresolved_nodes += r->counts[NODE_UNRESOLVED];
            report_run(r, diag);
            p->n_runs++;
        }
    }
    bz_buf_free(&err);
    layers_unique_names(&p->layers);
}

void pipeline_relayouts(struct pipeline *p)
{
    for (int i = 0; i < p->n_runs; i++)
        relayout_find(&p->layers, &p->runs[i], i);
    layers_unique_names(&p->layers);
}

void pipeline_free(struct pipeline *p)
{
    for (int i = 0; i < p->n_runs; i++)
        model_run_free(&p->runs[i]);
    free(p->runs);
    layer_set_free(&p->layers);
    memset(p, 0, sizeof(*p));
}

static int cmp_layer_uses(const void *a, const void *b, void *ctx)
{
    const struct layer_set *s = ctx;
    const struct layer *x = &s->v[*(const int *)a], *y = &s->v[*(const int *)b];
    if (x->fused != y->fused)
        return x->fused - y->fused;
    int c = strcmp(x->op, y->op);
    return c ? c : strcmp(x->name, y->name);
}

void pipeline_print_layers(FILE *out, const struct pipeline *p)
{
    const struct layer_set *s = &p->layers;
    int n_fused = 0;
    for (int i = 0; i < s->n; i++)
        n_fused += s->v[i].fused;
    int *order = bz_malloc((size_t)(s->n + 1) * sizeof(int));
    for (int i = 0; i < s->n; i++)
        order[i] = i;
    qsort_r(order, (size_t)s->n, sizeof(int), cmp_layer_uses, (void *)s);
    fprintf(out, "unique layers: %d (%d single-node, %d fused groups)\n\n", s->n, s->n - n_fused, n_fused);
    fprintf(out, "%-16s  %5s  %-28s  %-60s  %s\n", "id", "uses", "op", "name", "models");
    for (int k = 0; k < s->n; k++) {
        const struct layer *l = &s->v[order[k]];
        fprintf(out, "%-16s  %5d  %-28s  %-60s  ", l->id, l->uses, l->op, l->name);
        for (int m = 0; m < l->n_models; m++) {
            const struct model_run *r = &p->runs[l->models[m]];
            /* a model at several batches is named once per batch */
            fprintf(out, "%s%s", m ? "," : "", r->name);
            if (r->batch > 0)
                fprintf(out, "@%lld", (long long)r->batch);
        }
        fputc('\n', out);
    }
    free(order);
    fprintf(out, "\nper model:\n%-52s %6s %6s %9s %6s %5s %11s %10s %7s %6s\n", "model", "batch", "nodes",
            "computing", "unique", "free", "unsupported", "unresolved", "control", "fusion");
    for (int i = 0; i < p->n_runs; i++) {
        const struct model_run *r = &p->runs[i];
        char batch[24];
        if (r->batch > 0)
            snprintf(batch, sizeof(batch), "%lld", (long long)r->batch);
        else
            snprintf(batch, sizeof(batch), "model");
        fprintf(out, "%-52s %6s %6d %9d %6d %5d %11d %10d %7d %6d\n", r->name, batch, r->n_nodes,
                r->counts[NODE_COMPUTE], r->unique_layers, r->counts[NODE_FREE], r->counts[NODE_UNSUPPORTED],
                r->counts[NODE_UNRESOLVED], r->counts[NODE_CONTROL], r->n_groups);
    }
    bool bodies = false;
    for (int i = 0; i < p->n_runs; i++) {
        const struct model_run *r = &p->runs[i];
        if (!r->body_layers && !r->body_unresolved)
            continue;
        if (!bodies)
            fprintf(out, "\ninside control-flow bodies (benchmarked as layers; not in a model's bound, as how often a "
                         "body runs is data):\n");
        bodies = true;
        fprintf(out, "%-52s %d computing nodes with a layer, %d with shapes gen does not know\n", r->name,
                r->body_layers, r->body_unresolved);
    }
}

/* names in the manifest: tab, newline, carriage return and backslash escaped */
static void tsv_escape(struct bz_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\t': bz_buf_puts(b, "\\t"); break;
        case '\n': bz_buf_puts(b, "\\n"); break;
        case '\r': bz_buf_puts(b, "\\r"); break;
        case '\\': bz_buf_puts(b, "\\\\"); break;
        default: bz_buf_putc(b, *s);
        }
    }
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* a manifest's group or part line: KIND RUN GROUP PATTERN LAYER NODE,NODE,... */
static void group_line(struct bz_buf *b, const char *kind, int run, int group, const char *pattern, const char *layer,
                       const int *nodes, int n)
{
    bz_buf_printf(b, "%s\t%d\t%d\t%s\t%s\t", kind, run, group, pattern, layer);
    for (int j = 0; j < n; j++)
        bz_buf_printf(b, "%s%d", j ? "," : "", nodes[j]);
    bz_buf_putc(b, '\n');
}

int pipeline_write_manifest(const struct pipeline *p, const char *dir)
{
    int made = bz_mkdir_p(dir);
    if (made)
        return made;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, "benanza-manifest\t1\n");
    const struct layer_set *s = &p->layers;
    for (int i = 0; i < s->n; i++) {
        const struct layer *l = &s->v[i];
        if (l->calib)
            continue; /* the machine's, not a model's */
        bz_buf_printf(&b, "layer\t%s\t%s\t", l->id, l->fused ? "fused" : "node");
        tsv_escape(&b, l->op);
        bz_buf_putc(&b, '\t');
        tsv_escape(&b, l->name);
        bz_buf_printf(&b, "\t%d\t%s\n", l->uses, l->key);
    }
    int *preds = NULL;
    size_t pcap = 0;
    for (int r = 0; r < p->n_runs; r++) {
        const struct model_run *run = &p->runs[r];
        const struct ir_graph *g = run->m->graph;
        bz_buf_printf(&b, "run\t%d\t", r);
        tsv_escape(&b, run->name);
        bz_buf_printf(&b, "\t%lld\t", (long long)run->batch);
        tsv_escape(&b, run->path);
        bz_buf_printf(&b, "\t%d\n", run->n_nodes);
        for (int i = 0; i < g->n_nodes; i++) {
            const struct ir_node *n = &g->nodes[i];
            size_t np = 0;
            for (int k = 0; k < n->n_inputs + n->n_captures; k++) {
                const struct ir_value *v = k < n->n_inputs ? n->inputs[k] : n->captures[k - n->n_inputs];
                if (!v || v->producer < 0 || v->graph != g)
                    continue;
                if (np == pcap) {
                    pcap = pcap ? pcap * 2 : 16;
                    preds = bz_realloc(preds, pcap * sizeof(int));
                }
                preds[np++] = v->producer;
            }
            if (np > 1)
                qsort(preds, np, sizeof(int), cmp_int);
            bz_buf_printf(&b, "node\t%d\t%d\t", r, i);
            tsv_escape(&b, n->op_type);
            bz_buf_printf(&b, "\t%s\t%s\t", node_class_name(run->cls[i]),
                          run->layer[i] >= 0 ? s->v[run->layer[i]].id : "-");
            if (run->group[i] >= 0)
                bz_buf_printf(&b, "%d\t", run->group[i]);
            else
                bz_buf_puts(&b, "-\t");
            size_t shown = 0;
            for (size_t k = 0; k < np; k++)
                if (k == 0 || preds[k] != preds[k - 1])
                    bz_buf_printf(&b, "%s%d", shown++ ? "," : "", preds[k]);
            if (!shown)
                bz_buf_putc(&b, '-');
            bz_buf_putc(&b, '\t');
            tsv_escape(&b, n->name);
            bz_buf_putc(&b, '\n');
        }
        for (int k = 0; k < run->n_groups; k++) {
            const struct fusion_group *fg = &run->groups[k];
            group_line(&b, "group", r, fg->id, fg->pattern, s->v[fg->layer].id, fg->nodes, fg->n_nodes);
            for (int q = 0; q < fg->n_parts; q++) {
                const struct fusion_part *pt = &fg->parts[q];
                group_line(&b, "part", r, fg->id, pt->pattern, s->v[pt->layer].id, pt->nodes, pt->n_nodes);
            }
        }
        for (int k = 0; k < run->n_relayouts; k++) {
            const struct relayout *rl = &run->relayouts[k];
            if (rl->producer >= 0)
                bz_buf_printf(&b, "relayout\t%d\t%d\t", r, rl->producer);
            else
                bz_buf_printf(&b, "relayout\t%d\t-\t", r);
            for (int pass = 0; pass < 2; pass++) {
                int shown = 0;
                for (int j = 0; j < rl->n_readers; j++)
                    if (!pass || rl->neutral[j])
                        bz_buf_printf(&b, "%s%d", shown++ ? "," : "", rl->readers[j]);
                bz_buf_puts(&b, shown ? "\t" : "-\t");
            }
            bz_buf_printf(&b, "%d\t%s\t%s\n", rl->output ? 1 : 0, s->v[rl->to_nhwc].id, s->v[rl->to_nchw].id);
        }
    }
    free(preds);
    struct bz_buf path;
    bz_buf_init(&path);
    bz_buf_printf(&path, "%s/manifest.tsv", dir);
    int err = bz_write_file_atomic(path.data, b.data, b.len);
    bz_buf_free(&path);
    bz_buf_free(&b);
    return err;
}
