/* docs/benchmark.md from the benchmark's runs (experiments --bench):
 * Delétang et al.'s tasks on Ruoss et al.'s protocol, every scheme side
 * by side. This file writes the page's head, its protocol and how ours
 * differs, the tables and the CSV files; the figures and the claims are
 * bench_claims.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "stats.h"

/* The CSV files: every run per length, and every run's scores. */
static int write_csv(const ExpResults *r, const char *dir, Err *e) {
    Band in = exp_bench_trained(r);
    Buf runs = {0}, scores = {0};
    buf_printf(&runs, "task,level,scheme,seed,length,accuracy,exact_match\n");
    buf_printf(&scores, "task,level,scheme,seed,train_accuracy,test_accuracy,"
               "test_exact_match\n");
    for (size_t i = 0; i < r->n; i++) {
        const ExpRun *run = &r->runs[i];
        if (run->kind != EXP_BENCH)
            continue;
        const char *level = task_level_name(task_find(run->task)->level);
        for (size_t len = 1; len <= run->max_len; len++)
            buf_printf(&runs, "%s,%s,%s,%zu,%zu,%.6f,%.6f\n", run->task, level, run->name,
                       run->seed + 1, len, run->per_len[len], run->exact_len[len]);
        buf_printf(&scores, "%s,%s,%s,%zu,%.6f,%.6f,%.6f\n", run->task, level, run->name,
                   run->seed + 1, exp_band_value(run, &in), run->value, run->exact);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark/lengths.csv", dir);
    int rc = runs.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                         : write_file_atomic(path, runs.p, runs.n, e);
    snprintf(path, sizeof path, "%s/benchmark/scores.csv", dir);
    if (!rc)
        rc = scores.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                           : write_file_atomic(path, scores.p, scores.n, e);
    buf_free(&runs), buf_free(&scores);
    return rc;
}

/* The header of a table with a column per scheme. */
static void columns_header(Buf *b, const ExpResults *r, const char *first) {
    buf_printf(b, "| level | %s |", first);
    for (size_t s = 0; s < r->set.bench_columns; s++)
        buf_printf(b, " %s |", exp_bench_column(s));
    buf_printf(b, "\n| --- | --- |");
    for (size_t s = 0; s < r->set.bench_columns; s++)
        buf_printf(b, " ---: |");
    buf_printf(b, "\n");
}

/* A table of every task and scheme: the best seed (what Table 1 of Ruoss
 * et al. gives), or the mean over seeds ± their SD, in percent as the
 * paper prints; the best of each row in bold. */
static void scores_table(Buf *b, const ExpResults *r, Band band, bool exact, bool best) {
    columns_header(b, r, "task");
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat st[EXP_BENCH_MAX];
        double top = -1.0;
        for (size_t s = 0; s < r->set.bench_columns; s++) {
            st[s] = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(s), band, exact);
            double v = best ? st[s].hi : st[s].mean;
            if (!isnan(v) && v > top)
                top = v;
        }
        /* the level once, on its first task */
        bool first = t == 0 || strcmp(exp_bench_level(r, t), exp_bench_level(r, t - 1)) != 0;
        buf_printf(b, "| %s | %s |", first ? exp_bench_level(r, t) : "", r->set.bench_task[t]);
        for (size_t s = 0; s < r->set.bench_columns; s++) {
            double v = best ? st[s].hi : st[s].mean;
            const char *bold = fabs(100.0 * v - 100.0 * top) < 0.05 ? "**" : "";
            if (isnan(v))
                buf_printf(b, " n/a |");
            else if (best)
                buf_printf(b, " %s%.1f%s |", bold, 100.0 * v, bold);
            else
                buf_printf(b, " %s%.1f%s ± %.1f |", bold, 100.0 * v, bold, 100.0 * st[s].sd);
        }
        buf_printf(b, "\n");
    }
    /* the average over tasks, the row Ruoss et al.'s claim is about */
    buf_printf(b, "| | **average** |");
    for (size_t s = 0; s < r->set.bench_columns; s++) {
        double sum = 0.0;
        for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
            Stat st = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(s), band, exact);
            sum += best ? st.hi : st.mean;
        }
        buf_printf(b, " %.1f |", 100.0 * sum / r->set.bench_n_tasks);
    }
    buf_printf(b, "\n\n");
}

