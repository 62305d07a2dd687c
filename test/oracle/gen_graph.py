"""The graph gen works on (gen --graph: other runtimes' fused operators written as ONNX ones)
made an ONNX model again, for ONNX Runtime to run: the oracles' shared helper."""
import heapq
import json
import os
import subprocess

import numpy as np
import onnx
from onnx import helper, numpy_helper


def gen_graph(path, args=()):
    """gen --graph PATH ARGS, parsed"""
    gen = os.environ.get("BENANZA_GEN", "bin/gen")
    out = subprocess.run([gen, "--graph", path] + list(args), check=True, capture_output=True, text=True)
    return json.loads(out.stdout), out.stderr


def _number(v):
    """a number of gen's JSON: the strings inf, -inf and nan stand for what JSON has not"""
    return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}[v] if isinstance(v, str) else float(v)


def _tensor(name, t):
    np_type = helper.tensor_dtype_to_np_dtype(getattr(onnx.TensorProto, t["dtype"]))
    vals = [_number(v) if isinstance(v, str) else v for v in t["values"]]
    return numpy_helper.from_array(np.array(vals, dtype=np_type).reshape(t["dims"]), name)


def _attr(name, a):
    kind, v = a["type"].upper(), a["value"]
    if kind == "INT":
        return helper.make_attribute(name, int(v), attr_type=onnx.AttributeProto.INT)
    if kind == "FLOAT":
        return helper.make_attribute(name, _number(v), attr_type=onnx.AttributeProto.FLOAT)
    if kind == "STRING":
        return helper.make_attribute(name, v, attr_type=onnx.AttributeProto.STRING)
    if kind == "INTS":
        return helper.make_attribute(name, [int(x) for x in v], attr_type=onnx.AttributeProto.INTS)
    if kind == "FLOATS":
        return helper.make_attribute(name, [_number(x) for x in v], attr_type=onnx.AttributeProto.FLOATS)
    if kind == "STRINGS":
        return helper.make_attribute(name, v, attr_type=onnx.AttributeProto.STRINGS)
    if kind == "TENSOR" and v is not None and "values" in v:
        return helper.make_attribute(name, _tensor("", v), attr_type=onnx.AttributeProto.TENSOR)
    raise ValueError("attribute %s of type %s cannot be rebuilt" % (name, kind))


def _value_info(name, types):
    t = types.get(name, {})
    dtype = getattr(onnx.TensorProto, t.get("dtype", "UNDEFINED"), onnx.TensorProto.UNDEFINED)
    return helper.make_tensor_value_info(name, dtype, t.get("shape"))


def topological(nodes):
    """gen's node indices in a topological order, each node as early as it can be (ONNX wants
    one; an expansion's nodes after the graph's last ones need not be)"""
    made = {o: i for i, n in enumerate(nodes) for o in n["outputs"] if o}
    preds = [{made[x] for x in n["inputs"] if x in made} for n in nodes]
    succ = [[] for _ in nodes]
    for i, p in enumerate(preds):
        for j in p:
            succ[j].append(i)
    left = [len(p) for p in preds]
    heap = [i for i, k in enumerate(left) if k == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        i = heapq.heappop(heap)
        order.append(i)
        for j in succ[i]:
            left[j] -= 1
            if left[j] == 0:
                heapq.heappush(heap, j)
    assert len(order) == len(nodes), "gen's graph has a cycle"
    return order


def rebuild(path, args=()):
    """The ONNX model of gen's graph of PATH (gen --graph PATH ARGS): its nodes, the
    initializers gen made or keeps the values of, the others from the file; inputs and outputs
    at the shapes gen inferred. The default domain takes the newest opset its nodes follow (the
    expanded ones follow 20): right for models whose own nodes mean the same there. The nodes in
    a topological order (topological()). Returns the model and gen's standard error."""
    g, err = gen_graph(path, args)
    return _build(g, path), err


def _build(g, path):
    original = onnx.load(path)
    inits = {t.name: t for t in original.graph.initializer}
    initializers = []
    for t in g["initializers"]:
        if "values" in t:
            initializers.append(_tensor(t["name"], t))
        else:
            initializers.append(inits[t["name"]])
    nodes = []
    opset = {}
    for n in (g["nodes"][i] for i in topological(g["nodes"])):
        node = helper.make_node(n["op"], n["inputs"], n["outputs"], name=n["name"], domain=n["domain"] or None)
        node.attribute.extend(_attr(k, a) for k, a in n["attrs"].items())
        nodes.append(node)
        opset[n["domain"]] = max(opset.get(n["domain"], 0), n["opset"])
    types = g["values"]
    graph = helper.make_graph(nodes, "gen", [_value_info(i, types) for i in g["inputs"]],
                              [_value_info(o, types) for o in g["outputs"]], initializer=initializers)
    imports = [helper.make_opsetid(d, v) for d, v in sorted(opset.items())]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 9
    return model


def node_positions(path, args=()):
    """the model of rebuild() and, for each of gen's node indices (the manifest's), the place of
    that node in it"""
    g, _ = gen_graph(path, args)
    order = topological(g["nodes"])
    pos = [0] * len(order)
    for k, i in enumerate(order):
        pos[i] = k
    return _build(g, path), pos


def run_ort(m, feeds):
    """ONNX Runtime on the CPU, graph optimizations off (so that it runs the nodes as they are),
    one thread: {output name: array}"""
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    o.intra_op_num_threads = 1
    s = ort.InferenceSession(m.SerializeToString(), o, providers=["CPUExecutionProvider"])
    return {v.name: r for v, r in zip(s.get_outputs(), s.run(None, feeds))}


def max_relative_error(want, got):
    """the worst difference over the outputs of WANT, each relative to its largest value (at
    least 1); a NaN or inf on either side is infinitely wrong (max() would keep the worst
    before it)"""
    worst = 0.0
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape, "%s: %s %s" % (k, g.shape, w.shape)
        if not w.size:
            continue
        if not (np.isfinite(g).all() and np.isfinite(w).all()):
            return np.inf
        scale = max(1.0, float(np.max(np.abs(w.astype(np.float64)))))
        worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w))) / scale)
    return worst
