/* The host reference of the fused attention kernels (bk_att_reference, runtime/cuda_kernels.cuh),
 * which --verify holds the GPU's output to, on small cases: strided (BSHD) operands, one head
 * of rank 3, an added mask broadcast over heads and queries, a Where mask with -inf, f16 and
 * bf16 inputs. Prints each case's description, inputs and output as JSON lines; numpy recomputes
 * them in test/oracle/attention_ref_check.py. Built by nvcc (host code only; no GPU).
 *     nvcc -std=c++17 test/attention_ref_check.cu -o attention_ref_check -ldl */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u /* the element-wise core only: no family header is included */
#define BK_KINDS BK_K_ATTENTION /* the attention kernels alone: the only device code compiled */
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"
#include "attention_case.h"

static void print_buf(const char *name, const void *p, int dt, long long n)
{
    printf(", \"%s\": [", name);
    for (long long i = 0; i < n; i++)
        printf("%s%.17g", i ? ", " : "", pl_load(p, dt, i));
    printf("]");
}

static void run_case_rep(const char *name, int dt, long long b, long long h, long long sq, long long skv, long long d,
                         long long dv, int bshd, int mask, const long long *mdims, float fill, int fill_when, long long rep)
{
    struct bk_op op;
    void *in[4];
    att_case(&op, in, dt, b, h, sq, skv, d, dv, bshd, mask, mdims, fill, fill_when, 0.3535533906f, rep, 99u);
    long long n[4] = {op.aq_elems, op.ak_elems, op.av_elems, op.am_elems};
    long long no = b * h * sq * dv;
    void *out = calloc((size_t)no, pl_esize(dt));
    if (bk_att_reference(&op, in, out) != BH_OK) {
        fprintf(stderr, "%s: out of memory\n", name);
        exit(1);
    }
    printf("{\"name\": \"%s\", \"shape\": [%lld, %lld, %lld, %lld, %lld, %lld], \"rep\": %lld", name, b, h, sq, skv, d,
           dv, rep);
    printf(", \"q_st\": [%lld, %lld, %lld, %lld], \"k_st\": [%lld, %lld, %lld, %lld]", op.aq[0], op.aq[1], op.aq[2],
           op.aq[3], op.ak[0], op.ak[1], op.ak[2], op.ak[3]);
    printf(", \"v_st\": [%lld, %lld, %lld, %lld], \"o_st\": [%lld, %lld, %lld, %lld]", op.av[0], op.av[1], op.av[2],
           op.av[3], op.ao[0], op.ao[1], op.ao[2], op.ao[3]);
    printf(", \"m_st\": [%lld, %lld, %lld, %lld], \"mask\": %d, \"scale\": %.9g, \"fill\": \"%g\", \"fill_when\": %d", op.am[0],
           op.am[1], op.am[2], op.am[3], mask, (double)op.ascale, (double)fill, fill_when);
    printf(", \"dtype\": %d", dt);
    print_buf("q", in[0], dt, n[0]);
    print_buf("k", in[1], dt, n[1]);
    print_buf("v", in[2], dt, n[2]);
    if (mask)
        print_buf("m", in[3], mask == 2 ? PL_BOOL : dt, n[3]);
    print_buf("out", out, dt, no);
    printf("}\n");
    for (int i = 0; i < 4; i++)
        free(in[i]);
    free(out);
}

static void run_case(const char *name, int dt, long long b, long long h, long long sq, long long skv, long long d,
                     long long dv, int bshd, int mask, const long long *mdims, float fill, int fill_when)
{
    run_case_rep(name, dt, b, h, sq, skv, d, dv, bshd, mask, mdims, fill, fill_when, 1);
}

int main(void)
{
    long long full[4] = {2, 3, 5, 7}, keys[4] = {2, 1, 1, 7}, causal[4] = {1, 1, 5, 7};
    run_case("contiguous", PL_FLOAT, 2, 3, 5, 7, 4, 3, 0, 0, NULL, 0, 0);
    run_case("heads split (BSHD strides)", PL_FLOAT, 2, 3, 5, 7, 4, 6, 1, 0, NULL, 0, 0);
    run_case("one head", PL_FLOAT, 3, 1, 4, 9, 8, 8, 0, 0, NULL, 0, 0);
    run_case("added mask over keys", PL_FLOAT, 2, 3, 5, 7, 4, 3, 1, 1, keys, 0, 0);
    run_case("added mask per query", PL_FLOAT, 2, 3, 5, 7, 4, 3, 0, 1, causal, 0, 0);
    run_case("where mask, -inf", PL_FLOAT, 2, 3, 5, 7, 4, 3, 1, 2, full, -INFINITY, 1);
    run_case("where mask, kept where true", PL_FLOAT, 2, 3, 5, 7, 4, 3, 0, 2, keys, -3.0f, 0);
    run_case("f16", PL_FLOAT16, 1, 2, 6, 5, 16, 16, 1, 1, keys, 0, 0);
    run_case("bf16", PL_BFLOAT16, 1, 2, 6, 5, 16, 16, 1, 0, NULL, 0, 0);
    run_case_rep("grouped query heads (2 per K/V head)", PL_FLOAT, 2, 4, 5, 7, 4, 3, 0, 0, NULL, 0, 0, 2);
    run_case_rep("grouped query heads (3 per K/V head), BSHD, added mask", PL_FLOAT, 2, 6, 5, 7, 4, 3, 1, 1, keys, 0, 0, 3);
    return 0;
}
