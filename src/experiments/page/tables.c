/* What the page's tables and verdicts share: the bands of lengths, a band
 * table's header and cells, the rows of one per scheme, and the test
 * between two sets of seeds with its wording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tables.h"
#include "stats.h"

void exp_bands(const ExpResults *r, Band *b) {
    size_t L = r->set.L;
    b[0] = (Band){r->set.min_len, L};
    b[1] = (Band){L + 1, 2 * L};
    b[2] = (Band){2 * L + 1, 4 * L};
}

void exp_band_header(Buf *b, const Band *bands, const char *first) {
    buf_printf(b, "| %s | %zu..%zu (trained) | %zu..%zu | %zu..%zu |\n| --- | ---: | ---: | ---: |\n",
               first, bands[0].lo, bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo,
               bands[2].hi);
}

void *exp_table_alloc(Buf *b, size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        b->failed = true;
    return p;
}

void exp_cell_range(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f ± %.4f [%.3f, %.3f] |", s.mean, s.sd, s.lo, s.hi);
}

PairVerdict exp_gate(Stat a, Stat b, double floor, bool past_L, double learned_a,
                     double learned_b) {
    return verdict_gate(a.mean, b.mean, floor, VERDICT_CEILING, past_L,
                        learned_a >= EXP_LEARNED, learned_b >= EXP_LEARNED);
}

void exp_cmp(Cmp *c, Stat a, Stat b, PairVerdict gate, TestFamily *f) {
    *c = (Cmp){.a = a, .b = b, .gate = gate, .v = gate, .p_adj = NAN, .tost_adj = NAN};
    if (gate != V_TESTABLE)
        return;
    pair_test(&c->t, a.v, a.n, b.v, b.n, VERDICT_MARGIN);
    c->at = family_add(f, c->t.p, c->t.tost);
}

void exp_cmp_decide(Cmp *c, const TestFamily *f) {
    if (c->gate != V_TESTABLE)
        return;
    if (c->at < f->n && !f->failed)
        c->p_adj = f->t[c->at].p_adj, c->tost_adj = f->t[c->at].tost_adj;
    c->v = verdict_compare(c->t.shift, c->p_adj, c->tost_adj, VERDICT_ALPHA);
}

const char *exp_claim_text(ClaimVerdict v) {
    switch (v) {
    case CLAIM_AGREES:
        return "this run agrees";
    case CLAIM_DISAGREES:
        return "this run disagrees";
    case CLAIM_CANNOT_TELL:
        return "this run cannot tell";
    case CLAIM_UNTESTABLE:
        break;
    }
    return "it cannot be tested here";
}

const char *exp_correction_name(const TestFamily *f) {
    return f->how == CORRECT_HOLM ? "Holm" : "BH";
}

ClaimVerdict exp_claim_decide(Cmp *c, size_t n, TestFamily *f) {
    PairVerdict *v = exp_page_alloc(n, sizeof *v);
    family_adjust(f);
    for (size_t i = 0; i < n; i++) {
        exp_cmp_decide(&c[i], f);
        if (v)
            v[i] = c[i].v;
    }
    /* without memory for the list, no pair counts: nothing is claimed */
    ClaimVerdict cv = v ? verdict_claim(v, n) : CLAIM_CANNOT_TELL;
    free(v);
    return cv;
}

void exp_p_text(Buf *b, double p) {
    buf_printf(b, p < 0.001 ? "%.1e" : "%.3f", p);
}

void exp_cmp_text(Buf *b, const Cmp *c, const TestFamily *f) {
    buf_printf(b, "%.2f against %.2f", c->a.mean, c->b.mean);
    if (c->gate != V_TESTABLE) {
        buf_printf(b, ": %s", pair_verdict_words(c->gate));
        return;
    }
    buf_printf(b, ", %+.2f [%+.2f, %+.2f], p = ", c->t.shift, c->t.lo, c->t.hi);
    exp_p_text(b, c->t.p);
    buf_printf(b, " (%s ", exp_correction_name(f));
    exp_p_text(b, c->p_adj);
    buf_printf(b, "), Cliff's delta %+.2f (%s): %s", c->t.delta, cliffs_size(c->t.delta),
               pair_verdict_words(c->v));
}

const char *exp_words(size_t n) {
    static const char *const WORDS[] = {"no",    "one",  "two", "three", "four", "five",
                                        "six",   "seven", "eight", "nine", "ten"};
    static char digits[24];
    if (n < sizeof WORDS / sizeof *WORDS)
        return WORDS[n];
    snprintf(digits, sizeof digits, "%zu", n);
    return digits;
}
