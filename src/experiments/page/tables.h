/* What the page's tables and verdicts share (tables.c): the bands of
 * lengths, a band table's header and cells, the rows of one per scheme,
 * and the test between two sets of seeds with its wording. */
#ifndef POSENC_TABLES_H
#define POSENC_TABLES_H

#include <stddef.h>

#include "../../core/buf.h"
#include "prose.h"
#include "results.h"
#include "verdict.h"

#define EXP_SOLVED 0.95  /* an accuracy this high solves a task */
#define EXP_LEARNED 0.90 /* a scheme learned the trained lengths at this or more */

/* The rules every verdict of a page follows, stated once (verdict.h):
 * the paragraph both pages open their verdicts with. floor names the
 * template that says what a page's floor is: the no-position model's
 * score (the results page's toy tasks, where it sits at chance) or the
 * chance floor (the benchmark's, where it does not). at_N, when not 0,
 * is the length at which a page reads "learned" (the benchmark's: the
 * mean over seeds at N, exp_bench_at_N); 0 for the mean over the trained
 * lengths (the results page's). The U test's method is named as it ran:
 * exact up to MW_EXACT_MAX values in all. */
void exp_rules(Buf *b, size_t seeds, const char *floor, size_t at_N);
/* A page's title (the template's name) and, on a quick grid's page, the
 * quick head that says so (page: "results" or "benchmark", the real page
 * it points to). */
void exp_page_head(Buf *b, const ExpSettings *s, const char *title, const char *page);

/* The three bands of every length table: trained (min_len..L), up to 2L,
 * up to 4L. */
void exp_bands(const ExpResults *r, Band *b);
/* "| first | 4..8 (trained) | 9..16 | 17..32 |" and its rule line. */
void exp_band_header(Buf *b, const Band *bands, const char *first);
/* n zeroed items of size bytes for a table's rows (one per scheme: as
 * many as the grid has, never a fixed most); NULL when out of memory,
 * which marks b failed as its own allocations do, so that exp_write
 * reports the page as not written. */
void *exp_table_alloc(Buf *b, size_t n, size_t size);
/* " mean ± SD [lowest, highest] |": a table cell, "n/a" when undefined. */
void exp_cell_range(Buf *b, Stat s);
/* ---- a comparison of two sets of seeds, as the page states it ----
 *
 * The rules are verdict.h's: a pair passes the gate or is not tested; the
 * tests of the pairs that pass go into their family (a claim's, corrected
 * by Holm; a ranking's, by Benjamini-Hochberg); once the family is
 * corrected, each pair is ahead, behind, equivalent or not told apart. */
typedef struct {
    Stat a, b;
    PairTest t;
    PairVerdict gate; /* V_TESTABLE, or why the pair is not compared */
    size_t at;        /* its index in its family (when the gate let it through) */
    double p_adj, tost_adj;
    PairVerdict v;    /* the gate's verdict, or after exp_cmp_decide the comparison's */
} Cmp;

/* The gate for a and b: floor, what learning nothing scores on that task
 * and band (verdict_gate; NaN: no floor gate); past_L, a band past the trained lengths,
 * where both must have learned those (learned_a and learned_b: their
 * means there, EXP_LEARNED or more). */
PairVerdict exp_gate(Stat a, Stat b, double floor, bool past_L, double learned_a,
                     double learned_b);
/* Tests a against b when gate is V_TESTABLE, adding them to f. */
void exp_cmp(Cmp *c, Stat a, Stat b, PairVerdict gate, TestFamily *f);
/* The comparison's verdict, once f is corrected (family_adjust). */
void exp_cmp_decide(Cmp *c, const TestFamily *f);
/* "0.70 against 0.54, +0.16 [+0.02, +0.30], p = 0.008 (Holm 0.040),
 * Cliff's delta +0.84 (large): ahead", or for a pair the gate stopped
 * "0.99 against 1.00: both at the ceiling". */
void exp_cmp_text(Buf *b, const Cmp *c, const TestFamily *f);
/* Corrects f, decides the n comparisons of c that fill it, and returns
 * the verdict of the claim they test (the first of each pair against the
 * second). */
ClaimVerdict exp_claim_decide(Cmp *c, size_t n, TestFamily *f);
/* p as the page prints it: three decimals, or two digits below 0.001
 * ("1.1e-05"), where three decimals would say 0.000. */
void exp_p_text(Buf *b, double p);
/* A small tolerance as a rule states it, one digit and its power of ten
 * without padding: "1e-9" (printf's %.0e writes "1e-09"). */
void exp_tiny_text(Buf *b, double x);
/* The template that words a claim's verdict (templates/verdicts.md):
 * "claim.agrees" ("this run agrees"), ..., "claim.untestable" ("it
 * cannot be tested here"). */
const char *exp_claim_name(ClaimVerdict v);
/* The correction's name in the text: "Holm" or "BH". */
const char *exp_correction_name(const TestFamily *f);
/* A fragment of the page built apart (a table's rows, a list, for a
 * template's value) is done: its failure is the page's, and it is
 * freed. */
void exp_part_done(Buf *b, Buf *part);
/* A Buf's bytes for "%.*s" (a Buf holds no terminating NUL). */
#define TEXT(buf) (buf).failed ? 0 : (int)(buf).n, (buf).p ? (const char *)(buf).p : ""

#endif
