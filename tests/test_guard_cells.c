/* Edge cases round five (issue 47), the benchmark's committed cells as
 * data: CI rebuilds their page from them alone, a page is written only
 * over its own grid's, a cell's summary is checked against its lengths, a
 * CRLF checkout is read, and the messages of the cells' folders and
 * scripts say what is wrong. Each test works on copies (see test_guards.c). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/buf.h"
#include "../src/experiments/grid.h"
#include "../src/experiments/places.h"
#include "../src/experiments/protocol.h"
#include "suites.h"

#define QCELL "$B/experiments --bench --quick --cells F --cell "

/* The repository's top (the tests run there) into top: the committed
 * cells are top/docs/benchmark/cells. */
static void repo_top(char *top, size_t cap) {
    ck_assert_ptr_nonnull(getcwd(top, cap));
}

/* A scratch folder with C, a copy of the committed cells, and docs.md, a
 * copy of the committed page; its path into dir. */
static void copy_of_the_cells(char *dir, size_t cap) {
    char top[1024], cmd[4096];
    repo_top(top, sizeof top);
    snprintf(dir, cap, "%s", scratch());
    snprintf(cmd, sizeof cmd, "cp -r %s/docs/benchmark/cells C && cp %s/docs/benchmark.md "
             "docs.md && mkdir -p O/benchmark && cp %s/docs/benchmark/pilots.csv O/benchmark/",
             top, top, top);
    expect_sh(dir, cmd, 0, NULL);
}

/* Redoes the checksum of the cell file at path after an edit, as someone
 * hiding the edit would: the record's fnv1a up to its checksum line. */
static void redo_checksum(const char *path) {
    char *text = slurp(path);
    char *line = strstr(text, "\nchecksum ");
    ck_assert_ptr_nonnull(line);
    line++;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)buf_fnv1a(text, (size_t)(line - text)));
    memcpy(line + strlen("checksum "), hex, 16);
    write_text(path, text);
    free(text);
}

#define CELL "bench-binary_addition-xl-s1"
#define FROM_CELLS "$B/experiments --bench --from-cells --cells C --out O"

/* CI's check: the page from the committed cells alone is the committed
 * page, byte for byte; a cell missing, or damaged, stops it, named, and
 * nothing trains or is written (a hand-edited page cannot pass). */
START_TEST(the_page_is_rebuilt_from_the_committed_cells_alone) {
    char dir[256];
    copy_of_the_cells(dir, sizeof dir);
    expect_sh(dir, FROM_CELLS " && cmp O/benchmark.md docs.md", 0, NULL);
    expect_sh(dir, "rm C/" CELL ".cell && " FROM_CELLS, 2,
              "--from-cells: 1 of the 540 cells are not in C as sound records (" CELL);
    expect_sh(dir, "test ! -e C/" CELL ".cell", 0, NULL); /* nothing trained */
    expect_sh(dir, "cp $TOP/docs/benchmark/cells/" CELL ".cell C/ && sed -i 's/^seed 1$/seed "
              "2/' C/" CELL ".cell && " FROM_CELLS, 2, "C/" CELL ".cell is damaged");
    refute_sh(dir, FROM_CELLS, "runs again");
    expect_sh(dir, FROM_CELLS " --retrain", 2, "give one");
    remove_dir(dir);
}
END_TEST

/* Every committed cell's value and exact are the means of its own
 * lengths 11..125; an edited value, with the checksum redone, is damage. */
