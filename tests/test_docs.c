/* The docs test: every command the README and docs/ show in a ```console
 * block runs, and prints what the page says it prints (the checks that
 * only read the pages, the numbers their prose quotes among them, are in
 * test_docs_read.c).
 *
 * In a block, a line "$ cmd" is a command and the lines after it, up to
 * the next command or the end of the block, are its standard output. A
 * line "..." stands for any number of lines; a command's standard error
 * must be empty (a page shows it through 2>&1). Words must match exactly,
 * numbers to the digits shown (one unit in the last printed digit, or
 * 1e-5 for noise near zero), so a page shows real output of this code on
 * any CPU. "build/" in a command becomes $POSENC_BIN/ (the sanitizer build
 * runs the same pages); "make demo" runs the demo; other make commands are
 * not run here, since this test runs inside make. Trained models' numbers
 * depend on OpenBLAS's kernels (not on the thread count), which `make
 * test` pins (the Makefile's BLAS_ENV); scripts/docs_regen.py rewrites the
 * pages' outputs after a change that moves them.
 *
 * "work" (the reader's folder, docs/index.md) becomes a folder of this
 * run's; a page that reads what others wrote there names them in a line
 * "<!-- needs: PAGE ... -->", and they run first. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "docs_pages.h"
#include "suites.h"

char *docs_read_all(FILE *f) {
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            ck_assert_ptr_nonnull(buf);
        }
    }
    buf[n] = '\0';
    return buf;
}

/* Splits text into lines in place. */
size_t docs_split_lines(char *text, char ***lines) {
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (char *p = text; *p;) {
        if (n == cap) {
            v = realloc(v, (cap *= 2) * sizeof *v);
            ck_assert_ptr_nonnull(v);
        }
        v[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    *lines = v;
    return n;
}

int docs_as_number(const char *tok, double *v, double *unit, char *tail) {
    char *end;
    *v = strtod(tok, &end);
    if (end == tok || strchr("0123456789", tok[0] == '-' ? tok[1] : tok[0]) == NULL)
        return 0;
    snprintf(tail, 16, "%s", end);
    if (strspn(end, ",;:)]%") != strlen(end))
        return 0;
    const char *dot = strchr(tok, '.');
    int decimals = 0;
    if (dot && dot < end)
        for (const char *p = dot + 1; p < end && *p >= '0' && *p <= '9'; p++)
            decimals++;
    const char *ex = strpbrk(tok, "eE");
    int exp10 = ex && ex < end ? atoi(ex + 1) : 0;
    *unit = pow(10.0, exp10 - decimals);
    return 1;
}

static int tokens_match(const char *want, const char *got) {
    double a, b, unit, unit_b;
    char ta[16], tb[16];
    if (docs_as_number(want, &a, &unit, ta) && docs_as_number(got, &b, &unit_b, tb))
        return strcmp(ta, tb) == 0 && (fabs(a - b) <= 1.01 * unit || fabs(a - b) <= 1e-5);
    return strcmp(want, got) == 0;
}

static int line_matches(const char *want, const char *got) {
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", want);
    snprintf(b, sizeof b, "%s", got);
    char *sa, *sb;
    /* commas separate too, so CSV numbers get the numeric comparison */
    char *x = strtok_r(a, " \t,", &sa), *y = strtok_r(b, " \t,", &sb);
    while (x && y) {
        if (!tokens_match(x, y))
            return 0;
        x = strtok_r(NULL, " \t,", &sa);
        y = strtok_r(NULL, " \t,", &sb);
    }
    return !x && !y;
}

/* Matches got[0..ng) against want[0..nw), where a want line "..." matches
 * any run of lines. Returns the index of the first want line that failed,
 * or -1. */
static long match_lines(char **want, size_t nw, char **got, size_t ng) {
    size_t i = 0, j = 0;
    while (i < nw) {
        if (strcmp(want[i], "...") == 0) {
            if (i + 1 == nw)
                return -1;
            while (j < ng && !line_matches(want[i + 1], got[j]))
                j++;
            if (j == ng)
                return (long)i + 1;
            i++;
            continue;
        }
        if (j >= ng || !line_matches(want[i], got[j]))
            return (long)i;
        i++;
        j++;
    }
    return j == ng ? -1 : (long)nw;
}

/* The reader's working folder (docs/index.md): "work" at the start of a
 * word of a command ("work/x.bin", "mkdir -p work") becomes this run's own
 * folder, and the folder's path in the output becomes "work" again, as a
 * reader's shell would print it. One folder per run of the tests,
 * $POSENC_DOCS_WORK (make check empties it first), else
 * $POSENC_BIN/docs-work: never a reader's own work/, nor a path that
 * another clone on the machine shares. */
static const char *work_folder(void) {
    static char path[PATH_MAX];
    if (!*path) {
        const char *w = getenv("POSENC_DOCS_WORK"), *bin = getenv("POSENC_BIN");
        char want[PATH_MAX];
        if (w && *w)
            snprintf(want, sizeof want, "%s", w);
        else
            snprintf(want, sizeof want, "%s/docs-work", bin ? bin : "build");
        ck_assert_msg(mkdir(want, 0755) == 0 || errno == EEXIST, "cannot make %s: %s", want,
                      strerror(errno));
        ck_assert_msg(realpath(want, path) != NULL, "%s: %s", want, strerror(errno));
    }
    return path;
}

/* Does "work" at p stand for the folder: a word of its own, or its
 * start followed by a path? */
static bool is_work(const char *cmd, const char *p) {
    bool word_start = p == cmd || strchr(" (|", p[-1]);
    return word_start && strncmp(p, "work", 4) == 0 && (p[4] == '\0' || strchr("/ ;&|)", p[4]));
}

static void rewrite_command(char *out, size_t cap, const char *cmd, const char *bin,
                            const char *work) {
    if (strcmp(cmd, "make demo") == 0) {
        snprintf(out, cap, "%s/demo_order", bin);
        return;
    }
    size_t n = 0;
    for (const char *p = cmd; *p && n + PATH_MAX < cap;) {
        bool word_start = p == cmd || strchr(" (|", p[-1]);
        if (word_start && strncmp(p, "build/", 6) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s/", bin);
            p += 6;
        } else if (is_work(cmd, p)) {
            n += (size_t)snprintf(out + n, cap - n, "%s", work);
            p += 4;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
}

/* text with every "from" replaced by "to" (a new string). */
static char *replace_all(const char *text, const char *from, const char *to) {
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    for (const char *p = text; (p = strstr(p, from)); p += lf)
        n++;
    char *out = malloc(strlen(text) + n * lt + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    for (const char *p = text, *q; *p; p = q + lf) {
        if (!(q = strstr(p, from))) {
            strcpy(o, p);
            return out;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
    }
    *o = '\0';
    return out;
}

/* Runs command cmd of page (at lineno) with work as the reader's folder
 * and compares its output with want[0..nw): true if they match, else
 * false, with why in msg and the output on stderr. */
static bool run_command(const char *page, size_t lineno, const char *cmd, char **want,
                        size_t nw, const char *work, char *msg, size_t cap) {
    const char *bin = getenv("POSENC_BIN");
    char real[16384], wrapped[16384 + 2 * PATH_MAX], err_path[PATH_MAX + 64];
    rewrite_command(real, sizeof real, cmd, bin ? bin : "build", work);
    /* stderr kept apart: a reader sees it, so a line there that the page
     * does not show (in the block, through 2>&1) is a difference too */
    snprintf(err_path, sizeof err_path, "%s/.stderr-%ld", work, (long)getpid());
    snprintf(wrapped, sizeof wrapped, "( %s\n) 2>'%s'", real, err_path);
    FILE *p = popen(wrapped, "r");
    if (!p) {
        snprintf(msg, cap, "%s:%zu: cannot run '%s': %s", page, lineno, cmd, strerror(errno));
        return false;
    }
    char *raw = docs_read_all(p);
    int st = pclose(p);
    FILE *ef = fopen(err_path, "r");
    char *err = ef ? docs_read_all(ef) : NULL;
    if (ef)
        fclose(ef);
    remove(err_path);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || (err && *err)) {
        if (err && *err)
            fprintf(stderr, "%s:%zu: stderr of '%s':\n%s", page, lineno, cmd, err);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            snprintf(msg, cap, "%s:%zu: '%s' exited with %d", page, lineno, cmd,
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        else
            snprintf(msg, cap, "%s:%zu: '%s' printed on stderr, which the page does not show "
                     "(above): show it in the block through 2>&1, or drop progress with --quiet",
                     page, lineno, cmd);
        free(raw);
        free(err);
        return false;
    }
    free(err);
    char *out = replace_all(raw, work, "work"), **got;
    free(raw);
    size_t ng = docs_split_lines(out, &got);
    if (ng && got[ng - 1][0] == '\0')
        ng--; /* the text ends with a newline */
    long bad = match_lines(want, nw, got, ng);
    if (bad >= 0) {
        fprintf(stderr, "%s:%zu: output of '%s' differs from the page:\n", page, lineno, cmd);
        for (size_t j = 0; j < ng; j++)
            fprintf(stderr, "  got | %s\n", got[j]);
        snprintf(msg, cap, "%s:%zu: '%s': page line %ld '%s' does not match its output", page,
                 lineno, cmd, bad + 1, bad < (long)nw ? want[bad] : "(end: more output)");
    }
    free(got);
    free(out);
    return bad < 0;
}

/* Runs every command of page's ```console blocks in order, in work, up to
 * the first that fails (false, why in msg); counts them in *commands. */
static bool run_page(const char *page, const char *work, size_t *commands, char *msg,
                     size_t cap) {
    FILE *f = fopen(page, "r");
    if (!f) {
        snprintf(msg, cap, "cannot open %s (run the tests from the repository root)", page);
        return false;
    }
    char *text = docs_read_all(f);
    fclose(f);
    char **lines;
    size_t n = docs_split_lines(text, &lines);
    bool in_console = false, ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (!in_console) {
            in_console = strcmp(lines[i], "```console") == 0;
            continue;
        }
        if (strncmp(lines[i], "```", 3) == 0) {
            in_console = false;
            continue;
        }
        if (strncmp(lines[i], "$ ", 2) != 0)
            continue;
        size_t start = i + 1, end = start;
        while (end < n && strncmp(lines[end], "$ ", 2) != 0 && strncmp(lines[end], "```", 3) != 0)
            end++;
        const char *cmd = lines[i] + 2;
        if (strncmp(cmd, "make", 4) != 0 || strcmp(cmd, "make demo") == 0) {
            ok = run_command(page, i + 1, cmd, lines + start, end - start, work, msg, cap) &&
                 docs_check_pictures(page, i + 1, cmd, work, msg, cap);
            ++*commands;
        }
        i = end - 1;
    }
    free(lines);
    free(text);
    return ok;
}

/* The environment of make check's runner, read before the commands run:
 * they get a learner's shell, not the runner's (a page that runs the tests
 * must neither inherit make check's choice of tests nor truncate its log;
 * this is the forked test, so the runner keeps them). */
static char claims_folder[PATH_MAX];
static void leave_the_runner(void) {
    const char *c = getenv("POSENC_CLAIMS");
    snprintf(claims_folder, sizeof claims_folder, "%s", c ? c : "");
    static const char *const RUNNER_ONLY[] = {"POSENC_TEST_LOG", "CK_INCLUDE_TAGS",
                                              "CK_EXCLUDE_TAGS", "CK_RUN_SUITE", "CK_RUN_CASE",
                                              "POSENC_SHARD", "POSENC_DOCS_PAGES",
                                              "POSENC_CLAIMS", "POSENC_DOCS_WORK"};
    for (size_t k = 0; k < sizeof RUNNER_ONLY / sizeof *RUNNER_ONLY; k++)
        unsetenv(RUNNER_ONLY[k]);
}

/* Whether this runner takes page i: POSENC_DOCS_PAGES (the pages by path,
 * separated by spaces: `make sanitize` runs a sample), then, when several
 * runners share the pages (`make check`), the first to claim it in the
 * folder POSENC_CLAIMS (a file per page, made exclusively: a runner that
 * finishes early takes the next page, so the long pages spread
 * themselves), or else page i when i % N == K of POSENC_SHARD "K/N". */
static bool page_wanted(size_t i) {
    const char *only = getenv("POSENC_DOCS_PAGES");
    if (only && *only) {
        bool listed = false;
        size_t len = strlen(docs_pages[i]);
        for (const char *p = only; *p && !listed; p += strcspn(p, " "), p += strspn(p, " "))
            listed = strcspn(p, " ") == len && strncmp(p, docs_pages[i], len) == 0;
        if (!listed)
            return false;
    }
    const char *claims = getenv("POSENC_CLAIMS");
    if (claims && *claims) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%zu", claims, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            return false;
        dprintf(fd, "%ld\n", (long)getpid()); /* for a runner that waits on it */
        close(fd);
        return true;
    }
    size_t k, n;
    return !shard_of(&k, &n) || i % n == k;
}

/* The weight of a page's commands, for the order runners take them in:
 * a training counts as ten commands. */
static size_t page_weight(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    size_t w = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "$ ", 2) == 0)
            w += strstr(line, "train") || strstr(line, "compare_pe") || strstr(line, "probe")
                     ? 10 : 1;
    fclose(f);
    return w;
}

/* Loop index i runs the i-th heaviest page: runners that share the pages
 * start on the long ones, and the short ones fill in at the end. */
static size_t page_of(size_t i) {
    static size_t order[MAX_PAGES], weight[MAX_PAGES];
    static bool made;
    if (!made) {
        for (size_t k = 0; k < docs_n_pages; k++)
            order[k] = k, weight[k] = page_weight(docs_pages[k]);
        for (size_t a = 1; a < docs_n_pages; a++) /* stable: ties keep the name order */
            for (size_t b = a; b > 0 && weight[order[b]] > weight[order[b - 1]]; b--) {
                size_t t = order[b];
                order[b] = order[b - 1], order[b - 1] = t;
            }
        made = true;
    }
    return order[i];
}


/* The mark a page leaves in the working folder when all its commands ran,
 * for the pages that need its files (<!-- needs: PAGE ... -->). */
static void done_mark(char *out, size_t cap, const char *work, const char *page) {
    const char *base = strrchr(page, '/');
    snprintf(out, cap, "%s/.docs-done-%s", work, base ? base + 1 : page);
}

static bool is_done(const char *work, const char *page) {
    char mark[2 * PATH_MAX];
    done_mark(mark, sizeof mark, work, page);
    return access(mark, F_OK) == 0;
}

static void mark_done(const char *work, const char *page) {
    char mark[2 * PATH_MAX];
    done_mark(mark, sizeof mark, work, page);
    FILE *f = fopen(mark, "w");
    ck_assert_msg(f != NULL && fclose(f) == 0, "cannot write %s", mark);
}

/* Claims page i in the claims folder for this process (its pid in the
 * file, for the runners that wait on it): false if another has it. */
static bool claim(size_t i) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%zu", claims_folder, i);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return false;
    dprintf(fd, "%ld\n", (long)getpid());
    close(fd);
    return true;
}

/* Waits until page q, which another runner claimed, is done (true) or
 * that runner's test has ended without finishing it (false): a condition,
 * looked at five times a second, never a time. */
static bool wait_for(size_t q, const char *work) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%zu", claims_folder, q);
    for (;;) {
        if (is_done(work, docs_pages[q]))
            return true;
        long pid = 0;
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%ld", &pid) != 1)
                pid = 0; /* claimed, its pid not yet written */
            fclose(f);
        }
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return is_done(work, docs_pages[q]);
        nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL);
    }
}

