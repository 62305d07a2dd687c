/* What the expansions of other runtimes' fused operators share: the builder of the ONNX nodes
 * that replace one node, and their commit into the graph (ops.h: "expansions"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

struct op_xp_memo {
    char *key;
    struct ir_value *v;
    struct op_xp_memo *next;
};

struct op_xp {
    struct infer_ctx *c;
    struct op_xp_memo **memo;
    const char *base;        /* what the made nodes and values are named after */
    struct ir_node *nodes;   /* the nodes made, in data-flow order (arena contents) */
    int n, cap;
    struct ir_value **consts; /* the constants made: initializers at the commit */
    int n_consts, cap_consts;
    struct bz_buf why;
};

struct op_xp *op_xp_begin(struct infer_ctx *c, struct op_xp_memo **memo)
{
    struct op_xp *x = bz_calloc(1, sizeof(*x));
    x->c = c;
    x->memo = memo;
    const struct ir_node *n = c->n;
    x->base = n->name && *n->name ? n->name
              : n->n_outputs && n->outputs[0] ? n->outputs[0]->name
                                              : n->op_type;
    bz_buf_init(&x->why);
    return x;
}

void op_xp_end(struct op_xp *x)
{
    if (!x)
        return;
    free(x->nodes);
    free(x->consts);
    bz_buf_free(&x->why);
    free(x);
}

void op_xp_memo_free(struct op_xp_memo *memo)
{
    while (memo) {
        struct op_xp_memo *next = memo->next;
        free(memo->key);
        free(memo);
        memo = next;
    }
}

const char *op_xp_why(const struct op_xp *x)
{
    return x->why.len ? x->why.data : "not expanded";
}

int op_xp_refuse(struct op_xp *x, const char *fmt, ...)
{
    BZ_ASSERT(x->n == 0 && x->n_consts == 0); /* hooks check before they build */
    va_list ap;
    va_start(ap, fmt);
    bz_buf_clear(&x->why);
    bz_buf_vprintf(&x->why, fmt, ap);
    va_end(ap);
    return 1;
}

struct ir_value *op_xp_in(struct op_xp *x, int i)
{
    const struct ir_node *n = x->c->n;
    return i >= 0 && i < n->n_inputs ? n->inputs[i] : NULL;
}

struct ir_value *op_xp_out(struct op_xp *x, int i)
{
    const struct ir_node *n = x->c->n;
    return i >= 0 && i < n->n_outputs ? n->outputs[i] : NULL;
}

/* a new value of the graph named BASE/PART (with a number where that is taken) */
static struct ir_value *new_value(struct op_xp *x, const char *part)
{
    struct bz_buf name;
    bz_buf_init(&name);
    bz_buf_printf(&name, "%s/%s", x->base, part);
    struct ir_value *v = ir_graph_add_value(x->c->m, x->c->g, name.data);
    for (int k = 2; !v; k++) {
        bz_buf_clear(&name);
        bz_buf_printf(&name, "%s/%s_%d", x->base, part, k);
        v = ir_graph_add_value(x->c->m, x->c->g, name.data);
    }
    bz_buf_free(&name);
    return v;
}

void op_xp_node(struct op_xp *x, const char *op, const char *part, int nin, struct ir_value *const *in, int nout,
                struct ir_value **out)
{
    struct bz_arena *ar = &x->c->m->arena;
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 16;
        x->nodes = bz_realloc(x->nodes, (size_t)x->cap * sizeof(*x->nodes));
    }
    struct ir_node *n = &x->nodes[x->n++];
    memset(n, 0, sizeof(*n));
    struct bz_buf name;
    bz_buf_init(&name);
    bz_buf_printf(&name, "%s/%s", x->base, part);
    n->name = bz_arena_strdup(ar, name.data);
    bz_buf_free(&name);
    n->op_type = bz_arena_strdup(ar, op);
    n->domain = "";
    n->doc = "";
    n->opset = OP_XP_OPSET;
    n->index = x->c->n->index;
    n->n_inputs = nin;
    n->inputs = bz_arena_array(ar, (size_t)(nin ? nin : 1), sizeof(*n->inputs));
    for (int k = 0; k < nin; k++)
        n->inputs[k] = in[k];
    n->n_outputs = nout;
    n->outputs = bz_arena_array(ar, (size_t)(nout ? nout : 1), sizeof(*n->outputs));
    for (int k = 0; k < nout; k++) {
        if (!out[k]) {
            struct bz_buf p;
            bz_buf_init(&p);
            bz_buf_printf(&p, nout == 1 ? "%s" : "%s:%d", part, k);
            out[k] = new_value(x, p.data);
            bz_buf_free(&p);
        }
        n->outputs[k] = out[k];
    }
}

struct ir_value *op_xp_op(struct op_xp *x, const char *op, const char *part, int nin, struct ir_value *const *in,
                          struct ir_value *out)
{
    op_xp_node(x, op, part, nin, in, 1, &out);
    return out;
}

