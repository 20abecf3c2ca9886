/* The measures of a similarity matrix S and of rows X (analysis_measures.h). */
#include "analysis_measures.h"

#include <math.h>

void position_similarity(double *S, const float *X, size_t N, size_t C) {
    /* X is (N,C), S is (N,N) */
    for (size_t p = 0; p < N; p++)
        for (size_t q = p; q < N; q++) {
            double s = 0.0;
            for (size_t c = 0; c < C; c++)
                s += (double)X[p * C + c] * X[q * C + c];
            S[p * N + q] = S[q * N + p] = s;
        }
}

/* Population standard deviation of n values at stride. */
static double stddev(const double *v, size_t n, size_t stride) {
    double mean = 0.0, var = 0.0;
    for (size_t i = 0; i < n; i++)
        mean += v[i * stride];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (v[i * stride] - mean) * (v[i * stride] - mean);
    return sqrt(var / (double)n);
}

double translation_invariance(const double *S, size_t N) {
    /* S is (N,N); the diagonal k runs through S[p][p+k], stride N+1 */
    double all = stddev(S, N * N, 1);
    if (N < 2 || all == 0.0)
        return 0.0;
    double sum = 0.0;
    for (size_t k = 0; k + 1 < N; k++)
        sum += stddev(S + k, N - k, N + 1);
    return sum / (double)(N - 1) / all;
}

static double frobenius_ratio(const double *S, size_t N, bool reflect) {
    double num = 0.0, den = 0.0;
    for (size_t p = 0; p < N; p++)
        for (size_t q = 0; q < N; q++) {
            double o = reflect ? S[(N - 1 - p) * N + (N - 1 - q)] : S[q * N + p];
            num += (S[p * N + q] - o) * (S[p * N + q] - o);
            den += S[p * N + q] * S[p * N + q];
        }
    return den > 0.0 ? sqrt(num / den) : 0.0;
}

double symmetry_error(const double *S, size_t N) { return frobenius_ratio(S, N, false); }

double reflection_error(const double *S, size_t N) { return frobenius_ratio(S, N, true); }

/* mean over p < H of S[p][p+k]: the same positions for every k, so that a
 * diagonal is not made smaller just by losing its largest entries. */
static double diagonal_mean(const double *S, size_t N, size_t H, size_t k) {
    double s = 0.0;
    for (size_t p = 0; p < H; p++)
        s += S[p * N + p + k];
    return s / (double)H;
}

size_t monotone_radius(const double *S, size_t N) {
    size_t H = N / 2, K = N - H;
    double prev = diagonal_mean(S, N, H, 0);
    for (size_t k = 1; k <= K; k++) {
        double m = diagonal_mean(S, N, H, k);
        if (m >= prev)
            return k;
        prev = m;
    }
    return K;
}

double uniqueness(size_t *a, size_t *b, const float *X, size_t N, size_t C) {
    /* X is (N,C) */
    double mean_norm = 0.0, best = INFINITY;
    *a = 0;
    *b = N > 1 ? 1 : 0;
    for (size_t p = 0; p < N; p++) {
        double s = 0.0;
        for (size_t c = 0; c < C; c++)
            s += (double)X[p * C + c] * X[p * C + c];
        mean_norm += sqrt(s);
    }
    mean_norm /= (double)N;
    if (mean_norm == 0.0)
        return 0.0;
    for (size_t p = 0; p < N; p++)
        for (size_t q = p + 1; q < N; q++) {
            double s = 0.0;
            for (size_t c = 0; c < C; c++) {
                double d = (double)X[p * C + c] - X[q * C + c];
                s += d * d;
            }
            if (s < best) {
                best = s;
                *a = p;
                *b = q;
            }
        }
    return sqrt(best) / mean_norm;
}

void similarity_measures(PeProps *o, const double *S, size_t N) {
    o->translation_invariance = translation_invariance(S, N);
    o->symmetry = symmetry_error(S, N);
    o->reflection = reflection_error(S, N);
    o->monotone_radius = monotone_radius(S, N);
}

double float32_error(const PeConfig *pc, size_t w, size_t first, size_t count, size_t n) {
    const PeScheme *s = pe_find(pc->name);
    if (w == 0)
        return 0.0; /* no code, nothing to get wrong */
    if (!s || !s->value)
        return NAN;
    double worst = 0.0;
    for (size_t t = first; t < first + count; t++)
        for (size_t c = 0; c < w; c++)
            worst = fmax(worst, fabs((double)s->value_f32(pc, w, t, c, n) -
                                     s->value(pc, w, t, c, n)));
    return worst;
}
