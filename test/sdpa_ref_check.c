/* cuDNN fused attention's host check (br_sdpa_compare, runtime/cuda_ref.h) held to the
 * attention cases of test/attention_ref_check.cu: each JSON line there carries a case's
 * description, its inputs and the output of the kernels' host reference, which
 * test/oracle/attention_ref_check.py holds to numpy. For every case cuDNN's graph can take (no
 * mask, or one added; grouped-query attention's shared K and V heads too), br_sdpa_compare
 * must accept that output and must reject it once one element is moved by a few of its
 * tolerances. No GPU: cuDNN's headers for the names only.
 *
 *     cc -std=c11 -I$CUDA_HOME/include test/sdpa_ref_check.c -ljansson -lcudnn -lcublasLt -lcublas -lcudart -lm
 *     ./a.out < cases.jsonl        (exit status 1 on a failure) */
#define _GNU_SOURCE
#include "../runtime/harness.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cudnn_ops.h"
#include "../runtime/cuda_ref.h"

#include <jansson.h>

static double *numbers(json_t *a, long long *n)
{
    *n = (long long)json_array_size(a);
    double *v = (double *)malloc(sizeof(double) * (size_t)(*n ? *n : 1));
    for (long long i = 0; v && i < *n; i++)
        v[i] = json_number_value(json_array_get(a, (size_t)i));
    return v;
}

static void strides(json_t *c, const char *key, long long *out)
{
    json_t *a = json_object_get(c, key);
    for (int k = 0; k < 4; k++)
        out[k] = json_integer_value(json_array_get(a, (size_t)k));
}

int main(void)
{
    char line[1 << 20];
    int cases = 0, failures = 0;
    while (fgets(line, sizeof(line), stdin)) {
        json_error_t e;
        json_t *c = json_loads(line, 0, &e);
        if (!c) {
            printf("FAIL: a line that is not JSON: %s\n", e.text);
            return 1;
        }
        int mask = (int)json_integer_value(json_object_get(c, "mask")), dtype = (int)json_integer_value(json_object_get(c, "dtype"));
        const char *name = json_string_value(json_object_get(c, "name"));
        /* a Where mask: cuDNN's graph has no form for it (gen benchmarks our kernels only) */
        if (mask == 2) {
            json_decref(c);
            continue;
        }
        struct bc_lib_op op;
        memset(&op, 0, sizeof(op));
        op.family = BC_SDPA;
        op.dt = dtype == 10 ? BC_F16 : dtype == 16 ? BC_BF16 : BC_F32;
        struct bc_att *a = &op.att;
        json_t *shape = json_object_get(c, "shape");
        long long *dims[6] = {&a->b, &a->h, &a->sq, &a->skv, &a->d, &a->dv};
        for (int k = 0; k < 6; k++)
            *dims[k] = json_integer_value(json_array_get(shape, (size_t)k));
        strides(c, "q_st", a->q);
        strides(c, "k_st", a->k);
        strides(c, "v_st", a->v);
        strides(c, "o_st", a->o);
        strides(c, "m_st", a->m);
        a->mask = mask;
        a->rep = json_integer_value(json_object_get(c, "rep")); /* absent: 0, one K and V head each */
        a->scale = json_number_value(json_object_get(c, "scale"));
        struct br_io io;
        memset(&io, 0, sizeof(io));
        long long nq, nk, nv, nm = 0, no;
        io.x = numbers(json_object_get(c, "q"), &nq);
        io.w = numbers(json_object_get(c, "k"), &nk);
        io.x2 = numbers(json_object_get(c, "v"), &nv);
        if (mask)
            io.b = numbers(json_object_get(c, "m"), &nm);
        double *got = numbers(json_object_get(c, "out"), &no);
        struct br_check ok = br_sdpa_compare(&op, &io, got);
        /* one element moved by 8 of its tolerances (the largest magnitude's, a safe bound) */
        double biggest = 0;
        for (long long i = 0; i < no; i++)
            biggest = fabs(got[i]) > biggest ? fabs(got[i]) : biggest;
        long long at = no / 2;
        got[at] += 8 * (2 * br_out_unit(op.dt) + 1e-6) * (1 + biggest);
        struct br_check moved = br_sdpa_compare(&op, &io, got);
        cases++;
        if (ok.total != no || ok.bad || ok.checked != no) {
            printf("FAIL %s: %lld of %lld elements beyond the tolerance (first %lld: got %.9g, want %.9g)\n", name, ok.bad,
                   ok.checked, ok.first_bad, ok.first_got, ok.first_want);
            failures++;
        } else if (!moved.bad) {
            printf("FAIL %s: an element moved by 8 tolerances passes\n", name);
            failures++;
        } else {
            printf("ok   %s: %lld elements, max abs err %.3g, worst %.3g x the tolerance\n", name, ok.checked, ok.max_abs,
                   ok.worst_ratio);
        }
        free(io.x), free(io.w), free(io.x2), free(io.b), free(got);
        json_decref(c);
    }
    printf("%d of %d attention cases agree\n", cases - failures, cases);
    return failures || cases == 0 ? 1 : 0;
}
