/* Edge cases round four (issue 36), the programs' messages: each test
 * reproduces one defect as a user meets it and is named after what it
 * guards. See test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/run/npy.h"
#include "suites.h"

/* 12h: "cannot open" said nothing of why (a missing folder, a file where a
 * folder should be, a folder where a file should be): every failed open
 * carries its reason, and the advice follows the reason. */
START_TEST(cannot_open_says_why) {
    expect_exit("train", "--data /nonexistent/d.txt --steps 1", 2,
                "cannot open the data file /nonexistent/d.txt: No such file or directory; "
                "check the path");
    expect_exit("train", "--data /etc/passwd/d.txt --steps 1", 2,
                "/etc/passwd/d.txt: Not a directory");
    expect_exit("train", "--data /tmp --steps 1", 2, "cannot read /tmp: Is a directory");
    expect_exit("compare_pe", "--schemes none --steps 1 --out /nonexistent/r.csv", 2,
                "cannot write --out /nonexistent/r.csv: No such file or directory");
    float *x, one = 1.0f;
    size_t shape[4], nd;
    Err e;
    ck_assert_int_eq(npy_read_f32("/nonexistent/a.npy", &x, shape, &nd, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "a.npy: No such file or directory"), "%s", e.msg);
    ck_assert_int_eq(npy_write_f32("/nonexistent/a.npy", &one, (size_t[]){1}, 1, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "cannot write /nonexistent/a.npy: No such file"), "%s", e.msg);
}
END_TEST

/* 12i: encode "" told of a batch of 1 x length 0; a sentence of no words
 * (or of the [CLS] alone) is called empty, before any model is made. */
START_TEST(empty_sentence_is_called_empty) {
    const char *args[] = {"''", "'  '", "--pool cls ''", "--pe rope ' \t '"};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        expect_exit("encode", args[i], 2, "the sentence is empty: give at least one word");
    expect_exit("demo_order", "''", 2, "SENTENCE is empty");
    expect_exit("pe_plot", "--kind attention --sentence '' --out /tmp/never.png", 2,
                "the sentence has 0 words");
}
END_TEST

/* 12m: a word that is not UTF-8 was refused in a data file but taken by
 * encode, demo_order and pe_plot: one rule for words everywhere, in the
 * data files' words, exit 2. */
START_TEST(sentence_words_follow_the_data_files_rule) {
    char *dir = scratch(), data[256], args[512];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    write_text(data, "labels: sentence\nA\tbad \xFF word\nB\tgood word\n");
    snprintf(args, sizeof args, "--data %s --steps 1", data);
    expect_exit("train", args, 2, "the word '\xFF' is not valid UTF-8 (at its byte 1); save "
                "the file as UTF-8");
    const char *bad[][2] = {
        {"encode", "'bad \xFF word'"},
        {"encode", "--pool cls 'over\xC0\xAFlong'"},
        {"demo_order", "'bad \xFF word'"},
        {"demo_order", "'a \xED\xA0\x80' '\xED\xA0\x80 a'"},
        {"pe_plot", "--kind attention --sentence 'cut \xE2\x82' --out /tmp/never.png"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_exit(bad[i][0], bad[i][1], 2, "is not valid UTF-8 (at its byte");
    expect_exit("demo_order", "'a b' 'b \xFF'", 2, "the word '\xFF' of PERMUTED is not valid "
                "UTF-8 (at its byte 1); give PERMUTED as UTF-8 text");
    /* and the data files' limit on a word's bytes */
    char longword[300 + 3] = "'";
    memset(longword + 1, 'a', 300);
    strcpy(longword + 301, "'");
    expect_exit("encode", longword, 2, "has 300 bytes, more than 256");
    /* UTF-8 that is valid passes */
    Run r = run("encode", "'Rohan tötete den Löwen'");
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* Holds an advisory lock on path (created if missing), as another run
 * writing that output would; the descriptor, to close. */
static int hold_lock(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    ck_assert_int_ge(fd, 0);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
    return fd;
}

/* The CPU seconds process pid has used so far (/proc/PID/stat). */
static double cpu_seconds(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1.0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* the name may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                     &stime) != 2)
        return -1.0;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* 10: two make_data on one --out at once: the first generated without the
 * lock, the second ran whole meanwhile, then the first replaced its files
 * (both said they wrote them). Now the folder is locked before the work:
 * a second run while the first generates is refused, and the first's
 * files stand. The same rule for every program's output, each refused
 * before its work while another run holds the output. */
/* Starts make_data on out with seed (stdout to /dev/null); its pid. */
static pid_t start_make_data(const char *out, const char *seed) {
    const char *bin = getenv("POSENC_BIN");
    char prog[256];
    snprintf(prog, sizeof prog, "%s/make_data", bin ? bin : "build");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) { /* a long generation: a million and a half words */
        if (!freopen("/dev/null", "w", stdout))
            _exit(3);
        execl(prog, prog, "--task", "sort", "--out", out, "--train-examples", "30000",
              "--max-len", "100", "--max-train-len", "100", "--seed", seed, (char *)NULL);
        _exit(3);
    }
    return pid;
}

/* The pid that holds a write lock on path, or 0. */
static pid_t lock_holder(const char *path) {
    int fd = open(path, O_RDWR);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd < 0)
        return 0;
    int rc = fcntl(fd, F_GETLK, &fl);
    close(fd);
    return rc == 0 && fl.l_type != F_UNLCK ? fl.l_pid : 0;
}

