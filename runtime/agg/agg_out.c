/* agg_out.c: tables as aligned terminal text, CSV, JSON and Markdown. */
#include "agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void agg_fmt_us(char *buf, size_t n, double us)
{
    double a = fabs(us);
    if (isnan(us))
        snprintf(buf, n, "-");
    else if (a == 0)
        snprintf(buf, n, "0");
    else if (a < 1)
        snprintf(buf, n, "%.0f ns", us * 1e3);
    else if (a < 1e3)
        snprintf(buf, n, "%.*f us", a < 10 ? 2 : a < 100 ? 1 : 0, us);
    else if (a < 1e6)
        snprintf(buf, n, "%.*f ms", a < 1e4 ? 3 : a < 1e5 ? 2 : 1, us / 1e3);
    else
        snprintf(buf, n, "%.3f s", us / 1e6);
}

/* a cell as text; raw: numbers in full precision and without units (csv, json) */
static void agg_cell_text(const struct agg_table *t, int r, int c, int raw, char *buf, size_t n)
{
    const struct agg_cellv *v = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
    if (v->s) {
        snprintf(buf, n, "%s", v->s);
        return;
    }
    if (isnan(v->v)) {
        snprintf(buf, n, raw ? "" : "-");
        return;
    }
    switch (t->kinds[c]) {
    case AGG_COL_INT:
        snprintf(buf, n, "%.0f", v->v);
        break;
    case AGG_COL_US:
        if (raw)
            snprintf(buf, n, "%.3f", v->v);
        else
            agg_fmt_us(buf, n, v->v);
        break;
    case AGG_COL_RATIO:
        snprintf(buf, n, raw ? "%.4f" : "%.2fx", v->v);
        break;
    case AGG_COL_PCT:
        snprintf(buf, n, raw ? "%.3f" : "%.1f%%", v->v);
        break;
    case AGG_COL_NUM:
        snprintf(buf, n, raw ? "%.6g" : fabs(v->v) >= 1e4 && fabs(v->v) < 1e15 ? "%.0f" : "%.4g", v->v);
        break;
    default:
        snprintf(buf, n, raw ? "%.17g" : "%g", v->v);
    }
}

/* leading columns that name a model x type x device (text output shows --top rows of each) */
static int agg_group_cols(const struct agg_table *t)
{
    if (t->ncols >= 4 && !strcmp(t->cols[0], "model") && !strcmp(t->cols[3], "device"))
        return 4;
    if (t->ncols >= 2 && !strcmp(t->cols[0], "device") && !strcmp(t->cols[1], "type"))
        return 2;
    return 0;
}

static int agg_same_group(const struct agg_table *t, int a, int b, int g)
{
    for (int c = 0; c < g; c++) {
        const struct agg_cellv *x = &t->cells[(size_t)a * (size_t)t->ncols + (size_t)c];
        const struct agg_cellv *y = &t->cells[(size_t)b * (size_t)t->ncols + (size_t)c];
        if ((x->s || y->s) ? (!x->s || !y->s || strcmp(x->s, y->s)) : x->v != y->v)
            return 0;
    }
    return 1;
}

/* which rows text and markdown show: the first `top` of each group */
static char *agg_shown(const struct agg_table *t, int top, int *hidden)
{
    char *show = agg_xcalloc((size_t)t->nrows + 1, 1);
    int g = agg_group_cols(t), in_group = 0;
    *hidden = 0;
    for (int r = 0; r < t->nrows; r++) {
        in_group = (r && agg_same_group(t, r, r - 1, g)) ? in_group + 1 : 0;
        show[r] = !top || in_group < top;
        *hidden += !show[r];
    }
    return show;
}

static int agg_utf8_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* terminal text: control bytes never reach the terminal */
static void agg_put_safe(FILE *f, const char *s, int width, int right)
{
    int w = agg_utf8_width(s);
    if (right)
        for (int i = w; i < width; i++)
            fputc(' ', f);
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
    if (!right)
        for (int i = w; i < width; i++)
            fputc(' ', f);
}

static void agg_wrap(FILE *f, const char *text, int width, const char *pre, const char *post)
{
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p);
        if (n > width) {
            n = width;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = width;
        }
        fprintf(f, "%s%.*s%s\n", pre, n, p, post);
        p += n;
        while (*p == ' ')
            p++;
    }
}

static void agg_out_text(FILE *f, const struct agg_table *t, const struct agg_out_opts *o)
{
    const char *bold = o->colour ? "\033[1m" : "", *dim = o->colour ? "\033[2m" : "",
               *off = o->colour ? "\033[0m" : "";
    fprintf(f, "%s== %s (%s) ==%s\n", bold, t->title, t->name, off);
    agg_wrap(f, t->desc, 100, dim, off);
    if (!t->nrows) {
        fprintf(f, "  (no rows)\n\n");
        return;
    }
    int hidden;
    char *show = agg_shown(t, o->top, &hidden);
    int *w = agg_xcalloc((size_t)t->ncols, sizeof(int));
    char buf[512];
    for (int c = 0; c < t->ncols; c++)
        w[c] = agg_utf8_width(t->cols[c]);
    for (int r = 0; r < t->nrows; r++) {
        if (!show[r])
            continue;
        for (int c = 0; c < t->ncols; c++) {
            agg_cell_text(t, r, c, 0, buf, sizeof(buf));
            int n = agg_utf8_width(buf);
            if (n > 60)
                n = 60;
            if (n > w[c])
                w[c] = n;
        }
    }
    fputs(bold, f);
    for (int c = 0; c < t->ncols; c++) {
        fputs(c ? "  " : "", f);
        agg_put_safe(f, t->cols[c], w[c], t->kinds[c] != AGG_COL_TEXT);
    }
    fprintf(f, "%s\n", off);
    for (int r = 0; r < t->nrows; r++) {
        if (!show[r])
            continue;
        for (int c = 0; c < t->ncols; c++) {
            agg_cell_text(t, r, c, 0, buf, sizeof(buf));
            if (agg_utf8_width(buf) > 60) {
                /* cut at a character boundary */
                int k = 0, chars = 0;
                while (buf[k] && chars < 57) {
                    k++;
                    if (((unsigned char)buf[k] & 0xC0) != 0x80)
                        chars++;
                }
                snprintf(buf + k, sizeof(buf) - (size_t)k, "...");
            }
            fputs(c ? "  " : "", f);
            /* no padding after the last column */
            agg_put_safe(f, buf, c + 1 < t->ncols || t->kinds[c] != AGG_COL_TEXT ? w[c] : 0,
                         t->kinds[c] != AGG_COL_TEXT);
        }
        fputc('\n', f);
    }
    if (hidden)
        fprintf(f, "%s  ... %d more rows (--top 0 shows all)%s\n", dim, hidden, off);
    fputc('\n', f);
    free(w);
    free(show);
}

