/* Mustache engine: tokenizer with set-delimiters, standalone-line rules, and a renderer
 * that walks the token array. Partials, parents and blocks are expanded as text (their
 * indentation is applied to template text, never to interpolated data), as the spec
 * describes it; parsed partials are cached per render. */
#include "mustache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

enum tok_kind {
    TK_TEXT,
    TK_VAR,      /* {{name}}: escaped */
    TK_UVAR,     /* {{{name}}} or {{&name}}: raw */
    TK_SECTION,  /* {{#name}} */
    TK_INVERTED, /* {{^name}} */
    TK_CLOSE,    /* {{/name}} */
    TK_COMMENT,  /* {{!...}} */
    TK_PARTIAL,  /* {{>name}} */
    TK_PARENT,   /* {{<name}} */
    TK_BLOCK,    /* {{$name}} */
    TK_DELIM,    /* {{=<% %>=}} */
};

struct tok {
    enum tok_kind kind;
    size_t start, end;       /* source span (a tag includes its delimiters) */
    size_t name_off, name_len;
    bool dynamic;            /* {{>*name}}: the name is looked up in the context */
    bool removed;            /* text dropped by a standalone rule */
    bool standalone;
    int line, col;
    int match;               /* opener <-> closer */
    size_t indent_off, indent_len; /* whitespace before a standalone tag */
    size_t cut_start, cut_end;     /* what the tag takes out of the text around it */
    char otag[MUSTACHE_MAX_DELIM + 1]; /* delimiters in effect after the tag */
    char ctag[MUSTACHE_MAX_DELIM + 1];
};

struct tpl {
    char *name;
    char *src;
    size_t len;
    struct tok *t;
    int n, cap;
};

struct override {
    char *name;
    char *text;
    size_t len;
    char otag[MUSTACHE_MAX_DELIM + 1];
    char ctag[MUSTACHE_MAX_DELIM + 1];
};

/* Block arguments passed to a parent; the outermost definition of a name wins. */
struct frame {
    struct frame *outer;
    int n;
    struct override *ov;
};

struct cached {
    char *name;
    char *indent;
    struct tpl *tp;
};

struct rctx {
    const struct mustache_opts *o;
    struct bz_buf *out;
    struct bz_buf *err;
    const json_t **stack;
    int sp, stack_cap;
    struct frame *frames;
    int depth;
    struct cached *cache;
    int n_cache, cache_cap;
};

/* ---- errors ---- */

static int fail_at(struct rctx *r, int status, const struct tpl *tp, int line, int col,
                   const char *fmt, ...) BZ_PRINTF(6, 7);
