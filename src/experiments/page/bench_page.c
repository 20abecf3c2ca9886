/* docs/benchmark.md from the benchmark's runs (experiments --bench):
 * Delétang et al.'s tasks on Ruoss et al.'s protocol, every scheme side
 * by side. This file writes the page's head, its protocol and how ours
 * differs, the tables and the CSV files; the chance floors are
 * bench_chance.c's, the figures bench_figures.c's, the claims
 * bench_claim1.c's, bench_cost.c's and bench_claims.c's. The sentences are templates
 * (templates/bench-*.md, prose.h): the code gives them the numbers, the
 * tables it builds and its choice between sentences. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "../../core/parse.h"
#include "../../text/tasks.h"
#include "../places.h"
#include "bench.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

/* benchmark/chance.csv: each task's commonest answer and its share of
 * the blanks at each test length, the chance floor's table. */
static int write_chance(const BenchPage *p, const char *dir, Err *e) {
    const ExpResults *r = p->r;
    Buf b = {0};
    buf_printf(&b, "task,level,answer,length,blanks,share\n");
    for (size_t t = 0; t < r->set.bench_n_tasks; t++)
        for (size_t n = r->set.bench_N + 1; n <= r->set.bench_M; n++) {
            size_t at = t * (r->set.bench_M + 1) + n;
            buf_printf(&b, "%s,%s,%s,%zu,%zu,", r->set.bench_task[t],
                       task_level_name(task_find(r->set.bench_task[t])->level),
                       p->chance.answer[t], n, p->chance.blanks[at]);
            exp_csv_value(&b, p->chance.share[at]);
            buf_printf(&b, "\n");
        }
    return exp_bench_csv(dir, "chance.csv", &b, e);
}

/* The CSV files: every run per length, and every run's scores (each
 * value rounded as the page says, exp_csv_value). */
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
        for (size_t len = 1; len <= run->max_len; len++) {
            buf_printf(&runs, "%s,%s,%s,%g,%zu,%zu,", run->task, level, run->name, lr,
                       run->seed + 1, len);
            exp_csv_value(&runs, run->per_len[len]);
            buf_printf(&runs, ",");
            exp_csv_value(&runs, run->exact_len[len]);
            buf_printf(&runs, "\n");
        }
        buf_printf(&scores, "%s,%s,%s,%g,%zu", run->task, level, run->name, lr, run->seed + 1);
        double score[3] = {exp_band_value(run, &in), run->value, run->exact};
        for (int k = 0; k < 3; k++) {
            buf_printf(&scores, ",");
            exp_csv_value(&scores, score[k]);
        }
        buf_printf(&scores, "\n");
    }
    int rc = exp_bench_csv(dir, "lengths.csv", &runs, e);
    if (!rc)
        rc = exp_bench_csv(dir, "scores.csv", &scores, e);
    buf_free(&scores); /* when lengths.csv failed */
    return rc;
}

/* The header of a table with a column per scheme. */
static void columns_header(Buf *b, const ExpResults *r, const char *first) {
    buf_printf(b, "| level | %s |", first);
    for (size_t s = 0; s < r->set.bench_columns; s++)
        buf_printf(b, " %s |", exp_bench_column(&r->set, s));
    buf_printf(b, "\n| --- | --- |");
    for (size_t s = 0; s < r->set.bench_columns; s++)
        buf_printf(b, " ---: |");
}

/* A table of every task and scheme: the best seed (what Table 1 of Ruoss
 * et al. gives), or the mean over seeds ± their SD, in percent as the
 * paper prints; the best of each row in bold, and any within BENCH_BOLD of
 * it (bench.h). A fragment for a template:
 * it ends without a line break (the template places the breaks). */
