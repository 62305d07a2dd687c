#!/usr/bin/env python3
"""Holds gen's SiLU groups in a benchmark folder's manifest to a walk of the models of its own:
per run, the Sigmoid nodes whose output one Mul reads, and nothing else, with the Sigmoid's own
input as the Mul's other operand (x * sigmoid(x), SiLU). Each such pair must be in exactly one
group of gen's, as its whole (a silu group), as its last two members (a convolution group's
activation: conv_act, conv_bn_act, conv_add_act, conv_bn_add_act) or as the first two of a
swiglu group (silu(g) u: a third node, Mul by u, after them; or the second and third, after
the Split that makes g and u the halves of one projection); where x is a Conv's output
that nothing else reads, the group must be the convolution's. gen may have no other silu group.

usage: silu_check.py FOLDER [MODEL=N ...]   (MODEL=N: the model must have N of them)
       silu_check.py model PATH                 (writes a model with each form, below)
Prints one line per run; exit status 1 on any mismatch."""
import os
import sys

import onnx

CONV_ACT = {"conv_act", "conv_bn_act", "conv_add_act", "conv_bn_add_act"}


def silu_pairs(path):
    """(sigmoid index, mul index, whether x is a Conv's output read by the pair alone)"""
    g = onnx.load(path, load_external_data=False).graph
    readers, producer = {}, {}
    for k, n in enumerate(g.node):
        for i in n.input:
            readers.setdefault(i, []).append(k)
        for o in n.output:
            producer[o] = k
    outputs = {o.name for o in g.output}
    pairs = []
    for k, n in enumerate(g.node):
        if n.op_type != "Sigmoid" or n.output[0] in outputs:
            continue
        r = readers.get(n.output[0], [])
        if len(r) == 1 and g.node[r[0]].op_type == "Mul" and sorted(g.node[r[0]].input) == sorted([n.input[0], n.output[0]]):
            x = n.input[0]
            p = producer.get(x)
            conv = (p is not None and g.node[p].op_type == "Conv" and g.node[p].output[0] == x and x not in outputs
                    and sorted(readers.get(x, [])) == sorted([k, r[0]]))
            pairs.append((k, r[0], conv))
    return pairs


