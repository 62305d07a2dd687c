"""Holds gen's expansions of ONNX operators the standard defines as functions (generator/ops/
functions.c: Attention, RMSNormalization and RotaryEmbedding of opset 23) to ONNX Runtime
running those operators, and gen's fusion to finding the attention group in each Attention.

For each case (a model of one Attention node in one of its forms: 4-D and 3-D operands, grouped
query heads, bool and float masks of ranks 2 to 4, causal with and without a past key and value,
its own scale, the present outputs; RMSNormalization over one and two axes, in f32 and in f16
with a float stash; RotaryEmbedding 4-D and 3-D, halves and interleaved, whole and partial
rotation, with position ids and with per-token tables): gen --graph writes the model as gen
benchmarks it (the node
replaced by ONNX operators), test/oracle/gen_graph.py makes that an ONNX model again, and ONNX
Runtime (graph optimizations off, so that it runs the ONNX operators as they are) runs both on
the same random inputs. Every output must agree within 1e-4 of its largest value (f16: 2e-3),
no node of the operator may be left, no value may leave a fusion group but through its last
node, and gen --layers must count one attention group for an Attention, holding both repeats
of K's and V's heads where query heads share them (an rmsnorm, rope or rope_pairs group for the
others where gen's kernels take them; the same groups in the forms PyTorch exports, the
rotation by pairs held to its definition, and Llama's grouped-query attention with repeat_kv
made of Shape arithmetic, dynamic batch and sequence). The forms gen leaves as they are
(softcap, the QK output, RotaryEmbedding tables of the wrong width) must be left, with the
reason said.

usage: onnx_functions_check.py WORKDIR
Prints one line per case; exit status 1 on any mismatch, 77 when this onnx or ONNX Runtime is too
old to run an opset-23 Attention (nothing to hold gen to).
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from attention_check import llama_gqa_model
from gen_graph import max_relative_error, rebuild, run_ort
from plain_check import gen_folder, group_against_ort, manifest_rows

F = TensorProto.FLOAT
B = TensorProto.BOOL
RNG = np.random.default_rng(23)


def attention(q, k, v, mask=None, past=None, outs=1, **attrs):
    """one Attention node (opset 23): q, k, v shapes; mask (dtype, shape); past (P) gives past
    key and value of P positions; outs: Y, present_key, present_value, qk_matmul_output"""
    names, ins = ["q", "k", "v"], [("q", q), ("k", k), ("v", v)]
    rank4 = len(q) == 4
    if mask:
        names.append("mask")
    elif past:
        names.append("")
    if past:
        b = q[0]
        nkv = k[1] if rank4 else attrs["kv_num_heads"]
        h = k[3] if rank4 else k[2] // nkv
        hv = v[3] if rank4 else v[2] // nkv
        ins += [("past_key", [b, nkv, past, h]), ("past_value", [b, nkv, past, hv])]
        names += ["past_key", "past_value"]
    out_names = ["y", "present_key", "present_value", "qk"][:outs]
    node = helper.make_node("Attention", names, out_names, **attrs)
    inputs = [helper.make_tensor_value_info(n, F, s) for n, s in ins]
    if mask:
        inputs.append(helper.make_tensor_value_info("mask", mask[0], mask[1]))
    graph = helper.make_graph([node], "case", inputs, [helper.make_tensor_value_info(n, F, None) for n in out_names])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    return m


def single(op, ins, attrs, elem=F):
    """one node of OP (opset 23) over inputs ins [(name, shape, type)], output y"""
    node = helper.make_node(op, [n for n, _, _ in ins], ["y"], **attrs)
    graph = helper.make_graph([node], "case", [helper.make_tensor_value_info(n, t, sh) for n, sh, t in ins],
                              [helper.make_tensor_value_info("y", elem, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    return m


def rms(x, scale, elem=F, **attrs):
    return single("RMSNormalization", [("x", x, elem), ("scale", scale, elem)], attrs, elem)


def rope(x, table, ids=None, **attrs):
    """RotaryEmbedding: X's shape, the tables' shape, position ids' shape (None: without)"""
    ins = [("x", x, F), ("cos_cache", table, F), ("sin_cache", table, F)]
    if ids:
        ins.append(("position_ids", ids, TensorProto.INT64))
    return single("RotaryEmbedding", ins, attrs)


