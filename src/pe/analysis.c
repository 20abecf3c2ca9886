#include "analysis.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pe_table(float **P, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C, size_t NH,
             size_t T, Err *e) {
    *P = NULL;
    int rc = pe_plan(plan, pc, C, NH, T, e);
    if (rc)
        return rc;
    size_t n;
    if ((rc = size_mul(&n, T, plan->w ? plan->w : 1, e)))
        return rc;
    *P = xcalloc(n, sizeof **P, "the position code", e);
    if (!*P)
        return ERR_RUNTIME;
    float *params = NULL;
    if (plan->rows) {
        params = xmalloc(plan->rows * plan->cols * sizeof *params, "the position table", e);
        if (!params) {
            free(*P);
            *P = NULL;
            return ERR_RUNTIME;
        }
        Rng r;
        rng_seed(&r, seed);
        plan->scheme->init(pc, params, plan->rows * plan->cols, C, plan->n_heads, &r);
    }
    pe_fill(*P, plan, pc, params, T, T);
    free(params);
    return 0;
}

void pe_embed(float *X, const float *P, const PePlan *plan, size_t C, size_t T) {
    /* P is (T,w), X is (T,C) */
    memset(X, 0, T * C * sizeof *X);
    pe_combine(X, P, T, plan->w, C, plan->combine);
}

/* Removes from v (m) its part along the r orthonormal columns of Q (r,m),
 * twice: one pass leaves rounding error along nearly parallel columns. */
static void project_out(double *v, const double *Q, size_t r, size_t m) {
    for (int pass = 0; pass < 2; pass++)
        for (size_t l = 0; l < r; l++) {
            double dot = 0.0;
            for (size_t i = 0; i < m; i++)
                dot += Q[l * m + i] * v[i];
            for (size_t i = 0; i < m; i++)
                v[i] -= dot * Q[l * m + i];
        }
}

double shift_residual(const float *P, size_t N, size_t w, size_t k, Err *e) {
    /* P is (N,w); A = rows 0..m-1 and Y = rows k..k+m-1, m = N - k. The best
     * M leaves the part of each column of Y outside the span of A's
     * columns: Gram-Schmidt on A, then project Y out. */
    if (w == 0)
        return 0.0;
    if (k >= N || N - k < 2 * w)
        return NAN;
    size_t m = N - k, r = 0;
    double *Q = xmalloc(m * w * sizeof *Q, "the least-squares basis", e);
    if (!Q)
        return NAN;
    for (size_t j = 0; j < w; j++) {
        double *q = Q + r * m, before = 0.0, after = 0.0;
        for (size_t i = 0; i < m; i++) {
            q[i] = P[i * w + j];
            before += q[i] * q[i];
        }
        project_out(q, Q, r, m);
        for (size_t i = 0; i < m; i++)
            after += q[i] * q[i];
        /* A column already in the span adds nothing but rounding noise. */
        if (after <= before * 1e-24 || after == 0.0)
            continue;
        for (size_t i = 0; i < m; i++)
            q[i] /= sqrt(after);
        r++;
    }
    double res = 0.0, tot = 0.0, *y = xmalloc(m * sizeof *y, "a column", e);
    if (!y) {
        free(Q);
        return NAN;
    }
    for (size_t j = 0; j < w; j++) {
        for (size_t i = 0; i < m; i++) {
            y[i] = P[(i + k) * w + j];
            tot += y[i] * y[i];
        }
        project_out(y, Q, r, m);
        for (size_t i = 0; i < m; i++)
            res += y[i] * y[i];
    }
    free(y);
    free(Q);
    return tot > 0.0 ? sqrt(res / tot) : 0.0;
}


static double max_abs(const float *P, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(P[i]));
    return m;
}

static double max_diff(const float *a, const float *b, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* How far rows N..T-1 of P4 (T,w) leave, channel by channel, the range
 * that P (N,w) spans. */
static double excursion(const float *P, const float *P4, size_t N, size_t T, size_t w) {
    double worst = 0.0;
    for (size_t c = 0; c < w; c++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t t = 0; t < N; t++)
            lo = fmin(lo, P[t * w + c]), hi = fmax(hi, P[t * w + c]);
        for (size_t t = N; t < T; t++)
            worst = fmax(worst, fmax(P4[t * w + c] - hi, lo - P4[t * w + c]));
    }
    return worst;
}

static double layernorm_erasure(const float *X, size_t N, size_t C) {
    double sum = 0.0;
    size_t rows = 0;
    for (size_t p = 0; p < N; p++) {
        double mean = 0.0, sq = 0.0;
        for (size_t c = 0; c < C; c++) {
            mean += X[p * C + c];
            sq += (double)X[p * C + c] * X[p * C + c];
        }
        if (sq == 0.0)
            continue;
        mean /= (double)C;
        sum += mean * mean * (double)C / sq;
        rows++;
    }
    return rows ? sum / (double)rows : 0.0;
}

