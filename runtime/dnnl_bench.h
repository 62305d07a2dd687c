/* A generated CPU benchmark's body: select the implementation, allocate and fill buffers in
 * the layouts it wants, time the primitive, and verify against oneDNN's reference.
 * Needs harness.h and dnnl_ops.h before it; inlined into each generated file. */
#ifndef BENANZA_DNNL_BENCH_H
#define BENANZA_DNNL_BENCH_H

#include <errno.h>
#include <math.h>

enum { BD_MAX_ARGS = BD_MAX_CAT + 1 }; /* a concat: its inputs and dst */

struct bd_arg {
    int arg;        /* DNNL_ARG_* */
    int output;
    int fill;       /* 0: uniform [-1, 1]; 1: positive [0.5, 1.5] (variances, logs); N > 1:
                       uniform [-1, 1] / sqrt(N) (recurrent weights over a fan-in of N) */
};

struct bd_state {
    const struct bd_op *op;
    const char *impl;           /* wanted impl_info_str, or "any" */
    const struct bd_arg *args;
    int nargs;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    dnnl_memory_t mem[BD_MAX_ARGS + 1];
    dnnl_exec_arg_t exec[BD_MAX_ARGS + 1];
    int nexec;
    int default_variant; /* the layout and algorithm kind a framework asks oneDNN for */
    int first_choice;    /* the implementation is the one oneDNN picks first for it */
};

#define BD_CHECK(r, call)                                                                           \
    do {                                                                                            \
        dnnl_status_t bd_st_ = (call);                                                              \
        if (bd_st_ != dnnl_success) {                                                               \
            bh_note((r), "%s failed: %s", #call, dnnl_status2str(bd_st_));                         \
            return bd_st_ == dnnl_out_of_memory ? BH_OOM : BH_ERROR;                                \
        }                                                                                           \
    } while (0)

/* Deterministic values, the same on every machine: inputs of a run and of its check agree. */
static inline float bd_rand(uint32_t *s, int fill)
{
    *s = *s * 1664525u + 1013904223u;
    float u = (float)(*s >> 8) / 16777216.0f;
    if (fill == 1)
        return 0.5f + u;
    return fill > 1 ? (2.0f * u - 1.0f) / sqrtf((float)fill) : 2.0f * u - 1.0f;
}

static inline dnnl_status_t bd_reorder(dnnl_engine_t eng, dnnl_stream_t s, dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *fm, *tm;
    dnnl_memory_get_memory_desc(from, &fm);
    dnnl_memory_get_memory_desc(to, &tm);
    dnnl_primitive_desc_t rpd;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&rpd, fm, eng, tm, eng, NULL);
    if (st != dnnl_success)
        return st;
    dnnl_primitive_t r;
    st = dnnl_primitive_create(&r, rpd);
    dnnl_primitive_desc_destroy(rpd);
    if (st != dnnl_success)
        return st;
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    st = dnnl_primitive_execute(r, s, 2, a);
    if (st == dnnl_success)
        st = dnnl_stream_wait(s);
    dnnl_primitive_destroy(r);
    return st;
}

/* A plain f32 memory with the dims of md. */
static inline dnnl_status_t bd_plain_f32(dnnl_engine_t eng, const dnnl_memory_desc_t *md, dnnl_memory_t *out)
{
    struct bd_tensor t;
    t.nd = md->ndims;
    for (int i = 0; i < md->ndims; i++)
        t.d[i] = md->dims[i];
    dnnl_memory_desc_t pm;
    dnnl_status_t st = bd_md(&pm, &t, dnnl_f32, 0);
    return st == dnnl_success ? dnnl_memory_create(out, &pm, eng, DNNL_MEMORY_ALLOCATE) : st;
}

/* A plain f32 copy (dims of md) of mem, any type and layout, and its data; *plain is the
 * caller's to destroy on success and nothing is left on failure. */
static inline dnnl_status_t bd_plain_copy(dnnl_engine_t eng, dnnl_stream_t s, dnnl_memory_t mem,
                                          const dnnl_memory_desc_t *md, dnnl_memory_t *plain, float **data)
{
    dnnl_status_t st = bd_plain_f32(eng, md, plain);
    if (st != dnnl_success)
        return st;
    if ((st = bd_reorder(eng, s, mem, *plain)) != dnnl_success) {
        dnnl_memory_destroy(*plain);
        return st;
    }
    dnnl_memory_get_data_handle(*plain, (void **)data);
    return dnnl_success;
}

/* Fills mem (any type and layout) with deterministic values through an f32 staging buffer. */
static inline dnnl_status_t bd_fill(dnnl_engine_t eng, dnnl_stream_t s, dnnl_memory_t mem, uint32_t seed, int fill)
{
    const dnnl_memory_desc_t *md;
    dnnl_memory_get_memory_desc(mem, &md);
    dnnl_memory_t staging;
    dnnl_status_t st = bd_plain_f32(eng, md, &staging);
    if (st != dnnl_success)
        return st;
    float *p;
    dnnl_memory_get_data_handle(staging, (void **)&p);
    size_t n = dnnl_memory_desc_get_size(md) ? 1 : 0;
    for (int i = 0; i < md->ndims; i++)
        n *= (size_t)md->dims[i];
    /* integers across a good part of their type: u8 [0, 128), s8 [-64, 64), s32 [-1024, 1024) */
    float span = md->data_type == dnnl_u8 || md->data_type == dnnl_s8 ? 64.0f : md->data_type == dnnl_s32 ? 1024.0f : 0;
    for (size_t i = 0; i < n; i++) {
        p[i] = bd_rand(&seed, fill);
        if (span)
            p[i] = floorf((md->data_type == dnnl_u8 ? p[i] + 1.0f : p[i]) * span);
    }
    st = bd_reorder(eng, s, staging, mem);
    dnnl_memory_destroy(staging);
    return st;
}

