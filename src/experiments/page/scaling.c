/* Section 6 of the page, past the training length: rope's models under
 * each of rope's scalings, with and without fine-tuning, and the papers'
 * claims, each judged on the three tasks by the U test on seeds (exp_p),
 * as the sections before. */
#include <math.h>
#include <stdio.h>

#include "sections.h"
#include "tables.h"

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
    exp_bands(r, bands);
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
    exp_bands(r, bands);
    /* Pair 0 turns L / 2pi times over L (theta_0 = 1); the paper's ramp
     * (YaRN eq. 18, alpha 1, beta 32) keeps (r - 1) / 31 of its frequency. */
    double turns0 = (double)L / (2.0 * 3.14159265358979323846);
    double kept0 = fmin(fmax((turns0 - 1.0) / 31.0, 0.0), 1.0);
    buf_printf(b, "## 6. Past the training length: stretching rope\n\nSection 3's rope models "
               "(the same seeds, so the same models: the rows `none` below are its rope rows) "
               "read under each of rope's scalings (`--rope-scaling`, with the frequencies "
               "of Hugging Face transformers' modeling_rope_utils.py at commit 0044e3b3, "
               "whose static `ntk` type later versions dropped, keeping only the dynamic "
               "one): `linear` divides every frequency by S (position interpolation, Chen et "
               "al. 2023), `ntk` raises the base to base S^(d/(d-2)) (the NTK-aware scaling; "
               "Peng et al. 2023, eq. 16), `yarn` divides by S the pairs that turn less than "
               "once over L = %zu, keeps those that turn more than 32 times, ramps between, "
               "and scales q.k by (0.1 ln S + 1)^2 (Peng et al. 2023, section 3.4, eq. 22). "
               "Its ramp is Hugging Face's (`_compute_yarn_parameters`): linear in the pair's "
               "index between ends rounded to whole pairs (floor and ceil in "
               "`find_correction_range`), where the paper's (section 3.2, eq. 18) is linear "
               "in the turns. With %zu pairs the rounding decides pair 0, which turns %.2f "
               "times over L: Hugging Face's ramp keeps it as trained, the paper's would "
               "interpolate %.0f%% of it. Each is tested as it is, no weight changed, and "
               "after a fine-tuning of %zu steps (%.0f%% of the %zu of training) at lengths "
               "%zu..%zu under that scaling, from the trained model with a new optimizer; "
               "`none-tuned` is the same fine-tuning without a scaling, the control (Chen et "
               "al. fine-tune LLaMA for 1,000 steps with interpolation and 10,000 without, "
               "their section 3.1; here both get the same steps). Accuracy per token as in "
               "section 3 (`results/scaling.csv`); a head here has %zu channels, %zu "
               "pairs.\n\n",
               L, r->set.d_model / r->set.heads / 2, turns0, 100.0 * (1.0 - kept0),
               r->set.tune_steps, 100.0 * (double)r->set.tune_steps /
               (double)r->set.length_steps, r->set.length_steps, r->set.min_len, 2 * L,
               r->set.d_model / r->set.heads, r->set.d_model / r->set.heads / 2);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        buf_printf(b, "### %s\n\n", task);
        exp_band_header(b, bands, "scaling");
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
          "window better than one fine-tuned without it (their direct fine-tuning, sections "
          "3.2 and 3.3, which they ran ten times as many steps; here both run the same)",
          "linear-x2-tuned", "none-tuned", 1);
    claim(b, r, "The NTK-aware scaling", "without fine-tuning, it reads past L better than "
          "interpolation, which crowds the fast pairs (bloc97 2023, as Peng et al. 2023, "
          "section 3.1, report it)", "ntk-x2", "linear-x2", 1);
    claim(b, r, "Peng et al. (2023)", "YaRN surpasses the earlier scalings without "
          "fine-tuning as with it (section 3.4); their measurement without fine-tuning is of "
          "Dynamic-YaRN, whose S follows the current length at inference (section 3.3, "
          "appendix B.3, against Dynamic-PI), and here a static S = 2 is read against ntk",
          "yarn-x2", "ntk-x2", 1);
    claim(b, r, "Peng et al. (2023), again", "without fine-tuning, Dynamic-YaRN extends a "
          "model past its trained length, more than twice (section 1); here a static S = 2 is "
          "read against the unscaled model", "yarn-x2", "none", 1);
    buf_printf(b, "\nThe papers measure the perplexity of language models of billions of "
               "parameters trained on thousands of positions, whose heads have 64 pairs; "
               "these models have %zu pairs per head and L = %zu. Here yarn keeps pair 0, the "
               "fastest (%.2f turns over L), as trained, as ntk does, and "
               "divides the others by S, as linear does: it is not linear with a "
               "temperature, and on `previous`, which reads the fast pair, it is that pair "
               "that sets yarn apart from linear (the `previous` table: yarn-x2 against "
               "linear-x2). ntk moves the slow pairs, which turn less than once, and not the "
               "fast one ([page 7](07-long-context.md) draws the wavelengths).\n\n",
               r->set.d_model / r->set.heads / 2, L, turns0);
}
