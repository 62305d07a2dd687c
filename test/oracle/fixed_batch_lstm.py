"""An LSTM whose input is fixed at [seq, batch, feature] = [28, 128, 28] (the reliability
issue's measure-ort case): gen benchmarks it at -b 1 as [28, 1, 28], and so must measure-ort.

    python3 test/oracle/fixed_batch_lstm.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper

H, I = 16, 28
rng = np.random.default_rng(0)
W = helper.make_tensor("W", T.FLOAT, [1, 4 * H, I], (rng.random(4 * H * I) * 0.1).astype(np.float32))
R = helper.make_tensor("R", T.FLOAT, [1, 4 * H, H], (rng.random(4 * H * H) * 0.1).astype(np.float32))
g = helper.make_graph([helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=H)], "lstm_fixed",
                      [helper.make_tensor_value_info("x", T.FLOAT, [28, 128, 28])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [28, 1, 128, H])], initializer=[W, R])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, sys.argv[1])
