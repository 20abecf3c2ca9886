/* The properties of the attention schemes (RoPE, ALiBi, T5, Shaw), measured on
 * the part of the attention logit that the positions alone decide.
 *
 * S[p][q] is that part for a query at position p and a key at position q,
 * in head 0 of the model's NH: RoPE's logit (R_p q0) . (R_q k0) / sqrt(HS)
 * for a fixed query q0 and key k0 (drawn from ANALYSIS_QK_SEED, the same
 * for every --seed, so that RoPE counts as deterministic), ALiBi's and
 * T5's bias (T5's table drawn from the seed, as a fresh model draws it),
 * Shaw's q0 . aK(q - p) / sqrt(HS) with its vectors drawn so too.
 * The scheme's own functions compute it, the ones the model calls. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_attn.h"

/* What is needed to ask a scheme for its logits. */
typedef struct {
    const PePlan *plan;
    const PeConfig *pc;
    float *params;        /* the scheme's table, or NULL */
    float *q0, *k0;       /* (HS) RoPE's and Shaw's fixed query and key */
} Probe;

static void probe_free(Probe *pr) {
    free(pr->params);
    free(pr->q0);
    free(pr->k0);
    memset(pr, 0, sizeof *pr);
}

void attention_probe_qk(float *q, float *k, size_t HS) {
    Rng r;
    rng_seed(&r, ANALYSIS_QK_SEED);
    for (size_t i = 0; i < HS; i++)
        q[i] = rng_normal(&r);
    for (size_t i = 0; i < HS; i++)
        k[i] = rng_normal(&r);
}

static int probe_init(Probe *pr, const PePlan *plan, const PeConfig *pc, uint64_t seed, Err *e) {
    memset(pr, 0, sizeof *pr);
    pr->plan = plan, pr->pc = pc;
    size_t HS = plan->head_size, n = plan->rows * plan->cols;
    pr->q0 = xmalloc(HS * sizeof *pr->q0, "a query", e);
    pr->k0 = xmalloc(HS * sizeof *pr->k0, "a key", e);
    if (n)
        pr->params = xmalloc(n * sizeof *pr->params, "the scheme's table", e);
    if (!pr->q0 || !pr->k0 || (n && !pr->params)) {
        probe_free(pr);
        return ERR_RUNTIME;
    }
    attention_probe_qk(pr->q0, pr->k0, HS);
    if (n) {
        Rng r;
        rng_seed(&r, seed);
        plan->scheme->init(pc, pr->params, n, plan->head_size * plan->n_heads, plan->n_heads,
                           &r);
    }
    return 0;
}

/* S (T,T) for tokens at positions pos[0..T): the logits of q0 and k0 at
 * every position, rotated (rope), or the scheme's own term of the scores
 * with q0 and k0 at every position (a bias, or a term of q0 and the
 * offset: q0 . k0 is the same for every pair and decides nothing). */
static int logits_at(double *S, const Probe *pr, const size_t *pos, size_t T, Err *e) {
    const PeScheme *s = pr->plan->scheme;
    size_t HS = pr->plan->head_size;
    size_t n_prep = pe_scratch(pr->plan, pr->pc, T) + 1, n_work = pe_work(pr->plan, pr->pc, T) + 1;
    float *prep = xmalloc(n_prep * sizeof *prep, "the scheme's scratch", e);
    float *work = xmalloc(n_work * sizeof *work, "the scheme's workspace", e);
    float *buf = xcalloc(T * (2 * T + 2 * HS), sizeof *buf, "the logits", e);
    if (!prep || !work || !buf) {
        free(prep);
        free(work);
        free(buf);
        return ERR_RUNTIME;
    }
    if (s->prepare)
        s->prepare(prep, pr->pc, pos, T, HS);
    float *L = buf + T * T, *Q = L + T * T, *K = Q + T * HS;
    for (size_t t = 0; t < T; t++) {
        memcpy(Q + t * HS, pr->q0, HS * sizeof *Q);
        memcpy(K + t * HS, pr->k0, HS * sizeof *K);
    }
    /* the scheme's hooks as the model calls them (pe.h): the raw logits
     * for a scheme that reads them, the scores where its term goes (here
     * zero, so that they hold the term alone) */
    float scale = 1.0f / sqrtf((float)HS);
    PeHead hd = {.pc = pr->pc, .params = pr->params, .scratch = prep, .pos = pos, .T = T,
                 .len = T, .HS = HS, .NH = pr->plan->n_heads, .scale = scale, .q = Q, .k = K,
                 .ld = HS, .scores = buf, .work = work, .logits = s->reads_logits ? L : NULL};
    if (s->rotate) {
        s->rotate(&hd, Q, PE_QUERY, false);
        s->rotate(&hd, K, PE_KEY, false);
        for (size_t p = 0; p < T; p++)
            for (size_t q = 0; q < T; q++) {
                double dot = 0.0;
                for (size_t i = 0; i < HS; i++)
                    dot += (double)Q[p * HS + i] * K[q * HS + i];
                S[p * T + q] = dot / sqrt((double)HS);
            }
    } else {
        for (size_t p = 0; p < T; p++)
            for (size_t q = 0; q < T; q++) {
                float dot = 0.0f;
                for (size_t i = 0; i < HS; i++)
                    dot += Q[p * HS + i] * K[q * HS + i];
                L[p * T + q] = dot * scale;
            }
        if (s->score)
            s->score(&hd);
        for (size_t i = 0; i < T * T; i++)
            S[i] = buf[i];
    }
    free(prep);
    free(work);
    free(buf);
    return 0;
}

