/* Plain C benchmarks for the operators on tensors of strings: Cast and CastLike to and from
 * strings, StringNormalizer, StringConcat, StringSplit and RegexFullMatch (the PL_STR_* kinds),
 * and the string table of TfIdfVectorizer (plain_nn.h). Inlined after plain_ops.h, whose
 * setup, kernel and verification call into it.
 *
 * A string tensor is an array of char * (each NUL-terminated, UTF-8); the characters of each
 * tensor live in one arena (s->text), made at setup, so the timed kernel allocates nothing.
 *
 * Cast to a string writes a number as ONNX Runtime does (one printf per element): integers
 * in decimal, booleans 1 and 0, floats of every type with eight significant digits in %g's
 * form ('0.1', '1e+20', '9.9999997e-06', '-0'), NaN, INF, -INF. (onnx's reference prints as
 * numpy does, the shortest digits that read back to the value: about three times the work,
 * and not what a deployed model runs.) Cast from a string parses a number as strtod/strtoll
 * read it. The inputs are numbers
 * of the other side's type over many magnitudes, every ninth a special one (zero, negative
 * zero, infinities, NaN, as ONNX lists them in its text forms).
 *
 * RegexFullMatch: gen translates the RE2 pattern into a POSIX extended regular expression that
 * matches the same ASCII strings, anchored at both ends (generator/re2posix.c), and writes strings
 * that match it; the inputs are those samples and, every other one, a sample with one byte
 * changed; the kernel is the C library's regexec on each element.
 *
 * StringNormalizer as ONNX defines it: the elements equal to a stopword (ASCII case folded
 * unless is_case_sensitive) are removed, then the rest change case (ASCII letters; other bytes
 * are copied); when nothing is left the output is one empty string. Its inputs are words of
 * one to twelve letters, a quarter of them stopwords in their own, lower or upper case. The
 * kernel finds stopwords in a hash table made at setup; --verify recomputes every output by
 * comparing each element with each stopword in turn and changing case by its own route. */
#ifndef BENANZA_PLAIN_STRING_H
#define BENANZA_PLAIN_STRING_H

#include <regex.h>
#include <stdio.h>
#include <strings.h>

static inline int pl_ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* ---- numbers to text and back ---- */

/* a float as ONNX Runtime prints it: eight significant digits in printf's %g form, NaN, INF
 * and -INF; into buf (48 bytes); returns the length */
static inline int pl_format_float(double v, char *buf)
{
    if (v != v)
        return snprintf(buf, 48, "NaN");
    if (isinf(v))
        return snprintf(buf, 48, v < 0 ? "-INF" : "INF");
    return snprintf(buf, 48, "%.8g", v);
}

/* element i of the numeric tensor p (type dt) as text into buf (48 bytes); returns the length */
static inline int pl_format_number(const void *p, int dt, int64_t i, char *buf)
{
    if (dt == PL_BOOL)
        return snprintf(buf, 48, ((const uint8_t *)p)[i] ? "1" : "0");
    if (pl_is_float(dt))
        return pl_format_float(pl_load(p, dt, i), buf);
    if (dt == PL_UINT64)
        return snprintf(buf, 48, "%llu", (unsigned long long)((const uint64_t *)p)[i]);
    if (dt == PL_INT64)
        return snprintf(buf, 48, "%lld", (long long)((const int64_t *)p)[i]);
    return snprintf(buf, 48, "%lld", (long long)pl_load(p, dt, i));
}

/* text as a number of type dt into element i of p */
static inline void pl_parse_number(const char *text, void *p, int dt, int64_t i)
{
    if (pl_is_float(dt))
        pl_store(p, dt, i, strtod(text, NULL));
    else if (dt == PL_UINT64)
        ((uint64_t *)p)[i] = strtoull(text, NULL, 10);
    else if (dt == PL_INT64)
        ((int64_t *)p)[i] = strtoll(text, NULL, 10);
    else
        pl_store(p, dt, i, (double)strtoll(text, NULL, 10));
}

