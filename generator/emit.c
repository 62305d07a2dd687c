/* What the backends share to write their benchmarks: templates rendered into the folder (with
 * untrusted text escaped for C), the embedded runtime, the list of benchmarks written. */
#include "emit.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runtime/harness.h"
/* the family bits only: no family's kernel is referenced here */
#define PL_FAMILIES 0u
#include "../runtime/plain_ops.h"
#include "../runtime/dnnl_ops.h"
#include "mustache.h"
#include "plan.h"
#include "version.h"

struct embedded_file {
    const char *path;
    const char *data;
    size_t len;
};
extern const struct embedded_file embedded_files[];

void emit_each_embedded(const char *prefix, void (*fn)(const char *path, const char *data, size_t len, void *ud),
                        void *ud)
{
    for (const struct embedded_file *f = embedded_files; f->path; f++)
        if (!strncmp(f->path, prefix, strlen(prefix)))
            fn(f->path, f->data, f->len, ud);
}

const char *emit_embedded(const char *path, size_t *len)
{
    for (const struct embedded_file *f = embedded_files; f->path; f++)
        if (!strcmp(f->path, path)) {
            if (len)
                *len = f->len;
            return f->data;
        }
    return NULL;
}

/* The embedded files' texts as template values, made once: a JSON string built by json_stringn
 * checks its bytes are UTF-8 one call per byte, and the runtime headers inlined into every
 * benchmark are ~100-300 KB each, so checking them again for each of tens of thousands of
 * benchmarks was most of gen's processor time. They are our own sources: not checked. */
json_t *emit_embedded_json(const char *path)
{
    static json_t **made; /* one slot per embedded file, kept for the process */
    static size_t n;
    if (!made) {
        while (embedded_files[n].path)
            n++;
        if (!(made = calloc(n, sizeof(*made))))
            return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(embedded_files[i].path, path)) {
            if (!made[i])
                made[i] = json_stringn_nocheck(embedded_files[i].data, embedded_files[i].len);
            return made[i];
        }
    return NULL;
}

/* The conditionals on a family mask that gen decides when it trims a runtime header: "#if
 * MACRO & BITS" lines, BITS one name of the table or an or of them in parentheses, or the
 * complement of those (~(A | B): every family of the table but them) */
struct fam_name {
    const char *name;
    unsigned bit;
};
struct fam_mask {
    const char *macro;            /* "PL_FAMILIES" */
    const struct fam_name *names; /* the bits it may name */
    size_t n;
    unsigned value;               /* the benchmark's */
};

static const struct fam_name plain_fams[] = {
    {"PL_FAM_INDEX", PL_FAM_INDEX},   {"PL_FAM_REDUCE", PL_FAM_REDUCE}, {"PL_FAM_QUANT", PL_FAM_QUANT},
    {"PL_FAM_SAMPLE", PL_FAM_SAMPLE}, {"PL_FAM_LINALG", PL_FAM_LINALG}, {"PL_FAM_SIGNAL", PL_FAM_SIGNAL},
    {"PL_FAM_NN", PL_FAM_NN},         {"PL_FAM_RANDOM", PL_FAM_RANDOM}, {"PL_FAM_SELECT", PL_FAM_SELECT},
    {"PL_FAM_STRING", PL_FAM_STRING}, {"PL_FAM_RNN", PL_FAM_RNN},
};
static const struct fam_name dnnl_fams[] = {
    {"BD_FAM_REORDER", BD_FAM_REORDER},
    {"BD_FAM_CONCAT", BD_FAM_CONCAT},
    {"BD_FAM_DECONV", BD_FAM_DECONV},
    {"BD_FAM_RNN", BD_FAM_RNN},
};
/* runtime/cudnn_ops.h's BC_FAM_* names, at gen's own bits (1 << enum cu_family): the generated
 * file names them, so the values need not be the same */
