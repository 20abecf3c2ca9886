/* Sections 7 and 8 of the page, the causal mask: the length runs with the
 * mask on the tasks a causal reader can do, each scheme and none without
 * the mask as the control (Haviv et al. 2022, Kazemnejad et al. 2023);
 * and the probe of position, layer by layer, in models with no position,
 * with and without the mask. */
#include <math.h>
#include <string.h>

#include "prose.h"
#include "sections.h"
#include "tables.h"

/* The causal runs of every task, scheme (none first; the last, none
 * without the mask) and band. */
typedef Stat CausalStats[EXP_CAUSAL_TASKS][EXP_CAUSAL_SCHEMES + 1][3];

/* Chance on the causal tasks (ten digits): their floor, since none with
 * the mask is no floor there (it learns position). */
#define CAUSAL_CHANCE 0.10

static size_t causal_index(const char *name) {
    for (size_t s = 0; s < EXP_CAUSAL_SCHEMES; s++)
        if (strcmp(exp_causal_schemes[s], name) == 0)
            return s;
    return EXP_CAUSAL_SCHEMES;
}

/* Haviv et al.: the mask alone teaches position. None with the mask
 * against none without, on the trained lengths of each task. */
static void haviv_says(Buf *b, CausalStats st) {
    Cmp c[EXP_CAUSAL_TASKS];
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        exp_cmp(&c[t], st[t][0][0], st[t][EXP_CAUSAL_SCHEMES][0],
                exp_gate(st[t][0][0], st[t][EXP_CAUSAL_SCHEMES][0], NAN, false, 1.0, 1.0), &f);
    ClaimVerdict v = exp_claim_decide(c, EXP_CAUSAL_TASKS, &f);
    Buf pairs = {0};
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++) {
        buf_printf(&pairs, "%s%s ", t ? "; " : "", exp_causal_tasks[t]);
        exp_cmp_text(&pairs, &c[t], &f);
    }
    PROSE(b, "causal.haviv", pv_buf("pairs", &pairs), pv_tmpl("verdict", exp_claim_name(v)));
    buf_printf(b, "\n\n");
    exp_part_done(b, &pairs);
    family_free(&f);
}

/* Press et al. in their regime: alibi against the sinusoid past L with the
 * mask, on every task and both bands past L. */
