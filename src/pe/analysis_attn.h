/* The schemes inside attention measured without a model
 * (analysis_attn.c): S is the part of head 0's logit that two positions
 * decide, and the report's measures are taken of it. Below analysis.h,
 * which dispatches here; above analysis_measures.h. */
#ifndef POSENC_ANALYSIS_ATTN_H
#define POSENC_ANALYSIS_ATTN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "analysis_measures.h"
#include "pe.h"

/* RoPE's logits are those of a fixed query and key drawn from this seed. */
#define ANALYSIS_QK_SEED 1

/* That query and key, q and k (HS each): normal draws from
 * ANALYSIS_QK_SEED, the query's first. */
void attention_probe_qk(float *q, float *k, size_t HS);

/* S (N,N) of an attention scheme (plan from pe_plan): the part of head
 * 0's logit that positions p (query) and q (key) decide. */
int attention_logits(double *S, const PePlan *plan, const PeConfig *pc, uint64_t seed, size_t N,
                     Err *e);

/* pe_properties for an attention scheme (analysis_attn.c). */
int attention_properties(PeProps *o, const PePlan *plan, const PeConfig *pc, uint64_t seed,
                         size_t N, size_t far, Err *e);

#endif
