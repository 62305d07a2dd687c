/* Basic building blocks shared by every part of gen: arena, string buffer, diagnostics. */
#ifndef BENANZA_BASE_H
#define BENANZA_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BZ_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define BZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define BZ_NORETURN __attribute__((noreturn))
#else
#define BZ_PRINTF(f, a)
#define BZ_NORETURN
#endif

/* Broken invariants (programming errors) stop the program with file:line.
 * Errors a user can cause never go through here: they return a status. */
BZ_NORETURN void bz_assert_fail(const char *file, int line, const char *expr);
#define BZ_ASSERT(x) ((x) ? (void)0 : bz_assert_fail(__FILE__, __LINE__, #x))

/* Out of memory is the one hard stop (as in lemon): it prints and exits 70. */
BZ_NORETURN void bz_oom(void);
void *bz_malloc(size_t n);
void *bz_calloc(size_t n, size_t size);
void *bz_realloc(void *p, size_t n);
char *bz_strdup(const char *s);
char *bz_strndup(const char *s, size_t n);
/* The name gen gives the model at path (malloc'd): the file name without .onnx; for
 * DIR/model.onnx, DIR. */
char *bz_model_name(const char *path);

/* ---- arena: every object of one model lives here and is freed at once ---- */

struct bz_arena_block;
struct bz_arena {
    struct bz_arena_block *head;
    size_t used_bytes;  /* bytes handed out */
    size_t total_bytes; /* bytes reserved from malloc */
};

void bz_arena_init(struct bz_arena *a);
void bz_arena_free(struct bz_arena *a);
void *bz_arena_alloc(struct bz_arena *a, size_t n);  /* zeroed, 16-byte aligned */
void *bz_arena_array(struct bz_arena *a, size_t count, size_t size);
char *bz_arena_strndup(struct bz_arena *a, const char *s, size_t n);
char *bz_arena_strdup(struct bz_arena *a, const char *s);
void *bz_arena_memdup(struct bz_arena *a, const void *p, size_t n);

/* ---- growable byte buffer, always NUL-terminated ---- */

struct bz_buf {
    char *data;
    size_t len;
    size_t cap;
};

void bz_buf_init(struct bz_buf *b);
void bz_buf_free(struct bz_buf *b);
void bz_buf_reserve(struct bz_buf *b, size_t extra);
void bz_buf_append(struct bz_buf *b, const char *s, size_t n);
void bz_buf_puts(struct bz_buf *b, const char *s);
void bz_buf_putc(struct bz_buf *b, char c);
void bz_buf_printf(struct bz_buf *b, const char *fmt, ...) BZ_PRINTF(2, 3);
void bz_buf_vprintf(struct bz_buf *b, const char *fmt, va_list ap);
void bz_buf_clear(struct bz_buf *b);
char *bz_buf_steal(struct bz_buf *b); /* caller frees; buffer is reset */

/* Appends s as a readable, single-line quotation: printable ASCII is kept,
 * quotes, backslashes, control and non-ASCII bytes become C escapes.
 * Used for every untrusted string that reaches a diagnostic. */
void bz_buf_quote(struct bz_buf *b, const char *s, size_t n);

/* ---- files ---- */

enum bz_read_status {
    BZ_READ_OK = 0,
    BZ_READ_ENOENT,   /* does not exist */
    BZ_READ_EACCES,   /* cannot be read */
    BZ_READ_EISDIR,   /* a directory */
    BZ_READ_ENOTREG,  /* not a regular file (fifo, device) */
    BZ_READ_TOOBIG,   /* larger than the limit */
    BZ_READ_EIO,      /* read error */
    BZ_READ_STATUS_COUNT
};
const char *bz_read_strerror(enum bz_read_status s);

/* Reads a whole regular file (at most max_size bytes). *data is malloc'd and
 * NUL-terminated (the NUL is not counted in *size). */
enum bz_read_status bz_read_file(const char *path, size_t max_size, char **data, size_t *size);

/* Writes a file atomically: to PATH.tmp.PID then rename, so that a reader
 * never sees a half-written file. Returns 0 or an errno value; EEXIST where PATH is there and
 * is not a regular file (a device, a pipe, a socket: never replaced). */
int bz_write_file_atomic(const char *path, const void *data, size_t size);
/* rename(TMP, PATH) unless PATH is there and is neither a regular file nor a symbolic link
 * (then EEXIST, TMP left to the caller): 0 or an errno value */
int bz_rename_over(const char *tmp, const char *path);

/* mkdir -p: dir and every missing parent (0755). Returns 0 or an errno value. */
int bz_mkdir_p(const char *dir);

/* ---- diagnostics: "PATH: error: message" on stderr, counted ---- */

struct bz_diag {
    FILE *out;
    int errors;
    int warnings;
};

void bz_diag_error(struct bz_diag *d, const char *where, const char *fmt, ...) BZ_PRINTF(3, 4);
void bz_diag_warning(struct bz_diag *d, const char *where, const char *fmt, ...) BZ_PRINTF(3, 4);

/* FNV-1a of a NUL-terminated string: value names, layer keys. */
uint64_t bz_hash_str(const char *s);

/* Every file under the folders (recursively) whose name ends in SUFFIX, sorted; the paths
 * are malloc'd. Missing folders are skipped. Returns the count. */
size_t bz_find_files(const char *const *dirs, size_t n_dirs, const char *suffix, char ***paths);

/* Monotonic time in seconds, for benchmarks and progress. */
double bz_now(void);

#endif
