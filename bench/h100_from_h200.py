#!/usr/bin/env python3
"""H200 -> H100 from the two runs of 2026-11-26 (docs/results/h200/2026-11-26, whole; and
docs/results/h100/2026-11-26, three quarters of the set), no GPU needed. Prints markdown:

1. agg --to H100-SXM --from '*H200*' --report prediction, once on every row and once on the
   library benchmarks alone (cuDNN, cuBLAS: the same code in both runs; our .cu kernels were
   generated at two commits, 61c08ce and e87d422, and changed between them), the launch
   calibration kept in both;
2. the H100 / H200 ratios of the library benchmarks ok on both, by the H200's kernel time;
3. an estimate of the H100's bound: the H100's own rows, and for the benchmarks it did not
   reach the H200's rows scaled by (2)'s ratio of their size, through agg's bound report.

    bench/h100_from_h200.py bin/agg [REPO]     (REPO: the checkout, default .)
"""
import bisect
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

EDGES = [2, 3, 5, 10, 30, 100]  # us of the H200's kernel time: the bins of (2)


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def write(folder, head, rows, manifest):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "results.csv"), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head] + rows)
    with open(manifest) as src, open(os.path.join(folder, "manifest.tsv"), "w") as dst:
        dst.write(src.read())


def agg_json(agg, db, folders, args):
    if os.path.exists(db):
        os.unlink(db)
    subprocess.run([agg, "--db", db, "ingest"] + folders, check=True, capture_output=True)
    out = subprocess.run([agg, "--db", db, "report", "--format", "json"] + args, check=True,
                         capture_output=True, text=True).stdout
    return {r["name"]: r["rows"] for r in json.loads(out)["reports"]}


def fmt(v, d=1):
    return "-" if v is None else f"{v:.{d}f}"


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    agg = os.path.abspath(sys.argv[1])
    repo = sys.argv[2] if len(sys.argv) > 2 else "."
    runs = {g: os.path.join(repo, "docs/results", g, "2026-11-26") for g in ("h200", "h100")}
    head, rows200 = load(os.path.join(runs["h200"], "results.csv"))
    head100, rows100 = load(os.path.join(runs["h100"], "results.csv"))
    if head != head100:
        sys.exit("h100_from_h200: the two results.csv have different columns")
    col = {c: i for i, c in enumerate(head)}

    def ours(r):
        return r[col["lib"]].startswith("benanza CUDA kernels") and not r[col["bench"]].startswith("calib-")

    def ok(r):
        return r[col["status"]] == "ok" and r[col["median_us"]] and r[col["kernel_us"]]

    tmp = tempfile.mkdtemp(prefix="bz-h100-")
    pred = ["--to", "H100-SXM", "--from", "*H200*", "--report", "prediction"]
    print("## 1. The prediction held to the H100's rows\n")
    print("| rows | model | type | layers | layer error median | p90 | kernel clock median | nodes on both "
          "| predicted | measured | error | kernel clock: predicted | measured | error |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, keep in (("all", lambda r: True), ("library", lambda r: not ours(r))):
        folders = []
        for g, rows in (("h200", rows200), ("h100", rows100)):
            d = os.path.join(tmp, label, g)
            write(d, head, [r for r in rows if keep(r)], os.path.join(runs[g], "manifest.tsv"))
            folders.append(d)
        for r in agg_json(agg, os.path.join(tmp, label + ".db"), folders, pred)["prediction"]:
            print(f"| {label} | {r['model']} | {r['type']} | {r['layers']} | {fmt(r['layer error median'])} % "
                  f"| {fmt(r['layer error p90'])} % | {fmt(r['kernel layer error median'])} % | {r['nodes on both']} "
                  f"| {fmt(r['predicted on both'])} | {fmt(r['measured on both'])} | {fmt(r['error on both'])} % "
                  f"| {fmt(r['kernel predicted on both'])} | {fmt(r['kernel measured on both'])} "
                  f"| {fmt(r['kernel error on both'])} % |")

    by200 = {r[col["bench"]]: r for r in rows200}
    both = [(by200[r[col["bench"]]], r) for r in rows100
            if r[col["bench"]] in by200 and ok(r) and ok(by200[r[col["bench"]]]) and not ours(r)]
    print(f"\n## 2. H100 / H200 on the {len(both)} library benchmarks ok on both\n")
    print("| H200 kernel time | benchmarks | medians | kernel clock |")
    print("|---|---:|---:|---:|")
    ratios = []
    for j in range(len(EDGES) + 1):
        lo = EDGES[j - 1] if j else 0
        hi = EDGES[j] if j < len(EDGES) else None
        sel = [(a, b) for a, b in both
               if lo <= float(a[col["kernel_us"]]) and (hi is None or float(a[col["kernel_us"]]) < hi)]
        rm = statistics.median(float(b[col["median_us"]]) / float(a[col["median_us"]]) for a, b in sel) if sel else 1.0
        rk = statistics.median(float(b[col["kernel_us"]]) / float(a[col["kernel_us"]]) for a, b in sel) if sel else 1.0
        ratios.append((rm, rk))
        span = f"{lo}-{hi} us" if hi else f"{lo} us and over"
        print(f"| {span} | {len(sel)} | {rm:.3f} | {rk:.3f} |")

    have = {r[col["bench"]] for r in rows100}
    device = rows100[0][col["device"]]
    est = list(rows100)
    scaled = 0
    for r in rows200:
        if r[col["bench"]] in have:
            continue
        r = list(r)
        r[col["device"]] = device
        if ok(r):
            rm, rk = ratios[bisect.bisect_right(EDGES, float(r[col["kernel_us"]]))]
            for c in ("min_us", "median_us", "mean_us", "p90_us", "max_us"):
                if r[col[c]]:
                    r[col[c]] = f"{float(r[col[c]]) * rm:.6g}"
            r[col["kernel_us"]] = f"{float(r[col['kernel_us']]) * rk:.6g}"
        est.append(r)
        scaled += 1
    d = os.path.join(tmp, "estimate")
    write(d, head, est, os.path.join(runs["h200"], "manifest.tsv"))
    bound = agg_json(agg, os.path.join(tmp, "estimate.db"), [d], ["--report", "bound"])["bound"]
    print(f"\n## 3. The H100's bound, estimated: its {len(rows100)} rows and {scaled} of the H200's scaled\n")
    print("| model | type | covered | fused (medians) | kernels fused |")
    print("|---|---|---:|---:|---:|")
    for r in bound:
        print(f"| {r['model']} | {r['type']} | {r['covered']} of {r['computing']} | {fmt(r['fused'])} "
              f"| {fmt(r['kernels fused'])} |")
    subprocess.run(["rm", "-rf", tmp], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
