/* One oneDNN operation described by plain data, and the op descriptor built from it.
 *
 * Shared by gen (which enumerates the implementations oneDNN offers for a layer through
 * the primitive-descriptor iterator) and by every generated CPU benchmark (inlined), so
 * that both describe the operation identically. libc and oneDNN's C API only. */
#ifndef BENANZA_DNNL_OPS_H
#define BENANZA_DNNL_OPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

/* The families with code of their own past the common path (the op descriptor, oneDNN's
 * reference implementation): their descriptors and the references of runtime/dnnl_bench.h. A
 * generated benchmark defines BD_FAMILIES as its operation's bit (0 for the other families)
 * and holds that code alone: gen leaves the others' out (emit_dnnl_runtime), and a benchmark
 * refuses an operation whose code it lacks (bd_family_compiled). Without it (gen itself,
 * which enumerates every family's implementations), every family's code is in. */
#define BD_FAM_REORDER 0x1u
#define BD_FAM_CONCAT 0x2u
#define BD_FAM_DECONV 0x4u
#define BD_FAM_RNN 0x8u
#ifndef BD_FAMILIES
#define BD_FAMILIES 0xfu
#endif

enum { BD_MAX_CAT = 64 }; /* inputs of a concat (yolo5face has 9; the CUDA kernel takes 64 too) */

enum bd_family {
    BD_CONV,
    BD_DECONV,
    BD_POOL,
    BD_ELTWISE,
    BD_BNORM,
    BD_LNORM,
    BD_IP,
    BD_MATMUL,
    BD_BINARY,
    BD_SOFTMAX,
    BD_LRN,
    BD_REDUCTION,
    BD_REORDER,     /* Transpose: src plain, dst the permuted layout */
    BD_RNN,         /* LSTM, GRU, vanilla RNN: alg is the cell, axis the direction */
    BD_CONCAT,      /* Concat: inputs src, src1, cat[...]; axis */
    BD_RESAMPLING,  /* Resize/Upsample: nearest or linear, the factors from the dims */
    BD_PRELU,       /* PRelu: the slope in wei, broadcast to src */
    BD_FAMILY_COUNT
};

/* The BD_FAM_* bit of a family, 0 for one without code of its own */
static inline unsigned bd_family_bit(enum bd_family f)
{
    switch (f) {
    case BD_REORDER: return BD_FAM_REORDER;
    case BD_CONCAT: return BD_FAM_CONCAT;
    case BD_DECONV: return BD_FAM_DECONV;
    case BD_RNN: return BD_FAM_RNN;
    default: return 0u;
    }
}

/* A tensor: dims and a plain (row-major) layout unless a permutation is given. */
struct bd_tensor {
    int nd;
    dnnl_dims_t d; /* oneDNN reads DNNL_MAX_NDIMS entries */
};

struct bd_op {
    enum bd_family family;
    dnnl_data_type_t dt;      /* src/weights/dst type; bias and statistics stay f32 */
    int alg;                  /* dnnl_alg_kind_t where the family has one */
    struct bd_tensor src, wei, bias, dst, src1;
    int has_bias;
    int nsp;                  /* spatial dims (conv, pool) */
    dnnl_dims_t strides, dil, kernel, pl, pr;
    float alpha, beta, eps, p;
    dnnl_dim_t local_size;
    int axis;
    unsigned flags;           /* normalisation flags */
    int post_sum;             /* a sum post-op first: dst holds the residual and is added to */
    int post_alg;             /* eltwise post-op (0: none) */
    float post_alpha, post_beta;
    int wei_transposed;       /* matmul/ip weights stored transposed (Gemm transB) */
    int src_transposed;       /* matmul source stored transposed (Gemm transA) */
    float oscale;             /* an output scale (Gemm's alpha, a quantized layer's); 0: none */
    /* matmul: the element strides of src, weights and dst where an operand is read or written in
     * place (an attention part's heads where the projections put them); all 0: plain */
    dnnl_dims_t st_src, st_wei, st_dst;
    /* int8 (QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, QDQ groups): the types of
     * src, weights, dst and bias (0: dt, dt, dt, f32); oscale_n > 1 repeats oscale per output
     * channel (dims in oscale_mask); static zero points of src, weights, dst (0: none) */
    dnnl_data_type_t qsrc, qwei, qdst, qbias;
    int oscale_n, oscale_mask;
    int zp_src, zp_wei, zp_dst;
    int perm[8];              /* reorder: output dim k is input dim perm[k] */
    int layout;               /* src/dst of 4-D element-wise-like ops: BD_LAYOUT_* */
    int rnn_act;              /* vanilla RNN: its activation (dnnl_eltwise_*; 0: tanh) */
    int peephole;             /* LSTM: with peephole weights [1, D, 3, H] (gates i, f, o) */
    int ncat;                 /* concat: inputs after src and src1 */
    struct bd_tensor cat[BD_MAX_CAT - 2];
};

