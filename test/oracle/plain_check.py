#!/usr/bin/env python3
"""Oracle for the plain C benchmarks of a generated folder whose semantics are easy to get
subtly wrong: ScatterND, Split and Concat, ArgMax/ArgMin, TopK, the index and scan operators
(GatherElements, GatherND, ScatterElements, CumSum, Trilu, OneHot, ReverseSequence, EyeLike,
Range), the reductions and normalisations oneDNN has not (Reduce*, MeanVarianceNormalization,
Hardmax), Softmax and LogSoftmax, LSTM, GRU and RNN (against ONNX Runtime: onnx.reference has
not all their attributes), the four arithmetic operations of floats, casts and the maths that
oneDNN has not (inverse and hyperbolic trigonometry, IsInf/IsNaN, Celu, Shrink, ThresholdedRelu,
Gelu in both forms, Mod, BitShift, the n-ary Sum/Mean/Min/Max),
resampling (Resize, GridSample), Einsum, the transforms (DFT, STFT), Det, RoiAlign, MaxUnpool,
the losses, the training optimizers, a ConvTranspose whose stride is its kernel, NonZero, Compress, Unique and NonMaxSuppression, casts to
and from strings (to strings: against ONNX Runtime, whose form of a number the benchmark
follows), StringNormalizer, StringConcat, StringSplit and RegexFullMatch, in
every element type the plain kernels take. Each such benchmark file is compiled
into a small driver (the file itself, its main renamed) that runs the benchmark's own setup
and kernel once and writes the inputs it made and the outputs it computed; onnx's reference
implementation of the layer (the attributes from the file's layer key) runs on the same
inputs and must give the same outputs, exactly. Every other plain C file of the folder runs in
such a driver too, for where its buffers lie (pl_place: no two first used less than 448 bytes
apart modulo a page).

usage: plain_check.py FOLDER   (one line per benchmark; exit 1 on a mismatch or when none ran)"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
from onnx import numpy_helper
from single_node import layer_key, run_node, run_node_ort

OPS = ("ScatterND", "Split", "Concat", "ArgMax", "ArgMin", "TopK", "GatherElements", "GatherND", "ScatterElements", "Scatter",
       "CumSum", "Trilu", "OneHot", "ReverseSequence", "EyeLike", "Range", "Cast", "CastLike", "BitShift",
       "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear")
# maths that onnx.reference computes in float32 where the benchmark rounds a double: equal
# within 1e-6 of the largest value (exactly for integers and booleans)
MATHS = ("Einsum", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsInf", "IsNaN", "Celu", "Shrink",
         "ThresholdedRelu", "Swish", "Gelu", "Mod", "Sum", "Mean", "Min", "Max", "Pow", "PRelu", "Hardmax", "MeanVarianceNormalization",
         "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
         "ReduceLogSumExp", "ReduceSumSquare")
# the four arithmetic operations of floats (their plain C files beside oneDNN's, where an operand
# is one value): in float and double exactly (each is the type's own correctly rounded
# operation in both), in the 16-bit types as MATHS; of integers, where onnx.reference's division
# is not C's, only placed
BINARY = ("Add", "Sub", "Mul", "Div")
# resampling, computed in float by the benchmark and in float64 (Resize) or float32 (GridSample)
# by onnx.reference: within 1e-5 of the largest value (integers: one step, a value near .5 may
# round either way)
SAMPLING = ("Resize", "Upsample", "GridSample")
# transforms, computed in double by the benchmark and by numpy's FFT: within 1e-5 of the
# largest value
SIGNAL = ("DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow")
# Det (within 1e-5 of Hadamard's bound: numpy's LU runs in the input's type), RoiAlign and the
# losses and ConvTranspose (within 1e-5 of the largest value), MaxUnpool (exactly)
NN = ("Det", "RoiAlign", "MaxUnpool", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "Adagrad", "Momentum",
      "Adam", "TfIdfVectorizer", "ConvTranspose")
# Softmax and LogSoftmax (plain C computes in float, or double): against onnx.reference in
# float64 rounded to the output's type, each element within 1e-6 of y (1 + |d|) in float (d its
# difference from its row's largest; about 8 units in the last place of y), one unit in the
# last place in float16 and bfloat16 (LogSoftmax: of |d| + |log sum|)
SOFTMAX = ("Softmax", "LogSoftmax")
# the recurrent layers (float, in float by plain C): against ONNX Runtime's CPU implementation
# (onnx.reference has neither the activations, clip nor sequence_lens), Y, Y_h and Y_c one after
# the other, each element within 1e-5 of 1 + |value|
RNNS = ("LSTM", "GRU", "RNN")
# outputs whose size depends on the data: the benchmark's buffer is the largest; the elements
# it wrote (and their count) must be the reference's, exactly
SELECT = ("NonZero", "Compress", "NonMaxSuppression", "Unique")
# tensors of strings (Cast and CastLike to and from strings are in OPS): the strings, exactly
STRINGS = ("StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch")
NP = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_,
      10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64, 16: ml_dtypes.bfloat16, 8: object}

DRIVER = r'''
#define main benanza_bench_main
#include "%s"
#undef main
#include <stdio.h>
static void put(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%%s/%%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f))
        exit(2);
}
/* a string tensor: each element's length (int64), then its bytes */
static void put_text(const char *dir, const char *name, char *const *p, int64_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%%s/%%s", dir, name);
    FILE *f = fopen(path, "wb");
    for (int64_t i = 0; f && i < n; i++) {
        int64_t len = (int64_t)strlen(p[i]);
        if (fwrite(&len, sizeof(len), 1, f) != 1 || fwrite(p[i], 1, (size_t)len, f) != (size_t)len)
            exit(2);
    }
    if (!f || fclose(f))
        exit(2);
}
int main(int argc, char **argv)
{
    static struct pl_state st;
    struct bh_opts o;
    struct bh_result r;
    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    st.op = &OP;
    if (argc != 2 || pl_setup(&st, &o, &r) != BH_OK)
        return 2;
    /* where the output and each input are first written or read in their page (pl_place; a
     * Slice's input from its first element) */
    {
        char path[4096];
        snprintf(path, sizeof(path), "%%s/places", argv[1]);
        FILE *f = fopen(path, "w");
        if (!f)
            exit(2);
        fprintf(f, "%%lu\n", (unsigned long)((uintptr_t)st.out %% 4096));
        int64_t first = pl_slice_first(&OP) > 0 ? pl_slice_first(&OP) : 0; /* in[0]'s */
        for (int i = 0; i < OP.nin; i++, first = 0)
            fprintf(f, "%%lu\n", (unsigned long)(((uintptr_t)st.in[i] + (uintptr_t)first * pl_esize(OP.in[i].dtype)) %% 4096));
        if (fclose(f))
            exit(2);
    }
    pl_kernel(&st);
    static const char *const names[] = {"in0", "in1", "in2", "in3", "in4", "in5", "in6", "in7"};
    for (int i = 0; i < OP.nin; i++)
        if (OP.in[i].dtype == PL_STRING)
            put_text(argv[1], names[i], (char *const *)st.in[i], pl_count(&OP.in[i]));
        else
            put(argv[1], names[i], st.in[i], (size_t)pl_count(&OP.in[i]) * pl_esize(OP.in[i].dtype));
    if (OP.out.dtype == PL_STRING)
        put_text(argv[1], "out", (char *const *)st.out,
                 OP.kind == PL_STR_CAST || OP.kind == PL_STR_CONCAT ? pl_count(&OP.out) : st.selected);
    else
        put(argv[1], "out", st.out, (size_t)pl_count(&OP.out) * pl_esize(OP.out.dtype));
    put(argv[1], "selected", &st.selected, sizeof(st.selected));
    if (OP.kind == PL_STR_SPLIT) /* the counts */
        put(argv[1], "aux", st.aux, (size_t)pl_count(&OP.in[0]) * 8);
    if (OP.kind == PL_TOPK) /* the indices */
        put(argv[1], "aux", st.aux, (size_t)pl_count(&OP.out) * 8);
#if PL_FAMILIES & PL_FAM_SELECT
    if (OP.kind == PL_UNIQUE) { /* first indices, inverse, counts: one per slice each */
        int64_t outer, dim, inner;
        pl_unique_geom(&OP, &outer, &dim, &inner);
        put(argv[1], "aux", st.aux, (size_t)(3 * dim) * 8);
    }
#endif
    put(argv[1], "naux", &st.naux, sizeof(st.naux));
    pl_teardown(&st);
    (void)benanza_bench_main;
    return 0;
}
'''


PL_DTYPES = {"PL_FLOAT": 1, "PL_UINT8": 2, "PL_INT8": 3, "PL_UINT16": 4, "PL_INT16": 5, "PL_INT32": 6, "PL_INT64": 7,
             "PL_STRING": 8, "PL_BOOL": 9, "PL_FLOAT16": 10, "PL_DOUBLE": 11, "PL_UINT32": 12, "PL_UINT64": 13,
             "PL_BFLOAT16": 16}


def op_init(text):
    """the file's layer description (the BZ_OP macro), its element types as ONNX's numbers"""
    m = re.search(r"^#define BZ_OP \\\n((?:.*\\\n)*.*)$", text, re.M)
    body = "\n".join(line[:-2] if line.endswith(" \\") else line for line in m.group(1).split("\n"))
    return re.sub(r"\bPL_[A-Z0-9]+\b", lambda t: str(PL_DTYPES.get(t.group(0), t.group(0))), body)


def tensor_of(text, field):
    """(dtype, shape) of `.in[i]`/`.out` in the file's layer description"""
    init = op_init(text)
    if field == "out":
        m = re.search(r"\.out = \{(\d+), (\d+), \{([^}]*)\}\}", init)
        return int(m.group(1)), [int(v) for v in m.group(3).split(",") if v.strip()][: int(m.group(2))]
    ins = re.search(r"\.in = \{(.*)\},\n", init).group(1)
    parts = re.findall(r"\{(\d+), (\d+), \{([^}]*)\}\}", ins)
    dt, nd, dims = parts[field]
    return int(dt), [int(v) for v in dims.split(",") if v.strip()][: int(nd)]


