/* Fusion patterns: DequantizeLinear->Conv/MatMul[->Relu]->QuantizeLinear (one int8 primitive, as
 * frameworks run a QDQ model), Conv(+bias)[->BatchNormalization][->Add(residual)][->act] (BN
 * folding, sum and eltwise post-ops),
 * Gemm/MatMul->Add(bias)(->Relu/Gelu), and the decomposed LayerNorm and GELU subgraphs
 * that exporters write out op by op. */
#include "fusion.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "plan.h"

struct fctx {
    struct model_run *run;
    const struct ir_graph *g;
    int *n_consumers;     /* per node output 0: how many node inputs read it (+1 if graph output) */
    int *consumer;        /* per node output 0: the consumer when there is exactly one */
    bool *taken;
};

static int producer(const struct ir_value *v)
{
    return v && v->producer >= 0 && !v->graph->parent ? v->producer : -1;
}

/* The only consumer of node i's first output, if it has exactly one and is not a graph output. */
static int only_consumer(const struct fctx *f, int i)
{
    return f->n_consumers[i] == 1 ? f->consumer[i] : -1;
}

static bool is_op(const struct fctx *f, int i, const char *op)
{
    return i >= 0 && !f->taken[i] && f->run->cls[i] == NODE_COMPUTE &&
           !strcmp(f->g->nodes[i].op_type, op);
}

static bool is_act(const struct fctx *f, int i)
{
    return is_op(f, i, "Relu") || is_op(f, i, "Sigmoid") || is_op(f, i, "Tanh") || is_op(f, i, "Clip") ||
           is_op(f, i, "LeakyRelu");
}

/* The other input of a binary node, given one of them. */
static const struct ir_value *other_input(const struct ir_node *n, const struct ir_value *v)
{
    if (n->n_inputs != 2)
        return NULL;
    return n->inputs[0] == v ? n->inputs[1] : n->inputs[1] == v ? n->inputs[0] : NULL;
}

/* the value of a known constant of one element (float or double) */
static bool scalar_of(const struct ir_value *v, double *x)
{
    if (!v || !v->is_const || !v->val || !v->val->data_kept || v->val->nelem != 1)
        return false;
    const struct ir_tensor *t = v->val;
    if (t->dtype == IR_DTYPE_FLOAT) {
        float fv;
        memcpy(&fv, t->data, 4);
        *x = fv;
    } else if (t->dtype == IR_DTYPE_DOUBLE) {
        memcpy(x, t->data, 8);
    } else if (t->dtype == IR_DTYPE_FLOAT16 || t->dtype == IR_DTYPE_BFLOAT16) {
        uint16_t h;
        memcpy(&h, t->data, 2);
        *x = t->dtype == IR_DTYPE_FLOAT16 ? pl_f16_to_f32(h) : pl_bf16_to_f32(h);
    } else {
        return false;
    }
    return true;
}

/* a constant scalar within TOL of WANT, or WANT rounded to the constant's 16-bit float type
 * (an f16 or bf16 export's constants: bf16 holds sqrt(2 / pi) only to 2^-8); any value when
 * WANT is NaN */
static bool const_scalar(const struct ir_value *v, double want, double tol)
{
    double x;
    if (!scalar_of(v, &x))
        return false;
    if (want != want || fabs(x - want) <= tol)
        return true;
    int dt = v->val->dtype;
    return (dt == IR_DTYPE_FLOAT16 && x == pl_f16_to_f32(pl_f32_to_f16((float)want))) ||
           (dt == IR_DTYPE_BFLOAT16 && x == pl_bf16_to_f32(pl_f32_to_bf16((float)want)));
}

/* The fused layer of NODES as pattern PATTERN (EXTRA, owned, NULL for none: what its plans
 * need beyond its members' keys), named PREFIX__ and its first member's name */
static int group_layer(struct layer_set *s, const struct fctx *f, const char *pattern, const char *prefix,
                       const int *nodes, int n, int run_index, json_t *extra)
{
    const struct model_run *run = f->run;
    json_t *members = json_array();
    struct bz_buf op, name;
    bz_buf_init(&op);
    bz_buf_init(&name);
    bz_buf_printf(&name, "%s__%s", prefix, s->v[run->layer[nodes[0]]].name);
    for (int k = 0; k < n; k++) {
        const struct layer *l = &s->v[run->layer[nodes[k]]];
        json_array_append(members, l->params);
        bz_buf_printf(&op, "%s%s", k ? "+" : "", f->g->nodes[nodes[k]].op_type);
    }
    json_t *params = json_pack("{s:s,s:s,s:o}", "op", "Fusion", "pattern", pattern, "members", members);
    if (extra)
        json_object_set_new(params, pattern, extra);
    int layer = layer_set_intern(s, params, op.data, name.data, true, run_index);
    bz_buf_free(&op);
    bz_buf_free(&name);
    return layer;
}

/* the group of NODES (the last one the node that gives its result) with the fused layer LAYER:
 * its nodes taken. NODES may hold views (free nodes) the layer's key leaves out, so that every
 * value between its members stays inside it */
static void add_group_nodes(struct fctx *f, const char *pattern, int layer, const int *nodes, int n)
{
    struct model_run *run = f->run;
    run->groups = bz_realloc(run->groups, (size_t)(run->n_groups + 1) * sizeof(*run->groups));
    struct fusion_group *fg = &run->groups[run->n_groups];
    BZ_ASSERT(n <= (int)BZ_ARRAY_LEN(fg->nodes));
    memset(fg, 0, sizeof(*fg));
    fg->id = run->n_groups;
    fg->pattern = pattern;
    fg->n_nodes = n;
    for (int k = 0; k < n; k++) {
        fg->nodes[k] = nodes[k];
        f->taken[nodes[k]] = true;
        run->group[nodes[k]] = run->n_groups;
    }
    fg->layer = layer;
    run->n_groups++;
}

/* the group of NODES: its layer (group_layer over its computing nodes: a view the group holds,
 * a free node with no layer, stays out of the key), its nodes taken */
static void add_group_as(struct layer_set *s, struct fctx *f, const char *pattern, const char *prefix,
                         const int *nodes, int n, int run_index, json_t *extra)
{
    int members[BZ_ARRAY_LEN(((struct fusion_group *)NULL)->nodes)], nm = 0;
    BZ_ASSERT(n <= (int)BZ_ARRAY_LEN(members));
    for (int k = 0; k < n; k++)
        if (f->run->cls[nodes[k]] != NODE_FREE)
            members[nm++] = nodes[k];
    add_group_nodes(f, pattern, group_layer(s, f, pattern, prefix, members, nm, run_index, extra), nodes, n);
}

/* the group's layer named after its pattern */
static void add_group(struct layer_set *s, struct fctx *f, const char *pattern, const int *nodes, int n,
                      int run_index, json_t *extra)
{
    add_group_as(s, f, pattern, pattern, nodes, n, run_index, extra);
}

/* whether A and B have the same rank and dims */
static bool same_dims(const struct ir_value *a, const struct ir_value *b)
{
    if (a->type.rank != b->type.rank)
        return false;
    for (int k = 0; k < a->type.rank; k++)
        if (a->type.dims[k].value != b->type.dims[k].value)
            return false;
    return true;
}

/* An Add (or a two-input Sum) of the node's output and another tensor of the same shape: a
 * residual sum. */
static bool is_residual_add(const struct fctx *f, int add, const struct ir_value *y)
{
    if (!is_op(f, add, "Add") && !(is_op(f, add, "Sum") && f->g->nodes[add].n_inputs == 2))
        return false;
    const struct ir_value *other = other_input(&f->g->nodes[add], y);
    return other && other != y && !other->is_const && same_dims(other, y);
}

/* a part of the last group made (its nodes NODES, a group of PATTERN of their own; EXTRA, owned,
 * as add_group's) */
static void add_part(struct layer_set *s, struct fctx *f, const char *pattern, const int *nodes, int n, int run_index,
                     json_t *extra)
{
    struct fusion_group *fg = &f->run->groups[f->run->n_groups - 1];
    BZ_ASSERT(fg->n_parts < (int)BZ_ARRAY_LEN(fg->parts) && n <= (int)BZ_ARRAY_LEN(fg->parts[0].nodes));
    struct fusion_part *pt = &fg->parts[fg->n_parts++];
    pt->pattern = pattern;
    pt->n_nodes = n;
    memcpy(pt->nodes, nodes, (size_t)n * sizeof(*nodes));
    pt->layer = group_layer(s, f, pattern, pattern, nodes, n, run_index, extra);
}

/* the Mul of a SiLU whose Sigmoid is node I: Sigmoid(x) read by Mul(x, .) alone (-1: none) */
static int silu_mul(const struct fctx *f, int i)
{
    const struct ir_graph *g = f->g;
    if (!is_op(f, i, "Sigmoid"))
        return -1;
    const struct ir_value *x = g->nodes[i].inputs[0];
    int m = only_consumer(f, i);
    return x && is_op(f, m, "Mul") && other_input(&g->nodes[m], g->nodes[i].outputs[0]) == x ? m : -1;
}

/* Sigmoid(y) -> Mul(y, .) after node LAST, whose output y those two read and nothing else: a
 * SiLU as the activation of a fused group; its two nodes go into NODES at *N */
static bool silu_after(const struct fctx *f, int last, int *nodes, int *n)
{
    const struct ir_graph *g = f->g;
    const struct ir_value *y = g->nodes[last].outputs[0];
    if (f->n_consumers[last] != 2)
        return false;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!is_op(f, i, "Sigmoid") || g->nodes[i].inputs[0] != y)
            continue;
        int m = silu_mul(f, i);
        if (m < 0)
            return false;
        nodes[(*n)++] = i;
        nodes[(*n)++] = m;
        return true;
    }
    return false;
}

/* Conv node i is grouped with more than one input channel per group (ShuffleNet's and
 * ResNeXt's, not a depthwise one): oneDNN runs it as GEMMs, and in oneDNN 2.6 their eltwise
 * post-op costs more than a kernel of its own (ShuffleNet v1's 1x1 of 24 -> 112 channels in 4
 * groups at 56 x 56, with the bias of a folded batch norm: 827 us with the Relu post-op, 52 us
 * without, the Relu 16 us alone; ONNX Runtime's node 66 us) */
static bool grouped_conv(const struct fctx *f, int i)
{
    const struct ir_node *n = &f->g->nodes[i];
    const struct ir_value *w = n->n_inputs > 1 ? n->inputs[1] : NULL;
    return ir_node_attr_int(n, "group", 1) > 1 && w && w->type.rank >= 3 && w->type.dims[1].value > 1;
}

/* Conv [-> BatchNormalization] [-> Add(residual)] [-> activation]: what a library runs as one
 * convolution with the BN folded in and sum and eltwise post-ops. The activation is one node
 * (Relu, Sigmoid, Tanh, Clip, LeakyRelu: ONNX Runtime's CPU convolution runs a LeakyRelu fused
 * too, as its profile of retinaface shows) or a SiLU's Sigmoid and Mul (YOLOv5's,
 * EfficientNet's). A LeakyRelu has no cuDNN form here: on a GPU the group's members run. */
static void find_conv(struct layer_set *s, struct fctx *f, int run_index)
{
    static const char *const patterns[2][2][2] = {
        /* [bn][add][act] */
        {{NULL, "conv_act"}, {"conv_add", "conv_add_act"}},
        {{"conv_bn", "conv_bn_act"}, {"conv_bn_add", "conv_bn_add_act"}},
    };
    for (int i = 0; i < f->g->n_nodes; i++) {
        if (!is_op(f, i, "Conv"))
            continue;
        int nodes[5], n = 0, last = i;
        nodes[n++] = i;
        bool bn = false, add = false, act = false;
        int c = only_consumer(f, last);
        if (is_op(f, c, "BatchNormalization") && f->g->nodes[c].inputs[0] == f->g->nodes[last].outputs[0]) {
            nodes[n++] = last = c;
            bn = true;
            c = only_consumer(f, last);
        }
        if (is_residual_add(f, c, f->g->nodes[last].outputs[0])) {
            nodes[n++] = last = c;
            add = true;
            c = only_consumer(f, last);
        }
        if (is_act(f, c)) {
            nodes[n++] = c;
            act = true;
        } else {
            act = silu_after(f, last, nodes, &n);
        }
        const char *pattern = patterns[bn][add][act];
        if (!pattern)
            continue;
        add_group(s, f, pattern, nodes, n, run_index, NULL);
        if (!act)
            continue;
        /* where no library fuses the activation into the convolution (cuDNN's legacy call takes
         * Relu alone; the graph's engines may refuse the others), the members' side still has
         * the convolution with its batch norm folded and its sum, and a SiLU as the silu group
         * (a Relu group, which the legacy call fuses in every type, has no parts, unless its
         * convolution is grouped: grouped_conv) */
        int nact = strcmp(f->g->nodes[nodes[n - 1]].op_type, "Mul") ? 1 : 2;
        if ((bn || add) && (strcmp(f->g->nodes[nodes[n - 1]].op_type, "Relu") != 0 || grouped_conv(f, i)))
            add_part(s, f, patterns[bn][add][0], nodes, n - nact, run_index, NULL);
        if (nact == 2)
            add_part(s, f, "silu", nodes + n - 2, 2, run_index, NULL);
    }
}

