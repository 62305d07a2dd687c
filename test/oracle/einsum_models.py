#!/usr/bin/env python3
"""Writes Einsum models beyond libonnx-testdata's five: attention's two products, a chain of
three operands, the ellipsis broadcasting, an implicit output with upper-case labels, a
diagonal summed away, integers and float16; sizes where a wrong stride shows. The e2e test
benchmarks them and holds each plain C kernel against onnx.reference (plain_check.py).

usage: einsum_models.py OUTDIR"""
import os
import sys

import onnx
from onnx import TensorProto, helper

F32, F16, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64
CASES = [
    ("einsum_attention_scores", "bhqd,bhkd->bhqk", [[1, 2, 5, 7], [1, 2, 6, 7]], [1, 2, 5, 6], F32),
    ("einsum_attention_context", "bhqk,bhkd->bqhd", [[1, 2, 5, 6], [1, 2, 6, 7]], [1, 5, 2, 7], F32),
    ("einsum_chain", "ij,jk,kl->il", [[3, 4], [4, 5], [5, 2]], [3, 2], F32),
    ("einsum_ellipsis_broadcast", "...ij,...jk->...ik", [[2, 1, 3, 4], [1, 5, 4, 6]], [2, 5, 3, 6], F32),
    ("einsum_implicit_upper", "Ab,bC", [[3, 4], [4, 5]], [3, 5], F32),
    ("einsum_diagonal_sum", "iij->j", [[4, 4, 3]], [3], F32),
    ("einsum_outer_int64", "i,j->ij", [[5], [3]], [5, 3], I64),
    ("einsum_f16_bilinear", "bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]], [2, 4], F16),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, eq, shapes, oshape, t in CASES:
        ins = ["x%d" % i for i in range(len(shapes))]
        node = helper.make_node("Einsum", ins, ["y"], equation=eq)
        g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, s in zip(ins, shapes)],
                              [helper.make_tensor_value_info("y", t, oshape)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)])
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=True)
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
