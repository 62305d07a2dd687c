#!/usr/bin/env python3
"""Oracle for the convolution groups with an activation of a generated folder (CPU backend,
f32: conv_act and conv_bn_act, one oneDNN convolution with the batch norm folded into the bias
and the activation an eltwise post-op). Each such benchmark file runs in a driver
(dnnl_driver.py: its own setup and implementation once, the source, weights, bias and output
written in plain f32); onnx's Conv with the attributes of the group's first member on the same
source, weights (oneDNN's [G, OC/G, IC/G, k...] put back as ONNX's [OC, IC/G, k...]) and bias,
then the group's activation node with the attributes of its last member, must give the output
within 1e-4 of its largest value. This holds the post-op gen asks oneDNN for (its algorithm,
alpha and beta) to the ONNX node it stands for, which --verify (oneDNN's reference of the same
primitive) cannot. The groups with a residual sum (whose output starts as the residual) are
left out, and so are Winograd files (their weights have no plain copy; the same layer's direct
files hold its post-op).

usage: conv_act_check.py FOLDER      (one line per benchmark; exit 1 on a mismatch or when none ran)
       conv_act_check.py model DIR   (writes the models below into DIR)"""
import glob
import os
import sys
import tempfile

import dnnl_driver
import numpy as np
from single_node import layer_key, run_node

ACTS = ("Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip")


def write_models(out):
    """x [1, 8, 12, 12] through a Conv (16 filters, 3x3, bias) and LeakyRelu with alpha 0.1, with
    its default, or Clip(0, 6) (its bounds inputs); a depthwise Conv (group 8) and LeakyRelu; a
    Conv without bias, a BatchNormalization, LeakyRelu(0.2) (conv_bn_act); and Conv,
    BatchNormalization, Relu with the Conv in one group, in two groups of four channels (which
    gen gives a conv_bn part) and depthwise"""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    os.makedirs(out, exist_ok=True)

    def init(name, shape, lo=-0.5, hi=0.5):
        return numpy_helper.from_array(rng.uniform(lo, hi, shape).astype(np.float32), name)

    def model(name, nodes, inits, oc):
        g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc, 12, 12])], initializer=inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name + ".onnx"))

    def conv(group=1, bias=True, oc=16):
        ins = ["x", "w"] + (["b"] if bias else [])
        inits = [init("w", [oc, 8 // group, 3, 3])] + ([init("b", [oc])] if bias else [])
        return helper.make_node("Conv", ins, ["c"], pads=[1, 1, 1, 1], group=group), inits

    for name, act, extra in [
        ("conv_leakyrelu", helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.1), []),
        ("conv_leakyrelu_default", helper.make_node("LeakyRelu", ["c"], ["y"]), []),
        ("conv_relu6", helper.make_node("Clip", ["c", "lo", "hi"], ["y"]),
         [numpy_helper.from_array(np.array(0, np.float32), "lo"), numpy_helper.from_array(np.array(6, np.float32), "hi")]),
    ]:
        c, inits = conv()
        model(name, [c, act], inits + extra, 16)
    c, inits = conv(group=8, oc=8)
    model("dwconv_leakyrelu", [c, helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.05)], inits, 8)
    c, inits = conv(bias=False)
    bn = helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"], epsilon=1e-3)
    inits += [init("s", [16], 0.5, 1.5), init("o", [16]), init("m", [16]), init("v", [16], 0.5, 1.5)]
    bn.output[0] = "n"
    model("conv_bn_leakyrelu", [c, bn, helper.make_node("LeakyRelu", ["n"], ["y"], alpha=0.2)], inits, 16)
    for name, group, oc in [("conv_bn_relu", 1, 16), ("gconv_bn_relu", 2, 16), ("dwconv_bn_relu", 8, 8)]:
        c, inits = conv(group=group, bias=False, oc=oc)
        bn = helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"], epsilon=1e-3)
        inits += [init("s", [oc], 0.5, 1.5), init("o", [oc]), init("m", [oc]), init("v", [oc], 0.5, 1.5)]
        model(name, [c, bn, helper.make_node("Relu", ["n"], ["y"])], inits, oc)


def reference(key, src, w, bias):
    """onnx's Conv of the group's first member, then its activation (the last member)"""
    conv, act = key["members"][0], key["members"][-1]
    feeds = {"x": src.astype(np.float32), "w": w}
    if bias is not None:
        feeds["b"] = bias
    y = run_node("Conv", conv["attrs"], feeds)[0]
    attrs = dict(act["attrs"])
    feeds = {"x0": y}
    if act["op"] == "Clip":  # the bounds are inputs since opset 11
        feeds["min"] = np.array(attrs.pop("min"), dtype=np.float32)
        feeds["max"] = np.array(attrs.pop("max"), dtype=np.float32)
    return run_node(act["op"], attrs, feeds)[0]


def check(path, key, tmp):
    a = dnnl_driver.run(path, tmp)
    src, wei, dst = a["src"], a["wei"], a["dst"]
    if wei.ndim == src.ndim:  # [OC, IC, k...]: one group
        wei = wei[np.newaxis]
    w = wei.reshape((wei.shape[0] * wei.shape[1],) + wei.shape[2:])
    want = reference(key, src, w, a.get("bias")).astype(np.float64)
    if want.shape != dst.shape:
        return "onnx gives shape %s, the benchmark %s" % (list(want.shape), list(dst.shape)), False
    err = float(np.max(np.abs(dst.astype(np.float64) - want))) / max(float(np.max(np.abs(want))), 1e-6)
    return "%s max error %.3g" % ("+".join(m["op"] for m in key["members"]), err), err <= 1e-4


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "model":
        write_models(sys.argv[2])
        return 0
    bad = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(sys.argv[1] + "/bench/*-f32-*.c")):
            text = open(path).read()
            key = layer_key(text)
            if ".family = BD_CONV," not in text or not key or "members" not in key:
                continue
            ops = [m["op"] for m in key["members"]]
            if ops[0] != "Conv" or ops[-1] not in ACTS or "Add" in ops:
                continue
            if "-wino" in os.path.basename(path):  # weights in Winograd's own layout, which has no plain copy
                print("%s: skipped (Winograd's weights have no plain form; its direct files hold the post-op)"
                      % os.path.basename(path))
                continue
            what, ok = check(path, key, tmp)
            bad += not ok
            checked += 1
            print("%s: %s%s" % (os.path.basename(path), what, "" if ok else " WRONG"))
    print("%d convolution groups with an activation checked, %d wrong" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
