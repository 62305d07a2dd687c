"""Checks gen's attention groups (pattern "attention") in a benchmark folder's manifest.

For every run of the manifest:
  * counts the scaled dot-product attentions of the model itself, by a walk of its own:
    a Softmax over the last axis whose one reader is a MatMul (as A, with a B that is not
    a weight), fed through at most one Add or Where and at most one Div or Mul from a MatMul
    of two non-weights. A model with ONNX Runtime's com.microsoft fused nodes is walked as gen
    writes it (gen --graph: those nodes as the ONNX operators they fuse, which
    msft_expand_check.py holds to ONNX Runtime); com.microsoft Attention nodes still there are
    counted apart;
  * holds gen's number of attention groups to that count;
  * for one group of each distinct fused layer, cuts the group's nodes out of the model
    (onnx.utils.Extractor), runs them in ONNX Runtime on random inputs and holds the result
    to numpy's attention computed from what the layer's key records (shape, the strides of Q,
    K, V, the output and the mask in their buffers, the scale, the mask's kind and fill): the
    description the fused kernels and their host reference read (K and V of grouped-query
    attention as their unrepeated buffers, each head read by `rep` query heads);
  * for one part of each distinct part layer (attn_scores: Q K^T x scale; attn_context: P V
    with the heads merged), has gen write that layer's CUDA and CPU benchmarks (gen --repro,
    f32), reads the product each one's BZ_OP describes (CUDA: m, n, k, the transposes, leading
    dims, batch strides, buffer sizes, alpha; CPU: the matmul's 4-D src, weights and dst, their
    element strides, the output scale), computes it with numpy on the part's inputs as the
    runtime reads its buffers, and holds that to ONNX Runtime running the part's nodes.

usage: attention_check.py DIR [--dim=NAME=V ...] [MODEL=N[/P] ...]
  (--dim: as given to gen; MODEL=N: the model must have N attentions, fused ones included;
  /P: and gen P parts of its attention groups)
Prints one line per run; exit status 1 on any mismatch.
       attention_check.py model FILE.onnx
  writes llama_gqa_model(4): Llama's grouped-query attention as PyTorch exports it
       attention_check.py padding-model FILE.onnx
  writes an attention of 4 heads of 64 with BERT's padding mask [batch, 1, 1, seq]
       attention_check.py cross-model FILE.onnx
  writes a cross-attention of 5 queries and 7 keys, head sizes 8 and 12 (cross_model)
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from gen_graph import node_positions
import onnx.utils
import onnxruntime as ort
from onnx import numpy_helper


def read_manifest(folder):
    layers, runs, nodes, groups, parts = {}, {}, {}, [], []
    with open(folder + "/manifest.tsv", encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "layer":
                layers[c[1]] = json.loads(c[6])
            elif c[0] == "run":
                runs[int(c[1])] = {"model": c[2], "batch": int(c[3]), "path": c[4]}
            elif c[0] == "node":
                nodes[(int(c[1]), int(c[2]))] = c
            elif c[0] in ("group", "part"):
                (groups if c[0] == "group" else parts).append(
                    (int(c[1]), int(c[2]), c[3], c[4], [int(x) for x in c[5].split(",")]))
    return layers, runs, nodes, groups, parts


def weights(g):
    names = {t.name for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            names.update(n.output)
    return names


def count_attention(model):
    """the model's attentions by this script's own walk, and its fused com.microsoft ones"""
    g = model.graph
    w = weights(g)
    prod = {o: n for n in g.node for o in n.output}
    readers = {}
    for n in g.node:
        for x in n.input:
            readers.setdefault(x, []).append(n)
    found = 0
    for n in g.node:
        if n.op_type != "Softmax":
            continue
        axis = next((a.i for a in n.attribute if a.name == "axis"), None)
        r = readers.get(n.output[0], [])
        if len(r) != 1 or r[0].op_type != "MatMul" or r[0].input[0] != n.output[0] or r[0].input[1] in w:
            continue
        x, steps = n.input[0], {"mask": 0, "scale": 0}
        p = prod.get(x)
        while p is not None and p.op_type in ("Add", "Where", "Div", "Mul"):
            kind = "mask" if p.op_type in ("Add", "Where") else "scale"
            steps[kind] += 1
            if steps[kind] > 1:
                p = None
                break
            ins = [i for i in p.input if i not in w]
            # the scores side: made by a MatMul, Div or Mul
            nxt = [i for i in ins if prod.get(i) is not None and prod[i].op_type in ("MatMul", "Div", "Mul")]
            p = prod.get(nxt[0]) if nxt else None
        if p is None or p.op_type != "MatMul" or p.input[0] in w or p.input[1] in w:
            continue
        if axis is not None and axis not in (-1, 3, 2):
            continue
        found += 1
    fused = sum(1 for n in g.node if n.op_type == "Attention" and n.domain == "com.microsoft")
    return found, fused


def fixed_dims(model, batch, dims):
    """the model with its symbolic input dims bound (the batch, then --dim NAME=V) and shapes inferred"""
    for i in model.graph.input:
        for k, d in enumerate(i.type.tensor_type.shape.dim):
            if d.dim_param and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]
            elif d.dim_param and k == 0 and batch:
                d.dim_value = batch
    return onnx.shape_inference.infer_shapes(model, data_prop=True)


def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def strided(buf, shape, strides):
    return np.lib.stride_tricks.as_strided(buf, shape=shape, strides=tuple(8 * s for s in strides))


def gen_shapes(path, batch, dims):
    """gen --shapes of the model: for the tensors onnx's inference leaves without a shape (the
    output of an Expand to a computed shape); ONNX Runtime then checks them by running"""
    gen = os.environ.get("BENANZA_GEN", "bin/gen")
    cmd = [gen, "--shapes", path] + (["-b", str(batch)] if batch else [])
    cmd += ["--dim=%s=%d" % kv for kv in dims.items()]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    shapes = {}
    for line in out.splitlines():
        c = line.split("\t")
        if len(c) == 3 and "?" not in c[2] and "*" not in c[2]:
            shapes[c[0]] = [int(x) for x in c[2].split(",")] if c[2] else []
    return shapes


def outside_source(nodes, w):
    """x -> the value from outside NODES it comes from, back through their non-weight inputs"""
    prod = {o: n for n in nodes for o in n.output}

    def source(x):
        while x in prod:
            x = next(i for i in prod[x].input if i not in w)
        return x

    return source


def run_cut(model, ins, out, shapes, seed):
    """the model cut to INS -> OUT (onnx.utils.Extractor) run by ONNX Runtime on random inputs
    (bool ones at random, the others uniform in [-1, 1]; a shape onnx leaves unknown from
    gen --shapes): the feed and the output, flat in float64"""
    sub = onnx.utils.Extractor(model).extract_model(ins, [out])
    types = {vi.name: vi.type.tensor_type for vi in list(sub.graph.input)}
    rng = np.random.default_rng(seed)
    feed = {}
    for name in ins:
        t = types[name]
        shape = [d.dim_value for d in t.shape.dim]
        if not t.HasField("shape") or 0 in shape:
            shape = shapes[name]
        if t.elem_type == onnx.TensorProto.BOOL:
            feed[name] = rng.random(shape) < 0.5
        else:
            feed[name] = rng.uniform(-1, 1, shape).astype(np.float32)
    sess = ort.InferenceSession(sub.SerializeToString(), providers=["CPUExecutionProvider"])
    return feed, sess.run([out], feed)[0].astype(np.float64).ravel()


def check_group(model, members, att, shapes):
    """ONNX Runtime on the group's nodes against numpy on the key's description: max |diff|"""
    g = model.graph
    nodes = [g.node[i] for i in members]
    made = {o for n in nodes for o in n.output}
    w = weights(g)
    mm = [n for n in nodes if n.op_type == "MatMul"]
    mask_node = next((n for n in nodes if n.op_type in ("Add", "Where")), None)
    source = outside_source(nodes, w)
    q, k, v = source(mm[0].input[0]), source(mm[0].input[1]), source(mm[1].input[1])
    ins = [q, k, v]
    if mask_node is not None:
        outside = [i for i in mask_node.input if i not in made and i not in w]
        ins += outside
    feed, got = run_cut(model, ins, nodes[-1].output[0], shapes, 7)

    b, h, sq, skv, d, dv = att["shape"]
    qb, kb, vb = (feed[x].astype(np.float64).ravel() for x in (q, k, v))
    assert qb.size == att["q_elems"] and kb.size == att["k_elems"] and vb.size == att["v_elems"], "buffer sizes"
    rep = att.get("rep", 1)  # query heads per K and V head: their buffers hold h / rep heads
    Q = strided(qb, (b, h, sq, d), att["q"])
    K = np.repeat(strided(kb, (b, h // rep, skv, d), att["k"]), rep, axis=1)
    V = np.repeat(strided(vb, (b, h // rep, skv, dv), att["v"]), rep, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", Q, K) * att["scale"]
    if att["mask"] != "none":
        mb = feed[ins[3]].astype(np.float64).ravel()
        assert mb.size == att["mask_elems"], "mask size"
        M = strided(mb, (b, h, sq, skv), att["mask_strides"])
        if att["mask"] == "add":
            s = s + M
        else:
            fill = float(att["fill"])
            s = np.where((M != 0) == bool(att["fill_when"]), fill, s)
    o = np.einsum("bhqk,bhkd->bhqd", softmax(s), V)
    want = np.zeros(b * h * sq * dv)
    strided(want, (b, h, sq, dv), att["o"])[...] = o
    assert got.size == want.size, "output size"
    return float(np.max(np.abs(got - want)))


class Mismatch(Exception):
    """a part's benchmark that does not describe its nodes"""


