/* docs/results.md from the experiments' runs: the tables with their
 * spread, the figures, and a closing sentence per table that the numbers
 * decide (which schemes are at chance, which is best past the training
 * lengths, whether a cited paper's finding holds here). This file writes
 * the CSV files and the figures, then the page's head and its sections in
 * order (sections.h says which file writes which). */
#include <stdio.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "page.h"
#include "sections.h"
#include "stats.h"
#include "tables.h"

void exp_rules(Buf *b, size_t seeds) {
    buf_printf(b, "**How a verdict is reached.** The seeds are the units: %zu models a "
               "configuration. Two configurations are compared by a two-sided Mann-Whitney U "
               "test on their seeds (exact), for a difference, and by two one-sided U tests "
               "on a shift of ±%.2f, for equivalence (Hauschke et al. 1990): a difference in "
               "accuracy smaller than %.2f is taken to matter to nobody. Beside each: the "
               "Hodges-Lehmann estimate of the difference with its distribution-free "
               "interval (%.1f%% with %zu seeds against %zu), and Cliff's delta. Tests come "
               "in families, named where they are made: the tests behind one claim of a "
               "paper are corrected together by Holm's method, those behind a section's "
               "rankings or case lists by Benjamini-Hochberg's, both tests of a pair in its "
               "family; p is given raw, then corrected. A pair is equivalent when its "
               "corrected equivalence test gives less than %.2f (asked first: a difference "
               "within the margin is no lead), ahead or behind when its corrected U test "
               "does, and otherwise not told apart. A pair is compared only "
               "where its numbers can tell: not when both means are %.2f or more (the "
               "ceiling), nor when both are at or below the no-position model's mean on "
               "that task and lengths plus %.2f (the floor), nor, past the trained lengths, "
               "when either "
               "did not learn those (%.2f or more on them). A claim that X beats Y agrees "
               "when X is ahead on one task or more and behind on none; disagrees when X is "
               "behind on more than it is ahead, or equivalent on every task tested; cannot "
               "tell otherwise (a null result is never a verdict); and cannot be tested here "
               "when no task passes the gate.",
               seeds, VERDICT_MARGIN, VERDICT_MARGIN, 100.0 * hl_coverage(seeds, seeds),
               seeds, seeds, VERDICT_ALPHA, VERDICT_CEILING, VERDICT_FLOOR_ABOVE,
               EXP_LEARNED);
    /* a test that cannot say yes gives no verdict: say when the seeds are
     * too few for any p below alpha, before any correction */
    double two = mann_whitney_min_p(seeds, seeds, 2), one = mann_whitney_min_p(seeds, seeds, 1);
    if (seeds && two >= VERDICT_ALPHA)
        buf_printf(b, " With %zu seeds against %zu, the smallest p the U test can give is "
                   "%.3f (2/C(%zu, %zu))%s, not below %.2f even before a correction: here no "
                   "pair can be shown %s, whatever the models do, and \"not told apart\" says "
                   "the seeds are too few, not that the schemes are alike.",
                   seeds, seeds, two, 2 * seeds, seeds,
                   one >= VERDICT_ALPHA ? " and the equivalence test's is half of it" : "",
                   VERDICT_ALPHA,
                   one >= VERDICT_ALPHA ? "ahead, behind or equivalent" : "ahead or behind");
    buf_printf(b, "\n\n");
}

int exp_write(const ExpResults *r, const char *dir, Err *e) {
    if (r->failed)
        return err_set(e, ERR_RUNTIME, "out of memory keeping the experiments' results");
    exp_page_begin();
    int rc = exp_write_csv(r, dir, e);
    for (size_t t = 0; !rc && t < EXP_LENGTH_TASKS; t++) {
        rc = exp_length_figure(r, dir, exp_length_tasks[t], false, e);
        if (!rc)
            rc = exp_length_figure(r, dir, exp_length_tasks[t], true, e);
    }
    if (rc)
        return rc;
    const ExpSettings *s = &r->set;
    Buf b = {0};
    buf_printf(&b, "# Results: what each scheme buys\n\n");
    char make[EXP_GRID_TEXT + 64], run[EXP_GRID_TEXT + 320];
    exp_grid_make(make, sizeof make, s);
    exp_grid_run(run, sizeof run, s);
    if (s->quick)
        buf_printf(&b, "**Quick settings** (`%s`): tiny models trained "
                   "for a few steps, to check the pipeline. These numbers say nothing about "
                   "the schemes; the real page is docs/results.md.\n\n", make);
    buf_printf(&b, "Every number on this page comes from `%s` "
               "(`%s`), which runs each training as a cell of its "
               "own, several at once or on other machines ([experiments.md](experiments.md)), "
               "and writes this page from the cells' files. The models have "
               "d_model %zu, %zu heads, %zu layers, d_ff %zu, post-norm and ReLU, trained with "
               "AdamW (lr 1e-3, warm-up 100 steps) in batches of %zu; the seeds 1 to %zu set "
               "the weights, the batch order and the data (each seed its own draw of the "
               "task). Each table gives the mean over seeds ± the sample standard deviation, "
               "and the lowest and highest seed. The CSV files behind the tables are in "
               "[results/](results/), and each table's closing sentence is written by the "
               "program from its numbers. [Page 4](04-relative.md) explains the schemes "
               "inside attention; [page 5](05-training.md) how to train one model. "
               "[benchmark.md](benchmark.md) runs every scheme on the benchmark the papers "
               "use, Delétang et al.'s algorithmic tasks on Ruoss et al.'s protocol.\n\n",
               make, run, s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->seeds);
    exp_rules(&b, s->seeds);
    exp_order_section(&b, r);
    exp_tasks_section(&b, r);
    exp_lengths_section(&b, r);
    exp_random_section(&b, r);
    exp_variants_section(&b, r);
    exp_scaling_section(&b, r);
    exp_causal_section(&b, r);
    exp_probe_section(&b, r);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.md", dir);
    rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                  : exp_page_end(path, e);
    if (!rc)
        rc = write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}
