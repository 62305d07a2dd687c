/* gen --dump: a readable summary of a loaded model. */
#include "dump.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

static void put_quoted(struct bz_buf *b, const char *s)
{
    bz_buf_quote(b, s, strlen(s));
}

/* a node's values by name, "-" for an omitted one */
static void put_names(struct bz_buf *b, int n, struct ir_value *const *v)
{
    for (int k = 0; k < n; k++) {
        bz_buf_puts(b, k ? ", " : "");
        if (v[k])
            put_quoted(b, v[k]->name);
        else
            bz_buf_puts(b, "-");
    }
}

struct op_count {
    const char *domain;
    const char *op;
    int count;
};

static int op_count_cmp(const void *a, const void *b)
{
    const struct op_count *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    int d = strcmp(x->domain, y->domain);
    return d ? d : strcmp(x->op, y->op);
}

static void count_ops(const struct ir_graph *g, struct op_count **ops, int *n, int *cap)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *nd = &g->nodes[i];
        int k;
        for (k = 0; k < *n; k++)
            if (strcmp((*ops)[k].op, nd->op_type) == 0 && strcmp((*ops)[k].domain, nd->domain) == 0)
                break;
        if (k == *n) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 32;
                *ops = bz_realloc(*ops, (size_t)*cap * sizeof(**ops));
            }
            (*ops)[k] = (struct op_count){nd->domain, nd->op_type, 0};
            (*n)++;
        }
        (*ops)[k].count++;
        for (int a = 0; a < nd->n_attrs; a++) {
            const struct ir_attr *at = &nd->attrs[a];
            if (at->type == IR_ATTR_GRAPH && at->u.g)
                count_ops(at->u.g, ops, n, cap);
            if (at->type == IR_ATTR_GRAPHS)
                for (size_t s = 0; s < at->count; s++)
                    if (at->u.graphs[s])
                        count_ops(at->u.graphs[s], ops, n, cap);
        }
    }
}

static void dump_value_list(struct bz_buf *b, const char *indent, const char *title, int n,
                            struct ir_value *const *vals)
{
    bz_buf_printf(b, "%s%s (%d):\n", indent, title, n);
    for (int i = 0; i < n; i++) {
        bz_buf_printf(b, "%s  ", indent);
        put_quoted(b, vals[i]->name);
        bz_buf_putc(b, ' ');
        ir_type_format(b, &vals[i]->type);
        bz_buf_putc(b, '\n');
    }
}

static void dump_graph(struct bz_buf *b, const struct ir_graph *g, int depth)
{
    char indent[2 * 16 + 1];
    int w = depth < 16 ? depth * 2 : 32;
    memset(indent, ' ', (size_t)w);
    indent[w] = '\0';

    int64_t params = 0;
    for (int i = 0; i < g->n_initializers; i++)
        params += g->initializers[i]->init ? g->initializers[i]->init->nelem : 0;

    bz_buf_printf(b, "%sgraph '", indent);
    put_quoted(b, g->name);
    bz_buf_printf(b, "': %d nodes, %d initializers (%lld parameters)", g->n_nodes, g->n_initializers,
                  (long long)params);
    if (g->n_sparse_initializers)
        bz_buf_printf(b, ", %d sparse initializers", g->n_sparse_initializers);
    bz_buf_putc(b, '\n');

    /* inputs that are not initializers (IR < 4 lists initializers as inputs too) */
    struct ir_value **user = bz_malloc((size_t)(g->n_inputs ? g->n_inputs : 1) * sizeof(*user));
    int nu = 0;
    for (int i = 0; i < g->n_inputs; i++)
        if (!g->inputs[i]->init)
            user[nu++] = g->inputs[i];
    dump_value_list(b, indent, "inputs", nu, user);
    free(user);
    dump_value_list(b, indent, "outputs", g->n_outputs, g->outputs);

    bz_buf_printf(b, "%snodes (%d):\n", indent, g->n_nodes);
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *nd = &g->nodes[i];
        bz_buf_printf(b, "%s  [%d] ", indent, nd->index);
        if (*nd->domain) {
            put_quoted(b, nd->domain);
            bz_buf_putc(b, ':');
        }
        put_quoted(b, nd->op_type);
        if (*nd->name) {
            bz_buf_puts(b, " '");
            put_quoted(b, nd->name);
            bz_buf_putc(b, '\'');
        }
        bz_buf_putc(b, ' ');
        put_names(b, nd->n_inputs, nd->inputs);
        bz_buf_puts(b, " -> ");
        put_names(b, nd->n_outputs, nd->outputs);
        bz_buf_putc(b, '\n');
        for (int a = 0; a < nd->n_attrs; a++) {
            const struct ir_attr *at = &nd->attrs[a];
            if (at->type == IR_ATTR_GRAPH && at->u.g) {
                bz_buf_printf(b, "%s    .%s:\n", indent, at->name);
                dump_graph(b, at->u.g, depth + 3);
            } else if (at->type == IR_ATTR_GRAPHS) {
                for (size_t s = 0; s < at->count; s++) {
                    bz_buf_printf(b, "%s    .%s[%zu]:\n", indent, at->name, s);
                    if (at->u.graphs[s])
                        dump_graph(b, at->u.graphs[s], depth + 3);
                }
            }
        }
    }
}

