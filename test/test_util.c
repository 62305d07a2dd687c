/* Helpers shared by test groups: finding model files, the oracle's name escaping, line files. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"

static void find_rec(const char *dir, char ***paths, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            find_rec(path, paths, n, cap);
        } else if (len > 5 && strcmp(e->d_name + len - 5, ".onnx") == 0) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                *paths = bz_realloc(*paths, *cap * sizeof(**paths));
            }
            (*paths)[(*n)++] = bz_strdup(path);
        }
    }
    closedir(d);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t test_find_models(const char *const *dirs, size_t n_dirs, char ***paths)
{
    size_t n = 0, cap = 0;
    *paths = NULL;
    for (size_t i = 0; i < n_dirs; i++)
        find_rec(dirs[i], paths, &n, &cap);
    if (n)
        qsort(*paths, n, sizeof(**paths), str_cmp);
    return n;
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