START_TEST(a_summary_is_checked_against_its_lengths) {
    char dir[256], path[512];
    copy_of_the_cells(dir, sizeof dir);
    expect_sh(dir, "$B/experiments --bench --list --missing --cells C | grep -c . | grep -qx 0",
              0, NULL);
    snprintf(path, sizeof path, "%s/C/" CELL ".cell", dir);
    char *text = slurp(path);
    char *v = strstr(text, "value 0.4971");
    ck_assert_ptr_nonnull(v);
    v[8] = '9'; /* 0.49... -> 0.99...: in range, the checksum redone */
    write_text(path, text);
    free(text);
    redo_checksum(path);
    expect_sh(dir, "$B/experiments --bench --list --missing --cells C | grep -qx " CELL, 0,
              "are not the means of its per_len and exact_len over lengths 11..125");
    /* an edited test length (125, the last), the summary kept: the same */
    expect_sh(dir, "cp $TOP/docs/benchmark/cells/" CELL ".cell C/ && sed -i "
              "'/^per_len /s/ 0.4943470424381452$/ 0.5943470424381452/' C/" CELL ".cell && "
              "! cmp -s C/" CELL ".cell $TOP/docs/benchmark/cells/" CELL ".cell", 0, NULL);
    redo_checksum(path);
    expect_sh(dir, "$B/experiments --bench --list --missing --cells C | grep -qx " CELL, 0,
              NULL);
    remove_dir(dir);
}
END_TEST

/* The page's identity is its whole grid: a page of other seeds, or of a
 * changed protocol, names its own command and never replaces the
 * standard page; the same changes in any order are the same grid. */
START_TEST(a_page_is_written_only_over_its_own_grids) {
    char dir[256];
    copy_of_the_cells(dir, sizeof dir);
    expect_sh(dir, "cp docs.md O/benchmark.md && $B/experiments --bench --seeds 2 --cells C "
              "--out O", 2, "was made by `make benchmark`, and this run is `make benchmark "
              "SEEDS=2`");
    expect_sh(dir, "$B/experiments --bench --set steps=1,tasks=even_pairs,per_len=1 --cells S "
              "--out O", 2, "this run is `make benchmark SET='steps=1,per_len=1,tasks=even_pairs'`");
    expect_sh(dir, "cmp O/benchmark.md docs.md", 0, NULL);
    /* its own folder, and its own command on the page */
    expect_sh(dir, "$B/experiments --bench --seeds 2 --cells C --out P && grep -q 'comes from "
              "`make benchmark SEEDS=2` (`build/experiments --bench --seeds 2 --out "
              "build/benchmark-seeds-2`)' P/benchmark.md", 0, NULL);
    /* the quick page is the quick grid's alone */
    expect_sh(dir, "mkdir Q && printf 'x `make benchmark QUICK=1` y\\n' > Q/benchmark.md && "
              "$B/experiments --bench --quick --set steps=7 --cells S --out Q", 2,
              "this run is `make benchmark QUICK=1 SET='steps=7'`");
    expect_sh(dir, "$B/experiments --bench --set steps=6000", 2, "changes nothing");
    remove_dir(dir);

    ExpSettings a, b;
    Err e;
    char ta[EXP_GRID_TEXT], tb[EXP_GRID_TEXT], out[256];
    exp_settings_bench(&a, true, 0);
    exp_settings_bench(&b, true, 4);
    ck_assert_int_eq(exp_bench_set(&a, "per_len=2,steps=7", &e), 0);
    ck_assert_int_eq(exp_bench_set(&b, "steps=7,per_len=2", &e), 0);
    exp_grid_make(ta, sizeof ta, &a);
    ck_assert_str_eq(ta, "make benchmark QUICK=1 SET='steps=7,per_len=2'");
    exp_grid_make(tb, sizeof tb, &b);
    ck_assert_str_eq(tb, "make benchmark QUICK=1 SEEDS=4 SET='steps=7,per_len=2'");
    exp_grid_out(out, sizeof out, &b);
    ck_assert_str_eq(out, "build/benchmark-quick-set-seeds-4");
    ck_assert_str_eq(exp_grid_cells(&b), "build/cells-bench-quick-set");
    exp_settings(&a, false, 12);
    exp_grid_make(ta, sizeof ta, &a);
    ck_assert_str_eq(ta, "make experiments SEEDS=12");
    exp_grid_out(out, sizeof out, &a);
    ck_assert_str_eq(out, "build/experiments-seeds-12");
    exp_settings(&a, false, 10); /* the default, named as such */
    exp_grid_out(out, sizeof out, &a);
    ck_assert_str_eq(out, "docs");
}
END_TEST

