/* agg_html.c: the report as one self-contained HTML file with SVG charts drawn here. */
#include "agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AGG_HTML_MAX_ROWS 300 /* per table; the csv and json formats hold every row */
#define AGG_HTML_MAX_MODELS 12

static const char *const agg_palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                                          "#86bcb6", "#d37295"};
#define AGG_NCOLOURS ((int)(sizeof(agg_palette) / sizeof(agg_palette[0])))

/* text in HTML and SVG: markup characters escaped, control and stray bytes replaced */
static void agg_html_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t len = agg_utf8_seq(p);
        if (len) {
            fwrite(p, 1, len, f);
            p += len;
            continue;
        }
        if (c == '&')
            fputs("&amp;", f);
        else if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c == '\'')
            fputs("&#39;", f);
        else if (c < 0x20 || c >= 0x7f)
            fputs("&#xFFFD;", f);
        else
            fputc(c, f);
        p++;
    }
}

static const struct agg_cellv *agg_at(const struct agg_table *t, int r, int c)
{
    return &t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
}

static int agg_col(const struct agg_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++) {
        if (!strcmp(t->cols[c], name))
            return c;
    }
    return -1;
}

static const struct agg_table *agg_find_table(struct agg_table **t, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(t[i]->name, name))
            return t[i];
    }
    return NULL;
}

