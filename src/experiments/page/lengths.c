/* Section 3 of the page, length generalization: a table per task of every
 * scheme on the trained lengths and past them (per token, then exact
 * match), the best three past L beside the no-position floor, and the
 * cited papers' findings on the encoder, each a claim with its own family
 * of tests (ALiBi's forms against the sinusoid past L, Shaw's vectors
 * against it on L). */
#include <math.h>
#include <stdlib.h>

#include "prose.h"
#include "sections.h"
#include "tables.h"

/* A scheme's row of a task's table: its Stat on each band. */
typedef struct {
    Stat band[3];
} Row;

/* ALiBi's three forms, each against the sinusoid */
static const char *const ALIBI[3] = {"alibi", "asymmetric alibi", "cls alibi"};

/* A task's rows: per token on each band, then exact match (every label
 * of a sentence right) on the three, mean over seeds, in a last column;
 * no newline after the last (the template places the table). */
static void table_rows(Buf *b, const ExpResults *r, const char *task, const Band *bands,
                       Row *rows) {
    for (size_t i = 0; i < exp_scheme_count(); i++) {
        const char *name = exp_scheme_at(i);
        buf_printf(b, "%s| %s |", i ? "\n" : "", name);
        for (int k = 0; k < 3; k++) {
            rows[i].band[k] = exp_stat(r, EXP_LENGTHS, task, name, exp_band_value, &bands[k]);
            exp_cell_range(b, rows[i].band[k]);
        }
        for (int k = 0; k < 3; k++) {
            Stat x = exp_stat(r, EXP_LENGTHS, task, name, exp_band_exact, &bands[k]);
            buf_printf(b, "%s", k ? " / " : " ");
            if (isnan(x.mean))
                buf_printf(b, "n/a");
            else
                buf_printf(b, "%.2f", x.mean);
        }
        buf_printf(b, " |");
    }
}

static bool among(const size_t *chosen, size_t n, size_t i) {
    for (size_t j = 0; j < n; j++)
        if (chosen[j] == i)
            return true;
    return false;
}

/* The best three of a task on a band, and the comparisons that join them
 * (one family for every ranking of the section). */
typedef struct {
    size_t best[3], n;
    double mean[3];
    Cmp join[2];
    double floor;
} Ranking;

static void rank(Ranking *k, const Row *rows, size_t band, double floor, TestFamily *f) {
    size_t S = exp_scheme_count();
    k->n = 0, k->floor = floor;
    for (size_t place = 0; place < 3; place++) {
        size_t best = S;
        for (size_t i = 0; i < S; i++)
            if (!among(k->best, place, i) && !isnan(rows[i].band[band].mean) &&
                (best == S || rows[i].band[band].mean > rows[best].band[band].mean))
                best = i;
        if (best == S)
            break;
        k->mean[k->n] = rows[best].band[band].mean;
        k->best[k->n++] = best;
        if (place) {
            Stat a = rows[k->best[place - 1]].band[band], s = rows[best].band[band];
            exp_cmp(&k->join[place - 1], a, s, exp_gate(a, s, floor, false, 1.0, 1.0), f);
        }
    }
}

/* "normalized (0.70) > integer (0.54) ~ rope (0.51); no position 0.21":
 * > ahead, ≈ equivalent, ~ not told apart (or both at the ceiling or the
 * floor). */
static void rank_text(Buf *b, Ranking *k, const TestFamily *f) {
    for (size_t place = 0; place < k->n; place++) {
        if (place) {
            Cmp *c = &k->join[place - 1];
            exp_cmp_decide(c, f);
            buf_printf(b, "%s", c->v == V_AHEAD ? " > " : c->v == V_EQUIVALENT ? " ≈ " : " ~ ");
        }
        buf_printf(b, "%s (%.2f)", exp_scheme_at(k->best[place]), k->mean[place]);
    }
    if (!isnan(k->floor))
        PROSE(b, "lengths.floor", pv_real("floor", k->floor));
}

/* One claim: the pairs of its tasks, their family, and the words. */
typedef struct {
    Cmp pair[EXP_LENGTH_TASKS];
    const char *task[EXP_LENGTH_TASKS];
    size_t n;
    TestFamily f;
} Claim;

static void claim_add(Claim *c, const char *task, Stat a, Stat s, double floor, bool past_L,
                      double learned_a, double learned_s) {
    c->task[c->n] = task;
    exp_cmp(&c->pair[c->n], a, s, exp_gate(a, s, floor, past_L, learned_a, learned_s), &c->f);
    c->n++;
}

/* "(reverse 0.46 against 0.99: did not learn the trained lengths; sort
 * ...): this run agrees." */
static ClaimVerdict claim_says(Buf *b, Claim *c) {
    ClaimVerdict cv = exp_claim_decide(c->pair, c->n, &c->f);
    Buf pairs = {0};
    for (size_t i = 0; i < c->n; i++) {
        buf_printf(&pairs, "%s%s ", i ? "; " : "", c->task[i]);
        exp_cmp_text(&pairs, &c->pair[i], &c->f);
    }
    PROSE(b, "lengths.claim", pv_buf("pairs", &pairs), pv_tmpl("verdict", exp_claim_name(cv)));
    exp_part_done(b, &pairs);
    return cv;
}

/* Past L, each of ALiBi's forms against the sinusoid on every task (a
 * claim each); on L, shaw against the sinusoid. */
