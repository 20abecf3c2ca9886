/* A query and a key at two positions, then both moved along by the same
 * shift: the score q.k a scheme gives them before and after, for the web
 * page's section 4 and pe_report --shift.
 *
 * One head of HS channels. The content of the query and of the key is a
 * fixed pair of vectors q0 and k0, drawn as for RoPE's logits in the
 * analysis (attention_probe_qk: the same for every scheme and seed). A
 * scheme that turns q and k (RoPE) turns them by their positions; a scheme
 * that adds a code to the input adds its code of HS channels to each, as
 * if W_q and W_k were the identity: q = q0 + P(m), k = k0 + P(n). The
 * scheme's own functions do it, in float as the model does; the sums are
 * in double. A rotation keeps the angle between q and k when both move by
 * the same shift, so RoPE's score is unchanged (to float rounding); an
 * added code moves the query and the key against their content, so the
 * sinusoid's score changes. */
#ifndef POSENC_ANALYSIS_SHIFT_H
#define POSENC_ANALYSIS_SHIFT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "pe.h"

/* Positions and shifts up to this: far past any sentence, near where
 * float32 loses the angle. */
#define SHIFT_MAX_POSITION 100000000

/* What the shift does to one head, and to one pair of its channels. Index
 * [0] is before the shift (query at m, key at n), [1] after it (m + s,
 * n + s). */
typedef struct {
    size_t HS, m, n, s;
    size_t pair, ca, cb;    /* the pair shown, and its two channels */
    double q0[2], k0[2];    /* the pair's part of the content, before any position */
    double q[2][2], k[2][2];/* the pair's part of the query and the key, (x, y) */
    double part[2];         /* the pair's part of the score: q_ca k_ca + q_cb k_cb, / sqrt(HS) */
    double score[2];        /* q.k / sqrt(HS) over the whole head */
} PeShift;

/* True for a scheme pe_shift takes: one whose pair i turns at the
 * frequency base^(-2i/HS) (it reads --base) and that turns q and k by it
 * (RoPE) or adds its code, computed from a formula (the sinusoid). */
bool pe_shift_takes(const PeScheme *s);

/* The shift for scheme pc in a head of HS channels (even, 2 or more),
 * query at m, key at n, both moved by s, showing pair `pair` (below
 * HS/2; its channels as the scheme's layout pairs them: 2i and 2i+1, or i
 * and i + HS/2). ERR_INPUT for a scheme it does not take, a bad size or
 * position, or options the scheme refuses for such a head. */
int pe_shift(PeShift *out, const PeConfig *pc, size_t HS, size_t m, size_t n, size_t s,
             size_t pair, Err *e);

#endif