void dump_model(FILE *out, const struct ir_model *m)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, "model: ");
    put_quoted(&b, m->path);
    bz_buf_putc(&b, '\n');
    bz_buf_puts(&b, "  producer: ");
    put_quoted(&b, *m->producer_name ? m->producer_name : "(none)");
    if (*m->producer_version) {
        bz_buf_putc(&b, ' ');
        put_quoted(&b, m->producer_version);
    }
    bz_buf_printf(&b, "\n  ir_version: %lld\n", (long long)m->ir_version);
    if (*m->domain) {
        bz_buf_puts(&b, "  domain: ");
        put_quoted(&b, m->domain);
        bz_buf_putc(&b, '\n');
    }
    bz_buf_puts(&b, "  opsets:");
    for (int i = 0; i < m->n_opsets; i++) {
        bz_buf_puts(&b, i ? ", " : " ");
        put_quoted(&b, *m->opsets[i].domain ? m->opsets[i].domain : "ai.onnx");
        bz_buf_printf(&b, " %lld", (long long)m->opsets[i].version);
    }
    bz_buf_printf(&b, "\n  file: %zu bytes\n", m->file_bytes);
    if (m->n_functions) {
        bz_buf_printf(&b, "  functions (%d):", m->n_functions);
        for (int i = 0; i < m->n_functions; i++) {
            bz_buf_puts(&b, i ? ", " : " ");
            put_quoted(&b, m->functions[i].domain);
            bz_buf_putc(&b, ':');
            put_quoted(&b, m->functions[i].name);
            bz_buf_printf(&b, " (%d nodes)", m->functions[i].n_nodes);
        }
        bz_buf_putc(&b, '\n');
    }

    struct op_count *ops = NULL;
    int n_ops = 0, cap = 0;
    count_ops(m->graph, &ops, &n_ops, &cap);
    if (n_ops > 1)
        qsort(ops, (size_t)n_ops, sizeof(*ops), op_count_cmp);
    bz_buf_printf(&b, "  op types (%d):", n_ops);
    for (int i = 0; i < n_ops; i++) {
        bz_buf_puts(&b, i ? ", " : " ");
        if (*ops[i].domain) {
            put_quoted(&b, ops[i].domain);
            bz_buf_putc(&b, ':');
        }
        put_quoted(&b, ops[i].op);
        bz_buf_printf(&b, " %d", ops[i].count);
    }
    bz_buf_putc(&b, '\n');
    free(ops);

    dump_graph(&b, m->graph, 1);
    fwrite(b.data, 1, b.len, out);
    bz_buf_free(&b);
}

/* ---- gen --graph: the main graph as gen works on it, as JSON ---- */

static json_t *jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    return j ? j : json_string("?"); /* the loader keeps names valid UTF-8; never NULL in practice */
}

static json_t *tensor_json(const struct ir_tensor *t)
{
    json_t *o = json_object(), *dims = json_array();
    json_object_set_new(o, "dtype", jstr(ir_dtype_name(t->dtype)));
    for (int k = 0; k < t->rank; k++)
        json_array_append_new(dims, json_integer(t->dims[k]));
    json_object_set_new(o, "dims", dims);
    bool numeric = dtype_is_float(t->dtype) || dtype_is_int(t->dtype) || t->dtype == IR_DTYPE_DOUBLE;
    if (t->data_kept && numeric && t->nelem <= IR_TENSOR_KEEP_MAX) {
        json_t *vals = json_array();
        bool integer = dtype_is_int(t->dtype);
        for (int64_t k = 0; k < t->nelem; k++)
            json_array_append_new(vals, integer ? json_integer(tensor_get_i(t, k)) : canon_json_number(tensor_get_f(t, k)));
        json_object_set_new(o, "values", vals);
    }
    return o;
}

