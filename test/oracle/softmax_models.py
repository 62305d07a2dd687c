#!/usr/bin/env python3
"""Writes Softmax and LogSoftmax models at the shapes whose rows the plain C kernel
(runtime/plain_reduce.h) takes differently: rows of two along the last axis, many to a block
and more than one block (a detector's class scores); rows longer than a block; a middle axis
(the channels, each row strided); the 2-D view before opset 13 (rows that span several axes);
double (plain C's alone). The e2e test benchmarks them, and plain_check.py holds each plain C
kernel, in each type gen writes it in, against onnx.reference.

usage: softmax_models.py OUTDIR"""
import os
import sys

import onnx
from activation_models import unary
from onnx import TensorProto

F32, F64 = TensorProto.FLOAT, TensorProto.DOUBLE


def model(name, op, shape, axis, opset=13, dtype=F32):
    """one node of OP along AXIS on x -> y, at OPSET"""
    return unary(op, name, shape, dtype, opset, axis=axis)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        model("softmax_rows_of_two", "Softmax", [1, 3000, 2], -1),
        model("softmax_channels", "Softmax", [2, 6, 5, 7], 1),
        model("softmax_2d_opset11", "Softmax", [2, 3, 4, 5], 1, opset=11),
        model("logsoftmax_2d_opset11", "LogSoftmax", [2, 3, 40], 1, opset=11),
        model("logsoftmax_long_rows", "LogSoftmax", [2, 3000], -1),
        model("softmax_double", "Softmax", [3, 17], 0, dtype=F64),
        model("logsoftmax_channels_double", "LogSoftmax", [2, 5, 3], 1, dtype=F64),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