static const struct fam_name cuda_fams[] = {
    {"BC_FAM_CONV", 1u << CU_CONV},         {"BC_FAM_CONV_FUSED", 1u << CU_CONV_FUSED},
    {"BC_FAM_ADVICE", 1u << CU_ADVICE},     {"BC_FAM_DECONV", 1u << CU_DECONV},
    {"BC_FAM_POOL", 1u << CU_POOL},         {"BC_FAM_ACT", 1u << CU_ACT},
    {"BC_FAM_SOFTMAX", 1u << CU_SOFTMAX},   {"BC_FAM_BNORM", 1u << CU_BNORM},
    {"BC_FAM_LRN", 1u << CU_LRN},           {"BC_FAM_OPTENSOR", 1u << CU_OPTENSOR},
    {"BC_FAM_REDUCE", 1u << CU_REDUCE},     {"BC_FAM_RNN", 1u << CU_RNN},
    {"BC_FAM_GEMM", 1u << CU_GEMM},         {"BC_FAM_GEMV", 1u << CU_GEMV},
    {"BC_FAM_COPY", 1u << CU_COPY},         {"BC_FAM_LT", 1u << CU_LT},
    {"BC_FAM_ENGINE", 1u << CU_ENGINE},     {"BC_FAM_RELAYOUT", 1u << CU_RELAYOUT},
    {"BC_FAM_SDPA", 1u << CU_SDPA},
};

/* the family bits of E[0..LEN), the rest of a line: "PL_FAM_INDEX", "(PL_FAM_INDEX |
 * PL_FAM_REDUCE)" or "~(PL_FAM_INDEX | ...)", every family but those; 0 for anything else (a
 * name not in M's table, "A | B" without the parentheses, "||"): that is kept as written, for
 * the C preprocessor to decide */
static unsigned family_bits(const struct fam_mask *m, const char *e, size_t len)
{
    const char *end = e + len;
    while (end > e && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    bool not = e < end && *e == '~';
    e += not;
    bool paren = e < end && *e == '(';
    if (paren) {
        if (end - e < 2 || end[-1] != ')')
            return 0;
        e++;
        end--;
    } else if (not) {
        return 0;
    }
    unsigned bits = 0, all = 0;
    for (size_t i = 0; i < m->n; i++)
        all |= m->names[i].bit;
    for (;;) {
        while (e < end && *e == ' ')
            e++;
        size_t n = 0;
        while (e + n < end && (isalnum((unsigned char)e[n]) || e[n] == '_'))
            n++;
        unsigned bit = 0;
        for (size_t i = 0; i < m->n && n; i++)
            if (strlen(m->names[i].name) == n && !strncmp(e, m->names[i].name, n))
                bit = m->names[i].bit;
        if (!bit)
            return 0;
        bits |= bit;
        e += n;
        while (e < end && *e == ' ')
            e++;
        if (e == end)
            break;
        if (!paren || *e != '|' || (e + 1 < end && e[1] == '|'))
            return 0;
        e++;
    }
    return not ? all & ~bits : bits;
}

/* TEXT with the conditionals on M's mask decided, and #ifndef PL_KERNEL_ONLY by KERNEL_ONLY */
static void trim_runtime(struct bz_buf *out, const char *text, size_t len, const struct fam_mask *m, bool kernel_only)
{
    /* a stack of open conditionals: whether their text is kept, whether gen decided them (then
     * their directive lines go too) and, for those, whether a branch was taken already */
    bool keep[64], decided[64], taken[64];
    int depth = 0;
    keep[0] = true;
    char prefix[64], elif[64];
    size_t np = (size_t)snprintf(prefix, sizeof(prefix), "#if %s & ", m->macro);
    size_t ne = (size_t)snprintf(elif, sizeof(elif), "#elif %s & ", m->macro);
    for (const char *line = text, *end = text + len; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) + 1 : (size_t)(end - line);
        bool cur = keep[depth], emit = cur;
        if (!strncmp(line, "#if", 3) && depth < 63) {
            bool known = false, on = true;
            unsigned bits = n > np && !strncmp(line, prefix, np) ? family_bits(m, line + np, n - np) : 0;
            if (bits) {
                known = true;
                on = (m->value & bits) != 0;
            } else if (!strncmp(line, "#ifndef PL_KERNEL_ONLY", 22)) {
                known = true;
                on = !kernel_only;
            }
            depth++;
            keep[depth] = cur && on;
            decided[depth] = known;
            taken[depth] = on;
            emit = cur && !known;
        } else if (!strncmp(line, "#endif", 6) && depth > 0) {
            emit = keep[depth - 1] && !decided[depth];
            depth--;
        } else if (!strncmp(line, "#elif", 5) && depth > 0) {
            emit = keep[depth - 1] && !decided[depth];
            if (decided[depth]) {
                unsigned bits = n > ne && !strncmp(line, elif, ne) ? family_bits(m, line + ne, n - ne) : 0;
                if (taken[depth]) { /* a branch before was taken: the rest goes */
                    keep[depth] = false;
                } else if (bits) {
                    taken[depth] = (m->value & bits) != 0;
                    keep[depth] = keep[depth - 1] && taken[depth];
                } else {
                    /* not one gen decides, after branches that all went: the first of what is
                     * left, for the preprocessor (its #else and #endif stay) */
                    if (keep[depth - 1]) {
                        bz_buf_puts(out, "#if");
                        bz_buf_append(out, line + 5, n - 5);
                    }
                    decided[depth] = false;
                    keep[depth] = keep[depth - 1];
                }
            }
        } else if (!strncmp(line, "#el", 3) && depth > 0) {
            if (decided[depth])
                keep[depth] = keep[depth - 1] && !taken[depth];
            emit = keep[depth - 1] && !decided[depth];
        }
        if (emit)
            bz_buf_append(out, line, n);
        line += n;
    }
}

