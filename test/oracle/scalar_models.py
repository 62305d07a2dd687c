#!/usr/bin/env python3
"""Writes binary operations of a tensor and one constant value, whose plain C benchmark gen
writes beside oneDNN's (oneDNN broadcasts a scalar slowly on small tensors): a detector's box
decoding ([1, 4420, 2] times and divided by a constant), a length that is no multiple of the
four elements the kernel takes at a time, the constant first (c - x, c / x: oneDNN's binary
takes the broadcast operand second only, so plain C alone), a [1] constant, float16, and two
large enough that plain C splits them over threads (no multiple of its blocks or of four); and the
same decoding's Slices of short rows (2, 3 and 8 floats of each, a memcpy of constant size per
row in plain C). The e2e test benchmarks them, and plain_check.py holds each plain C binary file
to onnx.reference (the Slices: their --verify, element by element).

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


def slice_last(name, shape, start, end):
    """x[..., start:end] of x [SHAPE]"""
    inits = [numpy_helper.from_array(np.array([v], dtype=np.int64), n) for n, v in (("s", start), ("e", end), ("a", -1))]
    node = helper.make_node("Slice", ["x", "s", "e", "a"], ["y"])
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape[:-1] + [end - start])], inits)
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
        model("div_scalar_large", "Div", [1, 3, 211, 107]),
        model("sub_scalar_first_large", "Sub", [2, 70001], first=True),
        slice_last("slice_box_centres", [1, 4420, 4], 0, 2),
        slice_last("slice_rows_of_three", [2, 100, 5], 1, 4),
        slice_last("slice_rows_of_eight", [3, 50, 10], 1, 9),
    ]
    for m in models:
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