static struct ir_attr *new_attr(struct op_xp *x, const char *name, enum ir_attr_type type)
{
    BZ_ASSERT(x->n > 0);
    struct ir_node *n = &x->nodes[x->n - 1];
    struct ir_attr *a = bz_arena_array(&x->c->m->arena, (size_t)n->n_attrs + 1, sizeof(*a));
    if (n->n_attrs)
        memcpy(a, n->attrs, (size_t)n->n_attrs * sizeof(*a));
    n->attrs = a;
    struct ir_attr *at = &a[n->n_attrs++];
    memset(at, 0, sizeof(*at));
    at->name = bz_arena_strdup(&x->c->m->arena, name);
    at->type = type;
    return at;
}

void op_xp_attr_i(struct op_xp *x, const char *name, int64_t v)
{
    new_attr(x, name, IR_ATTR_INT)->u.i = v;
}

void op_xp_attr_f(struct op_xp *x, const char *name, float v)
{
    new_attr(x, name, IR_ATTR_FLOAT)->u.f = v;
}

void op_xp_attr_s(struct op_xp *x, const char *name, const char *v)
{
    struct ir_attr *a = new_attr(x, name, IR_ATTR_STRING);
    a->u.s.data = bz_arena_strdup(&x->c->m->arena, v);
    a->u.s.len = strlen(v);
}

void op_xp_attr_ints(struct op_xp *x, const char *name, int n, const int64_t *v)
{
    struct ir_attr *a = new_attr(x, name, IR_ATTR_INTS);
    a->count = (size_t)n;
    a->u.ints = bz_arena_array(&x->c->m->arena, (size_t)(n ? n : 1), sizeof(int64_t));
    if (n)
        memcpy(a->u.ints, v, (size_t)n * sizeof(int64_t));
}

static struct ir_value *new_const(struct op_xp *x, const char *part, struct ir_tensor *t)
{
    struct ir_value *v = new_value(x, part);
    t->name = v->name;
    v->init = v->val = t;
    v->type.kind = IR_TYPE_TENSOR;
    v->type.dtype = t->dtype;
    v->type.rank = t->rank;
    v->type.dims = bz_arena_array(&x->c->m->arena, (size_t)(t->rank ? t->rank : 1), sizeof(struct ir_dim));
    for (int k = 0; k < t->rank; k++)
        v->type.dims[k] = dim_of(t->dims[k]);
    v->decl = v->type;
    if (x->n_consts == x->cap_consts) {
        x->cap_consts = x->cap_consts ? x->cap_consts * 2 : 8;
        x->consts = bz_realloc(x->consts, (size_t)x->cap_consts * sizeof(*x->consts));
    }
    x->consts[x->n_consts++] = v;
    return v;
}

struct ir_value *op_xp_ints(struct op_xp *x, const char *part, int dtype, int rank, int n, const int64_t *v)
{
    BZ_ASSERT(rank == 1 || (rank == 0 && n == 1));
    int64_t dim = n;
    struct ir_tensor *t = op_tensor_new(x->c, dtype, rank, &dim);
    BZ_ASSERT(t->data_kept);
    for (int k = 0; k < n; k++)
        tensor_set_f(t, k, (double)v[k]);
    return new_const(x, part, t);
}

struct ir_value *op_xp_scalar(struct op_xp *x, const char *part, int dtype, double v)
{
    struct ir_tensor *t = op_tensor_new(x->c, dtype, 0, NULL);
    tensor_set_f(t, 0, v);
    return new_const(x, part, t);
}

const struct ir_type *op_xp_concrete(struct infer_ctx *c, int i, int rank)
{
    const struct ir_type *t = op_in(c, i);
    if (!t || (rank >= 0 && t->rank != rank))
        return NULL;
    for (int k = 0; k < t->rank; k++)
        if (!dim_known(t->dims[k]))
            return NULL;
    return t;
}

bool op_xp_float(int dtype)
{
    return dtype == IR_DTYPE_FLOAT || dtype == IR_DTYPE_FLOAT16 || dtype == IR_DTYPE_BFLOAT16;
}