/* a number of type dt for input element k: many magnitudes, every ninth a special one */
static inline double pl_str_number(int dt, uint32_t *seed, int64_t k)
{
    double u = (double)pl_rand_step(seed) / 16777216.0;
    if (dt == PL_BOOL)
        return u < 0.5;
    if (!pl_is_float(dt)) { /* integers of up to 9 digits that fit the type */
        double lo, hi;
        pl_int_range(dt, &lo, &hi);
        lo = lo < -1e9 ? -1e9 : lo;
        hi = hi > 1e9 ? 1e9 : hi;
        return floor(lo + u * (hi - lo));
    }
    if (k % 9 == 8) {
        static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
        return special[(k / 9) % 5];
    }
    int top = dt == PL_DOUBLE ? 40 : dt == PL_FLOAT16 ? 4 : 30, bottom = dt == PL_FLOAT16 ? -4 : -12;
    int e = bottom + (int)(pl_rand_step(seed) % (uint32_t)(top - bottom + 1));
    return (2 * u - 1) * pow(10.0, e);
}

/* ---- StringNormalizer's stopword table: open addressing on a hash of the folded text ---- */

static inline uint64_t pl_str_hash(const char *t, int fold)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++) {
        h ^= (unsigned char)(fold ? pl_ascii_lower((unsigned char)*t) : *t);
        h *= 1099511628211ull;
    }
    return h;
}

