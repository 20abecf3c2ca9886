/* The experiments' cell files (src/experiments/cellfile.c): every record the
 * grid reads is checked like a checkpoint, and whatever the loader accepts
 * the page is written from without a crash; --store keeps each record as
 * it arrives; a folder of cells holds one grid. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/experiments/cellfile.h"
#include "../src/experiments/page/page.h"
#include "suites.h"

/* the fuzz targets, each under its own name (as tests/test_fuzz.c does) */
#define LLVMFuzzerTestOneInput fuzz_cellfile_one
#include "fuzz/fuzz_cellfile.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_store_one
#include "fuzz/fuzz_store.c"
#include "../src/pe/pe_alibi.h"
#undef LLVMFuzzerTestOneInput

static ExpSettings quick_settings(void) {
    ExpSettings set;
    exp_settings(&set, true, 0);
    return set;
}

static const ExpCell *quick_cell(const ExpSettings *set, ExpCell **cells, const char *id) {
    size_t n;
    Err e;
    ck_assert_msg(exp_cells(set, cells, &n, &e) == 0, "%s", e.msg);
    const ExpCell *c = exp_cell_find(*cells, n, id);
    ck_assert_msg(c != NULL, "no cell %s", id);
    return c;
}

static double *filled(size_t n, const ExpCellShape *sh, double v) {
    if (!n)
        return NULL;
    double *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = i < sh->first || i > sh->last ? NAN : v;
    return x;
}

/* A result as a cell of its kind would have it: 0.5 wherever a number
 * belongs (1e-6 for an order gap), NaN elsewhere. */
static void plausible(ExpCellResult *res, const ExpSettings *set, const ExpCell *c) {
    ExpCellShape sh;
    exp_cell_shape(&sh, set, c);
    memset(res, 0, sizeof *res);
    double v = c->kind == EXP_ORDER ? 1e-6 : 0.5;
    for (size_t k = 0; k < sh.n_series; k++)
        exp_series_add(res, sh.names[k], v, sh.has_exact ? 0.25 : NAN,
                       filled(sh.n_per_len, &sh, v), sh.n_per_len,
                       filled(sh.n_exact_len, &sh, 0.25), sh.n_exact_len);
}

/* Writes res as DIR/ID.cell, made by source. */
static void save(const char *dir, const ExpSettings *set, const ExpCell *c,
                 const ExpCellResult *res, const char *source, const char *kernels) {
    Buf b = {0};
    ck_assert_int_eq(exp_cell_format(&b, set, c, res, source, kernels, 1.5), 0);
    Err e;
    ck_assert_msg(exp_cell_save_text(dir, c->id, (const char *)b.p, b.n, &e) == 0, "%s", e.msg);
    buf_free(&b);
}

static ExpCellState load(const char *dir, const ExpSettings *set, const ExpCell *c, Err *e) {
    ExpCellFile f;
    ExpCellState st = exp_cell_load(dir, set, c, "src", &f, e);
    if (st == CELL_DONE)
        exp_cell_file_free(&f);
    return st;
}

/* Every kind of cell of the quick grid: what is written reads back, done,
 * with the same numbers. */
/* The forms of a scheme the experiments run set what they name. */
START_TEST(scheme_forms_set_their_options) {
    Config c;
    config_default(&c, 8, "alibi");
    exp_scheme_form(&c, "asymmetric alibi");
    ck_assert_int_eq(alibi_slopes_of(&c.pe), ALIBI_ASYMMETRIC);
    ck_assert_int_eq(c.pool, POOL_MEAN);
    config_default(&c, 8, "alibi");
    exp_scheme_form(&c, "cls alibi");
    ck_assert(c.pool == POOL_CLS && c.pe.n_given == 0);
    ck_assert_ptr_eq(exp_scheme_base("cls alibi"), pe_find("alibi"));
    config_default(&c, 8, "kerple");
    exp_scheme_form(&c, "power kerple");
    char form[32];
    pe_option_text(&c.pe, pe_option_find("--kerple-form"), form, sizeof form);
    ck_assert_str_eq(form, "power");
    ck_assert_ptr_eq(exp_scheme_base("power kerple"), pe_find("kerple"));
}
END_TEST

