#!/usr/bin/env python3
"""Writes the Resize and GridSample models that libonnx-testdata lacks (antialiasing,
half_pixel_symmetric, opset 18's axes with keep_aspect_ratio_policy, uint8 and float16,
trilinear 5-D, resizing the batch dim, N-D GridSample, cubic with reflection, Upsample),
at sizes where a wrong tap shows; their scales, sizes and roi are constants, as in real
models. The e2e test benchmarks them and holds each plain C kernel against onnx.reference
(plain_check.py).

usage: resample_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16, U8 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.UINT8


def resize(name, shape, out, attrs, scales=None, sizes=None, roi=None, dtype=F32, axes_n=None, opset=19):
    """One Resize node; scales/sizes/roi as initializers ('' where absent)"""
    inits, names = [], ["x", "", "", ""]
    if roi is not None:
        inits.append(numpy_helper.from_array(np.array(roi, dtype=np.float32), "roi"))
        names[1] = "roi"
    if scales is not None:
        inits.append(numpy_helper.from_array(np.array(scales, dtype=np.float32), "scales"))
        names[2] = "scales"
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, dtype=np.int64), "sizes"))
        names[3] = "sizes"
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node("Resize", names, ["y"], **attrs)
    return model(name, [node], [("x", dtype, shape)], ("y", dtype, out), inits, opset)


def model(name, nodes, ins, out, inits, opset):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(out[0], out[1], out[2])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def grid_sample(name, shape, grid_shape, attrs, opset=20):
    rng = np.random.default_rng(len(name))
    grid = rng.uniform(-1.2, 1.2, size=grid_shape).astype(np.float32)
    out = [shape[0], shape[1]] + list(grid_shape[1:-1])
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)
    return model(name, [node], [("x", F32, shape)], ("y", F32, out), [numpy_helper.from_array(grid, "grid")], opset)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [
        resize("resize_linear_antialias", [1, 3, 17, 23], [1, 3, 6, 13],
               {"mode": "linear", "antialias": 1}, scales=[1, 1, 0.4, 0.6]),
        resize("resize_cubic_antialias", [1, 2, 29, 20], [1, 2, 13, 9],
               {"mode": "cubic", "antialias": 1, "cubic_coeff_a": -0.5}, sizes=[1, 2, 13, 9]),
        resize("resize_half_pixel_symmetric", [1, 2, 9, 11], [1, 2, 15, 6],
               {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
               scales=[1, 1, 1.7, 0.55]),
        resize("resize_axes_not_larger", [1, 3, 10, 12], [1, 3, 7, 8],
               {"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": "not_larger",
                "nearest_mode": "round_prefer_ceil"}, sizes=[7, 30]),
        resize("resize_axes_not_smaller", [1, 3, 10, 12], [1, 3, 25, 30],
               {"mode": "linear", "axes": [3, 2], "keep_aspect_ratio_policy": "not_smaller"}, sizes=[30, 7]),
        resize("resize_uint8_linear", [1, 3, 6, 7], [1, 3, 13, 10], {"mode": "linear"},
               sizes=[1, 3, 13, 10], dtype=U8),
        resize("resize_f16_cubic", [1, 2, 5, 6], [1, 2, 7, 9], {"mode": "cubic"}, scales=[1, 1, 1.5, 1.5], dtype=F16),
        resize("resize_trilinear", [1, 2, 4, 5, 6], [1, 2, 8, 7, 3], {"mode": "linear"},
               scales=[1, 1, 2, 1.5, 0.5]),
        resize("resize_pytorch_half_pixel_to_one", [1, 2, 7, 9], [1, 2, 1, 5],
               {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"}, sizes=[1, 2, 1, 5]),
        resize("resize_batch_dim", [3, 4, 5], [6, 2, 5], {"mode": "nearest", "nearest_mode": "ceil"},
               scales=[2, 0.5, 1]),
        resize("resize_crop_cubic", [1, 2, 8, 9], [1, 2, 6, 7],
               {"mode": "cubic", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": -3.5},
               sizes=[1, 2, 6, 7], roi=[0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3]),
        resize("resize_align_corners_exclude", [1, 1, 6, 8], [1, 1, 11, 5],
               {"mode": "cubic", "coordinate_transformation_mode": "align_corners", "exclude_outside": 1},
               sizes=[1, 1, 11, 5]),
        grid_sample("gridsample_3d_border", [1, 2, 4, 5, 6], [1, 3, 3, 4, 3],
                    {"mode": "linear", "padding_mode": "border"}),
        grid_sample("gridsample_cubic_reflection", [2, 3, 7, 8], [2, 5, 6, 2],
                    {"mode": "cubic", "padding_mode": "reflection", "align_corners": 1}),
        grid_sample("gridsample_nearest_reflection", [1, 3, 6, 5], [1, 9, 7, 2],
                    {"mode": "nearest", "padding_mode": "reflection"}),
        grid_sample("gridsample_bilinear_opset16", [2, 2, 5, 7], [2, 4, 3, 2],
                    {"mode": "bilinear", "padding_mode": "zeros"}, opset=16),
    ]
    up = helper.make_node("Upsample", ["x", "s"], ["y"], mode="linear")
    models.append(model("upsample_linear_opset9", [up], [("x", F32, [1, 2, 3, 5])], ("y", F32, [1, 2, 6, 10]),
                        [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "s")], 9))
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
