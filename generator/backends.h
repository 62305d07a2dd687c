/* The backends: each plans every layer through its operator's hooks (plan.h) and renders the
 * plans as benchmark files (emit.h); and the CUDA toolkit's whereabouts. */
#ifndef BENANZA_BACKENDS_H
#define BENANZA_BACKENDS_H

#include "emit.h"

enum { BACKEND_CPU = 1, BACKEND_CUDA = 2 };

/* The CPU backend (oneDNN): one file per layer x implementation x data type. */
void emit_cpu(struct emit_ctx *e);

/* The CUDA backend (cuDNN, cuBLAS, kernels of ours): one file per layer x algorithm x type. */
void emit_cuda(struct emit_ctx *e);

/* --types: "f32,f16tc" as bits CU_F32 .. CU_F8 (plan.h) into *MASK; -1 if LIST names
 * anything else. */
int emit_cuda_type_mask(const char *list, unsigned *mask);

/* Whether a CUDA toolkit is here ($CUDA_HOME or /usr/local/cuda), for --backend auto. */
bool emit_cuda_found(void);

/* nvcc's -gencode flags for "sm_80,sm_90" (SASS for each, PTX of the newest) into B (may be
 * NULL: only check); -1 if ARCHS is not such a list. */
int emit_cuda_arch_flags(const char *archs, struct bz_buf *b);

/* $CUDA_HOME, or /usr/local/cuda */
const char *emit_cuda_home(void);

#endif