# inputs of the ONNX node that the key holds as attributes (gen's canonical form) or that the
# benchmark does not feed: (attribute, ONNX input position, numpy type)
AS_INPUTS = {"CumSum": ("axis", 1, np.int64), "Trilu": ("k", 1, np.int64)}
REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
          "ReduceLogSumExp", "ReduceSumSquare")


def resize_by_axis(x, attrs, scales, out, roi):
    """Resize as onnx.reference's _interpolate_nd does it, one dim at a time, with float64
    scales that the scales input (float32) cannot carry"""
    from onnx.numpy_helper import saturate_cast
    from onnx.reference.ops import op_resize as R
    mode = attrs["mode"]
    if mode == "nearest":
        def fct(r, s):
            return R._nearest_coeffs(r, mode=attrs["nearest_mode"])
    elif mode == "cubic":
        f = R._cubic_coeffs_antialias if attrs["antialias"] else R._cubic_coeffs

        def fct(r, s):
            return f(r, s, A=attrs["cubic_coeff_a"])
    else:
        fct = R._linear_coeffs_antialias if attrs["antialias"] else R._linear_coeffs
    y, n = x.astype(np.float64), len(out)
    for a in range(n):
        if abs(scales[a] - 1) <= 1e-9 and out[a] == y.shape[a] and (roi is None or (roi[a] == 0 and roi[a + n] == 1)):
            continue
        y = R._interpolate_1d_along_axis(y, a, float(scales[a]), out[a], fct,
                                         roi=None if roi is None else [roi[a], roi[a + n]],
                                         extrapolation_value=attrs["extrapolation_value"],
                                         coordinate_transformation_mode=attrs["coordinate_transformation_mode"],
                                         exclude_outside=bool(attrs["exclude_outside"]))
    return saturate_cast(y, x.dtype)


