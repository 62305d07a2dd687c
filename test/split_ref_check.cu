/* Our Split kernel's arithmetic (bk_split_src, runtime/cuda_kernels.cuh: the input element each
 * output element of bk_split copies) against the plain C Split of runtime/plain_ops.h (what
 * --verify holds the kernel to, itself held to onnx.reference by the e2e tests): for pieces of
 * equal and unequal sizes along every axis of 1- to 4-D inputs, every output element must be the
 * same input element. Built by nvcc (host code only; no GPU); prints one line per case, "ok" or
 * "FAIL", and exits 1 on a failure.
 *     nvcc -std=c++17 test/split_ref_check.cu -o split_ref_check -ldl */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u /* the core: PL_SPLIT */
#define BK_KINDS BK_K_PLAIN
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"

static int check(int nd, const long long *dims, int axis, int n, const long long *sizes)
{
    struct pl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = PL_SPLIT;
    op.fn = PL_IDENTITY;
    op.nin = 1;
    op.in[0].dtype = PL_FLOAT;
    op.in[0].nd = nd;
    long long count = 1;
    for (int d = 0; d < nd; d++) {
        op.in[0].d[d] = dims[d];
        count *= dims[d];
    }
    op.out = op.in[0];
    op.axis = axis;
    op.nsplit = n;
    for (int j = 0; j < n; j++)
        op.split[j] = sizes[j];
    /* the input holds each element's own index: the plain C output says which one it copied */
    float *x = (float *)malloc((size_t)count * sizeof(float)), *want = (float *)malloc((size_t)count * sizeof(float));
    for (long long i = 0; i < count; i++)
        x[i] = (float)i;
    struct pl_state ps;
    memset(&ps, 0, sizeof(ps));
    ps.op = &op;
    ps.in[0] = x;
    ps.out = want;
    pl_kernel(&ps);
    bk_split_args a;
    memset(&a, 0, sizeof(a));
    int64_t outer, dim, inner;
    pl_axis_split(&op.in[0], axis, &outer, &dim, &inner);
    a.outer = outer;
    a.dim = dim;
    a.inner = inner;
    a.n = n;
    for (int j = 0; j < n; j++)
        a.off[j + 1] = a.off[j] + sizes[j];
    long long bad = 0;
    for (long long i = 0; i < count; i++)
        bad += (float)bk_split_src(&a, i) != want[i];
    printf("%s split of %lld elements along axis %d of %d into %d: %lld of them differ\n", bad ? "FAIL" : "ok  ", count,
           axis, nd, n, bad);
    free(x);
    free(want);
    return bad != 0;
}

int main(void)
{
    int bad = 0;
    static const long long d1[] = {12}, d3[] = {2, 9, 5}, d4[] = {3, 4, 6, 8};
    static const long long s3[] = {4, 4, 4}, s12[] = {5, 7}, s9[] = {2, 3, 4}, s2[] = {1, 1}, s1[] = {9};
    bad |= check(1, d1, 0, 3, s3);
    bad |= check(1, d1, 0, 2, s12);
    bad |= check(3, d3, 1, 3, s9);
    bad |= check(3, d3, 1, 1, s1);
    bad |= check(3, d3, 0, 2, s2);
    static const long long s5[] = {2, 3}, s6[] = {1, 2, 3}, s8[] = {3, 5}, s4[] = {1, 1, 1, 1};
    bad |= check(3, d3, 2, 2, s5);
    bad |= check(4, d4, 2, 3, s6);
    bad |= check(4, d4, 3, 2, s8);
    bad |= check(4, d4, 1, 4, s4);
    return bad;
}
