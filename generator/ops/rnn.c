/* Recurrent layers: LSTM, GRU, RNN (both layouts, all directions). */
#include <string.h>
#include <strings.h>

#include "../plan.h"
#include "ops.h"

static void infer_rnn(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    int64_t hidden = op_attr_i(c, "hidden_size", -1);
    const char *dir = op_attr_s(c, "direction", "forward");
    int64_t nd = !strcmp(dir, "bidirectional") ? 2 : 1;
    bool batch_first = op_attr_i(c, "layout", 0) != 0;
    struct ir_dim seq = dim_unknown(), batch = dim_unknown();
    if (x && x->rank == 3) {
        seq = x->dims[batch_first ? 1 : 0];
        batch = x->dims[batch_first ? 0 : 1];
    }
    struct ir_dim h = hidden > 0 ? dim_of(hidden) : dim_unknown();
    if (hidden <= 0) {
        /* from R: [num_directions, gates*hidden, hidden] */
        const struct ir_type *r = op_in(c, 2);
        if (r && r->rank == 3)
            h = r->dims[2];
    }
    if (c->n->n_outputs > 0 && c->n->outputs[0]) {
        struct ir_dim *d = op_out(c, 0, dtype, 4);
        if (batch_first) {
            d[0] = batch;
            d[1] = seq;
        } else {
            d[0] = seq;
            d[2] = batch;
        }
        d[batch_first ? 2 : 1] = dim_of(nd);
        d[3] = h;
    }
    for (int o = 1; o < c->n->n_outputs && o < 3; o++) {
        if (!c->n->outputs[o])
            continue;
        struct ir_dim *d = op_out(c, o, dtype, 3);
        d[batch_first ? 1 : 0] = dim_of(nd);
        d[batch_first ? 0 : 1] = batch;
        d[2] = h;
    }
}

/* ---- backends ---- */

/* LSTM / GRU / RNN in oneDNN: ONNX X [T, N, C] (layout 0; layout 1's [N, T, C] is the same
 * work), W [D, G*H, C], R [D, G*H, H]. oneDNN's layouts for weights and outputs are its own. */
