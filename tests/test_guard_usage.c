/* Edge cases round five (issue 47, items 8 and 9), the command lines:
 * each test reproduces one defect as a user meets it and is named after
 * what it guards. See test_guards.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/run/session.h"
#include "suites.h"

/* 8: `floor --repeat` said "unknown argument '--repeat'": floor parsed
 * its own options, and took a value option at the end of the command line
 * for an unknown one. It parses as the programs do (examples/cli.c), and
 * the parser says what goes after an option given last, in the form the
 * help writes it: an entry's word, a second spelling's, the usage line's
 * "[--repeat N]", a registry scheme option's, a word with brackets. */
START_TEST(a_value_option_given_last_names_its_value) {
    expect_exit("floor", "--repeat", 2, "option --repeat needs a value: give it as '--repeat N'");
    expect_exit("floor", "bench-even_pairs-none-s1 --repeat", 2,
                "option --repeat needs a value: give it as '--repeat N'");
    expect_exit("floor", "x --repeat=abc", 2, "--repeat wants a whole number from 1 to 100, "
                "not 'abc'");
    expect_exit("floor", "x --repeat 2 --repeat 3", 2, "--repeat is given twice");
    expect_exit("floor", "--repaet 2 x", 2, "unknown option '--repaet'; did you mean "
                "'--repeat'?");
    expect_exit("floor", "a b", 2, "one cell at a time: give 'a' or 'b', not both");
    expect_exit("floor", "--paper-size", 2, "name the cell to run, CELL: experiments --list");
    const char *last[][2] = {
        {"train", "option --steps needs a value: give it as '--steps N'"},
        {"train", "option --schedule needs a value: give it as '--schedule constant|noam'"},
        {"make_data", "option --data-seed needs a value: give it as '--data-seed S'"},
        {"experiments", "option --set needs a value: give it as '--set K=V[,K=V...]'"},
        {"demo_order", "option --pe needs a value: give it as '--pe LIST|all'"},
    };
    for (size_t i = 0; i < sizeof last / sizeof *last; i++) {
        char opt[64];
        const char *o = strstr(last[i][1], "--");
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(o, " "), o);
        expect_exit(last[i][0], opt, 2, last[i][1]);
    }
    /* a scheme option of the registry, written by the help's generator */
    const PeOption *po = NULL;
    for (size_t i = 0; i < pe_option_count() && !po; i++)
        if (pe_option_at(i)->arg)
            po = pe_option_at(i);
    ck_assert_ptr_nonnull(po);
    char want[160];
    snprintf(want, sizeof want, "option %s needs a value: give it as '%s %s'", po->flag,
             po->flag, po->arg);
    expect_exit("train", po->flag, 2, want);
}
END_TEST

/* 8, the same class: a flag given a value ("--causal=1") was called an
 * unknown option, though the help lists it. */
START_TEST(a_flag_given_a_value_is_told_it_takes_none) {
    expect_exit("floor", "--paper-size=1 x", 2, "--paper-size takes no value; give it alone, "
                "without '=1'");
    expect_exit("train", "--task reverse --causal=yes", 2, "--causal takes no value; give it "
                "alone, without '=yes'");
    expect_exit("train", "--frobnicate=1", 2, "unknown option '--frobnicate=1'");
}
END_TEST

/* 8: `train --task reverse --train-examples 5` said "use data with the
 * training labels" when no data was given: the training split was too
 * small to show every class the validation split holds. The message names
 * that split and the option; a --valid file's names --data; evaluate names
 * the model's task, or its training lengths; a fresh batch (train
 * --train-draw fresh) names its pool. */
