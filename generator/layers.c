/* Layer keys: classify nodes (computing, free, unsupported, unresolved), canonicalise the
 * computing ones into JSON keys with ONNX defaults filled in, and dedupe them. */
#include "layers.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fusion.h"
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

int layer_set_intern(struct layer_set *s, json_t *params, const char *op, const char *name,
                     bool fused, int run_index)
{
    char *key = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    if (!key)
        bz_oom();
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
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->v = bz_realloc(s->v, (size_t)s->cap * sizeof(*s->v));
        }
        found = s->n++;
        struct layer *l = &s->v[found];
        memset(l, 0, sizeof(*l));
        l->key = key;
        snprintf(l->id, sizeof(l->id), "%016llx", (unsigned long long)h);
        l->name = bz_strdup(name);
        l->op = bz_strdup(op);
        l->fused = fused;
        l->params = params;
        l->desc = bz_arena_alloc(&s->arena, sizeof(*l->desc));
        desc_build(&s->arena, params, l->desc);
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

/* ---- canonicalisation helpers for op files ---- */

/* Constant inputs that change what a layer computes are put in its key as attributes: a
 * value gen does not know is null there, and the CPU backend then refuses the layer rather
 * than guess it. */
const struct ir_tensor *canon_const_input(const struct canon_ctx *c, int i)
{
    const struct ir_value *v = i < c->n->n_inputs ? c->n->inputs[i] : NULL;
    return v && v->val && v->val->data_kept && v->val->nelem >= 1 ? v->val : NULL;
}

void canon_const_scalar(const struct canon_ctx *c, struct json_t *attrs, const char *name, int i, bool integer,
                        const double *dflt)
{
    if (i >= c->n->n_inputs || !c->n->inputs[i]) {
        if (dflt && integer)
            canon_set_i(attrs, name, (int64_t)*dflt);
        else if (dflt)
            canon_set_f(attrs, name, *dflt);
        return;
    }
    const struct ir_tensor *t = canon_const_input(c, i);
    if (!t || t->nelem != 1)
        json_object_set_new(attrs, name, json_null());
    else if (integer)
        canon_set_i(attrs, name, tensor_get_i(t, 0));
    else
        canon_set_f(attrs, name, tensor_get_f(t, 0));
}

void canon_name_op(const struct canon_ctx *c, struct bz_buf *name)
{
    for (const char *p = c->n->op_type; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, canon_in(c, 0));
}


void canon_set_i(json_t *attrs, const char *name, int64_t v)
{
    json_object_set_new(attrs, name, json_integer(v));
}

void canon_set_f(json_t *attrs, const char *name, double v)
{
    /* through float: attributes are floats, and the key must not depend on how they were written */
    json_object_set_new(attrs, name, json_real((double)(float)v));
}

/* the length of the valid UTF-8 sequence at s (at most n bytes), 0 where none starts */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    /* overlong three-byte forms, surrogates, and beyond U+10FFFF */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

static bool utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* A string from a model (attribute bytes: any bytes are valid ONNX) as a JSON string that a
 * key can hold: valid UTF-8 as it is, every other byte as the text \xNN */
static json_t *json_model_string(const char *s, size_t n)
{
    if (utf8_valid(s, n))
        return json_stringn(s, n);
    struct bz_buf b;
    bz_buf_init(&b);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (k) {
            bz_buf_append(&b, s + i, k);
            i += k;
        } else {
            bz_buf_printf(&b, "\\x%02x", (unsigned char)s[i]);
            i++;
        }
    }
    json_t *j = json_stringn(b.data ? b.data : "", b.len);
    bz_buf_free(&b);
    return j;
}

void canon_set_s(json_t *attrs, const char *name, const char *v)
{
    json_object_set_new(attrs, name, json_model_string(v, strlen(v)));
}

void canon_set_ints(json_t *attrs, const char *name, const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_integer(v[k]));
    json_object_set_new(attrs, name, a);
}

void canon_name_list(struct bz_buf *name, const char *prefix, const int64_t *v, int n)
{
    bool same = true;
    for (int k = 1; k < n; k++)
        same = same && v[k] == v[0];
    bz_buf_printf(name, "_%s%s", prefix, n ? "" : "none");
    for (int k = 0; k < (n && same ? 1 : n); k++)
        bz_buf_printf(name, "%s%lld", k ? "x" : "", (long long)v[k]);
}

const struct ir_type *canon_in(const struct canon_ctx *c, int i)
{
    return i < c->n->n_inputs && c->n->inputs[i] ? &c->n->inputs[i]->type : NULL;
}