def cases():
    """(name, model, the operator expanded, its tolerance, the fused groups gen must find in it:
    an attention group in each Attention, an rmsnorm group where the norm is over the last axis
    alone, a rope group where the rotation is by halves, a rope_pairs group where it is by pairs
    (interleaved): what gen's kernels take; a (prefix, count) pair names the group's prefix)"""
    for name, m in attention_cases():
        yield name, m, "Attention", 1e-4, 1
    yield "RMSNormalization over the last axis", rms([2, 5, 16], [16]), "RMSNormalization", 1e-4, 1
    yield "RMSNormalization over two axes, epsilon", rms([3, 4, 6], [4, 6], axis=1, epsilon=0.1), "RMSNormalization", \
        1e-4, 0
    yield "RMSNormalization in f16, float stash", rms([2, 3, 32], [32], TensorProto.FLOAT16), "RMSNormalization", \
        2e-3, 1
    yield "RotaryEmbedding 4-D, position ids", rope([2, 3, 5, 8], [12, 4], [2, 5]), "RotaryEmbedding", 1e-4, 1
    yield "RotaryEmbedding 4-D, interleaved", rope([1, 2, 4, 8], [6, 4], [1, 4], interleaved=1), "RotaryEmbedding", 1e-4, \
        ("rope_pairs", 1)
    yield "RotaryEmbedding 3-D, heads, partial", rope([2, 4, 24], [9, 2], [2, 4], num_heads=2,
                                                      rotary_embedding_dim=4), "RotaryEmbedding", 1e-4, 1
    yield "RotaryEmbedding 3-D, interleaved, partial, per-token tables", rope(
        [1, 3, 32], [1, 3, 3], num_heads=4, interleaved=1, rotary_embedding_dim=6), "RotaryEmbedding", 1e-4, \
        ("rope_pairs", 1)


def attention_cases():
    yield "4-D", attention([2, 4, 8, 16], [2, 4, 8, 16], [2, 4, 8, 16])
    yield "4-D, keys and values of their own lengths and head sizes, scale", attention(
        [2, 4, 6, 16], [2, 4, 10, 16], [2, 4, 10, 8], scale=0.3)
    yield "3-D, heads", attention([2, 7, 32], [2, 7, 32], [2, 7, 32], q_num_heads=4, kv_num_heads=4)
    yield "3-D, grouped query heads, bool mask [S, T]", attention(
        [1, 9, 64], [1, 9, 16], [1, 9, 16], mask=(B, [9, 9]), q_num_heads=8, kv_num_heads=2)
    yield "4-D, grouped query heads, float mask [B, 1, S, T]", attention(
        [2, 6, 5, 8], [2, 3, 5, 8], [2, 3, 5, 8], mask=(F, [2, 1, 5, 5]))
    yield "4-D, float mask [N, S, T]", attention([2, 3, 4, 8], [2, 3, 6, 8], [2, 3, 6, 8], mask=(F, [3, 4, 6]))
    yield "4-D, causal", attention([1, 2, 8, 16], [1, 2, 8, 16], [1, 2, 8, 16], is_causal=1)
    yield "4-D, causal, fewer queries than keys", attention([1, 2, 4, 8], [1, 2, 6, 8], [1, 2, 6, 8], is_causal=1)
    yield "4-D, causal, past, present, bool mask [B, N, S, T]", attention(
        [2, 2, 4, 8], [2, 2, 4, 8], [2, 2, 4, 8], mask=(B, [2, 2, 4, 7]), past=3, outs=3, is_causal=1)
    yield "3-D, decode step: past, present, grouped heads, causal", attention(
        [2, 1, 32], [2, 1, 16], [2, 1, 16], past=6, outs=3, is_causal=1, q_num_heads=4, kv_num_heads=2)
    yield "4-D, present without a past", attention([1, 2, 5, 8], [1, 2, 5, 8], [1, 2, 5, 8], outs=3)


