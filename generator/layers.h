/* Canonical layers: keys, readable names, deduplication across models and batch sizes. */
#ifndef BENANZA_LAYERS_H
#define BENANZA_LAYERS_H

#include <jansson.h>

#include "desc.h"
#include "ir.h"

/* What a top-level node is, for benchmarks and statistics. */
enum node_class {
    NODE_COMPUTE = 0,   /* a layer with a key */
    NODE_FREE,          /* computes nothing at inference: views, metadata, constants */
    NODE_UNSUPPORTED,   /* an operator we do not know (custom domain, ...) */
    NODE_UNRESOLVED,    /* a shape it needs is not known */
    NODE_CONTROL,       /* If/Loop/Scan: its branches are not benchmarked as one layer */
    NODE_CLASS_COUNT
};
const char *node_class_name(enum node_class c);

struct layer {
    char *key;          /* canonical JSON of op, normalised attributes, input/output types */
    char id[17];        /* 16 hex digits of a 64-bit hash of the key */
    char *name;         /* readable, e.g. conv2d_n1_c64_56x56_k64_3x3_s1_p1_d1_g1_f32 */
    char *op;           /* "Conv", or a fused pattern such as "Conv+Relu" */
    bool fused;         /* a fusion group's layer */
    int uses;           /* nodes (or groups) using it over all models and batches */
    int n_models;
    int *models;        /* indices of the runs using it */
    json_t *params;     /* the canonical object the key was made from (owned) */
    struct layer_desc *desc; /* the same, typed, as the backends read it (in the set's arena) */
    int calib;          /* gen --calibrate's layers (enum calib_kind, calib.h): no model's, no
                           manifest line; 0 for the models' layers */
    unsigned calib_backends; /* the backends (BACKEND_*) that benchmark a calibration layer */
};

struct fusion_group {
    int id;             /* unique within a run */
    const char *pattern;/* "conv_act", "conv_bn", "conv_bn_act", "gemm_bias", "gemm_bias_act",
                           "layernorm", "gelu", "gelu_tanh", "attention", ... (desc.c) */
    int layer;          /* index of the fused layer in the set, -1 if none */
    int n_nodes;
    int nodes[16];      /* top-level node indices, in data-flow order (an attention group with
                           grouped-query heads holds 16 at most) */
    /* parts of the group fused on their own, for the members' side of agg's min(fused,
     * members): a convolution's SiLU as the silu group it would be without the convolution,
     * the convolution with its batch norm and residual sum but not its activation */
    int n_parts;
    struct fusion_part {
        const char *pattern;
        int layer, n_nodes, nodes[8];
    } parts[2];
};

/* A 4-D activation whose layout a channels-last plan may have to change (relayout.c): made
 * by PRODUCER (-1: a graph input), read by READERS; neutral[k] when reader k is elementwise
 * (it runs in either layout, in the one its input has); OUTPUT when a graph output; the
 * Transpose layers that turn it NCHW -> NHWC and back. */
struct relayout {
    int producer;
    int n_readers;
    int *readers;
    bool *neutral;
    bool output;
    int to_nhwc, to_nchw;
};

/* One model at one batch size. */
struct model_run {
    char *name;         /* file name without folder and .onnx */
    const char *path;
    int64_t batch;      /* 0: as the model says */
    struct ir_model *m;
    int n_nodes;
    enum node_class *cls;   /* per top-level node */
    int *layer;         /* per node: layer index, or -1 */
    int *group;         /* per node: fusion group index in groups[], or -1 */
    char **why;         /* per node: for NODE_UNRESOLVED, the tensor that is not known */
    int n_groups;
    struct fusion_group *groups;
    int counts[NODE_CLASS_COUNT];
    int unique_layers;  /* distinct layers among this run's computing nodes */
    int body_layers;    /* computing nodes inside control-flow bodies with a layer (benchmarked,
                           not nodes of the run: how often a body runs is data) */
    int body_unresolved;/* and those whose shapes gen does not know */
    int n_relayouts;    /* found for backends with channels-last benchmarks (relayout.c) */
    struct relayout *relayouts;
};

struct layer_set {
    int n, cap;
    struct layer *v;
    size_t hash_cap;
    int *hash;          /* open addressing: layer index + 1, 0 empty */
    struct bz_arena arena; /* the layers' descriptions */
};

void layer_set_init(struct layer_set *s);
void layer_set_free(struct layer_set *s);

/* Classifies every top-level node of an inferred model, makes keys, dedupes them into the
 * set, and fills run (fusion_find then adds its fusion groups). run->m must have gone through
 * shape_infer. */
void layers_add_run(struct layer_set *s, struct model_run *run, int run_index);
void model_run_free(struct model_run *run);

/* Adds (or finds) the layer for PARAMS (taking ownership) and counts a use. */
int layer_set_intern(struct layer_set *s, json_t *params, const char *op, const char *name,
                     bool fused, int run_index);

/* Adds a layer that no model uses, with its own ID (gen --calibrate's, "calib-..."), from
 * PARAMS (taken); returns its index. */
int layer_set_add_fixed(struct layer_set *s, json_t *params, const char *id, const char *op, const char *name);

/* The dtype suffix of readable names: f32, f16, bf16, i64, ... */
const char *layer_dtype_suffix(int dtype);

/* Makes every layer's name unique: two layers with different keys never share one. */
void layers_unique_names(struct layer_set *s);

#endif
