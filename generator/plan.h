/* What each backend benchmarks for a layer: the plans an operator's hooks fill from its layer
 * description (generator/ops/), and the helpers those hooks share. The backends (emit_*.c)
 * only render plans; they know no operator. */
#ifndef BENANZA_PLAN_H
#define BENANZA_PLAN_H

#include "../runtime/dnnl_ops.h"
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/plain_index.h"
#include "../runtime/plain_reduce.h"
#include "../runtime/plain_quant.h"
#include "../runtime/plain_sample.h"
#include "../runtime/plain_linalg.h"
#include "../runtime/plain_signal.h"
#include "../runtime/plain_string.h"
#include "../runtime/plain_nn.h"
#include "../runtime/plain_random.h"
#include "../runtime/plain_select.h"
#include "../runtime/plain_rnn.h"
#include "desc.h"

/* ---- oneDNN (the CPU backend) ---- */

struct cpu_plan {
    int layouts;            /* 1, or BD_LAYOUT_COUNT for 4-D ops that run between convolutions */
    struct bd_op op;
    int algs[2];            /* algorithm kinds to enumerate (conv: direct and winograd) */
    int n_algs;
    struct { const char *arg; int output, fill; } args[BD_MAX_CAT + 1];
    int nargs;
    double flops, bytes;    /* per run, f32 bytes (scaled by the type later) */
    int quant;              /* an int8 plan: one type, op.qsrc's */
    int secondary;          /* not the primitive a framework asks oneDNN for (a Gemm as matmul:
                               frameworks take the inner product), so not the library's choice */
    int b_const;            /* a matmul whose weights are a constant 2-D B [k, n] stored so: it is
                               also benchmarked with B stored [n, k] (nk) */
    int nk;                 /* that variant: the file's PRIM is -matmul_nk */
};

void plan_arg(struct cpu_plan *p, const char *name, int output, int fill);
/* the start most oneDNN plans share: the plan cleared, op.src and op.dst from input 0 and
 * output 0, one algorithm and the bytes they move (f32); -1 when either is not oneDNN's */
int plan_dnnl_start(const struct layer_desc *d, struct cpu_plan *p);
/* the tensor (rank 0 to 8) as oneDNN's; -1 when it is absent or has more dims */
int plan_bd_tensor(const struct desc_tensor *t, struct bd_tensor *out);
int64_t plan_bd_count(const struct bd_tensor *t);
/* oneDNN's int8 type of an ONNX element type (u8, s8, s32), else 0 */
dnnl_data_type_t plan_bd_quant(const struct desc_tensor *t);
/* [d0..dn] -> [prod(d0..axis-1), prod(axis..dn)] */
void plan_bd_flatten(struct bd_tensor *t, int axis);

/* ---- plain C (runtime/plain_*.h; the CPU backend where oneDNN has nothing, and the base of
 * the CUDA kernels of ours) ---- */

/* the tensor as runtime/plain_ops.h's (any element type it has); -1 when it is not one */
int plan_pl_tensor(const struct desc_tensor *t, struct pl_tensor *out);
bool plan_pl_same(const struct pl_tensor *a, const struct pl_tensor *b);
/* a list attribute's first n values into out, dflt past its end */
void plan_ints(const struct desc_ints *l, int64_t *out, int n, int64_t dflt);
void plan_int32s(const struct desc_ints *l, int *out, int n, int dflt); /* the same as int, clamped */
/* a possibly negative axis of a rank-RANK tensor, or -1 out of range */
int plan_axis(int64_t axis, int rank);
/* The plain op every plain hook starts from: KIND and FN, the output and NIN inputs (< 0: the
 * kind's own count), each of a plain type; tensors of strings only for the string kinds (a
 * cast with a string on one side becomes PL_STR_CAST) and TfIdfVectorizer. 0, or -1. */
int plan_pl_start(const struct layer_desc *d, int kind, int fn, int nin, struct pl_op *op);
/* runtime/plain_ops.h's enum names of a kind, a function, an element type; a tensor as the C
 * initializer {PL_FLOAT, 2, {3, 4}} */
