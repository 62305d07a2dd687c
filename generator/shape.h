/* Static shape inference with constant folding of shape computations. */
#ifndef BENANZA_SHAPE_H
#define BENANZA_SHAPE_H

#include "ir.h"

struct shape_dim_binding {
    const char *name;   /* a dim_param symbol */
    int64_t value;
};

struct shape_opts {
    int64_t batch;      /* > 0: the leading dim of every data input; <= 0: as the model says */
    int n_bindings;
    const struct shape_dim_binding *bindings; /* --dim NAME=VALUE */
};

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
};

/* Infers every value's type in place (value->type), folding known values into
 * value->val. Declared types are the starting point for graph inputs only; for
 * node outputs they are used where inference cannot say (unsupported ops), unless
 * the batch was changed. Problems are reported through diag as warnings located by
 * node; the return value is 0, or -1 if the model could not be processed at all. */
int shape_infer(struct ir_model *m, const struct shape_opts *o, struct bz_diag *diag,
                struct shape_result *res);

/* True when the type is a tensor with an element type and every dim known. */
bool shape_is_resolved(const struct ir_type *t);

/* Prints every tensor as "name<TAB>ELEM_TYPE<TAB>d0,d1,..." ('?' unknown dims). */
void shape_print(FILE *out, const struct ir_model *m);

#endif
