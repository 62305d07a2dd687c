/* RE2 patterns to POSIX extended regular expressions and to sample strings (re2posix.h).
 *
 * The pattern is parsed into a small tree whose leaves are byte sets (a literal is a set of
 * one byte; case-insensitive parts fold letters into both cases here, so the tree needs no
 * flags), then printed as an ERE and walked at random for strings that match. gen compiles
 * the ERE with the C library's regcomp and keeps only the samples it matches, so a
 * translation error shows up here, not in a benchmark. */
#include "re2posix.h"

#include <ctype.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum rx_kind { RX_SET, RX_CAT, RX_ALT, RX_REP, RX_BOL, RX_EOL };

struct rx_node {
    enum rx_kind kind;
    uint8_t set[32]; /* RX_SET: bit c for byte c */
    int kid, next;   /* the first child, the next sibling (-1: none) */
    int min, max;    /* RX_REP: max -1 when unbounded */
};

struct rx_parser {
    const char *start, *p, *end;
    struct rx_node *nodes;
    int n, cap;
    int icase, dotall, depth;
    char *why;
    size_t why_len;
    int failed;
};

static int rx_fail(struct rx_parser *ps, const char *what)
{
    if (!ps->failed)
        snprintf(ps->why, ps->why_len, "%s at offset %d", what, (int)(ps->p - ps->start));
    ps->failed = 1;
    return -1;
}

static int rx_node(struct rx_parser *ps, enum rx_kind kind)
{
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 64;
        ps->nodes = bz_realloc(ps->nodes, (size_t)ps->cap * sizeof(*ps->nodes));
    }
    struct rx_node *x = &ps->nodes[ps->n];
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->kid = x->next = -1;
    return ps->n++;
}

static void set_add(uint8_t *set, int c)
{
    set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static int set_has(const uint8_t *set, int c)
{
    return set[c >> 3] >> (c & 7) & 1;
}

/* the Perl classes as RE2 has them (\s without \v) */
static int perl_class(int e, int c)
{
    switch (e) {
    case 'd': return c >= '0' && c <= '9';
    case 'w': return isalnum(c) || c == '_';
    case 's': return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
    default: return 0;
    }
}

static const struct {
    const char *name;
    int (*fn)(int);
} posix_classes[] = {
    {"alpha", isalpha}, {"digit", isdigit}, {"alnum", isalnum}, {"space", isspace}, {"upper", isupper},
    {"lower", islower}, {"punct", ispunct},  {"xdigit", isxdigit}, {"cntrl", iscntrl}, {"print", isprint},
    {"graph", isgraph}, {"blank", isblank},
};

/* one escaped byte that stands for itself (or a control character); -1 otherwise */
static int escaped_byte(int e)
{
    switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'a': return '\a';
    default: return e > 0 && e < 0x80 && !isalnum(e) ? e : -1;
    }
}

/* adds the bytes of escape \e (a class or a byte) to set; -1 if it is not one here */
static int add_escape(uint8_t *set, int e)
{
    int lower = tolower(e);
    if (lower == 'd' || lower == 'w' || lower == 's') {
        for (int c = 1; c < 256; c++)
            if (perl_class(lower, c) == (e == lower))
                set_add(set, c);
        return 0;
    }
    int b = escaped_byte(e);
    if (b < 0)
        return -1;
    set_add(set, b);
    return 0;
}

static void fold(struct rx_parser *ps, uint8_t *set)
{
    if (!ps->icase)
        return;
    for (int c = 'a'; c <= 'z'; c++)
        if (set_has(set, c) || set_has(set, c - 32)) {
            set_add(set, c);
            set_add(set, c - 32);
        }
}

static int parse_alt(struct rx_parser *ps);

