/* ALiBi's helpers (pe_alibi.c), beside its scheme: its slopes, for the
 * export's config.json, the report and the tests. */
#ifndef POSENC_PE_ALIBI_H
#define POSENC_PE_ALIBI_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* ALiBi's form: slopes the same to the left and to the right of the
 * query, or different (see alibi_slope_side); or Ruoss et al.'s encoder
 * form, one slope and the keys to the left m_h/2 closer (see pe_alibi.c). */
typedef enum { ALIBI_SYMMETRIC = 0, ALIBI_ASYMMETRIC = 1, ALIBI_RUOSS = 2 } AlibiSlopes;

/* ALiBi's slope m_h of head h (0-based) of NH: Press et al.'s geometric
 * sequence 2^(-8(h+1)/NH) for a power of two; otherwise the slopes of the
 * largest power of two below NH, then every other slope of twice that. */
double alibi_slope(size_t h, size_t NH);
/* The slope head h of NH applies to keys on one side of the query: m_h on
 * both sides when symmetric (and in the ruoss form); when asymmetric, m_h to the left (the paper's
 * causal bias) and to the right the slope of the head at the other end of
 * the list, m_(NH-1-h), so that every head but the middle one of an odd
 * NH weighs the two sides differently and a sentence differs from its
 * reverse. */
double alibi_slope_side(const PeConfig *pc, size_t h, size_t NH, bool right);
/* What head h of NH adds to the score of a query and a key d apart, the
 * key to the query's right or not (its left, or the query itself). */
double alibi_bias(const PeConfig *pc, size_t h, size_t NH, double d, bool right);
/* pc's --alibi-slopes. */
AlibiSlopes alibi_slopes_of(const PeConfig *pc);

#endif
