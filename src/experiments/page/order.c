/* Sections 1 and 2 of the page, what order buys: whether an untrained
 * model's rows move when the words do, and which schemes learn the two
 * tasks that need order (at chance, solved, or between, the seeds as
 * units). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../text/order.h"
#include "../../text/tasks.h"
#include "sections.h"
#include "stats.h"
#include "tables.h"

static void cell(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f ± %.4f |", s.mean, s.sd);
}

static void range(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f to %.4f |", s.lo, s.hi);
}

/* Where a scheme stands on a task of two classes, its seeds as the units
 * (the sentences of one seed's model are not independent draws): at
 * chance when its seeds' mean is shown within VERDICT_MARGIN of 0.5 (the
 * one-sample equivalence test), above chance when the t test puts it
 * above 0.5, and solved when that mean is EXP_SOLVED or more; every test
 * of the task's schemes one family (Benjamini-Hochberg). */
typedef enum { AT_CHANCE, SOLVED_IT, BETWEEN, NOT_TOLD } Verdict;

/* The verdicts of the S schemes of st on one task, into v. */
static void chance_verdicts(const Stat *st, size_t S, Verdict *v) {
    TestFamily f;
    family_init(&f, CORRECT_BH);
    size_t *at = exp_page_alloc(S, sizeof *at);
    for (size_t i = 0; at && i < S; i++) {
        double mean, lo, hi;
        double p = one_sample_t(st[i].v, st[i].n, 0.5, &mean, &lo, &hi);
        at[i] = family_add(&f, p, one_sample_tost_p(st[i].v, st[i].n, 0.5, VERDICT_MARGIN));
    }
    family_adjust(&f);
    for (size_t i = 0; i < S; i++) {
        v[i] = NOT_TOLD;
        if (!at || f.failed || isnan(st[i].mean) || at[i] >= f.n)
            continue;
        const FamilyTest *t = &f.t[at[i]];
        if (t->tost_adj < VERDICT_ALPHA)
            v[i] = AT_CHANCE;
        else if (t->p_adj < VERDICT_ALPHA && st[i].mean > 0.5)
            v[i] = st[i].mean >= EXP_SOLVED ? SOLVED_IT : BETWEEN;
    }
    free(at);
    family_free(&f);
}

/* "a (0.50), b (0.51)" for the schemes whose verdict is want. */
static size_t list_of(Buf *b, const Stat *st, const Verdict *v, Verdict want) {
    size_t k = 0;
    for (size_t i = 0; i < exp_scheme_count(); i++)
        if (!isnan(st[i].mean) && v[i] == want)
            buf_printf(b, "%s%s (%.2f)", k++ ? ", " : "", exp_scheme_at(i), st[i].mean);
    if (!k)
        buf_printf(b, "no scheme");
    return k;
}

/* How many distinct sentences the test split of task holds, for the
 * first seed's data (0 when it cannot be made). */
static size_t distinct_test_sentences(const char *task, size_t n_test) {
    TextData tr, va, te;
    Err e;
    TaskOptions o = {.n_test = n_test, .seed = 1};
    if (task_make(&tr, &va, &te, task, &o, &e))
        return 0;
    size_t distinct = 0;
    for (size_t i = 0; i < te.n; i++) {
        bool seen = false;
        size_t len = te.start[i + 1] - te.start[i];
        for (size_t j = 0; j < i && !seen; j++) {
            if (te.start[j + 1] - te.start[j] != len)
                continue;
            seen = true;
            for (size_t w = 0; w < len && seen; w++)
                seen = strcmp(te.word[te.start[i] + w], te.word[te.start[j] + w]) == 0;
        }
        distinct += !seen;
    }
    size_t n = te.n;
    textdata_free(&tr), textdata_free(&va), textdata_free(&te);
    return n ? distinct : 0;
}

/* ---- 1. order ---- */

