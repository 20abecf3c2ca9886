/* A grid run on this machine (runner.h): the cells as child processes of
 * the program, several at once; the records of other machines; the page
 * from the cells' files. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/cpus.h"
#include "../core/fileio.h"
#include "../run/outputs.h"
#include "cellfile.h"
#include "page/page.h"

/* The sources a cell must name to count as done: this build's, or any. */
static const char *wanted(const ExpRunner *r) { return r->any_source ? NULL : r->source; }

size_t exp_find_todo(const ExpRunner *r, size_t *todo, size_t *stale) {
    size_t n_todo = 0, n_old = 0, first_old = 0;
    *stale = 0;
    for (size_t i = 0; i < r->n; i++) {
        Err e;
        ExpCellFile f;
        ExpCellState st = exp_cell_load(r->cells_dir, &r->set, &r->cells[i], wanted(r), &f, &e);
        if (st == CELL_DONE) {
            exp_cell_file_free(&f);
            continue;
        }
        if (st == CELL_DAMAGED)
            fprintf(stderr, "experiments: %s/%s.cell is damaged: %s%s\n", r->cells_dir,
                    r->cells[i].id, e.msg, r->from_cells ? "" : "; it runs again");
        if (st == CELL_OLD_FORMAT && n_old++ == 0)
            first_old = i;
        todo[n_todo++] = i, *stale += st != CELL_MISSING;
    }
    /* named, as damage is: a format change reruns every cell, so one line */
    if (n_old)
        fprintf(stderr, "experiments: %zu cell file%s of %s %s of an older format (made by "
                "older sources; the first, %s/%s.cell)%s\n", n_old, n_old == 1 ? "" : "s",
                r->cells_dir, n_old == 1 ? "is a record" : "are records", r->cells_dir,
                r->cells[first_old].id, r->from_cells ? "" : n_old == 1 ? ": it runs again"
                : ": they run again");
    return n_todo;
}

/* ---- the cells, several at once ---- */

typedef struct {
    pid_t pid;
    size_t cell;
} Child;

/* The threads of one cell: the CPUs shared among the cells at once (a cell
 * would follow the load by itself, but a short one ends before its first
 * look); the user's OMP_NUM_THREADS stands. Numbers do not depend on it. */
static void cell_threads(size_t jobs) {
    if (getenv("OMP_NUM_THREADS"))
        return;
    size_t cpus = cpus_usable(), per = cpus / jobs;
    /* one cell at a time: the library's own team, which follows the load
     * (a count set here would be taken as the user's, and kept however
     * busy the machine: waiting threads spin) */
    if (per >= cpus)
        return;
    char n[32];
    snprintf(n, sizeof n, "%zu", per ? per : 1);
    setenv("OMP_NUM_THREADS", n, 1);
}

/* EXE --cell ID --cells DIR ARGS..., in a process of its own. A signal
 * ignored here (nohup) stays ignored through exec. */
static pid_t spawn(const ExpRunner *r, const ExpCell *cell) {
    const char *argv[16];
    size_t k = 0;
    argv[k++] = r->exe;
    argv[k++] = "--cell";
    argv[k++] = cell->id;
    argv[k++] = "--cells";
    argv[k++] = r->cells_dir;
    size_t n_args = sizeof r->args / sizeof *r->args;
    for (size_t i = 0; i < n_args && r->args[i] && k < sizeof argv / sizeof *argv - 1; i++)
        argv[k++] = r->args[i];
    argv[k] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cell_threads(r->jobs);
        execv("/proc/self/exe", (char *const *)argv);
        fprintf(stderr, "experiments: cannot start a cell: %s\n", strerror(errno));
        _exit(127);
    }
    return pid;
}

/* The running cells get the signal that stops the run, and are waited
 * for, so that none goes on alone. */
static void stop_cells(const Child *kids, size_t running, int sig) {
    for (size_t k = 0; k < running; k++)
        kill(kids[k].pid, sig);
    for (size_t k = 0; k < running; k++)
        waitpid(kids[k].pid, NULL, 0);
}

/* "4m10s" */
static void duration(char *buf, size_t cap, double s) {
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, cap, "%lds", t);
    else
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
}

/* A cell that ended: its file read back as done (a progress line), or the
 * reason it failed (a line on stderr). True when done. */
