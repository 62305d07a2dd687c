/* An attention op and its inputs for the host checks of the fused attention kernels
 * (test/attention_ref_check.cu, test/attention_emu.cc): dims (b, h, sq, skv, d, dv), the
 * operands' layout, a mask, uniform [-1, 1) data (a bool mask true with probability 0.3).
 * Needs runtime/cuda_kernels.cuh before it. */
#ifndef BENANZA_ATTENTION_CASE_H
#define BENANZA_ATTENTION_CASE_H

/* contiguous strides of STORE (4 dims), permuted: logical dim k is storage dim perm[k] */
static void att_strides(const long long *store, const int *perm, long long *out)
{
    long long cs[4], acc = 1;
    for (int k = 3; k >= 0; k--) {
        cs[k] = acc;
        acc *= store[k];
    }
    for (int k = 0; k < 4; k++)
        out[k] = cs[perm[k]];
}

/* LAYOUT 0: every operand stored as read, [b, h, s, d]; 1: stored [b, s, h, d] (heads split
 * from the hidden dim, BERT's); 2: as 1, but K stored [b, h, d, s] (transposed). MASK 0 none,
 * 1 added, 2 a bool selecting FILL where it equals FILL_WHEN, over MDIMS (b, h, sq, skv; 1
 * broadcasts). REP: query heads per K and V head (grouped-query attention: K and V have h / REP
 * heads). IN[0..3] are allocated (free them); SEED seeds the data. */
static void att_case(struct bk_op *op, void **in, int dt, long long b, long long h, long long sq, long long skv,
                     long long d, long long dv, int layout, int mask, const long long *mdims, float fill, int fill_when,
                     float scale, long long rep, unsigned seed)
{
    memset(op, 0, sizeof(*op));
    op->kind = BK_ATTENTION;
    op->pl.out = (struct pl_tensor){dt, 4, {b, h, sq, dv}};
    op->ab = b, op->ah = h, op->asq = sq, op->askv = skv, op->ad = d, op->adv = dv;
    op->arep = rep;
    const long long hk = h / rep;
    static const int id[4] = {0, 1, 2, 3}, sw[4] = {0, 2, 1, 3}, kt[4] = {0, 1, 3, 2};
    const int *perm = layout ? sw : id;
    long long qs[4] = {b, layout ? sq : h, layout ? h : sq, d}, ks[4] = {b, layout ? skv : hk, layout ? hk : skv, d},
              vs[4] = {b, layout ? skv : hk, layout ? hk : skv, dv}, os[4] = {b, layout ? sq : h, layout ? h : sq, dv},
              kst[4] = {b, hk, d, skv};
    att_strides(qs, perm, op->aq);
    if (layout == 2)
        att_strides(kst, kt, op->ak);
    else
        att_strides(ks, perm, op->ak);
    att_strides(vs, perm, op->av);
    att_strides(os, perm, op->ao);
    op->aq_elems = b * h * sq * d, op->ak_elems = b * hk * skv * d, op->av_elems = b * hk * skv * dv;
    op->amask = mask, op->ascale = scale, op->afill = fill, op->afill_when = fill_when;
    if (mask) {
        long long acc = 1;
        for (int k = 3; k >= 0; k--) {
            op->am[k] = mdims[k] == 1 ? 0 : acc;
            acc *= mdims[k];
        }
        op->am_elems = acc;
    }
    long long n[4] = {op->aq_elems, op->ak_elems, op->av_elems, op->am_elems};
    for (int i = 0; i < 4; i++) {
        in[i] = NULL;
        if (i == 3 && !mask)
            continue;
        int t = i == 3 && mask == 2 ? PL_BOOL : dt;
        in[i] = calloc((size_t)n[i], pl_esize(t));
        for (long long e = 0; e < n[i]; e++) {
            double v = bc_rand(&seed);
            pl_store(in[i], t, e, t == PL_BOOL ? v < 0.3 : 2 * v - 1);
        }
    }
}

#endif
