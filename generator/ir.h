/* The project's own model IR: what the ONNX loader produces and every later pass reads. */
#ifndef BENANZA_IR_H
#define BENANZA_IR_H

#include "base.h"

/* Element types, numbered as ONNX's TensorProto.DataType so values pass through. */
enum ir_dtype {
    IR_DTYPE_UNDEFINED = 0,
    IR_DTYPE_FLOAT = 1,
    IR_DTYPE_UINT8 = 2,
    IR_DTYPE_INT8 = 3,
    IR_DTYPE_UINT16 = 4,
    IR_DTYPE_INT16 = 5,
    IR_DTYPE_INT32 = 6,
    IR_DTYPE_INT64 = 7,
    IR_DTYPE_STRING = 8,
    IR_DTYPE_BOOL = 9,
    IR_DTYPE_FLOAT16 = 10,
    IR_DTYPE_DOUBLE = 11,
    IR_DTYPE_UINT32 = 12,
    IR_DTYPE_UINT64 = 13,
    IR_DTYPE_COMPLEX64 = 14,
    IR_DTYPE_COMPLEX128 = 15,
    IR_DTYPE_BFLOAT16 = 16,
    IR_DTYPE_FLOAT8E4M3FN = 17,
    IR_DTYPE_FLOAT8E4M3FNUZ = 18,
    IR_DTYPE_FLOAT8E5M2 = 19,
    IR_DTYPE_FLOAT8E5M2FNUZ = 20,
    IR_DTYPE_UINT4 = 21,
    IR_DTYPE_INT4 = 22,
    IR_DTYPE_FLOAT4E2M1 = 23,
    IR_DTYPE_FLOAT8E8M0 = 24,
    IR_DTYPE_UINT2 = 25,
    IR_DTYPE_INT2 = 26,
    IR_DTYPE_FLOAT6E2M3 = 27,
    IR_DTYPE_FLOAT6E3M2 = 28,
    IR_DTYPE_COUNT
};

/* ONNX name ("FLOAT", "INT64", ...) or NULL for a value outside the table. */
const char *ir_dtype_name(int dtype);
/* Size of one element in bits (4 for INT4, 0 for STRING/UNDEFINED). */
int ir_dtype_bits(int dtype);

/* A dimension: a known value, a named symbol (dim_param) or unknown. */
struct ir_dim {
    int64_t value;     /* >= 0 when known, -1 otherwise */
    const char *param; /* symbol name, or NULL */
};

/* What a value is known to be: a tensor of a type and shape, or some other
 * ONNX type (sequence, map, optional, sparse tensor) kept as a kind only. */
enum ir_type_kind {
    IR_TYPE_NONE = 0, /* no type information recorded */
    IR_TYPE_TENSOR,
    IR_TYPE_SPARSE_TENSOR,
    IR_TYPE_SEQUENCE,
    IR_TYPE_MAP,
    IR_TYPE_OPTIONAL,
    IR_TYPE_KIND_COUNT
};
const char *ir_type_kind_name(enum ir_type_kind k);

struct ir_type {
    enum ir_type_kind kind;
    int dtype;             /* element type (of the tensor, or of the sequence's tensors) */
    int rank;              /* -1 when the shape is unknown */
    struct ir_dim *dims;   /* rank entries */
};

enum ir_data_location { IR_DATA_NONE = 0, IR_DATA_INLINE, IR_DATA_EXTERNAL };

/* A constant tensor: an initializer, a Constant node's value or a tensor attribute.
 * The generator needs dims; values are kept only for small tensors (shape
 * arithmetic), large payloads are dropped after their size is checked. */
struct ir_tensor {
    const char *name;
    int dtype;
    int rank;
    int64_t *dims;
    int64_t nelem;           /* product of dims (1 for a scalar) */
    enum ir_data_location location;
    /* IR_DATA_INLINE: values when kept (nelem <= IR_TENSOR_KEEP_MAX), as a
     * packed little-endian array of dtype (int64 for all integer types
     * stored by ONNX in int64/int32 fields is *not* widened: data is as dtype). */
    const void *data;
    size_t data_bytes;
    bool data_kept;
    /* IR_DATA_EXTERNAL: the reference, recorded but never read */
    const char *ext_location;
    int64_t ext_offset;  /* -1 when absent */
    int64_t ext_length;  /* -1 when absent */
    const char *ext_checksum;
};
enum { IR_TENSOR_KEEP_MAX = 4096 };

enum ir_attr_type {
    IR_ATTR_UNDEFINED = 0,
    IR_ATTR_FLOAT = 1,
    IR_ATTR_INT = 2,
    IR_ATTR_STRING = 3,
    IR_ATTR_TENSOR = 4,
    IR_ATTR_GRAPH = 5,
    IR_ATTR_FLOATS = 6,
    IR_ATTR_INTS = 7,
    IR_ATTR_STRINGS = 8,
    IR_ATTR_TENSORS = 9,
    IR_ATTR_GRAPHS = 10,
    IR_ATTR_SPARSE_TENSOR = 11,
    IR_ATTR_SPARSE_TENSORS = 12,
    IR_ATTR_TYPE_PROTO = 13,
    IR_ATTR_TYPE_PROTOS = 14,
    IR_ATTR_TYPE_COUNT
};
const char *ir_attr_type_name(int t);

struct ir_graph;

/* A sparse tensor keeps its dense dims and its values/indices tensors. */
struct ir_sparse_tensor {
    int rank;
    int64_t *dims;
    struct ir_tensor *values;
    struct ir_tensor *indices;
};

struct ir_string {
    const char *data; /* NUL-terminated copy; may contain NULs itself */
    size_t len;
};

