/* Layer keys: classify nodes (computing, free, unsupported, unresolved), canonicalise the
 * computing ones into JSON keys with ONNX defaults filled in, and dedupe them. */
#include "layers.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

static const char *const node_class_names[] = {
    [NODE_COMPUTE] = "compute", [NODE_FREE] = "free", [NODE_UNSUPPORTED] = "unsupported",
    [NODE_UNRESOLVED] = "unresolved", [NODE_CONTROL] = "control",
};
_Static_assert(BZ_ARRAY_LEN(node_class_names) == NODE_CLASS_COUNT, "a name per class");

const char *node_class_name(enum node_class c)
{
    return (unsigned)c < NODE_CLASS_COUNT ? node_class_names[c] : "?";
}

const char *layer_dtype_suffix(int dtype)
{
    switch (dtype) {
    case IR_DTYPE_FLOAT: return "f32";
    case IR_DTYPE_FLOAT16: return "f16";
    case IR_DTYPE_BFLOAT16: return "bf16";
    case IR_DTYPE_DOUBLE: return "f64";
    case IR_DTYPE_INT64: return "i64";
    case IR_DTYPE_INT32: return "i32";
    case IR_DTYPE_INT16: return "i16";
    case IR_DTYPE_INT8: return "i8";
    case IR_DTYPE_UINT8: return "u8";
    case IR_DTYPE_UINT16: return "u16";
    case IR_DTYPE_UINT32: return "u32";
    case IR_DTYPE_UINT64: return "u64";
    case IR_DTYPE_BOOL: return "b8";
    case IR_DTYPE_STRING: return "str";
    default: return "x";
    }
}

void layer_set_init(struct layer_set *s)
{
    memset(s, 0, sizeof(*s));
    bz_arena_init(&s->arena);
}

void layer_set_free(struct layer_set *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->v[i].key);
        free(s->v[i].name);
        free(s->v[i].op);
        free(s->v[i].models);
        json_decref(s->v[i].params);
    }
    free(s->v);
    free(s->hash);
    bz_arena_free(&s->arena);
    memset(s, 0, sizeof(*s));
}


static void rehash(struct layer_set *s, size_t cap)
{
    int *h = bz_calloc(cap, sizeof(int));
    for (int i = 0; i < s->n; i++) {
        size_t k = bz_hash_str(s->v[i].key) & (cap - 1);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = i + 1;
    }
    free(s->hash);
    s->hash = h;
    s->hash_cap = cap;
}

static int cmp_layer_name(const void *a, const void *b, void *ctx)
{
    const struct layer_set *s = ctx;
    const struct layer *x = &s->v[*(const int *)a], *y = &s->v[*(const int *)b];
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->id, y->id);
}

/* a new layer at the end of the set (its key and id already made) */
static struct layer *layer_append(struct layer_set *s, char *key, json_t *params, const char *op, const char *name)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = bz_realloc(s->v, (size_t)s->cap * sizeof(*s->v));
    }
    struct layer *l = &s->v[s->n++];
    memset(l, 0, sizeof(*l));
    l->key = key;
    l->name = bz_strdup(name);
    l->op = bz_strdup(op);
    l->params = params;
    l->desc = bz_arena_alloc(&s->arena, sizeof(*l->desc));
    desc_build(&s->arena, params, l->desc);
    return l;
}

static char *layer_key(json_t *params)
{
    char *key = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    if (!key)
        bz_oom();
    return key;
}

int layer_set_intern(struct layer_set *s, json_t *params, const char *op, const char *name,
                     bool fused, int run_index)
{
    char *key = layer_key(params);
    if (!s->hash_cap)
        rehash(s, 64);
    uint64_t h = bz_hash_str(key);
    size_t k = h & (s->hash_cap - 1);
    int found = -1;
    while (s->hash[k]) {
        if (!strcmp(s->v[s->hash[k] - 1].key, key)) {
            found = s->hash[k] - 1;
            break;
        }
        k = (k + 1) & (s->hash_cap - 1);
    }
    if (found >= 0) {
        free(key);
        json_decref(params);
    } else {
        found = s->n;
        struct layer *l = layer_append(s, key, params, op, name);
        snprintf(l->id, sizeof(l->id), "%016llx", (unsigned long long)h);
        l->fused = fused;
        s->hash[k] = found + 1;
        if ((size_t)s->n * 2 > s->hash_cap)
            rehash(s, s->hash_cap * 2);
    }
    struct layer *l = &s->v[found];
    l->uses++;
    if (l->n_models == 0 || l->models[l->n_models - 1] != run_index) {
        l->models = bz_realloc(l->models, (size_t)(l->n_models + 1) * sizeof(int));
        l->models[l->n_models++] = run_index;
    }
    return found;
}