/* [...] after the '[' */
static int parse_class(struct rx_parser *ps)
{
    int x = rx_node(ps, RX_SET);
    uint8_t set[32] = {0};
    int negate = ps->p < ps->end && *ps->p == '^';
    ps->p += negate;
    for (int first = 1;; first = 0) {
        if (ps->p >= ps->end)
            return rx_fail(ps, "unterminated class");
        int c = (unsigned char)*ps->p;
        if (c == ']' && !first) {
            ps->p++;
            break;
        }
        if (c == '[' && ps->p + 1 < ps->end && ps->p[1] == ':') {
            const char *close = strstr(ps->p + 2, ":]");
            size_t k = 0;
            for (; close && k < BZ_ARRAY_LEN(posix_classes); k++)
                if ((size_t)(close - ps->p - 2) == strlen(posix_classes[k].name) &&
                    !strncmp(ps->p + 2, posix_classes[k].name, strlen(posix_classes[k].name)))
                    break;
            if (!close || k == BZ_ARRAY_LEN(posix_classes))
                return rx_fail(ps, "unknown class name");
            for (int b = 1; b < 256; b++)
                if (b < 0x80 && posix_classes[k].fn(b))
                    set_add(set, b);
            ps->p = close + 2;
            continue;
        }
        int lo = c;
        ps->p++;
        if (c == '\\') {
            if (ps->p >= ps->end)
                return rx_fail(ps, "trailing backslash");
            int e = (unsigned char)*ps->p++;
            if (strchr("dDwWsS", e)) {
                add_escape(set, e);
                continue;
            }
            if ((lo = escaped_byte(e)) < 0)
                return rx_fail(ps, "unsupported escape in a class");
        } else if (c >= 0x80) {
            return rx_fail(ps, "non-ASCII byte");
        }
        int hi = lo;
        if (ps->p + 1 < ps->end && *ps->p == '-' && ps->p[1] != ']') {
            ps->p++;
            hi = (unsigned char)*ps->p++;
            if (hi == '\\') {
                hi = ps->p < ps->end ? escaped_byte((unsigned char)*ps->p++) : -1;
                if (hi < 0)
                    return rx_fail(ps, "unsupported range end");
            }
            if (hi < lo || hi >= 0x80)
                return rx_fail(ps, "bad range");
        }
        for (int b = lo; b <= hi; b++)
            set_add(set, b);
    }
    fold(ps, set);
    if (negate)
        for (int b = 1; b < 256; b++)
            set[b >> 3] ^= (uint8_t)(1u << (b & 7));
    set[0] &= (uint8_t)~1u; /* never NUL */
    memcpy(ps->nodes[x].set, set, sizeof(set));
    return x;
}

/* flags after "(?": i, s, U, each negated after '-'; returns the byte that ended them */
static int parse_flags(struct rx_parser *ps)
{
    int on = 1;
    while (ps->p < ps->end) {
        int c = (unsigned char)*ps->p++;
        if (c == ':' || c == ')')
            return c;
        if (c == '-')
            on = 0;
        else if (c == 'i')
            ps->icase = on;
        else if (c == 's')
            ps->dotall = on;
        else if (c != 'U') /* laziness: the same full matches */
            return rx_fail(ps, c == 'm' ? "multi-line mode" : "unknown flag");
    }
    return rx_fail(ps, "unterminated flags");
}