static inline int pl_str_equal(const char *a, const char *b, int fold)
{
    if (!fold)
        return strcmp(a, b) == 0;
    for (; *a && *b; a++, b++)
        if (pl_ascii_lower((unsigned char)*a) != pl_ascii_lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* A table of n words (StringNormalizer's stopwords, TfIdfVectorizer's pool) of
 * pl_hash_slots(n) slots, each a word's index, or -1 when empty */
static inline void pl_text_table(int64_t *slot, const char *const *words, int64_t n, int fold)
{
    int64_t mask = pl_hash_slots(n) - 1;
    for (int64_t j = 0; j <= mask; j++)
        slot[j] = -1;
    for (int64_t w = 0; w < n; w++) {
        int64_t at = (int64_t)(pl_str_hash(words[w], fold) & (uint64_t)mask);
        while (slot[at] >= 0)
            at = (at + 1) & mask;
        slot[at] = w;
    }
}

/* the index of a word equal to t, or -1 */
static inline int64_t pl_text_find(const int64_t *slot, const char *const *words, int64_t n, const char *t, int fold)
{
    int64_t mask = pl_hash_slots(n) - 1;
    for (int64_t at = (int64_t)(pl_str_hash(t, fold) & (uint64_t)mask);; at = (at + 1) & mask) {
        if (slot[at] < 0 || pl_str_equal(words[slot[at]], t, fold))
            return slot[at];
    }
}

/* ---- StringConcat and StringSplit ---- */

/* a word of lo to hi letters (and digits, unless letters), none of them in avoid, into t;
 * returns its length */
static inline int pl_str_word(char *t, int lo, int hi, uint32_t *seed, const char *avoid, int letters)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    int m = lo + (int)(pl_rand_step(seed) % (uint32_t)(hi - lo + 1)), j = 0;
    for (int tries = 0; j < m && tries < 64 * m; tries++) {
        char c = abc[pl_rand_step(seed) % (letters ? 52u : 62u)];
        if (!avoid || !strchr(avoid, c))
            t[j++] = c;
    }
    t[j] = '\0';
    return j;
}

/* Python's whitespace among ASCII bytes (what str.split() with no separator splits on) */
static inline int pl_is_space(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* StringSplit of t as Python's str.split does it: each part's start and length into at, len
 * (at most cap of them); returns the count of parts */
static inline int64_t pl_split(const char *t, const struct pl_str *st, const char **at, int64_t *len, int64_t cap)
{
    int64_t k = 0;
    if (st->delim) {
        size_t dl = strlen(st->delim);
        const char *c = t;
        for (;;) {
            const char *e = c;
            if (st->maxsplit < 0 || k < st->maxsplit) /* the next delimiter, by hand */
                while (*e && strncmp(e, st->delim, dl) != 0)
                    e++;
            else
                e = c + strlen(c);
            if (k < cap)
                at[k] = c, len[k] = e - c;
            k++;
            if (!*e)
                return k;
            c = e + dl;
        }
    }
    const char *c = t;
    while (pl_is_space((unsigned char)*c))
        c++;
    while (*c) {
        const char *e = c;
        if (st->maxsplit >= 0 && k == st->maxsplit) /* the rest, its trailing space kept */
            e = c + strlen(c);
        else
            while (*e && !pl_is_space((unsigned char)*e))
                e++;
        if (k < cap)
            at[k] = c, len[k] = e - c;
        k++;
        c = e;
        while (pl_is_space((unsigned char)*c))
            c++;
    }
    return k;
}

/* words, a ninth of them empty (StringConcat: both inputs; StringSplit: up to eight words
 * joined by the delimiter, some empty, or by runs of spaces and tabs with some at the ends) */
static inline enum bh_status pl_words_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_str *st = &op->str;
    uint32_t seed = 314159u;
    int64_t dl = st->delim ? (int64_t)strlen(st->delim) : 3, room = 8 * (6 + dl) + 8;
    for (int i = 0; i < op->nin; i++)
        pl_bcast_strides(&op->in[i], &op->out, s->strides[i]);
    for (int i = 0; i < op->nin; i++) {
        int64_t n = pl_count(&op->in[i]);
        char **in = (char **)s->in[i];
        if (!(s->text[i] = (char *)malloc((size_t)(n ? n : 1) * (size_t)room))) {
            bh_note(r, "%s", "cannot allocate the input's text");
            return BH_OOM;
        }
        for (int64_t k = 0; k < n; k++) {
            char *t = in[k] = s->text[i] + k * room;
            if (PL_KIND_OF(op) == PL_STR_CONCAT) {
                pl_str_word(t, 0, 8, &seed, NULL, 0);
                continue;
            }
            int words = (int)(pl_rand_step(&seed) % 9), m = 0; /* 0 to 8; none: an empty text */
            for (int w = 0; w < words; w++) {
                if (w && st->delim) {
                    memcpy(t + m, st->delim, (size_t)dl);
                    m += (int)dl;
                }
                if (st->delim) {
                    m += pl_str_word(t + m, 0, 6, &seed, st->delim, 0);
                    continue;
                }
                int gap = w || pl_rand_step(&seed) % 4 == 0 ? 1 + (int)(pl_rand_step(&seed) % 3) : 0;
                for (int g = 0; g < gap; g++)
                    t[m++] = pl_rand_step(&seed) % 3 ? ' ' : '\t';
                m += pl_str_word(t + m, 1, 6, &seed, NULL, 0);
            }
            if (!st->delim && pl_rand_step(&seed) % 4 == 0)
                t[m++] = ' ';
            t[m] = '\0';
        }
    }
    int64_t n = pl_count(&op->out), bytes = 1;
    if (PL_KIND_OF(op) == PL_STR_CONCAT) { /* each output's length, the inputs broadcast */
        for (int64_t i = 0; i < n; i++) {
            int64_t rem = i, p[2] = {0, 0};
            for (int k = op->out.nd - 1; k >= 0; k--) {
                int64_t c = rem % op->out.d[k];
                rem /= op->out.d[k];
                for (int j = 0; j < 2; j++)
                    p[j] += c * s->strides[j][k];
            }
            bytes += (int64_t)(strlen(((char **)s->in[0])[p[0]]) + strlen(((char **)s->in[1])[p[1]])) + 1;
        }
    } else { /* the parts, copied with their ends; each element's parts found */
        int64_t m = pl_count(&op->in[0]), cap = op->out.d[op->out.nd - 1];
        bytes += m * (room + cap + 1);
        s->aux = (int64_t *)malloc((size_t)(m ? m : 1) * sizeof(int64_t));
        s->table = malloc((size_t)(m * cap > 0 ? m * cap : 1) * (sizeof(const char *) + sizeof(int64_t)));
        if (!s->aux || !s->table) {
            bh_note(r, "%s", "cannot allocate the parts");
            return BH_OOM;
        }
    }
    if (!(s->text[PL_MAX_IN] = (char *)malloc((size_t)bytes))) {
        bh_note(r, "%s", "cannot allocate the output's text");
        return BH_OOM;
    }
    return BH_OK;
}

static inline void pl_kernel_concat(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    char *const *a = (char *const *)s->in[0], *const *b = (char *const *)s->in[1];
    char **out = (char **)s->out, *text = s->text[PL_MAX_IN];
    int64_t n = pl_count(&op->out), idx[8] = {0}, pos[2] = {0, 0};
    for (int64_t i = 0; i < n; i++) {
        size_t la = strlen(a[pos[0]]), lb = strlen(b[pos[1]]);
        out[i] = text;
        memcpy(text, a[pos[0]], la);
        memcpy(text + la, b[pos[1]], lb + 1);
        text += la + lb + 1;
        for (int k = op->out.nd - 1; k >= 0; k--) { /* the odometer */
            idx[k]++;
            pos[0] += s->strides[0][k], pos[1] += s->strides[1][k];
            if (idx[k] < op->out.d[k])
                break;
            pos[0] -= s->strides[0][k] * idx[k], pos[1] -= s->strides[1][k] * idx[k];
            idx[k] = 0;
        }
    }
}

static inline void pl_kernel_split(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    char *const *in = (char *const *)s->in[0];
    char **out = (char **)s->out, *text = s->text[PL_MAX_IN];
    int64_t m = pl_count(&op->in[0]), cap = op->out.d[op->out.nd - 1], most = 0;
    const char **at = (const char **)s->table;
    int64_t *len = (int64_t *)(at + m * cap);
    for (int64_t i = 0; i < m; i++) {
        s->aux[i] = pl_split(in[i], &op->str, at + i * cap, len + i * cap, cap);
        most = s->aux[i] > most ? s->aux[i] : most;
    }
    most = most < cap ? most : cap;
    char *empty = text++;
    *empty = '\0';
    for (int64_t i = 0; i < m; i++) /* [..., most]: the parts, then empty strings */
        for (int64_t k = 0; k < most; k++) {
            if (k >= s->aux[i]) {
                out[i * most + k] = empty;
                continue;
            }
            out[i * most + k] = text;
            memcpy(text, at[i * cap + k], (size_t)len[i * cap + k]);
            text += len[i * cap + k];
            *text++ = '\0';
        }
    s->selected = m * most;
}

/* StringConcat: each output from its coordinates, by snprintf; StringSplit: each element
 * split again with strstr (or strspn/strcspn on whitespace), its parts, its padding and
 * the count compared */
static inline int64_t pl_verify_words(const struct pl_state *s)
{
    const struct pl_op *op = s->op;
    char *const *out = (char *const *)s->out;
    if (PL_KIND_OF(op) == PL_STR_CONCAT) {
        int64_t n = pl_count(&op->out);
        for (int64_t i = 0; i < n; i++) {
            int64_t rem = i, p[2] = {0, 0};
            for (int k = op->out.nd - 1; k >= 0; k--) {
                int64_t c = rem % op->out.d[k];
                rem /= op->out.d[k];
                for (int j = 0; j < 2; j++) {
                    const struct pl_tensor *t = &op->in[j];
                    int kk = k - (op->out.nd - t->nd);
                    int64_t stride = 1;
                    for (int q = kk + 1; q < t->nd; q++)
                        stride *= t->d[q];
                    p[j] += kk >= 0 && t->d[kk] != 1 ? c * stride : 0;
                }
            }
            char want[64];
            snprintf(want, sizeof(want), "%s%s", ((char *const *)s->in[0])[p[0]], ((char *const *)s->in[1])[p[1]]);
            if (strcmp(out[i], want))
                return i;
        }
        return -1;
    }
    const struct pl_str *st = &op->str;
    int64_t m = pl_count(&op->in[0]), most = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < m; i++) {
            const char *c = ((char *const *)s->in[0])[i];
            int64_t k = 0;
            size_t dl = st->delim ? strlen(st->delim) : 0;
            static const char space[] = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
            if (!st->delim)
                c += strspn(c, space);
            while (st->delim || *c) {
                const char *e = st->maxsplit >= 0 && k == st->maxsplit ? NULL : st->delim ? strstr(c, st->delim) : c + strcspn(c, space);
                size_t l = e ? (size_t)(e - c) : strlen(c);
                if (pass == 1) {
                    if (k >= most || i * most + k >= s->selected || strlen(out[i * most + k]) != l ||
                        strncmp(out[i * most + k], c, l))
                        return i;
                }
                k++;
                if (!e || (!st->delim && !*e))
                    break;
                c = st->delim ? e + dl : e + strspn(e, space);
            }
            if (pass == 0)
                most = k > most ? k : most;
            else if (s->aux[i] != k)
                return i;
            for (int64_t q = k; pass == 1 && q < most; q++)
                if (out[i * most + q][0])
                    return i;
        }
    return s->selected == m * most ? -1 : 0;
}