def feed(m):
    """normal operands; bool masks with each query's first key kept (a row with every key hidden
    is where gen's form and ONNX's differ: NaN against zeros); position ids within the tables"""
    out, rows = {}, None
    for i in m.graph.input:
        if i.name == "cos_cache":
            rows = i.type.tensor_type.shape.dim[0].dim_value
    for i in m.graph.input:
        t = i.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        if t.elem_type == B:
            v = RNG.random(shape) < 0.6
            v[..., 0] = True
            out[i.name] = v
        elif t.elem_type == TensorProto.INT64:
            out[i.name] = RNG.integers(0, rows, shape).astype(np.int64)
        else:
            v = RNG.standard_normal(shape)
            out[i.name] = v.astype(np.float16 if t.elem_type == TensorProto.FLOAT16 else np.float32)
    return out


def fused_groups(path, prefix, args=()):
    """gen --layers (with ARGS): the uses of its fused layers named PREFIX__..., and their ops"""
    gen = os.environ.get("BENANZA_GEN", "bin/gen")
    out = subprocess.run([gen, "--layers", path, *args], check=True, capture_output=True, text=True).stdout
    n, ops = 0, []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[3].startswith(prefix + "__"):
            n += int(f[1])
            ops.append(f[2])
    return n, ops


# the fusion group gen must find in each operator's expansion: its layer's name prefix
GROUP_OF = {"Attention": "attention", "RMSNormalization": "rmsnorm", "RotaryEmbedding": "rope"}


def kv_shared(model):
    """whether the model's Attention has fewer K and V heads than query heads"""
    n = model.graph.node[0]
    a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
    dims = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    q, k = dims[n.input[0]], dims[n.input[1]]
    return a.get("q_num_heads", 0) != a.get("kv_num_heads", 0) if len(q) == 3 else q[1] != k[1]


def check(name, path, op, tol, want_groups):
    original = onnx.load(path)
    mine, err = rebuild(path)
    left = [n.op_type for n in mine.graph.node if n.op_type == op]
    feeds = feed(original)
    want = run_ort(original, feeds)
    got = run_ort(mine, feeds)
    worst = max_relative_error(want, got)
    prefix = GROUP_OF.get(op)
    if isinstance(want_groups, tuple):
        prefix, want_groups = want_groups
    groups, ops = fused_groups(path, prefix) if prefix else (0, [])
    leaked = leaks(path, os.path.dirname(path))
    # grouped query heads: the repeat of K's and V's heads (Unsqueeze, Expand, Reshape) is the
    # attention group's too, its kernels reading each shared head in place
    shared = [o.split("+").count("Expand") for o in ops] if op == "Attention" and kv_shared(original) else None
    ok = not left and worst <= tol and "not written" not in err and groups == want_groups and not leaked and \
        (shared is None or shared == [2] * groups)
    print("%s %s: %d ONNX nodes, outputs %s, max relative error %.3g, %s groups %d%s%s%s" % (
        "ok  " if ok else "FAIL", name, len(mine.graph.node), ",".join(sorted(want)), worst, prefix or "fused", groups,
        ", K's and V's shared heads in it" if shared == [2] * groups else
        ", the repeats of K's and V's heads NOT in it" if shared is not None else "",
        " (left: %s; %s)" % (left, err.strip()) if left or "not written" in err else "",
        "; " + "; ".join(leaked) if leaked else ""))
    return ok


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    probe = attention([1, 1, 2, 4], [1, 1, 2, 4], [1, 1, 2, 4])
    try:
        ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    except (ort.capi.onnxruntime_pybind11_state.Fail, ort.capi.onnxruntime_pybind11_state.InvalidGraph,
            ort.capi.onnxruntime_pybind11_state.NotImplemented) as e:  # an ONNX Runtime before opset 23
        print("skipped: ONNX Runtime %s cannot run an opset-23 Attention: %s" % (ort.__version__, str(e)[:200]))
        return 77
    bad = 0
    for i, (name, m, op, tol, groups) in enumerate(cases()):
        path = os.path.join(work, "fn%d.onnx" % i)
        onnx.save(m, path)
        bad += not check(name, path, op, tol, groups)
    # forms gen does not expand: left as they are, with the reason said
    for name, m, why in [
        ("softcap", attention([1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 8], softcap=30.0), "softcap"),
        ("QK output", attention([1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 8], outs=4), "qk_matmul_output"),
        ("softmax in another type", attention([1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 8], softmax_precision=11),
         "softmax_precision"),
        ("rotary tables of the wrong width", rope([1, 2, 4, 8], [6, 3], [1, 4]), "cos_cache and sin_cache"),
    ]:
        path = os.path.join(work, "left_%s.onnx" % name.replace(" ", "_"))
        onnx.save(m, path)
        mine, err = rebuild(path)
        op = m.graph.node[0].op_type
        said = "not written as ONNX operators" in err and why in err and any(
            n.op_type == op for n in mine.graph.node)
        print("%s %s %s: left unexpanded%s" % ("ok  " if said else "FAIL", op, name, "" if said else " (" + err + ")"))
        bad += not said
    bad += not rmsnorm_as_exported(work)
    bad += not rope_as_exported(work)
    bad += not rope_pairs_as_exported(work)
    bad += not gqa_as_exported(work)
    return 1 if bad else 0


