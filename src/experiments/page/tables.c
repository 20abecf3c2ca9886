/* What the page's tables and verdicts share: the bands of lengths, a band
 * table's header and cells, the rows of one per scheme, and the test
 * between two sets of seeds with its wording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../stats/stats.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

void exp_bands(const ExpResults *r, Band *b) {
    size_t L = r->set.L;
    b[0] = (Band){r->set.min_len, L};
    b[1] = (Band){L + 1, 2 * L};
    b[2] = (Band){2 * L + 1, 4 * L};
}

void exp_band_header(Buf *b, const Band *bands, const char *first) {
    PROSE(b, "bands.header", pv_text("first", first), pv_count("lo0", bands[0].lo),
          pv_count("hi0", bands[0].hi), pv_count("lo1", bands[1].lo),
          pv_count("hi1", bands[1].hi), pv_count("lo2", bands[2].lo),
          pv_count("hi2", bands[2].hi));
    buf_printf(b, "\n");
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

const char *exp_claim_name(ClaimVerdict v) {
    switch (v) {
    case CLAIM_AGREES:
        return "claim.agrees";
    case CLAIM_DISAGREES:
        return "claim.disagrees";
    case CLAIM_CANNOT_TELL:
        return "claim.cannot_tell";
    case CLAIM_UNTESTABLE:
        break;
    }
    return "claim.untestable";
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
    if (p < 0.001)
        buf_printf(b, "%.1e", exp_half_away(p, 'e', 1));
    else
        exp_fixed(b, p, 3, false);
}

void exp_tiny_text(Buf *b, double x) {
    char s[32];
    snprintf(s, sizeof s, "%.0e", x);
    char *e = strchr(s, 'e');
    size_t at = e ? (size_t)(e - s) + 1 : 0; /* past "e" */
    if (e && (s[at] == '-' || s[at] == '+'))
        at++;
    while (e && s[at] == '0' && s[at + 1] >= '0' && s[at + 1] <= '9')
        memmove(s + at, s + at + 1, strlen(s + at));
    buf_printf(b, "%s", s);
}

void exp_cmp_text(Buf *b, const Cmp *c, const TestFamily *f) {
    if (c->gate != V_TESTABLE) {
        PROSE(b, "cmp.gated", pv_real("a", c->a.mean), pv_real("b", c->b.mean),
              pv_tmpl("gate", pair_verdict_name(c->gate)));
        return;
    }
    /* p's format depends on its size (exp_p_text): a fragment each */
    Buf p = {0}, p_adj = {0};
    exp_p_text(&p, c->t.p);
    exp_p_text(&p_adj, c->p_adj);
    PROSE(b, "cmp.tested", pv_real("a", c->a.mean), pv_real("b", c->b.mean),
          pv_real("shift", c->t.shift), pv_real("lo", c->t.lo), pv_real("hi", c->t.hi),
          pv_buf("p", &p), pv_text("correction", exp_correction_name(f)),
          pv_buf("p_adj", &p_adj), pv_real("delta", c->t.delta),
          pv_text("size", cliffs_size(c->t.delta)),
          pv_tmpl("verdict", pair_verdict_name(c->v)));
    exp_part_done(b, &p);
    exp_part_done(b, &p_adj);
}

void exp_part_done(Buf *b, Buf *part) {
    b->failed |= part->failed;
    buf_free(part);
}