static Buf scores_table(const ExpResults *r, Band band, bool exact, bool best) {
    Buf b = {0};
    columns_header(&b, r, "task");
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat st[EXP_BENCH_MAX];
        double top = -1.0;
        for (size_t s = 0; s < r->set.bench_columns; s++) {
            st[s] =
                exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, s), band, exact);
            double v = best ? st[s].hi : st[s].mean;
            if (!isnan(v) && v > top)
                top = v;
        }
        /* the level once, on its first task */
        bool first = t == 0 || strcmp(exp_bench_level(r, t), exp_bench_level(r, t - 1)) != 0;
        buf_printf(&b, "\n| %s | %s |", first ? exp_bench_level(r, t) : "", r->set.bench_task[t]);
        for (size_t s = 0; s < r->set.bench_columns; s++) {
            double v = best ? st[s].hi : st[s].mean;
            const char *bold = fabs(100.0 * v - 100.0 * top) < BENCH_BOLD ? "**" : "";
            if (isnan(v))
                buf_printf(&b, " n/a |");
            else if (best)
                buf_printf(&b, " %s%s%s |", bold, exp_num(100.0 * v, 1, false).s, bold);
            else
                buf_printf(&b, " %s%s%s ± %s |", bold, exp_num(100.0 * v, 1, false).s, bold,
                           exp_num(100.0 * st[s].sd, 1, false).s);
        }
    }
    /* the average over tasks, the row Ruoss et al.'s claim is about */
    buf_printf(&b, "\n| | **average** |");
    for (size_t s = 0; s < r->set.bench_columns; s++) {
        double sum = 0.0;
        for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
            Stat st =
                exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, s), band, exact);
            sum += best ? st.hi : st.mean;
        }
        buf_printf(&b, " %s |", exp_num(100.0 * sum / r->set.bench_n_tasks, 1, false).s);
    }
    return b;
}

/* The columns past Ruoss et al.'s, "t5, shaw, fire and kerple". */
static const char *ours(const ExpSettings *s) {
    static char text[160];
    size_t n = 0;
    text[0] = '\0';
    for (size_t c = exp_bench_paper(s); c < s->bench_columns && n < sizeof text; c++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s",
                              c == exp_bench_paper(s)     ? ""
                              : c + 1 == s->bench_columns ? " and "
                                                          : ", ",
                              exp_bench_column(s, c));
    return text;
}

/* "10 seeds", or "10 seeds (5 for t5, shaw, fire and kerple)" when the
 * columns past Ruoss et al.'s have fewer; "10 seeds; 5 for ..." where it
 * stands inside parentheses already (inside). A fragment the caller
 * frees (exp_bench_part_done). */
static Buf seeds_phrase(const ExpSettings *s, bool inside) {
    Buf each = {0}, text = {0};
    if (s->bench_n_lr > 1) /* a sweep: every seed at every rate, pooled */
        PROSE(&each, "bench.seeds.rates", pv_count("rates", s->bench_n_lr));
    if (s->bench_extra_seeds == s->seeds)
        PROSE(&text, "bench.seeds", pv_count("seeds", s->seeds), pv_buf("rates", &each));
    else
        PROSE(&text, inside ? "bench.seeds.fewer_inside" : "bench.seeds.fewer",
              pv_count("seeds", s->seeds), pv_buf("rates", &each),
              pv_count("fewer", s->bench_extra_seeds), pv_text("ours", ours(s)));
    exp_bench_part_done(&text, &each);
    return text;
}

/* "1e-3", or "1e-3, 3e-4" for a sweep. */
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

/* Ruoss et al.'s setting beside ours, a row per way ours differs (or
 * matches their code where it decides a number), with why. */
