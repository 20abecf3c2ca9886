/* The benchmark page's figures (accuracy by input length: the mean over
 * tasks, a line per column, and a panel per task) and the section that
 * shows them, with each column's score over the test lengths. The
 * sentences and the figures' titles are templates
 * (templates/bench-3-lengths.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plot/chart.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "prose.h"
#include "tables.h"

#define ALL_TASKS SIZE_MAX

/* A column's accuracy at each length 1..M in y[1..M]: the mean over
 * seeds on task t, or (ALL_TASKS) that averaged over the tasks, NaN at a
 * length where a task has none. */
static void column_line(const ExpResults *r, size_t t, const char *column, double *y) {
    size_t T = r->set.bench_n_tasks;
    for (size_t len = 1; len <= r->set.bench_M; len++) {
        double sum = 0.0;
        for (size_t k = t == ALL_TASKS ? 0 : t; k < (t == ALL_TASKS ? T : t + 1); k++)
            sum += exp_bench_stat(r, r->set.bench_task[k], column, (Band){len, len}, false).mean;
        y[len] = sum / (double)(t == ALL_TASKS ? T : 1);
    }
}

/* The colour of column c of cols: a plain column takes the next, a
 * randomized form its plain one's (one without its plain form among
 * cols, a variant such as "random xl (as run)", the next too); colour
 * holds those of cols[0..c), next the count taken. */
static size_t colour_of(const char *const *cols, size_t c, const size_t *colour, size_t *next) {
    bool randomized;
    const char *plain = exp_bench_scheme(cols[c], &randomized);
    randomized = randomized && strcmp(cols[c] + strlen("random "), plain) == 0; /* no variant */
    for (size_t k = 0; randomized && k < c; k++)
        if (strcmp(cols[k], plain) == 0)
            return colour[k];
    return (*next)++;
}

/* The series of one panel: the columns (the first, none or the floor,
 * then each randomized form dashed in its plain one's colour) in
 * s[0..n), their lines in y (n rows of M + 1); returns the count. */
static size_t panel(const ExpResults *r, size_t t, const char *const *cols, size_t n,
                    const double *x, double *y, Series *s) {
    size_t M = r->set.bench_M, colour[1 + EXP_BENCH_MAX], next = 0;
    for (size_t c = 0; c < n; c++) {
        double *yc = y + c * (M + 1);
        column_line(r, t, cols[c], yc);
        bool randomized = strncmp(cols[c], "random ", 7) == 0;
        colour[c] = colour_of(cols, c, colour, &next);
        s[c] = (Series){.x = x + 1, .y = yc + 1, .n = M, .label = cols[c],
                        .color = series_color(colour[c]), .dashed = randomized,
                        .markers = !randomized};
    }
    return n;
}

static const double VY[2] = {0.0, 1.0};

static LineChart chart(Series *s, size_t n, const char *title, int w, int h, bool legend) {
    return (LineChart){.series = s, .n_series = n, .title = title, .xlabel = "input length",
                       .ylabel = "accuracy", .plot_w = w, .plot_h = h, .fixed_y = true,
                       .ymin = 0.0, .ymax = 1.0, .x_integer = true, .legend = legend};
}

/* A panel per task of cols[0..n) (the legend once, beside the first). */
static int task_figure(const ExpResults *r, const char *path, const char *const *cols, size_t n,
                       Err *e) {
    size_t M = r->set.bench_M, T = r->set.bench_n_tasks;
    double *x = xcalloc((1 + T * n) * (M + 1), sizeof *x, "a benchmark figure", e);
    Series *s = xcalloc(T * (n + 1), sizeof *s, "a benchmark figure", e);
    LineChart *lc = xcalloc(T, sizeof *lc, "a benchmark figure", e);
    char(*titles)[96] = xcalloc(T, sizeof *titles, "a benchmark figure", e);
    int rc = x && s && lc && titles ? 0 : ERR_RUNTIME;
    double vx[2] = {(double)r->set.bench_N, (double)r->set.bench_N};
    for (size_t len = 0; !rc && len <= M; len++)
        x[len] = (double)len;
    for (size_t t = 0; !rc && t < T; t++) {
        Series *p = s + t * (n + 1);
        panel(r, t, cols, n, x, x + (1 + t * n) * (M + 1), p);
        p[n] = (Series){.x = vx, .y = VY, .n = 2, .label = "N, the longest trained",
                        .color = RGB_GREY, .dashed = true};
        snprintf(titles[t], sizeof titles[t], "%s (%s)", r->set.bench_task[t],
                 task_level_name(task_find(r->set.bench_task[t])->level));
        lc[t] = chart(p, n + 1, titles[t], 300, 170, t == 0);
    }
    if (!rc)
        rc = linecharts_png(path, lc, T, 3, e);
    free(x), free(s), free(lc), free(titles);
    return rc;
}

/* A template's text as a C string, for a figure's words. */
static void words(char *out, size_t cap, const char *name, size_t tasks) {
    Buf b = {0};
    PROSE(&b, name, pv_count("tasks", tasks));
    snprintf(out, cap, "%.*s", TEXT(b));
    buf_free(&b);
}

/* The mean over tasks, a panel of the paper's columns with the tasks'
 * mean chance floor past N, and one of none with the others when the
 * grid has them. */