/* ---- RegexFullMatch ---- */

/* the inputs: gen's samples (strings that match the pattern) and, every other one, a sample
 * with one byte changed (most of those no longer match); the pattern compiled (s->table) */
static inline enum bh_status pl_regex_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_str *st = &op->str;
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-_@";
    int64_t n = pl_count(&op->in[0]), room = 2;
    uint32_t seed = 161803u;
    for (int64_t k = 0; k < st->nsamples; k++)
        room = (int64_t)strlen(st->samples[k]) + 2 > room ? (int64_t)strlen(st->samples[k]) + 2 : room;
    s->text[0] = (char *)malloc((size_t)(n ? n : 1) * (size_t)room);
    s->table = malloc(sizeof(regex_t));
    if (!s->text[0] || !s->table || !st->nsamples) {
        bh_note(r, "%s", "cannot allocate the inputs");
        return BH_OOM;
    }
    if (regcomp((regex_t *)s->table, st->regex, REG_EXTENDED | REG_NOSUB) != 0) {
        free(s->table);
        s->table = NULL;
        bh_note(r, "%s", "the C library cannot compile the pattern's POSIX form");
        return BH_UNSUPPORTED;
    }
    for (int64_t k = 0; k < n; k++) {
        char *t = ((char **)s->in[0])[k] = s->text[0] + k * room;
        strcpy(t, st->samples[(k / 2) % st->nsamples]);
        size_t m = strlen(t);
        if (k % 2 && m)
            t[pl_rand_step(&seed) % m] = abc[pl_rand_step(&seed) % (sizeof(abc) - 1)];
        else if (k % 2)
            t[0] = abc[pl_rand_step(&seed) % (sizeof(abc) - 1)], t[1] = '\0';
    }
    return BH_OK;
}

