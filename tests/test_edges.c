/* The edges of checkpoints, outputs and resumes (issue 9): each test
 * reproduces one defect as a user or an attacker would meet it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/fileio.h"
#include "../src/run/session.h"
#include "suites.h"

/* A session of a tiny agent run, not trained. */
static void tiny_session(Session *s) {
    TrainMeta mt = {.batch = 4, .steps = 20, .eval_every = 10, .task_opt = {.seed = 1}};
    snprintf(mt.task, sizeof mt.task, "agent");
    mt.task_opt.n_train = 400;
    OptConfig opt;
    opt_default(&opt);
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    cfg.d_model = 8;
    cfg.n_heads = 2;
    cfg.d_ff = 16;
    cfg.n_layers = 1;
    Err e;
    ck_assert_msg(session_create(s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
}

/* Defect 1: a training state valid by checksum but not by meaning. */
START_TEST(resume_refuses_a_meaningless_state) {
    char *dir = scratch(), path[256], args[512];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Session s;
    Err e;
    tiny_session(&s);
    s.meta.eval_every = 0; /* saved with a correct checksum */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    /* refused as the command line refuses it, with its message */
    snprintf(args, sizeof args, "--resume %s", path);
    expect_exit("train", args, 2, "--eval-every wants a whole number from 1 to 100000000, not "
                "'0'");
    snprintf(args, sizeof args, "--model %s --task agent", path);
    expect_exit("evaluate", args, 2, "eval-every wants a whole number");
    s.meta.eval_every = 10;
    s.meta.batch = 0;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    snprintf(args, sizeof args, "--resume %s", path);
    expect_exit("train", args, 2, "--batch wants a whole number from 1 to 4096");
    s.meta.batch = 4;
    s.trainer.opt.lr = 0.0f / 0.0f;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "--lr wants a number from 1e-08 to 10");
    session_free(&s);
    remove_dir(dir);
}
END_TEST

/* Defect 8: the header's size is checked against the file's before any
 * allocation. Without the sanitizers a memory limit proves it: a 16 GiB
 * allocation would fail with "out of memory" (exit 1). */
START_TEST(loader_trusts_the_file_size_not_the_header) {
    char *dir = scratch(), path[256];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    unsigned char head[40] = {'P', 'O', 'S', 'E', 'N', 'C', 'M', 'D', 2};
    uint64_t claim = (uint64_t)16 << 30;
    for (int i = 0; i < 8; i++)
        head[16 + i] = (unsigned char)(claim >> (8 * i));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    Checkpoint ck;
    Err e;
    ck_assert_int_eq(checkpoint_load(&ck, path, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "has 40 bytes but its header says 17179869184"), "%s", e.msg);
#if !defined(__SANITIZE_ADDRESS__)
    char cmd[1024];
    const char *bin = getenv("POSENC_BIN");
    snprintf(cmd, sizeof cmd, "ulimit -v 1000000; %s/evaluate --model %s --task agent "
             ">/dev/null 2>%s/err", bin ? bin : "build", path, dir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "evaluate under ulimit: status %d",
                  st);
#endif
    remove_dir(dir);
}
END_TEST

/* Defect 12 (part): a directory given as the model is bad input. */
START_TEST(model_that_is_a_directory_exits_2) {
    expect_exit("evaluate", "--model /tmp --task agent", 2, "is a directory");
    expect_exit("encode", "--model /tmp 'a b'", 2, "is a directory");
}
END_TEST

/* Defect 4: resume checks the classes' names, not only their number; since
 * round four a run keeps its files' contents' hash, which refuses the
 * changed file before its classes are read. */
START_TEST(resume_refuses_swapped_labels) {
    char *dir = scratch(), data[256], args[1024];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    write_text(data, "labels: sentence\nA\tx y\nB\ty x\nA\tx x y\n");
    snprintf(args, sizeof args, "--data %s --d-model 8 --heads 2 --d-ff 16 --eval-every 2 "
             "--steps 2 --out %s/m.bin", data, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    write_text(data, "labels: sentence\nB\tx y\nA\ty x\nB\tx x y\n");
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 4", dir);
    expect_exit("train", args, 2, "is not the file this run trained on");
    remove_dir(dir);
}
END_TEST

#define TINY "--task agent --d-model 8 --heads 2 --d-ff 16 --layers 1"

/* Runs cmd through the shell (with $B the programs' folder); returns its
 * exit status and leaves stderr in *err (free it). */
static int shell(const char *cmd, char **err) {
    const char *bin = getenv("POSENC_BIN");
    char *errpath = temp_file(), full[4096];
    char saved[64];
    snprintf(saved, sizeof saved, "%s", errpath);
    snprintf(full, sizeof full, "B=%s; { %s\n} 2>%s", bin ? bin : "build", cmd, saved);
    int st = system(full);
    *err = slurp(saved);
    unlink(saved);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Defect 2: an existing output that is not a regular file is refused, not
 * replaced. */
START_TEST(out_that_is_not_a_regular_file_is_refused) {
    char *dir = scratch(), args[512], link[256], target[256], fifo[256];
    snprintf(target, sizeof target, "%s/target", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    write_text(target, "keep me\n");
    ck_assert_int_eq(symlink(target, link), 0);
    ck_assert_int_eq(mkfifo(fifo, 0666), 0);
    snprintf(args, sizeof args, TINY " --steps 1 --out %s", link);
    expect_exit("train", args, 2, "symbolic link");
    snprintf(args, sizeof args, TINY " --steps 1 --out %s", fifo);
    expect_exit("train", args, 2, "FIFO");
    struct stat st;
    ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    ck_assert(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    /* the library refuses as well */
    Err e;
    ck_assert_int_eq(write_file_atomic(link, "x", 1, &e), ERR_INPUT);
    char *text = slurp(target);
    ck_assert_str_eq(text, "keep me\n");
    free(text);
    remove_dir(dir);
}
END_TEST

/* Defect 3: an output that is one of the inputs, by any name. */
START_TEST(out_that_is_an_input_is_refused) {
    char *dir = scratch(), data[256], alias[256], args[1024];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    snprintf(alias, sizeof alias, "%s/alias.txt", dir);
    const char *text = "labels: sentence\nA\tx y\nB\ty x\n";
    write_text(data, text);
    ck_assert_int_eq(link(data, alias), 0);
    snprintf(args, sizeof args, "--data %s --steps 1 --out %s", data, data);
    expect_exit("train", args, 2, "same file as --data");
    snprintf(args, sizeof args, "--data %s --valid %s --steps 1 --log %s", data, data, alias);
    expect_exit("train", args, 2, "same file as --data");
    snprintf(args, sizeof args, "--data %s --steps 1 --out %s/m.bin --log %s/m.bin", data, dir,
             dir);
    expect_exit("train", args, 2, "and --log");
    char *now = slurp(data);
    ck_assert_str_eq(now, text);
    free(now);
    remove_dir(dir);
}
END_TEST

/* Issue 25 item 2: --init was not among the inputs (--log M made the model
 * a CSV, --out M overwrote it), --out X --log ./X on a new file lost the
 * log. Every output of every program against every input it reads and
 * every other output, however the paths name the file. */
START_TEST(every_output_is_checked_against_every_input) {
    char *dir = scratch(), cmd[2048], *err;
    snprintf(cmd, sizeof cmd, "B=$(cd $B && pwd); cd %s && $B/train " TINY " --steps 2 --out M >/dev/null && "
             "cp M M.orig && ln -s M Msym && ln M Mhard && ln -s new.csv dangling && "
             "$B/train " TINY " --steps 2 --log L.png >/dev/null", dir);
    ck_assert_msg(shell(cmd, &err) == 0, "%s", err);
    free(err);
    const char *refused[][2] = {
        {"train --task agent" " --init M --steps 2 --log M", "--log M is the same file as --init M"},
        {"train --task agent" " --init M --steps 2 --out M", "--out M is the same file as --init M"},
        {"train --task agent" " --init ./M --steps 2 --out M", "same file as --init ./M"},
        {"train --task agent" " --init Msym --steps 2 --log M", "same file as --init Msym"},
        {"train --task agent" " --init Mhard --steps 2 --out M", "same file as --init Mhard"},
        {"train " TINY " --steps 2 --out X --log ./X", "--out X and --log ./X are the same"},
        {"train " TINY " --steps 2 --out new.csv --log dangling", "are the same file"},
        {"train " TINY " --steps 2 --out X --log X.lock", "--out's lock file X.lock"},
        {"train --resume M --steps 4 --log ./M", "same file as --resume M"},
        {"pe_plot --kind attention --model P.png --out P.png", "same file as --model P.png"},
        {"pe_plot --kind curves --out L.png L.png", "--out L.png is the same file as the log"},
        {"probe --task agent --plot P.png ./P.png", "--plot P.png is the same file as the model"},
        {"encode --model exp/config.json --npy exp 'a b'", "--npy exp holds --model"},
        {"encode --model exp/params/m.npy --npy exp/ 'a b'", "--npy exp/ holds --model"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(cmd, sizeof cmd, "B=$(cd $B && pwd); cd %s && rm -rf exp P.png && mkdir -p exp/params && cp M "
                 "exp/config.json && cp M exp/params/m.npy && cp M P.png && $B/%s >/dev/null",
                 dir, refused[i][0]);
        int st = shell(cmd, &err);
        ck_assert_msg(st == 2 && strstr(err, refused[i][1]), "%s: exit %d: %s", refused[i][0],
                      st, err);
        free(err);
        /* nothing was written: the model, the log and the new files are as they were */
        snprintf(cmd, sizeof cmd, "B=$(cd $B && pwd); cd %s && cmp M M.orig && head -c 5 L.png | grep -q step && "
                 "cmp exp/config.json M && cmp P.png M && ! test -e X && ! test -e new.csv", dir);
        ck_assert_msg(shell(cmd, &err) == 0, "%s wrote over a file: %s", refused[i][0], err);
        free(err);
    }
    /* a run goes on in the checkpoint it resumes, by any name */
    snprintf(cmd, sizeof cmd, "B=$(cd $B && pwd); cd %s && $B/train --resume M --steps 4 --out ./M >/dev/null", dir);
    ck_assert_msg(shell(cmd, &err) == 0, "%s", err);
    free(err);
    remove_dir(dir);
}
END_TEST

/* Issue 25 item 3: a resumed run forgot --keep last (not saved), and kept
 * step 40 of 60 where the uninterrupted run kept step 60. It keeps what
 * the run kept, and ends in the uninterrupted run's model, optimizer and
 * options (all but the training time, which the clock sets). */
START_TEST(a_resumed_run_is_the_run_it_continues) {
    char *dir = scratch(), args[1024];
    const char *o = "--task previous --pe learned --dropout 0.4 --batch 7 --d-model 16 --heads 2 "
                    "--layers 1 --d-ff 32 --eval-every 20 --keep last";
    snprintf(args, sizeof args, "%s --steps 60 --out %s/full.bin", o, dir);
    Run whole = run("train", args);
    snprintf(args, sizeof args, "%s --steps 40 --out %s/half.bin", o, dir);
    Run half = run("train", args);
    snprintf(args, sizeof args, "--resume %s/half.bin --steps 60 --out %s/half.bin", dir, dir);
    Run rest = run("train", args);
    ck_assert_msg(whole.status == 0 && half.status == 0 && rest.status == 0, "%s %s %s",
                  whole.err, half.err, rest.err);
    ck_assert_msg(strstr(rest.out, "kept: the model of step 60 of 60 (the last step)"), "%s",
                  rest.out);
    ck_assert_str_eq(strstr(rest.out, "kept:"), strstr(whole.out, "kept:"));
    run_free(&whole), run_free(&half), run_free(&rest);
    Checkpoint a, b;
    Err e;
    char path[256];
    snprintf(path, sizeof path, "%s/full.bin", dir);
    ck_assert_msg(checkpoint_load(&a, path, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/half.bin", dir);
    ck_assert_msg(checkpoint_load(&b, path, &e) == 0, "%s", e.msg);
    size_t n = a.model.n_params;
    ck_assert(a.step == 60 && b.step == 60 && b.model.n_params == n);
    ck_assert(memcmp(a.model.mem, b.model.mem, n * sizeof(float)) == 0);
    ck_assert(memcmp(a.m, b.m, n * sizeof(float)) == 0 && memcmp(a.v, b.v, n * sizeof(float)) == 0);
    ck_assert(memcmp(&a.model.cfg, &b.model.cfg, sizeof a.model.cfg) == 0);
    ck_assert(memcmp(&a.opt, &b.opt, sizeof a.opt) == 0);
    b.meta.seconds = a.meta.seconds;
    ck_assert_msg(memcmp(&a.meta, &b.meta, sizeof a.meta) == 0, "the run's options differ");
    checkpoint_free(&a);
    checkpoint_free(&b);
    /* the edges of --dropout and --base run (both were refused) */
    snprintf(args, sizeof args, TINY " --steps 1 --dropout 0.95 --pe rope --base 1.000001 "
             "--out %s/edge.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* Issue 25 item 14: fine-tuning a learned table at longer lengths said
 * "train it on the same task" (it was): the table is too short, and the
 * message says so. */
START_TEST(init_names_what_does_not_fit) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task previous --pe learned --d-model 8 --heads 2 --d-ff 16 "
             "--layers 1 --steps 2 --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--init %s/m.bin --task previous --max-len 20 --steps 2", dir);
    expect_exit("train", args, 2, "has a learned table of 12 rows (positions 0..11), and a "
                "table cannot grow: this run needs positions 0..19");
    snprintf(args, sizeof args, "--init %s/m.bin --task previous --max-len 20 --max-train-len "
             "12 --steps 2", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "the advice does not work: %s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--init %s/m.bin --task agent --steps 2", dir);
    expect_exit("train", args, 2, "which the model to start from does not know");
    remove_dir(dir);
}
END_TEST

/* Defect 5: write errors end in exit 1 with the path and the reason. */
START_TEST(write_errors_are_reported) {
    char *err;
    int st = shell("$B/train " TINY " --steps 2 --eval-every 1 --log /dev/full", &err);
    ck_assert_msg(st == 1 && strstr(err, "/dev/full") && strstr(err, "No space left"),
                  "train --log /dev/full: %d %s", st, err);
    free(err);
    st = shell("$B/compare_pe --task agent --schemes none --steps 1 --d-model 8 --heads 2 "
               "--d-ff 16 --out /dev/full", &err);
    ck_assert_msg(st == 1 && strstr(err, "/dev/full") && strstr(err, "No space left"),
                  "compare_pe --out /dev/full: %d %s", st, err);
    free(err);
    const char *progs[] = {"$B/demo_order", "$B/pe_report --pe sinusoidal",
                           "$B/encode 'a b c'", "$B/train " TINY " --steps 1",
                           "$B/pe_plot --help"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s >/dev/full", progs[i]);
        st = shell(cmd, &err);
        ck_assert_msg(st == 1 && strstr(err, "standard output") && strstr(err, "No space left"),
                      "%s: %d %s", cmd, st, err);
        free(err);
    }
}
END_TEST

/* Defect 6: temporaries of dead processes go at the next save. */
START_TEST(stale_temporaries_are_removed) {
    char *dir = scratch(), dead[256], live[256], args[512];
    /* no process has a pid this large (pid_max is at most 2^22) */
    snprintf(dead, sizeof dead, "%s/m.bin.999999999.0.tmp", dir);
    snprintf(live, sizeof live, "%s/m.bin.%ld.0.tmp", dir, (long)getpid());
    write_text(dead, "partial");
    write_text(live, "being written");
    snprintf(args, sizeof args, TINY " --steps 1 --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    ck_assert_msg(access(dead, F_OK) != 0, "the dead process's temporary is still there");
    ck_assert_msg(access(live, F_OK) == 0, "a live process's temporary was removed");
    remove_dir(dir);
}
END_TEST

/* Defect 6: kill -9 during saves leaves one loadable checkpoint, and the
 * next save removes whatever temporaries the killed saves left (a save
 * every step, so most kills land in one). How many a kill leaves depends
 * on the file system: with O_TMPFILE only a kill between naming and rename
 * leaves one, without it (overlayfs before Linux 6.6) a kill during the
 * write does; hence the count is checked after the next save, not before.
 * Each kill waits for the first save (a busy machine starts a run late),
 * so a loadable checkpoint exists whatever the load; then tens of ms,
 * several saves of this model (a few ms each), each time another, so that
 * the kills land at other points of a save. */
START_TEST(kill_during_saves_leaves_no_temporaries) {
    char *dir = scratch(), cmd[1024], *err;
    snprintf(cmd, sizeof cmd, "for t in 0.03 0.05 0.04 0.06 0.035 0.045 0.055 0.025 0.065 0.05; do "
             "$B/train " TINY " --steps 100000000 --eval-every 1 --out %s/m.bin >/dev/null "
             "2>&1 & p=$!; until [ -e %s/m.bin ] || ! kill -0 $p; do sleep 0.01; done; "
             "sleep $t; kill -9 $p; wait $p; done 2>/dev/null; true", dir, dir);
    int st = shell(cmd, &err);
    ck_assert_msg(st == 0, "the kill loop failed: %s", err);
    free(err);
    char path[256];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    checkpoint_free(&ck);
    snprintf(cmd, sizeof cmd, "$B/train " TINY " --steps 1 --out %s/m.bin >/dev/null || exit 9; "
             "! ls %s | grep '\\.tmp$' >&2", dir, dir);
    st = shell(cmd, &err);
    ck_assert_msg(st == 0, "temporaries left after the next save: %s", err);
    free(err);
    remove_dir(dir);
}
END_TEST

/* Defect 10: a second run on the same output is refused, naming the
 * first's pid; defect 11: outputs are checked before training. */
START_TEST(second_run_on_one_output_is_refused) {
    char *dir = scratch(), cmd[1024], lock[256], *err;
    snprintf(lock, sizeof lock, "%s/m.bin.lock", dir);
    snprintf(cmd, sizeof cmd, "$B/train " TINY " --steps 100000000 --out %s/m.bin --log "
             "%s/log.csv & echo $! >%s/pid.tmp && mv %s/pid.tmp %s/pid; wait", dir, dir, dir,
             dir, dir);
    char bg[1200];
    snprintf(bg, sizeof bg, "(%s) >/dev/null 2>&1 &", cmd);
    ck_assert_int_eq(shell(bg, &err), 0);
    free(err);
    char pidpath[256];
    snprintf(pidpath, sizeof pidpath, "%s/pid", dir);
    /* Conditions, not times (a busy machine starts the run late): the pid
     * file appears whole (written, then renamed), and the run either takes
     * its lock or ends; Check's timeout bounds both waits. */
    while (access(pidpath, F_OK) != 0)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    char *pidtext = slurp(pidpath);
    long pid = strtol(pidtext, NULL, 10);
    free(pidtext);
    ck_assert(pid > 0);
    while (access(lock, F_OK) != 0 && kill((pid_t)pid, 0) == 0)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    if (access(lock, F_OK) != 0)
        kill((pid_t)pid, SIGKILL); /* the run we started, before failing */
    ck_assert_msg(access(lock, F_OK) == 0, "the first run took no lock");
    char want[64];
    snprintf(want, sizeof want, "(pid %ld)", pid);
    snprintf(cmd, sizeof cmd, TINY " --steps 5 --out %s/m.bin", dir);
    Run second = run("train", cmd);
    snprintf(cmd, sizeof cmd, TINY " --steps 5 --log %s/log.csv", dir);
    Run third = run("train", cmd);
    kill((pid_t)pid, SIGKILL);
    ck_assert_msg(second.status == 2 && strstr(second.err, want), "%d %s", second.status,
                  second.err);
    ck_assert_msg(third.status == 2 && strstr(third.err, want), "%d %s", third.status,
                  third.err);
    run_free(&second);
    run_free(&third);
    /* the first's log is intact: its header is still there */
    snprintf(pidpath, sizeof pidpath, "%s/log.csv", dir);
    char *log = slurp(pidpath);
    ck_assert_msg(strncmp(log, "step,", 5) == 0, "the log was emptied: '%s'", log);
    free(log);
    remove_dir(dir);
    /* a bad output is reported before the first step, not at the first save */
    Run r = run("train", TINY " --steps 1000 --out /nonexistent/dir/m.bin");
    ck_assert_msg(r.status == 2 && strstr(r.err, "/nonexistent/dir") && !strstr(r.err, "step "),
                  "%d %s", r.status, r.err);
    run_free(&r);
}
END_TEST

/* Defect 12: the command line's edges. */
START_TEST(cli_edges_are_refused_clearly) {
    expect_exit("train", "--task agent --seed ' -1'", 2, "--seed");
    expect_exit("train", "--task agent --steps ' 5'", 2, "--steps");
    expect_exit("encode", "--base 1 'a b'", 2, "from 1.000001 to 1e+12");
    expect_exit("train", "--task agent --task reverse", 2, "--task is given twice");
    expect_exit("train", "--data data/agent_example.txt --max-len 8", 2,
                "--max-len applies to the built-in tasks");
    expect_exit("evaluate", "--model m.bin --data x.txt --split valid", 2,
                "--split applies to a built-in task");
    expect_exit("evaluate", "--model m.bin --data x.txt --min-len 3", 2,
                "--min-len applies to a built-in task");
    expect_exit("pe_report", "--worked-example --pe rope", 2, "--worked-example");
    /* scheme options the chosen scheme does not read */
    expect_exit("train", "--task agent --pe learned --base 500", 2, "--base does nothing for "
                "the learned scheme");
    expect_exit("encode", "--pe rope --pairs 2 'a b'", 2, "--pairs does nothing");
    expect_exit("demo_order", "--pe alibi --pe-init-std 0.1", 2, "--pe-init-std does nothing");
    expect_exit("pe_plot", "--kind heatmap --pe sinusoidal --buckets 8 --out /tmp/x.png", 2,
                "--buckets does nothing");
    /* did you mean */
    expect_exit("train", "--task agent --stesp 5", 2, "did you mean '--steps'?");
    expect_exit("evaluate", "--modle m.bin", 2, "did you mean '--model'?");
    expect_exit("demo_order", "--frobnicate", 2, "unknown option '--frobnicate'");
}
END_TEST

/* Defect 12: --steps below the step a run has reached. */
START_TEST(resume_with_fewer_steps_is_refused) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, TINY " --steps 4 --eval-every 2 --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 2", dir);
    expect_exit("train", args, 2, "at step 4 already");
    remove_dir(dir);
}
END_TEST

/* Defect 7: encode --npy replaces an earlier export whole and refuses a
 * directory that is not one. */
START_TEST(npy_export_is_clean_and_refuses_strangers) {
    char *dir = scratch(), args[512], path[256];
    snprintf(args, sizeof args, "--d-model 8 --heads 2 --layers 2 --npy %s/x 'a b'", dir);
    Run r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/x/params/layers.1.norm1.weight.npy", dir);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    snprintf(args, sizeof args, "--d-model 8 --heads 2 --layers 1 --npy %s/x 'a b'", dir);
    r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    ck_assert_msg(access(path, F_OK) != 0, "a file of the earlier model is left: %s", path);
    snprintf(path, sizeof path, "%s/x/params/layers.0.norm1.weight.npy", dir);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    /* a directory of other things is not mixed into */
    snprintf(path, sizeof path, "%s/mine", dir);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/mine/notes.txt", dir);
    write_text(path, "mine\n");
    snprintf(args, sizeof args, "--d-model 8 --heads 2 --npy %s/mine 'a b'", dir);
    expect_exit("encode", args, 2, "not an earlier export");
    snprintf(path, sizeof path, "%s/mine/config.json", dir);
    ck_assert_msg(access(path, F_OK) != 0, "encode wrote into a foreign directory");
    /* nothing temporary is left beside */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 2", dir);
    ck_assert_msg(system(cmd) == 0, "temporaries left in %s", dir);
    remove_dir(dir);
}
END_TEST

/* Defect 11: memory is estimated, printed and limited before allocating. */
START_TEST(memory_is_estimated_and_limited) {
    expect_exit("train", "--task agent --d-model 32768 --heads 1 --d-ff 8 --steps 1", 2,
                "--max-memory");
    expect_exit("train", TINY " --steps 1 --max-memory 1 --batch 4096", 2,
                "more than --max-memory 1 MiB");
    Run r = run("train", TINY " --steps 1");
    ck_assert_msg(r.status == 0 && strstr(r.err, "MiB of memory (limit"), "%s", r.err);
    run_free(&r);
    /* one long line: thousands of words in one sentence */
    char *dir = scratch(), data[256], args[512];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    FILE *f = fopen(data, "w");
    ck_assert_ptr_nonnull(f);
    fputs("labels: sentence\nA\tx y\nB\t", f);
    for (int k = 0; k < 2700; k++)
        fputs(k ? " ab" : "ab", f);
    fputs("\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--data %s --steps 1 --max-memory 1024", data);
    expect_exit("train", args, 2, "sentences of up to 2700 words");
    remove_dir(dir);
}
END_TEST

/* A file read whole ends in a NUL, whatever the heap held, and the
 * limit bounds what is read: the benchmark page's pilots table once
 * printed the bytes after the file's end (read as a string, unended). */
START_TEST(files_read_are_ended_and_bounded) {
    char *path = temp_file();
    const size_t sizes[] = {3, 1 << 16};
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        for (size_t k = 0; k < sizes[i]; k++)
            fputc('a' + (int)(k % 26), f);
        fclose(f);
        char *text = NULL;
        size_t n = 0;
        Err e;
        ck_assert_int_eq(read_regular(path, 1 << 20, &text, &n, &e), 0);
        ck_assert_uint_eq(n, sizes[i]);
        ck_assert_msg(text[n] == '\0' && strlen(text) == n, "%zu bytes not ended", n);
        free(text);
        ck_assert_int_eq(read_regular(path, 2, &text, &n, &e), 0);
        ck_assert_msg(n == 2 && text[2] == '\0', "limit 2 read %zu bytes", n);
        free(text);
    }
    unlink(path);
}
END_TEST

Suite *suite_edges(void) {
    Suite *s = suite_create("edges");
    TCase *tc = tcase_create("edges");
    tcase_add_test(tc, resume_refuses_a_meaningless_state);
    tcase_add_test(tc, loader_trusts_the_file_size_not_the_header);
    tcase_add_test(tc, model_that_is_a_directory_exits_2);
    tcase_add_test(tc, resume_refuses_swapped_labels);
    tcase_add_test(tc, out_that_is_not_a_regular_file_is_refused);
    tcase_add_test(tc, out_that_is_an_input_is_refused);
    tcase_add_test(tc, every_output_is_checked_against_every_input);
    tcase_add_test(tc, a_resumed_run_is_the_run_it_continues);
    tcase_add_test(tc, init_names_what_does_not_fit);
    tcase_add_test(tc, write_errors_are_reported);
    tcase_add_test(tc, stale_temporaries_are_removed);
    tcase_add_test(tc, kill_during_saves_leaves_no_temporaries);
    tcase_add_test(tc, second_run_on_one_output_is_refused);
    tcase_add_test(tc, cli_edges_are_refused_clearly);
    tcase_add_test(tc, resume_with_fewer_steps_is_refused);
    tcase_add_test(tc, npy_export_is_clean_and_refuses_strangers);
    tcase_add_test(tc, memory_is_estimated_and_limited);
    tcase_add_test(tc, files_read_are_ended_and_bounded);
    tcase_set_timeout(tc, 900);
    suite_add_tcase(s, tc);
    return s;
}