/* oneDNN's reference implementations: "ref:any", "bnorm_ref:any", "ref_int8:any", ... */
static inline int bd_impl_is_ref(const char *name)
{
    return !strncmp(name, "ref", 3) || strstr(name, "_ref:") != NULL;
}

/* The primitive descriptor of the wanted implementation (or the reference one). */
static inline enum bh_status bd_select(struct bd_state *b, const char *want, int reference, dnnl_primitive_desc_t *pd,
                                struct bh_result *r)
{
    if (b->op->family == BD_REORDER || b->op->family == BD_CONCAT) {
        const char *name = "";
        dnnl_status_t rs = b->op->family == BD_REORDER ? bd_reorder_pd(b->eng, b->op, pd) : bd_concat_pd(b->eng, b->op, pd);
        if (rs != dnnl_success) {
            bh_note(r, "no %s for this layout and type here (%s)", b->op->family == BD_REORDER ? "reorder" : "concat",
                    dnnl_status2str(rs));
            return rs == dnnl_unimplemented ? BH_UNSUPPORTED : BH_ERROR;
        }
        dnnl_primitive_desc_query(*pd, dnnl_query_impl_info_str, 0, &name);
        if (reference || !strcmp(want, "any") || !strcmp(want, name)) {
            b->first_choice = !reference;
            return BH_OK;
        }
        bh_note(r, "the implementation %s is not offered on this machine (offered: %s)", want, name);
        dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
        return BH_UNSUPPORTED;
    }
    union bd_desc u;
    dnnl_primitive_attr_t attr;
    dnnl_status_t st = bd_op_desc(b->op, &u, &attr);
    if (st != dnnl_success) {
        if (attr)
            dnnl_primitive_attr_destroy(attr);
        /* the same operation in f32 describes: a type this oneDNN does not take for it
         * (oneDNN 2.6's eltwise round is f32 only) */
        if (st != dnnl_unimplemented && b->op->dt != dnnl_f32) {
            struct bd_op f32 = *b->op;
            f32.dt = dnnl_f32;
            dnnl_status_t fs = bd_op_desc(&f32, &u, &attr);
            if (attr)
                dnnl_primitive_attr_destroy(attr);
            if (fs == dnnl_success) {
                bh_note(r, "oneDNN describes this operation in f32 but not in this type (%s)", dnnl_status2str(st));
                return BH_UNSUPPORTED;
            }
        }
        bh_note(r, "oneDNN cannot describe this operation: %s", dnnl_status2str(st));
        return st == dnnl_unimplemented ? BH_UNSUPPORTED : BH_ERROR;
    }
    dnnl_primitive_desc_iterator_t it;
    st = dnnl_primitive_desc_iterator_create(&it, &u, attr, b->eng, NULL);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        bh_note(r, "no implementation of this operation and type here (%s)", dnnl_status2str(st));
        return st == dnnl_unimplemented ? BH_UNSUPPORTED : BH_ERROR;
    }
    char offered[400] = "";
    *pd = NULL;
    int fetched = 0;
    do {
        dnnl_primitive_desc_t c = dnnl_primitive_desc_iterator_fetch(it);
        const char *name = "";
        if (!c)
            continue;
        dnnl_primitive_desc_query(c, dnnl_query_impl_info_str, 0, &name);
        int match = reference ? bd_impl_is_ref(name) : !strcmp(want, "any") || !strcmp(want, name);
        fetched++;
        if (match && !*pd) {
            *pd = c;
            /* the iterator yields implementations in oneDNN's order of preference */
            if (!reference)
                b->first_choice = fetched == 1;
        } else {
            if (strlen(offered) + strlen(name) + 3 < sizeof(offered))
                snprintf(offered + strlen(offered), sizeof(offered) - strlen(offered), "%s%s", *offered ? " " : "",
                         name);
            dnnl_primitive_desc_destroy(c);
        }
    } while (!*pd && dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    if (!*pd) {
        bh_note(r, "%s implementation %s is not offered on this machine (offered: %s)",
                reference ? "the reference" : "the", reference ? "ref" : want, offered);
        return BH_UNSUPPORTED;
    }
    return BH_OK;
}