def reference(key, inputs):
    """onnx.reference on the layer (opset 13: Split's sizes and TopK's k as inputs; 18 for the
    reductions, whose axes are inputs there, and ScatterND's max/min; the old opsets for
    Hardmax's 2-D view and the old Scatter)"""
    op = key["op"]
    attrs = dict(key["attrs"])
    feeds = {"x%d" % i: v for i, v in enumerate(inputs)}
    extra = []
    opset = 13
    if op in AS_INPUTS:
        name, _, npt = AS_INPUTS[op]
        if attrs.get(name) is not None:
            extra.append((name, np.array(attrs[name], dtype=npt)))
        attrs.pop(name, None)
    if op in REDUCE:
        opset = 18
        extra.append(("axes", np.array(attrs.pop("axes"), dtype=np.int64)))
    if op == "ScatterND":
        opset = 18
    if op == "Hardmax":
        if attrs.pop("coerce_2d", 0):
            opset = 11
    if op == "Scatter":
        op, opset = "ScatterElements", 13
    if op in ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"):
        opset = 19  # onnx.reference's DequantizeLinear starts there
        attrs.pop("zero_point", None)  # gen's: the zero point's value, an input of the node
    if op in ("Cast", "CastLike") and key["outputs"][0]["dtype"] == "STRING":
        # numbers printed as ONNX Runtime prints them (onnx.reference prints as numpy does)
        if op == "CastLike":
            feeds["x1"] = np.array([""], dtype=object)
        return run_node_ort(op, attrs, feeds, [8], opset=15 if op == "CastLike" else 13)
    if op == "CastLike":  # the second input only gives the type: the output's
        opset = 15
        feeds["x1"] = np.zeros((1,), dtype=NP[TYPES[key["outputs"][0]["dtype"]]])
    if op in ("StringConcat", "StringSplit", "RegexFullMatch"):
        return run_node(op, attrs, feeds, nout=len(key["outputs"]), opset=20)
    if op == "StringNormalizer":
        if attrs.get("case_change_action", "NONE") == "NONE" and not attrs.get("is_case_sensitive", 0):
            return [normalize_spec(inputs[0], attrs)]
        opset = 10
    if op in ("Resize", "Upsample"):
        # every mode at opset 19 with the key's scales of every dim and roi: as the scales
        # input when they are float32 values that give the output's shape, else as the sizes
        # when they are output / input; else (a keep_aspect_ratio_policy's common scale) one
        # dim at a time through onnx.reference's own 1-D resize, with the scales in float64
        op, opset = "Resize", 19
        scales64 = np.array(attrs.pop("scales"), dtype=np.float64)
        scales = scales64.astype(np.float32)
        roi = attrs.pop("roi", None)
        shape = np.array(inputs[0].shape)
        out = [int(v) for v in key["outputs"][0]["shape"]]
        feeds["roi"] = np.array(roi if roi is not None else [], dtype=np.float32)
        if np.array_equal(scales.astype(np.float64), scales64) and list((scales64 * shape).astype(np.int64)) == out:
            feeds["scales"] = scales
        elif np.array_equal(scales64, np.array(out, dtype=np.float64) / shape):
            feeds["scales"] = np.array([], dtype=np.float32)
            feeds["sizes"] = np.array(out, dtype=np.int64)
        else:
            return [resize_by_axis(inputs[0], attrs, scales64, out, roi)]
        x = feeds.pop("x0")
        feeds = {"x0": x, **feeds}
    if op in ("GridSample", "Gelu"):
        opset = 20
    if op == "DFT":  # opset 20: dft_length and the axis are inputs
        opset = 20
        feeds["dft_length"] = np.array(attrs.pop("dft_length", inputs[0].shape[attrs["axis"]]), dtype=np.int64)
        feeds["axis"] = np.array(attrs.pop("axis"), dtype=np.int64)
    if op in ("HannWindow", "HammingWindow", "BlackmanWindow"):  # the size is the output's
        opset = 17
        feeds["size"] = np.array(key["outputs"][0]["shape"][0], dtype=np.int64)
        attrs["output_datatype"] = TYPES[key["outputs"][0]["dtype"]]
    if op == "Det":
        opset = 11
    if op == "RoiAlign":
        opset = 16
    if op == "MaxUnpool":  # output_shape when the output is larger than the unpooled shape
        opset = 11
        x = inputs[0]
        k, st, p = attrs["kernel_shape"], attrs["strides"], attrs["pads"]
        n = len(k)
        inferred = list(x.shape[:2]) + [(x.shape[2 + j] - 1) * st[j] - p[j] - p[j + n] + k[j] for j in range(n)]
        if list(key["outputs"][0]["shape"]) != inferred:
            feeds["shape"] = np.array(key["outputs"][0]["shape"], dtype=np.int64)
    if op in ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"):
        opset = 13
        if attrs.pop("log_prob", 0):
            return run_node(op, attrs, feeds, nout=2, opset=opset)[:1]
    if op in ("Adagrad", "Momentum", "Adam"):
        # the benchmark runs each role's tensors as one: split them back into the node's inputs;
        # its output is the node's outputs one after the other
        roles = 4 if op == "Adam" else 3
        shapes = [t["shape"] for t in key["inputs"][2:]]
        n = len(shapes) // roles
        ins = [inputs[0].reshape(()), inputs[1].reshape(())]
        for k in range(roles):
            flat, at = inputs[2 + k].ravel(), 0
            for j in range(n):
                size = int(np.prod(shapes[k * n + j]))
                ins.append(flat[at:at + size].reshape(shapes[k * n + j]))
                at += size
        outs = run_node(op, attrs, {"x%d" % i: v for i, v in enumerate(ins)}, nout=n * (roles - 1),
                        domain="ai.onnx.preview.training")
        return [np.concatenate([o.ravel() for o in outs])]
    if op == "TfIdfVectorizer":  # the tokens as the node's type
        opset = 9
        feeds["x0"] = inputs[0].astype(NP[TYPES[key["inputs"][0]["dtype"]]])
        if "weights" not in attrs:  # all 1 (onnx.reference's IDF and TFIDF fail without them)
            attrs["weights"] = [1.0] * key["outputs"][0]["shape"][-1]
    if op == "NonZero":
        opset = 13
    if op == "Unique":  # all four outputs
        return run_node(op, attrs, feeds, nout=4, opset=11)
    if op == "Compress":
        opset = 11
    if op == "NonMaxSuppression":  # the key's constants as the inputs they were
        opset = 11
        feeds["max_output_boxes_per_class"] = np.array([attrs.pop("max_output_boxes_per_class")], dtype=np.int64)
        feeds["iou_threshold"] = np.array([attrs.pop("iou_threshold")], dtype=np.float32)
        if "score_threshold" in attrs:
            feeds["score_threshold"] = np.array([attrs.pop("score_threshold")], dtype=np.float32)
    if op == "STFT":  # frame_step, the window (the benchmark's, when it has one) and frame_length
        opset = 17
        window = feeds.pop("x1", None)
        feeds["frame_step"] = np.array(attrs.pop("frame_step"), dtype=np.int64)
        feeds["window"] = window if window is not None else np.ones(attrs["frame_length"], dtype=inputs[0].dtype)
        feeds["frame_length"] = np.array(attrs.pop("frame_length"), dtype=np.int64)
    if op == "Split":
        attrs.pop("split", None)
        axis = attrs.get("axis", 0) % len(inputs[0].shape)
        extra.append(("split", [o["shape"][axis] for o in key["outputs"]]))
    if op == "TopK":
        axis = attrs.get("axis", -1) % len(inputs[0].shape)
        extra.append(("k", [key["outputs"][0]["shape"][axis]]))
    if op == "Pow" and "exponent" in attrs:  # gen's: the constant exponent, the node's second input
        e = key["inputs"][1]
        extra.append(("exponent", np.full(e["shape"], attrs.pop("exponent"), dtype=NP[TYPES[e["dtype"]]])))
    inits = [numpy_helper.from_array(np.asarray(v) if isinstance(v, np.ndarray) else np.array(v, dtype=np.int64), n)
             for n, v in extra]
    return run_node(op, attrs, feeds, inits, [n for n, _ in extra], len(key["outputs"]), opset=opset)


