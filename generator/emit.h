/* What the backends share to write their benchmarks into the folder (emit.c). */
#ifndef BENANZA_EMIT_H
#define BENANZA_EMIT_H

#include <jansson.h>

#include "pipeline.h"

struct emit_bench {
    char *file;         /* file stem: bench/<file>.c, bin/<file> */
    char *layer;        /* layer id */
    char *op;
    char *models;       /* comma-separated model names using the layer */
    const char *rule;   /* the ninja rule that builds it */
};

struct emit_ctx {
    const struct pipeline *p;
    const char *dir;
    const char *cuda_arch;  /* --cuda-arch: "sm_90" or "sm_80,sm_90" */
    int top_k;              /* --top-k: cuDNN's heuristic answers benchmarked, heurA_0 .. heurA_<K-1> */
    int lt_top_k;           /* --lt-top-k: cuBLASLt's, lt0 .. lt<K-1> */
    unsigned heur_modes;    /* --heur-modes: cuDNN's engine heuristics (bits: A, B, fallback) */
    unsigned cuda_types;    /* --types: the CUDA types written (bits CU_F32 .. CU_F8 of plan.h; 0 all) */
    bool gemm_default_only; /* --gemm-algos default */
    const char *only_layer; /* --repro: this layer's benchmarks only, written flat into dir */
    const char *cmdline;    /* gen's command line, for the files' headers */
    struct bz_diag *diag;
    struct emit_bench *v;
    int n, cap;
    int failed;         /* files that could not be written */
    /* layers without a benchmark in the backend being written, by op (emit_skip) */
    struct { const char *op; int n; } skipped[64];
    int n_skipped;
    /* emit_uses's last answer, for layer uses_layer */
    json_t *uses;
    int uses_layer;
};

/* FN(E, LI, ARG) for each layer the folder has (all, or --repro's) */
void emit_each_layer(struct emit_ctx *e, void (*fn)(struct emit_ctx *e, int li, void *arg), void *arg);
/* counts a layer of OP that the backend being written has no benchmark for */
void emit_skip(struct emit_ctx *e, const char *op);
/* the counted ops as "Gather 3, Pad 1" appended to B; the count starts again */
void emit_skipped_take(struct emit_ctx *e, struct bz_buf *b);

/* The text of an embedded file (templates/, runtime/), or NULL. */
const char *emit_embedded(const char *path, size_t *len);
/* The same text as a JSON string, made once and kept (borrowed: pack it with "O"), or NULL. */
json_t *emit_embedded_json(const char *path);
/* Sets the plain C kernel headers (runtime/plain_*.h) in DATA under their template names
 * (plain_ops, plain_index, ...), for the templates that inline them: the core and the
 * FAMILIES named (PL_FAM_* bits, pl_family of the op's kind), the others empty, each trimmed to
 * them (emit_trim_plain; KERNEL_ONLY: a CUDA kernel's host reference); and plain_families, the
 * lines that tell plain_ops.h which are there and, where KIND >= 0 (the one operation of a CPU
 * benchmark or a plain kernel's), its kind (PL_KIND: the other kinds' code is dropped at
 * compile time). */
void emit_plain_headers(struct json_t *data, unsigned families, int kind, bool kernel_only);
/* TEXT (a runtime/plain_*.h) with the conditionals gen can decide taken out: the families'
 * (#if PL_FAMILIES & ...) that FAMILIES has not, the CPU benchmark's (#ifndef PL_KERNEL_ONLY)
 * where KERNEL_ONLY; those it has, without their directives */
void emit_trim_plain(struct bz_buf *out, const char *text, size_t len, unsigned families, bool kernel_only);
/* Sets dnnl_ops and dnnl_bench in DATA, the oneDNN benchmark's runtime headers, trimmed to the
 * FAMILIES (BD_FAM_* bits, bd_family_bit of runtime/dnnl_ops.h: #if BD_FAMILIES & ... decided
 * as the plain headers' are) */
void emit_dnnl_runtime(struct json_t *data, unsigned families);
/* The families a CUDA library benchmark of FAMILY (enum cu_family) meets, as bits 1 << enum
 * cu_family: its own, and the one whose host reference checks it in --verify (an engine's
 * convolution and fused convolution, a layout change's copy) */
unsigned emit_cuda_meets(int family);
/* Sets cudnn_ops, cuda_ref and cublas_ops in DATA, the CUDA library benchmark's runtime headers,
 * each trimmed to the families FAMILY meets (their #if BC_FAMILIES & ..., with the BC_FAM_* bits
 * of runtime/cudnn_ops.h, decided as the plain headers' are) */
void emit_cuda_runtime(struct json_t *data, int family);
/* Appends to DEFINES the lines that say which (BC_FAMILY and BC_FAMILIES) */
void emit_cuda_defines(struct bz_buf *defines, int family);

/* Appends S[0..N) escaped for the inside of a C string literal (octal escapes: no trigraphs,
 * no hex run-on). */
void emit_escape_c(struct bz_buf *out, const char *s, size_t n);

/* Renders template PATH with DATA into DIR/REL atomically; 0 or -1 after a diagnostic. */
int emit_render(struct emit_ctx *e, const char *tpl_path, json_t *data, const char *rel);

void emit_add_bench(struct emit_ctx *e, const char *file, const struct layer *l, const char *rule);
/* renders template tpl with data (taken) to bench/<file><ext> and adds it to the build with
 * the ninja rule */
void emit_bench(struct emit_ctx *e, const struct layer *l, const char *file, const char *ext, const char *tpl,
                const char *rule, json_t *data);

/* Text safe inside a C comment and on one line: no "*" "/" pair, no control bytes. */
void emit_comment_text(struct bz_buf *b, const char *s);

/* "model@batch node[i] (Op 'name')" lines for a layer's uses (at most 6), as a new reference:
 * kept in E for the layer's next benchmark (a layer's files are written one after another). */
json_t *emit_uses(struct emit_ctx *e, int layer_index);

/* BODY (lines) as the definition of macro NAME: "#define NAME \" then each line indented */
void emit_macro(struct bz_buf *b, const char *name, const char *body);

/* PRE ".FIELD = {v0, v1, ...}" POST, or with NDIM ".FIELD = {n, {v0, ...}}": a member of the
 * designated initializers gen writes into benchmarks */
void emit_c_array(struct bz_buf *b, const char *pre, const char *field, bool ndim, const int64_t *v, int n,
                  const char *post);

/* DIR/REL with this content (an unchanged file keeps its time stamp, so that ninja rebuilds
 * only what changed); 0 or -1 after a diagnostic */
int emit_write(struct emit_ctx *e, const char *rel, const char *data, size_t len);

/* FN for every embedded file whose path starts with PREFIX ("runtime/agg/") */
void emit_each_embedded(const char *prefix, void (*fn)(const char *path, const char *data, size_t len, void *ud),
                        void *ud);

#endif