static void press_says(Buf *b, const ExpResults *r, CausalStats st) {
    Band bands[3];
    exp_bands(r, bands);
    size_t al = causal_index("alibi"), si = causal_index("sinusoidal");
    if (al == EXP_CAUSAL_SCHEMES || si == EXP_CAUSAL_SCHEMES)
        return;
    Cmp c[2 * EXP_CAUSAL_TASKS];
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    size_t n = 0;
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (int k = 1; k < 3; k++, n++)
            exp_cmp(&c[n], st[t][al][k], st[t][si][k],
                    exp_gate(st[t][al][k], st[t][si][k], CAUSAL_CHANCE, true, st[t][al][0].mean,
                             st[t][si][0].mean),
                    &f);
    ClaimVerdict v = exp_claim_decide(c, n, &f);
    Buf pairs = {0};
    for (size_t i = 0, t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (int k = 1; k < 3; k++, i++) {
            buf_printf(&pairs, "%s%s %zu..%zu ", i ? "; " : "", exp_causal_tasks[t], bands[k].lo,
                       bands[k].hi);
            exp_cmp_text(&pairs, &c[i], &f);
        }
    PROSE(b, "causal.press", pv_real("chance", CAUSAL_CHANCE), pv_real("learned", EXP_LEARNED),
          pv_buf("pairs", &pairs), pv_tmpl("verdict", exp_claim_name(v)));
    buf_printf(b, "\n\n");
    exp_part_done(b, &pairs);
    family_free(&f);
}

/* The rows of Kazemnejad et al.'s table: a scheme's pairs, each none's
 * lead with its interval, the corrected p and the verdict, or the gate's
 * verdict; no newline after the last. */
static void kazemnejad_rows(Buf *b, const Cmp *c) {
    for (size_t i = 0, s = 1; s < EXP_CAUSAL_SCHEMES; s++) {
        buf_printf(b, "%s| %s |", s > 1 ? "\n" : "", exp_causal_schemes[s]);
        for (size_t j = 0; j < 2 * EXP_CAUSAL_TASKS; j++, i++) {
            buf_printf(b, " ");
            if (c[i].gate == V_TESTABLE) {
                buf_printf(b, "%+.2f [%+.2f, %+.2f], ", c[i].t.shift, c[i].t.lo, c[i].t.hi);
                exp_p_text(b, c[i].p_adj);
                buf_printf(b, ": ");
            }
            PROSE_TEXT(b, pair_verdict_name(c[i].v));
            buf_printf(b, " |");
        }
    }
}

/* Kazemnejad et al.: no position generalizes best. None against each
 * scheme past L with the mask, a table of the pairs' verdicts. */
static void kazemnejad_says(Buf *b, const ExpResults *r, CausalStats st) {
    Band bands[3];
    exp_bands(r, bands);
    enum { N = 2 * EXP_CAUSAL_TASKS * (EXP_CAUSAL_SCHEMES - 1) };
    Cmp c[N];
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    size_t n = 0;
    for (size_t s = 1; s < EXP_CAUSAL_SCHEMES; s++)
        for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
            for (int k = 1; k < 3; k++, n++)
                exp_cmp(&c[n], st[t][0][k], st[t][s][k],
                        exp_gate(st[t][0][k], st[t][s][k], CAUSAL_CHANCE, true,
                                 st[t][0][0].mean, st[t][s][0].mean),
                        &f);
    ClaimVerdict v = exp_claim_decide(c, n, &f);
    Buf columns = {0}, rules = {0}, rows = {0};
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (int k = 1; k < 3; k++) {
            buf_printf(&columns, " %s %zu..%zu |", exp_causal_tasks[t], bands[k].lo,
                       bands[k].hi);
            buf_printf(&rules, " --- |");
        }
    kazemnejad_rows(&rows, c);
    PROSE(b, "causal.kazemnejad", pv_count("n", n), pv_buf("columns", &columns),
          pv_buf("rules", &rules), pv_buf("rows", &rows), pv_tmpl("verdict", exp_claim_name(v)));
    buf_printf(b, "\n\n");
    exp_part_done(b, &columns), exp_part_done(b, &rules), exp_part_done(b, &rows);
    family_free(&f);
}

/* A table per task of every scheme with the mask and none without it,
 * their Stats kept in st; no newline after the last. */
static void causal_tables(Buf *b, const ExpResults *r, CausalStats st) {
    Band bands[3];
    exp_bands(r, bands);
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++) {
        const char *task = exp_causal_tasks[t];
        Buf table = {0};
        exp_band_header(&table, bands, "scheme");
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++) {
            const char *name = s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK;
            buf_printf(&table, "%s| %s |", s ? "\n" : "", name);
            for (int k = 0; k < 3; k++) {
                st[t][s][k] = exp_stat(r, EXP_CAUSAL, task, name, exp_band_value, &bands[k]);
                exp_cell_range(&table, st[t][s][k]);
            }
        }
        buf_printf(b, "%s", t ? "\n\n" : "");
        PROSE(b, "causal.table", pv_text("task", task), pv_buf("table", &table));
        exp_part_done(b, &table);
    }
}

void exp_causal_section(Buf *b, const ExpResults *r) {
    Stat st[EXP_CAUSAL_TASKS][EXP_CAUSAL_SCHEMES + 1][3];
    Buf tables = {0};
    causal_tables(&tables, r, st);
    PROSE(b, "causal", pv_text("no_mask", EXP_NO_MASK), pv_buf("tables", &tables));
    buf_printf(b, "\n\n");
    exp_part_done(b, &tables);
    haviv_says(b, st);
    press_says(b, r, st);
    kazemnejad_says(b, r, st);
}

void exp_probe_section(Buf *b, const ExpResults *r) {
    size_t layers = r->set.probe_layers;
    Stat last[EXP_PROBES];
    Buf rows = {0}, cmp = {0};
    for (size_t l = 0; l <= layers; l++) {
        buf_printf(&rows, "%s| %zu |", l ? "\n" : "", l);
        for (size_t p = 0; p < EXP_PROBES; p++) {
            Band one = {l, l};
            Stat s = exp_stat(r, EXP_PROBE, "previous", exp_probe_names[p], exp_band_value, &one);
            exp_cell_range(&rows, s);
            if (l == layers)
                last[p] = s;
        }
    }
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    Cmp c;
    exp_cmp(&c, last[0], last[1], isnan(last[0].mean) || isnan(last[1].mean) ? V_NO_RUNS
                                                                             : V_TESTABLE, &f);
    ClaimVerdict cv = exp_claim_decide(&c, 1, &f);
    exp_cmp_text(&cmp, &c, &f);
    family_free(&f);
    PROSE(b, "probe", pv_count("layers", layers), pv_count("lo", r->set.min_len),
          pv_count("L", r->set.L), pv_count("steps", r->set.length_steps),
          pv_text("with", exp_probe_names[0]), pv_text("without", exp_probe_names[1]),
          pv_buf("rows", &rows), pv_buf("cmp", &cmp), pv_tmpl("verdict", exp_claim_name(cv)));
    buf_printf(b, "\n");
    exp_part_done(b, &rows), exp_part_done(b, &cmp);
}
