/* make_data: writes a built-in task's three splits as data files, so that
 * another framework can train on the same examples and anyone can check
 * their labels. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/core/buf.h"
#include "../src/core/fileio.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: make_data --task NAME --out DIR [options]\n"
    "       make_data --list\n"
    "\n"
    "Writes a built-in task's splits as data files (docs/formats.md): DIR/train.txt,\n"
    "DIR/valid.txt and DIR/test.txt, the examples train --task NAME trains on with\n"
    "the same options (--seed is train's --data-seed). Another framework can train\n"
    "on the same examples, and anyone can check their labels (tests/reference/\n"
    "chomsky_tasks.py does, for Deletang et al.'s tasks). data/README.md describes\n"
    "every task and the tape of the benchmark's tasks: the input, then one blank\n"
    "'?' per output symbol, labelled '_' on the input.\n"
    "\n"
    "Options:\n"
    "  --task NAME           the task (--list names them all)\n"
    "  --out DIR             where to write: a new folder (its parent must exist) or\n"
    "                        one whose train.txt, valid.txt and test.txt, if any,\n"
    "                        make_data wrote; the three are replaced together once\n"
    "                        all are written, and nothing else is touched\n"
    "  --min-len N           shortest input (default: the task's, 4 or 1)\n"
    "  --max-train-len N     longest input in train (default --max-len)\n"
    "  --max-len N           longest input in valid and test (default 12)\n"
    "  --train-examples N    examples in train (default: the task's, 8000)\n"
    "  --valid-examples N    examples in valid (default: the task's, 500)\n"
    "  --test-examples N     examples in test (default: the task's, 1000)\n"
    "  --seed S, --data-seed S  the data's seed (default 1; train spells it\n"
    "                        --data-seed)\n"
    "  --pad-loss            label the padding after '$' (binary_addition,\n"
    "                        binary_multiplication, stack_manipulation) '_=0', the\n"
    "                        bit 0 trained on and never scored (docs/formats.md), as\n"
    "                        train --pad-loss makes it; without, '_'\n"
    "  --list                print every task: name, level, default input lengths,\n"
    "                        the longest sequence they make, and what it asks\n"
    "  --help                show this help\n"
    "\n"
    "An input's length is drawn uniformly from --min-len..--max-train-len for train\n"
    "and from --min-len..--max-len for valid and test; a sequence (the input and\n"
    "its blanks) has at most 512 words. Each file starts with comments naming the\n"
    "task, the split and the command that makes it again.\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options (or a DIR that holds other\n"
    "files of those names), 1 when writing fails.\n",
    NULL};

#define MARK "# posenc make_data:"
static const char *const SPLIT[3] = {"train", "valid", "test"};

static void list_tasks(void) {
    printf("%-28s %-8s %-8s %-8s %s\n", "task", "level", "lengths", "longest", "about");
    for (size_t i = 0; i < task_count(); i++) {
        const Task *t = task_at(i);
        TaskOptions r, none = {0};
        Err e;
        if (task_options_resolve(&r, &none, t->name, &e))
            continue; /* every default resolves (tests/test_tasks.c) */
        char lengths[32];
        snprintf(lengths, sizeof lengths, "%zu..%zu", r.min_len, r.max_len);
        printf("%-28s %-8s %-8s %-8zu %s\n", t->name, task_level_name(t->level), lengths,
               task_longest(t, &r), t->about);
    }
}

