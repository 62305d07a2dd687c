/* Our Resize kernel's arithmetic (bk_resize_elem, runtime/cuda_kernels.cuh: what bk_resize runs
 * per output element and what --verify holds it to) against two things it must agree with:
 *   - ONNX's Resize: the plain C Resize of runtime/plain_sample.h (itself held to
 *     onnx.reference by the e2e tests) at the same coordinate transformation, rounding and
 *     scales, within the plain C benchmark's own tolerance;
 *   - itself channels-last: the NHWC output at (n, y, x, c) must be exactly the NCHW output at
 *     (n, c, y, x) of the same input transposed.
 * For random inputs, nearest and bilinear, up and down, in f32, f16 and bf16 (the 16-bit ones
 * read as float and rounded once at the store, as the kernel does). Built by nvcc (host code
 * only; no GPU); prints one line per case, "ok" or "FAIL", and exits 1 on a failure.
 *     nvcc -std=c++17 test/resize_ref_check.cu -o resize_ref_check -ldl */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES PL_FAM_SAMPLE /* the plain C Resize: the ONNX reference */
#define BK_KINDS BK_K_RESIZE /* the resize kernel alone: its device code is the only one compiled */
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/plain_sample.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"

static void put(float *p, long long i, float v) { p[i] = v; }
static void put(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
static void put(__nv_bfloat16 *p, long long i, float v) { p[i] = __float2bfloat16_rn(v); }

template <typename T> struct type_of;
template <> struct type_of<float> { enum { pl = PL_FLOAT }; static const char *name() { return "f32"; } };
template <> struct type_of<__half> { enum { pl = PL_FLOAT16 }; static const char *name() { return "f16"; } };
template <> struct type_of<__nv_bfloat16> { enum { pl = PL_BFLOAT16 }; static const char *name() { return "bf16"; } };

/* ONNX's Resize of X (NCHW, type T) into WANT: the plain C benchmark's kernel */
struct mode {
    int coord, nearest;
    double sh, sw; /* the scales; 0: output over input */
};

template <typename T>
static int onnx_resize(const T *x, T *want, long long n, long long c, long long ih, long long iw, long long oh,
                       long long ow, int linear, const struct mode *md)
{
    struct pl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = PL_RESIZE;
    op.nin = 1;
    long long id[4] = {n, c, ih, iw}, od[4] = {n, c, oh, ow};
    op.in[0].dtype = op.out.dtype = type_of<T>::pl;
    op.in[0].nd = op.out.nd = 4;
    for (int k = 0; k < 4; k++) {
        op.in[0].d[k] = id[k];
        op.out.d[k] = od[k];
        op.rs.scale[k] = (double)od[k] / (double)id[k];
    }
    if (md->sh > 0) {
        op.rs.scale[2] = md->sh;
        op.rs.scale[3] = md->sw;
    }
    op.rs.mode = linear ? PL_SAMPLE_LINEAR : PL_SAMPLE_NEAREST;
    op.rs.coord = md->coord;
    op.rs.nearest = md->nearest;
    struct pl_state s;
    memset(&s, 0, sizeof(s));
    s.op = &op;
    s.in[0] = (void *)x;
    s.out = want;
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    int bad = pl_sample_setup(&s, &r) != BH_OK;
    if (!bad)
        pl_kernel_sample(&s);
    pl_sample_free(&s);
    return bad;
}

template <typename T>
static int check(long long n, long long c, long long ih, long long iw, long long oh, long long ow, int linear,
                 const struct mode *md)
{
    bk_rs rs = {(float)(md->sh > 0 ? md->sh : (double)oh / (double)ih),
                (float)(md->sw > 0 ? md->sw : (double)ow / (double)iw), md->coord, md->nearest};
    long long in = n * c * ih * iw, out = n * c * oh * ow;
    T *x = (T *)malloc(sizeof(T) * (size_t)in), *xt = (T *)malloc(sizeof(T) * (size_t)in),
      *want = (T *)malloc(sizeof(T) * (size_t)out);
    float *y = (float *)malloc(sizeof(float) * (size_t)out), *yt = (float *)malloc(sizeof(float) * (size_t)out);
    if (!x || !xt || !want || !y || !yt) {
        printf("FAIL out of memory\n");
        return 1;
    }
    unsigned s = 12345u + (unsigned)(ih * 31 + ow);
    for (long long i = 0; i < in; i++) {
        s = s * 1103515245u + 12345u;
        put(x, i, (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f);
    }
    /* xt: x in NHWC order */
    for (long long b = 0; b < n; b++)
        for (long long k = 0; k < c; k++)
            for (long long h = 0; h < ih; h++)
                for (long long w = 0; w < iw; w++)
                    xt[((b * ih + h) * iw + w) * c + k] = x[((b * c + k) * ih + h) * iw + w];
    /* the kernel's values, rounded to T as its store does */
    for (long long i = 0; i < out; i++) {
        y[i] = bk_resize_elem(x, i, c, ih, iw, oh, ow, linear, 0, rs);
        yt[i] = bk_resize_elem(xt, i, c, ih, iw, oh, ow, linear, 1, rs);
        T r[2];
        put(r, 0, y[i]);
        put(r, 1, yt[i]);
        y[i] = bk_f(r[0]);
        yt[i] = bk_f(r[1]);
    }
    if (onnx_resize(x, want, n, c, ih, iw, oh, ow, linear, md)) {
        printf("FAIL the plain C Resize refused its tables\n");
        return 1;
    }
    long long bad = 0, off = 0;
    double worst = 0, tol = pl_sample_tolerance(type_of<T>::pl);
    for (long long b = 0; b < n; b++)
        for (long long k = 0; k < c; k++)
            for (long long h = 0; h < oh; h++)
                for (long long w = 0; w < ow; w++) {
                    long long a = ((b * c + k) * oh + h) * ow + w, t = ((b * oh + h) * ow + w) * c + k;
                    bad += y[a] != yt[t];
                    /* against ONNX: the kernel's float blend and the reference's each rounded once */
                    double d = fabs((double)y[a] - (double)bk_f(want[a])) / 0.5;
                    worst = d > worst ? d : worst;
                    off += d > tol;
                }
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                         "asymmetric"};
    static const char *const rounds[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    printf("%s resize %s %s %s%s%s [%lld, %lld, %lld, %lld] -> [%lld, %lld]: %lld of %lld channels-last elements "
           "differ from NCHW; %lld differ from ONNX's (plain C) beyond %.3g (worst %.3g)\n",
           bad || off ? "FAIL" : "ok  ", type_of<T>::name(), linear ? "bilinear" : "nearest", coords[md->coord],
           linear ? "" : " ", linear ? "" : rounds[md->nearest], n, c, ih, iw, oh, ow, bad, out, off, tol, worst);
    free(x);
    free(xt);
    free(want);
    free(y);
    free(yt);
    return bad != 0 || off != 0;
}

/* every coordinate transformation but tf_crop_and_resize; nearest in each rounding */
template <typename T> static int all_cases(void)
{
    int fails = 0;
    for (int coord = PL_COORD_HALF_PIXEL; coord <= PL_COORD_ASYMMETRIC; coord++)
        for (int linear = 0; linear < 2; linear++)
            for (int nearest = 0; nearest < (linear ? 1 : 4); nearest++) {
                struct mode md = {coord, nearest, 0, 0};
                fails += check<T>(2, 3, 5, 7, 10, 14, linear, &md); /* x2 up */
                fails += check<T>(1, 4, 9, 6, 4, 11, linear, &md);  /* down in H, up in W */
                fails += check<T>(2, 1, 3, 3, 7, 5, linear, &md);   /* one channel: both orders alike */
                fails += check<T>(1, 5, 1, 8, 3, 8, linear, &md);   /* a row */
                fails += check<T>(1, 2, 6, 10, 6, 4, linear, &md);  /* H kept, W down by 2.5 */
                struct mode given = {coord, nearest, 2.5, 2.5};     /* scales given: 3 * 2.5 -> 7 */
                fails += check<T>(1, 3, 3, 4, 7, 10, linear, &given);
            }
    return fails;
}

int main(void)
{
    int fails = all_cases<float>() + all_cases<__half>() + all_cases<__nv_bfloat16>();
    return fails ? 1 : 0;
}
