/* Section 6 of the page, past the training length: rope's models under
 * each of rope's scalings, with and without fine-tuning, and the papers'
 * claims, each judged on the three tasks by the page's rules. */
#include <math.h>
#include <stdio.h>

#include "sections.h"
#include "tables.h"

/* One claim "a beats b past L" on every task, one family (Holm): a task
 * is tested where the unscaled model fails past L (below the ceiling:
 * else there is nothing to extend), through the page's gate (the floor:
 * section 3's none; both read from a model that learned the trained
 * lengths). */
static void claim(Buf *b, const ExpResults *r, const char *who, const char *says, const char *a,
                  const char *bn) {
    Band bands[3];
    exp_bands(r, bands);
    Cmp c[EXP_LENGTH_TASKS];
    bool nothing[EXP_LENGTH_TASKS] = {false};
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        Stat x = exp_stat(r, EXP_SCALING, task, a, exp_band_value, &bands[1]);
        Stat y = exp_stat(r, EXP_SCALING, task, bn, exp_band_value, &bands[1]);
        Stat plain = exp_stat(r, EXP_SCALING, task, exp_floor_scheme, exp_band_value, &bands[1]);
        Stat trained = exp_stat(r, EXP_SCALING, task, exp_floor_scheme, exp_band_value, &bands[0]);
        Stat floor = exp_stat(r, EXP_LENGTHS, task, exp_floor_scheme, exp_band_value, &bands[1]);
        PairVerdict gate = exp_gate(x, y, floor.mean, true, trained.mean, trained.mean);
        if (gate == V_TESTABLE && plain.mean >= VERDICT_CEILING)
            gate = V_CEILING, nothing[t] = true;
        exp_cmp(&c[t], x, y, gate, &f);
    }
    ClaimVerdict cv = exp_claim_decide(c, EXP_LENGTH_TASKS, &f);
    buf_printf(b, "- %s: %s. On %zu..%zu, %s against %s (", who, says, bands[1].lo,
               bands[1].hi, a, bn);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        buf_printf(b, "%s%s ", t ? "; " : "", exp_length_tasks[t]);
        if (nothing[t])
            buf_printf(b, "%.2f against %.2f: nothing to extend, the unscaled model reads "
                       "past L", c[t].a.mean, c[t].b.mean);
        else
            exp_cmp_text(b, &c[t], &f);
    }
    buf_printf(b, "): %s.\n", exp_claim_text(cv));
    family_free(&f);
}

void exp_scaling_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L;
    Band bands[3];
    exp_bands(r, bands);
    /* pair 0 turns r = L / 2pi times over L; YaRN's ramp (eq. 18) keeps (r - 1) / 31 of it */
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
    buf_printf(b, "The papers' claims, each judged on %zu..%zu by the page's rules, one family "
               "(Holm) per claim, on the tasks where the unscaled model fails past L (on a "
               "task it reads at %.2f or more there, a scaling has nothing to extend).\n\n",
               bands[1].lo, bands[1].hi, VERDICT_CEILING);
    claim(b, r, "Chen et al. (2023)", "fine-tuned with interpolation, a model reads the longer "
          "window better than one fine-tuned without it (their direct fine-tuning, sections "
          "3.2 and 3.3, which they ran ten times as many steps; here both run the same)",
          "linear-x2-tuned", "none-tuned");
    claim(b, r, "The NTK-aware scaling", "without fine-tuning, it reads past L better than "
          "interpolation, which crowds the fast pairs (bloc97 2023, as Peng et al. 2023, "
          "section 3.1, report it)", "ntk-x2", "linear-x2");
    claim(b, r, "Peng et al. (2023)", "YaRN surpasses the earlier scalings without "
          "fine-tuning as with it (section 3.4); their measurement without fine-tuning is of "
          "Dynamic-YaRN, whose S follows the current length at inference (section 3.3, "
          "appendix B.3, against Dynamic-PI), and here a static S = 2 is read against ntk",
          "yarn-x2", "ntk-x2");
    claim(b, r, "Peng et al. (2023), again", "without fine-tuning, Dynamic-YaRN extends a "
          "model past its trained length, more than twice (section 1); here a static S = 2 is "
          "read against the unscaled model", "yarn-x2", "none");
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
