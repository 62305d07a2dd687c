#!/usr/bin/env python3
"""Two small models whose every tensor is in a 16-bit float type, as a model exported after
.half() or .bfloat16() is, for gen's CUDA backend (test/test_cuda.c, cuda_half_models):
- DIR/f16_cnn.onnx: x [1, 3, 16, 16] -> Conv 3x3 (8 channels, bias) -> Relu -> GlobalAveragePool
  -> Flatten -> Gemm (8 -> 16, bias) -> LayerNormalization -> Reshape [4, 4] -> Transpose, all
  float16 (opset 17): library layers, and two that our kernels take in f32 only;
- DIR/bf16_mlp.onnx: x [4, 32] -> MatMul [32, 64] -> Add (bias) -> Relu, all bfloat16 (opset 17).
The onnx package's checker passes both.

usage: half_models.py DIR"""
import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def f16_cnn(path):
    rng = np.random.default_rng(3)
    h = np.float16
    inits = [numpy_helper.from_array(rng.uniform(-0.3, 0.3, (8, 3, 3, 3)).astype(h), "w"),
             numpy_helper.from_array(rng.uniform(-0.3, 0.3, (8,)).astype(h), "b"),
             numpy_helper.from_array(rng.uniform(-0.3, 0.3, (8, 16)).astype(h), "fc_w"),
             numpy_helper.from_array(rng.uniform(-0.3, 0.3, (16,)).astype(h), "fc_b"),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, (16,)).astype(h), "ln_s"),
             numpy_helper.from_array(rng.uniform(-0.3, 0.3, (16,)).astype(h), "ln_b"),
             numpy_helper.from_array(np.array([4, 4], np.int64), "shape")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["fc"]),
             helper.make_node("LayerNormalization", ["fc", "ln_s", "ln_b"], ["ln"], axis=-1),
             helper.make_node("Reshape", ["ln", "shape"], ["sq"]),
             helper.make_node("Transpose", ["sq"], ["y"], perm=[1, 0])]
    g = helper.make_graph(nodes, "f16_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4, 4])], inits)
    save(g, path)


def bf16_mlp(path):
    rng = np.random.default_rng(4)
    bf = ml_dtypes.bfloat16

    def init(name, shape):
        data = rng.uniform(-0.3, 0.3, shape).astype(bf).tobytes()
        return helper.make_tensor(name, TensorProto.BFLOAT16, shape, data, raw=True)

    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    g = helper.make_graph(nodes, "bf16_mlp", [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [4, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [4, 64])], [init("w", [32, 64]), init("b", [64])])
    save(g, path)


def save(graph, path):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    os.makedirs(sys.argv[1], exist_ok=True)
    f16_cnn(os.path.join(sys.argv[1], "f16_cnn.onnx"))
    bf16_mlp(os.path.join(sys.argv[1], "bf16_mlp.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