static json_t *attr_json(const struct ir_attr *a)
{
    json_t *v = NULL;
    switch (a->type) {
    case IR_ATTR_INT: v = json_integer(a->u.i); break;
    case IR_ATTR_FLOAT: v = canon_json_number(a->u.f); break;
    case IR_ATTR_STRING: v = json_stringn(a->u.s.data, a->u.s.len); break;
    case IR_ATTR_TENSOR: v = a->u.t ? tensor_json(a->u.t) : NULL; break;
    case IR_ATTR_INTS:
        v = json_array();
        for (size_t k = 0; k < a->count; k++)
            json_array_append_new(v, json_integer(a->u.ints[k]));
        break;
    case IR_ATTR_FLOATS:
        v = json_array();
        for (size_t k = 0; k < a->count; k++)
            json_array_append_new(v, canon_json_number(a->u.floats[k]));
        break;
    case IR_ATTR_STRINGS:
        v = json_array();
        for (size_t k = 0; k < a->count; k++) {
            json_t *s = json_stringn(a->u.strings[k].data, a->u.strings[k].len);
            json_array_append_new(v, s ? s : json_null());
        }
        break;
    default: break; /* graphs and the rest: the type only */
    }
    return json_pack("{s:s,s:o}", "type", ir_attr_type_name(a->type), "value", v ? v : json_null());
}

static json_t *names_json(int n, struct ir_value *const *v)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, jstr(v[k] ? v[k]->name : ""));
    return a;
}

static json_t *type_json(const struct ir_type *t)
{
    if (t->kind != IR_TYPE_TENSOR)
        return json_pack("{s:s}", "kind", ir_type_kind_name(t->kind));
    json_t *o = json_pack("{s:s}", "dtype", t->dtype ? ir_dtype_name(t->dtype) : "?");
    if (t->rank >= 0) {
        json_t *dims = json_array();
        for (int k = 0; k < t->rank; k++)
            json_array_append_new(dims, t->dims[k].value >= 0 ? json_integer(t->dims[k].value) : json_null());
        json_object_set_new(o, "shape", dims);
    }
    return o;
}

void dump_graph_json(FILE *out, const struct ir_model *m)
{
    const struct ir_graph *g = m->graph;
    json_t *root = json_object(), *opsets = json_object(), *inputs = json_array(), *inits = json_array();
    json_t *nodes = json_array(), *values = json_object();
    json_object_set_new(root, "model", jstr(m->path));
    for (int i = 0; i < m->n_opsets; i++)
        json_object_set_new(opsets, ir_domain_is_onnx(m->opsets[i].domain) ? "" : m->opsets[i].domain,
                            json_integer(m->opsets[i].version));
    json_object_set_new(root, "opsets", opsets);
    for (int i = 0; i < g->n_inputs; i++)
        if (!g->inputs[i]->init)
            json_array_append_new(inputs, jstr(g->inputs[i]->name));
    json_object_set_new(root, "inputs", inputs);
    json_object_set_new(root, "outputs", names_json(g->n_outputs, g->outputs));
    for (int i = 0; i < g->n_initializers; i++) {
        const struct ir_value *v = g->initializers[i];
        json_t *t = v->init ? tensor_json(v->init) : json_object();
        json_object_set_new(t, "name", jstr(v->name));
        json_array_append_new(inits, t);
    }
    json_object_set_new(root, "initializers", inits);
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        json_t *attrs = json_object();
        for (int k = 0; k < n->n_attrs; k++)
            json_object_set_new(attrs, n->attrs[k].name, attr_json(&n->attrs[k]));
        json_array_append_new(nodes, json_pack("{s:o,s:o,s:o,s:I,s:I,s:o,s:o,s:o}", "name", jstr(n->name), "op",
                                               jstr(n->op_type), "domain", jstr(n->domain), "opset",
                                               (json_int_t)ir_node_opset(m, n), "file_index", (json_int_t)n->index,
                                               "inputs", names_json(n->n_inputs, n->inputs), "outputs",
                                               names_json(n->n_outputs, n->outputs), "attrs", attrs));
    }
    json_object_set_new(root, "nodes", nodes);
    for (int i = 0; i < g->n_values; i++)
        json_object_set_new(values, g->values[i]->name, type_json(&g->values[i]->type));
    json_object_set_new(root, "values", values);
    json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    fputc('\n', out);
    json_decref(root);
}
