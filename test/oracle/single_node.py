"""One ONNX node run by onnx's reference implementation: the oracles' shared helper."""
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator


def run_node(op, attrs, feeds, inits=(), extra_inputs=(), nout=1, opset=13, domain=""):
    """Runs `op` with attributes `attrs` on the arrays `feeds` (name -> array, in input order),
    followed by the initializers `inits` named in `extra_inputs`; returns its `nout` outputs.
    An op of another domain (version 1 of it) is run beside the default domain at `opset`."""
    outs = ["y%d" % i for i in range(nout)]
    node = helper.make_node(op, list(feeds) + list(extra_inputs), outs, domain=domain or None, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape) for n, v in feeds.items()],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outs], initializer=list(inits))
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=imports)
    return ReferenceEvaluator(model).run(None, feeds)
