/* docs/results.md from the experiments' runs: the tables with their
 * spread, the figures, and a closing sentence per table that the numbers
 * decide (which schemes are at chance, which is best past the training
 * lengths, whether a cited paper's finding holds here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pe/pe.h"
#include "../../plot/chart.h"
#include "../../text/order.h"
#include "sections.h"
#include "stats.h"
#include "../../run/trial.h"

#define LEARNED 0.9  /* ALiBi is compared past L only where it reached this on L */

static void cell(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f ± %.4f |", s.mean, s.sd);
}

void exp_cell_range(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f ± %.4f [%.3f, %.3f] |", s.mean, s.sd, s.lo, s.hi);
}

double exp_p(Stat a, Stat b) { return mann_whitney_p(a.v, a.n, b.v, b.n); }

void exp_test_text(Buf *b, Stat x, Stat y) {
    double d = cliffs_delta(x.v, x.n, y.v, y.n);
    buf_printf(b, "p = %.3f, Cliff's delta %+.2f (%s)", exp_p(x, y), d, cliffs_size(d));
}

static void range(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f to %.4f |", s.lo, s.hi);
}

/* At chance: the 95% Wilson interval of the test items of all seeds
 * pooled (items per seed) holds 0.5, the rate of guessing two classes. */
static bool at_chance(Stat s, size_t items) {
    double lo, hi, n = (double)items * (double)s.n;
    wilson95(s.mean * n, n, &lo, &hi);
    return lo <= 0.5 && 0.5 <= hi;
}

typedef enum { AT_CHANCE, SOLVED_IT, BETWEEN } Verdict;

static Verdict verdict(Stat s, size_t items) {
    return at_chance(s, items) ? AT_CHANCE : s.mean >= EXP_SOLVED ? SOLVED_IT : BETWEEN;
}

/* "a (0.50), b (0.51)" for the schemes whose verdict is v. */
static size_t list_of(Buf *b, const Stat *st, const char *const *names, size_t n, Verdict v,
                      size_t items) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(st[i].mean) && verdict(st[i], items) == v)
            buf_printf(b, "%s%s (%.2f)", k++ ? ", " : "", names[i], st[i].mean);
    if (!k)
        buf_printf(b, "no scheme");
    return k;
}

static const char *scheme_names[16];

static size_t schemes(void) {
    size_t n = exp_scheme_count() < 16 ? exp_scheme_count() : 16;
    for (size_t i = 0; i < n; i++)
        scheme_names[i] = exp_scheme_at(i);
    return n;
}

static size_t find(const char *const *names, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return n;
}

/* ---- 1. order ---- */

static void order_section(Buf *b, const ExpResults *r) {
    size_t S = schemes();
    Stat st[16];
    buf_printf(b, "## 1. Order, untrained\n\nFor each seed, a model of each scheme (untrained) "
               "reads 4 sentences of 8 distinct words and a random reordering of each; the "
               "figure is the largest |difference| between a word's output row in the "
               "reordering and the same word's row in the sentence, as `demo_order` measures "
               "it (`results/order.csv`).\n\n| scheme | mean | lowest | highest | verdict |\n"
               "| --- | ---: | ---: | ---: | --- |\n");
    double blind_max = 0.0, others_min = INFINITY;
    size_t n_blind = 0;
    for (size_t i = 0; i < S; i++) {
        st[i] = exp_stat(r, EXP_ORDER, "order", scheme_names[i], NULL, NULL);
        bool blind = st[i].hi <= ORDER_BLIND_TOL;
        buf_printf(b, "| %s | %.2e | %.2e | %.2e | %s |\n", scheme_names[i], st[i].mean,
                   st[i].lo, st[i].hi, blind ? "order-blind" : "order-sensitive");
        if (blind)
            blind_max = fmax(blind_max, st[i].hi), n_blind++;
        else
            others_min = fmin(others_min, st[i].lo);
    }
    bool none_only = n_blind == 1 && st[find(scheme_names, S, "none")].hi <= ORDER_BLIND_TOL;
    buf_printf(b, "\n%s: %s is order-blind, its rows moving by at most %.1e (float rounding), "
               "and every other scheme moves them by at least %.2g; self-attention without "
               "position is permutation-equivariant and each code breaks the symmetry, as Yun "
               "et al. (2020) describe%s.\n\n",
               none_only ? "As expected" : "Not as expected",
               none_only ? "only none" : "more than none", blind_max, others_min,
               none_only ? "" : " (this run does not agree)");
}