START_TEST(every_kind_round_trips) {
    ExpSettings set = quick_settings();
    ExpCell *cells;
    size_t n;
    Err e;
    ck_assert_int_eq(exp_cells(&set, &cells, &n, &e), 0);
    char *dir = scratch();
    for (size_t i = 0; i < n; i++) {
        ExpCellResult res;
        plausible(&res, &set, &cells[i]);
        save(dir, &set, &cells[i], &res, "src", "Haswell");
        ExpCellFile f;
        ck_assert_msg(exp_cell_load(dir, &set, &cells[i], "src", &f, &e) == CELL_DONE,
                      "%s: %s", cells[i].id, e.msg);
        ck_assert_uint_eq(f.res.n_series, res.n_series);
        ck_assert_uint_eq(f.res.n_per_len, res.n_per_len);
        for (size_t k = 0; k < res.n_series; k++) {
            ck_assert_str_eq(f.res.series[k].name, res.series[k].name);
            ck_assert(f.res.series[k].value == res.series[k].value);
            for (size_t j = 0; j < res.n_per_len; j++)
                ck_assert(isnan(f.res.series[k].per_len[j]) == isnan(res.series[k].per_len[j]));
        }
        exp_cell_file_free(&f);
        exp_cell_result_free(&res);
    }
    free(cells);
    remove_dir(dir);
}
END_TEST

/* The page has a row for every scheme of the grid, however many the
 * registry holds: in section 1's table, in section 2's and in each of
 * section 3's (the page once kept at most 16 names in fixed arrays, and a
 * 17th scheme would have gone missing from it without a word). */