static int rnn_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    struct bd_tensor x, w;
    memset(p, 0, sizeof(*p));
    if (which || plan_bd_tensor(desc_in(d, 0), &x) || plan_bd_tensor(desc_in(d, 1), &w) || x.nd != 3 || w.nd != 3)
        return -1;
    bool batch_first = d->a.layout != 0;
    int64_t T = batch_first ? x.d[1] : x.d[0], N = batch_first ? x.d[0] : x.d[1], C = x.d[2];
    int64_t D = w.d[0], G = d->def->ids.variant, H = w.d[1] / G;
    /* cell clipping, coupled input-forget gates and parametrised activations: oneDNN has none
     * (gen lists such a layer rather than time another cell) */
    if (desc_present(d, DA_clip) || d->a.input_forget != 0 || desc_present(d, DA_activation_alpha) ||
        desc_present(d, DA_activation_beta))
        return -1;
    /* activations: per direction, LSTM f g h (Sigmoid Tanh Tanh), GRU f g (Sigmoid Tanh), RNN f
     * (Tanh); oneDNN's LSTM and GRU have only the defaults, its vanilla RNN Tanh, Relu or Sigmoid */
    bool acts = desc_present(d, DA_activations);
    int nf = G == 4 ? 3 : G == 3 ? 2 : 1, rnn_act = 0;
    if (acts && d->a.activations.n != nf * D)
        return -1;
    for (int64_t k = 0; acts && k < nf * D; k++) {
        const char *a = d->a.activations.v[k]; /* "" for what is not a string */
        int f = (int)(k % nf);
        if (G == 1) {
            int alg = !strcmp(a, "Tanh") ? dnnl_eltwise_tanh : !strcmp(a, "Relu") ? dnnl_eltwise_relu
                      : !strcmp(a, "Sigmoid") ? dnnl_eltwise_logistic : 0;
            if (!alg || (k && alg != rnn_act))
                return -1; /* one activation for both directions */
            rnn_act = alg;
        } else if (strcmp(a, f == 0 ? "Sigmoid" : "Tanh") != 0) {
            return -1;
        }
    }
    const char *dir = d->a.direction;
    struct bd_op *op = &p->op;
    op->family = BD_RNN;
    op->alg = G == 4 ? dnnl_vanilla_lstm : G == 3 ? (d->a.linear_before_reset ? dnnl_lbr_gru : dnnl_vanilla_gru)
                                                 : dnnl_vanilla_rnn;
    op->axis = !strcmp(dir, "bidirectional") ? dnnl_bidirectional_concat
               : !strcmp(dir, "reverse")     ? dnnl_unidirectional_right2left
                                             : dnnl_unidirectional_left2right;
    op->src = (struct bd_tensor){3, {T, N, C}};
    op->dst = (struct bd_tensor){3, {T, N, D * H}};
    op->wei = (struct bd_tensor){5, {1, D, C, G, H}};
    op->src1 = (struct bd_tensor){5, {1, D, H, G, H}};
    op->bias = (struct bd_tensor){4, {1, D, op->alg == dnnl_lbr_gru ? G + 1 : G, H}};
    op->has_bias = 1;
    op->rnn_act = rnn_act == dnnl_eltwise_tanh ? 0 : rnn_act;
    op->peephole = G == 4 && desc_in(d, 7) != NULL;
    p->algs[0] = op->alg;
    p->n_algs = 1;
    plan_arg(p, "DNNL_ARG_SRC_LAYER", 0, 0);
    plan_arg(p, "DNNL_ARG_SRC_ITER", 0, 0);
    if (G == 4)
        plan_arg(p, "DNNL_ARG_SRC_ITER_C", 0, 0);
    /* weights at the scale of their fan-in: with uniform [-1, 1] the recurrence of a wide
     * layer is chaotic (spectral radius about sqrt(H / 3)), float rounding grows without
     * bound over the steps and no two correct implementations agree; at 1 / sqrt(fan-in) it
     * contracts and the gates stay out of saturation, so --verify can see a wrong cell */
    plan_arg(p, "DNNL_ARG_WEIGHTS_LAYER", 0, C > 1 ? (int)C : 0);
    plan_arg(p, "DNNL_ARG_WEIGHTS_ITER", 0, H > 1 ? (int)H : 0);
    if (op->peephole)
        plan_arg(p, "DNNL_ARG_WEIGHTS_PEEPHOLE", 0, 0);
    plan_arg(p, "DNNL_ARG_BIAS", 0, 0);
    plan_arg(p, "DNNL_ARG_DST_LAYER", 1, 0);
    plan_arg(p, "DNNL_ARG_DST_ITER", 1, 0);
    if (G == 4)
        plan_arg(p, "DNNL_ARG_DST_ITER_C", 1, 0);
    p->flops = 2.0 * (double)(T * N * D * G * H) * (double)(C + H);
    p->bytes = 4.0 * (double)(T * N * C + T * N * D * H + D * G * H * (C + H));
    return 0;
}

static int rnn_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    static const struct cu_algo rnn_algos[] = {
        {"standard", "CUDNN_RNN_ALGO_STANDARD", 0},
        {"persist_static", "CUDNN_RNN_ALGO_PERSIST_STATIC", 0},
        {"persist_dynamic", "CUDNN_RNN_ALGO_PERSIST_DYNAMIC", 0},
        {"persist_static_small_h", "CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H", 0},
    };
    struct cu_tensor w;
    plan_cu_single(p);
    if (plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_in(d, 1), &w) || p->x.nd != 3 ||
        d->a.layout != 0 || desc_present(d, DA_clip) || d->a.input_forget != 0)
        return -1;
    bool acts = desc_present(d, DA_activations);
    const char *dir = d->a.direction;
    if (!strcmp(dir, "reverse"))
        return -1; /* cuDNN runs forward or both ways */
    p->bidir = !strcmp(dir, "bidirectional");
    p->seq = (int)p->x.d[0];
    p->batch = (int)p->x.d[1];
    p->input = (int)p->x.d[2];
    p->hidden = (int)d->a.hidden_size;
    if (p->hidden <= 0)
        return -1;
    int gates = (int)d->def->ids.variant;
    if (gates == 4) {
        if (acts || desc_in(d, 7))
            return -1; /* cuDNN's LSTM is sigmoid/tanh/tanh, without peepholes */
        p->mode = "CUDNN_LSTM";
    } else if (gates == 3) {
        /* cuDNN's GRU applies the recurrent weights before the reset gate */
        if (acts || d->a.linear_before_reset == 0)
            return -1;
        p->mode = "CUDNN_GRU";
    } else {
        const char *a = !acts ? "Tanh" : d->a.activations.n > 0 ? d->a.activations.v[0] : "";
        if (strcmp(a, "Tanh") && strcmp(a, "Relu"))
            return -1;
        p->mode = !strcmp(a, "Relu") ? "CUDNN_RNN_RELU" : "CUDNN_RNN_TANH";
    }
    int dirs = p->bidir ? 2 : 1;
    p->family = CU_RNN;
    p->what = "cudnnRNNForward (inference)";
    p->algos = rnn_algos;
    p->nalgos = (int)BZ_ARRAY_LEN(rnn_algos);
    p->types = CU_RNN_TYPES;
    p->flops = 2.0 * dirs * p->seq * (double)p->batch * gates * p->hidden * (double)(p->input + p->hidden);
    p->elems = (double)plan_cu_count(&p->x) + (double)dirs * gates * p->hidden * (p->input + p->hidden + 2) +
               (double)p->seq * p->batch * p->hidden * dirs;
    return 0;
}

