/* A Mustache engine (spec v1.4: core modules, inheritance, dynamic names) over jansson data. */
#ifndef BENANZA_MUSTACHE_H
#define BENANZA_MUSTACHE_H

#include <jansson.h>

#include "base.h"

enum mustache_status {
    MUSTACHE_OK = 0,
    MUSTACHE_ESYNTAX = -1,  /* unclosed tag or section, mismatched or stray closing tag, empty tag */
    MUSTACHE_EDELIM = -2,   /* malformed set-delimiter tag */
    MUSTACHE_EPARTIAL = -3, /* partial or parent not found (with MUSTACHE_STRICT_PARTIALS) */
    MUSTACHE_EVAR = -4,     /* interpolated name not found (with MUSTACHE_STRICT_VARS) */
    MUSTACHE_EDEPTH = -5,   /* partials nested deeper than MUSTACHE_MAX_DEPTH (endless recursion) */
    MUSTACHE_ELOADER = -6,  /* the partial loader failed (I/O error) */
};

/* Limits, named so that a template author can tell which one was hit. */
enum {
    MUSTACHE_MAX_DEPTH = 200,     /* nested partial/parent/block expansions */
    MUSTACHE_MAX_DELIM = 32,      /* bytes in one custom delimiter */
};

enum mustache_flags {
    MUSTACHE_STRICT_PARTIALS = 1u << 0, /* a missing partial is an error, not "" */
    MUSTACHE_STRICT_VARS = 1u << 1,     /* an interpolated name that resolves to nothing is an error */
};

/* Finds a partial by name. Returns 1 and sets *src (malloc'd, the engine frees it)
 * and *len when found, 0 when there is no such partial, -1 on an I/O error
 * (then *src may hold a malloc'd message, which the engine frees). */
typedef int (*mustache_partial_fn)(void *ud, const char *name, char **src, size_t *len);

/* Writes s escaped for the target language; NULL selects HTML escaping (the spec). */
typedef void (*mustache_escape_fn)(struct bz_buf *out, const char *s, size_t n);

struct mustache_opts {
    mustache_partial_fn partial;
    void *partial_ud;
    mustache_escape_fn escape;
    unsigned flags;
};

/* Renders template SRC (LEN bytes, named NAME in messages) against DATA, appending
 * to OUT. On failure returns a negative status, and ERR (if not NULL) holds one
 * line "NAME:LINE:COL: message"; OUT then holds a partial rendering the caller
 * must discard. */
int mustache_render(const char *name, const char *src, size_t len, const json_t *data,
                    const struct mustache_opts *opts, struct bz_buf *out, struct bz_buf *err);

/* Partial loader reading DIR/NAME.mustache (ud is the directory); names with '/'
 * or a leading '.' are not looked up. */
int mustache_partial_from_dir(void *ud, const char *name, char **src, size_t *len);

/* HTML escaping as the spec wants it: & " < > */
void mustache_escape_html(struct bz_buf *out, const char *s, size_t n);

#endif
