#!/usr/bin/env python3
"""Writes models of the random generators at sizes where their statistics are sharp:
RandomUniform (a range that is not [0, 1)) and RandomNormal (mean and scale, float16),
their Like forms (a seed; the input only gives the shape), Bernoulli (float probabilities
to a bool output) and Multinomial (int64 samples of 16 classes). No oracle draws the same
numbers: the e2e test wants every benchmark's --verify (the statistics) to pass.

usage: random_models.py OUTDIR"""
import os
import sys

import onnx
from onnx import TensorProto, helper

F32, F16, I64, BOOL = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.BOOL


def model(name, node, ins, out, opset=15):
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(*out)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        model("random_uniform", helper.make_node("RandomUniform", [], ["y"], shape=[64, 1000], low=-2.0, high=3.0),
              [], ("y", F32, [64, 1000])),
        model("random_normal_f16", helper.make_node("RandomNormal", [], ["y"], shape=[3, 50000], mean=1.5, scale=0.5,
                                                    dtype=F16), [], ("y", F16, [3, 50000])),
        model("random_normal_like_seeded", helper.make_node("RandomNormalLike", ["x"], ["y"], seed=7.0),
              [("x", F32, [2, 4, 64, 64])], ("y", F32, [2, 4, 64, 64])),
        model("random_uniform_like", helper.make_node("RandomUniformLike", ["x"], ["y"]), [("x", F32, [1000, 77])],
              ("y", F32, [1000, 77])),
        model("bernoulli_bool", helper.make_node("Bernoulli", ["x"], ["y"], dtype=BOOL), [("x", F32, [256, 300])],
              ("y", BOOL, [256, 300])),
        model("multinomial_int64", helper.make_node("Multinomial", ["x"], ["y"], sample_size=20000, dtype=I64),
              [("x", F32, [8, 16])], ("y", I64, [8, 20000])),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