/* The columns past Ruoss et al.'s, "t5, shaw, fire and kerple". */
static const char *ours(const ExpSettings *s) {
    static char text[160];
    size_t n = 0;
    text[0] = '\0';
    for (size_t c = exp_bench_paper(); c < s->bench_columns && n < sizeof text; c++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s",
                              c == exp_bench_paper() ? "" : c + 1 == s->bench_columns ? " and " : ", ",
                              exp_bench_column(c));
    return text;
}

/* "10 seeds", or "10 seeds (5 for t5, shaw, fire and kerple)" when the
 * columns past Ruoss et al.'s have fewer; "10 seeds; 5 for ..." where it
 * stands inside parentheses already (inside). */
static const char *seeds_phrase(const ExpSettings *s, bool inside) {
    static char text[256];
    if (s->bench_extra_seeds == s->seeds)
        snprintf(text, sizeof text, "%zu seeds", s->seeds);
    else
        snprintf(text, sizeof text, "%zu seeds%s%zu for %s%s", s->seeds, inside ? "; " : " (",
                 s->bench_extra_seeds, ours(s), inside ? "" : ")");
    return text;
}

/* Ruoss et al.'s setting beside ours, every way ours differs. */
static void protocol(Buf *b, const ExpResults *r) {
    const ExpSettings *s = &r->set;
    size_t N = s->bench_N, M = s->bench_M;
    buf_printf(b, "## The protocol, and where ours differs\n\n"
               "Each model reads a tape: the input, then one blank per output symbol (one "
               "blank for a task with one answer), and is trained and scored on the blanks "
               "only ([data/README.md](../data/README.md) gives each task's tape; `build/"
               "make_data --task NAME` writes one out). It trains on inputs of 1..%zu words, "
               "each batch of one length drawn uniformly, and is tested at every input "
               "length 1..%zu, %zu fresh tapes a length; its score is the per-token accuracy "
               "on the blanks averaged over the lengths %zu..%zu, with the share of tapes "
               "whose every blank is right (exact match) beside it. A randomized form draws, "
               "for each batch, sorted positions from 0..%zu, and is tested the same way "
               "(one draw per batch of %zu).\n\n",
               N, M, s->bench_per_len, N + 1, M, s->random_range - 1, s->bench_test_batch);
    buf_printf(b, "| | Ruoss et al. (2023) | here |\n| --- | --- | --- |\n"
               "| training lengths N | 40 | %zu |\n"
               "| test lengths to M | 500 (their example script: 100, M/N = 2.5) | %zu "
               "(M/N = %.1f) |\n"
               "| random positions from | 0..2047 | 0..%zu |\n"
               "| model | encoder, 5 layers, width 64, 8 heads | encoder, %zu layer%s, width "
               "%zu, %zu heads, d_ff %zu, post-norm |\n"
               "| dropout | 0.1 in their example script | none |\n"
               "| training | their example script: batch 128, Adam lr 1e-3, 10,000 steps "
               "| batch %zu, AdamW lr 1e-3, warm-up 100, %zu steps |\n"
               "| test tapes per length | 512, in batches of 64 | %zu, in batches of %zu |\n"
               "| a cell of Table 1 | the best model over seeds and learning rates | the "
               "best of %s at one learning rate (and the mean over seeds beside it) |\n"
               "| relative (Transformer-XL) randomized | offsets drawn in each layer | "
               "positions drawn once a batch, offsets their differences (`xl`) |\n\n",
               N, M, (double)M / (double)N, s->random_range - 1, s->layers,
               s->layers == 1 ? "" : "s", s->d_model,
               s->heads, s->d_ff, s->batch, s->bench_steps, s->bench_per_len,
               s->bench_test_batch, seeds_phrase(s, false));
    buf_printf(b, "Their columns are ours: none, sin/cos (`sinusoidal`), relative "
               "(Transformer-XL's, our `xl`), RoPE, ALiBi and learned, each randomized form "
               "beside its plain one (`random X` is `X` with `--random-positions %zu "
               "--batches by-length`); ours adds %s plain. A learned "
               "table has a row for every position a test tape reaches (those past the "
               "training tapes stay as initialized), as their table has rows to its longest "
               "test. The grid is %zu tasks x (%zu columns x %zu seeds + %zu x %zu) = %zu "
               "cells: ten seeds where a claim's corrected tests need them, fewer where no "
               "test reads them, to keep the standard run within an hour on two cores; "
               "[experiments.md](experiments.md) says how to run it, on more machines too.\n\n",
               s->random_range, ours(s), r->set.bench_n_tasks, exp_bench_paper(),
               s->seeds, s->bench_columns - exp_bench_paper(), s->bench_extra_seeds,
               r->set.bench_n_tasks * (exp_bench_paper() * s->seeds +
                                          (s->bench_columns - exp_bench_paper()) *
                                              s->bench_extra_seeds));
}

