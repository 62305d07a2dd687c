/* IR helpers: name tables, scoped value lookup, attribute access, formatting. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static const char *const ir_dtype_names[] = {
    [IR_DTYPE_UNDEFINED] = "UNDEFINED",
    [IR_DTYPE_FLOAT] = "FLOAT",
    [IR_DTYPE_UINT8] = "UINT8",
    [IR_DTYPE_INT8] = "INT8",
    [IR_DTYPE_UINT16] = "UINT16",
    [IR_DTYPE_INT16] = "INT16",
    [IR_DTYPE_INT32] = "INT32",
    [IR_DTYPE_INT64] = "INT64",
    [IR_DTYPE_STRING] = "STRING",
    [IR_DTYPE_BOOL] = "BOOL",
    [IR_DTYPE_FLOAT16] = "FLOAT16",
    [IR_DTYPE_DOUBLE] = "DOUBLE",
    [IR_DTYPE_UINT32] = "UINT32",
    [IR_DTYPE_UINT64] = "UINT64",
    [IR_DTYPE_COMPLEX64] = "COMPLEX64",
    [IR_DTYPE_COMPLEX128] = "COMPLEX128",
    [IR_DTYPE_BFLOAT16] = "BFLOAT16",
    [IR_DTYPE_FLOAT8E4M3FN] = "FLOAT8E4M3FN",
    [IR_DTYPE_FLOAT8E4M3FNUZ] = "FLOAT8E4M3FNUZ",
    [IR_DTYPE_FLOAT8E5M2] = "FLOAT8E5M2",
    [IR_DTYPE_FLOAT8E5M2FNUZ] = "FLOAT8E5M2FNUZ",
    [IR_DTYPE_UINT4] = "UINT4",
    [IR_DTYPE_INT4] = "INT4",
    [IR_DTYPE_FLOAT4E2M1] = "FLOAT4E2M1",
    [IR_DTYPE_FLOAT8E8M0] = "FLOAT8E8M0",
    [IR_DTYPE_UINT2] = "UINT2",
    [IR_DTYPE_INT2] = "INT2",
    [IR_DTYPE_FLOAT6E2M3] = "FLOAT6E2M3",
    [IR_DTYPE_FLOAT6E3M2] = "FLOAT6E3M2",
};
_Static_assert(BZ_ARRAY_LEN(ir_dtype_names) == IR_DTYPE_COUNT, "a name per dtype");

static const unsigned char ir_dtype_bit_sizes[] = {
    [IR_DTYPE_UNDEFINED] = 0, [IR_DTYPE_FLOAT] = 32,   [IR_DTYPE_UINT8] = 8,
    [IR_DTYPE_INT8] = 8,      [IR_DTYPE_UINT16] = 16,  [IR_DTYPE_INT16] = 16,
    [IR_DTYPE_INT32] = 32,    [IR_DTYPE_INT64] = 64,   [IR_DTYPE_STRING] = 0,
    [IR_DTYPE_BOOL] = 8,      [IR_DTYPE_FLOAT16] = 16, [IR_DTYPE_DOUBLE] = 64,
    [IR_DTYPE_UINT32] = 32,   [IR_DTYPE_UINT64] = 64,  [IR_DTYPE_COMPLEX64] = 64,
    [IR_DTYPE_COMPLEX128] = 128, [IR_DTYPE_BFLOAT16] = 16, [IR_DTYPE_FLOAT8E4M3FN] = 8,
    [IR_DTYPE_FLOAT8E4M3FNUZ] = 8, [IR_DTYPE_FLOAT8E5M2] = 8, [IR_DTYPE_FLOAT8E5M2FNUZ] = 8,
    [IR_DTYPE_UINT4] = 4,     [IR_DTYPE_INT4] = 4,     [IR_DTYPE_FLOAT4E2M1] = 4,
    [IR_DTYPE_FLOAT8E8M0] = 8, [IR_DTYPE_UINT2] = 2,   [IR_DTYPE_INT2] = 2,
    [IR_DTYPE_FLOAT6E2M3] = 6, [IR_DTYPE_FLOAT6E3M2] = 6,
};
_Static_assert(BZ_ARRAY_LEN(ir_dtype_bit_sizes) == IR_DTYPE_COUNT, "a size per dtype");

const char *ir_dtype_name(int dtype)
{
    return dtype >= 0 && dtype < IR_DTYPE_COUNT ? ir_dtype_names[dtype] : NULL;
}

int ir_dtype_bits(int dtype)
{
    return dtype >= 0 && dtype < IR_DTYPE_COUNT ? ir_dtype_bit_sizes[dtype] : 0;
}

static const char *const ir_type_kind_names[] = {
    [IR_TYPE_NONE] = "none",         [IR_TYPE_TENSOR] = "tensor",
    [IR_TYPE_SPARSE_TENSOR] = "sparse_tensor", [IR_TYPE_SEQUENCE] = "sequence",
    [IR_TYPE_MAP] = "map",           [IR_TYPE_OPTIONAL] = "optional",
};
_Static_assert(BZ_ARRAY_LEN(ir_type_kind_names) == IR_TYPE_KIND_COUNT, "a name per kind");

const char *ir_type_kind_name(enum ir_type_kind k)
{
    return (unsigned)k < IR_TYPE_KIND_COUNT ? ir_type_kind_names[k] : "?";
}

static const char *const ir_attr_type_names[] = {
    [IR_ATTR_UNDEFINED] = "undefined",   [IR_ATTR_FLOAT] = "float",
    [IR_ATTR_INT] = "int",               [IR_ATTR_STRING] = "string",
    [IR_ATTR_TENSOR] = "tensor",         [IR_ATTR_GRAPH] = "graph",
    [IR_ATTR_FLOATS] = "floats",         [IR_ATTR_INTS] = "ints",
    [IR_ATTR_STRINGS] = "strings",       [IR_ATTR_TENSORS] = "tensors",
    [IR_ATTR_GRAPHS] = "graphs",         [IR_ATTR_SPARSE_TENSOR] = "sparse_tensor",
    [IR_ATTR_SPARSE_TENSORS] = "sparse_tensors", [IR_ATTR_TYPE_PROTO] = "type_proto",
    [IR_ATTR_TYPE_PROTOS] = "type_protos",
};
_Static_assert(BZ_ARRAY_LEN(ir_attr_type_names) == IR_ATTR_TYPE_COUNT, "a name per attr type");

const char *ir_attr_type_name(int t)
{
    return t >= 0 && t < IR_ATTR_TYPE_COUNT ? ir_attr_type_names[t] : "?";
}

bool ir_domain_is_onnx(const char *domain)
{
    return !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
}

int64_t ir_model_opset(const struct ir_model *m, const char *domain)
{
    bool onnx = ir_domain_is_onnx(domain);
    for (int i = 0; i < m->n_opsets; i++) {
        const char *d = m->opsets[i].domain;
        if (onnx ? ir_domain_is_onnx(d) : strcmp(d, domain) == 0)
            return m->opsets[i].version;
    }
    return 0;
}

int64_t ir_node_opset(const struct ir_model *m, const struct ir_node *n)
{
    return n->opset > 0 ? n->opset : ir_model_opset(m, n->domain);
}

/* Min-heap of node indices: Kahn's algorithm that keeps file order where it can. */
static void heap_push(int *h, int *n, int x)
{
    int i = (*n)++;
    h[i] = x;
    while (i > 0 && h[(i - 1) / 2] > h[i]) {
        int p = (i - 1) / 2, t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static int heap_pop(int *h, int *n)
{
    int top = h[0];
    h[0] = h[--(*n)];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l] < h[m])
            m = l;
        if (r < *n && h[r] < h[m])
            m = r;
        if (m == i)
            break;
        int t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
    return top;
}

