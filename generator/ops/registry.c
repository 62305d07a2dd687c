/* The one table of operators: each family file contributes its array, looked up by name. */
#include <stdio.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

extern const struct op_def ops_elementwise[], ops_views[], ops_movement[], ops_index[], ops_random[], ops_select[],
    ops_conv[], ops_pool[], ops_norm[], ops_linalg[], ops_reduce[], ops_resize[], ops_rnn[], ops_control[], ops_msft[],
    ops_quant[], ops_signal[], ops_nn[], ops_sequence[], ops_training[], ops_text[], ops_functions[];

static const struct op_def *const op_families[] = {
    ops_elementwise, ops_views, ops_movement, ops_index, ops_random, ops_select, ops_conv, ops_pool, ops_norm,
    ops_linalg, ops_reduce, ops_resize, ops_rnn, ops_control, ops_quant, ops_signal, ops_nn, ops_sequence, ops_text,
    ops_functions,
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

/* "6" for one value, "1-9", or LO and OPEN ("13-": opsets to the newest; "1+": any number) */
static void span(char *b, size_t n, int lo, int hi, const char *open)
{
    if (open)
        snprintf(b, n, "%d%s", lo, open);
    else
        snprintf(b, n, lo == hi ? "%d" : "%d-%d", lo, hi);
}

static void print_op(const char *domain, const struct op_def *d, void *ud)
{
    FILE *out = ud;
    const struct op_schema *s = &d->schema;
    char ops[32], in[32], outs[32], req[100] = "";
    span(ops, sizeof(ops), s->since, s->until, s->until == 0 ? "-" : NULL);
    span(in, sizeof(in), s->min_in, s->max_in, s->max_in == OP_MANY ? "+" : NULL);
    span(outs, sizeof(outs), s->min_out, s->max_out, s->max_out == OP_MANY ? "+" : NULL);
    for (int i = 0; i < 32; i++)
        if (s->required >> i & 1u)
            snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%d", *req ? "," : "", i);
    const char *kind = d->flags & OP_FREE      ? "free"
                       : d->flags & OP_FOREIGN ? (d->expand ? "expanded" : "foreign")
                       : d->flags & OP_DATA_SIZED ? "data-sized"
                                                  : "compute";
    const char *how[4];
    plan_how(d, how);
    char cpu[512], cuda[512];
    snprintf(cpu, sizeof(cpu), "%s%s%s", how[0] ? how[0] : "", how[0] && how[1] ? "; " : "", how[1] ? how[1] : "");
    snprintf(cuda, sizeof(cuda), "%s%s%s", how[2] ? how[2] : "", how[2] && how[3] ? "; " : "", how[3] ? how[3] : "");
    if (d->expand) {
        snprintf(cpu, sizeof(cpu), "as the ONNX operators it fuses (`gen --graph`)");
        snprintf(cuda, sizeof(cuda), "%s", cpu);
    }
    fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", d->name, *domain ? domain : "ai.onnx", ops, in,
            *req ? req : "-", outs, kind, *cpu ? cpu : "-", *cuda ? cuda : "-");
}

void op_table_print(FILE *out)
{
    fprintf(out, "# benanza's operators\n\n"
                 "The operator table as `gen --ops` prints it: each operator gen understands, the opset versions of "
                 "its domain that define it (`13-`: from 13 to the newest), what a node must have (inputs, the "
                 "inputs every version requires, outputs, `1+` any number: the loosest over those versions; gen checks every node "
                 "against it), what gen makes of it (compute: a layer; free: computes nothing at inference; "
                 "data-sized: an output's size depends on the data; expanded: another runtime's fused operator, "
                 "written as the ONNX operators it fuses; foreign: another runtime's, shapes only) and how "
                 "each backend benchmarks its layers.\n\n"
                 "| op | domain | opsets | inputs | required | outputs | kind | CPU | CUDA |\n"
                 "|---|---|---|---|---|---|---|---|---|\n");
    op_table_each(print_op, out);
}

bool op_is_elementwise(const struct op_def *d)
{
    for (const struct op_def *e = ops_elementwise; d && e->name; e++)
        if (e == d)
            return true;
    return false;
}