static int fail_at(struct rctx *r, int status, const struct tpl *tp, int line, int col,
                   const char *fmt, ...)
{
    if (r->err) {
        bz_buf_clear(r->err);
        bz_buf_printf(r->err, "%s:%d:%d: ", tp ? tp->name : "?", line, col);
        va_list ap;
        va_start(ap, fmt);
        bz_buf_vprintf(r->err, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---- tokenizer ---- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static const char *find(const char *hay, size_t hay_len, const char *needle, size_t n)
{
    if (n == 0 || hay_len < n)
        return NULL;
    return memmem(hay, hay_len, needle, n);
}

static struct tok *tok_push(struct tpl *tp)
{
    if (tp->n == tp->cap) {
        tp->cap = tp->cap ? tp->cap * 2 : 32;
        tp->t = bz_realloc(tp->t, (size_t)tp->cap * sizeof(*tp->t));
    }
    struct tok *t = &tp->t[tp->n++];
    memset(t, 0, sizeof(*t));
    t->match = -1;
    return t;
}

/* Tracks line and column while the tokenizer moves forward through the source. */
struct cursor {
    size_t pos;
    int line, col;
};

static void cursor_advance(struct cursor *c, const char *src, size_t to)
{
    for (; c->pos < to; c->pos++) {
        if (src[c->pos] == '\n') {
            c->line++;
            c->col = 1;
        } else {
            c->col++;
        }
    }
}

static void push_text(struct tpl *tp, size_t from, size_t to, struct cursor *cur)
{
    /* one token per line so that the standalone pass can look at lines */
    while (from < to) {
        const char *nl = memchr(tp->src + from, '\n', to - from);
        size_t end = nl ? (size_t)(nl - tp->src) + 1 : to;
        cursor_advance(cur, tp->src, from);
        struct tok *t = tok_push(tp);
        t->kind = TK_TEXT;
        t->start = from;
        t->end = end;
        t->line = cur->line;
        t->col = cur->col;
        from = end;
    }
}

static void trim(const char *s, size_t *off, size_t *len)
{
    while (*len && is_space(s[*off])) {
        (*off)++;
        (*len)--;
    }
    while (*len && is_space(s[*off + *len - 1]))
        (*len)--;
}

static int tokenize(struct rctx *r, struct tpl *tp, const char *otag0, const char *ctag0)
{
    char otag[MUSTACHE_MAX_DELIM + 1], ctag[MUSTACHE_MAX_DELIM + 1];
    snprintf(otag, sizeof(otag), "%s", otag0);
    snprintf(ctag, sizeof(ctag), "%s", ctag0);
    const char *src = tp->src;
    size_t len = tp->len, pos = 0;
    struct cursor cur = {0, 1, 1};

    while (pos < len) {
        size_t olen = strlen(otag), clen = strlen(ctag);
        const char *p = find(src + pos, len - pos, otag, olen);
        size_t text_end = p ? (size_t)(p - src) : len;
        push_text(tp, pos, text_end, &cur);
        if (!p)
            break;
        cursor_advance(&cur, src, text_end);
        size_t q = text_end + olen;
        char sigil = q < len ? src[q] : '\0';
        enum tok_kind kind;
        size_t content, content_len, end;
        const char *close;
        if (sigil == '{' || sigil == '=') {
            /* triple mustache and set delimiter: the closing '}' or '=' sits right before the
             * close delimiter */
            char want[MUSTACHE_MAX_DELIM + 2];
            snprintf(want, sizeof(want), "%c%s", sigil == '{' ? '}' : '=', ctag);
            close = find(src + q + 1, len - q - 1, want, clen + 1);
            kind = sigil == '{' ? TK_UVAR : TK_DELIM;
            content = q + 1;
            end = close ? (size_t)(close - src) + clen + 1 : 0;
        } else {
            close = find(src + q, len - q, ctag, clen);
            switch (sigil) {
            case '#': kind = TK_SECTION; break;
            case '^': kind = TK_INVERTED; break;
            case '/': kind = TK_CLOSE; break;
            case '!': kind = TK_COMMENT; break;
            case '>': kind = TK_PARTIAL; break;
            case '<': kind = TK_PARENT; break;
            case '$': kind = TK_BLOCK; break;
            case '&': kind = TK_UVAR; break;
            default: kind = TK_VAR; break;
            }
            content = kind == TK_VAR ? q : q + 1;
            end = close ? (size_t)(close - src) + clen : 0;
        }
        if (!close)
            return fail_at(r, MUSTACHE_ESYNTAX, tp, cur.line, cur.col,
                           "unclosed tag: no '%s' after this '%s'", sigil == '{' ? "}}}" : ctag, otag);
        content_len = (size_t)(close - src) - content;

        struct tok *t = tok_push(tp);
        t->kind = kind;
        t->start = text_end;
        t->end = end;
        t->line = cur.line;
        t->col = cur.col;
        if (kind == TK_DELIM) {
            size_t off = content, n = content_len;
            trim(src, &off, &n);
            size_t a = off, a_end = off;
            while (a_end < off + n && !is_space(src[a_end]))
                a_end++;
            size_t b = a_end;
            while (b < off + n && is_space(src[b]))
                b++;
            size_t b_end = off + n;
            bool bad = a_end == a || b == b_end || a_end - a > MUSTACHE_MAX_DELIM ||
                       b_end - b > MUSTACHE_MAX_DELIM ||
                       memchr(src + a, '=', a_end - a) || memchr(src + b, '=', b_end - b);
            for (size_t k = b; k < b_end && !bad; k++)
                bad = is_space(src[k]);
            if (bad)
                return fail_at(r, MUSTACHE_EDELIM, tp, t->line, t->col,
                               "bad set-delimiter tag: it needs two delimiters of 1 to %d "
                               "characters without spaces or '=', as in {{=<%% %%>=}}",
                               MUSTACHE_MAX_DELIM);
            memcpy(otag, src + a, a_end - a);
            otag[a_end - a] = '\0';
            memcpy(ctag, src + b, b_end - b);
            ctag[b_end - b] = '\0';
        } else if (kind != TK_COMMENT) {
            size_t off = content, n = content_len;
            trim(src, &off, &n);
            if ((kind == TK_PARTIAL || kind == TK_PARENT) && n && src[off] == '*') {
                t->dynamic = true;
                off++;
                n--;
                trim(src, &off, &n);
            }
            if (n == 0)
                return fail_at(r, MUSTACHE_ESYNTAX, tp, t->line, t->col, "empty tag '%.*s'",
                               (int)(end - text_end), src + text_end);
            t->name_off = off;
            t->name_len = n;
        }
        snprintf(t->otag, sizeof(t->otag), "%s", otag);
        snprintf(t->ctag, sizeof(t->ctag), "%s", ctag);
        t->cut_start = t->start;
        t->cut_end = t->end;
        pos = end;
    }
    return MUSTACHE_OK;
}

static bool is_opener(enum tok_kind k)
{
    return k == TK_SECTION || k == TK_INVERTED || k == TK_PARENT || k == TK_BLOCK;
}

static int match_sections(struct rctx *r, struct tpl *tp)
{
    int *stack = bz_malloc((size_t)(tp->n ? tp->n : 1) * sizeof(int));
    int sp = 0, status = MUSTACHE_OK;
    for (int i = 0; i < tp->n && status == MUSTACHE_OK; i++) {
        struct tok *t = &tp->t[i];
        if (is_opener(t->kind)) {
            stack[sp++] = i;
        } else if (t->kind == TK_CLOSE) {
            if (sp == 0) {
                status = fail_at(r, MUSTACHE_ESYNTAX, tp, t->line, t->col,
                                 "closing tag '%.*s' without an open section", (int)t->name_len,
                                 tp->src + t->name_off);
                break;
            }
            struct tok *o = &tp->t[stack[sp - 1]];
            if (o->name_len != t->name_len ||
                memcmp(tp->src + o->name_off, tp->src + t->name_off, t->name_len) != 0) {
                status = fail_at(r, MUSTACHE_ESYNTAX, tp, t->line, t->col,
                                 "closing tag '%.*s' does not match section '%.*s' opened at %d:%d",
                                 (int)t->name_len, tp->src + t->name_off, (int)o->name_len,
                                 tp->src + o->name_off, o->line, o->col);
                break;
            }
            o->match = i;
            t->match = stack[--sp];
        }
    }
    if (status == MUSTACHE_OK && sp > 0) {
        struct tok *o = &tp->t[stack[sp - 1]];
        status = fail_at(r, MUSTACHE_ESYNTAX, tp, o->line, o->col,
                         "unclosed section '%.*s': no closing tag before the end of the template",
                         (int)o->name_len, tp->src + o->name_off);
    }
    free(stack);
    return status;
}

/* ---- standalone lines ---- */

static bool may_stand_alone(enum tok_kind k)
{
    return k != TK_TEXT && k != TK_VAR && k != TK_UVAR;
}

/* Text that is only blanks, optionally ending in a newline. */
static bool text_is_blank(const struct tpl *tp, const struct tok *t)
{
    size_t e = t->end;
    if (e > t->start && tp->src[e - 1] == '\n') {
        e--;
        if (e > t->start && tp->src[e - 1] == '\r')
            e--;
    }
    for (size_t k = t->start; k < e; k++)
        if (!is_blank(tp->src[k]))
            return false;
    return true;
}

static bool ends_line(const struct tpl *tp, const struct tok *t)
{
    return t->kind == TK_TEXT && t->end > t->start && tp->src[t->end - 1] == '\n';
}

static void apply_standalone(struct tpl *tp)
{
    int i = 0;
    while (i < tp->n) {
        int j = i;
        while (j < tp->n && !ends_line(tp, &tp->t[j]))
            j++;
        if (j < tp->n)
            j++; /* include the newline token */
        /* the line is tokens [i, j) */
        int tags[3], ntags = 0;
        bool blank = true;
        for (int k = i; k < j && blank; k++) {
            if (tp->t[k].kind == TK_TEXT)
                blank = text_is_blank(tp, &tp->t[k]);
            else if (ntags < 3)
                tags[ntags++] = k;
            else
                ntags++;
        }
        size_t line_start = tp->t[i].start, line_end = tp->t[j - 1].end;
        bool lead = tp->t[i].kind == TK_TEXT; /* leading whitespace token */
        if (blank && ntags >= 1 && ntags <= 2) {
            struct tok *a = &tp->t[tags[0]];
            struct tok *b = ntags == 2 ? &tp->t[tags[1]] : NULL;
            bool adjacent = b && a->end == b->start;
            enum { NONE, WHOLE, PAIR_BLOCK } rule = NONE;
            if (!b && may_stand_alone(a->kind)) {
                rule = WHOLE;
                a->standalone = true;
            } else if (adjacent && a->kind == TK_BLOCK && b->kind == TK_CLOSE && b->match == tags[0]) {
                rule = PAIR_BLOCK; /* {{$b}}{{/b}}: the line's newline stays */
                a->standalone = true;
            } else if (adjacent && a->kind == TK_PARENT && b->kind == TK_CLOSE && b->match == tags[0]) {
                rule = WHOLE; /* {{<p}}{{/p}} */
                a->standalone = true;
            } else if (adjacent && a->kind == TK_PARENT && b->kind == TK_BLOCK) {
                rule = WHOLE; /* {{<p}}{{$b}}: both open standalone */
                a->standalone = true;
                b->standalone = true;
            } else if (adjacent && a->kind == TK_CLOSE && b->kind == TK_CLOSE &&
                       tp->t[a->match].kind == TK_BLOCK && tp->t[b->match].kind == TK_PARENT) {
                rule = WHOLE; /* {{/b}}{{/p}} */
            }
            if (rule != NONE) {
                if (lead && tp->t[i].kind == TK_TEXT && i < tags[0]) {
                    a->indent_off = tp->t[i].start;
                    a->indent_len = tp->t[i].end - tp->t[i].start;
                }
                struct tok *last = b ? b : a;
                for (int k = i; k < j; k++) {
                    struct tok *t = &tp->t[k];
                    if (t->kind != TK_TEXT)
                        continue;
                    if (rule == PAIR_BLOCK && k > tags[1] && ends_line(tp, t)) {
                        size_t nl = t->end - 1;
                        if (nl > t->start && tp->src[nl - 1] == '\r')
                            nl--;
                        t->start = nl; /* keep only the line ending */
                    } else {
                        t->removed = true;
                    }
                }
                a->cut_start = line_start;
                last->cut_end = rule == PAIR_BLOCK ? last->end : line_end;
                if (b && rule == WHOLE && a->kind == TK_PARENT && b->kind == TK_BLOCK)
                    a->cut_end = b->start; /* the block's own cut_end is the line end */
            }
        }
        i = j;
    }
}

static void tpl_free(struct tpl *tp)
{
    if (!tp)
        return;
    free(tp->name);
    free(tp->src);
    free(tp->t);
    free(tp);
}

/* Takes ownership of src. */
static int tpl_parse(struct rctx *r, const char *name, char *src, size_t len, const char *otag,
                     const char *ctag, struct tpl **out)
{
    struct tpl *tp = bz_calloc(1, sizeof(*tp));
    tp->name = bz_strdup(name);
    tp->src = src;
    tp->len = len;
    int status = tokenize(r, tp, otag, ctag);
    if (status == MUSTACHE_OK)
        status = match_sections(r, tp);
    if (status != MUSTACHE_OK) {
        tpl_free(tp);
        *out = NULL;
        return status;
    }
    apply_standalone(tp);
    *out = tp;
    return MUSTACHE_OK;
}

/* ---- text reindentation (partials, parents, blocks) ---- */

/* S (taken) with PRE before every line that holds a non-space character (Python's
 * textwrap.indent); *LENP its length before and after. */
static char *indent_text(char *s, size_t *lenp, const char *pre, size_t pre_len)
{
    size_t len = *lenp;
    struct bz_buf b;
    bz_buf_init(&b);
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) + 1 : len;
        bool content = false;
        for (size_t k = i; k < end && !content; k++)
            content = !is_space(s[k]);
        if (content)
            bz_buf_append(&b, pre, pre_len);
        bz_buf_append(&b, s + i, end - i);
        i = end;
    }
    free(s);
    *lenp = b.len;
    return bz_buf_steal(&b);
}

/* The end of the line that starts at I (its '\n', or LEN) and in *FIRST its first non-blank
 * (the end when it is blank). */
static size_t line_at(const char *s, size_t len, size_t i, size_t *first)
{
    const char *nl = memchr(s + i, '\n', len - i);
    size_t end = nl ? (size_t)(nl - s) : len;
    size_t k = i;
    while (k < end && is_blank(s[k]))
        k++;
    *first = k;
    return end;
}

/* Removes the common leading blanks of all non-blank lines, and blanks from blank
 * lines (Python's textwrap.dedent); *first_indent gets what the first line lost. */
static char *dedent_text(const char *s, size_t len, size_t *out_len, struct bz_buf *first_indent)
{
    /* margin: the longest common prefix of the leading blanks of non-blank lines */
    const char *margin = NULL;
    size_t margin_len = 0;
    for (size_t i = 0; i < len;) {
        size_t k, end = line_at(s, len, i, &k);
        if (k < end) {
            if (!margin) {
                margin = s + i;
                margin_len = k - i;
            } else {
                size_t m = 0;
                while (m < margin_len && m < k - i && margin[m] == s[i + m])
                    m++;
                margin_len = m;
            }
        }
        i = end < len ? end + 1 : len;
    }
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_clear(first_indent);
    bool first = true;
    for (size_t i = 0; i < len;) {
        size_t k, end = line_at(s, len, i, &k);
        size_t from;
        if (k == end)
            from = end; /* blank line: drop its blanks */
        else
            from = i + margin_len;
        if (first)
            bz_buf_append(first_indent, s + i, from - i);
        first = false;
        bz_buf_append(&b, s + from, end - from);
        if (end < len)
            bz_buf_putc(&b, '\n');
        i = end < len ? end + 1 : len;
    }
    *out_len = b.len;
    return bz_buf_steal(&b);
}

/* ---- context ---- */

static void ctx_push(struct rctx *r, const json_t *v)
{
    if (r->sp == r->stack_cap) {
        r->stack_cap = r->stack_cap ? r->stack_cap * 2 : 16;
        r->stack = bz_realloc(r->stack, (size_t)r->stack_cap * sizeof(*r->stack));
    }
    r->stack[r->sp++] = v;
}

static const json_t *lookup(struct rctx *r, const char *name, size_t len)
{
    if (len == 1 && name[0] == '.')
        return r->sp ? r->stack[r->sp - 1] : NULL;
    const char *dot = memchr(name, '.', len);
    size_t seg = dot ? (size_t)(dot - name) : len;
    const json_t *v = NULL;
    for (int k = r->sp - 1; k >= 0 && !v; k--)
        if (json_is_object(r->stack[k]))
            v = json_object_getn(r->stack[k], name, seg);
    while (v && dot) {
        /* the rest of a dotted name resolves inside the first part only */
        const char *s = dot + 1;
        size_t rest = len - (size_t)(s - name);
        dot = memchr(s, '.', rest);
        seg = dot ? (size_t)(dot - s) : rest;
        v = json_is_object(v) ? json_object_getn(v, s, seg) : NULL;
    }
    return v;
}

static bool truthy(const json_t *v)
{
    if (!v || json_is_null(v) || json_is_false(v))
        return false;
    if (json_is_array(v))
        return json_array_size(v) > 0;
    if (json_is_string(v))
        return json_string_length(v) > 0;
    return true;
}

static void format_real(struct bz_buf *b, double d)
{
    /* the shortest decimal that reads back as the same double: 1.21, not 1.2100000000000000 */
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    bz_buf_puts(b, tmp);
}

void mustache_escape_html(struct bz_buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '"': rep = "&quot;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        default: break;
        }
        if (rep) {
            bz_buf_append(out, s + run, i - run);
            bz_buf_puts(out, rep);
            run = i + 1;
        }
    }
    bz_buf_append(out, s + run, n - run);
}

