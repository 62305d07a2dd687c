#!/usr/bin/env python3
"""Which cuBLASLt GEMMs gen must also write with B prepacked as [n, k] (the ltnk<k> files),
worked out from the ONNX models themselves, held against the folder gen wrote
(test_cli.c, cuda_prepacked_weights).

    test/oracle/prepacked_check.py model OUT.onnx   writes a model with each kind of GEMM
    test/oracle/prepacked_check.py check FOLDER     the check

A layer with cuBLASLt files (lt0) wants ltnk0 beside it exactly when every node behind it (for a
fusion group or a part of one, its first member) is a MatMul or a Gemm without transB whose B
is a 2-D initializer (so that A holds any batch dims alone: one GEMM, not a batched one; an
attention group's parts, whose B is an activation, have none). Reads the folder's
manifest.tsv for the models (run lines), the nodes' layers (node lines) and the groups' and
parts' members (group and part lines). Exit 0 when the folder agrees and both kinds occur; else the
disagreements, exit 1."""
import os
import sys

import onnx


def weight_gemm(model, node):
    """a MatMul, or a Gemm without transB, whose B is a 2-D constant (an initializer or a
    Constant node's tensor)"""
    consts = {t.name: list(t.dims) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = list(a.t.dims)
    if node.op_type not in ("MatMul", "Gemm") or len(node.input) < 2:
        return False
    if node.op_type == "Gemm" and any(a.name == "transB" and a.i for a in node.attribute):
        return False
    b = consts.get(node.input[1])
    return b is not None and len(b) == 2


def write_model(path):
    """x [4, 8] -> MatMul(W [8, 16]) -> MatMul(the activation y [16, 16]) -> Gemm(W2 [12, 16],
    transB) -> Gemm(W3 [12, 12]) -> batched MatMul with a constant B [2, 12, 12]; beside them
    v [1, 12] -> the same batched B (a batched GEMV: no cublasSgemv file either) and v -> MatMul
    of a 1-D constant (n = 1: [n, k] would be the same bytes): prepacked wants the first and the
    fourth only"""
    from onnx import TensorProto, helper
    import numpy as np

    def init(name, shape):
        return onnx.numpy_helper.from_array(np.full(shape, 0.5, np.float32), name)

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["a"], name="weight_matmul"),
        helper.make_node("MatMul", ["a", "y"], ["b"], name="activation_matmul"),
        helper.make_node("Gemm", ["b", "w2"], ["c"], name="gemm_transb", transB=1),
        helper.make_node("Gemm", ["c", "w3"], ["d"], name="gemm_plain"),
        helper.make_node("MatMul", ["d", "w4"], ["z"], name="batched_matmul"),
        helper.make_node("MatMul", ["v", "w4"], ["zv"], name="batched_gemv"),
        helper.make_node("MatMul", ["v", "w5"], ["zw"], name="vector_matmul"),
    ]
    graph = helper.make_graph(
        nodes, "gemms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 16]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 12])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 4, 12]),
         helper.make_tensor_value_info("zv", TensorProto.FLOAT, [2, 1, 12]),
         helper.make_tensor_value_info("zw", TensorProto.FLOAT, [1])],
        [init("w", [8, 16]), init("w2", [12, 16]), init("w3", [12, 12]), init("w4", [2, 12, 12]), init("w5", [12])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "model":
        return write_model(sys.argv[2])
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    folder = sys.argv[2]
    models, nodes_of = {}, {}
    with open(os.path.join(folder, "manifest.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "run":
                models[c[1]] = onnx.load(c[4], load_external_data=False)
            elif c[0] == "node" and c[5] != "-":
                nodes_of.setdefault(c[5], []).append((c[1], int(c[2])))
            elif c[0] in ("group", "part"):
                first = int(c[5].split(",")[0])
                nodes_of.setdefault(c[4], []).append((c[1], first))
    files = set(os.listdir(os.path.join(folder, "bench")))
    lt = {f.split("-")[0] for f in files if f.endswith("-lt0.c")}
    nk = {f.split("-")[0] for f in files if f.endswith("-ltnk0.c")}
    bad, kinds = 0, set()
    for layer in sorted(lt | nk):
        if layer not in nodes_of:
            print(f"{layer}: in no node, group or part line of the manifest")
            bad = 1
            continue
        want = all(weight_gemm(models[r], models[r].graph.node[i]) for r, i in nodes_of[layer])
        has = layer in nk
        kinds.add(want)
        if want != has or layer not in lt:
            names = ", ".join(models[r].graph.node[i].name for r, i in nodes_of[layer][:3])
            print(f"{layer} ({names}): ltnk0 {'written' if has else 'missing'}, want {'it' if want else 'none'}")
            bad = 1
    # cublasSgemv runs one GEMV: never for a batched one
    for f in sorted(files):
        if f.endswith("-gemv.c"):
            with open(os.path.join(folder, "bench", f)) as src:
                text = src.read()
            if ".batch_count = 1," not in text:
                print(f"{f}: a cublasSgemv file for a batched GEMM")
                bad = 1
    if kinds != {True, False}:
        print(f"the folder lacks a case: {'no prepacked GEMM' if True not in kinds else 'no other GEMM'}")
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
