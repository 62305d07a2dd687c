/* Library benchmarks on CUDA, part 2: the cuBLAS families (Gemm, MatMul, batched MatMul,
 * GEMV), the dispatch every library benchmark calls (bc_lib_setup / _launch / _teardown), and
 * --verify against the host references of cuda_ref.h (bc_lib_verify). Needs cudnn_ops.h and
 * cuda_ref.h before it; inlined into each generated library benchmark. */
#ifndef BENANZA_CUBLAS_OPS_H
#define BENANZA_CUBLAS_OPS_H

/* the cuBLAS families' code (GEMM and GEMV through cuBLAS, cuBLASLt's GEMMs) */
#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT)
static inline enum bh_status bc_blas_fail(struct bh_result *r, const char *call, cublasStatus_t st)
{
    bh_note(r, "%s failed: %s", call, cublasGetStatusString(st));
    if (st == CUBLAS_STATUS_ALLOC_FAILED)
        return BH_OOM;
    if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_ARCH_MISMATCH)
        return BH_UNSUPPORTED;
    return BH_ERROR;
}

#define BC_BLAS(r, call)                                                                            \
    do {                                                                                            \
        cublasStatus_t bc_bst_ = (call);                                                            \
        if (bc_bst_ != CUBLAS_STATUS_SUCCESS)                                                       \
            return bc_blas_fail((r), #call, bc_bst_);                                               \
    } while (0)

static cudaDataType_t bc_blas_type(int dt)
{
    return dt == BC_F16 ? CUDA_R_16F : dt == BC_BF16 ? CUDA_R_16BF : dt == BC_F8 ? CUDA_R_8F_E4M3 : CUDA_R_32F;
}

/* a GEMM's output (and C, and the bias) type: an fp8 GEMM writes bfloat16, as frameworks keep
 * the activations between their fp8 GEMMs */
static int bc_gemm_out_dtype(int dt)
{
    return dt == BC_F8 ? BC_BF16 : dt;
}

/* What frameworks ask for: float accumulation; TF32 only when allowed; half without Tensor
 * Cores is the pedantic float compute (cuBLAS may not down-convert or use Tensor Cores). */
static cublasComputeType_t bc_blas_compute(const struct bc_lib_op *op)
{
    if (op->dt == BC_F32)
        return op->tensor_op ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    return op->tensor_op ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
}

/* A GEMM's operands (the batch's, strided; the buffers they are read from in place where gen
 * gives their sizes) and its output (C's values in it where beta is 1) */
static enum bh_status bc_gemm_buffers(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                      struct bh_result *r)
{
    long long batches = op->batch_count > 0 ? op->batch_count : 1;
    long long na = op->a_elems ? op->a_elems : op->stride_a ? op->stride_a * batches : op->m * op->k;
    long long nb = op->b_elems ? op->b_elems : op->stride_b ? op->stride_b * batches : op->k * op->n;
    long long nc = op->c_elems ? op->c_elems : op->stride_c ? op->stride_c * batches : op->m * op->n * batches;
    enum bh_status st;
    if ((st = bc_buffer(s, r, na, op->dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, nb, op->dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
        (st = bc_buffer(s, r, nc, bc_gemm_out_dtype(op->dt), op->beta_one ? BC_FILL_UNIFORM : BC_FILL_ZERO, 0, &f->y)) !=
            BH_OK)
        return st;
    return BH_OK;
}

/* the GEMM's alpha: gen's scale, else 1 */
static inline float bc_gemm_alpha(const struct bc_lib_op *op)
{
    return op->gemm_alpha != 0 ? (float)op->gemm_alpha : 1.0f;
}

#endif

#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV)
static enum bh_status bc_blas_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                    struct bh_result *r)
{
    BC_BLAS(r, cublasSetStream(f->blas, s->stream));
    /* a Tensor Core algorithm asks for Tensor Core math; the others for none */
    BC_BLAS(r, cublasSetMathMode(f->blas, op->tensor_op ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH));
    return bc_gemm_buffers(s, f, op, r);
}

/* Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T = B^T A^T: cuBLAS gets (n, m, k) with
 * B first; a row-major leading dim is the column-major one of the transposed matrix. */
static enum bh_status bc_blas_launch(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                     struct bh_result *r)
{
    (void)s;
    const float alpha = bc_gemm_alpha(op), beta = op->beta_one ? 1.0f : 0.0f;
    cublasOperation_t opb = op->tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = op->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)op->n, n = (int)op->m, k = (int)op->k;
    int ldb = op->ldb ? (int)op->ldb : op->tb ? (int)op->k : (int)op->n;
    int lda = op->lda ? (int)op->lda : op->ta ? (int)op->m : (int)op->k, ldc = op->ldc ? (int)op->ldc : (int)op->n;
    cudaDataType_t t = bc_blas_type(op->dt);
    if (BC_IS(op, BC_GEMV)) {
        /* y[m] = A[m,k] x[k]: column-major A^T is [k,m], so y = (A^T)^T x */
        if (op->n == 1)
            BC_BLAS(r, cublasSgemv(f->blas, CUBLAS_OP_T, (int)op->k, (int)op->m, &alpha, (const float *)f->x,
                                   (int)op->k, (const float *)f->w, 1, &beta, (float *)f->y, 1));
        else /* y[n] = x[k] B[k,n]: column-major B^T is [n,k] with ld n */
            BC_BLAS(r, cublasSgemv(f->blas, CUBLAS_OP_N, (int)op->n, (int)op->k, &alpha, (const float *)f->w,
                                   (int)op->n, (const float *)f->x, 1, &beta, (float *)f->y, 1));
        return BH_OK;
    }
    if (op->batch_count > 1)
        BC_BLAS(r, cublasGemmStridedBatchedEx(f->blas, opb, opa, m, n, k, &alpha, f->w, t, ldb, op->stride_b, f->x, t,
                                              lda, op->stride_a, &beta, f->y, t, ldc, op->stride_c,
                                              (int)op->batch_count, bc_blas_compute(op), (cublasGemmAlgo_t)op->algo));
    else
        BC_BLAS(r, cublasGemmEx(f->blas, opb, opa, m, n, k, &alpha, f->w, t, ldb, f->x, t, lda, &beta, f->y, t, ldc,
                                bc_blas_compute(op), (cublasGemmAlgo_t)op->algo));
    return BH_OK;
}

#endif

#if BC_FAMILIES & BC_FAM_LT
/* ---- cuBLASLt: the heuristic's algorithms one by one, with the epilogues frameworks fuse ---- */

enum { BC_LT_WORKSPACE = 32 << 20 }; /* what PyTorch gives cuBLASLt on Hopper */

static int bc_lt_has_bias(int epilogue)
{
    return epilogue == CUBLASLT_EPILOGUE_BIAS || epilogue == CUBLASLT_EPILOGUE_RELU_BIAS ||
           epilogue == CUBLASLT_EPILOGUE_GELU_BIAS;
}

/* A column-major view of a row-major operand (rows x cols, stored transposed when T): the
 * layout cuBLASLt gets, with the batch and the leading dim LD (0: packed) */
static enum bh_status bc_lt_layout(cublasLtMatrixLayout_t *l, cudaDataType_t t, long long rows, long long cols, int tr,
                                   long long batch, long long stride, long long ld, struct bh_result *r)
{
    /* row-major [rows, cols] is column-major [cols, rows] with ld cols; stored transposed,
     * [rows, cols] column-major with ld rows */
    uint64_t cr = (uint64_t)(tr ? rows : cols), cc = (uint64_t)(tr ? cols : rows);
    BC_BLAS(r, cublasLtMatrixLayoutCreate(l, t, cr, cc, ld ? (int64_t)ld : (int64_t)cr));
    if (batch > 1) {
        int32_t n = (int32_t)batch;
        int64_t st = stride;
        BC_BLAS(r, cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &n, sizeof(n)));
        BC_BLAS(r, cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof(st)));
    }
    return BH_OK;
}