/* ---- 2. agent and direction ---- */

static void tasks_section(Buf *b, const ExpResults *r) {
    size_t S = schemes();
    Stat ag[16], di[16];
    buf_printf(b, "## 2. Who did it, and which came first\n\nTest accuracy on `agent` (who "
               "did it: 'Rohan killed the lion' against 'lion killed the Rohan') and on "
               "`direction` (is the first digit greater than the last), %zu steps "
               "(`results/tasks.csv`). Both tasks need order; chance is 0.50.\n\n"
               "| scheme | agent | agent range | direction | direction range |\n"
               "| --- | ---: | ---: | ---: | ---: |\n", r->set.task_steps);
    for (size_t i = 0; i < S; i++) {
        ag[i] = exp_stat(r, EXP_TASKS, "agent", scheme_names[i], NULL, NULL);
        di[i] = exp_stat(r, EXP_TASKS, "direction", scheme_names[i], NULL, NULL);
        buf_printf(b, "| %s |", scheme_names[i]);
        cell(b, ag[i]), range(b, ag[i]), cell(b, di[i]), range(b, di[i]);
        buf_printf(b, "\n");
    }
    const Stat *task[2] = {ag, di};
    const char *tname[2] = {"agent", "direction"};
    buf_printf(b, "\n");
    for (int t = 0; t < 2; t++) {
        buf_printf(b, "On %s, at chance: ", tname[t]);
        list_of(b, task[t], scheme_names, S, AT_CHANCE, r->set.n_test);
        buf_printf(b, "; 0.95 or more: ");
        list_of(b, task[t], scheme_names, S, SOLVED_IT, r->set.n_test);
        buf_printf(b, "; between: ");
        list_of(b, task[t], scheme_names, S, BETWEEN, r->set.n_test);
        buf_printf(b, ". ");
    }
    size_t a = find(scheme_names, S, "alibi");
    bool alibi_chance = a < S && at_chance(di[a], r->set.n_test);
    if (a < S && !isnan(di[a].mean))
        buf_printf(b, "Symmetric alibi %s on direction (%.2f): %s",
                   alibi_chance ? "is at chance" : "is above chance", di[a].mean,
                   alibi_chance
                       ? "a bias that is the same to the left and to the right gives a "
                         "sequence and its reverse the same sentence vector, and their labels "
                         "are opposite. Press et al.'s ALiBi is causal, so the paper never "
                         "meets this; an encoder without a mask meets it unless something "
                         "breaks the mirror."
                       : "this is not what a reflection-blind model can do, and calls for a "
                         "closer look.");
    /* the forms that break it: slopes that differ by side, a [CLS] word */
    static const char *const FORM[2] = {"asymmetric alibi", "cls alibi"};
    static const char *const HOW[2] = {
        "Asymmetric alibi (head h's slope m_h to the left of a word and m_(H-1-h) to its "
        "right, our form: Press et al. give none for encoders)",
        "Cls alibi (symmetric, with BERT's [CLS] word at position 0 of every sentence and its "
        "row as the sentence vector)"};
    for (int f = 0; f < 2; f++) {
        size_t as = find(scheme_names, S, FORM[f]);
        if (as >= S || isnan(di[as].mean))
            continue;
        bool as_chance = at_chance(di[as], r->set.n_test);
        buf_printf(b, " %s %s on direction (%.2f, seeds %.2f to %.2f)%s", HOW[f],
                   as_chance ? "is at chance" : "is above chance", di[as].mean, di[as].lo,
                   di[as].hi,
                   as_chance ? ": this form did not give it direction here."
                             : ": the mirror is broken, and the task is learnable.");
    }
    buf_printf(b, "\n\n");
    /* the rule, on the page that applies it */
    buf_printf(b, "At chance means that the 95%% Wilson interval of the %zu x %zu test "
               "sentences of all seeds, pooled, holds 0.5.\n\n", r->set.seeds, r->set.n_test);
}

