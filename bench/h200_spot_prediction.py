#!/usr/bin/env python3
"""h200_spot_prediction.py GEN AGG SHARED: agg's H100 -> H200 prediction on the only H200
measurements there are, ../shared/gpu-runs/h200-2026-11-23's spot check: nine benchmarks timed
with --graph (the GPU's own time) on both GPUs, the same generated files. Their work (flops,
bytes) comes from the H100 run's rows of the same benchmarks; the manifest from gen. Markdown on
stdout: what agg predicts for the H200 from the H100 times, against what the H200 measured."""
import csv
import os
import re
import subprocess
import sys
import tempfile

gen, agg, shared = sys.argv[1:4]
runs = os.path.join(shared, "gpu-runs")
readme = open(os.path.join(runs, "h200-2026-11-23", "README.md")).read()
# the first table: benchmark | what | H200 as generated | H200 --graph | H200 ncu | H100 --graph
times = {}
for line in readme.splitlines():
    m = re.match(r"\|\s*([0-9a-f]{16}-\S+)\s*\|\s*([^|]*)\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([^|]*)\|\s*([\d.]+)\s*\|", line)
    if m:
        times[m.group(1)] = (m.group(2).strip(), float(m.group(6)), float(m.group(4)))
rows = {r["bench"]: r for r in csv.DictReader(open(os.path.join(runs, "h100-2026-11-23", "results.csv")))}
header = ("schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,mean_us,p90_us,"
          "max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,sms,lib,host,time,method,"
          "kernel_us,busy,note")
with tempfile.TemporaryDirectory() as d:
    subprocess.run([gen, "--zoo", "resnet50", "--zoo", "bert_base", "-b", "1", "--backend", "none", "-o", d],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = [header]
    for bench, (what, h100, h200) in sorted(times.items()):
        r = rows[bench]
        for dev, us in (("NVIDIA H100 80GB HBM3", h100), ("NVIDIA H200", h200)):
            out.append(",".join(["2", bench, r["layer"], r["layer_name"], r["op"], "cuda", r["impl"], r["dtype"],
                                 r["math"], "ok", "20"] + [f"{us}"] * 5 +
                                ["0", r["workspace_bytes"], r["flops"], r["bytes"], "0", "0", dev, "9.0", "132",
                                 '"' + r["lib"] + '"', "spot", "2026-11-23T00:00:00Z", "graph", "", "", "spot check"]))
    open(os.path.join(d, "results.csv"), "w").write("\n".join(out) + "\n")
    db = os.path.join(d, "p.db")
    subprocess.run([agg, "--db", db, "ingest", os.path.join(d, "manifest.tsv"), os.path.join(d, "results.csv")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rep = subprocess.run([agg, "--db", db, "report", "--to", "H200", "--from", "NVIDIA H100*", "--report",
                          "top-layers", "--format", "csv", "--top", "0"], check=True, capture_output=True,
                         text=True).stdout
pred = {}
for r in csv.DictReader(l for l in rep.splitlines() if l and not l.startswith("#")):
    if "predicted" in r["device"]:
        pred[(r["layer"], r["type"])] = float(r["time per use"])
print("# H100 -> H200: agg's prediction on the spot check's nine benchmarks\n")
print("Made by `bench/h200_spot_prediction.py bin/gen bin/agg ../shared`: the H100 and H200 times are")
print("../shared/gpu-runs/h200-2026-11-23/README.md's `--graph` columns (the GPU's own time of a call; the")
print("same generated files, project commit 6529acf), the work the H100 rows' flops and bytes;")
print("`agg --to H200 --from 'NVIDIA H100*'` predicts from the H100 times with the spec table's")
print("datasheets (no calibration rows: no launch floor). Times in microseconds.\n")
print("| benchmark | what | H100 | H200 measured | H200 predicted | error |")
print("|---|---|---:|---:|---:|---:|")
errs = []
for bench, (what, h100, h200) in sorted(times.items()):
    r = rows[bench]
    prec = r["dtype"] if r["math"] in ("", "default") else r["dtype"] + "+" + r["math"]
    p = pred.get((r["layer"], prec))
    e = abs(p - h200) / h200 * 100 if p else float("nan")
    errs.append(e)
    print(f"| {bench} | {what} | {h100:.2f} | {h200:.2f} | {p:.2f} | {e:.1f}% |")
errs.sort()
n = len(errs)
median = errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2
print(f"\n{n} benchmarks: median error {median:.1f}%, mean {sum(errs) / n:.1f}%, largest {errs[-1]:.1f}%.")
