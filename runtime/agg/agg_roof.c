/* agg_roof.c: how far each layer is from what the hardware allows (the roofline), and how fast
 * it would run elsewhere (prediction): the GPU spec table, the targets' ceilings (datasheet and
 * gen --calibrate's measurements), the roofline and prediction reports. */
#include "agg.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const char agg_gpu_specs[]; /* runtime/agg/gpu_specs.tsv, embedded at build time */

/* ---- the GPU spec table ---- */

static void agg_spec_free_row(struct agg_gpu_spec *g)
{
    free(g->name);
    free(g->match);
    free(g->source);
}

void agg_specs_free(struct agg_specs *s)
{
    for (int i = 0; i < s->n; i++)
        agg_spec_free_row(&s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

/* the columns, and what a number in each is worth */
static const struct {
    const char *name;
    int peak;     /* enum agg_peak, or -1 */
    double scale; /* to FLOP/s or bytes/s */
} agg_spec_cols[] = {
    {"sms", -1, 1},          {"boost_mhz", -1, 1},         {"l2_mb", -1, 1},
    {"mem_gbs", -1, 1e9},    {"f32", AGG_P_F32, 1e12},     {"f16", AGG_P_F16, 1e12},
    {"tf32", AGG_P_TF32, 1e12}, {"f16tc", AGG_P_F16TC, 1e12}, {"bf16tc", AGG_P_BF16TC, 1e12},
    {"fp8", AGG_P_FP8, 1e12},
};
#define AGG_SPEC_NCOLS ((int)(sizeof(agg_spec_cols) / sizeof(agg_spec_cols[0])))

int agg_specs_parse(const char *text, const char *where, struct agg_specs *out, FILE *err)
{
    memset(out, 0, sizeof(*out));
    int col_of[AGG_SPEC_NCOLS + 3]; /* + name, match, source */
    int header = 0, line = 0, cap = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *l = agg_xmalloc(len + 1);
        memcpy(l, p, len);
        l[len] = '\0';
        if (len && l[len - 1] == '\r')
            l[len - 1] = '\0';
        p += len + (e ? 1 : 0);
        line++;
        if (!*l || *l == '#') {
            free(l);
            continue;
        }
        char *f[32];
        int nf = 0;
        for (char *q = l; nf < 32;) {
            f[nf++] = q;
            char *t = strchr(q, '\t');
            if (!t)
                break;
            *t = '\0';
            q = t + 1;
        }
        if (!header) {
            header = 1;
            for (int c = 0; c < AGG_SPEC_NCOLS + 3; c++) {
                const char *want = c < AGG_SPEC_NCOLS ? agg_spec_cols[c].name : c == AGG_SPEC_NCOLS ? "name"
                                   : c == AGG_SPEC_NCOLS + 1 ? "match" : "source";
                col_of[c] = -1;
                for (int k = 0; k < nf; k++)
                    if (!strcmp(f[k], want))
                        col_of[c] = k;
                if (col_of[c] < 0) {
                    fprintf(err, "%s:%d: error: the header has no column '%s'\n", where, line, want);
                    free(l);
                    agg_specs_free(out);
                    return -1;
                }
            }
            free(l);
            continue;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->v = agg_xrealloc(out->v, (size_t)cap * sizeof(*out->v));
        }
        struct agg_gpu_spec *g = &out->v[out->n];
        memset(g, 0, sizeof(*g));
        int bad = 0;
        for (int c = 0; c < AGG_SPEC_NCOLS + 3 && !bad; c++) {
            if (col_of[c] >= nf) {
                fprintf(err, "%s:%d: error: %d columns, the header has more\n", where, line, nf);
                bad = 1;
                break;
            }
            const char *v = f[col_of[c]];
            if (c >= AGG_SPEC_NCOLS) {
                char **slot = c == AGG_SPEC_NCOLS ? &g->name : c == AGG_SPEC_NCOLS + 1 ? &g->match : &g->source;
                *slot = agg_xstrdup(v);
                continue;
            }
            double d = NAN;
            if (strcmp(v, "-") && (agg_parse_double(v, &d) || d < 0)) {
                fprintf(err, "%s:%d: error: column %s: '", where, line, agg_spec_cols[c].name);
                agg_fput_safe(err, v);
                fprintf(err, "' is not a number (or '-')\n");
                bad = 1;
                break;
            }
            d *= agg_spec_cols[c].scale;
            if (agg_spec_cols[c].peak >= 0)
                g->peak[agg_spec_cols[c].peak] = d;
            else
                *(c == 0 ? &g->sms : c == 1 ? &g->boost_mhz : c == 2 ? &g->l2_mb : &g->bw) = d;
        }
        if (!bad && (!g->name || !*g->name || !g->match || !*g->match)) {
            fprintf(err, "%s:%d: error: a row needs a name and a match\n", where, line);
            bad = 1;
        }
        free(l);
        if (bad) {
            agg_spec_free_row(g);
            agg_specs_free(out);
            return -1;
        }
        /* the peaks not in the table: bf16 without tensor cores at most the tensor cores' */
        g->peak[AGG_P_BF16] = NAN;
        out->n++;
    }
    if (!header) {
        fprintf(err, "%s: error: no header line (name, match, ...)\n", where);
        return -1;
    }
    return 0;
}

int agg_specs_load(const char *path, struct agg_specs *out, FILE *err)
{
    if (!path)
        return agg_specs_parse(agg_gpu_specs, "gpu_specs.tsv (built in)", out, err);
    FILE *f = fopen(path, "r");
    if (!f) {
        agg_fput_safe(err, path);
        fprintf(err, ": error: cannot read the GPU spec table\n");
        return -1;
    }
    struct agg_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.n < (1u << 24))
        agg_buf_put(&b, chunk, n);
    fclose(f);
    agg_buf_put(&b, "", 1);
    int rc = memchr(b.p, '\0', b.n - 1) ? -1 : agg_specs_parse(b.p, path, out, err);
    if (rc && memchr(b.p, '\0', b.n - 1))
        fprintf(err, "%s: error: a NUL byte: not a spec table\n", path);
    agg_buf_free(&b);
    return rc;
}