/* A checkout that turned every line end into CRLF (git's core.autocrlf)
 * reads the same cells and makes the same page; .gitattributes keeps
 * the cells and CSVs LF on checkout. */
START_TEST(a_crlf_checkout_of_the_cells_is_read) {
    char dir[256];
    copy_of_the_cells(dir, sizeof dir);
    /* one sed for the 541 files (-i takes each file alone) */
    expect_sh(dir, "sed -i 's/$/\\r/' C/* O/benchmark/pilots.csv && "
              "grep -q \"$(printf '\\r')\" C/grid.settings && " FROM_CELLS " && cmp O/benchmark.md "
              "docs.md", 0, NULL);
    expect_sh(dir, "$B/experiments --bench --list --missing --cells C | grep -c . | grep -qx 0",
              0, NULL);
    char top[1024], cmd[1200];
    repo_top(top, sizeof top);
    snprintf(cmd, sizeof cmd, "cd %s && git check-attr eol -- docs/benchmark/cells/" CELL ".cell "
             "docs/benchmark/scores.csv | grep -c 'eol: lf' | grep -qx 2", top);
    expect_sh(dir, cmd, 0, NULL);
    remove_dir(dir);
}
END_TEST

/* The folders' messages: a lock names the folder the user gave, a cell
 * copied in from another grid is named by its file and how its settings
 * differ, a cell of an older format is named before it runs again. */
START_TEST(the_cells_folders_say_what_is_wrong) {
    char *dir = scratch(), path[512];
    expect_sh(dir, QCELL "bench-even_pairs-none-s1", 0, NULL);
    snprintf(path, sizeof path, "%s/F/cells.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    ck_assert_int_ge(fd, 0);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
    expect_sh(dir, "$B/experiments --bench --quick --cells F --out O", 2,
              "--cells F is in use by another run");
    refute_sh(dir, "$B/experiments --bench --quick --cells F --out O", "F/cells ");
    close(fd);
    /* make_data's folder alike */
    snprintf(path, sizeof path, "%s/D", dir);
    expect_sh(dir, "mkdir D", 0, NULL);
    snprintf(path, sizeof path, "%s/D/.make_data.lock", dir);
    fd = open(path, O_RDWR | O_CREAT, 0666);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
    expect_sh(dir, "$B/make_data --task sort --out D", 2, "--out D is in use by another run");
    close(fd);
    /* another protocol's cell copied in */
    expect_sh(dir, "$B/experiments --bench --quick --set steps=7 --cells G --cell "
              "bench-even_pairs-none-s2 && cp G/bench-even_pairs-none-s2.cell F/ && " QCELL
              "bench-even_pairs-none-s3", 2, "it holds 1 cell made by other settings of the "
              "benchmark's quick grid (bench-even_pairs-none-s2.cell: steps=7, here 60)");
    /* one made without the reference's forms, whose key does not name them */
    expect_sh(dir, "$B/experiments --bench --quick --set reference=0 --cells H --cell "
              "bench-even_pairs-none-s2 && cp H/bench-even_pairs-none-s2.cell F/ && " QCELL
              "bench-even_pairs-none-s3", 2, "(bench-even_pairs-none-s2.cell: reference absent, "
              "here 1)");
    /* an older format, named */
    expect_sh(dir, "rm F/bench-even_pairs-none-s2.cell && printf 'posenc cell 3\\nid x\\n' > "
              "F/bench-even_pairs-none-s2.cell && $B/experiments --bench --quick --list "
              "--missing --cells F | grep -qx bench-even_pairs-none-s2", 0,
              "1 cell file of F is a record of an older format (made by older sources; the "
              "first, F/bench-even_pairs-none-s2.cell): it runs again");
    remove_dir(dir);
}
END_TEST

/* scripts/bench_recheck.sh: from any folder; arguments of another grid,
 * and a cell without result lines, said to be so (exit 2); the cells it
 * draws change with the seed it names. */
START_TEST(bench_recheck_says_what_it_checks) {
    char *dir = scratch();
    const char *ids[] = {"bench-even_pairs-none-s1", "bench-even_pairs-none-s2",
                         "bench-parity_check-none-s1", "bench-parity_check-none-s2",
                         "bench-even_pairs-rope-s1", "bench-even_pairs-rope-s2"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, QCELL "%s", ids[i]);
        expect_sh(dir, cmd, 0, NULL);
    }
    /* from another folder, the folder named relative to it */
    expect_sh(dir, "mkdir -p elsewhere && cd elsewhere && $TOP/scripts/bench_recheck.sh ../F "
              "--bench --quick -- bench-even_pairs-none-s1 > out && grep -q 'the same results' "
              "out", 0, NULL);
    expect_sh(dir, "$TOP/scripts/bench_recheck.sh F --bench -- bench-even_pairs-none-s1", 2,
              "do not name the grid of");
    expect_sh(dir, "$TOP/scripts/bench_recheck.sh F --bench --quick -- nothing-s1", 2,
              "no cell of this grid is named nothing-s1");
    /* the draw: named, reproducible, from the cheaper half */
    expect_sh(dir, "BENCH_RECHECK_SEED=a $TOP/scripts/bench_recheck.sh F --bench --quick > a "
              "&& BENCH_RECHECK_SEED=a $TOP/scripts/bench_recheck.sh F --bench --quick > a2 && "
              "cmp a a2 && grep -q 'drawn by seed a (BENCH_RECHECK_SEED=a draws them again) "
              "from the 3 cells' a && test $(grep -c 'the same results' a) -eq 2", 0, NULL);
    expect_sh(dir, "for s in b c d e f g h; do BENCH_RECHECK_SEED=$s "
              "$TOP/scripts/bench_recheck.sh F --bench --quick | head -n 1 | sed 's/.*s://'; "
              "done | sort -u | grep -c . | grep -qv '^1$'", 0, NULL);
    expect_sh(dir, "sed -i '/^result /d; /^per_len /d; /^exact_len /d' "
              "F/bench-even_pairs-none-s1.cell && $TOP/scripts/bench_recheck.sh F --bench "
              "--quick -- bench-even_pairs-none-s1", 2, "holds no result lines: it is damaged");
    remove_dir(dir);
}
END_TEST

