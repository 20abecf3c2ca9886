/* Sections 1 and 2 of the page, what order buys: whether an untrained
 * model's rows move when the words do, and which schemes learn the two
 * tasks that need order (at chance, solved, or between, the seeds as
 * units). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../stats/stats.h"
#include "../../text/order.h"
#include "../../text/tasks.h"
#include "errors.h"
#include "prose.h"
#include "sections.h"
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
        PROSE_TEXT(b, "tasks.no_scheme");
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
    double none_hi = NAN, blind_max = 0.0, others_min = INFINITY;
    size_t n_blind = 0;
    Buf rows = {0};
    for (size_t i = 0; i < S; i++) {
        Stat st = exp_stat(r, EXP_ORDER, "order", exp_scheme_at(i), NULL, NULL);
        bool blind = st.hi <= ORDER_BLIND_TOL;
        buf_printf(&rows, "%s| %s | %.2e | %.2e | %.2e | %s |", i ? "\n" : "", exp_scheme_at(i),
                   st.mean, st.lo, st.hi, blind ? "order-blind" : "order-sensitive");
        if (blind)
            blind_max = fmax(blind_max, st.hi), n_blind++;
        else
            others_min = fmin(others_min, st.lo);
        if (i == none)
            none_hi = st.hi;
    }
    /* the expectation: none alone is blind (Yun et al.) */
    bool none_only = n_blind == 1 && none_hi <= ORDER_BLIND_TOL;
    PROSE(b, "order", pv_buf("rows", &rows),
          pv_tmpl("expected", none_only ? "order.expected" : "order.unexpected"),
          pv_tmpl("blind", none_only ? "order.only_none" : "order.not_only_none"),
          pv_real("blind_max", blind_max), pv_real("others_min", others_min),
          none_only ? pv_text("disagrees", "") : pv_tmpl("disagrees", "order.disagrees"));
    buf_printf(b, "\n\n");
    exp_part_done(b, &rows);
}

/* ---- 2. agent and direction ---- */

static const char *const TASK[2] = {"agent", "direction"};

/* How a scheme stands against chance, as the sentences word it. */
static const char *chance_name(Verdict v) {
    return v == AT_CHANCE ? "chance.at" : v == NOT_TOLD ? "chance.untold" : "chance.above";
}

/* Symmetric ALiBi on direction, and the forms that break its mirror
 * (di: direction's Stat per scheme of the grid, v their verdicts). */
static void alibi_mirror(Buf *b, const Stat *di, const Verdict *v) {
    size_t S = exp_scheme_count(), a = exp_scheme_index("alibi");
    /* not above chance: shown at it, or below 0.5 and not told from it */
    bool alibi_chance = a < S && (v[a] == AT_CHANCE || (v[a] == NOT_TOLD && di[a].mean <= 0.5));
    bool spread = alibi_chance && v[a] == NOT_TOLD;
    if (a < S && !isnan(di[a].mean)) {
        Buf wide = {0};
        if (spread)
            PROSE(&wide, "tasks.spread", pv_real("margin", VERDICT_MARGIN));
        PROSE(b, "tasks.alibi",
              pv_tmpl("stands", spread ? "chance.not_above" : chance_name(v[a])),
              pv_real("mean", di[a].mean), pv_buf("spread", &wide),
              pv_tmpl("why", alibi_chance         ? "tasks.mirror"
                             : v[a] == NOT_TOLD   ? "tasks.unsure"
                                                  : "tasks.closer_look"));
        exp_part_done(b, &wide);
    }
    /* the forms that break it: slopes that differ by side, a [CLS] word */
    static const char *const FORM[2] = {"asymmetric alibi", "cls alibi"};
    static const char *const HOW[2] = {"tasks.asymmetric", "tasks.cls"};
    for (int f = 0; f < 2; f++) {
        size_t as = exp_scheme_index(FORM[f]);
        if (as >= S || isnan(di[as].mean))
            continue;
        buf_printf(b, " ");
        PROSE(b, "tasks.form", pv_tmpl("form", HOW[f]), pv_tmpl("stands", chance_name(v[as])),
              pv_real("mean", di[as].mean), pv_real("lo", di[as].lo), pv_real("hi", di[as].hi),
              pv_tmpl("then", v[as] == AT_CHANCE  ? "tasks.no_direction"
                              : v[as] == NOT_TOLD ? "tasks.told_nothing"
                                                  : "tasks.broken"));
    }
}

