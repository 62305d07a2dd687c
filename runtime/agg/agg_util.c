/* agg_util.c: allocation that stops on out-of-memory, growable text, a string hash map. */
#include "agg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void agg_oom(void)
{
    fputs("agg: error: out of memory\n", stderr);
    exit(AGG_EXIT_INTERNAL);
}

void *agg_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        agg_oom();
    return p;
}

void *agg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        agg_oom();
    return p;
}

void *agg_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        agg_oom();
    return q;
}

char *agg_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = agg_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *agg_xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        agg_oom();
    char *p = agg_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

static void agg_buf_reserve(struct agg_buf *b, size_t extra)
{
    if (b->n + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1)
        cap *= 2;
    b->p = agg_xrealloc(b->p, cap);
    b->cap = cap;
}

void agg_buf_put(struct agg_buf *b, const char *s, size_t n)
{
    agg_buf_reserve(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void agg_buf_puts(struct agg_buf *b, const char *s)
{
    agg_buf_put(b, s, strlen(s));
}

void agg_buf_printf(struct agg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    agg_buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void agg_buf_free(struct agg_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static uint64_t agg_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct agg_map_slot *agg_map_find(const struct agg_map *m, const char *key, uint64_t h)
{
    if (!m->cap)
        return NULL;
    size_t i = (size_t)h & (m->cap - 1);
    for (;;) {
        struct agg_map_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && !strcmp(s->key, key)))
            return s;
        i = (i + 1) & (m->cap - 1);
    }
}

void *agg_map_get(const struct agg_map *m, const char *key)
{
    struct agg_map_slot *s = agg_map_find(m, key, agg_hash(key));
    return s && s->key ? s->val : NULL;
}

void **agg_map_put(struct agg_map *m, const char *key, void *val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct agg_map old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->slots = agg_xcalloc(m->cap, sizeof(*m->slots));
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++) {
            if (!old.slots[i].key)
                continue;
            struct agg_map_slot *s = agg_map_find(m, old.slots[i].key, old.slots[i].hash);
            *s = old.slots[i];
            m->n++;
        }
        free(old.slots);
    }
    uint64_t h = agg_hash(key);
    struct agg_map_slot *s = agg_map_find(m, key, h);
    if (!s->key) {
        s->key = agg_xstrdup(key);
        s->hash = h;
        m->n++;
    }
    s->val = val;
    return &s->val;
}

void agg_map_free(struct agg_map *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key)
            continue;
        free(m->slots[i].key);
        if (free_val)
            free_val(m->slots[i].val);
    }
    free(m->slots);
    m->slots = NULL;
    m->n = m->cap = 0;
}

void *agg_map_get_id(const struct agg_map *m, long long id)
{
    char k[24];
    snprintf(k, sizeof(k), "%lld", id);
    return agg_map_get(m, k);
}

void agg_map_put_id(struct agg_map *m, long long id, void *val)
{
    char k[24];
    snprintf(k, sizeof(k), "%lld", id);
    agg_map_put(m, k, val);
}

size_t agg_utf8_seq(const unsigned char *p)
{
    unsigned char c = *p;
    size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    }
    return len;
}

/* a decimal number as the benchmarks print it: [+-]digits[.digits][e[+-]digits] (or
 * .digits): no spaces, no hex, no inf or nan */
static int agg_decimal(const char *s)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9')
            p++, digits++;
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

int agg_parse_double(const char *s, double *out)
{
    if (!*s || !agg_decimal(s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* the numbers of a "1,2,3" list (NULL, *N 0 for "" or "-"), malloc'd */
int *agg_parse_list(const char *s, int *n)
{
    *n = 0;
    if (!s || !*s || !strcmp(s, "-"))
        return NULL;
    int cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int *v = agg_xmalloc((size_t)cap * sizeof(int));
    for (const char *p = s; *p;) {
        v[(*n)++] = (int)strtol(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    return v;
}

int agg_parse_long(const char *s, long *out)
{
    const char *p = s + (*s == '+' || *s == '-');
    if (!*p)
        return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

/* shell-style pattern (*, ?, [..]) over the whole string; NULL or "" matches everything */
int agg_glob(const char *p, const char *s)
{
    if (!p || !*p)
        return 1;
    const char *star = NULL, *retry = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            retry = s;
            continue;
        }
        if (*p == '?' || *p == *s) {
            p++;
            s++;
            continue;
        }
        if (*p == '[') {
            const char *q = p + 1;
            int neg = (*q == '!' || *q == '^'), hit = 0;
            if (neg)
                q++;
            for (; *q && *q != ']'; q++) {
                if (q[1] == '-' && q[2] && q[2] != ']') {
                    hit |= (*s >= q[0] && *s <= q[2]);
                    q += 2;
                } else {
                    hit |= (*s == *q);
                }
            }
            if (*q == ']' && hit != neg) {
                p = q + 1;
                s++;
                continue;
            }
        }
        if (!star)
            return 0;
        p = star;
        s = ++retry;
    }
    while (*p == '*')
        p++;
    return !*p;
}

/* Text from an input file (or a path) in a message: control bytes and DEL as \xNN, so that a
 * file cannot drive the terminal, and a message stays one line */
void agg_fput_safe(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}