def read_text(path):
    """a string tensor as the driver writes it: each element's length (int64), then its bytes"""
    data, out, at = open(path, "rb").read(), [], 0
    while at < len(data):
        n = int.from_bytes(data[at:at + 8], "little", signed=True)
        out.append(data[at + 8:at + 8 + n].decode("utf-8"))
        at += 8 + n
    return out


def normalize_spec(x, attrs):
    """StringNormalizer as the ONNX specification says (onnx.reference compares the stopwords
    case-sensitively when the case does not change, whatever is_case_sensitive says): the
    elements equal to a stopword (case folded unless is_case_sensitive) removed, then the case
    changed; one empty string when none is left"""
    fold = not attrs.get("is_case_sensitive", 0)
    stops = {w.lower() if fold else w for w in attrs.get("stopwords", [])}
    action = attrs.get("case_change_action", "NONE")
    kept = [w for w in x.ravel() if (w.lower() if fold else w) not in stops]
    kept = [w.lower() if action == "LOWER" else w.upper() if action == "UPPER" else w for w in kept] or [""]
    return np.array(kept, dtype=object).reshape((1, -1) if x.ndim == 2 else (-1,))


TYPES = {"FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7, "BOOL": 9, "FLOAT16": 10,
         "DOUBLE": 11, "UINT32": 12, "UINT64": 13, "BFLOAT16": 16, "STRING": 8}