START_TEST(page_has_a_row_per_scheme) {
    ExpSettings set = quick_settings();
    ExpCell *cells;
    size_t n;
    Err e;
    ck_assert_int_eq(exp_page_cells(&set, &cells, &n, &e), 0);
    ExpResults r;
    ck_assert_int_eq(exp_results_init(&r, &set, &e), 0);
    for (size_t i = 0; i < n; i++) {
        ExpCellResult res;
        plausible(&res, &set, &cells[i]);
        exp_results_add_cell(&r, &cells[i], &res);
        exp_cell_result_free(&res);
    }
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "%s", scratch());
    static const char *const SUB[3] = {"results", "img", "img/results"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, SUB[k]);
        ck_assert_int_eq(mkdir(path, 0777), 0);
    }
    ck_assert_msg(exp_write(&r, dir, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/results.md", dir);
    char *page = slurp(path), *end = strstr(page, "\n## 4.");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    ck_assert_uint_gt(exp_scheme_count(), 10);
    for (size_t i = 0; i < exp_scheme_count(); i++) {
        char row[64];
        snprintf(row, sizeof row, "\n| %s |", exp_scheme_at(i));
        size_t rows = 0;
        for (const char *p = page; (p = strstr(p, row)); p++)
            rows++;
        ck_assert_msg(rows == 2 + EXP_LENGTH_TASKS, "%s has %zu rows in sections 1 to 3, not %d",
                      exp_scheme_at(i), rows, 2 + EXP_LENGTH_TASKS);
    }
    free(page);
    exp_results_free(&r);
    free(cells);
    remove_dir(dir);
}
END_TEST

/* A change to one cell's result, written with a valid checksum. */
typedef void (*Damage)(ExpCellResult *res);

static void value_7_5(ExpCellResult *r) { r->series[0].value = 7.5; }
static void value_minus_3(ExpCellResult *r) { r->series[0].value = -3; }
static void value_nan(ExpCellResult *r) { r->series[0].value = NAN; }
static void exact_1_5(ExpCellResult *r) { r->series[0].exact = 1.5; }
static void order_exact(ExpCellResult *r) { r->series[0].exact = 0.5; }
static void probe_r2_above_1(ExpCellResult *r) { r->series[0].per_len[1] = 1.5; }
static void resize(ExpCellResult *r, size_t n) {
    for (size_t k = 0; k < r->n_series; k++) {
        ExpSeries *x = &r->series[k];
        x->per_len = n ? realloc(x->per_len, n * sizeof *x->per_len) : (free(x->per_len), NULL);
        for (size_t i = r->n_per_len; i < n; i++)
            x->per_len[i] = 0.5;
    }
    r->n_per_len = n;
}
static void per_len_3(ExpCellResult *r) { resize(r, 3); }
static void per_len_34(ExpCellResult *r) { resize(r, 34); }
static void per_len_0(ExpCellResult *r) { resize(r, 0); }
static void nan_where_tested(ExpCellResult *r) { r->series[0].per_len[5] = NAN; }
static void number_where_untested(ExpCellResult *r) { r->series[0].per_len[0] = 0.5; }
/* quick L = 4: a learned table has no row for length 5 */
static void number_past_table(ExpCellResult *r) { r->series[0].per_len[5] = 0.5; }
static void no_at_series(ExpCellResult *r) {
    free(r->series[1].per_len), free(r->series[1].exact_len);
    r->n_series = 1;
}
static void renamed_series(ExpCellResult *r) { snprintf(r->series[3].name, 24, "linear-x3"); }

/* The damaged records of the issue and their kin: each is refused as
 * damaged, with a reason, and never as done. */
START_TEST(implausible_records_are_damaged) {
    static const struct {
        const char *id;
        Damage damage;
    } CASES[] = {
        {"tasks-agent-rope-s1", value_7_5},
        {"tasks-agent-rope-s1", value_minus_3},
        {"tasks-agent-rope-s1", value_nan},
        {"tasks-agent-rope-s1", exact_1_5},
        {"order-none-s1", value_minus_3},
        {"order-none-s1", order_exact},
        {"lengths-reverse-rope-s1", per_len_3},
        {"lengths-reverse-rope-s1", per_len_34},
        {"lengths-reverse-rope-s1", nan_where_tested},
        {"lengths-reverse-rope-s1", number_where_untested},
        {"lengths-reverse-learned-s1", number_past_table},
        {"random-reverse-rope-s1", no_at_series},
        {"lengths-reverse-rope-s1", renamed_series},
        {"probe-previous-none-s1", per_len_0},
        {"probe-previous-none-s1", probe_r2_above_1},
    };
    ExpSettings set = quick_settings();
    char *dir = scratch();
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        ExpCell *cells;
        const ExpCell *c = quick_cell(&set, &cells, CASES[i].id);
        ExpCellResult res;
        plausible(&res, &set, c);
        save(dir, &set, c, &res, "src", "Haswell");
        Err e;
        ck_assert_msg(load(dir, &set, c, &e) == CELL_DONE, "case %zu before: %s", i, e.msg);
        CASES[i].damage(&res);
        save(dir, &set, c, &res, "src", "Haswell");
        e.msg[0] = '\0';
        ck_assert_msg(load(dir, &set, c, &e) == CELL_DAMAGED, "case %zu (%s) was accepted", i,
                      CASES[i].id);
        ck_assert_msg(e.msg[0], "case %zu: no reason given", i);
        exp_cell_result_free(&res);
        free(cells);
    }
    /* a learned table past its rows is NaN, as a run writes it */
    ExpCell *cells;
    const ExpCell *c = quick_cell(&set, &cells, "lengths-reverse-learned-s1");
    ExpCellResult res;
    plausible(&res, &set, c);
    ck_assert(isnan(res.series[0].per_len[set.L + 1]) && !isnan(res.series[0].per_len[set.L]));
    exp_cell_result_free(&res);
    free(cells);
    remove_dir(dir);
}
END_TEST

/* Damage to the bytes: a changed digit under the old checksum, a cut
 * record, an older format, and a FIFO where a file belongs (opened without
 * waiting for a writer). */
START_TEST(damaged_bytes_and_fifos_are_refused) {
    ExpSettings set = quick_settings();
    ExpCell *cells;
    const ExpCell *c = quick_cell(&set, &cells, "tasks-agent-rope-s1");
    char *dir = scratch(), path[256];
    ExpCellResult res;
    plausible(&res, &set, c);
    save(dir, &set, c, &res, "src", "Haswell");
    exp_cell_result_free(&res);
    snprintf(path, sizeof path, "%s/%s.cell", dir, c->id);
    char *text = slurp(path);
    Err e;
    /* 0.5 -> 0.4: in range, but not what was written */
    char *v = strstr(text, "value 0.5");
    ck_assert_ptr_nonnull(v);
    v[8] = '4';
    write_text(path, text);
    ck_assert_int_eq(load(dir, &set, c, &e), CELL_DAMAGED);
    ck_assert_msg(strstr(e.msg, "checksum"), "%s", e.msg);
    v[8] = '5';
    /* cut before its end */
    text[strlen(text) - 4] = '\0';
    write_text(path, text);
    ck_assert_int_eq(load(dir, &set, c, &e), CELL_DAMAGED);
    /* an older format: made by older sources, runs again */
    write_text(path, "posenc cell 3\nid tasks-agent-rope-s1\nvalue 0.5\nend\n");
    ck_assert_int_eq(load(dir, &set, c, &e), CELL_OLD_FORMAT);
    free(text);
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0666), 0);
    ck_assert_int_eq(load(dir, &set, c, &e), CELL_DAMAGED);
    ck_assert_msg(strstr(e.msg, "not a regular file"), "%s", e.msg);
    free(cells);
    remove_dir(dir);
}
END_TEST