/* Row-major D[m,n] = A[m,k] B[k,n] (+ C) (+ bias[n], then the activation) is column-major
 * D^T = B^T A^T: cuBLASLt's A is our B. The algorithm is the heuristic's answer number `algo`
 * (0: its first choice), asked with the workspace frameworks allow; its configuration goes in
 * the note. */
static enum bh_status bc_lt_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                  struct bh_result *r)
{
    long long batches = op->batch_count > 0 ? op->batch_count : 1;
    enum bh_status st;
    int f8 = op->dt == BC_F8, out = bc_gemm_out_dtype(op->dt);
    if (f8) {
        /* fp8 tensor cores: Ada and Hopper on; cuBLASLt takes them as TN only (its A, our B,
         * stored [n, k]; its B, our A, [m, k]) */
        struct cudaDeviceProp p;
        BC_CUDA(r, cudaGetDeviceProperties(&p, s->dev));
        if (p.major * 10 + p.minor < 89) {
            bh_note(r, "fp8 (e4m3) GEMMs need compute capability 8.9 or later; this GPU has %d.%d", p.major, p.minor);
            return BH_UNSUPPORTED;
        }
        if (!op->tb || op->ta) {
            bh_note(r, "an fp8 GEMM wants B stored [n, k] and A [m, k] (a gen bug)");
            return BH_ERROR;
        }
    }
    if ((st = bc_gemm_buffers(s, f, op, r)) != BH_OK ||
        (bc_lt_has_bias(op->epilogue) && (st = bc_buffer(s, r, op->n, out, BC_FILL_UNIFORM, 0, &f->b)) != BH_OK))
        return st;
    BC_BLAS(r, cublasLtCreate(&f->lt));
    cudaDataType_t t = bc_blas_type(op->dt), tc = bc_blas_type(out);
    BC_BLAS(r, cublasLtMatmulDescCreate(&f->ltd, bc_blas_compute(op), CUDA_R_32F));
    if (f8 && bc_lt_has_bias(op->epilogue))
        BC_BLAS(r, cublasLtMatmulDescSetAttribute(f->ltd, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &tc, sizeof(tc)));
    cublasOperation_t ta = op->tb ? CUBLAS_OP_T : CUBLAS_OP_N, tb = op->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    BC_BLAS(r, cublasLtMatmulDescSetAttribute(f->ltd, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    BC_BLAS(r, cublasLtMatmulDescSetAttribute(f->ltd, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    cublasLtEpilogue_t epi = (cublasLtEpilogue_t)op->epilogue;
    BC_BLAS(r, cublasLtMatmulDescSetAttribute(f->ltd, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
    if (bc_lt_has_bias(op->epilogue))
        BC_BLAS(r, cublasLtMatmulDescSetAttribute(f->ltd, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &f->b, sizeof(f->b)));
    if ((st = bc_lt_layout(&f->la, t, op->k, op->n, op->tb, batches, op->stride_b, op->ldb, r)) != BH_OK ||
        (st = bc_lt_layout(&f->lb, t, op->m, op->k, op->ta, batches, op->stride_a, op->lda, r)) != BH_OK ||
        (st = bc_lt_layout(&f->lc, tc, op->m, op->n, 0, batches, op->stride_c ? op->stride_c : op->m * op->n, op->ldc,
                           r)) != BH_OK)
        return st;
    cublasLtMatmulPreference_t pref = NULL;
    BC_BLAS(r, cublasLtMatmulPreferenceCreate(&pref));
    f->lt_ws_bytes = BC_LT_WORKSPACE;
    cublasStatus_t bs = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                             &f->lt_ws_bytes, sizeof(f->lt_ws_bytes));
    /* all the heuristic offers (up to 64), so that the note says how many there are */
    cublasLtMatmulHeuristicResult_t res[64];
    int want = 64, got = 0;
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = cublasLtMatmulAlgoGetHeuristic(f->lt, f->ltd, f->la, f->lb, f->lc, f->lc, pref, want, res, &got);
    cublasLtMatmulPreferenceDestroy(pref);
    if (bs != CUBLAS_STATUS_SUCCESS)
        return bc_blas_fail(r, "cublasLtMatmulAlgoGetHeuristic", bs);
    if (op->algo >= got) {
        bh_note(r, "cublasLtMatmulAlgoGetHeuristic offers %d algorithm%s for this GEMM: none at rank %d", got,
                got == 1 ? "" : "s", op->algo);
        return BH_UNSUPPORTED;
    }
    if (res[op->algo].state != CUBLAS_STATUS_SUCCESS)
        return bc_blas_fail(r, "cublasLtMatmulAlgoGetHeuristic (the result at this rank)", res[op->algo].state);
    f->lt_algo = res[op->algo].algo;
    int id = 0, tile = 0, stages = 0, splitk = 0, swizzle = 0, custom = 0;
    size_t w;
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &w);
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), &w);
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), &w);
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), &w);
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof(swizzle), &w);
    cublasLtMatmulAlgoConfigGetAttribute(&f->lt_algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof(custom), &w);
    bh_note(r, "cuBLASLt heuristic rank %d of %d: algo id %d, tile %d, stages %d, split-k %d, swizzle %d, custom %d, "
               "workspace %zu bytes, %.2f waves",
            op->algo, got, id, tile, stages, splitk, swizzle, custom, res[op->algo].workspaceSize, res[op->algo].wavesCount);
    if (res[op->algo].workspaceSize > 0)
        BC_CUDA(r, cudaMalloc(&f->lt_ws, res[op->algo].workspaceSize));
    f->lt_ws_bytes = res[op->algo].workspaceSize;
    r->workspace_bytes = (double)f->lt_ws_bytes;
    return BH_OK;
}

