/* gen --calibrate: benchmarks of the machine rather than of a model's layers, whose rows give
 * agg its measured ceilings (the roofline and predict reports): the compute peak per type (a
 * large GEMM), the memory bandwidth (a large copy, bytes read and written) and the launch
 * floor (GPUs: an empty kernel, launches back to back; CPUs: a oneDNN copy of one element). They are layers of no model, with
 * fixed ids ("calib-cpu-gemm", ...), benchmarked by the backends like any layer. */
#ifndef BENANZA_CALIB_H
#define BENANZA_CALIB_H

#include "layers.h"
#include "plan.h"

enum calib_kind { CALIB_NONE, CALIB_GEMM, CALIB_COPY, CALIB_LAUNCH };

/* Adds the calibration layers of BACKENDS (BACKEND_* bits) to the set. */
void calib_add(struct layer_set *s, unsigned backends);

/* The oneDNN plan of a CPU calibration layer: 0, or -1 when it is not one of the CPU's.
 * Only oneDNN's own first choice is benchmarked ("any"): the ceiling, not a survey. */
int calib_dnnl(const struct layer *l, struct cpu_plan *p);
/* The CUDA plan of a GPU calibration layer (cuBLAS's default GEMM algorithms in every type; a
 * device-to-device copy): 0, or -1 (the launch floor is a kernel: calib_kernel). */
int calib_cuda(const struct layer *l, struct cu_plan *p);
int calib_kernel(const struct layer *l, struct cu_kernel *k);

#endif