START_TEST(one_writer_per_output_locked_before_the_work) {
    char *dir = scratch(), out[256], path[300], lock[300], args[512];
    snprintf(out, sizeof out, "%s/d", dir);
    snprintf(lock, sizeof lock, "%s/.make_data.lock", out);
    /* the whole run's CPU time, here and now (the sanitizers' builds are
     * slower, alike in every part) */
    snprintf(path, sizeof path, "%s/alone", dir);
    struct rusage ru[2];
    int st;
    ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru[0]), 0);
    pid_t alone = start_make_data(path, "1");
    ck_assert_int_eq(waitpid(alone, &st, 0), alone);
    ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru[1]), 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "make_data alone: status %d", st);
    double whole = 0.0;
    for (int i = 0; i < 2; i++)
        whole += (i ? 1.0 : -1.0) *
                 ((double)(ru[i].ru_utime.tv_sec + ru[i].ru_stime.tv_sec) +
                  1e-6 * (double)(ru[i].ru_utime.tv_usec + ru[i].ru_stime.tv_usec));
    /* a fifth of the way through its CPU time the first run is generating:
     * it must hold the folder then (it claims it before a hundredth of a
     * second; the old order claimed it after generating, two fifths or more
     * in), and a second run is refused; stopped there, the first cannot
     * finish before the second asks */
    pid_t first = start_make_data(out, "1");
    double used;
    while ((used = cpu_seconds(first)) >= 0.0 && used < whole / 5)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    ck_assert_int_eq(kill(first, SIGSTOP), 0);
    pid_t holder = lock_holder(lock);
    ck_assert_msg(holder == first, "a fifth of the way (%.2f of %.2f s of CPU) the first "
                  "make_data does not hold --out (the holder: %ld)", used, whole, (long)holder);
    snprintf(args, sizeof args, "--task sort --out %s --seed 2", out);
    expect_exit("make_data", args, 2, "is in use by another run");
    ck_assert_int_eq(kill(first, SIGCONT), 0);
    ck_assert_int_eq(waitpid(first, &st, 0), first);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first make_data: status %d", st);
    snprintf(path, sizeof path, "%s/train.txt", out);
    char *text = slurp(path);
    ck_assert_msg(strstr(text, "--seed 1\n") != NULL, "train.txt is not the first run's");
    free(text);

    /* every other output, held by "another run": refused before the work,
     * which would have replaced or emptied it */
    snprintf(path, sizeof path, "%s/r.csv", dir);
    write_text(path, "another run's rows\n");
    int fd = hold_lock(path);
    snprintf(args, sizeof args, "--schemes none --steps 1 --seeds 1 --out %s", path);
    expect_exit("compare_pe", args, 2, "is in use by another run");
    close(fd);
    text = slurp(path);
    ck_assert_str_eq(text, "another run's rows\n");
    free(text);
    const char *held[][3] = {
        {"pe_plot", "--kind heatmap --out %s/p.png", "%s/p.png.lock"},
        {"encode", "--npy %s/npy 'a b'", "%s/npy.lock"},
    };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++) {
        char lock[300];
        snprintf(lock, sizeof lock, held[i][2], dir);
        fd = hold_lock(lock);
        snprintf(args, sizeof args, held[i][1], dir);
        expect_exit(held[i][0], args, 2, "is in use by another run");
        close(fd);
        unlink(lock);
    }
    snprintf(path, sizeof path, "%s/p.png", dir);
    ck_assert_msg(access(path, F_OK) != 0, "pe_plot drew while another run held its --out");
    snprintf(path, sizeof path, "%s/npy", dir);
    ck_assert_msg(access(path, F_OK) != 0, "encode exported while another run held --npy");
    remove_dir(dir);
}
END_TEST