/* A concat has no op descriptor either: its primitive descriptor is made directly. */
static inline dnnl_status_t bd_md(dnnl_memory_desc_t *md, const struct bd_tensor *t, dnnl_data_type_t dt, int any);
static inline dnnl_status_t bd_concat_pd(dnnl_engine_t eng, const struct bd_op *op, dnnl_primitive_desc_t *pd)
{
    dnnl_memory_desc_t src[BD_MAX_CAT], dst;
    const struct bd_tensor *ts[BD_MAX_CAT] = {&op->src, &op->src1};
    int n = 2 + op->ncat;
    for (int i = 0; i < op->ncat; i++)
        ts[2 + i] = &op->cat[i];
    int fmt = op->layout && op->src.nd == 4 ? 2 + op->layout : 0;
    dnnl_status_t st;
    for (int i = 0; i < n; i++)
        if ((st = bd_md(&src[i], ts[i], op->dt, fmt)) != dnnl_success)
            return st;
    if ((st = bd_md(&dst, &op->dst, op->dt, fmt)) != dnnl_success)
        return st;
    return dnnl_concat_primitive_desc_create(pd, &dst, n, op->axis, src, NULL, eng);
}

/* Layouts a framework keeps activations in between convolutions: plain NCHW, channels-last,
 * and oneDNN's blocked 8- and 16-channel layouts. */
enum { BD_LAYOUT_PLAIN, BD_LAYOUT_NHWC, BD_LAYOUT_8C, BD_LAYOUT_16C, BD_LAYOUT_COUNT };

union bd_desc {
    dnnl_convolution_desc_t conv;
    dnnl_deconvolution_desc_t deconv;
    dnnl_pooling_v2_desc_t pool;
    dnnl_eltwise_desc_t eltwise;
    dnnl_batch_normalization_desc_t bnorm;
    dnnl_layer_normalization_desc_t lnorm;
    dnnl_inner_product_desc_t ip;
    dnnl_matmul_desc_t matmul;
    dnnl_binary_desc_t binary;
    dnnl_softmax_v2_desc_t softmax;
    dnnl_lrn_desc_t lrn;
    dnnl_reduction_desc_t reduction;
    dnnl_rnn_desc_t rnn;
    dnnl_resampling_desc_t resampling;
    dnnl_prelu_desc_t prelu;
};