static bool cell_ended(const ExpRunner *r, const ExpCell *c, int status, double *seconds,
                       double *value) {
    Err e;
    ExpCellFile f;
    bool exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (exited && exp_cell_load(r->cells_dir, &r->set, c, wanted(r), &f, &e) == CELL_DONE) {
        *seconds = f.seconds, *value = f.res.series[0].value;
        exp_cell_file_free(&f);
        return true;
    }
    if (exited) /* it ran, but its file is not what it should be */
        fprintf(stderr, "experiments: cell %s failed: %s/%s.cell: %s; no new cell starts\n",
                c->id, r->cells_dir, c->id, e.msg);
    else
        fprintf(stderr, "experiments: cell %s failed (%s %d); no new cell starts\n", c->id,
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return false;
}

int exp_run_cells(const ExpRunner *r, const size_t *todo, size_t n_todo, size_t skipped,
                  volatile sig_atomic_t *stop, Err *e) {
    Child *kids = xcalloc(r->jobs, sizeof *kids, "the running cells", e);
    if (!kids)
        return ERR_RUNTIME;
    double left_cost = 0.0, done_cost = 0.0, start = clock_seconds();
    for (size_t i = 0; i < n_todo; i++)
        left_cost += r->cells[todo[i]].cost;
    size_t next = 0, running = 0, done = skipped, failed = 0;
    while ((next < n_todo || running) && !*stop) {
        while (running < r->jobs && next < n_todo && !failed) {
            const ExpCell *c = &r->cells[todo[next]];
            pid_t pid = spawn(r, c);
            if (pid < 0) {
                fprintf(stderr, "experiments: cannot start cell %s: %s\n", c->id,
                        strerror(errno));
                failed++;
                break;
            }
            kids[running++] = (Child){pid, todo[next++]};
        }
        if (!running)
            break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t k = 0;
        while (k < running && kids[k].pid != pid)
            k++;
        if (k == running)
            continue;
        const ExpCell *c = &r->cells[kids[k].cell];
        kids[k] = kids[--running];
        double seconds, value;
        if (!cell_ended(r, c, status, &seconds, &value)) {
            failed++;
            continue;
        }
        done++;
        done_cost += c->cost, left_cost -= c->cost;
        char left[32];
        duration(left, sizeof left, (clock_seconds() - start) / done_cost * left_cost);
        fprintf(stderr, "experiments: [%3zu/%zu] %-40s %.4f  (%.1f s; about %s left)\n", done,
                r->n, c->id, value, seconds, left);
    }
    if (*stop)
        stop_cells(kids, running, *stop);
    free(kids);
    if (failed && !*stop) {
        fprintf(stderr, "experiments: %zu cell%s failed; the %zu done are kept: run the same "
                "command again to retry the rest\n", failed, failed == 1 ? "" : "s", done);
        return 1;
    }
    return 0;
}

/* ---- records from other machines ---- */

/* Each record is stored as soon as its last line arrives: a run stopped
 * midway keeps every record that came whole. */
int exp_store_records(const ExpRunner *r, FILE *in) {
    if (access(r->cells_dir, W_OK) != 0) {
        fprintf(stderr, "experiments: --store: cannot write into %s: %s; make it writable, or "
                "give another --cells folder (no record was read)\n", r->cells_dir,
                strerror(errno));
        return 2;
    }
    Err e;
    ExpRecordReader rd = {0};
    size_t stored = 0, refused = 0, failed = 0, cap = 0;
    char *line = NULL;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        int k = exp_record_line(&rd, line, (size_t)len, &e);
        if (k == EXP_RECORD_BAD) {
            fprintf(stderr, "experiments: --store: %s\n", e.msg);
            refused++;
        } else if (k == EXP_RECORD_DONE) {
            char id[96];
            int rc = exp_cell_store(r->cells_dir, &r->set, r->cells, r->n, wanted(r),
                                    (const char *)rd.text.p, rd.text.n, id, sizeof id, &e);
            if (rc == 0)
                fprintf(stderr, "experiments: stored %s\n", id), stored++;
            else if (rc == ERR_INPUT)
                fprintf(stderr, "experiments: --store: the record of %s refused: %s\n", id,
                        e.msg), refused++;
            else /* the disk, not the record */
                fprintf(stderr, "experiments: --store: %s\n", e.msg), failed++;
        }
    }
    if (ferror(in)) {
        fprintf(stderr, "experiments: --store: reading the standard input failed: %s\n",
                strerror(errno));
        failed++;
    }
    if (exp_record_end(&rd, &e)) {
        fprintf(stderr, "experiments: --store: %s\n", e.msg);
        refused++;
    }
    free(line);
    exp_record_reader_free(&rd);
    fprintf(stderr, "experiments: stored %zu cell records in %s", stored, r->cells_dir);
    if (refused + failed)
        fprintf(stderr, "; %zu refused or damaged, %zu not written (above): their cells are "
                "still missing\n", refused, failed);
    else
        fprintf(stderr, "\n");
    return failed ? 1 : refused ? 2 : 0;
}

/* ---- the page, from the cells ---- */