static void interpolate(struct rctx *r, const json_t *v, bool escape)
{
    struct bz_buf tmp;
    bz_buf_init(&tmp);
    const char *s = NULL;
    size_t n = 0;
    switch (json_typeof(v)) {
    case JSON_STRING:
        s = json_string_value(v);
        n = json_string_length(v);
        break;
    case JSON_INTEGER:
        bz_buf_printf(&tmp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        format_real(&tmp, json_real_value(v));
        break;
    case JSON_TRUE:
        bz_buf_puts(&tmp, "true");
        break;
    case JSON_FALSE:
        bz_buf_puts(&tmp, "false");
        break;
    default: /* null, objects and arrays interpolate as nothing */
        break;
    }
    if (!s) {
        s = tmp.data ? tmp.data : "";
        n = tmp.len;
    }
    if (escape) {
        if (r->o && r->o->escape)
            r->o->escape(r->out, s, n);
        else
            mustache_escape_html(r->out, s, n);
    } else {
        bz_buf_append(r->out, s, n);
    }
    bz_buf_free(&tmp);
}

/* ---- rendering ---- */

static int render_range(struct rctx *r, const struct tpl *tp, int from, int to);

static const struct override *frames_find(const struct rctx *r, const char *name, size_t len)
{
    for (const struct frame *f = r->frames; f; f = f->outer)
        for (int i = 0; i < f->n; i++)
            if (strlen(f->ov[i].name) == len && memcmp(f->ov[i].name, name, len) == 0)
                return &f->ov[i];
    return NULL;
}

/* The name a partial or parent tag refers to: literal, or looked up ({{>*name}}).
 * Returns NULL when a dynamic name does not resolve to a string. */
static char *target_name(struct rctx *r, const struct tpl *tp, const struct tok *t)
{
    const char *name = tp->src + t->name_off;
    if (!t->dynamic)
        return bz_strndup(name, t->name_len);
    const json_t *v = lookup(r, name, t->name_len);
    if (!v || !json_is_string(v))
        return NULL;
    return bz_strndup(json_string_value(v), json_string_length(v));
}

/* Parsed partial NAME indented by INDENT, from the cache or the loader.
 * Returns 1 found, 0 not found, <0 error. */
static int get_partial(struct rctx *r, const struct tpl *from, const struct tok *at, const char *name,
                       const char *indent, size_t indent_len, struct tpl **out)
{
    *out = NULL;
    for (int i = 0; i < r->n_cache; i++) {
        struct cached *c = &r->cache[i];
        if (strcmp(c->name, name) == 0 && strlen(c->indent) == indent_len &&
            memcmp(c->indent, indent, indent_len) == 0) {
            *out = c->tp;
            return 1;
        }
    }
    if (!r->o || !r->o->partial)
        return 0;
    char *src = NULL;
    size_t len = 0;
    int found = r->o->partial(r->o->partial_ud, name, &src, &len);
    if (found < 0) {
        int st = fail_at(r, MUSTACHE_ELOADER, from, at->line, at->col, "cannot load partial '%s': %s",
                         name, src ? src : "I/O error");
        free(src);
        return st;
    }
    if (found == 0) {
        free(src);
        return 0;
    }
    if (indent_len)
        src = indent_text(src, &len, indent, indent_len);
    struct tpl *tp;
    int st = tpl_parse(r, name, src, len, "{{", "}}", &tp);
    if (st < 0)
        return st;
    if (r->n_cache == r->cache_cap) {
        r->cache_cap = r->cache_cap ? r->cache_cap * 2 : 8;
        r->cache = bz_realloc(r->cache, (size_t)r->cache_cap * sizeof(*r->cache));
    }
    r->cache[r->n_cache++] = (struct cached){bz_strdup(name), bz_strndup(indent, indent_len), tp};
    *out = tp;
    return 1;
}

static int render_partial_like(struct rctx *r, const struct tpl *tp, const struct tok *t)
{
    char *name = target_name(r, tp, t);
    if (!name)
        return MUSTACHE_OK; /* a dynamic name that resolves to nothing renders nothing */
    if (r->depth >= MUSTACHE_MAX_DEPTH) {
        int st = fail_at(r, MUSTACHE_EDEPTH, tp, t->line, t->col,
                         "partial '%s' nested more than %d levels deep (endless recursion?)", name,
                         MUSTACHE_MAX_DEPTH);
        free(name);
        return st;
    }
    const char *indent = t->standalone ? tp->src + t->indent_off : "";
    size_t indent_len = t->standalone ? t->indent_len : 0;
    struct tpl *p;
    int found = get_partial(r, tp, t, name, indent, indent_len, &p);
    int st = found < 0 ? found : MUSTACHE_OK;
    if (found == 0 && r->o && (r->o->flags & MUSTACHE_STRICT_PARTIALS))
        st = fail_at(r, MUSTACHE_EPARTIAL, tp, t->line, t->col, "partial '%s' not found", name);
    if (found == 1) {
        r->depth++;
        st = render_range(r, p, 0, p->n);
        r->depth--;
    }
    free(name);
    return st;
}

/* A block's own content: its inner text, dedented when the block is standalone. */
static char *block_text(const struct tpl *tp, const struct tok *t, size_t *len, struct bz_buf *indent)
{
    const struct tok *c = &tp->t[t->match];
    size_t from = t->cut_end, to = c->cut_start > from ? c->cut_start : from;
    bz_buf_clear(indent);
    if (t->standalone)
        return dedent_text(tp->src + from, to - from, len, indent);
    *len = to - from;
    return bz_strndup(tp->src + from, to - from);
}

static int render_block(struct rctx *r, const struct tpl *tp, const struct tok *t)
{
    const char *name = tp->src + t->name_off;
    const struct override *ov = frames_find(r, name, t->name_len);
    struct bz_buf own_indent;
    bz_buf_init(&own_indent);
    size_t len;
    char *own = block_text(tp, t, &len, &own_indent);
    char *text = own;
    const char *otag = t->otag, *ctag = t->ctag;
    if (ov) {
        text = bz_strndup(ov->text, ov->len);
        len = ov->len;
        otag = ov->otag;
        ctag = ov->ctag;
        free(own);
    }
    if (t->standalone) {
        /* indentation comes from the default content, else from the tag's position */
        const char *pre = own_indent.len ? own_indent.data : tp->src + t->indent_off;
        size_t pre_len = own_indent.len ? own_indent.len : t->indent_len;
        if (pre_len)
            text = indent_text(text, &len, pre, pre_len);
    }
    bz_buf_free(&own_indent);
    if (r->depth >= MUSTACHE_MAX_DEPTH) {
        free(text);
        return fail_at(r, MUSTACHE_EDEPTH, tp, t->line, t->col,
                       "block '%.*s' nested more than %d levels deep", (int)t->name_len, name,
                       MUSTACHE_MAX_DEPTH);
    }
    struct bz_buf bname;
    bz_buf_init(&bname);
    bz_buf_printf(&bname, "%s$%.*s", tp->name, (int)t->name_len, name);
    struct tpl *bt;
    int st = tpl_parse(r, bname.data, text, len, otag, ctag, &bt);
    bz_buf_free(&bname);
    if (st < 0)
        return st;
    r->depth++;
    st = render_range(r, bt, 0, bt->n);
    r->depth--;
    tpl_free(bt);
    return st;
}

static int render_parent(struct rctx *r, const struct tpl *tp, int i)
{
    const struct tok *t = &tp->t[i];
    struct frame f = {.outer = r->frames};
    int cap = 0;
    struct bz_buf ignored;
    bz_buf_init(&ignored);
    /* direct block children are the arguments; any other content is ignored */
    for (int k = i + 1; k < t->match; k++) {
        const struct tok *b = &tp->t[k];
        if (b->kind == TK_BLOCK) {
            const char *name = tp->src + b->name_off;
            if (!frames_find(r, name, b->name_len)) {
                bool dup = false;
                for (int d = 0; d < f.n && !dup; d++)
                    dup = strlen(f.ov[d].name) == b->name_len &&
                          memcmp(f.ov[d].name, name, b->name_len) == 0;
                if (!dup) {
                    if (f.n == cap) {
                        cap = cap ? cap * 2 : 4;
                        f.ov = bz_realloc(f.ov, (size_t)cap * sizeof(*f.ov));
                    }
                    struct override *o = &f.ov[f.n++];
                    o->name = bz_strndup(name, b->name_len);
                    o->text = block_text(tp, b, &o->len, &ignored);
                    memcpy(o->otag, b->otag, sizeof(o->otag));
                    memcpy(o->ctag, b->ctag, sizeof(o->ctag));
                }
            }
        }
        if (is_opener(b->kind))
            k = b->match;
    }
    bz_buf_free(&ignored);
    r->frames = &f;
    int st = render_partial_like(r, tp, t);
    r->frames = f.outer;
    for (int d = 0; d < f.n; d++) {
        free(f.ov[d].name);
        free(f.ov[d].text);
    }
    free(f.ov);
    return st;
}

static int render_range(struct rctx *r, const struct tpl *tp, int from, int to)
{
    for (int i = from; i < to; i++) {
        const struct tok *t = &tp->t[i];
        int st = MUSTACHE_OK;
        switch (t->kind) {
        case TK_TEXT:
            if (!t->removed)
                bz_buf_append(r->out, tp->src + t->start, t->end - t->start);
            break;
        case TK_VAR:
        case TK_UVAR: {
            const json_t *v = lookup(r, tp->src + t->name_off, t->name_len);
            if (v)
                interpolate(r, v, t->kind == TK_VAR);
            else if (r->o && (r->o->flags & MUSTACHE_STRICT_VARS))
                st = fail_at(r, MUSTACHE_EVAR, tp, t->line, t->col, "'%.*s' is not defined",
                             (int)t->name_len, tp->src + t->name_off);
            break;
        }
        case TK_SECTION: {
            const json_t *v = lookup(r, tp->src + t->name_off, t->name_len);
            if (truthy(v)) {
                if (json_is_array(v)) {
                    for (size_t k = 0; k < json_array_size(v) && st == MUSTACHE_OK; k++) {
                        ctx_push(r, json_array_get(v, k));
                        st = render_range(r, tp, i + 1, t->match);
                        r->sp--;
                    }
                } else {
                    ctx_push(r, v);
                    st = render_range(r, tp, i + 1, t->match);
                    r->sp--;
                }
            }
            i = t->match;
            break;
        }
        case TK_INVERTED:
            if (!truthy(lookup(r, tp->src + t->name_off, t->name_len)))
                st = render_range(r, tp, i + 1, t->match);
            i = t->match;
            break;
        case TK_PARTIAL:
            st = render_partial_like(r, tp, t);
            break;
        case TK_PARENT:
            st = render_parent(r, tp, i);
            i = t->match;
            break;
        case TK_BLOCK:
            st = render_block(r, tp, t);
            i = t->match;
            break;
        case TK_CLOSE:
        case TK_COMMENT:
        case TK_DELIM:
            break;
        }
        if (st < 0)
            return st;
    }
    return MUSTACHE_OK;
}

int mustache_render(const char *name, const char *src, size_t len, const json_t *data,
                    const struct mustache_opts *opts, struct bz_buf *out, struct bz_buf *err)
{
    struct rctx r = {.o = opts, .out = out, .err = err};
    struct tpl *tp;
    bz_buf_reserve(out, len);
    int st = tpl_parse(&r, name ? name : "template", bz_strndup(src, len), len, "{{", "}}", &tp);
    if (st == MUSTACHE_OK) {
        if (data)
            ctx_push(&r, data);
        st = render_range(&r, tp, 0, tp->n);
        tpl_free(tp);
    }
    for (int i = 0; i < r.n_cache; i++) {
        free(r.cache[i].name);
        free(r.cache[i].indent);
        tpl_free(r.cache[i].tp);
    }
    free(r.cache);
    free(r.stack);
    return st;
}

int mustache_partial_from_dir(void *ud, const char *name, char **src, size_t *len)
{
    const char *dir = ud;
    *src = NULL;
    *len = 0;
    if (!dir || !*name || name[0] == '.' || strchr(name, '/'))
        return 0;
    struct bz_buf path;
    bz_buf_init(&path);
    bz_buf_printf(&path, "%s/%s.mustache", dir, name);
    char *data;
    size_t n;
    enum bz_read_status rs = bz_read_file(path.data, (size_t)64 << 20, &data, &n);
    int found;
    if (rs == BZ_READ_OK) {
        *src = data;
        *len = n;
        found = 1;
    } else if (rs == BZ_READ_ENOENT) {
        found = 0;
    } else {
        struct bz_buf msg;
        bz_buf_init(&msg);
        bz_buf_printf(&msg, "%s: %s", path.data, bz_read_strerror(rs));
        *src = bz_buf_steal(&msg);
        found = -1;
    }
    bz_buf_free(&path);
    return found;
}