static int parse_atom(struct rx_parser *ps)
{
    int c = (unsigned char)*ps->p++;
    if (c == '(') {
        int icase = ps->icase, dotall = ps->dotall;
        if (++ps->depth > 200)
            return rx_fail(ps, "groups nested too deeply");
        if (ps->p < ps->end && *ps->p == '?') {
            ps->p++;
            if (ps->p < ps->end && (*ps->p == 'P' || *ps->p == '<')) { /* a named group */
                ps->p += *ps->p == 'P';
                const char *close = ps->p < ps->end && *ps->p == '<' ? memchr(ps->p, '>', (size_t)(ps->end - ps->p)) : NULL;
                if (!close)
                    return rx_fail(ps, "bad group name");
                ps->p = close + 1;
            } else {
                int end = parse_flags(ps);
                if (end < 0)
                    return -1;
                if (end == ')') { /* (?i): the rest of the enclosing group */
                    ps->depth--;
                    return rx_node(ps, RX_CAT);
                }
            }
        }
        int x = parse_alt(ps);
        if (x < 0)
            return -1;
        if (ps->p >= ps->end || *ps->p != ')')
            return rx_fail(ps, "missing )");
        ps->p++;
        ps->depth--;
        ps->icase = icase, ps->dotall = dotall;
        return x;
    }
    if (c == '[')
        return parse_class(ps);
    if (c == '^' || c == '$')
        return rx_node(ps, c == '^' ? RX_BOL : RX_EOL);
    if (c == ')' || c == '*' || c == '+' || c == '?')
        return rx_fail(ps, c == ')' ? "unexpected )" : "missing argument to repetition operator");
    if (c >= 0x80)
        return rx_fail(ps, "non-ASCII byte");
    int x = rx_node(ps, RX_SET);
    uint8_t *set = ps->nodes[x].set;
    if (c == '.') {
        for (int b = 1; b < 256; b++)
            if (b != '\n' || ps->dotall)
                set_add(set, b);
        return x;
    }
    if (c == '\\') {
        if (ps->p >= ps->end)
            return rx_fail(ps, "trailing backslash");
        int e = (unsigned char)*ps->p++;
        if (add_escape(set, e) < 0)
            return rx_fail(ps, e >= '1' && e <= '9' ? "backreference" : "unsupported escape");
        fold(ps, set);
        return x;
    }
    set_add(set, c);
    fold(ps, set);
    return x;
}

/* {n}, {n,}, {n,m} at p (after the '{'); 0 with min and max, -1 if it is not one (a literal) */
static int parse_braces(const char *p, const char *end, int *min, int *max, const char **after)
{
    long lo = -1, hi;
    char *q;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    lo = strtol(p, &q, 10);
    hi = lo;
    if (q < end && *q == ',') {
        q++;
        hi = -1;
        if (q < end && isdigit((unsigned char)*q))
            hi = strtol(q, &q, 10);
    }
    if (q >= end || *q != '}')
        return -1;
    *min = (int)(lo > 100000 ? 100000 : lo);
    *max = (int)(hi > 100000 ? 100000 : hi);
    *after = q + 1;
    return 0;
}

static int parse_repeat(struct rx_parser *ps)
{
    int x = parse_atom(ps);
    int quantified = 0;
    while (x >= 0 && ps->p < ps->end && strchr("*+?{", *ps->p)) {
        int min, max;
        const char *after = ps->p + 1;
        if (*ps->p == '{') {
            if (parse_braces(ps->p + 1, ps->end, &min, &max, &after) < 0)
                break; /* a literal '{' */
            if (max > 1000 || (max >= 0 && max < min))
                return rx_fail(ps, "bad repetition count");
        } else {
            min = *ps->p == '+';
            max = *ps->p == '?' ? 1 : -1;
        }
        if (quantified || ps->nodes[x].kind == RX_BOL || ps->nodes[x].kind == RX_EOL)
            return rx_fail(ps, "bad repetition operator");
        ps->p = after;
        if (ps->p < ps->end && *ps->p == '?') /* lazy: the same full matches */
            ps->p++;
        int r = rx_node(ps, RX_REP);
        ps->nodes[r].kid = x;
        ps->nodes[r].min = min;
        ps->nodes[r].max = max;
        x = r;
        quantified = 1;
    }
    return x;
}

static int parse_cat(struct rx_parser *ps)
{
    int x = rx_node(ps, RX_CAT), last = -1;
    while (ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
        int y = parse_repeat(ps);
        if (y < 0)
            return -1;
        if (last < 0)
            ps->nodes[x].kid = y;
        else
            ps->nodes[last].next = y;
        last = y;
    }
    return x;
}

static int parse_alt(struct rx_parser *ps)
{
    int first = parse_cat(ps);
    if (first < 0 || ps->p >= ps->end || *ps->p != '|')
        return first;
    int x = rx_node(ps, RX_ALT), last = first;
    ps->nodes[x].kid = first;
    while (ps->p < ps->end && *ps->p == '|') {
        ps->p++;
        int y = parse_cat(ps);
        if (y < 0)
            return -1;
        ps->nodes[last].next = y;
        last = y;
    }
    return x;
}