/* Memory for every argument of pd (inputs filled); mem[nargs] is the scratchpad. */
static inline enum bh_status bd_alloc(struct bd_state *b, dnnl_primitive_desc_t pd, dnnl_memory_t *mem,
                               dnnl_exec_arg_t *exec, int *nexec, struct bh_result *r)
{
    *nexec = 0;
    for (int i = 0; i <= b->nargs; i++) {
        int arg = i < b->nargs ? b->args[i].arg : DNNL_ARG_SCRATCHPAD;
        const dnnl_memory_desc_t *md = i < b->nargs ? dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg)
                                                    : dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        mem[i] = NULL;
        if (!md || md->ndims == 0 || dnnl_memory_desc_get_size(md) == 0)
            continue;
        BD_CHECK(r, dnnl_memory_create(&mem[i], md, b->eng, DNNL_MEMORY_ALLOCATE));
        /* inputs are filled; so is the destination of a sum post-op (it holds the residual) */
        if (i < b->nargs && (!b->args[i].output || (b->op->post_sum && arg == DNNL_ARG_DST)))
            BD_CHECK(r, bd_fill(b->eng, b->stream, mem[i], 12345u + 7919u * (uint32_t)i, b->args[i].fill));
        if (i == b->nargs)
            r->workspace_bytes = (double)dnnl_memory_desc_get_size(md);
        exec[*nexec].arg = arg;
        exec[*nexec].memory = mem[i];
        (*nexec)++;
    }
    return BH_OK;
}

/* Whether this file holds the code of OP's family (BD_FAMILIES, dnnl_ops.h): a family with
 * code of its own (a descriptor, a reference) must be among them, else the file would set up
 * or verify the operation as another family's */
static inline int bd_family_compiled(const struct bd_op *op)
{
    unsigned bit = bd_family_bit(op->family);
    return !bit || (BD_FAMILIES & bit);
}

static inline enum bh_status bd_setup(void *state, const struct bh_opts *o, struct bh_result *r)
{
    struct bd_state *b = (struct bd_state *)state;
    (void)o;
    if (!bd_family_compiled(b->op)) {
        bh_note(r, "the operation's family (%d) has no code in this file (its BD_FAMILIES is 0x%x)", (int)b->op->family,
                BD_FAMILIES);
        return BH_ERROR;
    }
    const dnnl_version_t *v = dnnl_version();
    snprintf(r->lib, sizeof(r->lib), "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    bh_cpu_device(r);
    snprintf(r->sms, sizeof(r->sms), "%d", (int)sysconf(_SC_NPROCESSORS_ONLN));
    r->threads = bh_cpu_threads();
    BD_CHECK(r, dnnl_engine_create(&b->eng, dnnl_cpu, 0));
    BD_CHECK(r, dnnl_stream_create(&b->stream, b->eng, dnnl_stream_default_flags));
    enum bh_status st = bd_select(b, b->impl, 0, &b->pd, r);
    if (st != BH_OK)
        return st;
    if (b->first_choice && b->default_variant)
        snprintf(r->tags, sizeof(r->tags), "choice=heuristic");
    if ((st = bd_alloc(b, b->pd, b->mem, b->exec, &b->nexec, r)) != BH_OK)
        return st;
    BD_CHECK(r, dnnl_primitive_create(&b->prim, b->pd));
    return BH_OK;
}

static inline double bd_run(void *state, struct bh_result *r)
{
    struct bd_state *b = (struct bd_state *)state;
    double t0 = bh_now_us();
    dnnl_status_t st = dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec);
    if (st == dnnl_success)
        st = dnnl_stream_wait(b->stream);
    double t1 = bh_now_us();
    if (st != dnnl_success) {
        r->status = BH_ERROR;
        bh_note(r, "dnnl_primitive_execute failed: %s", dnnl_status2str(st));
        return -1;
    }
    return t1 - t0;
}

/* Largest |a - b| over max |b| between two outputs, through plain f32 copies (*abs_err: the
 * largest |a - b| itself, for integer outputs). */
static inline enum bh_status bd_compare(struct bd_state *b, dnnl_memory_t got, dnnl_memory_t want, double *err,
                                        double *abs_err, struct bh_result *r)
{
    const dnnl_memory_desc_t *md;
    dnnl_memory_get_memory_desc(want, &md);
    dnnl_memory_t pg, pw;
    float *x, *y;
    BD_CHECK(r, bd_plain_copy(b->eng, b->stream, got, md, &pg, &x));
    dnnl_status_t st = bd_plain_copy(b->eng, b->stream, want, md, &pw, &y);
    if (st != dnnl_success)
        dnnl_memory_destroy(pg);
    BD_CHECK(r, st);
    size_t n = 1;
    for (int i = 0; i < md->ndims; i++)
        n *= (size_t)md->dims[i];
    double maxdiff = 0, maxref = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)x[i] - (double)y[i]);
        if (d > maxdiff || d != d)
            maxdiff = d != d ? INFINITY : d;
        if (fabs(y[i]) > maxref)
            maxref = fabs(y[i]);
    }
    *err = maxdiff / (maxref > 1e-6 ? maxref : 1e-6);
    if (abs_err)
        *abs_err = maxdiff;
    dnnl_memory_destroy(pg);
    dnnl_memory_destroy(pw);
    return BH_OK;
}

#if BD_FAMILIES & BD_FAM_REORDER
/* A permutation (Transpose, DepthToSpace, SpaceToDepth) has no reference implementation.
 * For f32 every output element is checked in plain C where the permutation says it must be;
 * for every type the output, reordered back to the input's plain layout by a separate
 * reorder, must give the input back exactly. */