/* DequantizeLinear -> Conv (or MatMul) [-> Relu] -> QuantizeLinear, the quantized layer of a
 * QDQ model: the weights' DequantizeLinear reads a constant, so it is a free node and the Conv
 * sees constant weights; the activation's is the group's first member. */
static void find_qdq(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!is_op(f, i, "DequantizeLinear"))
            continue;
        int core = only_consumer(f, i);
        bool conv = is_op(f, core, "Conv");
        if (!(conv || is_op(f, core, "MatMul")) || g->nodes[core].inputs[0] != g->nodes[i].outputs[0] ||
            g->nodes[core].n_inputs < 2 || !g->nodes[core].inputs[1] || !g->nodes[core].inputs[1]->is_const)
            continue;
        int nodes[4] = {i, core}, n = 2, last = core;
        int c = only_consumer(f, last);
        if (is_op(f, c, "Relu") && g->nodes[c].inputs[0] == g->nodes[last].outputs[0]) {
            nodes[n++] = last = c;
            c = only_consumer(f, last);
        }
        if (!is_op(f, c, "QuantizeLinear") || g->nodes[c].inputs[0] != g->nodes[last].outputs[0])
            continue;
        nodes[n++] = c;
        add_group(s, f, conv ? (n == 4 ? "qdq_conv_act" : "qdq_conv") : (n == 4 ? "qdq_matmul_act" : "qdq_matmul"),
                  nodes, n, run_index, NULL);
    }
}

/* a bias: constant, broadcast along the last dim only */
static bool is_bias(const struct ir_value *b, const struct ir_type *out)
{
    if (!b || !b->is_const || b->type.rank < 1 || out->rank < 1)
        return false;
    for (int k = 0; k < b->type.rank - 1; k++)
        if (b->type.dims[k].value != 1)
            return false;
    return b->type.dims[b->type.rank - 1].value == out->dims[out->rank - 1].value;
}

static void find_gemm(struct layer_set *s, struct fctx *f, int run_index)
{
    for (int i = 0; i < f->g->n_nodes; i++) {
        if (!is_op(f, i, "Gemm") && !is_op(f, i, "MatMul"))
            continue;
        const struct ir_node *mm = &f->g->nodes[i];
        int nodes[3] = {i, -1, -1};
        int c1 = only_consumer(f, i);
        if (is_op(f, c1, "Add") && is_bias(other_input(&f->g->nodes[c1], mm->outputs[0]), &mm->outputs[0]->type)) {
            nodes[1] = c1;
            int c2 = only_consumer(f, c1);
            if (is_op(f, c2, "Relu") || is_op(f, c2, "Gelu")) {
                nodes[2] = c2;
                add_group(s, f, "gemm_bias_act", nodes, 3, run_index, NULL);
                /* cuBLASLt's GELU epilogue is the tanh approximation: with an erf GELU the
                 * members' side still has the GEMM with its bias, as frameworks run a Linear */
                const struct ir_attr *ap = ir_node_attr(&f->g->nodes[c2], "approximate");
                if (!strcmp(f->g->nodes[c2].op_type, "Gelu") &&
                    (!ap || ap->type != IR_ATTR_STRING || strcmp(ap->u.s.data, "tanh") != 0))
                    add_part(s, f, "gemm_bias", nodes, 2, run_index, NULL);
            } else {
                add_group(s, f, "gemm_bias", nodes, 2, run_index, NULL);
            }
        } else if (is_op(f, c1, "Relu") || is_op(f, c1, "Gelu")) {
            nodes[1] = c1;
            add_group(s, f, "gemm_act", nodes, 2, run_index, NULL);
        }
    }
}

/* ReduceMean(x) -> Sub(x, mean) -> Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(d, .)
 * [-> Mul(gamma) -> Add(beta)] */
static void find_layernorm(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!is_op(f, i, "ReduceMean"))
            continue;
        const struct ir_value *x = g->nodes[i].inputs[0];
        int sub = -1;
        /* the mean may be read by the Sub only */
        int c = only_consumer(f, i);
        if (is_op(f, c, "Sub") && g->nodes[c].inputs[0] == x && g->nodes[c].inputs[1] == g->nodes[i].outputs[0])
            sub = c;
        if (sub < 0 || f->n_consumers[sub] != 2)
            continue;
        const struct ir_value *d = g->nodes[sub].outputs[0];
        int pow = -1, div = -1;
        for (int k = 0; k < g->n_nodes; k++) {
            if (k == sub)
                continue;
            if (is_op(f, k, "Pow") && g->nodes[k].inputs[0] == d && const_scalar(g->nodes[k].inputs[1], 2.0, 1e-6))
                pow = k;
            if (is_op(f, k, "Div") && g->nodes[k].inputs[0] == d)
                div = k;
        }
        if (pow < 0 || div < 0)
            continue;
        int r2 = only_consumer(f, pow);
        if (!is_op(f, r2, "ReduceMean"))
            continue;
        int add = only_consumer(f, r2);
        if (!is_op(f, add, "Add") || !const_scalar(other_input(&g->nodes[add], g->nodes[r2].outputs[0]), NAN, 0))
            continue;
        int sq = only_consumer(f, add);
        if (!is_op(f, sq, "Sqrt") || only_consumer(f, sq) != div || g->nodes[div].inputs[1] != g->nodes[sq].outputs[0])
            continue;
        int nodes[9] = {i, sub, pow, r2, add, sq, div};
        int n = 7;
        int mul = only_consumer(f, div);
        if (is_op(f, mul, "Mul") && other_input(&g->nodes[mul], g->nodes[div].outputs[0]) &&
            other_input(&g->nodes[mul], g->nodes[div].outputs[0])->is_const) {
            nodes[n++] = mul;
            int ad = only_consumer(f, mul);
            if (is_op(f, ad, "Add") && other_input(&g->nodes[ad], g->nodes[mul].outputs[0]) &&
                other_input(&g->nodes[ad], g->nodes[mul].outputs[0])->is_const)
                nodes[n++] = ad;
        }
        add_group(s, f, "layernorm", nodes, n, run_index, NULL);
    }
}

/* whether Y (ReduceMean's output) is X reduced over its last axis alone, the dims kept */
static bool reduces_last_axis(const struct ir_value *x, const struct ir_value *y)
{
    int r = x ? x->type.rank : 0;
    if (r < 1 || !y || y->type.rank != r)
        return false;
    for (int k = 0; k < r; k++)
        if (!dim_known(x->type.dims[k]) || !dim_known(y->type.dims[k]) ||
            y->type.dims[k].value != (k == r - 1 ? 1 : x->type.dims[k].value))
            return false;
    return true;
}

/* RMSNorm over the last axis: Mul(x, x) or Pow(x, 2) -> ReduceMean (dims kept) -> Add(eps) ->
 * Sqrt -> Div(x, .), or -> Reciprocal -> Mul(x, .) [-> Mul by a constant row of the last dim]:
 * ONNX's RMSNormalization as its function body writes it (gen's expansion), and PyTorch's
 * x * rsqrt(mean(x^2) + eps) * weight as exported; in f16 or bf16 with x the Cast of the input
 * to float and the result cast back before the scale (Llama's LlamaRMSNorm, a float stash) */
static void find_rmsnorm(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *sq = &g->nodes[i];
        const struct ir_value *x = sq->n_inputs == 2 ? sq->inputs[0] : NULL;
        if (!x || f->taken[i] ||
            !((is_op(f, i, "Mul") && sq->inputs[1] == x) || (is_op(f, i, "Pow") && const_scalar(sq->inputs[1], 2.0, 0))))
            continue;
        int rm = only_consumer(f, i);
        if (!is_op(f, rm, "ReduceMean") || !reduces_last_axis(x, g->nodes[rm].outputs[0]))
            continue;
        int add = only_consumer(f, rm);
        double eps;
        if (!is_op(f, add, "Add") || !scalar_of(other_input(&g->nodes[add], g->nodes[rm].outputs[0]), &eps))
            continue;
        int rt = only_consumer(f, add);
        if (!is_op(f, rt, "Sqrt"))
            continue;
        /* an f16 or bf16 export's Cast to float before (read by the group alone: the square and
         * the division) goes in first, its Cast back after */
        int nodes[10], n = 0;
        int cin = producer(x), reads = (sq->inputs[1] == x ? 2 : 1) + 1;
        const struct ir_value *x16 = is_op(f, cin, "Cast") ? g->nodes[cin].inputs[0] : NULL;
        if (x16 && x->type.dtype == IR_DTYPE_FLOAT && f->n_consumers[cin] == reads &&
            (x16->type.dtype == IR_DTYPE_FLOAT16 || x16->type.dtype == IR_DTYPE_BFLOAT16))
            nodes[n++] = cin;
        else
            x16 = NULL;
        nodes[n++] = i;
        nodes[n++] = rm;
        nodes[n++] = add;
        nodes[n++] = rt;
        int c = only_consumer(f, rt);
        if (is_op(f, c, "Div") && g->nodes[c].inputs[0] == x && g->nodes[c].inputs[1] == g->nodes[rt].outputs[0]) {
            nodes[n++] = c;
        } else if (is_op(f, c, "Reciprocal")) {
            int m = only_consumer(f, c);
            if (!is_op(f, m, "Mul") || other_input(&g->nodes[m], g->nodes[c].outputs[0]) != x)
                continue;
            nodes[n++] = c;
            nodes[n++] = m;
        } else {
            continue;
        }
        if (x16) {
            int back = only_consumer(f, nodes[n - 1]);
            if (is_op(f, back, "Cast") && g->nodes[back].outputs[0]->type.dtype == x16->type.dtype) {
                nodes[n++] = back;
            } else { /* no way back to the 16-bit type: the float part alone */
                memmove(nodes, nodes + 1, (size_t)--n * sizeof(*nodes));
            }
        }
        const struct ir_value *y = g->nodes[nodes[n - 1]].outputs[0];
        int m = only_consumer(f, nodes[n - 1]);
        const struct ir_value *w = is_op(f, m, "Mul") ? other_input(&g->nodes[m], y) : NULL;
        bool scaled = w && w->is_const && w->type.rank == 1 && w->type.dtype == y->type.dtype &&
                      w->type.dims[0].value == x->type.dims[x->type.rank - 1].value;
        if (scaled)
            nodes[n++] = m;
        add_group(s, f, "rmsnorm", nodes, n, run_index, json_pack("{s:f,s:b}", "epsilon", eps, "scale", scaled));
    }
}

/* a known integer constant of one element */
static bool int_of(const struct ir_value *v, int64_t *x)
{
    if (!v || !v->is_const || !v->val || !v->val->data_kept || v->val->nelem != 1 ||
        (v->val->dtype != IR_DTYPE_INT64 && v->val->dtype != IR_DTYPE_INT32))
        return false;
    *x = tensor_get_i(v->val, 0);
    return true;
}

/* whether node I is Slice(X, FROM, TO) along X's last axis in steps of STEP (TO at or past the
 * dim: to its end) */
static bool slices_last_by(const struct fctx *f, int i, const struct ir_value *x, int64_t from, int64_t to,
                           int64_t step)
{
    const struct ir_node *n = &f->g->nodes[i];
    int r = x->type.rank;
    int64_t b, e, a = r - 1, st = 1, dim = x->type.dims[r - 1].value;
    if (!is_op(f, i, "Slice") || n->inputs[0] != x || n->n_inputs < 3 || !int_of(n->inputs[1], &b) ||
        !int_of(n->inputs[2], &e) || (n->n_inputs > 3 && n->inputs[3] && !int_of(n->inputs[3], &a)) ||
        (n->n_inputs > 4 && n->inputs[4] && !int_of(n->inputs[4], &st)))
        return false;
    if (a < 0)
        a += r;
    if (b < 0)
        b += dim;
    if (e < 0)
        e += dim;
    return a == r - 1 && st == step && b == from && (to >= dim ? e >= dim : e == to);
}

/* the same in steps of 1 */
static bool slices_last(const struct fctx *f, int i, const struct ir_value *x, int64_t from, int64_t to)
{
    return slices_last_by(f, i, x, from, to, 1);
}

/* whether node I is OP and a view (gen's free node: no data moves), or OP and computing */
static bool is_view(const struct fctx *f, int i, const char *op)
{
    return is_op(f, i, op) || (i >= 0 && !f->taken[i] && f->run->cls[i] == NODE_FREE && !strcmp(f->g->nodes[i].op_type, op));
}

/* whether node I is an Unsqueeze of one new axis after the last of its input's R dims */
static bool unsqueezes_last(const struct fctx *f, int i, int r)
{
    const struct ir_node *n = &f->g->nodes[i];
    int64_t a;
    if (!is_view(f, i, "Unsqueeze"))
        return false;
    if (n->n_inputs >= 2) { /* opset 13: the axes an input */
        if (!int_of(n->inputs[1], &a))
            return false;
    } else {
        const struct ir_attr *at = ir_node_attr(n, "axes");
        if (!at || at->type != IR_ATTR_INTS || at->count != 1)
            return false;
        a = at->u.ints[0];
    }
    return a == -1 || a == r;
}

/* whether V broadcasts to SHAPE (X's) with the last dim in full: a cos or sin table */
static bool rope_table(const struct ir_value *v, const struct ir_value *x)
{
    int r = x->type.rank, k = v ? v->type.rank : 0;
    if (k < 1 || k > r || v->type.dtype != x->type.dtype || v->type.dims[k - 1].value != x->type.dims[r - 1].value)
        return false;
    for (int j = 0; j < k; j++) {
        int64_t d = v->type.dims[j].value, want = x->type.dims[j + r - k].value;
        if (d != want && d != 1)
            return false;
    }
    return true;
}

