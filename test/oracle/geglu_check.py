#!/usr/bin/env python3
"""GeGLU, gelu(g) u, the gated MLP of Gemma, T5 v1.1 and Stable Diffusion's GEGLU, in the forms
exporters write it. Held against gen and ONNX Runtime:
- gen makes one geglu group of the GELU's nodes and the Mul by u, for every form of GELU it
  fuses: the erf form written out (x / sqrt 2 -> Erf -> + 1 -> * x -> * 0.5, or with x * 0.5
  first), the tanh form written out (GPT-2's gelu_new, T5's NewGELU) and ONNX's Gelu (opset
  20, both approximations); with g and u two projections, or the halves of one projection by a
  Split or by two Slices (the group then holds the Split or the Slices, and its key says which
  half is the gate);
- the written-out GELU is a part of the group of its own pattern (gelu or gelu_tanh), the way
  frameworks that do not fuse the gate run it;
- the group's plain C benchmark, the file gen writes for the CPU, computes what ONNX Runtime
  computes from the group's nodes on the same inputs (built into a driver that runs its setup
  and kernel once, plain_check.py's), with the function of the GELU's form;
- where the GELU's output is read elsewhere too, or u broadcasts (another shape), there is no
  geglu group: the GELU keeps its own.

usage: geglu_check.py WORKDIR   (BENANZA_GEN: gen; exit status 1 on a failure)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from plain_check import gen_folder, group_against_ort, manifest_rows, workdir_and_gen

B, T, H, I = 2, 4, 8, 12


def const(name, value, f16):
    return numpy_helper.from_array(np.array(value, np.float16 if f16 else np.float32), name)


def gelu_nodes(form, g, out, f16):
    """GELU of g into out in FORM (erf, erf_half_first, tanh, op_erf, op_tanh): nodes, constants,
    how many nodes, the part's pattern (None for ONNX's Gelu)"""
    p = out + "_"
    if form == "erf":
        nodes = [helper.make_node("Div", [g, p + "sqrt2"], [p + "d"]), helper.make_node("Erf", [p + "d"], [p + "e"]),
                 helper.make_node("Add", [p + "e", p + "one"], [p + "a"]), helper.make_node("Mul", [g, p + "a"], [p + "m"]),
                 helper.make_node("Mul", [p + "m", p + "half"], [out])]
        return nodes, [const(p + "sqrt2", 1.4142135, f16), const(p + "one", 1.0, f16), const(p + "half", 0.5, f16)], "gelu"
    if form == "erf_half_first":
        nodes = [helper.make_node("Mul", [g, p + "half"], [p + "h"]), helper.make_node("Div", [g, p + "sqrt2"], [p + "d"]),
                 helper.make_node("Erf", [p + "d"], [p + "e"]), helper.make_node("Add", [p + "e", p + "one"], [p + "a"]),
                 helper.make_node("Mul", [p + "h", p + "a"], [out])]
        return nodes, [const(p + "sqrt2", 1.4142135, f16), const(p + "one", 1.0, f16), const(p + "half", 0.5, f16)], "gelu"
    if form == "tanh":
        nodes = [helper.make_node("Pow", [g, p + "three"], [p + "c"]), helper.make_node("Mul", [p + "c", p + "k"], [p + "ck"]),
                 helper.make_node("Add", [g, p + "ck"], [p + "in"]), helper.make_node("Mul", [p + "in", p + "s"], [p + "is"]),
                 helper.make_node("Tanh", [p + "is"], [p + "t"]), helper.make_node("Add", [p + "t", p + "one"], [p + "a"]),
                 helper.make_node("Mul", [g, p + "a"], [p + "m"]), helper.make_node("Mul", [p + "m", p + "half"], [out])]
        return nodes, [const(p + "three", 3.0, f16), const(p + "k", 0.044715, f16), const(p + "s", 0.7978845608, f16),
                       const(p + "one", 1.0, f16), const(p + "half", 0.5, f16)], "gelu_tanh"
    approximate = "tanh" if form == "op_tanh" else "none"
    return [helper.make_node("Gelu", [g], [out], approximate=approximate)], [], None


def mlp(path, form, f16, halves=None, gelu_read=False, u_broadcast=False, slices=False):
    """x [B, T, H] -> gelu(x Wg) (x Wu), or with HALVES ("gate first" or "gate second") the
    halves of x W [B, T, 2I] (a Split, or with SLICES two Slices: gu[..., :I], gu[..., I:]); with
    the group's nodes alone written to path + '.group.onnx', for ONNX Runtime (its inputs g and
    u, or gu)"""
    et = TensorProto.FLOAT16 if f16 else TensorProto.FLOAT
    dt = np.float16 if f16 else np.float32
    rng = np.random.default_rng(2)
    opset = 20 if form.startswith("op_") else 18
    consts, front, body = [], [], []
    if halves:
        consts.append(numpy_helper.from_array(rng.uniform(-0.5, 0.5, (H, 2 * I)).astype(dt), "w"))
        front.append(helper.make_node("MatMul", ["x", "w"], ["gu"]))
        outs = ["g", "u"] if halves == "gate first" else ["u", "g"]
        if slices:
            consts += [numpy_helper.from_array(np.array([v], np.int64), n)
                       for n, v in (("s0", 0), ("s1", I), ("s2", 2**63 - 1), ("sa", -1))]
            body += [helper.make_node("Slice", ["gu", "s0", "s1", "sa"], [outs[0]]),
                     helper.make_node("Slice", ["gu", "s1", "s2", "sa"], [outs[1]])]
        else:
            body.append(helper.make_node("Split", ["gu"], outs, axis=-1, num_outputs=2))
    else:
        consts += [numpy_helper.from_array(rng.uniform(-0.5, 0.5, (H, I)).astype(dt), "wg"),
                   numpy_helper.from_array(rng.uniform(-0.5, 0.5, (H, I)).astype(dt), "wu")]
        front += [helper.make_node("MatMul", ["x", "wg"], ["g"]), helper.make_node("MatMul", ["x", "wu"], ["u"])]
        if u_broadcast:
            consts.append(numpy_helper.from_array(rng.uniform(-0.5, 0.5, (I,)).astype(dt), "ub"))
    nodes, cs, part = gelu_nodes(form, "g", "act", f16)
    body += nodes + [helper.make_node("Mul", ["act", "ub" if u_broadcast else "u"], ["y"])]
    consts += cs
    outs = [helper.make_tensor_value_info("y", et, [B, T, I])]
    if gelu_read:
        outs.append(helper.make_tensor_value_info("act", et, [B, T, I]))
    graph = helper.make_graph(front + body, "geglu_mlp", [helper.make_tensor_value_info("x", et, [B, T, H])], outs, consts)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    ins = [helper.make_tensor_value_info("gu", et, [B, T, 2 * I])] if halves else \
        [helper.make_tensor_value_info("g", et, [B, T, I]), helper.make_tensor_value_info("u", et, [B, T, I])]
    gg = helper.make_graph(body, "group", ins, outs[:1], [c for c in consts if c.name not in ("w", "wg", "wu")])
    onnx.save(helper.make_model(gg, opset_imports=[helper.make_opsetid("", opset)]), path + ".group.onnx")
    return len(nodes), part


def main():
    args = workdir_and_gen(__doc__)
    if not args:
        return 2
    work, gen = args
    erf, tanh = "PL_GELU_MUL", "PL_GELU_TANH_MUL"
    # name, mlp's arguments, the function the group computes (None: no geglu group)
    cases = [("two projections, GELU by erf written out, f32", dict(form="erf", f16=False), erf),
             ("two projections, GELU by erf with x * 0.5 first, f32", dict(form="erf_half_first", f16=False), erf),
             ("two projections, GELU's tanh form written out (gelu_new), f32", dict(form="tanh", f16=False), tanh),
             ("two projections, GELU's tanh form written out, f16", dict(form="tanh", f16=True), tanh),
             ("two projections, ONNX Gelu (opset 20), f32", dict(form="op_erf", f16=False), erf),
             ("two projections, ONNX Gelu approximate tanh (opset 20), f16", dict(form="op_tanh", f16=True), tanh),
             ("one projection's halves, the gate second (Stable Diffusion's GEGLU), erf, f32",
              dict(form="erf", f16=False, halves="gate second"), erf),
             ("one projection's halves, the gate first, tanh form, f16", dict(form="tanh", f16=True, halves="gate first"), tanh),
             ("one projection's halves, the gate second, ONNX Gelu tanh, f32",
              dict(form="op_tanh", f16=False, halves="gate second"), tanh),
             ("one projection's halves by two Slices, the gate first, erf, f32",
              dict(form="erf", f16=False, halves="gate first", slices=True), erf),
             ("one projection's halves by two Slices, the gate second, ONNX Gelu tanh, f16",
              dict(form="op_tanh", f16=True, halves="gate second", slices=True), tanh),
             ("the GELU's output a graph output too", dict(form="erf", f16=False, gelu_read=True), None),
             ("u a row that broadcasts", dict(form="tanh", f16=False, u_broadcast=True), None)]
    bad = 0
    for k, (name, kw, fn) in enumerate(cases):
        path = os.path.join(work, "geglu_mlp_%d.onnx" % k)
        n_act, part = mlp(path, **kw)
        folder = os.path.join(work, "out%d" % k)
        err = gen_folder(gen, path, B, folder)
        if err:
            print("FAIL %s: %s" % (name, err))
            bad += 1
            continue
        groups = manifest_rows(folder, "group")
        geglu = [g for g in groups if g[0] == "geglu"]
        parts = manifest_rows(folder, "part")
        note = "groups %s, parts %s" % ([(p, n) for p, _, n in groups], [(p, n) for p, _, n in parts])
        if fn is None:
            # no geglu; a written-out GELU keeps its own group
            ok = not geglu and (part is None or any(g[0] == part for g in groups))
        else:
            halves = kw.get("halves")
            want_nodes = n_act + 1 + ((2 if kw.get("slices") else 1) if halves else 0)
            ok = len(geglu) == 1 and len(geglu[0][2]) == want_nodes and \
                (part is None and not parts or [p[0] for p in parts] == [part] and len(parts[0][2]) == n_act)
            if ok:
                worst = group_against_ort(folder, geglu[0][1], kw["f16"], path + ".group.onnx",
                                          ["gu"] if halves else ["g", "u"],
                                          [(".fn = %s," % fn, True), (".nin = 1,", bool(halves))],
                                          os.path.join(work, "drv%d" % k))
                tol = 4e-3 if kw["f16"] else 1e-6
                if isinstance(worst, str):
                    ok, note = False, note + "; " + worst
                else:
                    ok = worst <= tol
                    note += "; the plain C benchmark (%s) against ONNX Runtime: max error %.3g (tolerance %g)" % (fn, worst, tol)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", name, note))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