/* 12g: a symbolic link to a folder given as make_data's --out was "not a
 * folder"; it is the folder. Anything else is named for what it is (a
 * file, a FIFO, a link to a file or to nothing), and encode's --npy, the
 * other folder a program writes, follows the same rule. */
START_TEST(out_folder_through_a_symlink_is_a_folder) {
    char *dir = scratch(), p[8][300], args[700];
    const char *names[] = {"real", "link", "dangling", "file", "filelink", "fifo", "real2",
                           "link2"};
    for (int i = 0; i < 8; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
    ck_assert_int_eq(mkdir(p[0], 0777), 0);
    ck_assert_int_eq(symlink(p[0], p[1]), 0);
    ck_assert_int_eq(symlink("nowhere", p[2]), 0);
    write_text(p[3], "x\n");
    ck_assert_int_eq(symlink(p[3], p[4]), 0);
    ck_assert_int_eq(mkfifo(p[5], 0666), 0);
    ck_assert_int_eq(mkdir(p[6], 0777), 0);
    ck_assert_int_eq(symlink(p[6], p[7]), 0);
    snprintf(args, sizeof args, "--task agent --out %s", p[1]);
    Run r = run("make_data", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    char path[400];
    snprintf(path, sizeof path, "%s/train.txt", p[0]);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    struct {
        int i;
        const char *want;
    } bad[] = {
        {2, "dangling is a symbolic link to nowhere, which does not exist; make that folder "
            "first, or give another --out"},
        {3, "file is a regular file, not a folder"},
        {4, "filelink is a symbolic link to %s/file, a regular file, not a folder"},
        {5, "fifo is a FIFO, not a folder"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char want[400];
        snprintf(want, sizeof want, bad[k].want, dir);
        snprintf(args, sizeof args, "--task agent --out %s", p[bad[k].i]);
        expect_exit("make_data", args, 2, want);
        snprintf(args, sizeof args, "--npy %s 'a b'", p[bad[k].i]);
        want[strcspn(want, ";")] = '\0'; /* the advice names encode's option */
        expect_exit("encode", args, 2, want);
    }
    /* encode replaces the folder the link names, and the link stays */
    snprintf(args, sizeof args, "--d-model 8 --heads 2 --npy %s/ 'a b'", p[7]);
    r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/config.json", p[6]);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    struct stat st;
    ck_assert(lstat(p[7], &st) == 0 && S_ISLNK(st.st_mode));
    remove_dir(dir);
}
END_TEST

/* Runs cmd through the shell; returns its exit status, stderr in *err
 * (free it). */
static int shell_err(const char *cmd, char **err) {
    char *errpath = temp_file(), saved[64], full[4096];
    snprintf(saved, sizeof saved, "%s", errpath);
    snprintf(full, sizeof full, "{ %s\n} >/dev/null 2>%s", cmd, saved);
    int st = system(full);
    *err = slurp(saved);
    unlink(saved);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 12b, 12c: make experiments HOSTS=FILE with a hosts file written on
 * Windows showed "host '1/:\r'" and left this machine out; an empty file
 * ran nothing and said to try again; a folder broke the script's read.
 * The file is checked before any machine is tried: CRLF line ends are
 * taken off, and a folder, an empty file or comments alone are refused,
 * exit 2, saying what a hosts file holds. No ssh is needed: ':' is this
 * machine, and the stand-in for build/experiments has no cell to run. */
START_TEST(grid_hosts_file_is_checked_before_any_machine) {
    char *dir = scratch(), exe[256], hosts[256], cmd[1024], *err;
    snprintf(exe, sizeof exe, "%s/experiments", dir);
    write_text(exe, "#!/bin/sh\nexit 0\n");
    ck_assert_int_eq(chmod(exe, 0755), 0);
    snprintf(hosts, sizeof hosts, "%s/hosts", dir);
    struct {
        const char *text, *want;
        int code;
    } cases[] = {
        {"", "names no machine (it is empty, or comments alone); give one machine a line", 2},
        {"# the lab\n\n   \n", "names no machine", 2},
        {"# written on Windows\r\n1/:\r\n", "stored 0 of 0 cells; 0 left to run", 0},
        {":  \n", "stored 0 of 0 cells", 0},
    };
    /* the refusals come before the script looks for GNU parallel; the
     * files it takes need it (scripts/deps.sh grid) */
    bool parallel = system("command -v parallel >/dev/null") == 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].code == 0 && !parallel)
            continue;
        write_text(hosts, cases[i].text);
        snprintf(cmd, sizeof cmd, "scripts/grid_hosts.sh %s %s %s/cells /tmp", hosts, exe, dir);
        int code = shell_err(cmd, &err);
        ck_assert_msg(code == cases[i].code && strstr(err, cases[i].want),
                      "hosts file %zu: exit %d, want %d and '%s': %s", i, code, cases[i].code,
                      cases[i].want, err);
        ck_assert_msg(!strchr(err, '\r') && !strstr(err, "left out"), "%s", err);
        free(err);
    }
    snprintf(cmd, sizeof cmd, "scripts/grid_hosts.sh %s %s %s/cells /tmp", dir, exe, dir);
    ck_assert_int_eq(shell_err(cmd, &err), 2);
    ck_assert_msg(strstr(err, "the hosts file ") && strstr(err, " is a folder; give a file of "),
                  "%s", err);
    free(err);
    remove_dir(dir);
}
END_TEST

/* 12e: make products CELL=bench-... could not count a cell of the
 * benchmark's grid: it ran build/experiments without --bench, which knows
 * no such cell. A bench- id now runs as that grid's; the quick grid's cell
 * here (QUICK=1: a fraction of a second, where the standard run's takes
 * about a minute on one thread). Not under the sanitizers: the counting library
 * is preloaded before their runtime, which refuses that. */
START_TEST(products_counts_a_benchmark_cell) {
#if !defined(__SANITIZE_ADDRESS__)
    const char *bin = getenv("POSENC_BIN");
    char cmd[512], *err;
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory "
             "products CELL=bench-parity_check-none-s1 QUICK=1 BUILD=%s >&2",
             bin ? bin : "build");
    int code = shell_err(cmd, &err);
    ck_assert_msg(code == 0, "make products: exit %d: %s", code, err);
    ck_assert_msg(strstr(err, "sgemm_count large: ") && !strstr(err, "large: 0 calls"), "%s",
                  err);
    free(err);
#endif
}
END_TEST

