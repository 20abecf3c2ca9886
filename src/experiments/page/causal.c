/* Sections 7 and 8 of the page, the causal mask: the length runs with the
 * mask on the tasks a causal reader can do, each scheme and none without
 * the mask as the control (Haviv et al. 2022, Kazemnejad et al. 2023);
 * and the probe of position, layer by layer, in models with no position,
 * with and without the mask. */
#include <math.h>
#include <string.h>

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
    buf_printf(b, "Haviv et al. (2022) find that a causal model with no position learns "
               "position. Here: none with the mask against none without, on the trained "
               "lengths, one family (Holm) (");
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++) {
        buf_printf(b, "%s%s ", t ? "; " : "", exp_causal_tasks[t]);
        exp_cmp_text(b, &c[t], &f);
    }
    buf_printf(b, "): %s.\n\n", exp_claim_text(v));
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
    buf_printf(b, "Press et al. (2022) report that ALiBi extrapolates where the sinusoid does "
               "not, in causal language models (their Figure 1). In their regime, with the "
               "mask: alibi against the sinusoid past L, on each task and band, one family "
               "(Holm), the floor chance (%.2f), both having learned the trained lengths "
               "(%.2f or more) (", CAUSAL_CHANCE, EXP_LEARNED);
    for (size_t i = 0, t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (int k = 1; k < 3; k++, i++) {
            buf_printf(b, "%s%s %zu..%zu ", i ? "; " : "", exp_causal_tasks[t], bands[k].lo,
                       bands[k].hi);
            exp_cmp_text(b, &c[i], &f);
        }
    buf_printf(b, "): %s. Section 3 reads the same claim on the encoder.\n\n",
               exp_claim_text(v));
    family_free(&f);
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
    buf_printf(b, "Kazemnejad et al. (2023) find no position generalizing best to longer "
               "inputs, in decoders. Here, with the mask: none against each scheme past L, "
               "on each task and band, one family (Holm) of the %zu pairs below; a cell is "
               "none's lead over the scheme with its interval, the corrected p, and the "
               "pair's verdict.\n\n| none against |", n);
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (int k = 1; k < 3; k++)
            buf_printf(b, " %s %zu..%zu |", exp_causal_tasks[t], bands[k].lo, bands[k].hi);
    buf_printf(b, "\n| --- |");
    for (size_t i = 0; i < 2 * EXP_CAUSAL_TASKS; i++)
        buf_printf(b, " --- |");
    buf_printf(b, "\n");
    for (size_t i = 0, s = 1; s < EXP_CAUSAL_SCHEMES; s++) {
        buf_printf(b, "| %s |", exp_causal_schemes[s]);
        for (size_t j = 0; j < 2 * EXP_CAUSAL_TASKS; j++, i++) {
            if (c[i].gate != V_TESTABLE)
                buf_printf(b, " %s |", pair_verdict_words(c[i].v));
            else {
                buf_printf(b, " %+.2f [%+.2f, %+.2f], ", c[i].t.shift, c[i].t.lo, c[i].t.hi);
                exp_p_text(b, c[i].p_adj);
                buf_printf(b, ": %s |", pair_verdict_words(c[i].v));
            }
        }
        buf_printf(b, "\n");
    }
    buf_printf(b, "\nOn this table, %s (none ahead of a scheme in one pair or more and "
               "behind in none would agree).\n\n", exp_claim_text(v));
    family_free(&f);
}

void exp_causal_section(Buf *b, const ExpResults *r) {
    Band bands[3];
    exp_bands(r, bands);
    buf_printf(b, "## 7. The causal mask\n\nThe setup of section 3 with `--causal`: word i "
               "attends to words 0..i only, as in a decoder. Two tasks a causal reader can do: "
               "`previous` (section 3's) and `first` (each digit's label is the first digit "
               "of the sentence: it needs the start, which no position and no mask cannot "
               "find). `%s` is none trained without the mask, the control: what the mask "
               "alone gives (`results/causal.csv`). Chance on both is about 0.10 (ten "
               "digits).\n\n", EXP_NO_MASK);
    Stat st[EXP_CAUSAL_TASKS][EXP_CAUSAL_SCHEMES + 1][3];
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++) {
        const char *task = exp_causal_tasks[t];
        buf_printf(b, "### %s, causal\n\n", task);
        exp_band_header(b, bands, "scheme");
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++) {
            const char *name = s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK;
            buf_printf(b, "| %s |", name);
            for (int k = 0; k < 3; k++) {
                st[t][s][k] = exp_stat(r, EXP_CAUSAL, task, name, exp_band_value, &bands[k]);
                exp_cell_range(b, st[t][s][k]);
            }
            buf_printf(b, "\n");
        }
        buf_printf(b, "\n");
    }
    haviv_says(b, st);
    press_says(b, r, st);
    kazemnejad_says(b, r, st);
}

void exp_probe_section(Buf *b, const ExpResults *r) {
    size_t layers = r->set.probe_layers;
    buf_printf(b, "## 8. Where the mask puts position\n\nThe linear probe of "
               "[page 4](04-relative.md) on models with no position, with and without the "
               "mask: %zu layers (deeper than the grid's, so that position can build up), "
               "trained on `previous` at lengths %zu..%zu for %zu steps; a ridge map from a "
               "word's row to its position, fitted on the validation sentences and scored by "
               "R^2 on the test sentences (`results/probe.csv`). Row 0 is the input (the "
               "embeddings alone).\n\n| row | %s | %s |\n| --- | ---: | ---: |\n", layers,
               r->set.min_len, r->set.L, r->set.length_steps, exp_probe_names[0],
               exp_probe_names[1]);
    Stat last[EXP_PROBES];
    for (size_t l = 0; l <= layers; l++) {
        buf_printf(b, "| %zu |", l);
        for (size_t p = 0; p < EXP_PROBES; p++) {
            Band one = {l, l};
            Stat s = exp_stat(r, EXP_PROBE, "previous", exp_probe_names[p], exp_band_value, &one);
            exp_cell_range(b, s);
            if (l == layers)
                last[p] = s;
        }
        buf_printf(b, "\n");
    }
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    Cmp c;
    exp_cmp(&c, last[0], last[1], isnan(last[0].mean) || isnan(last[1].mean) ? V_NO_RUNS
                                                                             : V_TESTABLE, &f);
    ClaimVerdict cv = exp_claim_decide(&c, 1, &f);
    buf_printf(b, "\nAt the last layer, R^2 with the mask against without: ");
    exp_cmp_text(b, &c, &f);
    family_free(&f);
    buf_printf(b, ". Haviv et al. (2022) probe causal language models without positional "
               "encodings and read the position back from their layers: %s. Without "
               "the mask a word's row is the same wherever the word stands (section 1): a map "
               "can read only what the sentence's words and length say of the position.\n",
               exp_claim_text(cv));
}