void exp_order_section(Buf *b, const ExpResults *r) {
    size_t S = exp_scheme_count(), none = exp_scheme_index(exp_floor_scheme);
    double none_hi = NAN;
    buf_printf(b, "## 1. Order, untrained\n\nFor each seed, a model of each scheme (untrained) "
               "reads 4 sentences of 8 distinct words and a random reordering of each; the "
               "figure is the largest |difference| between a word's output row in the "
               "reordering and the same word's row in the sentence, as `demo_order` measures "
               "it (`results/order.csv`).\n\n| scheme | mean | lowest | highest | verdict |\n"
               "| --- | ---: | ---: | ---: | --- |\n");
    double blind_max = 0.0, others_min = INFINITY;
    size_t n_blind = 0;
    for (size_t i = 0; i < S; i++) {
        Stat st = exp_stat(r, EXP_ORDER, "order", exp_scheme_at(i), NULL, NULL);
        bool blind = st.hi <= ORDER_BLIND_TOL;
        buf_printf(b, "| %s | %.2e | %.2e | %.2e | %s |\n", exp_scheme_at(i), st.mean, st.lo,
                   st.hi, blind ? "order-blind" : "order-sensitive");
        if (blind)
            blind_max = fmax(blind_max, st.hi), n_blind++;
        else
            others_min = fmin(others_min, st.lo);
        if (i == none)
            none_hi = st.hi;
    }
    bool none_only = n_blind == 1 && none_hi <= ORDER_BLIND_TOL;
    buf_printf(b, "\n%s: %s is order-blind, its rows moving by at most %.1e (float rounding), "
               "and every other scheme moves them by at least %.2g; self-attention without "
               "position is permutation-equivariant and each code breaks the symmetry, as Yun "
               "et al. (2020) describe%s.\n\n",
               none_only ? "As expected" : "Not as expected",
               none_only ? "only none" : "more than none", blind_max, others_min,
               none_only ? "" : " (this run does not agree)");
}

/* ---- 2. agent and direction ---- */

/* Symmetric ALiBi on direction, and the forms that break its mirror
 * (di: direction's Stat per scheme of the grid). */
static const char *chance_words(Verdict v) {
    return v == AT_CHANCE ? "is at chance" : v == NOT_TOLD ? "is not told from chance"
                                                           : "is above chance";
}

static void alibi_mirror(Buf *b, const Stat *di, const Verdict *v) {
    size_t S = exp_scheme_count(), a = exp_scheme_index("alibi");
    /* not above chance: shown at it, or below 0.5 and not told from it */
    bool alibi_chance = a < S && (v[a] == AT_CHANCE || (v[a] == NOT_TOLD && di[a].mean <= 0.5));
    bool spread = alibi_chance && v[a] == NOT_TOLD;
    if (a < S && !isnan(di[a].mean)) {
        buf_printf(b, "Symmetric alibi %s on direction (%.2f", spread ? "is not above chance"
                   : chance_words(v[a]), di[a].mean);
        if (spread)
            buf_printf(b, "; its seeds spread too wide to show it within %.2f of 0.5",
                       VERDICT_MARGIN);
        buf_printf(b, "): %s",
                   alibi_chance
                       ? "a bias that is the same to the left and to the right gives a "
                         "sequence and its reverse the same sentence vector, and their labels "
                         "are opposite. Press et al.'s ALiBi is causal, so the paper never "
                         "meets this; the encoder form its first author gives (issue #5 of "
                         "ofirpress/attention_with_linear_biases, to which the authors' README "
                         "sends encoder users) is this symmetric bias, -m|i-j|, and an encoder "
                         "without a mask meets it unless something breaks the mirror."
                       : v[a] == NOT_TOLD
                           ? "the seeds cannot say whether it learned anything."
                           : "this is not what a reflection-blind model can do, and calls for "
                             "a closer look.");
    }
    /* the forms that break it: slopes that differ by side, a [CLS] word */
    static const char *const FORM[2] = {"asymmetric alibi", "cls alibi"};
    static const char *const HOW[2] = {
        "Asymmetric alibi (head h's slope m_h to the left of a word and m_(H-1-h) to its "
        "right: posenc's own form)",
        "Cls alibi (symmetric, with BERT's [CLS] word at position 0 of every sentence and its "
        "row as the sentence vector)"};
    for (int f = 0; f < 2; f++) {
        size_t as = exp_scheme_index(FORM[f]);
        if (as >= S || isnan(di[as].mean))
            continue;
        buf_printf(b, " %s %s on direction (%.2f, seeds %.2f to %.2f)%s", HOW[f],
                   chance_words(v[as]), di[as].mean, di[as].lo, di[as].hi,
                   v[as] == AT_CHANCE  ? ": this form did not give it direction here."
                   : v[as] == NOT_TOLD ? "."
                                       : ": the mirror is broken, and the task is learnable.");
    }
}

