/* The fused attention kernels of runtime/cuda_kernels.cuh run on the host (test/kernel_emu.h
 * stands in for the GPU: a fiber per CUDA thread, barriers, shuffles, deferred cp.async,
 * WMMA tiles) and held to bk_att_reference with --verify's tolerance (bk_att_tol): every
 * kernel (bk_attention_split on Tensor Cores in f16, bf16 and TF32 and on CUDA cores in f32,
 * bk_attention_tc, bk_attention_rows) on shapes with tails (queries and keys not multiples of
 * the tiles, a warp whose keys are all past the end), strided and transposed operands, added
 * and Where masks, head sizes 16 to 128. The first two kernels ran verified on an H100 before
 * this test existed; that they pass here is the check on the stand-ins. Prints a line per case
 * and kernel, "ok" or "FAIL"; exit 1 on any FAIL.
 *     g++ -std=c++20 -O1 -I/usr/local/cuda/include test/attention_emu.cc -o attention_emu */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u
#define BK_KINDS 0x40u /* attention only: the other kinds' launches are CUDA C++ (<<<>>>) */
#define BK_EMU 1
#include "kernel_emu.h"
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"
#include "attention_case.h"

#include <string>

enum variant { V_SPLIT, V_TC, V_ROWS };
static const char *const vnames[] = {"bk_attention_split", "bk_attention_tc", "bk_attention_rows"};

template <typename T>
static void run_kernel(enum variant v, bool tc, const bk_att &a, void *const *din, void *dout)
{
    const long long per = v == V_SPLIT ? (long long)BK_SPL_BQ : v == V_TC ? (long long)BK_ATT_BQ : (long long)BK_ATT_WARPS;
    dim3 grid((unsigned)((a.sq + per - 1) / per), (unsigned)a.h, (unsigned)a.b);
    const T *q = (const T *)din[0], *k = (const T *)din[1], *vv = (const T *)din[2];
    const void *m = din[3];
    T *o = (T *)dout;
    emu_launch(grid, dim3(BK_ATT_WARPS * 32), [&] {
        if (v == V_ROWS)
            bk_attention_rows<T>(q, k, vv, m, o, a);
        else if constexpr (sizeof(T) == 2) {
            if (v == V_SPLIT)
                bk_attention_split_body<T, true>(q, k, vv, m, o, a);
            else
                bk_attention_tc_body<T>(q, k, vv, m, o, a);
        } else if (v == V_SPLIT) {
            if (tc)
                bk_attention_split_body<T, true>(q, k, vv, m, o, a);
            else
                bk_attention_split_body<T, false>(q, k, vv, m, o, a);
        } else {
            bk_attention_tc_body<T>(q, k, vv, m, o, a);
        }
    });
}

static int failures;

/* a case (att_case's LAYOUT: 2 is a transposed K, which no 16-byte tile copy takes) through
 * the kernels VS */
static void run_case_rep(const char *name, int dt, bool tf32, long long b, long long h, long long sq, long long skv,
                         long long d, long long dv, int layout, int mask, const long long *mdims, float fill,
                         int fill_when, const enum variant *vs, int nv, long long rep)
{
    struct bk_op op;
    void *in[4];
    att_case(&op, in, dt, b, h, sq, skv, d, dv, layout, mask, mdims, fill, fill_when, 1.0f / sqrtf((float)d), rep, 4242u);
    op.tf32 = tf32;
    const long long no = b * h * sq * dv;
    void *want = calloc((size_t)no, pl_esize(dt)), *got = malloc((size_t)no * pl_esize(dt));
    if (bk_att_reference(&op, in, want) != BH_OK)
        abort();
    const bk_att a = bk_att_of(&op);
    for (int j = 0; j < nv; j++) {
        memset(got, 0xff, (size_t)no * pl_esize(dt));
        if (dt == PL_FLOAT16)
            run_kernel<__half>(vs[j], true, a, in, got);
        else if (dt == PL_BFLOAT16)
            run_kernel<__nv_bfloat16>(vs[j], true, a, in, got);
        else
            run_kernel<float>(vs[j], tf32, a, in, got);
        double worst = 0;
        long long bad = 0;
        for (long long i = 0; i < no; i++) {
            double g = pl_load(got, dt, i), w = pl_load(want, dt, i), e = fabs(g - w) / (1.0 + fabs(w));
            if (w == w && !(e <= worst))
                worst = e == e ? e : INFINITY;
            bad += w == w ? !(e <= bk_att_tol(&op)) : g == g;
        }
        const char *ty = dt == PL_FLOAT16 ? "f16" : dt == PL_BFLOAT16 ? "bf16" : tf32 ? "tf32" : "f32";
        bool ok = bad == 0;
        failures += !ok;
        printf("%s %s %s %s: b%lld h%lld (%lld per K/V head) sq%lld skv%lld d%lld dv%lld, max error %.3g (tolerance %.3g)%s\n",
               ok ? "ok" : "FAIL", vnames[vs[j]], ty, name, b, h, rep, sq, skv, d, dv, worst, bk_att_tol(&op),
               ok ? "" : (" in " + std::to_string(bad) + " elements").c_str());
    }
    for (int i = 0; i < 4; i++)
        free(in[i]);
    free(want);
    free(got);
}

