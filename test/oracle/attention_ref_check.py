"""Holds the fused attention kernels' host reference (bk_att_reference, runtime/cuda_kernels.cuh)
to numpy: reads the JSON lines test/attention_ref_check.cu prints (each case's description,
inputs and the reference's output) and recomputes softmax(Q K^T scale [+ mask]) V from the
description's strides. Each case must agree within the output type's rounding, and must stop
agreeing once one output element is moved by a few of those: a check that passes anything
proves nothing.

usage: attention_ref_check.py < cases.jsonl     (exit status 1 on a mismatch)
"""
import json
import sys

import numpy as np

F16, BF16 = 10, 16


def strided(buf, shape, st):
    return np.lib.stride_tricks.as_strided(buf, shape=shape, strides=tuple(8 * s for s in st))


def reference(c):
    b, h, sq, skv, d, dv = c["shape"]
    rep = c.get("rep", 1)  # query heads per K and V head: K and V have h / rep, each repeated
    q = strided(np.array(c["q"], dtype=np.float64), (b, h, sq, d), c["q_st"])
    k = np.repeat(strided(np.array(c["k"], dtype=np.float64), (b, h // rep, skv, d), c["k_st"]), rep, axis=1)
    v = np.repeat(strided(np.array(c["v"], dtype=np.float64), (b, h // rep, skv, dv), c["v_st"]), rep, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * c["scale"]
    if c["mask"]:
        m = strided(np.array(c["m"], dtype=np.float64), (b, h, sq, skv), c["m_st"])
        if c["mask"] == 1:
            s = s + m
        else:
            s = np.where((m != 0) == bool(c["fill_when"]), float(c["fill"]), s)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - np.max(s, axis=-1, keepdims=True))
        o = np.einsum("bhqk,bhkd->bhqd", e / np.sum(e, axis=-1, keepdims=True), v)
    out = np.zeros(b * h * sq * dv)
    strided(out, (b, h, sq, dv), c["o_st"])[...] = o
    return out


def worst(got, want):
    d = np.abs(got - want) / (1 + np.abs(want))
    both_nan = np.isnan(got) & np.isnan(want)
    d[both_nan] = 0
    d[np.isnan(d)] = np.inf
    return float(np.max(d))


def main():
    bad = 0
    for line in sys.stdin:
        c = json.loads(line)
        tol = {F16: 2 ** -10, BF16: 2 ** -7}.get(c["dtype"], 2 ** -22)
        want = reference(c)
        got = np.array(c["out"], dtype=np.float64)
        err = worst(got, want)
        moved = got.copy()
        i = int(np.argmax(np.isfinite(moved)))
        moved[i] += 4 * tol * (1 + abs(moved[i]))
        rejects = worst(moved, want) > tol
        ok = err <= tol and rejects
        print("%s %s: max error %.3g (tolerance %.3g), a moved element %s"
              % ("ok  " if ok else "FAIL", c["name"], err, tol, "rejected" if rejects else "NOT rejected"))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
