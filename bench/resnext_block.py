#!/usr/bin/env python3
"""Writes three ResNeXt-50 stage-2 bottleneck blocks as one ONNX model (random weights, opset
13): per block a 1x1 convolution 256 -> 128, a 3x3 convolution 128 -> 128 in 32 groups of 4
channels, a 1x1 convolution 128 -> 256, each with a BatchNormalization, Relus after the first
two and after the residual sum, on [1, 256, 56, 56]. A grouped convolution's Relu group in a
real architecture, for docs/results/cpu/README.md (scripts/cpu-report on it, beside ONNX
Runtime).

usage: resnext_block.py OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def weight(name, shape, lo=-0.1, hi=0.1):
        inits.append(numpy_helper.from_array(rng.uniform(lo, hi, shape).astype(np.float32), name))
        return name

    def conv_bn(x, cin, cout, k, group, name, relu=True):
        nodes.append(helper.make_node("Conv", [x, weight(name + "_w", [cout, cin // group, k, k])], [name + "_c"],
                                      pads=[k // 2] * 4, group=group))
        stats = [weight(name + "_s", [cout], 0.5, 1.5), weight(name + "_b", [cout]), weight(name + "_m", [cout]),
                 weight(name + "_v", [cout], 0.5, 1.5)]
        nodes.append(helper.make_node("BatchNormalization", [name + "_c"] + stats, [name + "_n"]))
        if not relu:
            return name + "_n"
        nodes.append(helper.make_node("Relu", [name + "_n"], [name + "_r"]))
        return name + "_r"

    x = "x"
    for b in range(3):
        y = conv_bn(conv_bn(conv_bn(x, 256, 128, 1, 1, "b%d_a" % b), 128, 128, 3, 32, "b%d_b" % b), 128, 256, 1, 1,
                    "b%d_c" % b, relu=False)
        nodes.append(helper.make_node("Add", [y, x], ["b%d_s" % b]))
        nodes.append(helper.make_node("Relu", ["b%d_s" % b], ["b%d_o" % b]))
        x = "b%d_o" % b
    g = helper.make_graph(nodes, "resnext_stage2", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 56, 56])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 256, 56, 56])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, sys.argv[1])


if __name__ == "__main__":
    main()