const struct agg_gpu_spec *agg_specs_match(const struct agg_specs *s, const char *device)
{
    const struct agg_gpu_spec *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < s->n; i++) {
        for (const char *p = s->v[i].match; *p;) {
            const char *e = strchr(p, '|');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            for (const char *d = device; len && *d; d++)
                if (!strncasecmp(d, p, len) && len > best_len) {
                    best = &s->v[i];
                    best_len = len;
                    break;
                }
            p += len + (e ? 1 : 0);
        }
    }
    return best;
}

const struct agg_gpu_spec *agg_specs_find(const struct agg_specs *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcasecmp(s->v[i].name, name))
            return &s->v[i];
    return NULL;
}

enum agg_peak agg_peak_of(const char *prec)
{
    int tc = strstr(prec, "+tensor_op") != NULL;
    if (!strncmp(prec, "tf32", 4))
        return AGG_P_TF32;
    if (!strncmp(prec, "f16", 3))
        return tc ? AGG_P_F16TC : AGG_P_F16;
    if (!strncmp(prec, "bf16", 4))
        return tc ? AGG_P_BF16TC : AGG_P_BF16;
    if (!strncmp(prec, "fp8", 3) || !strncmp(prec, "f8", 2))
        return AGG_P_FP8;
    return AGG_P_F32; /* f32, and f64, integers and "*" at most that */
}

/* ---- ceilings ---- */

void agg_ceil_reset(struct agg_ceil *c, const char *source)
{
    for (int p = 0; p < AGG_NPEAK; p++)
        c->peak[p] = NAN;
    c->bw = c->launch_us = c->cache_bytes = NAN;
    snprintf(c->source, sizeof(c->source), "%s", source);
}

/* key=value in a note ("cpu_peak_gflops=f32:166.2,bf16:166.2,f16:166.2") */
static int agg_note_value(const char *note, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = note ? strstr(note, key) : NULL; p; p = strstr(p + 1, key)) {
        if ((p == note || p[-1] == ' ' || p[-1] == ';') && p[kl] == '=') {
            size_t len = strcspn(p + kl + 1, "; ");
            snprintf(out, n, "%.*s", (int)len, p + kl + 1);
            return 1;
        }
    }
    return 0;
}

void agg_ceil_calib_row(struct agg_target *t, const char *layer, const char *prec, double us, double flops,
                        double bytes, const char *note)
{
    if (!(us > 0))
        return;
    size_t n = strlen(layer);
    double s = us * 1e-6;
    if (n > 5 && !strcmp(layer + n - 5, "-gemm") && flops > 0) {
        enum agg_peak p = agg_peak_of(prec);
        if (isnan(t->meas.peak[p]) || flops / s > t->meas.peak[p])
            t->meas.peak[p] = flops / s;
        /* a CPU's datasheet arithmetic rides on its calibration rows */
        char v[160];
        if (!strcmp(t->backend, "cpu") && agg_note_value(note, "cpu_peak_gflops", v, sizeof(v))) {
            static const struct { const char *name; enum agg_peak p; } k[] = {
                {"f32:", AGG_P_F32}, {"bf16:", AGG_P_BF16}, {"f16:", AGG_P_F16}};
            for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
                const char *at = strstr(v, k[i].name);
                /* "f16:" inside "bf16:" is not f16's */
                while (at && at > v && at[-1] != ',')
                    at = strstr(at + 1, k[i].name);
                double g;
                char num[32];
                if (at && (snprintf(num, sizeof(num), "%.*s", (int)strcspn(at + strlen(k[i].name), ","),
                                    at + strlen(k[i].name)), agg_parse_double(num, &g) == 0) && g > 0 &&
                    !(t->sheet.peak[k[i].p] >= g * 1e9))
                    t->sheet.peak[k[i].p] = g * 1e9; /* the fastest clock any row saw: an upper bound */
            }
            snprintf(t->sheet.source, sizeof(t->sheet.source), "%s", "the CPU's arithmetic (cpu_peak in the notes)");
            double kb;
            if (agg_note_value(note, "cpu_llc_kb", v, sizeof(v)) && agg_parse_double(v, &kb) == 0 && kb > 0)
                t->sheet.cache_bytes = t->meas.cache_bytes = kb * 1024;
        }
    } else if (n > 5 && !strcmp(layer + n - 5, "-copy") && bytes > 0) {
        if (isnan(t->meas.bw) || bytes / s > t->meas.bw)
            t->meas.bw = bytes / s;
    } else if (n > 7 && !strcmp(layer + n - 7, "-launch")) {
        if (isnan(t->meas.launch_us) || us < t->meas.launch_us)
            t->meas.launch_us = us;
    }
}

