/* What the benchmark's page shares: its bands, its statistics per task and
 * column (bench_data.c, which the writers below build on), each task's
 * chance floor (bench_chance.c), its figures (bench_figures.c), the
 * randomized forms against their plain ones (bench_paired.c) and the
 * other claims (bench_claims.c), which bench_page.c's page calls. */
#ifndef POSENC_EXP_BENCH_H
#define POSENC_EXP_BENCH_H

#include <stdbool.h>

#include "../../core/buf.h"
#include "../../text/data.h"
#include "results.h"

/* The training lengths 1..N and the test lengths N+1..M. */
Band exp_bench_trained(const ExpResults *r);
Band exp_bench_tested(const ExpResults *r);
/* The test lengths of the earlier protocol, which tested to 25: N+1..25
 * of the same models. Shown beside N+1..M only when M is past 25 (and N
 * below it); *shown says whether. */
#define BENCH_EARLIER_M 25
Band exp_bench_earlier(const ExpResults *r, bool *shown);
/* A column's seeds on a task, by their mean accuracy (or exact-match
 * rate) over band. */
Stat exp_bench_stat(const ExpResults *r, const char *task, const char *column, Band band,
                    bool exact);
/* A table's bold: the best of a row, and any value within half a unit
 * of the last printed digit of it, before rounding: BENCH_BOLD in the
 * tables in % (printed to 0.1), BENCH_BOLD_FRACTION in claim 3's (printed
 * to 0.001). Two values a unit apart in print may both be bold (26.6 and
 * 26.7), two that print the same may not be; the page says so. */
#define BENCH_BOLD 0.05
#define BENCH_BOLD_FRACTION 5e-4
/* The accuracy at the longest trained length N, the mean over seeds:
 * what "learned the training lengths" reads on this page (a mean over
 * 1..N would pass a model that fails at N). */
double exp_bench_at_N(const ExpResults *r, const char *task, const char *column);
/* "a mean over seeds of 0.90 or more at length 10, the longest trained":
 * what "learned the training lengths" means on this page, in the one
 * wording every sentence that uses it places (the rules, the pairs,
 * claim 2). A fragment the caller frees (exp_bench_part_done). */
Buf exp_bench_learned_text(const ExpResults *r);
/* A TaskLevel in words ("regular", "deterministic context-free", ...),
 * and the level of the grid's task t. */
const char *exp_bench_level_name(size_t level);
const char *exp_bench_level(const ExpResults *r, size_t t);

/* Frees part, a fragment the code built for a template (a table, a list,
 * a phrase), after the template placed it: out of memory in the part is
 * the page's, which then is not written. */
void exp_bench_part_done(Buf *page, Buf *part);

/* ---- a task's chance floor (bench_chance.c) ---- */

/* The answers on some tapes' blanks (the scored ones: an input word or
 * the padding after an answer is not) and how often each. */
#define BENCH_ANSWERS 64
typedef struct {
    char label[BENCH_ANSWERS][16];
    size_t count[BENCH_ANSWERS];
    size_t n, blanks; /* answers, and blanks counted */
} BenchAnswers;
/* Counts d's blanks into a (zeroed first); -1 when d holds a sentence
 * task's labels, more than BENCH_ANSWERS answers or a longer one. */
int exp_answers_add(BenchAnswers *a, const TextData *d);
/* The commonest answer's index (of equal counts, the first in byte
 * order), and the count of one answer (0 if never seen). */
size_t exp_answers_commonest(const BenchAnswers *a);
size_t exp_answers_count(const BenchAnswers *a, const char *label);

/* The chance floor: the accuracy of always giving a task's commonest
 * answer on its test tapes, the tapes the cells scored (every seed's, at
 * every test length N+1..M), the answer the commonest over them all; its
 * share of the blanks at each length, and their mean over a band as a
 * score is. */
typedef struct {
    size_t n_tasks, N, M;
    double *share;       /* (n_tasks, M + 1): the answer's share at each length; NaN to N */
    size_t *blanks;      /* (n_tasks, M + 1): the blanks counted at each length */
    char (*answer)[16];  /* (n_tasks): the task's commonest answer */
} BenchChance;
int exp_bench_chance(BenchChance *c, const ExpResults *r, Err *e);
/* Task t's floor on a band of test lengths; NaN for a band that is not. */
double exp_bench_chance_at(const BenchChance *c, size_t t, Band band);
void exp_bench_chance_free(BenchChance *c);

/* ---- the page's parts ---- */

/* The paper's encodings that have a randomized form: column plain[k] is
 * X and rnd[k] "random X", both among the paper's columns. */
typedef struct {
    size_t plain[EXP_BENCH_MAX], rnd[EXP_BENCH_MAX];
    size_t n;
} BenchPairs;
void exp_bench_pairs(BenchPairs *p, const ExpResults *r);

/* What the page's sections read: the runs, the chance floors, the pairs. */
typedef struct {
    const ExpResults *r;
    BenchChance chance;
    BenchPairs pairs;
} BenchPage;

/* DIR/img/benchmark/mean.png (every column's accuracy by input length,
 * the mean over tasks), paper.png (none and Ruoss et al.'s encodings with
 * their randomized forms) and others.png (the other schemes), the last
 * two a panel per task; and the section that shows them, with each
 * column's score over the test lengths (and the earlier protocol's). */
int exp_bench_figures(const BenchPage *p, const char *dir, Err *e);
void exp_bench_lengths(Buf *b, const BenchPage *p);
/* Ruoss et al.'s first claim: the randomized forms against their plain
 * ones, by task (the primary test) and by pair, past N and on the
 * training lengths (bench_paired.c). */
void exp_bench_randomized(Buf *b, const BenchPage *p);
/* The page's last section: each test's procedure to the detail a reader
 * needs to recompute the page (bench_paired.c: the bootstrap is its). */
void exp_bench_how(Buf *b, const BenchPage *p);
/* The chance floor's table, and the page's last sections: the rules and
 * the paper's claims checked one by one (bench_claims.c). */
void exp_bench_chance_table(Buf *b, const BenchPage *p);
void exp_bench_claims(Buf *b, const BenchPage *p);

#endif