def gqa_as_exported(work):
    """Llama's attention as PyTorch exports it (attention_check.llama_gqa_model: dynamic batch and
    sequence, repeat_kv's Expand and Reshape shapes made by Shape arithmetic): one attention
    group holding both Expands at 4 query heads per K and V head; at 1 (an Expand to 1, a copy,
    not sharing) the same group without them; no value leaving it"""
    ok = True
    for rep in (4, 1):
        path = os.path.join(work, "gqa_exported_rep%d.onnx" % rep)
        onnx.save(llama_gqa_model(rep), path)
        n, ops = fused_groups(path, "attention", ("-b", "2", "--dim", "seq=7"))
        leaked = leaks(path, work, ("--dim", "seq=7"))
        want = [2 if rep > 1 else 0]
        got = [o.split("+").count("Expand") for o in ops]
        good = n == 1 and got == want and not leaked
        print("%s attention as PyTorch exports Llama's (repeat_kv by Shape arithmetic), %d query heads per K/V "
              "head: attention groups %d, Expands in it %s (want %s)%s" % (
                  "ok  " if good else "FAIL", rep, n, got, want, "; " + "; ".join(leaked) if leaked else ""))
        ok = ok and good
    return ok


def rmsnorm_as_exported(work):
    """RMSNorm as PyTorch exports x * rsqrt(mean(x^2) + eps) * weight (Pow, ReduceMean, Add,
    Sqrt, Reciprocal, Mul, Mul by the weight, an initializer): one rmsnorm group of all seven
    (the weight's Mul in it); over the middle axis instead of the last: none; Llama's f16 form
    (Cast to float first, Cast back before the weight): one group of all nine"""
    ok = True
    H = TensorProto.FLOAT16
    for axis, casts, want in ((2, "", ["Pow+ReduceMean+Add+Sqrt+Reciprocal+Mul+Mul"]), (1, "", []),
                              (2, "both", ["Cast+Pow+ReduceMean+Add+Sqrt+Reciprocal+Mul+Cast+Mul"]),
                              (2, "in", ["Pow+ReduceMean+Add+Sqrt+Reciprocal+Mul+Mul"])):
        # casts: "both", Llama's f16 export (x cast to float, the result back to f16 before the
        # f16 weight: all nine one group); "in", no way back (the float part only)
        x = helper.make_tensor_value_info("x", H if casts else F, [2, 6, 64])
        wt = np.float16 if casts == "both" else np.float32
        inits = [onnx.numpy_helper.from_array(np.array(2.0, np.float32), "two"),
                 onnx.numpy_helper.from_array(np.array([axis], np.int64), "axes"),
                 onnx.numpy_helper.from_array(np.array(1e-6, np.float32), "eps"),
                 onnx.numpy_helper.from_array(RNG.standard_normal(64).astype(wt), "weight")]
        xf = "xf" if casts else "x"
        nodes = [helper.make_node("Cast", ["x"], ["xf"], to=F)] if casts else []
        nodes += [helper.make_node("Pow", [xf, "two"], ["sq"]),
                  helper.make_node("ReduceMean", ["sq", "axes"], ["ms"], keepdims=1),
                  helper.make_node("Add", ["ms", "eps"], ["mse"]),
                  helper.make_node("Sqrt", ["mse"], ["rms"]),
                  helper.make_node("Reciprocal", ["rms"], ["inv"]),
                  helper.make_node("Mul", [xf, "inv"], ["n"])]
        if casts == "both":
            nodes.append(helper.make_node("Cast", ["n"], ["nh"], to=H))
        nodes.append(helper.make_node("Mul", ["nh" if casts == "both" else "n", "weight"], ["y"]))
        y = helper.make_tensor_value_info("y", H if casts == "both" else F, [2, 6, 64])
        g = helper.make_graph(nodes, "rms", [x], [y], inits)
        path = os.path.join(work, "rms_exported_axis%d%s.onnx" % (axis, casts))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        onnx.checker.check_model(m, full_check=True)
        onnx.save(m, path)
        n, ops = fused_groups(path, "rmsnorm")
        good = ops == want
        print("%s RMSNorm as PyTorch exports it, over axis %d%s: rmsnorm groups %s (want %s)" % (
            "ok  " if good else "FAIL", axis, {"": "", "both": ", in f16 (casts to float and back)",
                                                 "in": ", an f16 input cast to float, no cast back"}[casts],
            ops or "none", want or "none"))
        ok = ok and good
    return ok