/* ---- 3 and 4: lengths ---- */

double exp_band_value(const ExpRun *run, const void *arg) {
    const Band *band = arg;
    return exp_band(run, band->lo, band->hi);
}

void exp_mean_curve(double *y, const ExpResults *r, ExpKind kind, const char *task,
                       const char *name, size_t max_len) {
    for (size_t len = 0; len <= max_len; len++) {
        Band one = {len, len};
        y[len] = exp_stat(r, kind, task, name, exp_band_value, &one).mean;
    }
}

/* The panel of a scheme in a length figure: none and the notes' naive
 * codes, the absolute codes (the sinusoid, the learned table), or the
 * schemes inside attention; small multiples instead of ten lines in one. */
static size_t family_of(const PeScheme *s) {
    return pe_in_attention(s) ? 2 : s->first_position == 1 ? 0 : 1;
}

static const char *const FAMILY[3] = {"no position and the naive codes", "the absolute codes",
                                      "inside attention"};

static int length_figure(const ExpResults *r, const char *dir, const char *task, bool random,
                         Err *e) {
    size_t L = r->set.L, top = 4 * L, S = random ? 3 : schemes();
    static const char *const rnd[3] = {"sinusoidal", "learned", "rope"};
    static double x[4 * 64 + 1], y[2 * 16][4 * 64 + 1];
    static Series s[3][2 * 16 + 1];
    char labels[2 * 16][48], titles[3][160];
    size_t n[3] = {0}, k = 0;
    for (size_t len = 0; len <= top; len++)
        x[len] = (double)len;
    for (size_t i = 0; i < S; i++)
        for (int with = 0; with <= (random ? 2 : 0); with++, k++) {
            /* random: trained at 0..T-1; with random positions, tested at
             * random positions (Ruoss et al.); the same tested at 0..T-1 */
            static const ExpKind kinds[3] = {EXP_LENGTHS, EXP_RANDOM_TEST, EXP_RANDOM};
            static const char *const what[3] = {"trained at 0..T-1",
                                                "random positions, tested as trained",
                                                "random positions, tested at 0..T-1"};
            const char *name = random ? rnd[i] : scheme_names[i];
            size_t panel = random ? i : family_of(exp_scheme_base(name));
            exp_mean_curve(y[k], r, kinds[with], task, name, top);
            snprintf(labels[k], sizeof labels[k], "%s", !random ? name : what[with]);
            s[panel][n[panel]] = (Series){
                .x = x + r->set.min_len, .y = y[k] + r->set.min_len,
                .n = top - r->set.min_len + 1, .label = labels[k],
                .color = series_color(random ? (size_t)with : n[panel]), .dashed = with == 2,
                .markers = true};
            n[panel]++;
        }
    static const double vy[2] = {0.0, 1.0};
    double vx[2] = {(double)L, (double)L};
    LineChart lc[3];
    for (size_t p = 0; p < 3; p++) {
        s[p][n[p]++] = (Series){.x = vx, .y = vy, .n = 2, .label = "longest training length",
                                .color = RGB_GREY, .dashed = true};
        snprintf(titles[p], sizeof titles[p], "%s, %s: accuracy by length, mean of %zu seeds",
                 task, random ? rnd[p] : FAMILY[p], r->set.seeds);
        lc[p] = (LineChart){.series = s[p], .n_series = n[p], .title = titles[p],
                            .xlabel = "sentence length", .ylabel = "accuracy", .plot_w = 560,
                            .plot_h = 220, .fixed_y = true, .ymin = 0.0, .ymax = 1.0,
                            .x_integer = true, .legend = true};
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/img/results/%s_%s.png", dir, random ? "random" : "lengths",
             task);
    return linecharts_png(path, lc, 3, 1, e);
}

