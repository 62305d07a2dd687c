/* The operator table and the helpers every operator file uses for inference and folding. */
#ifndef BENANZA_OPS_H
#define BENANZA_OPS_H

#include <jansson.h>

#include "ir.h"

struct infer_ctx {
    struct ir_model *m;
    struct ir_graph *g;
    struct ir_node *n;
    int64_t opset;      /* opset of the node's domain */
    struct bz_diag *diag;
    bool failed;
    /* -b: the batch the model was written for (0 when not concrete) and the one asked
     * for; both 0 when the batch is unchanged */
    int64_t batch_from, batch_to;
    /* infers a subgraph in place (If branches); set by the driver */
    int (*infer_graph)(struct infer_ctx *c, struct ir_graph *sub);
    void *driver;
};

typedef void (*op_infer_fn)(struct infer_ctx *c);

/* An expansion under way (ops/expand_api.c): the ONNX nodes that replace one node of another
 * runtime's fused operator. */
struct op_xp;
/* Builds C's node as ONNX nodes through X, its inputs inferred: 0, or 1 after op_xp_refuse
 * (before the first node is made) when the node is beyond the expansion. */
typedef int (*op_expand_fn)(struct infer_ctx *c, struct op_xp *x);

/* Canonicalisation for layer keys (generator/layers.c): fills ATTRS (a JSON object) with
 * the node's attributes normalised, ONNX defaults filled in, and appends the op-specific
 * part of the readable name to NAME (e.g. "conv2d_n1_c64_56x56_k64_3x3_s1_p1_d1_g1"). */
struct canon_ctx {
    const struct ir_model *m;
    const struct ir_node *n;
    int64_t opset;
    const struct op_def *def;   /* the node's operator */
};

typedef void (*op_canon_fn)(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name);

enum op_flags {
    OP_FREE = 1u << 0,  /* computes nothing at inference (views, metadata): no benchmark */
    OP_FOREIGN = 1u << 1, /* another runtime's operator: shapes inferred, not benchmarked */
    OP_DATA_SIZED = 1u << 2, /* an output's size depends on the data (NonZero, Compress, Unique,
                               NonMaxSuppression): a layer with those dims unknown (-1) */
    OP_WINDOW = 1u << 3,     /* input 0 is [N, C, spatial...] with at most 8 spatial dims */
};

/* The backends' own names for an operator, where its family's hooks read them from its table
 * line (0 / NULL: none): oneDNN's algorithm kind (eltwise, binary, reduction) with the alpha and
 * beta it takes and how its input is filled (1: positive values), runtime/plain_ops.h's kind
 * (PLAN_NO_PL: none) and function, a cuDNN mode's enum name, and what else the family's hooks
 * tell apart (their own bits). */
struct op_ids {
    int dnnl;
    float dnnl_alpha, dnnl_beta;
    int dnnl_fill;
    int pl_kind, pl_fn;
    const char *cudnn;
    int variant;
};

struct op_attr;   /* desc.h */
struct op_plans;  /* plan.h */

/* What a node of the operator must have (ops/schema.c checks it before any operator code reads
 * the node): input and output counts, the loosest over its ONNX versions (OP_MANY: any number),
 * the inputs every version requires (bit i: input i), and the opset versions of its domain that
 * define it (until 0: to the newest). */
struct op_schema {
    unsigned char min_in, max_in, min_out, max_out;
    unsigned required;
    unsigned char since, until;
};
enum { OP_MANY = 255 };
#define OP_SCHEMA(min_in, max_in, min_out, max_out, required, since, until) \
    {min_in, max_in, min_out, max_out, required, since, until}

struct op_def {
    const char *name;
    op_infer_fn infer;
    unsigned flags;
    op_canon_fn canon;  /* NULL: every attribute as given, name from the op and input shape */
    const struct op_attr *attrs;   /* what its layer description holds (desc.h), with defaults and
                                      the ranges the node check holds values to */
    const struct op_plans *plans;  /* how each backend benchmarks it (plan.h); NULL: none does */
    struct op_ids ids;
    struct op_schema schema;
    /* what else a node must hold, checked with the schema (Einsum's equation): 0, -1 with why
     * (not valid ONNX), 1 with why (valid, beyond gen) */
    int (*check)(const struct ir_node *n, struct bz_buf *why);
    /* another runtime's operator that is ONNX operators fused (OP_FOREIGN): how it is written
     * as them, so that every backend benchmarks it as what they are (ops/msft.c) */
    op_expand_fn expand;
};

