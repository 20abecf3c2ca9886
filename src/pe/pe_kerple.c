/* KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative Positional
 * Embedding for Length Extrapolation"): head h adds a bias of the distance
 * d = |i - j| to the score of query i and key j (after the q.k scaling),
 * from a conditionally positive definite kernel with two parameters
 * learned per head, in one of the paper's two forms (--kerple-form):
 *     log    b_h(d) = -r1_h log(1 + r2_h d),   r1, r2 > 0
 *     power  b_h(d) = -r1_h d^r2_h,            r1 > 0, 0 < r2 <= 2
 * Both fade with distance as ALiBi's -m d does (power with r2 = 1 is
 * ALiBi with a learned slope), the log form logarithmically; each head
 * learns how fast.
 *
 * As the paper's code (chijames/KERPLE, ParallelKerpleLog and
 * ParallelKerplePower in megatron/mpu/layers.py):
 * - one pair per head, in one table every layer shares (the code builds
 *   one module and hands it to every layer), here (2,NH): row 0 the r1 of
 *   each head, row 1 the r2 (the log form's bias_p and bias_a, the power
 *   form's bias_a and bias_p);
 * - drawn uniformly: log r1 from (0,2) and r2 from (0,1); power r1 from
 *   (0,1) and r2 from (0,2);
 * - kept in range by clamping the stored values, at eps = 0.01 (and r2 of
 *   the power form at 2), as the code does before every forward pass:
 *   here after every optimizer step (constrain, the one hook that writes
 *   the table), so a value the optimizer pushes under eps comes back to
 *   eps and trains on from there. The hooks read the values clamped too,
 *   with the clamp's own gradient (none outside the range), which a table
 *   kept in range never meets.
 * The code's bias is causal (keys at or before the query). Here it reads
 * |i - j|, the same to either side, so, like symmetric ALiBi, it cannot
 * tell a sentence from its reverse. It adds nothing to the word vectors. */
#include <math.h>

#include "pe.h"

#define KERPLE_EPS 0.01 /* the paper's code's clamp */
#define KERPLE_POWER_MAX 2.0

typedef enum { FORM_LOG = 0, FORM_POWER = 1 } KerpleForm;

static const char *const FORM_NAMES[] = {"log", "power", NULL};

static const PeOption opt_form = {
    .flag = "--kerple-form",
    .type = PE_VALUE_NAME,
    .names = FORM_NAMES,
    .def = FORM_LOG,
    .def_text = "log",
    .help = "kerple: the kernel, -r1 log(1 + r2 d) (log) or -r1 d^r2 with 0 < r2 <= 2 "
            "(power) (default log)",
    .example = "power",
};

static KerpleForm form_of(const PeConfig *pc) { return (KerpleForm)pe_get(pc, &opt_form); }

/* r1's and r2's ranges: [eps, inf), and for the power's r2 [eps, 2]. */
static float r_hi(const PeConfig *pc, size_t row) {
    return row == 1 && form_of(pc) == FORM_POWER ? (float)KERPLE_POWER_MAX : INFINITY;
}

static bool in_range(const PeConfig *pc, size_t row, float p) {
    return p >= (float)KERPLE_EPS && p <= r_hi(pc, row);
}

static float clamped(const PeConfig *pc, size_t row, float p) {
    float hi = r_hi(pc, row);
    return p < (float)KERPLE_EPS ? (float)KERPLE_EPS : p > hi ? hi : p;
}

/* Row 0: r1 of each head, row 1: r2. */
static void kerple_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                         size_t *rows, size_t *cols) {
    (void)pc, (void)w, (void)HS, (void)max_len;
    *rows = 2;
    *cols = NH;
}

static void kerple_constrain(const PeConfig *pc, float *params, size_t n) {
    for (size_t i = 0; i < n; i++)
        params[i] = clamped(pc, i < n / 2 ? 0 : 1, params[i]);
}

static void kerple_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                        Rng *rng) {
    (void)C;
    /* the log form's r1 (row 0: a value per head) from (0,2) and r2 from
     * (0,1), the power form's the other way round, as the code's first
     * forward pass leaves them: clamped */
    bool power = form_of(pc) == FORM_POWER;
    for (size_t i = 0; i < n; i++)
        params[i] = ((i < NH) != power ? 2.0f : 1.0f) * (float)rng_uniform(rng);
    kerple_constrain(pc, params, n);
}

/* The kernel's part r2 shapes, k(d) = log(1 + r2 d) or d^r2, and its
 * derivative in r2: d / (1 + r2 d), or d^r2 ln d (0 at d = 0, as torch's
 * pow takes it). */