static inline dnnl_status_t bd_md(dnnl_memory_desc_t *md, const struct bd_tensor *t, dnnl_data_type_t dt,
                           int any)
{
    if (any >= 2) { /* 2 + BD_LAYOUT_*: an activation layout of a 4-D tensor */
        static const dnnl_format_tag_t tags[BD_LAYOUT_COUNT] = {dnnl_abcd, dnnl_acdb, dnnl_aBcd8b, dnnl_aBcd16b};
        return dnnl_memory_desc_init_by_tag(md, t->nd, t->d, dt, tags[any - 2]);
    }
    static const dnnl_format_tag_t plain[9] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd,
                                               dnnl_abcde, dnnl_abcdef, dnnl_abcdefg, dnnl_abcdefgh};
    if (t->nd < 1 || t->nd > 8)
        return dnnl_invalid_arguments;
    return dnnl_memory_desc_init_by_tag(md, t->nd, t->d, dt, any ? dnnl_format_tag_any : plain[t->nd]);
}

/* The memory descriptors of a reorder: src plain; dst with src's logical dims laid out as
 * the plain layout of the permuted tensor. */
static inline dnnl_status_t bd_reorder_mds(const struct bd_op *op, dnnl_memory_desc_t *s, dnnl_memory_desc_t *d)
{
    dnnl_status_t st = bd_md(s, &op->src, op->dt, 0);
    if (st != dnnl_success)
        return st;
    int nd = op->src.nd;
    dnnl_dims_t out_stride, strides;
    dnnl_dim_t acc = 1;
    for (int k = nd - 1; k >= 0; k--) {
        out_stride[k] = acc;
        acc *= op->src.d[op->perm[k]];
    }
    for (int k = 0; k < nd; k++)
        strides[op->perm[k]] = out_stride[k];
    return dnnl_memory_desc_init_by_strides(d, nd, op->src.d, op->dt, strides);
}

/* A reorder has no op descriptor: its primitive descriptor is made directly (one
 * implementation, oneDNN's choice). */
static inline dnnl_status_t bd_reorder_pd(dnnl_engine_t eng, const struct bd_op *op, dnnl_primitive_desc_t *pd)
{
    dnnl_memory_desc_t s, d;
    dnnl_status_t st = bd_reorder_mds(op, &s, &d);
    return st == dnnl_success ? dnnl_reorder_primitive_desc_create(pd, &s, eng, &d, eng, NULL) : st;
}

/* A matrix [.., K, N] whose memory holds [.., N, K] (Gemm with transB). */
static inline dnnl_status_t bd_md_transposed(dnnl_memory_desc_t *md, const struct bd_tensor *t, dnnl_data_type_t dt)
{
    dnnl_dims_t strides;
    dnnl_dim_t s = 1;
    int nd = t->nd;
    strides[nd - 2] = 1;
    strides[nd - 1] = t->d[nd - 2];
    s = t->d[nd - 2] * t->d[nd - 1];
    for (int k = nd - 3; k >= 0; k--) {
        strides[k] = s;
        s *= t->d[k];
    }
    return dnnl_memory_desc_init_by_strides(md, nd, t->d, dt, strides);
}

#if BD_FAMILIES & BD_FAM_RNN
/* A recurrent layer: src [T, N, C], dst [T, N, D*H], weights_layer [1, D, C, G, H] in wei,
 * weights_iter [1, D, H, G, H] in src1, bias [1, D, G', H]; the states are [1, D, N, H];
 * an LSTM's peephole weights [1, D, 3, H]. */