/* Issue 61, item 6: `make benchmark ALL=1`, which the page suggests, and
 * `experiments --bench --all-schemes --cell ID` wrote into the committed
 * docs/benchmark/cells (the all-schemes grid has the standard grid's
 * settings key, so the folder's grid.settings let it in), and the
 * referee then found no whole grid. Every grid but the standard one has
 * folders of its own under build/, in the program and in make alike; an
 * explicit --cells naming a committed folder (from any checkout) is
 * refused for another grid, exit 2, naming the folder and the grid, before
 * anything is written; reading it, and the grid writing docs/benchmark/next
 * with its own --cells, go on. Works on a copy of the cells laid out as a
 * checkout's. */
START_TEST(other_grids_never_write_into_the_committed_cells) {
    char top[1024], cmd[4096];
    repo_top(top, sizeof top);
    char *dir = scratch();
    snprintf(cmd, sizeof cmd, "mkdir -p docs/benchmark/range2048 docs/benchmark/next && cp -r "
             "%s/docs/benchmark/cells docs/benchmark/ && cp docs/benchmark/cells/grid.settings "
             "docs/benchmark/range2048/ && ls docs/benchmark/cells > before", top);
    expect_sh(dir, cmd, 0, NULL);
    /* --store first: a cell of the full grid, let in, trains for minutes */
    expect_sh(dir, "$B/experiments --bench --all-schemes --store --cells ./docs/benchmark/cells/ "
              "< /dev/null", 2, "`make benchmark ALL=1`");
    expect_sh(dir, "$B/experiments --bench --seeds 4 --store --cells \"$PWD/docs/benchmark/"
              "range2048\" < /dev/null", 2, "range2048 is the benchmark's committed folder "
              "docs/benchmark/range2048, the standard grid's cells (a whole grid, which its "
              "page and CI's referee read), and this run is another grid, `make benchmark "
              "SEEDS=4`");
    expect_sh(dir, "$B/experiments --bench --all-schemes --cell bench-even_pairs-t5-s1 --cells "
              "docs/benchmark/cells", 2, "--cells docs/benchmark/cells is the benchmark's "
              "committed folder docs/benchmark/cells, the standard grid's cells (a whole grid, "
              "which its page and CI's referee read), and this run is another grid, `make "
              "benchmark ALL=1`, whose cells would join them; leave out --cells (this grid's "
              "own folder is build/cells-bench-all)");
    expect_sh(dir, "ls docs/benchmark/cells | cmp - before && ls docs/benchmark/range2048 | "
              "grep -qx grid.settings", 0, NULL);
    /* read, it is every grid's; written, the standard grid's and the
     * next run's, each with its own --cells */
    expect_sh(dir, "$B/experiments --bench --all-schemes --list --missing --cells "
              "docs/benchmark/cells | grep -c . | grep -qx 495", 0, NULL);
    expect_sh(dir, "$B/experiments --bench --store --cells docs/benchmark/cells < /dev/null && "
              "$B/experiments --bench --seeds 7 --set range=512 --store --cells "
              "docs/benchmark/next < /dev/null && test -e docs/benchmark/next/grid.settings", 0,
              NULL);
    /* left out, the folders are the grids' own */
    expect_sh(dir, "$B/experiments --bench --all-schemes --store < /dev/null && $B/experiments "
              "--bench --seeds 5 --store < /dev/null && test -e build/cells-bench-all/grid."
              "settings && test -e build/cells-bench-seeds/grid.settings && ls "
              "docs/benchmark/cells | cmp - before", 0, NULL);
    remove_dir(dir);
    ck_assert_str_eq(exp_grid_committed("docs/benchmark/cells"), "docs/benchmark/cells");
    ck_assert_str_eq(exp_grid_committed("/elsewhere/docs/benchmark/range2048/"),
                     "docs/benchmark/range2048");
    ck_assert_ptr_null(exp_grid_committed("docs/benchmark/next"));
    ck_assert_ptr_null(exp_grid_committed("/elsewhere/mydocs/benchmark/cells"));
    /* make's folders are the program's: ALL=1, SEEDS=N (the default
     * seeds being the standard grid), QUICK=1 */
    const struct {
        bool quick, all;
        size_t seeds;
    } grids[] = {{false, false, 0}, {false, true, 0}, {false, false, 5}, {false, false, 3},
                 {false, true, 5}, {true, true, 0}, {true, false, 4}};
    for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
        ExpSettings s;
        exp_settings_bench(&s, grids[i].quick, grids[i].seeds);
        if (grids[i].all)
            s.bench_columns = exp_bench_all(&s);
        char seeds[32] = "";
        if (grids[i].seeds)
            snprintf(seeds, sizeof seeds, " SEEDS=%zu", grids[i].seeds);
        snprintf(cmd, sizeof cmd, "make -n -s -C \"$TOP\" benchmark BUILD=build%s%s%s | grep "
                 "-q -- '--cells %s '", grids[i].quick ? " QUICK=1" : "",
                 grids[i].all ? " ALL=1" : "", seeds, exp_grid_cells(&s));
        expect_sh(top, cmd, 0, NULL);
        ck_assert_int_eq(exp_grid_may_commit(&s), !grids[i].all && (!grids[i].seeds ||
                         grids[i].seeds == (grids[i].quick ? 2u : 3u)));
    }
}
END_TEST

TCase *tcase_guard_cells(void) {
    TCase *tc = tcase_create("cells_as_data");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_page_is_rebuilt_from_the_committed_cells_alone);
    tcase_add_test(tc, a_summary_is_checked_against_its_lengths);
    tcase_add_test(tc, a_page_is_written_only_over_its_own_grids);
    tcase_add_test(tc, a_crlf_checkout_of_the_cells_is_read);
    tcase_add_test(tc, the_cells_folders_say_what_is_wrong);
    tcase_add_test(tc, bench_recheck_says_what_it_checks);
    tcase_add_test(tc, other_grids_never_write_into_the_committed_cells);
    return tc;
}
