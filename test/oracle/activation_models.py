#!/usr/bin/env python3
"""Writes activation models onnx has and libonnx-testdata (ONNX 1.12) does not: Swish (opset 24)
with its default alpha and another, in float and double, over values in (-8, 8] where the
sigmoid's both tails show; Gelu (opset 20) in both its forms, the tanh approximation among them
(what gen writes ONNX Runtime's FastGelu as), in float and double. The e2e test benchmarks them and holds each plain C kernel against
onnx.reference (plain_check.py).

usage: activation_models.py OUTDIR"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def unary(op, name, shape, dtype, opset, **attrs):
    """one node of OP on x -> y, at OPSET"""
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], name,
                          [helper.make_tensor_value_info("x", dtype, shape)],
                          [helper.make_tensor_value_info("y", dtype, shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10 if opset > 21 else 9
    onnx.checker.check_model(m)
    return m


def swish(name, shape, dtype, alpha=None):
    return unary("Swish", name, shape, dtype, 24, **({} if alpha is None else {"alpha": alpha}))


def gelu(name, shape, dtype, approximate):
    return unary("Gelu", name, shape, dtype, 20, approximate=approximate)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = {
        "swish_default": swish("swish_default", [2, 3, 40], TensorProto.FLOAT),
        "swish_alpha": swish("swish_alpha", [7, 64], TensorProto.FLOAT, alpha=0.5),
        "swish_double": swish("swish_double", [3, 5, 7], TensorProto.DOUBLE, alpha=1.75),
        "gelu_tanh": gelu("gelu_tanh", [4, 50], TensorProto.FLOAT, "tanh"),
        "gelu_tanh_double": gelu("gelu_tanh_double", [3, 5, 7], TensorProto.DOUBLE, "tanh"),
        "gelu_erf_double": gelu("gelu_erf_double", [3, 5, 7], TensorProto.DOUBLE, "none"),
    }
    for name, m in models.items():
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