/* Records as lines: complete at "end", a record cut by the next one, lines
 * that begin none, and an input that stops inside one. */
START_TEST(records_are_taken_line_by_line) {
    ExpRecordReader r = {0};
    Err e;
    const char *lines[] = {"junk\n", "more junk\n", EXP_CELL_MAGIC "\n", "id a\n",
                           EXP_CELL_MAGIC "\n", "id b\n", "end\n", EXP_CELL_MAGIC "\n", "id c\n"};
    int want[] = {EXP_RECORD_BAD, EXP_RECORD_WAIT, EXP_RECORD_WAIT, EXP_RECORD_WAIT,
                  EXP_RECORD_BAD, EXP_RECORD_WAIT, EXP_RECORD_DONE, EXP_RECORD_WAIT,
                  EXP_RECORD_WAIT};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        ck_assert_int_eq(exp_record_line(&r, lines[i], strlen(lines[i]), &e), want[i]);
        if (want[i] == EXP_RECORD_DONE)
            ck_assert_int_eq(memcmp(r.text.p, EXP_CELL_MAGIC "\nid b\nend\n", r.text.n), 0);
    }
    ck_assert_int_ne(exp_record_end(&r, &e), 0);
    exp_record_reader_free(&r);
}
END_TEST

/* A cells folder names its grid, and refuses another's. */
START_TEST(a_folder_holds_one_grid) {
    ExpSettings quick = quick_settings(), full;
    exp_settings(&full, false, 0);
    char *dir = scratch(), path[256];
    Err e;
    ck_assert_int_eq(exp_cells_dir_check(dir, &quick, false, &e), 0);
    snprintf(path, sizeof path, "%s/grid.settings", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(exp_cells_dir_check(dir, &quick, true, &e), 0);
    ck_assert_int_eq(exp_cells_dir_check(dir, &quick, true, &e), 0);
    ck_assert_int_eq(exp_cells_dir_check(dir, &full, true, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "the quick grid") && strstr(e.msg, "the full grid") &&
                      strstr(e.msg, "another --cells folder"), "%s", e.msg);
    write_text(path, "garbage\n");
    ck_assert_int_eq(exp_cells_dir_check(dir, &quick, true, &e), ERR_INPUT);
    remove_dir(dir);
}
END_TEST

/* The fuzz targets' inputs (seeds, and the crashes they found) through
 * the targets themselves: what the reader accepts goes through the page's
 * bands without a crash (a run without lengths once read a null pointer
 * there). */
static void cellfile_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_cellfile_one(b, n);
}

static void store_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_store_one(b, n);
}

START_TEST(fuzz_inputs_read_cleanly) {
    ck_assert_uint_ge(for_each_fuzz_input("fuzz_cellfile", cellfile_one), 9);
    ck_assert_uint_ge(for_each_fuzz_input("fuzz_store", store_one), 2);
}
END_TEST

/* ---- the program ---- */

/* The quick grid run once into DIR/cells and DIR/out; returns the source
 * id the program writes. */
static void run_quick(const char *dir, char *source, size_t cap) {
    char args[512];
    snprintf(args, sizeof args, "--quick --jobs 2 --cells %s/cells --out %s/out", dir, dir);
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/cells/order-none-s1.cell", dir);
    char *text = slurp(path);
    ExpCellFile f;
    size_t used;
    bool old;
    Err e;
    ck_assert_msg(exp_cell_parse(text, strlen(text), &used, &f, &old, &e) == 0, "%s", e.msg);
    snprintf(source, cap, "%s", f.source);
    exp_cell_file_free(&f);
    free(text);
}

/* The records of the issue in a folder the grid has finished: the run
 * says which file and why, runs those cells again and writes the same
 * page (no crash: per_len 0 in a probe cell crashed it); a cell made with
 * other kernels is named for deletion. */