static void lengths_section(Buf *b, const ExpResults *r) {
    size_t S = schemes(), L = r->set.L, lo = r->set.min_len;
    Band bands[3] = {{lo, L}, {L + 1, 2 * L}, {2 * L + 1, 4 * L}};
    buf_printf(b, "## 3. Length generalization\n\nThe protocol of Kazemnejad et al. (2023), "
               "adapted to an encoder: trained on lengths %zu..%zu (L = %zu, %zu steps), "
               "tested on %zu sentences of lengths %zu..%zu, accuracy per token "
               "(`results/lengths.csv`). Three tasks: `reverse` and `sort` need each "
               "position, `previous` (each digit's label is the digit before it) only the "
               "order of neighbours (its first token has no word before it, and no label: it "
               "is not scored). Each "
               "cell is the mean over the lengths of its band, then over seeds, ± the SD, "
               "[lowest, highest seed]; n/a: the learned table has no rows past L. In the "
               "rankings below each table, ≈ joins two schemes whose seeds do not differ "
               "(two-sided Mann-Whitney, p ≥ %.2f), a comma two that do.\n\n",
               lo, L, L, r->set.length_steps, r->set.n_test_lengths, lo, 4 * L, EXP_P_REAL);
    /* ALiBi's three forms, each against the sinusoid */
    static const char *const ALIBI[3] = {"alibi", "asymmetric alibi", "cls alibi"};
    size_t alibi_wins[3] = {0}, alibi_losses[3] = {0}, tasks[3] = {0};
    Buf skipped[3] = {{0}}, cmp[3] = {{0}};
    /* Shaw's relative vectors against the sinusoid, on the trained lengths */
    size_t shaw_ahead = 0, shaw_behind = 0;
    Buf shaw = {0};
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        Stat st[16][3];
        buf_printf(b, "### %s\n\n![%s: accuracy by length](img/results/lengths_%s.png)\n\n"
                   "| scheme | %zu..%zu (trained) | %zu..%zu | %zu..%zu |\n"
                   "| --- | ---: | ---: | ---: |\n", task, task, task, lo, L, L + 1, 2 * L,
                   2 * L + 1, 4 * L);
        for (size_t i = 0; i < S; i++) {
            buf_printf(b, "| %s |", scheme_names[i]);
            for (int k = 0; k < 3; k++) {
                st[i][k] = exp_stat(r, EXP_LENGTHS, task, scheme_names[i], exp_band_value, &bands[k]);
                exp_cell_range(b, st[i][k]);
            }
            buf_printf(b, "\n");
        }
        /* the best three past L, in each band */
        buf_printf(b, "\n");
        for (int k = 1; k < 3; k++) {
            bool used[16] = {false};
            size_t prev = S;
            buf_printf(b, "%s %zu..%zu the best are ", k == 1 ? "On" : "; on", bands[k].lo,
                       bands[k].hi);
            for (int rank = 0; rank < 3; rank++) {
                size_t best = S;
                for (size_t i = 0; i < S; i++)
                    if (!used[i] && !isnan(st[i][k].mean) &&
                        (best == S || st[i][k].mean > st[best][k].mean))
                        best = i;
                if (best == S)
                    break;
                used[best] = true;
                /* a tie by the rule the page states */
                const char *sep = !rank ? "" : exp_p(st[prev][k], st[best][k]) < EXP_P_REAL ? ", "
                                                                                    : " ≈ ";
                buf_printf(b, "%s%s (%.2f)", sep, scheme_names[best], st[best][k].mean);
                prev = best;
            }
        }
        size_t s = find(scheme_names, S, "sinusoidal"), sh = find(scheme_names, S, "shaw");
        if (s < S && sh < S) {
            bool differ = exp_p(st[sh][0], st[s][0]) < EXP_P_REAL;
            shaw_ahead += differ && st[sh][0].mean > st[s][0].mean;
            shaw_behind += differ && st[sh][0].mean < st[s][0].mean;
            buf_printf(&shaw, "%s%s %.2f against %.2f, ", t ? "; " : "", task, st[sh][0].mean,
                       st[s][0].mean);
            exp_test_text(&shaw, st[sh][0], st[s][0]);
        }
        for (int f = 0; f < 3; f++) {
            size_t a = find(scheme_names, S, ALIBI[f]);
            /* Past L, ALiBi against the sinusoid only where ALiBi learned
             * the trained lengths: a model that learned nothing
             * extrapolates nothing, and the comparison would measure no
             * extrapolation. */
            if (a < S && s < S && st[a][0].mean < LEARNED) {
                buf_printf(&skipped[f], "%s%s (%.2f)", skipped[f].n ? ", " : "", task,
                           st[a][0].mean);
            } else if (a < S && s < S) {
                tasks[f]++;
                bool differ = exp_p(st[a][1], st[s][1]) < EXP_P_REAL;
                alibi_wins[f] += differ && st[a][1].mean > st[s][1].mean;
                alibi_losses[f] += differ && st[a][1].mean < st[s][1].mean;
                buf_printf(&cmp[f], "%s%s %.2f against %.2f, ", tasks[f] > 1 ? "; " : "", task,
                           st[a][1].mean, st[s][1].mean);
                exp_test_text(&cmp[f], st[a][1], st[s][1]);
            }
        }
        buf_printf(b, ".\n\n");
    }
    size_t none = find(scheme_names, S, "none");
    Stat nst = exp_stat(r, EXP_LENGTHS, "reverse", "none", exp_band_value, &bands[0]);
    buf_printf(b, "Press et al. (2022) report that ALiBi extrapolates where the sinusoid does "
               "not, in causal language models. Here ALiBi is compared with the sinusoid on "
               "%zu..%zu only where it learned the trained lengths (%.2f or more on %zu..%zu)",
               L + 1, 2 * L, LEARNED, lo, L);
    for (int f = 0; f < 3; f++) {
        if (f)
            buf_printf(b, " The same rule for %s, a form an encoder can use", ALIBI[f]);
        if (skipped[f].n)
            buf_printf(b, "; it did not learn them on %.*s, where a comparison past L would "
                       "measure nothing", skipped[f].failed ? 0 : (int)skipped[f].n,
                       skipped[f].p ? (char *)skipped[f].p : "");
        if (tasks[f])
            buf_printf(b, ". On the %zu task%s left it is ahead on %zu and behind on %zu "
                       "(%.*s): this run %s.", tasks[f], tasks[f] == 1 ? "" : "s",
                       alibi_wins[f], alibi_losses[f], cmp[f].failed ? 0 : (int)cmp[f].n,
                       cmp[f].p ? (char *)cmp[f].p : "",
                       alibi_wins[f] * 2 > tasks[f] ? "agrees" : "does not agree");
        else
            buf_printf(b, ". That leaves no task: the finding cannot be tested here.");
    }
    buf_printf(b, " Kazemnejad et al. (2023) find no position at all best for length "
               "generalization in decoders; that rests on the causal mask, and here, without "
               "it, none %s (%.2f on reverse's trained lengths); section 7 runs their "
               "comparison with the mask.\n\n",
               none < S && !isnan(nst.mean) && nst.mean < 0.5 ? "cannot learn the tasks at all"
                                                              : "is not the worst",
               nst.mean);
    if (shaw.n && !shaw.failed)
        buf_printf(b, "Shaw et al. (2018) found relative representations alone better than the "
                   "sinusoid (translation: +1.3 BLEU English-German, +0.3 English-French). The "
                   "rule here: on the trained lengths, shaw against the sinusoid task by task; "
                   "the run agrees when shaw is ahead by the test on more tasks than it is "
                   "behind, disagrees when it is behind on more, and cannot tell otherwise. It "
                   "is ahead on %zu and behind on %zu (%.*s): %s.\n\n", shaw_ahead,
                   shaw_behind, (int)shaw.n, (char *)shaw.p,
                   shaw_ahead > shaw_behind   ? "this run agrees"
                   : shaw_ahead < shaw_behind ? "this run does not agree"
                                              : "this run cannot tell");
    buf_free(&shaw);
    for (int f = 0; f < 3; f++)
        buf_free(&skipped[f]), buf_free(&cmp[f]);
}