static int ir_node_dep(const struct ir_graph *g, const struct ir_value *v)
{
    return v && v->graph == g ? v->producer : -1;
}

int ir_graph_sort(struct ir_model *m, struct ir_graph *g, int **left)
{
    int n = g->n_nodes;
    g->topo = bz_arena_array(&m->arena, (size_t)(n ? n : 1), sizeof(int));
    if (left)
        *left = NULL;
    if (n == 0)
        return 0;
    int *indeg = bz_calloc((size_t)n, sizeof(int));
    int *nsucc = bz_calloc((size_t)n + 1, sizeof(int));
    /* count edges (with multiplicity), then fill a CSR successor list */
    for (int i = 0; i < n; i++) {
        const struct ir_node *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_inputs + nd->n_captures; k++) {
            const struct ir_value *v = k < nd->n_inputs ? nd->inputs[k] : nd->captures[k - nd->n_inputs];
            int p = ir_node_dep(g, v);
            if (p >= 0) {
                indeg[i]++;
                nsucc[p + 1]++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        nsucc[i + 1] += nsucc[i];
    int *succ = bz_malloc(((size_t)nsucc[n] + 1) * sizeof(int));
    int *fill = bz_malloc(((size_t)n + 1) * sizeof(int));
    memcpy(fill, nsucc, ((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        const struct ir_node *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_inputs + nd->n_captures; k++) {
            const struct ir_value *v = k < nd->n_inputs ? nd->inputs[k] : nd->captures[k - nd->n_inputs];
            int p = ir_node_dep(g, v);
            if (p >= 0)
                succ[fill[p]++] = i;
        }
    }
    int *heap = bz_malloc((size_t)n * sizeof(int));
    int hn = 0, done = 0;
    for (int i = 0; i < n; i++)
        if (indeg[i] == 0)
            heap_push(heap, &hn, i);
    while (hn) {
        int x = heap_pop(heap, &hn);
        g->topo[done++] = x;
        for (int e = nsucc[x]; e < nsucc[x + 1]; e++)
            if (--indeg[succ[e]] == 0)
                heap_push(heap, &hn, succ[e]);
    }
    free(heap);
    free(fill);
    free(succ);
    free(nsucc);
    if (done < n && left)
        *left = indeg;
    else
        free(indeg);
    return done;
}

/* FNV-1a: names are short and the table is rebuilt per graph, nothing fancier needed. */
#define ir_hash_name bz_hash_str

struct ir_value *ir_graph_find_local(const struct ir_graph *g, const char *name)
{
    if (!g->hash_cap)
        return NULL;
    size_t mask = g->hash_cap - 1;
    for (size_t i = ir_hash_name(name) & mask;; i = (i + 1) & mask) {
        struct ir_value *v = g->hash[i];
        if (!v)
            return NULL;
        if (strcmp(v->name, name) == 0)
            return v;
    }
}

struct ir_value *ir_graph_find(const struct ir_graph *g, const char *name)
{
    for (; g; g = g->parent) {
        struct ir_value *v = ir_graph_find_local(g, name);
        if (v)
            return v;
    }
    return NULL;
}

static void ir_graph_rehash(struct ir_model *m, struct ir_graph *g, size_t cap)
{
    struct ir_value **hash = bz_arena_array(&m->arena, cap, sizeof(*hash));
    size_t mask = cap - 1;
    for (int k = 0; k < g->n_values; k++) {
        size_t i = ir_hash_name(g->values[k]->name) & mask;
        while (hash[i])
            i = (i + 1) & mask;
        hash[i] = g->values[k];
    }
    g->hash = hash;
    g->hash_cap = cap;
}

struct ir_value *ir_graph_add_value(struct ir_model *m, struct ir_graph *g, const char *name)
{
    if (ir_graph_find_local(g, name))
        return NULL;
    /* values[] grows by doubling inside the arena; the old arrays are garbage
     * until the model is freed, which costs at most as much as the final array. */
    if ((g->n_values & (g->n_values - 1)) == 0) {
        size_t cap = g->n_values ? (size_t)g->n_values * 2 : 8;
        struct ir_value **nv = bz_arena_array(&m->arena, cap, sizeof(*nv));
        if (g->n_values)
            memcpy(nv, g->values, (size_t)g->n_values * sizeof(*nv));
        g->values = nv;
    }
    struct ir_value *v = bz_arena_alloc(&m->arena, sizeof(*v));
    v->name = bz_arena_strdup(&m->arena, name);
    v->producer = -1;
    v->graph = g;
    v->type.rank = -1;
    v->sym_len = -1;
    g->values[g->n_values++] = v;
    if ((size_t)g->n_values * 2 > g->hash_cap) {
        ir_graph_rehash(m, g, g->hash_cap ? g->hash_cap * 2 : 16);
    } else {
        size_t mask = g->hash_cap - 1;
        size_t i = ir_hash_name(name) & mask;
        while (g->hash[i])
            i = (i + 1) & mask;
        g->hash[i] = v;
    }
    return v;
}

const struct ir_attr *ir_node_attr(const struct ir_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t ir_node_attr_int(const struct ir_node *n, const char *name, int64_t dflt)
{
    const struct ir_attr *a = ir_node_attr(n, name);
    return a && a->type == IR_ATTR_INT ? a->u.i : dflt;
}

float ir_node_attr_float(const struct ir_node *n, const char *name, float dflt)
{
    const struct ir_attr *a = ir_node_attr(n, name);
    return a && a->type == IR_ATTR_FLOAT ? a->u.f : dflt;
}

void ir_model_free(struct ir_model *m)
{
    if (!m)
        return;
    struct bz_arena arena = m->arena; /* the model itself lives in its arena */
    bz_arena_free(&arena);
}

void ir_type_format(struct bz_buf *b, const struct ir_type *t)
{
    if (t->kind == IR_TYPE_NONE) {
        bz_buf_puts(b, "?");
        return;
    }
    if (t->kind != IR_TYPE_TENSOR)
        bz_buf_printf(b, "%s<", ir_type_kind_name(t->kind));
    const char *dn = ir_dtype_name(t->dtype);
    if (dn)
        bz_buf_puts(b, dn);
    else
        bz_buf_printf(b, "DTYPE%d", t->dtype);
    if (t->rank < 0) {
        if (t->kind == IR_TYPE_TENSOR || t->kind == IR_TYPE_SPARSE_TENSOR)
            bz_buf_puts(b, "[?]");
    } else {
        bz_buf_putc(b, '[');
        for (int i = 0; i < t->rank; i++) {
            if (i)
                bz_buf_putc(b, ',');
            if (t->dims[i].value >= 0)
                bz_buf_printf(b, "%lld", (long long)t->dims[i].value);
            else if (t->dims[i].param)
                bz_buf_quote(b, t->dims[i].param, strlen(t->dims[i].param));
            else
                bz_buf_putc(b, '?');
        }
        bz_buf_putc(b, ']');
    }
    if (t->kind != IR_TYPE_TENSOR)
        bz_buf_putc(b, '>');
}

void ir_node_where(struct bz_buf *b, const struct ir_node *n)
{
    bz_buf_printf(b, "node[%d] (", n->index);
    bz_buf_quote(b, n->op_type, strlen(n->op_type));
    if (n->name && *n->name) {
        bz_buf_puts(b, " '");
        bz_buf_quote(b, n->name, strlen(n->name));
        bz_buf_putc(b, '\'');
    }
    bz_buf_putc(b, ')');
}
