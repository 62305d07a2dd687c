#!/usr/bin/env python3
"""SwiGLU whose gate and up are the halves of one projection (Phi-3's gate_up_proj, then
chunk(2, dim=-1)), as PyTorch exports it: MatMul -> Split -> Sigmoid(g), Mul(g, .) -> Mul(u, .),
or with two Slices for the halves (x[..., :I] and x[..., I:]). Held against gen and ONNX Runtime:
- gen makes one swiglu group that holds the Split (or the two Slices), for every form below:
  the Split by num_outputs (opset 18) or by its sizes (opset 13), the Slices with the end of
  the second half INT64_MAX (PyTorch's x[..., I:]) or 2I, the axis -1 or 2, the gate the first
  half or the second, f32 and f16;
- the group's plain C benchmark, the file gen writes for the CPU, computes what ONNX Runtime
  computes from the group's nodes on the same input. The file is built into a driver that runs
  its setup and kernel once (plain_check.py's);
- where the halves are not of the last axis, the up half is read elsewhere too, or two Slices
  are not the two halves of their input, the group is the two-input one, without the Split or
  the Slices.

usage: swiglu_check.py WORKDIR   (BENANZA_GEN: gen; exit status 1 on a failure)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from plain_check import gen_folder, group_against_ort, manifest_rows, workdir_and_gen

B, T, H, I = 2, 4, 8, 12


def split_node(opset, axis, gu, outs):
    if opset >= 18:
        return [helper.make_node("Split", [gu], outs, axis=axis, num_outputs=2)], []
    size = (2 * I if axis == -1 else T) // 2
    sizes = numpy_helper.from_array(np.array([size, size], np.int64), "sizes")
    return [helper.make_node("Split", [gu, "sizes"], outs, axis=axis)], [sizes]


def slice_nodes(gu, outs, axis, end, width):
    """the halves of gu's last axis (WIDTH wide) as two Slices, the second ending at END: PyTorch's
    export of gu[..., :I] and gu[..., I:]; with WIDTH over 2I the Slices are not its halves, nor
    with END 0: then the second is [1, I + 1), overlapping the first in a projection 2I wide"""
    def ints(name, v):
        return numpy_helper.from_array(np.array([v], np.int64), name)
    consts = [ints("zero", 0), ints("mid", I), ints("mid_end", I), ints("top", end), ints("axis", axis)]
    if width > 2 * I:  # [0, I) and [I + 2, 2I + 2): the same width, not the halves
        consts[1] = ints("mid", I + 2)
    if end == 0:  # [0, I) and [1, I + 1) of 2I: the halves' dims, not their ranges
        consts[1], consts[3] = ints("mid", 1), ints("top", I + 1)
    nodes = [helper.make_node("Slice", [gu, "zero", "mid_end", "axis"], [outs[0]]),
             helper.make_node("Slice", [gu, "mid", "top", "axis"], [outs[1]])]
    return nodes, consts


def mlp(path, opset, gate_first, f16, axis=-1, up_read=False, slices=None):
    """x [B, T, H] -> MatMul -> [B, T, 2I] -> Split -> silu(gate) up; with SLICES (the end of the
    second half, and the width of the projection) two Slices for the Split; with the group's
    nodes alone (the halves' input the graph's) written to path + '.group.onnx', for ONNX Runtime"""
    et = TensorProto.FLOAT16 if f16 else TensorProto.FLOAT
    width = slices[1] if slices else 2 * I
    w = np.random.default_rng(1).uniform(-0.5, 0.5, (H, width)).astype(np.float16 if f16 else np.float32)
    halves = ["first", "second"]
    gate, up = (halves[0], halves[1]) if gate_first else (halves[1], halves[0])
    if slices:
        split, consts = slice_nodes("gu", halves, axis, slices[0], width)
    else:
        split, consts = split_node(opset, axis, "gu", halves)
    body = split + [helper.make_node("Sigmoid", [gate], ["sig"]),
                    helper.make_node("Mul", [gate, "sig"], ["silu"]),
                    helper.make_node("Mul", [up, "silu"], ["y"])]
    ydims = [B, T, I] if axis in (-1, 2) else [B, T // 2, 2 * I]
    outs = [helper.make_tensor_value_info("y", et, ydims)]
    if up_read:
        outs.append(helper.make_tensor_value_info(up, et, ydims))
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["gu"])] + body, "phi3_mlp",
                          [helper.make_tensor_value_info("x", et, [B, T, H])], outs,
                          [numpy_helper.from_array(w, "w")] + consts)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), path)
    gg = helper.make_graph(body, "group", [helper.make_tensor_value_info("gu", et, [B, T, width])], outs[:1], consts)
    onnx.save(helper.make_model(gg, opset_imports=[helper.make_opsetid("", opset)]), path + ".group.onnx")


def main():
    args = workdir_and_gen(__doc__)
    if not args:
        return 2
    work, gen = args
    cases = [("Split by num_outputs (opset 18), the gate first, f32", dict(opset=18, gate_first=True, f16=False), True),
             ("Split by sizes (opset 13), the gate second, f32", dict(opset=13, gate_first=False, f16=False), True),
             ("Split by num_outputs (opset 18), the gate second, f16", dict(opset=18, gate_first=False, f16=True), True),
             ("Split by sizes (opset 13), the gate first, f16", dict(opset=13, gate_first=True, f16=True), True),
             ("halves of the sequence axis, not the last", dict(opset=18, gate_first=True, f16=False, axis=1), False),
             ("the up half a graph output too", dict(opset=18, gate_first=True, f16=False, up_read=True), False),
             ("two Slices, the second to INT64_MAX (x[..., I:]), the gate first, f32",
              dict(opset=13, gate_first=True, f16=False, slices=(2**63 - 1, 2 * I)), True),
             ("two Slices, the second to 2I along axis 2, the gate second, f16",
              dict(opset=13, gate_first=False, f16=True, axis=2, slices=(2 * I, 2 * I)), True),
             ("two Slices of the same width that are not the halves", dict(opset=13, gate_first=True, f16=False,
                                                                            slices=(2**63 - 1, 2 * I + 2)), False),
             ("two Slices of the halves' dims, [0, I) and [1, I + 1)", dict(opset=13, gate_first=True, f16=False,
                                                                            slices=(0, 2 * I)), False)]
    bad = 0
    for k, (name, kw, split) in enumerate(cases):
        path = os.path.join(work, "phi3_mlp_%d.onnx" % k)
        mlp(path, **kw)
        folder = os.path.join(work, "out%d" % k)
        err = gen_folder(gen, path, B, folder)
        if err:
            print("FAIL %s: %s" % (name, err))
            bad += 1
            continue
        groups = [(layer, nodes) for pattern, layer, nodes in manifest_rows(folder, "group") if pattern == "swiglu"]
        cut = [1, 2] if kw.get("slices") else [1]  # MatMul is node 0, the Split node 1 (the Slices 1 and 2)
        holds = [g for g in groups if all(i in g[1] for i in cut)]
        ok = len(groups) == 1 and (len(holds) == 1) == split and len(groups[0][1]) == (3 + len(cut) if split else 3)
        note = "swiglu groups %s" % [n for _, n in groups]
        if ok and split:
            worst = group_against_ort(folder, groups[0][0], kw["f16"], path + ".group.onnx", ["gu"],
                                      [(".nin = 1,", True), (".flag = ", True)], os.path.join(work, "drv%d" % k))
            tol = 4e-3 if kw["f16"] else 1e-6
            if isinstance(worst, str):
                ok, note = False, note + "; " + worst
            else:
                ok = worst <= tol
                note += "; the plain C benchmark against ONNX Runtime: max error %.3g (tolerance %g)" % (worst, tol)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", name, note))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
