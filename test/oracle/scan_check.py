#!/usr/bin/env python3
"""Scan's shapes in gen against onnx.shape_inference: models whose Scan outputs feed a Relu
(scan input and output axes other than 0, two scan inputs, a state of another shape); gen
--backend none must make the Relu a layer whose input shape is the one onnx infers for the
Scan output.

usage: scan_check.py GEN OUTDIR   (exit 1 on a difference)"""
import json
import os
import subprocess
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper


def scan_model(name, state, xs, in_axes, out_axes):
    """a body adding each scan slice to the state (xs: the scan inputs' shapes)"""
    sl = [[d for k, d in enumerate(s) if k != (in_axes[i] if in_axes else 0)] for i, s in enumerate(xs)]
    nodes = [helper.make_node("Add", ["s", "x0"], ["a0"])]
    for i in range(1, len(xs)):
        nodes.append(helper.make_node("Add", ["a%d" % (i - 1), "x%d" % i], ["a%d" % i]))
    last = "a%d" % (len(xs) - 1)
    nodes.append(helper.make_node("Identity", [last], ["o"]))
    body = helper.make_graph(nodes, "body",
                             [helper.make_tensor_value_info("s", T.FLOAT, state)] +
                             [helper.make_tensor_value_info("x%d" % i, T.FLOAT, s) for i, s in enumerate(sl)],
                             [helper.make_tensor_value_info(last, T.FLOAT, state),
                              helper.make_tensor_value_info("o", T.FLOAT, state)])
    attrs = {"body": body, "num_scan_inputs": len(xs)}
    if in_axes:
        attrs["scan_input_axes"] = in_axes
    if out_axes:
        attrs["scan_output_axes"] = out_axes
    scan = helper.make_node("Scan", ["init"] + ["X%d" % i for i in range(len(xs))], ["fin", "outs"], **attrs)
    g = helper.make_graph([scan, helper.make_node("Relu", ["outs"], ["y"])], name,
                          [helper.make_tensor_value_info("init", T.FLOAT, state)] +
                          [helper.make_tensor_value_info("X%d" % i, T.FLOAT, s) for i, s in enumerate(xs)],
                          [helper.make_tensor_value_info("y", T.FLOAT, None),
                           helper.make_tensor_value_info("fin", T.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    return m


def main():
    gen, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    models = [scan_model("scan_axes_1", [4], [[4, 7]], [1], [1]),
              scan_model("scan_two_inputs", [2, 3], [[5, 2, 3], [2, 5, 3]], [0, 1], None),
              scan_model("scan_output_axis_last", [3, 2], [[6, 3, 2]], None, [-1])]
    bad = 0
    for m in models:
        path = os.path.join(out, m.graph.name + ".onnx")
        onnx.save(m, path)
        want = [d.dim_value for v in onnx.shape_inference.infer_shapes(m).graph.value_info if v.name == "outs"
                for d in v.type.tensor_type.shape.dim]
        folder = os.path.join(out, m.graph.name)
        subprocess.run([gen, "--backend", "none", "-o", folder, path], check=True, capture_output=True)
        got = None
        for line in open(os.path.join(folder, "manifest.tsv")):
            f = line.rstrip("\n").split("\t")
            if f[0] == "layer" and f[3] == "Relu":
                got = json.loads(f[6])["inputs"][0]["shape"]
        ok = got == want and len(want) > 0
        bad += not ok
        print("%s: onnx %s, gen %s: %s" % (m.graph.name, want, got, "ok" if ok else "DIFFERENT"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
