#!/usr/bin/env python3
"""Holds gen's silu groups (Sigmoid -> Mul) in a benchmark folder's manifest to a walk of the
models of its own: per run, the Sigmoid nodes whose output one Mul reads, and nothing else,
with the Sigmoid's own input as the Mul's other operand (x * sigmoid(x), SiLU). Each such pair
must be one silu group of gen's, and gen may have no other.

usage: silu_check.py FOLDER [MODEL=N ...]   (MODEL=N: the model must have N of them)
Prints one line per run; exit status 1 on any mismatch."""
import os
import sys

import onnx


def silu_pairs(path):
    g = onnx.load(path, load_external_data=False).graph
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    outputs = {o.name for o in g.output}
    count = 0
    for n in g.node:
        if n.op_type != "Sigmoid" or n.output[0] in outputs:
            continue
        r = readers.get(n.output[0], [])
        if len(r) == 1 and r[0].op_type == "Mul" and sorted(r[0].input) == sorted([n.input[0], n.output[0]]):
            count += 1
    return count


def main():
    folder = sys.argv[1]
    want = dict(a.split("=", 1) for a in sys.argv[2:])
    runs, groups = {}, {}
    with open(os.path.join(folder, "manifest.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "run":
                runs[c[1]] = (c[2], c[4])
            elif c[0] == "group" and c[3] == "silu":
                groups[c[1]] = groups.get(c[1], 0) + 1
    bad = 0
    for run, (name, path) in sorted(runs.items(), key=lambda kv: int(kv[0])):
        mine, gens = silu_pairs(path), groups.get(run, 0)
        ok = mine == gens and (name not in want or int(want.pop(name)) == mine)
        if mine or gens or not ok:
            print("%s %s: %d x sigmoid(x) in the model, %d silu groups" % ("ok  " if ok else "FAIL", name, mine, gens))
        bad += not ok
    for name in want:
        print("FAIL %s: not in the folder" % name)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
