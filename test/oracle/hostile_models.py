"""Hostile and broken models for gen's regression tests (the reliability issue's findings,
made here from their descriptions): nodes with fewer inputs than their operator needs, zero
strides, dilations and group, windows of more than 8 spatial dims with declared outputs, an
Einsum equation that is not UTF-8, huge dims and shape constants whose arithmetic overflows.

    python3 test/oracle/hostile_models.py DIR

writes DIR/NAME.onnx and DIR/expect.tsv: NAME<TAB>EXIT<TAB>a fragment gen's standard error
must hold (exit 3: a located error and nothing written; 0: a warning, the rest processed).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
expect = []


def save(name, nodes, inputs, outputs, inits=(), code=3, frag="", opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, name + ".onnx"))
    expect.append((name, code, frag))


def X(n, s):
    return helper.make_tensor_value_info(n, T.FLOAT, s)


def I64(n, v):
    return helper.make_tensor(n, T.INT64, [len(v)], np.array(v, np.int64))


w = helper.make_tensor("w", T.FLOAT, [4, 3, 3, 3], np.zeros(108, np.float32))
big = 2 ** 62
# fewer inputs than the operator needs, with and without a declared output shape
for decl in (None, [1, 4, 6, 6]):
    sfx = "_declared" if decl else ""
    save("conv_noweight" + sfx, [helper.make_node("Conv", ["x"], ["y"])], [X("x", [1, 3, 8, 8])], [X("y", decl)],
         frag="node[0] (Conv): 1 input; Conv takes 2 to 3")
    save("convtranspose_noweight" + sfx, [helper.make_node("ConvTranspose", ["x"], ["y"])], [X("x", [1, 3, 8, 8])],
         [X("y", decl)], frag="ConvTranspose takes 2 to 3")
    save("qlinearconv_short" + sfx, [helper.make_node("QLinearConv", ["x"], ["y"])], [X("x", [1, 3, 8, 8])],
         [X("y", decl)], frag="QLinearConv takes 8 to 9")
    for op in ("MaxPool", "AveragePool", "GlobalAveragePool", "Softmax", "LRN"):
        kw = {"size": 3} if op == "LRN" else {"kernel_shape": [2, 2]} if "Pool" in op and "Global" not in op else {}
        save(op.lower() + "_noinput" + sfx, [helper.make_node(op, [], ["y"], **kw)], [X("x", [1, 3, 8, 8])],
             [X("y", decl)], frag=f"node[0] ({op}): 0 inputs; {op} takes 1")
    save("matmul_one" + sfx, [helper.make_node("MatMul", ["x"], ["y"])], [X("x", [4, 4])], [X("y", [4, 4] if decl else None)],
         frag="MatMul takes 2")
    save("gemm_one" + sfx, [helper.make_node("Gemm", ["x"], ["y"])], [X("x", [4, 4])], [X("y", [4, 4] if decl else None)],
         frag="Gemm takes 2 to 3")
# a required input given as ""
save("conv_empty_weight", [helper.make_node("Conv", ["x", ""], ["y"])], [X("x", [1, 3, 8, 8])], [X("y", None)],
     frag="input 1 is empty, but Conv requires it")
# zero strides, dilations, group
save("conv_stride0", [helper.make_node("Conv", ["x", "w"], ["y"], strides=[0, 0])], [X("x", [1, 3, 8, 8])],
     [X("y", None)], [w], frag="attribute strides[0] is 0; it must be at least 1")
save("conv_dilation0", [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[1, 0])], [X("x", [1, 3, 8, 8])],
     [X("y", None)], [w], frag="attribute dilations[1] is 0")
save("conv_group0", [helper.make_node("Conv", ["x", "w"], ["y"], group=0)], [X("x", [1, 3, 8, 8])], [X("y", None)],
     [w], frag="attribute group is 0")
save("maxpool_stride0", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[0, 1])],
     [X("x", [1, 3, 8, 8])], [X("y", None)], frag="attribute strides[0] is 0")
save("averagepool_stride0", [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[1, 0])],
     [X("x", [1, 3, 8, 8])], [X("y", None)], frag="attribute strides[1] is 0")
save("convtranspose_stride0", [helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[0, 0])],
     [X("x", [1, 4, 8, 8])], [X("y", None)], [w], frag="attribute strides[0] is 0")
# more than 8 spatial dims, with a declared output (valid ONNX, beyond gen: a warning)
x10 = [1, 1] + [2] * 9
w10 = helper.make_tensor("w", T.FLOAT, [1, 1] + [1] * 9, np.zeros(1, np.float32))
save("conv_9d", [helper.make_node("Conv", ["x", "w"], ["y"])], [X("x", x10)], [X("y", x10)], [w10], code=0,
     frag="9 spatial dims: gen handles at most 8")
save("maxpool_9d", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[1] * 9)], [X("x", x10)], [X("y", x10)],
     code=0, frag="kernel_shape has 9 values; gen handles at most 8")
# an Einsum equation that is not UTF-8 (nor ASCII)
n = helper.make_node("Einsum", ["x", "x"], ["y"])
n.attribute.append(helper.make_attribute("equation", b"i\xff,i->"))
save("einsum_not_utf8", [n], [X("x", [4])], [X("y", None)], frag="attribute equation holds byte 0xff")
save("einsum_unknown_label", [helper.make_node("Einsum", ["x"], ["y"], equation="ij->k")], [X("x", [2, 3])],
     [X("y", None)], frag="output label 'k' is in no input")
# an Einsum operand left out, with no equation and a declared output (fuzz: a crash once, its
# name made from the missing operand's shape)
n = helper.make_node("Einsum", ["", "x"], ["y"])
save("einsum_empty_operand", [n], [helper.make_tensor_value_info("x", T.DOUBLE, [5])],
     [helper.make_tensor_value_info("y", T.DOUBLE, [])], frag="input 0 is empty, but every Einsum operand is required")
# huge dims and shape constants whose arithmetic overflows int64
save("huge_input", [helper.make_node("Relu", ["x"], ["y"])], [X("x", [2 ** 40, 2 ** 40, 2 ** 40])], [X("y", None)],
     frag="too many to be a tensor")
save("huge_expand", [helper.make_node("Expand", ["x", "s"], ["y"])], [X("x", [1, 4])], [X("y", None)],
     [I64("s", [big, big])], code=0, frag="too large to be a tensor")
save("huge_tile", [helper.make_node("Tile", ["x", "r"], ["y"])], [X("x", [2 ** 30, 4])], [X("y", None)],
     [I64("r", [2 ** 42, 1])], code=0, frag="too large to be a tensor")
save("huge_constant_of_shape", [helper.make_node("ConstantOfShape", ["s"], ["y"])], [], [X("y", None)],
     [I64("s", [big, big, big])], code=0, frag="too large to be a tensor")
save("huge_pads", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[big] * 4)], [X("x", [1, 3, 8, 8])],
     [X("y", None)], [w], code=0, frag="larger than any tensor gen handles")
save("huge_pad_input", [helper.make_node("Pad", ["x", "p"], ["y"])], [X("x", [2, 2])], [X("y", None)],
     [I64("p", [big, big, big, big])], code=0, frag="")
save("huge_onehot", [helper.make_node("OneHot", ["i", "d", "v"], ["y"])],
     [helper.make_tensor_value_info("i", T.INT64, [4])], [X("y", None)],
     [helper.make_tensor("d", T.INT64, [], [big]), helper.make_tensor("v", T.FLOAT, [2], [0, 1])], code=0,
     frag="too large to be a tensor")

# ONNX Runtime's fused Attention in forms gen cannot write as ONNX operators: head sizes that do not
# add up (negative ones), a past of 2^40 keys (its causal mask would be too large a tensor)
def save_ms(name, nodes, inputs, outputs, inits=(), code=0, frag=""):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, name + ".onnx"))
    expect.append((name, code, frag))


wqkv = helper.make_tensor("wqkv", T.FLOAT, [16, 24], np.zeros(384, np.float32))
save_ms("attention_negative_heads", [helper.make_node("Attention", ["x", "wqkv"], ["y"], domain="com.microsoft",
                                                      num_heads=2, qkv_hidden_sizes=[-8, -8, 40])],
        [X("x", [1, 5, 16])], [X("y", None)], [wqkv], frag="not written as ONNX operators: weights [16, 24] do not fit")
save_ms("attention_huge_past", [helper.make_node("Attention", ["x", "wqkv", "", "", "past"], ["y", "present"],
                                                 domain="com.microsoft", num_heads=2, unidirectional=1)],
        [X("x", [1, 5, 16]), X("past", [2, 1, 2, 2 ** 40, 4])], [X("y", None), X("present", None)], [wqkv],
        frag="too large to be a tensor")

# a LayerNorm of a graph input plus a bias: the residual-LayerNorm fusion looked for the
# producer of the input (none) and read before its table (a fuzz find)
save("layernorm_of_input_plus_bias",
     [helper.make_node("Add", ["x", "b"], ["s"]), helper.make_node("LayerNormalization", ["s", "g", "b"], ["y"])],
     [X("x", [2, 8])], [X("y", None)],
     [helper.make_tensor("b", T.FLOAT, [8], np.zeros(8, np.float32)),
      helper.make_tensor("g", T.FLOAT, [8], np.ones(8, np.float32))], code=0, frag="", opset=17)

# GEMMs whose inner dims do not fit (gen took B's for k and benchmarked a GEMM the model does
# not have; a review find): each node located, the rest processed
wk = helper.make_tensor("wk", T.FLOAT, [16, 12], np.zeros(192, np.float32))
save("gemm_inner_mismatch", [helper.make_node("Gemm", ["x", "wk"], ["y"])], [X("x", [4, 12])], [X("y", None)], [wk],
     code=0, frag="node[0] (Gemm): A's inner dim 12 is not B's 16")
save("matmul_inner_mismatch", [helper.make_node("MatMul", ["x", "wk"], ["y"])], [X("x", [2, 4, 12])], [X("y", None)],
     [wk], code=0, frag="node[0] (MatMul): A's inner dim 12 is not B's 16")

# a Reshape whose constant target fixes batch 1 behind an input of symbolic batch: at -b 2 the
# reshape cannot hold its input (the test checks that nothing after it is given batch 1)
xs = helper.make_tensor_value_info("x", T.FLOAT, ["N", 3, 8, 8])
w4 = helper.make_tensor("w4", T.FLOAT, [4, 4, 3, 3], np.zeros(144, np.float32))
save("batch_fixed", [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                     helper.make_node("Reshape", ["c", "s"], ["r"]),
                     helper.make_node("Conv", ["r", "w4"], ["y"], pads=[1, 1, 1, 1])],
     [xs], [X("y", None)], [w, w4, I64("s", [1, 4, 8, 8])], code=0, frag="")

# Pows by constants that are no finite number or a huge one: the key keeps a finite exponent
# only (JSON has no NaN), the name no '+' (1e+30), and gen goes on
pows = [(f"e{i}", v) for i, v in enumerate([np.nan, np.inf, -np.inf, 1e30])]
save("pow_not_finite", [helper.make_node("Pow", ["x", n], [f"y{i}"]) for i, (n, _) in enumerate(pows)],
     [X("x", [4, 8])], [X(f"y{i}", None) for i in range(len(pows))],
     [helper.make_tensor(n, T.FLOAT, [], [v]) for n, v in pows], code=0, frag="")

with open(os.path.join(out, "expect.tsv"), "w") as f:
    for name, code, frag in expect:
        f.write(f"{name}\t{code}\t{frag}\n")
print(f"{len(expect)} hostile models in {out}")
