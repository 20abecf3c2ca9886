#include "attention.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "head_products.h"
#include "layers.h"
#include "matmul.h"
#include "par.h"
#include "vexp.h"

/* The per-head products: in head_products.c's loops where they take the
 * head (and beat OpenBLAS: bench/README.md), else by matmul. Switched off
 * only to time the products against them (bench/floor.c). */
static bool small_heads = true;

void attention_small_heads(bool on) { small_heads = on; }

/* S (T,T) = alpha Q K^T */
static void prod_qk(float *S, const float *Q, size_t ldq, const float *K, size_t ldk, size_t T,
                    size_t HS, float alpha) {
    if (small_heads && head_small_qk(T, HS))
        head_qk(S, T, Q, ldq, K, ldk, T, HS, alpha);
    else
        matmul(S, T, Q, ldq, false, K, ldk, true, T, T, HS, alpha, 0.0f);
}

/* O (T,HS) = alpha op(A) X, op(A) A or A^T (T,T) */
static void prod_ax(float *O, size_t ldo, const float *A, bool trans, const float *X,
                    size_t ldx, size_t T, size_t HS, float alpha) {
    if (small_heads && head_small(T, HS))
        (trans ? head_atx : head_ax)(O, ldo, A, T, X, ldx, T, HS, alpha);
    else
        matmul(O, ldo, A, T, trans, X, ldx, false, T, HS, T, alpha, 0.0f);
}

/* Softmax over the first n entries of row[0..T); the rest become 0. The
 * maximum is the row's own, never a sentinel, so no logit can underflow the
 * whole row. Like the sum, it is taken in lanes (layers.h, sum_lanes). */
static void softmax_row(float *row, size_t n, size_t T) {
    float lane[SUM_LANES];
    for (size_t k = 0; k < SUM_LANES; k++)
        lane[k] = row[0];
    size_t j = 0;
    for (; j + SUM_LANES <= n; j += SUM_LANES)
        for (size_t k = 0; k < SUM_LANES; k++)
            lane[k] = row[j + k] > lane[k] ? row[j + k] : lane[k];
    float max = lane[0];
    for (size_t k = 1; k < SUM_LANES; k++)
        max = lane[k] > max ? lane[k] : max;
    for (; j < n; j++)
        max = row[j] > max ? row[j] : max;
    exp_shifted(row, n, max);
    float inv = 1.0f / sum_lanes(row, n);
    for (j = 0; j < n; j++)
        row[j] *= inv;
    for (j = n; j < T; j++)
        row[j] = 0.0f;
}

/* Head h of sentence b as the hook's scheme sees it (pe.h). */
static PeHead head_view(const AttnHook *hook, size_t b, size_t h, size_t T, size_t C,
                        size_t NH) {
    size_t HS = C / NH, s = hook->shared ? 0 : b;
    return (PeHead){.pc = hook->pc, .params = hook->params, .dparams = hook->grad,
                    .scratch = hook->scratch + s * hook->stride, .pos = hook->pos + s * T,
                    .dist = hook->dist,
                    .T = T, .HS = HS, .h = h, .NH = NH, .layer = hook->layer,
                    .len = hook->lens ? hook->lens[b] : T, .causal = hook->causal,
                    .logits = hook->logits ? hook->logits + (b * NH + h) * T * T : NULL,
                    .work = hook->work ? hook->work + (size_t)par_thread() * hook->work_stride
                                       : NULL,
                    .scale = 1.0f / sqrtf((float)HS), .ld = 3 * C, .ld_out = C};
}

/* One head of one sentence: the forward of attention_forward; with
 * per_thread, att and the kept logits are a block per thread, not per
 * head (attention_forward_only). */