START_TEST(a_label_the_training_split_lacks_names_the_cause) {
    expect_exit("train", "--task reverse --train-examples 5 --steps 1", 2,
                "the training split of reverse, 5 examples, never shows the label '9' that its "
                "validation split holds (it shows 9: 1 4 5 2 8 6 3 7 0), and a model cannot "
                "learn a class it never sees; give more --train-examples (reverse's default is "
                "8000)");
    expect_exit("train", "--task agent --train-examples 1 --steps 1", 2,
                "the training split of agent, 1 example, never shows the label");

    char *dir = scratch(), args[1024];
    char data[256], valid[256], model[256];
    snprintf(data, sizeof data, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(model, sizeof model, "%s/cycle.bin", dir);
    write_text(data, "labels: sentence\na\tx y\nb\ty x\n");
    write_text(valid, "labels: sentence\na\tx y\nc\ty y\n");
    snprintf(args, sizeof args, "--data %s --valid %s --steps 1", data, valid);
    char want[1024];
    snprintf(want, sizeof want, "%s:3: the label 'c' is not one of the 2 labels of --data %s (a "
             "b), and a model cannot learn a class it never sees; give --valid examples of "
             "those labels only, or add examples labelled 'c' to --data", valid, data);
    expect_exit("train", args, 2, want);

    /* inputs of one word reach 3 of cycle_navigation's 5 places */
    snprintf(args, sizeof args, "--task cycle_navigation --min-len 1 --max-len 1 "
             "--train-examples 200 --steps 1 --d-model 8 --heads 1 --layers 1 --d-ff 8 "
             "--quiet --out %s", model);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "train %s: exit %d: %s", args, r.status, r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s --task cycle_navigation --max-len 12", model);
    expect_exit("evaluate", args, 2, "the test split of cycle_navigation (inputs of 1 to 12 "
                "words) holds the label '");
    expect_exit("evaluate", args, 2, "which the model's training split (200 examples of 1 to 1 "
                "words) never showed: it knows 3 labels (");
    expect_exit("evaluate", args, 2, "evaluate it on inputs of its training lengths (--max-len "
                "1), or train one on more or longer examples (train --train-examples, train "
                "--max-train-len)");
    snprintf(args, sizeof args, "--model %s --task reverse", model);
    expect_exit("evaluate", args, 2, "the model was trained on cycle_navigation, not reverse: "
                "the label '");
    expect_exit("evaluate", args, 2, "evaluate it on its own task (--task cycle_navigation), or "
                "give a model trained on reverse");
    remove_dir(dir);

    /* a fresh batch's label the pool lacks (the validation split would
     * name it first on the command line: the library's call here) */
    Session s;
    memset(&s, 0, sizeof s);
    snprintf(s.meta.task, sizeof s.meta.task, "reverse");
    s.meta.batch = 8;
    rng_seed(&s.meta.rng, 1);
    labelset_init(&s.labels);
    Err e;
    ck_assert_int_eq(labelset_add(&s.labels, "0", NULL, &e), 0);
    s.train.n = 3;
    size_t T;
    ck_assert_int_eq(session_fresh_batch(&s, &T, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "a fresh batch of reverse holds the label '") &&
                  strstr(e.msg, "which its training pool of 3 examples never shows; give the "
                         "pool more examples (--train-examples)"), "%s", e.msg);
    labelset_free(&s.labels);
}
END_TEST

/* 8: make_data called every task a toy task ("more than a toy task
 * makes"), Deletang et al.'s among them: the split's limit names the
 * task, the split and the options that shrink it, the program's own. */
START_TEST(a_split_past_the_limit_names_its_task_and_options) {
    expect_exit("make_data", "--task parity_check --train-examples 1000000 --max-len 40 "
                "--out /tmp/never", 2, "the training split of parity_check, 1000000 examples "
                "of up to 41 tokens each, is more than one split of a task may hold (1000000 "
                "examples, 10000000 tokens counting each example at the longest); ask for "
                "fewer or shorter examples: change --train-examples or --max-len");
    expect_exit("make_data", "--task reverse --test-examples 1000000 --max-len 40 --out "
                "/tmp/never", 2, "the test split of reverse, 1000000 examples of up to 40 "
                "tokens each");
    Run r = run("make_data", "--task even_pairs --valid-examples 1000000 --max-len 40 --out "
                "/tmp/never");
    ck_assert_msg(r.status == 2 && strstr(r.err, "the validation split of even_pairs") &&
                  strstr(r.err, "change --valid-examples or --max-len") &&
                  !strstr(r.err, "toy"), "%s", r.err);
    run_free(&r);
}
END_TEST

/* Debian's interpreter, which scripts/deps.sh installs, as
 * test_guard_formats.c runs it; the one on PATH where Debian's is
 * missing. */
static const char *python(void) {
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* scripts/NAME ARGS run from dir: its exit status, stdout and stderr. */
static Run script(const char *dir, const char *name, const char *args) {
    char top[PATH_MAX], errpath[] = "/tmp/posenc_errXXXXXX", outpath[] = "/tmp/posenc_outXXXXXX";
    ck_assert_ptr_nonnull(realpath(".", top));
    int fo = mkstemp(outpath), fe = mkstemp(errpath);
    ck_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s/scripts/%s' %s >%s 2>%s", dir, python(), top,
             name, args, outpath, errpath);
    int st = system(cmd);
    Run r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1, .out = slurp(outpath),
             .err = slurp(errpath)};
    unlink(outpath);
    unlink(errpath);
    ck_assert_msg(r.status != 127, "no %s to run scripts/%s: run scripts/deps.sh, which "
                  "installs Debian's python3", python(), name);
    return r;
}

/* A usage error of a script: exit 2, want on stderr, no traceback, and
 * nothing on stdout. */
static void expect_script(const char *dir, const char *name, const char *args, const char *want) {
    Run r = script(dir, name, args);
    ck_assert_msg(r.status == 2 && strstr(r.err, want) && !strstr(r.err, "Traceback") &&
                  !r.out[0], "%s %s: exit %d, want 2 and '%s'; stderr: %s", name, args,
                  r.status, want, r.err);
    run_free(&r);
}

/* 9: scripts/docs_times.py died with a traceback on --top without a
 * value or with a word, on a missing page or a folder, and read its pages
 * after moving to the top of the repository, so that a path given from
 * another folder named no page. Each is a usage error (exit 2) before
 * anything runs; a page is read where it was named; a command of a page
 * that fails is named, exit 1, no traceback. docs_regen.py reads its
 * pages the same way (only its refusals run here: it writes pages). */