def bench_op(path, batch, raw_dims, layer, backend):
    """the fields of BZ_OP in gen's f32 benchmark of LAYER for BACKEND (cuda: cuBLAS's default
    algorithm, cpu: oneDNN's first implementation), the macro's lines up to the first that does
    not continue: numbers as floats, brace lists ({4, {1, 2}} a tensor's dims, {1, 2} strides) as
    lists of ints"""
    import glob
    import re
    import tempfile

    gen = os.environ.get("BENANZA_GEN", "bin/gen")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [gen, path, "--backend", backend, "--types", "f32", "--repro", layer, "-o", tmp + "/r"]
        cmd += (["-b", str(batch)] if batch else []) + raw_dims
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise Mismatch("gen --repro %s failed (exit %d): %s" % (layer, r.returncode, r.stderr.strip()))
        files = sorted(glob.glob("%s/r/%s-f32-%s.c" % (tmp, layer, "default" if backend == "cuda" else "*")))
        if not files:
            raise Mismatch("gen --repro %s wrote no f32 %s benchmark" % (layer, backend))
        with open(files[0], encoding="utf-8") as f:
            lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("#define BZ_OP"))
    body = []
    for line in lines[start:]:
        body.append(line)
        if not line.rstrip().endswith("\\"):
            break
    text = "\n".join(body)
    op = {k: float(v) for k, v in re.findall(r"\.(\w+) = (-?[0-9][0-9.e+-]*)", text)}
    for k, nd, dims in re.findall(r"\.(\w+) = \{(\d+), \{([-0-9, ]*)\}\}", text):
        op[k] = [int(x) for x in dims.split(",")][: int(nd)]
    for k, vals in re.findall(r"\.(st_\w+) = \{([-0-9, ]*)\}", text):
        op[k] = [int(x) for x in vals.split(",")]
    return op


