/* The pages' templates (src/experiments/page/prose.h): the filler puts
 * the values where the template says and refuses, with the template's
 * file and line, whatever it cannot place; a writer's edit of a template
 * reaches the page with nothing rebuilt. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/experiments/page/prose.h"
#include "../src/experiments/page/tables.h"
#include "../src/stats/stats.h"
#include "suites.h"

/* A folder of one template file, t.md, holding text; the filler reads it
 * from now on. The folder's path into dir. */
static void templates_of(char *dir, size_t cap, const char *text) {
    snprintf(dir, cap, "%s", scratch());
    char path[512];
    snprintf(path, sizeof path, "%s/t.md", dir);
    write_text(path, text);
    ck_assert_int_eq(setenv("POSENC_TEMPLATES", dir, 1), 0);
    prose_reload();
    prose_begin();
}

/* The page's error after the fills (prose_end), "" without one. */
static const char *error_now(void) {
    static Err e;
    e.msg[0] = '\0';
    prose_end(&e);
    return e.msg;
}

static void done_with(const char *dir) {
    unsetenv("POSENC_TEMPLATES");
    prose_reload();
    prose_begin();
    remove_dir(dir);
}

START_TEST(a_template_is_filled_as_written) {
    char dir[256];
    templates_of(dir, sizeof dir, "a comment\n\n@@ one\nL = {{L}}, {x} {{p:.3f}} "
                 "{{d:+.2f}} and {{who}}{{tail}}.\n\n\n@@ two\nsecond\n");
    Buf b = {0}, frag = {0};
    buf_printf(&frag, "|a|b|");
    PROSE(&b, "one", pv_count("L", 12), pv_real("p", 0.0123), pv_real("d", 0.5),
          pv_tmpl("who", "two"), pv_buf("tail", &frag));
    ck_assert_str_eq(error_now(), "");
    buf_put(&b, "", 1);
    /* the blank lines at its end are the code's to write, not the template's */
    ck_assert_str_eq((const char *)b.p, "L = 12, {x} 0.012 +0.50 and second|a|b|.");
    buf_free(&b), buf_free(&frag);
    done_with(dir);
}
END_TEST

