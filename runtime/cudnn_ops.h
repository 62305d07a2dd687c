/* Library benchmarks on CUDA: one cuDNN or cuBLAS operation described by plain data
 * (struct bc_lib_op, written by gen into each generated file), set up with its descriptors
 * and buffers, and enqueued once per timed iteration.
 *
 * Needs harness.h and cuda_bench.h before it; cublas_ops.h after it holds the GEMM families
 * and the dispatch (bc_lib_setup / bc_lib_launch / bc_lib_teardown). Every library call is
 * checked: NOT_SUPPORTED (an algorithm or type the library refuses for these shapes) is an
 * `unsupported` row, an allocation failure `oom`, anything else `error`, each with the call
 * and the library's message in the note. */
#ifndef BENANZA_CUDNN_OPS_H
#define BENANZA_CUDNN_OPS_H

#include <stdbool.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

enum bc_lib_family {
    BC_CONV,        /* cudnnConvolutionForward, algo = cudnnConvolutionFwdAlgo_t */
    BC_CONV_FUSED,  /* cudnnConvolutionBiasActivationForward: bias, act, optional residual z */
    BC_ADVICE,      /* cuDNN's own ranking: mode 0 heuristic (_v7), 1 measured (FindEx) */
    BC_DECONV,      /* ConvTranspose: cudnnConvolutionBackwardData, algo = BwdDataAlgo */
    BC_POOL,        /* cudnnPoolingForward, mode = cudnnPoolingMode_t */
    BC_ACT,         /* cudnnActivationForward, mode = cudnnActivationMode_t, coef */
    BC_SOFTMAX,     /* cudnnSoftmaxForward, algo = cudnnSoftmaxAlgorithm_t, mode = Mode_t */
    BC_BNORM,       /* cudnnBatchNormalizationForwardInference (spatial) */
    BC_LRN,         /* cudnnLRNCrossChannelForward */
    BC_OPTENSOR,    /* cudnnOpTensor, mode = cudnnOpTensorOp_t; x2 broadcast to x (or y) */
    BC_REDUCE,      /* cudnnReduceTensor, mode = cudnnReduceTensorOp_t */
    BC_RNN,         /* cudnnRNNForward (inference), algo = cudnnRNNAlgo_t, mode = cell */
    BC_GEMM,        /* cublasGemmEx / cublasGemmStridedBatchedEx, algo = cublasGemmAlgo_t */
    BC_GEMV,        /* cublasSgemv (f32, one side a vector) */
    BC_COPY,        /* cudaMemcpyAsync device to device, x -> y (gen --calibrate: the bandwidth) */
    BC_ENGINE,      /* a forward convolution through cuDNN's backend (graph) API: the conv's
                       fields, mode = cudnnBackendHeurMode_t, algo = the rank of the engine
                       configuration in that heuristic's answer */
    BC_LT,          /* cublasLtMatmul: the GEMM's fields, algo = the rank of the algorithm in
                       cublasLtMatmulAlgoGetHeuristic's answer, epilogue = cublasLtEpilogue_t
                       (a bias along n, then Relu or GELU, as frameworks fuse them) */
    BC_SDPA,        /* scaled dot-product attention through cuDNN's backend API: the graph
                       Q K^T -> * scale -> [+ mask] -> softmax -> . V (att), fused by its
                       attention engines; mode = cudnnBackendHeurMode_t, algo = the rank of
                       the engine configuration (f16 and bf16) */
    BC_RELAYOUT,    /* cudnnTransformTensor between layouts: x and y the same logical NCHW
                       tensor, mode 0 NCHW -> NHWC, 1 NHWC -> NCHW (a plan's layout change) */
    BC_LIB_FAMILY_COUNT
};

/* Each family's bit, 1 << its value above. A generated library benchmark defines BC_FAMILY, its
 * one operation's family, and BC_FAMILIES, the bits of the families it meets: its own and, in
 * --verify, the one whose host reference holds it (an engine's convolution and fused
 * convolution, a layout change's copy). gen writes both beside BZ_OP, and leaves out of the
 * file the code under "#if BC_FAMILIES & ..." that is for none of those families (the other
 * families' setup, launch and host reference: emit_cuda_runtime). The family tests below are
 * then constants where the file cannot meet the family, and the compiler drops the code that
 * is left of the others too (docs/architecture.md).
 *   BC_IS(op, fam): op's family is fam, for any operation of a family the file meets (the
 *       reference's too; false for the others, whatever op says);
 *   BC_OWN_FAMILY(op): the family of the file's own operation (setup, launch), which
 *       bc_lib_setup refuses when it is not BC_FAMILY (bc_family_compiled).
 * Without them (the host checks' drivers) the code of every family is there and every test
 * reads the operation. */
#define BC_FAM_CONV 0x1u
#define BC_FAM_CONV_FUSED 0x2u
#define BC_FAM_ADVICE 0x4u
#define BC_FAM_DECONV 0x8u
#define BC_FAM_POOL 0x10u
#define BC_FAM_ACT 0x20u
#define BC_FAM_SOFTMAX 0x40u
#define BC_FAM_BNORM 0x80u
#define BC_FAM_LRN 0x100u
#define BC_FAM_OPTENSOR 0x200u
#define BC_FAM_REDUCE 0x400u
#define BC_FAM_RNN 0x800u
#define BC_FAM_GEMM 0x1000u
#define BC_FAM_GEMV 0x2000u
#define BC_FAM_COPY 0x4000u
#define BC_FAM_ENGINE 0x8000u
#define BC_FAM_LT 0x10000u
#define BC_FAM_SDPA 0x20000u
#define BC_FAM_RELAYOUT 0x40000u
#ifndef BC_FAMILIES
#define BC_FAMILIES 0x7ffffu
#endif
/* the bits are the enum's (BC_MEETS shifts by it): a build fails where they part */
typedef char bc_family_bits_match[BC_FAM_CONV == 1u << BC_CONV && BC_FAM_CONV_FUSED == 1u << BC_CONV_FUSED &&
                                          BC_FAM_ADVICE == 1u << BC_ADVICE && BC_FAM_DECONV == 1u << BC_DECONV &&
                                          BC_FAM_POOL == 1u << BC_POOL && BC_FAM_ACT == 1u << BC_ACT &&
                                          BC_FAM_SOFTMAX == 1u << BC_SOFTMAX && BC_FAM_BNORM == 1u << BC_BNORM &&
                                          BC_FAM_LRN == 1u << BC_LRN && BC_FAM_OPTENSOR == 1u << BC_OPTENSOR &&
                                          BC_FAM_REDUCE == 1u << BC_REDUCE && BC_FAM_RNN == 1u << BC_RNN &&
                                          BC_FAM_GEMM == 1u << BC_GEMM && BC_FAM_GEMV == 1u << BC_GEMV &&
                                          BC_FAM_COPY == 1u << BC_COPY && BC_FAM_ENGINE == 1u << BC_ENGINE &&
                                          BC_FAM_LT == 1u << BC_LT && BC_FAM_SDPA == 1u << BC_SDPA &&
                                          BC_FAM_RELAYOUT == 1u << BC_RELAYOUT && BC_LIB_FAMILY_COUNT == 19
                                      ? 1
                                      : -1];
#define BC_MEETS(fam) ((BC_FAMILIES) >> (fam) & 1u)
#ifdef BC_FAMILY
#define BC_OWN_FAMILY(op) ((void)(op), (BC_FAMILY))
#else
#define BC_OWN_FAMILY(op) ((op)->family)
#endif
#define BC_IS(op, fam) (BC_MEETS(fam) && (op)->family == (fam))

/* BC_SDPA: softmax(Q K^T scale [+ mask]) V for each (batch, head); every operand's element
 * strides along (batch, head, row, column) in its buffer (K's and V's rows are the keys), the
 * mask's along the scores' (batch, head, query, key), 0 where it broadcasts; the buffers'
 * sizes (the output's: b h sq dv). rep > 1: grouped-query attention, h / rep heads of K and V,
 * query head i reading K's and V's head i / rep (0 or 1: one each) */
struct bc_att {
    long long b, h, sq, skv, d, dv, rep;
    long long q[4], k[4], v[4], o[4], m[4];
    long long q_elems, k_elems, v_elems, m_elems;
    int mask; /* 0: none; 1: added to the scaled scores */
    double scale;
};