static enum bh_status bc_lt_launch(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                   struct bh_result *r)
{
    const float alpha = bc_gemm_alpha(op), beta = op->beta_one ? 1.0f : 0.0f;
    BC_BLAS(r, cublasLtMatmul(f->lt, f->ltd, &alpha, f->w, f->la, f->x, f->lb, &beta, f->y, f->lc, f->y, f->lc,
                              &f->lt_algo, f->lt_ws, f->lt_ws_bytes, s->stream));
    return BH_OK;
}

static void bc_lt_teardown(struct bc_lib_state *f)
{
    if (f->la)
        cublasLtMatrixLayoutDestroy(f->la);
    if (f->lb)
        cublasLtMatrixLayoutDestroy(f->lb);
    if (f->lc)
        cublasLtMatrixLayoutDestroy(f->lc);
    if (f->ltd)
        cublasLtMatmulDescDestroy(f->ltd);
    if (f->lt_ws)
        cudaFree(f->lt_ws);
    if (f->lt)
        cublasLtDestroy(f->lt);
}

#endif

/* ---- the dispatch of every library benchmark ---- */

/* whether this file's code is compiled for OP's family (always, without BC_FAMILY) */
static inline int bc_family_compiled(const struct bc_lib_op *op)
{
    return BC_OWN_FAMILY(op) == op->family;
}

