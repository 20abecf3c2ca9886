/* The properties of a position scheme (docs/properties.md), measured on
 * the code itself, without a model.
 *
 * Positions are the rows 0..N-1 of the code of an N-token sentence. For an
 * input scheme the measurements use X (N,C), what the scheme puts into
 * the model's input: the code P (N,w) tiled across the C channels under
 * add, or in the last w channels with zeros before them under concat.
 * S = X X^T is the position-only similarity, S[p][q] = <X_p, X_q>. For an
 * attention scheme S is the part of the attention logit the two positions
 * decide (analysis_attn.c), and a position's row of S stands for its code.
 * Sums run in double over the float32 tables, which are what a model sees. */
#ifndef POSENC_ANALYSIS_H
#define POSENC_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "pe.h"

/* The notes' four ideal criteria, read off the numbers with these
 * thresholds (docs/properties.md explains each). */
#define CRIT_UNIQUE_MIN 1e-3     /* uniqueness at least this */
#define CRIT_CONSISTENT_MAX 1e-6 /* length inconsistency at most this */
#define CRIT_GROWTH_MAX 1.01     /* defined past N, and growth at most this */
#define CRIT_SEED_MAX 0.0        /* seed sensitivity at most this: no dependence on a seed */

/* Largest N the report measures: S is N x N doubles. */
#define ANALYSIS_MAX_POSITIONS 2048

/* Shifts k = 1..SHIFT_MAX_K for the linear-shift residual. */
#define SHIFT_MAX_K 10

/* RoPE's logits are those of a fixed query and key drawn from this seed. */
#define ANALYSIS_QK_SEED 1

/* P (T,w), allocated (free it): the code of positions 0..T-1 of a T-token
 * sentence under pc at model width C with NH heads, with the plan that
 * shaped it. A learned table has T rows drawn from seed, as a fresh model
 * would draw them. Fails with ERR_INPUT when pc does not fit C and NH. */
int pe_table(float **P, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C, size_t NH,
             size_t T, Err *e);

/* S (N,N) of an attention scheme (plan from pe_plan): the part of head
 * 0's logit that positions p (query) and q (key) decide. */
int attention_logits(double *S, const PePlan *plan, const PeConfig *pc, uint64_t seed, size_t N,
                     Err *e);

/* S (N,N) of any scheme, allocated (free it): X X^T for an input scheme,
 * attention_logits for an attention scheme. */
int pe_similarity(double **S, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C,
                  size_t NH, size_t N, Err *e);

/* X (T,C) = zeros with P (T,w) combined into them by the plan. */
void pe_embed(float *X, const float *P, const PePlan *plan, size_t C, size_t T);

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

/* min over M of ||P_{k..N-1} - M P_{0..N-1-k}||_F / ||P_{k..N-1}||_F, by
 * least squares (M is w x w), for P (N,w). NaN when N - k < 2w: with fewer
 * positions than twice the unknowns per row, a fit is too easy to mean
 * anything. 0 when P is zero. */
double shift_residual(const float *P, size_t N, size_t w, size_t k, Err *e);

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

/* Measures pc at width C with NH heads over N positions
 * (2..ANALYSIS_MAX_POSITIONS); far is where the float32 error is taken
 * (e.g. 1000000). */
int pe_properties(PeProps *out, const PeConfig *pc, uint64_t seed, size_t C, size_t NH, size_t N,
                  size_t far, Err *e);

/* The measures of S alone (translation invariance, symmetry, reflection,
 * monotone radius), into o. */
void similarity_measures(PeProps *o, const double *S, size_t N);

/* pe_properties for an attention scheme (analysis_attn.c). */
int attention_properties(PeProps *o, const PePlan *plan, const PeConfig *pc, uint64_t seed,
                         size_t N, size_t far, Err *e);

#endif