START_TEST(docs_scripts_refuse_bad_arguments_and_read_pages_where_named) {
    expect_script(".", "docs_times.py", "--top", "option --top needs a value: give it as "
                  "'--top N'");
    expect_script(".", "docs_times.py", "--top abc README.md", "--top wants a whole number "
                  "from 0 to 999999 (the slowest commands listed under each page), not 'abc'");
    expect_script(".", "docs_times.py", "--top=-1 README.md", "not '-1'");
    expect_script(".", "docs_times.py", "--tpo 3 README.md", "unknown option '--tpo'");
    expect_script(".", "docs_times.py", "", "name the pages to time, in reading order");
    expect_script(".", "docs_times.py", "docs/no-such-page.md", "cannot read the page "
                  "docs/no-such-page.md: No such file or directory; check the path");
    expect_script(".", "docs_times.py", "README.md docs", "docs is a folder, not a page: give "
                  "its pages, as docs/*.md");
    expect_script(".", "docs_regen.py", "docs/no-such-page.md", "cannot read the page "
                  "docs/no-such-page.md: No such file or directory");
    expect_script(".", "docs_regen.py", "docs", "docs is a folder, not a page");
    expect_script(".", "docs_regen.py", "--chekc", "unknown option '--chekc'");

    char *dir = scratch(), page[256], parent[256], args[512];
    snprintf(page, sizeof page, "%s/binary.md", dir);
    write_text(page, "# a page\n\xff\xfe\n");
    snprintf(args, sizeof args, "'%s'", page);
    expect_script(".", "docs_times.py", args, "binary.md is not a page: its byte 10 is not "
                  "UTF-8 text; give a Markdown page");

    /* a page named from its folder's parent: its command runs at the top */
    snprintf(page, sizeof page, "%s/p.md", dir);
    write_text(page, "# a page\n\n```console\n$ test -f scripts/docs_times.py\n```\n");
    snprintf(parent, sizeof parent, "%s", dir);
    const char *base = strrchr(dir, '/') + 1;
    *strrchr(parent, '/') = '\0';
    snprintf(args, sizeof args, "--top 1 '%s/p.md'", base);
    Run r = script(parent, "docs_times.py", args);
    char want[320];
    snprintf(want, sizeof want, "%s/p.md: 1 commands, ", base);
    ck_assert_msg(r.status == 0 && strncmp(r.out, want, strlen(want)) == 0, "docs_times.py %s "
                  "from %s: exit %d; stdout: %s; stderr: %s", args, parent, r.status, r.out,
                  r.err);
    run_free(&r);
    /* a command that fails: named, with what to do */
    write_text(page, "```console\n$ false\n```\n");
    r = script(parent, "docs_times.py", args);
    ck_assert_msg(r.status == 1 && strstr(r.err, "p.md: 'false' exited with 1") &&
                  strstr(r.err, "build the programs first (make)") &&
                  !strstr(r.err, "Traceback"), "exit %d: %s", r.status, r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* Issue 61, item 4: xl's --xl-rows clamped is read only at the distances
 * train --random-draw ruoss draws in every layer. train refuses it without
 * them; the programs that train nothing, and so draw nothing, ignored it
 * in silence. They refuse it as train does; the default given passes. */
START_TEST(programs_that_draw_nothing_refuse_the_clamped_rows) {
    char *dir = scratch(), args[512];
    const char *progs[][2] = {
        {"pe_report", "--pe xl --xl-rows clamped"},
        {"pe_report", "--pe xl,rope --xl-rows clamped --positions 4"},
        {"demo_order", "--pe xl --xl-rows clamped"},
        {"encode", "--pe xl --xl-rows clamped 'a b c'"},
        {"pe_plot", "--kind attention --pe xl --xl-rows clamped --out %s/a.png"},
    };
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        char want[256];
        snprintf(args, sizeof args, progs[i][1], dir);
        snprintf(want, sizeof want, "--xl-rows clamped is read only at the distances train "
                 "--random-draw ruoss draws in every layer, and %s draws none", progs[i][0]);
        expect_exit(progs[i][0], args, 2, want);
        /* the default, given, changes nothing and is taken */
        char *at = strstr(args, "clamped");
        memcpy(at, "offset ", 7);
        Run r = run(progs[i][0], args);
        ck_assert_msg(r.status == 0, "%s %s: exit %d: %s", progs[i][0], args, r.status, r.err);
        run_free(&r);
    }
    remove_dir(dir);
}
END_TEST

TCase *tcase_guard_usage(void) {
    TCase *tc = tcase_create("usage");
    tcase_add_test(tc, a_value_option_given_last_names_its_value);
    tcase_add_test(tc, a_flag_given_a_value_is_told_it_takes_none);
    tcase_add_test(tc, a_label_the_training_split_lacks_names_the_cause);
    tcase_add_test(tc, a_split_past_the_limit_names_its_task_and_options);
    tcase_add_test(tc, docs_scripts_refuse_bad_arguments_and_read_pages_where_named);
    tcase_add_test(tc, programs_that_draw_nothing_refuse_the_clamped_rows);
    return tc;
}
