/* Edge cases round four (issue 36), the grid's folders, records and
 * publishing: see test_guards.c. */
#define _XOPEN_SOURCE 700 /* symlink */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/experiments/cellfile.h"
#include "../src/run/outputs.h"
#include "suites.h"

#define QCELL "$B/experiments --bench --quick --cell bench-even_pairs-none-s1"

/* A folder whose grid.settings is gone is claimed from its cells: a run
 * of another grid is refused at once (before it overwrites a cell), and
 * the grid whose cells they are goes on. */
START_TEST(a_folder_without_its_settings_file_is_judged_by_its_cells) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, QCELL " --cells F && rm F/grid.settings && cp "
              "F/bench-even_pairs-none-s1.cell kept", 0, NULL);
    expect_sh(top, "$B/experiments --bench --cell bench-even_pairs-none-s1 --cells F", 2,
              "it holds 1 cell made by the benchmark's quick grid");
    expect_sh(top, "cmp kept F/bench-even_pairs-none-s1.cell && test ! -e F/grid.settings", 0,
              NULL);
    expect_sh(top, "$B/experiments --bench --quick --list --missing --cells F | grep -c . | "
              "grep -qx 359", 0, NULL);
    expect_sh(top, "$B/experiments --bench --quick --cell bench-even_pairs-none-s2 --cells F "
              "&& grep -q 'quick=1' F/grid.settings", 0, NULL);
    remove_dir(top);
}
END_TEST

/* A grid.settings that is damaged, or contradicts the folder's cells, is
 * said to be so, and the advice is to remove the file, never the cells. */
START_TEST(a_damaged_settings_file_is_never_called_another_grid) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, QCELL " --cells F", 0, NULL);
    const char *damage[] = {"printf 'posenc grid 1\\nsettings bench quick=1 d_mod\\n'",
                            "printf 'posenc grid 1\\nsettings bench quick=0 d_model=16\\n'",
                            "printf 'posenc grid 1\\nsett'", "printf '\\0\\0\\0'"};
    for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s > F/grid.settings && " QCELL " --cells F", damage[i]);
        expect_sh(top, cmd, 2, "rm F/grid.settings; not the cells");
        refute_sh(top, cmd, "rm -r");
    }
    expect_sh(top, "rm F/grid.settings && " QCELL " --cells F", 0, NULL);
    remove_dir(top);
}
END_TEST

/* The source id is made from the files, in a git work tree or out of
 * one: a copy of the sources without .git gives this tree's id, and a
 * change to a C file gives another (never the empty hash's constant).
 * The tree's id is the build's ($B/source_id.h, made as make test built
 * the programs) unless a source changed since: then the copy's id is the
 * tree's own as make names it now, and the test says that the sources
 * changed while the tests ran, not that the id is wrong. */
START_TEST(source_id_is_made_from_the_files) {
    char top[256], path[512];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, "cp -r \"$TOP/src\" \"$TOP/examples\" \"$TOP/scripts\" \"$TOP/Makefile\" . && "
              "mkdir -p build && cp \"$TOP/build/config.mk\" build/ && "
              "make -s build/source_id.h BUILD=build >/dev/null && "
              "! grep -q da39a3ee5e6b build/source_id.h", 0, NULL);
    snprintf(path, sizeof path, "%s/build/source_id.h", top);
    char *copy = slurp(path);
    ck_assert_msg(strstr(copy, "POSENC_SOURCE_ID \""), "%s", copy);
    const char *bin = getenv("POSENC_BIN");
    snprintf(path, sizeof path, "%s/source_id.h", bin ? bin : "build");
    char *built = slurp(path);
    if (strcmp(copy, built) != 0) {
        /* the tree's id as make names it now, in place */
        expect_sh(top, "make -s -C \"$TOP\" BUILD=\"$PWD/now\" \"$PWD/now/source_id.h\" "
                  ">/dev/null", 0, NULL);
        snprintf(path, sizeof path, "%s/now/source_id.h", top);
        char *now = slurp(path);
        ck_assert_msg(strcmp(copy, now) != 0,
                      "the sources changed while the tests ran: the programs were built from "
                      "the sources of id %.12s, and the files now give %.12s; run the tests "
                      "again on sources that stay as they are",
                      strchr(built, '"') ? strchr(built, '"') + 1 : built,
                      strchr(now, '"') ? strchr(now, '"') + 1 : now);
        ck_abort_msg("a copy of the sources without .git gives the id %s, the tree in place "
                     "%s: the id is not made from the files alone", copy, now);
    }
    free(built);
    expect_sh(top, "cp build/source_id.h before && echo '/* changed */' >> src/core/err.c && "
              "make -s build/source_id.h BUILD=build >/dev/null && ! cmp -s before "
              "build/source_id.h", 0, NULL);
    free(copy);
    remove_dir(top);
}
END_TEST