/* DIR/NAME into buf, or a usage error when it does not fit. */
static void path_in(const Cli *cli, char *buf, size_t cap, const char *dir, const char *name) {
    if ((size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap)
        cli_usage_error(cli, "--out %s is too long a path", dir);
}

/* Makes dir if it is missing (a symbolic link to a folder is that
 * folder), refuses a train, valid or test file there that make_data did
 * not write (its first line says so), and locks it: one make_data per
 * folder, refused at its start rather than replacing the other's files
 * once both have generated theirs. */
static void claim_out(const Cli *cli, const char *dir) {
    bool exists;
    Err e;
    if (path_folder(dir, "--out", &exists, &e))
        cli_error(cli, &e);
    if (!exists && mkdir(dir, 0777) != 0)
        cli_usage_error(cli, "cannot create --out %s: %s; check that its parent exists "
                        "and is writable", dir, strerror(errno));
    if (cli_hold_folder(dir, ".make_data", "--out", &e))
        cli_error(cli, &e);
    for (int k = 0; k < 3; k++) {
        char path[4096], name[16], first[sizeof MARK] = "";
        snprintf(name, sizeof name, "%s.txt", SPLIT[k]);
        path_in(cli, path, sizeof path, dir, name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        FILE *f = S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
        size_t got = f ? fread(first, 1, sizeof first - 1, f) : 0;
        if (f)
            fclose(f);
        if (got != sizeof first - 1 || strcmp(first, MARK) != 0)
            cli_usage_error(cli, "%s exists and make_data did not write it; give another "
                            "--out, or move the file away", path);
    }
}

/* The comments at the top of a split's file. */
static void header(Buf *b, const Task *t, const TaskOptions *r, int k) {
    size_t n[3] = {r->n_train, r->n_valid, r->n_test};
    buf_printf(b, MARK " %s (%s), the %s split: %zu examples, inputs of %zu to %zu words\n",
               t->name, task_level_name(t->level), SPLIT[k], n[k], r->min_len,
               k ? r->max_len : r->max_train_len);
    buf_printf(b, "# made by: make_data --task %s --min-len %zu --max-train-len %zu "
               "--max-len %zu --train-examples %zu --valid-examples %zu --test-examples %zu "
               "--seed %llu%s\n", t->name, r->min_len, r->max_train_len, r->max_len, r->n_train,
               r->n_valid, r->n_test, (unsigned long long)r->seed,
               r->pad_loss ? " --pad-loss" : "");
    buf_printf(b, "# data/README.md describes the task%s\n",
               t->blanks ? " and its tape" : "");
}

/* The three splits into folder out (claimed), all or none: written into
 * a staging folder in it, whose files then take their places. */
static void write_splits(const Cli *cli, const char *out, const Task *t, const TaskOptions *r,
                         const TextData *s) {
    char staging[4096];
    Err e;
    if (publish_stage(out, "make_data", staging, sizeof staging, &e))
        cli_error(cli, &e);
    int rc = 0;
    for (int k = 0; !rc && k < 3; k++) {
        char path[4096], name[16];
        snprintf(name, sizeof name, "%s.txt", SPLIT[k]);
        path_in(cli, path, sizeof path, staging, name);
        Buf b = {0};
        header(&b, t, r, k);
        data_format(&s[k], &b);
        rc = b.failed ? err_set(&e, ERR_RUNTIME, "out of memory building %s", path)
                      : write_file_atomic(path, b.p, b.n, &e);
        buf_free(&b);
    }
    if (!rc)
        rc = publish_commit(out, staging, &e);
    else
        publish_recover(out, "make_data", &(Err){0}); /* unmarked: removed */
    if (rc)
        cli_error(cli, &e);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "make_data");
    char task[64] = "";
    const char *out = NULL;
    bool list = false;
    TaskOptions o = {.seed = 1};
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_task(&cli, task, sizeof task)) {
        } else if (cli_opt(&cli, "--out")) {
            out = cli.val;
        } else if (cli_flag(&cli, "--list")) {
            list = true;
        } else if (cli_opt(&cli, "--seed")) {
            o.seed = cli_u64(&cli, "--seed", cli.val);
        } else if (cli_opt(&cli, "--valid-examples")) {
            o.n_valid = cli_size(&cli, "--valid-examples", cli.val, 1, TASK_MAX_EXAMPLES);
        } else if (cli_opt(&cli, "--test-examples")) {
            o.n_test = cli_size(&cli, "--test-examples", cli.val, 1, TASK_MAX_EXAMPLES);
        } else if (cli_task_option(&cli, &o)) { /* --data-seed too, as train spells it */
        } else {
            cli_unknown(&cli, arg);
        }
    }
    if (list) {
        if (argc > 2)
            cli_usage_error(&cli, "--list takes no other option; drop the others");
        list_tasks();
        return 0;
    }
    if (!task[0] || !out)
        cli_usage_error(&cli, "give a task (--task NAME; --list names them) and a folder to "
                        "write it to (--out DIR)");
    TaskOptions r;
    Err e;
    if (task_options_resolve(&r, &o, task, &e))
        cli_error(&cli, &e);
    claim_out(&cli, out);
    TextData s[3];
    if (task_make(&s[0], &s[1], &s[2], task, &r, &e))
        cli_error(&cli, &e);
    write_splits(&cli, out, task_find(task), &r, s);
    for (int k = 0; k < 3; k++) {
        size_t longest = 0;
        for (size_t i = 0; i < s[k].n; i++)
            if (s[k].start[i + 1] - s[k].start[i] > longest)
                longest = s[k].start[i + 1] - s[k].start[i];
        printf("make_data: %s/%s.txt: %zu examples of %s, up to %zu words\n", out, SPLIT[k],
               s[k].n, task, longest);
        textdata_free(&s[k]);
    }
    return 0;
}