struct ir_value *op_xp_sdpa(struct op_xp *x, struct ir_value *q, struct ir_value *k, struct ir_value *v, int dtype,
                            double scale, struct ir_value *mask, int64_t merged, struct ir_value *out)
{
    static const int64_t to_kt[4] = {0, 1, 3, 2}, to_rows[4] = {0, 2, 1, 3};
    struct ir_value *kt = op_xp_op(x, "Transpose", "k_t", OP_XP_IN(k), NULL);
    op_xp_attr_ints(x, "perm", 4, to_kt);
    struct ir_value *sc = op_xp_op(x, "MatMul", "scores", OP_XP_IN(q, kt), NULL);
    sc = op_xp_op(x, "Mul", "scaled", OP_XP_IN(sc, op_xp_scalar(x, "scale", dtype, scale)), NULL);
    if (mask)
        sc = op_xp_op(x, "Add", "masked", OP_XP_IN(sc, mask), NULL);
    struct ir_value *pr = op_xp_op(x, "Softmax", "probs", OP_XP_IN(sc), NULL);
    op_xp_attr_i(x, "axis", -1);
    if (!merged)
        return op_xp_op(x, "MatMul", "output", OP_XP_IN(pr, v), out);
    struct ir_value *ctx = op_xp_op(x, "MatMul", "context", OP_XP_IN(pr, v), NULL);
    ctx = op_xp_op(x, "Transpose", "context_t", OP_XP_IN(ctx), NULL);
    op_xp_attr_ints(x, "perm", 4, to_rows);
    int64_t shape[3] = {0, 0, merged};
    return op_xp_op(x, "Reshape", "output", OP_XP_IN(ctx, op_xp_ints(x, "output_shape", IR_DTYPE_INT64, 1, 3, shape)),
                    out);
}

struct ir_value *op_xp_memo(struct op_xp *x, const char *key)
{
    for (struct op_xp_memo *m = *x->memo; m; m = m->next)
        if (!strcmp(m->key, key))
            return m->v;
    return NULL;
}

void op_xp_memo_put(struct op_xp *x, const char *key, struct ir_value *v)
{
    struct op_xp_memo *m = bz_calloc(1, sizeof(*m));
    m->key = bz_strdup(key);
    m->v = v;
    m->next = *x->memo;
    *x->memo = m;
}

/* the subgraphs of node N point back at it: after the nodes moved */
static void reown_subgraphs(struct ir_node *n)
{
    for (int a = 0; a < n->n_attrs; a++) {
        const struct ir_attr *at = &n->attrs[a];
        if (at->type == IR_ATTR_GRAPH && at->u.g)
            at->u.g->owner = n;
        for (size_t j = 0; at->type == IR_ATTR_GRAPHS && j < at->count; j++)
            if (at->u.graphs[j])
                at->u.graphs[j]->owner = n;
    }
}

void op_xp_commit(struct op_xp *x, int **new_nodes, int *n_new)
{
    struct ir_graph *g = x->c->g;
    struct ir_model *m = x->c->m;
    const struct ir_node *orig = x->c->n;
    int self = (int)(orig - g->nodes);
    BZ_ASSERT(x->n > 0 && self >= 0 && self < g->n_nodes);
    /* the node that makes output 0 takes the original's place (the last one made otherwise) */
    int keeper = x->n - 1;
    for (int i = 0; i < x->n && orig->n_outputs && orig->outputs[0]; i++)
        for (int k = 0; k < x->nodes[i].n_outputs; k++)
            if (x->nodes[i].outputs[k] == orig->outputs[0])
                keeper = i;
    int total = g->n_nodes + x->n - 1;
    struct ir_node *nodes = bz_arena_array(&m->arena, (size_t)total, sizeof(*nodes));
    memcpy(nodes, g->nodes, (size_t)g->n_nodes * sizeof(*nodes));
    int *pos = bz_malloc((size_t)x->n * sizeof(int));
    for (int i = 0, next = g->n_nodes; i < x->n; i++) {
        pos[i] = i == keeper ? self : next++;
        nodes[pos[i]] = x->nodes[i];
        for (int k = 0; k < x->nodes[i].n_outputs; k++)
            if (x->nodes[i].outputs[k])
                x->nodes[i].outputs[k]->producer = pos[i];
    }
    /* every output the original made is made by one of its nodes now (an expansion's duty) */
    bool *made = bz_calloc((size_t)orig->n_outputs + 1, sizeof(bool));
    for (int i = 0; i < x->n; i++)
        for (int k = 0; k < x->nodes[i].n_outputs; k++)
            for (int j = 0; j < orig->n_outputs; j++)
                made[j] |= orig->outputs[j] && x->nodes[i].outputs[k] == orig->outputs[j];
    for (int j = 0; j < orig->n_outputs; j++)
        BZ_ASSERT(!orig->outputs[j] || made[j]);
    free(made);
    g->nodes = nodes;
    g->n_nodes = total;
    for (int i = 0; i < total; i++)
        reown_subgraphs(&g->nodes[i]);
    if (x->n_consts) {
        struct ir_value **inits =
            bz_arena_array(&m->arena, (size_t)(g->n_initializers + x->n_consts), sizeof(*inits));
        if (g->n_initializers)
            memcpy(inits, g->initializers, (size_t)g->n_initializers * sizeof(*inits));
        memcpy(inits + g->n_initializers, x->consts, (size_t)x->n_consts * sizeof(*inits));
        g->initializers = inits;
        g->n_initializers += x->n_consts;
    }
    /* the original node is gone: its pointer (x->c->n) must not be read from here on */
    x->c->n = NULL;
    *new_nodes = pos;
    *n_new = x->n;
}
