/* The benchmark's grid (experiments --bench, docs/benchmark.md): its cells
 * name the tasks and schemes that exist, one each per task, column and
 * seed; a cell scores what its header says (the mean over the test
 * lengths); its file reads back; and the quick grid, run by the program,
 * writes the page, both CSVs and both figures, the same bytes twice.
 * Part of the cells suite (tests/test_cells.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/experiments/cellfile.h"
#include "../src/experiments/page/verdict.h"
#include "../src/experiments/protocol.h"
#include "../src/stats/stats.h"
#include "../src/text/tasks.h"
#include "suites.h"

/* The standard grid's settings, for its columns (with the reference's
 * forms, and so with their as-run column). */
static const ExpSettings *std(void) {
    static ExpSettings s;
    if (!s.bench)
        exp_settings_bench(&s, false, 0);
    return &s;
}

/* The columns as the registry declares them: the grid without the
 * reference's forms (reference=0), whose as-run column is a variant of
 * random xl, tested in test_protocol.c. */
static const ExpSettings *declared(void) {
    static ExpSettings s;
    if (!s.bench) {
        Err e;
        exp_settings_bench(&s, false, 0);
        ck_assert_msg(exp_bench_set(&s, "reference=0", &e) == 0, "%s", e.msg);
    }
    return &s;
}

static ExpSettings bench_settings(bool quick, size_t seeds) {
    ExpSettings set;
    exp_settings_bench(&set, quick, seeds);
    return set;
}

static int by_id(const void *a, const void *b) {
    return strcmp(((const ExpCell *)a)->id, ((const ExpCell *)b)->id);
}

/* The id a bench cell should have: "bench-TASK-COLUMN-sK", the column's
 * spaces as dashes and without parentheses ("random xl (as run)" ->
 * "random-xl-as-run"). */
static void want_id(char *buf, size_t cap, size_t t, size_t s, size_t seed) {
    char col[64], *to = col;
    for (const char *p = exp_bench_column(std(), s); *p && to < col + sizeof col - 1; p++)
        if (*p != '(' && *p != ')')
            *to++ = *p == ' ' ? '-' : *p;
    *to = '\0';
    snprintf(buf, cap, "bench-%s-%s-s%zu", exp_bench_all_tasks[t], col, seed + 1);
}

/* Every task, column and seed once, in that order, with ids that name
 * them and that no two cells share; quick, full and --seeds 3 and 8. The
 * full grid gives Ruoss et al.'s columns three seeds, ours at most five
 * (--all-schemes): 540 cells. */
