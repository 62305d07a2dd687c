#!/usr/bin/env python3
"""Writes single-layer models of real sizes for the plain C kernels of rare and data-dependent
operators (docs/results/cpu/README.md measures them beside ONNX Runtime): a Whisper-sized STFT,
a detector's NonMaxSuppression, Mask R-CNN's RoiAlign, Unique, a batch of Det, NonZero, and the
string operators of a text pipeline (100k numbers to strings and back, StringNormalizer of 100k
tokens, StringSplit of 100k texts on whitespace, RegexFullMatch of 100k strings against an
e-mail pattern).

usage: plain_rare_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)


def save(name, nodes, ins, outs, inits, opset=17, extra=()):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in ins],
                          [helper.make_tensor_value_info(*o) for o in outs], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] + list(extra))
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


def c(n, v, dt=np.int64):
    return numpy_helper.from_array(np.array(v, dtype=dt), n)



# Whisper-like STFT: 30 s at 16 kHz, 400-sample Hann frames every 160
save("stft_whisper", [helper.make_node("HannWindow", ["ws"], ["w"]), helper.make_node("STFT", ["x", "step", "w"], ["y"])],
     [("x", T.FLOAT, [1, 480000, 1])], [("y", T.FLOAT, [1, 2998, 201, 2])], [c("ws", 400), c("step", 160)])
# detector NMS: 1000 boxes, 80 classes, 100 per class, IoU 0.5, score 0.05
save("nms_yolo", [helper.make_node("NonMaxSuppression", ["b", "s", "k", "iou", "sc"], ["y"])],
     [("b", T.FLOAT, [1, 1000, 4]), ("s", T.FLOAT, [1, 80, 1000])], [("y", T.INT64, ["n", 3])],
     [c("k", [100]), c("iou", [0.5], np.float32), c("sc", [0.05], np.float32)], opset=11)
# Mask R-CNN box head RoiAlign: 1000 regions of a stride-16 map, 7x7, 2 samples per bin side
save("roialign_maskrcnn", [helper.make_node("RoiAlign", ["x", "r", "i"], ["y"], output_height=7, output_width=7, sampling_ratio=2, spatial_scale=0.0625)],
     [("x", T.FLOAT, [1, 256, 50, 68]), ("r", T.FLOAT, [1000, 4]), ("i", T.INT64, [1000])], [("y", T.FLOAT, [1000, 256, 7, 7])], [], opset=16)
save("unique_100k", [helper.make_node("Unique", ["x"], ["y", "i", "v", "c"])], [("x", T.INT64, [100000])], [("y", T.INT64, ["n"])], [], opset=11)
save("det_batch", [helper.make_node("Det", ["x"], ["y"])], [("x", T.FLOAT, [1000, 16, 16])], [("y", T.FLOAT, [1000])], [], opset=11)
save("nonzero_1m", [helper.make_node("NonZero", ["x"], ["y"])], [("x", T.BOOL, [1000, 1000])], [("y", T.INT64, [2, "n"])], [], opset=13)
# the string operators of a text pipeline: 100k numbers printed and parsed, 100k tokens cleaned
save("cast_float_to_string_100k", [helper.make_node("Cast", ["x"], ["y"], to=T.STRING)], [("x", T.FLOAT, [100000])], [("y", T.STRING, [100000])], [], opset=13)
save("cast_string_to_float_100k", [helper.make_node("Cast", ["x"], ["y"], to=T.FLOAT)], [("x", T.STRING, [100000])], [("y", T.FLOAT, [100000])], [], opset=13)
save("strnorm_lower_100k", [helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="LOWER", locale="C.UTF-8",
                                                       stopwords=["the", "and", "of", "is", "a"])],
     [("x", T.STRING, [100000])], [("y", T.STRING, ["n"])], [], opset=10)
save("strsplit_whitespace_100k", [helper.make_node("StringSplit", ["x"], ["y", "n"])], [("x", T.STRING, [100000])],
     [("y", T.STRING, [100000, "p"]), ("n", T.INT64, [100000])], [], opset=20)
save("regex_email_100k", [helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=r"[a-z0-9._]+@[a-z]+\.(com|org|net)")],
     [("x", T.STRING, [100000])], [("y", T.BOOL, [100000])], [], opset=20)
