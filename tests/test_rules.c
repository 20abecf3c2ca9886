/* The option rules and the advice of issue 20: an option no chosen scheme
 * or mode reads is refused, naming it, by every program alike; each scheme
 * of a list takes the options it reads; messages give advice that can be
 * followed. Each test reproduces a defect as the issue found it. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../src/pe/pe.h"
#include "../src/run/checkpoint.h"
#include "../src/run/session.h"
#include "../src/text/vocab.h"
#include "../src/text/data.h"
#include "suites.h"

/* Every option of the scheme at its example value (PeOption.example), a
 * set the scheme takes together (rope's scaling with its factor and
 * length), into args; but those read only at the layers' draws
 * (PeOption.layer_draws), which a program that trains nothing refuses at
 * any other value than their default. */
static void all_examples(char *args, size_t cap, const PeScheme *s, Combine combine,
                         const PeOption *but) {
    size_t len = strlen(args);
    for (size_t o = 0; o < pe_option_count() && len < cap; o++)
        if (pe_reads(s, combine, pe_option_at(o)) && pe_option_at(o) != but &&
            !pe_option_at(o)->layer_draws)
            len += (size_t)snprintf(args + len, cap - len, " %s %s", pe_option_at(o)->flag,
                                    pe_option_at(o)->example);
}

/* The registry and the programs agree: pe_report takes a scheme option
 * exactly when the registry says the scheme reads it, for every scheme and
 * option (with the others the scheme reads, so that a group such as
 * rope's scaling is whole), and refuses it, naming it, otherwise; an
 * option read only at the layers' draws (xl's --xl-rows clamped), which
 * pe_report never draws, is refused too (issue 61). */
START_TEST(every_option_accepted_exactly_where_a_scheme_reads_it) {
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        for (size_t o = 0; o < pe_option_count(); o++) {
            const PeOption *opt = pe_option_at(o);
            char args[1024];
            /* --pe-dim is read under concat: ask for it there */
            bool concat = opt == &pe_opt_width && pe_reads(s, COMBINE_DEFAULT, &pe_opt_combine);
            Combine combine = concat ? COMBINE_CONCAT : COMBINE_DEFAULT;
            bool drawn_only = opt->layer_draws && pe_reads(s, combine, opt);
            bool read = pe_reads(s, combine, opt) && !drawn_only;
            snprintf(args, sizeof args, "--pe %s --d-model 64 --positions 16 --far 1024 --csv",
                     s->name);
            if (read || drawn_only) /* under concat, --combine is given below */
                all_examples(args, sizeof args, s, combine, concat ? &pe_opt_combine : NULL);
            if (!read)
                snprintf(args + strlen(args), sizeof args - strlen(args), " %s %s", opt->flag,
                         opt->example);
            if (concat)
                snprintf(args + strlen(args), sizeof args - strlen(args), " --combine concat");
            Run run_ = run_words("pe_report", args);
            ck_assert_msg(read ? run_.status == 0 : run_.status == 2,
                          "pe_report %s: exit %d, but the registry says %s %s it%s: %s", args,
                          run_.status, s->name, pe_reads(s, combine, opt) ? "reads" : "does "
                          "not read", drawn_only ? " only at the layers' draws, which "
                          "pe_report never makes" : "", run_.err);
            if (!read)
                ck_assert_msg(strstr(run_.err, opt->flag) != NULL,
                              "pe_report %s: the refusal does not name %s: %s", args, opt->flag,
                              run_.err);
            run_free(&run_);
        }
    }
}
END_TEST

/* expect_exit of args without quoting, run as run_words runs them. */
static void expect_words(const char *prog, const char *args, int code, const char *want) {
    expect_run(run_words(prog, args), prog, args, code, want);
}