void emit_trim_plain(struct bz_buf *out, const char *text, size_t len, unsigned families, bool kernel_only)
{
    struct fam_mask m = {"PL_FAMILIES", plain_fams, BZ_ARRAY_LEN(plain_fams), families};
    trim_runtime(out, text, len, &m, kernel_only);
}

/* runtime/NAME.h trimmed to M as a new JSON string (our own sources: not checked for UTF-8, as
 * emit_embedded_json's are not) */
static json_t *trimmed_header(const char *name, const struct fam_mask *m)
{
    char path[64];
    size_t len = 0;
    snprintf(path, sizeof(path), "runtime/%s.h", name);
    const char *text = emit_embedded(path, &len);
    struct bz_buf t;
    bz_buf_init(&t);
    if (text)
        trim_runtime(&t, text, len, m, false);
    json_t *j = json_stringn_nocheck(t.data ? t.data : "", t.len);
    bz_buf_free(&t);
    return j;
}

void emit_dnnl_runtime(json_t *data, unsigned families)
{
    /* one text per mask and header, made once */
    static json_t *made[2][BD_FAM_RNN << 1];
    static const char *const headers[2] = {"dnnl_ops", "dnnl_bench"};
    families &= (BD_FAM_RNN << 1) - 1;
    struct fam_mask m = {"BD_FAMILIES", dnnl_fams, BZ_ARRAY_LEN(dnnl_fams), families};
    for (int h = 0; h < 2; h++) {
        if (!made[h][families])
            made[h][families] = trimmed_header(headers[h], &m);
        json_object_set(data, headers[h], made[h][families]);
    }
}

unsigned emit_cuda_meets(int family)
{
    unsigned m = 1u << family;
    if (family == CU_ENGINE) /* --verify holds it to the convolution's reference, fused or not */
        m |= 1u << CU_CONV | 1u << CU_CONV_FUSED;
    if (family == CU_RELAYOUT) /* and a layout change to a copy's, once both are in NCHW order */
        m |= 1u << CU_COPY;
    return m;
}

void emit_cuda_runtime(json_t *data, int family)
{
    /* one text per family and header, made once */
    static json_t *made[CU_FAMILY_COUNT][3];
    static const char *const headers[3] = {"cudnn_ops", "cuda_ref", "cublas_ops"};
    if (family < 0 || family >= CU_FAMILY_COUNT)
        return;
    unsigned meets = emit_cuda_meets(family);
    struct fam_mask m = {"BC_FAMILIES", cuda_fams, BZ_ARRAY_LEN(cuda_fams), meets};
    for (int h = 0; h < 3; h++) {
        if (!made[family][h])
            made[family][h] = trimmed_header(headers[h], &m);
        json_object_set(data, headers[h], made[family][h]);
    }
}