static inline void pl_kernel_regex(struct pl_state *s)
{
    char *const *in = (char *const *)s->in[0];
    int64_t n = pl_count(&s->op->in[0]);
    for (int64_t i = 0; i < n; i++)
        ((uint8_t *)s->out)[i] = regexec((const regex_t *)s->table, in[i], 0, NULL, 0) == 0;
}

/* the pattern without its anchors, compiled again: a full match is a leftmost-longest match
 * from the first byte to the last; the first element that differs, or -1 (-2: no reference) */
static inline int64_t pl_verify_regex(const struct pl_state *s)
{
    const struct pl_str *st = &s->op->str;
    size_t len = strlen(st->regex);
    char *bare = (char *)malloc(len + 1);
    regex_t re;
    if (!bare || len < 2) {
        free(bare);
        return -2;
    }
    memcpy(bare, st->regex + 1, len - 2); /* "^(...)$" -> "(...)" */
    bare[len - 2] = '\0';
    int bad = regcomp(&re, bare, REG_EXTENDED);
    free(bare);
    if (bad)
        return -2;
    int64_t n = pl_count(&s->op->in[0]), at = -1;
    for (int64_t i = 0; i < n && at < 0; i++) {
        const char *t = ((char *const *)s->in[0])[i];
        regmatch_t m;
        int full = regexec(&re, t, 1, &m, 0) == 0 && m.rm_so == 0 && (size_t)m.rm_eo == strlen(t);
        if (((const uint8_t *)s->out)[i] != full)
            at = i;
    }
    regfree(&re);
    return at;
}

