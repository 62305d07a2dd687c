"""One ONNX node run by onnx's reference implementation, and the layer key of a generated
benchmark: the oracles' shared helpers."""
import json
import re

from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator


def node_model(op, attrs, feeds, inits=(), extra_inputs=(), nout=1, opset=13, domain="", input_names=None):
    """The one-node model run_node and run_node_ort run; INPUT_NAMES, where given, are the node's
    inputs (with "" for an optional input not given), else the feeds' and EXTRA_INPUTS' names"""
    outs = ["y%d" % i for i in range(nout)]
    names = list(input_names) if input_names is not None else list(feeds) + list(extra_inputs)
    node = helper.make_node(op, names, outs, domain=domain or None, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape) for n, v in feeds.items()],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outs], initializer=list(inits))
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=imports)


def run_node(op, attrs, feeds, inits=(), extra_inputs=(), nout=1, opset=13, domain=""):
    """Runs `op` with attributes `attrs` on the arrays `feeds` (name -> array, in input order),
    followed by the initializers `inits` named in `extra_inputs`; returns its `nout` outputs.
    An op of another domain (version 1 of it) is run beside the default domain at `opset`."""
    model = node_model(op, attrs, feeds, inits, extra_inputs, nout, opset, domain)
    return ReferenceEvaluator(model).run(None, feeds)


def run_node_ort(op, attrs, feeds, out_types, opset=13, input_names=None):
    """The same node run by ONNX Runtime (CPU, one thread), its outputs of the given element
    types: the oracle where the benchmark follows ONNX Runtime rather than onnx's reference (a
    number printed as a string, a recurrent layer's activations); INPUT_NAMES as node_model's"""
    import onnxruntime as ort
    model = node_model(op, attrs, feeds, nout=len(out_types), opset=opset, input_names=input_names)
    for v, t in zip(model.graph.output, out_types):
        v.type.tensor_type.elem_type = t
    model.ir_version = 8
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), o, providers=["CPUExecutionProvider"]).run(None, feeds)


def layer_key(text):
    """the layer key a generated benchmark's header comment gives (a dict), or None"""
    m = re.search(r"^ \*\s+layer key: (\{.*\})$", text, re.M)
    return json.loads(m.group(1)) if m else None
