#!/usr/bin/env python3
"""Oracle for the shape-inference test: onnx.shape_inference.infer_shapes(data_prop=True).

Usage: shape_summary.py DIR... > shapes.tsv

For every *.onnx under the DIRs, a line "path  !MODEL  N" (N: the number of tensor lines
that follow; 0 for a model of sequences only), then one line per tensor that onnx types (graph inputs,
initializers, value_info, outputs):

  path  tensor  elem_type  dims          (dims: d0,d1,... with '?' for a symbolic or
                                          unknown dim, '*' for unknown rank)

and, where onnx refuses the model in strict mode, a line

  path  !REFUSED  reason

after which the tensors it still inferred in non-strict mode follow; for operators onnx
has no schema for (custom domains such as com.microsoft), whose outputs it silently leaves
untyped, a line

  path  !NOSCHEMA  domain:op=count;... Tensor names are
escaped as in onnx_summary.py.
"""
import os
import sys

import onnx
from onnx import shape_inference

from onnx_summary import esc


def dims_of(tt):
    if not tt.HasField("shape"):
        return "*"
    out = []
    for d in tt.shape.dim:
        out.append(str(d.dim_value) if d.HasField("dim_value") and d.dim_value >= 0 else "?")
    return ",".join(out)


def main():
    paths = []
    for d in sys.argv[1:]:
        if os.path.isdir(d):
            for root, _, files in os.walk(d):
                paths += [os.path.join(root, f) for f in files if f.endswith(".onnx")]
    for p in sorted(paths):
        try:
            m = onnx.load(p, load_external_data=False)
        except Exception as e:
            print("%s\t!REFUSED\tload: %s" % (p, esc(str(e))[:200]))
            continue
        try:
            inferred = shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
        except Exception as e:
            print("%s\t!REFUSED\t%s" % (p, esc(str(e).splitlines()[0] if str(e) else type(e).__name__)[:300]))
            try:
                inferred = shape_inference.infer_shapes(m, strict_mode=False, data_prop=True)
            except Exception:
                continue
        unknown = {}
        for n in m.graph.node:
            if not onnx.defs.has(n.op_type, n.domain):
                k = "%s:%s" % (esc(n.domain), esc(n.op_type))
                unknown[k] = unknown.get(k, 0) + 1
        if unknown:
            print("%s\t!NOSCHEMA\t%s" % (p, ";".join("%s=%d" % (k, unknown[k]) for k in sorted(unknown))))
        g = inferred.graph
        seen = set()
        rows = []
        for t in g.initializer:
            seen.add(t.name)
            rows.append("%s\t%s\t%d\t%s" % (p, esc(t.name), t.data_type, ",".join(str(x) for x in t.dims)))
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            if vi.name in seen or vi.type.WhichOneof("value") != "tensor_type":
                continue
            seen.add(vi.name)
            tt = vi.type.tensor_type
            rows.append("%s\t%s\t%d\t%s" % (p, esc(vi.name), tt.elem_type, dims_of(tt)))
        print("%s\t!MODEL\t%d" % (p, len(rows)))
        for r in rows:
            print(r)


if __name__ == "__main__":
    main()