/* x cos + rotated sin, the rotated made by node ROT: Mul(ROT's output, sin) -> Add(Mul(x, cos),
 * .), the tables broadcasting to x, the sum of x's dims; the three nodes into NODES[N..] */
static bool rope_sum(const struct fctx *f, int rot, const struct ir_value *x, int *nodes, int n)
{
    const struct ir_graph *g = f->g;
    int ms = only_consumer(f, rot);
    const struct ir_value *sn = is_op(f, ms, "Mul") ? other_input(&g->nodes[ms], g->nodes[rot].outputs[0]) : NULL;
    int add = only_consumer(f, ms);
    if (sn == g->nodes[rot].outputs[0] || !rope_table(sn, x) || !is_op(f, add, "Add"))
        return false;
    int mc = producer(other_input(&g->nodes[add], g->nodes[ms].outputs[0]));
    const struct ir_value *cs = is_op(f, mc, "Mul") ? other_input(&g->nodes[mc], x) : NULL;
    if (cs == x || !rope_table(cs, x) || only_consumer(f, mc) != add || !same_dims(g->nodes[add].outputs[0], x))
        return false;
    nodes[n] = mc;
    nodes[n + 1] = ms;
    nodes[n + 2] = add;
    return true;
}

/* The Slice whose output node NG, a Neg, alone reads: a rotation's; X its input, whose last
 * dim is known and even (-1: none) */
static int negated_slice(const struct fctx *f, int ng, const struct ir_value **x)
{
    const struct ir_graph *g = f->g;
    if (!is_op(f, ng, "Neg"))
        return -1;
    int sl = producer(g->nodes[ng].inputs[0]);
    if (sl < 0 || !is_op(f, sl, "Slice") || only_consumer(f, sl) != ng)
        return -1;
    *x = g->nodes[sl].inputs[0];
    int r = *x ? (*x)->type.rank : 0;
    return r >= 1 && dim_known((*x)->type.dims[r - 1]) && (*x)->type.dims[r - 1].value % 2 == 0 ? sl : -1;
}

static int gate_up_halves(const struct fctx *f, const struct ir_value *gv, const struct ir_value *u, int g_reads,
                          int nodes[2], int *gate);

/* rotate_half by a Split, Concat(Neg(x2), x1) with x1, x2 = Split(x) the halves of x's last
 * axis (x.chunk(2, dim=-1)), each read there alone, node NG the Neg: the Split's node, -1 none */
static int negated_split_half(const struct fctx *f, int ng)
{
    const struct ir_graph *g = f->g;
    int cat = is_op(f, ng, "Neg") ? only_consumer(f, ng) : -1, halves[2], which;
    if (!is_op(f, cat, "Concat") || g->nodes[cat].n_inputs != 2 || g->nodes[cat].inputs[0] != g->nodes[ng].outputs[0] ||
        gate_up_halves(f, g->nodes[ng].inputs[0], g->nodes[cat].inputs[1], 1, halves, &which) != 1 || which != 1)
        return -1;
    int r = g->nodes[ng].inputs[0]->type.rank;
    int64_t axis = ir_node_attr_int(&g->nodes[cat], "axis", 0);
    return axis == -1 || axis == r - 1 ? halves[0] : -1;
}

/* The rotary position embedding by halves: x cos + rotate_half(x) sin, rotate_half(x) =
 * Concat(Neg(Slice(x, R/2, R)), Slice(x, 0, R/2)) along the last axis, cos and sin tables that
 * broadcast to x (PyTorch's export of Llama-style models; gen's expansion of ONNX's
 * RotaryEmbedding without interleaving): Slice, Slice, Neg, Concat, Mul, Mul, Add; or with
 * the halves by one Split (rotate_half of x.chunk(2, dim=-1), as ESM's and rotary-embedding-
 * torch's): Split, Neg, Concat, Mul, Mul, Add */
static void find_rope(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int ng = 0; ng < g->n_nodes; ng++) {
        int sp = negated_split_half(f, ng);
        if (sp >= 0) {
            int nodes[6] = {sp, ng, only_consumer(f, ng)};
            if (rope_sum(f, nodes[2], g->nodes[sp].inputs[0], nodes, 3))
                add_group(s, f, "rope", nodes, 6, run_index, NULL);
            continue;
        }
        const struct ir_value *x;
        int hi = negated_slice(f, ng, &x);
        if (hi < 0)
            continue;
        int r = x->type.rank;
        int64_t dim = x->type.dims[r - 1].value, half = dim / 2;
        int cat = only_consumer(f, ng);
        if (!slices_last(f, hi, x, half, dim) || !is_op(f, cat, "Concat") || g->nodes[cat].n_inputs != 2 ||
            g->nodes[cat].inputs[0] != g->nodes[ng].outputs[0])
            continue;
        int lo = producer(g->nodes[cat].inputs[1]);
        int64_t axis = ir_node_attr_int(&g->nodes[cat], "axis", 0);
        if (lo < 0 || !slices_last(f, lo, x, 0, half) || only_consumer(f, lo) != cat || (axis != -1 && axis != r - 1))
            continue;
        /* x's slices, the rotation, the two products, their sum: the members' order the plan reads */
        int nodes[7] = {hi, lo, ng, cat};
        if (rope_sum(f, cat, x, nodes, 4))
            add_group(s, f, "rope", nodes, 7, run_index, NULL);
    }
}

/* The rotary embedding by pairs (GPT-J's rotate_every_two, gen's expansion of an interleaved
 * RotaryEmbedding): x cos + rotate_pairs(x) sin, rotate_pairs(x) = Reshape(Concat(
 * Unsqueeze(Neg(Slice(x, 1, R, step 2))), Unsqueeze(Slice(x, 0, R, step 2))) along a new last
 * axis) back to x's dims, the tables with each value twice in a row. The Unsqueezes and the
 * Reshape are views (free nodes, no layer): the layer's members are the seven others, Slice,
 * Slice, Neg, Concat, Mul, Mul, Add, in the rope group's order; the group's nodes are all ten,
 * so that no value between its members leaves it */
static void find_rope_pairs(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int ng = 0; ng < g->n_nodes; ng++) {
        const struct ir_value *x;
        int od = negated_slice(f, ng, &x);
        int r = od >= 0 ? x->type.rank : 0;
        if (od < 0 || !slices_last_by(f, od, x, 1, x->type.dims[r - 1].value, 2))
            continue;
        int un = only_consumer(f, ng);
        if (un < 0 || !unsqueezes_last(f, un, r))
            continue;
        int cat = only_consumer(f, un);
        if (!is_op(f, cat, "Concat") || g->nodes[cat].n_inputs != 2 || g->nodes[cat].inputs[0] != g->nodes[un].outputs[0])
            continue;
        int64_t axis = ir_node_attr_int(&g->nodes[cat], "axis", 0);
        int ue = producer(g->nodes[cat].inputs[1]);
        if ((axis != -1 && axis != r) || ue < 0 || !unsqueezes_last(f, ue, r) || only_consumer(f, ue) != cat)
            continue;
        int ev = producer(g->nodes[ue].inputs[0]);
        if (ev < 0 || !slices_last_by(f, ev, x, 0, x->type.dims[r - 1].value, 2) || only_consumer(f, ev) != ue)
            continue;
        int rs = only_consumer(f, cat);
        if (!is_view(f, rs, "Reshape") || !same_dims(g->nodes[rs].outputs[0], x))
            continue;
        /* x's slices, the rotation, the two products, their sum: the members' order the plan
         * reads; the group holds the views too, in data-flow order */
        int nodes[7] = {od, ev, ng, cat};
        if (!rope_sum(f, rs, x, nodes, 4))
            continue;
        int all[10] = {od, ev, ng, un, ue, cat, rs, nodes[4], nodes[5], nodes[6]};
        add_group(s, f, "rope_pairs", all, 10, run_index, NULL);
    }
}

/* how many node inputs read V, 2 more where it is a graph output (as fusion_find counts a
 * node's first output) */
static int value_reads(const struct fctx *f, const struct ir_value *v)
{
    const struct ir_graph *g = f->g;
    int n = v->is_output ? 2 : 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs + g->nodes[i].n_captures; k++)
            n += (k < g->nodes[i].n_inputs ? g->nodes[i].inputs[k] : g->nodes[i].captures[k - g->nodes[i].n_inputs]) == v;
    return n;
}

/* The halves of one projection X along its last axis that make gate G and up U (Phi-3's
 * gate_up_proj, then chunk(2, dim=-1)): a Split of X into two, or two Slices of X, [0, C) and
 * [C, 2C) (PyTorch's export of x[..., :C] and x[..., C:]); G read by the activation alone
 * (G_READS reads: a SiLU's Sigmoid and Mul, 2) and U by the gate's Mul alone. Their nodes go
 * into NODES (the Split, or the Slice of the first half and then the Slice of the second), and
 * in *GATE which half G is (0 the first); the count of nodes, 0 none */
static int gate_up_halves(const struct fctx *f, const struct ir_value *gv, const struct ir_value *u, int g_reads,
                          int nodes[2], int *gate)
{
    const struct ir_graph *g = f->g;
    int pg = producer(gv), pu = producer(u);
    bool split = pg >= 0 && pg == pu && is_op(f, pg, "Split") && g->nodes[pg].n_outputs == 2;
    bool slices = pg >= 0 && pu >= 0 && pg != pu && is_op(f, pg, "Slice") && is_op(f, pu, "Slice");
    if ((!split && !slices) || g->nodes[pg].n_inputs < 1 || !g->nodes[pg].inputs[0] ||
        (slices && g->nodes[pu].inputs[0] != g->nodes[pg].inputs[0]))
        return 0;
    const struct ir_value *x = g->nodes[pg].inputs[0];
    int r = x->type.rank;
    if (r < 1 || gv->type.rank != r || !same_dims(gv, u) || x->type.dtype != gv->type.dtype ||
        value_reads(f, gv) != g_reads || value_reads(f, u) != 1)
        return 0;
    /* the halves of the last axis: every other dim as the input's, the last half of it */
    for (int k = 0; k < r; k++)
        if (x->type.dims[k].value <= 0 || gv->type.dims[k].value * (k == r - 1 ? 2 : 1) != x->type.dims[k].value)
            return 0;
    if (split) {
        *gate = g->nodes[pg].outputs[0] == gv ? 0 : 1;
        nodes[0] = pg;
        return 1;
    }
    int64_t dim = x->type.dims[r - 1].value, c = dim / 2;
    if (slices_last(f, pg, x, 0, c) && slices_last(f, pu, x, c, dim))
        *gate = 0;
    else if (slices_last(f, pu, x, 0, c) && slices_last(f, pg, x, c, dim))
        *gate = 1;
    else
        return 0;
    nodes[0] = *gate ? pu : pg;
    nodes[1] = *gate ? pg : pu;
    return 2;
}

/* The Mul of a gated linear unit: act(g) u, where node LAST ends the activation of g (its
 * output read by that Mul alone) and u has g's dims and type: its node and in *U u; -1 none */
static int glu_mul(const struct fctx *f, int last, const struct ir_value *gv, const struct ir_value **u)
{
    const struct ir_graph *g = f->g;
    const struct ir_value *y = g->nodes[last].outputs[0];
    int m = only_consumer(f, last);
    *u = is_op(f, m, "Mul") ? other_input(&g->nodes[m], y) : NULL;
    if (!*u || *u == y || !same_dims(*u, gv) || (*u)->type.dtype != gv->type.dtype)
        return -1;
    return m;
}

/* A gated linear unit of PATTERN (swiglu, geglu): the activation's nodes ACT (N of them, g its
 * input, read G_READS times there) and the Mul M by u, one element-wise kernel of two inputs as
 * frameworks that fuse it run it (vLLM's silu_and_mul, gelu_and_mul). Where g and u are the
 * halves of one projection (its Split, or its two Slices), the group holds those nodes too and
 * its kernel reads the halves in place (the key's PATTERN: {"gate": 0 or 1}, which half is g),
 * as those kernels do: no copy of them. The activation is a part of PART's pattern (NULL: none,
 * a node of its own), as frameworks that do not fuse the gate run it */
static void add_glu(struct layer_set *s, struct fctx *f, const char *pattern, const char *part, const int *act, int n,
                    const struct ir_value *gv, int g_reads, int m, const struct ir_value *u, int run_index)
{
    int nodes[16], gate, k = gate_up_halves(f, gv, u, g_reads, nodes, &gate);
    BZ_ASSERT(n + 3 <= (int)BZ_ARRAY_LEN(nodes));
    memcpy(nodes + k, act, (size_t)n * sizeof(*act));
    nodes[k + n] = m;
    add_group(s, f, pattern, nodes, k + n + 1, run_index, k ? json_pack("{s:i}", "gate", gate) : NULL);
    if (part)
        add_part(s, f, part, act, n, run_index, NULL);
}

/* GELU's nodes ACT (N, of PATTERN gelu or gelu_tanh, x their input, read G_READS times there):
 * one group of their own, or with the Mul of a gated linear unit after them, GeGLU's gate
 * gelu(g) u (Gemma's and T5 v1.1's MLP, Stable Diffusion's GEGLU), a geglu group */
