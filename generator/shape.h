/* Static shape inference with constant folding of shape computations. */
#ifndef BENANZA_SHAPE_H
#define BENANZA_SHAPE_H

#include "ir.h"

/* Bindings may be scoped to one model: MODEL is the file's name without its folder and
 * without ".onnx"; NULL applies to every model. */
struct shape_dim_binding {
    const char *model;
    const char *name;   /* a dim_param symbol */
    int64_t value;
};

struct shape_input_shape {
    const char *model;
    const char *input;
    int rank;
    int64_t dims[16];
};

struct shape_opts {
    int64_t batch;      /* > 0: the batch of every data input; <= 0: as the model says */
    int n_bindings;
    const struct shape_dim_binding *bindings;  /* --dim [MODEL:]NAME=VALUE */
    int n_input_shapes;
    const struct shape_input_shape *input_shapes; /* --input-shape [MODEL:]INPUT=d0,d1,... */
};

/* Parses "[MODEL:]NAME=VALUE" / "[MODEL:]INPUT=d0,d1,..." (the strings are kept, not
 * copied); false on a malformed argument. */
bool shape_parse_binding(char *arg, struct shape_dim_binding *b);
bool shape_parse_input_shape(char *arg, struct shape_input_shape *s);

/* What inference could not do, for the report and for --strict. */
struct shape_unsupported {
    const char *domain;
    const char *op;
    int count;
    int first_node;     /* index of the first top-level node with it (or of the node holding it) */
};

struct shape_result {
    int n_values;           /* tensors in the main graph */
    int n_resolved;         /* with element type and every dim known */
    int n_unsupported_ops;  /* distinct (domain, op) we cannot infer */
    struct shape_unsupported *unsupported;
    int n_unsupported_nodes;
    int n_conflicts;        /* inferred shapes that contradict a declared one */
    int n_invalid;          /* nodes that break their operator's schema (errors, said) */
    int n_expanded;         /* nodes of other runtimes' fused operators written as ONNX ones */
    int n_expansion_nodes;  /* the ONNX nodes that replaced them */
    int n_not_expanded;     /* nodes whose expansion refused them (a warning each, said) */
};

/* Infers every value's type in place (value->type), folding known values into
 * value->val. Declared types are the starting point for graph inputs only; for
 * node outputs they are used where inference cannot say (unsupported ops), unless
 * the batch was changed. Problems are reported through diag as warnings located by
 * node; a node that breaks its operator's schema (ops/schema.c) is an error. The return
 * value is 0, or -1 when the model is not valid (res->n_invalid nodes) and must not be used. */
int shape_infer(struct ir_model *m, const struct shape_opts *o, struct bz_diag *diag,
                struct shape_result *res);

/* True when the type is a tensor with an element type and every dim known. */
bool shape_is_resolved(const struct ir_type *t);

/* Prints every tensor as "name<TAB>ELEM_TYPE<TAB>d0,d1,..." ('?' unknown dims). */
void shape_print(FILE *out, const struct ir_model *m);

#endif