static inline enum bh_status bd_verify_reorder(struct bd_state *b, struct bh_result *r)
{
    BD_CHECK(r, dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec));
    BD_CHECK(r, dnnl_stream_wait(b->stream));
    const struct bd_op *op = b->op;
    if (op->dt == dnnl_f32) {
        const float *src, *dst;
        dnnl_memory_get_data_handle(b->mem[0], (void **)&src);
        dnnl_memory_get_data_handle(b->mem[1], (void **)&dst);
        int nd = op->src.nd;
        int64_t idx[8] = {0}, total = 1, ostride[8], istride[8], acc = 1;
        for (int k = nd - 1; k >= 0; k--) {
            ostride[k] = acc;
            acc *= op->src.d[op->perm[k]];
        }
        for (int k = 0; k < nd; k++) /* the output stride of each input dim */
            istride[op->perm[k]] = ostride[k];
        for (int k = 0; k < nd; k++)
            total *= op->src.d[k];
        for (int64_t i = 0; i < total; i++) {
            int64_t off = 0;
            for (int k = 0; k < nd; k++)
                off += idx[k] * istride[k];
            if (memcmp(&dst[off], &src[i], sizeof(float)) != 0) {
                bh_note(r, "output element %lld is not input element %lld", (long long)off, (long long)i);
                return BH_WRONG;
            }
            for (int k = nd - 1; k >= 0 && ++idx[k] == op->src.d[k]; k--)
                idx[k] = 0;
        }
    }
    const dnnl_memory_desc_t *smd;
    dnnl_memory_get_memory_desc(b->mem[0], &smd);
    dnnl_memory_t back;
    BD_CHECK(r, dnnl_memory_create(&back, smd, b->eng, DNNL_MEMORY_ALLOCATE));
    BD_CHECK(r, bd_reorder(b->eng, b->stream, b->mem[1], back));
    double err;
    enum bh_status st = bd_compare(b, back, b->mem[0], &err, NULL, r);
    dnnl_memory_destroy(back);
    if (st != BH_OK)
        return st;
    if (err != 0) {
        bh_note(r, "the transposed output does not give the input back: max error %.3g", err);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: %sthe output reordered back equals the input (max error 0)",
            op->dt == dnnl_f32 ? "every element where the permutation puts it, and " : "");
    return BH_OK;
}
#endif

#if BD_FAMILIES & BD_FAM_CONCAT
/* A concat has no reference implementation: its output, in the plain layout, must hold each
 * input's elements (in the plain layout too) at their offsets along the axis. */
static inline enum bh_status bd_verify_concat(struct bd_state *b, struct bh_result *r)
{
    BD_CHECK(r, dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec));
    BD_CHECK(r, dnnl_stream_wait(b->stream));
    int nin = b->nargs - 1, axis = b->op->axis;
    const dnnl_memory_desc_t *dmd;
    dnnl_memory_get_memory_desc(b->mem[nin], &dmd);
    dnnl_memory_t pd;
    float *out;
    BD_CHECK(r, bd_plain_copy(b->eng, b->stream, b->mem[nin], dmd, &pd, &out));
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; k++)
        outer *= dmd->dims[k];
    for (int k = axis + 1; k < dmd->ndims; k++)
        inner *= dmd->dims[k];
    int64_t row = dmd->dims[axis] * inner, off = 0;
    double worst = 0;
    for (int i = 0; i < nin; i++) {
        const dnnl_memory_desc_t *smd;
        dnnl_memory_get_memory_desc(b->mem[i], &smd);
        dnnl_memory_t ps;
        float *in;
        dnnl_status_t st = bd_plain_copy(b->eng, b->stream, b->mem[i], smd, &ps, &in);
        if (st != dnnl_success)
            dnnl_memory_destroy(pd);
        BD_CHECK(r, st);
        int64_t chunk = smd->dims[axis] * inner;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t k = 0; k < chunk; k++) {
                double d = fabs((double)out[o * row + off + k] - (double)in[o * chunk + k]);
                if (d > worst)
                    worst = d;
            }
        off += chunk;
        dnnl_memory_destroy(ps);
    }
    dnnl_memory_destroy(pd);
    if (worst != 0) {
        bh_note(r, "the concatenated output differs from its inputs: max error %.3g", worst);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference: every input found at its offset in the output (max error 0)");
    return BH_OK;
}
#endif

/* The largest error, relative to the largest reference value, accepted in each type. */
static inline double bd_tolerance(dnnl_data_type_t dt)
{
    return dt == dnnl_f32 ? 1e-4 : dt == dnnl_f16 ? 5e-3 : 3e-2;
}

#if BD_FAMILIES & BD_FAM_DECONV
/* A deconvolution (ConvTranspose) has no reference implementation in oneDNN: the reference
 * here is the definition in plain C, in double, on plain f32 copies of the very inputs the
 * implementation read. Each input element scatters into the outputs its kernel reaches:
 * dst[n, g, oc, o] += src[n, g, ic, i] * wei[g, oc, ic, k] where o = i * stride - pad_l +
 * k * dilation (every spatial dim; the missing ones count as size 1), then the bias. */