static void reference_table(Buf *b, const ExpSettings *s) {
    Buf seeds = seeds_phrase(s, false);
    bool ref = s->bench_reference != 0; /* the reference's forms, and its xl as run */
    size_t N = s->bench_N, M = s->bench_M, tape = longest_tape(s);
    /* the density of the random positions against the paper's: its 2048
     * positions for its longest tape, duplicate_string's 3 x 500 tokens */
    double times = (double)s->random_range / (double)tape, paper = 2048.0 / 1500.0;
    Buf density = {0};
    if (fabs(times / paper - 1.0) < 0.05)
        PROSE(&density, "bench.protocol.density_paper", pv_count("M", M),
              pv_count("range", s->random_range));
    else
        PROSE(&density, "bench.protocol.density_other", pv_real("sparser", times / paper));
    PROSE(b, "bench.protocol.table", pv_real("dropout", s->bench_dropout), pv_count("N", N),
          pv_count("M", M), pv_real("ratio", (double)M / (double)N),
          pv_count("last_position", s->random_range - 1),
          pv_real("times", times), pv_count("tape", tape), pv_buf("density", &density),
          pv_count("layers", s->layers), pv_text("s", s->layers == 1 ? "" : "s"),
          pv_count("d_model", s->d_model), pv_count("heads", s->heads),
          pv_count("d_ff", s->d_ff), pv_count("batch", s->batch), pv_text("rates", rates(s)),
          pv_count("steps", s->bench_steps), pv_count("per_len", s->bench_per_len),
          pv_count("test_batch", s->bench_test_batch), pv_buf("seeds", &seeds),
          pv_count("first_tested", N + 1), pv_count("ref_first", N + 2),
          pv_tmpl("rate", s->bench_n_lr == 1 ? "bench.protocol.one_rate"
                                             : "bench.protocol.each_rate"),
          pv_tmpl("draws", ref ? "bench.protocol.draws_reference" : "bench.protocol.draws_torch"),
          pv_tmpl("biases", ref ? "bench.protocol.biases_reference"
                                : "bench.protocol.biases_torch"),
          pv_tmpl("loss", ref ? "bench.protocol.loss_reference" : "bench.protocol.loss_ours"),
          pv_tmpl("indexing", ref ? "bench.protocol.indexing_both"
                                  : "bench.protocol.indexing_ours"));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &density);
    exp_bench_part_done(b, &seeds);
}

/* The paper's columns and ours, and the grid's size in cells: the
 * columns past the paper's (ALL=1) run with their own seeds. */
static void columns(Buf *b, const ExpResults *r) {
    const ExpSettings *s = &r->set;
    size_t tasks = s->bench_n_tasks, extra = s->bench_columns - exp_bench_paper(&r->set);
    Buf added = {0}, grid = {0};
    if (extra) {
        PROSE(&added, "bench.protocol.ours", pv_text("ours", ours(s)));
        PROSE(&grid, "bench.protocol.grid_extra", pv_count("tasks", tasks),
              pv_count("extra", extra), pv_count("seeds", s->bench_extra_seeds));
    }
    size_t cells = tasks * s->bench_n_lr * (exp_bench_paper(&r->set) * s->seeds +
                                            extra * s->bench_extra_seeds);
    PROSE(b, "bench.protocol.columns", pv_count("positions", s->random_range),
          pv_buf("ours", &added), pv_count("tasks", tasks),
          pv_count("paper", exp_bench_paper(&r->set)), pv_count("seeds", s->seeds),
          pv_buf("extra", &grid),
          s->bench_n_lr > 1 ? pv_tmpl("rates", "bench.protocol.grid_rates") : pv_text("rates", ""),
          pv_count("cells", cells));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &added);
    exp_bench_part_done(b, &grid);
}

/* How a model is trained and scored; Ruoss et al.'s setting beside ours,
 * what matches their code and every way ours differs; the grid. */
static void protocol(Buf *b, const ExpResults *r) {
    const ExpSettings *s = &r->set;
    PROSE(b, "bench.protocol", pv_count("N", s->bench_N), pv_count("M", s->bench_M),
          pv_count("per_len", s->bench_per_len), pv_count("first_tested", s->bench_N + 1));
    buf_printf(b, "\n\n");
    reference_table(b, s);
    columns(b, r);
}