void emit_cuda_defines(struct bz_buf *defines, int family)
{
    /* BC_FAMILIES names its own family first */
    unsigned meets = emit_cuda_meets(family);
    const char *own = "?";
    for (size_t i = 0; i < BZ_ARRAY_LEN(cuda_fams); i++)
        if (cuda_fams[i].bit == 1u << family)
            own = cuda_fams[i].name;
    bz_buf_printf(defines, "/* its family, and the one whose host reference checks it: the code of the others is left "
                           "out */\n#define BC_FAMILY %s\n#define BC_FAMILIES (%s",
                  cu_family_name((enum cu_family)family), own);
    for (size_t i = 0; i < BZ_ARRAY_LEN(cuda_fams); i++)
        if ((meets & cuda_fams[i].bit) && cuda_fams[i].bit != 1u << family)
            bz_buf_printf(defines, " | %s", cuda_fams[i].name);
    bz_buf_puts(defines, ")\n");
}

void emit_plain_headers(json_t *data, unsigned families, int kind, bool kernel_only)
{
    static const struct { const char *name; unsigned family; } headers[] = {
        {"plain_ops", 0},
        {"plain_index", PL_FAM_INDEX},
        {"plain_reduce", PL_FAM_REDUCE},
        {"plain_quant", PL_FAM_QUANT},
        {"plain_sample", PL_FAM_SAMPLE},
        {"plain_linalg", PL_FAM_LINALG},
        {"plain_signal", PL_FAM_SIGNAL},
        {"plain_string", PL_FAM_STRING},
        {"plain_nn", PL_FAM_NN},
        {"plain_random", PL_FAM_RANDOM},
        {"plain_select", PL_FAM_SELECT},
        {"plain_rnn", PL_FAM_RNN},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(headers); i++) {
        char path[64];
        size_t len = 0;
        snprintf(path, sizeof(path), "runtime/%s.h", headers[i].name);
        const char *text = headers[i].family && !(families & headers[i].family) ? NULL : emit_embedded(path, &len);
        struct bz_buf t;
        bz_buf_init(&t);
        if (text)
            emit_trim_plain(&t, text, len, families, kernel_only);
        /* runtime text of ours, trimmed by lines: not checked for UTF-8 (emit_embedded_json) */
        json_object_set_new(data, headers[i].name, json_stringn_nocheck(t.data ? t.data : "", t.len));
        bz_buf_free(&t);
    }
    char line[300];
    int at = snprintf(line, sizeof(line),
                      "/* the kernel family this benchmark needs (plain_ops.h): the others are left out */\n"
                      "#define PL_FAMILIES 0x%03xu",
                      families);
    if (kind >= 0)
        snprintf(line + at, sizeof(line) - (size_t)at,
                 "\n/* its operation's kind: the code of the others is dropped when it compiles */\n"
                 "#define PL_KIND %s",
                 plan_pl_kind_name(kind));
    json_object_set_new(data, "plain_families", json_string(line));
}

/* {{x}} in a template lands inside a C string literal (or a shell single-quoted string
 * for run_all, whose values are all of the safe alphabet): escape for C. */
void emit_escape_c(struct bz_buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            bz_buf_printf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f || c == '?')
            bz_buf_printf(out, "\\%03o", c); /* octal: no trigraphs, no hex run-on */
        else
            bz_buf_putc(out, (char)c);
    }
}

void emit_comment_text(struct bz_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '*' && s[1] == '/')
            bz_buf_puts(b, "* "); /* never close the comment */
        else if (c == '/' && s[1] == '*')
            bz_buf_puts(b, "/ ");
        else if (c < 0x20 || c >= 0x7f)
            bz_buf_printf(b, "\\x%02x", c);
        else if (c == '\\' && (s[1] == '\0'))
            bz_buf_puts(b, "\\x5c"); /* a trailing backslash would splice the next line */
        else
            bz_buf_putc(b, (char)c);
    }
}

void emit_c_array(struct bz_buf *b, const char *pre, const char *field, bool ndim, const int64_t *v, int n,
                  const char *post)
{
    bz_buf_printf(b, "%s.%s = {", pre, field);
    if (ndim)
        bz_buf_printf(b, "%d, {", n);
    for (int k = 0; k < n; k++)
        bz_buf_printf(b, "%s%lld", k ? ", " : "", (long long)v[k]);
    bz_buf_printf(b, "%s%s", ndim ? "}}" : "}", post);
}

static int partial_embedded(void *ud, const char *name, char **src, size_t *len)
{
    (void)ud;
    struct bz_buf p;
    bz_buf_init(&p);
    bz_buf_printf(&p, "templates/%s.mustache", name);
    const char *d = emit_embedded(p.data, len);
    bz_buf_free(&p);
    if (!d)
        return 0;
    *src = bz_strndup(d, *len);
    return 1;
}