def write_model(path):
    """x [1, 8, 12, 12] -> Conv -> SiLU (conv_act) -> Conv -> BatchNormalization -> SiLU with the
    Mul's operands swapped (conv_bn_act) -> Conv whose output a SiLU and an Add read (the SiLU
    alone: silu) -> Add -> y; then y -> Flatten -> MatMul -> SiLU (silu) -> z; and x -> Conv ->
    Clip(0, 6) -> z6 (a Relu6 convolution, no SiLU), x -> Conv -> Clip(0) -> z7 (a Relu as a
    Clip with no upper bound); and a Llama MLP's gate from f, silu(f W5)
    (f W6) -> zg (a swiglu group: its SiLU its first two nodes)"""
    from onnx import TensorProto, helper
    import numpy as np

    rng = np.random.default_rng(7)

    def init(name, shape):
        return onnx.numpy_helper.from_array(rng.uniform(-0.5, 0.5, shape).astype(np.float32), name)

    def silu(x, tag, swap=False):
        return [helper.make_node("Sigmoid", [x], ["s" + tag], name="sigmoid_" + tag),
                helper.make_node("Mul", ["s" + tag, x] if swap else [x, "s" + tag], ["m" + tag], name="mul_" + tag)]

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1])] + silu("c1", "1")
    nodes += [helper.make_node("Conv", ["m1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
              helper.make_node("BatchNormalization", ["c2", "g", "be", "mu", "var"], ["n2"], name="bn2")]
    nodes += silu("n2", "2", swap=True)
    nodes += [helper.make_node("Conv", ["m2", "w3", "b3"], ["c3"], name="conv3")] + silu("c3", "3")
    nodes += [helper.make_node("Add", ["m3", "c3"], ["y"], name="residual"),
              helper.make_node("Flatten", ["y"], ["f"], name="flatten"),
              helper.make_node("MatMul", ["f", "w4"], ["h"], name="dense")] + silu("h", "4")
    nodes += [helper.make_node("Identity", ["m4"], ["z"], name="out")]
    # a Llama MLP's gate: silu(f W5) (f W6), a swiglu group
    nodes += [helper.make_node("MatMul", ["f", "w5"], ["gate"], name="gate_proj"),
              helper.make_node("MatMul", ["f", "w6"], ["up"], name="up_proj")] + silu("gate", "5")
    nodes += [helper.make_node("Mul", ["m5", "up"], ["zg"], name="gated")]
    # and a Relu6 convolution beside them (a Clip from 0 to 6: no SiLU)
    nodes += [helper.make_node("Conv", ["x", "w1", "b1"], ["c5"], name="conv5", pads=[1, 1, 1, 1]),
              helper.make_node("Clip", ["c5", "zero", "six"], ["z6"], name="relu6"),
              helper.make_node("Conv", ["x", "w1"], ["c7"], name="conv7", pads=[1, 1, 1, 1]),
              helper.make_node("Clip", ["c7", "zero"], ["z7"], name="relu_as_clip")]
    var = onnx.numpy_helper.from_array(rng.uniform(0.5, 1.5, [8]).astype(np.float32), "var")
    graph = helper.make_graph(
        nodes, "silus",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 16]),
         helper.make_tensor_value_info("z6", TensorProto.FLOAT, [1, 8, 12, 12]),
         helper.make_tensor_value_info("zg", TensorProto.FLOAT, [1, 16]),
         helper.make_tensor_value_info("z7", TensorProto.FLOAT, [1, 8, 12, 12])],
        [onnx.numpy_helper.from_array(np.array(0, np.float32), "zero"),
         onnx.numpy_helper.from_array(np.array(6, np.float32), "six"),
         init("w1", [8, 8, 3, 3]), init("b1", [8]), init("w2", [8, 8, 3, 3]), init("g", [8]), init("be", [8]),
         init("mu", [8]), var, init("w3", [8, 8, 1, 1]), init("b3", [8]), init("w4", [8 * 12 * 12, 16]),
         init("w5", [8 * 12 * 12, 16]), init("w6", [8 * 12 * 12, 16])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "model":
        return write_model(sys.argv[2])
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    folder = sys.argv[1]
    want = dict(a.split("=", 1) for a in sys.argv[2:])
    runs, groups = {}, {}
    with open(os.path.join(folder, "manifest.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "run":
                runs[c[1]] = (c[2], c[4])
            elif c[0] == "group":
                groups.setdefault(c[1], []).append((c[3], [int(i) for i in c[5].split(",")]))
    bad = 0
    for run, (name, path) in sorted(runs.items(), key=lambda kv: int(kv[0])):
        pairs, mine = silu_pairs(path), groups.get(run, [])
        n_silu = sum(1 for pat, _ in mine if pat == "silu")
        errors, as_silu, as_conv, as_glu = [], 0, 0, 0
        for s, m, conv in pairs:
            holders = [(pat, nodes) for pat, nodes in mine if s in nodes or m in nodes]
            if len(holders) != 1:
                errors.append("nodes %d, %d in %d groups" % (s, m, len(holders)))
                continue
            pat, nodes = holders[0]
            if pat == "silu" and nodes == [s, m] and not conv:
                as_silu += 1
            elif pat in CONV_ACT and nodes[-2:] == [s, m]:
                as_conv += 1
            elif pat == "swiglu" and not conv and (nodes[:2] == [s, m] and len(nodes) == 3 or
                                                   nodes[1:3] == [s, m] and len(nodes) == 4):
                as_glu += 1
            else:
                errors.append("nodes %d, %d in a %s group %s%s" % (s, m, pat, nodes, " (x is a Conv's)" if conv else ""))
        if n_silu != as_silu:
            errors.append("%d silu groups, %d of them SiLUs" % (n_silu, as_silu))
        if name in want and int(want.pop(name)) != len(pairs):
            errors.append("not the count asked for")
        ok = not errors
        if pairs or n_silu or not ok:
            print("%s %s: %d x sigmoid(x) in the model: %d silu groups, %d convolutions' activations, %d swiglu "
                  "gates%s" % ("ok  " if ok else "FAIL", name, len(pairs), as_silu, as_conv, as_glu,
                   "".join("; " + e for e in errors[:5])))
        bad += not ok
    for name in want:
        print("FAIL %s: not in the folder" % name)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
