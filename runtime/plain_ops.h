/* Plain C benchmarks for the operators oneDNN does not have: element-wise maths, broadcasting
 * binary ops and comparisons, Where, Cast, Expand, Gather, Slice/Pad/Tile, ScatterND, Split,
 * ArgMax/ArgMin, TopK here; index and scan operators in plain_index.h, reductions in
 * plain_reduce.h, quantization in plain_quant.h, Resize and GridSample in plain_sample.h,
 * Einsum and Det in plain_linalg.h, the signal operators in plain_signal.h, RoiAlign, MaxUnpool
 * and the losses in plain_nn.h, the random generators in plain_random.h, NonZero, Compress and
 * NonMaxSuppression in plain_select.h, LSTM, GRU and RNN in plain_rnn.h (inlined after this
 * one: the kinds they handle are declared here). Inlined into generated files with harness.h;
 * libc (with POSIX threads) and libm only. The timed kernel walks the output
 * with an odometer (and a flat loop when no input broadcasts); --verify recomputes every
 * element independently (from its coordinates, or for TopK by a full sort of each slice) and
 * compares. */
#ifndef BENANZA_PLAIN_OPS_H
#define BENANZA_PLAIN_OPS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif
#include <stdlib.h>
#include <string.h>

/* The kernel families past the core (this header), each in a header of its own. A generated
 * benchmark defines PL_FAMILIES as the families its layer needs (pl_families: one, or two for
 * TfIdfVectorizer of strings) and holds those headers alone: the dispatch below names no
 * other family's code, so the file compiles its own kernel only.
 * Without it (the oracle's driver, gen itself), every family is in. */
#define PL_FAM_INDEX 0x1u
#define PL_FAM_REDUCE 0x2u
#define PL_FAM_QUANT 0x4u
#define PL_FAM_SAMPLE 0x8u
#define PL_FAM_LINALG 0x10u
#define PL_FAM_SIGNAL 0x20u
#define PL_FAM_NN 0x40u
#define PL_FAM_RANDOM 0x80u
#define PL_FAM_SELECT 0x100u
#define PL_FAM_STRING 0x200u
#define PL_FAM_RNN 0x400u
#ifndef PL_FAMILIES
#define PL_FAMILIES 0x7ffu
#endif

/* A generated benchmark holds one operation and defines PL_KIND as its kind: every test of an
 * operation's kind below is then a constant, and the compiler drops the other kinds' code
 * before it optimises (a plain C benchmark builds at -O2 in about a third of the time).
 * pl_setup (and a CUDA kernel's bk_setup) refuses an operation of another kind:
 * pl_kind_compiled. Without it (the oracles' driver, gen itself) the kind is the operation's
 * own. */
#ifdef PL_KIND
#define PL_KIND_OF(op) ((void)(op), PL_KIND)
#else
#define PL_KIND_OF(op) ((op)->kind)
#endif

enum pl_kind {
    PL_UNARY, PL_BINARY, PL_WHERE, PL_CAST, PL_EXPAND, PL_GATHER, PL_MAP,
    /* in[0] data, in[1] int64 indices [..., q], in[2] updates; out = data with the updates'
     * slices written where the index rows say */
    PL_SCATTER_ND,
    /* in[0] into nsplit pieces along axis; out holds the pieces one after the other. flag 1,
     * the other way (Concat): in[0] holds the pieces one after the other (each in its own
     * shape), out is their concatenation along axis; in[0] and out have out's shape */
    PL_SPLIT,
    /* ArgMax (fn PL_MAX) / ArgMin (fn PL_MIN) along axis into int64 out; flag: the last index
     * of equal extremes (select_last_index) */
    PL_ARG,
    /* the k largest (flag 1) or smallest along axis, best first, equal values by lower index:
     * out the values, a second int64 buffer the indices */
    PL_TOPK,
    /* plain_index.h: in[1] int64 indices; axis; ScatterElements in[2] updates, flag the
     * reduction (0 none, 1 add, 2 mul, 3 max, 4 min, as ScatterND's) */
    PL_GATHER_ELEMENTS, PL_SCATTER_ELEMENTS,
    PL_GATHER_ND,       /* in[1] int64 index rows [..., q]; k: batch_dims */
    PL_CUMSUM,          /* along axis; flag 1 exclusive, 2 reverse */
    PL_TRILU,           /* the last two dims; k the diagonal; flag 1 upper */
    PL_ONEHOT,          /* in[0] indices, in[1] depth, in[2] (off, on); axis in the output */
    PL_REVERSE_SEQUENCE,/* in[1] int64 lengths; axis the time axis, k the batch axis */
    PL_EYELIKE,         /* the 2-D output only; k the diagonal */
    PL_RANGE,           /* in[0..2] scalars start, limit, delta */
    /* plain_reduce.h: axes the reduced dims (bit k: input dim k); fn the reduction */
    PL_REDUCE,
    PL_MVN,             /* (x - mean) / (std + 1e-9) over axes */
    PL_HARDMAX,         /* 1 at each row's first largest along axis (flag: the 2-D view) */
    /* plain_quant.h: in[1] the scale, in[2] the zero point (if nin is 3), per tensor or along
     * axis; DynamicQuantizeLinear's y only (its scale and zero point are computed inside) */
    PL_QUANTIZE, PL_DEQUANTIZE, PL_DYNQUANT,
    /* plain_sample.h: Resize/Upsample in every ONNX mode (in[0] only: the scales, roi and
     * modes are in op->rs); GridSample (in[1] the grid) */
    PL_RESIZE, PL_GRID_SAMPLE,
    /* plain_linalg.h: Einsum of up to PL_MAX_IN operands (op->es: the labels of every dim) */
    PL_EINSUM,
    /* plain_signal.h (op->sg): DFT along axis (in[0] [..., 1 or 2], the last dim real or
     * (re, im)); STFT (in[0] the signal [batch, length, 1 or 2], in[1] the window if nin is 2);
     * the windows (no input: the size is the output's) */
    PL_DFT, PL_STFT, PL_WINDOW,
    /* plain_linalg.h: the determinant of each matrix of in[0] [..., M, M] */
    PL_DET,
    /* plain_nn.h (op->nn): RoiAlign (in[0] the map [N, C, H, W], in[1] the regions [R, 4],
     * in[2] their images); MaxUnpool (in[1] MaxPool's flat indices into the unpooled shape);
     * the losses (in[1] the int64 targets, in[2] the class weights if nin is 3; flag 1: of
     * log_softmax, SoftmaxCrossEntropyLoss) */
    PL_ROI_ALIGN, PL_MAX_UNPOOL, PL_LOSS,
    /* plain_random.h: flag the distribution (uniform in [alpha, beta), normal of mean alpha
     * and scale beta, Bernoulli of in[0], Multinomial of in[0]'s log-probabilities); k the seed */
    PL_RANDOM,
    /* plain_select.h, outputs whose size depends on the data (op->out the largest; the kernel
     * sets s->selected): NonZero; Compress (in[1] the bool condition; axis -1: flattened);
     * NonMaxSuppression (in[0] boxes, in[1] scores; k the boxes per class, alpha the IoU
     * threshold, beta the score threshold if nn.has_score, flag center_point_box); Unique
     * (axis -1: flattened; flag sorted; out the unique slices, aux their first indices, the
     * inverse and the counts, each as long as the slices) */
    PL_NONZERO, PL_COMPRESS, PL_NMS, PL_UNIQUE,
    /* plain_nn.h: a training optimizer (flag 0 Adagrad, 1 Momentum, 2 Adam): in[0] R, in[1]
     * T (scalars), then X, G and the states (H; V; V and H), each the n tensors one after the
     * other; out the new X, then the new states, the same way */
    PL_OPTIMIZER,
    /* plain_nn.h: TfIdfVectorizer of an integer pool (in[0] [N] or [B, N] int64; op->nn the
     * pool, its n-gram counts and output indexes, the weights, the gram lengths and skips) */
    PL_TFIDF,
    /* plain_string.h (op->str), tensors of strings (char *, each NUL-terminated): Cast and
     * CastLike with a string on one side (numbers written as ONNX Runtime prints them, read by
     * strtod/strtoll); StringNormalizer (in[0] [C] or [1, C]; the out the largest: s->selected
     * the strings kept); StringConcat (in[0] and in[1] broadcast); StringSplit (out [..., the
     * most parts an element can have]: s->selected the elements of [..., the most it has],
     * s->aux each element's count); RegexFullMatch (op->str.regex, bool out) */
    PL_STR_CAST, PL_STR_NORMALIZE, PL_STR_CONCAT, PL_STR_SPLIT, PL_STR_REGEX,
    /* rotary position embedding by halves of the last dim (a fusion group's): in[1] cos and
     * in[2] sin broadcast to in[0] x, out = x cos + rotate_half(x) sin, with rotate_half(x) =
     * (-x2, x1) for x's halves x1, x2 (element-wise but for that one read of the other half);
     * flag 1, by pairs (GPT-J's rotate_every_two, RotaryEmbedding interleaved): x cos +
     * rotate_pairs(x) sin, rotate_pairs(x)[2i] = -x[2i + 1], rotate_pairs(x)[2i + 1] = x[2i] */
    PL_ROPE,
    /* plain_reduce.h: Softmax along axis (flag bit 0: over the 2-D view before opset 13, as
     * PL_HARDMAX's; bit 1: LogSoftmax) */
    PL_SOFTMAX,
    /* plain_rnn.h (op->rnn), float: LSTM, GRU, RNN; in[0..7] ONNX's inputs (one not given has no
     * elements), out Y, Y_h and Y_c one after the other */
    PL_RNN,
    /* plain_nn.h, float: a 2-D ConvTranspose whose stride is its kernel (op->nn.kernel; no pads,
     * no dilation, one group): each input pixel's kernel-sized tile of the output, no two
     * overlapping. in[0] x [N, IC, H, W], in[1] w [IC, OC, KH, KW], in[2] the bias [OC] if nin is
     * 3; out [N, OC, H KH, W KW] */
    PL_DECONV_TILES
};

/* PL_MAP: every output element reads one input element (or writes a constant): per dim, input
 * coordinate = start + step * output coordinate (Slice), output - pad (Pad: outside the input,
 * flag 0 writes the constant alpha, 1 reflects once about the edge elements, 2 repeats the
 * edge element, 3 wraps around), or output mod the input dim (Tile). */
enum pl_map { PL_MAP_SLICE, PL_MAP_PAD, PL_MAP_TILE };

/* Unary functions of one input and the parameter PL_ALPHA, one line each: their name and their
 * value at a, written once for the host (in double: PLM(exp) is exp, PLC(0.5) is 0.5) and the CUDA
 * kernels (in float: PLM(exp) is expf, PLC(0.5) is 0.5f). A new one is a line here (and its
 * operator's line in gen's table). PL_POWS: a Pow whose exponent is a constant scalar (the
 * squares and cubes by products, as frameworks run them). PL_GELU_TANH: GELU's tanh
 * approximation (ONNX Gelu with approximate "tanh", ONNX Runtime's FastGelu). */
#define PL_UNARY_MATHS(X) \
    X(PL_SWISH, a / (1 + PLM(exp)(-PL_ALPHA * a))) \
    X(PL_POWS, PL_ALPHA == 2 ? a * a : PL_ALPHA == 3 ? a * a * a : PLM(pow)(a, PL_ALPHA)) \
    X(PL_GELU_TANH, PLC(0.5) * a * (1 + PLM(tanh)(PLC(0.7978845608028654) * (a + PLC(0.044715) * a * a * a))))

enum pl_fn {
    PL_ERF, PL_NEG, PL_ABS, PL_SQRT, PL_EXP, PL_LOG, PL_FLOOR, PL_CEIL, PL_ROUND, PL_SIGN, PL_SIN,
    PL_COS, PL_TAN, PL_TANH, PL_SIGMOID, PL_RECIPROCAL, PL_NOT, PL_HARDSIGMOID, PL_SELU, PL_SOFTSIGN,
    PL_SOFTPLUS, PL_ADD, PL_SUB, PL_MUL, PL_DIV, PL_POW, PL_MAX, PL_MIN, PL_MOD, PL_EQUAL, PL_LESS,
    PL_GREATER, PL_LESS_EQUAL, PL_GREATER_EQUAL, PL_AND, PL_OR, PL_XOR, PL_IDENTITY,
    /* for the CUDA kernels (oneDNN has these as primitives on the CPU) */
    PL_GELU, PL_PRELU, PL_HARDSWISH, PL_LEAKYRELU, PL_CLIP,
    /* a gated linear unit's gate (a fusion group's): SwiGLU's silu(a) b = a sigmoid(a) b, and
     * GeGLU's gelu(a) b, GELU by erf or by its tanh approximation (PL_GLU: these three) */
    PL_SILU_MUL, PL_GELU_MUL, PL_GELU_TANH_MUL,
    /* inverse and hyperbolic trigonometry, tests, and activations with parameters */
    PL_ASIN, PL_ACOS, PL_ATAN, PL_SINH, PL_COSH, PL_ASINH, PL_ACOSH, PL_ATANH, PL_ISINF, PL_ISNAN,
    PL_CELU, PL_SHRINK, PL_THRESHOLDED_RELU,
    /* unsigned integers: flag 0 shifts left, 1 right */
    PL_BITSHIFT,
    /* reductions (PL_REDUCE; PL_ADD, PL_MUL, PL_MAX, PL_MIN as well) */
    PL_MEAN, PL_LOGSUM, PL_LOGSUMEXP, PL_SUMSQUARE, PL_L1, PL_L2,
    /* the functions of PL_UNARY_MATHS (below), then the count */
#define PL_MATH_ENUM(fn, expr) fn,
    PL_UNARY_MATHS(PL_MATH_ENUM)
#undef PL_MATH_ENUM
    PL_FN_COUNT
};

/* element types, numbered as ONNX's */
enum {
    PL_FLOAT = 1, PL_UINT8 = 2, PL_INT8 = 3, PL_UINT16 = 4, PL_INT16 = 5, PL_INT32 = 6, PL_INT64 = 7, PL_STRING = 8, PL_BOOL = 9,
    PL_FLOAT16 = 10, PL_DOUBLE = 11, PL_UINT32 = 12, PL_UINT64 = 13, PL_BFLOAT16 = 16
};

