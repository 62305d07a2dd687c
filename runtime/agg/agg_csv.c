/* agg_csv.c: a streaming reader for RFC 4180 CSV and for TSV, with line numbers. */
#include "agg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int agg_reader_open(struct agg_reader *r, const char *path, char sep)
{
    memset(r, 0, sizeof(*r));
    r->f = fopen(path, "rb");
    if (!r->f)
        return -1;
    r->path = path;
    r->sep = sep;
    r->next_line = 1;
    return 0;
}

void agg_reader_close(struct agg_reader *r)
{
    if (r->f)
        fclose(r->f);
    agg_buf_free(&r->rec);
    free(r->fields);
    memset(r, 0, sizeof(*r));
}

static void agg_reader_field_start(struct agg_reader *r, size_t at)
{
    if (r->nfields == r->cap_fields) {
        r->cap_fields = r->cap_fields ? r->cap_fields * 2 : 32;
        r->fields = agg_xrealloc(r->fields, (size_t)r->cap_fields * sizeof(*r->fields));
    }
    /* offsets until the record is complete: the buffer may move */
    r->fields[r->nfields++] = (char *)(uintptr_t)at;
}

/* one byte onto the record: the hot path of ingest, kept inline */
static inline void agg_rec_putc(struct agg_buf *b, char c)
{
    if (b->n + 2 > b->cap)
        agg_buf_put(b, &c, 1);
    else
        b->p[b->n++] = c;
}

int agg_reader_resync(struct agg_reader *r)
{
    if (fseeko(r->f, (off_t)r->restart, SEEK_SET) != 0)
        return -1;
    r->next_line = r->line + 1;
    return 0;
}

int agg_reader_next(struct agg_reader *r)
{
    FILE *f = r->f;
    int c = getc_unlocked(f);
    if (c == EOF)
        return ferror(f) ? -1 : 0;
    if (r->next_line == 1 && c == 0xef) {
        /* a UTF-8 byte-order mark before the first record */
        int b = getc_unlocked(f), d = b == 0xbb ? getc_unlocked(f) : EOF;
        if (b == 0xbb && d == 0xbf) {
            c = getc_unlocked(f);
            if (c == EOF)
                return ferror(f) ? -1 : 0;
        } else {
            if (d != EOF)
                ungetc(d, f);
            if (b != EOF && b != 0xbb)
                ungetc(b, f);
        }
    }
    r->rec.n = 0;
    r->nfields = 0;
    r->truncated = r->unclosed = r->has_nul = r->multiline = 0;
    r->restart = -1;
    r->line = r->next_line;
    agg_buf_put(&r->rec, "", 0);
    agg_reader_field_start(r, 0);
    int quoted = 0, in_quotes = 0, field_begin = 1;
    for (;; c = getc_unlocked(f)) {
        if (c == EOF) {
            if (ferror(f))
                return -1;
            r->truncated = 1; /* no line end: the writer stopped mid-line */
            break;
        }
        if (in_quotes) {
            if (c == '"') {
                int d = getc_unlocked(f);
                if (d == '"') {
                    agg_rec_putc(&r->rec, '"');
                    continue;
                }
                in_quotes = 0;
                if (d != EOF)
                    ungetc(d, f);
                continue;
            }
            if (c == '\n') {
                r->next_line++;
                if (!r->multiline) {
                    r->multiline = 1;
                    r->restart = (long long)ftello(f);
                }
            }
            if (c == 0)
                r->has_nul = 1;
            agg_rec_putc(&r->rec, (char)c);
            continue;
        }
        if (c == '\n') {
            r->next_line++;
            break;
        }
        if (c == '\r') {
            int d = getc_unlocked(f);
            if (d == '\n') {
                r->next_line++;
                break;
            }
            if (d != EOF)
                ungetc(d, f);
        }
        if (c == r->sep) {
            agg_rec_putc(&r->rec, '\0'); /* the terminating NUL of this field */
            agg_reader_field_start(r, r->rec.n);
            field_begin = 1;
            quoted = 0;
            continue;
        }
        if (c == '"' && r->sep == ',' && field_begin) {
            in_quotes = quoted = 1;
            field_begin = 0;
            continue;
        }
        field_begin = 0;
        (void)quoted;
        if (c == 0)
            r->has_nul = 1;
        agg_rec_putc(&r->rec, (char)c);
    }
    if (in_quotes)
        r->truncated = r->unclosed = 1;
    agg_rec_putc(&r->rec, '\0');
    for (int i = 0; i < r->nfields; i++)
        r->fields[i] = r->rec.p + (uintptr_t)r->fields[i];
    return 1;
}
