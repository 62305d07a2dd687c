/* Shape inference: the driver that walks each graph in topological order and calls each
 * operator's inference (generator/ops/), and the --dim/--input-shape bindings. */
#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

/* ---- the driver ---- */

struct driver {
    const struct shape_opts *o;
    struct shape_result *res;
    bool batch_changed;
    int64_t batch_from, batch_to;
    struct ir_model *m;
    struct op_xp_memo *memo;    /* what the expansions of the main graph share */
    bool resort;                /* an expansion added nodes: the main graph is sorted again */
};

static void note_unsupported(struct driver *d, const struct ir_node *n, int top_index)
{
    struct shape_result *r = d->res;
    r->n_unsupported_nodes++;
    for (int i = 0; i < r->n_unsupported_ops; i++)
        if (strcmp(r->unsupported[i].op, n->op_type) == 0 &&
            strcmp(r->unsupported[i].domain, n->domain) == 0) {
            r->unsupported[i].count++;
            return;
        }
    r->unsupported = bz_realloc(r->unsupported, (size_t)(r->n_unsupported_ops + 1) * sizeof(*r->unsupported));
    r->unsupported[r->n_unsupported_ops++] =
        (struct shape_unsupported){n->domain, n->op_type, 1, top_index};
}

static bool type_concrete(const struct ir_type *t)
{
    if (t->kind != IR_TYPE_TENSOR || t->rank < 0 || !t->dtype)
        return false;
    for (int k = 0; k < t->rank; k++)
        if (!dim_known(t->dims[k]))
            return false;
    return true;
}

bool shape_is_resolved(const struct ir_type *t)
{
    return type_concrete(t);
}

static int infer_graph(struct infer_ctx *parent, struct ir_graph *g);

static void merge_declared(struct ir_model *m, struct ir_value *v)
{
    const struct ir_type *dc = &v->decl;
    struct ir_type *t = &v->type;
    if (dc->kind == IR_TYPE_NONE)
        return;
    if (t->kind == IR_TYPE_NONE) {
        *t = *dc;
        return;
    }
    if (t->kind != IR_TYPE_TENSOR || dc->kind != IR_TYPE_TENSOR)
        return;
    if (!t->dtype)
        t->dtype = dc->dtype;
    if (dc->rank < 0)
        return;
    if (t->rank < 0) {
        t->rank = dc->rank;
        t->dims = dc->dims;
        return;
    }
    if (t->rank != dc->rank)
        return;
    bool need = false;
    for (int k = 0; k < t->rank; k++)
        need = need || (!dim_known(t->dims[k]) && (dim_known(dc->dims[k]) || (dc->dims[k].param && !t->dims[k].param)));
    if (!need)
        return;
    struct ir_dim *nd = bz_arena_array(&m->arena, (size_t)t->rank, sizeof(*nd));
    for (int k = 0; k < t->rank; k++)
        nd[k] = dim_known(t->dims[k]) || t->dims[k].param ? t->dims[k] : dc->dims[k];
    for (int k = 0; k < t->rank; k++)
        if (!dim_known(nd[k]) && dim_known(dc->dims[k]))
            nd[k] = dc->dims[k];
    t->dims = nd;
}

/* An output no machine could hold (a dim beyond 2^40, or more than 2^52 elements: shapes
 * computed from absurd constants) is not kept: nothing downstream computes with it. */
enum { SHAPE_DIM_MAX_LOG2 = 40, SHAPE_ELEMS_MAX_LOG2 = 52 };
static void drop_oversized(struct driver *d, const struct ir_node *n, struct bz_diag *diag)
{
    for (int k = 0; k < n->n_outputs; k++) {
        struct ir_value *v = n->outputs[k];
        if (!v || v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
            continue;
        double count = 1;
        bool huge = false;
        for (int a = 0; a < v->type.rank; a++) {
            int64_t x = v->type.dims[a].value;
            if (x > ((int64_t)1 << SHAPE_DIM_MAX_LOG2))
                huge = true;
            if (x > 0)
                count *= (double)x;
        }
        if (!huge && count <= (double)((int64_t)1 << SHAPE_ELEMS_MAX_LOG2))
            continue;
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, n);
        bz_diag_warning(diag, d->m->path, "%s: output '%s' would have %.3g elements: too large to be a tensor, left "
                        "unresolved", w.data, v->name, count);
        bz_buf_free(&w);
        v->type.rank = -1;
        v->type.dims = NULL;
        v->val = NULL;
        v->sym = NULL;
        v->sym_len = -1;
    }
}

static void infer_node(struct driver *d, struct ir_graph *g, struct ir_node *n, struct bz_diag *diag,
                       int top_index);