void agg_ceil_sheets(struct agg_data *x)
{
    for (int i = 0; i < x->ntargets; i++) {
        struct agg_target *t = &x->targets[i];
        if (strcmp(t->backend, "cuda"))
            continue;
        const struct agg_gpu_spec *g = agg_specs_match(&x->specs, t->device);
        if (!g)
            continue;
        for (int p = 0; p < AGG_NPEAK; p++)
            t->sheet.peak[p] = g->peak[p];
        /* without a figure of its own: at most the tensor cores' (an upper bound) */
        if (isnan(t->sheet.peak[AGG_P_F16]))
            t->sheet.peak[AGG_P_F16] = g->peak[AGG_P_F16TC];
        if (isnan(t->sheet.peak[AGG_P_BF16]))
            t->sheet.peak[AGG_P_BF16] = g->peak[AGG_P_BF16TC];
        t->sheet.bw = g->bw;
        t->sheet.cache_bytes = t->meas.cache_bytes = g->l2_mb * 1048576;
        snprintf(t->sheet.source, sizeof(t->sheet.source), "datasheet %s", g->name);
    }
    /* a CPU's datasheet bandwidth is not known here: its roofline takes the measured copy's;
     * and where its GEMM ran above the arithmetic's peak, the clock /proc/cpuinfo gave was
     * below the one it ran at (a virtual machine's nominal clock, turbo): the measured peak
     * is then the datasheet's, and the source says so */
    for (int i = 0; i < x->ntargets; i++) {
        struct agg_target *t = &x->targets[i];
        if (strcmp(t->backend, "cpu"))
            continue;
        if (isnan(t->sheet.bw))
            t->sheet.bw = t->meas.bw;
        int raised = 0;
        for (int p = 0; p < AGG_NPEAK; p++)
            if (t->meas.peak[p] > t->sheet.peak[p]) {
                t->sheet.peak[p] = t->meas.peak[p];
                raised = 1;
            }
        if (raised)
            snprintf(t->sheet.source, sizeof(t->sheet.source), "%s",
                     "the CPU's arithmetic, raised to the measured GEMM (the clock ran above /proc/cpuinfo's)");
    }
}

/* the layer's data fit in the last-level cache (and so stay there between runs) */
static int agg_in_cache(const struct agg_ceil *c, const struct agg_work *w)
{
    return c->cache_bytes > 0 && w->bytes > 0 && w->bytes <= c->cache_bytes;
}

double agg_roof_us(const struct agg_ceil *c, enum agg_peak p, const struct agg_work *w, int with_launch,
                   const char **bound)
{
    if (bound)
        *bound = "";
    if (!w)
        return NAN;
    double tc = w->flops <= 0 ? 0 : c->peak[p] > 0 ? w->flops / c->peak[p] * 1e6 : NAN;
    double tm = w->bytes <= 0 ? 0 : c->bw > 0 ? w->bytes / c->bw * 1e6 : NAN;
    /* data that fit in the last-level cache stay there between runs: memory's bandwidth is
     * no floor for them, and the cache's is not measured */
    int cached = agg_in_cache(c, w);
    if (isnan(tc) && isnan(tm))
        return NAN;
    if (bound)
        *bound = !isnan(tc) && (isnan(tm) || tc >= tm) ? "compute" : cached ? "cache" : "memory";
    if (cached)
        tm = 0;
    double t = isnan(tc) ? tm : isnan(tm) ? tc : fmax(tc, tm);
    if (with_launch && c->launch_us > t) {
        t = c->launch_us;
        if (bound)
            *bound = "launch";
    }
    return t;
}

/* ---- prediction ---- */

static const char *agg_cell_parts(const char *key, long *target, const char **layer, size_t *layer_len)
{
    *target = strtol(key, NULL, 10);
    const char *a = strchr(key, '\x1f');
    const char *b = a ? strchr(a + 1, '\x1f') : NULL;
    if (!b)
        return NULL;
    *layer = a + 1;
    *layer_len = (size_t)(b - a - 1);
    return b + 1; /* the precision */
}

/* How a time moves to the destination. Three parts of a time US measured on the source:
 * - the launch floor (GPUs: min(US, the measured floor)), which becomes the destination's;
 * - what the source's roofline explains, R = min(US - floor, max(flops / peak, bytes / bw)),
 *   scaled Habitat's way: gamma, the share of memory in the time, from the work's intensity I
 *   against the destination's ridge point P'/B': 1 - I/2R' up to it, R'/2I beyond; then
 *   R (bw / bw')^gamma (peak / peak')^(1 - gamma);
 * - the rest, U, which the ceilings do not explain: on a CPU compute at the same efficiency,
 *   scaled by peak / peak'; on a GPU what a kernel waits on besides the roofline (a partly
 *   filled wave, latencies), scaled by the SM clock ratio (Habitat's rule for a kernel that
 *   fills no wave). */
struct agg_move {
    const struct agg_ceil *s, *d;
    double launch_s, launch_d; /* the launch floors (us), NaN unknown */
    double clock;              /* source clock / destination clock (GPUs), or NaN: the CPU rule */
};

