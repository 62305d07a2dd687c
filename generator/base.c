/* Arena, buffers, file reading and diagnostics used throughout gen. */
#include "base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void bz_assert_fail(const char *file, int line, const char *expr)
{
    fprintf(stderr, "%s:%d: internal error: assertion '%s' failed\n", file, line, expr);
    abort();
}

void bz_oom(void)
{
    fputs("benanza: error: out of memory\n", stderr);
    exit(70);
}

void *bz_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        bz_oom();
    return p;
}

void *bz_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        bz_oom();
    return p;
}

void *bz_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        bz_oom();
    return q;
}

char *bz_strndup(const char *s, size_t n)
{
    char *p = bz_malloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *bz_strdup(const char *s)
{
    return bz_strndup(s, strlen(s));
}

/* ---- arena ---- */

struct bz_arena_block {
    struct bz_arena_block *next;
    size_t size;
    size_t used;
    _Alignas(16) unsigned char data[];
};

enum { BZ_ARENA_BLOCK_MIN = 64 * 1024 };

void bz_arena_init(struct bz_arena *a)
{
    memset(a, 0, sizeof(*a));
}

void bz_arena_free(struct bz_arena *a)
{
    struct bz_arena_block *b = a->head;
    while (b) {
        struct bz_arena_block *next = b->next;
        free(b);
        b = next;
    }
    memset(a, 0, sizeof(*a));
}

void *bz_arena_alloc(struct bz_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n)
        bz_oom();
    struct bz_arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        /* Large requests get a block of their own, placed behind the current
         * head so that the head's free space is not wasted. */
        size_t size = need > BZ_ARENA_BLOCK_MIN / 4 ? need : BZ_ARENA_BLOCK_MIN;
        struct bz_arena_block *nb = bz_malloc(sizeof(*nb) + size);
        nb->size = size;
        nb->used = 0;
        a->total_bytes += size;
        if (b && size == need) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->used_bytes += need;
    memset(p, 0, n);
    return p;
}

void *bz_arena_array(struct bz_arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        bz_oom();
    return bz_arena_alloc(a, count * size);
}