/* A page is written only where there is none or over its own grid's:
 * every scheme's quick page never over the standard quick page, nor any
 * page over a file that no grid made. */
START_TEST(a_page_is_written_only_over_its_own_grids) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, "mkdir O && printf '# The benchmark\\n\\n**Quick settings** (`make benchmark "
              "QUICK=1`): tiny\\n' > O/benchmark.md && $B/experiments --bench --quick "
              "--all-schemes --cells C --out O", 2, "O/benchmark.md was made by `make benchmark "
              "QUICK=1`, and this run is `make benchmark QUICK=1 ALL=1`");
    expect_sh(top, "test ! -e C", 0, NULL);
    expect_sh(top, "printf 'my notes\\n' > O/benchmark.md && $B/experiments --bench --quick "
              "--cells C --out O", 2, "O/benchmark.md is not a page this program wrote");
    expect_sh(top, "grep -qx 'my notes' O/benchmark.md", 0, NULL);
    expect_sh(top, "$B/experiments --bench --quick --all-schemes --help | grep -q "
              "build/benchmark-all", 0, NULL);
    remove_dir(top);
}
END_TEST

/* Records through --store: one cut mid-line with the next glued onto its
 * last line costs only itself (named), and a CRLF stream, or file, is read. */
START_TEST(a_cut_record_never_costs_the_next) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, "{ $B/experiments --bench --quick --cell bench-even_pairs-none-s1 --cells - "
              "| head -c 250; $B/experiments --bench --quick --cell bench-even_pairs-none-s2 "
              "--cells -; } > glued && mkdir F && $B/experiments --bench --quick --store --cells "
              "F < glued", 2, "the record of bench-even_pairs-none-s1 was cut short mid-line");
    expect_sh(top, "test -s F/bench-even_pairs-none-s2.cell && test ! -e "
              "F/bench-even_pairs-none-s1.cell", 0, NULL);
    expect_sh(top, "$B/experiments --bench --quick --cell bench-even_pairs-none-s1 --cells - | "
              "sed 's/$/\\r/' | $B/experiments --bench --quick --store --cells F", 0,
              "stored bench-even_pairs-none-s1");
    /* a cell file copied with its line ends converted (a checkout with
     * core.autocrlf): read as it was written, its checksum judging the
     * LF form, so it is done (issue 47: never retrained) */
    expect_sh(top, "sed 's/$/\\r/' F/bench-even_pairs-none-s1.cell > crlf && mv crlf "
              "F/bench-even_pairs-none-s1.cell && ! $B/experiments --bench --quick --list "
              "--missing --cells F | grep -qx bench-even_pairs-none-s1", 0, NULL);
    /* the reader alone: the glued line ends the cut record, starts the next */
    ExpRecordReader r = {0};
    Err e;
    const char *lines[] = {EXP_CELL_MAGIC "\n", "id a\n", "per_len 3 0.1 0." EXP_CELL_MAGIC "\n",
                           "id b\n", "end\n"};
    int want[] = {EXP_RECORD_WAIT, EXP_RECORD_WAIT, EXP_RECORD_BAD, EXP_RECORD_WAIT,
                  EXP_RECORD_DONE};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        ck_assert_int_eq(exp_record_line(&r, lines[i], strlen(lines[i]), &e), want[i]);
        if (want[i] == EXP_RECORD_BAD)
            ck_assert_msg(strstr(e.msg, "the record of a was cut short"), "%s", e.msg);
    }
    ck_assert_int_eq(memcmp(r.text.p, EXP_CELL_MAGIC "\nid b\nend\n", r.text.n), 0);
    exp_record_reader_free(&r);
    remove_dir(top);
}
END_TEST

