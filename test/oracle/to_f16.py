#!/usr/bin/env python3
"""A float32 ONNX model as its float16 export would be (PyTorch's model.half() before export):
every float32 initializer, graph input, output and value, every Cast to float32 and every float32
tensor attribute (a Constant's value) in float16. For gen's 16-bit model paths on real models
(the zoo's bert_base and resnet50, written by `gen --zoo NAME --layers -o DIR`), and for a GPU
session's spot pack of them (docs/results/h100/README.md).

usage: to_f16.py IN.onnx OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def main():
    if len(sys.argv) != 3 or sys.argv[1].startswith("-"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    m = onnx.load(sys.argv[1])
    g = m.graph
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT:
            g.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    for n in g.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16), a.t.name))
    onnx.save(m, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