static int mean_figure(const BenchPage *p, const char *path, const char *const *others,
                       size_t n_others, Err *e) {
    const ExpResults *r = p->r;
    size_t M = r->set.bench_M, T = r->set.bench_n_tasks, paper = exp_bench_paper(&r->set);
    size_t lines = paper + n_others + 1;
    double *x = xcalloc((1 + lines) * (M + 1), sizeof *x, "a benchmark figure", e);
    Series *s = xcalloc(lines + 4, sizeof *s, "a benchmark figure", e);
    if (!x || !s) {
        free(x), free(s);
        return ERR_RUNTIME;
    }
    const char *cols[EXP_BENCH_MAX];
    for (size_t c = 0; c < paper; c++)
        cols[c] = exp_bench_column(&r->set, c);
    for (size_t len = 0; len <= M; len++)
        x[len] = (double)len;
    double *y = x + (M + 1), *floor_y = y + (lines - 1) * (M + 1);
    double vx[2] = {(double)r->set.bench_N, (double)r->set.bench_N};
    for (size_t len = 1; len <= M; len++) {
        floor_y[len] = 0.0;
        for (size_t t = 0; t < T; t++)
            floor_y[len] += p->chance.share[t * (M + 1) + len] / (double)T;
    }
    char title[2][160], chance[96];
    words(title[0], sizeof title[0], "bench.figure.mean", T);
    words(title[1], sizeof title[1], "bench.figure.mean_others", T);
    words(chance, sizeof chance, "bench.figure.chance", T);
    size_t k = panel(r, ALL_TASKS, cols, paper, x, y, s);
    s[k++] = (Series){.x = x + 1, .y = floor_y + 1, .n = M, .label = chance, .color = RGB_GREY};
    s[k++] = (Series){.x = vx, .y = VY, .n = 2, .label = "N, the longest trained",
                      .color = RGB_GREY, .dashed = true};
    LineChart lc[2] = {chart(s, k, title[0], 600, 400, true)};
    if (n_others) {
        size_t at = k;
        k += panel(r, ALL_TASKS, others, n_others, x, y + paper * (M + 1), s + k);
        s[k++] = s[at - 1]; /* N again */
        lc[1] = chart(s + at, k - at, title[1], 600, 400, true);
    }
    int rc = linecharts_png(path, lc, n_others ? 2 : 1, n_others ? 2 : 1, e);
    free(x), free(s);
    return rc;
}

int exp_bench_figures(const BenchPage *p, const char *dir, Err *e) {
    const ExpResults *r = p->r;
    char path[4096];
    const char *paper[EXP_BENCH_MAX], *others[1 + EXP_BENCH_MAX] = {exp_bench_column(&r->set, 0)};
    for (size_t c = 0; c < exp_bench_paper(&r->set); c++)
        paper[c] = exp_bench_column(&r->set, c);
    /* none (the first column), then every column past the paper's */
    size_t n = 1;
    for (size_t c = exp_bench_paper(&r->set); c < r->set.bench_columns; c++)
        others[n++] = exp_bench_column(&r->set, c);
    snprintf(path, sizeof path, "%s/img/benchmark/mean.png", dir);
    int rc = mean_figure(p, path, others, n > 1 ? n : 0, e);
    snprintf(path, sizeof path, "%s/img/benchmark/paper.png", dir);
    if (!rc)
        rc = task_figure(r, path, paper, exp_bench_paper(&r->set), e);
    if (n == 1) /* none alone: no figure (exp_publish_page removes an old one) */
        return rc;
    snprintf(path, sizeof path, "%s/img/benchmark/others.png", dir);
    return rc ? rc : task_figure(r, path, others, n, e);
}

/* Each column's score, the mean over seeds averaged over the tasks, on
 * the test lengths and (when it differs) the earlier protocol's: a
 * table for a template, without its last line break. */
static Buf ranges_table(const ExpResults *r, Band out, Band earlier, bool shown) {
    Buf b = {0};
    buf_printf(&b, "| column | %zu..%zu |", out.lo, out.hi);
    if (shown)
        buf_printf(&b, " %zu..%zu |", earlier.lo, earlier.hi);
    buf_printf(&b, "\n| --- | ---: |%s", shown ? " ---: |" : "");
    for (size_t c = 0; c < r->set.bench_columns; c++) {
        buf_printf(&b, "\n| %s |", exp_bench_column(&r->set, c));
        for (int k = 0; k < (shown ? 2 : 1); k++) {
            double sum = 0.0;
            for (size_t t = 0; t < r->set.bench_n_tasks; t++)
                sum += exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, c),
                                      k ? earlier : out, false).mean;
            buf_printf(&b, " %s |",
                       exp_num(100.0 * sum / (double)r->set.bench_n_tasks, 1, false).s);
        }
    }
    return b;
}

void exp_bench_lengths(Buf *b, const BenchPage *p) {
    const ExpResults *r = p->r;
    bool shown;
    Band out = exp_bench_tested(r), earlier = exp_bench_earlier(r, &shown);
    Buf table = ranges_table(r, out, earlier, shown), note = {0};
    /* the earlier range beside, or why there is none */
    const char *why = shown ? "bench.lengths.earlier"
                      : out.hi == BENCH_EARLIER_M ? "bench.lengths.same"
                                                  : "bench.lengths.other";
    PROSE(&note, why, pv_count("lo", earlier.lo), pv_count("hi", earlier.hi),
          pv_count("earlier_M", BENCH_EARLIER_M), pv_count("M", out.hi));
    PROSE(b, "bench.lengths", pv_count("tasks", r->set.bench_n_tasks), pv_buf("table", &table),
          pv_buf("note", &note));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &table);
    exp_bench_part_done(b, &note);
    if (r->set.bench_columns > exp_bench_paper(&r->set)) {
        PROSE_TEXT(b, "bench.figures.others");
        buf_printf(b, "\n\n");
    }
}