/* Section 4's table: every (task, scheme) trained without random positions
 * (at 0..T-1) against the same with them, evaluated as kind says; and its
 * verdicts, each case on its own by the U test, into up/down/same (past L)
 * and cost (on the trained lengths). */
typedef struct {
    Buf up, down, same, cost, gain_in;
    size_t n_up, n_down, n_cost, n_gain_in, n_pairs, n_past;
} RandomVerdicts;

static void random_table(Buf *b, const ExpResults *r, ExpKind kind, RandomVerdicts *v) {
    static const char *const rnd[3] = {"sinusoidal", "learned", "rope"};
    size_t L = r->set.L;
    Band mid = {L + 1, 2 * L}, far = {2 * L + 1, 4 * L}, in = {r->set.min_len, L};
    const Band *bands[3] = {&in, &mid, &far};
    buf_printf(b, "| task | scheme | %zu..%zu | | %zu..%zu | | %zu..%zu | |\n"
               "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
               in.lo, in.hi, mid.lo, mid.hi, far.lo, far.hi);
    memset(v, 0, sizeof *v);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < 3; i++) {
            const char *task = exp_length_tasks[t];
            buf_printf(b, "| %s | %s |", task, rnd[i]);
            Stat w[3], wo[3];
            for (int k = 0; k < 3; k++) {
                wo[k] = exp_stat(r, EXP_LENGTHS, task, rnd[i], exp_band_value, bands[k]);
                w[k] = exp_stat(r, kind, task, rnd[i], exp_band_value, bands[k]);
                exp_cell_range(b, wo[k]), exp_cell_range(b, w[k]);
            }
            buf_printf(b, "\n");
            v->n_pairs++;
            bool in_differ = exp_p(w[0], wo[0]) < EXP_P_REAL;
            if (in_differ && w[0].mean < wo[0].mean)
                buf_printf(&v->cost, "%s%s/%s %+.2f", v->n_cost++ ? ", " : "", task, rnd[i],
                           w[0].mean - wo[0].mean);
            else if (in_differ)
                buf_printf(&v->gain_in, "%s%s/%s %+.2f", v->n_gain_in++ ? ", " : "", task,
                           rnd[i], w[0].mean - wo[0].mean);
            if (isnan(w[1].mean) || isnan(wo[1].mean))
                continue;
            v->n_past++;
            bool differ = exp_p(w[1], wo[1]) < EXP_P_REAL;
            Buf *to = !differ ? &v->same : w[1].mean > wo[1].mean ? &v->up : &v->down;
            size_t *count = to == &v->up ? &v->n_up : to == &v->down ? &v->n_down : NULL;
            buf_printf(to, "%s%s/%s %+.2f", to->n ? ", " : "", task, rnd[i],
                       w[1].mean - wo[1].mean);
            if (count)
                ++*count;
        }
}