/* Resize and GridSample's parameters (plain_sample.h) */
enum pl_sample_mode { PL_SAMPLE_NEAREST, PL_SAMPLE_LINEAR, PL_SAMPLE_CUBIC };
enum pl_coord {
    PL_COORD_HALF_PIXEL, PL_COORD_HALF_PIXEL_SYMMETRIC, PL_COORD_PYTORCH_HALF_PIXEL, PL_COORD_ALIGN_CORNERS,
    PL_COORD_ASYMMETRIC, PL_COORD_TF_CROP_AND_RESIZE
};
enum pl_nearest { PL_NEAREST_ROUND_PREFER_FLOOR, PL_NEAREST_ROUND_PREFER_CEIL, PL_NEAREST_FLOOR, PL_NEAREST_CEIL };
enum pl_padding { PL_PAD_ZEROS, PL_PAD_BORDER, PL_PAD_REFLECTION };
struct pl_sample {
    int mode;            /* enum pl_sample_mode */
    int coord;           /* Resize: enum pl_coord; GridSample: 1 when align_corners */
    int nearest;         /* Resize: enum pl_nearest; GridSample: enum pl_padding */
    int exclude_outside, antialias;
    double cubic_a, extrapolation;
    double scale[8];     /* Resize: per dim, as the coordinate transformation uses it */
    double roi[16];      /* tf_crop_and_resize: the starts of every dim, then the ends */
};

/* inputs of an op (an element-wise fold: Sum, Min, Max, Mean of up to eight); pieces of a
 * Split or Concat (PL_SPLIT) */
enum { PL_MAX_IN = 8, PL_MAX_PIECES = 32 };

/* Einsum (plain_linalg.h): labels numbered 0..nlab-1, the output's first in output order,
 * then the summed ones; lab[i][k] is the label of dim k of input i, lab[PL_MAX_IN] the
 * output's; a dim of size 1 under a larger label broadcasts (the ellipsis) */
enum { PL_EINSUM_LABELS = 24 };
struct pl_einsum {
    int nlab, nout;           /* labels, of which the first nout are the output's */
    int64_t size[PL_EINSUM_LABELS];
    signed char lab[PL_MAX_IN + 1][8];
};

/* the signal operators' parameters (plain_signal.h) */
struct pl_sg {
    int64_t length;  /* DFT: dft_length; STFT: frame_length */
    int64_t step;    /* STFT: frame_step */
    int inverse;     /* DFT: the inverse transform (scaled by 1/length) */
    int periodic;    /* window: periodic (N = size) or symmetric (N = size - 1) */
    int window;      /* 0 Hann, 1 Hamming, 2 Blackman */
};

/* RoiAlign's, MaxUnpool's and the losses' parameters (plain_nn.h) */
struct pl_nn {
    double scale;          /* RoiAlign: spatial_scale */
    int64_t sampling;      /* RoiAlign: samples per bin side (0: from the region's size) */
    int mode, half_pixel;  /* RoiAlign: 1 max (else avg); the half-pixel offset */
    int64_t kernel[6], stride[6], pad[6]; /* MaxUnpool: per spatial dim (pad: the begin) */
    int64_t inferred[8];   /* MaxUnpool: the unpooled shape the indices address */
    int same_shape;        /* MaxUnpool: the output is that shape */
    int reduction;         /* losses: 0 none, 1 sum, 2 mean */
    int has_ignore;        /* losses: ignore_index given */
    int64_t ignore;
    int log_prob;          /* SoftmaxCrossEntropyLoss: the log-probabilities are output too */
    int has_score;         /* NonMaxSuppression: a score threshold was given */
    double decay, epsilon, norm, norm_post; /* optimizers (alpha, beta in the op) */
    int nesterov;          /* Momentum: the Nesterov form */
    /* TfIdfVectorizer: the pool of n-grams (pool_int64s), where each size starts in it
     * (ngram_counts), each n-gram's output index (ngram_indexes), the weights; mode 0 TF,
     * 1 IDF, 2 TFIDF */
    const int64_t *pool, *gram_start, *gram_index;
    const float *weights;
    const char *const *pool_text; /* a pool of strings (pool_strings); pool[i] then numbers the
                                     distinct strings (the index of text i's first occurrence) */
    int64_t npool, nstart, nindex, nweights;
    int min_gram, max_gram, max_skip, tf_mode;
};

/* the string operators' parameters (plain_string.h) */
struct pl_str {
    int case_change;          /* StringNormalizer: 0 none, 1 lower, 2 upper (ASCII letters) */
    int sensitive;            /* StringNormalizer: stopwords matched case-sensitively */
    const char *const *stop;  /* StringNormalizer: the stopwords */
    int64_t nstop;
    const char *delim;        /* StringSplit: the delimiter (NULL: runs of whitespace) */
    int64_t maxsplit;         /* StringSplit: the most splits per element (-1: no limit) */
    const char *regex;        /* RegexFullMatch: the pattern as a POSIX ERE, anchored (gen's) */
    const char *const *samples; /* RegexFullMatch: strings that match it (gen's) */
    int64_t nsamples;
};

/* the activation functions of the recurrent layers (plain_rnn.h) */
enum pl_rnn_act {
    PL_ACT_RELU, PL_ACT_TANH, PL_ACT_SIGMOID, PL_ACT_AFFINE, PL_ACT_LEAKYRELU, PL_ACT_THRESHOLDEDRELU, PL_ACT_SCALEDTANH,
    PL_ACT_HARDSIGMOID, PL_ACT_ELU, PL_ACT_SOFTSIGN, PL_ACT_SOFTPLUS
};

/* a recurrent layer (plain_rnn.h): its sizes are its inputs' */
struct pl_rnn {
    int gates;                /* 4 LSTM (i, o, f, c), 3 GRU (z, r, h), 1 RNN */
    int reverse;              /* direction "reverse" (bidirectional: the second runs backwards) */
    int batch_first;          /* layout 1: X [N, T, C], Y [N, T, D, H], Y_h [N, D, H] */
    int lbr;                  /* GRU: linear_before_reset */
    int input_forget;         /* LSTM: f = 1 - i */
    int packed;               /* W and R are constants: transposed once, at set-up */
    unsigned has;             /* bit i: ONNX input i is given (3 B ... 7 P) */
    double clip;              /* the activations' inputs clipped to [-clip, clip] (0: not) */
    int act[6];               /* per direction, f (, g (, h)): enum pl_rnn_act */
    float alpha[6], beta[6];
};

struct pl_tensor {
    int dtype;
    int nd;
    int64_t d[8];
};

struct pl_op {
    enum pl_kind kind;
    enum pl_fn fn;
    int nin;
    struct pl_tensor in[PL_MAX_IN], out;
    int axis;                 /* Gather */
    float alpha, beta;        /* HardSigmoid, Selu */
    int map;                  /* PL_MAP: enum pl_map */
    int64_t start[8], step[8];/* PL_MAP: per output dim (Pad: start = -pad_begin, step 1) */
    int64_t k;                /* TopK */
    int flag;                 /* PL_ARG: select_last_index; PL_TOPK: largest; ScatterND: the
                                 reduction (as PL_SCATTER_ELEMENTS'); Mod: fmod; Mean
                                 (PL_BINARY, fn PL_ADD, over nin inputs): divide by nin;
                                 IsInf: 1 detect_positive, 2 detect_negative; BitShift: 1 right;
                                 PL_ROPE: 1 by pairs; a PL_GLU function of one input:
                                 pl_halves */
    int nsplit;               /* PL_SPLIT: pieces and their sizes along axis */
    int64_t split[PL_MAX_PIECES];
    unsigned axes;            /* PL_REDUCE, PL_MVN: bit k set when input dim k is reduced */
    struct pl_sample rs;      /* PL_RESIZE, PL_GRID_SAMPLE */
    struct pl_einsum es;      /* PL_EINSUM */
    struct pl_sg sg;          /* PL_DFT, PL_STFT, PL_WINDOW */
    struct pl_nn nn;          /* PL_ROI_ALIGN, PL_MAX_UNPOOL, PL_LOSS, PL_NMS, PL_OPTIMIZER */
    struct pl_str str;        /* PL_STR_NORMALIZE, PL_STR_SPLIT, PL_STR_REGEX */
    struct pl_rnn rnn;        /* PL_RNN */
};

/* whether this file's code is compiled for OP's kind (always, without PL_KIND) */
static inline int pl_kind_compiled(const struct pl_op *op)
{
    return PL_KIND_OF(op) == op->kind;
}

/* whether a power by the constant E is defined for positive inputs only: a fraction, or a
 * negative number, whose result at 0 is infinite (gen's pow_dnnl fills oneDNN's input by it) */
static inline int pl_pow_positive(float e)
{
    return e < 0 || e != floorf(e);
}

/* a unary function defined for positive inputs only (Log, Sqrt, pl_pow_positive's powers): the
 * benchmarks fill its input with positive numbers, [1, 16) in an integer type */
static inline int pl_positive_domain(const struct pl_op *op)
{
    return PL_KIND_OF(op) == PL_UNARY &&
           (op->fn == PL_LOG || op->fn == PL_SQRT || (op->fn == PL_POWS && pl_pow_positive(op->alpha)));
}

/* the element-wise kinds: every input broadcasts against the output */
static inline int pl_elementwise(const struct pl_op *op)
{
    return PL_KIND_OF(op) <= PL_EXPAND || PL_KIND_OF(op) == PL_ROPE;
}

/* a gated linear unit's function: act(a) b */
#define PL_GLU(fn) ((fn) == PL_SILU_MUL || (fn) == PL_GELU_MUL || (fn) == PL_GELU_TANH_MUL)

/* PL_BINARY of a PL_GLU function and one input (a swiglu or geglu group that holds the Split
 * of one projection into the gate and the up halves, as vLLM's silu_and_mul and gelu_and_mul
 * read it): in[0] is [..., 2C], out [..., C]; the operands are in[0]'s two halves along the
 * last dim, the gate the first (flag 1) or the second (flag 2). Returns the flag, 0 for any
 * other op */
static inline int pl_halves(const struct pl_op *op)
{
    return PL_KIND_OF(op) == PL_BINARY && PL_GLU(op->fn) && op->nin == 1 ? op->flag : 0;
}

/* the operands an element-wise op walks: its inputs, or a pl_halves op's two halves */
static inline int pl_operands(const struct pl_op *op)
{
    return pl_halves(op) ? 2 : op->nin;
}

/* a pl_halves op's operands: the offsets (in elements) of the gate and of the up half in
 * in[0] (0 and 0 for another op) */
static inline void pl_halves_at(const struct pl_op *op, int64_t *gate, int64_t *up)
{
    int h = pl_halves(op);
    int64_t c = h ? op->out.d[op->out.nd - 1] : 0;
    *gate = h == 2 ? c : 0;
    *up = h == 1 ? c : 0;
}

/* a pl_halves op's up half is read at in[0]'s strides against the output (ST[0]): copied to
 * ST[1], the second operand's (nothing for another op) */
static inline void pl_halves_strides(const struct pl_op *op, int64_t st[][8])
{
    if (pl_halves(op))
        memcpy(st[1], st[0], sizeof(st[0]));
}

/* dims before axis, the axis, dims after it, of tensor t */
static inline void pl_axis_split(const struct pl_tensor *t, int axis, int64_t *outer, int64_t *dim, int64_t *inner)
{
    *outer = *inner = 1;
    for (int k = 0; k < axis; k++)
        *outer *= t->d[k];
    for (int k = axis + 1; k < t->nd; k++)
        *inner *= t->d[k];
    *dim = t->d[axis];
}

/* The input coordinate an output coordinate reads in dim k, or -1 outside (Pad). */
static inline int64_t pl_map_coord(const struct pl_op *op, int k, int64_t out)
{
    int64_t d = op->in[0].d[k];
    if (op->map == PL_MAP_TILE)
        return out % d;
    int64_t c = op->start[k] + op->step[k] * out;
    if (op->map == PL_MAP_PAD && op->flag && (c < 0 || c >= d)) {
        if (op->flag == 1) /* reflect (gen keeps the pads under the dim) */
            return c < 0 ? -c : 2 * (d - 1) - c;
        if (op->flag == 2) /* edge */
            return c < 0 ? 0 : d - 1;
        return (c % d + d) % d; /* wrap */
    }
    return c >= 0 && c < d ? c : -1;
}

static inline size_t pl_esize(int dt)
{
    switch (dt) {
    case PL_INT64: case PL_DOUBLE: case PL_UINT64: return 8;
    case PL_STRING: return sizeof(char *);
    case PL_FLOAT: case PL_INT32: case PL_UINT32: return 4;
    case PL_FLOAT16: case PL_BFLOAT16: case PL_INT16: case PL_UINT16: return 2;
    default: return 1;
    }
}

static inline int pl_is_float(int dt)
{
    return dt == PL_FLOAT || dt == PL_DOUBLE || dt == PL_FLOAT16 || dt == PL_BFLOAT16;
}

static inline int pl_is_unsigned(int dt)
{
    return dt == PL_UINT8 || dt == PL_UINT16 || dt == PL_UINT32 || dt == PL_UINT64 || dt == PL_BOOL;
}

/* IEEE half from float, rounded to nearest even (overflow to infinity, subnormals kept) */
static inline uint16_t pl_f32_to_f16(float f)
{
    uint32_t x, ax;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* infinity, NaN */
        return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) /* 65520 and up round to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below 2^-14: a subnormal half, in steps of 2^-24 (exact scaling) */
        float v;
        memcpy(&v, &ax, 4);
        return (uint16_t)(sign | (uint16_t)nearbyintf(v * 16777216.0f));
    }
    uint32_t h = (ax - 0x38000000u) >> 13, rest = ax & 0x1fffu; /* rebias 127 -> 15, 23 -> 10 bits */
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        h++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | h);
}

