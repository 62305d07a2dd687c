#!/usr/bin/env python3
"""Oracle for the zoo: each model file passes onnx.checker (full check, external data
present) and onnx's own shape inference, and its learnable parameters (initializer elements,
without BatchNorm running statistics and without integer/scalar constants) match the
published count within 0.5%.

Usage: zoo_check.py DIR    (DIR/NAME.onnx for each model below; one line per model)

The published counts are the ones the architectures' authors give (torchvision's model
documentation, the BERT and GPT-2 papers/releases), not benanza's own numbers.
"""
import sys

import onnx
from onnx import shape_inference


def learnable(t):
    if t.data_type != onnx.TensorProto.FLOAT or len(t.dims) == 0:
        return 0
    if t.name.endswith(".running_mean") or t.name.endswith(".running_var"):
        return 0
    n = 1
    for d in t.dims:
        n *= d
    return n


PUBLISHED = {
    "resnet50": 25.56e6,
    "vgg16": 138.36e6,
    "mobilenet_v2": 3.50e6,
    "inception_v3": 23.8e6,   # without the auxiliary classifier (27.2 M with it)
    "bert_base-seq128": 110e6,
    "gpt2-seq128": 124e6,
    "vit_base": 86.6e6,      # torchvision vit_b_16: 86,567,656
}


def main():
    failed = 0
    for name, published in PUBLISHED.items():
        path = "%s/%s.onnx" % (sys.argv[1], name)
        try:
            onnx.checker.check_model(path, full_check=True)
            m = onnx.load(path, load_external_data=False)
            inferred = shape_inference.infer_shapes(m, strict_mode=True)
            outs = []
            for o in inferred.graph.output:
                dims = [d.dim_value if d.HasField("dim_value") else "?" for d in o.type.tensor_type.shape.dim]
                outs.append("%s%s" % (o.name, dims))
            params = sum(learnable(t) for t in m.graph.initializer)
            err = abs(params - published) / published
            ok = err <= 0.005
            print("%s %s: checker ok, %d nodes, %d parameters (published %.2f M, %.3f%%), outputs %s" % (
                "ok  " if ok else "FAIL", name, len(m.graph.node), params, published / 1e6, 100 * err, " ".join(outs)))
            failed += not ok
        except Exception as e:
            print("FAIL %s: %s" % (name, str(e).splitlines()[0][:300]))
            failed += 1
    print("zoo: %d passed, %d failed" % (len(PUBLISHED) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
