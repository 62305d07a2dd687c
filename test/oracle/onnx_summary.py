#!/usr/bin/env python3
"""Oracle for the loader test: summarises ONNX models with the official `onnx` package.

Usage: onnx_summary.py DIR... > summary.tsv

Finds every *.onnx under each DIR (missing DIRs are skipped) and prints one line per model:

  path  ir_version  producer  opsets  nodes_top  nodes_all  attrs_all  initializers  params
        inputs  outputs  ops

Fields are tab-separated; names are escaped by esc() below, which the C test mirrors
(test/test_loader.c). External data is not loaded: the generator needs dims only.
"""
import os
import sys

import onnx

SAFE = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")


def esc(s):
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogateescape")
    return "".join(chr(c) if c in SAFE else "%%%02X" % c for c in s)


def dtype_of(t):
    k = t.WhichOneof("value")
    if k == "tensor_type":
        return t.tensor_type.elem_type
    if k == "sparse_tensor_type":
        return t.sparse_tensor_type.elem_type
    if k == "sequence_type":
        return dtype_of(t.sequence_type.elem_type)
    if k == "map_type":
        return t.map_type.key_type
    if k == "optional_type":
        return dtype_of(t.optional_type.elem_type)
    return 0


KINDS = {"tensor_type": "T", "sparse_tensor_type": "S", "sequence_type": "Q",
         "map_type": "M", "optional_type": "O", None: "-"}


def value(vi):
    if not vi.HasField("type"):
        return "%s:-:0" % esc(vi.name)
    t = vi.type
    k = t.WhichOneof("value")
    out = "%s:%s:%d" % (esc(vi.name), KINDS.get(k, "-"), dtype_of(t))
    if k in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(t, k)
        if not tt.HasField("shape"):
            out += ":*"
        else:
            dims = []
            for d in tt.shape.dim:
                if d.HasField("dim_value") and d.dim_value >= 0:
                    dims.append(str(d.dim_value))
                elif d.HasField("dim_param") and d.dim_param:
                    dims.append(esc(d.dim_param))
                else:
                    dims.append("?")
            out += ":" + ",".join(dims)
    return out


def walk(g, ops, counts):
    for n in g.node:
        counts[0] += 1
        counts[1] += len(n.attribute)
        key = "%s:%s" % (esc(n.domain), esc(n.op_type))
        ops[key] = ops.get(key, 0) + 1
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                walk(a.g, ops, counts)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    walk(sg, ops, counts)


def summary(path):
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    ops = {}
    counts = [0, 0]
    walk(g, ops, counts)
    params = 0
    for t in g.initializer:
        n = 1
        for d in t.dims:
            n *= d
        params += n
    return "\t".join([
        path,
        str(m.ir_version),
        esc(m.producer_name),
        ";".join("%s:%d" % (esc(o.domain), o.version) for o in m.opset_import),
        str(len(g.node)),
        str(counts[0]),
        str(counts[1]),
        str(len(g.initializer)),
        str(params),
        ";".join(value(v) for v in g.input),
        ";".join(value(v) for v in g.output),
        ";".join("%s=%d" % (k, ops[k]) for k in sorted(ops)),
    ])


def main():
    paths = []
    for d in sys.argv[1:]:
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            paths += [os.path.join(root, f) for f in files if f.endswith(".onnx")]
    for p in sorted(paths):
        try:
            print(summary(p))
        except Exception as e:  # the C side reports the model, with this reason
            print("%s\tERROR\t%s" % (p, esc(str(e))[:200]))


if __name__ == "__main__":
    main()
