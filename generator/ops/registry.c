/* The one table of operators: each family file contributes its array, looked up by name. */
#include <string.h>

#include "ops.h"

extern const struct op_def ops_elementwise[], ops_views[], ops_movement[], ops_index[], ops_random[], ops_select[],
    ops_conv[], ops_pool[], ops_norm[], ops_linalg[], ops_reduce[], ops_resize[], ops_rnn[], ops_control[], ops_msft[],
    ops_quant[], ops_signal[], ops_nn[], ops_sequence[], ops_training[], ops_text[];

static const struct op_def *const op_families[] = {
    ops_elementwise, ops_views, ops_movement, ops_index, ops_random, ops_select, ops_conv, ops_pool, ops_norm,
    ops_linalg, ops_reduce, ops_resize, ops_rnn, ops_control, ops_quant, ops_signal, ops_nn, ops_sequence, ops_text,
};

const struct op_def *op_find(const char *domain, const char *op_type)
{
    if (domain && !strcmp(domain, "com.microsoft")) {
        for (const struct op_def *d = ops_msft; d->name; d++)
            if (strcmp(d->name, op_type) == 0)
                return d;
        return NULL;
    }
    if (domain && !strcmp(domain, "ai.onnx.preview.training")) {
        for (const struct op_def *d = ops_training; d->name; d++)
            if (strcmp(d->name, op_type) == 0)
                return d;
        return NULL;
    }
    if (!ir_domain_is_onnx(domain))
        return NULL; /* other custom domains are not ours to infer */
    for (size_t f = 0; f < BZ_ARRAY_LEN(op_families); f++)
        for (const struct op_def *d = op_families[f]; d->name; d++)
            if (strcmp(d->name, op_type) == 0)
                return d;
    return NULL;
}

void op_table_each(void (*fn)(const char *domain, const struct op_def *d, void *ud), void *ud)
{
    for (size_t f = 0; f < BZ_ARRAY_LEN(op_families); f++)
        for (const struct op_def *d = op_families[f]; d->name; d++)
            fn("", d, ud);
    for (const struct op_def *d = ops_msft; d->name; d++)
        fn("com.microsoft", d, ud);
    for (const struct op_def *d = ops_training; d->name; d++)
        fn("ai.onnx.preview.training", d, ud);
}
