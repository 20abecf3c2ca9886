/* docs/results.md from the experiments' runs: the tables with their
 * spread, the figures, and a closing sentence per table that the numbers
 * decide (which schemes are at chance, which is best past the training
 * lengths, whether a cited paper's finding holds here). This file writes
 * the CSV files and the figures, then the page's head and its sections in
 * order (sections.h says which file writes which). */
#include <stdio.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "../../stats/stats.h"
#include "../places.h"
#include "errors.h"
#include "page.h"
#include "prose.h"
#include "sections.h"
#include "tables.h"

int exp_page_templates(Err *e) { return prose_load(e); }

void exp_rules(Buf *b, size_t seeds, const char *floor, size_t at_N) {
    Buf learned = {0}, method = {0};
    if (at_N)
        PROSE(&learned, "rules.learned_at_N", pv_real("learned", EXP_LEARNED),
              pv_count("N", at_N));
    else
        PROSE(&learned, "rules.learned_on_them", pv_real("learned", EXP_LEARNED));
    /* mw_tail's choice: every split enumerated up to MW_EXACT_MAX values */
    if (2 * seeds <= MW_EXACT_MAX)
        PROSE_TEXT(&method, "rules.u_exact");
    else
        PROSE(&method, "rules.u_normal", pv_count("most", MW_EXACT_MAX / 2));
    PROSE(b, "rules", pv_count("seeds", seeds), pv_buf("method", &method),
          pv_real("margin", VERDICT_MARGIN), pv_tmpl("floor", floor),
          pv_real("coverage", 100.0 * hl_coverage(seeds, seeds)),
          pv_real("alpha", VERDICT_ALPHA), pv_real("ceiling", VERDICT_CEILING),
          pv_real("floor_above", VERDICT_FLOOR_ABOVE), pv_buf("learned", &learned));
    exp_part_done(b, &learned);
    exp_part_done(b, &method);
    /* a test that cannot say yes gives no verdict: say when the seeds are
     * too few for any p below alpha, before any correction */
    double two = mann_whitney_min_p(seeds, seeds, 2), one = mann_whitney_min_p(seeds, seeds, 1);
    if (seeds && two >= VERDICT_ALPHA)
        PROSE(b, "rules.few_seeds", pv_count("seeds", seeds), pv_real("two", two),
              pv_count("pool", 2 * seeds), pv_real("alpha", VERDICT_ALPHA),
              one >= VERDICT_ALPHA ? pv_tmpl("and_tost", "rules.and_tost") : pv_text("and_tost", ""),
              pv_tmpl("shown", one >= VERDICT_ALPHA ? "rules.shown_all" : "rules.shown_two"));
    buf_printf(b, "\n\n");
}

void exp_page_head(Buf *b, const ExpSettings *s, const char *title, const char *page) {
    char make[EXP_GRID_TEXT + 64];
    exp_grid_make(make, sizeof make, s);
    PROSE_TEXT(b, title);
    buf_printf(b, "\n\n");
    if (s->quick) {
        PROSE(b, "quick", pv_text("make", make), pv_text("page", page));
        buf_printf(b, "\n\n");
    }
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
    exp_page_head(&b, s, "results.title", "results");
    char make[EXP_GRID_TEXT + 64], run[EXP_GRID_TEXT + 320];
    exp_grid_make(make, sizeof make, s);
    exp_grid_run(run, sizeof run, s);
    PROSE(&b, "results.intro", pv_text("make", make), pv_text("run", run),
          pv_count("d_model", s->d_model), pv_count("heads", s->heads),
          pv_count("layers", s->layers), pv_count("d_ff", s->d_ff), pv_count("batch", s->batch),
          pv_count("seeds", s->seeds));
    buf_printf(&b, "\n\n");
    exp_rules(&b, s->seeds, "rules.floor_none", 0);
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