/* one query head per K and V head */
static void run_case(const char *name, int dt, bool tf32, long long b, long long h, long long sq, long long skv,
                     long long d, long long dv, int layout, int mask, const long long *mdims, float fill, int fill_when,
                     const enum variant *vs, int nv)
{
    run_case_rep(name, dt, tf32, b, h, sq, skv, d, dv, layout, mask, mdims, fill, fill_when, vs, nv, 1);
}

int main(void)
{
    const enum variant all_tc[] = {V_SPLIT, V_TC}, f32v[] = {V_SPLIT, V_ROWS}, split[] = {V_SPLIT};
    const long long keys[4] = {2, 1, 1, 70}, full[4] = {2, 3, 37, 70}, causal[4] = {1, 1, 37, 70};
    /* BERT-base's attention with 2 of its 12 heads: 128 x 128, head size 64, heads split */
    run_case("bert", PL_FLOAT16, false, 1, 2, 128, 128, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2);
    run_case("bert", PL_BFLOAT16, false, 1, 2, 128, 128, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2);
    run_case("bert", PL_FLOAT, true, 1, 2, 128, 128, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2);
    run_case("bert", PL_FLOAT, false, 1, 2, 128, 128, 64, 64, 1, 0, NULL, 0, 0, f32v, 2);
    /* tails: 37 queries (a partial block), 70 keys (a second tile of 6: three warps with none) */
    run_case("tails, added mask over keys", PL_FLOAT16, false, 2, 3, 37, 70, 32, 48, 0, 1, keys, 0, 0, all_tc, 2);
    run_case("tails, where mask -inf", PL_FLOAT, true, 2, 3, 37, 70, 16, 16, 1, 2, full, -INFINITY, 1, all_tc, 2);
    run_case("tails, where mask -inf", PL_FLOAT, false, 2, 3, 37, 70, 16, 16, 1, 2, full, -INFINITY, 1, f32v, 2);
    run_case("tails, causal-like added mask", PL_BFLOAT16, false, 1, 2, 37, 70, 64, 32, 1, 1, causal, 0, 0, all_tc, 2);
    /* K stored transposed (the synchronous copy), and head size 128 */
    run_case("transposed K", PL_FLOAT16, false, 1, 2, 40, 100, 32, 32, 2, 0, NULL, 0, 0, split, 1);
    run_case("transposed K", PL_FLOAT, false, 1, 2, 40, 100, 32, 32, 2, 0, NULL, 0, 0, f32v, 2);
    run_case("head size 128", PL_FLOAT, true, 1, 1, 64, 192, 128, 128, 0, 0, NULL, 0, 0, all_tc, 2);
    run_case("head size 128", PL_FLOAT, false, 1, 1, 64, 192, 128, 128, 0, 0, NULL, 0, 0, split, 1);
    run_case("where mask, kept where true", PL_FLOAT16, false, 2, 3, 37, 70, 16, 32, 0, 2, keys, -3.0f, 0, all_tc, 2);
    /* ViT-B/16's 197 tokens (4 key tiles, the last of 5 keys), and a Where mask over queries
     * and keys, -inf where false (GPT-2's form; random here, about 70% masked) */
    const long long qk_bool[4] = {1, 1, 100, 100};
    run_case("vit tokens", PL_FLOAT16, false, 1, 1, 197, 197, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2);
    run_case("where mask per query and key", PL_FLOAT, true, 1, 2, 100, 100, 64, 64, 1, 2, qk_bool, -INFINITY, 0, all_tc, 2);
    /* grouped-query attention (Llama's): query head h reads K and V head h / R (R query heads
     * per K and V head; a kernel that read head h would read past them, one that read h % Nkv
     * the wrong one): 4 query heads on 2 K/V heads, 8 on 2, 4 on 2, 6 on 2 */
    const long long gqa_keys[4] = {2, 1, 1, 70};
    run_case_rep("grouped query heads", PL_FLOAT16, false, 1, 4, 64, 64, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2, 2);
    run_case_rep("grouped query heads, added mask", PL_BFLOAT16, false, 2, 8, 37, 70, 32, 32, 0, 1, gqa_keys, 0, 0,
                 all_tc, 2, 4);
    run_case_rep("grouped query heads", PL_FLOAT, true, 1, 4, 64, 64, 64, 64, 1, 0, NULL, 0, 0, all_tc, 2, 2);
    run_case_rep("grouped query heads", PL_FLOAT, false, 1, 6, 37, 70, 16, 16, 1, 0, NULL, 0, 0, f32v, 2, 3);
    return failures ? 1 : 0;
}