START_TEST(damaged_cells_run_again) {
    char *tmp = scratch(), dir[64], source[64], args[512], path[256];
    snprintf(dir, sizeof dir, "%s", tmp);
    run_quick(dir, source, sizeof source);
    snprintf(path, sizeof path, "%s/out/results.md", dir);
    char *page = slurp(path);
    ExpSettings set = quick_settings();
    ExpCell *cells;
    const ExpCell *agent = quick_cell(&set, &cells, "tasks-agent-rope-s1");
    size_t n;
    Err e;
    free(cells);
    ck_assert_int_eq(exp_cells(&set, &cells, &n, &e), 0);
    agent = exp_cell_find(cells, n, "tasks-agent-rope-s1");
    const ExpCell *probe = exp_cell_find(cells, n, "probe-previous-none-s1");
    char cells_dir[128];
    snprintf(cells_dir, sizeof cells_dir, "%s/cells", dir);
    ExpCellResult res;
    plausible(&res, &set, agent);
    value_7_5(&res);
    save(cells_dir, &set, agent, &res, source, "Haswell");
    exp_cell_result_free(&res);
    plausible(&res, &set, probe);
    per_len_0(&res);
    save(cells_dir, &set, probe, &res, source, "Haswell");
    exp_cell_result_free(&res);
    snprintf(args, sizeof args, "--quick --jobs 2 --cells %s --out %s/out", cells_dir, dir);
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char skipped[64]; /* every other cell of the grid, which grows with the registry */
    snprintf(skipped, sizeof skipped, "%zu done, skipped; 2 to run", n - 2);
    ck_assert_msg(strstr(r.err, "tasks-agent-rope-s1.cell is damaged: result main: value 7.5") &&
                      strstr(r.err, "probe-previous-none-s1.cell is damaged") &&
                      strstr(r.err, skipped), "%s", r.err);
    run_free(&r);
    char *again = slurp(path);
    ck_assert_msg(strcmp(page, again) == 0, "the page changed");
    free(again);
    /* other kernels: which file to delete */
    plausible(&res, &set, agent);
    save(cells_dir, &set, agent, &res, source, "Sandybridge");
    exp_cell_result_free(&res);
    r = run("experiments", args);
    char want[256];
    snprintf(want, sizeof want, "rm %s/tasks-agent-rope-s1.cell\n", cells_dir);
    ck_assert_msg(r.status == 2 && strstr(r.err, want), "%d %s", r.status, r.err);
    run_free(&r);
    free(page);
    free(cells);
    remove_dir(dir);
}
END_TEST

/* --quick never writes over the full grid's page, nor into docs/; a
 * folder of the full grid's cells is refused, as is a --store into it. */
START_TEST(quick_grid_keeps_off_the_full_grid) {
    char *tmp = scratch(), dir[64], args[512], path[256];
    snprintf(dir, sizeof dir, "%s", tmp);
    snprintf(path, sizeof path, "%s/results.md", dir);
    const char *full_page = "# Results: what each scheme buys\n\nEvery number on this page "
                            "comes from `make experiments` (`build/experiments --out docs`)\n";
    write_text(path, full_page);
    snprintf(args, sizeof args, "--quick --cells %s/cells --out %s", dir, dir);
    expect_exit("experiments", args, 2, "was made by `make experiments`, and this run is `make "
                "experiments QUICK=1`");
    char *page = slurp(path);
    ck_assert_str_eq(page, full_page);
    free(page);
    snprintf(args, sizeof args, "--quick --cells %s/cells --out %s/docs", dir, dir);
    expect_exit("experiments", args, 2, "give --quick another --out");
    /* the full grid's folder */
    snprintf(path, sizeof path, "%s/cells", dir);
    mkdir(path, 0777);
    ExpSettings full;
    exp_settings(&full, false, 0);
    Err e;
    ck_assert_int_eq(exp_cells_dir_check(path, &full, true, &e), 0);
    snprintf(args, sizeof args, "--quick --cells %s --out %s/quick", path, dir);
    expect_exit("experiments", args, 2, "holds the cells of another grid: the full grid");
    snprintf(args, sizeof args, "--quick --store --cells %s </dev/null", path);
    expect_exit("experiments", args, 2, "another --cells folder");
    remove_dir(dir);
}
END_TEST