/* The pilots' CSV text as a table (a fragment without a final line
 * break): a row per line, a cell per field, the first line the header. */
static Buf pilots_table(char *text) {
    Buf b = {0};
    size_t row = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), row++) {
        size_t cols = 1;
        buf_printf(&b, "%s|", row ? "\n" : "");
        for (char *c = line; *c; c++)
            if (*c == ',')
                buf_printf(&b, " |"), cols++;
            else
                buf_printf(&b, "%s%c", c == line || c[-1] == ',' ? " " : "", *c);
        buf_printf(&b, " |");
        if (row == 0) {
            buf_printf(&b, "\n");
            for (size_t k = 0; k < cols; k++)
                buf_printf(&b, "| --- ");
            buf_printf(&b, "|");
        }
    }
    return b;
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
    PROSE_TEXT(b, "bench.recipe");
    buf_printf(b, "\n\n");
    if (read_regular(path, 1 << 20, &text, &n, &e) != 0 || n == 0) {
        PROSE_TEXT(b, "bench.recipe.none");
    } else {
        text_lf(text, n); /* a checkout that converted line ends reads the same */
        Buf table = pilots_table(text);
        /* what the recipe gives here: the task-columns that learned the
         * training lengths */
        size_t learned = 0, cells = 0;
        for (size_t t = 0; t < r->set.bench_n_tasks; t++)
            for (size_t c = 0; c < r->set.bench_columns; c++, cells++)
                learned += exp_bench_at_N(r, r->set.bench_task[t], exp_bench_column(&r->set, c)) >=
                           EXP_LEARNED;
        char one[32], dropout[32]; /* 3e-4, as --set takes it */
        real_text(one, sizeof one, r->set.bench_lr[0], false);
        real_text(dropout, sizeof dropout, r->set.bench_dropout, false);
        PROSE(b, "bench.recipe.pilots", pv_real("learned", EXP_LEARNED), pv_buf("pilots", &table),
              pv_count("steps", r->set.bench_steps), pv_text("lr", one), pv_text("dropout", dropout),
              pv_count("N", r->set.bench_N), pv_count("learned_cells", learned),
              pv_count("cells", cells));
        exp_bench_part_done(b, &table);
    }
    buf_printf(b, "\n\n");
    free(text);
}

/* Table 1 as the paper makes it: the best seed, on the test lengths. */
static void table1(Buf *b, const ExpResults *r) {
    Band out = exp_bench_tested(r);
    Buf seeds = seeds_phrase(&r->set, true), table = scores_table(r, out, false, true);
    PROSE(b, "bench.table1", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_buf("seeds", &seeds), pv_real("bold", BENCH_BOLD), pv_buf("table", &table));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &seeds);
    exp_bench_part_done(b, &table);
}

/* The grid's tasks with one answer (one blank a tape at every length),
 * "even_pairs, parity_check and cycle_navigation"; how many in *n. */
static Buf one_answer(const ExpSettings *s, size_t *n) {
    Buf b = {0};
    size_t k = 0;
    *n = 0;
    for (size_t t = 0; t < s->bench_n_tasks; t++)
        *n += task_find(s->bench_task[t])->blanks(s->bench_M) == 1;
    for (size_t t = 0; t < s->bench_n_tasks; t++)
        if (task_find(s->bench_task[t])->blanks(s->bench_M) == 1) {
            k++;
            buf_printf(&b, "%s%s", k == 1 ? "" : k == *n ? " and " : ", ", s->bench_task[t]);
        }
    return b;
}

/* The cautious reading: the mean over seeds, of the accuracy and of the
 * exact match, on the test lengths. */