void exp_tasks_section(Buf *b, const ExpResults *r) {
    size_t S = exp_scheme_count();
    Stat *ag = exp_table_alloc(b, 2 * S, sizeof *ag), *di = ag ? ag + S : NULL;
    if (!ag)
        return;
    buf_printf(b, "## 2. Who did it, and which came first\n\nTest accuracy on `agent` (who "
               "did it: 'Rohan killed the lion' against 'lion killed the Rohan') and on "
               "`direction` (is the first digit greater than the last), %zu steps "
               "(`results/tasks.csv`). Both tasks need order; chance is 0.50.\n\n"
               "| scheme | agent | agent range | direction | direction range |\n"
               "| --- | ---: | ---: | ---: | ---: |\n", r->set.task_steps);
    for (size_t i = 0; i < S; i++) {
        ag[i] = exp_stat(r, EXP_TASKS, "agent", exp_scheme_at(i), NULL, NULL);
        di[i] = exp_stat(r, EXP_TASKS, "direction", exp_scheme_at(i), NULL, NULL);
        buf_printf(b, "| %s |", exp_scheme_at(i));
        cell(b, ag[i]), range(b, ag[i]), cell(b, di[i]), range(b, di[i]);
        buf_printf(b, "\n");
    }
    const Stat *task[2] = {ag, di};
    const char *tname[2] = {"agent", "direction"};
    Verdict *v = exp_table_alloc(b, 2 * S, sizeof *v);
    if (!v) {
        free(ag);
        return;
    }
    buf_printf(b, "\n");
    for (int t = 0; t < 2; t++) {
        chance_verdicts(task[t], S, v + (size_t)t * S);
        buf_printf(b, "On %s, at chance: ", tname[t]);
        list_of(b, task[t], v + (size_t)t * S, AT_CHANCE);
        buf_printf(b, "; 0.95 or more: ");
        list_of(b, task[t], v + (size_t)t * S, SOLVED_IT);
        buf_printf(b, "; above chance, below 0.95: ");
        list_of(b, task[t], v + (size_t)t * S, BETWEEN);
        buf_printf(b, "; not told from chance: ");
        list_of(b, task[t], v + (size_t)t * S, NOT_TOLD);
        buf_printf(b, ". ");
    }
    alibi_mirror(b, di, v + S);
    buf_printf(b, "\n\n");
    /* the rule, on the page that applies it */
    buf_printf(b, "The seeds are the units: at chance means that the mean of a scheme's %zu "
               "seeds is shown within %.2f of 0.5 (two one-sided t tests), above chance that "
               "a t test puts it above 0.5; the tests of the schemes of one task are one "
               "family (Benjamini-Hochberg). A seed's %zu test sentences are no independent "
               "draws (they come from one model), and they repeat:", r->set.seeds,
               VERDICT_MARGIN, r->set.n_test);
    for (int t = 0; t < 2; t++)
        buf_printf(b, "%s %s's test split of seed 1 holds %zu distinct sentences", t ? ";" : "",
                   tname[t], distinct_test_sentences(tname[t], r->set.n_test));
    buf_printf(b, ".\n\n");
    free(v);
    free(ag);
}
