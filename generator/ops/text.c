/* Operators on tensors of strings that the CPU backend benchmarks in plain C
 * (runtime/plain_string.h): StringNormalizer and StringSplit, whose output sizes depend on
 * the data (the stopwords removed; the most parts an element has), StringConcat and
 * RegexFullMatch (its pattern translated by generator/re2posix.c). Cast to
 * and from strings is an element-wise cast (elementwise.c). */
#include <string.h>

#include "../plan.h"
#include "../re2posix.h"
#include "ops.h"

/* StringNormalizer: [C] -> [C'] or [1, C] -> [1, C'], C' the elements that are not stopwords
 * (at least one: an empty string when none is left) */
static void infer_string_normalizer(struct infer_ctx *c)
{
    infer_rows(c, IR_DTYPE_STRING, dim_unknown(), "[C] or [1, C]");
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

/* ---- backends: plain C (runtime/plain_string.h) ---- */

int plan_regex(const struct layer_desc *d, struct rx_result *rx, char *why, size_t why_len)
{
    if (!desc_present(d, DA_pattern) || !desc_known(d, DA_pattern) || !d->a.pattern) {
        memset(rx, 0, sizeof(*rx));
        snprintf(why, why_len, "no pattern");
        return -1;
    }
    return rx_translate(d->a.pattern, d->a.len_pattern, rx, why, why_len);
}

/* Cast to or from strings (numbers of every type but bfloat16, which neither oracle takes;
 * from a string, not to bool: frameworks disagree on what text is true), StringNormalizer ([C] or
 * [1, C]; the output the largest it can be: every element kept), StringConcat (the inputs
 * broadcast), StringSplit (the output [..., 8]: the benchmark's texts have at most eight parts;
 * fewer with maxsplit) and RegexFullMatch (a pattern re2posix.c can translate) */
int plan_pl_string(const struct layer_desc *d, struct pl_op *op)
{
    const struct pl_tensor *x = &op->in[0];
    struct pl_str *st = &op->str;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i].dtype != PL_STRING && op->kind != PL_STR_CAST)
            return -1;
    switch (op->kind) {
    case PL_STR_CONCAT: {
        const struct pl_tensor *y = &op->out;
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < op->in[i].nd; k++) {
                int ko = k + y->nd - op->in[i].nd;
                if (op->in[i].nd > y->nd || (op->in[i].d[k] != y->d[ko] && op->in[i].d[k] != 1))
                    return -1;
            }
        return y->dtype == PL_STRING && y->nd <= 8 ? 0 : -1;
    }
    case PL_STR_REGEX: {
        struct rx_result rx;
        char why[160];
        int bad = plan_regex(d, &rx, why, sizeof(why));
        rx_free(&rx);
        return bad || op->out.dtype != PL_BOOL || !plan_pl_same(x, &op->out) ? -1 : 0;
    }
    case PL_STR_SPLIT:
        st->delim = d->a.delimiter && *d->a.delimiter ? d->a.delimiter : NULL;
        st->maxsplit = desc_present(d, DA_maxsplit) && desc_known(d, DA_maxsplit) ? d->a.maxsplit : -1;
        if (x->nd >= 8 || op->out.dtype != PL_STRING || (desc_present(d, DA_maxsplit) && st->maxsplit < 0))
            return -1;
        op->out = *x;
        op->out.dtype = PL_STRING;
        op->out.nd = x->nd + 1;
        op->out.d[x->nd] = st->maxsplit >= 0 && st->maxsplit < 7 ? st->maxsplit + 1 : 8;
        return 0;
    case PL_STR_CAST: {
        int other = x->dtype == PL_STRING ? op->out.dtype : x->dtype;
        return other != PL_STRING && other != PL_BFLOAT16 && !(other == PL_BOOL && x->dtype == PL_STRING) &&
                       plan_pl_same(x, &op->out)
                   ? 0
                   : -1;
    }
    default: {
        static const char *const actions[] = {"NONE", "LOWER", "UPPER"};
        st->case_change = -1;
        for (int j = 0; j < 3; j++)
            if (!strcmp(d->a.case_change_action, actions[j]))
                st->case_change = j;
        st->sensitive = d->a.is_case_sensitive != 0;
        st->nstop = d->a.stopwords.n;
        if (st->case_change < 0 || x->nd < 1 || x->nd > 2 || (x->nd == 2 && x->d[0] != 1) || op->out.nd != x->nd ||
            op->out.dtype != PL_STRING)
            return -1;
        op->out = *x;
        return 0;
    }
    }
}

static int string_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, d->def->ids.pl_kind, PL_IDENTITY, -1, op))
        return -1;
    return plan_pl_string(d, op);
}

/* a RegexFullMatch whose pattern is not benchmarked says why */
static int regex_why_not(const struct layer_desc *d, char *why, size_t why_len)
{
    struct rx_result rx;
    char reason[160];
    int bad = plan_regex(d, &rx, reason, sizeof(reason));
    rx_free(&rx);
    if (!bad)
        return -1;
    snprintf(why, why_len, "its pattern is not benchmarked: %s", reason);
    return 0;
}

PLAIN_PLANS(string_plans, string_plain, "plain C");
static const struct op_plans regex_plans = {NULL, string_plain, NULL, NULL, regex_why_not, 0,
    .how = {NULL, "plain C (RE2 as POSIX ERE)", NULL, NULL}};

static const struct op_attr normalizer_attrs[] = {ATTR_S(case_change_action, "NONE"), ATTR(is_case_sensitive, 0),
                                                  ATTR(stopwords, 0), ATTR_END};
static const struct op_attr split_attrs[] = {ATTR_S(delimiter, ""), ATTR(maxsplit, 0), ATTR_END};
static const struct op_attr regex_attrs[] = {ATTR_S(pattern, NULL), ATTR_END};

const struct op_def ops_text[] = {
    {"StringNormalizer", infer_string_normalizer, OP_DATA_SIZED, NULL, normalizer_attrs, &string_plans,
     {.pl_kind = PL_STR_NORMALIZE}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 10, 0)},
    {"StringConcat", infer_string_concat, 0, NULL, NULL, &string_plans, {.pl_kind = PL_STR_CONCAT}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 20, 0)},
    {"StringSplit", infer_string_split, OP_DATA_SIZED, NULL, split_attrs, &string_plans, {.pl_kind = PL_STR_SPLIT}, .schema = OP_SCHEMA(1, 1, 2, 2, 0x1, 20, 0)},
    {"RegexFullMatch", infer_bool_unary, 0, NULL, regex_attrs, &regex_plans, {.pl_kind = PL_STR_REGEX}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 20, 0)}, /* a bool per element */
    {0},
};