static void agg_html_table(FILE *f, const struct agg_table *t)
{
    fprintf(f, "<h2 id=\"%s\">", t->name);
    agg_html_text(f, t->title);
    fputs("</h2>\n<p class=\"desc\">", f);
    agg_html_text(f, t->desc);
    fputs("</p>\n", f);
    if (!t->nrows) {
        fputs("<p>(no rows)</p>\n", f);
        return;
    }
    fputs("<div class=\"scroll\"><table>\n<tr>", f);
    for (int c = 0; c < t->ncols; c++) {
        fputs("<th>", f);
        agg_html_text(f, t->cols[c]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    char buf[512];
    int shown = t->nrows < AGG_HTML_MAX_ROWS ? t->nrows : AGG_HTML_MAX_ROWS;
    for (int r = 0; r < shown; r++) {
        fputs("<tr>", f);
        for (int c = 0; c < t->ncols; c++) {
            const struct agg_cellv *v = agg_at(t, r, c);
            if (v->s) {
                snprintf(buf, sizeof(buf), "%s", v->s);
            } else if (isnan(v->v)) {
                snprintf(buf, sizeof(buf), "-");
            } else if (t->kinds[c] == AGG_COL_US) {
                agg_fmt_us(buf, sizeof(buf), v->v);
            } else if (t->kinds[c] == AGG_COL_RATIO) {
                snprintf(buf, sizeof(buf), "%.2fx", v->v);
            } else if (t->kinds[c] == AGG_COL_PCT) {
                snprintf(buf, sizeof(buf), "%.1f%%", v->v);
            } else if (t->kinds[c] == AGG_COL_NUM) {
                snprintf(buf, sizeof(buf), fabs(v->v) >= 1e4 && fabs(v->v) < 1e15 ? "%.0f" : "%.4g", v->v);
            } else {
                snprintf(buf, sizeof(buf), "%g", v->v);
            }
            fputs(t->kinds[c] == AGG_COL_TEXT ? "<td>" : "<td class=\"n\">", f);
            agg_html_text(f, buf);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
    if (shown < t->nrows)
        fprintf(f, "<p class=\"desc\">%d more rows: see `agg report --report %s --format csv`.</p>\n",
                t->nrows - shown, t->name);
}

/* a round axis maximum: 1, 2 or 5 times a power of ten */
static double agg_nice(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

/* the run and target a bound-table row names */
static void agg_row_combo(const struct agg_data *x, const struct agg_table *t, int r,
                          const struct agg_run **run, const struct agg_target **tg, const char **prec)
{
    *run = NULL;
    *tg = NULL;
    *prec = agg_at(t, r, 2)->s;
    for (int i = 0; i < x->nruns && !*run; i++) {
        if (!strcmp(x->runs[i].model, agg_at(t, r, 0)->s) && (double)x->runs[i].batch == agg_at(t, r, 1)->v)
            *run = &x->runs[i];
    }
    for (int i = 0; i < x->ntargets && !*tg; i++) {
        if (!strcmp(x->targets[i].label, agg_at(t, r, 3)->s))
            *tg = &x->targets[i];
    }
}

static void agg_combo_title(FILE *f, const struct agg_table *t, int r)
{
    char b[64];
    agg_html_text(f, agg_at(t, r, 0)->s);
    snprintf(b, sizeof(b), " @%g, ", agg_at(t, r, 1)->v);
    fputs(b, f);
    agg_html_text(f, agg_at(t, r, 2)->s);
    fputs(", ", f);
    agg_html_text(f, agg_at(t, r, 3)->s);
}

/* time per computing layer along the model, coloured by operator type, with the shares of
 * the types as one stacked bar above it */
static void agg_chart_layers(FILE *f, const struct agg_data *x, const struct agg_table *bound, int row)
{
    const struct agg_run *run;
    const struct agg_target *tg;
    const char *prec;
    agg_row_combo(x, bound, row, &run, &tg, &prec);
    if (!run || !tg)
        return;
    int n = 0;
    double *us = agg_xcalloc((size_t)run->nnodes + 1, sizeof(double));
    const char **ops = agg_xcalloc((size_t)run->nnodes + 1, sizeof(char *));
    const char **names = agg_xcalloc((size_t)run->nnodes + 1, sizeof(char *));
    double total = 0, max = 0;
    for (int i = 0; i < run->nnodes; i++) {
        const struct agg_node *nd = &run->nodes[i];
        double v;
        if (!nd->layer || strcmp(nd->cls, "compute") || agg_best(x, tg->id, nd->layer, prec, &v, NULL))
            continue;
        us[n] = v;
        ops[n] = nd->op;
        names[n] = nd->name;
        total += v;
        max = v > max ? v : max;
        n++;
    }
    if (!n)
        goto out;
    /* op types by total time: the largest get their own colour, the rest "other" */
    const char *types[AGG_NCOLOURS];
    double tsum[AGG_NCOLOURS] = {0};
    int nt = 0;
    struct agg_map sums = {0};
    double *per = agg_xcalloc((size_t)n, sizeof(double));
    const char **uniq = agg_xcalloc((size_t)n, sizeof(char *));
    int nu = 0;
    for (int i = 0; i < n; i++) {
        intptr_t k = (intptr_t)agg_map_get(&sums, ops[i]);
        if (!k) {
            uniq[nu] = ops[i];
            k = ++nu;
            agg_map_put(&sums, ops[i], (void *)k);
        }
        per[k - 1] += us[i];
    }
    for (int c = 0; c < AGG_NCOLOURS - 1 && c < nu; c++) {
        int best = -1;
        for (int u = 0; u < nu; u++) {
            if (per[u] >= 0 && (best < 0 || per[u] > per[best]))
                best = u;
        }
        types[nt] = uniq[best];
        tsum[nt++] = per[best];
        per[best] = -1;
    }
    double other = 0;
    for (int u = 0; u < nu; u++)
        other += per[u] > 0 ? per[u] : 0;
    const int W = 960, H = 220, L = 60, B = 30, T = 40;
    double ymax = agg_nice(max);
    double bw = (double)(W - L - 10) / n;
    fputs("<figure><figcaption>Time per layer along the model: ", f);
    agg_combo_title(f, bound, row);
    fprintf(f, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H + 40, W, H + 40);
    /* shares bar */
    double xpos = L;
    for (int c = 0; c <= nt; c++) {
        double v = c < nt ? tsum[c] : other;
        if (v <= 0)
            continue;
        double w = (W - L - 10) * v / total;
        fprintf(f, "<rect x=\"%.1f\" y=\"8\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>", xpos, w,
                c < nt ? agg_palette[c] : "#cccccc");
        agg_html_text(f, c < nt ? types[c] : "other");
        fprintf(f, ": %.1f%%</title></rect>\n", 100 * v / total);
        xpos += w;
    }
    /* axis */
    char lab[32];
    for (int k = 0; k <= 4; k++) {
        double y = T + (H - T - B) * (1 - k / 4.0);
        agg_fmt_us(lab, sizeof(lab), ymax * k / 4);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, W - 10, y, y, L - 4, y + 4, lab);
    }
    for (int i = 0; i < n; i++) {
        int c = nt;
        for (int k = 0; k < nt; k++) {
            if (!strcmp(types[k], ops[i]))
                c = k;
        }
        double h = (H - T - B) * us[i] / ymax;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>",
                L + i * bw, H - B - h, bw > 1.5 ? bw - 0.5 : bw, h, c < nt ? agg_palette[c] : "#cccccc");
        agg_html_text(f, names[i]);
        fputs(" (", f);
        agg_html_text(f, ops[i]);
        agg_fmt_us(lab, sizeof(lab), us[i]);
        fprintf(f, "): %s</title></rect>\n", lab);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">computing layers in model order (%d)</text>\n", L, H - B + 16, n);
    /* legend */
    xpos = L;
    for (int c = 0; c <= nt; c++) {
        if (c == nt && other <= 0)
            break;
        const char *name = c < nt ? types[c] : "other";
        fprintf(f, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%d\">",
                xpos, H + 8, c < nt ? agg_palette[c] : "#cccccc", xpos + 14, H + 17);
        agg_html_text(f, name);
        fputs("</text>\n", f);
        xpos += 24 + 7 * (double)strlen(name);
        if (xpos > W - 80)
            break;
    }
    fputs("</svg></figure>\n", f);
    agg_map_free(&sums, NULL);
    free(per);
    free(uniq);
out:
    free(us);
    free(ops);
    free(names);
}

struct agg_bar {
    const char *label;
    double v;
    const char *colour;
};

/* horizontal grouped bars: one group per model row, `nb` bars each */
static void agg_chart_bars(FILE *f, const char *caption, const char *const *group_labels, int ngroups,
                           const struct agg_bar *bars, int nb, int ratio)
{
    double max = 0;
    for (int i = 0; i < ngroups * nb; i++)
        max = bars[i].v > max ? bars[i].v : max;
    if (!(max > 0))
        return;
    max = agg_nice(max);
    const int W = 960, L = 300, bh = 12, gap = 10;
    int H = 30 + ngroups * (nb * bh + gap) + 20;
    fputs("<figure><figcaption>", f);
    agg_html_text(f, caption);
    fprintf(f, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H);
    char lab[32];
    for (int k = 0; k <= 4; k++) {
        double xx = L + (W - L - 170) * k / 4.0;
        if (ratio)
            snprintf(lab, sizeof(lab), "%.2fx", max * k / 4);
        else
            agg_fmt_us(lab, sizeof(lab), max * k / 4);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">%s</text>\n", xx, xx, H - 20, xx, lab);
    }
    if (ratio) {
        double xx = L + (W - L - 170) / max;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"3,3\"/>\n",
                xx, xx, H - 20);
    }
    for (int g = 0; g < ngroups; g++) {
        int y0 = 24 + g * (nb * bh + gap);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L - 6, y0 + nb * bh / 2 + 4);
        agg_html_text(f, group_labels[g]);
        fputs("</text>\n", f);
        for (int b = 0; b < nb; b++) {
            const struct agg_bar *bar = &bars[g * nb + b];
            if (!(bar->v > 0))
                continue;
            double w = (W - L - 170) * bar->v / max;
            if (ratio)
                snprintf(lab, sizeof(lab), "%.2fx", bar->v);
            else
                agg_fmt_us(lab, sizeof(lab), bar->v);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", L,
                    y0 + b * bh, w, bh - 2, bar->colour);
            agg_html_text(f, bar->label);
            fprintf(f, ": %s</title></rect><text x=\"%.1f\" y=\"%d\">", lab, L + w + 4, y0 + b * bh + 9);
            agg_html_text(f, bar->label);
            fprintf(f, " %s</text>\n", lab);
        }
    }
    fputs("</svg></figure>\n", f);
}