/* ---- printing ---- */

static void put_byte(struct bz_buf *b, int c)
{
    if (strchr(".[]()*+?{}|^$\\", c))
        bz_buf_putc(b, '\\');
    bz_buf_putc(b, (char)c);
}

/* a set as one byte or a bracket expression: ']' first, '^' not first, '[' and '-' last */
static void put_set(struct bz_buf *b, const uint8_t *set)
{
    int count = 0, only = 0;
    for (int c = 1; c < 256; c++)
        if (set_has(set, c))
            count++, only = c;
    if (count == 1) {
        put_byte(b, only);
        return;
    }
    if (count == 255) { /* every byte: '.' (without REG_NEWLINE it takes a newline too) */
        bz_buf_putc(b, '.');
        return;
    }
    uint8_t want[32];
    memcpy(want, set, sizeof(want));
    bz_buf_putc(b, '[');
    if (count > 128) { /* the complement is shorter */
        bz_buf_putc(b, '^');
        for (int c = 1; c < 256; c++)
            want[c >> 3] ^= (uint8_t)(1u << (c & 7));
        want[0] &= (uint8_t)~1u;
    }
    int wrote = 0;
    if (set_has(want, ']'))
        bz_buf_putc(b, ']'), wrote = 1;
    for (int c = 1; c < 256; c++) {
        if (!set_has(want, c) || strchr("]^[-", c))
            continue;
        int end = c; /* a run of three or more digits or letters of one case: a range */
        while (end + 1 < 256 && set_has(want, end + 1) &&
               ((isdigit(c) && isdigit(end + 1)) || (islower(c) && islower(end + 1)) || (isupper(c) && isupper(end + 1))))
            end++;
        if (end - c >= 2)
            bz_buf_printf(b, "%c-%c", c, end), c = end;
        else
            bz_buf_putc(b, (char)c);
        wrote = 1;
    }
    if (set_has(want, '^')) {
        if (!wrote && set_has(want, '['))
            bz_buf_putc(b, '['), want['[' >> 3] &= (uint8_t)~(1u << ('[' & 7));
        else if (!wrote && set_has(want, '-'))
            bz_buf_putc(b, '-'), want['-' >> 3] &= (uint8_t)~(1u << ('-' & 7));
        bz_buf_putc(b, '^');
    }
    if (set_has(want, '['))
        bz_buf_putc(b, '[');
    if (set_has(want, '-'))
        bz_buf_putc(b, '-');
    bz_buf_putc(b, ']');
}

static void put_node(const struct rx_parser *ps, int x, struct bz_buf *b)
{
    const struct rx_node *n = &ps->nodes[x];
    switch (n->kind) {
    case RX_SET: put_set(b, n->set); break;
    case RX_BOL: bz_buf_putc(b, '^'); break;
    case RX_EOL: bz_buf_putc(b, '$'); break;
    case RX_CAT:
        if (n->kid < 0)
            bz_buf_puts(b, "()");
        for (int k = n->kid; k >= 0; k = ps->nodes[k].next) {
            int group = ps->nodes[k].kind == RX_ALT;
            if (ps->nodes[k].kind == RX_CAT && ps->nodes[k].kid < 0)
                continue; /* nothing, as (?i) leaves */
            bz_buf_puts(b, group ? "(" : "");
            put_node(ps, k, b);
            bz_buf_puts(b, group ? ")" : "");
        }
        break;
    case RX_ALT:
        for (int k = n->kid; k >= 0; k = ps->nodes[k].next) {
            bz_buf_puts(b, k == n->kid ? "" : "|");
            put_node(ps, k, b);
        }
        break;
    case RX_REP: {
        const struct rx_node *kid = &ps->nodes[n->kid];
        int group = kid->kind != RX_SET;
        bz_buf_puts(b, group ? "(" : "");
        put_node(ps, n->kid, b);
        bz_buf_puts(b, group ? ")" : "");
        if (n->min == 0 && n->max < 0)
            bz_buf_putc(b, '*');
        else if (n->min == 1 && n->max < 0)
            bz_buf_putc(b, '+');
        else if (n->min == 0 && n->max == 1)
            bz_buf_putc(b, '?');
        else if (n->max < 0)
            bz_buf_printf(b, "{%d,}", n->min);
        else if (n->max == n->min)
            bz_buf_printf(b, "{%d}", n->min);
        else
            bz_buf_printf(b, "{%d,%d}", n->min, n->max);
        break;
    }
    }
}

