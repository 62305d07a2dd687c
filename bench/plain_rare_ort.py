#!/usr/bin/env python3
"""ONNX Runtime's latency (median of 15 runs after 3, CPU provider, 1 and 2 threads) of the
models bench/plain_rare_models.py writes, on data like the benchmarks' own (regions and boxes
of the same sizes, uniform scores in steps of 1/256, tokens from sixteen values; numbers over many magnitudes and
words of up to twelve letters, a quarter of them stopwords, texts of up to eight words and
e-mail addresses, every other one with a byte changed, for the string operators).

usage: plain_rare_ort.py DIR"""
import glob
import os
import sys
import time

import numpy as np
import onnxruntime as ort

rng = np.random.default_rng(0)


def feeds(path, sess):
    f = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        if i.type == "tensor(bool)":
            f[i.name] = rng.random(shape) < 0.5
        elif i.type == "tensor(int64)":
            f[i.name] = rng.integers(-8, 8, size=shape).astype(np.int64)
        elif i.type == "tensor(string)":  # numbers over many magnitudes, or words (a quarter stopwords)
            n = int(np.prod(shape))
            if os.path.basename(path).startswith("strsplit"):  # up to eight words, runs of spaces and tabs
                f[i.name] = np.array(["".join(rng.choice([" ", "  ", "\t"]) + "".join(rng.choice(list("abcdefXYZ012"), rng.integers(1, 7)))
                                              for _ in range(rng.integers(0, 9))) for _ in range(n)], dtype=object).reshape(shape)
                continue
            if os.path.basename(path).startswith("regex"):  # addresses, every other one with a byte changed
                def addr():
                    return "".join(rng.choice(list("abc123._"), rng.integers(1, 9))) + "@" + "".join(
                        rng.choice(list("xyz"), rng.integers(1, 6))) + "." + str(rng.choice(["com", "org", "net"]))
                vals = []
                for k in range(n):
                    a = addr()
                    if k % 2:
                        j = int(rng.integers(0, len(a)))
                        a = a[:j] + str(rng.choice(list("aZ9 .-_@"))) + a[j + 1:]
                    vals.append(a)
                f[i.name] = np.array(vals, dtype=object).reshape(shape)
                continue
            if os.path.basename(path).startswith("cast"):
                v = rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-12, 31, n)
                f[i.name] = np.array(["%.9g" % float(np.float32(x)) for x in v], dtype=object).reshape(shape)
            else:
                stops = ["the", "And", "OF", "is", "a"]
                f[i.name] = np.array([stops[k % 5] if k % 4 == 0 else "".join(
                    rng.choice(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), rng.integers(1, 13)))
                    for k in range(n)], dtype=object).reshape(shape)
        else:
            f[i.name] = (rng.uniform(-1, 1, size=shape) * (10.0 ** rng.integers(-12, 31, size=shape)
                         if "string" in path else 1)).astype(np.float32)
    name = os.path.basename(path)
    if name.startswith("roialign"):  # regions a tenth to half of the 50x68 map, as the benchmark's
        r = rng.uniform(0, 1, size=(1000, 4)).astype(np.float32)
        w, h = 68 * (0.1 + 0.4 * r[:, 2]), 50 * (0.1 + 0.4 * r[:, 3])
        x0, y0 = (68 - w) * r[:, 0], (50 - h) * r[:, 1]
        f["r"] = (np.stack([x0, y0, x0 + w, y0 + h], 1) / 0.0625).astype(np.float32)
        f["i"] = np.zeros(1000, np.int64)
    if name.startswith("nms"):  # boxes a twentieth to a third of a unit frame, uniform scores
        u = rng.uniform(0, 1, size=(1, 1000, 4)).astype(np.float32)
        h, w = 0.05 + 0.28 * u[..., 2], 0.05 + 0.28 * u[..., 3]
        y, x = (1 - h) * u[..., 0], (1 - w) * u[..., 1]
        f["b"] = np.stack([y, x, y + h, x + w], -1).astype(np.float32)
        f["s"] = (np.floor(rng.uniform(0, 1, size=(1, 80, 1000)) * 256) / 256).astype(np.float32)  # steps of 1/256
    return f


def main():
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.onnx"))):
        for threads in (1, 2):
            o = ort.SessionOptions()
            o.intra_op_num_threads, o.inter_op_num_threads = threads, 1
            s = ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])
            f = feeds(path, s)
            for _ in range(3):
                s.run(None, f)
            ts = []
            for _ in range(15):
                t0 = time.perf_counter()
                s.run(None, f)
                ts.append(time.perf_counter() - t0)
            print("%s threads %d median %.3f ms" % (os.path.basename(path), threads, 1e3 * np.median(ts)))


if __name__ == "__main__":
    main()