def part_operands(model, members, shapes):
    """an attention part's nodes run by ONNX Runtime on random inputs: the buffers of its
    MatMul's two operands where they come from outside the part (Q or the probabilities; K or
    V), flat in float64, and the part's output, flat"""
    g = model.graph
    nodes = [g.node[i] for i in members]
    source = outside_source(nodes, weights(g))
    mm = next(n for n in nodes if n.op_type == "MatMul")
    a, b = source(mm.input[0]), source(mm.input[1])
    feed, got = run_cut(model, [a, b], nodes[-1].output[0], shapes, 11)
    return feed[a].astype(np.float64).ravel(), feed[b].astype(np.float64).ravel(), got


def view(buf, size, shape, st, what):
    """the buffer as a benchmark reads or writes it: every element it reaches inside it (SIZE,
    where not 0: the element count the benchmark gives it)"""
    if size and buf.size != size:
        raise Mismatch("%s's buffer has %d elements, the benchmark says %d" % (what, buf.size, size))
    last = sum((d - 1) * s for d, s in zip(shape, st))
    if min(st) < 0 or last >= buf.size:
        raise Mismatch("%s reaches element %d of a buffer of %d" % (what, last, buf.size))
    return strided(buf, shape, st)


def check_part(model, members, pattern, op, shapes):
    """ONNX Runtime on an attention part's nodes against numpy on the GEMM of its CUDA
    benchmark (OP: its BZ_OP), the buffers read and written as the runtime does: max |diff|"""
    ab, bb, got = part_operands(model, members, shapes)
    i = lambda k: int(op.get(k, 0))
    M, N, K, bc = i("m"), i("n"), i("k"), max(i("batch_count"), 1)
    ta, tb = i("ta"), i("tb")
    lda, ldb = i("lda") or (M if ta else K), i("ldb") or (K if tb else N)
    ldc = i("ldc") or N
    sc = i("stride_c") or M * N
    nc = i("c_elems") or bc * M * N
    A = view(ab, i("a_elems"), (bc, M, K), (i("stride_a"), 1, lda) if ta else (i("stride_a"), lda, 1), pattern + ": A")
    B = view(bb, i("b_elems"), (bc, K, N), (i("stride_b"), 1, ldb) if tb else (i("stride_b"), ldb, 1), pattern + ": B")
    alpha = op.get("gemm_alpha", 0) or 1.0
    want = np.zeros(nc)
    view(want, 0, (bc, M, N), (sc, ldc, 1), pattern + ": C")[...] = alpha * np.matmul(A, B)
    if got.size != want.size:
        raise Mismatch("%s: the output has %d elements, the benchmark's %d" % (pattern, got.size, want.size))
    return float(np.max(np.abs(got - want)))