int layer_set_add_fixed(struct layer_set *s, json_t *params, const char *id, const char *op, const char *name)
{
    struct layer *l = layer_append(s, layer_key(params), params, op, name);
    snprintf(l->id, sizeof(l->id), "%s", id);
    return s->n - 1;
}

/* ---- canonical JSON ---- */

static json_t *layer_type_json(const struct ir_type *t)
{
    json_t *dims = json_array();
    for (int k = 0; k < t->rank; k++)
        json_array_append_new(dims, json_integer(t->dims[k].value));
    return json_pack("{s:s,s:o}", "dtype", ir_dtype_name(t->dtype) ? ir_dtype_name(t->dtype) : "?",
                     "shape", dims);
}





















/* ---- constness ---- */

static bool op_is_random(const char *op)
{
    return !strncmp(op, "Random", 6) || !strcmp(op, "Bernoulli") || !strcmp(op, "Multinomial");
}

static void mark_const(struct ir_graph *g)
{
    for (int i = 0; i < g->n_values; i++)
        g->values[i]->is_const = g->values[i]->init != NULL;
    for (int t = 0; t < g->n_nodes; t++) {
        struct ir_node *n = &g->nodes[g->topo[t]];
        bool all = n->n_captures == 0 && !op_is_random(n->op_type) && ir_domain_is_onnx(n->domain);
        for (int k = 0; k < n->n_inputs && all; k++)
            all = !n->inputs[k] || n->inputs[k]->is_const;
        /* a node with no data inputs is const only if it is a Constant/ConstantOfShape-like source */
        if (n->n_inputs == 0 && strcmp(n->op_type, "Constant") != 0)
            all = false;
        for (int k = 0; k < n->n_outputs; k++)
            if (n->outputs[k]) /* a value folded at generation time is a constant too */
                n->outputs[k]->is_const = all || (n->outputs[k]->val != NULL && !op_is_random(n->op_type));
    }
}


static json_t *attr_json(const struct ir_attr *a)
{
    switch (a->type) {
    case IR_ATTR_FLOAT: return json_real(a->u.f);
    case IR_ATTR_INT: return json_integer(a->u.i);
    case IR_ATTR_STRING: return canon_json_string(a->u.s.data, a->u.s.len);
    case IR_ATTR_FLOATS: {
        json_t *arr = json_array();
        for (size_t k = 0; k < a->count; k++)
            json_array_append_new(arr, json_real(a->u.floats[k]));
        return arr;
    }
    case IR_ATTR_INTS: {
        json_t *arr = json_array();
        for (size_t k = 0; k < a->count; k++)
            json_array_append_new(arr, json_integer(a->u.ints[k]));
        return arr;
    }
    case IR_ATTR_STRINGS: {
        json_t *arr = json_array();
        for (size_t k = 0; k < a->count; k++)
            json_array_append_new(arr, canon_json_string(a->u.strings[k].data, a->u.strings[k].len));
        return arr;
    }
    case IR_ATTR_TENSOR: {
        if (!a->u.t)
            return json_null();
        json_t *dims = json_array();
        for (int k = 0; k < a->u.t->rank; k++)
            json_array_append_new(dims, json_integer(a->u.t->dims[k]));
        return json_pack("{s:s,s:o}", "dtype", ir_dtype_name(a->u.t->dtype) ? ir_dtype_name(a->u.t->dtype) : "?",
                         "shape", dims);
    }
    default:
        return json_string(ir_attr_type_name(a->type));
    }
}

static void lower_name(struct bz_buf *b, const char *op)
{
    for (; *op; op++)
        if (isalnum((unsigned char)*op))
            bz_buf_putc(b, (char)tolower((unsigned char)*op));
}


/* The readable name of a layer without a canonicaliser: op and the distinct input shapes,
 * constant inputs marked c (a bias add is not a residual add); every input of a Concat and
 * its axis; a recurrent layer's hidden size and direction. Names that still collide get the
 * layer id's first digits (layers_unique_names). */
static void generic_name(const struct ir_node *n, struct bz_buf *name)
{
    lower_name(name, n->op_type);
    bool concat = !strcmp(n->op_type, "Concat");
    const struct ir_type *prev = NULL;
    bool prev_const = false;
    for (int k = 0; k < n->n_inputs && (k < 3 || concat); k++) {
        const struct ir_value *v = n->inputs[k];
        if (!v)
            continue;
        if (!concat && prev && prev_const == v->is_const && prev->rank == v->type.rank &&
            !memcmp(prev->dims, v->type.dims, (size_t)prev->rank * sizeof(*prev->dims)))
            continue;
        bz_buf_puts(name, v->is_const ? "_c" : "_");
        canon_name_dims(name, &v->type);
        prev = &v->type;
        prev_const = v->is_const;
    }
    if (concat)
        bz_buf_printf(name, "_ax%lld", (long long)ir_node_attr_int(n, "axis", 0));
    if (!strcmp(n->op_type, "LSTM") || !strcmp(n->op_type, "GRU") || !strcmp(n->op_type, "RNN")) {
        const struct ir_attr *dir = ir_node_attr(n, "direction");
        const char *d = dir && dir->type == IR_ATTR_STRING ? dir->u.s.data : "forward";
        bz_buf_printf(name, "_h%lld_%s", (long long)ir_node_attr_int(n, "hidden_size", 0),
                      !strcmp(d, "bidirectional") ? "bidi" : !strcmp(d, "reverse") ? "rev" : "fwd");
    }
}