/* 12o: pe_report promised "about a minute" for a report at its bound, and
 * 2048 positions took 157 s on one machine (64 s on another); compare_pe's
 * help said a minute for what took three. No fixed figure: the time is
 * measured on a piece of the work first (pe_report), or on the runs so
 * far (compare_pe), and said before the rest. */
START_TEST(time_estimates_come_from_the_work) {
    Run r = run("pe_report", "--positions 1024 --pe none,rope --csv");
    ck_assert_msg(r.status == 0, "%s", r.err);
    double secs = -1.0;
    const char *at = strstr(r.err, "2 schemes: ");
    ck_assert_msg(at && sscanf(at, "2 schemes: %lf s or less on this machine", &secs) == 1 &&
                  secs >= 0.0 && strstr(at, "the same report at 256 positions took "),
                  "%s", r.err);
    run_free(&r);
    expect_exit("pe_report", "--positions 2048 --d-model 512", 2, "more than the 1.07e+09 a "
                "report measures; give --positions 1448 or fewer");
    r = run("pe_report", "--positions 2048 --d-model 512");
    ck_assert_msg(!strstr(r.err, "minute"), "%s", r.err);
    run_free(&r);
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--schemes none,rope --seeds 1 --steps 2 --d-model 8 --heads 2 "
             "--d-ff 8 --out %s/c.csv", dir);
    r = run("compare_pe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "; 1 of 2 runs, about ") && strstr(r.err, "; 2 of 2 runs, "
                  "about 0 s left)"), "%s", r.err);
    run_free(&r);
    r = run("compare_pe", "--help");
    ck_assert_msg(!strstr(r.out, "about a minute"), "%s", r.out);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* The programs' names (example_programs), as " a b c ". */
static void program_names(char *buf, size_t cap) {
    char names[32][32];
    size_t n = example_programs(names, 32);
    snprintf(buf, cap, " ");
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%.31s ", names[i]);
}

/* The "--name"s of text that stand as options (at the start, after a blank
 * or a bracket: not quoted, not inside a word) and are not another
 * program's ("train --out", "build/train --out": the name of one of
 * programs other than self before it), each as " --name " into out. */
