/* gen --dump: a readable summary of a loaded model. */
#include "dump.h"

#include <stdlib.h>
#include <string.h>

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
