/* Section 3 of the page, length generalization: a table per task of every
 * scheme on the trained lengths and past them (per token, then exact
 * match), the best three past L beside the no-position floor, and the
 * cited papers' findings on the encoder, each a claim with its own family
 * of tests (ALiBi's forms against the sinusoid past L, Shaw's vectors
 * against it on L). */
#include <math.h>
#include <stdlib.h>

#include "sections.h"
#include "tables.h"

/* A scheme's row of a task's table: its Stat on each band. */
typedef struct {
    Stat band[3];
} Row;

/* ALiBi's three forms, each against the sinusoid */
static const char *const ALIBI[3] = {"alibi", "asymmetric alibi", "cls alibi"};

/* A task's table: per token on each band, then exact match (every label
 * of a sentence right) on the three, mean over seeds, in a last column. */
static void table(Buf *b, const ExpResults *r, const char *task, const Band *bands, Row *rows) {
    buf_printf(b, "### %s\n\n![%s: accuracy by length](img/results/lengths_%s.png)\n\n"
               "| scheme | %zu..%zu (trained) | %zu..%zu | %zu..%zu | exact match |\n"
               "| --- | ---: | ---: | ---: | ---: |\n", task, task, task, bands[0].lo,
               bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo, bands[2].hi);
    for (size_t i = 0; i < exp_scheme_count(); i++) {
        const char *name = exp_scheme_at(i);
        buf_printf(b, "| %s |", name);
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
        buf_printf(b, " |\n");
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
        buf_printf(b, "; no position %.2f", k->floor);
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
 * ...): this run agrees" */
static ClaimVerdict claim_says(Buf *b, Claim *c) {
    ClaimVerdict cv = exp_claim_decide(c->pair, c->n, &c->f);
    buf_printf(b, " (");
    for (size_t i = 0; i < c->n; i++) {
        buf_printf(b, "%s%s ", i ? "; " : "", c->task[i]);
        exp_cmp_text(b, &c->pair[i], &c->f);
    }
    buf_printf(b, "): %s.", exp_claim_text(cv));
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

static void alibi_says(Buf *b, const ExpResults *r, Claim *alibi) {
    size_t L = r->set.L;
    buf_printf(b, "Press et al. (2022) report that ALiBi extrapolates where the sinusoid does "
               "not, in causal language models (their Figure 1); section 7 judges that in "
               "their regime, with the mask. A second reading, on the encoder: each form of "
               "ALiBi against the sinusoid on %zu..%zu, task by task, one family (Holm) per "
               "form.", L + 1, 2 * L);
    static const char *const NAMED[3] = {"Symmetric alibi",
                                         "Asymmetric alibi, posenc's own form",
                                         "Cls alibi, with BERT's [CLS] word"};
    for (int f = 0; f < 3; f++) {
        buf_printf(b, " %s", NAMED[f]);
        claim_says(b, &alibi[f]);
    }
}

static void nope_says(Buf *b, const ExpResults *r) {
    Band bands[3];
    exp_bands(r, bands);
    Stat nst = exp_stat(r, EXP_LENGTHS, "reverse", exp_floor_scheme, exp_band_value, &bands[0]);
    bool none = exp_scheme_index(exp_floor_scheme) < exp_scheme_count();
    buf_printf(b, " Kazemnejad et al. (2023) find no position at all best for length "
               "generalization in decoders; that rests on the causal mask, and here, without "
               "it, none %s (%.2f on reverse's trained lengths); section 7 runs their "
               "comparison with the mask.\n\n",
               none && !isnan(nst.mean) && nst.mean < 0.5 ? "cannot learn the tasks at all"
                                                          : "is not the worst",
               nst.mean);
}

static void shaw_says(Buf *b, Claim *shaw) {
    if (!shaw->n)
        return;
    buf_printf(b, "Shaw et al. (2018) found relative representations alone better than the "
               "sinusoid (translation, their Table 1: +1.3 BLEU English-German, +0.3 "
               "English-French, both for the big model). Here: shaw against the sinusoid on "
               "the trained lengths, task by task, one family (Holm)");
    if (claim_says(b, shaw) == CLAIM_UNTESTABLE)
        buf_printf(b, " Tasks whose trained lengths the two do not both solve would test it, "
                   "as the algorithmic tasks of Delétang et al. (2023) do.");
    buf_printf(b, "\n\n");
}

/* The rule of the rankings, stated once above the tables. */
static void rankings_rule(Buf *b) {
    buf_printf(b, "In the rankings below each table, > means the first is ahead by the "
               "corrected test, ≈ that the two are shown alike within %.2f, ~ that they are "
               "not told apart (or both at the ceiling or at the floor); the tests of every "
               "ranking of this section are one family (Benjamini-Hochberg), and each ranking "
               "ends with the no-position floor.\n\n", VERDICT_MARGIN);
}

void exp_lengths_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, lo = r->set.min_len, S = exp_scheme_count();
    Band bands[3];
    exp_bands(r, bands);
    buf_printf(b, "## 3. Length generalization\n\nA setup adapted from Kazemnejad et al. "
               "(2023), who train decoders on their synthetic tasks up to L = 20, test up to "
               "2L and score exact match (the whole output right). Here an encoder is trained "
               "on lengths %zu..%zu (L = %zu, %zu steps) and tested on %zu sentences of "
               "lengths %zu..%zu (to 4L), scored per token (`results/lengths.csv`), with "
               "exact match beside it. Three tasks: `reverse` and `sort` need each "
               "position, `previous` (each digit's label is the digit before it) only the "
               "order of neighbours (its first token has no word before it, and no label: it "
               "is not scored). Each "
               "cell is the mean over the lengths of its band, then over seeds, ± the SD, "
               "[lowest, highest seed]; n/a: the learned table has no rows past L. The last "
               "column is exact match (every label of a sentence right) on the three bands, "
               "mean over seeds. ",
               lo, L, L, r->set.length_steps, r->set.n_test_lengths, lo, 4 * L);
    rankings_rule(b);
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
    /* the tables first, each ranking's tests into the one family */
    Buf tables[EXP_LENGTH_TASKS] = {{0}};
    size_t none = exp_scheme_index(exp_floor_scheme);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        Row *row = rows + t * S;
        table(&tables[t], r, exp_length_tasks[t], bands, row);
        for (int k = 1; k < 3; k++)
            rank(&ranks[t * 2 + (size_t)k - 1], row, (size_t)k,
                 none < S ? row[none].band[k].mean : NAN, &rankings);
        judge(claims, shaw, exp_length_tasks[t], row);
    }
    family_adjust(&rankings);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        buf_printf(b, "%.*s\n", TEXT(tables[t]));
        b->failed |= tables[t].failed;
        for (int k = 1; k < 3; k++) {
            buf_printf(b, "%s %zu..%zu the best are ", k == 1 ? "On" : "; on", bands[k].lo,
                       bands[k].hi);
            rank_text(b, &ranks[t * 2 + (size_t)k - 1], &rankings);
        }
        buf_printf(b, ".\n\n");
        buf_free(&tables[t]);
    }
    alibi_says(b, r, claims);
    nope_says(b, r);
    shaw_says(b, shaw);
    family_free(&rankings);
    for (int c = 0; c < 4; c++)
        family_free(&claims[c].f);
    free(rows), free(ranks), free(claims);
}