static inline void pl_string_free(struct pl_state *s)
{
    if (PL_KIND_OF(s->op) == PL_STR_REGEX && s->table)
        regfree((regex_t *)s->table);
}

/* ---- setup, kernel, verification ---- */

static inline enum bh_status pl_string_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t n = pl_count(x), no = pl_count(&op->out);
    uint32_t seed = 271828u;
    char **in = (char **)s->in[0];
    if (PL_KIND_OF(op) == PL_STR_CONCAT || PL_KIND_OF(op) == PL_STR_SPLIT)
        return pl_words_setup(s, r);
    if (PL_KIND_OF(op) == PL_STR_REGEX)
        return pl_regex_setup(s, r);
    if (PL_KIND_OF(op) == PL_STR_CAST && x->dtype != PL_STRING) { /* numbers to print; room for each text */
        for (int64_t k = 0; k < n; k++)
            pl_store(s->in[0], x->dtype, k, pl_str_number(x->dtype, &seed, k));
        if (!(s->text[PL_MAX_IN] = (char *)malloc((size_t)(n ? n : 1) * 48))) {
            bh_note(r, "%s", "cannot allocate the output's text");
            return BH_OOM;
        }
        return BH_OK;
    }
    /* the input's strings: numbers of the output's type, or words */
    char *arena = s->text[0] = (char *)malloc((size_t)(n ? n : 1) * 48);
    if (!arena) {
        bh_note(r, "%s", "cannot allocate the input's text");
        return BH_OOM;
    }
    int64_t used = 0;
    for (int64_t k = 0; k < n; k++) {
        char *t = in[k] = arena + k * 48;
        if (PL_KIND_OF(op) == PL_STR_CAST) {
            int dt = op->out.dtype;
            double v = pl_str_number(dt, &seed, k);
            if (!pl_is_float(dt))
                snprintf(t, 48, "%.0f", v);
            else if (v != v)
                snprintf(t, 48, k % 2 ? "NaN" : "nan");
            else if (isinf(v))
                snprintf(t, 48, v < 0 ? (k % 2 ? "-INF" : "-inf") : (k % 2 ? "INF" : "inf"));
            else
                snprintf(t, 48, k % 3 ? "%.9g" : "%.6E", (double)(float)v); /* plain and scientific forms */
            continue;
        }
        const struct pl_str *st = &op->str;
        uint32_t u = pl_rand_step(&seed);
        if (st->nstop && u % 4 == 0) { /* a stopword, as it is, in lower or in upper case */
            const char *w = st->stop[(u >> 2) % (uint32_t)st->nstop];
            int how = (int)((u >> 12) % 3);
            size_t m = strlen(w) < 47 ? strlen(w) : 47;
            for (size_t j = 0; j < m; j++) {
                int c = (unsigned char)w[j];
                t[j] = (char)(how == 1 ? pl_ascii_lower(c) : how == 2 && c >= 'a' && c <= 'z' ? c - 32 : c);
            }
            t[m] = '\0';
        } else {
            pl_str_word(t, 1, 12, &seed, NULL, 1);
        }
        used += (int64_t)strlen(t) + 1;
    }
    if (PL_KIND_OF(op) == PL_STR_CAST)
        return BH_OK;
    /* StringNormalizer: the output's text (at most the input's, or one empty string) and the
     * stopword table */
    const struct pl_str *st = &op->str;
    s->text[PL_MAX_IN] = (char *)malloc((size_t)used + 1);
    s->table = malloc((size_t)pl_hash_slots(st->nstop) * sizeof(int64_t));
    if (!s->text[PL_MAX_IN] || !s->table || no < 1) {
        bh_note(r, "%s", "cannot allocate the output's text");
        return BH_OOM;
    }
    pl_text_table((int64_t *)s->table, st->stop, st->nstop, !st->sensitive);
    return BH_OK;
}