/* --store writes each record as soon as it is whole, while its writer is
 * still at work; a record cut short is refused (exit 2) and the ones
 * before it stay stored. */
START_TEST(store_keeps_each_record_as_it_arrives) {
    char *tmp = scratch(), dir[64], cmd[512], path[256];
    snprintf(dir, sizeof dir, "%s", tmp);
    const char *bin = getenv("POSENC_BIN");
    char *rec[2];
    const char *ids[2] = {"order-none-s1", "order-none-s2"};
    for (int i = 0; i < 2; i++) {
        char args[256];
        snprintf(args, sizeof args, "--quick --cell %s --cells -", ids[i]);
        Run r = run("experiments", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        rec[i] = r.out;
        free(r.err);
    }
    snprintf(cmd, sizeof cmd, "%s/experiments --quick --store --cells %s/cells 2>%s/err",
             bin ? bin : "build", dir, dir);
    FILE *w = popen(cmd, "w");
    ck_assert_ptr_nonnull(w);
    fputs(rec[0], w);
    fflush(w);
    /* the first is stored while the pipe is still open */
    snprintf(path, sizeof path, "%s/cells/%s.cell", dir, ids[0]);
    while (access(path, F_OK) != 0)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    /* the writer stops halfway through the second */
    fwrite(rec[1], 1, strlen(rec[1]) / 2, w);
    int st = pclose(w);
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    snprintf(path, sizeof path, "%s/err", dir);
    char *err = slurp(path);
    ck_assert_msg(strstr(err, "stored 1 cell records") && strstr(err, "ended inside a record"),
                  "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/cells/%s.cell", dir, ids[1]);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* a sound record from a build of other sources: refused, exit 2 */
    ExpSettings set = quick_settings();
    ExpCell *cells;
    const ExpCell *c = quick_cell(&set, &cells, ids[1]);
    ExpCellResult res;
    plausible(&res, &set, c);
    char other[128];
    snprintf(other, sizeof other, "%s/other", dir);
    mkdir(other, 0777);
    save(other, &set, c, &res, "000000000000", "Haswell");
    exp_cell_result_free(&res);
    free(cells);
    char sargs[640];
    snprintf(sargs, sizeof sargs, "--quick --store --cells %s/cells <%s/%s.cell", dir, other,
             ids[1]);
    expect_exit("experiments", sargs, 2, "made by a build of other sources");
    /* a damaged record: exit 2, as the help says */
    char args[640];
    snprintf(path, sizeof path, "%s/damaged", dir);
    write_text(path, EXP_CELL_MAGIC "\nid x\nend\n");
    snprintf(args, sizeof args, "--quick --store --cells %s/cells <%s", dir, path);
    expect_exit("experiments", args, 2, "refused or damaged");
    free(rec[0]);
    free(rec[1]);
    remove_dir(dir);
}
END_TEST

Suite *suite_cells(void) {
    Suite *s = suite_create("cells");
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, scheme_forms_set_their_options);
    tcase_add_test(tc, every_kind_round_trips);
    tcase_add_test(tc, page_has_a_row_per_scheme);
    tcase_add_test(tc, implausible_records_are_damaged);
    tcase_add_test(tc, damaged_bytes_and_fifos_are_refused);
    tcase_add_test(tc, records_are_taken_line_by_line);
    tcase_add_test(tc, a_folder_holds_one_grid);
    tcase_add_test(tc, fuzz_inputs_read_cleanly);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_bench());
    suite_add_tcase(s, tcase_held());
    suite_add_tcase(s, tcase_prose());
    /* each runs the quick grid, a few seconds on a quiet machine: room for
     * one whose cores are busy with other work */
    TCase *prog = tcase_create("program");
    tcase_set_timeout(prog, 600);
    /* the quick grid, run several times: make check, not make test */
    tcase_set_tags(prog, "slow");
    tcase_add_test(prog, damaged_cells_run_again);
    tcase_add_test(prog, quick_grid_keeps_off_the_full_grid);
    tcase_add_test(prog, store_keeps_each_record_as_it_arrives);
    suite_add_tcase(s, prog);
    suite_add_tcase(s, tcase_bench_program());
    suite_add_tcase(s, tcase_protocol());
    suite_add_tcase(s, tcase_referee());
    suite_add_tcase(s, tcase_referee_edits());
    return s;
}