/* The table (ops/registry.c): one entry per ONNX operator we understand. */
const struct op_def *op_find(const char *domain, const char *op_type);
/* an operator of the elementwise family (unary, binary with broadcast, Cast, Where, ...) */
bool op_is_elementwise(const struct op_def *d);
/* every entry, with its domain ("" for ONNX's) */
void op_table_each(void (*fn)(const char *domain, const struct op_def *d, void *ud), void *ud);
/* gen --ops: the table as Markdown (docs/ops.md) */
void op_table_print(FILE *out);

/* The schema check every node passes before its operator's code reads it (ops/schema.c):
 * input and output counts, attribute ranges. 0; -1 with why (the node is not valid ONNX);
 * 1 with why (valid, but beyond gen: its outputs stay unresolved). */
int op_check_node(const struct ir_node *n, struct bz_buf *why);
/* With the inputs' shapes known: -1 with why where an input cannot be a tensor (too many
 * elements), 1 with why where the node is valid but beyond gen (9 spatial dims), else 0. */
int op_check_shapes(const struct ir_node *n, struct bz_buf *why);
/* An operator's input and output counts (-1: any number) and required inputs (bit i: input i);
 * false when it has no schema here. */
bool op_schema_counts(const char *domain, const char *name, int *min_in, int *max_in, int *min_out, int *max_out,
                      unsigned *required);

/* ---- inputs ---- */
int op_nin(const struct infer_ctx *c);
const struct ir_value *op_in_value(const struct infer_ctx *c, int i);
/* the input's type when it is a tensor of known rank, else NULL */
const struct ir_type *op_in(const struct infer_ctx *c, int i);
/* op_in, for an output 0 of input i's element type: when the input's rank is unknown, output 0
 * gets that element type (rank unknown) and the result is NULL, for the caller to return */
const struct ir_type *op_in_known(struct infer_ctx *c, int i);
/* the input's element type, or 0 */
int op_in_dtype(const struct infer_ctx *c, int i);
const struct ir_tensor *op_in_val(const struct infer_ctx *c, int i);
/* an integer input's known values (any integer or bool type), NULL if not known */
const int64_t *op_in_ints(const struct infer_ctx *c, int i, int64_t *n);

/* ---- outputs ---- */
/* Sets output i to a tensor of dtype and rank; returns its dims (all unknown). */
struct ir_dim *op_out(struct infer_ctx *c, int i, int dtype, int rank);
void op_out_type(struct infer_ctx *c, int i, const struct ir_type *t);
/* output i: a tensor of dtype with these dims */
void op_out_dims(struct infer_ctx *c, int i, int dtype, const struct ir_dim *d, int rank);
void op_out_dtype_only(struct infer_ctx *c, int i, int dtype); /* rank unknown */
/* Output i is a value of kind (a sequence's or optional's elements of dtype), shape unknown. */
void op_out_kind_only(struct infer_ctx *c, int i, enum ir_type_kind kind, int dtype);
/* Sets output i to a known value (and its type). */
void op_out_val(struct infer_ctx *c, int i, struct ir_tensor *t);
/* Output i holds the known int64 values v with the given dims. */
void op_out_ints(struct infer_ctx *c, int i, const int64_t *v, int rank, const int64_t *dims);

/* In shape data an element is known (param NULL, any value, negatives included), a
 * symbol (param set) or unknown (SYM_UNKNOWN). */
#define SYM_UNKNOWN INT64_MIN
static inline bool sym_known(struct ir_dim d)
{
    return !d.param && d.value != SYM_UNKNOWN;
}
static inline struct ir_dim sym_unknown(void)
{
    struct ir_dim d = {SYM_UNKNOWN, NULL};
    return d;
}
/* a tensor dim as a shape-data element, and back */
static inline struct ir_dim sym_from_dim(struct ir_dim d)
{
    return d.value >= 0 || d.param ? d : sym_unknown();
}
static inline struct ir_dim dim_from_sym(struct ir_dim s)
{
    if (s.param)
        return s;
    struct ir_dim d = {s.value >= 0 ? s.value : -1, NULL};
    return d;
}