/* The same layer in plain C (runtime/plain_rnn.h), float: every activation, clip, input_forget,
 * sequence_lens and both layouts, which oneDNN's RNN takes in part; and oneDNN 2.6 runs a GRU in
 * its reference implementation, slower than the few multiply-adds of a small layer warrant. The activations' alphas and betas are consumed in order by the functions that
 * take them, each at its default where the list runs out (as ONNX Runtime reads them). */
static int rnn_plain(const struct layer_desc *d, struct pl_op *op)
{
    static const struct {
        const char *name;
        int act, uses_alpha, uses_beta;
        float alpha, beta;
    } acts[] = {
        {"Relu", PL_ACT_RELU, 0, 0, 0, 0},
        {"Tanh", PL_ACT_TANH, 0, 0, 0, 0},
        {"Sigmoid", PL_ACT_SIGMOID, 0, 0, 0, 0},
        {"Affine", PL_ACT_AFFINE, 1, 1, 0, 0},
        {"LeakyRelu", PL_ACT_LEAKYRELU, 1, 0, 0.01f, 0},
        {"ThresholdedRelu", PL_ACT_THRESHOLDEDRELU, 1, 0, 0, 0},
        {"ScaledTanh", PL_ACT_SCALEDTANH, 1, 1, 0, 0},
        {"HardSigmoid", PL_ACT_HARDSIGMOID, 1, 1, 0.2f, 0.5f},
        {"Elu", PL_ACT_ELU, 1, 0, 1.0f, 0},
        {"Softsign", PL_ACT_SOFTSIGN, 0, 0, 0, 0},
        {"Softplus", PL_ACT_SOFTPLUS, 0, 0, 0, 0},
    };
    const struct desc_tensor *x = desc_in(d, 0), *w = desc_in(d, 1), *rw = desc_in(d, 2);
    memset(op, 0, sizeof(*op));
    if (!x || !w || !rw || x->dtype != IR_DTYPE_FLOAT || x->rank != 3 || w->rank != 3 || rw->rank != 3)
        return -1;
    struct pl_rnn *rn = &op->rnn;
    int G = (int)d->def->ids.variant, nf = G == 4 ? 3 : G == 3 ? 2 : 1;
    int64_t D = !strcmp(d->a.direction, "bidirectional") ? 2 : 1, H = rw->d[2];
    bool batch_first = d->a.layout != 0;
    int64_t T = x->d[batch_first ? 1 : 0], N = x->d[batch_first ? 0 : 1], C = x->d[2];
    if (rw->d[0] != D || rw->d[1] != G * H || w->d[0] != D || w->d[1] != G * H || w->d[2] != C || H <= 0 ||
        (d->a.hidden_size > 0 && d->a.hidden_size != H))
        return -1;
    rn->gates = G;
    rn->reverse = !strcmp(d->a.direction, "reverse");
    rn->batch_first = batch_first;
    rn->lbr = d->a.linear_before_reset != 0;
    rn->input_forget = G == 4 && d->a.input_forget != 0;
    rn->packed = w->is_const && rw->is_const;
    rn->clip = desc_present(d, DA_clip) ? d->a.clip : 0;
    if (rn->clip < 0)
        return -1;
    /* the functions: the defaults, or the list (nf per direction) */
    bool given = desc_present(d, DA_activations);
    if (given && d->a.activations.n != nf * D)
        return -1;
    int ia = 0, ib = 0;
    for (int k = 0; k < nf * D; k++) {
        const char *name = given ? d->a.activations.v[k] : k % nf == 0 && G != 1 ? "Sigmoid" : "Tanh";
        size_t j = 0;
        while (j < BZ_ARRAY_LEN(acts) && strcasecmp(name, acts[j].name) != 0)
            j++;
        if (j == BZ_ARRAY_LEN(acts))
            return -1;
        rn->act[k] = acts[j].act;
        rn->alpha[k] = acts[j].alpha;
        rn->beta[k] = acts[j].beta;
        if (acts[j].uses_alpha && ia < d->a.activation_alpha.n)
            rn->alpha[k] = (float)d->a.activation_alpha.v[ia++];
        if (acts[j].uses_beta && ib < d->a.activation_beta.n)
            rn->beta[k] = (float)d->a.activation_beta.v[ib++];
    }
    /* the eight inputs: a missing one as a float (sequence_lens: int32) tensor of no elements */
    op->kind = PL_RNN;
    op->fn = PL_IDENTITY;
    op->nin = 8;
    for (int i = 0; i < 8; i++) {
        const struct desc_tensor *t = desc_in(d, i);
        if (t && plan_pl_tensor(t, &op->in[i]))
            return -1;
        if (!t)
            op->in[i] = (struct pl_tensor){i == 4 ? PL_INT32 : PL_FLOAT, 1, {0}};
        else if (i > 0 && op->in[i].dtype != (i == 4 ? PL_INT32 : PL_FLOAT))
            return -1;
        rn->has |= (t != NULL) << i;
    }
    /* B [D, 2 G H], sequence_lens [N], initial_h and initial_c [D, N, H] ([N, D, H] in layout 1),
     * P [D, 3 H] (LSTM's) */
    const struct pl_tensor *in = op->in;
    int64_t s0 = batch_first ? N : D, s1 = batch_first ? D : N;
    if ((rn->has >> 3 & 1u) && (in[3].nd != 2 || in[3].d[0] != D || in[3].d[1] != 2 * G * H))
        return -1;
    if ((rn->has >> 4 & 1u) && (in[4].nd != 1 || in[4].d[0] != N))
        return -1;
    for (int i = 5; i < 7; i++)
        if ((rn->has >> i & 1u) && (in[i].nd != 3 || in[i].d[0] != s0 || in[i].d[1] != s1 || in[i].d[2] != H))
            return -1;
    if ((rn->has >> 6 & 1u || rn->has >> 7 & 1u) && G != 4)
        return -1;
    if ((rn->has >> 7 & 1u) && (in[7].nd != 2 || in[7].d[0] != D || in[7].d[1] != 3 * H))
        return -1;
    op->out = (struct pl_tensor){PL_FLOAT, 1, {T * D * N * H + D * N * H * (G == 4 ? 2 : 1)}};
    return 0;
}

