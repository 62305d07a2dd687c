#!/usr/bin/env python3
"""Makes a libonnx-testdata node model whose parameters are graph inputs (Resize's scales,
sizes and roi, Pad's pads, CumSum's axis, ...) into one where they are constants, as they are
in real models: every graph input but the first that is not a scalar becomes an initializer
holding the value of the test case's input_K.pb (test_data_set_0). Scalars are parameters,
not data (a window's size, MelWeightMatrix's bin count, an optimizer's learning rate).

usage: freeze_inputs.py TEST_DIR OUT.onnx"""
import os
import sys

import onnx
from onnx import TensorProto


def main():
    src, out = sys.argv[1], sys.argv[2]
    model = onnx.load(os.path.join(src, "model.onnx"))
    g = model.graph
    inits = {i.name for i in g.initializer}
    inputs = [i for i in g.input if i.name not in inits]
    data = next((vi.name for vi in inputs if len(vi.type.tensor_type.shape.dim) != 0), None)
    for k, vi in enumerate(inputs):
        if vi.name == data:
            continue
        t = TensorProto()
        with open(os.path.join(src, "test_data_set_0", "input_%d.pb" % k), "rb") as f:
            t.ParseFromString(f.read())
        t.name = vi.name
        g.initializer.append(t)
        g.input.remove(vi)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