static inline void pl_kernel_string(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t n = pl_count(x);
    char **out = (char **)s->out, *text = s->text[PL_MAX_IN];
    if (PL_KIND_OF(op) == PL_STR_CONCAT) {
        pl_kernel_concat(s);
        return;
    }
    if (PL_KIND_OF(op) == PL_STR_SPLIT) {
        pl_kernel_split(s);
        return;
    }
    if (PL_KIND_OF(op) == PL_STR_REGEX) {
        pl_kernel_regex(s);
        return;
    }
    if (PL_KIND_OF(op) == PL_STR_CAST) {
        if (x->dtype == PL_STRING) {
            char *const *in = (char *const *)s->in[0];
            for (int64_t i = 0; i < n; i++)
                pl_parse_number(in[i], s->out, op->out.dtype, i);
            return;
        }
        for (int64_t i = 0; i < n; i++) {
            out[i] = text;
            text += pl_format_number(s->in[0], x->dtype, i, text) + 1;
        }
        return;
    }
    const struct pl_str *st = &op->str;
    char *const *in = (char *const *)s->in[0];
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++) {
        if (st->nstop && pl_text_find((const int64_t *)s->table, st->stop, st->nstop, in[i], !st->sensitive) >= 0)
            continue;
        out[kept++] = text;
        for (const char *c = in[i]; *c; c++) {
            int ch = (unsigned char)*c;
            if (st->case_change == 1 && ch >= 'A' && ch <= 'Z')
                ch += 'a' - 'A';
            else if (st->case_change == 2 && ch >= 'a' && ch <= 'z')
                ch -= 'a' - 'A';
            *text++ = (char)ch;
        }
        *text++ = '\0';
    }
    if (!kept) { /* nothing left: one empty string */
        out[kept++] = text;
        *text = '\0';
    }
    s->selected = kept;
}

/* the decimal exponent of a >= 0 (0 for 0), log10's rounding near a power of ten mended */
static inline int pl_exp10(double a)
{
    int x = a > 0 ? (int)floor(log10(a)) : 0;
    return a > 0 && a >= pow(10.0, x + 1) ? x + 1 : x;
}

/* Cast: each element by another route (text read by sscanf; numbers printed: integers by
 * printf of their own type, floats read back and their form checked); StringNormalizer: each
 * element against each stopword in turn, case changed by a table; the others in their own
 * functions above */
