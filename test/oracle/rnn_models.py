#!/usr/bin/env python3
"""Writes LSTM, GRU and RNN models that take every path of the plain C recurrent kernel
(runtime/plain_rnn.h): both GRU forms (the reset gate before or after the recurrent product),
both layouts, every direction, sequence_lens, initial states, peepholes, clip, input_forget,
the activation functions with their alphas and betas (and their defaults), weights that are
constants (transposed once) or graph inputs (inside the timed run), and sizes where the product
runs four rows and eight columns at a time and where it does not, and a bidirectional layer long
enough that its two directions run side by side on two threads. The e2e test benchmarks them,
and plain_check.py holds each plain C file against ONNX Runtime's CPU implementation of the
layer on the benchmark's own inputs.

usage: rnn_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def model(name, op, T, N, C, H, direction="forward", layout=0, bias=True, seq_lens=False, initial=False,
          peepholes=False, const=True, opset=14, **attrs):
    """one OP node over X [T, N, C] ([N, T, C] with layout 1) with H hidden units"""
    D = 2 if direction == "bidirectional" else 1
    G = GATES[op]
    rng = np.random.default_rng(len(name))
    x_shape = [N, T, C] if layout else [T, N, C]
    state = [N, D, H] if layout else [D, N, H]
    inputs = [helper.make_tensor_value_info("x", F32, x_shape)]
    inits = []
    names = ["x"]

    def tensor(tname, shape, dtype=F32, values=None):
        if values is None:
            values = (rng.uniform(-1, 1, shape) / np.sqrt(shape[-1])).astype(np.float32)
        if const:
            inits.append(numpy_helper.from_array(values, tname))
        else:
            inputs.append(helper.make_tensor_value_info(tname, dtype, shape))
        names.append(tname)

    tensor("w", [D, G * H, C])
    tensor("r", [D, G * H, H])
    optional = [("b", bias, [D, 2 * G * H]), ("seq", seq_lens, [N]), ("h0", initial, state)]
    if op == "LSTM":
        optional += [("c0", initial, state), ("p", peepholes, [D, 3 * H])]
    last = max([i for i, (_, given, _) in enumerate(optional) if given], default=-1)
    for i, (tname, given, shape) in enumerate(optional[: last + 1]):
        if not given:
            names.append("")
        elif tname == "seq":
            tensor(tname, shape, TensorProto.INT32, np.full(shape, T, dtype=np.int32))
        else:
            tensor(tname, shape)
    outs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, names, outs, hidden_size=H, direction=direction, **attrs)
    if layout:
        node.attribute.append(helper.make_attribute("layout", 1))
    y = [N, T, D, H] if layout else [T, D, N, H]
    outputs = [helper.make_tensor_value_info(o, F32, y if o == "y" else state) for o in outs]
    graph = helper.make_graph([node], name, inputs, outputs, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        # a speech enhancer's: small, both directions, the reset after the recurrent product
        model("gru_lbr_bidirectional", "GRU", 5, 3, 8, 4, "bidirectional", initial=True, linear_before_reset=1),
        # the reset before it, backwards, sequences of two lengths, weights as graph inputs
        model("gru_reverse_seq_lens", "GRU", 6, 4, 5, 9, "reverse", seq_lens=True, initial=True, const=False),
        # four rows and eight columns at a time: 5 x 7 rows, 4 x 40 columns
        model("lstm_wide", "LSTM", 7, 5, 33, 40, initial=True),
        model("lstm_peepholes_clip_batch_first", "LSTM", 4, 3, 6, 5, "bidirectional", layout=1, initial=True,
              peepholes=True, seq_lens=True, clip=0.6),
        model("lstm_input_forget", "LSTM", 5, 2, 4, 6, peepholes=True, input_forget=1),
        model("lstm_activations", "LSTM", 4, 2, 3, 5, activations=["HardSigmoid", "Softsign", "Softplus"],
              activation_alpha=[0.3], activation_beta=[0.4]),
        model("gru_activations_bidirectional", "GRU", 4, 2, 3, 6, "bidirectional",
              activations=["Sigmoid", "ScaledTanh", "HardSigmoid", "Elu"], activation_alpha=[0.9, 0.25, 0.7],
              activation_beta=[1.3, 0.45]),
        model("gru_activation_defaults", "GRU", 3, 2, 3, 4, activations=["HardSigmoid", "LeakyRelu"]),
        model("rnn_relu_bidirectional", "RNN", 6, 3, 7, 8, "bidirectional", initial=True, activations=["Relu", "Tanh"]),
        model("rnn_affine_thresholded", "RNN", 5, 2, 4, 9, "bidirectional", seq_lens=True,
              activations=["Affine", "ThresholdedRelu"], activation_alpha=[0.5, 0.1], activation_beta=[0.2]),
        model("rnn_leakyrelu_batch_first", "RNN", 5, 3, 4, 3, layout=1, activations=["LeakyRelu"],
              activation_alpha=[0.05]),
        # each direction a few hundred microseconds: both run at once on two threads
        model("lstm_long_bidirectional", "LSTM", 96, 4, 16, 32, "bidirectional", initial=True),
    ]
    for m in models:
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
