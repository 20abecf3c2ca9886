/* Sections 1 and 2 of the page, what order buys: whether an untrained
 * model's rows move when the words do, and which schemes learn the two
 * tasks that need order (at chance, solved, or between, by a binomial
 * interval). */
#include <math.h>
#include <stdlib.h>

#include "../../text/order.h"
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

/* "a (0.50), b (0.51)" for the schemes whose verdict is v (st: one per
 * scheme of the grid). */
static size_t list_of(Buf *b, const Stat *st, Verdict v, size_t items) {
    size_t k = 0;
    for (size_t i = 0; i < exp_scheme_count(); i++)
        if (!isnan(st[i].mean) && verdict(st[i], items) == v)
            buf_printf(b, "%s%s (%.2f)", k++ ? ", " : "", exp_scheme_at(i), st[i].mean);
    if (!k)
        buf_printf(b, "no scheme");
    return k;
}

/* ---- 1. order ---- */

void exp_order_section(Buf *b, const ExpResults *r) {
    size_t S = exp_scheme_count(), none = exp_scheme_index("none");
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
static void alibi_mirror(Buf *b, const Stat *di, size_t n_test) {
    size_t S = exp_scheme_count(), a = exp_scheme_index("alibi");
    bool alibi_chance = a < S && at_chance(di[a], n_test);
    if (a < S && !isnan(di[a].mean))
        buf_printf(b, "Symmetric alibi %s on direction (%.2f): %s",
                   alibi_chance ? "is at chance" : "is above chance", di[a].mean,
                   alibi_chance
                       ? "a bias that is the same to the left and to the right gives a "
                         "sequence and its reverse the same sentence vector, and their labels "
                         "are opposite. Press et al.'s ALiBi is causal, so the paper never "
                         "meets this; the encoder form its first author gives (issue #5 of "
                         "ofirpress/attention_with_linear_biases, to which the authors' README "
                         "sends encoder users) is this symmetric bias, -m|i-j|, and an encoder "
                         "without a mask meets it unless something breaks the mirror."
                       : "this is not what a reflection-blind model can do, and calls for a "
                         "closer look.");
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
        bool as_chance = at_chance(di[as], n_test);
        buf_printf(b, " %s %s on direction (%.2f, seeds %.2f to %.2f)%s", HOW[f],
                   as_chance ? "is at chance" : "is above chance", di[as].mean, di[as].lo,
                   di[as].hi,
                   as_chance ? ": this form did not give it direction here."
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
    buf_printf(b, "\n");
    for (int t = 0; t < 2; t++) {
        buf_printf(b, "On %s, at chance: ", tname[t]);
        list_of(b, task[t], AT_CHANCE, r->set.n_test);
        buf_printf(b, "; 0.95 or more: ");
        list_of(b, task[t], SOLVED_IT, r->set.n_test);
        buf_printf(b, "; between: ");
        list_of(b, task[t], BETWEEN, r->set.n_test);
        buf_printf(b, ". ");
    }
    alibi_mirror(b, di, r->set.n_test);
    buf_printf(b, "\n\n");
    /* the rule, on the page that applies it */
    buf_printf(b, "At chance means that the 95%% Wilson interval of the %zu x %zu test "
               "sentences of all seeds, pooled, holds 0.5.\n\n", r->set.seeds, r->set.n_test);
    free(ag);
}