/* Another runtime's fused operator written as ONNX nodes (ops.h, "expansions"): true when
 * C's node was replaced (the new nodes inferred in its place), false with a warning when its
 * operator's hook refused (the node stays, unsupported). */
static bool expand_node(struct driver *d, const struct op_def *def, struct infer_ctx *c, struct bz_diag *diag)
{
    struct op_xp *x = op_xp_begin(c, &d->memo);
    if (def->expand(c, x)) {
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, c->n);
        bz_diag_warning(diag, d->m->path, "%s: not written as ONNX operators: %s", w.data, op_xp_why(x));
        bz_buf_free(&w);
        op_xp_end(x);
        d->res->n_not_expanded++;
        return false;
    }
    int index = c->n->index, *made, n_made;
    op_xp_commit(x, &made, &n_made);
    op_xp_end(x);
    d->res->n_expanded++;
    d->res->n_expansion_nodes += n_made;
    d->resort = true;
    for (int i = 0; i < n_made; i++)
        infer_node(d, c->g, &c->g->nodes[made[i]], diag, index);
    free(made);
    return true;
}

static void infer_node(struct driver *d, struct ir_graph *g, struct ir_node *n, struct bz_diag *diag,
                       int top_index)
{
    struct infer_ctx c = {
        .m = d->m, .g = g, .n = n, .opset = ir_node_opset(d->m, n), .diag = diag,
        .infer_graph = infer_graph, .driver = d, .batch_from = d->batch_from, .batch_to = d->batch_to,
    };
    const struct op_def *def = op_find(n->domain, n->op_type);
    if (def && c.opset == 0 && ir_domain_is_onnx(n->domain))
        c.opset = 1;
    /* the node against its operator's schema first: no operator code reads a node that
     * breaks it (its outputs stay unknown) */
    struct bz_buf why;
    bz_buf_init(&why);
    int bad = op_check_node(n, &why);
    if (!bad && def)
        bad = op_check_shapes(n, &why);
    if (bad) {
        struct bz_buf w;
        bz_buf_init(&w);
        ir_node_where(&w, n);
        if (bad < 0) {
            bz_diag_error(diag, d->m->path, "%s: %s", w.data, why.data);
            d->res->n_invalid++;
        } else {
            bz_diag_warning(diag, d->m->path, "%s: %s: its outputs stay unresolved", w.data, why.data);
        }
        bz_buf_free(&w);
        bz_buf_free(&why);
        return;
    }
    bz_buf_free(&why);
    if (def && def->expand && !g->parent && expand_node(d, def, &c, diag))
        return; /* N is gone: its nodes took its place, inferred */
    if (def)
        def->infer(&c);
    if (c.failed) {
        /* inference gave up on this node (said): what it set of its outputs is not to be
         * trusted (a Reshape to a batch-1 constant after -b 2 would carry batch 1 onwards and
         * mix batches); its outputs stay unknown, and the nodes after it unresolved */
        for (int k = 0; k < n->n_outputs; k++) {
            struct ir_value *v = n->outputs[k];
            if (!v)
                continue;
            v->type.rank = -1;
            v->type.dims = NULL;
            v->val = NULL;
            v->sym = NULL;
            v->sym_len = -1;
        }
    }
    drop_oversized(d, n, diag);
    if (!def || (def->flags & OP_FOREIGN))
        note_unsupported(d, n, top_index);
    /* What the exporter declared fills what inference cannot say (as onnx merges
     * value_info), unless the batch was changed: then declarations are stale. */
    for (int k = 0; k < n->n_outputs && !d->batch_changed; k++) {
        struct ir_value *v = n->outputs[k];
        if (v)
            merge_declared(d->m, v);
    }
    for (int k = 0; k < n->n_outputs; k++) {
        struct ir_value *v = n->outputs[k];
        if (!v || d->batch_changed || !type_concrete(&v->decl) || !type_concrete(&v->type))
            continue;
        bool same = v->decl.rank == v->type.rank && v->decl.dtype == v->type.dtype;
        for (int a = 0; same && a < v->type.rank; a++)
            same = v->decl.dims[a].value == v->type.dims[a].value;
        if (!same) {
            struct bz_buf b, x, y;
            bz_buf_init(&b);
            bz_buf_init(&x);
            bz_buf_init(&y);
            ir_node_where(&b, n);
            ir_type_format(&x, &v->type);
            ir_type_format(&y, &v->decl);
            bz_diag_warning(diag, d->m->path, "%s: output '%s' is inferred as %s but declared as %s",
                            b.data, v->name, x.data, y.data);
            bz_buf_free(&b);
            bz_buf_free(&x);
            bz_buf_free(&y);
            d->res->n_conflicts++;
        }
    }
}