/* Runs first the pages that page i needs (<!-- needs: PAGE ... -->, paths
 * as in a link from it), and theirs: one already done in work is skipped,
 * one another runner claimed is waited for, any other is claimed and run
 * here. False, with why in msg, if one fails. */
static bool run_needs(size_t i, const char *work, char *msg, size_t cap) {
    FILE *f = fopen(docs_pages[i], "r");
    if (!f) {
        snprintf(msg, cap, "cannot open %s", docs_pages[i]);
        return false;
    }
    char line[4096], needs[4096] = "";
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "<!-- needs: ", 12) == 0)
            snprintf(needs, sizeof needs, "%s", line + 12);
    fclose(f);
    const char *slash = strrchr(docs_pages[i], '/');
    int dir = slash ? (int)(slash - docs_pages[i] + 1) : 0;
    char *save;
    for (char *w = strtok_r(needs, " \n", &save); w && strcmp(w, "-->") != 0;
         w = strtok_r(NULL, " \n", &save)) {
        char path[512];
        snprintf(path, sizeof path, "%.*s%s", dir, docs_pages[i], w);
        size_t q = 0;
        while (q < docs_n_pages && strcmp(docs_pages[q], path) != 0)
            q++;
        if (q == docs_n_pages) {
            snprintf(msg, cap, "%s needs %s, which is no page", docs_pages[i], path);
            return false;
        }
        if (is_done(work, path))
            continue;
        if (*claims_folder && !claim(q)) {
            if (wait_for(q, work))
                continue;
            snprintf(msg, cap, "%s needs %s, which failed in another runner (its log says why)",
                     docs_pages[i], path);
            return false;
        }
        size_t commands = 0;
        if (!run_needs(q, work, msg, cap) || !run_page(path, work, &commands, msg, cap))
            return false;
        mark_done(work, path);
    }
    return true;
}

