/* Operators on tensors of strings that the CPU backend benchmarks in plain C
 * (runtime/plain_string.h): StringNormalizer and StringSplit, whose output sizes depend on
 * the data (the stopwords removed; the most parts an element has), StringConcat and
 * RegexFullMatch (its pattern translated by generator/re2posix.c). Cast to
 * and from strings is an element-wise cast (elementwise.c). */
#include "ops.h"

/* StringNormalizer: [C] -> [C'] or [1, C] -> [1, C'], C' the elements that are not stopwords
 * (at least one: an empty string when none is left) */
static void infer_string_normalizer(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, IR_DTYPE_STRING);
        return;
    }
    if (x->rank < 1 || x->rank > 2) {
        op_fail(c, "StringNormalizer needs [C] or [1, C], not rank %d", x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_STRING, x->rank);
    if (x->rank == 2)
        d[0] = x->dims[0];
    d[x->rank - 1] = dim_unknown();
}

/* StringConcat: the inputs broadcast */
static void infer_string_concat(struct infer_ctx *c)
{
    static const int idx[] = {0, 1};
    op_broadcast(c, idx, 2, IR_DTYPE_STRING, 0);
}

/* StringSplit: X [...] -> Y [..., the most parts of an element], Z int64 [...] the counts */
static void infer_string_split(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, IR_DTYPE_STRING);
        op_out_dtype_only(c, 1, IR_DTYPE_INT64);
        return;
    }
    struct ir_dim *y = op_out(c, 0, IR_DTYPE_STRING, x->rank + 1);
    for (int k = 0; k < x->rank; k++)
        y[k] = x->dims[k];
    y[x->rank] = dim_unknown();
    struct ir_dim *z = op_out(c, 1, IR_DTYPE_INT64, x->rank);
    for (int k = 0; k < x->rank; k++)
        z[k] = x->dims[k];
}

const struct op_def ops_text[] = {
    {"StringNormalizer", infer_string_normalizer, OP_DATA_SIZED, NULL},
    {"StringConcat", infer_string_concat, 0, NULL},
    {"StringSplit", infer_string_split, OP_DATA_SIZED, NULL},
    {"RegexFullMatch", infer_bool_unary, 0, NULL}, /* a bool per element */
    {NULL, NULL, 0, NULL},
};