static void head_forward(float *out, float *att, float *qkv, const size_t *lens, bool causal,
                         const AttnHook *hook, const AttnDrop *drop, bool per_thread, size_t b,
                         size_t h, size_t T, size_t C, size_t NH) {
    size_t HS = C / NH;
    size_t C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)HS);
    float *q = qkv + b * T * C3 + h * HS;
    float *k = q + C;
    const float *v = q + 2 * C;
    size_t block = per_thread ? (size_t)par_thread() : b * NH + h;
    float *a = att + block * T * T;
    const PeScheme *s = hook ? hook->scheme : NULL;
    PeHead hd = hook ? head_view(hook, b, h, T, C, NH) : (PeHead){0};
    if (hook && hook->logits)
        hd.logits = hook->logits + block * T * T;
    hd.q = q, hd.k = k, hd.v = v, hd.scores = a;
    if (s && s->rotate) {
        s->rotate(&hd, q, PE_QUERY, false);
        s->rotate(&hd, k, PE_KEY, false);
    }
    /* scores (T,T) = q k^T / sqrt(HS) */
    prod_qk(a, q, C3, k, C3, T, HS, scale);
    /* a term of the content reads the raw logits, kept for its backward */
    if (hook && hook->logits)
        memcpy(hook->logits + block * T * T, a, T * T * sizeof *a);
    if (s && s->score)
        s->score(&hd);
    /* Padded query rows attend like the others (their outputs are
     * never read); only the keys are masked: the padding, and with the
     * causal mask the keys after the query. Masked weights are 0, so the
     * backward needs no mask of its own. */
    for (size_t i = 0; i < T; i++)
        softmax_row(a + i * T, causal && i + 1 < lens[b] ? i + 1 : lens[b], T);
    /* the values read the weights after dropout; the softmax's stay in
     * att for the backward and for the pictures */
    if (drop) {
        float *ad = drop->att + (b * NH + h) * T * T;
        memcpy(ad, a, T * T * sizeof *ad);
        dropout_apply(ad, T * T, drop->d, drop->site, ((drop->b0 + b) * NH + h) * T * T);
        a = ad;
    }
    /* out (T,HS) = att (T,T) v (T,HS), written into head h's columns */
    prod_ax(out + b * T * C + h * HS, C, a, false, v, C3, T, HS, 1.0f);
    hd.att = a, hd.out = out + b * T * C + h * HS;
    if (s && s->mix)
        s->mix(&hd);
}

void attention_forward(float *out, float *att, float *qkv, const size_t *lens, bool causal,
                       const AttnHook *hook, const AttnDrop *drop, size_t B, size_t T, size_t C,
                       size_t NH) {
    /* qkv is (B,T,3C), att is (B,NH,T,T), out is (B,T,C) */
    /* The heads of the batch are independent: each thread takes a fixed
     * block of (sentence, head) pairs, and the products inside run on
     * that thread alone (OpenBLAS does not start threads inside an OpenMP
     * loop), the same products as a serial loop. */
    size_t n = B * NH;
    PAR_FOR_IF(n > 1 && n * T * T * (C / NH) > PAR_MIN_WORK)
    for (size_t i = 0; i < n; i++)
        head_forward(out, att, qkv, lens, causal, hook, drop, false, i / NH, i % NH, T, C, NH);
}

void attention_forward_only(float *out, float *att, float *qkv, const size_t *lens, bool causal,
                            const AttnHook *hook, size_t B, size_t T, size_t C, size_t NH) {
    /* as attention_forward, each head in its thread's block */
    size_t n = B * NH;
    PAR_FOR_IF(n > 1 && n * T * T * (C / NH) > PAR_MIN_WORK)
    for (size_t i = 0; i < n; i++)
        head_forward(out, att, qkv, lens, causal, hook, NULL, true, i / NH, i % NH, T, C, NH);
}

/* One head of one sentence: the backward of head_forward, with ds, T*T
 * floats of scratch. */
