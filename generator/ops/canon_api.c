/* The helpers operators' canonicalisers use (declared in ops/ops.h): attributes into a layer
 * key with their defaults filled in, the key's readable name, windows with explicit pads. */
#include <math.h>
#include <string.h>

#include "../desc.h"
#include "ops.h"

static void name_dims(struct bz_buf *b, const struct ir_type *t)
{
    if (t->rank == 0)
        bz_buf_puts(b, "scalar");
    for (int k = 0; k < t->rank; k++)
        bz_buf_printf(b, "%s%lld", k ? "x" : "", (long long)t->dims[k].value);
}

/* ---- canonicalisation helpers for op files ---- */

/* Constant inputs that change what a layer computes are put in its key as attributes: a
 * value gen does not know is null there, and the CPU backend then refuses the layer rather
 * than guess it. */
const struct ir_tensor *canon_const_input(const struct canon_ctx *c, int i)
{
    const struct ir_value *v = i < c->n->n_inputs ? c->n->inputs[i] : NULL;
    return v && v->val && v->val->data_kept && v->val->nelem >= 1 ? v->val : NULL;
}

void canon_const_scalar(const struct canon_ctx *c, struct json_t *attrs, const char *name, int i, bool integer,
                        const double *dflt)
{
    if (i >= c->n->n_inputs || !c->n->inputs[i]) {
        if (dflt && integer)
            canon_set_i(attrs, name, (int64_t)*dflt);
        else if (dflt)
            canon_set_f(attrs, name, *dflt);
        return;
    }
    const struct ir_tensor *t = canon_const_input(c, i);
    if (!t || t->nelem != 1)
        json_object_set_new(attrs, name, json_null());
    else if (integer)
        canon_set_i(attrs, name, tensor_get_i(t, 0));
    else
        canon_set_f(attrs, name, tensor_get_f(t, 0));
}

void canon_name_op(const struct canon_ctx *c, struct bz_buf *name)
{
    for (const char *p = c->n->op_type; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, canon_in(c, 0));
}

void canon_set_i(json_t *attrs, const char *name, int64_t v)
{
    json_object_set_new(attrs, name, json_integer(v));
}

void canon_set_f(json_t *attrs, const char *name, double v)
{
    /* through float: attributes are floats, and the key must not depend on how they were written */
    json_object_set_new(attrs, name, json_real((double)(float)v));
}

/* the length of the valid UTF-8 sequence at s (at most n bytes), 0 where none starts */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    /* overlong three-byte forms, surrogates, and beyond U+10FFFF */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

static bool utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* A number, or the string "inf", "-inf" or "nan" (JSON has none) */
json_t *canon_json_number(double v)
{
    return isfinite(v) ? json_real(v) : json_string(v != v ? "nan" : v > 0 ? "inf" : "-inf");
}

/* A string from a model (attribute bytes: any bytes are valid ONNX) as a JSON string that a
 * key can hold: valid UTF-8 as it is, every other byte as the text \xNN */
json_t *canon_json_string(const char *s, size_t n)
{
    if (utf8_valid(s, n))
        return json_stringn(s, n);
    struct bz_buf b;
    bz_buf_init(&b);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (k) {
            bz_buf_append(&b, s + i, k);
            i += k;
        } else {
            bz_buf_printf(&b, "\\x%02x", (unsigned char)s[i]);
            i++;
        }
    }
    json_t *j = json_stringn(b.data ? b.data : "", b.len);
    bz_buf_free(&b);
    return j;
}

void canon_set_s(json_t *attrs, const char *name, const char *v)
{
    json_object_set_new(attrs, name, canon_json_string(v, strlen(v)));
}

void canon_set_ints(json_t *attrs, const char *name, const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_integer(v[k]));
    json_object_set_new(attrs, name, a);
}

void canon_name_list(struct bz_buf *name, const char *prefix, const int64_t *v, int n)
{
    bool same = true;
    for (int k = 1; k < n; k++)
        same = same && v[k] == v[0];
    bz_buf_printf(name, "_%s%s", prefix, n ? "" : "none");
    for (int k = 0; k < (n && same ? 1 : n); k++)
        bz_buf_printf(name, "%s%lld", k ? "x" : "", (long long)v[k]);
}