static double agg_num(const struct agg_table *t, int r, const char *col)
{
    int c = agg_col(t, col);
    return c < 0 ? NAN : agg_at(t, r, c)->v;
}

static char *agg_row_label(const struct agg_table *t, int r)
{
    /* the chart's left margin holds about 50 characters */
    char *s = agg_xprintf("%.24s @%g %s, %.16s", agg_at(t, r, 0)->s, agg_at(t, r, 1)->v, agg_at(t, r, 2)->s,
                          agg_at(t, r, 3)->s);
    return s;
}

/* Row R of roofline's LAYERS as a point of the chart of roofline-models' row ROW: 1 where it is
 * that model, batch, type and device and has work and a time, with its flop/byte and GFLOP/s */
static int agg_chart_point(const struct agg_table *models, int row, const struct agg_table *layers, int r,
                           double *ai, double *gflops)
{
    for (int c = 0; c < 4; c++) {
        const struct agg_cellv *a = agg_at(layers, r, c), *b = agg_at(models, row, c);
        if (a->s && b->s ? strcmp(a->s, b->s) != 0 : a->v != b->v)
            return 0;
    }
    double g = agg_num(layers, r, "GFLOP"), us = agg_num(layers, r, "time");
    *ai = agg_num(layers, r, "flop/byte");
    *gflops = g / (us * 1e-6);
    return *ai > 0 && g > 0 && us > 0;
}