static inline float pl_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u, x;
    float f;
    if (e == 0) { /* zero, subnormal: m 2^-24 */
        f = (float)m * 5.9604644775390625e-8f;
        memcpy(&x, &f, 4);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    memcpy(&f, &x, 4);
    return f;
}

/* bfloat16: the upper half of a float, rounded to nearest even */
static inline uint16_t pl_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* a quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline float pl_bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline int64_t pl_count(const struct pl_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

/* the slots of an open-addressing hash table for n entries (Unique's slices, the string
 * tables): a power of two, at least twice as many */
static inline int64_t pl_hash_slots(int64_t n)
{
    int64_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    return slots;
}

/* coordinates of flat index i in t (row-major) */
static inline void pl_coords(const struct pl_tensor *t, int64_t i, int64_t *coord)
{
    for (int k = t->nd - 1; k >= 0; k--) {
        coord[k] = t->d[k] ? i % t->d[k] : 0;
        i = t->d[k] ? i / t->d[k] : 0;
    }
}

/* flat index of coord in t */
static inline int64_t pl_offset(const struct pl_tensor *t, const int64_t *coord)
{
    int64_t o = 0;
    for (int k = 0; k < t->nd; k++)
        o = o * t->d[k] + coord[k];
    return o;
}

/* the range of an integer element type */
static inline void pl_int_range(int dt, double *lo, double *hi)
{
    switch (dt) {
    case PL_UINT8: *lo = 0; *hi = 255; break;
    case PL_INT8: *lo = -128; *hi = 127; break;
    case PL_UINT16: *lo = 0; *hi = 65535; break;
    case PL_INT16: *lo = -32768; *hi = 32767; break;
    case PL_INT32: *lo = -2147483648.0; *hi = 2147483647.0; break;
    default: *lo = -DBL_MAX; *hi = DBL_MAX; break;
    }
}

static inline double pl_saturate(int dt, double v)
{
    double lo, hi;
    pl_int_range(dt, &lo, &hi);
    return v < lo ? lo : v > hi ? hi : v;
}

/* ScatterElements' and ScatterND's reductions (flag): 0 none, 1 add, 2 mul, 3 max, 4 min */
static inline double pl_scatter_apply(int how, double old, double upd)
{
    switch (how) {
    case 1: return old + upd;
    case 2: return old * upd;
    case 3: return upd > old ? upd : old;
    case 4: return upd < old ? upd : old;
    default: return upd;
    }
}

static inline double pl_load(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case PL_FLOAT: return ((const float *)p)[i];
    case PL_DOUBLE: return ((const double *)p)[i];
    case PL_INT64: return (double)((const int64_t *)p)[i];
    case PL_INT32: return ((const int32_t *)p)[i];
    case PL_INT16: return ((const int16_t *)p)[i];
    case PL_INT8: return ((const int8_t *)p)[i];
    case PL_UINT64: return (double)((const uint64_t *)p)[i];
    case PL_UINT32: return ((const uint32_t *)p)[i];
    case PL_UINT16: return ((const uint16_t *)p)[i];
    case PL_FLOAT16: return pl_f16_to_f32(((const uint16_t *)p)[i]);
    case PL_BFLOAT16: return pl_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const uint8_t *)p)[i];
    }
}

/* PL_ROPE's element at AT of x, whose position along the last dim (of LAST) is H and whose
 * stride along it is STEP: the other half's element it pairs with, negated in the first half
 * (rotate_half); by PAIRS, its neighbour in the pair, negated at the even place */
static inline double pl_rope_other(const void *x, int dt, int64_t at, int64_t h, int64_t last, int64_t step, int pairs)
{
    int64_t half = last / 2;
    if (pairs)
        return h % 2 == 0 ? -pl_load(x, dt, at + step) : pl_load(x, dt, at - step);
    return h < half ? -pl_load(x, dt, at + half * step) : pl_load(x, dt, at - half * step);
}

/* v toward zero as a 64-bit integer, a value past the type's range its end and NaN 0 (a
 * conversion the C standard leaves undefined: an integer's overflowing power, say) */
