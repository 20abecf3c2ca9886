/* RoPE's long-term decay (RoFormer, Su et al. 2021, section 3.4.3), for
 * pe_plot --kind decay and docs/04-relative.md.
 *
 * Read each pair of a head's channels as one complex number: the query's
 * pair i is q_i, the key's k_i, and RoPE turns pair i at position m by
 * e^{i m theta_i}, theta_i = base^(-2i/d). The logit of a query at m and a
 * key at n is then Re[sum_i q_i conj(k_i) e^{i (m-n) theta_i}], a sum over
 * the d/2 pairs that depends on the offset r = m - n alone. Summation by
 * parts bounds its size by (max_i |h_{i+1} - h_i|) sum_{j=1}^{d/2} |S_j|,
 * with h_i = q_i conj(k_i) and the partial sums S_j = sum_{k<j} e^{i r
 * theta_k}; the paper draws (1/(d/2)) sum_j |S_j| against r (its figure
 * 2), which starts at (d/2 + 1)/2 for r = 0 and falls, with ripples, as r
 * grows: far tokens can weigh less. It is a bound, not the logit: a
 * trained model's queries and keys decide what it does. */
#ifndef POSENC_ANALYSIS_ROPE_H
#define POSENC_ANALYSIS_ROPE_H

#include <stddef.h>

#include "../core/err.h"

/* out[r] = (1/(d/2)) sum_{j=1}^{d/2} |S_j| at offset r, for r = 0..n-1, a
 * head of head_size channels (even, 2 or more) and base (above 1). In
 * double precision. ERR_INPUT for an odd head or a base of 1 or less. */
int rope_decay_bound(double *out, size_t n, size_t head_size, double base, Err *e);
/* The same at one offset r, unchecked (head_size even, base above 1). */
double rope_decay_at(size_t r, size_t head_size, double base);

#endif
