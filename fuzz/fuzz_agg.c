/* libFuzzer target: agg's ingest of any file (a results CSV, a manifest or a measured-latency
 * CSV, told apart by the first line; the first input byte picks which header is put before
 * the rest, so that each reader sees most of the inputs), into an in-memory database, then
 * every report in every format: the code a hostile or broken file reaches. Built and run by
 * `make fuzz` (clang, ASan, UBSan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/agg/agg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const heads[] = {
        "", /* the input as it is */
        "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,mean_us,p90_us,max_us,"
        "stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,sms,lib,host,time,method,kernel_us,busy,"
        "note\n",
        "benanza-manifest\t1\n",
        "model,batch,dtype,device,framework,threads,latency_us,runs,note,node\n",
    };
    static FILE *null;
    static char path[64];
    if (!null) {
        null = fopen("/dev/null", "w");
        snprintf(path, sizeof(path), "/tmp/fuzz_agg.%ld", (long)getpid());
    }
    if (size < 1)
        return 0;
    const char *head = heads[data[0] % 4];
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fputs(head, f);
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    struct agg_db d;
    if (agg_db_open(&d, ":memory:", 1) != 0)
        return 0;
    struct agg_ingest_stats st = {0};
    agg_ingest_path(&d, path, NULL, &st, null);
    /* a second file into the same database: manifests and results meet */
    if (data[0] >= 4) {
        f = fopen(path, "wb");
        if (f) {
            fputs(heads[1 + data[0] / 4 % 3], f);
            fwrite(data + 1, 1, size - 1, f);
            fclose(f);
            agg_ingest_path(&d, path, NULL, &st, null);
        }
    }
    struct agg_filter flt = {.batch = -1};
    struct agg_data x;
    if (agg_data_load(&d, &flt, &x, null) == 0) {
        struct agg_table *t[AGG_MAX_REPORTS];
        int n = agg_reports_build(&x, NULL, t);
        for (int fmt = AGG_FMT_TABLE; n > 0 && fmt <= AGG_FMT_MD; fmt++) {
            struct agg_out_opts o = {.format = (enum agg_format)fmt, .top = 5};
            agg_out_tables(null, t, n, &o);
        }
        if (n > 0)
            agg_out_html(null, &x, t, n);
        for (int i = 0; i < n; i++)
            agg_table_free(t[i]);
        agg_data_free(&x);
    }
    agg_db_close(&d);
    unlink(path);
    return 0;
}