static void head_backward(float *dqkv, float *ds, const float *dout, const float *qkv,
                          const float *att, const AttnHook *hook, const AttnDrop *drop,
                          size_t b, size_t h, size_t T, size_t C, size_t NH) {
    size_t HS = C / NH;
    size_t C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)HS);
    const float *q = qkv + b * T * C3 + h * HS;
    const float *k = q + C;
    const float *v = q + 2 * C;
    float *dq = dqkv + b * T * C3 + h * HS;
    float *dk = dq + C;
    float *dv = dq + 2 * C;
    const float *a = att + (b * NH + h) * T * T;
    /* the weights the values read: after dropout, when there was one */
    const float *av = drop ? drop->att + (b * NH + h) * T * T : a;
    const float *dy = dout + b * T * C + h * HS;
    const PeScheme *s = hook ? hook->scheme : NULL;
    PeHead hd = hook ? head_view(hook, b, h, T, C, NH) : (PeHead){0};
    hd.q = q, hd.k = k, hd.v = v, hd.att = av, hd.dout = dy;
    hd.dq = dq, hd.dk = dk, hd.datt = ds, hd.dscores = ds;
    /* forward: out = att v */
    /* datt (T,T) = dout (T,HS) v^T */
    prod_qk(ds, dy, C, v, C3, T, HS, 1.0f);
    /* dv (T,HS) = att^T (T,T) dout (T,HS) */
    prod_ax(dv, C3, av, true, dy, C, T, HS, 1.0f);
    /* forward: out += the scheme's vectors weighted by att */
    if (s && s->mix_backward)
        s->mix_backward(&hd);
    /* forward: the dropped weights are the softmax's through the mask */
    if (drop)
        dropout_apply(ds, T * T, drop->d, drop->site, ((drop->b0 + b) * NH + h) * T * T);
    /* forward: att = softmax(scores) row by row;
     * dscores = att * (datt - sum_j att_j datt_j). Masked keys have
     * att = 0, so their scores get no gradient. */
    for (size_t i = 0; i < T; i++) {
        const float *ai = a + i * T;
        float *di = ds + i * T;
        float dot = dot_lanes(ai, di, T);
        for (size_t j = 0; j < T; j++)
            di[j] = ai[j] * (di[j] - dot);
    }
    /* forward: scores += a term of the logits (reads_logits): its part
     * through them joins dscores, and the products below take it to q, k;
     * score_backward gets the scores' own gradient, kept from before */
    if (s && s->logits_backward) {
        float *kept = ds + T * T;
        memcpy(kept, ds, T * T * sizeof *kept);
        s->logits_backward(&hd);
        hd.dscores = kept;
    }
    /* forward: scores = q k^T / sqrt(HS) */
    /* dq (T,HS) = dscores (T,T) k (T,HS) / sqrt(HS) */
    prod_ax(dq, C3, ds, false, k, C3, T, HS, scale);
    /* dk (T,HS) = dscores^T (T,T) q (T,HS) / sqrt(HS) */
    prod_ax(dk, C3, ds, true, q, C3, T, HS, scale);
    /* forward: scores += the scheme's term (a bias, or a term of q, k and
     * the offset): into dq, dk and its table */
    if (s && s->score_backward)
        s->score_backward(&hd);
    /* forward: q and k rotated in place; back through the
     * transpose of the rotation */
    if (s && s->rotate) {
        s->rotate(&hd, dq, PE_QUERY, true);
        s->rotate(&hd, dk, PE_KEY, true);
    }
}

size_t attention_scratch(const AttnHook *hook, size_t T) {
    return (hook && hook->scheme->logits_backward ? 2 : 1) * T * T;
}

void attention_backward(float *dqkv, float *dscores, size_t n_scratch, const float *dout,
                        const float *qkv, const float *att, const AttnHook *hook,
                        const AttnDrop *drop, size_t B, size_t T, size_t C, size_t NH) {
    /* dout is (B,T,C), qkv and dqkv are (B,T,3C), att is (B,NH,T,T) */
    /* A table's gradient sums over the sentences. When each head has a
     * part of its own (T5's column, say), one thread per head, each adding
     * its sentences in order, so the sums are the serial loop's; when the
     * heads share it (Shaw's vectors), one thread for all, in the serial
     * loop's order. Without a table, any (sentence, head) pair to any
     * thread. */
    bool table = hook && hook->grad && hook->scheme->param_shape;
    bool by_head = table && hook->scheme->grad_by_head;
    bool shared = table && !hook->scheme->grad_by_head;
    size_t n = by_head ? NH : B * NH;
    int team = n_scratch < (size_t)par_threads() ? (int)n_scratch : par_threads();
    team = team < 1 || shared ? 1 : team;
    bool par = team > 1 && n > 1 && n * T * T * (C / NH) > PAR_MIN_WORK;
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(team) if (par)
#endif
    for (size_t i = 0; i < n; i++) {
        float *ds = dscores + (size_t)par_thread() * attention_scratch(hook, T);
        if (by_head)
            for (size_t b = 0; b < B; b++)
                head_backward(dqkv, ds, dout, qkv, att, hook, drop, b, i, T, C, NH);
        else
            head_backward(dqkv, ds, dout, qkv, att, hook, drop, i / NH, i % NH, T, C, NH);
    }
}