static void add_gelu(struct layer_set *s, struct fctx *f, const char *pattern, const int *act, int n,
                     const struct ir_value *x, int g_reads, int run_index)
{
    const struct ir_value *u;
    int m = glu_mul(f, act[n - 1], x, &u);
    if (m >= 0)
        add_glu(s, f, "geglu", pattern, act, n, x, g_reads, m, u, run_index);
    else
        add_group(s, f, pattern, act, n, run_index, NULL);
}

/* SwiGLU's gate, silu(g) u: Sigmoid(g) -> Mul(g, .) -> Mul(., u), u of g's dims (a Llama MLP:
 * g and u its gate and up projections), as add_glu makes it; before find_silu, which would take
 * the first two. Its SiLU is a part (the silu group and a Mul) */
static void find_swiglu(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        int m = silu_mul(f, i);
        const struct ir_value *u;
        int m2 = m >= 0 ? glu_mul(f, m, g->nodes[i].inputs[0], &u) : -1;
        if (m2 < 0)
            continue;
        int act[2] = {i, m};
        add_glu(s, f, "swiglu", "silu", act, 2, g->nodes[i].inputs[0], 2, m2, u, run_index);
    }
}

/* GeGLU's gate of an ONNX Gelu (opset 20, or ONNX Runtime's Gelu and FastGelu as gen writes
 * them), erf or tanh: Gelu(g) -> Mul(., u), as add_glu makes it; before find_gemm, whose GELU
 * epilogue would take a tanh one (the same count of kernels either way) */
static void find_geglu(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_value *u;
        int m = is_op(f, i, "Gelu") && g->nodes[i].n_inputs >= 1 && g->nodes[i].inputs[0]
                    ? glu_mul(f, i, g->nodes[i].inputs[0], &u)
                    : -1;
        if (m >= 0)
            add_glu(s, f, "geglu", NULL, &i, 1, g->nodes[i].inputs[0], 1, m, u, run_index);
    }
}

/* SiLU (swish): Sigmoid(x) -> Mul(x, .), one element-wise function as frameworks run it
 * (EfficientNet's activation where no convolution takes it, a SiLU of a MatMul) */
static void find_silu(struct layer_set *s, struct fctx *f, int run_index)
{
    for (int i = 0; i < f->g->n_nodes; i++) {
        int m = silu_mul(f, i);
        if (m >= 0) {
            int nodes[2] = {i, m};
            add_group(s, f, "silu", nodes, 2, run_index, NULL);
        }
    }
}

/* Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5), or with Mul(x, 0.5) first */
static void find_gelu(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!is_op(f, i, "Erf"))
            continue;
        int dv = producer(g->nodes[i].inputs[0]);
        if (!is_op(f, dv, "Div") || only_consumer(f, dv) != i ||
            !const_scalar(g->nodes[dv].inputs[1], 1.41421356, 1e-3))
            continue;
        const struct ir_value *x = g->nodes[dv].inputs[0];
        int a = only_consumer(f, i);
        if (!is_op(f, a, "Add") || !const_scalar(other_input(&g->nodes[a], g->nodes[i].outputs[0]), 1.0, 1e-6))
            continue;
        int m1 = only_consumer(f, a);
        if (!is_op(f, m1, "Mul"))
            continue;
        const struct ir_value *o = other_input(&g->nodes[m1], g->nodes[a].outputs[0]);
        if (o == x) {
            int m2 = only_consumer(f, m1);
            if (!is_op(f, m2, "Mul") || !const_scalar(other_input(&g->nodes[m2], g->nodes[m1].outputs[0]), 0.5, 1e-6))
                continue;
            int nodes[5] = {dv, i, a, m1, m2};
            add_gelu(s, f, "gelu", nodes, 5, x, 2, run_index);
        } else {
            int h = producer(o);
            if (!is_op(f, h, "Mul") || only_consumer(f, h) != m1 || !other_input(&g->nodes[h], x) ||
                !const_scalar(other_input(&g->nodes[h], x), 0.5, 1e-6))
                continue;
            int nodes[5] = {dv, i, a, h, m1};
            add_gelu(s, f, "gelu", nodes, 5, x, 2, run_index);
        }
    }
}

/* the other input of binary node I when X is one of its inputs and the other is the constant
 * scalar WANT (within TOL), else false */
static bool times_const(const struct fctx *f, int i, const struct ir_value *x, double want, double tol)
{
    if (i < 0 || f->g->nodes[i].n_inputs != 2)
        return false;
    const struct ir_value *o = other_input(&f->g->nodes[i], x);
    return o && o != x && const_scalar(o, want, tol);
}

/* GELU's tanh approximation written out (GPT-2's gelu_new): Pow(x, 3) -> Mul(0.044715) ->
 * Add(x, .) -> Mul(sqrt(2/pi)) -> Tanh -> Add(1) -> Mul(x, .) -> Mul(0.5), or with Mul(x, 0.5)
 * first: one kernel, as GELU's tanh form (what cuBLASLt's GELU epilogue and oneDNN's gelu_tanh
 * compute) */
static void find_gelu_tanh(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int t = 0; t < g->n_nodes; t++) {
        if (!is_op(f, t, "Tanh"))
            continue;
        int mk = producer(g->nodes[t].inputs[0]);
        const struct ir_value *inner = NULL;
        if (!is_op(f, mk, "Mul") || only_consumer(f, mk) != t)
            continue;
        for (int k = 0; k < 2 && !inner; k++)
            if (times_const(f, mk, g->nodes[mk].inputs[k], 0.7978845608, 1e-4))
                inner = g->nodes[mk].inputs[k];
        int ad = inner ? producer(inner) : -1;
        if (!is_op(f, ad, "Add") || only_consumer(f, ad) != mk)
            continue;
        /* Add(x, Mul(Pow(x, 3), 0.044715)), either side */
        int mc = -1, pw = -1;
        const struct ir_value *x = NULL;
        for (int k = 0; k < 2 && !x; k++) {
            const struct ir_value *cube_c = g->nodes[ad].inputs[k], *other = g->nodes[ad].inputs[1 - k];
            int m = producer(cube_c);
            if (!is_op(f, m, "Mul") || only_consumer(f, m) != ad)
                continue;
            for (int j = 0; j < 2 && !x; j++) {
                int p = producer(g->nodes[m].inputs[j]);
                if (is_op(f, p, "Pow") && only_consumer(f, p) == m && g->nodes[p].inputs[0] == other &&
                    times_const(f, p, other, 3.0, 1e-9) && times_const(f, m, g->nodes[m].inputs[j], 0.044715, 1e-4)) {
                    mc = m;
                    pw = p;
                    x = other;
                }
            }
        }
        if (!x)
            continue;
        int a1 = only_consumer(f, t);
        if (!is_op(f, a1, "Add") || !times_const(f, a1, g->nodes[t].outputs[0], 1.0, 1e-6))
            continue;
        int m1 = only_consumer(f, a1);
        if (!is_op(f, m1, "Mul"))
            continue;
        const struct ir_value *o = other_input(&g->nodes[m1], g->nodes[a1].outputs[0]);
        if (o == x) {
            int m2 = only_consumer(f, m1);
            if (!is_op(f, m2, "Mul") || !times_const(f, m2, g->nodes[m1].outputs[0], 0.5, 1e-6))
                continue;
            int nodes[8] = {pw, mc, ad, mk, t, a1, m1, m2};
            add_gelu(s, f, "gelu_tanh", nodes, 8, x, 3, run_index);
        } else {
            int h = producer(o);
            if (!is_op(f, h, "Mul") || only_consumer(f, h) != m1 || !times_const(f, h, x, 0.5, 1e-6))
                continue;
            int nodes[8] = {pw, mc, ad, mk, t, a1, h, m1};
            add_gelu(s, f, "gelu_tanh", nodes, 8, x, 3, run_index);
        }
    }
}

/* Add I of two computed tensors (no weight) of the same dims: a residual sum */
static bool is_residual_sum(const struct fctx *f, int i)
{
    const struct ir_value *x = i >= 0 ? f->g->nodes[i].inputs[0] : NULL;
    return x && !x->is_const && is_op(f, i, "Add") && is_residual_add(f, i, x);
}

/* Add(x, residual) [-> Add(bias of the last dim)] -> LayerNormalization over the last axis: one
 * kernel, as TensorRT, ONNX Runtime (SkipLayerNormalization) and torch.compile run it. The sum
 * the LayerNorm reads may be read elsewhere too: a pre-LN transformer's residual stream (GPT-2,
 * ViT), which goes on past the LayerNorm to the next residual Add. The kernel then writes it as
 * well (SkipLayerNormalization's fourth output), and the group's key says so ({"sum": true});
 * the residual sum before a bias Add stays read by that Add only. */
static void find_add_layernorm(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int ln = 0; ln < g->n_nodes; ln++) {
        if (!is_op(f, ln, "LayerNormalization"))
            continue;
        const struct ir_node *n = &g->nodes[ln];
        const struct ir_value *x = n->inputs[0];
        const struct layer_desc *d = s->v[f->run->layer[ln]].desc;
        bool stats = (n->n_outputs > 1 && n->outputs[1]) || (n->n_outputs > 2 && n->outputs[2]);
        if (stats || !x || d->nin < 1 || d->a.axis != d->in[0].rank - 1)
            continue;
        int a = producer(x);
        if (!is_op(f, a, "Add") || g->nodes[a].outputs[0] != x || f->n_consumers[a] < 1)
            continue;
        json_t *extra = f->n_consumers[a] > 1 ? json_pack("{s:b}", "sum", 1) : NULL;
        const char *prefix = extra ? "add_layernorm_keep" : "add_layernorm";
        if (is_residual_sum(f, a)) {
            int nodes[2] = {a, ln};
            add_group_as(s, f, "add_layernorm", prefix, nodes, 2, run_index, extra);
            continue;
        }
        /* the bias Add: a constant of the last dim beside a residual sum read only here */
        const struct ir_node *b = &g->nodes[a];
        bool found = false;
        for (int k = 0; k < 2 && !found; k++) {
            const struct ir_value *c = b->inputs[k], *sum = b->inputs[1 - k];
            int r = producer(sum);
            if (!c || !c->is_const || c->type.rank != 1 || !sum || sum->type.rank < 1 || r < 0 ||
                c->type.dims[0].value != sum->type.dims[sum->type.rank - 1].value || only_consumer(f, r) != a ||
                !is_residual_sum(f, r))
                continue;
            int nodes[3] = {r, a, ln};
            add_group_as(s, f, "add_layernorm", prefix, nodes, 3, run_index, extra);
            found = true;
        }
        if (!found)
            json_decref(extra);
    }
}

/* ---- scaled dot-product attention ---- */

/* A matrix operand of the attention as the kernel reads it: 4 dims (batch, heads, rows, cols;
 * a rank-3 operand has one head) and each dim's element stride in the buffer it comes from,
 * its own or, when the group takes in the Transpose that made it, its source's. */
struct att_operand {
    int64_t dims[4], st[4], elems;
};

/* Grouped-query attention's sharing of K and V heads, as gen's Attention expansion and Hugging
 * Face's repeat_kv write it: X = Reshape(Expand(Unsqueeze(S) at axis 2, [B, Nkv, R, T, D]),
 * [B, Nkv R, T, D]), each node read only by the next (the Reshape by the group). Its three
 * nodes go into NODES, S into *SRC; R (> 1), else 0: not that form. The fused kernel reads S,
 * query head h using K and V head h / R, as frameworks' GQA kernels do (no copy of the heads). */
static int64_t repeat_kv(const struct fctx *f, const struct ir_value *x, int *nodes, const struct ir_value **src)
{
    int rs = producer(x);
    if (!is_view(f, rs, "Reshape") || f->n_consumers[rs] != 1 || x->type.rank != 4)
        return 0;
    int ex = producer(f->g->nodes[rs].inputs[0]);
    if (!is_view(f, ex, "Expand") || f->n_consumers[ex] != 1)
        return 0;
    int us = producer(f->g->nodes[ex].inputs[0]);
    if (!is_view(f, us, "Unsqueeze") || f->n_consumers[us] != 1)
        return 0;
    const struct ir_value *s = f->g->nodes[us].inputs[0], *u = f->g->nodes[us].outputs[0],
                          *e = f->g->nodes[ex].outputs[0];
    if (!s || s->type.rank != 4 || u->type.rank != 5 || e->type.rank != 5)
        return 0;
    int64_t sd[4], ud[5], ed[5], xd[4];
    for (int k = 0; k < 5; k++) {
        ud[k] = u->type.dims[k].value, ed[k] = e->type.dims[k].value;
        if (k < 4)
            sd[k] = s->type.dims[k].value, xd[k] = x->type.dims[k].value;
    }
    int64_t r = ed[2];
    for (int k = 0; k < 4; k++)
        if (sd[k] <= 0 || xd[k] <= 0)
            return 0;
    if (r <= 1 || ud[0] != sd[0] || ud[1] != sd[1] || ud[2] != 1 || ud[3] != sd[2] || ud[4] != sd[3] ||
        ed[0] != sd[0] || ed[1] != sd[1] || ed[3] != sd[2] || ed[4] != sd[3] || xd[0] != sd[0] ||
        xd[1] != sd[1] * r || xd[2] != sd[2] || xd[3] != sd[3])
        return 0;
    nodes[0] = us, nodes[1] = ex, nodes[2] = rs;
    *src = s;
    return r;
}

