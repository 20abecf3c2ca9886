/* The cells another cell holds (src/experiments/cells.c): a training the
 * page reads twice runs once. Section 6's scaling cells read the length
 * runs of rope, which train the same model and then run its scalings;
 * section 7's control without the mask reads the length run of none. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/experiments/cell.h"
#include "../src/experiments/cellfile.h"
#include "../src/experiments/page/results.h"
#include "suites.h"

static ExpCell *cells_of(const ExpSettings *set, bool page, size_t *n) {
    ExpCell *c;
    Err e;
    ck_assert_msg((page ? exp_page_cells : exp_cells)(set, &c, n, &e) == 0, "%s", e.msg);
    return c;
}

/* The page's list is the grid's cells in their order with the held ones
 * between them; each held cell's holder runs, and trains the model the
 * held cell names, on the same data, for as many steps. */
START_TEST(held_cells_train_what_their_holder_trains) {
    for (int quick = 0; quick < 2; quick++) {
        ExpSettings set;
        exp_settings(&set, quick, 0);
        size_t n, n_page, held = 0, j = 0;
        ExpCell *run = cells_of(&set, false, &n), *page = cells_of(&set, true, &n_page);
        for (size_t i = 0; i < n_page; i++) {
            const ExpCell *c = &page[i];
            if (!c->held_by[0]) {
                ck_assert_str_eq(c->id, run[j++].id);
                continue;
            }
            held++;
            ck_assert_ptr_null(exp_cell_find(run, n, c->id));
            const ExpCell *h = exp_cell_find(run, n, c->held_by);
            ck_assert_msg(h != NULL, "%s: no cell %s", c->id, c->held_by);
            ck_assert(h->kind == EXP_LENGTHS && h->seed == c->seed);
            ck_assert_str_eq(h->task, c->task);
            Config a = exp_cell_config(&set, c), b = exp_cell_config(&set, h);
            ck_assert_str_eq(a.pe.name, b.pe.name);
            ck_assert(memcmp(&a.pe, &b.pe, sizeof a.pe) == 0);
            ck_assert(a.causal == b.causal && a.seed == b.seed && a.pool == b.pool);
            ck_assert(a.n_layers == b.n_layers && a.d_model == b.d_model);
            TrainMeta ma, mb;
            exp_train_meta(&ma, &set, c, true);
            exp_train_meta(&mb, &set, h, true);
            ck_assert(ma.steps == mb.steps && ma.seed == mb.seed);
            ck_assert(ma.random_positions == mb.random_positions);
            ck_assert(memcmp(&ma.task_opt, &mb.task_opt, sizeof ma.task_opt) == 0);
            ck_assert_str_eq(ma.task, mb.task);
            /* rope's holds the scalings: its file has their series */
            ExpCellShape sh, sc;
            exp_cell_shape(&sh, &set, h);
            exp_cell_shape(&sc, &set, c);
            ck_assert_uint_eq(sh.n_series, sc.n_series);
            ck_assert(exp_cell_holds_scaling(h) == (c->kind == EXP_SCALING));
        }
        ck_assert_uint_eq(j, n);
        /* three tasks' scalings and previous's control, every seed */
        ck_assert_uint_eq(held, (EXP_LENGTH_TASKS + 1) * set.seeds);
        ck_assert_uint_eq(n_page, n + held);
        free(run);
        free(page);
    }
}
END_TEST

/* The holder's file gives the page what the cells it replaces gave: the
 * length run keeps its main series, the scaling cell reads them all
 * (main as "none"). */
START_TEST(a_holders_series_go_where_the_cells_put_them) {
    ExpSettings set;
    exp_settings(&set, true, 0);
    size_t n;
    ExpCell *page = cells_of(&set, true, &n);
    const ExpCell *rope = exp_cell_find(page, n, "lengths-reverse-rope-s1");
    const ExpCell *scaling = exp_cell_find(page, n, "scaling-reverse-rope-s1");
    ck_assert(rope && scaling && strcmp(scaling->held_by, rope->id) == 0);
    ExpCellShape sh;
    exp_cell_shape(&sh, &set, rope);
    ExpCellResult res = {0};
    for (size_t k = 0; k < sh.n_series; k++) {
        double *v = malloc(sh.n_per_len * sizeof *v), *x = malloc(sh.n_per_len * sizeof *x);
        ck_assert(v && x);
        for (size_t i = 0; i < sh.n_per_len; i++)
            v[i] = x[i] = i < sh.first || i > sh.last ? NAN : 0.01 * (double)k;
        exp_series_add(&res, sh.names[k], 0.01 * (double)k, 0.0, v, sh.n_per_len, x,
                       sh.n_per_len);
    }
    ExpResults r;
    Err e;
    ck_assert_int_eq(exp_results_init(&r, &set, &e), 0);
    exp_results_add_cell(&r, rope, &res);
    exp_results_add_cell(&r, scaling, &res);
    ck_assert_uint_eq(r.n, 1 + EXP_SCALINGS * 2);
    ck_assert(r.runs[0].kind == EXP_LENGTHS && strcmp(r.runs[0].name, "rope") == 0);
    ck_assert(r.runs[0].value == 0.0);
    ck_assert(r.runs[1].kind == EXP_SCALING && strcmp(r.runs[1].name, "none") == 0);
    ck_assert(r.runs[1].value == 0.0);
    for (size_t k = 1; k < sh.n_series; k++) {
        ck_assert(r.runs[1 + k].kind == EXP_SCALING);
        ck_assert_str_eq(r.runs[1 + k].name, sh.names[k]);
        ck_assert(r.runs[1 + k].value == 0.01 * (double)k);
    }
    exp_results_free(&r);
    exp_cell_result_free(&res);
    free(page);
}
END_TEST

TCase *tcase_held(void) {
    TCase *tc = tcase_create("held");
    tcase_add_test(tc, held_cells_train_what_their_holder_trains);
    tcase_add_test(tc, a_holders_series_go_where_the_cells_put_them);
    return tc;
}