static inline enum bh_status bd_verify_deconv(struct bd_state *b, struct bh_result *r)
{
    BD_CHECK(r, dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec));
    BD_CHECK(r, dnnl_stream_wait(b->stream));
    const struct bd_op *op = b->op;
    if (op->post_sum || op->post_alg) { /* gen fuses nothing into a deconvolution */
        bh_note(r, "not verified: the plain C deconvolution has no post-ops");
        return BH_OK;
    }
    enum { S, W, B, D, NPART };
    const int which[NPART] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    dnnl_memory_t plain[NPART] = {NULL, NULL, NULL, NULL};
    float *data[NPART] = {NULL, NULL, NULL, NULL};
    dnnl_status_t st = dnnl_success;
    for (int i = 0; i < b->nargs && st == dnnl_success; i++)
        for (int p = 0; p < NPART; p++) {
            const dnnl_memory_desc_t *md;
            if (b->args[i].arg != which[p] || !b->mem[i])
                continue;
            dnnl_memory_get_memory_desc(b->mem[i], &md);
            st = bd_plain_copy(b->eng, b->stream, b->mem[i], md, &plain[p], &data[p]);
        }
    int64_t nelem = op->dst.d[0];
    for (int k = 1; k < op->dst.nd; k++)
        nelem *= op->dst.d[k];
    double *acc = st == dnnl_success && data[S] && data[W] && data[D] ? calloc((size_t)nelem, sizeof(double)) : NULL;
    if (!acc) {
        for (int p = 0; p < NPART; p++)
            if (plain[p])
                dnnl_memory_destroy(plain[p]);
        BD_CHECK(r, st);
        bh_note(r, "no memory for the reference deconvolution (%lld outputs)", (long long)nelem);
        return BH_OOM;
    }
    /* sizes as [N][G][C/G][D][H][W]; the weights [G][OC/G][IC/G][KD][KH][KW] */
    int nsp = op->nsp, grouped = op->wei.nd == op->src.nd + 1;
    int64_t N = op->src.d[0], G = grouped ? op->wei.d[0] : 1;
    int64_t OCG = op->wei.d[grouped], ICG = op->wei.d[grouped + 1];
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, ker[3] = {1, 1, 1}, str[3] = {1, 1, 1}, dil[3] = {1, 1, 1},
            pad[3] = {0, 0, 0};
    for (int k = 0; k < nsp; k++) {
        int j = 3 - nsp + k;
        in[j] = op->src.d[2 + k];
        out[j] = op->dst.d[2 + k];
        ker[j] = op->kernel[k];
        str[j] = op->strides[k];
        dil[j] = op->dil[k];
        pad[j] = op->pl[k];
    }
    int64_t insz = in[0] * in[1] * in[2], outsz = out[0] * out[1] * out[2], kvol = ker[0] * ker[1] * ker[2];
    const float *src = data[S], *wei = data[W];
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t ic = 0; ic < ICG; ic++) {
                const float *x = src + ((n * G + g) * ICG + ic) * insz;
                for (int64_t i0 = 0; i0 < in[0]; i0++)
                    for (int64_t i1 = 0; i1 < in[1]; i1++)
                        for (int64_t i2 = 0; i2 < in[2]; i2++) {
                            double v = x[(i0 * in[1] + i1) * in[2] + i2];
                            for (int64_t k0 = 0; k0 < ker[0]; k0++) {
                                int64_t o0 = i0 * str[0] - pad[0] + k0 * dil[0];
                                if (o0 < 0 || o0 >= out[0])
                                    continue;
                                for (int64_t k1 = 0; k1 < ker[1]; k1++) {
                                    int64_t o1 = i1 * str[1] - pad[1] + k1 * dil[1];
                                    if (o1 < 0 || o1 >= out[1])
                                        continue;
                                    for (int64_t k2 = 0; k2 < ker[2]; k2++) {
                                        int64_t o2 = i2 * str[2] - pad[2] + k2 * dil[2];
                                        if (o2 < 0 || o2 >= out[2])
                                            continue;
                                        int64_t o = (o0 * out[1] + o1) * out[2] + o2;
                                        int64_t k = (k0 * ker[1] + k1) * ker[2] + k2;
                                        double *y = acc + (n * G + g) * OCG * outsz + o;
                                        const float *w = wei + (g * OCG * ICG + ic) * kvol + k;
                                        for (int64_t oc = 0; oc < OCG; oc++)
                                            y[oc * outsz] += v * w[oc * ICG * kvol];
                                    }
                                }
                            }
                        }
            }
    double maxdiff = 0, maxref = 0;
    for (int64_t e = 0; e < nelem; e++) {
        double want = acc[e] + (data[B] ? data[B][(e / outsz) % (G * OCG)] : 0.0);
        double d = fabs((double)data[D][e] - want);
        if (d > maxdiff || d != d)
            maxdiff = d != d ? INFINITY : d;
        if (fabs(want) > maxref)
            maxref = fabs(want);
    }
    free(acc);
    for (int p = 0; p < NPART; p++)
        if (plain[p])
            dnnl_memory_destroy(plain[p]);
    double err = maxdiff / (maxref > 1e-6 ? maxref : 1e-6);
    double tol = bd_tolerance(op->dt);
    if (!(err <= tol)) {
        bh_note(r, "output differs from the plain C deconvolution: max error %.3g of the largest value (tolerance %.0e)",
                err, tol);
        return BH_WRONG;
    }
    bh_note(r, "verified against the reference, a plain C deconvolution (oneDNN has none): max error %.3g "
               "(tolerance %.0e)", err, tol);
    return BH_OK;
}
#endif

