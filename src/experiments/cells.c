/* The grid's cells: one training (or, for section 1, one untrained model)
 * per (section, task, scheme, seed), each with its own small result file,
 * so that a run can stop anywhere, go on later, run several cells at
 * once, or hand them to other machines; named by what they run
 * ("lengths-reverse-rope-s2"), and weighed by their training steps. */
#include <stdio.h>
#include <string.h>

#include "../text/tasks.h"
#include "grid.h"

const char *const exp_kind_names[EXP_KINDS] = {"order",   "tasks",       "lengths",
                                               "random",  "variants",    "random-test",
                                               "scaling", "causal",      "probe",
                                               "bench"};
static const char *const tasks2[2] = {"agent", "direction"};

/* "interleaved, add, scaled" -> "interleaved-add-scaled", "random xl (as run)" ->
 * "random-xl-as-run" */
static void slug(char *dst, size_t cap, const char *name) {
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < cap; i++) {
        if (name[i] == ',' || name[i] == '(' || name[i] == ')')
            continue;
        dst[j++] = name[i] == ' ' ? '-' : name[i];
    }
    dst[j] = '\0';
}

static void add(ExpCell *cells, size_t *n, ExpKind kind, const char *task, const char *name,
                size_t seed, size_t variant, double cost) {
    ExpCell *c = &cells[(*n)++];
    memset(c, 0, sizeof *c);
    c->kind = kind, c->seed = seed, c->variant = variant, c->cost = cost;
    snprintf(c->task, sizeof c->task, "%s", task);
    snprintf(c->name, sizeof c->name, "%s", name);
    char s[sizeof c->name];
    slug(s, sizeof s, name);
    if (kind == EXP_ORDER)
        snprintf(c->id, sizeof c->id, "%s-%s-s%zu", exp_kind_names[kind], s, seed + 1);
    else
        snprintf(c->id, sizeof c->id, "%s-%s-%s-s%zu", exp_kind_names[kind], task, s, seed + 1);
}

/* What a tape of t tokens costs to run forward, in units of a token of a
 * short tape: the products grow with t, the heads' scores and exps with
 * t^2 (one run, a duplicate_string cell on one thread, 2026-11-29:
 * training at about 16 tokens a tape and tests at about 250 gave
 * 1 + t / 118). */
static double tape_cost(double t) { return t * (1.0 + t / 118.0); }

/* A benchmark cell's weight for the time left: its training steps
 * (forward and backward, about three forward passes, over tapes of 1..N
 * words) and its tests (per_len tapes of each length 1..M, forward
 * only). */
static double bench_cost(const ExpSettings *set, const Task *task) {
    double train = 0.0, test = 0.0;
    for (size_t n = 1; n <= set->bench_N; n++)
        train += tape_cost((double)(n + task->blanks(n))) / (double)set->bench_N;
    for (size_t n = 1; n <= set->bench_M; n++)
        test += tape_cost((double)(n + task->blanks(n)));
    return 3.0 * (double)(set->bench_steps * set->batch) * train +
           (double)set->bench_per_len * test;
}

/* The benchmark's grid: task by task, column by column, rate by rate
 * (variant: the rate's place in a sweep), seed by seed, each cell
 * weighed by bench_cost. */
static int bench_cells(const ExpSettings *set, ExpCell **out, size_t *n_out, Err *e) {
    size_t n = 0;
    ExpCell *c = xcalloc(set->bench_n_tasks * set->bench_columns * set->seeds *
                             set->bench_n_lr, sizeof *c, "the benchmark's cells", e);
    if (!c)
        return ERR_RUNTIME;
    for (size_t t = 0; t < set->bench_n_tasks; t++) {
        double cost = bench_cost(set, task_find(set->bench_task[t]));
        for (size_t s = 0; s < set->bench_columns; s++)
            for (size_t r = 0; r < set->bench_n_lr; r++)
                for (size_t i = 0; i < exp_bench_seeds(set, s); i++) {
                    add(c, &n, EXP_BENCH, set->bench_task[t], exp_bench_column(set, s), i, r,
                        cost);
                    if (set->bench_n_lr > 1) { /* a sweep: the rate in the name */
                        char col[sizeof c->name];
                        slug(col, sizeof col, exp_bench_column(set, s));
                        snprintf(c[n - 1].id, sizeof c[n - 1].id, "bench-%s-%s-lr%g-s%zu",
                                 set->bench_task[t], col, set->bench_lr[r], i + 1);
                    }
                }
    }
    *out = c;
    *n_out = n;
    return 0;
}

bool exp_cell_holds_scaling(const ExpCell *cell) {
    const char *s = exp_scaling_scheme();
    return cell->kind == EXP_LENGTHS && s && strcmp(cell->name, s) == 0;
}