/* The table's rows (no newline after the last), each scheme's Stats
 * kept in ag and di. */
static void tasks_rows(Buf *rows, const ExpResults *r, Stat *ag, Stat *di) {
    for (size_t i = 0; i < exp_scheme_count(); i++) {
        ag[i] = exp_stat(r, EXP_TASKS, TASK[0], exp_scheme_at(i), NULL, NULL);
        di[i] = exp_stat(r, EXP_TASKS, TASK[1], exp_scheme_at(i), NULL, NULL);
        buf_printf(rows, "%s| %s |", i ? "\n" : "", exp_scheme_at(i));
        cell(rows, ag[i]), range(rows, ag[i]), cell(rows, di[i]), range(rows, di[i]);
    }
}

/* A task's verdicts, each followed by a space: the schemes at chance,
 * solved, between, and not told from chance. */
static void chance_says(Buf *b, const char *task, const Stat *st, const Verdict *v) {
    static const Verdict WANT[4] = {AT_CHANCE, SOLVED_IT, BETWEEN, NOT_TOLD};
    Buf list[4] = {{0}};
    for (int k = 0; k < 4; k++)
        list_of(&list[k], st, v, WANT[k]);
    PROSE(b, "tasks.chance", pv_text("task", task), pv_buf("at_chance", &list[0]),
          pv_real("solved", EXP_SOLVED), pv_buf("solved_it", &list[1]),
          pv_buf("between", &list[2]), pv_buf("not_told", &list[3]));
    buf_printf(b, " ");
    for (int k = 0; k < 4; k++)
        exp_part_done(b, &list[k]);
}

void exp_tasks_section(Buf *b, const ExpResults *r) {
    size_t S = exp_scheme_count();
    Stat *ag = exp_table_alloc(b, 2 * S, sizeof *ag), *di = ag ? ag + S : NULL;
    Verdict *v = exp_table_alloc(b, 2 * S, sizeof *v);
    if (!ag || !v) {
        free(ag), free(v);
        return;
    }
    Buf rows = {0}, says = {0}, distinct = {0};
    tasks_rows(&rows, r, ag, di);
    const Stat *task[2] = {ag, di};
    for (int t = 0; t < 2; t++) {
        chance_verdicts(task[t], S, v + (size_t)t * S);
        chance_says(&says, TASK[t], task[t], v + (size_t)t * S);
    }
    alibi_mirror(&says, di, v + S);
    /* the rule, on the page that applies it, with how far the test
     * sentences are from independent draws */
    for (int t = 0; t < 2; t++) {
        buf_printf(&distinct, "%s", t ? "; " : "");
        PROSE(&distinct, "tasks.distinct", pv_text("task", TASK[t]),
              pv_count("distinct", distinct_test_sentences(TASK[t], r->set.n_test)));
    }
    PROSE(b, "tasks", pv_count("steps", r->set.task_steps), pv_buf("rows", &rows),
          pv_buf("verdicts", &says), pv_count("seeds", r->set.seeds),
          pv_real("margin", VERDICT_MARGIN), pv_count("n_test", r->set.n_test),
          pv_buf("distinct", &distinct));
    buf_printf(b, "\n\n");
    exp_part_done(b, &rows), exp_part_done(b, &says), exp_part_done(b, &distinct);
    free(v);
    free(ag);
}
