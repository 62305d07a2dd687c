"""Holds runtime/cuda_bench.h's float -> half / bfloat16 conversions (round to nearest even)
against numpy's float16 and ml_dtypes' bfloat16, over random finite floats of every magnitude
half can hold or overflow to, and the edge cases. Usage: half_check.py PROGRAM (test/cuda_convert.c
built); prints one line and exits 1 on any difference."""
import random
import subprocess
import sys

import ml_dtypes
import numpy as np

rng = random.Random(7)
vals = [0.0, -0.0, 1.0, -2.0, 0.1, 1 / 3, 65504.0, 65519.0, 65520.0, 70000.0, 2.0**-24, 2.0**-25,
        3 * 2.0**-26, 2.0**-14, 2.0**-15 * 1.5, 1e-8, 6.1e-5, -5.96e-8]
for _ in range(20000):
    e = rng.uniform(-30, 18)
    vals.append(rng.choice([-1, 1]) * 2.0**e * rng.uniform(1, 2))
f32 = np.array(vals, dtype=np.float32)
bits = f32.view(np.uint32)
out = subprocess.run([sys.argv[1]], input="\n".join("%08x" % b for b in bits), capture_output=True, text=True,
                     check=True).stdout.split("\n")
np.seterr(over='ignore')  # 70000 -> inf is the point
bad = 0
for b, line in zip(bits, out):
    got_bits, got_h, got_bf = line.split()
    f = np.array([b], dtype=np.uint32).view(np.float32)
    want_h = int(f.astype(np.float16).view(np.uint16)[0])
    want_bf = int(f.astype(ml_dtypes.bfloat16).view(np.uint16)[0])
    if int(got_h, 16) != want_h or int(got_bf, 16) != want_bf:
        if bad < 5:
            print("float %s: half %s (numpy %04x), bfloat16 %s (ml_dtypes %04x)" % (got_bits, got_h, want_h, got_bf, want_bf))
        bad += 1
print("half/bfloat16 conversions: %d values, %d differ from numpy/ml_dtypes" % (len(bits), bad))
sys.exit(1 if bad or len(out) < len(bits) else 0)
