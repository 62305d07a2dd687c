/* Reading an ONNX file (protobuf-c) and lowering it into the IR. */
#ifndef BENANZA_ONNX_LOAD_H
#define BENANZA_ONNX_LOAD_H

#include "ir.h"

enum onnx_load_status {
    ONNX_LOAD_OK = 0,
    ONNX_LOAD_EREAD,      /* cannot read the file (missing, directory, permissions, too big) */
    ONNX_LOAD_EEMPTY,     /* empty file */
    ONNX_LOAD_EPARSE,     /* not a protobuf ModelProto (truncated, random bytes, other format) */
    ONNX_LOAD_ENOTONNX,   /* parses, but is not an ONNX model (no graph, no IR version) */
    ONNX_LOAD_EINVALID,   /* an inconsistent model: dangling input, cycle, duplicate names, bad tensor */
    ONNX_LOAD_STATUS_COUNT
};
const char *onnx_load_strerror(enum onnx_load_status s);

/* protobuf's own hard limit for one message */
#define ONNX_LOAD_MAX_BYTES_DEFAULT ((size_t)2 * 1024 * 1024 * 1024 - 1)

struct onnx_load_opts {
    size_t max_bytes;  /* 0: ONNX_LOAD_MAX_BYTES_DEFAULT */
};

/* Loads PATH into a new model (freed with ir_model_free). On failure *out is
 * NULL and err holds one line (without the path) saying what is wrong. */
enum onnx_load_status onnx_load_file(const char *path, const struct onnx_load_opts *opts,
                                     struct ir_model **out, struct bz_buf *err);
enum onnx_load_status onnx_load_buffer(const void *data, size_t size, const char *path,
                                       struct ir_model **out, struct bz_buf *err);

#endif