def rope_as_exported(work):
    """the rotary embedding as PyTorch exports Llama's q * cos + rotate_half(q) * sin (Slice,
    Slice to the end, Neg, Concat along -1, Mul, Mul, Add; cos and sin [B, 1, S, D] inputs): one
    rope group of the seven; with the halves by one Split (rotate_half of q.chunk(2, dim=-1): by
    num_outputs, opset 18, or by sizes, opset 13) one of the six; with the halves concatenated
    the other way round, none. Where there is a group, its plain C file (gen's CPU benchmark of
    it) computes what ONNX Runtime computes from the model on the same inputs"""
    ok = True
    seven, six = ["Slice+Slice+Neg+Concat+Mul+Mul+Add"], ["Split+Neg+Concat+Mul+Mul+Add"]
    # swapped: "" the rotation; "swapped" Concat(x1, -x2); "neg first" Concat(-x1, x2); "half read"
    # x1 a graph output too: no rope group for the last three
    for cut, swapped, ty, want in (("slices", "", F, seven), ("slices", "swapped", F, []),
                                   ("slices", "", TensorProto.FLOAT16, seven), ("split", "", F, six),
                                   ("split sizes", "", TensorProto.FLOAT16, six), ("split", "swapped", F, []),
                                   ("split", "neg first", F, []), ("split", "half read", F, [])):
        ins = [helper.make_tensor_value_info("q", ty, [1, 4, 6, 16]),
               helper.make_tensor_value_info("cos", ty, [1, 1, 6, 16]),
               helper.make_tensor_value_info("sin", ty, [1, 1, 6, 16])]
        c = [onnx.numpy_helper.from_array(np.array([v], np.int64), n)
             for n, v in (("zero", 0), ("half", 8), ("end", 2 ** 63 - 1), ("last", -1))] if cut == "slices" else []
        rot = {"swapped": ["x1", "neg"], "neg first": ["neg", "x2"]}.get(swapped, ["neg", "x1"])
        if cut == "slices":
            halves = [helper.make_node("Slice", ["q", "zero", "half", "last"], ["x1"]),
                      helper.make_node("Slice", ["q", "half", "end", "last"], ["x2"])]
        elif cut == "split":
            halves = [helper.make_node("Split", ["q"], ["x1", "x2"], axis=-1, num_outputs=2)]
        else:
            c.append(onnx.numpy_helper.from_array(np.array([8, 8], np.int64), "sizes"))
            halves = [helper.make_node("Split", ["q", "sizes"], ["x1", "x2"], axis=3)]
        nodes = halves + [helper.make_node("Neg", ["x1" if swapped == "neg first" else "x2"], ["neg"]),
                          helper.make_node("Concat", rot, ["rh"], axis=-1),
                          helper.make_node("Mul", ["q", "cos"], ["qc"]),
                          helper.make_node("Mul", ["rh", "sin"], ["rs"]),
                          helper.make_node("Add", ["qc", "rs"], ["y"])]
        outs = [helper.make_tensor_value_info("y", ty, [1, 4, 6, 16])]
        if swapped == "half read":
            outs.append(helper.make_tensor_value_info("x1", ty, [1, 4, 6, 8]))
        g = helper.make_graph(nodes, "rope", ins, outs, c)
        f16 = ty == TensorProto.FLOAT16
        path = os.path.join(work, "rope_exported_%s%s%s.onnx" % (
            cut.replace(" ", "_"), "_" + swapped.replace(" ", "_") if swapped else "", "_f16" if f16 else ""))
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13 if cut == "split sizes" else 18)]),
                  path)
        n, ops = fused_groups(path, "rope")
        good, note = ops == want, ""
        if f16 and good:  # the group's kernel of ours in the model's own type, f16
            out = path + ".cuda"
            subprocess.run([os.environ.get("BENANZA_GEN", "bin/gen"), "--backend", "cuda", "-b", "1", path, "-o", out],
                           check=True, capture_output=True)
            good = any(f.endswith("-f16-kernel.cu") and "rope__" in open(os.path.join(out, "bench", f)).readline()
                       for f in os.listdir(os.path.join(out, "bench")))
        if want and good:  # the plain C file against ONNX Runtime
            folder = path + ".cpu"
            err = gen_folder(os.environ.get("BENANZA_GEN", "bin/gen"), path, 1, folder)
            rows = [] if err else [r for r in manifest_rows(folder, "group") if r[0] == "rope"]
            worst = err or ("no rope group in the manifest" if len(rows) != 1 else
                            group_against_ort(folder, rows[0][1], f16, path, ["q", "cos", "sin"],
                                              [(".kind = PL_ROPE,", True)], path + ".drv"))
            tol = 4e-3 if f16 else 1e-6
            good = not isinstance(worst, str) and worst <= tol
            note = "; its plain C file against ONNX Runtime: " + (
                worst if isinstance(worst, str) else "max error %.3g (tolerance %g)" % (worst, tol))
        print("%s rotary embedding as PyTorch exports it, halves by %s%s: rope groups %s (want %s)%s" % (
            "ok  " if good else "FAIL", "two Slices" if cut == "slices" else "a Split" + (" by sizes" if "sizes" in cut else ""),
            ", " + swapped if swapped else ", in f16 (its kernel in f16)" if f16 else "",
            ops or "none", want or "none", note))
        ok = ok and good
    return ok