def check_part_cpu(model, members, pattern, op, shapes):
    """ONNX Runtime on an attention part's nodes against numpy on the oneDNN matmul of its CPU
    benchmark (OP: its BZ_OP): src, weights and dst at their dims and element strides (plain
    where BZ_OP gives none), the output scale: max |diff|"""
    ab, bb, got = part_operands(model, members, shapes)

    def plain(dims):
        st, n = [], 1
        for d in reversed(dims):
            st.insert(0, n)
            n *= d
        return st

    for k in ("src", "wei", "dst"):
        if k not in op or len(op[k]) != 4:
            raise Mismatch("%s: BZ_OP's %s is not a 4-D tensor: %s" % (pattern, k, op.get(k)))
    src, wei, dst = op["src"], op["wei"], op["dst"]
    if src[:2] != wei[:2] or dst != src[:3] + wei[3:] or src[3] != wei[2]:
        raise Mismatch("%s: src %s, weights %s and dst %s are no batched matmul" % (pattern, src, wei, dst))
    A = view(ab, 0, src, op.get("st_src") or plain(src), pattern + ": src")
    B = view(bb, 0, wei, op.get("st_wei") or plain(wei), pattern + ": weights")
    st_dst = op.get("st_dst") or plain(dst)
    want = np.zeros(got.size)
    C = view(want, 0, dst, st_dst, pattern + ": dst")
    # every element of the part's output written exactly once
    at = sum(np.arange(n).reshape([-1 if k == j else 1 for k in range(4)]) * s
             for j, (n, s) in enumerate(zip(dst, st_dst)))
    if got.size != int(np.prod(dst)) or not np.all(np.bincount(at.ravel(), minlength=got.size) == 1):
        raise Mismatch("%s: dst %s at strides %s does not cover the output of %d elements once"
                       % (pattern, dst, op.get("st_dst"), got.size))
    C[...] = (op.get("oscale", 0) or 1.0) * np.matmul(A, B)
    return float(np.max(np.abs(got - want)))


