/* Layout changes: where a model's activations would have to move between NCHW and NHWC.
 *
 * Frameworks keep a CNN's activations in one layout on a GPU: NCHW, or NHWC (PyTorch's
 * channels_last) where Tensor Core convolutions want it. Under an all-NHWC plan every layer
 * that has no channels-last benchmark, a graph input (NCHW by ONNX's convention) and a graph
 * output still need NCHW, and the plan pays a transpose wherever the two meet. Which layers
 * run channels-last is known only from the results (agg), so gen records every 4-D activation
 * where a transpose could be needed, with its producer and readers, and makes its two
 * Transposes layers of their own, benchmarked like any other. */
#include "relayout.h"

#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

/* operators with channels-last benchmarks (ops/conv.c, ConvTranspose too; ops/pool.c, ops/norm.c) */
static bool has_channels_last(const char *op)
{
    static const char *const ops[] = {"Conv",          "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool",
                                      "GlobalMaxPool", "BatchNormalization"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strcmp(op, ops[i]))
            return true;
    return false;
}

/* a node that may have channels-last benchmarks: those operators, a Resize of a 4-D activation
 * (emit_cuda.c: our kernel channels-last, where it takes the resize: nearest or bilinear over
 * the last two dims; where it does not, the value's transposes are benchmarked for nothing and
 * agg keeps the node NCHW), and a softmax over the channels of a 4-D activation (ops/reduce.c:
 * opset 13 on, where the axis is not a 2-D view's) */
static bool node_channels_last(const struct ir_model *m, const struct ir_node *n)
{
    if (has_channels_last(n->op_type))
        return true;
    if (!strcmp(n->op_type, "Resize") || !strcmp(n->op_type, "Upsample"))
        return n->n_inputs && n->inputs[0] && n->inputs[0]->type.rank == 4;
    if ((strcmp(n->op_type, "Softmax") && strcmp(n->op_type, "LogSoftmax")) || ir_node_opset(m, n) < 13)
        return false;
    const struct ir_value *x = n->n_inputs ? n->inputs[0] : NULL;
    int64_t axis = ir_node_attr_int(n, "axis", -1);
    return x && x->type.rank == 4 && (axis == 1 || axis == -3);
}

/* a 4-D floating-point activation whose NCHW and NHWC orders differ (C > 1 and H * W > 1) */
static bool relayout_candidate(const struct ir_value *v)
{
    if (!v || v->is_const || v->type.kind != IR_TYPE_TENSOR || v->type.rank != 4)
        return false;
    int dt = v->type.dtype;
    if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_FLOAT16 && dt != IR_DTYPE_BFLOAT16)
        return false;
    for (int k = 0; k < 4; k++)
        if (v->type.dims[k].value < 1)
            return false;
    return v->type.dims[1].value > 1 && v->type.dims[2].value * v->type.dims[3].value > 1;
}

/* an operator that runs on either layout in the one its 4-D input has: elementwise (the
 * other operands broadcast along C or not at all), and a Concat or Split along the channels */
static bool layout_neutral(const struct ir_node *n)
{
    const struct op_def *d = op_find(n->domain, n->op_type);
    if (op_is_elementwise(d))
        return true;
    if (!strcmp(n->op_type, "Concat") || !strcmp(n->op_type, "Split")) {
        int64_t axis = ir_node_attr_int(n, "axis", strcmp(n->op_type, "Split") ? -99 : 0);
        return axis == 1 || axis == -3;
    }
    return false;
}

/* The Transpose that turns V (shape [N, C, H, W]) into NHWC (to_nhwc) or an NHWC copy of it
 * back into NCHW: the key a model's own Transpose node with that perm would have. */
