#!/usr/bin/env python3
"""Oracle for the work gen counts in a convolution's benchmark: its flops are 2 multiply-adds'
worth per tap that lands inside the data (a tap on the zero padding costs nothing), per output
and input channel pair. onnx's reference implementation counts the taps independently: the
layer's Conv or ConvTranspose (its key's attributes) on one channel of ones with a kernel of
ones gives at each output position the number of taps that reach it, so the output's sum is
the layer's taps; flops must be 2 x N x channels x channels per group x that sum, exactly.

usage: conv_work_check.py FOLDER   (one line per layer; exit 1 on a mismatch or when none ran)"""
import glob
import os
import re
import sys

import numpy as np
from single_node import layer_key, run_node

# the operators whose benchmarks are convolutions, and the reference operator of their taps
CONV_OPS = {"Conv": "Conv", "ConvInteger": "Conv", "QLinearConv": "Conv", "ConvTranspose": "ConvTranspose"}
# QLinearConv's inputs: x, x_scale, x_zero_point, w, ...; the others: x, w
WEIGHT_INPUT = {"QLinearConv": 3}


def taps(op, attrs, x_shape, w_shape):
    # the window's attributes (a key may hold others: a zero point, the group)
    keep = ("auto_pad", "dilations", "kernel_shape", "pads", "strides", "output_padding", "output_shape")
    attrs = {k: v for k, v in attrs.items() if k in keep}
    x = np.ones([1, 1] + list(x_shape[2:]), dtype=np.float32)
    w = np.ones([1, 1] + list(w_shape[2:]), dtype=np.float32)
    y = run_node(op, attrs, {"x": x, "w": w}, opset=11)[0]
    return int(round(float(np.sum(y.astype(np.float64)))))


def check(path):
    text = open(path).read()
    key = layer_key(text)
    op = CONV_OPS.get(key.get("op"))
    if not op:
        return None
    m = re.search(r"\n\s+(\d+), (\d+), &st,", text)
    flops = int(m.group(1))
    x = key["inputs"][0]["shape"]
    w = key["inputs"][WEIGHT_INPUT.get(key["op"], 1)]["shape"]
    y = key["outputs"][0]["shape"]
    group = key["attrs"].get("group", 1)
    t = taps(op, key["attrs"], x, w)
    if op == "Conv":  # per output position: N x OC outputs, IC / group inputs each
        want = 2 * y[0] * y[1] * (x[1] // group) * t
    else:  # per input position: N x IC inputs, OC / group outputs each
        want = 2 * x[0] * x[1] * (y[1] // group) * t
    return "%s %s taps %d: flops %d, onnx's taps give %d" % (key["op"], key["attrs"], t, flops, want), flops == want


def main():
    bad = checked = 0
    seen = set()
    for path in sorted(glob.glob(sys.argv[1] + "/bench/*.c")):
        layer = os.path.basename(path).split("-")[0]
        if layer in seen:
            continue
        r = check(path)
        if r is None:
            continue
        seen.add(layer)
        what, ok = r
        bad += not ok
        checked += 1
        print("%s: %s%s" % (os.path.basename(path), what, "" if ok else " WRONG"))
    print("%d convolution layers checked, %d wrong" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