/* "raise the accuracy (p < 0.05) for A; lower it for B; ..." */
static void random_says(Buf *b, const RandomVerdicts *v) {
    const Buf *parts[3] = {&v->up, &v->down, &v->same};
    const char *says[3] = {"raise the accuracy (p < 0.05) for", "lower it for",
                           "make no difference the seeds can tell for"};
    for (int k = 0, said = 0; k < 3; k++)
        if (parts[k]->n && !parts[k]->failed)
            buf_printf(b, "%s%s %.*s", said++ ? "; " : "", says[k], (int)parts[k]->n,
                       (char *)parts[k]->p);
}

static void random_verdicts_free(RandomVerdicts *v) {
    buf_free(&v->up), buf_free(&v->down), buf_free(&v->same), buf_free(&v->cost);
    buf_free(&v->gain_in);
}



static void random_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, N = 4 * L;
    buf_printf(b, "## 4. Randomized positions\n\nThe runs of section 3 for sinusoidal, learned "
               "and rope, again with `--random-positions %zu` (Ruoss et al. 2023): each "
               "training sentence gets sorted positions drawn from 0..%zu, so positions past "
               "L are seen in training. Ruoss et al.'s randomized encodings have no switch "
               "for evaluation: in their reference code a test sentence gets sorted random "
               "positions from the same range too. This page follows them: each test "
               "sentence is scored with %d draws of its positions and the accuracy is the "
               "mean over the draws (`results/random_test.csv`). The models trained without "
               "random positions are evaluated at 0..T-1, as section 3 does. Cells as in "
               "section 3, without | with; every (task, scheme) is judged on its own, by the "
               "U test on its seeds (p < %.2f), with no average over them.\n\n",
               N, N - 1, TRIAL_DRAWS, EXP_P_REAL);
    RandomVerdicts v;
    random_table(b, r, EXP_RANDOM_TEST, &v);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        buf_printf(b, "%s![%s with and without random positions](img/results/random_%s.png)\n",
                   t ? "" : "\n", exp_length_tasks[t], exp_length_tasks[t]);
    buf_printf(b, "\nOn %zu..%zu, random positions ", L + 1, 2 * L);
    random_says(b, &v);
    buf_printf(b, " (task/scheme, with minus without); the learned table, undefined past L "
               "without them, gets rows for every position with them. On the trained "
               "lengths they cost accuracy in %zu of %zu cases%s%.*s%s", v.n_cost, v.n_pairs,
               v.n_cost ? " (" : "", TEXT(v.cost), v.n_cost ? ")" : "");
    if (v.n_gain_in)
        buf_printf(b, " and raise it in %zu (%.*s)", v.n_gain_in, TEXT(v.gain_in));
    buf_printf(b, ". Ruoss et al. report +12.0 points on average over 15 tasks for randomized "
               "encodings; with their evaluation, this run gains past L in %zu and loses in "
               "%zu of the %zu cases defined there, on 3 tasks and small models: %s.\n\n",
               v.n_up, v.n_down, v.n_past,
               v.n_up > v.n_down && v.n_down == 0 ? "it agrees with them in direction"
               : v.n_up > v.n_down ? "it agrees with them in most cases, not in all"
                                   : "it does not agree with them");
    random_verdicts_free(&v);

    buf_printf(b, "The same models evaluated at positions 0..T-1 instead (a variant, not "
               "Ruoss et al.'s protocol: every test sentence then sits packed at the start "
               "of the range, an arrangement training drew rarely; `results/random.csv`):\n\n");
    random_table(b, r, EXP_RANDOM, &v);
    buf_printf(b, "\nEvaluated so, on %zu..%zu random positions ", L + 1, 2 * L);
    random_says(b, &v);
    buf_printf(b, "; on the trained lengths they cost accuracy in %zu of %zu cases.\n\n",
               v.n_cost, v.n_pairs);
    random_verdicts_free(&v);
}

