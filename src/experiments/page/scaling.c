/* Section 6 of the page, past the training length: rope's models under
 * each of rope's scalings, with and without fine-tuning, and the papers'
 * claims, each judged on the three tasks by the page's rules. */
#include <math.h>
#include <stdio.h>

#include "prose.h"
#include "sections.h"
#include "tables.h"

/* One claim "a beats b past L" on every task, one family (Holm): a task
 * is tested where the unscaled model fails past L (below the ceiling:
 * else there is nothing to extend), through the page's gate (the floor:
 * section 3's none; both read from a model that learned the trained
 * lengths). says: the template of what the claim says. */
static void claim(Buf *b, const ExpResults *r, const char *says, const char *a, const char *bn) {
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
    Buf pairs = {0};
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        buf_printf(&pairs, "%s%s ", t ? "; " : "", exp_length_tasks[t]);
        if (nothing[t])
            PROSE(&pairs, "scaling.nothing", pv_real("a", c[t].a.mean),
                  pv_real("b", c[t].b.mean));
        else
            exp_cmp_text(&pairs, &c[t], &f);
    }
    PROSE(b, "scaling.claim", pv_tmpl("claim", says), pv_count("lo", bands[1].lo),
          pv_count("hi", bands[1].hi), pv_text("a", a), pv_text("b", bn),
          pv_buf("pairs", &pairs), pv_tmpl("verdict", exp_claim_name(cv)));
    exp_part_done(b, &pairs);
    family_free(&f);
}

/* A table per task of every scaling, as read and fine-tuned; no newline
 * after the last (the template places them). */
static void scaling_tables(Buf *b, const ExpResults *r, const Band *bands) {
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        buf_printf(b, "%s### %s\n\n", t ? "\n\n" : "", task);
        exp_band_header(b, bands, "scaling");
        size_t row = 0;
        for (int tuned = 0; tuned < 2; tuned++)
            for (size_t v = 0; v < EXP_SCALINGS; v++) {
                char name[48];
                snprintf(name, sizeof name, "%s%s", exp_scaling_names[v], tuned ? "-tuned" : "");
                buf_printf(b, "%s| %s |", row++ ? "\n" : "", name);
                for (int k = 0; k < 3; k++)
                    exp_cell_range(b, exp_stat(r, EXP_SCALING, task, name, exp_band_value,
                                               &bands[k]));
            }
    }
}

/* The papers' claims: what each says (its template), and the scalings
 * it sets against each other. */
static const char *const CLAIMS[4][3] = {
    {"scaling.chen", "linear-x2-tuned", "none-tuned"},
    {"scaling.ntk", "ntk-x2", "linear-x2"},
    {"scaling.yarn", "yarn-x2", "ntk-x2"},
    {"scaling.yarn_again", "yarn-x2", "none"},
};

void exp_scaling_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, channels = r->set.d_model / r->set.heads;
    Band bands[3];
    exp_bands(r, bands);
    /* pair 0 turns r = L / 2pi times over L; YaRN's ramp (eq. 18) keeps (r - 1) / 31 of it */
    double turns0 = (double)L / (2.0 * 3.14159265358979323846);
    double kept0 = fmin(fmax((turns0 - 1.0) / 31.0, 0.0), 1.0);
    Buf tables = {0}, claims = {0};
    scaling_tables(&tables, r, bands);
    for (size_t i = 0; i < sizeof CLAIMS / sizeof *CLAIMS; i++) {
        buf_printf(&claims, "%s", i ? "\n" : "");
        claim(&claims, r, CLAIMS[i][0], CLAIMS[i][1], CLAIMS[i][2]);
    }
    PROSE(b, "scaling", pv_count("L", L), pv_count("pairs", channels / 2),
          pv_real("turns", turns0), pv_real("interp", 100.0 * (1.0 - kept0)),
          pv_count("tune_steps", r->set.tune_steps),
          pv_real("share", 100.0 * (double)r->set.tune_steps / (double)r->set.length_steps),
          pv_count("steps", r->set.length_steps), pv_count("lo", r->set.min_len),
          pv_count("top", 2 * L), pv_count("channels", channels), pv_buf("tables", &tables),
          pv_count("past_lo", bands[1].lo), pv_count("past_hi", bands[1].hi),
          pv_real("ceiling", VERDICT_CEILING), pv_buf("claims", &claims));
    buf_printf(b, "\n\n");
    exp_part_done(b, &tables), exp_part_done(b, &claims);
}