def leaks(path, work, args=()):
    """gen's manifest for the model at PATH: the values that leave a fusion group other than
    through its last node (a node outside it reading a member that is not the last), as
    'node N reads member M of group G' (agg's critical path takes a group as one node, and such
    a value would make a cycle of it; a Shape or Size reads no data and does not count)"""
    out = os.path.join(work, os.path.basename(path) + ".gen")
    gen = os.environ.get("BENANZA_GEN", "bin/gen")
    subprocess.run([gen, "--backend", "none", "-b", "1", path, "-o", out, *args], check=True, capture_output=True)
    preds, groups = {}, []
    with open(os.path.join(out, "manifest.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "node" and c[3] not in ("Shape", "Size"):
                preds[int(c[2])] = [] if c[7] == "-" else [int(v) for v in c[7].split(",")]
            elif c[0] == "group":
                groups.append((int(c[2]), [int(v) for v in c[5].split(",")]))
    bad = []
    for g, members in groups:
        for n, ps in preds.items():
            bad += ["node %d reads member %d of group %d" % (n, p, g)
                    for p in ps if n not in members and p in members and p != members[-1]]
    return bad


def rope_pairs_as_exported(work):
    """the rotary embedding by pairs as PyTorch exports GPT-J's q * cos + rotate_every_two(q) *
    sin, rotate_every_two(q) = stack((-q[..., 1::2], q[..., ::2]), -1).flatten(-2) (Slice step 2
    twice, Neg, Unsqueeze twice, Concat along the new axis, Reshape back; cos and sin [B, 1, S,
    D] inputs with each value twice in a row): one rope_pairs group of its seven computing nodes,
    and ONNX Runtime's output equal to x cos + rotate_pairs(x) sin worked out in numpy (the
    definition test/kernels_emu.cc holds the kernel to), and no value between its members
    leaving it (the views between them are its nodes too); with the pair stacked the other way
    round, none"""
    ok = True
    for swapped, want in ((False, ["Slice+Slice+Neg+Concat+Mul+Mul+Add"]), (True, [])):
        shape = [1, 4, 6, 16]
        ins = [helper.make_tensor_value_info("q", F, shape),
               helper.make_tensor_value_info("cos", F, [1, 1, 6, 16]),
               helper.make_tensor_value_info("sin", F, [1, 1, 6, 16])]
        c = [onnx.numpy_helper.from_array(np.array(v, np.int64), n)
             for n, v in (("zero", [0]), ("one", [1]), ("end", [2 ** 63 - 1]), ("last", [-1]), ("two", [2]),
                          ("shape", shape))]
        pair = ["even_u", "neg_u"] if swapped else ["neg_u", "even_u"]
        nodes = [helper.make_node("Slice", ["q", "zero", "end", "last", "two"], ["even"]),
                 helper.make_node("Slice", ["q", "one", "end", "last", "two"], ["odd"]),
                 helper.make_node("Neg", ["odd"], ["neg"]),
                 helper.make_node("Unsqueeze", ["neg", "last"], ["neg_u"]),
                 helper.make_node("Unsqueeze", ["even", "last"], ["even_u"]),
                 helper.make_node("Concat", pair, ["stacked"], axis=-1),
                 helper.make_node("Reshape", ["stacked", "shape"], ["rot"]),
                 helper.make_node("Mul", ["q", "cos"], ["qc"]),
                 helper.make_node("Mul", ["rot", "sin"], ["rs"]),
                 helper.make_node("Add", ["qc", "rs"], ["y"])]
        g = helper.make_graph(nodes, "rope_pairs", ins, [helper.make_tensor_value_info("y", F, shape)], c)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        path = os.path.join(work, "rope_pairs_exported%s.onnx" % ("_swapped" if swapped else ""))
        onnx.save(m, path)
        n, ops = fused_groups(path, "rope_pairs")
        leaked = leaks(path, work)
        good = ops == want and not leaked
        worst = 0.0
        if not swapped:
            feeds = feed(m)
            q, cs, sn = feeds["q"].astype(np.float64), feeds["cos"].astype(np.float64), feeds["sin"].astype(np.float64)
            rp = np.empty_like(q)
            rp[..., 0::2], rp[..., 1::2] = -q[..., 1::2], q[..., 0::2]
            worst = max_relative_error({"y": q * cs + rp * sn}, run_ort(m, feeds))
            good = good and worst <= 1e-6
        print("%s rotary embedding by pairs as PyTorch exports it%s: rope_pairs groups %s (want %s)%s%s" % (
            "ok  " if good else "FAIL", ", pair swapped" if swapped else "", ops or "none", want or "none",
            "" if swapped else ", against rotate_pairs' definition: max relative error %.3g" % worst,
            "; " + "; ".join(leaked) if leaked else ""))
        ok = ok and good
    return ok


if __name__ == "__main__":
    sys.exit(main())