static void judge(Claim *alibi, Claim *shaw, const char *task, const Row *rows) {
    size_t S = exp_scheme_count(), s = exp_scheme_index("sinusoidal");
    size_t sh = exp_scheme_index("shaw"), none = exp_scheme_index(exp_floor_scheme);
    if (s >= S)
        return;
    double floor0 = none < S ? rows[none].band[0].mean : NAN;
    double floor1 = none < S ? rows[none].band[1].mean : NAN;
    if (sh < S)
        claim_add(shaw, task, rows[sh].band[0], rows[s].band[0], floor0, false, 1.0, 1.0);
    for (int f = 0; f < 3; f++) {
        size_t a = exp_scheme_index(ALIBI[f]);
        if (a < S)
            claim_add(&alibi[f], task, rows[a].band[1], rows[s].band[1], floor1, true,
                      rows[a].band[0].mean, rows[s].band[0].mean);
    }
}

/* Press et al.'s claim read on the encoder, each of ALiBi's forms against
 * the sinusoid past L; and Kazemnejad et al.'s, no position best, which
 * none's reverse answers: it cannot learn the trained lengths here. */
static void claims_say(Buf *b, const ExpResults *r, Claim *alibi) {
    Band bands[3];
    exp_bands(r, bands);
    Buf form[3] = {{0}};
    for (int f = 0; f < 3; f++)
        claim_says(&form[f], &alibi[f]);
    Stat nst = exp_stat(r, EXP_LENGTHS, "reverse", exp_floor_scheme, exp_band_value, &bands[0]);
    bool none = exp_scheme_index(exp_floor_scheme) < exp_scheme_count();
    bool cannot = none && !isnan(nst.mean) && nst.mean < 0.5;
    PROSE(b, "lengths.claims", pv_count("lo", bands[1].lo), pv_count("hi", bands[1].hi),
          pv_buf("symmetric", &form[0]), pv_buf("asymmetric", &form[1]),
          pv_buf("cls", &form[2]),
          pv_tmpl("none_does", cannot ? "lengths.none_cannot" : "lengths.none_not_worst"),
          pv_real("none_mean", nst.mean));
    buf_printf(b, "\n\n");
    for (int f = 0; f < 3; f++)
        exp_part_done(b, &form[f]);
}

/* Shaw's claim on the trained lengths, when the grid has shaw. */
static void shaw_says(Buf *b, Claim *shaw) {
    if (!shaw->n)
        return;
    Buf claim = {0};
    bool untestable = claim_says(&claim, shaw) == CLAIM_UNTESTABLE;
    PROSE(b, "lengths.shaw", pv_buf("claim", &claim),
          untestable ? pv_tmpl("untestable", "lengths.shaw_untestable")
                     : pv_text("untestable", ""));
    buf_printf(b, "\n\n");
    exp_part_done(b, &claim);
}

/* A task's table (its rows, made before the rankings' family was
 * corrected) and its two rankings past L. */
static void task_table(Buf *b, const char *task, const Band *bands, Buf *rows, Ranking *k,
                       const TestFamily *rankings) {
    Buf best[2] = {{0}};
    for (int i = 0; i < 2; i++)
        rank_text(&best[i], &k[i], rankings);
    PROSE(b, "lengths.table", pv_text("task", task), pv_count("lo0", bands[0].lo),
          pv_count("hi0", bands[0].hi), pv_count("lo1", bands[1].lo),
          pv_count("hi1", bands[1].hi), pv_count("lo2", bands[2].lo),
          pv_count("hi2", bands[2].hi), pv_buf("rows", rows), pv_buf("best1", &best[0]),
          pv_buf("best2", &best[1]));
    buf_printf(b, "\n\n");
    exp_part_done(b, &best[0]), exp_part_done(b, &best[1]), exp_part_done(b, rows);
}

void exp_lengths_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, S = exp_scheme_count();
    Band bands[3];
    exp_bands(r, bands);
    PROSE(b, "lengths.head", pv_count("lo", r->set.min_len), pv_count("L", L),
          pv_count("steps", r->set.length_steps), pv_count("n_test", r->set.n_test_lengths),
          pv_count("top", 4 * L), pv_real("margin", VERDICT_MARGIN));
    buf_printf(b, "\n\n");
    Row *rows = exp_table_alloc(b, EXP_LENGTH_TASKS * S, sizeof *rows);
    Ranking *ranks = exp_table_alloc(b, EXP_LENGTH_TASKS * 2, sizeof *ranks);
    Claim *claims = exp_table_alloc(b, 4, sizeof *claims), *shaw = claims + 3;
    if (!rows || !ranks || !claims) {
        free(rows), free(ranks), free(claims);
        return;
    }
    TestFamily rankings;
    family_init(&rankings, CORRECT_BH);
    for (int c = 0; c < 4; c++)
        family_init(&claims[c].f, CORRECT_HOLM);
    /* the tables' rows first, each ranking's tests into the one family */
    Buf tables[EXP_LENGTH_TASKS] = {{0}};
    size_t none = exp_scheme_index(exp_floor_scheme);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        Row *row = rows + t * S;
        table_rows(&tables[t], r, exp_length_tasks[t], bands, row);
        for (int k = 1; k < 3; k++)
            rank(&ranks[t * 2 + (size_t)k - 1], row, (size_t)k,
                 none < S ? row[none].band[k].mean : NAN, &rankings);
        judge(claims, shaw, exp_length_tasks[t], row);
    }
    family_adjust(&rankings);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        task_table(b, exp_length_tasks[t], bands, &tables[t], &ranks[t * 2], &rankings);
    claims_say(b, r, claims);
    shaw_says(b, shaw);
    family_free(&rankings);
    for (int c = 0; c < 4; c++)
        family_free(&claims[c].f);
    free(rows), free(ranks), free(claims);
}