static int mkdirs(const char *dir, const char *rel)
{
    struct bz_buf p;
    bz_buf_init(&p);
    bz_buf_puts(&p, dir);
    int err = bz_mkdir_p(dir);
    const char *slash;
    while (!err && (slash = strchr(rel, '/')) != NULL) {
        bz_buf_putc(&p, '/');
        bz_buf_append(&p, rel, (size_t)(slash - rel));
        if (mkdir(p.data, 0755) != 0 && errno != EEXIST)
            err = errno;
        rel = slash + 1;
    }
    bz_buf_free(&p);
    return err;
}

/* DIR/rel with this content; an unchanged file keeps its time stamp, so that ninja rebuilds
 * only what changed */
int emit_write(struct emit_ctx *e, const char *rel, const char *data, size_t len)
{
    struct bz_buf path;
    bz_buf_init(&path);
    bz_buf_printf(&path, "%s/%s", e->dir, rel);
    int w = mkdirs(e->dir, rel);
    char *old = NULL;
    size_t old_len = 0;
    bool same = !w && bz_read_file(path.data, len + 1, &old, &old_len) == BZ_READ_OK && old_len == len &&
                (len == 0 || memcmp(old, data, len) == 0);
    free(old);
    if (!w && !same)
        w = bz_write_file_atomic(path.data, data, len);
    if (w)
        bz_diag_error(e->diag, path.data, "cannot write: %s", strerror(w));
    bz_buf_free(&path);
    return w ? -1 : 0;
}

int emit_render(struct emit_ctx *e, const char *tpl_path, json_t *data, const char *rel)
{
    size_t len;
    const char *tpl = emit_embedded(tpl_path, &len);
    if (!tpl) {
        bz_diag_error(e->diag, tpl_path, "template missing from gen (a build problem)");
        e->failed++;
        return -1;
    }
    json_object_set_new(data, "version", json_string(BENANZA_VERSION));
    if (e->cmdline) {
        struct bz_buf c;
        bz_buf_init(&c);
        emit_comment_text(&c, e->cmdline);
        json_object_set_new(data, "cmdline", json_string(c.data ? c.data : ""));
        bz_buf_free(&c);
    } else {
        json_object_set_new(data, "cmdline", json_string("gen"));
    }
    struct mustache_opts o = {.partial = partial_embedded, .escape = emit_escape_c,
                              .flags = MUSTACHE_STRICT_PARTIALS | MUSTACHE_STRICT_VARS};
    struct bz_buf out, err;
    bz_buf_init(&out);
    bz_buf_init(&err);
    int rc = 0;
    if (mustache_render(tpl_path, tpl, len, data, &o, &out, &err) < 0) {
        bz_diag_error(e->diag, NULL, "%s", err.data);
        rc = -1;
    } else {
        /* --repro: the files straight in the folder, nothing around them */
        if (e->only_layer && !strncmp(rel, "bench/", 6))
            rel += 6;
        rc = emit_write(e, rel, out.data ? out.data : "", out.len);
    }
    if (rc)
        e->failed++;
    bz_buf_free(&out);
    bz_buf_free(&err);
    return rc;
}

void emit_each_layer(struct emit_ctx *e, void (*fn)(struct emit_ctx *e, int li, void *arg), void *arg)
{
    const struct layer_set *s = &e->p->layers;
    for (int li = 0; li < s->n; li++)
        if (!e->only_layer || !strcmp(s->v[li].id, e->only_layer))
            fn(e, li, arg);
}

void emit_skip(struct emit_ctx *e, const char *op)
{
    int k = 0;
    while (k < e->n_skipped && strcmp(e->skipped[k].op, op))
        k++;
    if (k == (int)BZ_ARRAY_LEN(e->skipped))
        return; /* the first 64 kinds are enough to say what is missing */
    if (k == e->n_skipped) {
        e->skipped[k].op = op;
        e->skipped[k].n = 0;
        e->n_skipped++;
    }
    e->skipped[k].n++;
}

void emit_skipped_take(struct emit_ctx *e, struct bz_buf *b)
{
    for (int k = 0; k < e->n_skipped; k++)
        bz_buf_printf(b, "%s%s %d", k ? ", " : "", e->skipped[k].op, e->skipped[k].n);
    e->n_skipped = 0;
}