static void variants_section(Buf *b, const ExpResults *r) {
    Stat st[EXP_VARIANTS];
    buf_printf(b, "## 5. Layout, combine, scaling\n\nThe sinusoid on `reverse` at its "
               "default lengths (4..12 in training and test), %zu seeds each "
               "(`results/variants.csv`): the paper's interleaved layout added to the "
               "embeddings, the split layout [sin | cos], the code concatenated in half the "
               "channels, and embeddings multiplied by sqrt(d_model) (section 3.4).\n\n"
               "| variant | mean | std | lowest | highest |\n| --- | ---: | ---: | ---: | ---: |\n",
               r->set.variant_seeds);
    for (size_t v = 0; v < EXP_VARIANTS; v++) {
        st[v] = exp_stat(r, EXP_VARIANT, "reverse", exp_variant_names[v], NULL, NULL);
        buf_printf(b, "| %s | %.4f | %.4f | %.4f | %.4f |\n", exp_variant_names[v], st[v].mean,
                   st[v].sd, st[v].lo, st[v].hi);
    }
    buf_printf(b, "\nAgainst the baseline (%.4f), a difference is called real when the seeds "
               "differ at p < %.2f (two-sided Mann-Whitney, exact), its size given by Cliff's "
               "delta: ", st[0].mean, EXP_P_REAL);
    for (size_t v = 1; v < EXP_VARIANTS; v++) {
        bool differ = exp_p(st[v], st[0]) < EXP_P_REAL;
        buf_printf(b, "%s%s %+.4f (%s: ", v > 1 ? "; " : "", exp_variant_names[v],
                   st[v].mean - st[0].mean, differ ? "real" : "not told from seed noise");
        exp_test_text(b, st[v], st[0]);
        buf_printf(b, ")");
    }
    bool split_same = exp_p(st[1], st[0]) >= EXP_P_REAL;
    buf_printf(b, ". The two layouts are one set of channels in another order, with the same "
               "properties; the tensor2tensor discussion (PR #177) found them training alike, "
               "and this run %s. Near the ceiling a real difference can be a small one: read "
               "its size beside it.\n", split_same ? "agrees" : "does not agree");
}

