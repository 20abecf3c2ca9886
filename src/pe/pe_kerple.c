/* KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative Positional
 * Embedding for Length Extrapolation"), its logarithmic variant: head h
 * adds
 *     b_h(i,j) = -r1_h log(1 + r2_h |i - j|)
 * to the score of query i and key j (after the q.k scaling), with r1_h and
 * r2_h > 0 learned per head. The paper derives it from a conditionally
 * positive definite kernel; it fades with distance as ALiBi's -m|i-j|
 * does, but logarithmically, and each head learns how fast.
 *
 * As the paper's code (chijames/KERPLE, ParallelKerpleLog):
 * - one pair per head, in one table every layer shares (the code builds
 *   one module and hands it to every layer), here (2,NH): row 0 the r1 of
 *   each head (the code's bias_p), row 1 the r2 (bias_a);
 * - r1 drawn from U(0,2) and r2 from U(0,1), then clamped at eps = 0.01;
 * - positive by that clamp: the code clamps the stored values at eps
 *   before every forward pass. A hook here may not write the table (the
 *   optimizer owns it), so the clamp is taken where a value is read,
 *   r = max(p, eps): the same bias. Its gradient is the clamp's, none
 *   below eps, so a value the optimizer pushes under eps stays there,
 *   where the paper's code would let a later step raise it again.
 * The code's bias is causal (keys at or before the query). Here it reads
 * |i - j|, the same to either side, so, like symmetric ALiBi, it cannot
 * tell a sentence from its reverse. It adds nothing to the word vectors. */
#include <math.h>

#include "pe.h"

#define KERPLE_EPS 0.01 /* the paper's code's clamp */

static float clamped(float p) { return p > (float)KERPLE_EPS ? p : (float)KERPLE_EPS; }

/* Row 0: r1 of each head, row 1: r2. */
static void kerple_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                         size_t *rows, size_t *cols) {
    (void)pc, (void)w, (void)HS, (void)max_len;
    *rows = 2;
    *cols = NH;
}

static void kerple_init(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng) {
    (void)pc, (void)C;
    /* the first half r1 ~ U(0,2), the second r2 ~ U(0,1), as the code's
     * first forward pass leaves them: clamped */
    for (size_t i = 0; i < n; i++)
        params[i] = clamped((i < n / 2 ? 2.0f : 1.0f) * (float)rng_uniform(rng));
}

/* With positions 0..T-1 (every run but --random-positions) a head meets T
 * distances, not T^2: log(1 + r2 d) is taken once per distance into a
 * table of this many, where log1pf per pair was 38% of a training step
 * (perf: width 64, tapes up to 80). The same floats either way. */
#define KERPLE_TABLE 1024

/* log(1 + r2 d) for d = 0..T-1 into L, when P is 0..T-1; false otherwise. */
static bool distance_logs(float *L, const float *P, size_t T, float r2) {
    if (T > KERPLE_TABLE)
        return false;
    for (size_t t = 0; t < T; t++)
        if (P[t] != (float)t)
            return false;
    for (size_t d = 0; d < T; d++)
        L[d] = log1pf(r2 * (float)d);
    return true;
}

static void kerple_score(const PeHead *hd) {
    /* scores is (T,T), P (T), params (2,NH) */
    float r1 = clamped(hd->params[hd->h]), r2 = clamped(hd->params[hd->NH + hd->h]);
    const float *P = hd->scratch;
    size_t T = hd->T;
    float L[KERPLE_TABLE];
    bool table = distance_logs(L, P, T, r2);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            hd->scores[i * T + j] -=
                r1 * (table ? L[i > j ? i - j : j - i] : log1pf(r2 * fabsf(P[i] - P[j])));
}

static void kerple_score_backward(const PeHead *hd) {
    /* forward: scores_ij -= r1 log(1 + r2 d_ij), d = |p_i - p_j|;
     * dr1 -= sum ds_ij log(1 + r2 d_ij), dr2 -= sum ds_ij r1 d_ij / (1 + r2 d_ij),
     * each through the clamp: nothing where the stored value is below eps */
    if (!hd->dparams)
        return;
    float p1 = hd->params[hd->h], p2 = hd->params[hd->NH + hd->h];
    float r1 = clamped(p1), r2 = clamped(p2);
    const float *P = hd->scratch;
    size_t T = hd->T;
    float L[KERPLE_TABLE];
    bool table = distance_logs(L, P, T, r2);
    float g1 = 0.0f, g2 = 0.0f;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float ds = hd->dscores[i * T + j], d = fabsf(P[i] - P[j]);
            g1 -= ds * (table ? L[i > j ? i - j : j - i] : log1pf(r2 * d));
            g2 -= ds * r1 * d / (1.0f + r2 * d);
        }
    if (p1 >= (float)KERPLE_EPS)
        hd->dparams[hd->h] += g1;
    if (p2 >= (float)KERPLE_EPS)
        hd->dparams[hd->NH + hd->h] += g2;
}

static double kerple_ref_score(const PeRefPair *r) {
    double r1 = fmax(r->params[r->h], KERPLE_EPS), r2 = fmax(r->params[r->NH + r->h], KERPLE_EPS);
    return -r1 * log(1.0 + r2 * fabs((double)r->pi - (double)r->pj));
}

const PeScheme pe_kerple = {
    .name = "kerple",
    .since = 6,
    .about = "a learned bias -r1 log(1 + r2|i-j|) on each head's scores, r1, r2 > 0 per head "
             "(KERPLE, logarithmic)",
    .note = "nothing is added to the word vectors; the bias is the same to the left and to the "
            "right, so, like alibi's, it cannot tell a sentence from its reverse; an untrained "
            "head already fades with distance at its own random rate",
    .default_combine = COMBINE_ADD,
    .param_shape = kerple_shape,
    .param_name = "kerple_log.weight",
    .grad_by_head = true,
    .init = kerple_init,
    .scratch = pe_positions_scratch,
    .prepare = pe_positions_prepare,
    .score = kerple_score,
    .score_backward = kerple_score_backward,
    .ref_score = kerple_ref_score,
};