static int transpose_layer(struct layer_set *s, const struct ir_value *v, bool to_nhwc, int run_index)
{
    int64_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = v->type.dims[k].value;
    int64_t nhwc[4] = {d[0], d[2], d[3], d[1]};
    const int64_t *in = to_nhwc ? d : nhwc, *out = to_nhwc ? nhwc : d;
    static const int perm_to_nhwc[4] = {0, 2, 3, 1}, perm_to_nchw[4] = {0, 3, 1, 2};
    const int *perm = to_nhwc ? perm_to_nhwc : perm_to_nchw;
    json_t *pj = json_array(), *ij = json_array(), *oj = json_array();
    for (int k = 0; k < 4; k++) {
        json_array_append_new(pj, json_integer(perm[k]));
        json_array_append_new(ij, json_integer(in[k]));
        json_array_append_new(oj, json_integer(out[k]));
    }
    const char *dt = ir_dtype_name(v->type.dtype);
    json_t *params = json_pack("{s:s,s:s,s:{s:o},s:[{s:s,s:o}],s:[{s:s,s:o}]}", "op", "Transpose", "domain", "",
                               "attrs", "perm", pj, "inputs", "dtype", dt, "shape", ij, "outputs", "dtype", dt,
                               "shape", oj);
    struct bz_buf name;
    bz_buf_init(&name);
    bz_buf_printf(&name, "relayout_%s_%lldx%lldx%lldx%lld_%s", to_nhwc ? "to_nhwc" : "to_nchw", (long long)d[0],
                  (long long)d[1], (long long)d[2], (long long)d[3], layer_dtype_suffix(v->type.dtype));
    int id = layer_set_intern(s, params, "Transpose", name.data, false, run_index);
    s->v[id].uses--; /* USES counts nodes: no node runs a layout change */
    bz_buf_free(&name);
    return id;
}

/* MAY: per node, whether an NHWC plan may run it channels-last (a node with channels-last
 * benchmarks, or an elementwise one reading a value made by such a node); a value none of
 * whose producer and readers may is NCHW on both sides in every plan, and is left out */
static void add_value(struct layer_set *s, struct model_run *run, int run_index, const struct ir_value *v,
                      const bool *may)
{
    const struct ir_graph *g = run->m->graph;
    struct relayout r = {.producer = v->producer, .output = v->is_output};
    bool any = v->producer >= 0 && may[v->producer];
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        bool reads = false;
        for (int k = 0; k < n->n_inputs + n->n_captures && !reads; k++)
            reads = (k < n->n_inputs ? n->inputs[k] : n->captures[k - n->n_inputs]) == v;
        if (!reads)
            continue;
        r.readers = bz_realloc(r.readers, (size_t)(r.n_readers + 1) * sizeof(int));
        r.neutral = bz_realloc(r.neutral, (size_t)(r.n_readers + 1) * sizeof(bool));
        r.readers[r.n_readers] = i;
        r.neutral[r.n_readers++] = layout_neutral(n);
        any = any || may[i];
    }
    if ((!r.n_readers && !r.output) || !any) {
        free(r.readers);
        free(r.neutral);
        return;
    }
    r.to_nhwc = transpose_layer(s, v, true, run_index);
    r.to_nchw = transpose_layer(s, v, false, run_index);
    run->relayouts = bz_realloc(run->relayouts, (size_t)(run->n_relayouts + 1) * sizeof(r));
    run->relayouts[run->n_relayouts++] = r;
}

void relayout_find(struct layer_set *s, struct model_run *run, int run_index)
{
    const struct ir_graph *g = run->m->graph;
    bool any = false;
    for (int i = 0; i < g->n_nodes && !any; i++)
        any = run->cls[i] == NODE_COMPUTE && node_channels_last(run->m, &g->nodes[i]);
    if (!any)
        return; /* every layer runs in NCHW: nothing to change */
    /* graph inputs first, then the nodes' outputs in a topological order: a value's producer
     * comes before every value it reads (agg resolves the elementwise layers' layouts in
     * this order) */
    bool *may = bz_calloc((size_t)g->n_nodes + 1, sizeof(bool));
    for (int t = 0; t < g->n_nodes; t++) {
        int i = g->topo ? g->topo[t] : t;
        const struct ir_node *n = &g->nodes[i];
        may[i] = run->cls[i] == NODE_COMPUTE && node_channels_last(run->m, n);
        for (int k = 0; !may[i] && layout_neutral(n) && k < n->n_inputs; k++) {
            const struct ir_value *x = n->inputs[k];
            may[i] = x && x->graph == g && x->producer >= 0 && may[x->producer];
        }
    }
    for (int i = 0; i < g->n_inputs; i++)
        if (relayout_candidate(g->inputs[i]))
            add_value(s, run, run_index, g->inputs[i], may);
    for (int t = 0; t < g->n_nodes; t++) {
        const struct ir_node *n = &g->nodes[g->topo ? g->topo[t] : t];
        for (int k = 0; k < n->n_outputs; k++)
            if (relayout_candidate(n->outputs[k]))
                add_value(s, run, run_index, n->outputs[k], may);
    }
    free(may);
}
