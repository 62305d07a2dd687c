#!/usr/bin/env python3
"""Writes models of the operators whose output size depends on the data: NonZero (float,
bool, int32 inputs of ranks 1 to 3), Compress (along an inner axis, the flattened input, a
condition shorter than the axis), Unique (flattened, unsorted, along an axis, all distinct) and
NonMaxSuppression (corner and centre box formats, with
and without a score threshold, several batches and classes, a box limit below and above the
candidates, IoU thresholds of 0 and 1). Their limits and thresholds are constants, as in real models; the data are graph
inputs. The e2e test benchmarks them and holds each plain C kernel against onnx.reference
(plain_check.py).

usage: select_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL


def model(name, node, ins, out, inits=(), opset=13):
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(*out)], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def nms(name, batches, classes, boxes, limit, iou, score=None, center=0):
    inits = [numpy_helper.from_array(np.array([limit], dtype=np.int64), "limit"),
             numpy_helper.from_array(np.array([iou], dtype=np.float32), "iou")]
    names = ["boxes", "scores", "limit", "iou"]
    if score is not None:
        inits.append(numpy_helper.from_array(np.array([score], dtype=np.float32), "score"))
        names.append("score")
    node = helper.make_node("NonMaxSuppression", names, ["y"], center_point_box=center)
    return model(name, node, [("boxes", F32, [batches, boxes, 4]), ("scores", F32, [batches, classes, boxes])],
                 ("y", I64, ["n", 3]), inits, opset=11)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        model("nonzero_float", helper.make_node("NonZero", ["x"], ["y"]), [("x", F32, [3, 4, 5])], ("y", I64, [3, "n"])),
        model("nonzero_bool", helper.make_node("NonZero", ["x"], ["y"]), [("x", BOOL, [17, 9])], ("y", I64, [2, "n"])),
        model("nonzero_int32", helper.make_node("NonZero", ["x"], ["y"]), [("x", I32, [300])], ("y", I64, [1, "n"])),
        model("compress_axis1", helper.make_node("Compress", ["x", "c"], ["y"], axis=1),
              [("x", F32, [2, 7, 3]), ("c", BOOL, [7])], ("y", F32, [2, "n", 3]), opset=11),
        model("compress_flat_short", helper.make_node("Compress", ["x", "c"], ["y"]),
              [("x", I64, [4, 6]), ("c", BOOL, [15])], ("y", I64, ["n"]), opset=11),
        model("compress_negative_axis", helper.make_node("Compress", ["x", "c"], ["y"], axis=-1),
              [("x", F32, [3, 10]), ("c", BOOL, [6])], ("y", F32, [3, "n"]), opset=11),
        model("unique_flat_int64", helper.make_node("Unique", ["x"], ["y", "i", "v", "c"]), [("x", I64, [6, 50])],
              ("y", I64, ["n"]), opset=11),
        model("unique_unsorted_1d", helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], sorted=0),
              [("x", I32, [200])], ("y", I32, ["n"]), opset=11),
        model("unique_axis1_int32", helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], axis=1),
              [("x", I32, [2, 40, 1])], ("y", I32, [2, "n", 1]), opset=11),
        model("unique_float_distinct", helper.make_node("Unique", ["x"], ["y", "i", "v", "c"]), [("x", F32, [1000])],
              ("y", F32, ["n"]), opset=11),
        nms("nms_corners_score", 2, 3, 60, 10, 0.5, score=0.3),
        nms("nms_center_no_score", 1, 2, 40, 100, 0.3, center=1),
        nms("nms_many_boxes", 1, 4, 500, 50, 0.45, score=0.05),
        nms("nms_zero_iou", 1, 3, 301, 40, 0.0, score=0.1),  # any overlap suppresses
        nms("nms_iou_one", 2, 2, 75, 33, 1.0),  # nothing does: the limit decides
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