static void options_named(const char *text, const char *programs, const char *self, char *out,
                          size_t cap) {
    snprintf(out, cap, " ");
    for (const char *p = text; *p; p++) {
        if (p[0] != '-' || p[1] != '-' || !isalpha((unsigned char)p[2]) ||
            (p > text && !isspace((unsigned char)p[-1]) && p[-1] != '('))
            continue;
        size_t k = 2;
        while (isalnum((unsigned char)p[k]) || p[k] == '-')
            k++;
        const char *end = p, *w;
        while (end > text && isspace((unsigned char)end[-1]))
            end--;
        for (w = end; w > text && (isalnum((unsigned char)w[-1]) || w[-1] == '_');)
            w--;
        char word[64] = "", me[64], name[80];
        if (end < p && end - w > 0 && end - w < 60)
            snprintf(word, sizeof word, " %.*s ", (int)(end - w), w);
        snprintf(me, sizeof me, " %s ", self);
        bool other = word[0] && strstr(programs, word) && strcmp(word, me) != 0;
        snprintf(name, sizeof name, " %.*s ", (int)k, p);
        if (!other && !strstr(out, name) && strlen(out) + k + 2 < cap)
            strcat(out, name + 1);
        p += k - 1;
    }
}

/* 12j: evaluate suggested --pe and --max-train-len, options of train's:
 * the hints of the library are written for every program that calls it.
 * A message now names only options of the program that prints it (or
 * another program's, named with it): each program is run with inputs that
 * draw its hints, and every option its messages name is one its --help
 * gives it. */