static double agg_predict_us(double us, const struct agg_work *w, enum agg_peak p, const struct agg_move *m,
                             double *gamma_out)
{
    const struct agg_ceil *s = m->s, *d = m->d;
    double ps = s->peak[p], pd = d->peak[p];
    if (!w || !(ps > 0) || !(pd > 0) || !(s->bw > 0) || !(d->bw > 0))
        return NAN;
    double gamma;
    if (agg_in_cache(s, w) && agg_in_cache(d, w))
        gamma = 0; /* memory's bandwidth plays no part */
    else if (w->flops <= 0)
        gamma = 1;
    else if (w->bytes <= 0)
        gamma = 0;
    else {
        double i = w->flops / w->bytes, r = pd / d->bw;
        gamma = i <= r ? 1 - 0.5 * i / r : 0.5 * r / i;
    }
    if (gamma_out)
        *gamma_out = gamma;
    double floor_s = m->launch_s > 0 ? fmin(us, m->launch_s) : 0;
    double floor_d = m->launch_s > 0 && m->launch_d > 0 ? floor_s * m->launch_d / m->launch_s : floor_s;
    double roof = agg_roof_us(s, p, w, 0, NULL);
    double r = fmin(us - floor_s, roof), u = us - floor_s - r;
    double f = pow(s->bw / d->bw, gamma) * pow(ps / pd, 1 - gamma);
    double rest = isnan(m->clock) ? ps / pd : m->clock;
    return floor_d + r * f + u * rest;
}

/* the measured target of a prediction's destination: the GPU of spec G, or the CPU of the
 * source at THREADS threads (same library); NULL */
static const struct agg_target *agg_dest_measured(const struct agg_data *x, const struct agg_target *src,
                                                  const struct agg_gpu_spec *g, long threads)
{
    for (int i = 0; i < x->ntargets; i++) {
        const struct agg_target *t = &x->targets[i];
        if (t->predicted_from || t == src)
            continue;
        if (g && !strcmp(t->backend, "cuda") && agg_specs_match(&x->specs, t->device) == g)
            return t;
        if (!g && !strcmp(t->backend, "cpu") && !strcmp(t->device, src->device) && !strcmp(t->lib, src->lib) &&
            t->threads == threads)
            return t;
    }
    return NULL;
}

static int agg_ceil_usable(const struct agg_ceil *c)
{
    int peaks = 0;
    for (int p = 0; p < AGG_NPEAK; p++)
        peaks += c->peak[p] > 0;
    return peaks && c->bw > 0;
}