static inline int64_t pl_i64(double v)
{
    return v != v ? 0 : v >= 9223372036854775808.0 ? INT64_MAX : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

/* v stored as element i of type dt: integers through 64 bits (narrower ones wrap, as ONNX's
 * do), the two 16-bit floats through float, as numpy computes them */
static inline void pl_store(void *p, int dt, int64_t i, double v)
{
    switch (dt) {
    case PL_FLOAT: ((float *)p)[i] = (float)v; break;
    case PL_DOUBLE: ((double *)p)[i] = v; break;
    case PL_INT64: ((int64_t *)p)[i] = pl_i64(v); break;
    case PL_INT32: ((int32_t *)p)[i] = (int32_t)pl_i64(v); break;
    case PL_INT16: ((int16_t *)p)[i] = (int16_t)pl_i64(v); break;
    case PL_INT8: ((int8_t *)p)[i] = (int8_t)pl_i64(v); break;
    case PL_UINT64:
        ((uint64_t *)p)[i] = v >= 18446744073709551616.0 ? UINT64_MAX
                             : v >= 9223372036854775808.0 ? (uint64_t)v : (uint64_t)pl_i64(v);
        break;
    case PL_UINT32: ((uint32_t *)p)[i] = (uint32_t)pl_i64(v); break;
    case PL_UINT16: ((uint16_t *)p)[i] = (uint16_t)pl_i64(v); break;
    case PL_FLOAT16: ((uint16_t *)p)[i] = pl_f32_to_f16((float)v); break;
    case PL_BFLOAT16: ((uint16_t *)p)[i] = pl_f32_to_bf16((float)v); break;
    case PL_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default: ((uint8_t *)p)[i] = (uint8_t)pl_i64(v); break;
    }
}

/* v rounded to element type dt (through a store and a load: integers wrap, floats round) */
static inline double pl_round(int dt, double v)
{
    uint64_t cell = 0;
    pl_store(&cell, dt, 0, v);
    return pl_load(&cell, dt, 0);
}

static inline double pl_apply(const struct pl_op *op, double a, double b)
{
    switch (op->fn) {
    case PL_ERF: return erf(a);
    case PL_NEG: return -a;
    case PL_ABS: return fabs(a);
    case PL_SQRT: return sqrt(a);
    case PL_EXP: return exp(a);
    case PL_LOG: return log(a);
    case PL_FLOOR: return floor(a);
    case PL_CEIL: return ceil(a);
    case PL_ROUND: return nearbyint(a);
    case PL_SIGN: return (a > 0) - (a < 0);
    case PL_SIN: return sin(a);
    case PL_COS: return cos(a);
    case PL_TAN: return tan(a);
    case PL_TANH: return tanh(a);
    case PL_SIGMOID: return 1.0 / (1.0 + exp(-a));
    case PL_RECIPROCAL: return 1.0 / a;
    case PL_NOT: return a == 0;
    case PL_HARDSIGMOID: return fmax(0.0, fmin(1.0, op->alpha * a + op->beta));
    case PL_SELU: return op->beta * (a > 0 ? a : op->alpha * (exp(a) - 1));
    case PL_SOFTSIGN: return a / (1 + fabs(a));
    case PL_SOFTPLUS: return log1p(exp(a));
    case PL_ADD: return a + b;
    case PL_SUB: return a - b;
    case PL_MUL: return a * b;
    case PL_DIV: return pl_is_float(op->out.dtype) ? a / b : (b != 0 ? trunc(a / b) : 0);
    case PL_POW: return pow(a, b);
    case PL_MAX: return a > b ? a : b;
    case PL_MIN: return a < b ? a : b;
    case PL_MOD: /* fmod 0 (integers only): the sign of the divisor, as Python's % */
        if (b == 0)
            return 0;
        return op->flag ? fmod(a, b) : a - floor(a / b) * b;
    case PL_EQUAL: return a == b;
    case PL_LESS: return a < b;
    case PL_GREATER: return a > b;
    case PL_LESS_EQUAL: return a <= b;
    case PL_GREATER_EQUAL: return a >= b;
    case PL_AND: return (a != 0) && (b != 0);
    case PL_OR: return (a != 0) || (b != 0);
    case PL_XOR: return (a != 0) != (b != 0);
    case PL_IDENTITY: return a;
    case PL_GELU: return 0.5 * a * (1.0 + erf(a / sqrt(2.0)));
    case PL_PRELU: return a < 0 ? a * b : a;
    case PL_SILU_MUL: return a / (1.0 + exp(-a)) * b;
    case PL_GELU_MUL: return 0.5 * a * (1.0 + erf(a / sqrt(2.0))) * b;
    case PL_GELU_TANH_MUL: return 0.5 * a * (1.0 + tanh(0.7978845608028654 * (a + 0.044715 * a * a * a))) * b;
    case PL_HARDSWISH: return a * fmax(0.0, fmin(1.0, a / 6.0 + 0.5));
    case PL_LEAKYRELU: return a < 0 ? op->alpha * a : a;
    case PL_CLIP: return a < op->alpha ? op->alpha : a > op->beta ? op->beta : a;
    case PL_ASIN: return asin(a);
    case PL_ACOS: return acos(a);
    case PL_ATAN: return atan(a);
    case PL_SINH: return sinh(a);
    case PL_COSH: return cosh(a);
    case PL_ASINH: return asinh(a);
    case PL_ACOSH: return acosh(a);
    case PL_ATANH: return atanh(a);
    case PL_ISINF: return isinf(a) && ((a > 0 && (op->flag & 1)) || (a < 0 && (op->flag & 2)));
    case PL_ISNAN: return isnan(a);
    case PL_CELU: return a > 0 ? a : op->alpha * expm1(a / op->alpha);
    case PL_SHRINK: return a < -op->beta ? a + op->alpha : a > op->beta ? a - op->alpha : 0; /* alpha bias, beta lambd */
    case PL_THRESHOLDED_RELU: return a > op->alpha ? a : 0;
    case PL_BITSHIFT: { /* in 64 bits; the store wraps to the type's width */
        uint64_t x = (uint64_t)a, n = (uint64_t)b;
        return n >= 64 ? 0 : (double)(op->flag ? x >> n : x << n);
    }
    case PL_MEAN: case PL_LOGSUM: case PL_LOGSUMEXP: case PL_SUMSQUARE: case PL_L1: case PL_L2:
        break; /* reductions: plain_reduce.h */
#define PLM(f) f
#define PLC(x) x
#define PL_ALPHA (double)op->alpha
#define PL_MATH_CASE(fn, expr) case fn: return (expr);
    PL_UNARY_MATHS(PL_MATH_CASE)
#undef PL_MATH_CASE
#undef PL_ALPHA
#undef PLC
#undef PLM
    case PL_FN_COUNT:
        break;
    }
    return a;
}

struct pl_state {
    const struct pl_op *op;
    void *in[PL_MAX_IN], *out, *check;
    void *mem[PL_MAX_IN + 1]; /* the allocations in[] and out lie in (pl_place), to free */
    int64_t *aux;          /* TopK: the indices output; ArgMax/ArgMin: nothing */
    double *work;          /* ArgMax/ArgMin: the extremes of one row; TopK: the heap (value, index) */
    int64_t strides[PL_MAX_IN][8]; /* per input, per output dim: 0 where the input broadcasts */
    int flat;              /* no input broadcasts: one flat loop */
    void *sample;          /* PL_RESIZE, PL_GRID_SAMPLE: their tables (plain_sample.h) */
    int64_t selected;      /* plain_select.h: the output elements the kernel wrote */
    int64_t naux;          /* Unique: the unique slices (aux holds three arrays of the slices' count);
                            * RoiAlign: the taps of its largest region (a thread's tables) */
    char *text[PL_MAX_IN + 1]; /* string tensors: the characters of each input's strings, then the output's */
    void *table;           /* plain_string.h: StringNormalizer's stopword table */
    struct pl_pool *pool;  /* the threads of a kernel that splits its work (pl_par_run); NULL: one */
};

/* ---- a kernel's work split over threads ----
 * pl_par_run(s, n, fn) calls fn(s, begin, end, tid) on contiguous shares of [0, n), one per
 * thread of s's pool (tid 0, the first share, on the calling thread), and returns when every
 * share is done. Without a pool (one thread, or the host reference of a CUDA file) it is
 * fn(s, 0, n, 0). A kernel that splits its work gives each tid scratch of its own
 * (pl_par_threads(s) of them) and writes disjoint output, so that its result does not depend on
 * the thread count. */
typedef void (*pl_par_fn)(struct pl_state *s, int64_t begin, int64_t end, int tid);
#ifndef PL_KERNEL_ONLY
#include <pthread.h>
#include <stdatomic.h>

#define PL_PAR_MAX 256
/* polls of the run counter before an idle worker sleeps on the condition variable: a few
 * milliseconds, so that the workers of a timed loop wake in well under a microsecond, as
 * OpenMP's do between oneDNN's parallel regions */
#define PL_PAR_SPIN 100000

struct pl_pool;
struct pl_par_arg {
    struct pl_pool *pool;
    int tid;
};
struct pl_pool {
    int threads;                   /* the caller and threads - 1 workers */
    pthread_t tid[PL_PAR_MAX];
    struct pl_par_arg arg[PL_PAR_MAX];
    struct pl_state *s;            /* the current run (written before run is bumped) */
    pl_par_fn fn;
    int64_t n;
    int stop;
    atomic_uint run;               /* bumped for each run: a worker waits for it to change */
    atomic_int left;               /* workers yet to finish the current run */
    pthread_mutex_t mu;            /* with cv: a worker past its spin sleeps until run changes */
    pthread_cond_t cv;
};

static inline void pl_par_pause(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void pl_par_share(const struct pl_pool *p, int tid)
{
    int64_t b = p->n * tid / p->threads, e = p->n * (tid + 1) / p->threads;
    if (b < e)
        p->fn(p->s, b, e, tid);
}

static inline void *pl_par_worker(void *v)
{
    struct pl_par_arg *a = (struct pl_par_arg *)v;
    struct pl_pool *p = a->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned now;
        long spins = 0;
        while ((now = atomic_load_explicit(&p->run, memory_order_acquire)) == seen) {
            if (++spins < PL_PAR_SPIN) {
                pl_par_pause();
                continue;
            }
            pthread_mutex_lock(&p->mu);
            while (atomic_load_explicit(&p->run, memory_order_acquire) == seen)
                pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        seen = now;
        if (p->stop)
            return NULL;
        pl_par_share(p, a->tid);
        atomic_fetch_sub_explicit(&p->left, 1, memory_order_acq_rel);
    }
}

static inline int pl_par_threads(const struct pl_state *s)
{
    return s->pool ? s->pool->threads : 1;
}

static inline void pl_par_run(struct pl_state *s, int64_t n, pl_par_fn fn)
{
    struct pl_pool *p = s->pool;
    if (!p || n < 2) {
        if (n > 0)
            fn(s, 0, n, 0);
        return;
    }
    p->s = s;
    p->fn = fn;
    p->n = n;
    atomic_store_explicit(&p->left, p->threads - 1, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->run, 1u, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pl_par_share(p, 0);
    while (atomic_load_explicit(&p->left, memory_order_acquire) > 0)
        pl_par_pause();
}

/* the threads a benchmark's kernel may use: --threads N, else as a oneDNN file's (bh_cpu_threads) */
static inline int pl_par_want(int threads)
{
    if (threads <= 0)
        threads = bh_cpu_threads();
    return threads < 1 ? 1 : threads > PL_PAR_MAX ? PL_PAR_MAX : threads;
}

/* a pool of THREADS (the caller among them) for s; fewer when the system gives fewer; none
 * for one. Returns the threads the kernel will run on. */
static inline int pl_par_start(struct pl_state *s, int threads)
{
    if (threads < 2)
        return 1;
    struct pl_pool *p = (struct pl_pool *)calloc(1, sizeof(*p));
    if (!p)
        return 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    atomic_init(&p->run, 0u);
    atomic_init(&p->left, 0);
    p->threads = 1;
    for (int t = 1; t < threads; t++) {
        p->arg[t].pool = p;
        p->arg[t].tid = t;
        if (pthread_create(&p->tid[t], NULL, pl_par_worker, &p->arg[t]) != 0)
            break;
        p->threads = t + 1;
    }
    s->pool = p;
    return p->threads;
}

static inline void pl_par_stop(struct pl_state *s)
{
    struct pl_pool *p = s->pool;
    if (!p)
        return;
    p->stop = 1;
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->run, 1u, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->threads; t++)
        pthread_join(p->tid[t], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
    s->pool = NULL;
}
#else
static inline int pl_par_threads(const struct pl_state *s)
{
    (void)s;
    return 1;
}

static inline void pl_par_run(struct pl_state *s, int64_t n, pl_par_fn fn)
{
    if (n > 0)
        fn(s, 0, n, 0);
}
#endif

/* A Slice inside its input (gen's always is: the one pl_kernel walks by constant moves): the
 * element of in[0] it reads first; -1 for another op, or a slice not inside */
static inline int64_t pl_slice_first(const struct pl_op *op)
{
    int nd = op->out.nd;
    if (PL_KIND_OF(op) != PL_MAP || op->map != PL_MAP_SLICE || !nd || op->in[0].nd != nd)
        return -1;
    int64_t first = 0, istride = 1;
    for (int k = nd - 1; k >= 0; k--) {
        int64_t d = op->in[0].d[k], last = op->start[k] + op->step[k] * (op->out.d[k] - 1);
        if (op->out.d[k] != 0 && (op->start[k] < 0 || op->start[k] >= d || last < 0 || last >= d))
            return -1;
        first += op->start[k] * istride;
        istride *= d;
    }
    return first;
}

/* pl_place's slots: the last 448 bytes or more before the next page's first */
typedef char pl_slots_fit[PL_MAX_IN * 448 <= 4096 - 448 ? 1 : -1];

/* BYTES for a kernel's buffer SLOT (0 the output, 1 + i input i), allocated into *RAW: each
 * buffer page-aligned plus SLOT times 448 bytes, less FIRST, the offset of its first read (a
 * Slice's: pl_slice_first), so that no two are read or written from less than 448 bytes apart
 * modulo a page. malloc places two buffers of one size (a multiple of 4 KiB) 16 bytes
 * apart modulo a page, and a copy between such a pair runs some twenty times slower on AMD
 * Zen 3 (glibc's memcpy by rep movsb, 4K aliasing: 56 us instead of 2 for a Concat of two
 * 51 KB pieces), an accident of where this harness's buffers lie, not the layer's cost; a
 * framework's allocator puts them elsewhere. */
static inline void *pl_place(void **raw, size_t bytes, int slot, size_t first)
{
    size_t all = bytes + 2 * 4096;
    *raw = malloc(all);
    if (!*raw)
        return NULL;
    uintptr_t page = ((uintptr_t)*raw + 4095) & ~(uintptr_t)4095;
    char *p = (char *)(page + ((uintptr_t)slot * 448 + 4096 - first % 4096) % 4096);
#ifdef __SANITIZE_ADDRESS__ /* built with -fsanitize=address: the room around the buffer unreadable */
    ASAN_POISON_MEMORY_REGION(*raw, (size_t)(p - (char *)*raw));
    ASAN_POISON_MEMORY_REGION(p + bytes, all - (size_t)(p - (char *)*raw) - bytes);
#endif
    return p;
}

/* ROWS rows of COUNT elements of ES bytes: row r's element j from SRC at r * SRC_ROW + j *
 * STRIDE elements to DST at r * DST_ROW + j. By memcpy where a row is one run of 64 bytes or
 * more, else element by element (a memcpy call for every few bytes costs several times the
 * copy: a Slice or Concat of the last dim); one call for all the rows, so that the dispatch on
 * the size is made once. */
static inline void pl_copy_rows(char *dst, int64_t dst_row, const char *src, int64_t src_row, int64_t rows,
                                int64_t count, int64_t stride, size_t es)
{
    if (stride == 1 && (size_t)count * es >= 64) {
        for (int64_t r = 0; r < rows; r++)
            memcpy(dst + (size_t)(r * dst_row) * es, src + (ptrdiff_t)(r * src_row) * (ptrdiff_t)es, (size_t)count * es);
        return;
    }
    /* a short contiguous row (a detector's box of two or four coordinates): a memcpy of its
     * constant size per row, where the loop below would copy element by element */
#define PL_COPY_SHORT(bytes)                                                                 \
    for (int64_t r = 0; r < rows; r++)                                                       \
        memcpy(dst + (size_t)(r * dst_row) * es, src + (ptrdiff_t)(r * src_row) * (ptrdiff_t)es, (bytes));
    switch (stride == 1 ? (size_t)count * es : 0) {
    case 8: PL_COPY_SHORT(8) return;
    case 12: PL_COPY_SHORT(12) return;
    case 16: PL_COPY_SHORT(16) return;
    case 32: PL_COPY_SHORT(32) return;
    default: break;
    }
#undef PL_COPY_SHORT
    /* memcpy of a constant size: one load and one store at -O2 */
#define PL_COPY_ROWS(size)                                                                   \
    for (int64_t r = 0; r < rows; r++) {                                                     \
        char *y = dst + (size_t)(r * dst_row) * (size);                                      \
        const char *x = src + (ptrdiff_t)(r * src_row) * (ptrdiff_t)(size);                  \
        for (int64_t j = 0; j < count; j++)                                                  \
            memcpy(y + (size_t)j * (size), x + (ptrdiff_t)(j * stride) * (ptrdiff_t)(size), (size)); \
    }
    switch (es) {
    case 1: PL_COPY_ROWS(1) break;
    case 2: PL_COPY_ROWS(2) break;
    case 4: PL_COPY_ROWS(4) break;
    case 8: PL_COPY_ROWS(8) break;
    default: PL_COPY_ROWS(es) break;
    }
#undef PL_COPY_ROWS
}

static inline uint32_t pl_rand_step(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* each family's entry points, defined in its header (when PL_FAMILIES has it) */
#if PL_FAMILIES & PL_FAM_INDEX
static inline void pl_index_inputs(struct pl_state *s);
static inline void pl_kernel_index(struct pl_state *s);
static inline int64_t pl_reference_index(const struct pl_state *s, void *want);
#endif
#if PL_FAMILIES & PL_FAM_REDUCE
static inline void pl_kernel_reduce(struct pl_state *s);
static inline int64_t pl_reference_reduce(const struct pl_state *s, void *want);
static inline int64_t pl_softmax_work(const struct pl_op *op);
static inline enum bh_status pl_verify_softmax(struct pl_state *s, struct bh_result *r);
#endif

/* whether pl_binary_f32 computes OP: a binary op of float tensors into a float one by add,
 * subtract, multiply, divide or PRelu */
static inline int pl_binary_f32_takes(const struct pl_op *op)
{
    int fn = op->fn;
    return PL_KIND_OF(op) == PL_BINARY && op->nin == 2 && !op->flag && !pl_halves(op) && op->in[0].dtype == PL_FLOAT &&
           op->in[1].dtype == PL_FLOAT && op->out.dtype == PL_FLOAT &&
           (fn == PL_ADD || fn == PL_SUB || fn == PL_MUL || fn == PL_DIV || fn == PL_PRELU);
}

/* the elements from which a float add, subtract, multiply or divide that is one run splits
 * over threads (a few microseconds of work on one thread: a run on two threads costs about
 * one more for the second's start and end) */
#define PL_PAR_BINARY 65536

/* whether OP's kernel splits its work over threads (pl_par_run): ConvTranspose tiles (blocks of
 * rows), RoiAlign (regions), a bidirectional recurrent layer (its two directions), a large
 * float add, subtract, multiply or divide that is one run (blocks of it) */
static inline int pl_op_parallel(const struct pl_op *op)
{
    int kind = PL_KIND_OF(op);
    if (kind == PL_BINARY) {
        if (!pl_binary_f32_takes(op) || op->fn == PL_PRELU)
            return 0;
        int64_t n = pl_count(&op->out), na = pl_count(&op->in[0]), nb = pl_count(&op->in[1]);
        return n >= PL_PAR_BINARY && ((na == n && nb == n) || (na == 1 && nb == n) || (nb == 1 && na == n));
    }
    return kind == PL_DECONV_TILES || kind == PL_ROI_ALIGN || (kind == PL_RNN && op->in[1].nd == 3 && op->in[1].d[0] == 2);
}

static inline int pl_kind_index(int kind)
{
    return kind >= PL_GATHER_ELEMENTS && kind <= PL_RANGE;
}

static inline int pl_kind_reduce(int kind)
{
    return (kind >= PL_REDUCE && kind <= PL_HARDMAX) || kind == PL_SOFTMAX;
}

#if PL_FAMILIES & PL_FAM_QUANT
static inline void pl_kernel_quant(struct pl_state *s);
static inline int64_t pl_reference_quant(const struct pl_state *s, void *want);
#endif

static inline int pl_kind_quant(int kind)
{
    return kind >= PL_QUANTIZE && kind <= PL_DYNQUANT;
}

#if PL_FAMILIES & PL_FAM_SAMPLE
static inline enum bh_status pl_sample_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_sample(struct pl_state *s);
static inline enum bh_status pl_verify_sample(struct pl_state *s, struct bh_result *r);
static inline void pl_sample_free(struct pl_state *s);
#endif

static inline int pl_kind_sample(int kind)
{
    return kind == PL_RESIZE || kind == PL_GRID_SAMPLE;
}

#if PL_FAMILIES & PL_FAM_LINALG
static inline void pl_kernel_einsum(struct pl_state *s);
static inline enum bh_status pl_verify_einsum(struct pl_state *s, struct bh_result *r);
#endif

#if PL_FAMILIES & PL_FAM_SIGNAL
static inline enum bh_status pl_signal_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_signal(struct pl_state *s);
static inline enum bh_status pl_verify_signal(struct pl_state *s, struct bh_result *r);
#endif

static inline int pl_kind_signal(int kind)
{
    return kind >= PL_DFT && kind <= PL_WINDOW;
}

#if PL_FAMILIES & PL_FAM_LINALG
static inline void pl_kernel_det(struct pl_state *s);
static inline enum bh_status pl_verify_det(struct pl_state *s, struct bh_result *r);
#endif

#if PL_FAMILIES & PL_FAM_NN
static inline enum bh_status pl_nn_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_nn(struct pl_state *s);
static inline enum bh_status pl_verify_nn(struct pl_state *s, struct bh_result *r);
#endif

#if PL_FAMILIES & PL_FAM_RANDOM
static inline void pl_kernel_random(struct pl_state *s);
static inline enum bh_status pl_verify_random(struct pl_state *s, struct bh_result *r);
#endif

#if PL_FAMILIES & PL_FAM_SELECT
static inline enum bh_status pl_select_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_select(struct pl_state *s);
static inline enum bh_status pl_verify_select(struct pl_state *s, struct bh_result *r);
#endif

static inline int pl_kind_select(int kind)
{
    return kind >= PL_NONZERO && kind <= PL_UNIQUE;
}

#if PL_FAMILIES & PL_FAM_STRING
static inline enum bh_status pl_string_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_string(struct pl_state *s);
static inline enum bh_status pl_verify_string(struct pl_state *s, struct bh_result *r);
static inline void pl_string_free(struct pl_state *s);
#endif

static inline int pl_kind_string(int kind)
{
    return kind >= PL_STR_CAST && kind <= PL_STR_REGEX;
}

#if PL_FAMILIES & PL_FAM_RNN
static inline enum bh_status pl_rnn_setup(struct pl_state *s, struct bh_result *r);
static inline void pl_kernel_rnn(struct pl_state *s);
static inline enum bh_status pl_verify_rnn(struct pl_state *s, struct bh_result *r);
#endif

static inline int pl_kind_nn(int kind)
{
    return (kind >= PL_ROI_ALIGN && kind <= PL_LOSS) || kind == PL_OPTIMIZER || kind == PL_TFIDF || kind == PL_DECONV_TILES;
}

/* the family whose header holds kind's kernel (0: the core here) */
static inline unsigned pl_family(int kind)
{
    return pl_kind_index(kind)                      ? PL_FAM_INDEX
           : pl_kind_reduce(kind)                   ? PL_FAM_REDUCE
           : pl_kind_quant(kind)                    ? PL_FAM_QUANT
           : pl_kind_sample(kind)                   ? PL_FAM_SAMPLE
           : kind == PL_EINSUM || kind == PL_DET    ? PL_FAM_LINALG
           : pl_kind_signal(kind)                   ? PL_FAM_SIGNAL
           : pl_kind_nn(kind)                       ? PL_FAM_NN
           : kind == PL_RANDOM                      ? PL_FAM_RANDOM
           : pl_kind_select(kind)                   ? PL_FAM_SELECT
           : pl_kind_string(kind)                   ? PL_FAM_STRING
           : kind == PL_RNN                         ? PL_FAM_RNN
                                                    : 0u;
}

/* the families whose headers hold op's kernel (0: the core here): kind's, and the strings'
 * when a tensor is one */
static inline unsigned pl_families(const struct pl_op *op)
{
    unsigned f = pl_family(PL_KIND_OF(op));
    for (int i = 0; i < op->nin; i++)
        f |= op->in[i].dtype == PL_STRING ? PL_FAM_STRING : 0u;
    return f | (op->out.dtype == PL_STRING ? PL_FAM_STRING : 0u);
}

/* e^x for x <= 0 (a softmax's element less its row's largest, a recurrent layer's -|x|) in float, within about one unit in the
 * last place: x = k ln2 + r with k = round(x / ln2) (adding 1.5 * 2^23 rounds it into the
 * low bits of the sum), ln2 in two parts (Cody and Waite) so that r is exact, e^r by its
 * Taylor series to r^7 (for |r| <= ln2 / 2 the first term left out is under 2^-26 of e^r),
 * 2^k written into the exponent's bits. Below -87 (e^x under 2^-125.5, about float's smallest
 * normal number) 0, as a flush to zero; a NaN stays NaN. No branch and no call, so that a
 * loop of it vectorizes at -O2 with x86-64's SSE2, the instructions a plain C file builds
 * for. */
static inline float pl_exp_neg(float x)
{
    const float floor_ = -87.0f;
    uint32_t below = -(uint32_t)(x < floor_), bits, fb;
    float c, two_k, y;
    memcpy(&bits, &x, 4);
    memcpy(&fb, &floor_, 4);
    bits = (bits & ~below) | (fb & below); /* max(x, -87) by masks, as a vector loop wants */
    memcpy(&c, &bits, 4);
    float t = c * 1.44269504f + 12582912.0f;
    float k = t - 12582912.0f;
    float r = c - k * 0.693145752f;
    r -= k * 1.42860677e-6f;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    memcpy(&bits, &t, 4);
    bits = (bits - 0x4b400000u + 127u) << 23; /* t's bits are 0x4b400000 + k */
    memcpy(&two_k, &bits, 4);
    y = p * two_k;
    memcpy(&bits, &y, 4);
    bits &= ~below;
    memcpy(&y, &bits, 4);
    return y;
}

/* pl_exp_neg of N floats in place, eight at a time where it can */
static inline void pl_exp_neg_n(float *w, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            w[i + j] = pl_exp_neg(w[i + j]);
    for (; i < n; i++)
        w[i] = pl_exp_neg(w[i]);
}

/* Broadcast strides of input t against the output (numpy rules, aligned on the right). */
static inline void pl_bcast_strides(const struct pl_tensor *t, const struct pl_tensor *out, int64_t *st)
{
    int64_t acc = 1;
    for (int k = out->nd - 1; k >= 0; k--) {
        int j = k - (out->nd - t->nd);
        if (j < 0) {
            st[k] = 0;
            continue;
        }
        st[k] = t->d[j] == 1 && out->d[k] != 1 ? 0 : acc;
        acc *= t->d[j];
    }
}

/* ScatterND's index input (op's in[1], [..., q]) for a benchmark: distinct valid rows, spread over
 * the data: row r -> position r * m mod p (m a prime not dividing p, p the product of data's
 * first q dims), as the coordinates of those dims (the CPU benchmarks' and the CUDA kernel's) */
static inline void pl_scatter_nd_rows(const struct pl_op *op, int64_t *idx)
{
    const struct pl_tensor *t = &op->in[1];
    if (t->nd < 1)
        return;
    int q = (int)t->d[t->nd - 1];
    int64_t rows = q ? pl_count(t) / q : 0, p = 1;
    for (int k = 0; k < q; k++)
        p *= op->in[0].d[k];
    int64_t m = p % 7919 ? 7919 : p % 104729 ? 104729 : 1;
    for (int64_t row = 0; row < rows; row++) {
        int64_t pos = p ? (row * m) % p : 0;
        for (int k = q - 1; k >= 0; k--) {
            idx[row * q + k] = pos % op->in[0].d[k];
            pos /= op->in[0].d[k];
        }
    }
}

/* The CPU benchmark around the kernels (set-up, timed run, verification, tear-down): not in
 * a CUDA kernel benchmark, which needs only the kernels as its host reference. */
#ifndef PL_KERNEL_ONLY
static inline enum bh_status pl_setup(void *state, const struct bh_opts *o, struct bh_result *r)
{
    struct pl_state *s = (struct pl_state *)state;
    const struct pl_op *op = s->op;
    r->threads = 1;
    snprintf(r->lib, sizeof(r->lib), "%s", "benanza plain C");
    bh_cpu_device(r);
    if (!pl_kind_compiled(op)) {
        bh_note(r, "the operation's kind (%d) is not the file's PL_KIND (%d)", (int)op->kind, (int)PL_KIND_OF(op));
        return BH_ERROR;
    }
    uint32_t seed = 12345u;
    for (int i = 0; i < op->nin; i++) {
        const struct pl_tensor *t = &op->in[i];
        int64_t n = pl_count(t);
        int64_t first = i == 0 ? pl_slice_first(op) : -1;
        s->in[i] = pl_place(&s->mem[1 + i], (size_t)(n ? n : 1) * pl_esize(t->dtype), 1 + i,
                            first > 0 ? (size_t)first * pl_esize(t->dtype) : 0);
        if (!s->in[i]) {
            bh_note(r, "cannot allocate %lld elements", (long long)n);
            return BH_OOM;
        }
        /* inputs in the function's domain: (0.5, 1.5] for Log, Sqrt, a power by a fraction and
         * ReduceLogSum, (1, 2] for Acosh, (-1, 1] otherwise; IsInf/IsNaN see every fourth
         * element infinite or NaN; a softmax every eleventh -10000, as an attention mask's
         * (e to its difference from the row's largest is 0) */
        int positive = pl_positive_domain(op) || (PL_KIND_OF(op) == PL_REDUCE && op->fn == PL_LOGSUM);
        int above1 = PL_KIND_OF(op) == PL_UNARY && op->fn == PL_ACOSH;
        int special = PL_KIND_OF(op) == PL_UNARY && (op->fn == PL_ISINF || op->fn == PL_ISNAN);
        for (int64_t k = 0; k < n && t->dtype != PL_STRING; k++) {
            double v = (double)pl_rand_step(&seed) / 16777216.0;
            if (PL_KIND_OF(op) == PL_GATHER && i == 1) {
                int64_t dim = op->in[0].d[op->axis];
                v = (double)(int64_t)(v * (double)dim) - (k % 3 == 0 ? (double)dim : 0); /* negative ones too */
            } else if (t->dtype == PL_BOOL) {
                v = v < 0.5;
            } else if (!pl_is_float(t->dtype)) {
                /* [-8, 8), unsigned types [0, 16), [1, 16) in a positive domain */
                int unsig = pl_is_unsigned(t->dtype);
                v = positive ? (double)(int64_t)(v * 15) + 1 : (double)(int64_t)(v * 16) - (unsig ? 0 : 8);
                if (op->fn == PL_DIV || (op->fn == PL_MOD && unsig))
                    v += unsig ? 1 : 17; /* no zero divisor */
                else if (op->fn == PL_POW && i == 1 && !pl_is_float(op->in[0].dtype))
                    v = fabs(v); /* an integer to a negative power is no integer */
                if ((PL_KIND_OF(op) == PL_QUANTIZE || PL_KIND_OF(op) == PL_DEQUANTIZE) && i == 2 && pl_esize(t->dtype) == 1)
                    v = floor((double)pl_rand_step(&seed) / 16777216.0 * 256) - (unsig ? 0 : 128); /* zero points
                        over the whole type: both saturations happen */
                else if (op->fn == PL_MOD && v >= 0)
                    v += 1; /* both signs, no zero: the sign rule of fmod 0 is exercised */
            } else {
                v = positive ? 0.5 + v : above1 ? 1 + v : 2 * v - 1;
                if ((PL_KIND_OF(op) == PL_QUANTIZE || PL_KIND_OF(op) == PL_DEQUANTIZE) && i == 1)
                    v = 0.0025 * v + 0.0075; /* a scale in [0.005, 0.01): x / scale reaches 100 to
                        200 both ways, past an 8-bit type's range: both saturations happen */
                if (special && k % 4 == 1)
                    v = k % 8 == 1 ? (v < 0 ? -INFINITY : INFINITY) : NAN;
                if (PL_KIND_OF(op) == PL_ARG || PL_KIND_OF(op) == PL_TOPK || PL_KIND_OF(op) == PL_HARDMAX)
                    v = floor(v * 16) / 16; /* equal values, so the rule for ties is exercised */
                if (PL_KIND_OF(op) == PL_SOFTMAX && k % 11 == 5)
                    v = -1e4;
                if (PL_KIND_OF(op) == PL_CAST && t->dtype == PL_FLOAT && k % 4 == 2 &&
                    (op->out.dtype == PL_FLOAT16 || op->out.dtype == PL_BFLOAT16)) {
                    /* every fourth one exactly halfway between two values of the 16-bit type,
                     * so that rounding to nearest even is exercised */
                    float f = (float)v;
                    uint32_t bits;
                    memcpy(&bits, &f, 4);
                    bits = op->out.dtype == PL_BFLOAT16 ? (bits & ~0xffffu) | 0x8000u : (bits & ~0x1fffu) | 0x1000u;
                    memcpy(&f, &bits, 4);
                    v = f;
                }
            }
            pl_store(s->in[i], t->dtype, k, v);
        }
        if (PL_KIND_OF(op) == PL_SCATTER_ND && i == 1)
            pl_scatter_nd_rows(op, (int64_t *)s->in[1]);
        if (pl_elementwise(op))
            pl_bcast_strides(t, &op->out, s->strides[i]);
    }
    int64_t n = pl_count(&op->out);
    s->out = pl_place(&s->mem[0], (size_t)(n ? n : 1) * pl_esize(op->out.dtype), 0, 0);
    s->check = malloc((size_t)(n ? n : 1) * pl_esize(op->out.dtype));
    if (!s->out || !s->check) {
        bh_note(r, "cannot allocate the output (%lld elements)", (long long)n);
        return BH_OOM;
    }
    if (PL_KIND_OF(op) == PL_TOPK || PL_KIND_OF(op) == PL_ARG) {
        int64_t outer, dim, inner;
        pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
        s->aux = (int64_t *)malloc((size_t)(n ? n : 1) * sizeof(int64_t));
        s->work = (double *)malloc((size_t)(PL_KIND_OF(op) == PL_TOPK ? 2 * (op->k ? op->k : 1) : (inner ? inner : 1)) *
                                   sizeof(double));
        if (!s->aux || !s->work) {
            bh_note(r, "%s", "cannot allocate the work space");
            return BH_OOM;
        }
    }
#if PL_FAMILIES & PL_FAM_INDEX
    if (pl_kind_index(PL_KIND_OF(op)))
        pl_index_inputs(s);
#endif
#if PL_FAMILIES & PL_FAM_REDUCE
    if (PL_KIND_OF(op) == PL_SOFTMAX) {
        /* the sums of a row's exponentials (double) and the float blocks of plain_reduce.h */
        s->work = (double *)malloc((size_t)pl_softmax_work(op) * sizeof(double));
        if (!s->work) {
            bh_note(r, "%s", "cannot allocate the work space");
            return BH_OOM;
        }
    }
#endif
    if (PL_KIND_OF(op) == PL_REDUCE || PL_KIND_OF(op) == PL_MVN) {
        /* one accumulator per output (MVN: a sum and a sum of squares per group) */
        int64_t groups = 1;
        for (int k = 0; k < op->in[0].nd; k++)
            if (!(op->axes >> k & 1u))
                groups *= op->in[0].d[k];
        s->work = (double *)malloc((size_t)(2 * (groups ? groups : 1)) * sizeof(double));
        if (!s->work) {
            bh_note(r, "%s", "cannot allocate the accumulators");
            return BH_OOM;
        }
    }
    /* a kernel that splits its work over threads: its pool, before its set-up sizes the scratch */
    if (pl_op_parallel(op))
        r->threads = pl_par_start(s, pl_par_want(o->threads));
#if PL_FAMILIES & PL_FAM_SAMPLE
    if (pl_kind_sample(PL_KIND_OF(op)))
        return pl_sample_setup(s, r);
#endif
#if PL_FAMILIES & PL_FAM_SIGNAL
    if (pl_kind_signal(PL_KIND_OF(op)))
        return pl_signal_setup(s, r);
#endif
#if PL_FAMILIES & PL_FAM_NN
    if (pl_kind_nn(PL_KIND_OF(op)))
        return pl_nn_setup(s, r);
#endif
#if PL_FAMILIES & PL_FAM_SELECT
    if (pl_kind_select(PL_KIND_OF(op)))
        return pl_select_setup(s, r);
#endif
#if PL_FAMILIES & PL_FAM_STRING
    if (pl_kind_string(PL_KIND_OF(op)))
        return pl_string_setup(s, r);
#endif
#if PL_FAMILIES & PL_FAM_RNN
    if (PL_KIND_OF(op) == PL_RNN)
        return pl_rnn_setup(s, r);
#endif
    if (PL_KIND_OF(op) == PL_RANDOM && op->nin == 1) {
        /* Bernoulli: probabilities in [0, 1], a third on average (so that p and 1 - p differ);
         * Multinomial: log-probabilities in (-3, 3] (classes from rare to common) and room for
         * a cumulative row */
        int64_t m = pl_count(&op->in[0]);
        for (int64_t i = 0; i < m; i++) {
            double u = pl_load(s->in[0], op->in[0].dtype, i);
            pl_store(s->in[0], op->in[0].dtype, i, op->flag == 2 ? (u + 1) * (u + 1) / 4 : 3 * u);
        }
        if (op->flag == 3 && !(s->work = (double *)malloc((size_t)(op->in[0].d[1] > 0 ? op->in[0].d[1] : 1) * sizeof(double)))) {
            bh_note(r, "%s", "cannot allocate the work space");
            return BH_OOM;
        }
    }
    if (PL_KIND_OF(op) == PL_DET) {
        int64_t m = op->in[0].d[op->in[0].nd - 1];
        s->work = (double *)malloc((size_t)(m > 0 ? m * m : 1) * sizeof(double));
        if (!s->work) {
            bh_note(r, "%s", "cannot allocate the work space");
            return BH_OOM;
        }
    }
    s->flat = pl_elementwise(op);
    for (int i = 0; i < op->nin && s->flat; i++)
        s->flat = pl_count(&op->in[i]) == n;
    pl_halves_strides(op, s->strides);
    return BH_OK;
}

#endif

/* TopK's order: a before b when a is the better of the two (equal values: the lower index) */
static inline int pl_topk_before(int largest, double av, double ai, double bv, double bi)
{
    if (av != bv)
        return largest ? av > bv : av < bv;
    return ai < bi;
}

static inline void pl_heap_swap(double *h, int64_t a, int64_t b)
{
    double v = h[2 * a], x = h[2 * a + 1];
    h[2 * a] = h[2 * b];
    h[2 * a + 1] = h[2 * b + 1];
    h[2 * b] = v;
    h[2 * b + 1] = x;
}

/* the heap of the k best so far, the worst at its root; (value, index) pairs in h */
static inline void pl_heap_down(double *h, int64_t n, int64_t i, int largest)
{
    for (;;) {
        int64_t w = i, c1 = 2 * i + 1, c2 = 2 * i + 2;
        if (c1 < n && pl_topk_before(largest, h[2 * w], h[2 * w + 1], h[2 * c1], h[2 * c1 + 1]))
            w = c1;
        if (c2 < n && pl_topk_before(largest, h[2 * w], h[2 * w + 1], h[2 * c2], h[2 * c2 + 1]))
            w = c2;
        if (w == i)
            return;
        pl_heap_swap(h, i, w);
        i = w;
    }
}

static inline void pl_kernel_topk(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t outer, dim, inner, k = op->k;
    pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
    int dt = op->in[0].dtype, largest = op->flag;
    double *h = s->work;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t r = 0; r < inner; r++) {
            int64_t n = 0;
            const int64_t base = a * dim * inner + r;
            for (int64_t t = 0; t < dim; t++) {
                double v = pl_load(s->in[0], dt, base + t * inner);
                if (n < k) { /* sift the new one up */
                    int64_t i = n++;
                    h[2 * i] = v;
                    h[2 * i + 1] = (double)t;
                    while (i > 0 && pl_topk_before(largest, h[2 * ((i - 1) / 2)], h[2 * ((i - 1) / 2) + 1], h[2 * i], h[2 * i + 1])) {
                        pl_heap_swap(h, i, (i - 1) / 2);
                        i = (i - 1) / 2;
                    }
                } else if (k > 0 && pl_topk_before(largest, v, (double)t, h[0], h[1])) {
                    h[0] = v;
                    h[1] = (double)t;
                    pl_heap_down(h, n, 0, largest);
                }
            }
            /* pop the worst first: the outputs fill from the back */
            for (int64_t j = n - 1; j >= 0; j--) {
                int64_t o = (a * k + j) * inner + r;
                pl_store(s->out, op->out.dtype, o, h[0]);
                s->aux[o] = (int64_t)h[1];
                h[0] = h[2 * j];
                h[1] = h[2 * j + 1];
                pl_heap_down(h, j, 0, largest);
            }
        }
}

/* Add, subtract, multiply or divide (FN) of a run of LEN floats whose operands are at strides
 * SA and SB, each 1 or 0 (one value broadcast), four at a time: each operand's four through a
 * local array (one vector that gcc's -O2 keeps in a register, and which the output cannot
 * alias), so that the loops vectorize with SSE2 where a loop of the run's length, of
 * unknown length and of pointers that may alias, would not. Inlined with FN, SA and SB
 * constants (pl_binary_f32_run), so that the loop holds no test. Returns the elements done (a
 * multiple of four); the caller does the rest. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int64_t pl_binary_f32_fours(int fn, float *o, const float *x0, int sa, const float *x1, int sb, int64_t len)
{
    int64_t j = 0;
    for (; j + 4 <= len; j += 4) {
        float u[4], v[4], w[4];
        for (int q = 0; q < 4; q++)
            u[q] = x0[sa ? j + q : 0];
        for (int q = 0; q < 4; q++)
            v[q] = x1[sb ? j + q : 0];
        for (int q = 0; q < 4; q++)
            w[q] = fn == PL_ADD ? u[q] + v[q] : fn == PL_SUB ? u[q] - v[q] : fn == PL_MUL ? u[q] * v[q] : u[q] / v[q];
        for (int q = 0; q < 4; q++)
            o[j + q] = w[q];
    }
    return j;
}

static inline int64_t pl_binary_f32_run(int fn, float *o, const float *x0, int64_t sa, const float *x1, int64_t sb,
                                        int64_t len)
{
    if (!sa && !sb)
        return 0; /* both broadcast: a run of one value (a binary op's output has none longer) */
#define PL_BIN_RUNS(f) \
    (sa && sb ? pl_binary_f32_fours(f, o, x0, 1, x1, 1, len) \
     : sa     ? pl_binary_f32_fours(f, o, x0, 1, x1, 0, len) \
              : pl_binary_f32_fours(f, o, x0, 0, x1, 1, len))
    int64_t done = fn == PL_ADD ? PL_BIN_RUNS(PL_ADD) : fn == PL_SUB ? PL_BIN_RUNS(PL_SUB)
                   : fn == PL_MUL ? PL_BIN_RUNS(PL_MUL) : PL_BIN_RUNS(PL_DIV);
#undef PL_BIN_RUNS
    return done;
}

/* one run of LEN of a binary float op FN (pl_binary_f32), its operands at strides SA and SB */
static inline void pl_binary_f32_span(int fn, float *o, const float *x0, int64_t sa, const float *x1, int64_t sb,
                                      int64_t len)
{
    int64_t j0 = fn != PL_PRELU && (sa | sb) >= 0 && (sa | sb) <= 1 ? pl_binary_f32_run(fn, o, x0, sa, x1, sb, len) : 0;
    o += j0;
    x0 += j0 * sa;
    x1 += j0 * sb;
    switch (fn) {
    case PL_ADD:
        for (int64_t j = 0; j < len - j0; j++)
            o[j] = x0[j * sa] + x1[j * sb];
        break;
    case PL_SUB:
        for (int64_t j = 0; j < len - j0; j++)
            o[j] = x0[j * sa] - x1[j * sb];
        break;
    case PL_MUL:
        for (int64_t j = 0; j < len - j0; j++)
            o[j] = x0[j * sa] * x1[j * sb];
        break;
    case PL_DIV:
        for (int64_t j = 0; j < len - j0; j++)
            o[j] = x0[j * sa] / x1[j * sb];
        break;
    default: /* PL_PRELU */
        for (int64_t j = 0; j < len; j++) {
            float v = x0[j * sa];
            o[j] = v < 0 ? v * x1[j * sb] : v;
        }
    }
}

/* the elements a share of a parallel binary op takes at a time (a multiple of four) */
#define PL_BINARY_BLOCK 4096

/* blocks [BEGIN, END) of a binary op that is one run (pl_op_parallel: no input broadcasts, or
 * one is a single value) */
static inline void pl_binary_f32_blocks(struct pl_state *s, int64_t begin, int64_t end, int tid)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out), sa = pl_count(&op->in[0]) == n, sb = pl_count(&op->in[1]) == n;
    int64_t i = begin * PL_BINARY_BLOCK, stop = end * PL_BINARY_BLOCK < n ? end * PL_BINARY_BLOCK : n;
    (void)tid;
    pl_binary_f32_span(op->fn, (float *)s->out + i, (const float *)s->in[0] + i * sa, sa, (const float *)s->in[1] + i * sb,
                       sb, stop - i);
}

