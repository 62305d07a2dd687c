#!/usr/bin/env python3
"""Writes signal-processing models at sizes where a wrong twiddle, bin or edge shows: DFT of
real and complex input along inner and outer axes, forward and inverse, padded and truncated
(dft_length), onesided, a prime length and a length of mixed factors, float and double,
opsets 17 and 20 (the axis an input); STFT with a window computed by HannWindow from a
constant size (a free node: gen must infer its shape) and without one, onesided and complex;
the three windows whose size is a graph input (periodic and symmetric; float, double,
float16). Lengths, steps and axes are constants, as in real models. The e2e test benchmarks them and
holds each plain C kernel against onnx.reference (plain_check.py).

usage: signal_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F64, F16 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16


def const(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def model(name, nodes, ins, out, inits, opset):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(out[0], out[1], out[2])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8 if opset < 20 else 9
    onnx.checker.check_model(m)
    return m


def dft(name, shape, out, attrs, length=None, axis=None, opset=20, dtype=F32):
    """One DFT node; dft_length and (opset 20) the axis as constants"""
    inits, names = [], ["x", "", ""]
    if length is not None:
        inits.append(const("len", length))
        names[1] = "len"
    if axis is not None:
        inits.append(const("axis", axis))
        names[2] = "axis"
    while names[-1] == "":
        names.pop()
    node = helper.make_node("DFT", names, ["y"], **attrs)
    return model(name, [node], [("x", dtype, shape)], ("y", dtype, out), inits, opset)


def stft(name, shape, out, step, window=None, length=None, onesided=None):
    """STFT (opset 17); window: a HannWindow of that size computed in the graph"""
    nodes, inits, names = [], [const("step", step)], ["x", "step", "", ""]
    if window is not None:
        inits.append(const("wsize", window))
        nodes.append(helper.make_node("HannWindow", ["wsize"], ["w"], periodic=0))
        names[2] = "w"
    if length is not None:
        inits.append(const("flen", length))
        names[3] = "flen"
    while names[-1] == "":
        names.pop()
    attrs = {} if onesided is None else {"onesided": onesided}
    nodes.append(helper.make_node("STFT", names, ["y"], **attrs))
    return model(name, nodes, [("x", F32, shape)], ("y", F32, out), inits, 17)


def window(name, op, size, periodic, dtype):
    """a window whose size is a graph input (so not free), its output's shape declared"""
    node = helper.make_node(op, ["size"], ["y"], periodic=periodic, output_datatype=dtype)
    return model(name, [node], [("size", TensorProto.INT64, [])], ("y", dtype, [size]), [], 17)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        dft("dft_real_axis1", [2, 16, 3, 1], [2, 16, 3, 2], {"axis": 1}, opset=17),
        dft("dft_complex_inverse_padded", [3, 12, 2], [3, 15, 2], {"inverse": 1}, length=15, axis=1),
        dft("dft_onesided_truncated", [2, 30, 1], [2, 15, 2], {"onesided": 1}, length=28),
        dft("dft_prime_length", [1, 37, 2], [1, 37, 2], {}),
        dft("dft_outer_axis_double", [24, 2, 3, 2], [24, 2, 3, 2], {}, axis=0, dtype=F64),
        dft("dft_axis_negative", [2, 5, 18, 1], [2, 5, 18, 2], {}, axis=-2),
        stft("stft_hann_window", [2, 256, 1], [2, 4, 51, 2], 40, window=100),
        stft("stft_complex_two_sided", [1, 200, 2], [1, 5, 64, 2], 32, length=64, onesided=0),
        window("hann_periodic_runtime_size", "HannWindow", 64, 1, F32),
        window("hamming_symmetric_double", "HammingWindow", 33, 0, F64),
        window("blackman_periodic_f16", "BlackmanWindow", 50, 1, F16),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