/* OpenBLAS's kernels round differently: one page, one set of them. Those
 * of fewer cells than the most common set are to be run again: named on
 * stderr, ERR_INPUT. */
static int check_kernels(const ExpRunner *r, const ExpCellFile *f, Err *e) {
    size_t most = 0, n_most = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t n = 0;
        for (size_t j = 0; j < r->n; j++)
            n += strcmp(f[i].kernels, f[j].kernels) == 0;
        if (n > n_most)
            most = i, n_most = n;
    }
    if (n_most == r->n)
        return 0;
    fprintf(stderr, "experiments: the cells to delete and run again:\n  rm");
    for (size_t i = 0, shown = 0; i < r->n; i++)
        if (strcmp(f[i].kernels, f[most].kernels) != 0 && shown++ < 8)
            fprintf(stderr, " %s/%s.cell", r->cells_dir, r->cells[i].id);
    fprintf(stderr, "%s\n", r->n - n_most > 8 ? " ..." : "");
    return err_set(e, ERR_INPUT, "%zu cells ran on other OpenBLAS kernels than the %zu of %s; "
                   "one page takes one set: delete them (above) and run again with "
                   "OPENBLAS_CORETYPE=%s on every machine (the Makefile sets it where the CPU "
                   "has AVX2)", r->n - n_most, n_most, f[most].kernels, f[most].kernels);
}

/* The results of every cell: each series of a cell is a run of the page's
 * (a scaling cell's main series is the scheme as trained, "none"), in the
 * order of the page's list, where a cell another holds reads its holder's
 * file. */
static int gather(const ExpRunner *r, ExpResults *res, ExpCellFile *f, Err *e) {
    for (size_t i = 0; i < r->n; i++) {
        Err why;
        if (exp_cell_load(r->cells_dir, &r->set, &r->cells[i], wanted(r), &f[i], &why) !=
            CELL_DONE)
            return err_set(e, ERR_RUNTIME, "cell %s is not done (%s/%s.cell: %s); run the grid "
                           "to finish it", r->cells[i].id, r->cells_dir, r->cells[i].id,
                           why.msg);
    }
    int rc = check_kernels(r, f, e);
    if (rc || (rc = exp_results_init(res, &r->set, e)))
        return rc;
    ExpCell *page;
    size_t n_page;
    if ((rc = exp_page_cells(&r->set, &page, &n_page, e))) {
        exp_results_free(res);
        return rc;
    }
    for (size_t i = 0; i < n_page; i++) {
        const ExpCell *c = &page[i];
        const ExpCell *from = exp_cell_find(r->cells, r->n, c->held_by[0] ? c->held_by : c->id);
        exp_results_add_cell(res, c, &f[from - r->cells].res);
    }
    free(page);
    return 0;
}

/* ---- the sparser companion ---- */

/* Key without its " random_range=N" (into rest), and N; false when it
 * names none. */
static bool split_range(const char *key, char *rest, size_t cap, size_t *range) {
    const char *at = strstr(key, " random_range=");
    if (!at)
        return false;
    char *end;
    unsigned long long v = strtoull(at + 14, &end, 10);
    snprintf(rest, cap, "%.*s%s", (int)(at - key), key, end);
    *range = (size_t)v;
    return end != at + 14;
}

/* The most seeds, 1..k, whose cells are all done in the folder, for
 * every task and column of set (at most set->seeds). */
static size_t whole_seeds(const ExpSettings *set, const char *dir, Err *e) {
    ExpCell *cells;
    size_t n, k = set->seeds;
    if (exp_cells(set, &cells, &n, e))
        return 0;
    for (size_t i = 0; i < n; i++) {
        ExpCellFile f;
        Err why;
        if (cells[i].seed < k &&
            exp_cell_load(dir, set, &cells[i], NULL, &f, &why) == CELL_DONE)
            exp_cell_file_free(&f);
        else if (cells[i].seed < k)
            k = cells[i].seed;
    }
    free(cells);
    return k;
}

