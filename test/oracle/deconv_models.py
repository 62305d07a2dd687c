#!/usr/bin/env python3
"""Writes 2-D ConvTranspose models whose stride is their kernel, which gen benchmarks in plain C
beside oneDNN (runtime/plain_nn.h's PL_DECONV_TILES): a detector's last upsampling (one output
channel, 2 x 2), input channels that are no multiple of the four the kernel takes at a time,
no bias, a batch of two, a 3 x 1 kernel, a 3 x 3 one (nine taps: three groups of four, the
last of one), rows longer than the kernel's block of pixels, and one
with pads, which plain C does not take (oneDNN's files alone). The e2e test benchmarks them,
and plain_check.py holds each plain C file to onnx.reference.

usage: deconv_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def model(name, n, ci, co, h, w, kernel, bias=True, **attrs):
    """ConvTranspose of x [n, ci, h, w] by a constant [ci, co, *kernel] weight"""
    rng = np.random.default_rng(len(name))
    inits = [numpy_helper.from_array(rng.uniform(-1, 1, (ci, co) + tuple(kernel)).astype(np.float32), "w")]
    names = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(rng.uniform(-1, 1, (co,)).astype(np.float32), "b"))
        names.append("b")
    attrs.setdefault("strides", list(kernel))
    node = helper.make_node("ConvTranspose", names, ["y"], kernel_shape=list(kernel), **attrs)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [n, ci, h, w])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        model("deconv_one_channel", 1, 8, 1, 20, 24, (2, 2)),
        model("deconv_channels_odd", 1, 7, 3, 9, 11, (2, 2)),
        model("deconv_no_bias_batch", 2, 5, 4, 6, 5, (2, 2), bias=False),
        model("deconv_kernel_3x1", 1, 6, 2, 5, 7, (3, 1)),
        model("deconv_kernel_3x3", 1, 3, 2, 4, 5, (3, 3)),
        model("deconv_long_rows", 1, 4, 2, 3, 1100, (2, 2)),
        model("deconv_padded", 1, 4, 2, 6, 6, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1]),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