static void reset_graph(struct ir_graph *g)
{
    for (int i = 0; i < g->n_values; i++) {
        struct ir_value *v = g->values[i];
        if (v->init)
            v->val = v->init;
        if (v->producer >= 0) {
            memset(&v->type, 0, sizeof(v->type));
            v->type.rank = -1;
            v->sym = NULL;
            v->sym_len = -1;
            if (!v->init)
                v->val = NULL;
        }
    }
}

static int infer_graph(struct infer_ctx *parent, struct ir_graph *g)
{
    struct driver *d = parent->driver;
    reset_graph(g);
    /* an expansion adds nodes to the main graph as it goes: the walk is over the nodes and the
     * order it started with (the original's place is taken by one of its nodes, the others are
     * inferred by the expansion), sorted again at the end */
    const int *order = g->topo;
    int n = g->n_nodes;
    for (int i = 0; i < n; i++)
        infer_node(d, g, &g->nodes[order[i]], parent->diag, parent->n ? parent->n->index : g->nodes[order[i]].index);
    if (!g->parent && d->resort) {
        int placed = ir_graph_sort(d->m, g, NULL);
        BZ_ASSERT(placed == g->n_nodes); /* an expansion reads only what its node read */
        d->resort = false;
    }
    return 0;
}

bool shape_parse_binding(char *arg, struct shape_dim_binding *b)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    *eq = '\0';
    char *end;
    long long v = strtoll(eq + 1, &end, 10);
    if (*end || eq[1] == '\0' || v < 0)
        return false;
    char *colon = strchr(arg, ':');
    b->model = colon ? arg : NULL;
    if (colon)
        *colon = '\0';
    b->name = colon ? colon + 1 : arg;
    b->value = v;
    return *b->name != '\0';
}

bool shape_parse_input_shape(char *arg, struct shape_input_shape *s)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    *eq = '\0';
    char *colon = strchr(arg, ':');
    s->model = colon ? arg : NULL;
    if (colon)
        *colon = '\0';
    s->input = colon ? colon + 1 : arg;
    s->rank = 0;
    char *p = eq + 1;
    if (*p == '\0')
        return *s->input != '\0'; /* a scalar */
    for (;;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || s->rank == 16)
            return false;
        s->dims[s->rank++] = v;
        if (*end == '\0')
            break;
        if (*end != ',')
            return false;
        p = end + 1;
    }
    return *s->input != '\0';
}

/* A binding scoped to MODEL applies when MODEL is the name gen gives the model (its base
 * name without .onnx, or DIR for DIR/model.onnx) or the base name with or without .onnx. */
static bool scope_matches(const char *scope, const char *path)
{
    if (!scope)
        return true;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(scope);
    if (strncmp(base, scope, n) == 0 && (base[n] == '\0' || strcmp(base + n, ".onnx") == 0))
        return true;
    char *name = bz_model_name(path);
    bool same = strcmp(name, scope) == 0;
    free(name);
    return same;
}

/* Which dim of a graph input is the batch: 0, except where a recurrent layer reads the
 * input as X or as an initial state in its default layout ([seq, batch, ...] and
 * [directions, batch, hidden]): then 1. */
static int batch_dim(const struct ir_graph *g, const struct ir_value *v)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        bool rnn = !strcmp(n->op_type, "LSTM") || !strcmp(n->op_type, "GRU") || !strcmp(n->op_type, "RNN");
        if (!rnn || !ir_domain_is_onnx(n->domain))
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == v && (k == 0 || k == 5 || k == 6))
                return ir_node_attr_int(n, "layout", 0) ? 0 : 1;
    }
    return 0;
}

int shape_infer(struct ir_model *m, const struct shape_opts *o, struct bz_diag *diag,
                struct shape_result *res)
{
    static const struct shape_opts none = {0};
    if (!o)
        o = &none;
    memset(res, 0, sizeof(*res));
    struct driver d = {.o = o, .res = res, .m = m};
    struct ir_graph *g = m->graph;

