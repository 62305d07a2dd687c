/* The benchmark folder (gen's last two stages): each backend plans every layer through its
 * operator's hooks and renders the plans (emit_cpu.c, emit_cuda.c); then build.ninja, run_all,
 * the runner's and the aggregator's sources, benchmarks.tsv and the manifest. */
#include "folder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends.h"
#include "exitcodes.h"
#include "emit.h"

static int cmp_bench(const void *a, const void *b)
{
    return strcmp(((const struct emit_bench *)a)->file, ((const struct emit_bench *)b)->file);
}

/* the aggregator travels with the benchmarks: reports can be made where they ran */
struct agg_copy {
    struct emit_ctx *e;
    json_t *srcs;
    int rc;
};

static void copy_agg(const char *path, const char *data, size_t len, void *ud)
{
    struct agg_copy *ac = ud;
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "agg/%s", path + strlen("runtime/agg/"));
    ac->rc |= emit_write(ac->e, rel.data, data, len);
    size_t n = strlen(rel.data);
    if (n > 2 && !strcmp(rel.data + n - 2, ".c"))
        json_array_append_new(ac->srcs, json_string(rel.data));
    bz_buf_free(&rel);
}

static int folder_finish(struct emit_ctx *e)
{
    if (e->n > 1)
        qsort(e->v, (size_t)e->n, sizeof(*e->v), cmp_bench);
    json_t *benches = json_array();
    struct bz_buf tsv;
    bz_buf_init(&tsv);
    bz_buf_puts(&tsv, "# file\tlayer\top\tmodels\tbackend\n");
    for (int i = 0; i < e->n; i++) {
        json_array_append_new(benches, json_pack("{s:s,s:s,s:s}", "file", e->v[i].file, "rule", e->v[i].rule, "ext",
                                                 strcmp(e->v[i].rule, "nvcc") ? "c" : "cu"));
        bool on_gpu = !strcmp(e->v[i].rule, "cc_cuda") || !strcmp(e->v[i].rule, "nvcc");
        bz_buf_printf(&tsv, "%s\t%s\t%s\t%s\t%s\n", e->v[i].file, e->v[i].layer, e->v[i].op, e->v[i].models,
                      on_gpu ? "cuda" : "cpu");
    }
    /* the aggregator travels with the benchmarks: reports can be made where they ran */
    struct agg_copy ac = {e, json_array(), 0};
    emit_each_embedded("runtime/agg/", copy_agg, &ac);
    int rc = ac.rc;
    json_t *agg_srcs = ac.srcs;
    const char *cc = getenv("CC");
    json_t *data = json_pack("{s:o,s:s,s:o}", "benches", benches, "cc", cc && *cc ? cc : "cc", "agg_srcs", agg_srcs);
    bool cuda = false;
    for (int i = 0; i < e->n && !cuda; i++)
        cuda = !strcmp(e->v[i].rule, "cc_cuda") || !strcmp(e->v[i].rule, "nvcc");
    if (cuda) {
        struct bz_buf arch;
        bz_buf_init(&arch);
        emit_cuda_arch_flags(e->cuda_arch ? e->cuda_arch : "sm_90", &arch);
        /* a path in Ninja text: $, space and colon escaped with $ */
        struct bz_buf home;
        bz_buf_init(&home);
        for (const char *c = emit_cuda_home(); *c; c++) {
            if (*c == '$' || *c == ' ' || *c == ':')
                bz_buf_putc(&home, '$');
            bz_buf_putc(&home, *c == '\n' ? ' ' : *c);
        }
        json_object_set_new(data, "cuda", json_pack("{s:s,s:s}", "cuda_home", home.data, "nvcc_arch", arch.data));
        bz_buf_free(&home);
        bz_buf_free(&arch);
    }
    rc |= emit_render(e, "templates/build.ninja.mustache", data, "build.ninja");
    json_decref(data);
    /* the runner's source (built by ninja, or by ./run_all), the wrapper, a README */
    size_t rl = 0;
    const char *runner = emit_embedded("runtime/run_all.c", &rl);
    rc |= runner ? emit_write(e, "runner/run_all.c", runner, rl) : -1;
    data = json_object();
    rc |= emit_render(e, "templates/run_all.mustache", data, "run_all");
    json_decref(data);
    data = json_object();
    rc |= emit_render(e, "templates/folder_readme.mustache", data, "README.md");
    json_decref(data);
    /* the timing check against Nsight Compute, where there are GPU benchmarks */
    if (cuda) {
        data = json_object();
        rc |= emit_render(e, "templates/gpu_check.mustache", data, "gpu_check");
        json_decref(data);
    }
    struct bz_buf path;
    bz_buf_init(&path);
    const char *scripts[2] = {"run_all", "gpu_check"};
    for (int i = 0; i < (cuda ? 2 : 1) && !rc; i++) {
        bz_buf_clear(&path);
        bz_buf_printf(&path, "%s/%s", e->dir, scripts[i]);
        if (chmod(path.data, 0755) != 0) {
            bz_diag_error(e->diag, path.data, "cannot make it executable: %s", strerror(errno));
            rc = -1;
        }
    }
    bz_buf_clear(&path);
    bz_buf_printf(&path, "%s/benchmarks.tsv", e->dir);
    int w = bz_write_file_atomic(path.data, tsv.data, tsv.len);
    if (w) {
        bz_diag_error(e->diag, path.data, "cannot write: %s", strerror(w));
        rc = -1;
    }
    bz_buf_free(&path);
    bz_buf_free(&tsv);
    return rc || e->failed ? -1 : 0;
}