/* A set of files published as one checks every destination before it
 * moves one: a file where a folder goes, or a symbolic link inside the
 * destination, stops it with nothing moved and nothing left marked. */
START_TEST(a_publish_checks_its_destinations_before_moving) {
    char top[256], staging[4096], path[8192];
    snprintf(top, sizeof top, "%s", scratch());
    Err e;
    for (int blocker = 0; blocker < 2; blocker++) {
        expect_sh(top, "rm -rf out victim && mkdir out victim && printf old > out/page.md && "
                  "printf mine > victim/t.csv", 0, NULL);
        snprintf(path, sizeof path, "%s/out/page", top);
        if (blocker == 0)
            write_text(path, "a file where the page's folder goes\n");
        else
            ck_assert_int_eq(symlink("../victim", path), 0);
        snprintf(path, sizeof path, "%s/out", top);
        ck_assert_int_eq(publish_stage(path, "page", staging, sizeof staging, &e), 0);
        char file[8192];
        snprintf(file, sizeof file, "%s/page.md", staging);
        write_text(file, "new\n");
        snprintf(file, sizeof file, "%s/page", staging);
        ck_assert_int_eq(mkdir(file, 0777), 0);
        snprintf(file, sizeof file, "%s/page/t.csv", staging);
        write_text(file, "new\n");
        ck_assert_int_eq(publish_commit(path, staging, &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, blocker ? "is a symbolic link" : "is in the way"), "%s",
                      e.msg);
        /* nothing moved, nothing marked: the next run starts clean */
        expect_sh(top, "grep -qx old out/page.md && grep -qx mine victim/t.csv && test ! -e "
                  "out/.page.new", 0, NULL);
        ck_assert_int_eq(publish_recover(path, "page", &e), 0);
    }
    remove_dir(top);
}
END_TEST

/* The experiments program's hints name its own grid's options, and a
 * folder it cannot write is refused before any work: a cell is not run,
 * a record is not read. */
START_TEST(experiments_refuses_before_the_work) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, "$B/experiments --bench --quick --cell nosuch", 2,
              "`experiments --list --bench --quick` names them");
    expect_sh(top, "$B/experiments --bench --all-schemes --seeds 3 --cell nosuch", 2,
              "`experiments --list --bench --all-schemes --seeds 3` names them");
    /* read-only for an unprivileged user (root writes anywhere) */
    expect_sh(top, QCELL " --cells F && chmod 755 . && chmod 555 F", 0, NULL);
    expect_sh(top, "$NOBODY $B/experiments --bench --quick --cell bench-even_pairs-none-s2 "
              "--cells F", 2, "cannot write the cell into F");
    expect_sh(top, "test ! -e F/bench-even_pairs-none-s2.cell", 0, NULL);
    expect_sh(top, "chmod 644 F/*.cell; $B/experiments --bench --quick --cell "
              "bench-even_pairs-none-s1 --cells - > rec && $NOBODY $B/experiments --bench "
              "--quick --store --cells F < rec", 2, "--store: cannot write into F");
    refute_sh(top, "$NOBODY $B/experiments --bench --quick --store --cells F < rec", "refused");
    expect_sh(top, "chmod 755 F", 0, NULL);
    remove_dir(top);
}
END_TEST

TCase *tcase_guard_grid(void) {
    TCase *tc = tcase_create("grid");
    tcase_add_test(tc, a_folder_without_its_settings_file_is_judged_by_its_cells);
    tcase_add_test(tc, a_damaged_settings_file_is_never_called_another_grid);
    tcase_add_test(tc, source_id_is_made_from_the_files);
    tcase_add_test(tc, a_page_is_written_only_over_its_own_grids);
    tcase_add_test(tc, a_cut_record_never_costs_the_next);
    tcase_add_test(tc, a_publish_checks_its_destinations_before_moving);
    tcase_add_test(tc, experiments_refuses_before_the_work);
    return tc;
}