/* A binary operation of float tensors into a float one by one of the usual functions (add,
 * subtract, multiply, divide, PRelu): each run along the innermost dim is a loop of its own
 * per function, the operands at their strides there (0 where one broadcasts). pl_apply
 * computes these in double; rounded to float that is the float operation's own result, bit
 * for bit (each is correctly rounded in both). A large one that is a single run (no input
 * broadcasts, or one is a single value) is split over the threads in blocks. 0 where the
 * operation is another. */
static inline int pl_binary_f32(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int fn = op->fn, nd = op->out.nd;
    if (!pl_binary_f32_takes(op))
        return 0;
    const float *a = (const float *)s->in[0], *b = (const float *)s->in[1];
    float *y = (float *)s->out;
    int64_t n = pl_count(&op->out), len = s->flat ? n : nd ? op->out.d[nd - 1] : 1;
    int64_t sa = s->flat ? 1 : nd ? s->strides[0][nd - 1] : 0, sb = s->flat ? 1 : nd ? s->strides[1][nd - 1] : 0;
    int64_t na = pl_count(&op->in[0]), nb = pl_count(&op->in[1]);
    if ((na == 1 && nb == n) || (nb == 1 && na == n)) { /* a value and a whole tensor: one run */
        len = n;
        sa = na == n;
        sb = nb == n;
    }
    int whole = len == n;
    if (whole && s->pool) {
        pl_par_run(s, (n + PL_BINARY_BLOCK - 1) / PL_BINARY_BLOCK, pl_binary_f32_blocks);
        return 1;
    }
    int64_t idx[8] = {0}, pa = 0, pb = 0;
    for (int64_t i = 0; len > 0 && i < n; i += len) {
        const float *x0 = a + pa, *x1 = b + pb;
        float *o = y + i;
        pl_binary_f32_span(fn, o, x0, sa, x1, sb, len);
        for (int k = nd - 2; k >= 0 && !whole; k--) { /* the odometer of the outer dims */
            idx[k]++;
            pa += s->strides[0][k];
            pb += s->strides[1][k];
            if (idx[k] < op->out.d[k])
                break;
            pa -= s->strides[0][k] * idx[k];
            pb -= s->strides[1][k] * idx[k];
            idx[k] = 0;
        }
    }
    return 1;
}

