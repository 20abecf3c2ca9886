/* A grid run on this machine (build/experiments): its cells as processes,
 * several at once, records from other machines stored, and the page
 * published from the cells' files. The program parses and checks its
 * options and owns the signals; this does the work and returns what
 * happened. */
#ifndef POSENC_RUNNER_H
#define POSENC_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/err.h"
#include "cell.h"

typedef struct {
    ExpSettings set;
    ExpCell *cells;        /* the grid's cells that run (exp_cells) */
    size_t n;
    const char *cells_dir; /* their files */
    const char *out;       /* the page's folder */
    const char *page;      /* "results" or "benchmark": out/PAGE.md */
    const char *exe;       /* the program a cell runs in: EXE --cell ID ARGS */
    const char *args[8];   /* the options that name the grid ("--quick", "--seeds", "3"),
                            * NULL-terminated */
    const char *source;    /* the sources this build was made from */
    bool any_source;       /* a cell another build made counts as done (the benchmark's
                            * committed cells; experiments --retrain runs them again) */
    size_t jobs;           /* cells at once */
    bool from_cells;       /* the page from the cells alone: none runs (--from-cells) */
    const char *sparser_dir; /* the benchmark's sparser companion (exp_grid_sparser), or NULL */
} ExpRunner;

/* The cells not done yet into todo (in the grid's order); *stale counts
 * those whose file is there but made by other sources or settings, or
 * damaged (each damaged one named on stderr, with "it runs again" unless
 * r->from_cells). */
size_t exp_find_todo(const ExpRunner *r, size_t *todo, size_t *stale);

/* Runs the cells todo[0..n_todo), jobs at once, each a process of
 * r->exe, with a line of progress per cell. When *stop becomes a signal's
 * number, the cells running get that signal and are waited for; the
 * caller then ends as the signal would have (what is done stays done).
 * 0 when every cell is done, 1 when one failed (named; no new cell
 * starts, the ones done are kept), ERR_RUNTIME with e when none could. */
int exp_run_cells(const ExpRunner *r, const size_t *todo, size_t n_todo, size_t skipped,
                  volatile sig_atomic_t *stop, Err *e);

/* Reads cell records (what EXE --cell ID --cells - prints) from in and
 * stores each as soon as it is whole. Returns the exit status: 0, 2 when
 * a record was refused or the folder cannot be written, 1 when one could
 * not be written; each named on stderr. */
int exp_store_records(const ExpRunner *r, FILE *in);

/* The page, its CSVs and figures from every cell's file, published as one
 * set into r->out. ERR_INPUT when cells of other kernels are mixed (they
 * are named, to be run again), ERR_RUNTIME when a cell is not done. */
int exp_publish_page(const ExpRunner *r, Err *e);

/* The cells of set's grid at another range of random positions, read from
 * dir (its grid.settings names that grid), as results for a page: the
 * seeds 1..k whole in the folder for every task and column (k at most
 * set's). ERR_INPUT naming what is wrong; res to exp_results_free. */
struct ExpResults;
int exp_sparser_gather(const ExpSettings *set, const char *dir, struct ExpResults *res,
                       Err *e);

#endif