struct ir_attr {
    const char *name;
    enum ir_attr_type type;
    const char *ref_attr_name; /* inside functions: refers to the caller's attribute */
    size_t count;              /* number of elements for list types */
    union {
        float f;
        int64_t i;
        struct ir_string s;
        struct ir_tensor *t;
        struct ir_graph *g;
        struct ir_sparse_tensor *sparse;
        struct ir_type *tp;
        float *floats;
        int64_t *ints;
        struct ir_string *strings;
        struct ir_tensor **tensors;
        struct ir_graph **graphs;
        struct ir_sparse_tensor **sparses;
        struct ir_type **tps;
    } u;
};

/* A named value in a graph: graph input, initializer, or a node output. */
struct ir_value {
    const char *name;
    struct ir_type type;
    struct ir_tensor *init;     /* initializer or Constant value, or NULL */
    /* The value itself when it is known before run time: an initializer (not an
     * overridable input), a Constant, or folded by shape inference. NULL otherwise. */
    struct ir_tensor *val;
    /* Shape data (onnx's "data propagation"): the elements of a small integer tensor of
     * rank 0 or 1 as dims, where some may be symbols or unknown; sym_len < 0 when absent. */
    struct ir_dim *sym;
    int sym_len;
    struct ir_type decl;        /* the type the file declared (value_info/outputs), kept for checks */
    int producer;               /* index of the producing node in its graph, -1 if none */
    struct ir_graph *graph;     /* graph in whose scope the value is defined */
    bool is_input;
    bool is_output;
    bool has_value_info;        /* typed by a graph input/output or value_info entry */
    bool is_const;              /* known ahead of run time (weights, constant chains): layers.c */
};

struct ir_node {
    int index;                  /* position in the graph's node list as stored in the file */
    const char *name;
    const char *op_type;
    const char *domain;         /* "" for the default ONNX domain */
    const char *doc;
    /* the version of its domain's opset it follows; 0: the model's. Set on the nodes that an
     * expansion of another runtime's operator made (ops/expand_api.c), which follow their own. */
    int64_t opset;
    int n_inputs;
    struct ir_value **inputs;   /* NULL entries: omitted optional inputs */
    int n_outputs;
    struct ir_value **outputs;  /* NULL entries: omitted optional outputs */
    int n_attrs;
    struct ir_attr *attrs;
    /* Values from enclosing scopes read by this node's subgraphs (If/Loop/Scan):
     * real dependencies of the node for ordering and the DAG. */
    int n_captures;
    struct ir_value **captures;
};

struct ir_graph {
    const char *name;
    const char *doc;
    struct ir_graph *parent;    /* enclosing graph for subgraphs, else NULL */
    const struct ir_node *owner; /* the node whose attribute holds this subgraph */
    int n_nodes;
    struct ir_node *nodes;
    int *topo;                  /* node indices in a topological order */
    int n_inputs;
    struct ir_value **inputs;
    int n_outputs;
    struct ir_value **outputs;
    int n_initializers;
    struct ir_value **initializers;
    int n_values;               /* every value defined in this scope */
    struct ir_value **values;
    /* open-addressing hash table over values by name */
    size_t hash_cap;
    struct ir_value **hash;
    int n_sparse_initializers;
};

struct ir_opset {
    const char *domain;         /* "" or "ai.onnx" for the default domain */
    int64_t version;
};

struct ir_prop {
    const char *key;
    const char *value;
};

struct ir_function {
    const char *name;
    const char *domain;
    int n_nodes;
    int n_inputs;
    int n_outputs;
};

struct ir_model {
    struct bz_arena arena;
    const char *path;
    int64_t ir_version;
    const char *producer_name;
    const char *producer_version;
    const char *domain;
    int64_t model_version;
    const char *doc;
    int n_opsets;
    struct ir_opset *opsets;
    int n_props;
    struct ir_prop *props;
    int n_functions;
    struct ir_function *functions;
    struct ir_graph *graph;
    size_t file_bytes;
};

/* Opset version in effect for a domain ("" and "ai.onnx" are the same), or 0. */
int64_t ir_model_opset(const struct ir_model *m, const char *domain);
/* the opset version a node follows: its own where it has one, else the model's for its domain */
int64_t ir_node_opset(const struct ir_model *m, const struct ir_node *n);
/* Sorts G's nodes topologically into g->topo (Kahn's algorithm with a min-heap: a sorted graph
 * keeps its order). Returns the number of nodes placed: fewer than g->n_nodes when there is a
 * cycle, and then *LEFT (when not NULL) gets each node's count of unplaced inputs (malloc'd). */
int ir_graph_sort(struct ir_model *m, struct ir_graph *g, int **left);
bool ir_domain_is_onnx(const char *domain);

/* Value lookup in a graph's own scope, then in enclosing scopes. */
struct ir_value *ir_graph_find(const struct ir_graph *g, const char *name);
struct ir_value *ir_graph_find_local(const struct ir_graph *g, const char *name);
/* Inserts a new value; returns NULL when the name is already defined in this scope. */
struct ir_value *ir_graph_add_value(struct ir_model *m, struct ir_graph *g, const char *name);

const struct ir_attr *ir_node_attr(const struct ir_node *n, const char *name);
int64_t ir_node_attr_int(const struct ir_node *n, const char *name, int64_t dflt);
float ir_node_attr_float(const struct ir_node *n, const char *name, float dflt);

void ir_model_free(struct ir_model *m);

/* Formats the type of a value as "FLOAT[1,3,224,224]" ("?" or the symbol for
 * unknown dims, "FLOAT[?]" of unknown rank). */
void ir_type_format(struct bz_buf *b, const struct ir_type *t);

/* "node[42] (Conv 'conv1')", the location of a node in messages. */
void ir_node_where(struct bz_buf *b, const struct ir_node *n);

#endif