const char *plan_pl_kind_name(int kind);
const char *plan_pl_fn_name(int fn);
/* enum pl_coord's and enum pl_nearest's names (Resize's coordinate transformation and rounding) */
const char *plan_pl_coord_name(int coord);
const char *plan_pl_nearest_name(int nearest);
const char *plan_pl_dtype_name(int dtype);
void plan_pl_tensor_init(struct bz_buf *b, const struct pl_tensor *t);
/* the string kinds' parameters (generator/ops/text.c), after plan_pl_start */
int plan_pl_string(const struct layer_desc *d, struct pl_op *op);
/* oneDNN's eltwise algorithm for an activation layer, with its alpha and beta (0: oneDNN has
 * none; generator/ops/elementwise.c): for the activation layers and fused post-ops */
int plan_eltwise_dnnl(const struct layer_desc *d, float *alpha, float *beta);
/* runtime/plain_ops.h's kind of an operator table line that has none */
#define PLAN_NO_PL (-1)

/* ---- CUDA: cuDNN and cuBLAS ---- */

enum cu_family {
    CU_CONV, CU_CONV_FUSED, CU_ADVICE, CU_DECONV, CU_POOL, CU_ACT, CU_SOFTMAX, CU_BNORM, CU_LRN, CU_OPTENSOR,
    CU_REDUCE, CU_RNN, CU_GEMM, CU_GEMV, CU_COPY, CU_LT, CU_ENGINE, CU_RELAYOUT, CU_SDPA, CU_FAMILY_COUNT
};
/* its name in runtime/cudnn_ops.h (BC_CONV, ...) */
const char *cu_family_name(enum cu_family f);

/* the data types: storage type x math mode */
enum { CU_F32, CU_TF32, CU_F16, CU_F16TC, CU_BF16, CU_F8, CU_NTYPES };
/* every type but fp8 (f8: e4m3 operands, bfloat16 output; cuBLASLt's GEMMs only) */
#define CU_ALL_TYPES ((1u << CU_F8) - 1)
#define CU_PLAIN_TYPES ((1u << CU_F32) | (1u << CU_F16) | (1u << CU_BF16))
#define CU_RNN_TYPES ((1u << CU_F32) | (1u << CU_F16) | (1u << CU_F16TC))
/* cuBLASLt: f32, TF32, the 16-bit types and fp8 on Tensor Cores */
#define CU_LT_TYPES ((1u << CU_F32) | (1u << CU_TF32) | (1u << CU_F16TC) | (1u << CU_BF16) | (1u << CU_F8))

struct cu_tensor {
    int nd;
    int64_t d[8];
};

struct cu_algo {
    const char *name;   /* the algorithm in file names and the impl column */
    const char *value;  /* its enum name in the library */
    unsigned types;     /* the types it exists in (0: the family's) */
};

struct cu_plan {
    enum cu_family family;
    const char *what;           /* the library call, for the header comment */
    struct cu_tensor x, w, y, x2;
    int nsp, groups;
    int pad[3], stride[3], dil[3], win[3];
    const char *mode;           /* an enum name, or NULL */
    const char *act;
    int residual;
    double coef, alpha, beta, eps;
    int lrn_n;
    int bidir, seq, batch, input, hidden;
    int64_t m, n, k, batch_count, stride_a, stride_b, stride_c;
    int ta, tb, beta_one;
    /* a GEMM that reads and writes its operands in place (an attention group's parts): leading
     * dims and buffer sizes in elements (0: packed, as m, n, k and the batch say), alpha (0: 1) */
    int64_t lda, ldb, ldc, a_elems, b_elems, c_elems;
    double gemm_alpha;
    unsigned types;             /* CU_*_TYPES */
    const struct cu_algo *algos;
    int nalgos;
    bool advice;                /* also the two advice benchmarks (convolutions) */
    bool gemv;                  /* also cublasSgemv (f32, one side a vector) */
    bool lt;                    /* also cublasLtMatmul, the heuristic's first --lt-top-k answers */
    bool b_const;               /* B [k, n] is a constant (a weight): cuBLASLt also takes it
                                   stored [n, k], K-major, the layout frameworks keep a linear
                                   layer's weight in (the ltnk files) */
    unsigned nhwc_types;        /* also channels-last in these types (CU_*): a convolution in every
                                   type, the implicit GEMM algorithms (what frameworks run with
                                   channels_last), a ConvTranspose its algorithms 0 and 1;
                                   pooling, batch norm and a softmax over the channels in all
                                   theirs */
    bool nhwc;                  /* this benchmark's tensors channels-last */
    bool engines;               /* a convolution: also the backend API's engine configurations
                                   (each heuristic mode's first --top-k, in every type and layout);
                                   a fused one as its graph conv -> + bias [-> + z] [-> relu] */
    bool engine_fused;          /* this benchmark is such a graph */
    const char *epilogue;       /* its cublasLtEpilogue_t (NULL: none) */
    const struct desc_attention *att; /* CU_SDPA: the attention group */
    double flops, elems;        /* elements moved (bytes = elems x type size) */
    char notes[4][160];         /* for the header comment */
    int nnotes;
};

