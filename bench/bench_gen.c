/* make bench: gen's model processor (load + shape inference + layer keys + dedupe + fusion)
 * over every shared model at batch 1 and 32, repeated; wall time and peak memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pipeline.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_gen MODELS_DIR ARGS_FILE\n");
        return 2;
    }
    char **paths;
    const char *dirs[1] = {argv[1]};
    int n = (int)bz_find_files(dirs, 1, ".onnx", &paths);
    if (!n) {
        fprintf(stderr, "bench_gen: no models under %s\n", argv[1]);
        return 1;
    }
    struct shape_dim_binding bind[64];
    struct shape_input_shape shapes[16];
    struct shape_opts so = {.bindings = bind, .input_shapes = shapes};
    char *args;
    size_t len;
    if (bz_read_file(argv[2], 1 << 20, &args, &len) != BZ_READ_OK) {
        fprintf(stderr, "%s: error: cannot read\n", argv[2]);
        return 1;
    }
    for (char *line = strtok(args, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "--dim=", 6) && so.n_bindings < 64)
            so.n_bindings += shape_parse_binding(line + 6, &bind[so.n_bindings]);
        else if (!strncmp(line, "--input-shape=", 14) && so.n_input_shapes < 16)
            so.n_input_shapes += shape_parse_input_shape(line + 14, &shapes[so.n_input_shapes]);
    }
    int64_t batches[2] = {1, 32};
    double t[7];
    int layers = 0, runs = 0;
    FILE *sink = fopen("/dev/null", "w");
    for (int r = 0; r < 7; r++) {
        struct bz_diag diag = {.out = sink};
        struct pipeline p;
        double t0 = bz_now();
        pipeline_run(&p, paths, n, batches, 2, &so, NULL, &diag, false);
        t[r] = bz_now() - t0;
        layers = p.layers.n;
        runs = p.n_runs;
        pipeline_free(&p);
    }
    fclose(sink);
    qsort(t, 7, sizeof(double), cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("# Model processor time\n\n");
    printf("`make bench` (bench/bench_gen.c): load + shape inference + layer keys + dedupe + fusion, "
           "in one process, over the %d models of `%s` at batch sizes 1 and 32 (%d runs, the free dims "
           "bound by bench/shared_models.args), repeated 7 times.\n\n",
           n, argv[1], runs);
    printf("| unique layers | min s | median s | max s | peak resident MB |\n|---:|---:|---:|---:|---:|\n");
    printf("| %d | %.3f | %.3f | %.3f | %.1f |\n", layers, t[0], t[3], t[6], ru.ru_maxrss / 1024.0);
    printf("\nTargets (issue 3): under 0.5 s and under 200 MB on the development machine (2 cores).\n");
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    free(args);
    return 0;
}