static enum bh_status bc_lib_setup(struct bc_state *s, struct bh_result *r)
{
    const struct bc_lib_op *op = (const struct bc_lib_op *)s->op;
    if (!bc_family_compiled(op)) {
        bh_note(r, "the operation's family (%d) is not the file's BC_FAMILY (%d)", op->family, (int)BC_OWN_FAMILY(op));
        return BH_ERROR;
    }
    struct bc_lib_state *f = (struct bc_lib_state *)calloc(1, sizeof(*f));
    if (!f) {
        bh_note(r, "out of host memory");
        return BH_OOM;
    }
    s->family = f;
    /* every library benchmark reports the whole library stack: one target per machine */
    int ma = 0, mi = 0, pa = 0;
    cublasGetProperty(MAJOR_VERSION, &ma);
    cublasGetProperty(MINOR_VERSION, &mi);
    cublasGetProperty(PATCH_LEVEL, &pa);
    size_t v = cudnnGetVersion();
    char libs[96];
    snprintf(libs, sizeof(libs), "cuDNN %d.%d.%d, cuBLAS %d.%d.%d", (int)(v / 10000), (int)(v / 100 % 100),
             (int)(v % 100), ma, mi, pa);
    bc_lib(r, libs);
    snprintf(r->math, sizeof(r->math), "%s", op->tensor_op ? "tensor_op" : "default");
    if (BC_IS(op, BC_COPY)) {
        enum bh_status st;
        if ((st = bc_buffer(s, r, bc_numel(&op->x), op->dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
            (st = bc_buffer(s, r, bc_numel(&op->x), op->dt, BC_FILL_ZERO, 0, &f->y)) != BH_OK)
            return st;
        return BH_OK;
    }
#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV)
    if (BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV)) {
        BC_BLAS(r, cublasCreate(&f->blas));
        return bc_blas_setup(s, f, op, r);
    }
#endif
#if BC_FAMILIES & BC_FAM_LT
    if (BC_IS(op, BC_LT))
        return bc_lt_setup(s, f, op, r);
#endif
#if BC_FAMILIES & ~(BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT | BC_FAM_COPY)
    BC_DNN(r, cudnnCreate(&f->dnn));
    BC_DNN(r, cudnnSetStream(f->dnn, s->stream));
    return bc_dnn_setup(s, f, op, r);
#else
    bh_note(r, "family %d has no setup (a gen bug)", op->family);
    return BH_ERROR;
#endif
}

static enum bh_status bc_lib_launch(struct bc_state *s, struct bh_result *r)
{
    const struct bc_lib_op *op = (const struct bc_lib_op *)s->op;
    struct bc_lib_state *f = (struct bc_lib_state *)s->family;
    if (BC_IS(op, BC_COPY)) {
        BC_CUDA(r, cudaMemcpyAsync(f->y, f->x, (size_t)bc_numel(&op->x) * bc_dtype_size[op->dt],
                                   cudaMemcpyDeviceToDevice, s->stream));
        return BH_OK;
    }
#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV)
    if (BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV))
        return bc_blas_launch(s, f, op, r);
#endif
#if BC_FAMILIES & BC_FAM_LT
    if (BC_IS(op, BC_LT))
        return bc_lt_launch(s, f, op, r);
#endif
#if BC_FAMILIES & ~(BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT | BC_FAM_COPY)
    return bc_dnn_launch(s, f, op, r);
#else
    bh_note(r, "family %d has no launch (a gen bug)", op->family);
    return BH_ERROR;
#endif
}