static bool length_task(const char *task) {
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        if (strcmp(task, exp_length_tasks[t]) == 0)
            return true;
    return false;
}

/* The cell just added is held by the cell of kind, task and name of the
 * same seed: in the page's list it names its holder, and from the list of
 * cells that run it is taken off again. */
static void held(ExpCell *cells, size_t *n, bool page, ExpKind kind, const char *task,
                 const char *name) {
    ExpCell *c = &cells[*n - 1];
    if (!page) {
        (*n)--;
        return;
    }
    snprintf(c->held_by, sizeof c->held_by, "%s-%s-%s-s%zu", exp_kind_names[kind], task, name,
             c->seed + 1);
}

/* The results grid's cells; with page, also those another cell holds. */
static int grid_cells(const ExpSettings *set, bool page, ExpCell **out, size_t *n_out, Err *e) {
    size_t S = exp_scheme_count(), k = set->seeds;
    const char *scaled = exp_scaling_scheme();
    size_t total = S * k + 2 * S * k + EXP_LENGTH_TASKS * (S + EXP_RANDOM_SCHEMES) * k +
                   EXP_VARIANTS * set->variant_seeds + EXP_LENGTH_TASKS * k +
                   EXP_CAUSAL_TASKS * (EXP_CAUSAL_SCHEMES + 1) * k + EXP_PROBES * k;
    ExpCell *c = xcalloc(total, sizeof *c, "the experiments' cells", e);
    if (!c)
        return ERR_RUNTIME;
    size_t n = 0;
    /* the cost of a cell, for the time left: its training steps (the
     * length runs also evaluate four times the lengths) */
    double order = 1.0, task = (double)set->task_steps, len = 1.3 * (double)set->length_steps;
    /* the scaled scheme's length runs hold section 6: one training at L,
     * then 7 evaluations and 7 fine-tunings */
    double scaling = len + (double)EXP_SCALINGS * 1.3 * (double)set->tune_steps;
    for (size_t s = 0; s < S; s++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_ORDER, "order", exp_scheme_at(s), i, 0, order);
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < S; s++)
            for (size_t i = 0; i < k; i++)
                add(c, &n, EXP_TASKS, tasks2[t], exp_scheme_at(s), i, 0, task);
    for (int rnd = 0; rnd < 2; rnd++)
        for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
            for (size_t s = 0; s < (rnd ? EXP_RANDOM_SCHEMES : S); s++)
                for (size_t i = 0; i < k; i++)
                    add(c, &n, rnd ? EXP_RANDOM : EXP_LENGTHS, exp_length_tasks[t],
                        rnd ? exp_random_schemes[s] : exp_scheme_at(s), i, 0,
                        !rnd && scaled && strcmp(exp_scheme_at(s), scaled) == 0 ? scaling
                                                                               : len);
    for (size_t v = 0; v < EXP_VARIANTS; v++)
        for (size_t i = 0; i < set->variant_seeds; i++)
            add(c, &n, EXP_VARIANT, "reverse", exp_variant_names[v], i, v, len);
    for (size_t t = 0; t < EXP_LENGTH_TASKS && scaled; t++)
        for (size_t i = 0; i < k; i++) {
            add(c, &n, EXP_SCALING, exp_length_tasks[t], scaled, i, 0, scaling);
            held(c, &n, page, EXP_LENGTHS, exp_length_tasks[t], scaled);
        }
    /* and none without the mask, variant 1: what the mask alone gives (on
     * a length task, the length run of none) */
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++)
            for (size_t i = 0; i < k; i++) {
                add(c, &n, EXP_CAUSAL, exp_causal_tasks[t],
                    s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK, i,
                    s == EXP_CAUSAL_SCHEMES, len);
                if (s == EXP_CAUSAL_SCHEMES && length_task(exp_causal_tasks[t]))
                    held(c, &n, page, EXP_LENGTHS, exp_causal_tasks[t], exp_floor_scheme);
            }
    for (size_t p = 0; p < EXP_PROBES; p++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_PROBE, "previous", exp_probe_names[p], i, p,
                (double)set->length_steps * (double)set->probe_layers / (double)set->layers);
    *out = c;
    *n_out = n;
    return 0;
}

int exp_cells(const ExpSettings *set, ExpCell **out, size_t *n_out, Err *e) {
    return set->bench ? bench_cells(set, out, n_out, e) : grid_cells(set, false, out, n_out, e);
}

int exp_page_cells(const ExpSettings *set, ExpCell **out, size_t *n_out, Err *e) {
    return set->bench ? bench_cells(set, out, n_out, e) : grid_cells(set, true, out, n_out, e);
}

const ExpCell *exp_cell_find(const ExpCell *cells, size_t n, const char *id) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(cells[i].id, id) == 0)
            return &cells[i];
    return NULL;
}
