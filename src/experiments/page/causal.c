/* Sections 7 and 8 of the page, the causal mask: the length runs with the
 * mask on the tasks a causal reader can do, each scheme and none without
 * the mask as the control (Haviv et al. 2022, Kazemnejad et al. 2023);
 * and the probe of position, layer by layer, in models with no position,
 * with and without the mask. */
#include <math.h>

#include "sections.h"
#include "tables.h"

void exp_causal_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L;
    Band bands[3];
    exp_bands(r, bands);
    buf_printf(b, "## 7. The causal mask\n\nThe protocol of section 3 with `--causal`: word i "
               "attends to words 0..i only, as in a decoder. Two tasks a causal reader can do: "
               "`previous` (section 3's) and `first` (each digit's label is the first digit "
               "of the sentence: it needs the start, which no position and no mask cannot "
               "find). `%s` is none trained without the mask, the control: what the mask "
               "alone gives (`results/causal.csv`). Chance on both is about 0.10 (ten "
               "digits).\n\n", EXP_NO_MASK);
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++) {
        const char *task = exp_causal_tasks[t];
        buf_printf(b, "### %s, causal\n\n", task);
        exp_band_header(b, bands, "scheme");
        Stat st[EXP_CAUSAL_SCHEMES + 1][3];
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++) {
            const char *name = s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK;
            buf_printf(b, "| %s |", name);
            for (int k = 0; k < 3; k++) {
                st[s][k] = exp_stat(r, EXP_CAUSAL, task, name, exp_band_value, &bands[k]);
                exp_cell_range(b, st[s][k]);
            }
            buf_printf(b, "\n");
        }
        /* Haviv et al.: the mask alone teaches position */
        Stat nm = st[EXP_CAUSAL_SCHEMES][0], nc = st[0][0];
        bool learns = !isnan(nm.mean) && !isnan(nc.mean) && exp_p(nc, nm) < EXP_P_REAL &&
                      nc.mean > nm.mean;
        buf_printf(b, "\nOn the trained lengths none with the mask reaches %.2f, without it "
                   "%.2f (", nc.mean, nm.mean);
        exp_test_text(b, nc, nm);
        buf_printf(b, "): Haviv et al. (2022) find that a causal model with no position "
                   "learns position; on %s this run %s. ", task,
                   learns ? "agrees" : "does not show it");
        /* Kazemnejad et al.: NoPE generalizes best; by the rule of
         * section 3, none is best when no scheme is ahead of it by the test */
        for (size_t k = 1; k < 3; k++) {
            Buf ahead = {0};
            size_t n_ahead = 0;
            for (size_t s = 1; s < EXP_CAUSAL_SCHEMES; s++)
                if (!isnan(st[s][k].mean) && !isnan(st[0][k].mean) &&
                    st[s][k].mean > st[0][k].mean && exp_p(st[s][k], st[0][k]) < EXP_P_REAL)
                    buf_printf(&ahead, "%s%s (%.2f)", n_ahead++ ? ", " : "",
                               exp_causal_schemes[s], st[s][k].mean);
            buf_printf(b, "On %zu..%zu none (%.2f) is %s%.*s%s. ", bands[k].lo, bands[k].hi,
                       st[0][k].mean, n_ahead ? "behind " : "behind no scheme",
                       TEXT(ahead), "");
            buf_free(&ahead);
        }
        Stat far0 = st[0][1];
        bool best = true;
        for (size_t s = 1; s < EXP_CAUSAL_SCHEMES; s++)
            best = best && !(st[s][1].mean > far0.mean && exp_p(st[s][1], far0) < EXP_P_REAL);
        buf_printf(b, "Kazemnejad et al. (2023) find no position generalizing best to longer "
                   "inputs; judged on %zu..%zu (no scheme ahead of none by the test), this run "
                   "%s on %s.\n\n", L + 1, 2 * L, best ? "agrees" : "does not agree", task);
    }
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
    bool agrees = exp_p(last[0], last[1]) < EXP_P_REAL && last[0].mean > last[1].mean;
    buf_printf(b, "\nAt the last layer, R^2 %.2f with the mask against %.2f without (", last[0].mean,
               last[1].mean);
    exp_test_text(b, last[0], last[1]);
    buf_printf(b, "). Haviv et al. (2022) probe causal language models without positional "
               "encodings and read the position back from their layers: this run %s. Without "
               "the mask a word's row is the same wherever the word stands (section 1): a map "
               "can read only what the sentence's words and length say of the position.\n",
               agrees ? "agrees" : "does not agree");
}
