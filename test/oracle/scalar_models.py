#!/usr/bin/env python3
"""Writes binary operations of a tensor and one constant value, whose plain C benchmark gen
writes beside oneDNN's (oneDNN broadcasts a scalar slowly on small tensors): a detector's box
decoding ([1, 4420, 2] times and divided by a constant), a length that is no multiple of the
four elements the kernel takes at a time, the constant first (c - x, c / x: oneDNN's binary
takes the broadcast operand second only, so plain C alone), a [1] constant, and float16. The
e2e test benchmarks them, and plain_check.py holds each plain C file to onnx.reference.

usage: scalar_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(name, op, shape, const_shape=(), first=False, dtype=TensorProto.FLOAT):
    """OP of x [SHAPE] and a constant of CONST_SHAPE (the first operand when FIRST)"""
    npt = helper.tensor_dtype_to_np_dtype(dtype)
    c = numpy_helper.from_array(np.full(const_shape, 0.75, dtype=npt), "c")
    node = helper.make_node(op, ["c", "x"] if first else ["x", "c"], ["y"])
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", dtype, shape)],
                              [helper.make_tensor_value_info("y", dtype, shape)], [c])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        model("mul_scalar_second", "Mul", [1, 4420, 2]),
        model("div_scalar_odd_length", "Div", [1, 4421, 3]),
        model("sub_scalar_first", "Sub", [2, 3, 5], first=True),
        model("div_scalar_first", "Div", [7, 9], first=True),
        model("add_one_element", "Add", [3, 1, 6], const_shape=(1,)),
        model("mul_scalar_f16", "Mul", [4, 37], dtype=TensorProto.FLOAT16),
    ]
    for m in models:
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