/* Each refusal names the file and the line, and leaves the page unwritten. */
START_TEST(what_the_filler_cannot_place_is_refused_with_its_line) {
    static const struct {
        const char *text, *want;
        int values; /* which values the code gives: 1 L, 2 L and extra, 3 p (a number) */
    } cases[] = {
        {"@@ one\nfirst line\nL = {{L}} and {{M}}\n", "t.md:3: {{M}}: template one is given no "
         "value of that name (it is given: L)", 1},
        {"@@ one\nL = {{L}}\n", "t.md:1: template one does not use the value extra", 2},
        {"@@ one\n\np = {{p:.2q}}\n", "t.md:3: '{{p:.2q}}': unknown format '.2q'", 3},
        {"@@ one\np = {{p}}\n", "t.md:2: {{p}} is a number: give it a format, e.g. {{p:.2f}}",
         3},
        {"@@ one\nL = {{L:.2f}}\n", "t.md:2: {{L:.2f}}: L is a count", 1},
        {"@@ one\nL = {{L}} }}\n", "t.md:2: a '}}' with no '{{' before it", 1},
        {"@@ one\nL = {{L\n}}\n", "t.md:2: a '{{' not closed by '}}' on its line", 1},
        {"@@ one\nL = {{L is}}\n", "t.md:2: '{{L is}}' is no placeholder", 1},
        {"@@ one\n{{L}}\n@@ one\nx\n", "t.md:3: a second template one (the first: ", 1},
        {"@@ other\n{{L}}\n", "no template named one in", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[256];
        templates_of(dir, sizeof dir, cases[i].text);
        Buf b = {0};
        buf_printf(&b, "kept");
        if (cases[i].values == 1)
            PROSE(&b, "one", pv_count("L", 1));
        else if (cases[i].values == 2)
            PROSE(&b, "one", pv_count("L", 1), pv_text("extra", "x"));
        else
            PROSE(&b, "one", pv_real("p", 0.5));
        const char *why = error_now();
        ck_assert_msg(strstr(why, cases[i].want), "case %zu: '%s' lacks '%s'", i, why,
                      cases[i].want);
        ck_assert_msg(b.n == 4, "case %zu: the failed fill left %zu bytes", i, b.n);
        buf_free(&b);
        done_with(dir);
    }
    /* a folder that is not there: said so, with what to do */
    ck_assert_int_eq(setenv("POSENC_TEMPLATES", "/nonexistent/templates", 1), 0);
    prose_reload();
    prose_begin();
    Buf b = {0};
    PROSE_TEXT(&b, "one");
    ck_assert_msg(strstr(error_now(), "POSENC_TEMPLATES is /nonexistent/templates, which is no "
                                      "folder"), "%s", error_now());
    buf_free(&b);
    unsetenv("POSENC_TEMPLATES");
    prose_reload();
}
END_TEST

/* A grid of one task, two seeds, two steps: the benchmark's page from 24
 * quick cells in a second (run from a scratch folder: --cells and --out
 * there). */
#define TINY_GRID "$B/experiments --bench --quick --seeds 2 --set 'tasks=even_pairs,steps=2'"

/* Every template file of the sources is well formed; a copy of the
 * templates makes the page the sources' make, a word edited in the copy
 * reaches the page with nothing rebuilt, and a template broken in the
 * copy stops the page, named. On a tiny grid, so that it takes seconds
 * on a busy machine: that the committed cells make the committed page is
 * the cells_as_data case's (test_guard_cells.c). */
START_TEST(a_writers_edit_reaches_the_page_without_a_rebuild) {
    char *dir = scratch();
    expect_sh(dir, "cp -r $TOP/src/experiments/page/templates T && stat -c %Y $B/experiments > "
              "built && " TINY_GRID " --cells C --out O", 0, NULL);
    expect_sh(dir, "POSENC_TEMPLATES=T " TINY_GRID " --from-cells --cells C --out P && cmp "
              "O/benchmark.md P/benchmark.md", 0, NULL);
    expect_sh(dir, "sed -i 's/of the algorithmic tasks of/of the algorithmic puzzles of/' "
              "T/bench-0-head.md && POSENC_TEMPLATES=T " TINY_GRID " --from-cells --cells C "
              "--out P && grep -q 'algorithmic puzzles of Delétang' P/benchmark.md && ! grep -q "
              "'algorithmic puzzles' O/benchmark.md && stat -c %Y $B/experiments | cmp - built",
              0, NULL);
    expect_sh(dir, "sed -i 's/{{tasks}} of the/{{tasks}} of the {{nobody}}/' T/bench-0-head.md "
              "&& POSENC_TEMPLATES=T " TINY_GRID " --from-cells --cells C --out Q", 2,
              "{{nobody}}: template bench.intro is given no value of that name");
    /* the file and the line the placeholder is on */
    expect_sh(dir, "POSENC_TEMPLATES=T " TINY_GRID " --from-cells --cells C --out Q 2> err; "
              "grep -q \"T/bench-0-head.md:$(grep -n nobody T/bench-0-head.md | cut -d: -f1): "
              "{{nobody}}\" err", 0, NULL);
    expect_sh(dir, "test ! -e Q/benchmark.md", 0, NULL);
    remove_dir(dir);
    /* the sources' files, each read as the filler reads it */
    FILE *ls = popen("ls src/experiments/page/templates/*.md", "r");
    ck_assert_ptr_nonnull(ls);
    size_t files = 0;
    for (char line[2048]; fgets(line, sizeof line, ls);) {
        line[strcspn(line, "\n")] = '\0';
        Err e;
        ck_assert_msg(prose_check_file(line, &e) == 0, "%s", e.msg);
        files++;
    }
    pclose(ls);
    ck_assert_uint_ge(files, 3);
}
END_TEST

/* A grid reads its page's templates before its first cell trains: a
 * missing folder, or a broken template, is named at once, on either grid,
 * and no cell is run (before, both were found after the whole grid had
 * trained: 360 quick cells, or 10 CPU-hours of the standard grid). The
 * timeout only ends a grid that does train, so that a failure of this
 * test leaves no cells training behind it. */
START_TEST(a_broken_template_folder_is_refused_before_the_first_cell) {
    char *dir = scratch();
    expect_sh(dir, "POSENC_TEMPLATES=/nonexistent timeout 30 $B/experiments --bench --quick "
              "--cells C --out O", 2, "POSENC_TEMPLATES is /nonexistent, which is no folder");
    expect_sh(dir, "test -z \"$(ls -A C 2>/dev/null | grep '\\.cell$')\" && test ! -e "
              "O/benchmark.md", 0, NULL);
    /* the plan of a run on other hosts (scripts/grid_hosts.sh) */
    expect_sh(dir, "POSENC_TEMPLATES=/nonexistent $B/experiments --bench --quick --list "
              "--missing --cells C", 2, "POSENC_TEMPLATES is /nonexistent, which is no folder");
    /* the file and the line: its last, where the printf put the '{{' */
    expect_sh(dir, "cp -r $TOP/src/experiments/page/templates T && printf '@@ broken\\nan "
              "{{open\\n' >> T/results-1-order.md && POSENC_TEMPLATES=T timeout 30 "
              "$B/experiments --quick --cells C2 --out O2 2> err; test $? -eq 2 && grep -q "
              "\"T/results-1-order.md:$(grep -c '' T/results-1-order.md): a '{{' not closed by "
              "'}}' on its line\" err", 0, NULL);
    expect_sh(dir, "test -z \"$(ls -A C2 2>/dev/null | grep '\\.cell$')\" && test ! -e "
              "O2/results.md", 0, NULL);
    remove_dir(dir);
}
END_TEST

/* The bytes of a file, written as they are (NULs too). */
static void write_bytes(const char *path, const char *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* A template file that cannot be read, or is not UTF-8 text, is refused
 * with its name and the real reason: a symbolic link to nothing said so
 * (it printed garbage: read_regular set no message for a missing file), a
 * NUL or a Latin-1 byte named with its line (they reached the page). */
START_TEST(a_template_file_that_is_no_text_is_refused_with_its_reason) {
    char dir[256], path[512];
    templates_of(dir, sizeof dir, "@@ one\nfine\n");
    snprintf(path, sizeof path, "%s/gone.md", dir);
    ck_assert_int_eq(symlink("nowhere.md", path), 0);
    prose_reload();
    Buf b = {0};
    PROSE_TEXT(&b, "one");
    const char *why = error_now();
    ck_assert_msg(strstr(why, "gone.md: it is a symbolic link to a file that is not there"),
                  "%s", why);
    ck_assert_uint_eq(b.n, 0);
    done_with(dir);
    static const struct {
        const char *bytes;
        size_t n;
        const char *want; /* NULL: read as it is */
    } cases[] = {
        {"@@ one\nfirst\nan\0b\n", 18, "t.md:3: a NUL byte (byte 16 of the file)"},
        {"@@ one\ncaf\xe9\n", 12, "t.md:2: the byte 0xE9 (byte 11 of the file) is not UTF-8"},
        {"@@ one\nx \xc3\n", 11, "t.md:2: the byte 0xC3 (byte 10 of the file) is not UTF-8"},
        {"@@ one\n\xc0\xaf\n", 10, "t.md:2: the byte 0xC0"}, /* an overlong '/' */
        {"@@ one\n\xed\xa0\x80\n", 11, "t.md:2: the byte 0xED"}, /* a surrogate */
        {"@@ one\ncaf\xc3\xa9 \xe2\x89\x88 \xf0\x9f\x99\x82\n", 22, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        templates_of(dir, sizeof dir, "");
        snprintf(path, sizeof path, "%s/t.md", dir);
        write_bytes(path, cases[i].bytes, cases[i].n);
        Err e;
        int checked = prose_check_file(path, &e);
        PROSE_TEXT(&b, "one");
        why = error_now();
        if (!cases[i].want) {
            ck_assert_msg(checked == 0 && !why[0], "case %zu: %s", i, why);
            ck_assert_uint_eq(b.n, cases[i].n - 8);
        } else {
            ck_assert_msg(strstr(why, cases[i].want), "case %zu: '%s' lacks '%s'", i, why,
                          cases[i].want);
            ck_assert_msg(checked == ERR_INPUT && strstr(e.msg, cases[i].want + 4), "case "
                          "%zu: prose_check_file: %s", i, e.msg);
            ck_assert_uint_eq(b.n, 0);
        }
        b.n = 0;
        done_with(dir);
    }
    buf_free(&b);
}
END_TEST

/* A template file of 1 MiB is read whole, and one a byte longer refused,
 * named (it was cut off at 1 MiB, its last sentence ending mid-way). */
START_TEST(a_template_file_over_the_limit_is_refused_named) {
    const size_t most = (size_t)1 << 20;
    char *text = malloc(most + 2);
    ck_assert_ptr_nonnull(text);
    for (size_t extra = 0; extra < 2; extra++) {
        char dir[256], path[512];
        templates_of(dir, sizeof dir, "");
        /* "@@ one\n", x's, "end.\n": most + extra bytes in all */
        size_t n = most + extra;
        memcpy(text, "@@ one\n", 7);
        memset(text + 7, 'x', n - 12);
        memcpy(text + n - 5, "end.\n", 5);
        snprintf(path, sizeof path, "%s/t.md", dir);
        write_bytes(path, text, n);
        Buf b = {0};
        PROSE_TEXT(&b, "one");
        const char *why = error_now();
        if (!extra) {
            ck_assert_msg(!why[0], "%s", why);
            ck_assert_uint_eq(b.n, n - 8);
            ck_assert_int_eq(memcmp(b.p + b.n - 4, "end.", 4), 0);
        } else {
            ck_assert_msg(strstr(why, "t.md is longer than 1048576 bytes (1 MiB), the most a "
                                      "template file may hold"), "%s", why);
            ck_assert_uint_eq(b.n, 0);
            Err e;
            ck_assert_int_eq(prose_check_file(path, &e), ERR_INPUT);
            ck_assert_msg(strstr(e.msg, "t.md is longer than"), "%s", e.msg);
        }
        buf_free(&b);
        done_with(dir);
    }
    free(text);
}
END_TEST

/* A page whose publishing fails (a full disk; here a file-size limit,
 * which fails a write as a full disk does) leaves no staging folder and
 * no lock behind, and says what failed: the file and errno's words. */
START_TEST(a_failed_publish_leaves_nothing_behind) {
    char *dir = scratch();
    expect_sh(dir, TINY_GRID " --cells C --out O && cp O/benchmark.md before.md", 0, NULL);
    /* sh counts ulimit -f in 512-byte blocks: 4 KB; SIGXFSZ ignored, so a
     * write past it fails with EFBIG as a full disk's does with ENOSPC */
    expect_sh(dir, "trap '' XFSZ; ulimit -f 8; " TINY_GRID " --from-cells --cells C --out O", 1,
              "O/benchmark.md was not published: writing O/.benchmark.new/benchmark/"
              "lengths.csv failed: File too large");
    expect_sh(dir, "trap '' XFSZ; ulimit -f 8; " TINY_GRID " --from-cells --cells C --out O", 1,
              "what was written of it is removed (O/.benchmark.new), and every file in O is as "
              "it was");
    expect_sh(dir, "test ! -e O/.benchmark.new && test ! -e O/benchmark.md.lock && test ! -e "
              "C/cells.lock && cmp before.md O/benchmark.md", 0, NULL);
    remove_dir(dir);
}
END_TEST

/* The rules paragraph both pages open their verdicts with (page.c's
 * exp_rules): the results page's, on its own seeds, is the committed
 * docs/results.md's word for word (that page is made from cells not kept
 * here, so its text is held to the templates this way); the U test is
 * named as it runs, exact up to MW_EXACT_MAX / 2 seeds a side and the
 * normal approximation past that; and "learned" reads as each page
 * reads it: on the trained lengths there, at length N here. */
START_TEST(the_rules_name_the_u_test_as_it_runs) {
    prose_begin();
    char *results = slurp("docs/results.md");
    const char *from = strstr(results, "**How a verdict is reached.**");
    ck_assert_ptr_nonnull(from);
    unsigned seeds = 0;
    int got = sscanf(from, "**How a verdict is reached.** The seeds are the units: %u", &seeds);
    ck_assert_int_eq(got, 1);
    size_t len = (size_t)(strstr(from, "\n\n") - from) + 2;
    Buf b = {0};
    exp_rules(&b, seeds, "rules.floor_none", 0);
    Err e;
    ck_assert_msg(prose_end(&e) == 0, "%s", e.msg);
    ck_assert_msg(b.n == len && memcmp(b.p, from, len) == 0,
                  "docs/results.md's rules are not what the templates write for %u seeds:\n%.*s",
                  seeds, (int)b.n, (const char *)b.p);
    buf_free(&b);
    free(results);
    const size_t most = MW_EXACT_MAX / 2;
    for (size_t n = most; n <= most + 1; n++) {
        prose_begin();
        exp_rules(&b, n, "rules.floor_chance", 10);
        ck_assert_msg(prose_end(&e) == 0, "%s", e.msg);
        buf_put(&b, "", 1);
        const char *text = (const char *)b.p;
        bool exact = strstr(text, "U test on their seeds (exact)") != NULL;
        bool normal = strstr(text, "U test on their seeds (the normal approximation") != NULL;
        ck_assert_msg(exact == (n == most) && normal == (n > most), "%zu seeds a side:\n%s", n,
                      text);
        ck_assert_msg(strstr(text, "when either did not learn those (a mean over seeds of 0.90 or "
                                   "more at length 10, the longest trained)."),
                      "%s", text);
        buf_free(&b);
    }
}
END_TEST

/* The CSV files' values (exp_csv_value) round on the exact binary value,
 * a half away from zero, as the benchmark page's last section says:
 * printf's "%.6f" gives 0.414062 for 53/128, a half it rounds to even. */
START_TEST(a_csv_value_rounds_a_half_up) {
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {53.0 / 128.0, "0.414063"},    /* 0.4140625, an exact half */
        {1.0 / 128.0, "0.007813"},     /* 0.0078125 */
        {3.0 / 64.0, "0.046875"},      /* six decimals exactly: no rounding */
        {-53.0 / 128.0, "-0.414063"},  /* away from zero */
        {0.6703125, "0.670312"},       /* no half: the double is below it */
        {1.0 / 3.0, "0.333333"},       {2.0 / 3.0, "0.666667"},
        {1.0, "1.000000"},             {0.0, "0.000000"},
        {0.9999995, "1.000000"},       /* the double nearest is above the half */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Buf b = {0};
        exp_csv_value(&b, cases[i].v);
        buf_put(&b, "", 1);
        ck_assert_msg(strcmp((const char *)b.p, cases[i].want) == 0, "%.17g: %s, not %s",
                      cases[i].v, (const char *)b.p, cases[i].want);
        buf_free(&b);
    }
}
END_TEST

/* Every number the pages print from data rounds as the CSV files do, one
 * rule (number.c): a half of the last digit printed, exact in binary, away
 * from zero, where printf rounds it to even (56.25 to 56.2); the tables'
 * numbers (exp_num, exp_fixed), the templates' (prose_fill's formats) and
 * the p-values' (%#.2g, exp_half_away) alike. Without the rule each tie
 * below prints printf's digit. */
START_TEST(a_page_number_rounds_a_half_up) {
    static const struct {
        double v;
        int decimals;
        bool sign;
        const char *want;
    } cases[] = {
        {0.0625, 3, false, "0.063"},    /* printf: 0.062 */
        {-0.0625, 3, true, "-0.063"},   /* away from zero, signed */
        {0.0625, 3, true, "+0.063"},    {100.0 * 0.5625, 1, false, "56.3"}, /* printf: 56.2 */
        {-56.25, 1, true, "-56.3"},     {0.125, 2, true, "+0.13"},          /* printf: +0.12 */
        {2.5, 0, false, "3"},           /* printf: 2 */
        {0.0645, 3, false, "0.065"},    /* no half: the double is above 0.0645 */
        {2.675, 2, false, "2.67"},      /* nor here: below 2.675, so down */
        {56.35, 1, false, "56.4"},      {1.0 / 3.0, 3, true, "+0.333"},
        {0.0, 3, true, "+0.000"},       {-0.0001, 3, true, "-0.000"},
        {1e-300, 3, false, "0.000"},    {1e300 / 1e300, 1, false, "1.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Buf b = {0};
        exp_fixed(&b, cases[i].v, cases[i].decimals, cases[i].sign);
        buf_put(&b, "", 1);
        ck_assert_msg(strcmp((const char *)b.p, cases[i].want) == 0, "%.17g at %d: %s, not %s",
                      cases[i].v, cases[i].decimals, (const char *)b.p, cases[i].want);
        ck_assert_str_eq(exp_num(cases[i].v, cases[i].decimals, cases[i].sign).s, cases[i].want);
        buf_free(&b);
    }
    /* NaN as printf prints it, as before: a table's writer puts n/a before */
    char want[32];
    snprintf(want, sizeof want, "%.1f", (double)NAN);
    ck_assert_str_eq(exp_num(NAN, 1, false).s, want);
    ck_assert(isnan(exp_half_away(NAN, 'f', 1)));
    ck_assert(exp_half_away(INFINITY, 'g', 2) == INFINITY);
    /* significant digits: the p-values' %#.2g, and %.1e */
    char s[64];
    snprintf(s, sizeof s, "%#.2g", exp_half_away(0.0625, 'g', 2));
    ck_assert_str_eq(s, "0.063"); /* printf: 0.062 */
    snprintf(s, sizeof s, "%#.2g", exp_half_away(0.125, 'g', 2));
    ck_assert_str_eq(s, "0.13");
    snprintf(s, sizeof s, "%#.2g", exp_half_away(0.5, 'g', 2));
    ck_assert_str_eq(s, "0.50"); /* no half: nothing moves */
    snprintf(s, sizeof s, "%.1e", exp_half_away(0.000125, 'e', 1));
    ck_assert_str_eq(s, "1.3e-04"); /* 0.000125 is no double: above it, as printf */
    snprintf(s, sizeof s, "%.1e", exp_half_away(1250.0, 'e', 1));
    ck_assert_str_eq(s, "1.3e+03"); /* a half left of the point (fmod) */
    snprintf(s, sizeof s, "%g", exp_half_away(1234565.0, 'g', 6));
    ck_assert_str_eq(s, "1.23457e+06");
    /* a template's number rounds so too */
    char dir[256];
    templates_of(dir, sizeof dir, "@@ one\n{{a:.1f}} {{b:+.3f}} {{c:.2g}} {{d:.2f}}\n");
    Buf b = {0};
    PROSE(&b, "one", pv_real("a", 100.0 * 0.5625), pv_real("b", -0.0625), pv_real("c", 0.0625),
          pv_real("d", 0.335));
    ck_assert_str_eq(error_now(), "");
    buf_put(&b, "", 1);
    ck_assert_str_eq((const char *)b.p, "56.3 -0.063 0.063 0.34");
    buf_free(&b);
    done_with(dir);
}
END_TEST

TCase *tcase_prose(void) {
    TCase *tc = tcase_create("templates");
    tcase_add_test(tc, a_template_is_filled_as_written);
    tcase_add_test(tc, what_the_filler_cannot_place_is_refused_with_its_line);
    tcase_add_test(tc, a_writers_edit_reaches_the_page_without_a_rebuild);
    tcase_add_test(tc, the_rules_name_the_u_test_as_it_runs);
    tcase_add_test(tc, a_csv_value_rounds_a_half_up);
    tcase_add_test(tc, a_page_number_rounds_a_half_up);
    tcase_add_test(tc, a_broken_template_folder_is_refused_before_the_first_cell);
    tcase_add_test(tc, a_template_file_that_is_no_text_is_refused_with_its_reason);
    tcase_add_test(tc, a_failed_publish_leaves_nothing_behind);
    tcase_add_test(tc, a_template_file_over_the_limit_is_refused_named);
    return tc;
}