int pe_similarity(double **S, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C,
                  size_t NH, size_t N, Err *e) {
    *S = NULL;
    float *P = NULL, *X = NULL;
    int rc = pe_table(&P, plan, pc, seed, C, NH, N, e);
    if (!rc && !(*S = xmalloc(N * N * sizeof **S, "the similarity matrix", e)))
        rc = ERR_RUNTIME;
    if (!rc && pe_in_attention(plan->scheme)) {
        rc = attention_logits(*S, plan, pc, seed, N, e);
    } else if (!rc) {
        if ((X = xmalloc(N * C * sizeof *X, "the position rows", e))) {
            pe_embed(X, P, plan, C, N);
            position_similarity(*S, X, N, C);
        } else {
            rc = ERR_RUNTIME;
        }
    }
    if (rc) {
        free(*S);
        *S = NULL;
    }
    free(P);
    free(X);
    return rc;
}

/* The measurements on S = X X^T (N positions). */
static int measure_similarity(PeProps *o, const float *X, size_t N, size_t C, Err *e) {
    double *S = xmalloc(N * N * sizeof *S, "the similarity matrix", e);
    if (!S)
        return ERR_RUNTIME;
    position_similarity(S, X, N, C);
    similarity_measures(o, S, N);
    o->norm_first = sqrt(S[0]);
    o->norm_last = sqrt(S[(N - 1) * N + N - 1]);
    free(S);
    return 0;
}

int pe_properties(PeProps *o, const PeConfig *pc, uint64_t seed, size_t C, size_t NH, size_t N,
                  size_t far, Err *e) {
    memset(o, 0, sizeof *o);
    if (N < 2 || N > ANALYSIS_MAX_POSITIONS)
        return err_set(e, ERR_INPUT, "the properties need 2 to %d positions, not %zu",
                       ANALYSIS_MAX_POSITIONS, N);
    PePlan plan;
    float *P = NULL, *P2 = NULL, *Ps = NULL, *P4 = NULL, *X = NULL;
    int rc = pe_table(&P, &plan, pc, seed, C, NH, N, e);
    if (rc)
        return rc;
    size_t w = plan.w;
    o->scheme = plan.scheme;
    o->combine = plan.combine;
    o->w = w, o->C = C, o->N = N, o->far = far;
    o->in_attention = pe_in_attention(plan.scheme);
    if (o->in_attention) {
        rc = attention_properties(o, &plan, pc, seed, N, far, e);
        goto criteria;
    }
    if ((rc = pe_table(&P2, &plan, pc, seed, C, NH, 2 * N, e)) ||
        (rc = pe_table(&Ps, &plan, pc, seed + 1, C, NH, N, e)))
        goto done;
    o->defined_past = plan.max_positions == SIZE_MAX;
    if (o->defined_past && (rc = pe_table(&P4, &plan, pc, seed, C, NH, 4 * N, e)))
        goto done;
    if (!(X = xmalloc(N * C * sizeof *X, "the position rows", e))) {
        rc = ERR_RUNTIME;
        goto done;
    }
    pe_embed(X, P, &plan, C, N);
    if ((rc = measure_similarity(o, X, N, C, e)))
        goto done;

    size_t a, b, first = pe_find(pc->name)->first_position;
    o->uniqueness = uniqueness(&a, &b, X, N, C);
    o->closest_a = a + first;
    o->closest_b = b + first;
    o->max_abs = max_abs(P, N * w);
    o->length_inconsistency = max_diff(P, P2, N * w);
    o->seed_sensitivity = max_diff(P, Ps, N * w);
    if (o->defined_past) {
        double m4 = max_abs(P4, 4 * N * w);
        o->growth = o->max_abs > 0.0 ? m4 / o->max_abs : 1.0;
        o->range_excursion = excursion(P, P4, N, 4 * N, w);
    } else {
        o->growth = o->range_excursion = NAN;
    }
    o->shift_residual = 0.0;
    for (size_t k = 1; k <= SHIFT_MAX_K; k++) {
        err_clear(e);
        double r = shift_residual(P, N, w, k, e);
        if (e && e->code) {
            rc = e->code;
            goto done;
        }
        if (isnan(r)) {
            o->shift_residual = NAN;
            break;
        }
        o->shift_residual = fmax(o->shift_residual, r);
    }
    o->layernorm_erasure = layernorm_erasure(X, N, C);
    size_t count = far < 1024 ? far : 1024;
    o->float32_error = float32_error(pc, w, far - count, count, far);
criteria:
    o->unique = o->uniqueness >= CRIT_UNIQUE_MIN;
    o->consistent = o->length_inconsistency <= CRIT_CONSISTENT_MAX;
    o->bounded = o->defined_past && o->growth <= CRIT_GROWTH_MAX;
    o->deterministic = o->seed_sensitivity <= CRIT_SEED_MAX;
done:
    free(P);
    free(P2);
    free(Ps);
    free(P4);
    free(X);
    return rc;
}