START_TEST(cells_are_tasks_by_columns_by_seeds) {
    const struct {
        bool quick;
        size_t seeds, want_seeds, want_extra;
    } CASES[] = {{true, 0, 2, 2}, {false, 0, 3, 3}, {true, 3, 3, 3}, {false, 3, 3, 3},
                 {false, 8, 8, 5}};
    /* the paper's columns end with a randomized form; ours are no paper's */
    bool randomized;
    ck_assert(pe_find(
        exp_bench_scheme(exp_bench_column(std(), exp_bench_paper(std()) - 1), &randomized)));
    ck_assert(randomized);
    ck_assert(!pe_find(exp_bench_column(std(), exp_bench_paper(std())))->ruoss_column);
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        ExpSettings set = bench_settings(CASES[k].quick, CASES[k].seeds);
        ck_assert(set.bench);
        ck_assert_uint_eq(set.seeds, CASES[k].want_seeds);
        ck_assert_uint_eq(set.bench_extra_seeds, CASES[k].want_extra);
        ExpCell *cells;
        size_t n;
        Err e;
        ck_assert_msg(exp_cells(&set, &cells, &n, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(
            n, set.bench_n_tasks *
                   (exp_bench_paper(std()) * set.seeds +
                    (exp_bench_standard(std()) - exp_bench_paper(std())) * set.bench_extra_seeds));
        if (!CASES[k].quick && !CASES[k].seeds) /* 15 tasks, 12 columns, 3 seeds */
            ck_assert_uint_eq(n, 540);
        /* --all-schemes: the same cells first, then the registry's other
         * schemes, each with the columns' past the paper's seeds */
        ExpSettings all = set;
        all.bench_columns = exp_bench_all(std());
        ExpCell *more;
        size_t n_all;
        ck_assert_msg(exp_cells(&all, &more, &n_all, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(n_all, n + set.bench_n_tasks *
                                         (exp_bench_all(std()) - exp_bench_standard(std())) *
                                         set.bench_extra_seeds);
        for (size_t j = 0; j < n; j++)
            ck_assert_ptr_nonnull(exp_cell_find(more, n_all, cells[j].id));
        char id[96];
        want_id(id, sizeof id, 0, exp_bench_all(std()) - 1, set.bench_extra_seeds - 1);
        ck_assert_ptr_nonnull(exp_cell_find(more, n_all, id));
        ck_assert_ptr_null(exp_cell_find(cells, n, id));
        free(more);
        size_t i = 0;
        for (size_t t = 0; t < set.bench_n_tasks; t++)
            for (size_t s = 0; s < exp_bench_standard(std()); s++)
                for (size_t seed = 0; seed < (s < exp_bench_paper(std()) ? set.seeds
                                                                    : set.bench_extra_seeds);
                     seed++, i++) {
                    const ExpCell *c = &cells[i];
                    char id[96];
                    want_id(id, sizeof id, t, s, seed);
                    ck_assert_str_eq(c->id, id);
                    ck_assert_int_eq(c->kind, EXP_BENCH);
                    ck_assert_str_eq(c->task, set.bench_task[t]);
                    ck_assert_str_eq(c->name, exp_bench_column(std(), s));
                    ck_assert_uint_eq(c->seed, seed);
                    ck_assert_msg(c->cost > 0, "%s costs %g", c->id, c->cost);
                    ck_assert_ptr_eq(exp_cell_find(cells, n, id), c);
                }
        qsort(cells, n, sizeof *cells, by_id);
        for (i = 1; i < n; i++)
            ck_assert_msg(strcmp(cells[i - 1].id, cells[i].id) != 0, "two cells are %s",
                          cells[i].id);
        free(cells);
    }
    ExpSettings set = bench_settings(true, 0);
    ExpCell *cells;
    size_t n;
    Err e;
    ck_assert_int_eq(exp_cells(&set, &cells, &n, &e), 0);
    /* the first randomized column: "random NAME", "random-NAME" in ids */
    size_t s = 0;
    randomized = false;
    while (s < exp_bench_all(std()) && (exp_bench_scheme(exp_bench_column(std(), s), &randomized),
                                   !randomized))
        s++;
    ck_assert(randomized);
    char id1[96], id3[96];
    want_id(id1, sizeof id1, 0, s, 0);
    want_id(id3, sizeof id3, 0, s, 2);
    const ExpCell *c = exp_cell_find(cells, n, id1);
    ck_assert_msg(c != NULL, "no cell %s", id1);
    ck_assert(strcmp(c->task, set.bench_task[0]) == 0 &&
              strcmp(c->name, exp_bench_column(std(), s)) == 0 && c->seed == 0);
    ck_assert_ptr_null(exp_cell_find(cells, n, id3)); /* two seeds when quick */
    free(cells);
}
END_TEST

/* The index of the first column whose scheme keep holds for (and that is
 * randomized or not, as asked). */
static size_t column_where(bool (*keep)(const PeScheme *s), bool randomized) {
    for (size_t s = 0; s < exp_bench_all(std()); s++) {
        bool r;
        const PeScheme *sc = pe_find(exp_bench_scheme(exp_bench_column(std(), s), &r));
        if (keep(sc) && r == randomized)
            return s;
    }
    ck_abort_msg("no column of that kind");
    return 0;
}

static bool turns(const PeScheme *s) { return s->rotate != NULL; }
static bool has_rows(const PeScheme *s) { return pe_in_input(s) && s->param_shape && !s->value; }

/* The tasks are the registry's tape tasks, by level as Table 1's rows;
 * the columns are what the registry declares (pe.h: bench_place,
 * ruoss_column, ruoss_randomized): the standard run's in their places,
 * Ruoss et al.'s first, each randomized form right after its plain one,
 * randomized exactly the schemes the paper randomizes; with --all-schemes
 * every scheme of the registry that is in the grids has its plain
 * column. */
START_TEST(tasks_and_columns_exist) {
    for (size_t t = 0; t < (size_t)EXP_BENCH_ALL_TASKS; t++) {
        const Task *task = task_find(exp_bench_all_tasks[t]);
        ck_assert_msg(task != NULL, "no task %s", exp_bench_all_tasks[t]);
        ck_assert_msg(task->level != TASK_TOY && task->blanks != NULL,
                      "%s is no tape task of the hierarchy", task->name);
        if (t > 0)
            ck_assert_msg(task_find(exp_bench_all_tasks[t - 1])->level <= task->level,
                          "%s comes before a task of a lower level", exp_bench_all_tasks[t - 1]);
        for (size_t u = 0; u < t; u++)
            ck_assert_str_ne(exp_bench_all_tasks[u], exp_bench_all_tasks[t]);
    }
    ck_assert_uint_le(exp_bench_all(declared()), EXP_BENCH_MAX);
    ck_assert_uint_eq(pe_find(exp_bench_column(declared(), 0))->bench_place, 1); /* the floor first */
    size_t randomized_seen = 0, randomized_declared = 0, paper_columns = 0;
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *p = pe_at(i);
        randomized_declared += p->ruoss_randomized && !p->grids_later;
        paper_columns += (p->ruoss_column ? 1u + p->ruoss_randomized : 0u) * !p->grids_later;
        size_t s = 0;
        while (s < exp_bench_all(declared()) && strcmp(exp_bench_column(declared(), s), p->name) != 0)
            s++;
        ck_assert_msg((s < exp_bench_all(declared())) != p->grids_later, "%s: %s", p->name,
                      p->grids_later ? "a column, and it joins the grids later" : "no column");
        ck_assert_msg(s >= exp_bench_all(declared()) ||
                          (s < exp_bench_standard(declared())) == (p->bench_place > 0),
                      "%s: in the standard run exactly when it has a place", p->name);
    }
    ck_assert_uint_eq(exp_bench_paper(declared()), paper_columns);
    unsigned place = 0;
    for (size_t s = 0; s < exp_bench_all(declared()); s++) {
        bool randomized;
        const char *scheme = exp_bench_scheme(exp_bench_column(declared(), s), &randomized);
        const PeScheme *sc = pe_find(scheme);
        ck_assert_msg(sc != NULL, "column %s: no scheme %s", exp_bench_column(declared(), s), scheme);
        ck_assert(randomized == (strncmp(exp_bench_column(declared(), s), "random ", 7) == 0));
        ck_assert_msg((s < exp_bench_paper(declared())) == (sc->ruoss_column != NULL),
                      "column %s: the paper's columns come first", exp_bench_column(declared(), s));
        if (s < exp_bench_standard(declared())) {
            ck_assert_msg(sc->bench_place >= place, "column %s out of its place",
                          exp_bench_column(declared(), s));
            place = sc->bench_place;
        }
        bool paper = sc->ruoss_randomized;
        if (randomized) {
            randomized_seen++;
            ck_assert_msg(paper, "%s is randomized, and the paper does not", scheme);
            ck_assert_msg(s > 0 && strcmp(exp_bench_column(declared(), s - 1), scheme) == 0,
                          "%s does not stand beside %s", exp_bench_column(declared(), s), scheme);
        } else if (paper) {
            ck_assert_msg(s + 1 < exp_bench_all(declared()) &&
                              strncmp(exp_bench_column(declared(), s + 1), "random ", 7) == 0 &&
                              strcmp(exp_bench_column(declared(), s + 1) + 7, scheme) == 0,
                          "%s has no randomized form beside it", scheme);
        }
        for (size_t u = 0; u < s; u++)
            ck_assert_str_ne(exp_bench_column(declared(), u), exp_bench_column(declared(), s));
    }
    ck_assert_uint_eq(randomized_seen, randomized_declared);
}
END_TEST

/* The benchmark's settings key is its own: a cell or a cells folder of
 * the results grid is never taken for one of the benchmark's (nor quick
 * for full); the seed count is not in it. */
START_TEST(settings_key_is_the_benchmarks_own) {
    ExpSettings bq = bench_settings(true, 0), bf = bench_settings(false, 0), rq, rf;
    exp_settings(&rq, true, 0);
    exp_settings(&rf, false, 0);
    const ExpSettings *all[4] = {&bq, &bf, &rq, &rf};
    char key[4][512];
    for (int i = 0; i < 4; i++)
        exp_settings_key(key[i], sizeof key[i], all[i]);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(key[i], key[j]) != 0, "two grids share the key %s", key[i]);
    ExpSettings b3 = bench_settings(true, 3);
    char k3[512];
    exp_settings_key(k3, sizeof k3, &b3);
    ck_assert_str_eq(k3, key[0]);
    /* a folder of the results' quick grid refuses the benchmark's */
    char *dir = scratch();
    Err e;
    ck_assert_int_eq(exp_cells_dir_check(dir, &rq, true, &e), 0);
    ck_assert_int_eq(exp_cells_dir_check(dir, &bq, true, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "another grid") && strstr(e.msg, "the quick grid") &&
                      strstr(e.msg, "the benchmark's quick grid"), "%s", e.msg);
    remove_dir(dir);
}
END_TEST

/* A column without random positions never reads their range: its cells'
 * key leaves the range out, so one file serves the grids of every range
 * (the benchmark at 0..511 carries over the plain cells of 0..2047); a
 * randomized column's key names it. A folder of one range takes the other
 * range's plain cells as its own, and refuses its randomized ones. */
START_TEST(a_plain_cell_serves_every_range) {
    ExpSettings a = bench_settings(false, 0), b = a;
    Err e;
    ck_assert_msg(exp_bench_set(&b, "range=777", &e) == 0, "%s", e.msg);
    ExpCell *cells;
    size_t n;
    ck_assert_msg(exp_cells(&a, &cells, &n, &e) == 0, "%s", e.msg);
    size_t plain = 0, randomized = 0;
    for (size_t i = 0; i < n; i++) {
        char ka[512], kb[512], grid[512];
        exp_cell_key(ka, sizeof ka, &a, &cells[i]);
        exp_cell_key(kb, sizeof kb, &b, &cells[i]);
        exp_settings_key(grid, sizeof grid, &a);
        bool random = strncmp(cells[i].name, "random ", 7) == 0;
        ck_assert_msg(random == exp_cell_reads_range(&a, &cells[i]), "%s", cells[i].id);
        ck_assert_msg((strcmp(ka, kb) == 0) == !random, "%s: %s / %s", cells[i].id, ka, kb);
        ck_assert_msg((strstr(ka, "random_range=") != NULL) == random, "%s: %s", cells[i].id, ka);
        ck_assert_msg((strcmp(ka, grid) == 0) == random, "%s: %s", cells[i].id, ka);
        plain += !random, randomized += random;
    }
    ck_assert_msg(plain && randomized, "%zu plain, %zu randomized cells", plain, randomized);
    /* a folder of range 777 holding one plain and one randomized cell of
     * 2048, as the census reads them (their settings lines) */
    for (int with_random = 0; with_random < 2; with_random++) {
        char *dir = scratch();
        for (size_t i = 0; i < n; i++) {
            bool random = strncmp(cells[i].name, "random ", 7) == 0;
            if (random && !with_random)
                continue;
            char key[512], path[4096];
            exp_cell_key(key, sizeof key, &a, &cells[i]);
            snprintf(path, sizeof path, "%s/%s.cell", dir, cells[i].id);
            FILE *f = fopen(path, "w");
            ck_assert(f != NULL);
            fprintf(f, EXP_CELL_MAGIC "\nid %s\nsettings %s\n", cells[i].id, key);
            fclose(f);
            if (random)
                break;
        }
        int rc = exp_cells_dir_check(dir, &b, true, &e);
        ck_assert_msg(rc == (with_random ? ERR_INPUT : 0), "%s", rc ? e.msg : "claimed");
        if (with_random)
            ck_assert_msg(strstr(e.msg, "random_range=2048, here 777"), "%s", e.msg);
        remove_dir(dir);
    }
    free(cells);
}
END_TEST

/* One quick cell run as the grid runs it: accuracy and exact match per
 * input length 1..M (0: no input, NaN), the value and exact their means
 * over the test lengths N+1..M; the record reads back, done, with the
 * same numbers, and is refused under the full grid's settings. A scheme
 * that turns q and k, plain and randomized, on even_pairs (one blank:
 * exact match is the accuracy), and a learned table on duplicate_string
 * (the longest tapes, 3M: its table covers every test length). */
START_TEST(a_cell_scores_the_test_lengths) {
    size_t t_dup = 0;
    while (t_dup < EXP_BENCH_ALL_TASKS &&
           strcmp(exp_bench_all_tasks[t_dup], "duplicate_string") != 0)
        t_dup++;
    char IDS[3][96];
    want_id(IDS[0], sizeof IDS[0], 0, column_where(turns, false), 0);
    want_id(IDS[1], sizeof IDS[1], 0, column_where(turns, true), 1);
    want_id(IDS[2], sizeof IDS[2], t_dup, column_where(has_rows, false), 0);
    ExpSettings set = bench_settings(true, 0), full = bench_settings(false, 0);
    size_t N = set.bench_N, M = set.bench_M;
    ck_assert(N >= 1 && M > N);
    ExpCell *cells;
    size_t n;
    Err e;
    ck_assert_int_eq(exp_cells(&set, &cells, &n, &e), 0);
    for (size_t k = 0; k < sizeof IDS / sizeof *IDS; k++) {
        const ExpCell *c = exp_cell_find(cells, n, IDS[k]);
        ck_assert_ptr_nonnull(c);
        ExpCellResult res;
        ck_assert_msg(exp_cell_run(&set, c, &res, &e) == 0, "%s: %s", c->id, e.msg);
        ck_assert_uint_eq(res.n_series, 1);
        ck_assert_str_eq(res.series[0].name, "main");
        ck_assert_uint_eq(res.n_per_len, M + 1);
        ck_assert_uint_eq(res.n_exact_len, M + 1);
        const ExpSeries *x = &res.series[0];
        ck_assert(isnan(x->per_len[0]) && isnan(x->exact_len[0]));
        double sum = 0.0, sum_exact = 0.0;
        for (size_t len = 1; len <= M; len++) {
            double a = x->per_len[len], m = x->exact_len[len];
            ck_assert_msg(a >= 0.0 && a <= 1.0 && m >= 0.0 && m <= 1.0,
                          "%s, length %zu: accuracy %g, exact %g", c->id, len, a, m);
            if (strcmp(c->task, "even_pairs") == 0)
                ck_assert_msg(a == m, "%s, length %zu: one blank, yet accuracy %g and exact %g",
                              c->id, len, a, m);
            if (len > N)
                sum += a, sum_exact += m;
        }
        double mean = sum / (double)(M - N), mean_exact = sum_exact / (double)(M - N);
        ck_assert_msg(fabs(x->value - mean) < 1e-12, "%s: value %.17g, the mean over %zu..%zu "
                      "is %.17g", c->id, x->value, N + 1, M, mean);
        ck_assert_msg(fabs(x->exact - mean_exact) < 1e-12, "%s: exact %.17g, the mean %.17g",
                      c->id, x->exact, mean_exact);
        /* the record, written, read and checked */
        Buf b = {0};
        ck_assert_int_eq(exp_cell_format(&b, &set, c, &res, "src", "Haswell", 0.5), 0);
        ExpCellFile f;
        size_t used;
        bool old;
        ck_assert_msg(exp_cell_parse((const char *)b.p, b.n, &used, &f, &old, &e) == 0, "%s",
                      e.msg);
        ck_assert_uint_eq(used, b.n);
        ck_assert_msg(exp_cell_check(&f, &set, c, "src", &e) == CELL_DONE, "%s: %s", c->id,
                      e.msg);
        ck_assert_str_eq(f.kind, "bench");
        ck_assert(f.res.series[0].value == x->value && f.res.series[0].exact == x->exact);
        for (size_t len = 1; len <= M; len++)
            ck_assert(f.res.series[0].per_len[len] == x->per_len[len] &&
                      f.res.series[0].exact_len[len] == x->exact_len[len]);
        ck_assert_int_eq(exp_cell_check(&f, &full, c, "src", &e), CELL_OTHER_SETTINGS);
        exp_cell_file_free(&f);
        buf_free(&b);
        exp_cell_result_free(&res);
    }
    free(cells);
}
END_TEST

/* A cell's key and its file's format are what the committed cells were
 * written with (the cells a run keeps are read by them): every cell of
 * the standard grid in docs/benchmark/cells is read as done for today's
 * settings (its settings line is today's exp_cell_key, the range named
 * where its column draws positions) and written again from what was read,
 * byte for byte. A change to either fails here before it orphans the
 * committed cells or runs them again. */
START_TEST(the_committed_cells_keep_their_key_and_format) {
    const char *dir = "docs/benchmark/cells";
    ExpCell *cells;
    size_t n;
    Err e;
    ck_assert_int_eq(exp_cells(std(), &cells, &n, &e), 0);
    ck_assert_msg(exp_cells_dir_check(dir, std(), false, &e) == 0, "%s", e.msg);
    size_t ranged = 0;
    for (size_t i = 0; i < n; i++) {
        const ExpCell *c = &cells[i];
        ExpCellFile f;
        ExpCellState st = exp_cell_load(dir, std(), c, NULL, &f, &e);
        ck_assert_msg(st == CELL_DONE, "%s/%s.cell: state %d: %s", dir, c->id, (int)st, e.msg);
        char key[512];
        exp_cell_key(key, sizeof key, std(), c);
        ck_assert_str_eq(f.settings, key);
        ranged += strstr(key, " random_range=") != NULL;
        Buf b = {0};
        ck_assert_int_eq(exp_cell_format(&b, std(), c, &f.res, f.source, f.kernels, f.seconds),
                         0);
        char path[512];
        snprintf(path, sizeof path, "%s/%s.cell", dir, c->id);
        char *text = slurp(path);
        ck_assert_msg(strlen(text) == b.n && memcmp(text, b.p, b.n) == 0,
                      "%s: written again, the record differs from the file", path);
        free(text);
        buf_free(&b);
        exp_cell_file_free(&f);
    }
    /* the randomized columns' keys name the range, the plain ones' not */
    ck_assert(ranged > 0 && ranged < n);
    free(cells);
}
END_TEST

TCase *tcase_bench(void) {
    TCase *tc = tcase_create("bench");
    tcase_add_test(tc, cells_are_tasks_by_columns_by_seeds);
    tcase_add_test(tc, tasks_and_columns_exist);
    tcase_add_test(tc, settings_key_is_the_benchmarks_own);
    tcase_add_test(tc, a_plain_cell_serves_every_range);
    tcase_add_test(tc, a_cell_scores_the_test_lengths);
    tcase_add_test(tc, the_committed_cells_keep_their_key_and_format);
    return tc;
}

/* ---- the program ---- */

static size_t count_lines(const char *text) {
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static bool is_png(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char head[8];
    bool ok = fread(head, 1, 8, f) == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
    fclose(f);
    return ok;
}

/* Runs the quick benchmark with args; fails the test unless it exits 0. */
static void run_bench(const char *args) {
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0, "experiments %s: exit %d: %s", args, r.status, r.err);
    run_free(&r);
}

/* The pipeline of `make benchmark QUICK=1`: the page with a row per task
 * in each table and every column, the CSVs with a row per run and length,
 * per run and per task and test length (the chance floor), the figures; run again on its cells, the
 * same page; run afresh into other folders with one cell at a time, the same page and CSVs byte for
 * byte. */
START_TEST(quick_benchmark_writes_its_page) {
    /* the threads as `make benchmark` has them, one per cell of two: the
     * tests' OMP_NUM_THREADS=2 in each cell beside another busy program
     * made a quick cell take 3 s instead of 0.03 (libgomp's waiting
     * threads spin, and a count given is never cut to the load,
     * src/model/par.h) */
    unsetenv("OMP_NUM_THREADS");
    unsetenv("OPENBLAS_NUM_THREADS");
    char *tmp = scratch(), dir[64], args[512], path[256];
    snprintf(dir, sizeof dir, "%s", tmp);
    snprintf(args, sizeof args, "--bench --quick --jobs 2 --cells %s/cells --out %s/out", dir,
             dir);
    run_bench(args);
    ExpSettings set = bench_settings(true, 0);
    snprintf(path, sizeof path, "%s/out/benchmark.md", dir);
    char *page = slurp(path);
    ck_assert_msg(strstr(page, "**Quick settings**"), "the quick page does not say so");
    ck_assert_msg(strstr(page, "nan") == NULL, "benchmark.md has nan: %.80s", strstr(page, "nan"));
    /* seeds too few for any U test to reach 0.05 are said to be, as no verdict */
    bool few = mann_whitney_min_p(set.seeds, set.seeds, 2) >= VERDICT_ALPHA;
    ck_assert_msg(!strstr(page, "says the seeds are too few") == !few,
                  "%zu seeds: the page %s that no pair can be told apart", set.seeds,
                  few ? "does not say" : "says");
    for (size_t s = 0; s < exp_bench_standard(std()); s++) {
        char col[64];
        snprintf(col, sizeof col, " %s |", exp_bench_column(std(), s));
        ck_assert_msg(strstr(page, col), "no column %s", exp_bench_column(std(), s));
    }
    for (size_t t = 0; t < set.bench_n_tasks; t++) {
        char row[64];
        snprintf(row, sizeof row, "| %s |", set.bench_task[t]);
        size_t rows = 0;
        for (const char *p = page; (p = strstr(p, row)); p++)
            rows++;
        /* Table 1, the mean, exact match, the training lengths */
        ck_assert_msg(rows >= 4, "%s has %zu rows", set.bench_task[t], rows);
    }
    size_t runs = set.bench_n_tasks * exp_bench_standard(std()) * set.seeds;
    const struct {
        const char *file, *header;
        size_t rows;
    } CSV[] = {{"lengths.csv", "task,level,scheme,lr,seed,length,accuracy,exact_match\n",
                runs * set.bench_M},
               {"scores.csv", "task,level,scheme,lr,seed,train_accuracy,test_accuracy,"
                "test_exact_match\n", runs},
               {"chance.csv", "task,level,answer,length,blanks,share\n",
                set.bench_n_tasks * (set.bench_M - set.bench_N)}};
    char *csv[3];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/out/benchmark/%s", dir, CSV[i].file);
        csv[i] = slurp(path);
        ck_assert_msg(strncmp(csv[i], CSV[i].header, strlen(CSV[i].header)) == 0,
                      "%s begins %.80s", CSV[i].file, csv[i]);
        ck_assert_msg(count_lines(csv[i]) == 1 + CSV[i].rows, "%s has %zu lines, not %zu",
                      CSV[i].file, count_lines(csv[i]), 1 + CSV[i].rows);
    }
    /* claim 1's paired test, its ungated row recomputed from scores.csv
     * and chance.csv: each randomized column's mean over seeds minus its
     * plain one's (a randomized form whose plain form is no column is no
     * pair, nor is a variant of one: "random xl (as run)"), the pairs the
     * pair table would compare ungated (not both at the ceiling, 0.99 or
     * more, nor both at the floor, the task's chance floor plus 0.05), per
     * task averaged over its pairs */
    double sum = 0.0, sum_tasks = 0.0;
    size_t pairs = 0, tasks = 0, at_ceiling = 0, at_floor = 0;
    for (size_t t = 0; t < set.bench_n_tasks; t++) {
        double chance = 0.0, task_sum = 0.0;
        size_t lengths = 0, task_pairs = 0;
        char key[128];
        snprintf(key, sizeof key, "\n%s,", set.bench_task[t]);
        for (const char *q = csv[2]; (q = strstr(q, key)); q++) {
            double share;
            if (sscanf(q + 1, "%*[^,],%*[^,],%*[^,],%*u,%*u,%lf", &share) == 1)
                chance += share, lengths++;
        }
        ck_assert_uint_eq(lengths, set.bench_M - set.bench_N);
        chance /= (double)lengths;
        for (size_t s = 1; s < exp_bench_paper(std()); s++) {
            bool randomized, paired = false;
            const char *plain = exp_bench_scheme(exp_bench_column(std(), s), &randomized);
            randomized = randomized && strcmp(exp_bench_column(std(), s) + 7, plain) == 0;
            for (size_t k = 0; randomized && k < exp_bench_paper(std()); k++)
                paired = paired || strcmp(exp_bench_column(std(), k), plain) == 0;
            if (!paired)
                continue;
            double m[2] = {0, 0};
            const char *col[2] = {exp_bench_column(std(), s), plain};
            for (int k = 0; k < 2; k++) {
                size_t n = 0;
                for (const char *q = csv[1]; (q = strstr(q, key)); q++) {
                    char task[64], level[64], scheme[64];
                    unsigned seed;
                    double lr, train, test;
                    if (sscanf(q + 1, "%63[^,],%63[^,],%63[^,],%lf,%u,%lf,%lf", task, level,
                               scheme, &lr, &seed, &train, &test) == 7 &&
                        strcmp(scheme, col[k]) == 0)
                        m[k] += test, n++;
                }
                ck_assert_uint_eq(n, set.seeds);
                m[k] /= (double)n;
            }
            if (m[0] >= 0.99 && m[1] >= 0.99)
                at_ceiling++;
            else if (m[0] <= chance + 0.05 && m[1] <= chance + 0.05)
                at_floor++;
            else
                sum += m[0] - m[1], pairs++, task_sum += m[0] - m[1], task_pairs++;
        }
        if (task_pairs)
            sum_tasks += task_sum / (double)task_pairs, tasks++;
    }
    char row[128];
    if (pairs) {
        snprintf(row, sizeof row, "| none | %zu | %+.3f |", pairs, sum / (double)pairs);
        ck_assert_msg(strstr(page, row), "the paired test's first row is not %s", row);
        snprintf(row, sizeof row, "| none | %zu | %zu | 0, %zu, %zu | %+.3f |", tasks, pairs,
                 at_ceiling, at_floor, sum_tasks / (double)tasks);
    } else {
        snprintf(row, sizeof row, "| none | 0 | 0 | 0, %zu, %zu | | | | no pair passes",
                 at_ceiling, at_floor);
    }
    ck_assert_msg(strstr(page, row), "the task-level test's first row is not %s", row);
    ck_assert_msg(strstr(page, "(exact) |"), "no p names its method");
    /* the protocol's table says which forms ran: the reference's here (and
     * its column as run), ours with reference=0 */
    ck_assert(strstr(page, " random xl (as run) |") && strstr(page, "(`--xl-rows clamped`) |") &&
              strstr(page, "| the same (`--pad-loss`) |") &&
              strstr(page, "(`--first-draws reference`)") && strstr(page, "(`--no-out-bias`)"));
    char ours_args[512];
    snprintf(ours_args, sizeof ours_args, "--bench --quick --set reference=0 --jobs 2 "
             "--cells %s/cells-ours --out %s/out-ours", dir, dir);
    run_bench(ours_args);
    snprintf(path, sizeof path, "%s/out-ours/benchmark.md", dir);
    char *ours = slurp(path);
    ck_assert(strstr(ours, "| the sinusoid of the offset, as the comment means |") &&
              !strstr(ours, "--xl-rows clamped") && !strstr(ours, "(`--pad-loss`)") &&
              !strstr(ours, "(as run)"));
    free(ours);
    /* the paper's columns only: no figure of the other schemes, nor a
     * sentence pointing at one */
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/out/img/benchmark/%s.png", dir, i ? "paper" : "mean");
        ck_assert_msg(is_png(path), "%s is no PNG", path);
    }
    snprintf(path, sizeof path, "%s/out/img/benchmark/others.png", dir);
    ck_assert_msg(access(path, F_OK) != 0, "%s drawn for the paper's columns", path);
    ck_assert_msg(!strstr(page, "others.png"), "the page shows a figure it has not");
    /* again on the same cells: every cell skipped, the same page */
    char skipped[64];
    snprintf(skipped, sizeof skipped, "%zu done, skipped; 0 to run", runs);
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0 && strstr(r.err, skipped), "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/out/benchmark.md", dir);
    char *again = slurp(path);
    ck_assert_msg(strcmp(page, again) == 0, "a second run changed benchmark.md");
    free(again);
    /* afresh, one cell at a time: the cells' numbers do not depend on
     * --jobs (nor on threads, tests/test_threads.c). One thread, as each
     * cell of --jobs 2 has */
    setenv("OMP_NUM_THREADS", "1", 1);
    snprintf(args, sizeof args, "--bench --quick --jobs 1 --cells %s/cells1 --out %s/out1", dir,
             dir);
    run_bench(args);
    snprintf(path, sizeof path, "%s/out1/benchmark.md", dir);
    again = slurp(path);
    ck_assert_msg(strcmp(page, again) == 0, "cells run afresh changed benchmark.md");
    free(again);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/out1/benchmark/%s", dir, CSV[i].file);
        again = slurp(path);
        ck_assert_msg(strcmp(csv[i], again) == 0, "cells run afresh changed %s", CSV[i].file);
        free(again);
        free(csv[i]);
    }
    /* --all-schemes on the first run's cells: only the registry's other
     * schemes run, and the page has their columns beside the others */
    snprintf(args, sizeof args, "--bench --quick --all-schemes --jobs 2 --cells %s/cells --out "
             "%s/all", dir, dir);
    size_t more = set.bench_n_tasks * (exp_bench_all(std()) - exp_bench_standard(std())) *
                  set.bench_extra_seeds;
    snprintf(skipped, sizeof skipped, "%zu done, skipped; %zu to run", runs, more);
    r = run("experiments", args);
    ck_assert_msg(r.status == 0 && strstr(r.err, skipped), "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/all/benchmark.md", dir);
    again = slurp(path);
    for (size_t s = 0; s < exp_bench_all(std()); s++) {
        char col[64];
        snprintf(col, sizeof col, " %s |", exp_bench_column(std(), s));
        ck_assert_msg(strstr(again, col), "--all-schemes: no column %s", exp_bench_column(std(), s));
    }
    /* the page names the command that made it, and no other grid's page
     * is written over */
    snprintf(path, sizeof path, "%s/all/img/benchmark/others.png", dir);
    ck_assert_msg(is_png(path) && strstr(again, "(img/benchmark/others.png)"),
                  "--all-schemes: no figure of the other schemes");
    ck_assert_msg(strstr(again, "comes from `make benchmark QUICK=1 ALL=1` (`build/experiments "
                         "--bench --quick --all-schemes --out build/benchmark-all-quick`)"),
                  "the all-schemes page names another command");
    free(again);
    snprintf(args, sizeof args, "--bench --quick --all-schemes --cells %s/cells --out %s/out1",
             dir, dir);
    expect_exit("experiments", args, 2, "was made by `make benchmark QUICK=1`");
    free(page);
    remove_dir(dir);
}
END_TEST

TCase *tcase_bench_program(void) {
    TCase *tc = tcase_create("bench program");
    /* the quick grid twice, about 10 s each on a quiet machine: room for a
     * busy one */
    tcase_set_timeout(tc, 600);
    tcase_set_tags(tc, "slow");
    tcase_add_test(tc, quick_benchmark_writes_its_page);
    return tc;
}
