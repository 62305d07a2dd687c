/* gen's model processor: models x batch sizes -> inferred shapes -> unique layers, manifest. */
#ifndef BENANZA_PIPELINE_H
#define BENANZA_PIPELINE_H

#include "layers.h"
#include "onnx_load.h"
#include "shape.h"

struct pipeline {
    int n_runs;
    struct model_run *runs;
    struct layer_set layers;
    int models_failed;          /* could not be loaded, or not valid (a node breaks its schema) */
    int unsupported_nodes;      /* over all runs */
    int unresolved_nodes;
};

/* Loads each model once per batch size (batches: n_batches values, 0 = as the model says),
 * infers shapes, classifies nodes, dedupes layers. Problems go to diag; the pipeline
 * keeps every model it could process. */
void pipeline_run(struct pipeline *p, char **models, int n_models, const int64_t *batches,
                  int n_batches, const struct shape_opts *so, const struct onnx_load_opts *lo,
                  struct bz_diag *diag, bool progress);
/* The activations a channels-last plan may transpose, and their Transposes, for every run
 * (for the backends with channels-last benchmarks: CUDA). */
void pipeline_relayouts(struct pipeline *p);
void pipeline_free(struct pipeline *p);

/* gen --layers: the table of unique layers and the per-run statistics. */
void pipeline_print_layers(FILE *out, const struct pipeline *p);

/* Writes DIR/manifest.tsv atomically (format in docs/formats.md); 0 or an errno value. */
int pipeline_write_manifest(const struct pipeline *p, const char *dir);

#endif
