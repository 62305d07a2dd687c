/* Our Resize kernel channels-last (bk_resize_elem with nhwc, runtime/cuda_kernels.cuh: what
 * bk_resize runs per output element and what --verify holds it to) against the same resize in
 * NCHW: for random inputs, nearest and bilinear, up and down, the NHWC output at (n, y, x, c)
 * must be exactly the NCHW output at (n, c, y, x) of the same input transposed. Built by nvcc
 * (host code only; no GPU); prints one line per case, "ok" or "FAIL", and exits 1 on a failure.
 *     nvcc -std=c++17 test/resize_ref_check.cu -o resize_ref_check -ldl */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u /* the element-wise core only: no family header is included */
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"

static int check(long long n, long long c, long long ih, long long iw, long long oh, long long ow,
                 int linear)
{
    long long in = n * c * ih * iw, out = n * c * oh * ow;
    float *x = (float *)malloc(sizeof(float) * (size_t)in),
          *xt = (float *)malloc(sizeof(float) * (size_t)in);
    float *y = (float *)malloc(sizeof(float) * (size_t)out),
          *yt = (float *)malloc(sizeof(float) * (size_t)out);
    if (!x || !xt || !y || !yt) {
        printf("FAIL out of memory\n");
        return 1;
    }
    unsigned s = 12345u + (unsigned)(ih * 31 + ow);
    for (long long i = 0; i < in; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    /* xt: x in NHWC order */
    for (long long b = 0; b < n; b++)
        for (long long k = 0; k < c; k++)
            for (long long h = 0; h < ih; h++)
                for (long long w = 0; w < iw; w++)
                    xt[((b * ih + h) * iw + w) * c + k] = x[((b * c + k) * ih + h) * iw + w];
    for (long long i = 0; i < out; i++) {
        y[i] = bk_resize_elem(x, i, c, ih, iw, oh, ow, linear, 0);
        yt[i] = bk_resize_elem(xt, i, c, ih, iw, oh, ow, linear, 1);
    }
    long long bad = 0, first = -1;
    for (long long b = 0; b < n; b++)
        for (long long k = 0; k < c; k++)
            for (long long h = 0; h < oh; h++)
                for (long long w = 0; w < ow; w++) {
                    long long a = ((b * c + k) * oh + h) * ow + w,
                              t = ((b * oh + h) * ow + w) * c + k;
                    if (y[a] != yt[t]) {
                        bad++;
                        if (first < 0)
                            first = a;
                    }
                }
    printf("%s resize %s [%lld, %lld, %lld, %lld] -> [%lld, %lld]: %lld of %lld channels-last "
           "elements differ%s\n",
           bad ? "FAIL" : "ok  ", linear ? "bilinear" : "nearest", n, c, ih, iw, oh, ow, bad, out,
           bad ? " from the NCHW resize" : "");
    free(x);
    free(xt);
    free(y);
    free(yt);
    return bad != 0;
}

int main(void)
{
    int fails = 0;
    for (int linear = 0; linear < 2; linear++) {
        fails += check(2, 3, 5, 7, 10, 14, linear); /* x2 up */
        fails += check(1, 4, 9, 6, 4, 11, linear);  /* down in H, up in W */
        fails += check(2, 1, 3, 3, 7, 5, linear);   /* one channel: both orders alike */
        fails += check(1, 5, 1, 8, 3, 8, linear);   /* a row */
    }
    return fails ? 1 : 0;
}
