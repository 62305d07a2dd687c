#!/usr/bin/env python3
"""ort_parts_check.py: scripts/measure-ort's node_parts (ONNX Runtime's optimized graph against
the model: which model nodes each row names) on small graphs written here, each shaped as one of
ONNX Runtime's rewrites: a fusion keeping its last output's name, a layout change that inserts
values the model lacks (three optimized nodes, one row), NCHWc blocked nodes named after the
model's values they compute (a row each), an Identity removed (named by its
reader's row), a constant folded (its nodes in no row), and unnamed nodes (named `#INDEX`, their
place in the model's file)."""
import importlib.machinery
import importlib.util
import os
import sys

from onnx import TensorProto, helper


def load_measure_ort():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "measure-ort")
    loader = importlib.machinery.SourceFileLoader("measure_ort", path)
    spec = importlib.util.spec_from_loader("measure_ort", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def model(nodes, inits=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    tensors = [helper.make_tensor(n, TensorProto.FLOAT, [1], [1.0]) for n in inits]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y], tensors))


def n(op, name, ins, outs):
    return helper.make_node(op, ins.split(","), outs.split(","), name=name)


def main():
    mo = load_measure_ort()
    bad = []

    def expect(what, got, want):
        if got != want:
            bad.append("%s: got %r, want %r" % (what, got, want))

    # a fusion: Sub, Mul, Add become one node writing the Add's output; Relu stays
    m = model([n("Sub", "sub", "x,c", "a"), n("Mul", "mul", "a,c", "b"), n("Add", "add", "b,c", "h"),
               n("Relu", "relu", "h", "y")], ["c"])
    o = model([n("FusedThing", "fused", "x,c", "h"), n("Relu", "relu", "h", "y")], ["c"])
    expect("fusion", mo.node_parts(m, o), ([(["fused"], ["add", "mul", "sub"]), (["relu"], ["relu"])]))

    # a layout change: ReorderInput -> Conv -> ReorderOutput linked by values the model lacks
    m = model([n("Conv", "conv", "x,w", "h"), n("Relu", "relu", "h", "y")], ["w"])
    o = model([n("ReorderInput", "r_in", "x", "x_blocked"), n("Conv", "conv_nchwc", "x_blocked,w", "h_blocked"),
               n("ReorderOutput", "r_out", "h_blocked", "h"), n("Relu", "relu", "h", "y")], ["w"])
    expect("layout", mo.node_parts(m, o),
           ([(["r_in", "conv_nchwc", "r_out"], ["conv"]), (["relu"], ["relu"])]))

    # NCHWc, as ONNX Runtime's transformer writes it: each blocked node named after the model's
    # value it computes (V_nchwc), the values between them new; a row per blocked node, the
    # reorders in and out with their neighbours
    m = model([n("Conv", "conv0", "x,w", "a"), n("Relu", "relu1", "a", "b"), n("Conv", "conv2", "b,w", "c"),
               n("Relu", "relu3", "c", "y")], ["w"])
    o = model([n("ReorderInput", "r_in", "x", "t0"), n("Conv", "b_nchwc", "t0,w", "t1"),
               n("Conv", "y_nchwc", "t1,w", "t2"), n("ReorderOutput", "r_out", "t2", "y")], ["w"])
    expect("nchwc", mo.node_parts(m, o),
           ([(["r_in", "b_nchwc"], ["conv0", "relu1"]), (["y_nchwc", "r_out"], ["conv2", "relu3"])]))

    # an Identity removed: its reader now reads x, and names it too
    m = model([n("Identity", "copy", "x", "a"), n("Relu", "relu", "a", "y")])
    o = model([n("Relu", "relu", "x", "y")])
    expect("identity", mo.node_parts(m, o), ([(["relu"], ["copy", "relu"])]))

    # a constant folded into an initializer of its output's name: in no row
    m = model([n("Neg", "neg_c", "c", "k"), n("Add", "add", "x,k", "y")], ["c"])
    o = model([n("Add", "add", "x,k", "y")], ["k"])
    expect("folded", mo.node_parts(m, o), ([(["add"], ["add"])]))

    # unnamed nodes, in a part and alone: named by their place in the model's file
    m = model([n("Sub", "", "x,c", "a"), n("Add", "add", "a,c", "h"), n("Relu", "", "h", "y")], ["c"])
    o = model([n("FusedThing", "fused", "x,c", "h"), n("Relu", "", "h", "y")], ["c"])
    expect("unnamed", mo.node_parts(m, o), [(["fused"], ["#0", "add"]), ([""], ["#2"])])

    # a value two optimized nodes read: each names only what it computes
    m = model([n("Relu", "r1", "x", "a"), n("Neg", "n1", "a", "b"), n("Add", "add", "a,b", "y")])
    o = model([n("Relu", "r1", "x", "a"), n("Neg", "n1", "a", "b"), n("Add", "add", "a,b", "y")])
    expect("shared value", mo.node_parts(m, o), ([(["r1"], ["r1"]), (["n1"], ["n1"]), (["add"], ["add"])]))

    expect("csv field", [mo.csv_field(t) for t in ("a+b", "a,b", 'say "x"')], ["a+b", '"a,b"', '"say ""x"""'])
    for b in bad:
        print("ort_parts_check: " + b)
    print("ort_parts_check: %s" % ("ok" if not bad else "%d failed" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
