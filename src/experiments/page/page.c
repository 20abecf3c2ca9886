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

int exp_write(const ExpResults *r, const char *dir, Err *e) {
    if (r->failed)
        return err_set(e, ERR_RUNTIME, "out of memory keeping the experiments' results");
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
    if (s->quick)
        buf_printf(&b, "**Quick settings** (`make experiments QUICK=1`): tiny models trained "
                   "for a few steps, to check the pipeline. These numbers say nothing about "
                   "the schemes; the real page is docs/results.md.\n\n");
    buf_printf(&b, "Every number on this page comes from `make experiments` "
               "(`build/experiments --out docs`), which runs each training as a cell of its "
               "own, several at once or on other machines ([experiments.md](experiments.md)), "
               "and writes this page from the cells' files. The models have "
               "d_model %zu, %zu heads, %zu layers, d_ff %zu, post-norm and ReLU, trained with "
               "AdamW (lr 1e-3, warm-up 100 steps) in batches of %zu; the seeds 1 to %zu set "
               "the weights, the batch order and the data (each seed its own draw of the "
               "task). Each table gives the mean over seeds ± the sample standard deviation, "
               "and the lowest and highest seed; a verdict follows a rule stated beside it "
               "(at chance: a binomial interval; a real difference: a Mann-Whitney test with "
               "its effect size). The CSV files behind the tables are in "
               "[results/](results/), and each table's closing sentence is written by the "
               "program from its numbers. [Page 4](04-relative.md) explains the schemes "
               "inside attention; [page 5](05-training.md) how to train one model.\n\n",
               s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->seeds);
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
                  : write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}