/* whether Transpose node T (-1: none) leaves the batch and head axes where they are: the head
 * axis a repeat_kv made must stay the kernels' head axis (h / R) */
static bool keeps_heads(const struct layer_set *s, const struct fctx *f, int t)
{
    if (t < 0)
        return true;
    const struct desc_ints *perm = &s->v[f->run->layer[t]].desc->a.perm;
    return perm->n == 4 && perm->v[0] == 0 && perm->v[1] == 1;
}

/* BUF (not NULL): the buffer the operand is read from instead of the Transpose's input or X
 * itself, of the same rank (repeat_kv's S: its heads' strides stand for X's, read at h / R) */
static bool operand_of(const struct layer_set *s, const struct fctx *f, const struct ir_value *x, int transpose,
                       const struct ir_value *buf, struct att_operand *o)
{
    int r = x->type.rank;
    if (r != 3 && r != 4)
        return false;
    int64_t d[4], st[4], cs[8], acc = 1;
    const struct ir_value *src = buf ? buf : transpose >= 0 ? f->g->nodes[transpose].inputs[0] : x;
    if (!src || src->type.rank != r)
        return false;
    for (int k = r - 1; k >= 0; k--) {
        if (src->type.dims[k].value <= 0 || x->type.dims[k].value <= 0)
            return false;
        cs[k] = acc;
        acc *= src->type.dims[k].value;
    }
    for (int k = 0; k < r; k++) {
        int from = k;
        if (transpose >= 0) {
            const struct desc_ints *perm = &s->v[f->run->layer[transpose]].desc->a.perm;
            from = perm->n == r ? (int)perm->v[k] : r - 1 - k;
            if (from < 0 || from >= r)
                return false;
        }
        d[k] = x->type.dims[k].value;
        st[k] = cs[from];
    }
    /* rank 3: one head, at stride 0 */
    int j = 0;
    for (int k = 0; k < 4; k++) {
        bool head = r == 3 && k == 1;
        o->dims[k] = head ? 1 : d[j];
        o->st[k] = head ? 0 : st[j];
        j += !head;
    }
    o->elems = acc;
    return true;
}

/* the Transpose that makes X, when only the group reads it */
static int lone_transpose(const struct fctx *f, const struct ir_value *x)
{
    int t = producer(x);
    return is_op(f, t, "Transpose") && f->n_consumers[t] == 1 ? t : -1;
}

/* a Div or Mul of X by a constant scalar, read only by the group: its factor */
static bool scale_node(const struct fctx *f, int i, const struct ir_value *x, double *factor)
{
    bool div = is_op(f, i, "Div");
    if ((!div && !is_op(f, i, "Mul")) || f->n_consumers[i] != 1)
        return false;
    const struct ir_node *n = &f->g->nodes[i];
    const struct ir_value *c = other_input(n, x);
    double v;
    if (!c || c == x || (div && n->inputs[0] != x) || !scalar_of(c, &v) || v == 0 || !isfinite(v))
        return false;
    *factor *= div ? 1.0 / v : v;
    return true;
}

static json_t *ints4(const int64_t *v)
{
    return json_pack("[I,I,I,I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2], (json_int_t)v[3]);
}

static json_t *ints6(const int64_t *v)
{
    return json_pack("[I,I,I,I,I,I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2], (json_int_t)v[3],
                     (json_int_t)v[4], (json_int_t)v[5]);
}

/* An attention operand of dims (B, H, ROWS, COLS) at element strides ST as a matrix of one
 * strided batched GEMM over the B x H heads, read or written where it is: stored by rows (*TR
 * 0, *LD its row stride) or by columns (*TR 1, *LD its column stride), the heads *BS apart.
 * False where one GEMM cannot take it so: at B > 1 and H > 1 a batch stride other than H times
 * the head stride (the projections' [b, s, h, d]), no unit stride, or sizes beyond cuBLAS's
 * ints. */
static bool gemm_view(const int64_t *st, int64_t b, int64_t h, int64_t rows, int64_t cols, int *tr, int64_t *ld,
                      int64_t *bs)
{
    if (b > 1 && h > 1 && st[0] != h * st[1])
        return false;
    *bs = h > 1 ? st[1] : st[0];
    if (st[3] == 1 && st[2] >= cols) {
        *tr = 0;
        *ld = st[2];
    } else if (st[2] == 1 && st[3] >= rows) {
        *tr = 1;
        *ld = st[3];
    } else {
        return false;
    }
    return *ld <= INT32_MAX && rows <= INT32_MAX && cols <= INT32_MAX && b * h <= INT32_MAX;
}

/* An attention part's one GEMM, row-major C[m, n] = alpha A[m, k] B[k, n] over b x h heads
 * (the fields of struct cu_plan it sets) */
struct part_gemm {
    int64_t m, n, k, batch, stride_a, stride_b, stride_c, lda, ldb, ldc;
    int ta, tb;
};

/* attn_scores' GEMM: [sq, skv] = Q [sq, d] K^T, Q and K (K's rows the keys) at their strides,
 * the scores written packed (the softmax's input); false where one GEMM cannot read them so */
static bool scores_gemm(const int64_t *shape, const int64_t *q, const int64_t *k, struct part_gemm *g)
{
    int64_t b = shape[0], h = shape[1], sq = shape[2], skv = shape[3], d = shape[4];
    int tr;
    memset(g, 0, sizeof(*g));
    if (!gemm_view(q, b, h, sq, d, &g->ta, &g->lda, &g->stride_a) ||
        !gemm_view(k, b, h, skv, d, &tr, &g->ldb, &g->stride_b))
        return false;
    g->tb = !tr; /* K by rows is K^T by columns: B stored [n, k] */
    g->m = sq, g->n = skv, g->k = d, g->batch = b * h;
    g->stride_c = sq * skv;
    return true;
}

/* attn_context's GEMM: [sq, dv] = P [sq, skv] V, P packed (the softmax's output), V at its
 * strides, the output written at its own (by rows: the heads merged); false where one GEMM
 * cannot */
static bool context_gemm(const int64_t *shape, const int64_t *v, const int64_t *o, struct part_gemm *g)
{
    int64_t b = shape[0], h = shape[1], sq = shape[2], skv = shape[3], dv = shape[5];
    int tr;
    memset(g, 0, sizeof(*g));
    if (!gemm_view(v, b, h, skv, dv, &g->tb, &g->ldb, &g->stride_b) ||
        !gemm_view(o, b, h, sq, dv, &tr, &g->ldc, &g->stride_c) || tr)
        return false;
    g->m = sq, g->n = dv, g->k = skv, g->batch = b * h;
    g->stride_a = sq * skv;
    return true;
}

/* The parts of the attention group just made (its shape and Q, K, V, output strides in SHAPE,
 * Q, KS, V, O as the group's key has them), as frameworks' math attention runs them (PyTorch's
 * bmm on the heads' views; ONNX Runtime's unfused attention): the scores, Q K^T x scale, one
 * strided batched GEMM that reads Q and K where the projections put them (their transposes
 * become leading dims and batch strides, the scale its alpha); the context, P V, one that reads
 * V so and writes the output with its heads merged (V's and the output's transposes). The
 * softmax and a mask stay members between them. A part where it takes in a node besides its
 * MatMul and one GEMM can read its operands in place (scores_gemm, context_gemm: the part's
 * plan makes the same GEMM), the scale a float's; none for grouped-query attention (K's and V's
 * heads shared: no one batch stride). Each part's key holds its own operands' strides alone,
 * and in the shape the other product's head size given as its own (dv = d for the scores,
 * d = dv for the context), so that the same GEMM is one layer. */
static void attention_parts(struct layer_set *s, struct fctx *f, int run_index, const int64_t *shape, const int64_t *q,
                            const int64_t *ks, const int64_t *v, const int64_t *o, int64_t q_elems, int64_t k_elems,
                            int64_t v_elems, double factor, const int *scores, int nscores, const int *context,
                            int ncontext)
{
    struct part_gemm g;
    int64_t sh[6];
    memcpy(sh, shape, sizeof(sh));
    sh[5] = shape[4];
    bool alpha = isfinite(factor) && fabs(factor) >= FLT_MIN && fabs(factor) <= FLT_MAX;
    if (nscores > 1 && alpha && scores_gemm(sh, q, ks, &g))
        add_part(s, f, "attn_scores", scores, nscores, run_index,
                 json_pack("{s:o,s:o,s:o,s:I,s:I,s:f}", "shape", ints6(sh), "q", ints4(q), "k", ints4(ks), "q_elems",
                           (json_int_t)q_elems, "k_elems", (json_int_t)k_elems, "scale", factor));
    sh[4] = sh[5] = shape[5];
    if (ncontext > 1 && context_gemm(sh, v, o, &g))
        add_part(s, f, "attn_context", context, ncontext, run_index,
                 json_pack("{s:o,s:o,s:o,s:I}", "shape", ints6(sh), "v", ints4(v), "o", ints4(o), "v_elems",
                           (json_int_t)v_elems));
}

/* MatMul(Q, K^T) [-> Div/Mul scale] [-> Add mask | Where(mask, fill, .)] -> Softmax(last axis)
 * -> MatMul(., V), with a Div/Mul of Q by a scale before it, the Transposes that split the
 * heads of Q, K and V and merge those of the output, and the repeats of K's and V's heads of
 * grouped-query attention (repeat_kv): one fused attention (flash attention, as frameworks run
 * it). The group records the shapes, each operand's strides in the buffer the
 * fused kernel reads (the taken-in transposes become strides), the scale and the mask. */
static void find_attention(struct layer_set *s, struct fctx *f, int run_index)
{
    const struct ir_graph *g = f->g;
    for (int sm = 0; sm < g->n_nodes; sm++) {
        if (!is_op(f, sm, "Softmax"))
            continue;
        const struct ir_value *p = g->nodes[sm].inputs[0];
        const struct layer_desc *sd = s->v[f->run->layer[sm]].desc;
        if (!p || sd->nin < 1 || sd->in[0].rank < 3 || sd->a.axis != sd->in[0].rank - 1)
            continue;
        int mm2 = only_consumer(f, sm);
        if (!is_op(f, mm2, "MatMul") || g->nodes[mm2].inputs[0] != g->nodes[sm].outputs[0] ||
            g->nodes[mm2].inputs[1] == g->nodes[sm].outputs[0] || !g->nodes[mm2].inputs[1] ||
            g->nodes[mm2].inputs[1]->is_const)
            continue;
        /* back from the softmax: the mask, the scale, the scores' MatMul */
        int mask = -1, scale = -1, qscale = -1, cur = producer(p);
        const struct ir_value *mvalue = NULL;
        const char *mkind = "none";
        double factor = 1.0, fill = 0;
        int fill_when = 1;
        if (is_op(f, cur, "Add") && f->n_consumers[cur] == 1) {
            /* the scores are the side a MatMul or a scale makes; the mask the other */
            const struct ir_node *a = &g->nodes[cur];
            int side = -1;
            for (int k = 1; k >= 0; k--) {
                int pr = a->n_inputs == 2 ? producer(a->inputs[k]) : -1;
                if (is_op(f, pr, "MatMul") || is_op(f, pr, "Div") || is_op(f, pr, "Mul"))
                    side = k;
            }
            if (side < 0)
                continue;
            mvalue = a->inputs[1 - side];
            mask = cur;
            mkind = "add";
            cur = producer(other_input(a, mvalue));
        } else if (is_op(f, cur, "Where") && f->n_consumers[cur] == 1 && g->nodes[cur].n_inputs == 3) {
            const struct ir_node *w = &g->nodes[cur];
            int scores = scalar_of(w->inputs[1], &fill) ? 2 : scalar_of(w->inputs[2], &fill) ? 1 : -1;
            if (scores < 0)
                continue;
            fill_when = scores == 2;
            mvalue = w->inputs[0];
            mask = cur;
            mkind = "select";
            cur = producer(w->inputs[scores]);
        }
        if (cur >= 0 && (is_op(f, cur, "Div") || is_op(f, cur, "Mul"))) {
            const struct ir_node *n = &g->nodes[cur];
            const struct ir_value *x = n->inputs[0] && !n->inputs[0]->is_const ? n->inputs[0] : n->inputs[1];
            if (!scale_node(f, cur, x, &factor))
                continue;
            scale = cur;
            cur = producer(x);
        }
        if (!is_op(f, cur, "MatMul") || f->n_consumers[cur] != 1)
            continue;
        int mm1 = cur;
        const struct ir_node *m1 = &g->nodes[mm1], *m2 = &g->nodes[mm2];
        if (!m1->inputs[0] || !m1->inputs[1] || m1->inputs[0]->is_const || m1->inputs[1]->is_const)
            continue;
        const struct ir_value *q = m1->inputs[0];
        int qp = producer(q);
        if (qp >= 0 && (is_op(f, qp, "Div") || is_op(f, qp, "Mul"))) {
            const struct ir_node *n = &g->nodes[qp];
            const struct ir_value *x = n->inputs[0] && !n->inputs[0]->is_const ? n->inputs[0] : n->inputs[1];
            if (x && scale_node(f, qp, x, &factor)) {
                qscale = qp;
                q = x;
            }
        }
        int tq = lone_transpose(f, q), tk = lone_transpose(f, m1->inputs[1]), tv = lone_transpose(f, m2->inputs[1]);
        int to = only_consumer(f, mm2);
        if (!is_op(f, to, "Transpose") || g->nodes[to].inputs[0] != m2->outputs[0])
            to = -1;
        /* K's and V's heads shared by groups of R query heads (the same R for both); their
         * repeats' nodes, -1 where none is taken in */
        int krep[3], vrep[3];
        const struct ir_value *kbuf = NULL, *vbuf = NULL;
        int64_t rk = repeat_kv(f, tk >= 0 ? g->nodes[tk].inputs[0] : m1->inputs[1], krep, &kbuf);
        int64_t rv = repeat_kv(f, tv >= 0 ? g->nodes[tv].inputs[0] : m2->inputs[1], vrep, &vbuf);
        int64_t rep = rk > 1 && rk == rv && keeps_heads(s, f, tk) && keeps_heads(s, f, tv) ? rk : 1;
        if (rep == 1) {
            kbuf = vbuf = NULL;
            for (int k = 0; k < 3; k++)
                krep[k] = vrep[k] = -1;
        }
        struct att_operand Q, KT, V, O;
        if (!operand_of(s, f, q, tq, NULL, &Q) || !operand_of(s, f, m1->inputs[1], tk, kbuf, &KT) ||
            !operand_of(s, f, m2->inputs[1], tv, vbuf, &V) || !operand_of(s, f, m2->outputs[0], -1, NULL, &O))
            continue;
        /* the output's strides: its own, or where the group takes in the Transpose after it,
         * the places the Transpose's output puts its elements */
        if (to >= 0) {
            const struct ir_value *y = g->nodes[to].outputs[0];
            const struct desc_ints *perm = &s->v[f->run->layer[to]].desc->a.perm;
            int r = y->type.rank;
            int64_t ys[8], acc = 1, st[8];
            if (r != m2->outputs[0]->type.rank || (perm->n && perm->n != r))
                continue;
            for (int k = r - 1; k >= 0; k--) {
                ys[k] = acc;
                acc *= y->type.dims[k].value;
            }
            for (int k = 0; k < r; k++)
                st[perm->n ? perm->v[k] : r - 1 - k] = ys[k];
            for (int k = 0, j = 0; k < 4; k++)
                if (!(r == 3 && k == 1))
                    O.st[k] = st[j++];
        }
        int64_t b = Q.dims[0], h = Q.dims[1], sq = Q.dims[2], d = Q.dims[3], skv = KT.dims[3], dv = V.dims[3];
        if (KT.dims[0] != b || KT.dims[1] != h || KT.dims[2] != d || V.dims[0] != b || V.dims[1] != h ||
            V.dims[2] != skv || O.dims[0] != b || O.dims[1] != h || O.dims[2] != sq || O.dims[3] != dv)
            continue;
        int dt = q->type.dtype;
        if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_FLOAT16 && dt != IR_DTYPE_BFLOAT16)
            continue;
        /* the mask broadcast to the scores [b, h, sq, skv] (a rank-3 score has one head) */
        int64_t ms[4] = {0, 0, 0, 0}, melems = 0;
        if (mvalue) {
            int r = mvalue->type.rank, sr = p->type.rank;
            int64_t sd4[4] = {b, h, sq, skv}, acc = 1;
            bool ok = r >= 0 && r <= sr && (mvalue->type.dtype == IR_DTYPE_BOOL) == (mask >= 0 && !strcmp(mkind, "select"));
            for (int k = r - 1; ok && k >= 0; k--) {
                int sk = sr - r + k, dk = sr == 3 && sk >= 1 ? sk + 1 : sk; /* the scores' dim, in 4 */
                int64_t v = mvalue->type.dims[k].value;
                if (v != 1 && v != sd4[dk]) {
                    ok = false;
                    break;
                }
                ms[dk] = v == 1 ? 0 : acc;
                acc *= v;
            }
            if (!ok)
                continue;
            melems = acc;
        }
        int nodes[16], n = 0;
        for (int k = 0, order[] = {tq, qscale, krep[0], krep[1], krep[2], tk, vrep[0], vrep[1], vrep[2], tv, mm1, scale,
                                   mask, sm, mm2, to};
             k < 16; k++)
            if (order[k] >= 0)
                nodes[n++] = order[k];
        int64_t shape[6] = {b, h, sq, skv, d, dv};
        json_t *extra = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:I,s:I,s:f,s:s}", "shape",
                                  json_pack("[I,I,I,I,I,I]", (json_int_t)shape[0], (json_int_t)shape[1],
                                            (json_int_t)shape[2], (json_int_t)shape[3], (json_int_t)shape[4],
                                            (json_int_t)shape[5]),
                                  "q", ints4(Q.st), "k", json_pack("[I,I,I,I]", (json_int_t)KT.st[0],
                                                                   (json_int_t)KT.st[1], (json_int_t)KT.st[3],
                                                                   (json_int_t)KT.st[2]),
                                  "v", ints4(V.st), "o", ints4(O.st), "mask_strides", ints4(ms), "q_elems",
                                  (json_int_t)Q.elems, "k_elems", (json_int_t)KT.elems, "v_elems", (json_int_t)V.elems,
                                  "mask_elems", (json_int_t)melems, "scale", factor, "mask", mkind);
        if (!strcmp(mkind, "select")) {
            json_object_set_new(extra, "fill", canon_json_number(fill));
            json_object_set_new(extra, "fill_when", json_integer(fill_when));
        }
        if (rep > 1)
            json_object_set_new(extra, "rep", json_integer((json_int_t)rep));
        add_group(s, f, "attention", nodes, n, run_index, extra);
        if (rep == 1) {
            int scores[5], ns = 0, context[3], nc = 0;
            for (int k = 0, order[] = {tq, qscale, tk, mm1, scale}; k < 5; k++)
                if (order[k] >= 0)
                    scores[ns++] = order[k];
            for (int k = 0, order[] = {tv, mm2, to}; k < 3; k++)
                if (order[k] >= 0)
                    context[nc++] = order[k];
            int64_t ks[4] = {KT.st[0], KT.st[1], KT.st[3], KT.st[2]};
            attention_parts(s, f, run_index, shape, Q.st, ks, V.st, O.st, Q.elems, KT.elems, V.elems, factor, scores, ns,
                            context, nc);
        }
    }
}