static inline dnnl_status_t bd_rnn_desc(const struct bd_op *op, dnnl_rnn_desc_t *d)
{
    dnnl_memory_desc_t sl, si, sic, wl, wi, b, dl, di, dic, wp;
    dnnl_status_t st;
    int64_t D = op->wei.d[1], N = op->src.d[1], H = op->wei.d[4];
    struct bd_tensor state = {4, {1, D, N, H}}, peep = {4, {1, D, 3, H}};
    if ((st = bd_md(&sl, &op->src, op->dt, 0)) || (st = bd_md(&dl, &op->dst, op->dt, 0)) ||
        (st = bd_md(&si, &state, op->dt, 0)) || (st = bd_md(&di, &state, op->dt, 0)) ||
        (st = bd_md(&sic, &state, dnnl_f32, 0)) || (st = bd_md(&dic, &state, dnnl_f32, 0)) ||
        (st = bd_md(&wl, &op->wei, op->dt, 1)) || (st = bd_md(&wi, &op->src1, op->dt, 1)) ||
        (st = bd_md(&b, &op->bias, dnnl_f32, 0)))
        return st;
    dnnl_rnn_direction_t dir = (dnnl_rnn_direction_t)op->axis;
    switch (op->alg) {
    case dnnl_vanilla_lstm:
        if (op->peephole)
            return (st = bd_md(&wp, &peep, dnnl_f32, 0)) ? st
                   : dnnl_lstm_forward_desc_init_v2(d, dnnl_forward_inference, dir, &sl, &si, &sic, &wl, &wi, &wp,
                                                    &b, &dl, &di, &dic, 0);
        return dnnl_lstm_forward_desc_init(d, dnnl_forward_inference, dir, &sl, &si, &sic, &wl, &wi, &b, &dl, &di,
                                           &dic, 0);
    case dnnl_vanilla_gru:
        return dnnl_gru_forward_desc_init(d, dnnl_forward_inference, dir, &sl, &si, &wl, &wi, &b, &dl, &di, 0);
    case dnnl_lbr_gru:
        return dnnl_lbr_gru_forward_desc_init(d, dnnl_forward_inference, dir, &sl, &si, &wl, &wi, &b, &dl, &di, 0);
    default:
        return dnnl_vanilla_rnn_forward_desc_init(d, dnnl_forward_inference,
                                                  op->rnn_act ? (dnnl_alg_kind_t)op->rnn_act : dnnl_eltwise_tanh, dir,
                                                  &sl, &si, &wl, &wi, &b, &dl, &di, 0, 0.0f, 0.0f);
    }
}
#endif

/* whether a matmul operand has its element strides set (bd_op's st_src, st_wei, st_dst): it is
 * then described by them */
static inline int bd_strided(const struct bd_tensor *t, const dnnl_dim_t *st)
{
    for (int k = 0; k < t->nd; k++)
        if (st[k])
            return 1;
    return 0;
}

/* A primitive's src, weights or dst T: a matmul's at its element strides ST where set, or
 * stored transposed where TRANSPOSED says so; else as bd_md makes it in format FMT */
static inline dnnl_status_t bd_md_operand(dnnl_memory_desc_t *md, const struct bd_op *op, const struct bd_tensor *t,
                                          const dnnl_dim_t *st, int transposed, dnnl_data_type_t dt, int fmt)
{
    if (op->family == BD_MATMUL && bd_strided(t, st))
        return dnnl_memory_desc_init_by_strides(md, t->nd, t->d, dt, st);
    if (op->family == BD_MATMUL && transposed)
        return bd_md_transposed(md, t, dt);
    return bd_md(md, t, dt, fmt);
}

