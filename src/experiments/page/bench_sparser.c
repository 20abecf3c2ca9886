/* The benchmark page's section "sparser positions": the randomized columns
 * of this grid beside the same grid with its random positions drawn from
 * a wider range (the run before this one kept the paper's 0..2047 while it
 * scaled the lengths by a quarter), on the seeds both ran: per column and
 * per task, how many learned the training lengths and the mean past them.
 * The plain columns never read the range: their cells are the same files
 * in both grids, and they are left out. The sentences are templates
 * (templates/bench-5-claims.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "prose.h"
#include "tables.h"

/* A column's mean over its seeds below k on band (NaN if a seed's is
 * undefined or none ran). */
static double mean_seeds(const ExpResults *r, const char *task, const char *col, Band band,
                         size_t k) {
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const ExpRun *run = &r->runs[i];
        if (run->kind != EXP_BENCH || run->seed >= k || strcmp(run->task, task) ||
            strcmp(run->name, col))
            continue;
        sum += exp_band_value(run, &band), n++;
    }
    return n ? sum / (double)n : NAN;
}

/* What one grid shows of a column on a task: learned at N, and its mean
 * past N. */
typedef struct {
    bool learned;
    double past;
} Seen;

static Seen seen(const ExpResults *r, const char *task, const char *col, size_t k) {
    size_t N = r->set.bench_N;
    return (Seen){.learned = mean_seeds(r, task, col, (Band){N, N}, k) >= EXP_LEARNED,
                  .past = mean_seeds(r, task, col, exp_bench_tested(r), k)};
}

static bool randomized(const char *column) { return strncmp(column, "random ", 7) == 0; }

/* "0..511" */
static void range_text(char *buf, size_t cap, size_t range) {
    snprintf(buf, cap, "0..%zu", range - 1);
}

void exp_bench_sparser(Buf *b, const BenchPage *p) {
    const ExpResults *r = p->r, *w = r->sparser;
    if (!w)
        return;
    size_t k = w->set.seeds < r->set.seeds ? w->set.seeds : r->set.seeds;
    size_t T = r->set.bench_n_tasks, C = 0;
    char wide[32], ours[32];
    range_text(wide, sizeof wide, w->set.random_range);
    range_text(ours, sizeof ours, r->set.random_range);
    Buf cols = {0}, tasks = {0};
    buf_printf(&cols, "| column | learned at N, %s | learned at N, %s | %zu..%zu, %s (%%) | "
               "%zu..%zu, %s (%%) | tasks higher at %s |\n| --- | ---: | ---: | ---: | ---: | "
               "---: |", wide, ours, r->set.bench_N + 1, r->set.bench_M, wide,
               r->set.bench_N + 1, r->set.bench_M, ours, ours);
    size_t learned[2] = {0, 0}, higher = 0, cells = 0;
    double past[2] = {0.0, 0.0};
    for (size_t c = 0; c < r->set.bench_columns; c++) {
        const char *col = exp_bench_column(&r->set, c);
        if (!randomized(col))
            continue;
        size_t l[2] = {0, 0}, h = 0;
        double m[2] = {0.0, 0.0};
        for (size_t t = 0; t < T; t++) {
            Seen s[2] = {seen(w, r->set.bench_task[t], col, k),
                         seen(r, r->set.bench_task[t], col, k)};
            for (int g = 0; g < 2; g++)
                l[g] += s[g].learned, m[g] += s[g].past;
            h += s[1].past > s[0].past;
        }
        buf_printf(&cols, "\n| %s | %zu | %zu | %s | %s | %zu |", col, l[0], l[1],
                   exp_num(100.0 * m[0] / (double)T, 1, false).s,
                   exp_num(100.0 * m[1] / (double)T, 1, false).s, h);
        for (int g = 0; g < 2; g++)
            learned[g] += l[g], past[g] += m[g];
        higher += h, cells += T, C++;
    }
    buf_printf(&tasks, "| task | learned at N, of %zu, %s | learned at N, of %zu, %s | %zu..%zu, "
               "%s (%%) | %zu..%zu, %s (%%) |\n| --- | ---: | ---: | ---: | ---: |", C, wide, C, ours,
               r->set.bench_N + 1, r->set.bench_M, wide, r->set.bench_N + 1, r->set.bench_M,
               ours);
    for (size_t t = 0; t < T; t++) {
        size_t l[2] = {0, 0};
        double m[2] = {0.0, 0.0};
        for (size_t c = 0; c < r->set.bench_columns; c++) {
            const char *col = exp_bench_column(&r->set, c);
            if (!randomized(col))
                continue;
            Seen s[2] = {seen(w, r->set.bench_task[t], col, k),
                         seen(r, r->set.bench_task[t], col, k)};
            for (int g = 0; g < 2; g++)
                l[g] += s[g].learned, m[g] += s[g].past;
        }
        buf_printf(&tasks, "\n| %s | %zu | %zu | %s | %s |", r->set.bench_task[t], l[0], l[1],
                   exp_num(C ? 100.0 * m[0] / (double)C : NAN, 1, false).s,
                   exp_num(C ? 100.0 * m[1] / (double)C : NAN, 1, false).s);
    }
    double n = cells ? (double)cells : NAN;
    PROSE(b, "bench.sparser", pv_text("wide", wide), pv_text("ours", ours),
          pv_text("folder", r->sparser_dir), pv_count("wide_seeds", w->set.seeds),
          pv_count("seeds", k), pv_count("columns", C), pv_count("tasks", T),
          pv_count("cells", cells), pv_count("learned_wide", learned[0]),
          pv_count("learned_ours", learned[1]), pv_count("lo", r->set.bench_N + 1),
          pv_count("hi", r->set.bench_M), pv_real("past_wide", 100.0 * past[0] / n),
          pv_real("past_ours", 100.0 * past[1] / n), pv_count("higher", higher),
          pv_real("learned", EXP_LEARNED), pv_count("N", r->set.bench_N),
          pv_real("ratio", (double)w->set.random_range / (double)r->set.random_range),
          pv_buf("by_column", &cols), pv_buf("by_task", &tasks));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &cols);
    exp_bench_part_done(b, &tasks);
}