struct bc_lib_op {
    int family;
    int dt;             /* enum bc_dtype: f32, f16, bf16 */
    int tensor_op;      /* Tensor Core math allowed (TF32 for f32 data) */
    int algo;           /* the library's algorithm enum value */
    int mode;           /* family-specific mode (above) */
    struct bc_tensor x, w, y, x2;
    int nsp;            /* conv/pool: spatial dims */
    int pad[3], stride[3], dil[3], win[3];
    int groups;
    int act;            /* fused conv: cudnnActivationMode_t (RELU or IDENTITY; in the graph only also
                           SWISH, SIGMOID, TANH and CLIPPED_RELU at coef) */
    int residual;       /* fused conv: z = the residual input, added before the activation */
    double coef, alpha, beta, eps;
    int lrn_n;
    int bidir, seq, batch, input, hidden; /* RNN */
    /* GEMM, row-major: C[m,n] = op(A)[m,k] op(B)[k,n], batch of them with element strides
     * (0: the operand is shared by every batch) */
    long long m, n, k, batch_count, stride_a, stride_b, stride_c;
    int ta, tb;         /* A stored [k,m] / B stored [n,k] */
    int beta_one;       /* C += : a Gemm's bias already in C */
    /* operands read and written in place (an attention group's parts: the heads of Q, K and V
     * where the projections put them, the output with its heads merged): each matrix's leading
     * dim (row stride, or column stride where stored transposed) and each buffer's elements;
     * 0: packed, as m, n, k, the strides and the batch say. gemm_alpha scales the product
     * (0: 1). */
    long long lda, ldb, ldc, a_elems, b_elems, c_elems;
    double gemm_alpha;
    int epilogue;       /* BC_LT: cublasLtEpilogue_t (CUBLASLT_EPILOGUE_DEFAULT: none) */
    int nhwc;           /* conv, fused conv, engine, pooling, batch norm: x, y (and z)
                           channels-last, a filter [K, k..., C]; the dims stay logical (N, C,
                           spatial) */
    int fused;          /* BC_ENGINE: the graph conv -> + bias [-> + z] [-> act] (act, coef, residual),
                           runtime fusion as frameworks ask for it */
    struct bc_att att;  /* BC_SDPA */
};

/* the cuDNN families' code (not cuBLAS's, nor a copy's) */
#if BC_FAMILIES & ~(BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT | BC_FAM_COPY)
static const char *bc_cudnn_status_text(cudnnStatus_t st)
{
    static char buf[384];
    char msg[256] = "";
    cudnnGetLastErrorString(msg, sizeof(msg));
    snprintf(buf, sizeof(buf), "%s%s%s", cudnnGetErrorString(st), *msg ? ": " : "", msg);
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return buf;
}

static inline enum bh_status bc_cudnn_fail(struct bh_result *r, const char *call, cudnnStatus_t st)
{
    bh_note(r, "%s failed: %s", call, bc_cudnn_status_text(st));
    /* ALLOC_FAILED is cuDNN 9's host allocation failure; the device's has its own code */
    if (st == CUDNN_STATUS_ALLOC_FAILED || st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
        return BH_OOM;
    /* cuDNN 9 refines NOT_SUPPORTED into sub-codes in the same range */
    if (st == CUDNN_STATUS_NOT_SUPPORTED || (st >= 3000 && st < 4000))
        return BH_UNSUPPORTED;
    return BH_ERROR;
}

#define BC_DNN(r, call)                                                                             \
    do {                                                                                            \
        cudnnStatus_t bc_st_ = (call);                                                              \
        if (bc_st_ != CUDNN_STATUS_SUCCESS)                                                         \
            return bc_cudnn_fail((r), #call, bc_st_);                                               \
    } while (0)

#endif

struct bc_lib_state {
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    cudnnTensorDescriptor_t xd, yd, x2d, bd, hd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    cudnnPoolingDescriptor_t pd;
    cudnnLRNDescriptor_t ld;
    cudnnOpTensorDescriptor_t od;
    cudnnReduceTensorDescriptor_t rd;
    cudnnDropoutDescriptor_t dd;
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t rxd, ryd;
    void *x, *w, *y, *x2, *b, *z, *mean, *var, *scale, *shift, *hx, *cx, *hy, *cy, *seqlens, *dropout_states;
    size_t weight_bytes, reserve_bytes;
    void *reserve;
    cudnnBackendDescriptor_t be_x, be_w, be_y, be_conv, be_op, be_graph, be_heur, be_plan, be_pack; /* BC_ENGINE */
    cudnnBackendDescriptor_t be_more[48]; /* a fused graph's tensors, descriptors and ops */
    int be_nmore;
    cudnnBackendDescriptor_t be_ops[16];
    int be_nops;
    cudnnBackendDescriptor_t *be_cfgs;
    int64_t be_ncfgs;
    int be_transform;                    /* the engine's notes say FFT or Winograd (--verify's tolerance) */
    cublasLtHandle_t lt;                 /* BC_LT */
    cublasLtMatmulDesc_t ltd;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t lt_algo;
    void *lt_ws;
    size_t lt_ws_bytes;
    int launches_conv; /* 1: the family launches through cuDNN */
    float sdpa_scale;  /* BC_SDPA: the scale, passed by value */
};

#if BC_FAMILIES & ~(BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT | BC_FAM_COPY)
static cudnnDataType_t bc_dnn_type(int dt)
{
    return dt == BC_F16 ? CUDNN_DATA_HALF : dt == BC_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* f32 without Tensor Cores is FMA math (cuDNN's default would allow TF32 on Ampere+) */
static inline cudnnMathType_t bc_dnn_math(const struct bc_lib_op *op)
{
    return op->tensor_op ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
}

/* A packed tensor descriptor; fewer than 4 dims are padded with trailing 1s (cuDNN's minimum). */
static inline cudnnStatus_t bc_tensor_desc(cudnnTensorDescriptor_t *d, const struct bc_tensor *t, int dt)
{
    cudnnStatus_t st = cudnnCreateTensorDescriptor(d);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int nd = t->nd < 4 ? 4 : t->nd, dims[BC_MAX_ND], strides[BC_MAX_ND];
    for (int k = 0; k < nd; k++)
        dims[k] = k < t->nd ? (int)t->d[k] : 1;
    strides[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--)
        strides[k] = strides[k + 1] * dims[k + 1];
    return cudnnSetTensorNdDescriptor(*d, bc_dnn_type(dt), nd, dims, strides);
}

/* The same, channels-last (NHWC, NDHWC): C's stride 1, then the spatial dims, then N */
static inline cudnnStatus_t bc_tensor_desc_nhwc(cudnnTensorDescriptor_t *d, const struct bc_tensor *t, int dt)
{
    cudnnStatus_t st = cudnnCreateTensorDescriptor(d);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int dims[BC_MAX_ND];
    for (int k = 0; k < t->nd; k++)
        dims[k] = (int)t->d[k];
    return cudnnSetTensorNdDescriptorEx(*d, CUDNN_TENSOR_NHWC, bc_dnn_type(dt), t->nd, dims);
}

static const float bc_one = 1.0f, bc_zero = 0.0f;

#if BC_FAMILIES & (BC_FAM_CONV | BC_FAM_CONV_FUSED | BC_FAM_DECONV | BC_FAM_ADVICE)
/* Descriptors first, then the library's word on the algorithm (its workspace size, or
 * NOT_SUPPORTED), then the buffers: an algorithm cuDNN refuses costs no allocation. */
static enum bh_status bc_conv_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                    struct bh_result *r)
{
    int dt = op->dt;
    if (op->nhwc && op->x.nd < 4) {
        bh_note(r, "channels-last wants 4 or 5 dims (a gen bug)");
        return BH_ERROR;
    }
    BC_DNN(r, op->nhwc ? bc_tensor_desc_nhwc(&f->xd, &op->x, dt) : bc_tensor_desc(&f->xd, &op->x, dt));
    BC_DNN(r, op->nhwc ? bc_tensor_desc_nhwc(&f->yd, &op->y, dt) : bc_tensor_desc(&f->yd, &op->y, dt));
    BC_DNN(r, cudnnCreateFilterDescriptor(&f->wd));
    int wd[BC_MAX_ND];
    for (int k = 0; k < op->w.nd; k++)
        wd[k] = (int)op->w.d[k];
    BC_DNN(r, cudnnSetFilterNdDescriptor(f->wd, bc_dnn_type(dt), op->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                         op->w.nd, wd));
    BC_DNN(r, cudnnCreateConvolutionDescriptor(&f->cd));
    /* half and bfloat16 data accumulate in float, as frameworks ask */
    BC_DNN(r, cudnnSetConvolutionNdDescriptor(f->cd, op->nsp, op->pad, op->stride, op->dil, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT));
    BC_DNN(r, cudnnSetConvolutionMathType(f->cd, bc_dnn_math(op)));
    if (op->groups > 1)
        BC_DNN(r, cudnnSetConvolutionGroupCount(f->cd, op->groups));
    size_t ws = 0;
    if (BC_IS(op, BC_DECONV)) {
        /* x is the gradient side (dy: the ConvTranspose input), y the data side (dx) */
        BC_DNN(r, cudnnGetConvolutionBackwardDataWorkspaceSize(f->dnn, f->wd, f->xd, f->cd, f->yd,
                                                               (cudnnConvolutionBwdDataAlgo_t)op->algo, &ws));
    } else {
        /* the output shape gen computed must be cuDNN's */
        int out[BC_MAX_ND], nd = op->x.nd < 4 ? 4 : op->x.nd;
        BC_DNN(r, cudnnGetConvolutionNdForwardOutputDim(f->cd, f->xd, f->wd, nd, out));
        for (int k = 0; k < op->y.nd; k++)
            if (out[k] != op->y.d[k]) {
                bh_note(r, "cuDNN's output dim %d is %d, the layer's %lld (a gen bug)", k, out[k], op->y.d[k]);
                return BH_ERROR;
            }
        if (!BC_IS(op, BC_ADVICE))
            BC_DNN(r, cudnnGetConvolutionForwardWorkspaceSize(f->dnn, f->xd, f->wd, f->cd, f->yd,
                                                              (cudnnConvolutionFwdAlgo_t)op->algo, &ws));
    }
    enum bh_status st;
    if ((st = bc_buffer(s, r, bc_numel(&op->x), dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, bc_numel(&op->w), dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
        (st = bc_buffer(s, r, bc_numel(&op->y), dt, BC_FILL_ZERO, 0, &f->y)) != BH_OK)
        return st;
    if (BC_IS(op, BC_CONV_FUSED)) {
        struct bc_tensor bt = {op->y.nd, {1, op->y.d[1], 1, 1, 1, 1, 1, 1}};
        BC_DNN(r, bc_tensor_desc(&f->bd, &bt, dt));
        BC_DNN(r, cudnnCreateActivationDescriptor(&f->ad));
        BC_DNN(r, cudnnSetActivationDescriptor(f->ad, (cudnnActivationMode_t)op->act, CUDNN_NOT_PROPAGATE_NAN, 0.0));
        if ((st = bc_buffer(s, r, op->y.d[1], dt, BC_FILL_UNIFORM, 0, &f->b)) != BH_OK)
            return st;
        if (op->residual && (st = bc_buffer(s, r, bc_numel(&op->y), dt, BC_FILL_UNIFORM, 0, &f->z)) != BH_OK)
            return st;
    }
    if (BC_IS(op, BC_ADVICE))
        return BH_OK;
    return bc_workspace(s, ws, r);
}

#endif

#if BC_FAMILIES & BC_FAM_ADVICE
static const char *const bc_conv_algo_names[] = {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
                                                 "fft", "fft_tiling", "winograd", "winograd_nonfused"};

/* The advice row: cuDNN's ranking of the forward algorithms for this layer and type, from its
 * heuristics (what a framework without autotuning runs) or from its own measurement
 * (cudnnFind, what autotuning frameworks run), best first, usable ones only. */
static enum bh_status bc_advice(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                struct bh_result *r)
{
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0;
    if (op->mode == 0) {
        BC_DNN(r, cudnnGetConvolutionForwardAlgorithm_v7(f->dnn, f->xd, f->wd, f->cd, f->yd,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf));
    } else {
        /* the workspace the hungriest usable algorithm wants, at most a quarter of free memory */
        size_t most = 0, free_b = 0, total_b = 0;
        for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; a++) {
            size_t b = 0;
            if (cudnnGetConvolutionForwardWorkspaceSize(f->dnn, f->xd, f->wd, f->cd, f->yd,
                                                        (cudnnConvolutionFwdAlgo_t)a, &b) == CUDNN_STATUS_SUCCESS &&
                b > most)
                most = b;
        }
        BC_CUDA(r, cudaMemGetInfo(&free_b, &total_b));
        if (most > free_b / 4)
            most = free_b / 4;
        enum bh_status st = bc_workspace(s, most, r);
        if (st != BH_OK)
            return st;
        /* cudnnFind times each algorithm: under the GPU lock, as the timed samples are */
        if (bh_gpu_lock(r) != 0)
            return BH_ERROR;
        cudnnStatus_t fs = cudnnFindConvolutionForwardAlgorithmEx(f->dnn, f->xd, f->x, f->wd, f->w, f->cd, f->yd, f->y,
                                                                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf, s->ws,
                                                                  s->ws_bytes);
        bh_gpu_unlock();
        BC_DNN(r, fs);
    }
    char *t = r->tags + strlen(r->tags);
    size_t room = sizeof(r->tags) - strlen(r->tags);
    int w = snprintf(t, room, "%sranking=", *r->tags ? "; " : "");
    int usable = 0;
    char times[256] = "";
    size_t tl = 0;
    for (int i = 0; i < n && w > 0 && (size_t)w < room; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || (unsigned)perf[i].algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
            continue;
        w += snprintf(t + w, room - (size_t)w, "%s%s", usable ? ">" : "", bc_conv_algo_names[perf[i].algo]);
        if (op->mode == 1 && tl < sizeof(times))
            tl += (size_t)snprintf(times + tl, sizeof(times) - tl, "%s%.1f", usable ? "/" : "", perf[i].time * 1e3);
        usable++;
    }
    if (!usable) {
        r->tags[strlen(r->tags) - (size_t)w] = '\0';
        bh_note(r, "%s: no usable algorithm among %d", op->mode ? "cudnnFindConvolutionForwardAlgorithmEx"
                                                                : "cudnnGetConvolutionForwardAlgorithm_v7", n);
        return BH_UNSUPPORTED;
    }
    if (op->mode == 1)
        bh_note(r, "cudnnFindConvolutionForwardAlgorithmEx: %d usable, times us %s", usable, times);
    else
        bh_note(r, "cudnnGetConvolutionForwardAlgorithm_v7: %d usable of %d", usable, n);
    return BH_ADVICE;
}

#endif

/* ---- the backend (graph) API: a convolution's engine configurations, one by one ---- */

#if BC_FAMILIES & (BC_FAM_ENGINE | BC_FAM_SDPA)

#define BC_BE(r, call)                                                                              \
    do {                                                                                            \
        cudnnStatus_t bc_bs_ = (call);                                                              \
        if (bc_bs_ != CUDNN_STATUS_SUCCESS)                                                         \
            return bc_cudnn_fail((r), #call, bc_bs_);                                               \
    } while (0)

/* A created tensor descriptor's attributes, 16-byte aligned, and its finalization: virtual (an
 * intermediate of a fused graph) or passed by value (a host scalar) when asked */
static enum bh_status bc_be_tensor_set(cudnnBackendDescriptor_t d, int64_t uid, int nd, const int64_t *dims,
                                       const int64_t *strides, cudnnDataType_t type, int is_virtual, int by_value,
                                       struct bh_result *r)
{
    int64_t align = 16;
    bool virt = is_virtual != 0, byv = by_value != 0;
    if (virt)
        BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt));
    if (byv)
        BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byv));
    BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
    BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims));
    BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides));
    BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    BC_BE(r, cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    BC_BE(r, cudnnBackendFinalize(d));
    return BH_OK;
}

