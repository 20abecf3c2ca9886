/* The benchmark's protocol as options (experiments --bench --set) and its
 * cells as committed data: each setting changes the settings key, a sweep
 * of rates names its cells by rate, what --set refuses, --help names every
 * setting, and a cell another build made counts as done unless --retrain.
 * Part of the cells suite (tests/test_cells.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/buf.h"
#include "../src/experiments/cell.h"
#include "../src/experiments/cellfile.h"
#include "suites.h"

START_TEST(every_setting_moves_the_key) {
    static const char *const SETS[] = {"layers=3",  "d_model=32", "heads=2",  "d_ff=64",
                                       "batch=16",  "steps=500",  "lr=1e-3",  "dropout=0.1",
                                       "N=8",       "M=20",       "range=300", "per_len=32",
                                       "tasks=reverse_string/duplicate_string", "reference=1"};
    ExpSettings base;
    exp_settings_bench(&base, false, 0);
    char k0[512], k[512];
    exp_settings_key(k0, sizeof k0, &base);
    for (size_t i = 0; i < sizeof SETS / sizeof *SETS; i++) {
        ExpSettings s = base;
        Err e;
        ck_assert_msg(exp_bench_set(&s, SETS[i], &e) == 0, "%s: %s", SETS[i], e.msg);
        exp_settings_key(k, sizeof k, &s);
        ck_assert_msg(strcmp(k, k0) != 0, "--set %s leaves the key %s", SETS[i], k);
    }
    /* every setting is in --help's list */
    char names[1024];
    exp_bench_protocol(names, sizeof names);
    for (char *save = NULL, *line = strtok_r(names, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char name[32];
        ck_assert(sscanf(line, " %31s", name) == 1);
        char want[40];
        snprintf(want, sizeof want, " %s ", name);
        ck_assert_msg(strstr(EXP_PROTOCOL_HELP, want) != NULL, "--help does not name %s",
                      name);
    }
}
END_TEST

START_TEST(a_sweep_names_its_cells_by_rate) {
    ExpSettings s;
    exp_settings_bench(&s, true, 0);
    Err e;
    ck_assert(exp_bench_set(&s, "lr=1e-3/3e-4,tasks=parity_check/reverse_string", &e) == 0);
    ck_assert_uint_eq(s.bench_n_tasks, 2);
    ck_assert_str_eq(s.bench_task[0], "parity_check"); /* the benchmark's order */
    ExpCell *cells;
    size_t n;
    ck_assert(exp_cells(&s, &cells, &n, &e) == 0);
    ck_assert_uint_eq(n, 2 * exp_bench_standard(&s) * 2 * s.seeds);
    const ExpCell *c = exp_cell_find(cells, n, "bench-reverse_string-random-rope-lr0.0003-s2");
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->variant, 1);
    ck_assert_uint_eq(c->seed, 1);
    ck_assert_ptr_nonnull(exp_cell_find(cells, n, "bench-parity_check-none-lr0.001-s1"));
    free(cells);
}
END_TEST

START_TEST(set_refuses_what_it_cannot_do) {
    static const struct {
        const char *text, *says;
    } BAD[] = {{"layers=0", "--set layers"},
               {"depth=3", "no setting 'depth'"},
               {"layers", "not NAME=VALUE"},
               {"layers=2,layers=3", "given twice"},
               {"N=30", "M (25) must be past N (30)"},
               {"heads=3", "must divide d_model"},
               {"lr=1e-3/1e-3", "named twice"},
               {"tasks=reverse_string/reverse", "'reverse' is not a task of the benchmark"},
               {"M=200", "give range="}};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        ExpSettings s;
        exp_settings_bench(&s, false, 0);
        Err e;
        ck_assert_msg(exp_bench_set(&s, BAD[i].text, &e) == ERR_INPUT, "%s accepted",
                      BAD[i].text);
        ck_assert_msg(strstr(e.msg, BAD[i].says) != NULL, "%s: %s", BAD[i].text, e.msg);
    }
    expect_exit("experiments", "--set layers=2 --list", 2, "goes with --bench");
    expect_exit("experiments", "--retrain --list", 2, "goes with --bench");
}
END_TEST

/* A quick cell's record under another build's name: the benchmark takes
 * it as done (the committed cells' way) and builds its page from it;
 * --retrain runs it again, under this build's name. */
START_TEST(a_cell_of_another_build_counts_as_done) {
    char *dir = scratch();
    ExpSettings s;
    exp_settings_bench(&s, true, 0);
    Err e;
    ck_assert(exp_bench_set(&s, "tasks=parity_check", &e) == 0);
    ExpCell *cells;
    size_t n;
    ck_assert(exp_cells(&s, &cells, &n, &e) == 0);
    const char *id = "bench-parity_check-none-s1";
    const ExpCell *c = exp_cell_find(cells, n, id);
    ck_assert_ptr_nonnull(c);
    ExpCellResult res;
    ck_assert_msg(exp_cell_run(&s, c, &res, &e) == 0, "%s", e.msg);
    Buf b = {0};
    ck_assert(exp_cell_format(&b, &s, c, &res, "000000000000", "Haswell", 0.5) == 0);
    ck_assert(exp_cell_save_text(dir, id, (const char *)b.p, b.n, &e) == 0);
    buf_free(&b);
    exp_cell_result_free(&res);
    free(cells);
    char args[4096];
    /* --list --missing: it is not missing; with --retrain it is */
    for (int retrain = 0; retrain < 2; retrain++) {
        snprintf(args, sizeof args, "--bench --quick --set tasks=parity_check --cells %s "
                 "--list --missing%s", dir, retrain ? " --retrain" : "");
        Run r = run("experiments", args);
        ck_assert_msg(r.status == 0 && (strstr(r.out, id) != NULL) == retrain, "%s%s", r.out,
                      r.err);
        run_free(&r);
    }
    remove_dir(dir);
}
END_TEST

TCase *tcase_protocol(void) {
    TCase *tc = tcase_create("protocol");
    tcase_add_test(tc, every_setting_moves_the_key);
    tcase_add_test(tc, a_sweep_names_its_cells_by_rate);
    tcase_add_test(tc, set_refuses_what_it_cannot_do);
    tcase_add_test(tc, a_cell_of_another_build_counts_as_done);
    return tc;
}