/* Integer data of input i (rank 0 or 1) as dims: known values, symbols or unknowns.
 * Returns the element count, or -1 when nothing is known. *rank gets 0 or 1. */
int op_in_sym(const struct infer_ctx *c, int i, const struct ir_dim **d, int *rank);
/* Output i is integer data of rank 0 or 1 with these elements (also a known value
 * when every element is known). */
void op_out_sym(struct infer_ctx *c, int i, int dtype, const struct ir_dim *d, int n, int rank);

/* ---- attributes ---- */
int64_t op_attr_i(const struct infer_ctx *c, const char *name, int64_t dflt);
float op_attr_f(const struct infer_ctx *c, const char *name, float dflt);
const char *op_attr_s(const struct infer_ctx *c, const char *name, const char *dflt);
/* ints attribute: count or -1 when absent */
int op_attr_ints(const struct infer_ctx *c, const char *name, const int64_t **v);

/* Reports that inference of this node cannot go on (warning, located). */
void op_fail(struct infer_ctx *c, const char *fmt, ...) BZ_PRINTF(2, 3);

/* ---- dims ---- */
static inline bool dim_known(struct ir_dim d)
{
    return d.value >= 0;
}
static inline struct ir_dim dim_of(int64_t v)
{
    struct ir_dim d = {v, NULL};
    return d;
}
static inline struct ir_dim dim_unknown(void)
{
    struct ir_dim d = {-1, NULL};
    return d;
}
bool dim_same(struct ir_dim a, struct ir_dim b);
/* a*b, a+b etc. when both known, else unknown */
struct ir_dim dim_mul(struct ir_dim a, struct ir_dim b);
/* normalises a possibly negative axis; -1 when out of range (after op_fail) */
int op_axis(struct infer_ctx *c, int64_t axis, int rank);
/* sets MARK[a] for each of the NA AXES (op_axis's rules); -1 (with the error) for one out of
 * range */
int op_mark_axes(struct infer_ctx *c, const int64_t *axes, int na, int rank, bool *mark);

/* Input 0 of a conv/pool: [N, C, spatial...] with 1 to 8 spatial dims. Returns it and
 * *nsp, or NULL after giving output 0 what is known (its type) or failing. */
const struct ir_type *op_spatial_input(struct infer_ctx *c, int *nsp);

/* numpy-style broadcast of the given inputs' shapes into output 0 with dtype */
bool op_broadcast(struct infer_ctx *c, const int *inputs, int n, int out_dtype, int out_index);

/* ---- tensors for folding ---- */
struct ir_tensor *op_tensor_new(struct infer_ctx *c, int dtype, int rank, const int64_t *dims);
/* element k of a kept tensor as a double / int64 (any numeric type) */
double tensor_get_f(const struct ir_tensor *t, int64_t k);
int64_t tensor_get_i(const struct ir_tensor *t, int64_t k);
void tensor_set_f(struct ir_tensor *t, int64_t k, double v);
bool dtype_is_float(int dtype);
bool dtype_is_int(int dtype);
/* values can be folded: kept, numeric, and small */
bool tensor_foldable(const struct ir_tensor *t);

/* ---- expansions (generator/ops/expand_api.c) ----
 * A node of another runtime's fused operator (com.microsoft Attention) is replaced, during
 * shape inference, by the ONNX nodes that compute the same: the driver calls the operator's
 * expand hook with the node's inputs inferred, the hook checks what it needs (op_xp_refuse when
 * it cannot) and then makes the nodes in data-flow order; each follows opset OP_XP_OPSET of the
 * ONNX domain, whatever the model imports. The node that makes the original's output 0 takes its
 * place in the graph (its index), the others go after the graph's last node, all named
 * "NAME/PART" and located at the original's index in messages. Values made are "NAME/PART" too;
 * constants become initializers. */