#if BD_FAMILIES & BD_FAM_RNN
/* The values input argument i of the benchmark holds, as plain f32: its dims in the plain
 * layout, filled the way bd_alloc fills it (same seed, same rounding to the argument's type)
 * and read back. For layouts oneDNN cannot reorder out of (the RNN primitives' packed
 * weights). *plain is the caller's to destroy on success. */
static inline dnnl_status_t bd_input_plain(struct bd_state *b, int i, dnnl_memory_t *plain, float **data)
{
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(b->pd, dnnl_query_exec_arg_md, b->args[i].arg);
    if (!md)
        return dnnl_invalid_arguments;
    struct bd_tensor t;
    t.nd = md->ndims;
    for (int k = 0; k < md->ndims; k++)
        t.d[k] = md->dims[k];
    dnnl_memory_desc_t pm;
    dnnl_memory_t typed;
    dnnl_status_t st = bd_md(&pm, &t, md->data_type, 0);
    if (st == dnnl_success)
        st = dnnl_memory_create(&typed, &pm, b->eng, DNNL_MEMORY_ALLOCATE);
    if (st != dnnl_success)
        return st;
    st = bd_fill(b->eng, b->stream, typed, 12345u + 7919u * (uint32_t)i, b->args[i].fill);
    if (st == dnnl_success)
        st = bd_plain_copy(b->eng, b->stream, typed, &pm, plain, data);
    dnnl_memory_destroy(typed);
    return st;
}

/* max |got - want| and max |want| of one output, accumulated */
struct bd_err {
    double diff, ref;
};

static inline void bd_err_add(struct bd_err *e, double got, double want)
{
    double d = fabs(got - want);
    if (d > e->diff || d != d)
        e->diff = d != d ? INFINITY : d;
    if (fabs(want) > e->ref)
        e->ref = fabs(want);
}

static inline double bd_err_rel(const struct bd_err *e)
{
    return e->diff / (e->ref > 1e-6 ? e->ref : 1e-6);
}