    /* graph inputs: declared types, then the batch and the symbol bindings */
    struct ir_dim first_batch = dim_unknown();
    bool have_first = false;
    for (int i = 0; i < g->n_inputs; i++) {
        struct ir_value *v = g->inputs[i];
        if (v->init)
            continue;
        if (v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0)
            continue;
        struct ir_dim *dims = bz_arena_array(&m->arena, (size_t)(v->type.rank ? v->type.rank : 1),
                                             sizeof(*dims));
        memcpy(dims, v->type.dims, (size_t)v->type.rank * sizeof(*dims));
        v->type.dims = dims;
        for (int k = 0; k < v->type.rank; k++) {
            for (int b = 0; b < o->n_bindings; b++)
                if (dims[k].param && strcmp(dims[k].param, o->bindings[b].name) == 0 &&
                    scope_matches(o->bindings[b].model, m->path))
                    dims[k] = dim_of(o->bindings[b].value);
        }
        const struct shape_input_shape *given = NULL;
        for (int s = 0; s < o->n_input_shapes; s++)
            if (!strcmp(o->input_shapes[s].input, v->name) && scope_matches(o->input_shapes[s].model, m->path))
                given = &o->input_shapes[s];
        if (given) {
            /* an explicit shape is the final word, batch included */
            v->type.rank = given->rank;
            v->type.dims = bz_arena_array(&m->arena, (size_t)(given->rank ? given->rank : 1), sizeof(*dims));
            for (int k = 0; k < given->rank; k++)
                v->type.dims[k] = dim_of(given->dims[k]);
            if (o->batch > 0) {
                d.batch_changed = true;
                d.batch_to = o->batch;
            }
            continue;
        }
        int bd = batch_dim(g, v);
        /* the first input's batch symbol is the batch wherever it appears (a cache [2, batch,
         * heads, past, head size] whose batch is not its leading dim) */
        for (int k = 0; have_first && first_batch.param && o->batch > 0 && k < v->type.rank; k++)
            if (dims[k].param && !strcmp(dims[k].param, first_batch.param))
                dims[k] = dim_of(o->batch);
        if (o->batch > 0 && bd >= 0 && bd < v->type.rank) {
            /* the first data input defines the model's batch; other inputs follow only
             * when their batch dim is the same (a streaming cache of another size is not
             * batched) */
            struct ir_dim was = v->decl.dims[bd];
            if (!have_first) {
                first_batch = was;
                have_first = true;
            } else if (!dim_same(was, first_batch)) {
                continue;
            }
            if (!dim_known(dims[bd]) || dims[bd].value != o->batch) {
                d.batch_changed = true;
                if (dim_known(dims[bd]) && !d.batch_from)
                    d.batch_from = dims[bd].value;
                d.batch_to = o->batch;
            }
            dims[bd] = dim_of(o->batch);
        }
    }
    struct infer_ctx top = {.m = m, .g = g, .diag = diag, .infer_graph = infer_graph, .driver = &d};
    int warnings_before = diag ? diag->warnings : 0;
    infer_graph(&top, g);
    if (d.batch_changed && diag && diag->warnings > warnings_before + res->n_unsupported_ops + res->n_not_expanded) {
        /* the usual cause: an input whose batch is not its leading dim (a streaming cache) */
        struct bz_buf kept;
        bz_buf_init(&kept);
        for (int i = 0; i < g->n_inputs; i++) {
            const struct ir_value *v = g->inputs[i];
            if (v->init || v->type.rank < 1 || v->decl.rank != v->type.rank)
                continue;
            bool same = true;
            for (int k = 0; k < v->type.rank; k++)
                same = same && dim_same(v->type.dims[k], v->decl.dims[k]);
            if (same && kept.len < 400) {
                bz_buf_printf(&kept, "%s'%s' ", kept.len ? ", " : "", v->name);
                ir_type_format(&kept, &v->type);
            }
        }
        bz_diag_warning(diag, m->path,
                        "after setting the batch to %lld some shapes do not fit; inputs left at their "
                        "declared batch: %s; give their shapes with --input-shape",
                        (long long)o->batch, kept.len ? kept.data : "none");
        bz_buf_free(&kept);
    }

    op_xp_memo_free(d.memo);
    res->n_values = g->n_values;
    for (int i = 0; i < g->n_values; i++)
        res->n_resolved += type_concrete(&g->values[i]->type);
    return res->n_invalid ? -1 : 0;
}

static void print_value(struct bz_buf *b, const struct ir_value *v)
{
    bz_buf_quote(b, v->name, strlen(v->name));
    bz_buf_putc(b, '\t');
    const struct ir_type *t = &v->type;
    const char *dn = t->dtype ? ir_dtype_name(t->dtype) : NULL;
    bz_buf_puts(b, dn ? dn : "?");
    bz_buf_putc(b, '\t');
    if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
        bz_buf_puts(b, "*");
    } else {
        for (int k = 0; k < t->rank; k++) {
            if (k)
                bz_buf_putc(b, ',');
            if (dim_known(t->dims[k]))
                bz_buf_printf(b, "%lld", (long long)t->dims[k].value);
            else
                bz_buf_putc(b, '?');
        }
    }
    bz_buf_putc(b, '\n');
}

void shape_print(FILE *out, const struct ir_model *m)
{
    struct bz_buf b;
    bz_buf_init(&b);
    const struct ir_graph *g = m->graph;
    for (int i = 0; i < g->n_values; i++)
        print_value(&b, g->values[i]);
    fwrite(b.data ? b.data : "", 1, b.len, out);
    bz_buf_free(&b);
}
