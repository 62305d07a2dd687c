#!/usr/bin/env python3
"""Oracle for the ConvTranspose benchmarks of a generated folder (CPU backend, f32). oneDNN
has no reference deconvolution, so a benchmark's --verify holds the implementation against a
plain C one of ours; this holds both the operation gen described to oneDNN and that plain C
against onnx's reference implementation (group by group: see reference()). Each benchmark file is compiled into a driver (the
file itself, its main renamed) that runs the benchmark's own setup and implementation once
and writes plain f32 copies of its source, weights, bias and output. The weights, in oneDNN's
[G, OC/G, IC/G, k...] order, are put back into ONNX's [IC, OC/G, k...] order, and onnx's
ConvTranspose with the attributes of the file's layer key, on the same source, weights and
bias, must give the same output within 1e-4 of its largest value.

usage: deconv_check.py FOLDER   (one line per benchmark; exit 1 on a mismatch or when none ran)"""
import glob
import os
import sys
import tempfile

import dnnl_driver
import numpy as np
from single_node import layer_key, run_node


def reference(attrs, x, w, b, groups):
    """onnx's ConvTranspose, one group at a time: onnx.reference (1.23) gets groups wrong
    (it slices the weights by output channels and adds the first group's bias to every
    group), while its ungrouped operator is right; the channels of group g are the input
    channels [g*IC/G, (g+1)*IC/G), the weight rows alike, and the outputs [g*OC/G, ...)."""
    attrs = dict(attrs, group=1)
    icg, ocg = x.shape[1] // groups, w.shape[1]
    outs = []
    for g in range(groups):
        feeds = {"x": np.ascontiguousarray(x[:, g * icg:(g + 1) * icg]), "w": np.ascontiguousarray(w[g * icg:(g + 1) * icg])}
        if b is not None:
            feeds["b"] = np.ascontiguousarray(b[g * ocg:(g + 1) * ocg])
        outs.append(run_node("ConvTranspose", attrs, feeds, opset=11)[0])
    return np.concatenate(outs, axis=1)


def check(path, tmp):
    key = layer_key(open(path).read())
    a = dnnl_driver.run(path, tmp)
    src, wei, dst = a["src"], a["wei"], a["dst"]
    nsp = src.ndim - 2
    if wei.ndim == src.ndim:  # [OC, IC, k...]: one group
        wei = wei[np.newaxis]
    g, ocg, icg = wei.shape[:3]
    w = np.swapaxes(wei, 1, 2).reshape((g * icg, ocg) + wei.shape[3:])
    want = reference(key["attrs"], src, w, a.get("bias"), g)
    if want.shape != dst.shape:
        return "WRONG: onnx gives shape %s, the benchmark %s" % (list(want.shape), list(dst.shape)), False
    err = float(np.max(np.abs(dst.astype(np.float64) - want))) / max(float(np.max(np.abs(want))), 1e-6)
    return "%dD group %d max error %.3g" % (nsp, g, err), err <= 1e-4


def main():
    bad = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(sys.argv[1] + "/bench/*-f32-*.c")):
            text = open(path).read()
            if ".family = BD_DECONV," not in text:
                continue
            what, ok = check(path, tmp)
            bad += not ok
            checked += 1
            print("%s: %s%s" % (os.path.basename(path), what, "" if ok else " WRONG"))
    print("%d deconvolution benchmarks checked, %d wrong" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
