"""A oneDNN benchmark file of a generated folder compiled into a driver (the file itself, its
main renamed) that runs the benchmark's own setup and its implementation once and writes plain
f32 copies of the primitive's arguments (src, wei, bias, dst): the oracles that hold a oneDNN
benchmark's operation to onnx's reference share it (deconv_check.py, conv_act_check.py)."""
import os
import re
import subprocess

import numpy as np

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
    """the dims of BZ_OP's tensor FIELD (src, wei, bias, dst)"""
    m = re.search(r"\.%s = \{(\d+), \{([^}]*)\}\}" % field, text)
    return [int(v) for v in m.group(2).split(",")][: int(m.group(1))]


def run(path, tmp):
    """runs the benchmark file PATH's setup and implementation once in a driver built in TMP;
    returns {name: array} of its arguments in plain f32, shaped as BZ_OP says (bias where the
    operation has one)"""
    text = open(path).read()
    impl = re.search(r'st\.impl = "([^"]*)";', text).group(1)
    drv = os.path.join(tmp, "driver.c")
    with open(drv, "w") as f:
        f.write(DRIVER % (os.path.abspath(path), impl))
    exe = os.path.join(tmp, "driver")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O1", drv, "-o", exe, "-ldnnl", "-lm"], check=True)
    subprocess.run([exe, tmp], check=True)
    out = {}
    for name in ("src", "wei", "bias", "dst"):
        p = os.path.join(tmp, name)
        if os.path.exists(p):
            shape = dims(text, name) if name != "bias" else [-1]
            out[name] = np.fromfile(p, dtype=np.float32).reshape(shape)
            os.unlink(p)
    if not re.search(r"\.has_bias = 1", text):
        out.pop("bias", None)
    return out
