#!/usr/bin/env python3
"""Oracle for the permutation benchmarks of a generated folder (Transpose, DepthToSpace,
SpaceToDepth on the CPU backend): each f32 benchmark moves its input through a view
(`.src`) and a permutation (`.perm`); onnx's reference implementation of the layer, run on
random data of the layer key's input shape, must give the same output.

usage: permute_check.py FOLDER   (prints one line per layer; exit 1 on any mismatch)"""
import glob
import re
import sys

import numpy as np
from single_node import layer_key, run_node

OPS = ("Transpose", "DepthToSpace", "SpaceToDepth")


def reference(key, x):
    return run_node(key["op"], dict(key["attrs"]), {"x": x})[0]


def main():
    bad = checked = 0
    for path in sorted(glob.glob(sys.argv[1] + "/bench/*-f32-*.c")):
        text = open(path).read()
        key = layer_key(text)
        if not key:
            continue
        if key["op"] not in OPS or key["inputs"][0]["dtype"] != "FLOAT":
            continue
        src = re.search(r"\.src = \{(\d+), \{([^}]*)\}\}", text)
        perm = re.search(r"\.perm = \{([^}]*)\}", text)
        view = [int(v) for v in src.group(2).split(",")][: int(src.group(1))]
        order = [int(v) for v in perm.group(1).split(",")]
        rng = np.random.default_rng(1)
        x = rng.random(key["inputs"][0]["shape"], dtype=np.float32)
        want = reference(key, x)
        got = np.transpose(x.reshape(view), order).reshape(want.shape)
        ok = np.array_equal(got, want)
        bad += not ok
        checked += 1
        print("%s %s view %s perm %s: %s" % (path.split("/")[-1], key["op"], view, order, "ok" if ok else "WRONG"))
    print("%d permutation layers checked, %d wrong" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
