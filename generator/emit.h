/* Writing the benchmark folder: benchmarks, build.ninja, run_all, benchmarks.tsv. */
#ifndef BENANZA_EMIT_H
#define BENANZA_EMIT_H

#include <jansson.h>

#include "pipeline.h"

struct emit_bench {
    char *file;         /* file stem: bench/<file>.c, bin/<file> */
    char *layer;        /* layer id */
    char *op;
    char *models;       /* comma-separated model names using the layer */
    const char *rule;   /* the ninja rule that builds it */
};

struct emit_ctx {
    const struct pipeline *p;
    const char *dir;
    struct bz_diag *diag;
    struct emit_bench *v;
    int n, cap;
    int failed;         /* files that could not be written */
    /* layers without a benchmark in a backend, by op: "Gather 3, Pad 1" */
    struct bz_buf skipped;
};

/* The text of an embedded file (templates/, runtime/), or NULL. */
const char *emit_embedded(const char *path, size_t *len);

/* Renders template PATH with DATA into DIR/REL atomically; 0 or -1 after a diagnostic. */
int emit_render(struct emit_ctx *e, const char *tpl_path, json_t *data, const char *rel);

void emit_add_bench(struct emit_ctx *e, const char *file, const struct layer *l, const char *rule);

/* Text safe inside a C comment and on one line: no "*" "/" pair, no control bytes. */
void emit_comment_text(struct bz_buf *b, const char *s);

/* "model@batch node[i] (Op 'name')" lines for a layer's uses (at most max). */
json_t *emit_uses(const struct pipeline *p, int layer_index, int max);

/* The CPU backend (oneDNN): one file per layer x implementation x data type. */
void emit_cpu(struct emit_ctx *e);

/* Writes build.ninja, run_all, benchmarks.tsv; returns 0 or -1. */
int emit_finish(struct emit_ctx *e);

#endif
