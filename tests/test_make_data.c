/* make_data: the files hold the examples task_make makes, replace only
 * what make_data wrote, and the benchmark's tasks train through the
 * registry like any other. Part of the tasks suite. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/text/tasks.h"
#include "suites.h"

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files in dir, sorted, space-separated. */
static void listing(const char *dir, char *buf, size_t cap) {
    char *names[16];
    size_t n = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *ent; (ent = readdir(d)) && n < 16;)
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
            names[n++] = strdup(ent->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
}

/* The three files of dir hold the splits task_make makes with o. */
static void expect_splits(const char *dir, const char *task, const TaskOptions *o) {
    TextData want[3];
    Err e;
    ck_assert_msg(task_make(&want[0], &want[1], &want[2], task, o, &e) == 0, "%s", e.msg);
    static const char *const SPLIT[3] = {"train", "valid", "test"};
    for (int k = 0; k < 3; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.txt", dir, SPLIT[k]);
        TextData got;
        ck_assert_msg(data_read(&got, path, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(got.n, want[k].n);
        ck_assert_int_eq(got.kind, want[k].kind);
        for (size_t i = 0; i < got.n; i++)
            for (int lab = 0; lab < 2; lab++) {
                char *a = example_joined(&got, i, lab), *b = example_joined(&want[k], i, lab);
                ck_assert_msg(strcmp(a, b) == 0, "%s line %zu: '%s', not '%s'", path,
                              got.line[i], a, b);
                free(a);
                free(b);
            }
        textdata_free(&got);
        textdata_free(&want[k]);
    }
}

START_TEST(files_hold_the_task_examples) {
    char *dir = strdup(scratch()), args[512], files[256];
    snprintf(args, sizeof args, "--task stack_manipulation --out %s/data --min-len 2 "
             "--max-train-len 6 --max-len 9 --train-examples 50 --valid-examples 10 "
             "--test-examples 20 --seed 7", dir);
    Run r = run("make_data", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "/data/test.txt: 20 examples of stack_manipulation"));
    run_free(&r);
    char out[256];
    snprintf(out, sizeof out, "%s/data", dir);
    TaskOptions o = {.min_len = 2, .max_train_len = 6, .max_len = 9, .n_train = 50,
                     .n_valid = 10, .n_test = 20, .seed = 7};
    expect_splits(out, "stack_manipulation", &o);
    listing(out, files, sizeof files);
    ck_assert_str_eq(files, "test.txt train.txt valid.txt"); /* no lock, no staging left */
    char path[300];
    snprintf(path, sizeof path, "%s/train.txt", out);
    char *text = slurp(path);
    /* the first line names the task and the command that makes it again */
    ck_assert_ptr_nonnull(strstr(text, "# posenc make_data: stack_manipulation (dcf), the train "
                                       "split: 50 examples, inputs of 2 to 6 words\n# made by: "
                                       "make_data --task stack_manipulation --min-len 2 "
                                       "--max-train-len 6 --max-len 9 --train-examples 50 "
                                       "--valid-examples 10 --test-examples 20 --seed 7\n"));
    free(text);

    /* again into the same folder, with the task's defaults and --data-seed:
     * the earlier files are replaced */
    snprintf(args, sizeof args, "--task even_pairs --out %s --data-seed 3", out);
    r = run("make_data", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    o = (TaskOptions){.seed = 3};
    expect_splits(out, "even_pairs", &o);
    listing(out, files, sizeof files);
    ck_assert_str_eq(files, "test.txt train.txt valid.txt");
    remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(refuses_what_it_did_not_write) {
    char *dir = strdup(scratch()), args[512], path[300];
    snprintf(path, sizeof path, "%s/valid.txt", dir);
    write_text(path, "labels: sentence\nyes\tmy own data\n");
    snprintf(args, sizeof args, "--task parity_check --out %s", dir);
    expect_exit("make_data", args, 2, "valid.txt exists and make_data did not write it");
    char *text = slurp(path);
    ck_assert_str_eq(text, "labels: sentence\nyes\tmy own data\n");
    free(text);
    snprintf(args, sizeof args, "--task parity_check --out %s", path);
    expect_exit("make_data", args, 2, "is a regular file, not a folder");
    snprintf(args, sizeof args, "--task parity_check --out %s/no/such", dir);
    expect_exit("make_data", args, 2, "check that its parent exists");
    remove_dir(dir);
    free(dir);
    expect_exit("make_data", "--task copy --out x", 2, "choose one of agent, direction");
    expect_exit("make_data", "--task parity_check", 2, "--out DIR");
    expect_exit("make_data", "--task duplicate_string --out x --max-len 171", 2,
                "give --max-len 170 or less");
    expect_exit("make_data", "--task odds_first --out x --max-len 4 --min-len 5", 2,
                "min_len <= max_train_len <= max_len");
    expect_exit("make_data", "--task odds_first --out x --seeds 2", 2, "--seed");
    expect_exit("make_data", "--list --task odds_first", 2, "--list takes no other option");
}
END_TEST

START_TEST(list_names_every_task) {
    Run r = run("make_data", "--list");
    ck_assert_int_eq(r.status, 0);
    for (size_t i = 0; i < task_count(); i++) {
        char line[64];
        snprintf(line, sizeof line, "\n%-28s %-8s ", task_at(i)->name,
                 task_level_name(task_at(i)->level));
        ck_assert_msg(strstr(r.out, line), "--list lacks '%s': %s", line, r.out);
    }
    ck_assert_ptr_nonnull(strstr(r.out, "duplicate_string             cs       1..12    36 "));
    run_free(&r);
    r = run("make_data", "--help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: make_data --task NAME --out DIR"));
    run_free(&r);
}
END_TEST

/* train and evaluate take the benchmark's tasks by name, as the toy ones. */
START_TEST(train_and_evaluate_a_benchmark_task) {
    char *dir = strdup(scratch()), args[512];
    snprintf(args, sizeof args, "--task binary_addition --pe rope --steps 4 --eval-every 2 "
             "--d-model 16 --heads 2 --layers 1 --d-ff 16 --train-examples 64 --max-len 6 "
             "--out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "train: binary_addition, rope"));
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task binary_addition --max-len 8", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    remove_dir(dir);
    free(dir);
}
END_TEST

/* The example lines of data/README.md are real: each line of the first
 * text block under a task's heading is an example of one of its splits for
 * seed 1 and the default options, as make_data writes it (-> for the tab). */
START_TEST(readme_examples_are_real_output) {
    char *text = slurp("data/README.md");
    size_t checked = 0, lines = 0;
    const Task *task = NULL;
    TextData s[3] = {{0}};
    bool in_block = false;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!in_block && line[0] == '#') {
            char name[64] = "";
            sscanf(line + strspn(line, "# "), "%63[a-z_]", name);
            task = task_find(name);
        } else if (!in_block && task && strcmp(line, "```text") == 0) {
            TaskOptions o = {.seed = 1};
            Err e;
            ck_assert_msg(task_make(&s[0], &s[1], &s[2], task->name, &o, &e) == 0, "%s", e.msg);
            in_block = true;
        } else if (in_block && strcmp(line, "```") == 0) {
            for (int k = 0; k < 3; k++)
                textdata_free(&s[k]);
            in_block = false;
            task = NULL; /* the first block of a section only */
            checked++;
        } else if (in_block) {
            char *arrow = strstr(line, "\u2192");
            ck_assert_msg(arrow != NULL, "data/README.md: no tab (\u2192) in '%s'", line);
            *arrow = '\0';
            const char *words = s[0].kind == LABELS_TOKEN ? line : arrow + 3;
            const char *labels = s[0].kind == LABELS_TOKEN ? arrow + 3 : line;
            bool found = false;
            for (int k = 0; !found && k < 3; k++)
                for (size_t i = 0; !found && i < s[k].n; i++) {
                    char *w = example_joined(&s[k], i, false), *l = example_joined(&s[k], i, true);
                    found = strcmp(w, words) == 0 && strcmp(l, labels) == 0;
                    free(w);
                    free(l);
                }
            ck_assert_msg(found, "data/README.md: '%s' -> '%s' is no example of %s for seed 1",
                          words, labels, task->name);
            lines++;
        }
    }
    free(text);
    ck_assert_uint_eq(checked, task_count()); /* every task shows its examples */
    ck_assert_uint_ge(lines, 3 * task_count());
}
END_TEST

TCase *tcase_make_data(void) {
    TCase *tc = tcase_create("make_data");
    tcase_add_test(tc, files_hold_the_task_examples);
    tcase_add_test(tc, refuses_what_it_did_not_write);
    tcase_add_test(tc, list_names_every_task);
    tcase_add_test(tc, train_and_evaluate_a_benchmark_task);
    tcase_add_test(tc, readme_examples_are_real_output);
    return tc;
}
