/* Where a grid's cells and page go, and the command that makes them: the
 * places of every grid but the two standard ones are its own, named after
 * what sets it apart (its settings, grid.h; its protocol's changes,
 * protocol.h). */
#ifndef POSENC_PLACES_H
#define POSENC_PLACES_H

#include <stdbool.h>
#include <stddef.h>

#include "grid.h"

/* A grid's own places and its command, one source for the program and
 * its page: the default cells folder (build/cells-bench-quick), the
 * default folder of its page (docs for the full grids; build/benchmark-
 * all-quick for the benchmark's quick grid with every scheme), the make
 * command that makes the page ("make benchmark QUICK=1 ALL=1": the page
 * names it, and a run refuses to write over a page another names) and
 * what that command runs ("build/experiments --bench --quick
 * --all-schemes --out build/benchmark-all-quick"). */
/* A page's identity is its whole grid: the benchmark or the results, the
 * quick settings, every scheme (ALL), the seeds when they are not the
 * default, and the protocol's changes (SET, exp_bench_set_text). Each
 * grid but the two standard ones has folders of its own under build/
 * ("build/benchmark-quick-set-seeds-4"), so no run writes over another
 * grid's page, and the page names the command that made it ("make
 * benchmark SEEDS=4 SET='steps=100'"). */
#define EXP_GRID_TEXT 1024
const char *exp_grid_cells(const ExpSettings *s);
/* The folder of a grid's sparser companion, the same grid with its random
 * positions from a wider range, whose cells the page reads for its section
 * "sparser positions": the standard benchmark's is the run at the paper's
 * unscaled range, 0..2047 (docs/benchmark/range2048); NULL for a grid that
 * has none. */
const char *exp_grid_sparser(const ExpSettings *s);
void exp_grid_out(char *buf, size_t cap, const ExpSettings *s);
/* The committed cells folders are the standard benchmark's data (its
 * exp_grid_cells and exp_grid_sparser): dir's name for one of them (dir
 * ends with it, as it is or resolved, from any working directory or
 * checkout), or NULL. Such a folder holds a whole grid: only a grid of
 * the standard columns and seeds may write into it (exp_grid_may_commit),
 * its settings checked against the folder's as any folder's are (the
 * sparser companion's are --set range=2048's). */
const char *exp_grid_committed(const char *dir);
bool exp_grid_may_commit(const ExpSettings *s);
void exp_grid_make(char *buf, size_t cap, const ExpSettings *s);
void exp_grid_run(char *buf, size_t cap, const ExpSettings *s);
/* Whether s is the grid with s->bench's default seeds. */
bool exp_grid_default_seeds(const ExpSettings *s);

#endif