const struct ir_type *canon_in(const struct canon_ctx *c, int i)
{
    return i < c->n->n_inputs && c->n->inputs[i] ? &c->n->inputs[i]->type : NULL;
}

const struct ir_type *canon_out(const struct canon_ctx *c, int i)
{
    return i < c->n->n_outputs && c->n->outputs[i] ? &c->n->outputs[i]->type : NULL;
}

void canon_name_dims(struct bz_buf *name, const struct ir_type *t)
{
    /* an omitted input (canon_in's NULL: an empty name where a variadic operator's inputs are
     * all required is not refused by its schema's counts) */
    if (!t)
        bz_buf_puts(name, "none");
    else
        name_dims(name, t);
}

double canon_default_f(const struct canon_ctx *c, json_t *attrs, const char *name, double dflt)
{
    double v = ir_node_attr_float(c->n, name, (float)dflt);
    canon_set_f(attrs, name, v);
    return v;
}

int64_t canon_default_i(const struct canon_ctx *c, json_t *attrs, const char *name, int64_t dflt)
{
    int64_t v = ir_node_attr_int(c->n, name, dflt);
    canon_set_i(attrs, name, v);
    return v;
}

void canon_window(const struct canon_ctx *c, json_t *attrs, const struct ir_type *x,
                  const int64_t *kernel, int nsp, int64_t *strides, int64_t *dil, int64_t *pads)
{
    const struct ir_attr *a;
    for (int i = 0; i < nsp; i++) {
        a = ir_node_attr(c->n, "strides");
        strides[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
        a = ir_node_attr(c->n, "dilations");
        dil[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
        a = ir_node_attr(c->n, "pads");
        pads[i] = a && a->type == IR_ATTR_INTS && (int)a->count == 2 * nsp ? a->u.ints[i] : 0;
        pads[i + nsp] = a && a->type == IR_ATTR_INTS && (int)a->count == 2 * nsp ? a->u.ints[i + nsp] : 0;
    }
    a = ir_node_attr(c->n, "auto_pad");
    const char *ap = a && a->type == IR_ATTR_STRING ? a->u.s.data : "NOTSET";
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        for (int i = 0; i < nsp; i++) {
            int64_t in = x->dims[2 + i].value, out = (in + strides[i] - 1) / strides[i];
            int64_t ek = (kernel[i] - 1) * dil[i] + 1;
            int64_t total = (out - 1) * strides[i] + ek - in;
            if (total < 0)
                total = 0;
            /* SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the beginning */
            pads[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            pads[i + nsp] = total - pads[i];
        }
    } else if (!strcmp(ap, "VALID")) {
        for (int i = 0; i < 2 * nsp; i++)
            pads[i] = 0;
    }
    json_object_del(attrs, "auto_pad");
    canon_set_ints(attrs, "kernel_shape", kernel, nsp);
    canon_set_ints(attrs, "strides", strides, nsp);
    canon_set_ints(attrs, "dilations", dil, nsp);
    canon_set_ints(attrs, "pads", pads, 2 * nsp);
}

void canon_pool_window(const struct canon_ctx *c, json_t *attrs, const struct ir_type *x, int64_t *kernel,
                       int64_t *strides, int64_t *dil, int64_t *pads)
{
    int nsp = x->rank - 2;
    const struct ir_attr *a = ir_node_attr(c->n, "kernel_shape");
    for (int i = 0; i < nsp && i < 8; i++)
        kernel[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
    canon_window(c, attrs, x, kernel, nsp, strides, dil, pads);
}

void canon_attr_defaults(const struct canon_ctx *c, json_t *attrs, struct bz_buf *name)
{
    for (const struct op_attr *a = c->def ? c->def->attrs : NULL; a && a->id != DA_COUNT; a++) {
        if (desc_attr_kind(a->id) == DESC_AK_F)
            canon_default_f(c, attrs, desc_attr_name(a->id), a->dflt);
        else if (desc_attr_kind(a->id) == DESC_AK_I)
            canon_default_i(c, attrs, desc_attr_name(a->id), (int64_t)a->dflt);
    }
    canon_name_op(c, name);
}
