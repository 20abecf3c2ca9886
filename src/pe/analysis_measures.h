/* The measures of a position similarity S (N,N) and of a code's rows X
 * (N,C), and the record of a scheme's properties they fill (PeProps): what
 * analysis.c measures for the input schemes and analysis_attn.c for the
 * schemes inside attention. Plain arithmetic on arrays, in double. */
#ifndef POSENC_ANALYSIS_MEASURES_H
#define POSENC_ANALYSIS_MEASURES_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* S (N,N) = X X^T for X (N,C). */
void position_similarity(double *S, const float *X, size_t N, size_t C);

/* mean over k = 0..N-2 of std_p S[p][p+k], over std of all of S: 0 when S
 * depends on q - p only (Toeplitz). 0 for a constant S. */
double translation_invariance(const double *S, size_t N);

/* ||S - S^T||_F / ||S||_F; 0 for S = 0. */
double symmetry_error(const double *S, size_t N);

/* ||S - J S J||_F / ||S||_F, J reversing positions; 0 for S = 0. */
double reflection_error(const double *S, size_t N);

/* The first k >= 1 where m(k) = mean over p < N/2 of S[p][p+k] stops
 * falling, m(k) >= m(k-1); N - N/2 if it falls over the whole range. */
size_t monotone_radius(const double *S, size_t N);

/* min over p != q of ||X_p - X_q|| / mean_p ||X_p||, with the closest pair
 * (rows, a < b) in *a and *b; 0 when every row is zero. X is (N,C). */
double uniqueness(size_t *a, size_t *b, const float *X, size_t N, size_t C);

/* max |P32 - P64| over positions first..first+count-1 of a sentence of n
 * tokens, where P32 is computed in float32 arithmetic (the position and
 * the angle in float, as PyTorch's recipe does) and P64 in double: the
 * scheme's value_f32 against its value. NaN for a scheme without a
 * formula (learned); 0 for one without a code (none). */
double float32_error(const PeConfig *pc, size_t w, size_t first, size_t count, size_t n);

/* Everything the report shows for one scheme. */
typedef struct {
    const PeScheme *scheme;
    Combine combine;
    size_t w, C, N;
    bool in_attention;             /* S is the logit's position part, not X X^T */
    size_t heads, head_size;       /* of the model an attention scheme was measured in */
    double uniqueness;             /* min distance / mean norm */
    size_t closest_a, closest_b;   /* that pair, numbered as the scheme numbers positions */
    double max_abs;                /* max |P| over positions < N */
    double norm_first, norm_last;  /* ||X_p|| at the first and last position */
    double growth;                 /* max |P| up to 4N over max |P| up to N; NaN if undefined */
    double length_inconsistency;   /* max |P_p(length N) - P_p(length 2N)| */
    double seed_sensitivity;       /* max |P(seed) - P(seed+1)| */
    bool defined_past;             /* P exists for positions >= N without new parameters */
    double range_excursion;        /* how far positions N..4N-1 (of a 4N sentence) leave each
                                    * channel's range at length N */
    double translation_invariance;
    double symmetry;
    size_t monotone_radius;
    double shift_residual;         /* max over k = 1..SHIFT_MAX_K; NaN if N too small */
    double reflection;
    double layernorm_erasure;      /* mean_p mean(X_p)^2 C / ||X_p||^2 over nonzero rows */
    double float32_error;          /* at positions far-1024..far-1, float arithmetic */
    size_t far;
    bool unique, consistent, bounded, deterministic; /* the notes' criteria */
} PeProps;

/* The measures of S alone (translation invariance, symmetry, reflection,
 * monotone radius), into o. */
void similarity_measures(PeProps *o, const double *S, size_t N);

#endif
