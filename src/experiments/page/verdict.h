/* The rules that turn the page's numbers into verdicts, as functions of
 * numbers so that a test can feed each rule fixed ones (issue 27):
 *
 * 1. The gate: a pair of schemes is compared on a task and band only
 *    where they are not both at the ceiling, not both at the floor (the
 *    no-position model's score on the results page's toy tasks, the
 *    task's chance on the benchmark's), and, past the trained lengths,
 *    where both learned those.
 * 2. The family: the tests behind one claim, or one ranking, are corrected
 *    together (Holm for a claim, Benjamini-Hochberg for a ranking).
 * 3. The comparison: ahead or behind when the corrected U test rejects,
 *    equivalent when the corrected equivalence test does, else not told
 *    apart.
 * 4. The claim: from the comparisons on its tasks, agrees, disagrees,
 *    cannot tell (a null result, always) or cannot be tested here.
 *
 * The statistics themselves are in src/stats/stats.h. */
#ifndef POSENC_EXP_VERDICT_H
#define POSENC_EXP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#define VERDICT_ALPHA 0.05       /* a corrected p below this rejects */
#define VERDICT_MARGIN 0.02      /* accuracies closer than this are alike */
#define VERDICT_CEILING 0.99     /* both at or above: nothing to tell apart */
#define VERDICT_FLOOR_ABOVE 0.05 /* both at or below floor + this: neither learned */

/* One pair of schemes on one task and band: the gate's verdicts first,
 * then the comparison's (from V_AHEAD on: verdict_claim counts those as
 * tested). order.c has a Verdict of its own, hence the longer name. */
typedef enum {
    V_TESTABLE,       /* the gate lets the pair be compared */
    V_CEILING,        /* both at or above the ceiling */
    V_FLOOR,          /* both at or below the floor + VERDICT_FLOOR_ABOVE */
    V_UNLEARNED,      /* past L, and one did not learn the trained lengths */
    V_NO_RUNS,        /* a mean is NaN: a run is missing or undefined */
    V_AHEAD,          /* the first differs from the second, above it */
    V_BEHIND,         /* ... below it */
    V_EQUIVALENT,     /* shown alike within the margin */
    V_NOT_TOLD_APART, /* neither shown different nor shown alike */
} PairVerdict;

/* The template that words a PairVerdict (templates/verdicts.md, prose.h):
 * "pair.ahead", "pair.untold", "pair.ceiling" ("both at the ceiling"),
 * and so on. */
const char *pair_verdict_name(PairVerdict v);

/* The gate for a pair with means (over seeds) mean_a and mean_b on a task
 * and band: V_NO_RUNS when either is NaN; V_UNLEARNED when the band is
 * past L and either did not learn the trained lengths (learned_a,
 * learned_b: the caller's reading, e.g. the trained band's mean >=
 * EXP_SOLVED); V_CEILING when both are at or above ceiling
 * (VERDICT_CEILING); V_FLOOR when both are at or below floor_mean +
 * VERDICT_FLOOR_ABOVE (floor_mean: what a model that learned nothing
 * scores on that task and band, the no-position model's mean on the
 * results page, the chance floor on the benchmark's; NaN when unknown,
 * and then no floor gate); else
 * V_TESTABLE. Unlearned is asked first: past L, a scheme that never
 * learned the task says nothing about extending it, whatever its numbers
 * there. One at the ceiling and the other below it is testable: that is
 * a difference. */
PairVerdict verdict_gate(double mean_a, double mean_b, double floor_mean, double ceiling,
                         bool past_L, bool learned_a, bool learned_b);

/* The comparison of a testable pair from its family's corrected p's:
 * shift is the estimate of a - b (hodges_lehmann's, or the difference of
 * the means), p_adj the corrected two-sided U test's p, tost_adj the
 * corrected equivalence test's p (within VERDICT_MARGIN). V_EQUIVALENT
 * when tost_adj < alpha, even if p_adj < alpha too (a real difference
 * smaller than the margin the page declares to matter is no support for
 * "better"); else V_AHEAD or V_BEHIND by the sign of shift when p_adj <
 * alpha; else V_NOT_TOLD_APART (also for a NaN p or a shift of 0). */
PairVerdict verdict_compare(double shift, double p_adj, double tost_adj, double alpha);

/* A claim "X better than Y" over its tasks and bands. */
typedef enum {
    CLAIM_AGREES,    /* ahead on at least one testable task, behind on none */
    CLAIM_DISAGREES, /* behind on more than ahead, or equivalent on every testable one */
    CLAIM_CANNOT_TELL,
    CLAIM_UNTESTABLE, /* no task passed the gate */
} ClaimVerdict;

/* The claim's verdict from the PairVerdicts (X as a, Y as b) of its n
 * tasks and bands, gated ones included (they count as not testable). A
 * null result (every testable one not told apart, or as often ahead as
 * behind) is CLAIM_CANNOT_TELL. */
ClaimVerdict verdict_claim(const PairVerdict *v, size_t n);

/* "agrees", "disagrees", "cannot tell", "cannot be tested here". */
const char *claim_words(ClaimVerdict c);

/* ---- the family ---- */

typedef enum { CORRECT_HOLM, CORRECT_BH } Correction;

/* One pair's raw and corrected p's: the two-sided U test (mann_whitney_p)
 * and the equivalence test (tost_p). */
typedef struct {
    double p, tost;         /* raw */
    double p_adj, tost_adj; /* after family_adjust; NaN before */
} FamilyTest;

/* The tests of one claim (Holm) or one ranking (BH). Add only the pairs
 * the gate lets through: a gated pair is not tested. A NaN p (a ranking
 * that asks no equivalence, say) is left out of the family. Both tests of every
 * pair, 2n hypotheses, are corrected as one family: of a pair's two nulls
 * (no difference; a difference of the margin or more) at most one is
 * true, so at most n of the 2n are, and Holm over the 2n keeps the chance
 * of any false "ahead", "behind" or "equivalent" at alpha; Holm over each
 * kind apart would allow up to 2 alpha. */
typedef struct {
    Correction how;
    FamilyTest *t;
    size_t n, cap;
    bool failed; /* a test could not be stored (out of memory) */
} TestFamily;

void family_init(TestFamily *f, Correction how);
void family_free(TestFamily *f);
/* Adds a pair's raw p's; returns its index in f->t, or (size_t)-1 with
 * f->failed set when memory ran out. */
size_t family_add(TestFamily *f, double p, double tost);
/* Fills every p_adj and tost_adj. Returns 0, or -1 (f->failed set, the
 * adjusted p's NaN) when memory ran out or a test was lost before. */
int family_adjust(TestFamily *f);

/* Everything the page states for a pair of seed sets a (na) and b (nb):
 * the raw p's a family takes, the Hodges-Lehmann shift and interval, and
 * Cliff's delta. Returns 0, or -1 (NaN where undefined) when a set is
 * empty, a value NaN, or memory ran out. */
typedef struct {
    double p, tost;       /* two-sided U test; equivalence within margin */
    double shift, lo, hi; /* a - b, with its interval (hl_coverage) */
    double delta;         /* Cliff's delta */
} PairTest;

int pair_test(PairTest *t, const double *a, size_t na, const double *b, size_t nb, double margin);

#endif
