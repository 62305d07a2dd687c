/* The benchmark folder: the backends' files, build.ninja, run_all, the manifest (folder.c). */
#ifndef BENANZA_FOLDER_H
#define BENANZA_FOLDER_H

#include "pipeline.h"

struct folder_opts {
    const char *dir;
    unsigned backends;      /* BACKEND_* bits (backends.h) */
    const char *cuda_arch;  /* --cuda-arch */
    const char *repro;      /* --repro LAYER: that layer's files only, flat in dir */
    const char *cmdline;    /* gen's command line, for the files' headers */
    bool progress;
    bool calibrate;         /* --calibrate: the machine's calibration benchmarks too (calib.h) */
    int top_k;              /* --top-k: a library heuristic's algorithms benchmarked (cuDNN's) */
    int lt_top_k;           /* --lt-top-k (--top-k's where not given): cuBLASLt's */
    unsigned heur_modes;    /* --heur-modes: cuDNN's engine heuristics (bits: A, B, fallback) */
    unsigned cuda_types;    /* --types: the CUDA types written (bits CU_F32 .. CU_F8 of plan.h; 0 all) */
    bool gemm_default_only; /* --gemm-algos default: cublasGemmEx's two defaults, not its 40 other values */
};

/* Writes the folder: manifest.tsv, every backend's benchmarks, build.ninja, run_all, runner and
 * aggregator sources, benchmarks.tsv, README.md (gpu_check where there are CUDA benchmarks).
 * Returns an exit status (BZ_EXIT_*). */
int folder_write(const struct pipeline *p, const struct folder_opts *o, struct bz_diag *diag);

/* --repro: the benchmark files of one layer, nothing else. Returns an exit status. */
int folder_repro(const struct pipeline *p, const struct folder_opts *o, struct bz_diag *diag);

#endif
