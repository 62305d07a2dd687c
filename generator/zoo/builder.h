/* A small builder of ONNX graphs (protobuf-c messages) for the built-in model zoo. */
#ifndef BENANZA_ZOO_BUILDER_H
#define BENANZA_ZOO_BUILDER_H

#include "base.h"

struct zb;

/* An attribute for zb_node: ZA_INTS("pads", 1, 1, 1, 1), ZA_INT("axis", 1), ... */
enum za_kind { ZA_KIND_INT, ZA_KIND_INTS, ZA_KIND_FLOAT, ZA_KIND_STRING, ZA_KIND_TENSOR_F, ZA_KIND_END };
struct za {
    enum za_kind kind;
    const char *name;
    int64_t i;
    const int64_t *ints;
    int n;
    float f;
    const char *s;
};
#define ZA_INT(nm, v) ((struct za){ZA_KIND_INT, nm, v, NULL, 0, 0, NULL})
#define ZA_FLOAT(nm, v) ((struct za){ZA_KIND_FLOAT, nm, 0, NULL, 0, v, NULL})
#define ZA_STR(nm, v) ((struct za){ZA_KIND_STRING, nm, 0, NULL, 0, 0, v})
#define ZA_INTS(nm, ...)                                                                            \
    ((struct za){ZA_KIND_INTS, nm, 0, (const int64_t[]){__VA_ARGS__},                               \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), 0, NULL})
/* a one-element float tensor attribute (ConstantOfShape's value) */
#define ZA_TENSOR_F(nm, v) ((struct za){ZA_KIND_TENSOR_F, nm, 0, NULL, 0, v, NULL})
#define ZA_END ((struct za){ZA_KIND_END, NULL, 0, NULL, 0, 0, NULL})

struct zb *zb_new(const char *graph_name, int64_t opset);
void zb_free(struct zb *b);

/* graph input of float type (or int64 when is_int) with the given dims; -1 = symbolic */
const char *zb_input(struct zb *b, const char *name, int dtype, int rank, const int64_t *dims,
                     const char *const *dim_params);
void zb_output(struct zb *b, const char *value, int dtype, int rank, const int64_t *dims);

/* A weight: float initializer stored externally (dims only). Learnable weights count as
 * parameters; buffers (BatchNorm running statistics) do not. */
const char *zb_weight(struct zb *b, const char *name, int rank, const int64_t *dims, bool learnable);
/* A small int64 constant kept inline (reshape targets, axes, indices) */
const char *zb_const_i64(struct zb *b, const char *name, int rank, const int64_t *dims, const int64_t *v);
/* A float scalar kept inline */
const char *zb_const_f32(struct zb *b, const char *name, float v);

/* A node with inputs (NULL-terminated array, "" for an omitted optional input) and
 * attributes (ZA_END-terminated); returns the name of its first output. The output
 * names are "<name>_out<k>". n_outputs outputs are made. */
const char *zb_node(struct zb *b, const char *op, const char *name, const char *const *inputs,
                    const struct za *attrs, int n_outputs);
#define ZB_IN(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ZB_ATTRS(...) ((const struct za[]){__VA_ARGS__, ZA_END})
#define ZB_NOATTR ((const struct za[]){ZA_END})
/* the k-th output name of a node made by zb_node */
const char *zb_out(struct zb *b, const char *node_output0, int k);

/* Unique names: "prefix.<n>" */
const char *zb_name(struct zb *b, const char *fmt, ...) BZ_PRINTF(2, 3);

int64_t zb_params(const struct zb *b);

/* Serialises the model. With data_file set, every weight refers to it as external data at
 * increasing 64-byte-aligned offsets and *data_bytes gets the file's size (the caller
 * makes it, sparse). With data_file NULL the weights have no payload at all (in memory,
 * for gen itself: it needs dims only). */
uint8_t *zb_serialize(struct zb *b, const char *producer, const char *doc, const char *data_file,
                      size_t *size, uint64_t *data_bytes);

#endif