int agg_predict(struct agg_data *x, const char *to, const char *from, FILE *err)
{
    const struct agg_gpu_spec *g = NULL;
    long threads = 0;
    if (!strncmp(to, "threads=", 8)) {
        if (agg_parse_long(to + 8, &threads) || threads < 1) {
            fprintf(err, "agg: error: --to threads=N wants a positive N, not '%s'\n", to + 8);
            return -1;
        }
    } else if (!(g = agg_specs_find(&x->specs, to))) {
        fprintf(err, "agg: error: --to '");
        agg_fput_safe(err, to);
        fprintf(err, "': not a GPU of the spec table (agg specs lists them), nor threads=N\n");
        return -1;
    }
    int n0 = x->ntargets, made = 0;
    long next_id = 1;
    for (int i = 0; i < n0; i++)
        next_id = x->targets[i].id >= next_id ? x->targets[i].id + 1 : next_id;
    /* the cells' keys, taken before new cells join the map */
    char **keys = agg_xmalloc((x->cells.n ? x->cells.n : 1) * sizeof(char *));
    size_t nkeys = 0;
    for (size_t s = 0; s < x->cells.cap; s++)
        if (x->cells.slots[s].key)
            keys[nkeys++] = x->cells.slots[s].key;
    for (int i = 0; i < n0; i++) {
        const struct agg_target *src = &x->targets[i];
        if (src->predicted_from || (from && !agg_glob(from, src->device)))
            continue;
        if (g ? strcmp(src->backend, "cuda") || agg_specs_match(&x->specs, src->device) == g
              : strcmp(src->backend, "cpu") || src->threads == threads)
            continue;
        /* ceilings of one kind on both sides: measured where both have them, else the
         * datasheet's (a CPU without a measured destination: the source's, the compute peaks
         * scaled by the threads, the bandwidth as it is) */
        const struct agg_target *dm = agg_dest_measured(x, src, g, threads);
        struct agg_ceil sc, dc;
        double launch_s = src->meas.launch_us, launch_d = dm ? dm->meas.launch_us : NAN;
        const struct agg_gpu_spec *gs = g ? agg_specs_match(&x->specs, src->device) : NULL;
        double clock = !g ? NAN : gs && gs->boost_mhz > 0 && g->boost_mhz > 0 ? gs->boost_mhz / g->boost_mhz : 1;
        if (dm && agg_ceil_usable(&src->meas) && agg_ceil_usable(&dm->meas)) {
            sc = src->meas;
            dc = dm->meas;
        } else if (g) {
            sc = src->sheet;
            agg_ceil_reset(&dc, "");
            for (int p = 0; p < AGG_NPEAK; p++)
                dc.peak[p] = g->peak[p];
            if (isnan(dc.peak[AGG_P_F16]))
                dc.peak[AGG_P_F16] = g->peak[AGG_P_F16TC];
            if (isnan(dc.peak[AGG_P_BF16]))
                dc.peak[AGG_P_BF16] = g->peak[AGG_P_BF16TC];
            dc.bw = g->bw;
            dc.cache_bytes = g->l2_mb * 1048576;
        } else {
            sc = agg_ceil_usable(&src->meas) ? src->meas : src->sheet;
            dc = sc;
            for (int p = 0; p < AGG_NPEAK; p++)
                dc.peak[p] = sc.peak[p] * (double)threads / (double)(src->threads > 0 ? src->threads : 1);
        }
        const char *kind = dm && agg_ceil_usable(&src->meas) && agg_ceil_usable(&dm->meas) ? "measured ceilings"
                           : g ? "datasheets" : "scaled ceilings";
        /* a type whose peak one side did not measure (no GEMM of it ran: a CPU without bf16
         * instructions) takes both sides' datasheet peaks, never another type's times */
        int filled = 0;
        for (int p = 0; p < AGG_NPEAK; p++) {
            if (sc.peak[p] > 0 && dc.peak[p] > 0)
                continue;
            double a = src->sheet.peak[p];
            double b = dm ? dm->sheet.peak[p]
                       : g ? dc.peak[p]
                           : a * (double)threads / (double)(src->threads > 0 ? src->threads : 1);
            if (a > 0 && b > 0) {
                sc.peak[p] = a;
                dc.peak[p] = b;
                filled = 1;
            }
        }
        if (!agg_ceil_usable(&sc) || !agg_ceil_usable(&dc)) {
            fprintf(err, "agg: warning: cannot predict from ");
            agg_fput_safe(err, src->label);
            fprintf(err, ": its ceilings are not known (%s; gen --calibrate measures them)\n",
                    g ? "a GPU without a spec table row" : "no calibration rows");
            continue;
        }
        x->targets = agg_xrealloc(x->targets, (size_t)(x->ntargets + 2) * sizeof(*x->targets));
        src = &x->targets[i];
        struct agg_target *t = &x->targets[x->ntargets++];
        memset(t, 0, sizeof(*t));
        t->id = next_id++;
        t->predicted_from = src->id;
        t->backend = agg_xstrdup(src->backend);
        t->device = agg_xstrdup(g ? g->name : src->device);
        t->lib = agg_xprintf("%s (predicted)", src->lib);
        t->cc = agg_xstrdup("");
        t->threads = g ? src->threads : threads;
        if (g)
            t->label = agg_xprintf("%s (predicted from %s; %s)", g->name, src->device, kind);
        else
            t->label = agg_xprintf("%s, %ld threads (predicted from %ld; %s)", src->device, threads, src->threads, kind);
        t->precs = agg_xcalloc((size_t)src->nprecs + 1, sizeof(char *));
        for (int p = 0; p < src->nprecs; p++)
            t->precs[t->nprecs++] = agg_xstrdup(src->precs[p]);
        t->sheet = dc;
        t->meas = dc;
        t->meas.launch_us = launch_d > 0 ? launch_d : launch_s;
        snprintf(t->meas.source, sizeof(t->meas.source), "%s%s", kind,
                 filled ? " (a datasheet's peak for the types not measured)" : "");
        for (size_t k = 0; k < nkeys; k++) {
            long tid;
            const char *layer;
            size_t ll;
            const char *prec = agg_cell_parts(keys[k], &tid, &layer, &ll);
            if (!prec || tid != src->id)
                continue;
            const struct agg_cell *c = agg_map_get(&x->cells, keys[k]);
            const struct agg_work *w = agg_map_get(&x->work, keys[k]);
            if (!c || c->best < 0 || !w)
                continue;
            char *nk = agg_xprintf("%ld\x1f%.*s\x1f%s", t->id, (int)ll, layer, prec);
            struct agg_cell *pc = agg_xcalloc(1, sizeof(*pc));
            pc->best = -1;
            struct agg_move mv = {&sc, &dc, launch_s, launch_d, clock};
            /* the kernel clock holds no launch gap: all of its time is the roof part and the
             * rest (the empty kernel's own duration among the rest, scaled by the clock) */
            struct agg_move mk = {&sc, &dc, NAN, NAN, clock};
            for (int a = 0; a < c->nalgos; a++) {
                /* our plain C runs one thread at every count: its time stays */
                double us = !g && c->algos[a].one_thread ? c->algos[a].us
                                                         : agg_predict_us(c->algos[a].us, w, agg_peak_of(prec), &mv, NULL);
                if (!(us > 0))
                    continue;
                double kus = NAN;
                if (g && c->algos[a].kus > 0) {
                    kus = agg_predict_us(c->algos[a].kus, w, agg_peak_of(prec), &mk, NULL);
                    kus = kus < us ? kus : us; /* as a measured one: at most the time per launch */
                }
                if (pc->nalgos == pc->cap) {
                    pc->cap = pc->cap ? pc->cap * 2 : 4;
                    pc->algos = agg_xrealloc(pc->algos, (size_t)pc->cap * sizeof(*pc->algos));
                }
                pc->algos[pc->nalgos] = (struct agg_algo_time){.algo = agg_xstrdup(c->algos[a].algo), .us = us, .kus = kus,
                                                               .busy = c->algos[a].busy,
                                                               .one_thread = c->algos[a].one_thread};
                if (pc->best < 0 || us < pc->algos[pc->best].us)
                    pc->best = pc->nalgos;
                pc->nalgos++;
            }
            struct agg_work *pw = agg_xmalloc(sizeof(*pw));
            *pw = *w;
            agg_map_put(&x->work, nk, pw);
            agg_map_put(&x->cells, nk, pc);
            free(nk);
        }
        made++;
    }
    free(keys);
    if (!made) {
        fprintf(err, "agg: error: nothing to predict %s from: no %s target%s with known ceilings\n", to,
                g ? "other GPU" : "CPU at another thread count", from ? " matching --from" : "");
        return -2;
    }
    return 0;
}

/* ---- reports ---- */

/* the roofline's columns of one layer on a combination; 0 when its work is known */
struct agg_roof_row {
    const struct agg_work *w;
    double us, sheet, meas;
    const char *bound;
};

