"""Holds gen's expansions of ONNX Runtime's com.microsoft fused operators (generator/ops/msft.c)
to ONNX Runtime running those operators.

For each case (a model of one com.microsoft node in one of its forms: Attention with and without
bias, past, present, key mask of each kind, causal or not, its own scale or head sizes;
SkipLayerNormalization, EmbedLayerNormalization, FastGelu, BiasGelu, Gelu), and for
../shared/models/gpt2-tiny-random-ort-fused-opset11 when it is there: gen --graph writes the
model as gen benchmarks it (the node replaced by ONNX operators), test/oracle/gen_graph.py
makes that an ONNX model again, and ONNX Runtime (graph optimizations off, so that it runs
the ONNX operators as they are) runs both on the same random inputs. Every output must agree
within 1e-4 of its largest value, and gen must have written every com.microsoft node as ONNX
ones. A case gen would refuse (a rank-4 Megatron mask) must be left as it is, with a warning.

usage: msft_expand_check.py WORKDIR [SHARED_MODELS_DIR]
Prints one line per case; exit status 1 on any mismatch.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from gen_graph import max_relative_error, rebuild, run_ort

F = TensorProto.FLOAT
I32 = TensorProto.INT32
RNG = np.random.default_rng(11)


def model(op, inputs, outputs, inits, attrs):
    """one com.microsoft node: inputs [(name or "", type, shape)], outputs [(name or "", type, shape)]"""
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], domain="com.microsoft", **attrs)
    init_names = {t.name for t in inits}
    graph = helper.make_graph(
        [node], "case",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs if n and n not in init_names],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs if n], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 9
    return m


def weight(name, shape, scale=0.3):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def attention(b, s, hin, heads, past=0, bias=True, mask=None, causal=False, present=False, sizes=None, **attrs):
    hq, hk, hv = sizes or (hin, hin, hin)
    t = past + s
    inits = [weight("w", [hin, hq + hk + hv])] + ([weight("bias", [hq + hk + hv])] if bias else [])
    ins = [("x", F, [b, s, hin]), ("w", F, None), ("bias" if bias else "", F, None)]
    mshape = {None: None, "keys": [b, t], "query_keys": [b, s, t], "lengths": [b], "dummy": [b, 1],
              "megatron": [b, 1, t, t]}[mask]
    ins.append(("mask", I32, mshape) if mask else ("", I32, None))
    if past:
        ins.append(("past", F, [2, b, heads, past, hk // heads]))
    outs = [("y", F, [b, s, hv])] + ([("present", F, [2, b, heads, t, hk // heads])] if present else [])
    if sizes:
        attrs["qkv_hidden_sizes"] = list(sizes)
    return model("Attention", ins, outs, inits, dict(num_heads=heads, unidirectional=int(causal), **attrs))


def cases():
    yield "attention", attention(2, 5, 16, 4)
    yield "attention no bias", attention(2, 5, 16, 4, bias=False)
    yield "attention causal, past, present, key mask", attention(
        2, 5, 16, 4, past=3, mask="keys", causal=True, present=True, mask_filter_value=-3.4028234663852886e38)
    yield "attention causal, present, no past", attention(1, 6, 16, 2, causal=True, present=True)
    yield "attention [B, S, T] mask, scale", attention(2, 4, 16, 4, mask="query_keys", scale=0.3)
    yield "attention key lengths", attention(3, 6, 16, 2, mask="lengths")
    yield "attention dummy mask", attention(2, 5, 16, 4, mask="dummy")
    yield "attention head sizes", attention(2, 5, 16, 4, sizes=(16, 16, 8))
    yield "attention decode step", attention(2, 1, 16, 4, past=7, mask="keys", causal=True, present=True)
    h = 24
    yield "skip layernorm, beta, bias, sum", model(
        "SkipLayerNormalization",
        [("x", F, [2, 7, h]), ("skip", F, [2, 7, h]), ("gamma", F, None), ("beta", F, None), ("b", F, None)],
        [("y", F, [2, 7, h]), ("", F, None), ("", F, None), ("sum", F, [2, 7, h])],
        [weight("gamma", [h]), weight("beta", [h]), weight("b", [h])], dict(epsilon=1e-5))
    yield "skip layernorm", model(
        "SkipLayerNormalization", [("x", F, [3, 4, h]), ("skip", F, [3, 4, h]), ("gamma", F, None)],
        [("y", F, [3, 4, h])], [weight("gamma", [h])], {})
    yield "embed layernorm, segments, mask", model(
        "EmbedLayerNormalization",
        [("ids", I32, [2, 9]), ("seg", I32, [2, 9]), ("we", F, None), ("pe", F, None), ("se", F, None),
         ("gamma", F, None), ("beta", F, None), ("mask", I32, [2, 9])],
        [("y", F, [2, 9, h]), ("mask_index", I32, [2])],
        [weight("we", [50, h]), weight("pe", [16, h]), weight("se", [2, h]), weight("gamma", [h]),
         weight("beta", [h])], dict(epsilon=1e-5))
    yield "embed layernorm, position ids, sum", model(
        "EmbedLayerNormalization",
        [("ids", I32, [2, 9]), ("", I32, None), ("we", F, None), ("pe", F, None), ("", F, None),
         ("gamma", F, None), ("beta", F, None), ("", I32, None), ("pos", I32, [2, 9])],
        [("y", F, [2, 9, h]), ("", I32, None), ("sum", F, [2, 9, h])],
        [weight("we", [50, h]), weight("pe", [16, h]), weight("gamma", [h]), weight("beta", [h])], {})
    yield "fast gelu, bias", model("FastGelu", [("x", F, [2, 3, 40]), ("b", F, None)], [("y", F, [2, 3, 40])],
                                   [weight("b", [40], 1.0)], {})
    yield "fast gelu", model("FastGelu", [("x", F, [5, 40])], [("y", F, [5, 40])], [], {})
    yield "bias gelu", model("BiasGelu", [("x", F, [2, 3, 40]), ("b", F, None)], [("y", F, [2, 3, 40])],
                             [weight("b", [40], 1.0)], {})
    yield "gelu", model("Gelu", [("x", F, [6, 40])], [("y", F, [6, 40])], [], {})


def feed(m, shapes):
    """random inputs: ids within their tables, masks of 0 and 1 with the first key kept, lengths
    of at least 1, the rest normal"""
    out = {}
    for i in m.graph.input:
        t = i.type.tensor_type
        shape = shapes.get(i.name) or [d.dim_value for d in t.shape.dim]
        if t.elem_type == I32:
            if i.name == "mask" and len(shape) == 1:
                out[i.name] = RNG.integers(1, 9, shape).astype(np.int32)
            elif i.name in ("mask", "attention_mask"):
                v = (RNG.random(shape) < 0.7).astype(np.int32)
                v[..., 0] = 1
                out[i.name] = v
            elif i.name == "seg":
                out[i.name] = RNG.integers(0, 2, shape).astype(np.int32)
            else:
                out[i.name] = RNG.integers(0, 16, shape).astype(np.int32)
        elif t.elem_type == TensorProto.INT64:
            out[i.name] = RNG.integers(0, 16, shape).astype(np.int64)
        else:
            out[i.name] = RNG.standard_normal(shape).astype(np.float32)
    return out


def check(name, path, args=(), shapes=None):
    original = onnx.load(path)
    mine, err = rebuild(path, args)
    left = [n.op_type for n in mine.graph.node if n.domain == "com.microsoft"]
    feeds = feed(original, shapes or {})
    want = run_ort(original, feeds)
    got = run_ort(mine, feeds)
    worst = max_relative_error(want, got)
    ok = not left and worst <= 1e-4 and "not written" not in err
    print("%s %s: %d ONNX nodes, outputs %s, max relative error %.3g%s" % (
        "ok  " if ok else "FAIL", name, len(mine.graph.node), ",".join(sorted(want)), worst,
        " (left: %s; %s)" % (left, err.strip()) if left or "not written" in err else ""))
    return ok


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    bad = 0
    for i, (name, m) in enumerate(cases()):
        path = os.path.join(work, "case%d.onnx" % i)
        onnx.save(m, path)
        bad += not check(name, path)
    # a form gen does not expand: left as it is, with the reason said
    m = attention(2, 5, 16, 4, mask="megatron")
    path = os.path.join(work, "megatron.onnx")
    onnx.save(m, path)
    _, err = rebuild(path)
    said = "not written as ONNX operators" in err and "mask index" in err
    print("%s attention Megatron mask: left unexpanded%s" % ("ok  " if said else "FAIL", "" if said else " (" + err + ")"))
    bad += not said
    if len(sys.argv) > 2:
        gpt2 = os.path.join(sys.argv[2], "gpt2-tiny-random-ort-fused-opset11.onnx")
        dims = {"batch_size": 2, "seq_len": 6, "past_seq_len": 4, "total_seq_len": 10}
        args = ["-b", "2"] + ["--dim=%s=%d" % kv for kv in dims.items() if kv[0] != "batch_size"]
        g = onnx.load(gpt2)
        shapes = {}
        for i in g.graph.input:
            shapes[i.name] = [d.dim_value or dims[d.dim_param] for d in i.type.tensor_type.shape.dim]
        bad += not check("gpt2-tiny-random-ort-fused-opset11 (batch 2, 6 tokens after 4)", gpt2, args, shapes)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
