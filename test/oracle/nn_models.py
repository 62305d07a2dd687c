#!/usr/bin/env python3
"""Writes models of the layers benchmarked in runtime/plain_nn.h and Det, at sizes where a
wrong tap, index or weight shows: Det of one matrix, of batches (4 x 4 and 16 x 16) and in double; RoiAlign
averaged with the half-pixel offset and two samples per bin, maxed without the offset and
with adaptive sampling; MaxUnpool with disjoint windows, with overlapping padded windows and
into a larger output_shape; NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with each
reduction, class weights, an ignored class and SCE's log-probabilities; the training optimizers
(Adagrad of two weights with decay, Momentum in the Nesterov form, Adam in double with the
post-update norm); TfIdfVectorizer (TFIDF with weights on a batch, IDF of bigrams and trigrams
with skips and weights on int32 tokens, TFIDF of unigrams without weights). The regions, indices
and targets are graph inputs (data: the benchmark makes valid ones); output_shape is a
constant. The e2e test benchmarks them and holds each plain C kernel against onnx.reference
(plain_check.py).

usage: nn_models.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F64, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64


def model(name, node, ins, outs, inits=(), opset=16):
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outs], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def det(name, shape, dtype=F32):
    return model(name, helper.make_node("Det", ["x"], ["y"]), [("x", dtype, shape)], [("y", dtype, shape[:-2])])


def roi_align(name, x, rois, out_hw, attrs):
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], output_height=out_hw[0],
                            output_width=out_hw[1], **attrs)
    return model(name, node, [("x", F32, x), ("rois", F32, [rois, 4]), ("batch", I64, [rois])],
                 [("y", F32, [rois, x[1]] + out_hw)])


def max_unpool(name, x, out, attrs, output_shape=None):
    names, inits = ["x", "i"], []
    if output_shape is not None:
        inits.append(numpy_helper.from_array(np.array(output_shape, dtype=np.int64), "shape"))
        names.append("shape")
    node = helper.make_node("MaxUnpool", names, ["y"], **attrs)
    return model(name, node, [("x", F32, x), ("i", I64, x)], [("y", F32, out)], inits, opset=11)


def loss(name, op, x, attrs, weight=False, log_prob=False):
    reduced = attrs.get("reduction", "mean") != "none"
    target = [x[0]] + x[2:]
    ins = [("x", F32, x), ("t", I64, target)] + ([("w", F32, [x[1]])] if weight else [])
    outs = [("y", F32, [] if reduced else target)] + ([("lp", F32, x)] if log_prob else [])
    node = helper.make_node(op, [n for n, _, _ in ins], [n for n, _, _ in outs], **attrs)
    return model(name, node, ins, outs, opset=13)


def optimizer(name, op, shapes, attrs, dtype=F32):
    """R and T, then each role's tensors (X, G and the states), all graph inputs"""
    roles = ["X", "G"] + (["V", "H"] if op == "Adam" else ["H"] if op == "Adagrad" else ["V"])
    ins = [("R", dtype, []), ("T", TensorProto.INT64, [])]
    ins += [(r + str(j), dtype, s) for r in roles for j, s in enumerate(shapes)]
    outs = [(r + "_new" + str(j), dtype, s) for r in [roles[0]] + roles[2:] for j, s in enumerate(shapes)]
    node = helper.make_node(op, [n for n, _, _ in ins], [n for n, _, _ in outs], domain="ai.onnx.preview.training",
                            **attrs)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16),
                                            helper.make_opsetid("ai.onnx.preview.training", 1)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def tfidf(name, shape, mode, min_gram, max_gram, skip, grams, weights=None, dtype=I64):
    """grams: the pool's n-grams by size (a list of lists of tuples); output indexes reversed,
    so that they are not the ids"""
    pool, counts = [], []
    for size in grams:
        counts.append(len(pool))
        for g in size:
            pool.extend(g)
    total = sum(len(size) for size in grams)
    attrs = {"mode": mode, "min_gram_length": min_gram, "max_gram_length": max_gram, "max_skip_count": skip,
             "pool_int64s": pool, "ngram_counts": counts, "ngram_indexes": list(range(total))[::-1]}
    if weights is not None:
        attrs["weights"] = weights
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    out = shape[:-1] + [total]
    return model(name, node, [("x", dtype, shape)], [("y", F32, out)], opset=9)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    nll, sce = "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"
    models = [
        det("det_one", [5, 5]),
        det("det_batch", [3, 2, 4, 4]),
        det("det_double", [2, 7, 7], F64),
        det("det_sixteen", [6, 16, 16]),
        roi_align("roialign_avg_half_pixel", [2, 3, 20, 24], 5, [3, 3],
                  {"sampling_ratio": 2, "spatial_scale": 0.25}),
        roi_align("roialign_max_adaptive", [1, 4, 16, 16], 6, [2, 4],
                  {"mode": "max", "coordinate_transformation_mode": "output_half_pixel", "spatial_scale": 0.5}),
        max_unpool("maxunpool_disjoint", [1, 2, 4, 5], [1, 2, 8, 10], {"kernel_shape": [2, 2], "strides": [2, 2]}),
        max_unpool("maxunpool_overlapping_padded", [2, 1, 5, 5], [2, 1, 9, 9],
                   {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        max_unpool("maxunpool_output_shape", [1, 2, 4, 5], [1, 2, 9, 11], {"kernel_shape": [2, 2], "strides": [2, 2]},
                   output_shape=[1, 2, 9, 11]),
        loss("nll_mean", nll, [4, 6], {}),
        loss("nll_weighted_ignore_sum", nll, [2, 5, 3, 4], {"reduction": "sum", "ignore_index": 2}, weight=True),
        loss("nll_none_ignore_negative", nll, [3, 4, 6], {"reduction": "none", "ignore_index": -1}),
        loss("sce_mean", sce, [3, 7], {}),
        loss("sce_none_weighted_log_prob", sce, [2, 4, 5], {"reduction": "none"}, weight=True, log_prob=True),
        loss("sce_weighted_ignore_mean", sce, [4, 5, 3], {"ignore_index": 1}, weight=True),
        tfidf("tfidf_weighted_batch", [3, 40], "TFIDF", 1, 2, 2,
              [[(t,) for t in range(1, 9)], [(1, 2), (3, 3), (2, 7), (5, 1)]],
              weights=[0.5 + 0.25 * i for i in range(12)]),
        tfidf("tfidf_idf_trigrams_int32", [200], "IDF", 2, 3, 1,
              [[(4,), (9,)], [(2, 4), (4, 2), (6, 6)], [(1, 2, 3), (4, 4, 4), (2, 5, 2)]],
              weights=[2.0, 0.5, 1.5, 3.0, 0.25, 1.25, 0.75, 4.0], dtype=TensorProto.INT32),
        tfidf("tfidf_unweighted", [2, 30], "TFIDF", 1, 1, 3, [[(t,) for t in range(0, 12, 2)]]),
        optimizer("adagrad_two_weights", "Adagrad", [[64, 3], [17]],
                  {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.01}),
        optimizer("momentum_nesterov", "Momentum", [[5, 5, 4]],
                  {"alpha": 0.9, "beta": 0.1, "mode": "nesterov", "norm_coefficient": 0.001}),
        optimizer("adam_post_norm_double", "Adam", [[40], [3, 7]],
                  {"alpha": 0.85, "beta": 0.99, "epsilon": 1e-7, "norm_coefficient_post": 0.02}, dtype=F64),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()