const struct ir_type *canon_out(const struct canon_ctx *c, int i)
{
    return i < c->n->n_outputs && c->n->outputs[i] ? &c->n->outputs[i]->type : NULL;
}

void canon_name_dims(struct bz_buf *name, const struct ir_type *t)
{
    layer_name_dims(name, t);
}

double canon_default_f(const struct canon_ctx *c, json_t *attrs, const char *name, double dflt)
{
    double v = ir_node_attr_float(c->n, name, (float)dflt);
    canon_set_f(attrs, name, v);
    return v;
}

int64_t canon_default_i(const struct canon_ctx *c, json_t *attrs, const char *name, int64_t dflt)
{
    int64_t v = ir_node_attr_int(c->n, name, dflt);
    canon_set_i(attrs, name, v);
    return v;
}

void canon_window(const struct canon_ctx *c, json_t *attrs, const struct ir_type *x,
                  const int64_t *kernel, int nsp, int64_t *strides, int64_t *dil, int64_t *pads)
{
    const struct ir_attr *a;
    for (int i = 0; i < nsp; i++) {
        a = ir_node_attr(c->n, "strides");
        strides[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
        a = ir_node_attr(c->n, "dilations");
        dil[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
        a = ir_node_attr(c->n, "pads");
        pads[i] = a && a->type == IR_ATTR_INTS && (int)a->count == 2 * nsp ? a->u.ints[i] : 0;
        pads[i + nsp] = a && a->type == IR_ATTR_INTS && (int)a->count == 2 * nsp ? a->u.ints[i + nsp] : 0;
    }
    a = ir_node_attr(c->n, "auto_pad");
    const char *ap = a && a->type == IR_ATTR_STRING ? a->u.s.data : "NOTSET";
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        for (int i = 0; i < nsp; i++) {
            int64_t in = x->dims[2 + i].value, out = (in + strides[i] - 1) / strides[i];
            int64_t ek = (kernel[i] - 1) * dil[i] + 1;
            int64_t total = (out - 1) * strides[i] + ek - in;
            if (total < 0)
                total = 0;
            /* SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the beginning */
            pads[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            pads[i + nsp] = total - pads[i];
        }
    } else if (!strcmp(ap, "VALID")) {
        for (int i = 0; i < 2 * nsp; i++)
            pads[i] = 0;
    }
    json_object_del(attrs, "auto_pad");
    canon_set_ints(attrs, "kernel_shape", kernel, nsp);
    canon_set_ints(attrs, "strides", strides, nsp);
    canon_set_ints(attrs, "dilations", dil, nsp);
    canon_set_ints(attrs, "pads", pads, 2 * nsp);
}

void canon_pool_window(const struct canon_ctx *c, json_t *attrs, const struct ir_type *x, int64_t *kernel,
                       int64_t *strides, int64_t *dil, int64_t *pads)
{
    int nsp = x->rank - 2;
    const struct ir_attr *a = ir_node_attr(c->n, "kernel_shape");
    for (int i = 0; i < nsp && i < 8; i++)
        kernel[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
    canon_window(c, attrs, x, kernel, nsp, strides, dil, pads);
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

/* ---- canonical JSON ---- */

json_t *layer_type_json(const struct ir_type *t)
{
    json_t *dims = json_array();
    for (int k = 0; k < t->rank; k++)
        json_array_append_new(dims, json_integer(t->dims[k].value));
    return json_pack("{s:s,s:o}", "dtype", ir_dtype_name(t->dtype) ? ir_dtype_name(t->dtype) : "?",
                     "shape", dims);
}

static json_t *attr_json(const struct ir_attr *a)
{
    switch (a->type) {
    case IR_ATTR_FLOAT: return json_real(a->u.f);
    case IR_ATTR_INT: return json_integer(a->u.i);
    case IR_ATTR_STRING: return json_model_string(a->u.s.data, a->u.s.len);
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
            json_array_append_new(arr, json_model_string(a->u.strings[k].data, a->u.strings[k].len));
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

void layer_name_dims(struct bz_buf *b, const struct ir_type *t)
{
    if (t->rank == 0)
        bz_buf_puts(b, "scalar");
    for (int k = 0; k < t->rank; k++)
        bz_buf_printf(b, "%s%lld", k ? "x" : "", (long long)t->dims[k].value);
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
        layer_name_dims(name, &v->type);
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
        struct canon_ctx cc = {m, n, ir_model_opset(m, n->domain)};
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
    fusion_find(s, run, run_index);
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