/* Builds the op descriptor and the attributes (post-ops, user scratchpad). */
static inline dnnl_status_t bd_op_desc(const struct bd_op *op, union bd_desc *u, dnnl_primitive_attr_t *attr)
{
    dnnl_memory_desc_t s, w, b, d, s1;
    dnnl_status_t st = dnnl_success;
    memset(u, 0, sizeof(*u));
    *attr = NULL;
    if (op->family == BD_REORDER || op->family == BD_CONCAT)
        return dnnl_invalid_arguments; /* see bd_reorder_pd, bd_concat_pd */
    if (op->family == BD_RNN) {
#if BD_FAMILIES & BD_FAM_RNN
        dnnl_status_t rs = bd_rnn_desc(op, &u->rnn);
        if (rs != dnnl_success)
            return rs;
        if ((rs = dnnl_primitive_attr_create(attr)) != dnnl_success)
            return rs;
        return dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
#else
        return dnnl_unimplemented;
#endif
    }
    /* the layout is the implementation's choice (format any) where the primitive allows it:
     * convolutions and inner products; the others take the plain layout of the framework */
    int any = op->family == BD_CONV || op->family == BD_DECONV || op->family == BD_IP;
    int act = !any && op->layout && op->src.nd == 4 ? 2 + op->layout : any;
    dnnl_data_type_t sdt = op->qsrc ? op->qsrc : op->dt, wdt = op->qwei ? op->qwei : op->dt;
    dnnl_data_type_t ddt = op->qdst ? op->qdst : op->dt, bdt = op->qbias ? op->qbias : dnnl_f32;
    if ((st = bd_md_operand(&s, op, &op->src, op->st_src, op->src_transposed, sdt, act)) != dnnl_success)
        return st;
    if ((st = bd_md_operand(&d, op, &op->dst, op->st_dst, 0, ddt,
                            !any && op->layout && op->dst.nd == 4 ? 2 + op->layout : any)) != dnnl_success)
        return st;
    if (op->wei.nd && (st = bd_md_operand(&w, op, &op->wei, op->st_wei, op->wei_transposed, wdt, any)) != dnnl_success)
        return st;
    if (op->has_bias && (st = bd_md(&b, &op->bias, bdt, any)) != dnnl_success)
        return st;
    if (op->src1.nd && (st = bd_md(&s1, &op->src1, op->dt, 0)) != dnnl_success)
        return st;
    dnnl_dims_t dil = {0};
    for (int i = 0; i < op->nsp && i < 3; i++)
        dil[i] = op->dil[i] - 1; /* oneDNN counts the gaps, ONNX the step */
    const dnnl_memory_desc_t *bp = op->has_bias ? &b : NULL;
    switch (op->family) {
    case BD_CONV:
        st = dnnl_dilated_convolution_forward_desc_init(&u->conv, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg,
                                                        &s, &w, bp, &d, op->strides, dil, op->pl, op->pr);
        break;
    case BD_DECONV:
        st = dnnl_dilated_deconvolution_forward_desc_init(&u->deconv, dnnl_forward_inference,
                                                          (dnnl_alg_kind_t)op->alg, &s, &w, bp, &d, op->strides,
                                                          dil, op->pl, op->pr);
        break;
    case BD_POOL:
        st = dnnl_pooling_v2_forward_desc_init(&u->pool, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg, &s, &d,
                                               op->strides, op->kernel, dil, op->pl, op->pr);
        break;
    case BD_ELTWISE:
        st = dnnl_eltwise_forward_desc_init(&u->eltwise, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg, &s,
                                            op->alpha, op->beta);
        break;
    case BD_BNORM:
        st = dnnl_batch_normalization_forward_desc_init(&u->bnorm, dnnl_forward_inference, &s, op->eps, op->flags);
        break;
    case BD_LNORM:
        st = dnnl_layer_normalization_forward_desc_init(&u->lnorm, dnnl_forward_inference, &s, NULL, op->eps,
                                                        op->flags);
        break;
    case BD_IP:
        st = dnnl_inner_product_forward_desc_init(&u->ip, dnnl_forward_inference, &s, &w, bp, &d);
        break;
    case BD_MATMUL:
        st = dnnl_matmul_desc_init(&u->matmul, &s, &w, bp, &d);
        break;
    case BD_BINARY:
        st = dnnl_binary_desc_init(&u->binary, (dnnl_alg_kind_t)op->alg, &s, &s1, &d);
        break;
    case BD_SOFTMAX:
        st = dnnl_softmax_v2_forward_desc_init(&u->softmax, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg, &s,
                                               &d, op->axis);
        break;
    case BD_LRN:
        st = dnnl_lrn_forward_desc_init(&u->lrn, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg, &s,
                                        op->local_size, op->alpha, op->beta, op->eps);
        break;
    case BD_REDUCTION:
        st = dnnl_reduction_desc_init(&u->reduction, (dnnl_alg_kind_t)op->alg, &s, &d, op->p, op->eps);
        break;
    case BD_RESAMPLING:
        st = dnnl_resampling_forward_desc_init(&u->resampling, dnnl_forward_inference, (dnnl_alg_kind_t)op->alg, NULL,
                                               &s, &d);
        break;
    case BD_PRELU:
        st = dnnl_prelu_forward_desc_init(&u->prelu, dnnl_forward_inference, &s, &w);
        break;
    default:
        return dnnl_invalid_arguments;
    }
    if (st != dnnl_success)
        return st;
    if ((st = dnnl_primitive_attr_create(attr)) != dnnl_success)
        return st;
    dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (op->oscale != 0) {
        /* per channel: the same value repeated (the values change nothing of the work) */
        int n = op->oscale_n > 1 ? op->oscale_n : 1;
        float one = op->oscale, *sc = n > 1 ? (float *)malloc((size_t)n * sizeof(float)) : &one;
        if (!sc)
            return dnnl_out_of_memory;
        for (int i = 0; i < n; i++)
            sc[i] = op->oscale;
        st = dnnl_primitive_attr_set_output_scales(*attr, n, n > 1 ? op->oscale_mask : 0, sc);
        if (sc != &one)
            free(sc);
        if (st != dnnl_success)
            return st;
    }
    static const int zp_args[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    const int zps[3] = {op->zp_src, op->zp_wei, op->zp_dst};
    for (int i = 0; i < 3; i++)
        if (zps[i] && (st = dnnl_primitive_attr_set_zero_points(*attr, zp_args[i], 1, 0, &zps[i])) != dnnl_success)
            return st;
    if (op->post_alg || op->post_sum) {
        dnnl_post_ops_t po;
        if ((st = dnnl_post_ops_create(&po)) != dnnl_success)
            return st;
        if (op->post_sum)
            st = dnnl_post_ops_append_sum(po, 1.0f);
        if (st == dnnl_success && op->post_alg)
            st = dnnl_post_ops_append_eltwise(po, 1.0f, (dnnl_alg_kind_t)op->post_alg, op->post_alpha, op->post_beta);
        if (st == dnnl_success)
            st = dnnl_primitive_attr_set_post_ops(*attr, po);
        dnnl_post_ops_destroy(po);
    }
    return st;
}

/* Calls fn(name, ud) for every implementation oneDNN offers for the operation here, in its
 * order of preference. Returns the count, or -1 when the operation cannot be described. */
static inline int bd_enumerate(dnnl_engine_t eng, const struct bd_op *op, void (*fn)(const char *name, void *ud),
                        void *ud)
{
    if (op->family == BD_REORDER || op->family == BD_CONCAT) {
        dnnl_primitive_desc_t pd;
        const char *name = NULL;
        if ((op->family == BD_REORDER ? bd_reorder_pd(eng, op, &pd) : bd_concat_pd(eng, op, &pd)) != dnnl_success)
            return 0;
        if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success && name && fn)
            fn(name, ud);
        dnnl_primitive_desc_destroy(pd);
        return 1;
    }
    union bd_desc u;
    dnnl_primitive_attr_t attr;
    if (bd_op_desc(op, &u, &attr) != dnnl_success) {
        if (attr)
            dnnl_primitive_attr_destroy(attr);
        return -1;
    }
    dnnl_primitive_desc_iterator_t it;
    int n = 0;
    if (dnnl_primitive_desc_iterator_create(&it, &u, attr, eng, NULL) == dnnl_success) {
        do {
            dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
            const char *name = NULL;
            if (pd && dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success && name) {
                if (fn)
                    fn(name, ud);
                n++;
            }
            if (pd)
                dnnl_primitive_desc_destroy(pd);
        } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
        dnnl_primitive_desc_iterator_destroy(it);
    }
    dnnl_primitive_attr_destroy(attr);
    return n;
}

#endif