void fusion_find(struct layer_set *s, struct model_run *run, int run_index)
{
    const struct ir_graph *g = run->m->graph;
    struct fctx f = {run, g, bz_calloc((size_t)g->n_nodes + 1, sizeof(int)),
                     bz_calloc((size_t)g->n_nodes + 1, sizeof(int)), bz_calloc((size_t)g->n_nodes + 1, sizeof(bool))};
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ir_node *n = &g->nodes[i];
        /* a Shape or Size reads no data: the value may live inside a group */
        if (n->n_captures == 0 && (!strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size")) &&
            (!*n->domain || !strcmp(n->domain, "ai.onnx")))
            continue;
        for (int k = 0; k < n->n_inputs + n->n_captures; k++) {
            const struct ir_value *v = k < n->n_inputs ? n->inputs[k] : n->captures[k - n->n_inputs];
            int p = producer(v);
            if (p >= 0 && g->nodes[p].outputs[0] == v) {
                f.n_consumers[p]++;
                f.consumer[p] = i;
            } else if (p >= 0) {
                f.n_consumers[p] += 2; /* a second output is read: not a simple chain */
            }
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int p = producer(g->outputs[i]);
        if (p >= 0)
            f.n_consumers[p] += 2;
    }
    find_attention(s, &f, run_index);
    find_layernorm(s, &f, run_index);
    find_rmsnorm(s, &f, run_index);
    find_rope(s, &f, run_index);
    find_rope_pairs(s, &f, run_index);
    find_gelu(s, &f, run_index);
    find_gelu_tanh(s, &f, run_index);
    find_qdq(s, &f, run_index);
    find_conv(s, &f, run_index); /* before find_silu: a convolution's SiLU is its activation */
    find_swiglu(s, &f, run_index);
    find_geglu(s, &f, run_index);
    find_silu(s, &f, run_index);
    find_gemm(s, &f, run_index);
    find_add_layernorm(s, &f, run_index);
    free(f.n_consumers);
    free(f.consumer);
    free(f.taken);
}

/* ---- backends: a fusion group as one benchmark ---- */

/* the group's activation (its last member when the pattern ends in one), else NULL */
static const struct layer_desc *fused_act(const struct layer_desc *d)
{
    return fusion_has_act(d->pattern) && d->nmembers > 0 ? &d->members[d->nmembers - 1] : NULL;
}

/* whether the group's activation is a SiLU: its last two members Sigmoid and Mul (find_conv) */
static bool act_is_silu(const struct layer_desc *d)
{
    int n = d->nmembers;
    return fusion_has_act(d->pattern) && n >= 3 && d->members[n - 1].op && !strcmp(d->members[n - 1].op, "Mul") &&
           d->members[n - 2].op && !strcmp(d->members[n - 2].op, "Sigmoid");
}

/* the plan of a member on its own (a Conv, or a Gemm or MatMul as a matmul) */
static int member_dnnl(const struct layer_desc *m, struct cpu_plan *p)
{
    const struct op_plans *h = plan_hooks(m);
    return h && h->dnnl ? h->dnnl(m, 0, p) : -1;
}

static void dims4(dnnl_dim_t *t, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    t[0] = d0, t[1] = d1, t[2] = d2, t[3] = d3;
}

/* An attention group's part as the one oneDNN matmul over its [b, h] heads that frameworks' CPU
 * math attention runs: the operands read and written where they are, at the strides of the
 * part's key (the Q, K and V transposes and the heads' merge as strides), the scale as the
 * output scale; only where one strided batched GEMM can read them (scores_gemm, context_gemm,
 * the gate of the part and of its cuBLAS plan) */
static int attention_part_dnnl(const struct layer_desc *d, struct cpu_plan *p)
{
    const struct desc_attention *a = d->attention;
    struct part_gemm g;
    if (!a || a->rep != 1)
        return -1;
    int64_t shape[6] = {a->b, a->h, a->sq, a->skv, a->d, a->dv};
    struct bd_op *op = &p->op;
    op->family = BD_MATMUL;
    op->src.nd = op->wei.nd = op->dst.nd = 4;
    if (d->pattern == FUSE_ATTN_SCORES) {
        if (!scores_gemm(shape, a->q, a->k, &g))
            return -1;
        /* Q at its strides, K^T at K's with the last two swapped, the scores packed */
        dims4(op->st_src, a->q[0], a->q[1], a->q[2], a->q[3]);
        dims4(op->st_wei, a->k[0], a->k[1], a->k[3], a->k[2]);
        if (a->scale != 1.0)
            op->oscale = (float)a->scale;
    } else {
        if (!context_gemm(shape, a->v, a->o, &g))
            return -1;
        /* the probabilities packed, V and the output at their strides (the output's: the heads
         * merged) */
        dims4(op->st_wei, a->v[0], a->v[1], a->v[2], a->v[3]);
        dims4(op->st_dst, a->o[0], a->o[1], a->o[2], a->o[3]);
    }
    /* the GEMM's [m, k] x [k, n] over the heads: scores sq, d, skv; context sq, skv, dv */
    dims4(op->src.d, a->b, a->h, g.m, g.k);
    dims4(op->wei.d, a->b, a->h, g.k, g.n);
    dims4(op->dst.d, a->b, a->h, g.m, g.n);
    p->algs[0] = 0;
    p->n_algs = 1;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = 2.0 * (double)g.m * (double)g.n * (double)g.k * (double)g.batch;
    p->bytes = 4.0 * (double)g.batch * (double)(g.m * g.k + g.k * g.n + g.m * g.n);
    return 0;
}

/* A fusion group as one oneDNN primitive: the first member's operation with the batch norm
 * folded into the weights and bias, the residual as a sum post-op and the activation as an
 * eltwise post-op; the decomposed GELU and LayerNorm as oneDNN's own; a QDQ group as the int8
 * primitive frameworks run. */
static int fusion_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (which || d->nmembers < 1)
        return -1;
    if (d->pattern == FUSE_ATTN_SCORES || d->pattern == FUSE_ATTN_CONTEXT)
        return attention_part_dnnl(d, p);
    const struct layer_desc *first = &d->members[0];
    if (d->pattern == FUSE_GELU || d->pattern == FUSE_GELU_TANH || d->pattern == FUSE_LAYERNORM ||
        d->pattern == FUSE_SILU) {
        /* the group's input is the first member's first input, its output the last member's */
        struct bd_tensor x, y;
        if (plan_bd_tensor(desc_in(first, 0), &x) || plan_bd_tensor(desc_out(&d->members[d->nmembers - 1], 0), &y))
            return -1;
        p->op.src = x;
        p->op.dst = y;
        p->n_algs = 1;
        p->bytes = 4.0 * (double)(plan_bd_count(&x) + plan_bd_count(&y));
        if (d->pattern == FUSE_GELU || d->pattern == FUSE_GELU_TANH || d->pattern == FUSE_SILU) {
            p->op.family = BD_ELTWISE;
            p->op.alg = p->algs[0] = d->pattern == FUSE_GELU        ? dnnl_eltwise_gelu_erf
                                     : d->pattern == FUSE_GELU_TANH ? dnnl_eltwise_gelu_tanh
                                                                    : dnnl_eltwise_swish;
            p->op.alpha = 1.0f; /* swish's x sigmoid(alpha x); the GELUs take none */
            p->flops = (d->pattern == FUSE_SILU ? 4.0 : 8.0) * (double)plan_bd_count(&y);
            plan_arg(p, "DNNL_ARG_SRC", 0, 0);
            plan_arg(p, "DNNL_ARG_DST", 1, 0);
            return 0;
        }
        /* decomposed LayerNorm over the last axis (what the pattern matched), with scale and
         * shift when its Mul/Add are there; the epsilon does not change the time */
        p->op.family = BD_LNORM;
        p->op.eps = 1e-5f;
        bool affine = d->nmembers >= 9;
        p->op.flags = affine ? dnnl_use_scale | dnnl_use_shift : 0;
        p->flops = 5.0 * (double)plan_bd_count(&y);
        plan_arg(p, "DNNL_ARG_SRC", 0, 0);
        if (affine) {
            plan_arg(p, "DNNL_ARG_SCALE", 0, 0);
            plan_arg(p, "DNNL_ARG_SHIFT", 0, 0);
        }
        plan_arg(p, "DNNL_ARG_DST", 1, 0);
        return 0;
    }
    if (fusion_is_qdq(d->pattern)) {
        /* DequantizeLinear -> Conv or MatMul [-> Relu] -> QuantizeLinear: one int8 primitive
         * (the frameworks' QLinearConv / QLinearMatMul): the types and zero points of the two
         * ends, per-tensor output scale, the activation as a post-op */
        int n = d->nmembers;
        if (n < 3)
            return -1;
        const struct layer_desc *core = &d->members[1], *q = &d->members[n - 1];
        if (member_dnnl(core, p))
            return -1;
        struct bd_op *op = &p->op;
        op->qsrc = plan_bd_quant(desc_in(first, 0));
        op->qdst = plan_bd_quant(desc_out(q, 0));
        op->qwei = dnnl_s8;
        if ((op->qsrc != dnnl_u8 && op->qsrc != dnnl_s8) || (op->qdst != dnnl_u8 && op->qdst != dnnl_s8))
            return -1;
        op->dt = op->qsrc;
        op->zp_src = plan_zero_point(first, DA_zero_point, first->a.zero_point, op->qsrc);
        op->zp_dst = plan_zero_point(q, DA_zero_point, q->a.zero_point, op->qdst);
        op->oscale = 1.0f / 64;
        if (n == 4) {
            float alpha, beta;
            op->post_alg = plan_eltwise_dnnl(&d->members[2], &alpha, &beta);
            op->post_alpha = alpha;
            op->post_beta = beta;
            if (!op->post_alg)
                return -1;
        }
        p->quant = 1;
        return 0;
    }
    bool conv = fusion_is_conv(d->pattern), gemm = fusion_is_gemm(d->pattern);
    if (!conv && !gemm)
        return -1;
    if (member_dnnl(first, p))
        return -1;
    struct bd_op *op = &p->op;
    if (fusion_has_bn(d->pattern) || d->pattern == FUSE_GEMM_BIAS || d->pattern == FUSE_GEMM_BIAS_ACT) {
        if (!op->has_bias) {
            /* a folded BN or the Add becomes the primitive's bias */
            op->has_bias = 1;
            if (conv) {
                op->bias.nd = 1;
                op->bias.d[0] = op->dst.d[1];
            } else {
                op->bias.nd = op->dst.nd;
                for (int k = 0; k < op->dst.nd - 1; k++)
                    op->bias.d[k] = 1;
                op->bias.d[op->dst.nd - 1] = op->dst.d[op->dst.nd - 1];
            }
            /* the BIAS argument goes before DST */
            p->args[p->nargs] = p->args[p->nargs - 1];
            p->args[p->nargs - 1].arg = "DNNL_ARG_BIAS";
            p->args[p->nargs - 1].output = 0;
            p->args[p->nargs - 1].fill = 0;
            p->nargs++;
        }
    }
    op->post_sum = fusion_has_add(d->pattern);
    const struct layer_desc *act = fused_act(d);
    if (act && act_is_silu(d)) {
        op->post_alg = dnnl_eltwise_swish; /* x sigmoid(alpha x) */
        op->post_alpha = 1.0f;
        op->post_beta = 0.0f;
    } else if (act) {
        float alpha, beta;
        op->post_alg = plan_eltwise_dnnl(act, &alpha, &beta);
        if (!op->post_alg)
            return -1;
        op->post_alpha = alpha;
        op->post_beta = beta;
    }
    return 0;
}

