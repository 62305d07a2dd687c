/* make bench: time to load (read + unpack + lower into the IR) each model of a folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "onnx_load.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void cpu_name(char *out, size_t n)
{
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(out, n, "%s", c + 2);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_load DIR\n");
        return 2;
    }
    char **paths;
    const char *dirs[1] = {argv[1]};
    size_t n = bz_find_files(dirs, 1, ".onnx", &paths);
    if (n == 0) {
        fprintf(stderr, "bench_load: no models under %s (is ../shared there?)\n", argv[1]);
        return 1;
    }
    char cpu[256];
    cpu_name(cpu, sizeof(cpu));
    printf("# Model loading time\n\n");
    printf("`make bench` (bench/bench_load.c): read + protobuf-c unpack + lowering into the IR + "
           "free, per model of `%s`; each model is loaded repeatedly for at least 0.3 s "
           "(and at least 5 times). Machine: %s, %ld cores.\n\n",
           argv[1], cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("| model | file bytes | nodes | loads | min ms | median ms |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    struct bz_buf err;
    bz_buf_init(&err);
    double total_median = 0;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        double *t = NULL;
        size_t k = 0, cap = 0;
        double start = bz_now();
        size_t bytes = 0;
        int nodes = 0;
        while (k < 5 || bz_now() - start < 0.3) {
            double t0 = bz_now();
            struct ir_model *m;
            if (onnx_load_file(paths[i], NULL, &m, &err) != ONNX_LOAD_OK) {
                fprintf(stderr, "%s: error: %s\n", paths[i], err.data);
                failed++;
                break;
            }
            bytes = m->file_bytes;
            nodes = m->graph->n_nodes;
            ir_model_free(m);
            if (k == cap) {
                cap = cap ? cap * 2 : 64;
                t = bz_realloc(t, cap * sizeof(*t));
            }
            t[k++] = (bz_now() - t0) * 1e3;
        }
        if (k) {
            qsort(t, k, sizeof(*t), cmp_double);
            const char *base = strrchr(paths[i], '/');
            printf("| %s | %zu | %d | %zu | %.3f | %.3f |\n", base ? base + 1 : paths[i], bytes, nodes,
                   k, t[0], t[k / 2]);
            total_median += t[k / 2];
        }
        free(t);
        free(paths[i]);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\nSum of medians over %zu models: %.1f ms. Peak resident memory of the benchmark: %.1f MB.\n",
           n, total_median, ru.ru_maxrss / 1024.0);
    free(paths);
    bz_buf_free(&err);
    return failed ? 1 : 0;
}