static int logits_first(double *S, const Probe *pr, size_t N, Err *e) {
    size_t *pos = xmalloc(N * sizeof *pos, "the positions", e);
    if (!pos)
        return ERR_RUNTIME;
    for (size_t p = 0; p < N; p++)
        pos[p] = p;
    int rc = logits_at(S, pr, pos, N, e);
    free(pos);
    return rc;
}

int attention_logits(double *S, const PePlan *plan, const PeConfig *pc, uint64_t seed, size_t N,
                     Err *e) {
    Probe pr;
    int rc = probe_init(&pr, plan, pc, seed, e);
    if (!rc)
        rc = logits_first(S, &pr, N, e);
    probe_free(&pr);
    return rc;
}

/* Over the 4N x 4N matrix's first and last rows and columns (which hold
 * every offset up to 4N of a scheme that sees offsets only): its largest
 * |S|, and how far its entries leave [lo, hi]. */
static int border(double *max_abs, double *excursion, const Probe *pr, size_t N4, double lo,
                  double hi, Err *e) {
    *max_abs = *excursion = 0.0;
    double S[4];
    for (size_t end = 0; end < 2; end++)
        for (size_t q = 0; q < N4; q++) {
            size_t pos[2] = {end ? N4 - 1 : 0, q};
            int rc = logits_at(S, pr, pos, 2, e);
            if (rc)
                return rc;
            for (int k = 0; k < 4; k++) {
                *max_abs = fmax(*max_abs, fabs(S[k]));
                *excursion = fmax(*excursion, fmax(S[k] - hi, lo - S[k]));
            }
        }
    return 0;
}

int attention_properties(PeProps *o, const PePlan *plan, const PeConfig *pc, uint64_t seed,
                         size_t N, size_t far, Err *e) {
    /* the widest positions measured are border's 0..4N-1: a factor of
     * the positions past float's range there would fill the table with
     * inf and n/a, so it is refused, named, first */
    char where[96];
    snprintf(where, sizeof where, "the positions 0..%zu measured (4 times %zu)", 4 * N - 1, N);
    int over = pe_check_span(plan, pc, 0, 4 * N - 1, where, e);
    if (over)
        return over;
    Probe pr = {0}, ps = {0};
    double *S = xmalloc(N * N * sizeof *S, "the logits", e);
    double *S2 = xmalloc(N * N * sizeof *S2, "the logits", e);
    float *rows = xmalloc(N * N * sizeof *rows, "the logits", e);
    int rc = S && S2 && rows ? 0 : ERR_RUNTIME;
    if (!rc)
        rc = probe_init(&pr, plan, pc, seed, e);
    if (!rc)
        rc = probe_init(&ps, plan, pc, seed + 1, e);
    if (!rc)
        rc = logits_first(S, &pr, N, e);
    if (!rc)
        rc = logits_first(S2, &ps, N, e);
    if (rc)
        goto done;
    similarity_measures(o, S, N);
    o->heads = plan->n_heads, o->head_size = plan->head_size;
    /* A position's "code" is its row of S: how it treats every other. */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < N * N; i++) {
        rows[i] = (float)S[i];
        o->max_abs = fmax(o->max_abs, fabs(S[i]));
        o->seed_sensitivity = fmax(o->seed_sensitivity, fabs(S[i] - S2[i]));
        lo = fmin(lo, S[i]), hi = fmax(hi, S[i]);
    }
    size_t a, b;
    o->uniqueness = uniqueness(&a, &b, rows, N, N);
    o->closest_a = a + plan->scheme->first_position;
    o->closest_b = b + plan->scheme->first_position;
    double norm[2] = {0.0, 0.0};
    for (size_t q = 0; q < N; q++) {
        norm[0] += S[q] * S[q];
        norm[1] += S[(N - 1) * N + q] * S[(N - 1) * N + q];
    }
    o->norm_first = sqrt(norm[0]);
    o->norm_last = sqrt(norm[1]);
    /* No sentence length enters an attention scheme's functions. */
    o->length_inconsistency = 0.0;
    o->defined_past = plan->max_positions == SIZE_MAX;
    double m4;
    if ((rc = border(&m4, &o->range_excursion, &pr, 4 * N, lo, hi, e)))
        goto done;
    o->growth = o->max_abs > 0.0 ? m4 / o->max_abs : 1.0;
    /* A linear map of the code, and LayerNorm, do not apply: nothing is
     * added to the input. */
    o->shift_residual = NAN;
    o->layernorm_erasure = NAN;
    size_t count = far < 1024 ? far : 1024;
    o->float32_error = plan->scheme->value
                           ? float32_error(pc, plan->head_size, far - count, count, far)
                           : NAN;
done:
    probe_free(&pr);
    probe_free(&ps);
    free(S);
    free(S2);
    free(rows);
    return rc;
}