/* The roofline of one row of roofline-models (a model on a device at a type): each layer at
 * (flop/byte, GFLOP/s achieved) on log axes under the datasheet's ceiling (solid) and the
 * measured one (dashed), coloured by what bounds it; those above the datasheet's are errors. */
static void agg_chart_roofline(FILE *f, const struct agg_table *models, int row, const struct agg_table *layers)
{
    const int W = 960, H = 420, L = 70, R = 20, T = 20, B = 40;
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    double ps = agg_num(models, row, "peak datasheet"), pm = agg_num(models, row, "peak measured");
    double bs = agg_num(models, row, "GB/s datasheet"), bm = agg_num(models, row, "GB/s measured");
    int nl = 0;
    for (int r = 0; r < layers->nrows; r++) {
        double ai, y;
        if (!agg_chart_point(models, row, layers, r, &ai, &y))
            continue;
        xmin = fmin(xmin, ai), xmax = fmax(xmax, ai), ymin = fmin(ymin, y), ymax = fmax(ymax, y);
        nl++;
    }
    if (!nl)
        return;
    double top = fmax(ymax, fmax(ps > 0 ? ps : 0, pm > 0 ? pm : 0));
    double lx0 = floor(log10(xmin)) - 0.5, lx1 = ceil(log10(xmax)) + 0.5, ly0 = floor(log10(ymin)) - 0.5,
           ly1 = ceil(log10(top)) + 0.3;
#define AGG_RX(v) (L + (W - L - R) * (log10(v) - lx0) / (lx1 - lx0))
#define AGG_RY(v) (H - B - (H - T - B) * (log10(v) - ly0) / (ly1 - ly0))
    fputs("<figure><figcaption>Roofline: ", f);
    char *lab = agg_row_label(models, row);
    agg_html_text(f, lab);
    free(lab);
    fprintf(f, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H);
    for (int e = (int)ceil(lx0); e <= (int)floor(lx1); e++)
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n",
                AGG_RX(pow(10, e)), AGG_RX(pow(10, e)), T, H - B, AGG_RX(pow(10, e)), H - B + 14, e);
    for (int e = (int)ceil(ly0); e <= (int)floor(ly1); e++)
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n",
                L, W - R, AGG_RY(pow(10, e)), AGG_RY(pow(10, e)), L - 4, AGG_RY(pow(10, e)) + 4, e);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity (flop/byte)</text>"
               "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">GFLOP/s</text>\n",
            (L + W - R) / 2, H - 6, (T + H - B) / 2, (T + H - B) / 2);
    /* the ceilings: min(peak, intensity x bandwidth), drawn over the axis range */
    const double ceil_peak[2] = {ps, pm}, ceil_bw[2] = {bs, bm};
    for (int k = 0; k < 2; k++) {
        if (!(ceil_peak[k] > 0) || !(ceil_bw[k] > 0))
            continue;
        double x0 = pow(10, lx0), x1 = pow(10, lx1), knee = ceil_peak[k] / ceil_bw[k];
        double ya = fmin(ceil_peak[k], x0 * ceil_bw[k]);
        fprintf(f, "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"%s points=\"%.1f,%.1f ",
                k ? " stroke-dasharray=\"5,4\"" : "", AGG_RX(x0), AGG_RY(fmax(ya, pow(10, ly0))));
        if (knee > x0 && knee < x1)
            fprintf(f, "%.1f,%.1f ", AGG_RX(knee), AGG_RY(ceil_peak[k]));
        fprintf(f, "%.1f,%.1f\"><title>%s: %.4g GFLOP/s, %.4g GB/s</title></polyline>\n", AGG_RX(x1),
                AGG_RY(fmin(ceil_peak[k], x1 * ceil_bw[k])), k ? "measured" : "datasheet", ceil_peak[k], ceil_bw[k]);
    }
    static const char *const bounds[] = {"compute", "memory", "launch"};
    for (int r = 0; r < layers->nrows; r++) {
        double ai, y;
        if (!agg_chart_point(models, row, layers, r, &ai, &y))
            continue;
        int bc = agg_col(layers, "bound"), fc = agg_col(layers, "flag");
        const char *bound = bc >= 0 && agg_at(layers, r, bc)->s ? agg_at(layers, r, bc)->s : "";
        int colour = 3;
        for (int b = 0; b < 3; b++)
            colour = !strcmp(bound, bounds[b]) ? b : colour;
        int bad = fc >= 0 && agg_at(layers, r, fc)->s && *agg_at(layers, r, fc)->s;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" fill-opacity=\"0.7\"%s><title>",
                AGG_RX(ai), AGG_RY(y), bad ? 5 : 3, bad ? "#d00" : agg_palette[colour],
                bad ? " stroke=\"#000\"" : "");
        agg_html_text(f, agg_at(layers, r, 6)->s ? agg_at(layers, r, 6)->s : "");
        char tm[32];
        agg_fmt_us(tm, sizeof(tm), agg_num(layers, r, "time"));
        fprintf(f, " (%s): %.4g flop/byte, %.4g GFLOP/s, %s", bound, ai, y, tm);
        if (bad)
            fputs(", faster than the datasheet allows", f);
        fputs("</title></circle>\n", f);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">solid: datasheet; dashed: measured; colour: compute, memory, launch bound; "
               "red: faster than the datasheet (an error)</text>\n", L + 8, T + 12);
    fputs("</svg></figure>\n", f);