int exp_write(const ExpResults *r, const char *dir, Err *e) {
    if (r->failed)
        return err_set(e, ERR_RUNTIME, "out of memory keeping the experiments' results");
    int rc = exp_write_csv(r, dir, e);
    for (size_t t = 0; !rc && t < EXP_LENGTH_TASKS; t++) {
        rc = length_figure(r, dir, exp_length_tasks[t], false, e);
        if (!rc)
            rc = length_figure(r, dir, exp_length_tasks[t], true, e);
    }
    if (rc)
        return rc;
    const ExpSettings *s = &r->set;
    Buf b = {0};
    buf_printf(&b, "# Results: what each scheme buys\n\n");
    if (s->quick)
        buf_printf(&b, "**Quick settings** (`make experiments QUICK=1`): tiny models trained "
                   "for a few steps, to check the pipeline. These numbers say nothing about "
                   "the schemes; the real page is docs/results.md.\n\n");
    buf_printf(&b, "Every number on this page comes from `make experiments` "
               "(`build/experiments --out docs`), which runs each training as a cell of its "
               "own, several at once or on other machines ([experiments.md](experiments.md)), "
               "and writes this page from the cells' files. The models have "
               "d_model %zu, %zu heads, %zu layers, d_ff %zu, post-norm and ReLU, trained with "
               "AdamW (lr 1e-3, warm-up 100 steps) in batches of %zu; the seeds 1 to %zu set "
               "the weights, the batch order and the data (each seed its own draw of the "
               "task). Each table gives the mean over seeds ± the sample standard deviation, "
               "and the lowest and highest seed; a verdict follows a rule stated beside it "
               "(at chance: a binomial interval; a real difference: a Mann-Whitney test with "
               "its effect size). The CSV files behind the tables are in "
               "[results/](results/), and each table's closing sentence is written by the "
               "program from its numbers. [Page 4](04-relative.md) explains the schemes "
               "inside attention; [page 5](05-training.md) how to train one model.\n\n",
               s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->seeds);
    order_section(&b, r);
    tasks_section(&b, r);
    lengths_section(&b, r);
    random_section(&b, r);
    variants_section(&b, r);
    exp_scaling_section(&b, r);
    exp_causal_section(&b, r);
    exp_probe_section(&b, r);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.md", dir);
    rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                  : write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}