static void means(Buf *b, const ExpResults *r) {
    Band out = exp_bench_tested(r);
    size_t n_one;
    Buf seeds = seeds_phrase(&r->set, false), accuracy = scores_table(r, out, false, false),
        exact = scores_table(r, out, true, false), one = one_answer(&r->set, &n_one), why = {0};
    if (n_one)
        PROSE(&why, "bench.mean.one_answer", pv_buf("tasks", &one));
    PROSE(b, "bench.mean", pv_buf("seeds", &seeds), pv_buf("accuracy", &accuracy),
          pv_count("lo", out.lo), pv_count("hi", out.hi), pv_buf("one_answer", &why),
          pv_buf("exact", &exact));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &seeds);
    exp_bench_part_done(b, &accuracy);
    exp_bench_part_done(b, &exact);
    exp_bench_part_done(b, &one);
    exp_bench_part_done(b, &why);
}

/* Whether each scheme learned the training lengths: at N, the claims'
 * gate, and on all of 1..N. */
static void learned(Buf *b, const ExpResults *r) {
    Band in = exp_bench_trained(r);
    Buf at_N = scores_table(r, (Band){in.hi, in.hi}, false, false),
        trained = scores_table(r, in, false, false);
    PROSE(b, "bench.learned", pv_count("N", in.hi), pv_real("learned", EXP_LEARNED),
          pv_buf("at_N", &at_N), pv_buf("trained", &trained));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &at_N);
    exp_bench_part_done(b, &trained);
}

/* The page's head: where its numbers come from, the tasks, the range
 * tested against the range trained. */
static void intro(Buf *b, const ExpResults *r) {
    const ExpSettings *s = &r->set;
    exp_page_head(b, s, "bench.title", "benchmark");
    char make[EXP_GRID_TEXT + 64], run[EXP_GRID_TEXT + 320];
    exp_grid_make(make, sizeof make, s);
    exp_grid_run(run, sizeof run, s);
    Buf seeds = seeds_phrase(s, false);
    PROSE(b, "bench.intro", pv_text("make", make), pv_text("run", run),
          pv_count("tasks", s->bench_n_tasks), pv_count("N", s->bench_N),
          pv_count("M", s->bench_M), pv_real("ratio", (double)s->bench_M / (double)s->bench_N),
          pv_tmpl("columns", s->bench_columns > exp_bench_paper(&r->set) ? "bench.columns_all"
                                                                   : "bench.columns_paper"),
          pv_buf("seeds", &seeds));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &seeds);
}

/* The page's sections in order, into b. */
static void sections(Buf *b, const BenchPage *p, const char *dir) {
    const ExpResults *r = p->r;
    intro(b, r);
    protocol(b, r);
    pilots(b, r, dir);
    table1(b, r);
    means(b, r);
    learned(b, r);
    exp_bench_chance_table(b, p);
    exp_bench_lengths(b, p);
    exp_bench_claims(b, p);
}

int exp_bench_write(const ExpResults *r, const char *dir, Err *e) {
    if (r->failed)
        return err_set(e, ERR_RUNTIME, "out of memory keeping the benchmark's results");
    exp_page_begin();
    BenchPage p = {.r = r};
    exp_bench_pairs(&p.pairs, r);
    int rc = exp_bench_chance(&p.chance, r, e);
    if (!rc && exp_bench_stability(&p.stability, &p, BENCH_STABILITY_RESAMPLES))
        rc = err_set(e, ERR_RUNTIME, "out of memory resampling the seeds");
    if (!rc)
        rc = write_csv(r, dir, e);
    if (!rc)
        rc = write_chance(&p, dir, e);
    if (!rc)
        rc = exp_bench_stability_csv(&p, dir, e);
    if (!rc)
        rc = exp_bench_figures(&p, dir, e);
    if (rc) {
        exp_bench_chance_free(&p.chance);
        exp_bench_stability_free(&p.stability);
        return rc;
    }
    Buf b = {0};
    sections(&b, &p, dir);
    exp_bench_chance_free(&p.chance);
    exp_bench_stability_free(&p.stability);
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark.md", dir);
    rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                  : exp_page_end(path, e);
    if (!rc)
        rc = write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}