/* ---- sampling ---- */

static uint32_t rx_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void sample(const struct rx_parser *ps, int x, uint64_t *seed, struct bz_buf *b)
{
    const struct rx_node *n = &ps->nodes[x];
    if (b->len > 512)
        return;
    switch (n->kind) {
    case RX_SET: {
        int pick[256], m = 0;
        for (int c = 0x20; c < 0x7f; c++) /* printable members only */
            if (set_has(n->set, c))
                pick[m++] = c;
        if (m)
            bz_buf_putc(b, (char)pick[rx_rand(seed) % (uint32_t)m]);
        else
            bz_buf_putc(b, '\x01'); /* no printable member: a sample regexec refuses */
        break;
    }
    case RX_CAT:
        for (int k = n->kid; k >= 0; k = ps->nodes[k].next)
            sample(ps, k, seed, b);
        break;
    case RX_ALT: {
        int count = 0, k = n->kid;
        for (int j = n->kid; j >= 0; j = ps->nodes[j].next)
            count++;
        for (int pick = (int)(rx_rand(seed) % (uint32_t)count); pick > 0; pick--)
            k = ps->nodes[k].next;
        sample(ps, k, seed, b);
        break;
    }
    case RX_REP: {
        int span = n->max < 0 ? 3 : n->max - n->min < 3 ? n->max - n->min : 3;
        int times = n->min + (int)(rx_rand(seed) % (uint32_t)(span + 1));
        for (int t = 0; t < times; t++)
            sample(ps, n->kid, seed, b);
        break;
    }
    case RX_BOL:
    case RX_EOL: break;
    }
}

int rx_translate(const char *pattern, size_t len, struct rx_result *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    bz_buf_init(&out->ere);
    if (memchr(pattern, '\0', len)) {
        snprintf(why, why_len, "a NUL byte in the pattern");
        return -1;
    }
    struct rx_parser ps = {.start = pattern, .p = pattern, .end = pattern + len, .why = why, .why_len = why_len};
    int root = parse_alt(&ps);
    if (root >= 0 && ps.p < ps.end)
        root = rx_fail(&ps, "unexpected )");
    if (root < 0) {
        free(ps.nodes);
        return -1;
    }
    bz_buf_puts(&out->ere, "^(");
    put_node(&ps, root, &out->ere);
    bz_buf_puts(&out->ere, ")$");
    regex_t re;
    if (regcomp(&re, out->ere.data, REG_EXTENDED | REG_NOSUB) != 0) {
        snprintf(why, why_len, "the C library cannot compile its POSIX form");
        free(ps.nodes);
        return -1;
    }
    uint64_t seed = 1469598103934665603ull;
    for (size_t k = 0; k < len; k++)
        seed = (seed ^ (unsigned char)pattern[k]) * 1099511628211ull;
    for (int tries = 0; tries < 8 * RX_SAMPLES && out->nsamples < RX_SAMPLES; tries++) {
        struct bz_buf b;
        bz_buf_init(&b);
        sample(&ps, root, &seed, &b);
        if (b.len <= 512 && regexec(&re, b.data ? b.data : "", 0, NULL, 0) == 0)
            out->samples[out->nsamples++] = b.data ? bz_buf_steal(&b) : bz_strdup("");
        bz_buf_free(&b);
    }
    regfree(&re);
    free(ps.nodes);
    if (!out->nsamples) {
        snprintf(why, why_len, "no printable string of up to 512 bytes matches it");
        return -1;
    }
    return 0;
}

void rx_free(struct rx_result *r)
{
    bz_buf_free(&r->ere);
    for (int k = 0; k < r->nsamples; k++)
        free(r->samples[k]);
    r->nsamples = 0;
}