START_TEST(hints_name_only_options_of_their_program) {
    char *dir = scratch(), args[1024], programs[512];
    program_names(programs, sizeof programs);
    const char *schemes[] = {"none", "learned", "rope"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "--task agent --d-model 8 --heads 2 --d-ff 16 --layers 1 "
                 "--steps 2 --eval-every 2 --pe %s --out %s/%s.bin", schemes[i], dir,
                 schemes[i]);
        Run r = run("train", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        run_free(&r);
    }
    write_text("/tmp/posenc_hint_data.txt", "labels: sentence\nA\tx y\nB\ty x\n");
    static const char *const cases[][2] = {
        {"evaluate", "--model @/none.bin --task agent --random-positions 20"},
        {"evaluate", "--model @/none.bin --task sort --min-len 8 --max-len 6"},
        {"evaluate", "--model @/none.bin --task agent --rope-factor 2"},
        {"evaluate", "--model @/rope.bin --task agent --rope-original-len 3"},
        {"evaluate", "--model @/rope.bin --task agent --rope-scaling yarn"},
        {"evaluate", "--model @/learned.bin --task agent --random-positions 3000"},
        {"evaluate", "--model @/none.bin --task agent --draws 3"},
        {"evaluate", "--model @/none.bin --data /tmp/posenc_hint_data.txt --split valid"},
        {"evaluate", "--model @/none.bin --task agent --batchess 3"},
        {"evaluate", "--model @/nothing.bin --task agent"},
        {"evaluate", "--model @/none.bin"},
        {"encode", "--pe rope --heads 3 'a b'"},
        {"encode", "--pe learned --table-len 2 'a b c'"},
        {"encode", "--pe alibi --alibi-slopes asymmetric --heads 1 'a b'"},
        {"encode", "--pe rope --combine concat 'a b'"},
        {"encode", "--combine concat --d-model 4 --heads 1 --pe-dim 4 'a b'"},
        {"encode", "--model @/learned.bin --d-model 8 'a b'"},
        {"encode", "--model @/learned.bin 'a b c d e f g'"},
        {"encode", "--pool cls --causal 'a b'"},
        {"encode", "--rope-factor 2 'a b'"},
        {"encode", "--max-memory 1 --d-model 4096 'a b'"},
        {"demo_order", "--pe learned --table-len 2 'a b c'"},
        {"demo_order", "--model @/learned.bin 'a b c d e f g'"},
        {"demo_order", "--pe rope --heads 3"},
        {"demo_order", "'a b' 'a c'"},
        {"demo_order", "--rope-factor 2"},
        {"pe_plot", "--kind decay --pe sinusoidal --out @/x.png"},
        {"pe_plot", "--kind attention --layer 5 --out @/x.png"},
        {"pe_plot", "--kind wavelengths --heads 3 --out @/x.png"},
        {"pe_plot", "--kind dots --position 999 --out @/x.png"},
        {"pe_plot", "--kind attention --model @/learned.bin --sentence 'a b c d e f g' "
                    "--out @/x.png"},
        {"pe_plot", "--kind attention --pe learned --table-len 2 --out @/x.png"},
        {"pe_plot", "--kind heatmap --pe none --out @/x.png"},
        {"pe_plot", "--kind curves --out @/x.png"},
        {"pe_report", "--pe rope --heads 3"},
        {"pe_report", "--pe none --shift 2"},
        {"pe_report", "--positions 2048 --d-model 1000"},
        {"pe_report", "--pe rope --rope-scaling yarn"},
        {"pe_report", "--relative 3 --pe none"},
        {"pe_report", "--wavelengths --heads 3"},
        {"pe_report", "--combine concat --d-model 4 --heads 1 --pe-dim 4"},
        {"pe_report", "--pe learned --pe-init-std 0"},
        {"probe", "--task sort --min-len 8 --max-len 6 @/none.bin"},
        {"probe", "--plot x.jpg @/none.bin"},
        {"probe", "--data /tmp/posenc_hint_data.txt --max-len 5 @/none.bin"},
        {"probe", "--task agent --examples 0 @/none.bin"},
        {"compare_pe", "--schemes none --random-positions 40 --out @/c.csv"},
        {"compare_pe", "--schemes rope --heads 3 --out @/c.csv"},
        {"compare_pe", "--schemes rope --schedule noam --warmup 0 --out @/c.csv"},
        {"compare_pe", "--schemes none,learned --pe-dim 4 --out @/c.csv"},
        {"compare_pe", "--schemes none --task sort --min-len 8 --max-len 6 --out @/c.csv"},
        {"compare_pe", "--pe rope --out @/c.csv"},
    };
    char help_opts[8192], err_opts[2048];
    const char *help_prog = "";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *prog = cases[i][0];
        if (strcmp(prog, help_prog) != 0) { /* the options its help gives it */
            Run h = run(prog, "--help");
            options_named(h.out, programs, prog, help_opts, sizeof help_opts);
            run_free(&h);
            help_prog = prog;
        }
        /* @ is the scratch folder */
        size_t len = 0;
        for (const char *a = cases[i][1]; *a && len + 80 < sizeof args; a++)
            len += (size_t)(*a == '@' ? snprintf(args + len, sizeof args - len, "%s", dir)
                                      : snprintf(args + len, sizeof args - len, "%c", *a));
        Run r = run_words(prog, args); /* a start each, no shell */
        ck_assert_msg(r.status != 0, "%s %s ran: no hint drawn", prog, args);
        options_named(r.err, programs, prog, err_opts, sizeof err_opts);
        for (char *o = strtok(err_opts, " "); o; o = strtok(NULL, " ")) {
            char name[80];
            snprintf(name, sizeof name, " %s ", o);
            ck_assert_msg(strstr(help_opts, name), "%s %s names %s, which is not %s's: %s", prog,
                          args, o, prog, r.err);
        }
        run_free(&r);
    }
    /* and where the library can, it says the better thing */
    snprintf(args, sizeof args, "--model %s/none.bin --task sort --min-len 8 --max-len 6", dir);
    expect_exit("evaluate", args, 2, "; change --min-len or --max-len");
    expect_exit("make_data", "--task sort --min-len 8 --max-len 6 --out /tmp/never", 2,
                "; change --min-len, --max-train-len or --max-len");
    snprintf(args, sizeof args, "--model %s/none.bin --task agent --batchess 3", dir);
    Run r = run("evaluate", args);
    ck_assert_msg(!strstr(r.err, "did you mean"), "%s", r.err); /* not train's --batches */
    run_free(&r);
    unlink("/tmp/posenc_hint_data.txt");
    remove_dir(dir);
}
END_TEST

TCase *tcase_guard_messages(void) {
    TCase *tc = tcase_create("messages");
    tcase_add_test(tc, cannot_open_says_why);
    tcase_add_test(tc, empty_sentence_is_called_empty);
    tcase_add_test(tc, sentence_words_follow_the_data_files_rule);
    tcase_add_test(tc, one_writer_per_output_locked_before_the_work);
    tcase_add_test(tc, out_folder_through_a_symlink_is_a_folder);
    tcase_add_test(tc, grid_hosts_file_is_checked_before_any_machine);
    tcase_add_test(tc, products_counts_a_benchmark_cell);
    tcase_add_test(tc, time_estimates_come_from_the_work);
    tcase_add_test(tc, hints_name_only_options_of_their_program);
    return tc;
}