/* The canonical object of one node: op, domain, opset-independent attributes, inputs and
 * outputs; NULL with *why set when a shape it needs is unknown. */
static json_t *layer_params(const struct ir_model *m, const struct ir_node *n, const struct op_def *def,
                     struct bz_buf *name, const char **why)
{
    json_t *inputs = json_array(), *outputs = json_array();
    *why = NULL;
    int dtype = 0;
    for (int k = 0; k < n->n_inputs; k++) {
        const struct ir_value *v = n->inputs[k];
        if (!v) {
            json_array_append_new(inputs, json_null());
            continue;
        }
        if (v->type.kind != IR_TYPE_TENSOR || v->type.rank < 0 || !v->type.dtype) {
            *why = v->name;
            break;
        }
        for (int a = 0; a < v->type.rank; a++)
            if (v->type.dims[a].value < 0)
                *why = v->name;
        if (*why)
            break;
        if (!dtype)
            dtype = v->type.dtype;
        json_t *tj = layer_type_json(&v->type);
        if (v->is_const)
            json_object_set_new(tj, "const", json_true());
        json_array_append_new(inputs, tj);
    }
    for (int k = 0; k < n->n_outputs && !*why; k++) {
        const struct ir_value *v = n->outputs[k];
        if (!v) {
            json_array_append_new(outputs, json_null());
            continue;
        }
        bool ok = v->type.kind == IR_TYPE_TENSOR && v->type.rank >= 0 && v->type.dtype;
        bool sized = def && (def->flags & OP_DATA_SIZED);
        for (int a = 0; ok && a < v->type.rank && !sized; a++)
            ok = v->type.dims[a].value >= 0;
        if (!ok) {
            *why = v->name;
        } else {
            json_t *tj = layer_type_json(&v->type);
            for (int a = 0; sized && a < v->type.rank; a++) /* symbols and unknowns alike: -1 */
                if (v->type.dims[a].value < 0 || v->type.dims[a].param)
                    json_array_set_new(json_object_get(tj, "shape"), (size_t)a, json_integer(-1));
            json_array_append_new(outputs, tj);
        }
        if (!dtype && ok)
            dtype = v->type.dtype;
    }
    if (*why) {
        json_decref(inputs);
        json_decref(outputs);
        return NULL;
    }
    json_t *attrs = json_object();
    for (int k = 0; k < n->n_attrs; k++)
        if (n->attrs[k].type != IR_ATTR_GRAPH && n->attrs[k].type != IR_ATTR_GRAPHS)
            json_object_set_new(attrs, n->attrs[k].name, attr_json(&n->attrs[k]));
    bz_buf_clear(name);
    if (def && def->canon) {
        struct canon_ctx cc = {m, n, ir_node_opset(m, n), def};
        def->canon(&cc, attrs, name);
    } else {
        generic_name(n, name);
    }
    bz_buf_printf(name, "_%s", layer_dtype_suffix(dtype));
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "op", n->op_type, "domain", n->domain, "attrs", attrs,
                     "inputs", inputs, "outputs", outputs);
}

static bool is_control(const char *op)
{
    return !strcmp(op, "If") || !strcmp(op, "Loop") || !strcmp(op, "Scan") || !strcmp(op, "SequenceMap");
}

/* The computing nodes inside a control node's bodies (If's branches, Loop's, Scan's and
 * SequenceMap's body, nested ones too) become layers like top-level ones, with their shapes as
 * gen inferred the bodies (a Loop's carried values as they enter the first iteration): they
 * are benchmarked, but they are no nodes of the run, as how often a body runs is data. */