/* an engine configuration's engine: its global index and numerical notes as text; whether it
 * uses Tensor Cores (or down-converts f32) and whether it transforms (FFT, Winograd) */
static enum bh_status bc_be_engine_info(cudnnBackendDescriptor_t cfg, int64_t *index, char *notes, size_t n,
                                        int *tensor, int *transform, struct bh_result *r)
{
    static const char *const names[CUDNN_NUMERICAL_NOTE_TYPE_COUNT] = {
        "tensor_core", "down_convert_inputs", "reduced_precision_reduction", "fft", "nondeterministic",
        "winograd", "winograd_4x4", "winograd_6x6", "winograd_13x13", "strict_nan_prop"};
    cudnnBackendDescriptor_t eng = NULL;
    int64_t cnt = 0;
    cudnnBackendNumericalNote_t nn[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    *tensor = *transform = 0;
    *notes = '\0';
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng));
    cudnnStatus_t st = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                                &cnt, &eng);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &cnt, index);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                      CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &cnt, nn);
    cudnnBackendDestroyDescriptor(eng);
    if (st != CUDNN_STATUS_SUCCESS)
        return bc_cudnn_fail(r, "cudnnBackendGetAttribute (engine)", st);
    size_t w = 0;
    for (int64_t i = 0; i < cnt && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; i++) {
        int k = (int)nn[i];
        if (k < 0 || k >= CUDNN_NUMERICAL_NOTE_TYPE_COUNT)
            continue;
        *tensor |= k == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || k == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
        *transform |= k == CUDNN_NUMERICAL_NOTE_FFT || (k >= CUDNN_NUMERICAL_NOTE_WINOGRAD &&
                                                         k <= CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13);
        if (w < n)
            w += (size_t)snprintf(notes + w, n - w, "%s%s", w ? "+" : "", names[k]);
    }
    if (!*notes)
        snprintf(notes, n, "none");
    return BH_OK;
}