/* The reproductions of the issue: each refused, naming the option. */
START_TEST(an_option_nothing_reads_is_refused_by_every_program) {
    expect_exit("demo_order", "--pe rope --combine concat", 2,
                "--combine does nothing for the rope scheme");
    expect_exit("demo_order", "--pe rope,alibi --buckets 8", 2,
                "--buckets applies to none of rope, alibi");
    expect_exit("pe_report", "--pe alibi --buckets 8", 2,
                "--buckets does nothing for the alibi scheme");
    expect_exit("compare_pe", "--schemes rope --buckets 8", 2,
                "--buckets does nothing for the rope scheme");
    expect_exit("compare_pe", "--schemes rope,alibi --pe-init-std 0.5", 2,
                "--pe-init-std applies to none of rope, alibi; drop it or add a scheme that "
                "reads it (learned)");
    /* --relative reads a few options; the rest would change nothing */
    const char *unread[] = {"--pe rope", "--positions 10", "--far 2000", "--combine concat",
                            "--pairs 2", "--pe-dim 8", "--pe-init-std 0.1", "--csv"};
    for (size_t i = 0; i < sizeof unread / sizeof *unread; i++) {
        char args[64], want[64];
        snprintf(args, sizeof args, "--relative 5 %s", unread[i]);
        snprintf(want, sizeof want, "%.*s does nothing with --relative",
                 (int)strcspn(unread[i], " "), unread[i]);
        expect_words("pe_report", args, 2, want);
    }
    Run r = run("pe_report", "--relative 5 --base 100 --layout split --buckets 16");
    ck_assert_msg(r.status == 0 && strstr(r.out, "16 buckets"), "%s", r.err);
    run_free(&r);
    /* every scheme option of the registry, a new scheme's too: the two
     * reports take the few they read and refuse the rest by name */
    static const struct {
        const char *report, *reads;
    } REPORTS[] = {{"--relative 5", " base layout buckets max-distance "},
                   {"--wavelengths", " base rope-scaling rope-factor rope-original-len "}};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < pe_option_count(); i++) {
            const PeOption *o = pe_option_at(i);
            char key[48], args[128], want[96];
            snprintf(key, sizeof key, " %s ", o->flag + 2);
            if (strstr(REPORTS[k].reads, key))
                continue;
            snprintf(args, sizeof args, "%s %s %s", REPORTS[k].report, o->flag, o->example);
            snprintf(want, sizeof want, "%s does nothing with %.*s", o->flag,
                     (int)strcspn(REPORTS[k].report, " "), REPORTS[k].report);
            expect_words("pe_report", args, 2, want);
        }
}
END_TEST

/* compare_pe checks every scheme's options before the first run: the
 * issue's run trained every sinusoidal seed, then refused normalized. */
START_TEST(compare_pe_refuses_before_the_first_run) {
    Run r = run("compare_pe", "--task agent --schemes sinusoidal,normalized --random-positions "
                "40 --steps 50 --out /tmp/posenc_rules_never.csv");
    ck_assert_msg(r.status == 2 && strstr(r.err, "does not apply to normalized"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "seed") == NULL, "a run trained before the refusal: %s", r.err);
    run_free(&r);
    r = run("compare_pe", "--task agent --schemes rope --random-positions 2 --steps 5 "
            "--out /tmp/posenc_rules_never.csv");
    ck_assert_msg(r.status == 2 && strstr(r.err, "shorter than the longest training sentence"),
                  "%s", r.err);
    run_free(&r);
    remove("/tmp/posenc_rules_never.csv");
}
END_TEST

/* In a list, an option read by some schemes applies to those and leaves
 * the others as they are: the rows of the list run equal the rows of each
 * scheme run alone. */
START_TEST(a_list_gives_each_scheme_the_options_it_reads) {
    Run all = run("demo_order", "--pe all --combine concat --csv");
    ck_assert_msg(all.status == 0, "%s", all.err);
    Run sin = run("demo_order", "--pe sinusoidal --combine concat --csv");
    Run rope = run("demo_order", "--pe rope --csv");
    ck_assert_msg(sin.status == 0 && rope.status == 0, "%s %s", sin.err, rope.err);
    ck_assert_ptr_nonnull(strstr(all.out, strchr(sin.out, '\n') + 1));
    ck_assert_ptr_nonnull(strstr(all.out, strchr(rope.out, '\n') + 1));
    run_free(&all);
    run_free(&sin);
    run_free(&rope);
    Run rep = run("pe_report", "--combine concat --positions 16 --far 1024 --csv");
    ck_assert_msg(rep.status == 0 && strstr(rep.out, "\nrope,") &&
                      strstr(rep.out, "\nsinusoidal,concat,"), "%s", rep.err);
    run_free(&rep);
}
END_TEST

