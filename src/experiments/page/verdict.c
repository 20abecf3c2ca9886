#include "verdict.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../stats/stats.h"
#include "errors.h"

const char *pair_verdict_name(PairVerdict v) {
    static const char *const names[] = {
        [V_TESTABLE] = "pair.testable",
        [V_CEILING] = "pair.ceiling",
        [V_FLOOR] = "pair.floor",
        [V_UNLEARNED] = "pair.unlearned",
        [V_NO_RUNS] = "pair.no_runs",
        [V_AHEAD] = "pair.ahead",
        [V_BEHIND] = "pair.behind",
        [V_EQUIVALENT] = "pair.equivalent",
        [V_NOT_TOLD_APART] = "pair.untold",
    };
    /* no template has this name: the filler stops the page, naming it */
    return (size_t)v < sizeof names / sizeof *names ? names[v] : "pair.unknown";
}

PairVerdict verdict_gate(double mean_a, double mean_b, double floor_mean, double ceiling,
                         bool past_L, bool learned_a, bool learned_b) {
    if (isnan(mean_a) || isnan(mean_b))
        return V_NO_RUNS;
    if (past_L && !(learned_a && learned_b))
        return V_UNLEARNED;
    if (mean_a >= ceiling && mean_b >= ceiling)
        return V_CEILING;
    /* a NaN floor compares false: no floor gate */
    if (mean_a <= floor_mean + VERDICT_FLOOR_ABOVE && mean_b <= floor_mean + VERDICT_FLOOR_ABOVE)
        return V_FLOOR;
    return V_TESTABLE;
}

PairVerdict verdict_compare(double shift, double p_adj, double tost_adj, double alpha) {
    if (tost_adj < alpha)
        return V_EQUIVALENT;
    if (p_adj < alpha && shift != 0.0 && !isnan(shift))
        return shift > 0.0 ? V_AHEAD : V_BEHIND;
    return V_NOT_TOLD_APART;
}

ClaimVerdict verdict_claim(const PairVerdict *v, size_t n) {
    size_t testable = 0, ahead = 0, behind = 0, alike = 0;
    for (size_t i = 0; i < n; i++) {
        testable += v[i] >= V_AHEAD;
        ahead += v[i] == V_AHEAD;
        behind += v[i] == V_BEHIND;
        alike += v[i] == V_EQUIVALENT;
    }
    if (!testable)
        return CLAIM_UNTESTABLE;
    if (ahead && !behind)
        return CLAIM_AGREES;
    if (behind > ahead || alike == testable)
        return CLAIM_DISAGREES;
    return CLAIM_CANNOT_TELL;
}

const char *claim_words(ClaimVerdict c) {
    static const char *const words[] = {
        [CLAIM_AGREES] = "agrees",
        [CLAIM_DISAGREES] = "disagrees",
        [CLAIM_CANNOT_TELL] = "cannot tell",
        [CLAIM_UNTESTABLE] = "cannot be tested here",
    };
    return (size_t)c < sizeof words / sizeof *words ? words[c] : "?";
}

/* ---- the family ---- */

void family_init(TestFamily *f, Correction how) { *f = (TestFamily){.how = how}; }

void family_free(TestFamily *f) {
    free(f->t);
    *f = (TestFamily){.how = f->how};
}

size_t family_add(TestFamily *f, double p, double tost) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        FamilyTest *t = cap < SIZE_MAX / sizeof *t ? exp_page_realloc(f->t, cap * sizeof *t)
                                                  : NULL;
        if (!t) {
            f->failed = true;
            return (size_t)-1;
        }
        f->t = t, f->cap = cap;
    }
    f->t[f->n] = (FamilyTest){p, tost, NAN, NAN};
    return f->n++;
}

int family_adjust(TestFamily *f) {
    size_t n = f->n;
    double *all = f->failed ? NULL : exp_page_alloc(2 * n, sizeof *all);
    int rc = -1;
    if (all) {
        for (size_t i = 0; i < n; i++)
            all[i] = f->t[i].p, all[n + i] = f->t[i].tost;
        rc = (f->how == CORRECT_HOLM ? holm_adjust : bh_adjust)(all, 2 * n, all);
    }
    for (size_t i = 0; i < n; i++) {
        f->t[i].p_adj = rc ? NAN : all[i];
        f->t[i].tost_adj = rc ? NAN : all[n + i];
    }
    free(all);
    f->failed = f->failed || rc;
    return rc;
}

int pair_test(PairTest *t, const double *a, size_t na, const double *b, size_t nb, double margin) {
    t->p = mann_whitney_p(a, na, b, nb);
    t->tost = tost_p(a, na, b, nb, margin);
    t->delta = cliffs_delta(a, na, b, nb);
    int rc = hodges_lehmann(a, na, b, nb, &t->shift, &t->lo, &t->hi);
    return rc || isnan(t->p) || isnan(t->tost) ? -1 : 0;
}