/* the configuration's knobs as "type=value,..." */
static void bc_be_knobs(cudnnBackendDescriptor_t cfg, char *out, size_t n)
{
    cudnnBackendDescriptor_t k[32];
    int64_t cnt = 0, made = 0;
    *out = '\0';
    for (; made < 32; made++)
        if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &k[made]) != CUDNN_STATUS_SUCCESS)
            break;
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, made, &cnt, k) !=
        CUDNN_STATUS_SUCCESS)
        cnt = 0;
    size_t w = 0;
    for (int64_t i = 0; i < cnt && i < made && w < n; i++) {
        cudnnBackendKnobType_t type;
        int64_t v = 0, c2 = 0;
        if (cudnnBackendGetAttribute(k[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &c2, &type) ==
                CUDNN_STATUS_SUCCESS &&
            cudnnBackendGetAttribute(k[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &c2, &v) ==
                CUDNN_STATUS_SUCCESS)
            w += (size_t)snprintf(out + w, n - w, "%s%d=%lld", w ? "," : "", (int)type, (long long)v);
    }
    for (int64_t i = 0; i < made; i++)
        cudnnBackendDestroyDescriptor(k[i]);
    if (!*out)
        snprintf(out, n, "none");
}

/* a new descriptor kept for the teardown (bc_be_fused_ops checks the room first) */
static enum bh_status bc_be_more(struct bc_lib_state *f, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *d,
                                 struct bh_result *r)
{
    BC_BE(r, cudnnBackendCreateDescriptor(type, d));
    f->be_more[f->be_nmore++] = *d;
    return BH_OK;
}

/* one pointwise operation of the fused graph: Y = MODE(X [, B]), a RELU_FWD clipped at UPPER
 * where that is above 0 (Relu6: a Clip from 0) */
static enum bh_status bc_be_pointwise_clip(struct bc_lib_state *f, cudnnPointwiseMode_t mode, double upper,
                                           cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                                           cudnnBackendDescriptor_t y, struct bh_result *r)
{
    cudnnBackendDescriptor_t pw, o;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    enum bh_status st;
    if ((st = bc_be_more(f, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    BC_BE(r, cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
    if (mode == CUDNN_POINTWISE_SWISH_FWD) { /* x sigmoid(beta x): a SiLU */
        double beta = 1.0;
        BC_BE(r, cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, 1, &beta));
    }
    if (mode == CUDNN_POINTWISE_RELU_FWD && upper > 0)
        BC_BE(r, cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper));
    BC_BE(r, cudnnBackendFinalize(pw));
    if ((st = bc_be_more(f, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &o, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &pw));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b)
        BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    BC_BE(r, cudnnBackendFinalize(o));
    f->be_ops[f->be_nops++] = o;
    return BH_OK;
}

/* the same, unclipped */
static enum bh_status bc_be_pointwise(struct bc_lib_state *f, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                                      cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y, struct bh_result *r)
{
    return bc_be_pointwise_clip(f, mode, 0.0, x, b, y, r);
}

/* The execution's variant pack: the graph's N non-virtual tensors (uid and pointer) and the
 * workspace */
static enum bh_status bc_be_pack(struct bc_state *s, struct bc_lib_state *f, int64_t n, const int64_t *uids,
                                 void *const *ptrs, struct bh_result *r)
{
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &f->be_pack));
    BC_BE(r, cudnnBackendSetAttribute(f->be_pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
    BC_BE(r, cudnnBackendSetAttribute(f->be_pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
    BC_BE(r, cudnnBackendSetAttribute(f->be_pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &s->ws));
    BC_BE(r, cudnnBackendFinalize(f->be_pack));
    return BH_OK;
}

/* The operation graph of f->be_ops; the heuristic's answer (op->mode: mode A, B or the
 * fallback list); the configuration at rank op->algo among those the type allows (f32 and f16
 * without Tensor Cores: no engine that uses them or down-converts); its execution plan and workspace
 * size. The row's note names the engine, its numerical notes and knobs. */
static enum bh_status bc_be_plan(struct bc_lib_state *f, const struct bc_lib_op *op, const char *what, int64_t *ws,
                                 struct bh_result *r)
{
    enum bh_status st;
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &f->be_graph));
    BC_BE(r, cudnnBackendSetAttribute(f->be_graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      f->be_nops, f->be_ops));
    BC_BE(r, cudnnBackendSetAttribute(f->be_graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &f->dnn));
    BC_BE(r, cudnnBackendFinalize(f->be_graph));
    cudnnBackendHeurMode_t hm = (cudnnBackendHeurMode_t)op->mode;
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &f->be_heur));
    BC_BE(r, cudnnBackendSetAttribute(f->be_heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &f->be_graph));
    BC_BE(r, cudnnBackendSetAttribute(f->be_heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm));
    BC_BE(r, cudnnBackendFinalize(f->be_heur));
    int64_t n = 0;
    BC_BE(r, cudnnBackendGetAttribute(f->be_heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n,
                                      NULL));
    f->be_cfgs = (cudnnBackendDescriptor_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(*f->be_cfgs));
    if (!f->be_cfgs) {
        bh_note(r, "out of host memory");
        return BH_OOM;
    }
    for (int64_t i = 0; i < n; i++) {
        BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &f->be_cfgs[i]));
        f->be_ncfgs = i + 1;
    }
    int64_t got = 0;
    BC_BE(r, cudnnBackendGetAttribute(f->be_heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &got,
                                      f->be_cfgs));
    /* the configuration at the rank, among those the type allows; all of them counted (a
     * configuration past the rank that cannot be read ends the count, not the benchmark) */
    int rank = -1, allowed = 0;
    int64_t index = -1;
    char notes[160] = "", knobs[200] = "";
    const char *more = "";
    for (int64_t i = 0; i < got; i++) {
        int tensor = 0, transform = 0;
        int64_t idx = -1;
        char nt[160];
        struct bh_result scratch;
        if ((st = bc_be_engine_info(f->be_cfgs[i], &idx, nt, sizeof(nt), &tensor, &transform,
                                    rank < 0 ? r : &scratch)) != BH_OK) {
            if (rank < 0)
                return st;
            more = " or more";
            break;
        }
        if (!op->tensor_op && tensor)
            continue;
        if (allowed++ == op->algo) {
            rank = (int)i;
            index = idx;
            snprintf(notes, sizeof(notes), "%s", nt);
            f->be_transform = transform;
        }
    }
    static const char *const modes[] = {"instant", "B", "fallback", "A"};
    const char *mname = op->mode >= 0 && op->mode < 4 ? modes[op->mode] : "?";
    if (rank < 0) {
        bh_note(r, "cuDNN's heuristic mode %s offers %d engine configuration%s for this %s and type: none at rank %d",
                mname, allowed, allowed == 1 ? "" : "s", what, op->algo);
        return BH_UNSUPPORTED;
    }
    bc_be_knobs(f->be_cfgs[rank], knobs, sizeof(knobs));
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &f->be_plan));
    BC_BE(r, cudnnBackendSetAttribute(f->be_plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &f->dnn));
    BC_BE(r, cudnnBackendSetAttribute(f->be_plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &f->be_cfgs[rank]));
    cudnnStatus_t fs = cudnnBackendFinalize(f->be_plan);
    if (fs != CUDNN_STATUS_SUCCESS) {
        enum bh_status e = bc_cudnn_fail(r, "cudnnBackendFinalize (execution plan)", fs);
        char why[sizeof(r->note)];
        snprintf(why, sizeof(why), "%s", r->note);
        bh_note(r, "engine %lld (heuristic mode %s rank %d: %s; knobs %s): %s", (long long)index, mname, op->algo, notes,
                knobs, why);
        return e;
    }
    int64_t c = 0;
    BC_BE(r, cudnnBackendGetAttribute(f->be_plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &c, ws));
    bh_note(r, "engine %lld, heuristic mode %s rank %d of %d%s: numerical notes %s; knobs %s; workspace %lld bytes",
            (long long)index, mname, op->algo, allowed, more, notes, knobs, (long long)*ws);
    return BH_OK;
}

/* the convolution as a graph (BC_ENGINE) */
#if BC_FAMILIES & BC_FAM_ENGINE

enum { BC_UID_X = 1, BC_UID_W = 2, BC_UID_Y = 3, BC_UID_B = 4, BC_UID_Z = 5, BC_UID_VIRTUAL = 10 };

/* A tensor of the graph: its logical dims (N, C, spatial; a filter K, C, spatial), packed, or
 * channels-last (C's stride 1, then the spatial dims, then N) */
static enum bh_status bc_be_tensor_v(cudnnBackendDescriptor_t *d, int64_t uid, const struct bc_tensor *t, int dt,
                                     int nhwc, int is_virtual, struct bh_result *r);

static enum bh_status bc_be_tensor(cudnnBackendDescriptor_t *d, int64_t uid, const struct bc_tensor *t, int dt,
                                   int nhwc, struct bh_result *r)
{
    return bc_be_tensor_v(d, uid, t, dt, nhwc, 0, r);
}

/* A tensor of the graph; a virtual one (an intermediate of a fused graph) lives in float */
static enum bh_status bc_be_tensor_v(cudnnBackendDescriptor_t *d, int64_t uid, const struct bc_tensor *t, int dt,
                                     int nhwc, int is_virtual, struct bh_result *r)
{
    int64_t dims[BC_MAX_ND] = {0}, st[BC_MAX_ND] = {0}, acc = 1;
    int nd = t->nd;
    if (nd < 3 || nd > BC_MAX_ND) {
        bh_note(r, "a convolution tensor of %d dims (a gen bug)", nd);
        return BH_ERROR;
    }
    for (int k = 0; k < nd; k++)
        dims[k] = t->d[k];
    if (nhwc) {
        st[1] = 1;
        acc = dims[1];
        for (int k = nd - 1; k >= 2; k--) {
            st[k] = acc;
            acc *= dims[k];
        }
        st[0] = acc;
    } else {
        for (int k = nd - 1; k >= 0; k--) {
            st[k] = acc;
            acc *= dims[k];
        }
    }
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, d));
    return bc_be_tensor_set(*d, uid, nd, dims, st, is_virtual ? CUDNN_DATA_FLOAT : bc_dnn_type(dt), is_virtual, 0, r);
}