static inline void pl_kernel(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
#if PL_FAMILIES & PL_FAM_INDEX
    if (pl_kind_index(PL_KIND_OF(op))) {
        pl_kernel_index(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_RNN
    if (PL_KIND_OF(op) == PL_RNN) {
        pl_kernel_rnn(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_REDUCE
    if (pl_kind_reduce(PL_KIND_OF(op))) {
        pl_kernel_reduce(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_QUANT
    if (pl_kind_quant(PL_KIND_OF(op))) {
        pl_kernel_quant(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_SAMPLE
    if (pl_kind_sample(PL_KIND_OF(op))) {
        pl_kernel_sample(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_LINALG
    if (PL_KIND_OF(op) == PL_EINSUM) {
        pl_kernel_einsum(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_SIGNAL
    if (pl_kind_signal(PL_KIND_OF(op))) {
        pl_kernel_signal(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_NN
    if (pl_kind_nn(PL_KIND_OF(op))) {
        pl_kernel_nn(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_LINALG
    if (PL_KIND_OF(op) == PL_DET) {
        pl_kernel_det(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_RANDOM
    if (PL_KIND_OF(op) == PL_RANDOM) {
        pl_kernel_random(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_SELECT
    if (pl_kind_select(PL_KIND_OF(op))) {
        pl_kernel_select(s);
        return;
    }
#endif
#if PL_FAMILIES & PL_FAM_STRING
    if (pl_kind_string(PL_KIND_OF(op))) {
        pl_kernel_string(s);
        return;
    }
#endif
    if (PL_KIND_OF(op) == PL_SCATTER_ND) {
        /* a copy of data, then each index row's slice of the updates in order */
        const struct pl_tensor *d = &op->in[0], *ix = &op->in[1];
        size_t es = pl_esize(d->dtype);
        memcpy(s->out, s->in[0], (size_t)n * es);
        int q = ix->nd ? (int)ix->d[ix->nd - 1] : 0;
        int64_t rows = q ? pl_count(ix) / q : 0, slice = 1, stride[8];
        for (int k = q; k < d->nd; k++)
            slice *= d->d[k];
        for (int64_t k = q - 1, acc = slice; k >= 0; k--) {
            stride[k] = acc;
            acc *= d->d[k];
        }
        const int64_t *idx = (const int64_t *)s->in[1];
        for (int64_t row = 0; row < rows; row++) {
            int64_t off = 0;
            for (int k = 0; k < q; k++) {
                int64_t c = idx[row * q + k];
                off += (c < 0 ? c + d->d[k] : c) * stride[k];
            }
            if (!op->flag) { /* a slice of one element (an index row per element) without a memcpy call */
                pl_copy_rows((char *)s->out + off * (int64_t)es, 0, (const char *)s->in[2] + row * slice * (int64_t)es, 0, 1,
                             slice, 1, es);
                continue;
            }
            for (int64_t e = 0; e < slice; e++) /* reduction add, mul, max, min */
                pl_store(s->out, d->dtype, off + e,
                         pl_scatter_apply(op->flag, pl_load(s->out, d->dtype, off + e),
                                          pl_load(s->in[2], op->in[2].dtype, row * slice + e)));
        }
        return;
    }
    if (PL_KIND_OF(op) == PL_SPLIT) {
        int64_t outer, dim, inner;
        pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
        size_t es = pl_esize(op->in[0].dtype);
        /* piece j: OUTER rows of split[j] * inner elements, in the whole at row * dim * inner
         * + before * inner, in the pieces one after the other at outer * before * inner + row
         * * split[j] * inner; Split copies them out of the whole, Concat (flag) into it */
        int64_t before = 0; /* the pieces' rows along axis before piece j */
        for (int j = 0; j < op->nsplit; j++) {
            int64_t run = op->split[j] * inner;
            char *whole = (char *)(op->flag ? s->out : s->in[0]) + (size_t)(before * inner) * es;
            char *pieces = (char *)(op->flag ? s->in[0] : s->out) + (size_t)(outer * before * inner) * es;
            if (op->flag)
                pl_copy_rows(whole, dim * inner, pieces, run, outer, run, 1, es);
            else
                pl_copy_rows(pieces, run, whole, dim * inner, outer, run, 1, es);
            before += op->split[j];
        }
        return;
    }
    if (PL_KIND_OF(op) == PL_ARG) {
        /* row by row along the axis: the extremes of a whole inner row at a time */
        int64_t outer, dim, inner;
        pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
        int dt = op->in[0].dtype, mx = op->fn == PL_MAX, last = op->flag;
        int64_t *o = (int64_t *)s->out;
        double *best = s->work;
        for (int64_t a = 0; a < outer; a++, o += inner) {
            for (int64_t r = 0; r < inner; r++) {
                best[r] = pl_load(s->in[0], dt, a * dim * inner + r);
                o[r] = 0;
            }
            for (int64_t t = 1; t < dim; t++) {
                int64_t base = (a * dim + t) * inner;
                for (int64_t r = 0; r < inner; r++) {
                    double v = pl_load(s->in[0], dt, base + r);
                    if (mx ? (v > best[r] || (last && v == best[r])) : (v < best[r] || (last && v == best[r]))) {
                        best[r] = v;
                        o[r] = t;
                    }
                }
            }
        }
        return;
    }
    if (PL_KIND_OF(op) == PL_TOPK) {
        pl_kernel_topk(s);
        return;
    }
    if (PL_KIND_OF(op) == PL_GATHER) {
        /* [outer, axis, inner] -> [outer, indices, inner], one row copy per index */
        const struct pl_tensor *d = &op->in[0];
        int64_t outer = 1, inner = 1, ni = pl_count(&op->in[1]), dim = d->d[op->axis];
        for (int k = 0; k < op->axis; k++)
            outer *= d->d[k];
        for (int k = op->axis + 1; k < d->nd; k++)
            inner *= d->d[k];
        size_t es = pl_esize(d->dtype);
        const int64_t *idx = (const int64_t *)s->in[1];
        char *o = (char *)s->out;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t q = 0; q < ni; q++) {
                int64_t j = idx[q] < 0 ? idx[q] + dim : idx[q];
                memcpy(o, (const char *)s->in[0] + ((a * dim + j) * inner) * (int64_t)es, (size_t)(inner * (int64_t)es));
                o += inner * (int64_t)es;
            }
        return;
    }
    if (PL_KIND_OF(op) == PL_MAP) {
        /* the odometer over the output; the input offset of the innermost run follows by steps */
        const struct pl_tensor *t = &op->in[0];
        int nd = op->out.nd;
        int64_t istride[8], idx[8] = {0}, acc = 1;
        for (int k = nd - 1; k >= 0; k--) {
            istride[k] = acc;
            acc *= t->d[k];
        }
        size_t es = pl_esize(t->dtype);
        int64_t inner = nd ? op->out.d[nd - 1] : 1;
        /* a Slice inside its input (gen's always is) reads every output row from an input
         * offset that moves by a constant per output dim (step times the input's stride):
         * each row one strided run */
        int64_t first = pl_slice_first(op);
        if (first >= 0) {
            /* the output's dims of more than one element, each with how far it moves the input
             * offset; a dim merged into the one outside it where the two walk the input as one
             * (x[..., 4:5] of [1, 3, 40, 40, 16]: one run of 4800 elements, 16 apart) */
            int64_t count[8], move[8], base = first;
            int m = 0;
            for (int k = 0; k < nd; k++) {
                int64_t mk = op->step[k] * istride[k];
                if (op->out.d[k] == 1)
                    continue;
                if (m && move[m - 1] == mk * op->out.d[k]) {
                    count[m - 1] *= op->out.d[k];
                    move[m - 1] = mk;
                } else {
                    count[m] = op->out.d[k];
                    move[m++] = mk;
                }
            }
            if (!m) {
                count[0] = move[0] = 1;
                m = 1;
            }
            /* the innermost two in one copy; the odometer over the dims outside them */
            int64_t run = count[m - 1], rows = m > 1 ? count[m - 2] : 1, row_move = m > 1 ? move[m - 2] : 0;
            for (int64_t i = 0; i < n; i += rows * run) {
                pl_copy_rows((char *)s->out + i * (int64_t)es, run, (const char *)s->in[0] + base * (int64_t)es, row_move,
                             rows, run, move[m - 1], es);
                for (int k = m - 3; k >= 0; k--) {
                    base += move[k];
                    if (++idx[k] < count[k])
                        break;
                    base -= move[k] * count[k];
                    idx[k] = 0;
                }
            }
            return;
        }
        for (int64_t i = 0; i < n; i += inner) {
            int64_t base = 0;
            int outside = 0;
            for (int k = 0; k < nd - 1; k++) {
                int64_t c = pl_map_coord(op, k, idx[k]);
                if (c < 0)
                    outside = 1;
                base += c * istride[k];
            }
            char *o = (char *)s->out + i * (int64_t)es;
            if (outside && op->alpha == 0) {
                memset(o, 0, (size_t)(inner * (int64_t)es));
            } else if (outside) {
                for (int64_t j = 0; j < inner; j++)
                    pl_store(s->out, odt, i + j, op->alpha);
            } else {
                for (int64_t j = 0; j < inner; j++) {
                    int64_t c = pl_map_coord(op, nd - 1, j);
                    pl_store(s->out, odt, i + j, c < 0 ? op->alpha : pl_load(s->in[0], t->dtype, base + c));
                }
            }
            for (int k = nd - 2; k >= 0; k--) {
                if (++idx[k] < op->out.d[k])
                    break;
                idx[k] = 0;
            }
        }
        return;
    }
    if (s->flat && PL_KIND_OF(op) == PL_UNARY && op->in[0].dtype == PL_FLOAT && odt == PL_FLOAT) {
        const float *x = (const float *)s->in[0];
        float *y = (float *)s->out;
        /* squares and cubes by products, as frameworks run them (a float's square is exact in
         * double: the float product is the double one rounded; the cube as pl_apply's) */
        if (op->fn == PL_POWS && op->alpha == 2) {
            for (int64_t i = 0; i < n; i++)
                y[i] = x[i] * x[i];
        } else if (op->fn == PL_POWS && op->alpha == 3) {
            for (int64_t i = 0; i < n; i++)
                y[i] = (float)((double)x[i] * x[i] * x[i]);
        } else {
            for (int64_t i = 0; i < n; i++)
                y[i] = (float)pl_apply(op, x[i], 0);
        }
        return;
    }
    if (pl_binary_f32(s))
        return;
    int64_t idx[8] = {0}, pos[PL_MAX_IN] = {0};
    /* the first two operands: the inputs, or a pl_halves op's halves of its one input (at
     * in[0]'s strides; never flat, its input twice the output) */
    int64_t gate, up;
    pl_halves_at(op, &gate, &up);
    int nops = pl_operands(op), dt1 = pl_halves(op) ? op->in[0].dtype : op->in[1].dtype;
    const void *x0 = (const char *)s->in[0] + gate * (int64_t)pl_esize(op->in[0].dtype);
    const void *x1 = pl_halves(op) ? (const char *)s->in[0] + up * (int64_t)pl_esize(op->in[0].dtype) : s->in[1];
    for (int64_t i = 0; i < n; i++) {
        double a = pl_load(x0, op->in[0].dtype, s->flat ? i : pos[0]);
        double v;
        if (PL_KIND_OF(op) == PL_BINARY) {
            v = pl_apply(op, a, pl_load(x1, dt1, s->flat ? i : pos[1]));
            for (int j = 2; j < op->nin; j++) /* Sum, Min, Max, Mean of more than two */
                v = pl_apply(op, v, pl_load(s->in[j], op->in[j].dtype, s->flat ? i : pos[j]));
            if (op->flag && op->fn == PL_ADD) /* Mean */
                v /= op->nin;
        } else if (PL_KIND_OF(op) == PL_WHERE) {
            v = a != 0 ? pl_load(s->in[1], op->in[1].dtype, s->flat ? i : pos[1])
                       : pl_load(s->in[2], op->in[2].dtype, s->flat ? i : pos[2]);
        } else if (PL_KIND_OF(op) == PL_ROPE) {
            int nd = op->out.nd;
            int64_t last = op->out.d[nd - 1];
            double o = pl_rope_other(s->in[0], op->in[0].dtype, s->flat ? i : pos[0], s->flat ? i % last : idx[nd - 1], last,
                                     s->flat ? 1 : s->strides[0][nd - 1], op->flag);
            v = a * pl_load(s->in[1], op->in[1].dtype, s->flat ? i : pos[1]) +
                o * pl_load(s->in[2], op->in[2].dtype, s->flat ? i : pos[2]);
        }
        else if (PL_KIND_OF(op) == PL_UNARY)
            v = pl_apply(op, a, 0);
        else
            v = a; /* Cast, Expand */
        pl_store(s->out, odt, i, v);
        if (s->flat)
            continue;
        for (int k = op->out.nd - 1; k >= 0; k--) { /* the odometer */
            idx[k]++;
            for (int j = 0; j < nops; j++)
                pos[j] += s->strides[j][k];
            if (idx[k] < op->out.d[k])
                break;
            for (int j = 0; j < nops; j++)
                pos[j] -= s->strides[j][k] * idx[k];
            idx[k] = 0;
        }
    }
}

#ifndef PL_KERNEL_ONLY
static inline double pl_run(void *state, struct bh_result *r)
{
    (void)r;
    double t0 = bh_now_us();
    pl_kernel((struct pl_state *)state);
    return bh_now_us() - t0;
}


static inline int pl_rank_largest(const void *a, const void *b)
{
    const double *x = (const double *)a, *y = (const double *)b;
    return x[0] != y[0] ? (x[0] > y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static inline int pl_rank_smallest(const void *a, const void *b)
{
    const double *x = (const double *)a, *y = (const double *)b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* TopK against a full sort of every slice (qsort, not a heap): the first k (value, index)
 * pairs must be the outputs, in order */
static inline enum bh_status pl_verify_topk(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    int64_t outer, dim, inner, k = op->k;
    pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
    double *all = (double *)malloc((size_t)(dim ? dim : 1) * 2 * sizeof(double));
    if (!all) {
        bh_note(r, "%s", "cannot allocate the reference's work space");
        return BH_OOM;
    }
    double worst = 0;
    int64_t wrong_index = 0;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t c = 0; c < inner; c++) {
            for (int64_t t = 0; t < dim; t++) {
                all[2 * t] = pl_load(s->in[0], op->in[0].dtype, (a * dim + t) * inner + c);
                all[2 * t + 1] = (double)t;
            }
            qsort(all, (size_t)dim, 2 * sizeof(double), op->flag ? pl_rank_largest : pl_rank_smallest);
            for (int64_t j = 0; j < k && j < dim; j++) {
                int64_t o = (a * k + j) * inner + c;
                double d = fabs(pl_load(s->out, op->out.dtype, o) - all[2 * j]);
                if (d != d)
                    d = INFINITY;
                if (d > worst)
                    worst = d;
                wrong_index += s->aux[o] != (int64_t)all[2 * j + 1];
            }
        }
    free(all);
    if (worst > 0 || wrong_index) {
        bh_note(r, "output differs from the reference (a full sort of each slice): max error %.3g, %lld wrong indices",
                worst, (long long)wrong_index);
        return BH_WRONG;
    }
    bh_note(r, "%s", "verified against the reference: a full sort of each slice (values and indices exact)");
    return BH_OK;
}

/* The output's elements that differ from a reference computed in double or wider (WANT, each
 * rounded to the output's type first) by more than the type's tolerance of their magnitude
 * (MAG): 2e-6 of it in float, 2e-3 in float16, 1.6e-2 in bfloat16, 1e-12 in double, and the
 * type's smallest step (2^-24 in float16: a value the kernel and the reference round to
 * neighbouring subnormals); a NaN counts as far. *WORST: the largest of their differences. */
static inline int64_t pl_count_far(const struct pl_state *s, const double *want, const double *mag, double *worst)
{
    int odt = s->op->out.dtype;
    int64_t n = pl_count(&s->op->out), bad = 0;
    double tol = odt == PL_FLOAT16 ? 2e-3 : odt == PL_BFLOAT16 ? 1.6e-2 : odt == PL_DOUBLE ? 1e-12 : 2e-6;
    double step = odt == PL_FLOAT16 ? 0x1p-24 : odt == PL_BFLOAT16 ? 0x1p-133 : odt == PL_DOUBLE ? 0x1p-1074 : 0x1p-149;
    *worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(pl_load(s->out, odt, i) - pl_round(odt, want[i]));
        if (d != d)
            d = INFINITY;
        if (d > tol * mag[i] + step) {
            bad++;
            *worst = d > *worst ? d : *worst;
        }
    }
    return bad;
}

/* The output against REF's values of every element and their magnitudes (pl_count_far); WHAT
 * names the reference in the note, HOW says how near a verified output is */
static inline enum bh_status pl_verify_near(struct pl_state *s, struct bh_result *r,
                                            void (*ref)(const struct pl_state *, double *, double *), const char *what,
                                            const char *how)
{
    int64_t n = pl_count(&s->op->out);
    double *want = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    double *mag = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!want || !mag) {
        free(want);
        free(mag);
        bh_note(r, "%s", "cannot allocate the reference's output");
        return BH_OOM;
    }
    ref(s, want, mag);
    double worst;
    int64_t bad = pl_count_far(s, want, mag, &worst);
    free(want);
    free(mag);
    if (bad) {
        bh_note(r, "output differs from the reference (%s): %lld elements, max error %.3g", what, (long long)bad, worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: %s%s", what, how);
    return BH_OK;
}

/* The kinds of plain_index.h and plain_reduce.h: their reference computes the whole output
 * from the definition (its own index arithmetic, the same order of arithmetic: so exactly). */
static inline enum bh_status pl_verify_whole(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
    void *want = malloc((size_t)(n ? n : 1) * pl_esize(odt));
    if (!want) {
        bh_note(r, "%s", "cannot allocate the reference's output");
        return BH_OOM;
    }
    int64_t done = -1;
#if PL_FAMILIES & PL_FAM_INDEX
    if (pl_kind_index(PL_KIND_OF(op)))
        done = pl_reference_index(s, want);
#endif
#if PL_FAMILIES & PL_FAM_QUANT
    if (pl_kind_quant(PL_KIND_OF(op)))
        done = pl_reference_quant(s, want);
#endif
#if PL_FAMILIES & PL_FAM_REDUCE
    if (pl_kind_reduce(PL_KIND_OF(op)))
        done = pl_reference_reduce(s, want);
#endif
    if (done != n) {
        free(want);
        bh_note(r, "%s", done < 0 && PL_KIND_OF(op) == PL_RANGE ? "the inputs do not give the output's length"
                                                          : "the reference could not be computed");
        return done < 0 && PL_KIND_OF(op) != PL_RANGE ? BH_OOM : BH_WRONG;
    }
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = pl_load(s->out, odt, i), w = pl_load(want, odt, i), d = fabs(g - w);
        if ((d != d && w == w) || (g == g && w != w))
            d = INFINITY;
        if (d > worst)
            worst = d;
    }
    free(want);
    if (worst > 0) {
        bh_note(r, "output differs from the reference (the definition, element by element): max error %.3g", worst);
        return BH_WRONG;
    }
    bh_note(r, "%s", "verified against the reference: the definition, element by element (max error 0)");
    return BH_OK;
}

/* Every output element from its coordinates: the input positions by division, not by the
 * kernel's running offsets. */
static inline enum bh_status pl_verify(void *state, struct bh_result *r)
{
    struct pl_state *s = (struct pl_state *)state;
    const struct pl_op *op = s->op;
    pl_kernel(s);
    if (PL_KIND_OF(op) == PL_TOPK)
        return pl_verify_topk(s, r);
#if PL_FAMILIES & PL_FAM_SAMPLE
    if (pl_kind_sample(PL_KIND_OF(op)))
        return pl_verify_sample(s, r);
#endif
#if PL_FAMILIES & PL_FAM_LINALG
    if (PL_KIND_OF(op) == PL_EINSUM)
        return pl_verify_einsum(s, r);
#endif
#if PL_FAMILIES & PL_FAM_SIGNAL
    if (pl_kind_signal(PL_KIND_OF(op)))
        return pl_verify_signal(s, r);
#endif
#if PL_FAMILIES & PL_FAM_NN
    if (pl_kind_nn(PL_KIND_OF(op)))
        return pl_verify_nn(s, r);
#endif
#if PL_FAMILIES & PL_FAM_LINALG
    if (PL_KIND_OF(op) == PL_DET)
        return pl_verify_det(s, r);
#endif
#if PL_FAMILIES & PL_FAM_RANDOM
    if (PL_KIND_OF(op) == PL_RANDOM)
        return pl_verify_random(s, r);
#endif
#if PL_FAMILIES & PL_FAM_SELECT
    if (pl_kind_select(PL_KIND_OF(op)))
        return pl_verify_select(s, r);
#endif
#if PL_FAMILIES & PL_FAM_STRING
    if (pl_kind_string(PL_KIND_OF(op)))
        return pl_verify_string(s, r);
#endif
#if PL_FAMILIES & PL_FAM_REDUCE
    if (PL_KIND_OF(op) == PL_SOFTMAX)
        return pl_verify_softmax(s, r);
#endif
#if PL_FAMILIES & PL_FAM_RNN
    if (PL_KIND_OF(op) == PL_RNN)
        return pl_verify_rnn(s, r);
#endif
#if PL_FAMILIES & (PL_FAM_INDEX | PL_FAM_REDUCE | PL_FAM_QUANT)
    if (pl_kind_index(PL_KIND_OF(op)) || pl_kind_reduce(PL_KIND_OF(op)) || pl_kind_quant(PL_KIND_OF(op)))
        return pl_verify_whole(s, r);
#endif
    int64_t n = pl_count(&op->out);
    int odt = op->out.dtype;
    double worst = 0;
    /* ScatterND's reference searches the index rows for each element: on a big layer, a
     * sample of the elements (every step-th) keeps that under about 2e8 comparisons */
    int64_t step = 1, rows = 0, q = 0, slice = 1;
    if (PL_KIND_OF(op) == PL_SCATTER_ND && op->in[1].nd) {
        q = op->in[1].d[op->in[1].nd - 1];
        rows = q ? pl_count(&op->in[1]) / q : 0;
        for (int k = (int)q; k < op->in[0].nd; k++)
            slice *= op->in[0].d[k];
        double work = (double)n * (double)rows;
        step = work > 2e8 ? (int64_t)(work / 2e8) + 1 : 1;
    }
    int64_t checked = 0;
    for (int64_t i = 0; i < n; i += step) {
        checked++;
        int64_t coord[8], rem = i;
        for (int k = op->out.nd - 1; k >= 0; k--) {
            coord[k] = op->out.d[k] ? rem % op->out.d[k] : 0;
            rem = op->out.d[k] ? rem / op->out.d[k] : 0;
        }
        double want;
        if (PL_KIND_OF(op) == PL_SCATTER_ND && op->flag) {
            /* a reduction: the data, then every index row naming this element, in order */
            const int64_t *idx = (const int64_t *)s->in[1];
            int64_t within = 0;
            for (int k = (int)q; k < op->in[0].nd; k++)
                within = within * op->in[0].d[k] + coord[k];
            want = pl_load(s->in[0], op->in[0].dtype, i);
            for (int64_t row = 0; row < rows; row++) {
                int match = 1;
                for (int k = 0; k < q && match; k++) {
                    int64_t c = idx[row * q + k];
                    match = (c < 0 ? c + op->in[0].d[k] : c) == coord[k];
                }
                if (match)
                    want = pl_round(odt, pl_scatter_apply(op->flag, want, pl_load(s->in[2], op->in[2].dtype,
                                                                                   row * slice + within)));
            }
        } else if (PL_KIND_OF(op) == PL_SCATTER_ND) {
            /* the last index row naming this element's first q coordinates, else the data */
            const int64_t *idx = (const int64_t *)s->in[1];
            int64_t hit = -1;
            for (int64_t row = rows - 1; row >= 0 && hit < 0; row--) {
                int match = 1;
                for (int k = 0; k < q && match; k++) {
                    int64_t c = idx[row * q + k];
                    match = (c < 0 ? c + op->in[0].d[k] : c) == coord[k];
                }
                if (match)
                    hit = row;
            }
            if (hit < 0) {
                want = pl_load(s->in[0], op->in[0].dtype, i);
            } else {
                int64_t within = 0;
                for (int k = (int)q; k < op->in[0].nd; k++)
                    within = within * op->in[0].d[k] + coord[k];
                want = pl_load(s->in[2], op->in[2].dtype, hit * slice + within);
            }
        } else if (PL_KIND_OF(op) == PL_SPLIT && op->flag) {
            /* Concat: output (a, t, c) is row t - at of the piece that holds row t along
             * axis, which starts after the pieces before it (outer * at * inner elements) */
            int64_t outer, dim, inner, at = 0;
            pl_axis_split(&op->out, op->axis, &outer, &dim, &inner);
            int64_t a = i / (dim * inner), t = i / inner % dim, c = i % inner;
            int j = 0;
            while (j < op->nsplit - 1 && t >= at + op->split[j])
                at += op->split[j++];
            want = pl_load(s->in[0], op->in[0].dtype, outer * at * inner + (a * op->split[j] + t - at) * inner + c);
        } else if (PL_KIND_OF(op) == PL_SPLIT) {
            int64_t outer, dim, inner, at = 0, first = 0;
            pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
            int j = 0;
            while (j < op->nsplit - 1 && i >= first + outer * op->split[j] * inner) {
                first += outer * op->split[j] * inner;
                at += op->split[j];
                j++;
            }
            int64_t local = i - first, piece = op->split[j] * inner;
            int64_t a = local / piece, t = local % piece / inner, c = local % inner;
            want = pl_load(s->in[0], op->in[0].dtype, (a * dim + at + t) * inner + c);
        } else if (PL_KIND_OF(op) == PL_ARG) {
            int64_t outer, dim, inner;
            pl_axis_split(&op->in[0], op->axis, &outer, &dim, &inner);
            int64_t a = i / inner, c = i % inner, pick = 0;
            double best = 0;
            for (int64_t t = 0; t < dim; t++) {
                double v = pl_load(s->in[0], op->in[0].dtype, (a * dim + t) * inner + c);
                int better = op->fn == PL_MAX ? v > best : v < best;
                if (t == 0 || better || (op->flag && v == best)) {
                    best = v;
                    pick = t;
                }
            }
            want = (double)pick;
        } else if (PL_KIND_OF(op) == PL_MAP) {
            int64_t src = 0;
            int outside = 0;
            for (int k = 0; k < op->out.nd; k++) {
                int64_t d = op->in[0].d[k];
                int64_t c = op->map == PL_MAP_TILE ? coord[k] % d : op->start[k] + op->step[k] * coord[k];
                if (op->map == PL_MAP_PAD && op->flag && (c < 0 || c >= d)) {
                    if (op->flag == 1) { /* reflection: the mirror image repeats every 2 (d - 1) */
                        int64_t p = 2 * (d - 1), m = p ? (c % p + p) % p : 0;
                        c = m >= d ? p - m : m;
                    } else {
                        c = op->flag == 2 ? (c < 0 ? 0 : d - 1) : (c % d + d) % d;
                    }
                }
                if (c < 0 || c >= d)
                    outside = 1;
                src = src * d + (outside ? 0 : c);
            }
            want = outside ? op->alpha : pl_load(s->in[0], op->in[0].dtype, src);
        } else if (PL_KIND_OF(op) == PL_GATHER) {
            const struct pl_tensor *d = &op->in[0];
            int ni = op->in[1].nd;
            int64_t qi = 0;
            for (int k = 0; k < ni; k++)
                qi = qi * op->in[1].d[k] + coord[op->axis + k];
            int64_t j = ((const int64_t *)s->in[1])[qi];
            if (j < 0)
                j += d->d[op->axis];
            int64_t src = 0;
            for (int k = 0; k < d->nd; k++) {
                int64_t c = k < op->axis ? coord[k] : k == op->axis ? j : coord[k - 1 + ni];
                src = src * d->d[k] + c;
            }
            want = pl_load(s->in[0], d->dtype, src);
        } else {
            double v[PL_MAX_IN] = {0};
            for (int j = 0; j < op->nin; j++) {
                const struct pl_tensor *t = &op->in[j];
                int64_t p = 0;
                for (int k = 0; k < t->nd; k++) {
                    int ok = k + (op->out.nd - t->nd);
                    p = p * t->d[k] + (t->d[k] == 1 ? 0 : coord[ok]);
                }
                v[j] = pl_load(s->in[j], t->dtype, p);
            }
            if (PL_KIND_OF(op) == PL_ROPE) {
                /* x's element in the other half (by pairs: the pair's other), from its
                 * coordinates; negated in the first half (at the even place) */
                int64_t last = op->out.d[op->out.nd - 1], h = coord[op->out.nd - 1], p = 0;
                int64_t oh = op->flag ? (h % 2 == 0 ? h + 1 : h - 1) : h < last / 2 ? h + last / 2 : h - last / 2;
                for (int k = 0; k < op->out.nd; k++)
                    p = p * op->out.d[k] + (k < op->out.nd - 1 ? coord[k] : oh);
                double o = pl_load(s->in[0], op->in[0].dtype, p);
                want = v[0] * v[1] + (oh > h ? -o : o) * v[2];
            } else {
                double folded = pl_apply(op, v[0], v[1]);
                for (int j = 2; j < op->nin; j++)
                    folded = pl_apply(op, folded, v[j]);
                want = PL_KIND_OF(op) == PL_BINARY ? (op->flag && op->fn == PL_ADD ? folded / op->nin : folded)
                       : PL_KIND_OF(op) == PL_WHERE ? (v[0] != 0 ? v[1] : v[2])
                       : PL_KIND_OF(op) == PL_UNARY ? pl_apply(op, v[0], 0) : v[0];
            }
        }
        pl_store(s->check, odt, 0, want); /* rounded to the output type like the kernel's */
        double w = pl_load(s->check, odt, 0), got = pl_load(s->out, odt, i);
        double d = fabs(got - w);
        if (d != d && w == w)
            d = INFINITY;
        if (d > worst)
            worst = d;
    }
    if (worst > 0) {
        bh_note(r, "output differs from the independent reference: max error %.3g", worst);
        return BH_WRONG;
    }
    if (checked < n) {
        bh_note(r, "verified against the reference: an independent element-by-element computation of %lld of the %lld elements (every %lldth; max error 0)",
                (long long)checked, (long long)n, (long long)step);
        return BH_OK;
    }
    bh_note(r, "%s", "verified against the reference: an independent element-by-element computation (max error 0)");
    return BH_OK;
}

static inline void pl_teardown(void *state)
{
    struct pl_state *s = (struct pl_state *)state;
    pl_par_stop(s);
    for (int i = 0; i <= PL_MAX_IN; i++)
        free(s->mem[i]);
    free(s->check);
    free(s->aux);
    free(s->work);
#if PL_FAMILIES & PL_FAM_STRING
    if (pl_kind_string(PL_KIND_OF(s->op)))
        pl_string_free(s);
#endif
    free(s->table);
    for (int i = 0; i <= PL_MAX_IN; i++)
        free(s->text[i]);
#if PL_FAMILIES & PL_FAM_SAMPLE
    if (pl_kind_sample(PL_KIND_OF(s->op)))
        pl_sample_free(s);
#endif
}
#endif /* PL_KERNEL_ONLY */

#endif
