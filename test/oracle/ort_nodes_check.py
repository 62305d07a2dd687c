#!/usr/bin/env python3
"""ort_nodes_check.py FOLDER AGG_JSON: scripts/measure-ort --nodes against gen's folder and agg.

FOLDER holds gen's manifest.tsv (one run) and measured.csv, written by measure-ort --nodes on
the same model; AGG_JSON is agg's framework-layers report of them (--format json). Checks that
the node rows name only the model's nodes, none in two rows; that every computing node is in a
row (ONNX Runtime ran each, alone or inside one of its fused nodes); that agg found every row's
nodes and holds it against a bound; and that a row naming exactly a fusion group's members is
held against the group (its op the group's pattern), there being at least one such row (ONNX
Runtime fused what gen fuses). A node without a name is `#INDEX`, its manifest index, as
measure-ort names it and agg reads it."""
import csv
import json
import math
import sys


def main():
    folder, agg_json = sys.argv[1], sys.argv[2]
    names, compute, groups = {}, set(), []
    for line in open(folder + "/manifest.tsv"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "node":
            names[int(f[2])] = f[8] or "#" + f[2]
            if f[4] == "compute":
                compute.add(names[int(f[2])])
        elif f[0] == "group":
            groups.append((f[3], [int(i) for i in f[5].split(",")]))
    groups = [(pattern, {names[i] for i in members} & compute) for pattern, members in groups]
    rows = [r for r in csv.DictReader(open(folder + "/measured.csv")) if r["node"]]
    bad = []
    seen = {}
    for r in rows:
        for n in r["node"].split("+"):
            if n not in names.values():
                bad.append("row %r names %r, no node of the model" % (r["node"], n))
            if n in seen:
                bad.append("node %r is in two rows: %r and %r" % (n, seen[n], r["node"]))
            seen[n] = r["node"]
        if not float(r["latency_us"]) > 0:
            bad.append("row %r has no time" % r["node"])
    bad += ["computing node %r is in no row" % n for n in sorted(compute - set(seen))]
    report = next(t for t in json.load(open(agg_json))["reports"] if t["name"] == "framework-layers")
    held = {r["node"]: r for r in report["rows"]}
    fused = 0
    for r in rows:
        a = held.get(r["node"])
        if a is None or not isinstance(a.get("bound"), (int, float)) or math.isnan(a["bound"]) or a["bound"] <= 0:
            if set(r["node"].split("+")) & compute:
                bad.append("agg holds row %r against no bound: %r" % (r["node"], a))
            continue
        for pattern, members in groups:
            if members and set(r["node"].split("+")) & compute == members:
                fused += 1
                if a["op"] != pattern:
                    bad.append("row %r holds group %s's members, but agg's op is %r" % (r["node"], pattern, a["op"]))
    if not fused:
        bad.append("no row holds a fusion group's members (groups: %s)" % ", ".join(p for p, _ in groups))
    for b in bad:
        print("ort_nodes_check: " + b)
    print("ort_nodes_check: %d node rows, %d computing nodes, %d rows held against a fusion group%s" % (
        len(rows), len(compute), fused, "" if not bad else ": %d problems" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