static enum bh_status bc_be_fused_ops(struct bc_lib_state *f, const struct bc_lib_op *op, struct bh_result *r);

/* The convolution's operation: its tensors, convolution descriptor and forward operation,
 * finalized (no handle, no GPU needed: test/cuda_ref_check.c builds some) */
static enum bh_status bc_be_conv_op(struct bc_lib_state *f, const struct bc_lib_op *op, struct bh_result *r)
{
    int dt = op->dt, nsp = op->nsp;
    enum bh_status st;
    if ((st = bc_be_tensor(&f->be_x, BC_UID_X, &op->x, dt, op->nhwc, r)) != BH_OK ||
        (st = bc_be_tensor(&f->be_w, BC_UID_W, &op->w, dt, op->nhwc, r)) != BH_OK ||
        (st = bc_be_tensor_v(&f->be_y, op->fused ? BC_UID_VIRTUAL : BC_UID_Y, &op->y, dt, op->nhwc, op->fused, r)) != BH_OK)
        return st;
    int64_t pad[3], stride[3], dil[3], nsp64 = nsp;
    for (int k = 0; k < nsp; k++) {
        pad[k] = op->pad[k];
        stride[k] = op->stride[k];
        dil[k] = op->dil[k];
    }
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &f->be_conv));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp64));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsp, dil));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsp, stride));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsp, pad));
    BC_BE(r, cudnnBackendSetAttribute(f->be_conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsp, pad));
    BC_BE(r, cudnnBackendFinalize(f->be_conv));
    float alpha = 1.0f, beta = 0.0f;
    BC_BE(r, cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &f->be_op));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &f->be_x));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &f->be_w));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &f->be_y));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &f->be_conv));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1,
                                      &alpha));
    BC_BE(r, cudnnBackendSetAttribute(f->be_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1,
                                      &beta));
    BC_BE(r, cudnnBackendFinalize(f->be_op));
    f->be_ops[0] = f->be_op;
    f->be_nops = 1;
    return op->fused ? bc_be_fused_ops(f, op, r) : BH_OK;
}

/* the graph's pointwise mode of a fused convolution's activation (cudnnActivationMode_t); -1:
 * none (identity) */
static int bc_be_act_mode(int act)
{
    switch (act) {
    case CUDNN_ACTIVATION_RELU:
    case CUDNN_ACTIVATION_CLIPPED_RELU: return CUDNN_POINTWISE_RELU_FWD;
    case CUDNN_ACTIVATION_SWISH: return CUDNN_POINTWISE_SWISH_FWD;
    case CUDNN_ACTIVATION_SIGMOID: return CUDNN_POINTWISE_SIGMOID_FWD;
    case CUDNN_ACTIVATION_TANH: return CUDNN_POINTWISE_TANH_FWD;
    default: return -1;
    }
}

/* The fused graph after the convolution: + bias [1, C, 1, 1] (a folded batch norm's too),
 * [+ the residual z], [the activation: relu, relu clipped at coef, swish (a SiLU), sigmoid or
 * tanh]; the intermediates virtual, the last output y */
static enum bh_status bc_be_fused_ops(struct bc_lib_state *f, const struct bc_lib_op *op, struct bh_result *r)
{
    int dt = op->dt, pw = bc_be_act_mode(op->act), act = pw >= 0;
    int steps = 1 + (op->residual != 0) + act;
    struct bc_tensor bt = op->y;
    for (int k = 0; k < bt.nd; k++)
        bt.d[k] = k == 1 ? op->y.d[1] : 1;
    cudnnBackendDescriptor_t b = NULL, z = NULL, cur = f->be_y, next = NULL;
    enum bh_status st;
    /* at most: bias, residual, three outputs, three pointwise descriptors and their operations */
    if (f->be_nmore + 11 > (int)(sizeof(f->be_more) / sizeof(f->be_more[0]))) {
        bh_note(r, "too many descriptors for a fused graph (a benanza bug)");
        return BH_ERROR;
    }
    st = bc_be_tensor(&b, BC_UID_B, &bt, dt, op->nhwc, r);
    if (b)
        f->be_more[f->be_nmore++] = b;
    if (st != BH_OK)
        return st;
    if (op->residual) {
        st = bc_be_tensor(&z, BC_UID_Z, &op->y, dt, op->nhwc, r);
        if (z)
            f->be_more[f->be_nmore++] = z;
        if (st != BH_OK)
            return st;
    }
    for (int s = 0; s < steps; s++) {
        int last = s == steps - 1;
        next = NULL;
        st = bc_be_tensor_v(&next, last ? BC_UID_Y : BC_UID_VIRTUAL + 1 + s, &op->y, dt, op->nhwc, !last, r);
        if (next)
            f->be_more[f->be_nmore++] = next;
        if (st != BH_OK)
            return st;
        if (s == 0)
            st = bc_be_pointwise(f, CUDNN_POINTWISE_ADD, cur, b, next, r);
        else if (s == 1 && op->residual)
            st = bc_be_pointwise(f, CUDNN_POINTWISE_ADD, cur, z, next, r);
        else
            st = bc_be_pointwise_clip(f, (cudnnPointwiseMode_t)pw, op->act == CUDNN_ACTIVATION_CLIPPED_RELU ? op->coef : 0.0,
                                      cur, NULL, next, r);
        if (st != BH_OK)
            return st;
        cur = next;
    }
    return BH_OK;
}