void emit_bench(struct emit_ctx *e, const struct layer *l, const char *file, const char *ext, const char *tpl,
                const char *rule, json_t *data)
{
    if (!data) {
        bz_diag_error(e->diag, file, "cannot describe the layer to the template (out of memory)");
        e->failed++;
        return;
    }
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "bench/%s%s", file, ext);
    if (emit_render(e, tpl, data, rel.data) == 0)
        emit_add_bench(e, file, l, rule);
    json_decref(data);
    bz_buf_free(&rel);
}

void emit_add_bench(struct emit_ctx *e, const char *file, const struct layer *l, const char *rule)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 256;
        e->v = bz_realloc(e->v, (size_t)e->cap * sizeof(*e->v));
    }
    struct bz_buf m;
    bz_buf_init(&m);
    for (int i = 0; i < l->n_models; i++) {
        const struct model_run *r = &e->p->runs[l->models[i]];
        /* model names are file names: keep them to the safe alphabet for the tsv and sh */
        bz_buf_puts(&m, i ? "," : "");
        for (const char *c = r->name; *c; c++)
            bz_buf_putc(&m, (*c == ',' || *c == '\t' || *c == '\n' || (unsigned char)*c < 0x20) ? '_' : *c);
        if (r->batch > 0)
            bz_buf_printf(&m, "@%lld", (long long)r->batch);
    }
    e->v[e->n++] = (struct emit_bench){bz_strdup(file), bz_strdup(l->id), bz_strdup(l->op), bz_buf_steal(&m), rule};
}

/* the node a group's use is shown at: its first computing node (an attention group may start
 * with a view its key leaves out) */
static int group_shown_at(const struct model_run *run, const struct fusion_group *fg)
{
    for (int k = 0; k < fg->n_nodes; k++)
        if (run->cls[fg->nodes[k]] != NODE_FREE)
            return fg->nodes[k];
    return fg->nodes[0];
}

json_t *emit_uses(struct emit_ctx *e, int layer_index)
{
    if (e->uses && e->uses_layer == layer_index)
        return json_incref(e->uses);
    const struct pipeline *p = e->p;
    const int max = 6;
    json_t *arr = json_array();
    int shown = 0, total = 0;
    for (int r = 0; r < p->n_runs; r++) {
        const struct model_run *run = &p->runs[r];
        for (int i = 0; i < run->n_nodes; i++) {
            const struct fusion_group *fg = run->group[i] >= 0 ? &run->groups[run->group[i]] : NULL;
            bool uses = run->layer[i] == layer_index || (fg && fg->layer == layer_index && group_shown_at(run, fg) == i);
            for (int q = 0; fg && q < fg->n_parts; q++)
                uses |= fg->parts[q].layer == layer_index && fg->parts[q].nodes[0] == i;
            if (!uses)
                continue;
            total++;
            if (shown >= max)
                continue;
            struct bz_buf b, w;
            bz_buf_init(&b);
            bz_buf_init(&w);
            bz_buf_printf(&b, "%s", run->name);
            if (run->batch > 0)
                bz_buf_printf(&b, " (batch %lld)", (long long)run->batch);
            ir_node_where(&w, &run->m->graph->nodes[i]);
            bz_buf_printf(&b, ": %s", w.data);
            struct bz_buf safe;
            bz_buf_init(&safe);
            emit_comment_text(&safe, b.data);
            json_array_append_new(arr, json_string(safe.data));
            bz_buf_free(&safe);
            bz_buf_free(&b);
            bz_buf_free(&w);
            shown++;
        }
    }
    if (total > shown) {
        char more[64];
        snprintf(more, sizeof(more), "... and %d more nodes", total - shown);
        json_array_append_new(arr, json_string(more));
    }
    json_decref(e->uses);
    e->uses = json_incref(arr);
    e->uses_layer = layer_index;
    return arr;
}

void emit_macro(struct bz_buf *b, const char *name, const char *body)
{
    bz_buf_printf(b, "#define %s", name);
    for (const char *line = body; line && *line;) {
        size_t n = strcspn(line, "\n");
        bz_buf_puts(b, " \\\n    ");
        bz_buf_append(b, line, n);
        line += n + (line[n] == '\n');
    }
}