int exp_sparser_gather(const ExpSettings *set, const char *dir, ExpResults *res, Err *e) {
    char path[4096], *text = NULL, ours[512], theirs[512], rest_ours[512], rest_theirs[512];
    size_t n = 0, range = 0, our_range = 0;
    snprintf(path, sizeof path, "%s/grid.settings", dir);
    Err why;
    if (read_regular(path, 4096, &text, &n, &why))
        return err_set(e, ERR_INPUT, "the sparser grid's %s cannot be read (%s)", path, why.msg);
    n = text_lf(text, n);
    static const char MAGIC[] = "posenc grid 1\nsettings ";
    bool formed = n > sizeof MAGIC && memcmp(text, MAGIC, sizeof MAGIC - 1) == 0 &&
                  text[n - 1] == '\n' && n - sizeof MAGIC < sizeof theirs;
    if (formed)
        snprintf(theirs, sizeof theirs, "%.*s", (int)(n - sizeof MAGIC), text + sizeof MAGIC - 1);
    free(text);
    exp_settings_key(ours, sizeof ours, set);
    if (!formed || !split_range(theirs, rest_theirs, sizeof rest_theirs, &range) ||
        !split_range(ours, rest_ours, sizeof rest_ours, &our_range) ||
        strcmp(rest_ours, rest_theirs) != 0 || range == our_range)
        return err_set(e, ERR_INPUT, "%s is not this grid at another range of random "
                       "positions (%s)", dir, formed ? theirs : "no settings line");
    ExpRunner r = {.set = *set, .cells_dir = dir, .any_source = true};
    r.set.random_range = range;
    r.set.seeds = whole_seeds(&r.set, dir, e);
    if (r.set.bench_extra_seeds > r.set.seeds)
        r.set.bench_extra_seeds = r.set.seeds;
    if (r.set.seeds == 0)
        return err_set(e, ERR_INPUT, "%s holds no seed whose cells are all there (the grid %s "
                       "at range %zu)", dir, set->quick ? "quick" : "standard", range);
    int rc = exp_cells(&r.set, &r.cells, &r.n, e);
    ExpCellFile *f = rc ? NULL : xcalloc(r.n, sizeof *f, "the sparser grid's cells", e);
    if (!rc && !f)
        rc = ERR_RUNTIME;
    if (!rc)
        rc = gather(&r, res, f, e);
    for (size_t i = 0; f && i < r.n; i++)
        exp_cell_file_free(&f[i]);
    free(f);
    free(r.cells);
    return rc;
}

/* The staging folder's subfolders, as the set stands in out. */
static int stage_folders(const char *staging, const char *page, Err *e) {
    char path[4096 + 64];
    const char *const sub[] = {"%s/%s", "%s/img", "%s/img/%s"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, sub[i], staging, page);
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return err_set(e, ERR_RUNTIME, "cannot create the folder %s: %s", path,
                           strerror(errno));
    }
    return 0;
}

/* A page whose writing failed (a full disk): what was staged is removed,
 * so that it holds no space, and the message says what failed and what
 * is left (e holds the writer's error, its file and errno's words). */
static void dropped(const ExpRunner *r, const char *staging, Err *e) {
    Err why;
    char was[sizeof e->msg];
    memcpy(was, e->msg, sizeof was);
    if (publish_drop(r->out, staging, &why))
        err_set(e, e->code, "%s/%s.md was not published: %s; and %s", r->out, r->page, was,
                why.msg);
    else
        err_set(e, e->code, "%s/%s.md was not published: %s; what was written of it is "
                "removed (%s), and every file in %s is as it was", r->out, r->page, was,
                staging, r->out);
}

int exp_publish_page(const ExpRunner *r, Err *e) {
    ExpResults res, sparser = {0};
    ExpCellFile *f = xcalloc(r->n, sizeof *f, "the cells' results", e);
    if (!f)
        return ERR_RUNTIME;
    int rc = gather(r, &res, f, e);
    for (size_t i = 0; i < r->n; i++)
        exp_cell_file_free(&f[i]);
    free(f);
    if (!rc && r->sparser_dir && (rc = exp_sparser_gather(&r->set, r->sparser_dir, &sparser, e)))
        exp_results_free(&res);
    if (rc)
        return rc;
    if (r->sparser_dir)
        res.sparser = &sparser, res.sparser_dir = r->sparser_dir;
    char staging[4096];
    res.out = r->out;
    if (!(rc = publish_stage(r->out, r->page, staging, sizeof staging, e))) {
        if (!(rc = stage_folders(staging, r->page, e)) &&
            !(rc = r->set.bench ? exp_bench_write(&res, staging, e)
                                : exp_write(&res, staging, e)))
            rc = publish_commit(r->out, staging, e);
        else
            dropped(r, staging, e);
    }
    /* a grid of the paper's columns draws no figure of the others: a
     * fuller grid's, left in out, would stand beside a page without it */
    if (!rc && r->set.bench && r->set.bench_columns <= exp_bench_paper(&r->set)) {
        char old[4096 + 64];
        snprintf(old, sizeof old, "%s/img/benchmark/others.png", r->out);
        if (remove(old) != 0 && errno != ENOENT)
            rc = err_set(e, ERR_RUNTIME, "cannot remove %s: %s; remove it", old,
                         strerror(errno));
    }
    exp_results_free(&res);
    exp_results_free(&sparser);
    return rc;
}