enum { OP_XP_OPSET = 20 };
/* the node's input / output I as the hook reads or writes it (NULL: omitted or absent) */
struct ir_value *op_xp_in(struct op_xp *x, int i);
struct ir_value *op_xp_out(struct op_xp *x, int i);
/* refuses the expansion: the reason (printf-style) goes in the warning; returns 1 */
int op_xp_refuse(struct op_xp *x, const char *fmt, ...) BZ_PRINTF(2, 3);
/* a node of OP with NIN inputs (NULL: omitted) and NOUT outputs: OUT[k] where the caller gives
 * one (an output of the original node), else a new value, stored in OUT[k] */
void op_xp_node(struct op_xp *x, const char *op, const char *part, int nin, struct ir_value *const *in, int nout,
                struct ir_value **out);
/* the same with one output: OUT (an original output) or, when NULL, a new value; returns it */
struct ir_value *op_xp_op(struct op_xp *x, const char *op, const char *part, int nin, struct ir_value *const *in,
                          struct ir_value *out);
#define OP_XP_IN(...) (int)(sizeof((struct ir_value *[]){__VA_ARGS__}) / sizeof(struct ir_value *)), \
    (struct ir_value *[]){__VA_ARGS__}
/* attributes of the node made last */
void op_xp_attr_i(struct op_xp *x, const char *name, int64_t v);
void op_xp_attr_f(struct op_xp *x, const char *name, float v);
void op_xp_attr_s(struct op_xp *x, const char *name, const char *v);
void op_xp_attr_ints(struct op_xp *x, const char *name, int n, const int64_t *v);
/* constants: a 1-D (RANK 1) or scalar (RANK 0, N 1) tensor of integers of DTYPE, and a scalar of a
 * float DTYPE (f32, f16, bf16, f64) */
struct ir_value *op_xp_ints(struct op_xp *x, const char *part, int dtype, int rank, int n, const int64_t *v);
struct ir_value *op_xp_scalar(struct op_xp *x, const char *part, int dtype, double v);
/* the node's input I when it is a tensor of rank RANK (any rank: -1) with every dim known, else
 * NULL; and whether DTYPE is a float type the expansions take (f32, f16, bf16) */
const struct ir_type *op_xp_concrete(struct infer_ctx *c, int i, int rank);
bool op_xp_float(int dtype);
/* the scaled dot-product attention both Attentions (ONNX's and com.microsoft's) are written as,
 * in the form gen's fusion takes as one attention group: Q, K, V as [B, heads, rows, d];
 * softmax(Q K^T x SCALE [+ MASK, additive]) V into OUT (an original output, or NULL for a new
 * value), as [B, heads, S, dv] where MERGED is 0, else with the heads merged back to
 * [B, S, MERGED] */
struct ir_value *op_xp_sdpa(struct op_xp *x, struct ir_value *q, struct ir_value *k, struct ir_value *v, int dtype,
                            double scale, struct ir_value *mask, int64_t merged, struct ir_value *out);
/* a value an earlier expansion of the same graph made under KEY (what several nodes share: one
 * attention mask), or NULL; and recording one */
struct ir_value *op_xp_memo(struct op_xp *x, const char *key);
void op_xp_memo_put(struct op_xp *x, const char *key, struct ir_value *v);

/* the driver's side (shape.c): what expansions of one graph share, and one expansion's course */
struct op_xp_memo;
struct op_xp *op_xp_begin(struct infer_ctx *c, struct op_xp_memo **memo);
/* the reason a refusing hook gave */
const char *op_xp_why(const struct op_xp *x);
/* puts the nodes made in the graph in place of the original (see above); *NEW gets their
 * indices in data-flow order (malloc'd, *N_NEW of them), for the driver to infer them */
void op_xp_commit(struct op_xp *x, int **new_nodes, int *n_new);
/* frees X (after op_xp_commit, or instead of it) */
void op_xp_end(struct op_xp *x);
void op_xp_memo_free(struct op_xp_memo *memo);

/* ---- canonicalisation helpers (generator/ops/canon_api.c) ---- */
/* a string of a model (attribute bytes: any bytes are valid ONNX) as a JSON string a key can
 * hold: valid UTF-8 as it is, every other byte as the text \xNN */