/* ---- --verify: one call on the device, the same inputs through the host reference ---- */

static inline double bc_h2d(unsigned short h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp((double)(1024 + m), e - 25);
    return h & 0x8000u ? -v : v;
}

static inline double bc_bf2d(unsigned short b)
{
    unsigned x = (unsigned)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* The host copy, in double, of one of this benchmark's device buffers (NULL after a note) */
static double *bc_fetch(struct bc_state *s, const void *p, struct bh_result *r)
{
    const struct bc_buf *b = NULL;
    for (int i = 0; i < s->nbuf && !b; i++)
        if (s->buf[i].p == p)
            b = &s->buf[i];
    if (!p || !b) {
        bh_note(r, "--verify: a buffer the call reads is not one of the benchmark's (a gen bug)");
        return NULL;
    }
    size_t n = b->bytes / bc_dtype_size[b->dtype];
    void *h = malloc(b->bytes);
    double *d = (double *)malloc(sizeof(double) * (n ? n : 1));
    cudaError_t e = h && d ? cudaMemcpy(h, b->p, b->bytes, cudaMemcpyDeviceToHost) : cudaErrorMemoryAllocation;
    if (e != cudaSuccess) {
        bh_note(r, "--verify: copying a buffer to the host: %s", cudaGetErrorString(e));
        free(h);
        free(d);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        switch (b->dtype) {
        case BC_F32: d[i] = ((const float *)h)[i]; break;
        case BC_F16: d[i] = bc_h2d(((const unsigned short *)h)[i]); break;
        case BC_BF16: d[i] = bc_bf2d(((const unsigned short *)h)[i]); break;
        case BC_F8: d[i] = bc_e4m3_value(((const unsigned char *)h)[i]); break;
        case BC_I32: d[i] = ((const int *)h)[i]; break;
        case BC_I64: d[i] = (double)((const long long *)h)[i]; break;
        default: d[i] = ((const unsigned char *)h)[i]; break;
        }
    free(h);
    return d;
}

#if BC_FAMILIES & BC_FAM_RNN
/* Where cuDNN keeps each gate's matrix and bias in the RNN weight space: pointers into the
 * host copy w of that space */
static enum bh_status bc_rnn_weights(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                     const double *w, struct br_io *io, struct bh_result *r)
{
    int lin = op->mode == CUDNN_LSTM ? 8 : op->mode == CUDNN_GRU ? 6 : 2;
    cudnnTensorDescriptor_t md = NULL, bd = NULL;
    enum bh_status st = BH_OK;
    size_t es = bc_dtype_size[op->dt];
    (void)s;
    BC_DNN(r, cudnnCreateTensorDescriptor(&md));
    BC_DNN(r, cudnnCreateTensorDescriptor(&bd));
    for (int d = 0; d < (op->bidir ? 2 : 1) && st == BH_OK; d++)
        for (int l = 0; l < lin && st == BH_OK; l++) {
            void *ma = NULL, *ba = NULL;
            cudnnStatus_t cs = cudnnGetRNNWeightParams(f->dnn, f->rnn, d, f->weight_bytes, f->w, l, md, &ma, bd, &ba);
            cudnnDataType_t t;
            int nd = 0, dims[3] = {0, 0, 0}, str[3] = {0, 0, 0};
            if (cs == CUDNN_STATUS_SUCCESS)
                cs = cudnnGetTensorNdDescriptor(md, 3, &t, &nd, dims, str);
            if (cs != CUDNN_STATUS_SUCCESS) {
                st = bc_cudnn_fail(r, "cudnnGetRNNWeightParams", cs);
                break;
            }
            /* [1, rows, cols]: a gate's rows are the hidden units */
            io->rw[d][l] = w + ((const char *)ma - (const char *)f->w) / es;
            io->rb[d][l] = w + ((const char *)ba - (const char *)f->w) / es;
            io->rw_ld[d][l] = nd == 3 ? str[1] : op->hidden;
        }
    cudnnDestroyTensorDescriptor(md);
    cudnnDestroyTensorDescriptor(bd);
    return st;
}

#endif

static enum bh_status bc_lib_verify_run(void *state, struct bh_result *r);

/* --verify: the check's note after the setup's configuration note (an engine's or a cuBLASLt
 * algorithm's), "CONFIG; verify: CHECK", so that the row still names what ran */
static enum bh_status bc_lib_verify(void *state, struct bh_result *r)
{
    char config[sizeof(r->note)];
    snprintf(config, sizeof(config), "%s", r->note);
    enum bh_status st = bc_lib_verify_run(state, r);
    if (!strncmp(config, "engine ", 7) || !strncmp(config, "cuBLASLt heuristic rank ", 24)) {
        char check[sizeof(r->note)];
        snprintf(check, sizeof(check), "%s", r->note);
        if (strcmp(check, config))
            snprintf(r->note, sizeof(r->note), "%.200s; verify: %.290s", config, check);
    }
    return st;
}

static enum bh_status bc_lib_verify_run(void *state, struct bh_result *r)
{
    struct bc_state *s = (struct bc_state *)state;
    const struct bc_lib_op *op = (const struct bc_lib_op *)s->op;
    struct bc_lib_state *f = (struct bc_lib_state *)s->family;
    if (BC_IS(op, BC_ADVICE))
        return BH_OK; /* a ranking: nothing computed */
    struct br_io io;
    memset(&io, 0, sizeof(io));
    double *got = NULL, *got_h = NULL;
    enum bh_status st = BH_ERROR;
    int gemm = BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV) || BC_IS(op, BC_LT);
    if (bh_gpu_lock(r) != 0)
        return BH_ERROR;
    /* the inputs as the device has them (the same rounding), and the output before the call
     * where the call adds to it */
    if (!(io.x = bc_fetch(s, f->x, r)))
        goto out;
    if ((gemm || BC_IS(op, BC_CONV) || BC_IS(op, BC_CONV_FUSED) || BC_IS(op, BC_DECONV) ||
         BC_IS(op, BC_RNN) || BC_IS(op, BC_ENGINE)) &&
        !(io.w = bc_fetch(s, f->w, r)))
        goto out;
    if (BC_IS(op, BC_OPTENSOR) && !(io.x2 = bc_fetch(s, f->x2, r)))
        goto out;
    if (BC_IS(op, BC_SDPA) && (!(io.w = bc_fetch(s, f->w, r)) || !(io.x2 = bc_fetch(s, f->x2, r)) ||
                               (op->att.mask && !(io.b = bc_fetch(s, f->b, r)))))
        goto out;
    int conv_fused = BC_IS(op, BC_CONV_FUSED) || (BC_IS(op, BC_ENGINE) && op->fused);
    if (conv_fused && (!(io.b = bc_fetch(s, f->b, r)) || (op->residual && !(io.z = bc_fetch(s, f->z, r)))))
        goto out;
    if (BC_IS(op, BC_BNORM) && (!(io.scale = bc_fetch(s, f->scale, r)) || !(io.shift = bc_fetch(s, f->shift, r)) ||
                                !(io.mean = bc_fetch(s, f->mean, r)) || !(io.var = bc_fetch(s, f->var, r))))
        goto out;
    if (BC_IS(op, BC_RNN) && (!(io.hx = bc_fetch(s, f->hx, r)) || (f->cx && !(io.cx = bc_fetch(s, f->cx, r)))))
        goto out;
    if (gemm && op->beta_one && !(io.y0 = bc_fetch(s, f->y, r)))
        goto out;
#if BC_FAMILIES & BC_FAM_LT
    if (BC_IS(op, BC_LT) && bc_lt_has_bias(op->epilogue) && !(io.b = bc_fetch(s, f->b, r)))
        goto out;
#endif
    if ((st = bc_lib_launch(s, r)) != BH_OK)
        goto out;
    st = BH_ERROR;
    cudaError_t e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess) {
        bh_note(r, "--verify: the call failed: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        st = bc_cuda_status(e);
        goto out;
    }
    if (!(got = bc_fetch(s, f->y, r)) || (BC_IS(op, BC_RNN) && !(got_h = bc_fetch(s, f->hy, r))))
        goto out;
#if BC_FAMILIES & BC_FAM_RNN
    if (BC_IS(op, BC_RNN) && (st = bc_rnn_weights(s, f, op, io.w, &io, r)) != BH_OK)
        goto out;
#endif
    if ((op->nhwc && (br_nhwc_to_nchw(io.x, &op->x) || (io.w && br_nhwc_to_nchw(io.w, &op->w)) ||
                      br_nhwc_to_nchw(got, &op->y) || (io.z && br_nhwc_to_nchw(io.z, &op->y)))) ||
        (BC_IS(op, BC_RELAYOUT) && br_nhwc_to_nchw(op->mode == 1 ? io.x : got, op->mode == 1 ? &op->x : &op->y))) {
        bh_note(r, "--verify: out of host memory");
        st = BH_OOM;
        goto out;
    }
    bh_gpu_unlock();
    {
        /* an engine is held to the convolution's reference, with the transforms' tolerance
         * where its notes say FFT or Winograd */
        struct bc_lib_op vop = *op;
        if (BC_IS(op, BC_RELAYOUT))
            vop.family = BC_COPY; /* both in NCHW order now: equal, exactly */
        if (BC_IS(op, BC_ENGINE)) {
            vop.family = op->fused ? BC_CONV_FUSED : BC_CONV;
            vop.algo = f->be_transform ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        }
        struct br_check c = br_compare(&vop, &io, got, got_h);
        if (c.total == -2) {
            bh_note(r, "--verify: this file has no host reference for family %d (a gen bug)", vop.family);
            st = BH_ERROR;
        } else if (c.total < 0) {
            bh_note(r, "--verify: out of host memory for the reference");
            st = BH_OOM;
        } else if (c.bad) {
            bh_note(r,
                    "output differs from the host reference (double): %lld of %lld elements checked beyond the "
                    "tolerance, first at index %lld (got %.9g, want %.9g); max abs err %.3g, max rel err %.3g, worst "
                    "%.3g x the tolerance",
                    c.bad, c.checked, c.first_bad, c.first_got, c.first_want, c.max_abs, c.max_rel, c.worst_ratio);
            st = BH_WRONG;
        } else {
            bh_note(r, "verified against the host reference (double): %lld of %lld elements, max abs err %.3g, max rel "
                       "err %.3g, worst %.3g x the tolerance",
                    c.checked, c.total, c.max_abs, c.max_rel, c.worst_ratio);
            st = BH_OK;
        }
    }
out:
    bh_gpu_unlock();
    free(io.x);
    free(io.w);
    free(io.x2);
    free(io.b);
    free(io.z);
    free(io.y0);
    free(io.scale);
    free(io.shift);
    free(io.mean);
    free(io.var);
    free(io.hx);
    free(io.cx);
    free(got);
    free(got_h);
    return st;
}

static void bc_lib_teardown(struct bc_state *s)
{
    struct bc_lib_state *f = (struct bc_lib_state *)s->family;
    if (!f)
        return;
#if BC_FAMILIES & ~(BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT | BC_FAM_COPY)
    bc_dnn_teardown(f);
#endif
#if BC_FAMILIES & BC_FAM_LT
    bc_lt_teardown(f);
#endif
    if (f->dnn)
        cudnnDestroy(f->dnn);
    if (f->blas)
        cublasDestroy(f->blas);
    free(f);
    s->family = NULL;
}

#endif
