/* The built-in model zoo: gen --zoo NAME[:PARAM=V], gen --zoo NAME --write-onnx F. */
#ifndef BENANZA_ZOO_H
#define BENANZA_ZOO_H

#include "base.h"
#include "zoo/builder.h"

struct zoo_model {
    const char *name;
    const char *description;
    const char *param;          /* the one parameter it takes ("seq"), or NULL */
    int64_t param_default;
    int64_t published_params;   /* learnable parameters of the published model */
    struct zb *(*build)(int64_t param);
};

extern const struct zoo_model zoo_models[];

/* Parses "NAME[:PARAM=V]": the model and its parameter, or NULL with err set. */
const struct zoo_model *zoo_parse(const char *spec, int64_t *param, struct bz_buf *err);

/* The model as ONNX bytes with dims-only weights (no payload), for gen itself.
 * *params gets its learnable parameter count. The caller frees the bytes. */
uint8_t *zoo_build(const struct zoo_model *z, int64_t param, size_t *size, int64_t *params);

/* Writes PATH and PATH.data (the weights as external data in a sparse, zero-filled
 * file: real dims, no disk cost). Returns 0 or an errno value. */
int zoo_write_onnx(const struct zoo_model *z, int64_t param, const char *path, int64_t *params);

/* The file name a spec is written under in gen's output: "bert_base-seq128". */
void zoo_file_name(struct bz_buf *b, const struct zoo_model *z, int64_t param);

#endif
