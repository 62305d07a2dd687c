/* Small ONNX models built in C with protobuf-c, for tests and the demo. */
#ifndef BENANZA_ONNX_FIXTURES_H
#define BENANZA_ONNX_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

enum fixture {
    FIXTURE_TINY_CNN,        /* Conv-Relu-MaxPool-Conv-Relu-GlobalAveragePool-Flatten-Gemm */
    FIXTURE_SUBGRAPH,        /* an If whose branches read outer values; nodes stored out of order */
    FIXTURE_DANGLING_INPUT,  /* a node input that nothing produces */
    FIXTURE_CYCLE,           /* two nodes that feed each other */
    FIXTURE_DUPLICATE_OUTPUT,/* two nodes producing the same name */
    FIXTURE_BAD_RAW_DATA,    /* an initializer whose raw_data is shorter than its shape */
    FIXTURE_EXTERNAL_DATA,   /* an initializer stored in an external file */
    FIXTURE_CONV_VARIANTS,   /* one convolution written four ways (three equal, one strided) */
    FIXTURE_TRANSFORMER_BITS,/* decomposed LayerNorm, MatMul+bias, decomposed GELU */
    FIXTURE_CUSTOM_OP,       /* Relu -> com.example:Frobnicate (twice) -> Sigmoid */
    FIXTURE_RESIDUAL,        /* Conv -> BatchNormalization -> Add(input) -> Relu, a residual block */
    FIXTURE_WIDE_CONCAT,     /* Relu -> Concat of forty inputs along the channels */
    FIXTURE_HOSTILE_NAMES,   /* Conv -> Relu -> Transpose -> Add, every name hostile to C, shell
                                and Ninja text: comment ends, newlines, quotes, backslashes, $,
                                spaces, ../, bytes that are not UTF-8 */
    FIXTURE_SELECTIONS,      /* TopK (largest, smallest), Split, Concat (three pieces; int64; one
                                piece), ArgMax (last index), ScatterND: the plain C benchmarks
                                whose semantics are easy to get wrong */
    FIXTURE_DECONV,          /* ConvTranspose grouped + dilated + strided + output_padding (2-D), depthwise
                                (1-D, uneven pads), 3-D with bias: verified by a plain C deconvolution */
    FIXTURE_MATHS,           /* plain C maths oneDNN has not: Mod (sign of the divisor; fmod), Mean and
                                Max of three broadcasting inputs, Acosh, Atanh, IsInf, IsNaN, Shrink,
                                Celu, ThresholdedRelu */
    FIXTURE_INDEXING,        /* GatherElements, ScatterElements (add, max), GatherND (batch_dims), ScatterND
                                (mul), CumSum, Trilu, OneHot, ReverseSequence, EyeLike, Range, Pad (reflect,
                                edge with cropping, wrap, a constant value), a strided Slice; opset 19 */
    FIXTURE_REDUCTIONS,      /* ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, integer ReduceProd, MVN,
                                Hardmax, BitShift, casts to/from f16 and bf16, Max of five; opset 19 */
    FIXTURE_QUANTIZED,       /* a QDQ chain (two int8 fusion groups) and the QOperator forms: QLinearConv,
                                ConvInteger, QLinearMatMul, MatMulInteger, DynamicQuantizeLinear, a per-axis
                                DequantizeLinear; opset 19 */
    FIXTURE_POST_LN,         /* residual sums before LayerNormalization (opset 17): Add -> LN, Add -> Add
                                bias -> LN, and a sum also read by a graph output (kept) */
    FIXTURE_COUNT
};

/* Name used on the command line of mkfixture, and the fixture by name (-1 if unknown). */
const char *fixture_name(enum fixture f);
int fixture_by_name(const char *name);

/* Serialized model; *out is malloc'd. */
size_t fixture_build(enum fixture f, uint8_t **out);

#endif