/* Messages that name what the user gave and advice the program takes. */
START_TEST(messages_name_what_was_given) {
    expect_exit("pe_report", "--pe sinusoidal --base 0.5", 2, "from 1.000001 to 1e+12");
    expect_exit("pe_report", "--pe sinusoidal --base 1.0000001", 2, "from 1.000001 to 1e+12");
    expect_exit("pe_report", "--pe t5 --buckets 4096", 2,
                "no fewer than the default --max-distance 128: give --max-distance above 1024, "
                "or at most 510 buckets");
    Run r = run("pe_report", "--pe t5 --buckets 510 --positions 16 --far 1024 --csv");
    ck_assert_msg(r.status == 0, "the largest bucket count the message offers: %s", r.err);
    run_free(&r);
    /* the default of --heads, which the refusal for d_model 2 cites, is documented */
    r = run("pe_plot", "--help");
    ck_assert_ptr_nonnull(strstr(r.out, "--heads (default 4"));
    run_free(&r);
}
END_TEST

/* A file of \r endings is lines (it was one header line). */
START_TEST(carriage_returns_end_lines) {
    const char *texts[] = {"labels: sentence\rx\ta b\ry\tb a\r", "labels: sentence\r\nx\ta b\r\n"
                           "y\tb a\r\n", "labels: sentence\nx\ta b\ny\tb a"};
    for (size_t i = 0; i < 3; i++) {
        TextData d;
        Err e;
        ck_assert_msg(data_parse(&d, texts[i], strlen(texts[i]), "t", &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(d.n, 2);
        ck_assert_str_eq(d.word[d.start[1]], "b");
        ck_assert_str_eq(d.label[1], "y");
        textdata_free(&d);
    }
}
END_TEST

/* probe reads positions, which need no labels: a model trained on a file
 * is probed on a task, and on a file; models of two tasks are not mixed in
 * one table under one name; wide R^2 values stay apart. */
START_TEST(probe_takes_any_sentences_and_keeps_rows_apart) {
    char *dir = scratch(), path[128], args[512];
    snprintf(path, sizeof path, "%s/d.txt", dir);
    write_text(path, "labels: sentence\nx\ta b c\ny\tb c a\nx\tc a b\ny\ta c b\n");
    snprintf(args, sizeof args, "--data %s --steps 5 --d-model 16 --heads 2 --d-ff 32 --keep last "
             "--out %s/dm.bin", path, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--task reverse --steps 5 --d-model 16 --heads 2 --d-ff 32 "
             "--out %s/rv.bin", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--task agent --examples 40 %s/dm.bin", dir);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "a position probe needs no labels: %s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--data %s %s/dm.bin %s/rv.bin", path, dir, dir);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--task reverse --examples 40 %s/dm.bin %s/rv.bin %s/rv.bin",
             dir, dir, dir);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "(rv.bin)") != NULL, "two rows of one scheme, one name: %s", r.out);
    run_free(&r);
    snprintf(args, sizeof args, "--task reverse --examples 1 %s/rv.bin", dir);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    regex_t re;
    ck_assert_int_eq(regcomp(&re, "[0-9]-[0-9]", REG_NOSUB), 0);
    ck_assert_msg(regexec(&re, r.out, 0, NULL, 0) != 0, "numbers run together: %s", r.out);
    regfree(&re);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(probe_refuses_models_of_two_tasks_without_task) {
    char *dir = scratch(), args[512];
    const char *tasks[] = {"agent", "reverse"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "--task %s --steps 5 --d-model 16 --heads 2 --d-ff 32 "
                 "--out %s/%s.bin", tasks[i], dir, tasks[i]);
        Run r = run("train", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        run_free(&r);
    }
    snprintf(args, sizeof args, "%s/agent.bin %s/reverse.bin", dir, dir);
    expect_exit("probe", args, 2, "give --task to probe them on the same sentences");
    snprintf(args, sizeof args, "--task agent --examples 40 %s/agent.bin %s/reverse.bin", dir,
             dir);
    Run r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* A scheme that meets no embedding has no combine: '-' in compare_pe's
 * CSV, as in its table, and null in encode's config.json. */
START_TEST(no_combine_where_no_code_meets_the_embedding) {
    char *dir = scratch(), args[512], path[128];
    snprintf(args, sizeof args, "--task agent --schemes rope,sinusoidal --seeds 1 --steps 5 "
             "--d-model 16 --heads 2 --d-ff 32 --out %s/c.csv", dir);
    Run r = run("compare_pe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/c.csv", dir);
    char *csv = slurp(path);
    ck_assert_msg(strstr(csv, "\nrope,-,") && strstr(csv, "\nsinusoidal,add,"), "%s", csv);
    free(csv);
    snprintf(args, sizeof args, "--pe rope --npy %s/npy \"a b\"", dir);
    r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/npy/config.json", dir);
    char *json = slurp(path);
    ck_assert_msg(strstr(json, "\"combine\": null") != NULL, "%s", json);
    free(json);
    remove_dir(dir);
}
END_TEST

/* A resumed run cannot take --valid, so --keep best on a run without
 * validation data must not tell the user to give it. */
START_TEST(resume_keep_best_gives_advice_that_works) {
    char *dir = scratch(), path[128], args[512];
    snprintf(path, sizeof path, "%s/d.txt", dir);
    write_text(path, "labels: sentence\nx\ta b c\ny\tb c a\n");
    snprintf(args, sizeof args, "--data %s --steps 2 --d-model 16 --heads 2 --d-ff 32 --out "
             "%s/m.bin", path, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 4 --keep best --out %s/m2.bin", dir,
             dir);
    r = run("train", args);
    ck_assert_msg(r.status == 2 && strstr(r.err, "use --keep last") &&
                      !strstr(r.err, "(--valid FILE)"), "%s", r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* An exhausted machine is not a usage error: exit 1 and no "Try --help"
 * in every program (encode said 2), and no advice the program cannot take. */
START_TEST(out_of_memory_exits_1_everywhere) {
#ifdef __SANITIZE_ADDRESS__
    /* AddressSanitizer reserves terabytes of address space and stops a
     * program at a 48 GB malloc instead of returning NULL: the plain build
     * runs this test */
    return;
#endif
    const char *bin = getenv("POSENC_BIN");
    const char *progs[] = {"encode \"a b\"", "demo_order --pe sinusoidal",
                           "pe_plot --kind attention --out /tmp/posenc_rules_never.png"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        char cmd[512];
        /* 4 GB of address space, a model of 48 GB (past the memory
         * guard, which refuses it with exit 2 otherwise) */
        snprintf(cmd, sizeof cmd, "ulimit -v 4000000; %s/%s --d-model 8192 --heads 8 --d-ff "
                 "30000 --layers 16 --max-memory 1000000 >/dev/null 2>/tmp/posenc_rules_oom.txt",
                 bin ? bin : "build", progs[i]);
        int st = system(cmd);
        char *err = slurp("/tmp/posenc_rules_oom.txt");
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s: exit %d: %s", progs[i],
                      WIFEXITED(st) ? WEXITSTATUS(st) : -1, err);
        ck_assert_msg(strstr(err, "out of memory") && !strstr(err, "Try") &&
                          !strstr(err, "smaller batch"), "%s: %s", progs[i], err);
        free(err);
    }
    remove("/tmp/posenc_rules_oom.txt");
}
END_TEST

/* Every weight 3e38 (finite, loaded, checksum right): the outputs
 * overflow to NaN, and no program may report a number from them (evaluate
 * printed accuracy 0.0983, encode -nan rows, demo_order a -nan cosine). */
START_TEST(huge_weights_are_an_error_in_every_program) {
    char *dir = scratch(), path[128], args[512];
    snprintf(args, sizeof args, "--task agent --pe t5 --steps 2 --d-model 16 --heads 2 --d-ff 32 "
             "--keep last --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < ck.model.n_params; i++)
        ck.model.mem[i] = 3e38f;
    snprintf(path, sizeof path, "%s/huge.bin", dir);
    ck_assert_msg(checkpoint_save(path, &ck.model, &ck.vocab, &ck.labels, NULL, NULL, &e) == 0,
                  "%s", e.msg);
    checkpoint_free(&ck);
    const char *progs[][2] = {
        {"evaluate", "--task agent --model %s"},
        {"encode", "--model %s \"the lion\""},
        {"demo_order", "--model %s"},
        {"probe", "--task agent --examples 20 %s"},
        {"pe_plot", "--kind attention --out /tmp/posenc_rules_never.png --model %s"},
    };
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        snprintf(args, sizeof args, progs[i][1], path);
        expect_exit(progs[i][0], args, 2, "is not a finite number");
    }
    remove_dir(dir);
}
END_TEST

/* A resumed run checks its data as a fresh run does: a sentence longer
 * than the random positions (rope) or than the learned table, added to the
 * file after the start, was trained on unwritten positions (exit 0). A
 * checkpoint keeps its files' contents' hash since round four, which
 * refuses any change first; one without it (as older versions wrote,
 * made here by saving a run with the hash taken out) meets the checks of
 * a fresh run. */
START_TEST(resume_checks_what_a_fresh_run_checks) {
    char *dir = scratch(), path[128], args[512];
    snprintf(path, sizeof path, "%s/d.txt", dir);
    const char *runs[][2] = {{"--pe rope --random-positions 3", "(--random-positions)"},
                             {"--pe learned", "(its learned table)"}};
    for (size_t i = 0; i < 2; i++) {
        write_text(path, "labels: sentence\nx\ta b c\ny\tc b a\nx\tb a c\ny\ta c b\n");
        snprintf(args, sizeof args, "--data %s %s --steps 5 --d-model 16 --heads 2 --d-ff 32 "
                 "--keep last --out %s/m.bin", path, runs[i][0], dir);
        Run r = run("train", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        run_free(&r);
        char model[256];
        snprintf(model, sizeof model, "%s/m.bin", dir);
        Session s;
        Err e;
        ck_assert_msg(session_resume(&s, model, 0, 0.0, &e) == 0, "%s", e.msg);
        FILE *f = fopen(path, "a");
        ck_assert_ptr_nonnull(f);
        fputs("x\ta b c a b c a b c a b c\n", f);
        ck_assert_int_eq(fclose(f), 0);
        snprintf(args, sizeof args, "--resume %s/m.bin --steps 10 --out %s/m2.bin", dir, dir);
        expect_exit("train", args, 2, "is not the file this run trained on");
        s.meta.data_hash = 0;
        ck_assert_msg(session_save(&s, model, &e) == 0, "%s", e.msg);
        session_free(&s);
        expect_exit("train", args, 2, runs[i][1]);
        /* a fresh run with the same options refuses the same file */
        snprintf(args, sizeof args, "--data %s %s%s --steps 5 --d-model 16 --heads 2 --d-ff 32 "
                 "--out %s/m3.bin", path, runs[i][0], i ? " --table-len 3" : "", dir);
        r = run("train", args);
        ck_assert_msg(r.status == 2, "a fresh run took the data: %s", r.err);
        run_free(&r);
    }
    remove_dir(dir);
}
END_TEST

Suite *suite_rules(void) {
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_option_accepted_exactly_where_a_scheme_reads_it);
    tcase_add_test(tc, an_option_nothing_reads_is_refused_by_every_program);
    tcase_add_test(tc, compare_pe_refuses_before_the_first_run);
    tcase_add_test(tc, a_list_gives_each_scheme_the_options_it_reads);
    tcase_add_test(tc, messages_name_what_was_given);
    tcase_add_test(tc, carriage_returns_end_lines);
    tcase_add_test(tc, probe_takes_any_sentences_and_keeps_rows_apart);
    tcase_add_test(tc, probe_refuses_models_of_two_tasks_without_task);
    tcase_add_test(tc, no_combine_where_no_code_meets_the_embedding);
    tcase_add_test(tc, resume_keep_best_gives_advice_that_works);
    tcase_add_test(tc, out_of_memory_exits_1_everywhere);
    tcase_add_test(tc, huge_weights_are_an_error_in_every_program);
    tcase_add_test(tc, resume_checks_what_a_fresh_run_checks);
    suite_add_tcase(s, tc);
    return s;
}
