#!/usr/bin/env python3
"""Oracle for the ConvTranspose benchmarks of a generated folder (CPU backend, f32). oneDNN
has no reference deconvolution, so a benchmark's --verify holds the implementation against a
plain C one of ours; this holds both the operation gen described to oneDNN and that plain C
against onnx's reference implementation (group by group: see reference()). Each benchmark file is compiled into a driver (the
file itself, its main renamed) that runs the benchmark's own setup and implementation once
and writes plain f32 copies of its source, weights, bias and output. The weights, in oneDNN's
[G, OC/G, IC/G, k...] order, are put back into ONNX's [IC, OC/G, k...] order, and onnx's
ConvTranspose with the attributes of the file's layer key, on the same source, weights and
bias, must give the same output within 1e-4 of its largest value.

usage: deconv_check.py FOLDER   (one line per benchmark; exit 1 on a mismatch or when none ran)"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from single_node import layer_key, run_node

DRIVER = r'''
#define main benanza_bench_main
#include "%s"
#undef main
static void put(const char *dir, const char *name, struct bd_state *b, dnnl_memory_t mem)
{
    const dnnl_memory_desc_t *md;
    dnnl_memory_t plain;
    float *data;
    dnnl_memory_get_memory_desc(mem, &md);
    if (bd_plain_copy(b->eng, b->stream, mem, md, &plain, &data) != dnnl_success)
        exit(3);
    size_t n = 1;
    for (int i = 0; i < md->ndims; i++)
        n *= (size_t)md->dims[i];
    char path[4096];
    snprintf(path, sizeof(path), "%%s/%%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, sizeof(float), n, f) != n || fclose(f))
        exit(2);
    dnnl_memory_destroy(plain);
}
int main(int argc, char **argv)
{
    static struct bd_state st;
    struct bh_opts o;
    struct bh_result r;
    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    st.op = &OP;
    st.impl = "%s";
    st.args = ARGS;
    st.nargs = (int)(sizeof(ARGS) / sizeof(ARGS[0]));
    if (argc != 2 || bd_setup(&st, &o, &r) != BH_OK)
        return 2;
    if (dnnl_primitive_execute(st.prim, st.stream, st.nexec, st.exec) != dnnl_success ||
        dnnl_stream_wait(st.stream) != dnnl_success)
        return 2;
    for (int i = 0; i < st.nargs; i++) {
        int a = ARGS[i].arg;
        const char *name = a == DNNL_ARG_SRC ? "src" : a == DNNL_ARG_WEIGHTS ? "wei" : a == DNNL_ARG_BIAS ? "bias" : "dst";
        put(argv[1], name, &st, st.mem[i]);
    }
    bd_teardown(&st);
    (void)benanza_bench_main;
    return 0;
}
'''


def dims(text, field):
    m = re.search(r"\.%s = \{(\d+), \{([^}]*)\}\}" % field, text)
    return [int(v) for v in m.group(2).split(",")][: int(m.group(1))]


def reference(attrs, x, w, b, groups):
    """onnx's ConvTranspose, one group at a time: onnx.reference (1.23) gets groups wrong
    (it slices the weights by output channels and adds the first group's bias to every
    group), while its ungrouped operator is right; the channels of group g are the input
    channels [g*IC/G, (g+1)*IC/G), the weight rows alike, and the outputs [g*OC/G, ...)."""
    attrs = dict(attrs, group=1)
    icg, ocg = x.shape[1] // groups, w.shape[1]
    outs = []
    for g in range(groups):
        feeds = {"x": np.ascontiguousarray(x[:, g * icg:(g + 1) * icg]), "w": np.ascontiguousarray(w[g * icg:(g + 1) * icg])}
        if b is not None:
            feeds["b"] = np.ascontiguousarray(b[g * ocg:(g + 1) * ocg])
        outs.append(run_node("ConvTranspose", attrs, feeds, opset=11)[0])
    return np.concatenate(outs, axis=1)


def check(path, tmp):
    text = open(path).read()
    impl = re.search(r'st\.impl = "([^"]*)";', text).group(1)
    key = layer_key(text)
    drv = os.path.join(tmp, "driver.c")
    with open(drv, "w") as f:
        f.write(DRIVER % (os.path.abspath(path), impl))
    exe = os.path.join(tmp, "driver")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-O1", drv, "-o", exe, "-ldnnl", "-lm"], check=True)
    subprocess.run([exe, tmp], check=True)
    load = lambda name, shape: np.fromfile(os.path.join(tmp, name), dtype=np.float32).reshape(shape)
    src, wei, dst = load("src", dims(text, "src")), load("wei", dims(text, "wei")), load("dst", dims(text, "dst"))
    nsp = src.ndim - 2
    if wei.ndim == src.ndim:  # [OC, IC, k...]: one group
        wei = wei[np.newaxis]
    g, ocg, icg = wei.shape[:3]
    w = np.swapaxes(wei, 1, 2).reshape((g * icg, ocg) + wei.shape[3:])
    bias = load("bias", [g * ocg]) if re.search(r"\.has_bias = 1", text) else None
    want = reference(key["attrs"], src, w, bias, g)
    for name in ("src", "wei", "bias", "dst"):
        if os.path.exists(os.path.join(tmp, name)):
            os.unlink(os.path.join(tmp, name))
    if want.shape != dst.shape:
        return "WRONG: onnx gives shape %s, the benchmark %s" % (list(want.shape), list(dst.shape)), False
    err = float(np.max(np.abs(dst.astype(np.float64) - want))) / max(float(np.max(np.abs(want))), 1e-6)
    return "%dD group %d max error %.3g" % (nsp, g, err), err <= 1e-4


def main():
    bad = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(sys.argv[1] + "/bench/*-f32-*.c")):
            text = open(path).read()
            if ".family = BD_DECONV," not in text:
                continue
            what, ok = check(path, tmp)
            bad += not ok
            checked += 1
            print("%s: %s%s" % (os.path.basename(path), what, "" if ok else " WRONG"))
    print("%d deconvolution benchmarks checked, %d wrong" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