json_t *canon_json_string(const char *s, size_t n);
/* a number, or the string "inf", "-inf" or "nan" (JSON has none) */
json_t *canon_json_number(double v);
void canon_set_i(struct json_t *attrs, const char *name, int64_t v);
void canon_set_f(struct json_t *attrs, const char *name, double v);
void canon_set_s(struct json_t *attrs, const char *name, const char *v);
void canon_set_ints(struct json_t *attrs, const char *name, const int64_t *v, int n);
/* "_s2" when all values are equal, "_s2x1" otherwise */
void canon_name_list(struct bz_buf *name, const char *prefix, const int64_t *v, int n);
/* input i's type (shapes are known when a canonicaliser runs) */
const struct ir_type *canon_in(const struct canon_ctx *c, int i);
const struct ir_type *canon_out(const struct canon_ctx *c, int i);
/* input i's value when it is a constant gen kept (else NULL): constant inputs that change
 * what a layer computes go in its key as attributes, null when gen does not know them */
const struct ir_tensor *canon_const_input(const struct canon_ctx *c, int i);
/* scalar input i in attrs as NAME (integer or float): its value when gen knows it, else null;
 * an absent input gets *dflt, or stays out of attrs when dflt is NULL */
void canon_const_scalar(const struct canon_ctx *c, struct json_t *attrs, const char *name, int i, bool integer,
                        const double *dflt);
void canon_name_dims(struct bz_buf *name, const struct ir_type *t);
/* the op in lower case, then input 0's dims: "cumsum_1x128" */
void canon_name_op(const struct canon_ctx *c, struct bz_buf *name);
/* an attribute that defaults: float/int, set in attrs with the default filled in */
double canon_default_f(const struct canon_ctx *c, struct json_t *attrs, const char *name, double dflt);
int64_t canon_default_i(const struct canon_ctx *c, struct json_t *attrs, const char *name, int64_t dflt);
/* The canonicaliser of an operator whose key is its attributes with the defaults of its table
 * line filled in (scalars), named by the op and its input's dims */
void canon_attr_defaults(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name);
/* conv/pool windows: explicit pads from auto_pad (SAME_* split as ONNX does) */
void canon_window(const struct canon_ctx *c, struct json_t *attrs, const struct ir_type *x,
                  const int64_t *kernel, int nsp, int64_t *strides, int64_t *dil, int64_t *pads);
/* the same with the kernel from the kernel_shape attribute (1 where absent) into kernel */
void canon_pool_window(const struct canon_ctx *c, struct json_t *attrs, const struct ir_type *x, int64_t *kernel,
                       int64_t *strides, int64_t *dil, int64_t *pads);

/* shared shape and key helpers of some families (the quantized operators read their weight
 * or second operand at another input) */
void op_conv_shape(struct infer_ctx *c, int w_index, int dtype);   /* dtype 0: input 0's */
void op_matmul_shape(struct infer_ctx *c, int a_index, int b_index, int dtype);
void canon_conv_with(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name, int w_index,
                     const char *prefix);
void canon_matmul_with(const struct canon_ctx *c, struct bz_buf *name, int b_index, const char *prefix);

/* the state roles of a training optimizer: 1 (Adagrad's H, Momentum's V) or 2 (Adam's V, H) */
int op_optimizer_states(const char *op);

/* shared shape helpers of some families */
void infer_same_as_input(struct infer_ctx *c);   /* output 0 = input 0 */
void infer_shape_as_input(struct infer_ctx *c, int dtype); /* output 0: input 0's shape, of dtype */
void infer_unary_fold(struct infer_ctx *c);      /* same shape; folds known values */
/* output 0 for a row [N] or a batch of rows [B, N] (input 0): [M] or [B, M] of DTYPE, M being
 * LAST; SHAPES (the operator's names for the two) for the error on another rank */
void infer_rows(struct infer_ctx *c, int dtype, struct ir_dim last, const char *shapes);
void infer_bool_unary(struct infer_ctx *c);      /* bool, same shape */
void infer_like_with_dtype(struct infer_ctx *c); /* input 0's shape, the dtype attribute's type */

#endif
