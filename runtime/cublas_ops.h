/* Library benchmarks on CUDA, part 2: the cuBLAS families (Gemm, MatMul, batched MatMul,
 * GEMV) and the dispatch every library benchmark calls (bc_lib_setup / _launch / _teardown).
 * Needs cudnn_ops.h before it; inlined into each generated library benchmark. */
#ifndef BENANZA_CUBLAS_OPS_H
#define BENANZA_CUBLAS_OPS_H

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
    return dt == BC_F16 ? CUDA_R_16F : dt == BC_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* What frameworks ask for: float accumulation; TF32 only when allowed; half without Tensor
 * Cores is the pedantic float compute (cuBLAS may not down-convert or use Tensor Cores). */
static cublasComputeType_t bc_blas_compute(const struct bc_lib_op *op)
{
    if (op->dt == BC_F32)
        return op->tensor_op ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    return op->tensor_op ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
}

static enum bh_status bc_blas_setup(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                    struct bh_result *r)
{
    BC_BLAS(r, cublasSetStream(f->blas, s->stream));
    /* a Tensor Core algorithm asks for Tensor Core math; the others for none */
    BC_BLAS(r, cublasSetMathMode(f->blas, op->tensor_op ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH));
    long long batches = op->batch_count > 0 ? op->batch_count : 1;
    long long na = op->stride_a ? op->stride_a * batches : op->m * op->k;
    long long nb = op->stride_b ? op->stride_b * batches : op->k * op->n;
    long long nc = op->m * op->n * batches;
    enum bh_status st;
    if ((st = bc_buffer(s, r, na, op->dt, BC_FILL_UNIFORM, 0, &f->x)) != BH_OK ||
        (st = bc_buffer(s, r, nb, op->dt, BC_FILL_UNIFORM, 0, &f->w)) != BH_OK ||
        (st = bc_buffer(s, r, nc, op->dt, op->beta_one ? BC_FILL_UNIFORM : BC_FILL_ZERO, 0, &f->y)) != BH_OK)
        return st;
    return BH_OK;
}

/* Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T = B^T A^T: cuBLAS gets (n, m, k) with
 * B first. */
static enum bh_status bc_blas_launch(struct bc_state *s, struct bc_lib_state *f, const struct bc_lib_op *op,
                                     struct bh_result *r)
{
    (void)s;
    const float one = 1.0f, beta = op->beta_one ? 1.0f : 0.0f;
    cublasOperation_t opb = op->tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = op->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)op->n, n = (int)op->m, k = (int)op->k;
    int ldb = op->tb ? (int)op->k : (int)op->n, lda = op->ta ? (int)op->m : (int)op->k, ldc = (int)op->n;
    cudaDataType_t t = bc_blas_type(op->dt);
    if (op->family == BC_GEMV) {
        /* y[m] = A[m,k] x[k]: column-major A^T is [k,m], so y = (A^T)^T x */
        if (op->n == 1)
            BC_BLAS(r, cublasSgemv(f->blas, CUBLAS_OP_T, (int)op->k, (int)op->m, &one, (const float *)f->x,
                                   (int)op->k, (const float *)f->w, 1, &beta, (float *)f->y, 1));
        else /* y[n] = x[k] B[k,n]: column-major B^T is [n,k] with ld n */
            BC_BLAS(r, cublasSgemv(f->blas, CUBLAS_OP_N, (int)op->n, (int)op->k, &one, (const float *)f->w,
                                   (int)op->n, (const float *)f->x, 1, &beta, (float *)f->y, 1));
        return BH_OK;
    }
    if (op->batch_count > 1)
        BC_BLAS(r, cublasGemmStridedBatchedEx(f->blas, opb, opa, m, n, k, &one, f->w, t, ldb, op->stride_b, f->x, t,
                                              lda, op->stride_a, &beta, f->y, t, ldc, op->stride_c,
                                              (int)op->batch_count, bc_blas_compute(op), (cublasGemmAlgo_t)op->algo));
    else
        BC_BLAS(r, cublasGemmEx(f->blas, opb, opa, m, n, k, &one, f->w, t, ldb, f->x, t, lda, &beta, f->y, t, ldc,
                                bc_blas_compute(op), (cublasGemmAlgo_t)op->algo));
    return BH_OK;
}

/* ---- the dispatch of every library benchmark ---- */

static enum bh_status bc_lib_setup(struct bc_state *s, struct bh_result *r)
{
    const struct bc_lib_op *op = (const struct bc_lib_op *)s->op;
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
    if (op->family == BC_GEMM || op->family == BC_GEMV) {
        BC_BLAS(r, cublasCreate(&f->blas));
        return bc_blas_setup(s, f, op, r);
    }
    BC_DNN(r, cudnnCreate(&f->dnn));
    BC_DNN(r, cudnnSetStream(f->dnn, s->stream));
    return bc_dnn_setup(s, f, op, r);
}

static enum bh_status bc_lib_launch(struct bc_state *s, struct bh_result *r)
{
    const struct bc_lib_op *op = (const struct bc_lib_op *)s->op;
    struct bc_lib_state *f = (struct bc_lib_state *)s->family;
    if (op->family == BC_GEMM || op->family == BC_GEMV)
        return bc_blas_launch(s, f, op, r);
    return bc_dnn_launch(s, f, op, r);
}

static void bc_lib_teardown(struct bc_state *s)
{
    struct bc_lib_state *f = (struct bc_lib_state *)s->family;
    if (!f)
        return;
    bc_dnn_teardown(f);
    if (f->dnn)
        cudnnDestroy(f->dnn);
    if (f->blas)
        cublasDestroy(f->blas);
    free(f);
    s->family = NULL;
}

#endif
