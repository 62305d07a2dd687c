/* Helpers shared by test groups: finding model files, the oracle's name escaping, line files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"

size_t test_find_models(const char *const *dirs, size_t n_dirs, char ***paths)
{
    return bz_find_files(dirs, n_dirs, ".onnx", paths);
}

void test_esc(struct bz_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || c == '.' || c == '/' || c == '-')
            bz_buf_putc(b, (char)c);
        else
            bz_buf_printf(b, "%%%02X", c);
    }
}

char **test_read_lines(const char *path, size_t *n, char **storage)
{
    size_t len;
    *n = 0;
    *storage = NULL;
    if (!path || !*path || bz_read_file(path, (size_t)1 << 30, storage, &len) != BZ_READ_OK)
        return NULL;
    char **lines = NULL;
    size_t cap = 0;
    for (char *p = *storage; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*n == cap) {
            cap = cap ? cap * 2 : 1024;
            lines = bz_realloc(lines, cap * sizeof(*lines));
        }
        lines[(*n)++] = p;
        p = nl ? nl + 1 : p + strlen(p);
    }
    return lines;
}

void test_model_dirs(const char *which, char dirs[][4096], const char **ptrs, size_t *n)
{
    if (strcmp(which, "shared") == 0) {
        snprintf(dirs[0], 4096, "%s/models", test_env("BENANZA_SHARED", "../shared"));
        ptrs[0] = dirs[0];
        *n = 1;
        return;
    }
    const char *td = test_env("BENANZA_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");
    const char *sub[4] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
    for (int i = 0; i < 4; i++) {
        snprintf(dirs[i], 4096, "%s/%s", td, sub[i]);
        ptrs[i] = dirs[i];
    }
    *n = 4;
}

int test_sh(const char *fmt, ...)
{
    struct bz_buf cmd;
    bz_buf_init(&cmd);
    va_list ap;
    va_start(ap, fmt);
    bz_buf_vprintf(&cmd, fmt, ap);
    va_end(ap);
    fflush(NULL);
    int st = system(cmd.data);
    bz_buf_free(&cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

bool test_py_has(const char *py, const char *modules)
{
    return test_sh("%s -c 'import %s' 2>/dev/null", py, modules) == 0;
}

bool test_shared_models(char *out, size_t n)
{
    snprintf(out, n, "%s/models", test_env("BENANZA_SHARED", "../shared"));
    struct stat st;
    return stat(out, &st) == 0;
}