/* Gemm/MatMul [+ bias Add] [+ Relu, or a tanh GELU] as one cublasLtMatmul with the epilogue
 * frameworks use (cuBLASLt's GELU is the tanh approximation: an erf GELU is not fused) */
static int fusion_cublaslt(const struct layer_desc *d, struct cu_plan *p)
{
    const struct layer_desc *first = &d->members[0];
    const struct op_plans *h = plan_hooks(first);
    if (!h || !h->cudnn || h->cudnn(first, p) || p->family != CU_GEMM)
        return -1;
    bool bias = d->pattern != FUSE_GEMM_ACT;
    const char *epi = bias ? "CUBLASLT_EPILOGUE_BIAS" : NULL;
    const struct layer_desc *act = fused_act(d);
    if (act) {
        bool relu = act->op && !strcmp(act->op, "Relu");
        bool gelu_tanh = act->op && !strcmp(act->op, "Gelu") && act->a.approximate && !strcmp(act->a.approximate, "tanh");
        if (!relu && !gelu_tanh)
            return -1;
        epi = relu ? (bias ? "CUBLASLT_EPILOGUE_RELU_BIAS" : "CUBLASLT_EPILOGUE_RELU")
                   : (bias ? "CUBLASLT_EPILOGUE_GELU_BIAS" : "CUBLASLT_EPILOGUE_GELU");
    }
    p->family = CU_LT;
    p->epilogue = epi;
    p->what = "cublasLtMatmul";
    p->nalgos = 0;
    p->gemv = false;
    p->lt = true;
    p->types = CU_LT_TYPES;
    if (bias)
        p->elems += (double)p->n;
    return 0;
}

/* The attention group through cuDNN's fused attention (the backend API graph, BC_SDPA): f16
 * and bf16 on Tensor Cores, head sizes multiples of 8 up to 256, no mask or an added one that
 * varies along the keys (cuDNN's bias; a Where mask has no cuDNN form). Grouped-query
 * attention (rep > 1) as K and V of fewer heads than Q, the graph's matmuls broadcasting them */
static int attention_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    const struct desc_attention *a = d->attention;
    if (!a || a->d % 8 || a->dv % 8 || a->d > 256 || a->dv > 256 || a->mask == ATT_MASK_SELECT ||
        (a->mask == ATT_MASK_ADD && !a->m[3]))
        return -1;
    p->family = CU_SDPA;
    p->att = a;
    p->types = (1u << CU_F16TC) | (1u << CU_BF16);
    p->what = "cuDNN fused attention (backend API graph)";
    p->flops = 2.0 * (double)a->b * (double)a->h * (double)a->sq * (double)a->skv * (double)(a->d + a->dv);
    p->elems = (double)(a->q_elems + a->k_elems + a->v_elems + a->b * a->h * a->sq * a->dv) +
               (a->mask == ATT_MASK_ADD ? (double)a->m_elems : 0);
    plan_cu_note(p, "Q K^T -> * scale%s -> softmax (max, exp, sum, divide) -> . V, the scores in float, the probabilities in the type",
                 a->mask == ATT_MASK_ADD ? " -> + mask" : "");
    return 0;
}

/* cuBLAS's default algorithms alone for an attention part (the heuristic's choice, with and
 * without Tensor Cores); cuBLASLt's heuristic ranks beside them */
static const struct cu_algo part_algos[] = {
    {"default", "CUBLAS_GEMM_DEFAULT", (1u << CU_F32) | (1u << CU_F16)},
    {"default_tensor_op", "CUBLAS_GEMM_DEFAULT_TENSOR_OP", (1u << CU_TF32) | (1u << CU_F16TC) | (1u << CU_BF16)},
};

/* An attention group's part (attention_parts) as the one strided batched GEMM over its b x h
 * heads that scores_gemm or context_gemm makes, through cublasGemmStridedBatchedEx and
 * cuBLASLt: attn_scores, scale Q K^T, Q and K read where they are, the scores written packed;
 * attn_context, P V, V read where it is, the output written with its heads merged. */
static int attention_part_cublas(const struct layer_desc *d, struct cu_plan *p)
{
    const struct desc_attention *a = d->attention;
    struct part_gemm g;
    if (!a || a->rep != 1)
        return -1;
    int64_t shape[6] = {a->b, a->h, a->sq, a->skv, a->d, a->dv};
    if (d->pattern == FUSE_ATTN_SCORES) {
        if (!scores_gemm(shape, a->q, a->k, &g))
            return -1;
        p->a_elems = a->q_elems, p->b_elems = a->k_elems;
        p->gemm_alpha = a->scale;
        plan_cu_note(p, "Q and K read where the projections put them (their head transposes as leading dims and batch "
                        "strides), the scale %.9g as the GEMM's alpha: the scores packed [b, h, sq, skv]",
                     a->scale);
    } else {
        if (!context_gemm(shape, a->v, a->o, &g))
            return -1;
        p->b_elems = a->v_elems, p->c_elems = g.batch * g.m * g.n;
        plan_cu_note(p, "the probabilities packed [b, h, sq, skv], V read where its projection put it, the output written "
                        "with its heads merged (V's and the output's transposes as leading dims and batch strides)");
    }
    p->m = g.m, p->n = g.n, p->k = g.k, p->ta = g.ta, p->tb = g.tb;
    p->lda = g.lda, p->ldb = g.ldb, p->ldc = g.ldc;
    p->batch_count = g.batch > 1 ? g.batch : 1;
    if (g.batch > 1)
        p->stride_a = g.stride_a, p->stride_b = g.stride_b, p->stride_c = g.stride_c;
    p->family = CU_GEMM;
    p->what = g.batch > 1 ? "cublasGemmStridedBatchedEx over the heads, operands in place"
                          : "cublasGemmEx, operands in place";
    p->algos = part_algos;
    p->nalgos = (int)BZ_ARRAY_LEN(part_algos);
    p->types = CU_ALL_TYPES;
    p->lt = true;
    p->flops = 2.0 * (double)g.m * (double)g.n * (double)g.k * (double)g.batch;
    p->elems = (double)g.batch * (double)(g.m * g.k + g.k * g.n + g.m * g.n);
    return 0;
}

/* Conv[+BN folded][+Add residual][+Relu] through cudnnConvolutionBiasActivationForward
 * (identity or Relu; a folded BN is the bias) and the backend graph's engines, which also take
 * a SiLU, Sigmoid, Tanh and a Clip from 0 (those through the engines alone); the GEMM groups
 * through cuBLASLt; the attention groups through cuDNN's fused attention */
static int fusion_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (d->pattern == FUSE_ATTENTION)
        return attention_cudnn(d, p);
    if (d->pattern == FUSE_ATTN_SCORES || d->pattern == FUSE_ATTN_CONTEXT)
        return attention_part_cublas(d, p);
    if (d->nmembers >= 1 && fusion_is_gemm(d->pattern))
        return fusion_cublaslt(d, p);
    if (d->nmembers < 1 || fusion_is_qdq(d->pattern) || !fusion_is_conv(d->pattern))
        return -1;
    const struct layer_desc *first = &d->members[0];
    const struct op_plans *h = plan_hooks(first);
    if (!h || !h->cudnn || h->cudnn(first, p) || p->family != CU_CONV)
        return -1;
    const struct layer_desc *act = fused_act(d);
    p->act = "CUDNN_ACTIVATION_IDENTITY";
    if (act) {
        const char *mode = act_is_silu(d) ? "CUDNN_ACTIVATION_SWISH" : act->def ? act->def->ids.cudnn : NULL;
        bool clip = mode && !strcmp(mode, "CUDNN_ACTIVATION_CLIPPED_RELU");
        if (clip && (!desc_clip_from_zero(act) || act->a.max <= 0.0))
            return -1; /* a Clip from elsewhere, or to 0 or below */
        if (clip && act->a.max >= 3.4e38)
            mode = "CUDNN_ACTIVATION_RELU"; /* a Clip from 0 with no upper bound (or none known) */
        if (mode && !strcmp(mode, "CUDNN_ACTIVATION_RELU")) {
            p->act = mode; /* the legacy call and the graph */
        } else if (mode && p->engines &&
                   (clip || !strcmp(mode, "CUDNN_ACTIVATION_SWISH") || !strcmp(mode, "CUDNN_ACTIVATION_SIGMOID") ||
                    !strcmp(mode, "CUDNN_ACTIVATION_TANH"))) {
            /* the graph's SWISH_FWD (a SiLU), SIGMOID_FWD, TANH_FWD, RELU_FWD clipped at Clip's
             * max (Relu6), run by the engines the heuristics return (runtime fusion) only:
             * cudnnConvolutionBiasActivationForward takes identity and Relu alone */
            p->act = mode;
            p->coef = clip ? act->a.max : 0.0;
            p->nalgos = 0;
        } else {
            return -1; /* no cuDNN form: the members one by one */
        }
    }
    p->residual = fusion_has_add(d->pattern);
    p->family = CU_CONV_FUSED;
    p->what = "cudnnConvolutionBiasActivationForward";
    p->advice = false;
    p->elems += (double)plan_cu_count(&p->y) * (p->residual ? 1 : 0) + (double)p->y.d[1];
    return 0;
}

