/* gen --zoo: parse a spec, build the model, serialize it with or without external data. */
#include "zoo/zoo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct zoo_model *zoo_parse(const char *spec, int64_t *param, struct bz_buf *err)
{
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    const struct zoo_model *z = NULL;
    for (const struct zoo_model *m = zoo_models; m->name; m++)
        if (strlen(m->name) == n && !strncmp(m->name, spec, n))
            z = m;
    if (!z) {
        bz_buf_printf(err, "no zoo model '%.*s'; the zoo has:", (int)n, spec);
        for (const struct zoo_model *m = zoo_models; m->name; m++)
            bz_buf_printf(err, " %s", m->name);
        return NULL;
    }
    *param = z->param_default;
    if (!colon)
        return z;
    const char *eq = strchr(colon + 1, '=');
    char *end = NULL;
    long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
    if (!z->param || !eq || (size_t)(eq - colon - 1) != strlen(z->param) ||
        strncmp(colon + 1, z->param, strlen(z->param)) != 0 || !end || *end || v <= 0) {
        if (z->param)
            bz_buf_printf(err, "zoo model %s takes one parameter, %s=N with N > 0 (default %lld), not '%s'",
                          z->name, z->param, (long long)z->param_default, colon + 1);
        else
            bz_buf_printf(err, "zoo model %s takes no parameters", z->name);
        return NULL;
    }
    if (!strcmp(z->name, "bert_base") && v > 512) {
        bz_buf_printf(err, "bert_base has 512 positions: seq=%lld is too long", v);
        return NULL;
    }
    if (!strcmp(z->name, "gpt2") && v > 1024) {
        bz_buf_printf(err, "gpt2 has a context of 1024 tokens: seq=%lld is too long", v);
        return NULL;
    }
    *param = v;
    return z;
}

void zoo_file_name(struct bz_buf *b, const struct zoo_model *z, int64_t param)
{
    bz_buf_puts(b, z->name);
    if (z->param)
        bz_buf_printf(b, "-%s%lld", z->param, (long long)param);
}

static char *describe(const struct zoo_model *z, int64_t param)
{
    struct bz_buf d;
    bz_buf_init(&d);
    bz_buf_printf(&d, "benanza built-in zoo: %s", z->description);
    if (z->param)
        bz_buf_printf(&d, " (%s=%lld)", z->param, (long long)param);
    bz_buf_puts(&d, "; weights are dims only");
    return bz_buf_steal(&d);
}

uint8_t *zoo_build(const struct zoo_model *z, int64_t param, size_t *size, int64_t *params)
{
    struct zb *b = z->build(param);
    char *doc = describe(z, param);
    uint8_t *out = zb_serialize(b, "benanza-zoo", doc, NULL, size, NULL);
    if (params)
        *params = zb_params(b);
    free(doc);
    zb_free(b);
    return out;
}

int zoo_write_onnx(const struct zoo_model *z, int64_t param, const char *path, int64_t *params)
{
    struct zb *b = z->build(param);
    char *doc = describe(z, param);
    struct bz_buf data_path;
    bz_buf_init(&data_path);
    bz_buf_printf(&data_path, "%s.data", path);
    /* the model names its data file relative to itself */
    const char *base = strrchr(data_path.data, '/');
    base = base ? base + 1 : data_path.data;
    size_t size;
    uint64_t data_bytes;
    uint8_t *bytes = zb_serialize(b, "benanza-zoo", doc, base, &size, &data_bytes);
    if (params)
        *params = zb_params(b);
    int err = 0;
    /* the data file first, sparse: ftruncate makes a hole of zeros that costs no disk */
    struct bz_buf tmp;
    bz_buf_init(&tmp);
    bz_buf_printf(&tmp, "%s.tmp.%ld", data_path.data, (long)getpid());
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)data_bytes) != 0) {
        err = errno;
        if (fd >= 0)
            close(fd);
        unlink(tmp.data);
    } else if (close(fd) != 0) {
        err = errno;
        unlink(tmp.data);
    } else if ((err = bz_rename_over(tmp.data, data_path.data)) != 0) {
        unlink(tmp.data);
    }
    if (!err)
        err = bz_write_file_atomic(path, bytes, size);
    bz_buf_free(&tmp);
    bz_buf_free(&data_path);
    free(bytes);
    free(doc);
    zb_free(b);
    return err;
}
