/* The properties of a position scheme (docs/properties.md), measured on
 * the code itself, without a model.
 *
 * Positions are the rows 0..N-1 of the code of an N-token sentence. For an
 * input scheme the measurements use X (N,C), what the scheme puts into
 * the model's input: the code P (N,w) tiled across the C channels under
 * add, or in the last w channels with zeros before them under concat.
 * S = X X^T is the position-only similarity, S[p][q] = <X_p, X_q>. For an
 * attention scheme S is the part of the attention logit the two positions
 * decide (analysis_attn.h), and a position's row of S stands for its code.
 * The files below it, which this header includes: analysis_attn.h (the
 * attention schemes' S and measures), analysis_measures.h (the measures
 * of S and X, and the record PeProps); calls and includes point down.
 * Sums run in double over the float32 tables, which are what a model sees. */
#ifndef POSENC_ANALYSIS_H
#define POSENC_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "analysis_attn.h"
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

/* P (T,w), allocated (free it): the code of positions 0..T-1 of a T-token
 * sentence under pc at model width C with NH heads, with the plan that
 * shaped it. A learned table has T rows drawn from seed, as a fresh model
 * would draw them. Fails with ERR_INPUT when pc does not fit C and NH. */
int pe_table(float **P, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C, size_t NH,
             size_t T, Err *e);

/* S (N,N) of any scheme, allocated (free it): X X^T for an input scheme,
 * attention_logits for an attention scheme. */
int pe_similarity(double **S, PePlan *plan, const PeConfig *pc, uint64_t seed, size_t C,
                  size_t NH, size_t N, Err *e);

/* X (T,C) = zeros with P (T,w) combined into them by the plan. */
void pe_embed(float *X, const float *P, const PePlan *plan, size_t C, size_t T);

/* min over M of ||P_{k..N-1} - M P_{0..N-1-k}||_F / ||P_{k..N-1}||_F, by
 * least squares (M is w x w), for P (N,w). NaN when N - k < 2w: with fewer
 * positions than twice the unknowns per row, a fit is too easy to mean
 * anything. 0 when P is zero. */
double shift_residual(const float *P, size_t N, size_t w, size_t k, Err *e);

/* Measures pc at width C with NH heads over N positions
 * (2..ANALYSIS_MAX_POSITIONS); far is where the float32 error is taken
 * (e.g. 1000000). */
int pe_properties(PeProps *out, const PeConfig *pc, uint64_t seed, size_t C, size_t NH, size_t N,
                  size_t far, Err *e);

#endif