static inline enum bh_status pl_verify_string(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    const struct pl_tensor *x = &op->in[0];
    int64_t n = pl_count(x), bad = -1;
    char *const *out = (char *const *)s->out, *const *in = (char *const *)s->in[0];
    if (PL_KIND_OF(op) == PL_STR_REGEX) {
        if ((bad = pl_verify_regex(s)) == -2) {
            bh_note(r, "%s", "cannot compile the reference's pattern");
            return BH_OOM;
        }
    } else if (PL_KIND_OF(op) == PL_STR_CONCAT || PL_KIND_OF(op) == PL_STR_SPLIT) {
        bad = pl_verify_words(s);
    } else if (PL_KIND_OF(op) == PL_STR_CAST && x->dtype == PL_STRING) {
        int dt = op->out.dtype;
        for (int64_t i = 0; i < n && bad < 0; i++) {
            double want = 0, got = pl_load(s->out, dt, i);
            long long iv = 0;
            unsigned long long uv = 0;
            if (pl_is_float(dt)) {
                if (sscanf(in[i], "%lf", &want) != 1)
                    want = NAN;
                pl_store(s->check, dt, 0, want);
                want = pl_load(s->check, dt, 0);
                if (!(got == want || (got != got && want != want)) || signbit(got) != signbit(want))
                    bad = i;
            } else if (dt == PL_UINT64) {
                if (sscanf(in[i], "%llu", &uv) != 1 || ((const uint64_t *)s->out)[i] != uv)
                    bad = i;
            } else if (sscanf(in[i], "%lld", &iv) != 1 || (dt == PL_INT64 ? ((const int64_t *)s->out)[i] != iv
                                                                              : got != (double)iv)) {
                bad = i;
            }
        }
    } else if (PL_KIND_OF(op) == PL_STR_CAST) {
        int dt = x->dtype;
        for (int64_t i = 0; i < n && bad < 0; i++) {
            const char *t = out[i];
            if (dt == PL_BOOL || !pl_is_float(dt)) {
                char want[48];
                if (dt == PL_BOOL)
                    snprintf(want, sizeof(want), "%s", ((const uint8_t *)s->in[0])[i] ? "1" : "0");
                else if (dt == PL_UINT64)
                    snprintf(want, sizeof(want), "%llu", (unsigned long long)((const uint64_t *)s->in[0])[i]);
                else
                    snprintf(want, sizeof(want), "%lld", dt == PL_INT64 ? (long long)((const int64_t *)s->in[0])[i]
                                                                         : (long long)pl_load(s->in[0], dt, i));
                bad = strcmp(t, want) ? i : -1;
                continue;
            }
            /* a float: NaN, INF, -INF as words; else the text reads back to within half a unit
             * of its eighth significant digit, has at most eight, and has %g's form (an
             * exponent of two digits at least when the value's is below -4 or above 7; no
             * trailing zeros after the point, no point without digits after it) */
            double v = pl_load(s->in[0], dt, i);
            if (v != v || isinf(v)) {
                bad = strcmp(t, v != v ? "NaN" : v < 0 ? "-INF" : "INF") ? i : -1;
                continue;
            }
            char *end = NULL;
            double back = strtod(t, &end), a = fabs(v);
            int x10 = pl_exp10(a);
            const char *e = strchr(t, 'e'), *dot = strchr(t, '.');
            const char *mant_end = e ? e : t + strlen(t);
            int digits = 0, lead = 1;
            for (const char *c = t; c < mant_end; c++) {
                lead = lead && (*c == '0' || *c == '.' || *c == '-');
                digits += !lead && *c >= '0' && *c <= '9';
            }
            double unit = pow(10.0, x10 - 7);
            int rounded = a == 0 ? back == 0 && signbit(back) == signbit(v)
                                 : fabs(back - v) <= 0.5 * unit * (1 + 1e-6) && (back < 0) == (v < 0);
            int xb = pl_exp10(fabs(back)); /* the exponent after rounding decides */
            int sci = back != 0 && (xb < -4 || xb >= 8);
            int form = *end == '\0' && digits <= 8 && (sci ? e && strlen(e) >= 4 : !e) &&
                       (!dot || (mant_end[-1] != '0' && mant_end[-1] != '.'));
            if (!rounded || !form)
                bad = i;
        }
    } else {
        const struct pl_str *st = &op->str;
        int64_t kept = 0;
        char up[256], low[256];
        for (int c = 0; c < 256; c++) {
            up[c] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
            low[c] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        for (int64_t i = 0; i < n && bad < 0; i++) {
            int stop = 0;
            for (int64_t w = 0; w < st->nstop && !stop; w++)
                stop = st->sensitive ? !strcmp(in[i], st->stop[w]) : !strcasecmp(in[i], st->stop[w]);
            if (stop)
                continue;
            const char *got = kept < s->selected ? out[kept] : "";
            size_t m = strlen(in[i]);
            if (strlen(got) != m)
                bad = kept;
            for (size_t j = 0; j < m && bad < 0; j++) {
                unsigned char c = (unsigned char)in[i][j];
                char want = st->case_change == 1 ? low[c] : st->case_change == 2 ? up[c] : (char)c;
                if (got[j] != want)
                    bad = kept;
            }
            kept++;
        }
        if (bad < 0 && !(kept ? s->selected == kept : s->selected == 1 && out[0][0] == '\0')) {
            bh_note(r, "the output holds %lld strings, the reference %lld", (long long)s->selected, (long long)kept);
            return BH_WRONG;
        }
    }
    if (bad >= 0) {
        bh_note(r, "output element %lld differs from the reference", (long long)bad);
        return BH_WRONG;
    }
    bh_note(r, "%s", PL_KIND_OF(op) == PL_STR_NORMALIZE
                         ? "verified against the reference: each element compared with each stopword, case changed by table (exact)"
                     : PL_KIND_OF(op) == PL_STR_CAST
                         ? "verified against the reference: every element read back or printed by another route (exact)"
                     : PL_KIND_OF(op) == PL_STR_REGEX
                         ? "verified against the reference: each element's leftmost-longest match of the unanchored pattern spans it (exact)"
                         : "verified against the reference: every element by another route (exact)");
    return BH_OK;
}

#endif
