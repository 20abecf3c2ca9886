/* docs/benchmark.md from the benchmark's runs (experiments --bench):
 * Delétang et al.'s tasks on Ruoss et al.'s protocol, every scheme side
 * by side. This file writes the page's head, its protocol and how ours
 * differs, the tables and the CSV files; the figures and the claims are
 * bench_claims.c's. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "prose.h"
#include "stats.h"
#include "tables.h"

/* The CSV files: every run per length, and every run's scores. */
static int write_csv(const ExpResults *r, const char *dir, Err *e) {
    Band in = exp_bench_trained(r);
    Buf runs = {0}, scores = {0};
    buf_printf(&runs, "task,level,scheme,lr,seed,length,accuracy,exact_match\n");
    buf_printf(&scores, "task,level,scheme,lr,seed,train_accuracy,test_accuracy,"
               "test_exact_match\n");
    for (size_t i = 0; i < r->n; i++) {
        const ExpRun *run = &r->runs[i];
        if (run->kind != EXP_BENCH)
            continue;
        const char *level = task_level_name(task_find(run->task)->level);
        double lr = run->variant < r->set.bench_n_lr ? r->set.bench_lr[run->variant] : NAN;
        for (size_t len = 1; len <= run->max_len; len++)
            buf_printf(&runs, "%s,%s,%s,%g,%zu,%zu,%.6f,%.6f\n", run->task, level, run->name,
                       lr, run->seed + 1, len, run->per_len[len], run->exact_len[len]);
        buf_printf(&scores, "%s,%s,%s,%g,%zu,%.6f,%.6f,%.6f\n", run->task, level, run->name,
                   lr, run->seed + 1, exp_band_value(run, &in), run->value, run->exact);
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
    char each[64] = ""; /* a sweep: every seed at every rate, pooled */
    if (s->bench_n_lr > 1)
        snprintf(each, sizeof each, " at each of %zu learning rates", s->bench_n_lr);
    if (s->bench_extra_seeds == s->seeds)
        snprintf(text, sizeof text, "%zu seeds%s", s->seeds, each);
    else
        snprintf(text, sizeof text, "%zu seeds%s%s%zu for %s%s", s->seeds, each,
                 inside ? "; " : " (", s->bench_extra_seeds, ours(s), inside ? "" : ")");
    return text;
}

/* "1e-3", or "1e-3, 3e-4 (the best of them per cell of Table 1)". */
static const char *rates(const ExpSettings *s) {
    static char text[160];
    size_t n = 0;
    text[0] = '\0';
    for (size_t i = 0; i < s->bench_n_lr && n < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%g", i ? ", " : "", s->bench_lr[i]);
    return text;
}

/* The longest test tape of the grid's tasks: M words and their blanks. */
static size_t longest_tape(const ExpSettings *s) {
    size_t most = 0;
    for (size_t t = 0; t < s->bench_n_tasks; t++) {
        size_t n = s->bench_M + task_find(s->bench_task[t])->blanks(s->bench_M);
        most = n > most ? n : most;
    }
    return most;
}

/* Ruoss et al.'s setting beside ours: what matches their code (and
 * where), and every way ours differs, with why. */
static void protocol(Buf *b, const ExpResults *r) {
    const ExpSettings *s = &r->set;
    size_t N = s->bench_N, M = s->bench_M;
    buf_printf(b, "## The protocol, and where ours differs\n\n"
               "Each model reads a tape: the input, then one blank per output symbol (one "
               "blank for a task with one answer), and is trained and scored on the blanks "
               "only ([data/README.md](../data/README.md) gives each task's tape; `build/"
               "make_data --task NAME` writes one out). It trains on inputs of 1..%zu words, "
               "each batch of one length drawn uniformly, new sentences every step, and is "
               "tested at every input length 1..%zu, %zu fresh tapes a length; its score is "
               "the per-token accuracy on the blanks averaged over the lengths %zu..%zu, with "
               "the share of tapes whose every blank is right (exact match) beside it. The "
               "training follows the reference code (google-deepmind/randomized_positional_"
               "encodings: experiments/training.py, example.py; models/transformer.py, "
               "positional_encodings.py) where it decides numbers:\n\n",
               N, M, s->bench_per_len, N + 1, M);
    buf_printf(b, "| | the reference code | here |\n| --- | --- | --- |\n"
               "| training sentences | new every step (task.sample_batch) | the same (`--train-"
               "draw fresh`) |\n"
               "| randomized sin/cos, learned | sorted positions from 0..L-1 once a batch, at "
               "the input | the same |\n"
               "| randomized RoPE | sorted positions drawn afresh in every layer | the same "
               "(`--random-draw ruoss`) |\n"
               "| randomized ALiBi and relative | in every layer, sorted distances of 1..L-1, "
               "one per offset, mirrored | the same |\n"
               "| ALiBi without a causal mask | -m d for keys d apart, the keys to the left 0.5 m "
               "closer | the same (`--alibi-slopes ruoss`) |\n"
               "| optimizer | Adam (optax: b2 0.999, eps 1e-8), no weight decay, no warm-up, "
               "the gradient's norm clipped at 1 | the same |\n"
               "| first draws | embeddings TruncatedNormal(0.02) times sqrt(d_model); a "
               "learned table TruncatedNormal(1) | N(0, 0.02²) times sqrt(d_model); N(0, 1) "
               "(not truncated) |\n"
               "| dropout | 0.1 on the attention's and the FFN's outputs (and on embedding "
               "plus code for sin/cos and learned), in training and, through the same apply, "
               "at test | %.2g in training where PyTorch's encoder layer puts it (also on the "
               "attention weights and the FFN's hidden layer, and on the embedding for every "
               "scheme); none at test (a test with dropout scores a noisier model than the "
               "one trained) |\n"
               "| training lengths N, test lengths to M | 40 and 500 (their example: 100) | "
               "%zu and %zu (M/N = %.1f, their example's 2.5) |\n"
               "| random positions from | 0..2047 | 0..%zu (%.1f times the longest test tape, "
               "%zu words; 2048 is about 4 times 500) |\n"
               "| model | encoder, 5 layers, width 64, 8 heads, d_ff 256, q k v without bias | "
               "encoder, %zu layer%s, width %zu, %zu heads, d_ff %zu, post-norm, q k v with "
               "bias |\n"
               "| training | batch 128, lr 1e-3 (the paper takes the best over learning rates), "
               "10,000 steps | batch "
               "%zu, lr %s, %zu steps (the cost: [experiments.md](experiments.md#the-"
               "benchmarks-grid)) |\n"
               "| inputs | one-hot vectors through a linear layer | words of a vocabulary, "
               "an embedding table (the same product on one-hot rows) |\n"
               "| randomized relative, the code's indexing | reads its sinusoid table (rows "
               "0..L-1) at row L + offset: past the end for the query and every key to its "
               "right, which JAX clamps to row L-1, so all of those get one encoding (its "
               "comment means row L to be offset 0) | the sinusoid of the offset, as the "
               "comment means |\n"
               "| test tapes per length | 512, in batches of 64, noise drawn per batch | %zu, "
               "in batches of %zu, one draw per batch |\n"
               "| a cell of Table 1 | the best model over seeds and learning rates | the best "
               "of %s at %s (and the mean over seeds beside it) |\n\n",
               s->bench_dropout, N, M, (double)M / (double)N, s->random_range - 1,
               (double)s->random_range / (double)longest_tape(s), longest_tape(s), s->layers,
               s->layers == 1 ? "" : "s", s->d_model, s->heads, s->d_ff, s->batch, rates(s),
               s->bench_steps, s->bench_per_len, s->bench_test_batch, seeds_phrase(s, false),
               s->bench_n_lr == 1 ? "one learning rate" : "each learning rate");
    size_t extra = s->bench_columns - exp_bench_paper();
    buf_printf(b, "Their columns are ours: none, sin/cos (`sinusoidal`), relative "
               "(Transformer-XL's, our `xl`), RoPE, ALiBi and learned, each randomized form "
               "beside its plain one (`random X` is `X` with `--random-positions %zu "
               "--random-draw ruoss`)%s%s%s. A learned table has a row for every position a "
               "test tape reaches (those past the training tapes stay as initialized), as "
               "their table has rows to its longest test. The grid is %zu tasks x %zu "
               "columns x %zu seeds",
               s->random_range, extra ? "; ours adds " : "", extra ? ours(s) : "",
               extra ? " plain" : "", r->set.bench_n_tasks, exp_bench_paper(), s->seeds);
    if (extra)
        buf_printf(b, " + %zu tasks x %zu x %zu", r->set.bench_n_tasks, extra,
                   s->bench_extra_seeds);
    buf_printf(b, "%s = %zu cells; [experiments.md](experiments.md) says how to run it, on "
               "more machines too, and what it costs.\n\n",
               s->bench_n_lr > 1 ? " x the rates" : "",
               r->set.bench_n_tasks * s->bench_n_lr *
                   (exp_bench_paper() * s->seeds + extra * s->bench_extra_seeds));
}

/* The recipe pilots (scripts/bench_pilots.sh) kept beside the page's
 * CSVs, DIR/benchmark/pilots.csv, as a table: how the standard run's
 * recipe was chosen. A page without the file says so. */
static void pilots(Buf *b, const ExpResults *r, const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark/pilots.csv", r->out ? r->out : dir);
    char *text = NULL;
    size_t n = 0;
    Err e;
    buf_printf(b, "## The recipe\n\n");
    if (read_regular(path, 1 << 20, &text, &n, &e) != 0 || n == 0) {
        buf_printf(b, "No recipe pilots are kept beside this page (benchmark/pilots.csv): "
                   "[experiments.md](experiments.md#the-recipe) says how the standard run's "
                   "recipe was chosen.\n\n");
        free(text);
        return;
    }
    n = text_lf(text, n); /* a checkout that converted line ends reads the same */
    buf_printf(b, "The standard run's recipe is the cheapest of the pilots below under which "
               "the paper's columns learn the training lengths (%.2f or more at the longest, "
               "N) on the most tasks; [experiments.md](experiments.md#the-recipe) gives the "
               "command. One seed each, at the protocol above (`benchmark/pilots.csv`, made by "
               "`scripts/bench_pilots.sh`; seconds on the clock, training and three tests, "
               "one thread beside other work on the other core; accuracies at N, on 1..N and "
               "past N):\n\n",
               EXP_LEARNED);
    size_t row = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), row++) {
        size_t cols = 1;
        buf_printf(b, "|");
        for (char *c = line; *c; c++)
            if (*c == ',')
                buf_printf(b, " |"), cols++;
            else
                buf_printf(b, "%s%c", c == line || c[-1] == ',' ? " " : "", *c);
        buf_printf(b, " |\n");
        if (row == 0) {
            for (size_t k = 0; k < cols; k++)
                buf_printf(b, "| --- ");
            buf_printf(b, "|\n");
        }
    }
    buf_printf(b, "\n");
    free(text);
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
    exp_page_head(&b, s, "bench.title", "benchmark");
    char make[EXP_GRID_TEXT + 64], run[EXP_GRID_TEXT + 320];
    exp_grid_make(make, sizeof make, s);
    exp_grid_run(run, sizeof run, s);
    PROSE(&b, "bench.intro", pv_text("make", make), pv_text("run", run),
          pv_count("tasks", r->set.bench_n_tasks),
          pv_tmpl("columns", s->bench_columns > exp_bench_paper() ? "bench.columns_all"
                                                                   : "bench.columns_paper"),
          pv_text("seeds", seeds_phrase(s, false)));
    buf_printf(&b, "\n\n");
    protocol(&b, r);
    pilots(&b, r, dir);
    buf_printf(&b, "## Table 1, as Ruoss et al. make it\n\nThe per-token accuracy (%%) on the "
               "blanks, averaged over the test lengths %zu..%zu, of the best seed (of %s; "
               "their Table 1 takes the best model over seeds and learning rates); the best "
               "of each row in bold.\n\n", out.lo, out.hi, seeds_phrase(s, true));
    scores_table(&b, r, out, false, true);
    buf_printf(&b, "The paper's own numbers are not beside these: its Table 1 could not be "
               "read from any copy this project can reach (arXiv 2305.16843 on ar5iv and "
               "the raw LaTeX of Google's SPIQA dataset are stored, but only their "
               "openings can be read here; the reference repository publishes no results; "
               "a blog that reprints the table does so as an image), and no number is "
               "filled in from memory. The page compares with the paper's text instead: "
               "the abstract's 12.0 points on average, which claim 1 tests.\n\n");
    buf_printf(&b, "## The cautious reading: the mean over seeds\n\nThe same accuracy as the "
               "mean over the %s ± their standard deviation: what a new seed can "
               "expect, where the best seed says what the scheme can reach.\n\n",
               seeds_phrase(s, false));
    scores_table(&b, r, out, false, false);
    buf_printf(&b, "Exact match (%%), the share of test tapes with every blank right, mean "
               "over seeds, on %zu..%zu:\n\n", out.lo, out.hi);
    scores_table(&b, r, out, true, false);
    buf_printf(&b, "## Learned at N\n\nThe accuracy at the longest training length, %zu "
               "(mean over seeds): whether each scheme learned the training lengths, the "
               "claims' gate (%.2f or more), before any length it never saw.\n\n", in.hi,
               EXP_LEARNED);
    scores_table(&b, r, (Band){in.hi, in.hi}, false, false);
    buf_printf(&b, "On all the training lengths 1..%zu (mean over seeds):\n\n", in.hi);
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