static void free_benches(struct emit_ctx *e)
{
    for (int i = 0; i < e->n; i++) {
        free(e->v[i].file);
        free(e->v[i].layer);
        free(e->v[i].op);
        free(e->v[i].models);
    }
    free(e->v);
    e->v = NULL;
    json_decref(e->uses);
    e->uses = NULL;
}

int folder_repro(const struct pipeline *p, const struct folder_opts *o, struct bz_diag *diag)
{
    /* just that layer's files, flat in the folder */
    struct emit_ctx e = {.p = p, .dir = o->dir, .diag = diag, .cuda_arch = o->cuda_arch, .top_k = o->top_k,
                         .lt_top_k = o->lt_top_k, .heur_modes = o->heur_modes, .cuda_types = o->cuda_types,
                         .gemm_default_only = o->gemm_default_only, .only_layer = o->repro, .cmdline = o->cmdline};
    int rc = BZ_EXIT_OK;
    if (o->backends & BACKEND_CPU)
        emit_cpu(&e);
    if (o->backends & BACKEND_CUDA)
        emit_cuda(&e);
    if (e.failed) {
        rc = BZ_EXIT_IO;
    } else if (e.n == 0) {
        bz_diag_error(diag, "gen", "--repro %s: no benchmark for a layer with that id in these models and "
                      "backends (gen --layers lists the ids)", o->repro);
        rc = BZ_EXIT_USAGE;
    } else {
        fprintf(stderr, "gen: %d files for layer %s in %s (each builds with the command in its header)\n", e.n,
                o->repro, o->dir);
    }
    free_benches(&e);
    return rc;
}

int folder_write(const struct pipeline *p, const struct folder_opts *o, struct bz_diag *diag)
{
    int err = pipeline_write_manifest(p, o->dir);
    if (err) {
        bz_diag_error(diag, o->dir, "cannot write manifest.tsv: %s", strerror(err));
        return BZ_EXIT_IO;
    }
    int rc = BZ_EXIT_OK;
    struct emit_ctx e = {.p = p, .dir = o->dir, .diag = diag, .cuda_arch = o->cuda_arch, .top_k = o->top_k,
                         .lt_top_k = o->lt_top_k, .heur_modes = o->heur_modes, .cuda_types = o->cuda_types,
                         .gemm_default_only = o->gemm_default_only, .cmdline = o->cmdline};
    static const struct {
        unsigned bit;
        const char *name;
        void (*emit)(struct emit_ctx *);
    } backends[] = {{BACKEND_CPU, "CPU", emit_cpu}, {BACKEND_CUDA, "CUDA", emit_cuda}};
    for (size_t b = 0; b < BZ_ARRAY_LEN(backends); b++) {
        if (!(o->backends & backends[b].bit))
            continue;
        if (o->progress)
            fprintf(stderr, "writing %s benchmarks to %s/bench\n", backends[b].name, o->dir);
        backends[b].emit(&e);
        struct bz_buf list;
        bz_buf_init(&list);
        emit_skipped_take(&e, &list);
        if (list.len)
            bz_diag_warning(diag, "gen", "no %s benchmark yet for these layers (op and count): %s", backends[b].name,
                            list.data);
        bz_buf_free(&list);
    }
    int n = e.n;
    if (folder_finish(&e) != 0)
        rc = BZ_EXIT_IO;
    fprintf(stderr, "gen: %d benchmarks in %s (then: cd %s && ninja && ./run_all)\n", n, o->dir, o->dir);
    free_benches(&e);
    return rc;
}