static int agg_roof_of(const struct agg_ctx *k, const struct agg_combo *c, const char *layer, struct agg_roof_row *o)
{
    (void)k;
    memset(o, 0, sizeof(*o));
    const struct agg_data *x = k->x;
    if (agg_best(x, c->target->id, layer, c->prec, &o->us, NULL))
        return -1;
    o->w = agg_work_at(x, c->target->id, layer, c->prec);
    if (!o->w)
        return -1;
    enum agg_peak p = agg_peak_of(c->prec);
    o->sheet = agg_roof_us(&c->target->sheet, p, o->w, 0, NULL);
    o->meas = agg_roof_us(&c->target->meas, p, o->w, 1, &o->bound);
    if (isnan(o->meas))
        agg_roof_us(&c->target->sheet, p, o->w, 0, &o->bound);
    return 0;
}

/* a time faster than the datasheet allows (3% for clocks above boost and rounding) */
static int agg_too_fast(const struct agg_roof_row *r)
{
    return r->sheet > 0 && r->us < 0.97 * r->sheet;
}

struct agg_table *agg_rep_roofline(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("roofline", "Roofline: each layer against the hardware",
        "Per model and layer: its work (GFLOP, MB read and written), arithmetic intensity, fastest time, and "
        "the roofline time max(flops / peak, bytes / bandwidth) at its type from the datasheet (GPU spec table; "
        "a CPU's peak from its cores, SIMD width and clock, its bandwidth measured) and from gen --calibrate's "
        "measured ceilings (with the launch floor); achieved = roofline / time. bound: what limits it "
        "(compute, memory, cache: the layer's bytes fit in the last-level cache, or launch). flag: faster than "
        "the datasheet allows, a measurement error.",
        HEAD "layer|op|name|uses|GFLOP|MB|flop/byte|time|roof datasheet|roof measured|achieved datasheet|"
             "achieved measured|bound|flag|total",
        HK "tttinnnuuuppttu");
    int bc = agg_busy_col(t), shown = 0;
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        struct agg_map seen = {0};
        int first = t->nrows;
        for (int j = 0; j < c->run->nnodes; j++) {
            const struct agg_node *n = &c->run->nodes[j];
            if (strcmp(n->cls, "compute") || !n->layer)
                continue;
            intptr_t at = (intptr_t)agg_map_get(&seen, n->layer);
            if (at) {
                struct agg_cellv *row = &t->cells[(size_t)(at - 1) * (size_t)t->ncols];
                row[7].v += 1;
                row[18].v += row[11].v;
                continue;
            }
            struct agg_roof_row rr;
            if (agg_roof_of(k, c, n->layer, &rr))
                continue;
            const struct agg_layer_info *l = agg_map_get(&k->x->layers, n->layer);
            int r = agg_row_head(t, c);
            agg_table_set_text(t, r, 4, n->layer);
            agg_table_set_text(t, r, 5, n->op);
            agg_table_set_text(t, r, 6, l ? l->name : "");
            agg_table_set_num(t, r, 7, 1);
            agg_table_set_num(t, r, 8, rr.w->flops / 1e9);
            agg_table_set_num(t, r, 9, rr.w->bytes / 1e6);
            agg_table_set_num(t, r, 10, rr.w->bytes > 0 ? rr.w->flops / rr.w->bytes : NAN);
            agg_table_set_num(t, r, 11, rr.us);
            agg_table_set_num(t, r, 12, rr.sheet);
            agg_table_set_num(t, r, 13, rr.meas);
            agg_table_set_num(t, r, 14, rr.sheet > 0 ? 100 * rr.sheet / rr.us : NAN);
            agg_table_set_num(t, r, 15, rr.meas > 0 ? 100 * rr.meas / rr.us : NAN);
            agg_table_set_text(t, r, 16, rr.bound);
            agg_table_set_text(t, r, 17, agg_too_fast(&rr) ? "faster than datasheet" : "");
            agg_table_set_num(t, r, 18, rr.us);
            agg_table_set_num(t, r, bc, agg_best_at(k->x, c->target->id, n->layer, c->prec)->busy == 1);
            agg_map_put(&seen, n->layer, (void *)(intptr_t)(r + 1));
            shown++;
        }
        agg_map_free(&seen, NULL);
        /* largest total (uses x time) first */
        struct agg_table view = *t;
        view.cells = &t->cells[(size_t)first * (size_t)t->ncols];
        view.nrows = t->nrows - first;
        agg_table_sort_desc(&view, 18);
    }
    if (!shown) {
        agg_table_free(t);
        return NULL;
    }
    return t;
}