static void agg_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void agg_out_csv(FILE *f, const struct agg_table *t, int several)
{
    char buf[512];
    if (several)
        fprintf(f, "# %s: %s\n", t->name, t->title);
    for (int c = 0; c < t->ncols; c++) {
        fputs(c ? "," : "", f);
        agg_csv_field(f, t->cols[c]);
    }
    fputc('\n', f);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            fputs(c ? "," : "", f);
            agg_cell_text(t, r, c, 1, buf, sizeof(buf));
            agg_csv_field(f, buf);
        }
        fputc('\n', f);
    }
}

/* JSON string: valid UTF-8 passes, control and stray bytes become \u00XX */
static void agg_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t len = agg_utf8_seq(p);
        if (len) {
            fwrite(p, 1, len, f);
            p += len;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
        p++;
    }
    fputc('"', f);
}

static void agg_out_json(FILE *f, struct agg_table **ts, int n)
{
    static const char *const kind_names[] = {"text", "int", "us", "ratio", "percent", "number"};
    char buf[512];
    fprintf(f, "{\"agg\": \"%s\", \"reports\": [", AGG_VERSION);
    for (int i = 0; i < n; i++) {
        const struct agg_table *t = ts[i];
        fprintf(f, "%s\n {\"name\": ", i ? "," : "");
        agg_json_str(f, t->name);
        fputs(", \"title\": ", f);
        agg_json_str(f, t->title);
        fputs(", \"description\": ", f);
        agg_json_str(f, t->desc);
        fputs(", \"columns\": [", f);
        for (int c = 0; c < t->ncols; c++) {
            fprintf(f, "%s{\"name\": ", c ? ", " : "");
            agg_json_str(f, t->cols[c]);
            fprintf(f, ", \"kind\": \"%s\"}", kind_names[t->kinds[c]]);
        }
        fputs("],\n  \"rows\": [", f);
        for (int r = 0; r < t->nrows; r++) {
            fprintf(f, "%s\n   {", r ? "," : "");
            for (int c = 0; c < t->ncols; c++) {
                const struct agg_cellv *v = &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
                fputs(c ? ", " : "", f);
                agg_json_str(f, t->cols[c]);
                fputs(": ", f);
                if (v->s) {
                    agg_json_str(f, v->s);
                } else if (isnan(v->v)) {
                    fputs("null", f);
                } else {
                    agg_cell_text(t, r, c, 1, buf, sizeof(buf));
                    fputs(buf, f);
                }
            }
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
}

static void agg_md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '[' || *s == ']')
            fprintf(f, "\\%c", *s);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

static void agg_out_md(FILE *f, const struct agg_table *t, const struct agg_out_opts *o)
{
    char buf[512];
    fputs("## ", f);
    agg_md_text(f, t->title);
    fputs("\n\n", f);
    agg_md_text(f, t->desc);
    fputs("\n\n", f);
    if (!t->nrows) {
        fputs("(no rows)\n\n", f);
        return;
    }
    int hidden;
    char *show = agg_shown(t, o->top, &hidden);
    for (int c = 0; c < t->ncols; c++) {
        fputs("| ", f);
        agg_md_text(f, t->cols[c]);
        fputc(' ', f);
    }
    fputs("|\n", f);
    for (int c = 0; c < t->ncols; c++)
        fputs(t->kinds[c] == AGG_COL_TEXT ? "|---" : "|---:", f);
    fputs("|\n", f);
    for (int r = 0; r < t->nrows; r++) {
        if (!show[r])
            continue;
        for (int c = 0; c < t->ncols; c++) {
            agg_cell_text(t, r, c, 0, buf, sizeof(buf));
            fputs("| ", f);
            agg_md_text(f, buf);
            fputc(' ', f);
        }
        fputs("|\n", f);
    }
    if (hidden)
        fprintf(f, "\n(%d more rows not shown)\n", hidden);
    fputc('\n', f);
    free(show);
}

void agg_out_tables(FILE *f, struct agg_table **t, int n, const struct agg_out_opts *o)
{
    if (o->format == AGG_FMT_JSON) {
        agg_out_json(f, t, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (o->format == AGG_FMT_CSV) {
            if (i)
                fputc('\n', f);
            agg_out_csv(f, t[i], n > 1);
        } else if (o->format == AGG_FMT_MD) {
            agg_out_md(f, t[i], o);
        } else {
            agg_out_text(f, t[i], o);
        }
    }
}