/* Convolution and pooling windows: cuDNN pads both sides alike. Asymmetric padding (and
 * ceil_mode) is run the way ONNX Runtime runs it: the input padded explicitly to the size that
 * gives the layer's output with the smaller pad on both sides. */
void plan_cu_window(struct cu_plan *p, const int *pads, const int *kernel);
/* 1-D convolution and pooling as 2-D with a height of 1 (cuDNN wants at least 2 spatial dims) */
void plan_cu_lift_1d(struct cu_plan *p, bool weights);
/* the tensor with cuDNN's int dims; -1 when absent, of more than 8 dims or too large */
int plan_cu_tensor(const struct desc_tensor *t, struct cu_tensor *out);
int64_t plan_cu_count(const struct cu_tensor *t);
void plan_cu_note(struct cu_plan *p, const char *fmt, ...) BZ_PRINTF(2, 3);
/* the plan every single-call family starts from: one algorithm ("cudnn"), f32, f16, bf16 */
void plan_cu_single(struct cu_plan *p);

/* ---- CUDA: kernels of ours (runtime/cuda_kernels.cuh) ---- */

enum cu_kernel_kind { CK_PLAIN, CK_TRANSPOSE, CK_CONCAT, CK_LAYERNORM, CK_RESIZE, CK_EMPTY, CK_ATTENTION, CK_BATCHNORM };

struct cu_kernel {
    enum cu_kernel_kind kind;
    const char *what;
    struct pl_op pl;
    int perm[8];
    int axis, ncat, affine, linear;
    int residual;               /* CK_LAYERNORM: 1, a tensor like the input added first (its
                                   input 3); 2, and a bias of the last dim too (input 4) */
    int keep_sum;               /* CK_LAYERNORM with a residual: the sum is written out too */
    int rms;                    /* CK_LAYERNORM as RMSNorm (no mean, no shift, no residual) */
    int nhwc;                   /* CK_RESIZE, CK_BATCHNORM: channels-last (file LAYER-TYPE-nhwc_kernel) */
    struct pl_tensor cat[64];
    double eps, flops, bytes;
    const struct desc_attention *att; /* CK_ATTENTION: benchmarked in f32, f16 and bf16 */
    int tf32;                   /* CK_ATTENTION in f32 on TF32 Tensor Cores: the tf32 file */
    int split;                  /* CK_ATTENTION by bk_attention_split (file LAYER-TYPE-kernel_split) */
};

/* f32 tensors only (the kernels' float type) */
int plan_ck_tensor(const struct desc_tensor *t, struct pl_tensor *out);
/* the same for f32, f16 and bf16 tensors, in their own type (a group whose ends are 16-bit) */
int plan_ck_tensor_float(const struct desc_tensor *t, struct pl_tensor *out);
double plan_pl_bytes(const struct pl_tensor *t);
/* the operations per output element of a gated linear unit's PL_GLU function: silu(g) u 5
 * (as a SiLU's 4 and the product), gelu(g) u 9 (as a GELU group's 8 and the product) */
double plan_glu_flops(int fn);
/* the bytes of input I an operation reads: all of it, but for the gathers and the maps (Slice,
 * Pad, Tile) of input 0 at most as many elements as the output has (a Gather of 128 rows of a
 * 30522-row table reads 128 rows) */
double plan_pl_read_bytes(const struct pl_op *op, int i);
/* a kernel's bytes (its output and what it reads) and, unless set, a flop per output element */
void plan_ck_finish(struct cu_kernel *k);