static const struct op_plans rnn_plans = {rnn_dnnl, rnn_plain, rnn_cudnn, NULL, NULL, PLAN_PLAIN_TOO,
    .how = {"oneDNN RNN (LSTM, GRU, vanilla)", "plain C (float; every activation, clip, sequence_lens)",
            "cuDNN RNN, its 4 algorithms", NULL}};

static const struct op_attr rnn_attrs[] = {ATTR_MIN(hidden_size, 0, 1), ATTR(layout, 0), ATTR(clip, 0), ATTR(input_forget, 0),
                                           ATTR(linear_before_reset, 0), ATTR(activations, 0),
                                           ATTR(activation_alpha, 0), ATTR(activation_beta, 0),
                                           ATTR_S(direction, "forward"), ATTR_END};

const struct op_def ops_rnn[] = {
    {"LSTM", infer_rnn, 0, NULL, rnn_attrs, &rnn_plans, {.variant = 4}, .schema = OP_SCHEMA(3, 8, 0, 3, 0x7, 1, 0)},
    {"GRU", infer_rnn, 0, NULL, rnn_attrs, &rnn_plans, {.variant = 3}, .schema = OP_SCHEMA(3, 6, 0, 2, 0x7, 1, 0)},
    {"RNN", infer_rnn, 0, NULL, rnn_attrs, &rnn_plans, {.variant = 1}, .schema = OP_SCHEMA(3, 6, 0, 2, 0x7, 1, 0)},
    {0},
};
