#!/usr/bin/env python3
"""agg_synth.py MANIFEST ROWS OUT.csv: a results CSV of ROWS rows for the manifest's layers,
shaped like real runs (several algorithms x types x devices x repeated runs), for timing agg.
The times are random: this measures the aggregator, not a machine."""
import random
import sys

HEADER = ("schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,"
          "mean_us,p90_us,max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,"
          "sms,lib,host,time,note\n")


def main():
    manifest, rows, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    layers = []
    with open(manifest) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "layer":
                layers.append((p[1], p[3], p[4]))
    rnd = random.Random(1)
    devices = [("cpu", "AMD EPYC", "", "2", "oneDNN 2.6.3", 2), ("cuda", "NVIDIA H100 80GB HBM3", "9.0", "132", "cuDNN 9.19", 0)]
    types = [("f32", "default"), ("f16", "default"), ("bf16", "default"), ("f16", "tensor_op")]
    algos = ["jit_avx2", "gemm_jit", "ref_any", "wino", "algo0", "algo1", "algo2", "algo3"]
    n = 0
    run = 0
    with open(out, "w") as f:
        f.write(HEADER)
        while n < rows:
            stamp = "2026-11-%02dT%02d:%02d:%02dZ" % (1 + run // 86400 % 28, run // 3600 % 24, run // 60 % 60, run % 60)
            for lid, op, name in layers:
                for backend, dev, cc, sms, lib, threads in devices:
                    for dt, math in types:
                        for k, a in enumerate(algos):
                            if n >= rows:
                                break
                            med = rnd.uniform(1, 5000)
                            status = "ok" if rnd.random() < 0.8 else "unsupported"
                            note = "choice=heuristic" if k == 0 else ""
                            if status == "ok":
                                t = "20,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f" % (med * 0.9, med, med * 1.02, med * 1.1, med * 1.3, med * 0.05)
                            else:
                                t = "0,,,,,,"
                                note = "no implementation of this operation and type here"
                            f.write("1,%s-%s-%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,0,1000,1000,%d,9000,%s,%s,%s,%s,bench,%s,%s\n" % (
                                lid, dt, a + ("-" + math if math != "default" else ""), lid, name, op, backend, a, dt,
                                math, status, t, threads, dev, cc, sms, lib, stamp, note))
                            n += 1
            run += 1


if __name__ == "__main__":
    main()