/* ---- an operator's hooks: one per backend, each 0 with its plan filled, or -1 (the layer is
 * not benchmarked that way) ---- */

enum plan_flags {
    PLAN_PLAIN_TOO = 1u << 0,  /* the plain C benchmark beside oneDNN's (Resize: oneDNN's own
                                  coordinates are not every ONNX mode's; Concat: a row copy,
                                  as ONNX Runtime's, beats oneDNN's on some shapes; Softmax:
                                  rows of a few elements; PRelu: oneDNN's reference
                                  implementation on small tensors; LSTM, GRU, RNN: oneDNN's
                                  reference GRU, and every ONNX form; ConvTranspose: oneDNN's
                                  deconvolution of a stride that is the kernel, few channels) */
    PLAN_KERNEL_TOO = 1u << 1, /* a kernel of ours beside cuDNN's (binary ops: cuDNN accepts
                                  fewer broadcasts) */
    PLAN_DNNL_INT8 = 1u << 2,  /* the oneDNN hook takes int8 layers too (checks their types) */
    PLAN_BY_IDS = 1u << 3,     /* a table family: an operator has a backend where its table line
                                  names it (op_ids: dnnl, pl_kind, cudnn) */
    PLAN_PLAIN_TYPES = 1u << 4, /* with PLAN_PLAIN_TOO, the plain C benchmark in the other types
                                   oneDNN's are in too (an f32 layer's bf16 and f16, a 16-bit
                                   model's f32): a copy, Concat; Softmax and PRelu, which
                                   oneDNN takes in no 16-bit type on a CPU without AVX-512 */
    PLAN_PLAIN_SCALAR = 1u << 5, /* the plain C benchmark beside oneDNN's where an input is a single
                                    value (a binary op of a scalar: oneDNN 2.6 broadcasts one
                                    slowly on small tensors) */
};

struct op_plans {
    /* oneDNN: WHICH 0, the layer's primitive; 1, a second one (a Gemm as inner product) */
    int (*dnnl)(const struct layer_desc *d, int which, struct cpu_plan *p);
    int (*plain)(const struct layer_desc *d, struct pl_op *op);
    int (*cudnn)(const struct layer_desc *d, struct cu_plan *p);
    int (*kernel)(const struct layer_desc *d, struct cu_kernel *k);
    /* where no backend takes a layer an operator could take: 0 with why (a warning), else -1 */
    int (*why_not)(const struct layer_desc *d, char *why, size_t why_len);
    unsigned flags;
    /* how each (oneDNN, plain C, cuDNN/cuBLAS, kernels of ours) benchmarks it, for gen --ops */
    const char *how[4];
};

/* the hooks of an operator that only plain C benchmarks (and a kernel of ours, where the
 * kernels have its plain C operation: plan_kernel): NAME's plain hook FN, and how, for gen --ops */
#define PLAIN_PLANS(name, fn, how_plain) \
    static const struct op_plans name = {.plain = fn, .how = {NULL, how_plain, NULL, NULL}}

/* how each backend benchmarks an operator (gen --ops): HOW[i] of op_plans or NULL */
void plan_how(const struct op_def *d, const char *how[4]);

struct rx_result;
/* RegexFullMatch's pattern translated by re2posix.c into rx (to be freed with rx_free whatever
 * the outcome); 0, or -1 with the reason in why */
int plan_regex(const struct layer_desc *d, struct rx_result *rx, char *why, size_t why_len);

/* the oneDNN plans other families build on: a convolution (generator/ops/conv.c), a Gemm or
 * MatMul as matmul or inner product (linalg.c), a key's zero point (quant.c) */
int plan_conv_dnnl(const struct layer_desc *d, bool transposed, struct cpu_plan *p);
int plan_matmul_dnnl(const struct layer_desc *d, bool gemm, bool ip, struct cpu_plan *p);
int plan_zero_point(const struct layer_desc *d, enum desc_attr id, int64_t value, dnnl_data_type_t dt);

/* the element type a layer computes in: its first output's (a fusion group's: float) */
int plan_layer_dtype(const struct layer_desc *d);

/* the hooks of a layer: its operator's, or a fusion group's (generator/fusion.c); or NULL */
const struct op_plans *plan_hooks(const struct layer_desc *d);

#endif