struct agg_table *agg_rep_roofline_models(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("roofline-models", "Roofline: each model's physical floor",
        "Per model: the sequential bound beside the sum of its nodes' roofline times (the physical floor: "
        "what the hardware allows layer by layer, from the datasheet and from the measured ceilings), the "
        "ratio bound / floor, the ceilings at the type (peak GFLOP/s, bandwidth GB/s, launch floor) and how "
        "many layers ran faster than the datasheet allows (measurement errors).",
        HEAD "nodes with work|sequential|floor datasheet|floor measured|bound/floor datasheet|"
             "bound/floor measured|peak datasheet|peak measured|GB/s datasheet|GB/s measured|launch floor|"
             "faster than datasheet|ceilings",
        HK "iuuurrnnnnuit");
    int bc = agg_busy_col(t), shown = 0;
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        double seq = 0, fs = 0, fm = 0;
        int nodes = 0, fast = 0, busy = 0, fs_ok = 1, fm_ok = 1;
        for (int j = 0; j < c->run->nnodes; j++) {
            const struct agg_node *n = &c->run->nodes[j];
            struct agg_roof_row rr;
            if (strcmp(n->cls, "compute") || !n->layer || agg_roof_of(k, c, n->layer, &rr))
                continue;
            nodes++;
            seq += rr.us;
            fs += rr.sheet;
            fm += rr.meas;
            fs_ok &= rr.sheet >= 0;
            fm_ok &= rr.meas >= 0;
            fast += agg_too_fast(&rr);
            busy += c->b.node_busy[j];
        }
        if (!nodes)
            continue;
        enum agg_peak p = agg_peak_of(c->prec);
        const struct agg_ceil *s = &c->target->sheet, *m = &c->target->meas;
        int r = agg_row_head(t, c);
        agg_table_set_num(t, r, 4, nodes);
        agg_table_set_num(t, r, 5, seq);
        agg_table_set_num(t, r, 6, fs_ok ? fs : NAN);
        agg_table_set_num(t, r, 7, fm_ok ? fm : NAN);
        agg_table_set_num(t, r, 8, fs_ok && fs > 0 ? seq / fs : NAN);
        agg_table_set_num(t, r, 9, fm_ok && fm > 0 ? seq / fm : NAN);
        agg_table_set_num(t, r, 10, s->peak[p] / 1e9);
        agg_table_set_num(t, r, 11, m->peak[p] / 1e9);
        agg_table_set_num(t, r, 12, s->bw / 1e9);
        agg_table_set_num(t, r, 13, m->bw / 1e9);
        agg_table_set_num(t, r, 14, m->launch_us);
        agg_table_set_num(t, r, 15, fast);
        char *src = agg_xprintf("%s; %s", *s->source ? s->source : "no datasheet",
                                *m->source ? m->source : "no calibration");
        agg_table_set_text(t, r, 16, src);
        free(src);
        agg_table_set_num(t, r, bc, busy);
        shown++;
    }
    if (!shown) {
        agg_table_free(t);
        return NULL;
    }
    return t;
}

static const struct agg_target *agg_target_by_id(const struct agg_data *x, long id)
{
    for (int i = 0; i < x->ntargets; i++)
        if (x->targets[i].id == id)
            return &x->targets[i];
    return NULL;
}

/* the measured destination of a predicted target, if the database has one */
static const struct agg_target *agg_pred_measured(const struct agg_data *x, const struct agg_target *pt)
{
    const struct agg_target *src = agg_target_by_id(x, pt->predicted_from);
    if (!src)
        return NULL;
    const struct agg_gpu_spec *g = strcmp(pt->backend, "cuda") ? NULL : agg_specs_find(&x->specs, pt->device);
    return agg_dest_measured(x, src, g, pt->threads);
}

/* A predicted combination's sides: its source target (*SRC) and the source's combination (*SC,
 * where wanted), and the destination's measured combination, returned; NULL where absent */
static const struct agg_combo *agg_pred_sides(struct agg_ctx *k, const struct agg_combo *c,
                                              const struct agg_target **src, const struct agg_combo **sc)
{
    *src = agg_target_by_id(k->x, c->target->predicted_from);
    if (sc)
        *sc = *src ? agg_find_combo(k, c->run, *src, c->prec) : NULL;
    const struct agg_target *dm = agg_pred_measured(k->x, c->target);
    return dm ? agg_find_combo(k, c->run, dm, c->prec) : NULL;
}

/* the destination's measured sequential bound, where it covers the layers the prediction does
 * (a partial run's sum is no bound to hold a prediction to): MC's, else NaN */
static double agg_pred_measured_bound(const struct agg_combo *c, const struct agg_combo *mc)
{
    return mc && mc->b.covered >= c->b.covered ? mc->b.seq : NAN;
}

/* 100 |p - m| / m */
static double agg_pct_err(double p, double m)
{
    return m > 0 ? 100 * fabs(p - m) / m : NAN;
}

struct agg_table *agg_rep_predict(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("predict", "Prediction: each model on another device",
        "Per model: the bounds on the source device and predicted on the destination (agg --to: each layer's "
        "time scaled from its measured one, Habitat's wave scaling with the roofline's compute/memory split, per "
        "algorithm, the fastest kept; on GPUs the kernel clock too: CUPTI's kernel times scaled the same way, "
        "without the launch floor), and where the database has the destination measured over as many layers, "
        "its bound and the error of the prediction (a destination run that covers fewer layers is no bound: "
        "the prediction report compares such runs layer by layer).",
        HEAD "source|source sequential|predicted sequential|predicted fused|predicted parallel|"
             "predicted kernels fused|speedup|measured sequential|error",
        HK "tuuuuurup");
    int bc = agg_busy_col(t), shown = 0;
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        if (!c->target->predicted_from)
            continue;
        const struct agg_target *src;
        const struct agg_combo *sc, *mc = agg_pred_sides(k, c, &src, &sc);
        double ms = agg_pred_measured_bound(c, mc);
        int r = agg_row_head(t, c);
        agg_table_set_text(t, r, 4, src ? src->label : "");
        agg_table_set_num(t, r, 5, sc ? sc->b.seq : NAN);
        agg_table_set_num(t, r, 6, c->b.seq);
        agg_table_set_num(t, r, 7, c->b.fused_seq);
        agg_table_set_num(t, r, 8, c->b.par);
        agg_table_set_num(t, r, 9, c->b.kernel_fused_seq);
        agg_table_set_num(t, r, 10, sc && c->b.seq > 0 ? sc->b.seq / c->b.seq : NAN);
        agg_table_set_num(t, r, 11, ms);
        agg_table_set_num(t, r, 12, agg_pct_err(c->b.seq, ms));
        agg_table_set_num(t, r, bc, c->b.busy + (mc ? mc->b.busy : 0));
        shown++;
    }
    if (!shown) {
        agg_table_free(t);
        return NULL;
    }
    return t;
}