/* the attention group: our flash-attention kernels (runtime/cuda_kernels.cuh), in f32, f16 and
 * bf16 (emit_cuda sets the type and the bytes); the flops are the two products' */
static int attention_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    const struct desc_attention *a = d->attention;
    memset(k, 0, sizeof(*k));
    if (!a || a->d > 256 || a->dv > 256)
        return -1;
    k->kind = CK_ATTENTION;
    k->att = a;
    k->pl.out = (struct pl_tensor){PL_FLOAT, 4, {a->b, a->h, a->sq, a->dv}};
    k->what = "scaled dot-product attention, the group's nodes in one flash-attention kernel";
    k->flops = 2.0 * (double)a->b * (double)a->h * (double)a->sq * (double)a->skv * (double)(a->d + a->dv);
    return 0;
}

/* a rope or rope_pairs group (flag 1) as PL_ROPE: x (the Slices' or the Split's input), cos,
 * sin; the members are Slice, Slice, Neg, Concat, Mul(x, cos), Mul(rotated, sin), Add, or for a
 * rope group Split, Neg, Concat, Mul, Mul, Add */
static int rope_op(const struct layer_desc *d, struct pl_op *op)
{
    memset(op, 0, sizeof(*op));
    int n = d->nmembers;
    bool split = n == 6 && d->pattern == FUSE_ROPE && d->members[0].op && !strcmp(d->members[0].op, "Split");
    if (n != 7 && !split)
        return -1;
    const struct layer_desc *mc = &d->members[n - 3], *ms = &d->members[n - 2];
    const struct desc_tensor *x = desc_in(&d->members[0], 0);
    if (!x || mc->nin != 2 || ms->nin != 2)
        return -1;
    /* cos: the Mul's input of another shape than x's, else its second (the benchmark fills
     * both with the same random data either way); sin: the second Mul's other input */
    const struct desc_tensor *c = desc_same_dims(desc_in(mc, 0), x) ? desc_in(mc, 1) : desc_in(mc, 0);
    const struct desc_tensor *s = desc_same_dims(desc_in(ms, 0), x) ? desc_in(ms, 1) : desc_in(ms, 0);
    if (plan_ck_tensor_float(x, &op->in[0]) || plan_ck_tensor_float(c, &op->in[1]) ||
        plan_ck_tensor_float(s, &op->in[2]) || plan_ck_tensor_float(desc_out(&d->members[n - 1], 0), &op->out) ||
        op->in[1].dtype != op->in[0].dtype || op->in[2].dtype != op->in[0].dtype || op->out.dtype != op->in[0].dtype)
        return -1;
    op->kind = PL_ROPE;
    op->fn = PL_IDENTITY;
    op->nin = 3;
    op->flag = d->pattern == FUSE_ROPE_PAIRS;
    return 0;
}

/* a swiglu or geglu group as PL_BINARY of its PL_GLU function (silu, gelu by erf, gelu by
 * tanh) of the gate g (the activation's input) and u (the last Mul's other input); the
 * members are the activation's nodes (Sigmoid and Mul; GELU's five or eight, or a Gelu) and
 * the Mul, after the Split or the two Slices (gate_up_halves) where g and u are the halves of
 * their input: then that one input, pl_halves' flag saying which half is g */
static int glu_op(const struct layer_desc *d, struct pl_op *op)
{
    memset(op, 0, sizeof(*op));
    int n = d->nmembers, split = 0;
    if (n >= 3 && d->members[0].op && !strcmp(d->members[0].op, "Split"))
        split = 1;
    else if (n >= 4 && d->members[0].op && d->members[1].op && !strcmp(d->members[0].op, "Slice") &&
             !strcmp(d->members[1].op, "Slice"))
        split = 2;
    const struct layer_desc *m2 = &d->members[n - 1];
    int fn = PL_SILU_MUL;
    if (d->pattern == FUSE_GEGLU) {
        fn = PL_GELU_MUL;
        for (int k = split; k < n - 1; k++)
            if (d->members[k].op && (!strcmp(d->members[k].op, "Tanh") ||
                                     (!strcmp(d->members[k].op, "Gelu") && d->members[k].a.approximate &&
                                      !strcmp(d->members[k].a.approximate, "tanh"))))
                fn = PL_GELU_TANH_MUL;
    }
    int acts = n - 1 - split;
    if (d->pattern == FUSE_SWIGLU ? acts != 2 : acts != 1 && acts != 5 && acts != 8)
        return -1;
    if (!m2->op || strcmp(m2->op, "Mul") || m2->nin != 2 || (split && d->glu_gate < 0))
        return -1;
    /* u: the last Mul's other input, of g's shape (glu_mul): its second input stands for it
     * either way, the key telling the two apart by no more than their order, and the
     * benchmark fills both with random data of that one shape */
    const struct desc_tensor *g = desc_in(&d->members[0], 0);
    if (!g || plan_ck_tensor_float(g, &op->in[0]) || (!split && plan_ck_tensor_float(desc_in(m2, 1), &op->in[1])) ||
        plan_ck_tensor_float(desc_out(m2, 0), &op->out) || op->in[0].dtype != op->out.dtype ||
        (!split && op->in[1].dtype != op->out.dtype))
        return -1;
    op->kind = PL_BINARY;
    op->fn = fn;
    op->nin = 2;
    if (split) {
        /* the halves' input [..., 2C] into the output [..., C] (gate_up_halves) */
        int nd = op->out.nd;
        if (op->in[0].nd != nd || nd < 1)
            return -1;
        for (int k = 0; k < nd; k++)
            if (op->in[0].d[k] != op->out.d[k] * (k == nd - 1 ? 2 : 1))
                return -1;
        op->nin = 1;
        op->flag = d->glu_gate + 1;
    }
    return 0;
}

/* plain C for a group: the rope groups' PL_ROPE and the swiglu and geglu groups' PL_GLU
 * function (the CPU's one benchmark of them) */
static int fusion_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (d->pattern == FUSE_SWIGLU || d->pattern == FUSE_GEGLU)
        return glu_op(d, op);
    return d->pattern == FUSE_ROPE || d->pattern == FUSE_ROPE_PAIRS ? rope_op(d, op) : -1;
}

/* the decomposed GELU and LayerNorm groups, a residual sum's LayerNorm, an RMSNorm and the
 * rotary embedding: one kernel of ours from the group's input to its output */
static int fusion_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (d->pattern == FUSE_ATTENTION)
        return attention_kernel(d, k);
    /* an rmsnorm group may take in and give back a 16-bit type (the Casts of an f16 export), and
     * the element-wise groups of an f16 or bf16 model (rope, the GLUs, GELU, SiLU) are in it */
    bool any_float = d->pattern == FUSE_RMSNORM || d->pattern == FUSE_ROPE || d->pattern == FUSE_ROPE_PAIRS ||
                     d->pattern == FUSE_SWIGLU || d->pattern == FUSE_GEGLU || d->pattern == FUSE_GELU ||
                     d->pattern == FUSE_GELU_TANH || d->pattern == FUSE_SILU;
    int (*tensor)(const struct desc_tensor *, struct pl_tensor *) = any_float ? plan_ck_tensor_float : plan_ck_tensor;
    if (d->nmembers < 1 || tensor(desc_in(&d->members[0], 0), &k->pl.in[0]) ||
        tensor(desc_out(&d->members[d->nmembers - 1], 0), &k->pl.out) || k->pl.in[0].dtype != k->pl.out.dtype)
        return -1;
    if (d->pattern == FUSE_GELU || d->pattern == FUSE_GELU_TANH || d->pattern == FUSE_SILU) {
        k->kind = CK_PLAIN;
        k->pl.kind = PL_UNARY;
        k->pl.fn = d->pattern == FUSE_GELU ? PL_GELU : d->pattern == FUSE_GELU_TANH ? PL_GELU_TANH : PL_SWISH;
        k->pl.alpha = 1.0f;
        k->pl.nin = 1;
        k->what = d->pattern == FUSE_GELU        ? "GELU (erf), the group's nodes in one kernel"
                  : d->pattern == FUSE_GELU_TANH ? "GELU (tanh approximation), the group's nodes in one kernel"
                                                 : "SiLU (x sigmoid(x)), the group's nodes in one kernel";
        k->flops = (d->pattern == FUSE_SILU ? 4.0 : 8.0) * plan_pl_bytes(&k->pl.out) / 4;
    } else if (d->pattern == FUSE_ADD_LAYERNORM) {
        /* the sum's rows, normalised over the last axis: as a single LayerNormalization's kernel
         * with the residual (and the bias) added first */
        const struct layer_desc *ln = &d->members[d->nmembers - 1];
        int nd = k->pl.out.nd;
        if (nd < 1 || ln->a.axis != nd - 1)
            return -1;
        k->kind = CK_LAYERNORM;
        k->affine = 1;
        k->eps = ln->a.epsilon;
        k->residual = d->nmembers == 3 ? 2 : 1;
        k->keep_sum = d->keeps_sum;
        k->what = d->nmembers == 3
                      ? (d->keeps_sum ? "LayerNorm of x + residual + bias over the last axis, the sum written out too, the group's nodes in one kernel"
                                      : "LayerNorm of x + residual + bias over the last axis, the group's nodes in one kernel")
                      : (d->keeps_sum ? "LayerNorm of x + residual over the last axis, the sum written out too, the group's nodes in one kernel"
                                      : "LayerNorm of x + residual over the last axis, the group's nodes in one kernel");
        double cols = (double)k->pl.out.d[nd - 1], vec = 4.0 * cols * (k->residual == 2 ? 3 : 2);
        k->flops = 7.0 * plan_pl_bytes(&k->pl.out) / 4;
        k->bytes = 2 * plan_pl_bytes(&k->pl.in[0]) + (d->keeps_sum ? 2 : 1) * plan_pl_bytes(&k->pl.out) + vec;
        return 0;
    } else if (d->pattern == FUSE_SWIGLU || d->pattern == FUSE_GEGLU) {
        if (glu_op(d, &k->pl))
            return -1;
        k->kind = CK_PLAIN;
        k->what = k->pl.fn == PL_SILU_MUL   ? "SwiGLU's gate (silu(g) u, g sigmoid(g) u), the group's nodes in one kernel"
                  : k->pl.fn == PL_GELU_MUL ? "GeGLU's gate (gelu(g) u, GELU by erf), the group's nodes in one kernel"
                                            : "GeGLU's gate (gelu(g) u, GELU's tanh approximation), the group's nodes in "
                                              "one kernel";
        plan_ck_finish(k);
        k->flops = plan_glu_flops(k->pl.fn) * plan_pl_bytes(&k->pl.out) / (double)pl_esize(k->pl.out.dtype);
        return 0;
    } else if (d->pattern == FUSE_ROPE || d->pattern == FUSE_ROPE_PAIRS) {
        if (rope_op(d, &k->pl))
            return -1;
        k->kind = CK_PLAIN;
        k->what = d->pattern == FUSE_ROPE
                      ? "the rotary position embedding (x cos + rotate_half(x) sin), the group's nodes in one kernel"
                      : "the rotary position embedding by pairs (x cos + rotate_pairs(x) sin), the group's nodes in one "
                        "kernel";
        plan_ck_finish(k);
        k->flops = 3.0 * plan_pl_bytes(&k->pl.out) / (double)pl_esize(k->pl.out.dtype);
        return 0;
    } else if (d->pattern == FUSE_RMSNORM) {
        k->kind = CK_LAYERNORM;
        k->rms = 1;
        k->affine = d->rms_scale;
        k->eps = d->rms_eps;
        k->what = d->rms_scale ? "RMSNorm over the last axis, scaled, the group's nodes in one kernel"
                               : "RMSNorm over the last axis, the group's nodes in one kernel";
        k->flops = 4.0 * plan_pl_bytes(&k->pl.out) / (double)pl_esize(k->pl.out.dtype);
        plan_ck_finish(k); /* x read, y written, the scale row read */
        return 0;
    } else if (d->pattern == FUSE_LAYERNORM) {
        k->kind = CK_LAYERNORM;
        k->affine = d->nmembers >= 9;
        k->eps = 1e-5;
        k->what = "LayerNorm over the last axis, the group's nodes in one kernel";
        k->flops = 5.0 * plan_pl_bytes(&k->pl.out) / 4;
    } else {
        return -1;
    }
    k->bytes = plan_pl_bytes(&k->pl.in[0]) + plan_pl_bytes(&k->pl.out);
    return 0;
}

static const struct op_plans fusion_plans;

const struct op_plans *plan_hooks(const struct layer_desc *d)
{
    if (d->pattern != FUSE_NONE)
        return &fusion_plans;
    return d->def ? d->def->plans : NULL;
}

static const struct op_plans fusion_plans = {fusion_dnnl, fusion_plain, fusion_cudnn, fusion_kernel, NULL, PLAN_KERNEL_TOO,
    .how = {"oneDNN primitive with post-ops; attention's two products as matmuls on the heads in place", NULL,
            "cuDNN fused convolution + bias + activation; cuBLASLt GEMM + bias epilogues; cuDNN fused attention "
            "(backend API); attention's two products as strided batched GEMMs on the heads in place",
            "kernel of ours (GELU, LayerNorm, flash attention)"}};