static void intern_bodies(struct layer_set *s, struct model_run *run, const struct ir_node *n, int run_index,
                          struct bz_buf *name, int depth)
{
    for (int a = 0; a < n->n_attrs && depth < 16; a++) {
        const struct ir_attr *at = &n->attrs[a];
        size_t count = at->type == IR_ATTR_GRAPH ? 1 : at->type == IR_ATTR_GRAPHS ? at->count : 0;
        for (size_t j = 0; j < count; j++) {
            struct ir_graph *g = at->type == IR_ATTR_GRAPH ? at->u.g : at->u.graphs[j];
            if (!g)
                continue;
            mark_const(g); /* its own values only: those it reads from outside are their graph's */
            for (int i = 0; i < g->n_nodes; i++) {
                const struct ir_node *b = &g->nodes[i];
                const struct op_def *def = op_find(b->domain, b->op_type);
                bool all_const = b->n_outputs > 0;
                for (int k = 0; k < b->n_outputs; k++)
                    all_const = all_const && (!b->outputs[k] || b->outputs[k]->is_const);
                if (!def || (def->flags & (OP_FOREIGN | OP_FREE)) || all_const)
                    continue;
                if (is_control(b->op_type)) {
                    intern_bodies(s, run, b, run_index, name, depth + 1);
                    continue;
                }
                const char *why;
                json_t *p = layer_params(run->m, b, def, name, &why);
                if (p) {
                    layer_set_intern(s, p, b->op_type, name->data, false, run_index);
                    run->body_layers++;
                } else {
                    run->body_unresolved++;
                }
            }
        }
    }
}

void layers_add_run(struct layer_set *s, struct model_run *run, int run_index)
{
    struct ir_graph *g = run->m->graph;
    run->n_nodes = g->n_nodes;
    run->cls = bz_calloc((size_t)g->n_nodes + 1, sizeof(*run->cls));
    run->layer = bz_calloc((size_t)g->n_nodes + 1, sizeof(int));
    run->group = bz_calloc((size_t)g->n_nodes + 1, sizeof(int));
    run->why = bz_calloc((size_t)g->n_nodes + 1, sizeof(char *));
    mark_const(g);
    struct bz_buf name;
    bz_buf_init(&name);
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        run->layer[i] = -1;
        run->group[i] = -1;
        const struct op_def *def = op_find(n->domain, n->op_type);
        bool all_const = n->n_outputs > 0;
        for (int k = 0; k < n->n_outputs; k++)
            all_const = all_const && (!n->outputs[k] || n->outputs[k]->is_const);
        enum node_class c;
        if (!def || (def->flags & OP_FOREIGN))
            c = NODE_UNSUPPORTED;
        else if ((def->flags & OP_FREE) || all_const)
            c = NODE_FREE;
        else if (is_control(n->op_type))
            c = NODE_CONTROL;
        else
            c = NODE_COMPUTE;
        if (c == NODE_COMPUTE) {
            const char *why;
            json_t *p = layer_params(run->m, n, def, &name, &why);
            if (!p) {
                c = NODE_UNRESOLVED;
                run->why[i] = bz_strdup(why);
            } else {
                run->layer[i] = layer_set_intern(s, p, n->op_type, name.data, false, run_index);
            }
        }
        run->cls[i] = c;
        run->counts[c]++;
    }
    /* the layers inside control-flow bodies, once the top-level nodes are classified */
    for (int i = 0; i < g->n_nodes; i++)
        if (run->cls[i] == NODE_CONTROL)
            intern_bodies(s, run, &g->nodes[i], run_index, &name, 0);
    bz_buf_free(&name);
    /* distinct layers of this run */
    int *seen = bz_calloc((size_t)s->n + 1, sizeof(int));
    for (int i = 0; i < g->n_nodes; i++)
        if (run->layer[i] >= 0 && !seen[run->layer[i]]) {
            seen[run->layer[i]] = 1;
            run->unique_layers++;
        }
    free(seen);
}

void model_run_free(struct model_run *run)
{
    for (int i = 0; i < run->n_nodes; i++)
        free(run->why[i]);
    free(run->why);
    free(run->cls);
    free(run->layer);
    free(run->group);
    free(run->groups);
    for (int i = 0; i < run->n_relayouts; i++) {
        free(run->relayouts[i].readers);
        free(run->relayouts[i].neutral);
    }
    free(run->relayouts);
    free(run->name);
    ir_model_free(run->m);
    memset(run, 0, sizeof(*run));
}

void layers_unique_names(struct layer_set *s)
{
    /* layers whose keys differ but whose names are equal: each gets "_" and its id's first six
     * digits (the id is a hash of the key: distinct keys, distinct ids) */
    int *order = bz_malloc((size_t)(s->n + 1) * sizeof(int));
    for (int i = 0; i < s->n; i++)
        order[i] = i;
    qsort_r(order, (size_t)s->n, sizeof(int), cmp_layer_name, s);
    for (int i = 0; i < s->n;) {
        int j = i + 1;
        while (j < s->n && !strcmp(s->v[order[i]].name, s->v[order[j]].name))
            j++;
        for (int k = i; j - i > 1 && k < j; k++) {
            struct layer *l = &s->v[order[k]];
            struct bz_buf b;
            bz_buf_init(&b);
            bz_buf_printf(&b, "%s_%.6s", l->name, l->id);
            free(l->name);
            l->name = bz_buf_steal(&b);
        }
        i = j;
    }
    free(order);
}
