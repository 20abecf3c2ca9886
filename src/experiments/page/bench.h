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
#include "verdict.h"

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

/* Writes b as DIR/benchmark/NAME (atomically), and frees it. */
int exp_bench_csv(const char *dir, const char *name, Buf *b, Err *e);
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

/* The stability of claim 1's verdict (bench_claim1.c): resample i, 1..
 * BENCH_STABILITY_RESAMPLES, draws each cell's seeds again with
 * replacement (a task and a column: n draws from its n seeds, with
 * xoshiro256** seeded with BENCH_STABILITY_SEED + i; the tasks in the
 * grid's order, a task's pairs in BenchPairs' order, the randomized form
 * first; a seed's accuracy past N and at N drawn together) and decides the
 * claim again at every gate. verdict[i * (BENCH_GATES + 1) + k] is gate
 * k's ClaimVerdict, then the claim's; count[] the claim's over them all. */
#define BENCH_STABILITY_RESAMPLES 1000
#define BENCH_STABILITY_SEED 1000
typedef struct {
    size_t n;
    size_t count[4]; /* by ClaimVerdict */
    unsigned char *verdict;
} BenchStability;

/* What the page's sections read: the runs, the chance floors, the pairs,
 * claim 1's stability. */
typedef struct {
    const ExpResults *r;
    BenchChance chance;
    BenchPairs pairs;
    BenchStability stability;
} BenchPage;

/* ---- the paired tests (bench_paired.c) ---- */

/* The gates on the accuracy at N, 0 for none: claim 1 is tested under
 * each, and its verdict is the ungated one only if no gate changes it. */
#define BENCH_GATES 5
extern const double exp_bench_gates[BENCH_GATES];
#define BENCH_PAIRED_MIN 6       /* fewer units cannot reach p < 0.05: 2 / 2^5 */
#define BENCH_PAIRED_DRAWS 10000 /* bootstrap resamples */
#define BENCH_PAIRED_SEED 1      /* the bootstrap's generator: the same interval every run */
/* Ruoss et al.'s abstract: the randomized forms raise the test accuracy
 * by 12.0 points on average over their 15 tasks */
#define BENCH_PAPER_GAIN 12.0

/* A pair on a task: its two forms' seeds on a band, and at N (the same
 * seeds in the same order). */
typedef struct {
    Stat rnd, plain;
    Stat rnd_N, plain_N;
} BenchPair;
/* Every pair on every task ([t * pairs + p]), with the tasks' chance
 * floors on the band (NaN without floors: the training lengths). */
typedef struct {
    size_t tasks, pairs;
    BenchPair *at;
    double *floor;
    Band band;
} BenchPairGrid;
int exp_bench_pair_grid(BenchPairGrid *g, const BenchPage *bp, Band band, bool floors);
void exp_bench_pair_grid_free(BenchPairGrid *g);

/* Whether pair p of task t is compared under gate (0: none), the pair
 * table's rule for every test of the claim: V_TESTABLE, or why not (a
 * form did not learn the training lengths at the gate, both at the
 * ceiling, both at the floor, in that order). */
PairVerdict exp_bench_pair_in(const BenchPairGrid *g, size_t t, size_t p, double gate);
/* The differences random - plain of the means over seeds: each pair's
 * (d, *n_d) and each task's mean over its pairs (task, *n_task, the tasks
 * with one or more); with rule, only the pairs exp_bench_pair_in lets in,
 * else every pair with both measured. */
void exp_bench_differences(const BenchPairGrid *g, double gate, bool rule, double *d,
                           size_t *n_d, double *task, size_t *n_task);

/* One test of random - plain over n units (tasks, or pairs) standing for
 * pairs pairs, lower of them below 0: Wilcoxon's signed-rank test, exact,
 * and a bootstrap interval of the mean; agrees when p < alpha and the
 * interval lies above 0, disagrees when below, else cannot tell, or
 * cannot be tested with fewer than BENCH_PAIRED_MIN units. Without
 * interval, the interval is drawn only where p rejects (the verdict is
 * the same). */
typedef struct {
    size_t n, pairs, lower;
    double mean, lo, hi, p;
    bool exact;
    ClaimVerdict v;
} Paired;
Paired exp_bench_test_units(const double *d, size_t n, size_t pairs, bool interval);
/* The tests on g's band at gate: by task (units[0]) and, with interval,
 * by pair (units[1]). */
void exp_bench_tests_at(const BenchPairGrid *g, double gate, bool rule, bool interval,
                        Paired units[2]);
/* Claim 1 at every gate (x[k], by task and by pair), its verdict: the
 * ungated one unless a gate moves it (*moved), then cannot tell. */
ClaimVerdict exp_bench_claim1(const BenchPairGrid *g, Paired x[BENCH_GATES][2], bool interval,
                              bool *moved);
/* "5.0e-07 (exact)": p to two digits and the method that gave it. */
void exp_bench_p_text(Buf *b, const Paired *x);

/* Claim 1's stability (above), and benchmark/stability.csv from it. */
int exp_bench_stability(BenchStability *s, const BenchPage *bp, size_t resamples);
void exp_bench_stability_free(BenchStability *s);
int exp_bench_stability_csv(const BenchPage *bp, const char *dir, Err *e);

/* DIR/img/benchmark/mean.png (every column's accuracy by input length,
 * the mean over tasks), paper.png (none and Ruoss et al.'s encodings with
 * their randomized forms) and others.png (the other schemes), the last
 * two a panel per task; and the section that shows them, with each
 * column's score over the test lengths (and the earlier protocol's). */
int exp_bench_figures(const BenchPage *p, const char *dir, Err *e);
void exp_bench_lengths(Buf *b, const BenchPage *p);
/* Ruoss et al.'s first claim: the randomized forms against their plain
 * ones, by task (the primary test) and by pair, with its stability
 * (bench_claim1.c); what they cost on the training lengths, by what
 * learned (bench_cost.c). */
void exp_bench_claim1_section(Buf *b, const BenchPage *p);
void exp_bench_cost(Buf *b, const BenchPage *p);
/* The section "sparser positions": the randomized columns beside the same
 * grid at a wider range of random positions (r->sparser; none without
 * it), bench_sparser.c. */
void exp_bench_sparser(Buf *b, const BenchPage *p);
/* The page's last section: each test's procedure to the detail a reader
 * needs to recompute the page (bench_paired.c: the bootstrap is its). */
void exp_bench_how(Buf *b, const BenchPage *p);
/* The chance floor's table, and the page's last sections: the rules and
 * the paper's claims checked one by one (bench_claims.c). */
void exp_bench_chance_table(Buf *b, const BenchPage *p);
void exp_bench_claims(Buf *b, const BenchPage *p);

#endif