static enum bh_status bc_engine_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                      struct bh_result *r)
{
    int dt = op->dt;
    enum bh_status st = bc_be_conv_op(f, op, r);
    if (st != BH_OK)
        return st;
    int64_t ws = 0;
    if ((st = bc_be_plan(f, op, "convolution", &ws, r)) != BH_OK)
        return st;
    if ((st = bc_buffer(s, r, bc_numel(&op->x), dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, bc_numel(&op->w), dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
        (st = bc_buffer(s, r, bc_numel(&op->y), dt, BC_FILL_ZERO, 0, &f->y)) != BH_OK ||
        (op->fused && (st = bc_buffer(s, r, op->y.d[1], dt, BC_FILL_UNIFORM, 0, &f->b)) != BH_OK) ||
        (op->fused && op->residual && (st = bc_buffer(s, r, bc_numel(&op->y), dt, BC_FILL_UNIFORM, 0, &f->z)) != BH_OK) ||
        (st = bc_workspace(s, (size_t)ws, r)) != BH_OK)
        return st;
    int64_t uids[5] = {BC_UID_X, BC_UID_W, BC_UID_Y, BC_UID_B, BC_UID_Z};
    void *ptrs[5] = {f->x, f->w, f->y, f->b, f->z};
    return bc_be_pack(s, f, op->fused ? (op->residual ? 5 : 4) : 3, uids, ptrs, r);
}

#endif

#if BC_FAMILIES & BC_FAM_SDPA
/* ---- the backend API's fused attention (BC_SDPA) ---- */

enum { BC_UID_Q = 20, BC_UID_K, BC_UID_V, BC_UID_O, BC_UID_SCALE, BC_UID_MASK, BC_UID_SDPA_VIRT = 40 };

/* a 4-D tensor of the attention graph at the given strides, kept for the teardown */
static enum bh_status bc_be_t4(struct bc_lib_state *f, int64_t uid, const int64_t *dims, const int64_t *strides,
                               cudnnDataType_t type, int is_virtual, int by_value, cudnnBackendDescriptor_t *out,
                               struct bh_result *r)
{
    enum bh_status st = bc_be_more(f, CUDNN_BACKEND_TENSOR_DESCRIPTOR, out, r);
    return st != BH_OK ? st : bc_be_tensor_set(*out, uid, 4, dims, strides, type, is_virtual, by_value, r);
}

/* a dim of size 1 at stride 0 (a rank-3 operand's one head, as gen records it) given the stride
 * a packed tensor would have there, the extent of the dims inside it: the stride of a size-1
 * dim addresses nothing, and cuDNN is strict about strides (PyTorch rewrites them likewise
 * before it hands tensors to cuDNN) */
static void bc_be_unit_strides(const int64_t *dims, int64_t *strides)
{
    for (int k = 3; k >= 0; k--) {
        if (dims[k] != 1 || strides[k] != 0)
            continue;
        int64_t extent = 1;
        for (int j = k + 1; j < 4; j++)
            extent = dims[j] * strides[j] > extent ? dims[j] * strides[j] : extent;
        strides[k] = extent;
    }
}

/* C = A B (batched over the leading dims), accumulated in float */
static enum bh_status bc_be_matmul(struct bc_lib_state *f, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                                   cudnnBackendDescriptor_t c, struct bh_result *r)
{
    cudnnBackendDescriptor_t mm, o;
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    enum bh_status st;
    if ((st = bc_be_more(f, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    BC_BE(r, cudnnBackendFinalize(mm));
    if ((st = bc_be_more(f, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &o, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm));
    BC_BE(r, cudnnBackendFinalize(o));
    f->be_ops[f->be_nops++] = o;
    return BH_OK;
}

/* Y = the max or the sum of X over the dims where Y has 1 */
static enum bh_status bc_be_reduce(struct bc_lib_state *f, cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x,
                                   cudnnBackendDescriptor_t y, struct bh_result *r)
{
    cudnnBackendDescriptor_t rd, o;
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    enum bh_status st;
    if ((st = bc_be_more(f, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &rd, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode));
    BC_BE(r, cudnnBackendSetAttribute(rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    BC_BE(r, cudnnBackendFinalize(rd));
    if ((st = bc_be_more(f, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &o, r)) != BH_OK)
        return st;
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    BC_BE(r, cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd));
    BC_BE(r, cudnnBackendFinalize(o));
    f->be_ops[f->be_nops++] = o;
    return BH_OK;
}

/* The mask's dims and strides in the attention graph, as PyTorch hands cuDNN an attn_mask (it
 * expands it to [b, 1 or h, sq, skv] and passes the expanded strides): the batch, query and key
 * dims at the scores' sizes, at stride 0 where the mask broadcasts over them; the heads 1 where
 * it broadcasts over them; a dim of size 1 at a packed tensor's stride. A padding mask
 * [b, 1, 1, skv] so becomes [b, 1, sq, skv] at strides [skv, skv, 0, 1]. */
static void bc_be_sdpa_mask_dims(const struct bc_att *a, int64_t *md, int64_t *ms)
{
    const int64_t sd[4] = {a->b, a->h, a->sq, a->skv};
    for (int k = 0; k < 4; k++) {
        md[k] = a->m[k] || k != 1 ? sd[k] : 1;
        ms[k] = a->m[k];
    }
    bc_be_unit_strides(md, ms);
}

/* The attention graph as frameworks hand it to cuDNN (the frontend's composite softmax):
 * S = Q K^T; S *= scale; [S += mask]; M = max_j S; E = exp(S - M); Z = sum_j E; the softmax
 * statistics M + log Z (virtual: inference); P = E / Z; O = P V. Q, K, V, the mask and O in the
 * type at the layer's strides, every intermediate virtual, in float but P (in the type, as
 * the frontend sets it for the engines). Finalized without a handle
 * (test/cuda_ref_check.c builds it with no GPU). */
static enum bh_status bc_be_sdpa_ops(struct bc_lib_state *f, const struct bc_lib_op *op, struct bh_result *r)
{
    const struct bc_att *a = &op->att;
    cudnnDataType_t t = bc_dnn_type(op->dt), fl = CUDNN_DATA_FLOAT;
    if ((op->dt != BC_F16 && op->dt != BC_BF16) || a->b < 1 || a->h < 1 || a->sq < 1 || a->skv < 1 || a->d < 1 ||
        a->dv < 1 || (a->mask && !a->m[3])) {
        bh_note(r, "cuDNN's fused attention wants f16 or bf16 and a mask along the keys (a gen bug)");
        return BH_ERROR;
    }
    const long long b = a->b, h = a->h, sq = a->sq, skv = a->skv, rep = a->rep > 1 ? a->rep : 1;
    if (h % rep) {
        bh_note(r, "%lld query heads do not share K and V heads by %lld (a gen bug)", h, rep);
        return BH_ERROR;
    }
    /* grouped-query attention: K and V of h / rep heads, the matmuls' batch dims broadcast
     * over the query heads sharing one (as cuDNN's frontend builds the graph for GQA) */
    int64_t qd[4] = {b, h, sq, a->d}, qs[4] = {a->q[0], a->q[1], a->q[2], a->q[3]};
    int64_t kd[4] = {b, h / rep, a->d, skv}, ks[4] = {a->k[0], a->k[1], a->k[3], a->k[2]}; /* K^T */
    int64_t vd[4] = {b, h / rep, skv, a->dv}, vs[4] = {a->v[0], a->v[1], a->v[2], a->v[3]};
    int64_t od[4] = {b, h, sq, a->dv}, os[4] = {a->o[0], a->o[1], a->o[2], a->o[3]};
    bc_be_unit_strides(qd, qs);
    bc_be_unit_strides(kd, ks);
    bc_be_unit_strides(vd, vs);
    bc_be_unit_strides(od, os);
    int64_t sd[4] = {b, h, sq, skv}, ss[4] = {h * sq * skv, sq * skv, skv, 1};
    int64_t rd[4] = {b, h, sq, 1}, rs[4] = {h * sq, sq, 1, 1};
    int64_t one[4] = {1, 1, 1, 1};
    int64_t md[4], ms[4];
    bc_be_sdpa_mask_dims(a, md, ms);
    if (f->be_nmore + 40 > (int)(sizeof(f->be_more) / sizeof(f->be_more[0]))) {
        bh_note(r, "too many descriptors for the attention graph (a benanza bug)");
        return BH_ERROR;
    }
    cudnnBackendDescriptor_t q, k, v, o, sc, mk = NULL, s0, s1, s2 = NULL, mx, sub, ex, z, lg, stats, p;
    enum bh_status st;
    int64_t vid = BC_UID_SDPA_VIRT;
    if ((st = bc_be_t4(f, BC_UID_Q, qd, qs, t, 0, 0, &q, r)) != BH_OK ||
        (st = bc_be_t4(f, BC_UID_K, kd, ks, t, 0, 0, &k, r)) != BH_OK ||
        (st = bc_be_t4(f, BC_UID_V, vd, vs, t, 0, 0, &v, r)) != BH_OK ||
        (st = bc_be_t4(f, BC_UID_O, od, os, t, 0, 0, &o, r)) != BH_OK ||
        (st = bc_be_t4(f, BC_UID_SCALE, one, one, fl, 0, 1, &sc, r)) != BH_OK ||
        (a->mask && (st = bc_be_t4(f, BC_UID_MASK, md, ms, t, 0, 0, &mk, r)) != BH_OK) ||
        (st = bc_be_t4(f, vid++, sd, ss, fl, 1, 0, &s0, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, sd, ss, fl, 1, 0, &s1, r)) != BH_OK ||
        (a->mask && (st = bc_be_t4(f, vid++, sd, ss, fl, 1, 0, &s2, r)) != BH_OK) ||
        (st = bc_be_t4(f, vid++, rd, rs, fl, 1, 0, &mx, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, sd, ss, fl, 1, 0, &sub, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, sd, ss, fl, 1, 0, &ex, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, rd, rs, fl, 1, 0, &z, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, rd, rs, fl, 1, 0, &lg, r)) != BH_OK ||
        (st = bc_be_t4(f, vid++, rd, rs, fl, 1, 0, &stats, r)) != BH_OK ||
        /* the probabilities in the type: cuDNN's attention engines take P V's A in the I/O type */
        (st = bc_be_t4(f, vid++, sd, ss, t, 1, 0, &p, r)) != BH_OK)
        return st;
    cudnnBackendDescriptor_t scores = a->mask ? s2 : s1;
    if ((st = bc_be_matmul(f, q, k, s0, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_MUL, s0, sc, s1, r)) != BH_OK ||
        (a->mask && (st = bc_be_pointwise(f, CUDNN_POINTWISE_ADD, s1, mk, s2, r)) != BH_OK) ||
        (st = bc_be_reduce(f, CUDNN_REDUCE_TENSOR_MAX, scores, mx, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_SUB, scores, mx, sub, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_EXP, sub, NULL, ex, r)) != BH_OK ||
        (st = bc_be_reduce(f, CUDNN_REDUCE_TENSOR_ADD, ex, z, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_LOG, z, NULL, lg, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_ADD, mx, lg, stats, r)) != BH_OK ||
        (st = bc_be_pointwise(f, CUDNN_POINTWISE_DIV, ex, z, p, r)) != BH_OK ||
        (st = bc_be_matmul(f, p, v, o, r)) != BH_OK)
        return st;
    return BH_OK;
}

/* The attention graph's engine configuration at the rank; Q, K, V and the mask filled like
 * the kernels' (uniform values), the output zeroed; the scale passed by value */
static enum bh_status bc_sdpa_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                    struct bh_result *r)
{
    const struct bc_att *a = &op->att;
    int dt = op->dt;
    enum bh_status st = bc_be_sdpa_ops(f, op, r);
    if (st != BH_OK)
        return st;
    int64_t ws = 0;
    if ((st = bc_be_plan(f, op, "attention graph", &ws, r)) != BH_OK)
        return st;
    if ((st = bc_buffer(s, r, a->q_elems, dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, a->k_elems, dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
        (st = bc_buffer(s, r, a->v_elems, dt, BC_FILL_UNIFORM, 0, &f->x2)) != BH_OK ||
        (st = bc_buffer(s, r, a->b * a->h * a->sq * a->dv, dt, BC_FILL_ZERO, 0, &f->y)) != BH_OK ||
        (a->mask && (st = bc_buffer(s, r, a->m_elems, dt, BC_FILL_UNIFORM, 0, &f->b)) != BH_OK) ||
        (st = bc_workspace(s, (size_t)ws, r)) != BH_OK)
        return st;
    f->sdpa_scale = (float)a->scale;
    int64_t uids[6] = {BC_UID_Q, BC_UID_K, BC_UID_V, BC_UID_O, BC_UID_SCALE, BC_UID_MASK};
    void *ptrs[6] = {f->x, f->w, f->x2, f->y, &f->sdpa_scale, f->b};
    return bc_be_pack(s, f, a->mask ? 6 : 5, uids, ptrs, r);
}

#endif

static void bc_engine_teardown(struct bc_lib_state *f)
{
    cudnnBackendDescriptor_t *all[] = {&f->be_pack, &f->be_plan, &f->be_heur, &f->be_graph, &f->be_op,
                                       &f->be_conv, &f->be_x, &f->be_w, &f->be_y};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (*all[i]) {
            cudnnBackendDestroyDescriptor(*all[i]);
            *all[i] = NULL;
        }
    for (int i = 0; i < f->be_nmore; i++)
        cudnnBackendDestroyDescriptor(f->be_more[i]);
    f->be_nmore = f->be_nops = 0;
    for (int64_t i = 0; i < f->be_ncfgs; i++)
        cudnnBackendDestroyDescriptor(f->be_cfgs[i]);
    free(f->be_cfgs);
    f->be_cfgs = NULL;
    f->be_ncfgs = 0;
}
#endif

static enum bh_status bc_dnn_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                   struct bh_result *r)
{
    switch (BC_OWN_FAMILY(op)) {
#if BC_FAMILIES & (BC_FAM_CONV | BC_FAM_CONV_FUSED | BC_FAM_DECONV)
    case BC_CONV:
    case BC_CONV_FUSED:
    case BC_DECONV:
        return bc_conv_setup(s, f, op, r);
#endif
#if BC_FAMILIES & BC_FAM_ADVICE
    case BC_ADVICE: {
        enum bh_status st = bc_conv_setup(s, f, op, r);
        return st != BH_OK ? st : bc_advice(s, f, op, r);
    }
#endif
#if BC_FAMILIES & BC_FAM_ENGINE
    case BC_ENGINE:
        return bc_engine_setup(s, f, op, r);
#endif
#if BC_FAMILIES & BC_FAM_SDPA
    case BC_SDPA:
        return bc_sdpa_setup(s, f, op, r);
#endif
#if BC_FAMILIES & (BC_FAM_POOL | BC_FAM_ACT | BC_FAM_SOFTMAX | BC_FAM_LRN | BC_FAM_BNORM | BC_FAM_OPTENSOR | BC_FAM_REDUCE | BC_FAM_RELAYOUT)
    case BC_POOL:
    case BC_ACT:
    case BC_SOFTMAX:
    case BC_LRN:
    case BC_BNORM:
    case BC_OPTENSOR:
    case BC_REDUCE:
    case BC_RELAYOUT:
        break;
#endif
#if BC_FAMILIES & BC_FAM_RNN
    case BC_RNN: {
        int dt = op->dt;
        enum bh_status st;
        BC_DNN(r, cudnnCreateDropoutDescriptor(&f->dd));
        size_t states = 0;
        BC_DNN(r, cudnnDropoutGetStatesSize(f->dnn, &states));
        if (states)
            BC_CUDA(r, cudaMalloc(&f->dropout_states, states));
        BC_DNN(r, cudnnSetDropoutDescriptor(f->dd, f->dnn, 0.0f, f->dropout_states, states, 0));
        BC_DNN(r, cudnnCreateRNNDescriptor(&f->rnn));
        cudnnDataType_t t = bc_dnn_type(dt);
        BC_DNN(r, cudnnSetRNNDescriptor_v8(f->rnn, (cudnnRNNAlgo_t)op->algo, (cudnnRNNMode_t)op->mode,
                                           CUDNN_RNN_DOUBLE_BIAS, op->bidir ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                           CUDNN_LINEAR_INPUT, t, CUDNN_DATA_FLOAT, bc_dnn_math(op), op->input,
                                           op->hidden, op->hidden, 1, f->dd, CUDNN_RNN_PADDED_IO_DISABLED));
        if (op->algo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
            BC_DNN(r, cudnnBuildRNNDynamic(f->dnn, f->rnn, op->batch));
        int *lens = (int *)malloc(sizeof(int) * (size_t)op->batch);
        if (!lens)
            return BH_OOM;
        for (int i = 0; i < op->batch; i++)
            lens[i] = op->seq;
        BC_DNN(r, cudnnCreateRNNDataDescriptor(&f->rxd));
        BC_DNN(r, cudnnCreateRNNDataDescriptor(&f->ryd));
        cudnnStatus_t s1 = cudnnSetRNNDataDescriptor(f->rxd, t, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, op->seq,
                                                     op->batch, op->input, lens, NULL);
        cudnnStatus_t s2 = cudnnSetRNNDataDescriptor(f->ryd, t, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, op->seq,
                                                     op->batch, op->hidden * (op->bidir ? 2 : 1), lens, NULL);
        cudaError_t ce = cudaSuccess;
        if ((st = bc_buffer(s, r, op->batch, BC_I32, BC_FILL_ZERO, 0, &f->seqlens)) == BH_OK)
            ce = cudaMemcpy(f->seqlens, lens, sizeof(int) * (size_t)op->batch, cudaMemcpyHostToDevice);
        free(lens);
        if (st != BH_OK)
            return st;
        BC_CUDA(r, ce);
        BC_DNN(r, s1);
        BC_DNN(r, s2);
        struct bc_tensor h = {3, {op->bidir ? 2 : 1, op->batch, op->hidden}};
        BC_DNN(r, bc_tensor_desc(&f->hd, &h, dt));
        size_t ws = 0;
        BC_DNN(r, cudnnGetRNNWeightSpaceSize(f->dnn, f->rnn, &f->weight_bytes));
        BC_DNN(r, cudnnGetRNNTempSpaceSizes(f->dnn, f->rnn, CUDNN_FWD_MODE_INFERENCE, f->rxd, &ws, &f->reserve_bytes));
        long long hn = bc_numel(&h), wn = (long long)(f->weight_bytes / bc_dtype_size[dt]);
        if ((st = bc_buffer(s, r, (long long)op->seq * op->batch * op->input, dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
            (st = bc_buffer(s, r, (long long)op->seq * op->batch * op->hidden * (op->bidir ? 2 : 1), dt, BC_FILL_ZERO,
                            0, &f->y)) != BH_OK ||
            (st = bc_buffer(s, r, wn, dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
            (st = bc_buffer(s, r, hn, dt, BC_FILL_UNIFORM, 0, &f->hx)) != BH_OK ||
            (st = bc_buffer(s, r, hn, dt, BC_FILL_ZERO, 0, &f->hy)) != BH_OK)
            return st;
        if (op->mode == CUDNN_LSTM &&
            ((st = bc_buffer(s, r, hn, dt, BC_FILL_UNIFORM, 0, &f->cx)) != BH_OK ||
             (st = bc_buffer(s, r, hn, dt, BC_FILL_ZERO, 0, &f->cy)) != BH_OK))
            return st;
        if (f->reserve_bytes)
            BC_CUDA(r, cudaMalloc(&f->reserve, f->reserve_bytes));
        return bc_workspace(s, ws, r);
    }
#endif
    default:
        bh_note(r, "unknown library family %d (a gen bug)", op->family);
        return BH_ERROR;
    }
#if BC_FAMILIES & (BC_FAM_POOL | BC_FAM_ACT | BC_FAM_SOFTMAX | BC_FAM_LRN | BC_FAM_BNORM | BC_FAM_OPTENSOR | BC_FAM_REDUCE | BC_FAM_RELAYOUT)
    /* the element-wise-like families: x -> y (x2: the second operand of an op tensor);
     * pooling and batch norm channels-last too */
    int dt = op->dt;
    enum bh_status st;
    if (op->nhwc && (op->x.nd < 4 || (!BC_IS(op, BC_POOL) && !BC_IS(op, BC_BNORM) && !BC_IS(op, BC_SOFTMAX)))) {
        bh_note(r, "channels-last wants 4 or 5 dims, pooling, batch norm or softmax (a gen bug)");
        return BH_ERROR;
    }
    int relayout = BC_IS(op, BC_RELAYOUT);
    if (relayout && (op->x.nd != 4 || (op->mode != 0 && op->mode != 1))) {
        bh_note(r, "a layout change wants 4 dims and mode 0 or 1 (a gen bug)");
        return BH_ERROR;
    }
    int x_cl = op->nhwc || (relayout && op->mode == 1), y_cl = op->nhwc || (relayout && op->mode == 0);
    BC_DNN(r, x_cl ? bc_tensor_desc_nhwc(&f->xd, &op->x, dt) : bc_tensor_desc(&f->xd, &op->x, dt));
    BC_DNN(r, y_cl ? bc_tensor_desc_nhwc(&f->yd, &op->y, dt) : bc_tensor_desc(&f->yd, &op->y, dt));
    if ((st = bc_buffer(s, r, bc_numel(&op->x), dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, bc_numel(&op->y), dt, BC_FILL_ZERO, 0, &f->y)) != BH_OK)
        return st;
    switch (BC_OWN_FAMILY(op)) {
    case BC_POOL:
        BC_DNN(r, cudnnCreatePoolingDescriptor(&f->pd));
        BC_DNN(r, cudnnSetPoolingNdDescriptor(f->pd, (cudnnPoolingMode_t)op->mode, CUDNN_NOT_PROPAGATE_NAN, op->nsp,
                                              op->win, op->pad, op->stride));
        {
            int out[BC_MAX_ND], nd = op->x.nd < 4 ? 4 : op->x.nd;
            BC_DNN(r, cudnnGetPoolingNdForwardOutputDim(f->pd, f->xd, nd, out));
            for (int k = 0; k < op->y.nd; k++)
                if (out[k] != op->y.d[k]) {
                    bh_note(r, "cuDNN's output dim %d is %d, the layer's %lld (a gen bug)", k, out[k], op->y.d[k]);
                    return BH_ERROR;
                }
        }
        break;
    case BC_ACT:
        BC_DNN(r, cudnnCreateActivationDescriptor(&f->ad));
        BC_DNN(r, cudnnSetActivationDescriptor(f->ad, (cudnnActivationMode_t)op->mode, CUDNN_NOT_PROPAGATE_NAN, op->coef));
        break;
    case BC_LRN:
        BC_DNN(r, cudnnCreateLRNDescriptor(&f->ld));
        BC_DNN(r, cudnnSetLRNDescriptor(f->ld, (unsigned)op->lrn_n, op->alpha, op->beta, op->coef));
        break;
    case BC_BNORM: {
        BC_DNN(r, cudnnCreateTensorDescriptor(&f->bd));
        BC_DNN(r, cudnnDeriveBNTensorDescriptor(f->bd, f->xd, CUDNN_BATCHNORM_SPATIAL));
        /* the statistics and the affine parameters stay float for half and bfloat16 data */
        long long c = op->x.d[1];
        if ((st = bc_buffer(s, r, c, BC_F32, BC_FILL_UNIFORM, 0, &f->scale)) != BH_OK ||
            (st = bc_buffer(s, r, c, BC_F32, BC_FILL_UNIFORM, 0, &f->shift)) != BH_OK ||
            (st = bc_buffer(s, r, c, BC_F32, BC_FILL_UNIFORM, 0, &f->mean)) != BH_OK ||
            (st = bc_buffer(s, r, c, BC_F32, BC_FILL_POSITIVE, 0, &f->var)) != BH_OK)
            return st;
        break;
    }
    case BC_OPTENSOR:
        BC_DNN(r, bc_tensor_desc(&f->x2d, &op->x2, dt));
        if ((st = bc_buffer(s, r, bc_numel(&op->x2), dt, BC_FILL_UNIFORM, 0, &f->x2)) != BH_OK)
            return st;
        BC_DNN(r, cudnnCreateOpTensorDescriptor(&f->od));
        BC_DNN(r, cudnnSetOpTensorDescriptor(f->od, (cudnnOpTensorOp_t)op->mode, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
        break;
    case BC_REDUCE: {
        BC_DNN(r, cudnnCreateReduceTensorDescriptor(&f->rd));
        BC_DNN(r, cudnnSetReduceTensorDescriptor(f->rd, (cudnnReduceTensorOp_t)op->mode, CUDNN_DATA_FLOAT,
                                                 CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                                 CUDNN_32BIT_INDICES));
        size_t bytes = 0;
        BC_DNN(r, cudnnGetReductionWorkspaceSize(f->dnn, f->rd, f->xd, f->yd, &bytes));
        return bc_workspace(s, bytes, r);
    }
    default:
        break;
    }
    return BH_OK;
#endif
}

static enum bh_status bc_dnn_launch(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                    struct bh_result *r)
{
    const float *one = &bc_one, *zero = &bc_zero;
    switch (BC_OWN_FAMILY(op)) {
    case BC_ENGINE:
    case BC_SDPA:
        BC_DNN(r, cudnnBackendExecute(f->dnn, f->be_plan, f->be_pack));
        break;
    case BC_CONV:
        BC_DNN(r, cudnnConvolutionForward(f->dnn, one, f->xd, f->x, f->wd, f->w, f->cd,
                                          (cudnnConvolutionFwdAlgo_t)op->algo, s->ws, s->ws_bytes, zero, f->yd, f->y));
        break;
    case BC_CONV_FUSED:
        /* y = act(conv(x) + alpha2 * z + bias); without a residual z is y with alpha2 = 0 */
        BC_DNN(r, cudnnConvolutionBiasActivationForward(f->dnn, one, f->xd, f->x, f->wd, f->w, f->cd,
                                                        (cudnnConvolutionFwdAlgo_t)op->algo, s->ws, s->ws_bytes,
                                                        op->residual ? one : zero, f->yd, op->residual ? f->z : f->y,
                                                        f->bd, f->b, f->ad, f->yd, f->y));
        break;
    case BC_DECONV:
        BC_DNN(r, cudnnConvolutionBackwardData(f->dnn, one, f->wd, f->w, f->xd, f->x, f->cd,
                                               (cudnnConvolutionBwdDataAlgo_t)op->algo, s->ws, s->ws_bytes, zero,
                                               f->yd, f->y));
        break;
    case BC_POOL:
        BC_DNN(r, cudnnPoolingForward(f->dnn, f->pd, one, f->xd, f->x, zero, f->yd, f->y));
        break;
    case BC_ACT:
        BC_DNN(r, cudnnActivationForward(f->dnn, f->ad, one, f->xd, f->x, zero, f->yd, f->y));
        break;
    case BC_SOFTMAX:
        BC_DNN(r, cudnnSoftmaxForward(f->dnn, (cudnnSoftmaxAlgorithm_t)op->algo, (cudnnSoftmaxMode_t)op->mode, one,
                                      f->xd, f->x, zero, f->yd, f->y));
        break;
    case BC_LRN:
        BC_DNN(r, cudnnLRNCrossChannelForward(f->dnn, f->ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, one, f->xd, f->x, zero,
                                              f->yd, f->y));
        break;
    case BC_BNORM:
        BC_DNN(r, cudnnBatchNormalizationForwardInference(f->dnn, CUDNN_BATCHNORM_SPATIAL, one, zero, f->xd, f->x,
                                                          f->yd, f->y, f->bd, f->scale, f->shift, f->mean, f->var,
                                                          op->eps));
        break;
    case BC_OPTENSOR: {
        /* Sub is an add with the second operand negated */
        const float neg = -1.0f;
        BC_DNN(r, cudnnOpTensor(f->dnn, f->od, one, f->xd, f->x, op->alpha < 0 ? &neg : one, f->x2d, f->x2, zero,
                                f->yd, f->y));
        break;
    }
    case BC_RELAYOUT:
        BC_DNN(r, cudnnTransformTensor(f->dnn, one, f->xd, f->x, zero, f->yd, f->y));
        break;
    case BC_REDUCE:
        BC_DNN(r, cudnnReduceTensor(f->dnn, f->rd, NULL, 0, s->ws, s->ws_bytes, one, f->xd, f->x, zero, f->yd, f->y));
        break;
    case BC_RNN:
        BC_DNN(r, cudnnRNNForward(f->dnn, f->rnn, CUDNN_FWD_MODE_INFERENCE, (const int32_t *)f->seqlens, f->rxd, f->x,
                                  f->ryd, f->y, f->hd, f->hx, f->hy, f->hd, f->cx, f->cy, f->weight_bytes, f->w,
                                  s->ws_bytes, s->ws, f->reserve_bytes, f->reserve));
        break;
    default:
        bh_note(r, "family %d has no cuDNN launch (a gen bug)", op->family);
        return BH_ERROR;
    }
    return BH_OK;
}

static void bc_dnn_teardown(struct bc_lib_state *f)
{
#if BC_FAMILIES & (BC_FAM_ENGINE | BC_FAM_SDPA)
    bc_engine_teardown(f);
#endif
    cudnnTensorDescriptor_t *ts[] = {&f->xd, &f->yd, &f->x2d, &f->bd, &f->hd};
    for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
        if (*ts[i])
            cudnnDestroyTensorDescriptor(*ts[i]);
    if (f->wd)
        cudnnDestroyFilterDescriptor(f->wd);
    if (f->cd)
        cudnnDestroyConvolutionDescriptor(f->cd);
    if (f->ad)
        cudnnDestroyActivationDescriptor(f->ad);
    if (f->pd)
        cudnnDestroyPoolingDescriptor(f->pd);
    if (f->ld)
        cudnnDestroyLRNDescriptor(f->ld);
    if (f->od)
        cudnnDestroyOpTensorDescriptor(f->od);
    if (f->rd)
        cudnnDestroyReduceTensorDescriptor(f->rd);
    if (f->rxd)
        cudnnDestroyRNNDataDescriptor(f->rxd);
    if (f->ryd)
        cudnnDestroyRNNDataDescriptor(f->ryd);
    if (f->rnn)
        cudnnDestroyRNNDescriptor(f->rnn);
    if (f->dd)
        cudnnDestroyDropoutDescriptor(f->dd);
    if (f->dropout_states)
        cudaFree(f->dropout_states);
    if (f->reserve)
        cudaFree(f->reserve);
}

#endif

#endif