def workdir_and_gen(doc):
    """an oracle's WORKDIR argument (made) and gen (BENANZA_GEN, else bin/gen); None after the
    usage line DOC ends with, when the arguments are not one WORKDIR"""
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(doc.split("\n\n")[-1], file=sys.stderr)
        return None
    os.makedirs(sys.argv[1], exist_ok=True)
    return sys.argv[1], os.environ.get("BENANZA_GEN", "bin/gen")


def gen_folder(gen, model, batch, folder):
    """gen on MODEL at BATCH into FOLDER (CPU benchmarks): None, or what went wrong"""
    done = subprocess.run([gen, "-b", str(batch), model, "-o", folder], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    return "gen exit %d: %s" % (done.returncode, done.stderr.strip()[-300:]) if done.returncode else None


def manifest_rows(folder, kind):
    """[(pattern, layer id, node indexes)] of the folder's manifest rows of KIND (group, part)"""
    found = []
    with open(os.path.join(folder, "manifest.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == kind:
                found.append((c[3], c[4], [int(i) for i in c[5].split(",")]))
    return found


def group_against_ort(folder, layer, f16, group_model, names, text_checks, tmp):
    """a fusion group's plain C benchmark (LAYER's c_plain file, f16 or f32) against ONNX Runtime
    running GROUP_MODEL (the group's nodes) on the inputs the benchmark made, fed as NAMES in
    the file's input order; each (TEXT, PRESENT) of TEXT_CHECKS says whether the file must hold
    TEXT. The worst error relative to 1 + |value|, or what went wrong"""
    import onnxruntime as ort
    path = os.path.join(folder, "bench", "%s-%s-c_plain.c" % (layer, "f16" if f16 else "f32"))
    if not os.path.exists(path):
        return "no %s" % os.path.basename(path)
    text = open(path).read()
    for want, present in text_checks:
        if (want in text) != present:
            return "%s %s %r" % (os.path.basename(path), "lacks" if present else "holds", want)
    err = run_driver(path, tmp)
    if err:
        return err
    feeds = {}
    for k, name in enumerate(names):
        dt, shape = tensor_of(text, k)
        feeds[name] = np.fromfile(os.path.join(tmp, "in%d" % k), dtype=NP[dt]).reshape(shape)
    odt, oshape = tensor_of(text, "out")
    got = np.fromfile(os.path.join(tmp, "out"), dtype=NP[odt]).reshape(oshape).astype(np.float64)
    want = ort.InferenceSession(group_model, providers=["CPUExecutionProvider"]).run(None, feeds)[0].astype(np.float64)
    return float(np.max(np.abs(got - want) / (1 + np.abs(want))))


def run_driver(path, tmp):
    """the benchmark's setup and kernel once, in a driver built from the file (at -O0: what it
    computes is the same, and the drivers build in a third of -O1's time), its inputs and
    outputs written to tmp; None, or what went wrong"""
    os.makedirs(tmp)
    exe = os.path.join(tmp, "driver")
    with open(exe + ".c", "w") as f:
        f.write(DRIVER % os.path.abspath(path))
    for cmd in (["cc", "-std=c11", "-O0", "-w", exe + ".c", "-o", exe, "-lm"], [exe, tmp]):
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        if done.returncode:
            return "%s: exit %d: %s" % (os.path.basename(cmd[0]), done.returncode, done.stderr.strip()[-400:])
    return None


def check(path, key, text, tmp):
    inputs = []
    nin = int(re.search(r"\.nin = (\d+)", text).group(1))
    for i in range(nin):
        dt, shape = tensor_of(text, i)
        path = os.path.join(tmp, "in%d" % i)
        if dt == 8:
            inputs.append(np.array(read_text(path), dtype=object).reshape(shape))
        else:
            inputs.append(np.fromfile(path, dtype=NP[dt]).reshape(shape))
    odt, oshape = tensor_of(text, "out")
    if key["op"] == "Concat":  # the pieces one after the other, each in its own shape
        flat, inputs, at = inputs[0].ravel(), [], 0
        for t in key["inputs"]:
            size = int(np.prod(t["shape"]))
            inputs.append(flat[at:at + size].reshape(t["shape"]))
            at += size
        if at != flat.size:
            return False
    if key["op"] in RNNS:
        return rnn_check(key, text, inputs, np.fromfile(os.path.join(tmp, "out"), dtype=np.float32))
    want = None if key["op"] in SOFTMAX else reference(key, inputs)  # Softmax's: below
    if odt == 8:  # strings: the kernel's (the ones it kept) and the reference's, exactly
        same = read_text(os.path.join(tmp, "out")) == [str(w) for w in want[0].ravel()]
        if key["op"] == "StringSplit":  # and the counts
            same = same and np.array_equal(np.fromfile(os.path.join(tmp, "aux"), dtype=np.int64), want[1].ravel())
        return same
    got = np.fromfile(os.path.join(tmp, "out"), dtype=NP[odt])
    if key["op"] in SOFTMAX:
        x, attrs = inputs[0].astype(np.float64), key["attrs"]
        axis = attrs["axis"]
        if attrs["coerce_2d"]:  # before opset 13: over the 2-D view (onnx.reference takes only 13's form)
            x, axis = x.reshape(int(np.prod(x.shape[:axis])), -1), 1
        d = x - np.max(x, axis=axis, keepdims=True)
        log_sum = np.log(np.sum(np.exp(d), axis=axis, keepdims=True))
        exact = run_node("Softmax", {"axis": axis}, {"x0": x})[0]
        if key["op"] == "LogSoftmax":
            # d less the log of the sum of e^d (onnx.reference's LogSoftmax takes the log of its
            # softmax: -inf where that underflows, as at the benchmark's -10000s); where onnx's
            # softmax is normal, its log must agree
            normal = exact > 1e-300
            if not np.allclose(np.log(exact[normal]), (d - log_sum)[normal], rtol=1e-12, atol=1e-12):
                return False
            exact = d - log_sum
        want = exact.astype(NP[odt]).astype(np.float64).ravel()
        got = got.astype(np.float64)
        dt = np.dtype(NP[odt])
        rtol = {np.dtype(np.float16): 1e-3, np.dtype(ml_dtypes.bfloat16): 8e-3, np.dtype(np.float64): 1e-12}.get(dt, 1e-6)
        step = {np.dtype(np.float16): 2.0 ** -24, np.dtype(ml_dtypes.bfloat16): 2.0 ** -133,
                np.dtype(np.float64): 2.0 ** -1074}.get(dt, 2.0 ** -149)
        # each element's scale: y (1 + |d|), the difference's rounding carried through e^d
        # (LogSoftmax: |d| + |log sum|, its terms'); non-finite only where the reference is
        scale = (np.abs(d) + np.abs(log_sum) if key["op"] == "LogSoftmax" else np.abs(exact) * (1 + np.abs(d))).ravel()
        scale = np.where(np.isfinite(want), scale, 0)
        near = (got == want) | (np.abs(got - want) <= rtol * scale + step)
        return got.shape == want.shape and bool(np.all(near))
    if key["op"] == "Split":  # the pieces one after the other
        return np.array_equal(got, np.concatenate([w.ravel() for w in want]))
    if key["op"] == "TopK":
        idx = np.fromfile(os.path.join(tmp, "aux"), dtype=np.int64)
        return np.array_equal(got, want[0].ravel()) and np.array_equal(idx, want[1].ravel())
    if key["op"] == "Unique":  # y, then the first indices, inverse and counts from aux
        selected = int(np.fromfile(os.path.join(tmp, "selected"), dtype=np.int64)[0])
        k = int(np.fromfile(os.path.join(tmp, "naux"), dtype=np.int64)[0])
        aux = np.fromfile(os.path.join(tmp, "aux"), dtype=np.int64).reshape(3, -1)
        y, idx, inv, cnt = want
        return (selected == y.size and np.array_equal(got[:selected], y.ravel()) and np.array_equal(aux[0, :k], idx)
                and np.array_equal(aux[1], inv.ravel()) and np.array_equal(aux[2, :k], cnt))
    if key["op"] in SELECT:
        selected = int(np.fromfile(os.path.join(tmp, "selected"), dtype=np.int64)[0])
        want = want[0].ravel()
        return selected == want.size and got.dtype == want.dtype and np.array_equal(got[:selected], want)
    want = want[0].ravel()
    is_float = got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16
    if key["op"] in SAMPLING:
        got, want = got.astype(np.float64), want.astype(np.float64)
        if not is_float:
            # integers: the value before rounding from the same reference on a float64 copy of
            # the input; exactly its rounding (half to even), either neighbour within 1e-4 of .5
            exact = reference(key, [inputs[0].astype(np.float64)] + inputs[1:])[0].ravel()
            near_half = np.abs(exact - np.floor(exact) - 0.5) < 1e-4
            info = np.iinfo(NP[odt])
            rounded = np.clip(np.round(exact), info.min, info.max)
            ok = (got == rounded) | (near_half & (np.abs(got - exact) < 0.5 + 1e-4))
            return got.shape == want.shape and bool(np.all(ok))
        tol = {np.dtype(np.float16): 2e-3, np.dtype(ml_dtypes.bfloat16): 1.6e-2}.get(np.dtype(NP[odt]), 1e-5)
        scale = max(float(np.max(np.abs(want), initial=0)), 1e-6)
        return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol * scale))
    if key["op"] == "MaxUnpool":
        return got.shape == want.shape and np.array_equal(got, want)
    if key["op"] == "Det":
        x = inputs[0].astype(np.float64)
        bound = np.prod(np.sqrt(np.sum(x * x, axis=-1)), axis=-1).ravel()
        return got.shape == want.shape and bool(np.all(np.abs(got.astype(np.float64) - want) <= 1e-5 * bound))
    if key["op"] in SIGNAL + NN:
        got, want = got.astype(np.float64), want.astype(np.float64)
        scale = max(float(np.max(np.abs(want), initial=0)), 1e-6)
        return got.shape == want.shape and bool(np.all(np.abs(got - want) <= 1e-5 * scale))
    if key["op"] in BINARY and got.dtype in (np.float32, np.float64):
        return got.shape == want.shape and np.array_equal(got, want.astype(got.dtype), equal_nan=True)
    if key["op"] in MATHS + BINARY and is_float:
        # float maths: within 1e-6 of the largest value in f32, a step of the type below it
        got, want = got.astype(np.float64), want.astype(np.float64)
        tol = {np.dtype(np.float16): 1e-3, np.dtype(ml_dtypes.bfloat16): 8e-3}.get(np.dtype(NP[odt]), 1e-6)
        scale = max(float(np.max(np.abs(want[np.isfinite(want)]), initial=0)), 1e-6)
        same = np.isclose(got, want, rtol=0, atol=tol * scale, equal_nan=True)
        return bool(np.all(same)) and got.shape == want.shape
    if key["op"] == "Pow" and not is_float:
        # an integer's power: the inputs in its domain (the power in float64 a number that the
        # integer type holds), where the reference's cast is no longer undefined
        e = key["attrs"]["exponent"] if "exponent" in key["attrs"] else inputs[1].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            exact = np.power(inputs[0].astype(np.float64), e)
        info = np.iinfo(NP[odt])
        if not np.all(np.isfinite(exact) & (exact >= info.min) & (exact <= info.max)):
            return False
    if got.dtype != want.dtype:  # the reference's type must be the layer's
        return False
    if is_float:
        return np.array_equal(got.astype(np.float64), want.astype(np.float64), equal_nan=True)
    return np.array_equal(got, want)


def rnn_check(key, text, inputs, got):
    """a recurrent layer's outputs (Y, Y_h, Y_c one after the other) against ONNX Runtime's on
    the benchmark's inputs; those the layer has not (bit i of the file's .has clear) as ONNX's
    empty names. ONNX Runtime takes layout 0 only: layout 1's X, initial_h and initial_c are
    transposed to it, and the outputs back"""
    attrs = dict(key["attrs"])
    if attrs.pop("layout", 0):
        inputs = [v.transpose(1, 0, 2) if i in (0, 5, 6) and v.size else v for i, v in enumerate(inputs)]
    has = int(re.search(r"\.has = 0x([0-9a-f]+)u", text).group(1), 16)
    feeds, names = {}, []
    for i, v in enumerate(inputs):
        if i < 3 or has >> i & 1:
            feeds["x%d" % i] = v
            names.append("x%d" % i)
        else:
            names.append("")
    while names and not names[-1]:
        names.pop()
    nout = 3 if key["op"] == "LSTM" else 2
    outs = run_node_ort(key["op"], attrs, feeds, [1] * nout, opset=14, input_names=names)
    if key["attrs"].get("layout", 0):
        outs = [outs[0].transpose(2, 0, 1, 3)] + [w.transpose(1, 0, 2) for w in outs[1:]]
    want = np.concatenate([w.ravel() for w in outs]).astype(np.float64)
    got = got.astype(np.float64)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= 1e-5 * (1 + np.abs(want))))


