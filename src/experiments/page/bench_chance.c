/* The chance floor of the benchmark's tasks (bench.h): the accuracy of
 * always giving a task's commonest answer, counted on the test tapes the
 * cells scored, made again here from the options the cells test on
 * (exp_bench_test_tapes: src/text's generators are reproducible from the
 * task, length, count and seed alone), so that no cell need store them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../text/tasks.h"
#include "../protocol.h"
#include "bench.h"

int exp_answers_add(BenchAnswers *a, const TextData *d) {
    if (d->kind != LABELS_TOKEN)
        return -1;
    for (size_t j = 0; j < d->start[d->n]; j++) {
        const char *l = d->label[j];
        if (strcmp(l, DATA_NO_LABEL) == 0) /* an input word, or padding: never scored */
            continue;
        size_t k = 0;
        while (k < a->n && strcmp(a->label[k], l) != 0)
            k++;
        if (k == a->n) {
            if (a->n == BENCH_ANSWERS || strlen(l) >= sizeof a->label[0])
                return -1;
            snprintf(a->label[a->n++], sizeof a->label[0], "%s", l);
        }
        a->count[k]++, a->blanks++;
    }
    return 0;
}

size_t exp_answers_commonest(const BenchAnswers *a) {
    size_t best = 0; /* of equal counts, the answer first in byte order: the same every run */
    for (size_t k = 1; k < a->n; k++)
        if (a->count[k] > a->count[best] ||
            (a->count[k] == a->count[best] && strcmp(a->label[k], a->label[best]) < 0))
            best = k;
    return best;
}

size_t exp_answers_count(const BenchAnswers *a, const char *label) {
    for (size_t k = 0; k < a->n; k++)
        if (strcmp(a->label[k], label) == 0)
            return a->count[k];
    return 0;
}

/* The answers on the test tapes of length n for the seeds, the tapes the
 * cells test on (exp_bench_test_tapes), pooled. */
static int answers_at(BenchAnswers *a, const ExpSettings *set, const char *task, size_t n,
                      Err *e) {
    int rc = 0;
    for (size_t s = 0; s < set->seeds && !rc; s++) {
        TaskOptions o = exp_bench_test_tapes(n, set->bench_per_len, 1 + s);
        TextData d[3];
        rc = task_make(&d[0], &d[1], &d[2], task, &o, e);
        if (rc) /* the three are left empty */
            break;
        if (exp_answers_add(a, &d[2]))
            rc = err_set(e, ERR_INPUT, "%s's tapes of length %zu have more than %d answers, "
                         "or one longer than %zu bytes: the chance floor cannot count them",
                         task, n, BENCH_ANSWERS, sizeof a->label[0] - 1);
        for (int i = 0; i < 3; i++)
            textdata_free(&d[i]);
    }
    return rc;
}

/* Task t's floor: its answers counted at each tested length, the
 * commonest over them all, and that answer's share at each length. */
static int chance_task(BenchChance *c, const ExpSettings *set, size_t t, Err *e) {
    size_t N = set->bench_N, M = set->bench_M;
    BenchAnswers *at = xcalloc(M + 1, sizeof *at, "the chance floor's counts", e);
    BenchAnswers *all = xcalloc(1, sizeof *all, "the chance floor's counts", e);
    int rc = at && all ? 0 : ERR_RUNTIME;
    for (size_t n = N + 1; n <= M && !rc; n++)
        rc = answers_at(&at[n], set, set->bench_task[t], n, e);
    for (size_t n = N + 1; n <= M && !rc; n++)
        for (size_t k = 0; k < at[n].n && !rc; k++) {
            size_t j = 0;
            while (j < all->n && strcmp(all->label[j], at[n].label[k]) != 0)
                j++;
            if (j == all->n) /* fits: each length's answers did */
                memcpy(all->label[all->n++], at[n].label[k], sizeof all->label[0]);
            all->count[j] += at[n].count[k];
        }
    if (!rc && all->n == 0)
        rc = err_set(e, ERR_INPUT, "%s's test tapes have no blank to score", set->bench_task[t]);
    if (!rc) {
        const char *answer = all->label[exp_answers_commonest(all)];
        snprintf(c->answer[t], sizeof c->answer[t], "%s", answer);
        for (size_t n = N + 1; n <= M; n++) {
            c->blanks[t * (M + 1) + n] = at[n].blanks;
            c->share[t * (M + 1) + n] =
                (double)exp_answers_count(&at[n], answer) / (double)at[n].blanks;
        }
    }
    free(at);
    free(all);
    return rc;
}

int exp_bench_chance(BenchChance *c, const ExpResults *r, Err *e) {
    const ExpSettings *set = &r->set;
    size_t cells = set->bench_n_tasks * (set->bench_M + 1);
    *c = (BenchChance){.n_tasks = set->bench_n_tasks, .N = set->bench_N, .M = set->bench_M};
    c->share = xcalloc(cells, sizeof *c->share, "the chance floor", e);
    c->blanks = xcalloc(cells, sizeof *c->blanks, "the chance floor", e);
    c->answer = xcalloc(set->bench_n_tasks, sizeof *c->answer, "the chance floor", e);
    int rc = c->share && c->blanks && c->answer ? 0 : ERR_RUNTIME;
    for (size_t i = 0; !rc && i < cells; i++)
        c->share[i] = NAN; /* the trained lengths: no floor drawn there */
    for (size_t t = 0; t < set->bench_n_tasks && !rc; t++)
        rc = chance_task(c, set, t, e);
    if (rc)
        exp_bench_chance_free(c);
    return rc;
}

double exp_bench_chance_at(const BenchChance *c, size_t t, Band band) {
    if (t >= c->n_tasks || band.lo <= c->N || band.hi > c->M || band.lo > band.hi)
        return NAN;
    double sum = 0.0;
    for (size_t n = band.lo; n <= band.hi; n++)
        sum += c->share[t * (c->M + 1) + n];
    return sum / (double)(band.hi - band.lo + 1);
}

void exp_bench_chance_free(BenchChance *c) {
    free(c->share), free(c->blanks), free(c->answer);
    *c = (BenchChance){0};
}