int exp_bench_write(const ExpResults *r, const char *dir, Err *e) {
    if (r->failed)
        return err_set(e, ERR_RUNTIME, "out of memory keeping the benchmark's results");
    exp_page_begin();
    int rc = write_csv(r, dir, e);
    if (!rc)
        rc = exp_bench_figures(r, dir, e);
    if (rc)
        return rc;
    const ExpSettings *s = &r->set;
    Band in = exp_bench_trained(r), out = exp_bench_tested(r);
    Buf b = {0};
    buf_printf(&b, "# The benchmark: Delétang et al.'s tasks on Ruoss et al.'s protocol\n\n");
    char make[64], run[160];
    exp_grid_make(make, sizeof make, s);
    exp_grid_run(run, sizeof run, s);
    if (s->quick)
        buf_printf(&b, "**Quick settings** (`%s`): tiny models trained "
                   "for a few steps, to check the pipeline. These numbers say nothing about "
                   "the schemes; the real page is docs/benchmark.md.\n\n", make);
    buf_printf(&b, "Every number on this page comes from `%s` (`%s`): %zu of the algorithmic tasks of Delétang et al. (ICLR "
               "2023, \"Neural Networks and the Chomsky Hierarchy\"), on which Ruoss et al. "
               "(ACL 2023, \"Randomized Positional Encodings Boost Length Generalization of "
               "Transformers\") compared positional encodings on an encoder, with every "
               "scheme of this project side by side, %s. The tasks climb the "
               "Chomsky hierarchy: regular (a finite automaton does them), deterministic "
               "context-free (a stack), context-sensitive (a tape). "
               "[Page 8](08-benchmark.md) takes one task through by hand; "
               "[results.md](results.md) tests the literature's claims on the project's own "
               "toy tasks, whose verdict rules this page follows. The CSV files behind every "
               "table are in [benchmark/](benchmark/).\n\n",
               make, run, r->set.bench_n_tasks, seeds_phrase(s, false));
    protocol(&b, r);
    buf_printf(&b, "## Table 1, as Ruoss et al. make it\n\nThe per-token accuracy (%%) on the "
               "blanks, averaged over the test lengths %zu..%zu, of the best seed (of %s; "
               "their Table 1 takes the best model over seeds and learning rates); the best "
               "of each row in bold.\n\n", out.lo, out.hi, seeds_phrase(s, true));
    scores_table(&b, r, out, false, true);
    buf_printf(&b, "## The cautious reading: the mean over seeds\n\nThe same accuracy as the "
               "mean over the %s ± their standard deviation: what a new seed can "
               "expect, where the best seed says what the scheme can reach.\n\n",
               seeds_phrase(s, false));
    scores_table(&b, r, out, false, false);
    buf_printf(&b, "Exact match (%%), the share of test tapes with every blank right, mean "
               "over seeds, on %zu..%zu:\n\n", out.lo, out.hi);
    scores_table(&b, r, out, true, false);
    buf_printf(&b, "On the training lengths 1..%zu (mean over seeds): what each scheme "
               "learned, before any length it never saw.\n\n", in.hi);
    scores_table(&b, r, in, false, false);
    exp_bench_claims(&b, r);
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark.md", dir);
    rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                  : exp_page_end(path, e);
    if (!rc)
        rc = write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}