def cross_model():
    """cross-attention of 3 heads, 5 queries and 7 keys, head sizes 8 (Q, K) and 12 (V), the batch
    dynamic ("batch"): Q [B, 5, 3, 8], K [B, 7, 3, 8], V [B, 7, 3, 12] as projections leave
    them, each transposed to its heads, Mul by 8^-0.5, Softmax, the heads merged back"""
    F = onnx.TensorProto.FLOAT
    h = onnx.helper
    inputs = [h.make_tensor_value_info("q", F, ["batch", 5, 3, 8]), h.make_tensor_value_info("k", F, ["batch", 7, 3, 8]),
              h.make_tensor_value_info("v", F, ["batch", 7, 3, 12])]
    nodes = [h.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1, 3]),
             h.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1]),
             h.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
             h.make_node("MatMul", ["qt", "kt"], ["scores"]),
             h.make_node("Mul", ["scores", "scale"], ["scaled"]),
             h.make_node("Softmax", ["scaled"], ["probs"], axis=-1),
             h.make_node("MatMul", ["probs", "vt"], ["ctx"]),
             h.make_node("Transpose", ["ctx"], ["y"], perm=[0, 2, 1, 3])]
    y = h.make_tensor_value_info("y", F, ["batch", 5, 3, 12])
    inits = [numpy_helper.from_array(np.array(8 ** -0.5, np.float32), "scale")]
    m = h.make_model(h.make_graph(nodes, "cross", inputs, [y], inits), opset_imports=[h.make_opsetid("", 18)])
    onnx.checker.check_model(m, full_check=True)
    return m


def llama_gqa_model(rep, nq=8, d=16, padding=False):
    """Llama's attention as PyTorch exports it, batch and sequence dynamic ("batch", "seq"):
    repeat_kv of K and V (Unsqueeze at axis 2, then Expand and Reshape to shapes made from
    Shape, Gather, Unsqueeze, Concat and Mul), MatMul with K transposed, Div by sqrt(d), Add the
    mask [B, 1, S, S], Softmax, MatMul with V, the heads merged back by a Transpose; NQ query
    heads, NQ / REP K and V heads. PADDING: BERT's padding mask [B, 1, 1, S] instead, one
    row of the keys per batch for every query"""
    F = onnx.TensorProto.FLOAT
    h = onnx.helper
    B, S, nkv = "batch", "seq", nq // rep
    inputs = [h.make_tensor_value_info("q", F, [B, nq, S, d]), h.make_tensor_value_info("k", F, [B, nkv, S, d]),
              h.make_tensor_value_info("v", F, [B, nkv, S, d]),
              h.make_tensor_value_info("mask", F, [B, 1, 1 if padding else S, S])]
    inits = [numpy_helper.from_array(np.array([2], np.int64), "axis2"),
             numpy_helper.from_array(np.array([0], np.int64), "axis0"),
             numpy_helper.from_array(np.array([rep], np.int64), "rep"),
             numpy_helper.from_array(np.array(rep, np.int64), "rep_s"),
             numpy_helper.from_array(np.array(np.sqrt(d), np.float32), "sqrt_d")]
    inits += [numpy_helper.from_array(np.array(i, np.int64), "i%d" % i) for i in range(4)]
    nodes = []

    def n(*a, **k):
        nodes.append(h.make_node(*a, **k))

    def repeat_kv(x):
        n("Shape", [x], [x + "_shape"])
        for i in range(4):
            n("Gather", [x + "_shape", "i%d" % i], [x + "_d%d" % i], axis=0)
            n("Unsqueeze", [x + "_d%d" % i, "axis0"], [x + "_u%d" % i])
        n("Mul", [x + "_d1", "rep_s"], [x + "_heads"])
        n("Unsqueeze", [x + "_heads", "axis0"], [x + "_uh"])
        n("Concat", [x + "_u0", x + "_u1", "rep", x + "_u2", x + "_u3"], [x + "_wide_shape"], axis=0)
        n("Concat", [x + "_u0", x + "_uh", x + "_u2", x + "_u3"], [x + "_shared_shape"], axis=0)
        n("Unsqueeze", [x, "axis2"], [x + "_5d"])
        n("Expand", [x + "_5d", x + "_wide_shape"], [x + "_wide"])
        n("Reshape", [x + "_wide", x + "_shared_shape"], [x + "_shared"])
        return x + "_shared"

    kr, vr = (repeat_kv("k"), repeat_kv("v")) if rep > 1 else ("k", "v")
    n("Transpose", [kr], ["kt"], perm=[0, 1, 3, 2])
    n("MatMul", ["q", "kt"], ["scores"])
    n("Div", ["scores", "sqrt_d"], ["scaled"])
    n("Add", ["scaled", "mask"], ["masked"])
    n("Softmax", ["masked"], ["probs"], axis=-1)
    n("MatMul", ["probs", vr], ["ctx"])
    n("Transpose", ["ctx"], ["y"], perm=[0, 2, 1, 3])
    y = h.make_tensor_value_info("y", F, [B, S, nq, d])
    m = h.make_model(h.make_graph(nodes, "llama_gqa", inputs, [y], inits), opset_imports=[h.make_opsetid("", 18)])
    onnx.checker.check_model(m, full_check=True)
    return m


