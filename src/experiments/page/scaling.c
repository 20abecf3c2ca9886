/* Sections 6 to 8 of docs/results.md, past the training length: rope's
 * scalings with and without fine-tuning, the causal mask with each scheme
 * and with none, and the probe of position in causal models without any.
 * Each closes with verdicts against the papers, by the U test on seeds
 * (exp_p), as the sections before. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sections.h"

/* The three bands of every length table: trained, up to 2L, up to 4L. */
static void bands_of(const ExpResults *r, Band *b) {
    size_t L = r->set.L;
    b[0] = (Band){r->set.min_len, L};
    b[1] = (Band){L + 1, 2 * L};
    b[2] = (Band){2 * L + 1, 4 * L};
}

static void band_header(Buf *b, const Band *bands, const char *first) {
    buf_printf(b, "| %s | %zu..%zu (trained) | %zu..%zu | %zu..%zu |\n| --- | ---: | ---: | ---: |\n",
               first, bands[0].lo, bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo,
               bands[2].hi);
}

/* a against b on band k, by the U test: +1 a is ahead, -1 behind, 0 the
 * seeds cannot tell; the numbers and the test go to why. */
static int compare(Buf *why, const ExpResults *r, ExpKind kind, const char *task,
                   const char *a, const char *b, const Band *band) {
    Stat x = exp_stat(r, kind, task, a, exp_band_value, band);
    Stat y = exp_stat(r, kind, task, b, exp_band_value, band);
    if (isnan(x.mean) || isnan(y.mean)) {
        buf_printf(why, "%s: n/a", task);
        return 0;
    }
    bool differ = exp_p(x, y) < EXP_P_REAL;
    buf_printf(why, "%s %.2f against %.2f, ", task, x.mean, y.mean);
    exp_test_text(why, x, y);
    return !differ ? 0 : x.mean > y.mean ? 1 : -1;
}

/* One claim "a beats b on band" judged on every task: agrees when a is
 * ahead on more tasks than it is behind and never behind. */
static void claim(Buf *b, const ExpResults *r, const char *who, const char *says, const char *a,
                  const char *bn, size_t band_k) {
    Band bands[3];
    bands_of(r, bands);
    Buf why = {0};
    int ahead = 0, behind = 0;
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        if (t)
            buf_printf(&why, "; ");
        int c = compare(&why, r, EXP_SCALING, exp_length_tasks[t], a, bn, &bands[band_k]);
        ahead += c > 0, behind += c < 0;
    }
    buf_printf(b, "- %s: %s. On %zu..%zu, %s against %s is ahead on %d task%s and behind on "
               "%d (%.*s): this run %s.\n", who, says, bands[band_k].lo, bands[band_k].hi, a, bn,
               ahead, ahead == 1 ? "" : "s", behind, TEXT(why),
               ahead > 0 && behind == 0 ? "agrees" : behind > ahead ? "disagrees"
                                                                    : "does not tell");
    buf_free(&why);
}

void exp_scaling_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L;
    Band bands[3];
    bands_of(r, bands);
    buf_printf(b, "## 6. Past the training length: stretching rope\n\nSection 3's rope models "
               "(the same seeds, so the same models: the rows `none` below are its rope rows) "
               "read under each of rope's scalings (`--rope-scaling`, with Hugging Face's "
               "frequencies): `linear` divides every frequency by S (position interpolation, "
               "Chen et al. 2023), `ntk` raises the base to base S^(d/(d-2)) (the NTK-aware "
               "scaling), `yarn` interpolates only the pairs that turn less than once over L "
               "= %zu and scales q.k by (0.1 ln S + 1)^2 (Peng et al. 2023). Each is tested "
               "as it is, no weight changed, and after a fine-tuning of %zu steps (%.0f%% of "
               "the %zu of training; Chen et al. fine-tune LLaMA for 1000) at lengths %zu..%zu "
               "under that scaling, from the trained model with a new optimizer; `none-tuned` "
               "is the same fine-tuning without a scaling, the control. Accuracy per token as "
               "in section 3 (`results/scaling.csv`); a head here has %zu channels, %zu "
               "pairs.\n\n",
               L, r->set.tune_steps, 100.0 * (double)r->set.tune_steps /
               (double)r->set.length_steps, r->set.length_steps, r->set.min_len, 2 * L,
               r->set.d_model / r->set.heads, r->set.d_model / r->set.heads / 2);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        buf_printf(b, "### %s\n\n", task);
        band_header(b, bands, "scaling");
        for (int tuned = 0; tuned < 2; tuned++)
            for (size_t v = 0; v < EXP_SCALINGS; v++) {
                char name[48];
                snprintf(name, sizeof name, "%s%s", exp_scaling_names[v], tuned ? "-tuned" : "");
                buf_printf(b, "| %s |", name);
                for (int k = 0; k < 3; k++)
                    exp_cell_range(b, exp_stat(r, EXP_SCALING, task, name, exp_band_value,
                                               &bands[k]));
                buf_printf(b, "\n");
            }
        buf_printf(b, "\n");
    }
    buf_printf(b, "The papers' claims, each judged on the three tasks by the U test on the "
               "seeds (p < %.2f): this run agrees with a claim when the scaling it favours is "
               "ahead on one task or more and behind on none, disagrees when it is behind on "
               "more tasks than it is ahead, and otherwise cannot tell.\n\n", EXP_P_REAL);
    claim(b, r, "Chen et al. (2023)", "fine-tuned with interpolation, a model reads the longer "
          "window better than fine-tuned without it (their direct extrapolation)",
          "linear-x2-tuned", "none-tuned", 1);
    claim(b, r, "The NTK-aware scaling", "without fine-tuning, it reads past L better than "
          "interpolation, which crowds the fast pairs", "ntk-x2", "linear-x2", 1);
    claim(b, r, "Peng et al. (2023)", "without fine-tuning, YaRN reads past L better than "
          "the NTK-aware scaling", "yarn-x2", "ntk-x2", 1);
    claim(b, r, "Peng et al. (2023), again", "without fine-tuning, YaRN extends a model past "
          "its trained length", "yarn-x2", "none", 1);
    buf_printf(b, "\nThe papers measure the perplexity of language models of billions of "
               "parameters trained on thousands of positions, whose heads have 64 pairs; "
               "these models have %zu pairs per head and L = %zu: yarn keeps the one pair that "
               "turns a full circle within L and interpolates the others, which makes it "
               "linear with a temperature here, and ntk moves the slow pairs, which turn less "
               "than once, and not the fast one, which is what `previous` reads "
               "([page 7](07-long-context.md) draws the wavelengths).\n\n",
               r->set.d_model / r->set.heads / 2, L);
}

void exp_causal_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L;
    Band bands[3];
    bands_of(r, bands);
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
        band_header(b, bands, "scheme");
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