static int agg_cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mean, median and 90th percentile of v[0..n) (sorted here) */
static void agg_stats3(double *v, int n, double *mean, double *median, double *p90)
{
    *mean = *median = *p90 = NAN;
    if (!n)
        return;
    qsort(v, (size_t)n, sizeof(double), agg_cmp_dbl);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    /* nearest rank */
    int r = (int)ceil(0.9 * n) - 1;
    *p90 = v[r < 0 ? 0 : r];
}

struct agg_table *agg_rep_prediction(struct agg_ctx *k)
{
    struct agg_table *t = agg_new("prediction", "Prediction error: predicted against measured",
        "Where the database has the destination of agg --to measured too: per model, the absolute error "
        "|predicted - measured| / measured of each layer's fastest time over the algorithms measured on both "
        "(the model's distinct computing layers with such an algorithm: mean, median, 90th percentile; kernel: "
        "the same on the kernel clock, the algorithms with CUPTI's kernel time on both); the sums over the "
        "computing nodes measured on both (each use of a layer counts; on both clocks: a destination run that "
        "ran part of the set is compared where it ran); and of the sequential bound, where the destination's "
        "covers as many layers as the prediction.",
        HEAD "source|layers|layer error mean|layer error median|layer error p90|kernel layers|"
             "kernel layer error median|nodes on both|predicted on both|measured on both|error on both|"
             "kernel predicted on both|kernel measured on both|kernel error on both|predicted sequential|"
             "measured sequential|bound error",
        HK "tipppipiuupuupuup");
    int bc = agg_busy_col(t), shown = 0;
    for (int i = 0; i < k->nc; i++) {
        const struct agg_combo *c = &k->c[i];
        if (!c->target->predicted_from)
            continue;
        const struct agg_target *src;
        const struct agg_combo *mc = agg_pred_sides(k, c, &src, NULL);
        if (!mc)
            continue;
        long tp = c->target->id, tm = mc->target->id;
        double *err = agg_xmalloc(((size_t)c->run->nnodes + 1) * sizeof(double));
        double *kerr = agg_xmalloc(((size_t)c->run->nnodes + 1) * sizeof(double));
        int n = 0, kn = 0, nodes = 0, busy = 0, knodes = 0;
        double sp = 0, sm = 0, ksp = 0, ksm = 0;
        struct agg_map seen = {0};
        for (int j = 0; j < c->run->nnodes; j++) {
            const struct agg_node *nd = &c->run->nodes[j];
            double p, m, kp, km;
            if (strcmp(nd->cls, "compute") || !nd->layer ||
                agg_best_pair(k->x, tp, tm, nd->layer, c->prec, 0, &p, &m))
                continue;
            int kernel = !agg_best_pair(k->x, tp, tm, nd->layer, c->prec, 1, &kp, &km);
            nodes++;
            sp += p;
            sm += m;
            if (kernel) {
                knodes++;
                ksp += kp;
                ksm += km;
            }
            if (agg_map_get(&seen, nd->layer))
                continue;
            agg_map_put(&seen, nd->layer, (void *)1);
            err[n++] = agg_pct_err(p, m);
            if (kernel)
                kerr[kn++] = agg_pct_err(kp, km);
            const struct agg_algo_time *at = agg_best_at(k->x, tm, nd->layer, c->prec);
            busy += at && at->busy == 1;
        }
        agg_map_free(&seen, NULL);
        double mean, median, p90, kmean, kmedian, kp90;
        agg_stats3(err, n, &mean, &median, &p90);
        agg_stats3(kerr, kn, &kmean, &kmedian, &kp90);
        free(err);
        free(kerr);
        double ms = agg_pred_measured_bound(c, mc);
        int r = agg_row_head(t, c);
        agg_table_set_text(t, r, 4, src ? src->label : "");
        agg_table_set_num(t, r, 5, n);
        agg_table_set_num(t, r, 6, mean);
        agg_table_set_num(t, r, 7, median);
        agg_table_set_num(t, r, 8, p90);
        agg_table_set_num(t, r, 9, kn);
        agg_table_set_num(t, r, 10, kmedian);
        agg_table_set_num(t, r, 11, nodes);
        agg_table_set_num(t, r, 12, nodes ? sp : NAN);
        agg_table_set_num(t, r, 13, nodes ? sm : NAN);
        agg_table_set_num(t, r, 14, nodes ? agg_pct_err(sp, sm) : NAN);
        /* the kernel clock's sums only where every node on both has it: else they'd sum apart */
        int ksums = knodes && knodes == nodes;
        agg_table_set_num(t, r, 15, ksums ? ksp : NAN);
        agg_table_set_num(t, r, 16, ksums ? ksm : NAN);
        agg_table_set_num(t, r, 17, ksums ? agg_pct_err(ksp, ksm) : NAN);
        agg_table_set_num(t, r, 18, c->b.seq);
        agg_table_set_num(t, r, 19, ms);
        agg_table_set_num(t, r, 20, agg_pct_err(c->b.seq, ms));
        agg_table_set_num(t, r, bc, busy);
        shown++;
    }
    if (!shown) {
        agg_table_free(t);
        return NULL;
    }
    return t;
}
