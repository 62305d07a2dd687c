/* The attributes a layer description can hold (desc.h's DESC_ATTRS): name, kind, field. */
#include <stddef.h>

#include "desc.h"

static const struct {
    const char *name;
    enum desc_attr_kind kind;
    size_t offset;
} attr_fields[DA_COUNT] = {
#define FIELD_I(n) [DA_##n] = {#n, DESC_AK_I, offsetof(struct desc_attrs, n)},
#define FIELD_F(n) [DA_##n] = {#n, DESC_AK_F, offsetof(struct desc_attrs, n)},
#define FIELD_S(n) [DA_##n] = {#n, DESC_AK_S, offsetof(struct desc_attrs, n)},
#define FIELD_IS(n) [DA_##n] = {#n, DESC_AK_IS, offsetof(struct desc_attrs, n)},
#define FIELD_FS(n) [DA_##n] = {#n, DESC_AK_FS, offsetof(struct desc_attrs, n)},
#define FIELD_SS(n) [DA_##n] = {#n, DESC_AK_SS, offsetof(struct desc_attrs, n)},
    DESC_ATTRS(FIELD_I, FIELD_F, FIELD_S, FIELD_IS, FIELD_FS, FIELD_SS)
};

const char *desc_attr_name(enum desc_attr id)
{
    return (unsigned)id < DA_COUNT ? attr_fields[id].name : "?";
}

enum desc_attr_kind desc_attr_kind(enum desc_attr id)
{
    return attr_fields[id].kind;
}

size_t desc_attr_offset(enum desc_attr id)
{
    return attr_fields[id].offset;
}