def too_near(tmp):
    """None, or which two of the kernel's buffers are first written or read less than 448 bytes
    apart modulo a page (the output, then each input: the driver's `places`), which pl_place is
    there to prevent: a copy between two such buffers runs many times slower on some CPUs"""
    places = [int(v) for v in open(os.path.join(tmp, "places")).read().split()]
    for i in range(len(places)):
        for j in range(i):
            if min((places[i] - places[j]) % 4096, (places[j] - places[i]) % 4096) < 448:
                return "buffers %d and %d are first used %d and %d bytes into their pages" % (j, i, places[j], places[i])
    return None


def main():
    bad = checked = placed = 0
    todo = []
    for path in sorted(glob.glob(sys.argv[1] + "/bench/*-c_plain.c")):
        text = open(path).read()
        key = layer_key(text)
        if not key:
            continue
        # the other plain C files (Slice, Pad, Gather...; the casts that the e2e tests have
        # always verified element by element): where their buffers lie, not their values
        semantic = key["op"] in OPS + MATHS + SAMPLING + SIGNAL + NN + SELECT + STRINGS + SOFTMAX + RNNS and not (
            key["op"] in ("Cast", "CastLike") and all(t["dtype"] in ("FLOAT", "DOUBLE", "INT64", "INT32", "BOOL")
                                                      for t in [key["inputs"][0]] + key["outputs"][:1]))
        semantic = semantic or (key["op"] in BINARY and key["outputs"][0]["dtype"] in ("FLOAT", "DOUBLE", "FLOAT16",
                                                                                       "BFLOAT16"))
        todo.append((path, key, text, semantic))
    with tempfile.TemporaryDirectory() as tmp:
        # the drivers built and run on every core; the references then, one after another
        dirs = [os.path.join(tmp, "%d" % i) for i in range(len(todo))]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            failed = list(pool.map(run_driver, [t[0] for t in todo], dirs))
        for (path, key, text, semantic), where, err in zip(todo, dirs, failed):
            try:
                ok, why = (False, " (driver %s)" % err) if err else (not semantic or check(path, key, text, where), "")
                near = None if err else too_near(where)
                if ok and near:
                    ok, why = False, " (%s)" % near
                elif ok and not semantic:
                    why = " (placed; its values are --verify's)"
            except Exception as e:  # a reference that cannot run this layer is a failure too
                ok, why = False, " (%s: %s)" % (type(e).__name__, e)
            bad += not ok
            checked += semantic
            placed += not semantic
            print("%s %s: %s%s" % (os.path.basename(path), key["op"], "ok" if ok else "WRONG", why))
    print("%d plain C layers checked against onnx.reference and %d others' buffer places, %d wrong"
          % (checked, placed, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