char *bz_arena_strndup(struct bz_arena *a, const char *s, size_t n)
{
    char *p = bz_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *bz_arena_strdup(struct bz_arena *a, const char *s)
{
    return bz_arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

void *bz_arena_memdup(struct bz_arena *a, const void *p, size_t n)
{
    void *q = bz_arena_alloc(a, n);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* ---- buffer ---- */

void bz_buf_init(struct bz_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void bz_buf_free(struct bz_buf *b)
{
    free(b->data);
    bz_buf_init(b);
}

void bz_buf_reserve(struct bz_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = bz_realloc(b->data, cap);
    b->cap = cap;
}

void bz_buf_append(struct bz_buf *b, const char *s, size_t n)
{
    bz_buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void bz_buf_puts(struct bz_buf *b, const char *s)
{
    bz_buf_append(b, s, strlen(s));
}

void bz_buf_putc(struct bz_buf *b, char c)
{
    bz_buf_append(b, &c, 1);
}

void bz_buf_vprintf(struct bz_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    bz_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void bz_buf_printf(struct bz_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bz_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void bz_buf_clear(struct bz_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *bz_buf_steal(struct bz_buf *b)
{
    char *p = b->data ? b->data : bz_strdup("");
    bz_buf_init(b);
    return p;
}

void bz_buf_quote(struct bz_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': bz_buf_puts(b, "\\n"); break;
        case '\r': bz_buf_puts(b, "\\r"); break;
        case '\t': bz_buf_puts(b, "\\t"); break;
        case '\\': bz_buf_puts(b, "\\\\"); break;
        case '\'': bz_buf_puts(b, "\\'"); break;
        case '"': bz_buf_puts(b, "\\\""); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                bz_buf_printf(b, "\\x%02x", c);
            else
                bz_buf_putc(b, (char)c);
        }
    }
}

/* ---- files ---- */

static const char *const bz_read_messages[] = {
    [BZ_READ_OK] = "ok",
    [BZ_READ_ENOENT] = "no such file",
    [BZ_READ_EACCES] = "permission denied",
    [BZ_READ_EISDIR] = "is a directory, not a file",
    [BZ_READ_ENOTREG] = "not a regular file",
    [BZ_READ_TOOBIG] = "file is larger than the size limit",
    [BZ_READ_EIO] = "read error",
};
_Static_assert(BZ_ARRAY_LEN(bz_read_messages) == BZ_READ_STATUS_COUNT, "message per status");

const char *bz_read_strerror(enum bz_read_status s)
{
    return (unsigned)s < BZ_READ_STATUS_COUNT ? bz_read_messages[s] : "unknown error";
}

static enum bz_read_status bz_errno_status(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR: return BZ_READ_ENOENT;
    case EACCES:
    case EPERM: return BZ_READ_EACCES;
    case EISDIR: return BZ_READ_EISDIR;
    default: return BZ_READ_EIO;
    }
}

enum bz_read_status bz_read_file(const char *path, size_t max_size, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return bz_errno_status(errno);
    struct stat st;
    enum bz_read_status status = BZ_READ_OK;
    if (fstat(fd, &st) != 0) {
        status = bz_errno_status(errno);
        goto out_close;
    }
    if (S_ISDIR(st.st_mode)) {
        status = BZ_READ_EISDIR;
        goto out_close;
    }
    if (!S_ISREG(st.st_mode)) {
        status = BZ_READ_ENOTREG;
        goto out_close;
    }
    if ((uint64_t)st.st_size > (uint64_t)max_size) {
        status = BZ_READ_TOOBIG;
        goto out_close;
    }
    size_t n = (size_t)st.st_size;
    char *buf = bz_malloc(n + 1);
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            status = r < 0 ? bz_errno_status(errno) : BZ_READ_EIO;
            goto out_close;
        }
        got += (size_t)r;
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
out_close:
    close(fd);
    return status;
}

int bz_mkdir_p(const char *dir)
{
    char *p = bz_strndup(dir, strlen(dir));
    int err = 0;
    for (char *q = p + 1; !err; q++) {
        if (*q != '/' && *q != '\0')
            continue;
        char c = *q;
        *q = '\0';
        struct stat st;
        if (mkdir(p, 0755) != 0 && (errno != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)))
            err = errno == EEXIST ? ENOTDIR : errno;
        *q = c;
        if (c == '\0')
            break;
    }
    free(p);
    return err;
}

int bz_rename_over(const char *tmp, const char *path)
{
    /* rename replaces any directory entry but a folder: a device (/dev/null), a pipe or a
     * socket at PATH would become this regular file */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return EEXIST;
    return rename(tmp, path) == 0 ? 0 : errno;
}

int bz_write_file_atomic(const char *path, const void *data, size_t size)
{
    struct bz_buf tmp;
    bz_buf_init(&tmp);
    bz_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    int err = 0;
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        err = errno;
        goto out;
    }
    const char *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : EIO;
            close(fd);
            unlink(tmp.data);
            goto out;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) {
        err = errno;
        unlink(tmp.data);
        goto out;
    }
    if ((err = bz_rename_over(tmp.data, path)) != 0)
        unlink(tmp.data);
out:
    bz_buf_free(&tmp);
    return err;
}

/* ---- diagnostics ---- */

static void bz_diag_emit(struct bz_diag *d, const char *where, const char *kind, const char *fmt,
                         va_list ap)
{
    FILE *out = d && d->out ? d->out : stderr;
    struct bz_buf b;
    bz_buf_init(&b);
    if (where)
        bz_buf_printf(&b, "%s: ", where);
    bz_buf_printf(&b, "%s: ", kind);
    bz_buf_vprintf(&b, fmt, ap);
    /* A diagnostic is exactly one line, whatever the message holds. */
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] == '\n' || b.data[i] == '\r')
            b.data[i] = ' ';
    bz_buf_putc(&b, '\n');
    fputs(b.data, out);
    fflush(out);
    bz_buf_free(&b);
}

void bz_diag_error(struct bz_diag *d, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bz_diag_emit(d, where, "error", fmt, ap);
    va_end(ap);
    if (d)
        d->errors++;
}

void bz_diag_warning(struct bz_diag *d, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bz_diag_emit(d, where, "warning", fmt, ap);
    va_end(ap);
    if (d)
        d->warnings++;
}

double bz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t bz_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void find_rec(const char *dir, const char *suffix, char ***paths, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        struct bz_buf path;
        bz_buf_init(&path);
        bz_buf_printf(&path, "%s/%s", dir, e->d_name);
        struct stat st;
        size_t len = strlen(e->d_name);
        if (stat(path.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            find_rec(path.data, suffix, paths, n, cap);
        } else if (len > sl && !strcmp(e->d_name + len - sl, suffix)) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                *paths = bz_realloc(*paths, *cap * sizeof(**paths));
            }
            (*paths)[(*n)++] = bz_buf_steal(&path);
        }
        bz_buf_free(&path);
    }
    closedir(d);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t bz_find_files(const char *const *dirs, size_t n_dirs, const char *suffix, char ***paths)
{
    size_t n = 0, cap = 0;
    *paths = NULL;
    for (size_t i = 0; i < n_dirs; i++)
        find_rec(dirs[i], suffix, paths, &n, &cap);
    if (n > 1)
        qsort(*paths, n, sizeof(**paths), cmp_path);
    return n;
}

/* The file name without .onnx; a file called model.onnx (the layout of the ONNX test data
 * and model zoo: one folder per model) is named by its folder. */
char *bz_model_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".onnx"))
        n -= 5;
    if (n == 5 && !strncmp(base, "model", 5) && base - path >= 2) {
        const char *dir = base - 1; /* the slash */
        while (dir > path && dir[-1] != '/')
            dir--;
        if (base - 1 - dir > 0 && strncmp(dir, "./", 2) != 0 && strncmp(dir, "../", 3) != 0)
            return bz_strndup(dir, (size_t)(base - 1 - dir));
    }
    return bz_strndup(base, n);
}
