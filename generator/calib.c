/* gen --calibrate: the machine's ceilings as layers of no model (calib.h). */
#include "calib.h"

#include <string.h>

#include "backends.h"

/* The sizes: a GEMM large enough to run at the library's peak and a copy far beyond every
 * cache, yet quick where they run: 2048^3 is 17 GFLOP (0.1 s on two cores), 8192^3 1.1 TFLOP
 * (1.4 ms on an H100); the copies move 2 x 256 MiB (CPU) and 2 x 1 GiB (GPU). */
enum { CPU_GEMM = 2048, GPU_GEMM = 8192 };
#define CPU_COPY (1LL << 26)
#define GPU_COPY (1LL << 28)

struct calib_layer {
    const char *id, *op, *name;
    int kind;
    unsigned backend;
    long long size; /* GEMM: m = n = k; copy: float elements */
};

static const struct calib_layer calib_layers[] = {
    {"calib-cpu-gemm", "MatMul", "calib_gemm_2048x2048x2048", CALIB_GEMM, BACKEND_CPU, CPU_GEMM},
    {"calib-cpu-copy", "Copy", "calib_copy_256MiB", CALIB_COPY, BACKEND_CPU, CPU_COPY},
    {"calib-cpu-launch", "Launch", "calib_copy_4B", CALIB_LAUNCH, BACKEND_CPU, 1},
    {"calib-gpu-gemm", "MatMul", "calib_gemm_8192x8192x8192", CALIB_GEMM, BACKEND_CUDA, GPU_GEMM},
    {"calib-gpu-copy", "Copy", "calib_copy_1GiB", CALIB_COPY, BACKEND_CUDA, GPU_COPY},
    {"calib-gpu-launch", "Launch", "calib_empty_kernel", CALIB_LAUNCH, BACKEND_CUDA, 1},
};

static json_t *tensor(long long d0, long long d1, bool is_const)
{
    json_t *shape = d1 ? json_pack("[I,I]", d0, d1) : json_pack("[I]", d0);
    json_t *t = json_pack("{s:s,s:o}", "dtype", "FLOAT", "shape", shape);
    if (is_const)
        json_object_set_new(t, "const", json_true());
    return t;
}

void calib_add(struct layer_set *s, unsigned backends)
{
    for (size_t i = 0; i < BZ_ARRAY_LEN(calib_layers); i++) {
        const struct calib_layer *c = &calib_layers[i];
        if (!(backends & c->backend))
            continue;
        /* the key says what is measured; a GEMM's is a MatMul's, so its description is one */
        json_t *params;
        if (c->kind == CALIB_GEMM)
            params = json_pack("{s:s,s:s,s:s,s:{},s:[o,o],s:[o]}", "calibration", c->id, "op", "MatMul", "domain", "",
                               "attrs", "inputs", tensor(c->size, c->size, false), tensor(c->size, c->size, true),
                               "outputs", tensor(c->size, c->size, false));
        else
            params = json_pack("{s:s,s:s,s:s,s:{},s:[o],s:[o]}", "calibration", c->id, "op", "Identity", "domain", "",
                               "attrs", "inputs", tensor(c->size, 0, false), "outputs", tensor(c->size, 0, false));
        if (!params)
            bz_oom();
        int li = layer_set_add_fixed(s, params, c->id, c->op, c->name);
        s->v[li].calib = c->kind;
        s->v[li].calib_backends = c->backend;
    }
}

int calib_dnnl(const struct layer *l, struct cpu_plan *p)
{
    if (!(l->calib_backends & BACKEND_CPU))
        return -1;
    if (l->calib == CALIB_GEMM) {
        const struct op_plans *h = plan_hooks(l->desc);
        return h && h->dnnl ? h->dnnl(l->desc, 0, p) : -1;
    }
    if ((l->calib != CALIB_COPY && l->calib != CALIB_LAUNCH) || plan_dnnl_start(l->desc, p))
        return -1;
    /* a reorder to the same layout: oneDNN's parallel copy; of one element, what a primitive
     * costs to run at all (the CPU's launch floor: dispatch, the threads' fork and join) */
    p->op.family = BD_REORDER;
    p->op.perm[0] = 0;
    plan_arg(p, "DNNL_ARG_FROM", 0, 0);
    plan_arg(p, "DNNL_ARG_TO", 1, 0);
    return 0;
}

/* cuBLAS's own choice, without and with Tensor Cores: what a GEMM of this size reaches */
static const struct cu_algo calib_gemm_algos[] = {
    {"default", "CUBLAS_GEMM_DEFAULT", (1u << CU_F32) | (1u << CU_F16)},
    {"default_tensor_op", "CUBLAS_GEMM_DEFAULT_TENSOR_OP", (1u << CU_TF32) | (1u << CU_F16TC) | (1u << CU_BF16)},
};
static const struct cu_algo calib_copy_algos[] = {{"memcpy", "0", 0}};

int calib_cuda(const struct layer *l, struct cu_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (!(l->calib_backends & BACKEND_CUDA))
        return -1;
    if (l->calib == CALIB_GEMM) {
        const struct op_plans *h = plan_hooks(l->desc);
        if (!h || !h->cudnn || h->cudnn(l->desc, p))
            return -1;
        p->algos = calib_gemm_algos;
        p->nalgos = (int)BZ_ARRAY_LEN(calib_gemm_algos);
        p->gemv = false;
        return 0;
    }
    if (l->calib != CALIB_COPY || plan_cu_tensor(desc_in(l->desc, 0), &p->x))
        return -1;
    p->family = CU_COPY;
    p->what = "cudaMemcpyAsync (device to device)";
    p->y = p->x;
    p->types = 1u << CU_F32;
    p->algos = calib_copy_algos;
    p->nalgos = 1;
    p->elems = 2.0 * (double)plan_cu_count(&p->x); /* read and written */
    return 0;
}

int calib_kernel(const struct layer *l, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (!(l->calib_backends & BACKEND_CUDA) || l->calib != CALIB_LAUNCH)
        return -1;
    k->kind = CK_EMPTY;
    k->what = "an empty kernel (the launch floor)";
    k->pl.out = (struct pl_tensor){PL_FLOAT, 1, {1}};
    return 0;
}