static float kernel(KerpleForm f, float r2, float d) {
    return f == FORM_LOG ? log1pf(r2 * d) : powf(d, r2);
}

static float kernel_dr2(KerpleForm f, float r2, float d) {
    return f == FORM_LOG ? d / (1.0f + r2 * d) : d > 0.0f ? powf(d, r2) * logf(d) : 0.0f;
}

/* With positions 0..T-1 (every run but --random-positions) a head meets T
 * distances, not T^2: the kernel is taken once per distance into a table
 * of this many, where log1pf per pair was 38% of a training step (perf:
 * width 64, tapes up to 80). The same floats either way. */
#define KERPLE_TABLE 1024

/* k(d) for d = 0..T-1 into K, when P is 0..T-1; false otherwise. */
static bool distance_table(float *K, const float *P, size_t T, KerpleForm f, float r2) {
    if (T > KERPLE_TABLE)
        return false;
    for (size_t t = 0; t < T; t++)
        if (P[t] != (float)t)
            return false;
    for (size_t d = 0; d < T; d++)
        K[d] = kernel(f, r2, (float)d);
    return true;
}

static void kerple_score(const PeHead *hd) {
    /* scores is (T,T), P (T), params (2,NH) */
    const PeConfig *pc = hd->pc;
    KerpleForm f = form_of(pc);
    float r1 = clamped(pc, 0, hd->params[hd->h]), r2 = clamped(pc, 1, hd->params[hd->NH + hd->h]);
    const float *P = hd->scratch;
    size_t T = hd->T;
    float K[KERPLE_TABLE];
    bool table = distance_table(K, P, T, f, r2);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            hd->scores[i * T + j] -=
                r1 * (table ? K[i > j ? i - j : j - i] : kernel(f, r2, fabsf(P[i] - P[j])));
}

static void kerple_score_backward(const PeHead *hd) {
    /* forward: scores_ij -= r1 k(d_ij), d = |p_i - p_j|;
     * dr1 -= sum ds_ij k(d_ij), dr2 -= sum ds_ij r1 dk/dr2(d_ij),
     * each through the clamp: nothing where the stored value is outside
     * its range */
    if (!hd->dparams)
        return;
    const PeConfig *pc = hd->pc;
    KerpleForm f = form_of(pc);
    float p1 = hd->params[hd->h], p2 = hd->params[hd->NH + hd->h];
    float r1 = clamped(pc, 0, p1), r2 = clamped(pc, 1, p2);
    const float *P = hd->scratch;
    size_t T = hd->T;
    float K[KERPLE_TABLE];
    bool table = distance_table(K, P, T, f, r2);
    float g1 = 0.0f, g2 = 0.0f;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float ds = hd->dscores[i * T + j], d = fabsf(P[i] - P[j]);
            g1 -= ds * (table ? K[i > j ? i - j : j - i] : kernel(f, r2, d));
            g2 -= ds * r1 * kernel_dr2(f, r2, d);
        }
    if (in_range(pc, 0, p1))
        hd->dparams[hd->h] += g1;
    if (in_range(pc, 1, p2))
        hd->dparams[hd->NH + hd->h] += g2;
}

/* In double throughout: the gradient checks move the table by less than
 * a float can tell. */
static double kerple_ref_score(const PeRefRow *r) {
    const PeConfig *pc = r->pc;
    double r1 = fmax(r->params[r->h], KERPLE_EPS);
    double r2 = fmin(fmax(r->params[r->NH + r->h], KERPLE_EPS), (double)r_hi(pc, 1));
    double d = fabs((double)r->pi - (double)r->pj);
    return -r1 * (form_of(pc) == FORM_LOG ? log(1.0 + r2 * d) : pow(d, r2));
}

const PeScheme pe_kerple = {
    .name = "kerple",
    .since = 6,
    .options = (const PeOption *const[]){&opt_form, NULL},
    .about = "a learned bias of the distance on each head's scores, -r1 log(1 + r2|i-j|) or "
             "-r1 |i-j|^r2 (--kerple-form), r1, r2 > 0 per head (KERPLE)",
    .note = "nothing is added to the word vectors; the bias is the same to the left and to the "
            "right, so, like alibi's, it cannot tell a sentence from its reverse; an untrained "
            "head already fades with distance at its own random rate",
    .default_combine = COMBINE_ADD,
    .param_shape = kerple_shape,
    .param_name = "kerple_log.weight",
    .grad_by_head = true,
    .init = kerple_init,
    .constrain = kerple_constrain,
    .scratch = pe_positions_scratch,
    .prepare = pe_positions_prepare,
    .score = kerple_score,
    .score_backward = kerple_score_backward,
    .ref_score = kerple_ref_score,
};