START_TEST(docs_commands_print_what_the_pages_show) {
    docs_find_pages();
    if ((size_t)_i >= docs_n_pages || !page_wanted(page_of((size_t)_i)))
        return;
    size_t i = page_of((size_t)_i);
    const char *page = docs_pages[i], *work = work_folder();
    leave_the_runner();
    char msg[8192] = "";
    size_t commands = 0;
    ck_assert_msg(run_needs(i, work, msg, sizeof msg), "%s", msg);
    ck_assert_msg(run_page(page, work, &commands, msg, sizeof msg), "%s", msg);
    mark_done(work, page);
    if (strcmp(page, "README.md") == 0)
        ck_assert_msg(commands > 0, "README.md shows no console commands");
}
END_TEST

/* Two readers at once (docs/index.md, "Your working folder"): two copies
 * of a page's commands, side by side, each in a folder of its own, both
 * print what the page shows. A path the two shared would let one hold
 * (train and the programs lock what they write) or overwrite the other's
 * file. The page draws 19 pictures, each locked while it is written. */
#define TWO_READERS_PAGE "docs/pictures.md"
START_TEST(two_readers_run_a_page_at_once) {
    /* once, whatever the runners: two runners running it at once would
     * share its readers' folders, and one would find the other's lock */
    const char *claims = getenv("POSENC_CLAIMS");
    if (claims && *claims) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/two-readers", claims);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            return;
        close(fd);
    } else {
        size_t k, n;
        if (shard_of(&k, &n) && k != 0)
            return;
    }
    const char *work = work_folder();
    leave_the_runner();
    pid_t kid[2];
    for (int k = 0; k < 2; k++) {
        char folder[PATH_MAX + 32];
        snprintf(folder, sizeof folder, "%s/reader-%d", work, k + 1);
        ck_assert_msg(mkdir(folder, 0755) == 0 || errno == EEXIST, "cannot make %s", folder);
        kid[k] = fork();
        ck_assert_int_ge(kid[k], 0);
        if (kid[k] == 0) {
            char msg[8192] = "";
            size_t commands = 0;
            bool ok = run_page(TWO_READERS_PAGE, folder, &commands, msg, sizeof msg);
            if (!ok)
                fprintf(stderr, "reader %d: %s\n", k + 1, msg);
            _exit(ok && commands > 0 ? 0 : 1);
        }
    }
    for (int k = 0; k < 2; k++) {
        int st;
        ck_assert_int_eq(waitpid(kid[k], &st, 0), kid[k]);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "reader %d of " TWO_READERS_PAGE " failed (above)", k + 1);
    }
}
END_TEST

Suite *suite_docs(void) {
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("pages");
    /* one test per page; indices past the last page pass at once */
    tcase_add_loop_test(tc, docs_commands_print_what_the_pages_show, 0, MAX_PAGES);
    tcase_add_test(tc, two_readers_run_a_page_at_once);
    /* a page of trainings (5, 7, the answers) takes minutes on a busy machine */
    tcase_set_timeout(tc, 1500);
    /* about 2.5 minutes of both cores: make check, not make test */
    tcase_set_tags(tc, "slow");
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_docs_read());
    suite_add_tcase(s, tcase_docs_pictures());
    return s;
}