static inline double bd_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* A recurrent layer against its definition in plain C, in double (oneDNN's RNN primitive has
 * one implementation whose "reference" form exists only on machines without AVX-512, so
 * there is nothing of oneDNN's to compare with). Cells as oneDNN defines them, gates in its
 * order: LSTM i, f, c~, o (c = f c + i c~, h = o tanh c; peepholes add P_i c and P_f c of
 * the old cell state to i and f, P_o c of the new one to o); GRU u, r, o with o = tanh(W_o x +
 * U_o (r h) + b_o); linear-before-reset GRU o = tanh(W_o x + b_o + r (U_o h + b_u')); vanilla
 * RNN h = act(W x + U h + b), act tanh, relu or sigmoid; h' = u h + (1 - u) o for both GRUs. Weights ldigo, bias ldgo,
 * states ldnc; right to left (or the second direction of a bidirectional layer) walks time
 * backwards, and a bidirectional layer writes the directions side by side in dst_layer.
 * The inputs are the very values the implementation read: regenerated in the plain layout. */
static inline enum bh_status bd_verify_rnn(struct bd_state *b, struct bh_result *r)
{
    BD_CHECK(r, dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec));
    BD_CHECK(r, dnnl_stream_wait(b->stream));
    const struct bd_op *op = b->op;
    enum { XL, HI, CI, WL, WI, WP, BI, YL, HO, CO, NPART };
    static const int which[NPART] = {DNNL_ARG_SRC_LAYER,     DNNL_ARG_SRC_ITER,        DNNL_ARG_SRC_ITER_C,
                                     DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,    DNNL_ARG_WEIGHTS_PEEPHOLE,
                                     DNNL_ARG_BIAS,          DNNL_ARG_DST_LAYER,       DNNL_ARG_DST_ITER,
                                     DNNL_ARG_DST_ITER_C};
    dnnl_memory_t plain[NPART];
    float *v[NPART];
    memset(plain, 0, sizeof(plain));
    memset(v, 0, sizeof(v));
    dnnl_status_t st = dnnl_success;
    for (int i = 0; i < b->nargs && st == dnnl_success; i++)
        for (int p = 0; p < NPART && st == dnnl_success; p++) {
            if (b->args[i].arg != which[p] || !b->mem[i])
                continue;
            if (b->args[i].output) {
                const dnnl_memory_desc_t *md;
                dnnl_memory_get_memory_desc(b->mem[i], &md);
                st = bd_plain_copy(b->eng, b->stream, b->mem[i], md, &plain[p], &v[p]);
            } else {
                st = bd_input_plain(b, i, &plain[p], &v[p]);
            }
        }
    int lstm = op->alg == dnnl_vanilla_lstm, lbr = op->alg == dnnl_lbr_gru;
    int gru = lbr || op->alg == dnnl_vanilla_gru;
    int64_t T = op->src.d[0], N = op->src.d[1], C = op->src.d[2];
    int64_t D = op->wei.d[1], G = op->wei.d[3], H = op->wei.d[4], GB = op->bias.d[2];
    double *work = NULL;
    if (st == dnnl_success && v[XL] && v[WL] && v[WI] && v[BI] && v[YL])
        work = (double *)malloc((size_t)(2 * G * H + 3 * H) * sizeof(double));
    enum bh_status res = BH_OK;
    if (!work) {
        for (int p = 0; p < NPART; p++)
            if (plain[p])
                dnnl_memory_destroy(plain[p]);
        BD_CHECK(r, st);
        bh_note(r, "%s", "no memory for the reference recurrent layer");
        return BH_OOM;
    }
    double *xw = work, *hu = work + G * H, *h = hu + G * H, *c = h + H, *rh = c + H;
    struct bd_err err[3] = {{0, 0}, {0, 0}, {0, 0}}; /* dst_layer, dst_iter, dst_iter_c */
    for (int64_t d = 0; d < D; d++) {
        int back = op->axis == dnnl_unidirectional_right2left || (op->axis == dnnl_bidirectional_concat && d == 1);
        const float *W = v[WL] + d * C * G * H, *U = v[WI] + d * H * G * H, *B = v[BI] + d * GB * H;
        const float *P = v[WP] ? v[WP] + d * 3 * H : NULL; /* peepholes i, f, o */
        for (int64_t n = 0; n < N; n++) {
            for (int64_t j = 0; j < H; j++) {
                h[j] = v[HI] ? v[HI][(d * N + n) * H + j] : 0.0;
                c[j] = v[CI] ? v[CI][(d * N + n) * H + j] : 0.0;
            }
            for (int64_t step = 0; step < T; step++) {
                int64_t t = back ? T - 1 - step : step;
                const float *x = v[XL] + (t * N + n) * C;
                for (int64_t k = 0; k < G * H; k++) {
                    double a = B[k], u = 0;
                    for (int64_t i = 0; i < C; i++)
                        a += (double)x[i] * W[i * G * H + k];
                    for (int64_t i = 0; i < H; i++)
                        u += h[i] * U[i * G * H + k];
                    xw[k] = a;
                    hu[k] = u;
                }
                for (int64_t j = 0; j < H; j++) {
                    if (lstm) {
                        double pi = P ? P[j] * c[j] : 0, pf = P ? P[H + j] * c[j] : 0;
                        double ig = bd_sigmoid(xw[j] + hu[j] + pi), fg = bd_sigmoid(xw[H + j] + hu[H + j] + pf);
                        double cg = tanh(xw[2 * H + j] + hu[2 * H + j]);
                        c[j] = fg * c[j] + ig * cg;
                        double og = bd_sigmoid(xw[3 * H + j] + hu[3 * H + j] + (P ? P[2 * H + j] * c[j] : 0));
                        rh[j] = og * tanh(c[j]);
                    } else if (!gru) {
                        double a = xw[j] + hu[j];
                        rh[j] = op->rnn_act == dnnl_eltwise_relu       ? (a > 0 ? a : 0)
                                : op->rnn_act == dnnl_eltwise_logistic ? bd_sigmoid(a)
                                                                       : tanh(a);
                    }
                }
                if (gru) {
                    /* rh first holds r * h (the vanilla GRU's U_o reads it), then the new h */
                    double *o = xw + 2 * H; /* W_o x + b_o, then the candidate */
                    for (int64_t j = 0; j < H; j++)
                        rh[j] = bd_sigmoid(xw[H + j] + hu[H + j]) * h[j];
                    for (int64_t j = 0; j < H; j++) {
                        double rg = bd_sigmoid(xw[H + j] + hu[H + j]), a = o[j];
                        if (lbr) {
                            a += rg * (hu[2 * H + j] + B[3 * H + j]);
                        } else {
                            for (int64_t i = 0; i < H; i++)
                                a += rh[i] * U[i * G * H + 2 * H + j];
                        }
                        o[j] = tanh(a);
                    }
                    for (int64_t j = 0; j < H; j++) {
                        double ug = bd_sigmoid(xw[j] + hu[j]);
                        rh[j] = ug * h[j] + (1 - ug) * o[j];
                    }
                }
                for (int64_t j = 0; j < H; j++) {
                    h[j] = rh[j];
                    bd_err_add(&err[0], v[YL][(t * N + n) * D * H + d * H + j], h[j]);
                }
            }
            for (int64_t j = 0; j < H; j++) {
                if (v[HO])
                    bd_err_add(&err[1], v[HO][(d * N + n) * H + j], h[j]);
                if (v[CO] && lstm)
                    bd_err_add(&err[2], v[CO][(d * N + n) * H + j], c[j]);
            }
        }
    }
    free(work);
    for (int p = 0; p < NPART; p++)
        if (plain[p])
            dnnl_memory_destroy(plain[p]);
    double worst = 0, tol = bd_tolerance(op->dt);
    for (int k = 0; k < 3; k++)
        if (!(bd_err_rel(&err[k]) <= worst))
            worst = bd_err_rel(&err[k]);
    if (!(worst <= tol)) {
        bh_note(r, "output differs from the plain C recurrent layer: max error %.3g of the largest value (tolerance %.0e)",
                worst, tol);
        res = BH_WRONG;
    } else {
        bh_note(r, "verified against the reference, a plain C recurrent layer (oneDNN has none here): max error %.3g "
                   "(tolerance %.0e)", worst, tol);
    }
    return res;
}
#endif

/* Runs the benchmarked implementation and the reference on the same inputs (each in its
 * own layouts) and compares every output within the tolerance of the type. */
static inline enum bh_status bd_verify(void *state, struct bh_result *r)
{
    struct bd_state *b = (struct bd_state *)state;
#if BD_FAMILIES & BD_FAM_REORDER
    if (b->op->family == BD_REORDER)
        return bd_verify_reorder(b, r);
#endif
#if BD_FAMILIES & BD_FAM_CONCAT
    if (b->op->family == BD_CONCAT)
        return bd_verify_concat(b, r);
#endif
#if BD_FAMILIES & BD_FAM_DECONV
    if (b->op->family == BD_DECONV)
        return bd_verify_deconv(b, r);
#endif
#if BD_FAMILIES & BD_FAM_RNN
    if (b->op->family == BD_RNN)
        return bd_verify_rnn(b, r);
#endif
    /* oneDNN has no reference Winograd convolution: a Winograd implementation computes the
     * same convolution, so it is held against the reference of the direct algorithm */
    const struct bd_op *op = b->op;
    struct bd_op direct = *op;
    if (direct.family == BD_CONV && direct.alg == dnnl_convolution_winograd)
        direct.alg = dnnl_convolution_direct;
    dnnl_primitive_desc_t rpd;
    b->op = &direct;
    enum bh_status st = bd_select(b, "ref", 1, &rpd, r);
    b->op = op;
    if (st != BH_OK) {
        bh_note(r, "not verified: oneDNN has no reference implementation of this operation");
        return BH_OK;
    }
    dnnl_memory_t rmem[BD_MAX_ARGS + 1];
    dnnl_exec_arg_t rexec[BD_MAX_ARGS + 1];
    int nr;
    if ((st = bd_alloc(b, rpd, rmem, rexec, &nr, r)) != BH_OK)
        return st;
    dnnl_primitive_t rp;
    BD_CHECK(r, dnnl_primitive_create(&rp, rpd));
    BD_CHECK(r, dnnl_primitive_execute(rp, b->stream, nr, rexec));
    BD_CHECK(r, dnnl_primitive_execute(b->prim, b->stream, b->nexec, b->exec));
    BD_CHECK(r, dnnl_stream_wait(b->stream));
    double tol = bd_tolerance(b->op->dt);
    /* an integer output: an absolute difference, of one step where a float scale rounds into
     * u8/s8 (implementations round its ties differently), of none for s32 */
    dnnl_data_type_t qd = b->op->qdst;
    int integer = qd == dnnl_u8 || qd == dnnl_s8 || qd == dnnl_s32;
    if (integer)
        tol = qd == dnnl_s32 ? 0 : 1;
    double worst = 0;
    for (int i = 0; i < b->nargs; i++) {
        if (!b->args[i].output || !b->mem[i] || !rmem[i])
            continue;
        double err, abs_err;
        if ((st = bd_compare(b, b->mem[i], rmem[i], &err, &abs_err, r)) != BH_OK)
            return st;
        if (integer)
            err = abs_err;
        if (err > worst)
            worst = err;
    }
    for (int i = 0; i <= b->nargs; i++)
        if (rmem[i])
            dnnl_memory_destroy(rmem[i]);
    dnnl_primitive_destroy(rp);
    dnnl_primitive_desc_destroy(rpd);
    if (!(worst <= tol)) {
        bh_note(r, integer ? "output differs from oneDNN's reference: max error %.3g steps (tolerance %.0f)"
                           : "output differs from oneDNN's reference: max error %.3g of the largest value (tolerance %.0e)",
                worst, tol);
        return BH_WRONG;
    }
    bh_note(r, integer ? "verified against the reference: max error %.3g steps (tolerance %.0f)"
                       : "verified against the reference: max error %.3g (tolerance %.0e)",
            worst, tol);
    return BH_OK;
}

static inline void bd_teardown(void *state)
{
    struct bd_state *b = (struct bd_state *)state;
    for (int i = 0; i <= b->nargs; i++)
        if (b->mem[i])
            dnnl_memory_destroy(b->mem[i]);
    if (b->prim)
        dnnl_primitive_destroy(b->prim);
    if (b->pd)
        dnnl_primitive_desc_destroy(b->pd);
    if (b->stream)
        dnnl_stream_destroy(b->stream);
    if (b->eng)
        dnnl_engine_destroy(b->eng);
}

/* --threads N: OpenMP reads OMP_NUM_THREADS when the library loads, before main: so the
 * program sets it and runs itself again. */
static inline void bd_apply_threads(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--threads") != 0)
            continue;
        const char *cur = getenv("OMP_NUM_THREADS");
        if (atoi(argv[i + 1]) > 0 && (!cur || strcmp(cur, argv[i + 1]) != 0)) {
            setenv("OMP_NUM_THREADS", argv[i + 1], 1);
            execv("/proc/self/exe", argv);
            /* if re-executing fails, run with the threads the library already has */
        }
    }
}

#endif