#undef AGG_RX
#undef AGG_RY
}

void agg_out_html(FILE *f, const struct agg_data *x, struct agg_table **t, int n)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>benanza report</title>\n<style>\n"
          "body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}\n"
          "table{border-collapse:collapse;font-size:13px}\n"
          "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;white-space:nowrap}\n"
          "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
          "th{background:#f0f0f0}.scroll{overflow-x:auto;max-height:520px;overflow-y:auto}\n"
          ".desc{color:#555;font-size:13px;max-width:900px}figure{margin:1em 0}\n"
          "figcaption{font-weight:bold;font-size:14px;margin-bottom:4px}\n"
          "</style></head><body>\n<h1>benanza: lower bounds and what stands between a model and them</h1>\n", f);
    fprintf(f, "<p class=\"desc\">agg %s; %d model runs, %d devices. Contents:", AGG_VERSION, x->nruns, x->ntargets);
    for (int i = 0; i < n; i++) {
        fprintf(f, " <a href=\"#%s\">", t[i]->name);
        agg_html_text(f, t[i]->name);
        fputs("</a>", f);
    }
    fputs("</p>\n", f);

    const struct agg_table *bound = agg_find_table(t, n, "bound");
    if (bound && bound->nrows) {
        int rows = bound->nrows < AGG_HTML_MAX_MODELS ? bound->nrows : AGG_HTML_MAX_MODELS;
        /* lower bound vs measured */
        const struct agg_table *fw = agg_find_table(t, n, "framework");
        char **labels = agg_xcalloc((size_t)rows, sizeof(char *));
        struct agg_bar *bars = agg_xcalloc((size_t)rows * 4, sizeof(*bars));
        for (int r = 0; r < rows; r++) {
            labels[r] = agg_row_label(bound, r);
            bars[r * 4 + 0] = (struct agg_bar){"sequential", agg_num(bound, r, "sequential"), agg_palette[0]};
            bars[r * 4 + 1] = (struct agg_bar){"fused", agg_num(bound, r, "fused"), agg_palette[1]};
            bars[r * 4 + 2] = (struct agg_bar){"parallel", agg_num(bound, r, "parallel"), agg_palette[3]};
            bars[r * 4 + 3] = (struct agg_bar){"measured", NAN, agg_palette[2]};
            for (int m = 0; fw && m < fw->nrows; m++) {
                const struct agg_cellv *model = agg_at(fw, m, 0), *dev = agg_at(fw, m, 3);
                if (!strcmp(model->s, agg_at(bound, r, 0)->s) && agg_at(fw, m, 1)->v == agg_at(bound, r, 1)->v &&
                    !strcmp(agg_at(fw, m, 2)->s, agg_at(bound, r, 2)->s) && !strcmp(dev->s, agg_at(bound, r, 3)->s))
                    bars[r * 4 + 3] = (struct agg_bar){"measured", agg_at(fw, m, 6)->v, agg_palette[2]};
            }
        }
        agg_chart_bars(f, "Lower bound vs measured per model", (const char *const *)labels, rows, bars, 4, 0);
        /* speedups: algorithm choice, fusion, precision */
        const struct agg_table *algo = agg_find_table(t, n, "algo"), *prec = agg_find_table(t, n, "precision");
        for (int r = 0; r < rows; r++) {
            double seq = agg_num(bound, r, "sequential"), heur = NAN, best_prec = NAN;
            for (int a = 0; algo && a < algo->nrows; a++) {
                if (!strcmp(agg_at(algo, a, 0)->s, agg_at(bound, r, 0)->s) && agg_at(algo, a, 1)->v == agg_at(bound, r, 1)->v &&
                    !strcmp(agg_at(algo, a, 2)->s, agg_at(bound, r, 2)->s) && !strcmp(agg_at(algo, a, 3)->s, agg_at(bound, r, 3)->s))
                    heur = agg_num(algo, a, "heuristic");
            }
            for (int p = 0; prec && p < prec->nrows; p++) {
                double s = agg_num(prec, p, "speedup vs f32");
                if (!strcmp(agg_at(prec, p, 0)->s, agg_at(bound, r, 0)->s) && agg_at(prec, p, 1)->v == agg_at(bound, r, 1)->v &&
                    !strcmp(agg_at(prec, p, 3)->s, agg_at(bound, r, 3)->s) && !strcmp(agg_at(bound, r, 2)->s, "f32") &&
                    strcmp(agg_at(prec, p, 2)->s, "f32") && (isnan(best_prec) || s > best_prec))
                    best_prec = s;
            }
            bars[r * 3 + 0] = (struct agg_bar){"best algorithm vs heuristic", heur / seq, agg_palette[4]};
            bars[r * 3 + 1] = (struct agg_bar){"fusion", seq / agg_num(bound, r, "fused"), agg_palette[5]};
            bars[r * 3 + 2] = (struct agg_bar){"best other type vs f32", best_prec, agg_palette[6]};
        }
        agg_chart_bars(f, "Speedups from algorithm choice, fusion and precision (Tensor Cores); 1x dashed",
                       (const char *const *)labels, rows, bars, 3, 1);
        for (int r = 0; r < rows; r++)
            free(labels[r]);
        free(labels);
        free(bars);
        for (int r = 0; r < rows; r++)
            agg_chart_layers(f, x, bound, r);
    }
    const struct agg_table *rm = agg_find_table(t, n, "roofline-models"), *rl = agg_find_table(t, n, "roofline");
    for (int r = 0; rm && rl && r < rm->nrows && r < AGG_HTML_MAX_MODELS; r++)
        agg_chart_roofline(f, rm, r, rl);
    for (int i = 0; i < n; i++)
        agg_html_table(f, t[i]);
    fputs("</body></html>\n", f);
}