def main():
    if sys.argv[1] == "model":
        onnx.save(llama_gqa_model(4), sys.argv[2])
        return 0
    if sys.argv[1] == "cross-model":
        onnx.save(cross_model(), sys.argv[2])
        return 0
    if sys.argv[1] == "padding-model":
        onnx.save(llama_gqa_model(1, nq=4, d=64, padding=True), sys.argv[2])
        return 0
    folder = sys.argv[1]
    expect, expect_parts, dims = {}, {}, {}
    raw_dims = [a for a in sys.argv[2:] if a.startswith("--dim=")]
    for a in sys.argv[2:]:
        if a.startswith("--dim="):
            name, val = a[6:].split("=")
            # MODEL:NAME binds NAME in that model alone, NAME in every model
            model, _, name = name.rpartition(":")
            dims[(model or None, name)] = int(val)
        else:
            name, val = a.split("=")
            n, _, p = val.partition("/")
            expect[name] = int(n)
            if p:
                expect_parts[name] = int(p)
    layers, runs, nodes, groups, parts = read_manifest(folder)
    bad = 0
    checked = set()
    for run, info in sorted(runs.items()):
        model = onnx.load(info["path"], load_external_data=False)
        pos = None
        if any(n.domain == "com.microsoft" for n in model.graph.node):
            # the manifest's node indices are those of gen's graph, expansions included
            model, pos = node_positions(info["path"], (["-b", str(info["batch"])] if info["batch"] else []) + raw_dims)
        want, fused = count_attention(model)
        mine = [gr for gr in groups if gr[0] == run and gr[2] == "attention"]
        name = info["model"]
        ok = len(mine) == want and (name not in expect or expect[name] == want + fused)
        run_dims = {n: v for (m, n), v in sorted(dims.items(), key=lambda kv: kv[0][0] is not None) if m in (None, name)}
        model = fixed_dims(model, info["batch"], run_dims)
        errs = []
        shapes = gen_shapes(info["path"], info["batch"], run_dims) if mine else {}
        for gr in mine:
            if gr[3] in checked:
                continue
            checked.add(gr[3])
            att = layers[gr[3]]["attention"]
            err = check_group(model, [pos[i] for i in gr[4]] if pos else gr[4], att, shapes)
            errs.append(err)
            ok = ok and err < 1e-4
        # the parts: each group's numbers of them, and each distinct part layer's GEMM
        ids = {gr[1] for gr in mine}
        mparts = [pt for pt in parts if pt[0] == run and pt[1] in ids]
        perrs = []
        for pt in mparts:
            if pt[3] in checked:
                continue
            checked.add(pt[3])
            at = [pos[i] for i in pt[4]] if pos else pt[4]
            for backend, check in (("cuda", check_part), ("cpu", check_part_cpu)):
                try:
                    op = bench_op(info["path"], info["batch"], raw_dims, pt[3], backend)
                    perr = check(model, at, pt[2], op, shapes)
                except Mismatch as e:
                    print("FAIL %s (%s): %s" % (name, backend, e))
                    perr = float("inf")
                perrs.append(perr)
                ok = ok and perr < 1e-4
        ok = ok and (name not in expect_parts or expect_parts[name] == len(mparts))
        print(
            "%s %s: %d attention groups, the model has %d (and %d com.microsoft Attention nodes);"
            " fused layers checked against ONNX Runtime: %d, max error %.3g; parts %d (%d scores, %d context),"
            " their GEMMs checked (CUDA and CPU): %d, max error %.3g"
            % ("ok  " if ok else "FAIL", name, len(mine), want, fused, len(errs), max(errs) if errs else 0,
               len(mparts), sum(pt[2] == "attn_scores" for pt in mparts),
               sum(pt[2] == "attn_context" for pt in mparts), len(perrs), max(perrs) if perrs else 0)
        )
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
