/* The pictures of a model: attention maps and training curves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/encoder.h"
#include "../plot/chart.h"
#include "../plot/trainlog.h"
#include "../text/data.h"
#include "figures.h"

#define MARGIN 10
#define BETWEEN 20
#define HEADS_PER_ROW 4
/* The widest row of maps before the heads wrap onto more rows: the four
 * maps of a short sentence (1570 pixels for 4 words) stay in one row, a
 * long sentence's, whose cells the labels keep from shrinking, go two to
 * a row, so that a page showing the picture at its width (about 1000
 * pixels) keeps the labels readable. */
#define MAX_ROW_W 1600
#define NAME_AIR 3 /* pixels between the ink of two rows' names */
#define MAX_TOKENS ((size_t)64)
#define MAX_LOGS 10
#define MAX_HEADS 16 /* drawn; a wider model's title says so */

static int imax(int a, int b) { return a > b ? a : b; }

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The heads' maps, HEADS_PER_ROW to a row, with one colour bar for all. */
static int draw_heads(Canvas *out, Box *cells, const float *att, const char *const *tok,
                      size_t T, size_t NH, const char *title, Err *e) {
    double vmax = 0.0;
    for (size_t i = 0; i < NH * T * T; i++)
        vmax = fmax(vmax, att[i]);
    /* Up to the next tenth, so the bar ends on a round number. */
    vmax = fmin(1.0, ceil(vmax * 10.0 - 1e-9) / 10.0);
    if (vmax <= 0.0)
        vmax = 1.0;
    char names[MAX_HEADS][16];
    Heatmap hm[MAX_HEADS];
    /* cells no smaller than the names' ink and a little air, as each
     * name labels a row and a column: smaller, the names of 24 tokens
     * overprinted each other */
    int top = 0, bottom = 0;
    for (size_t t = 0; t < T; t++) {
        int a, b;
        text_ink(tok[t], TEXT_SCALE, &a, &b);
        top = t == 0 || a < top ? a : top;
        bottom = t == 0 || b > bottom ? b : bottom;
    }
    int cell = clampi(240 / (int)T, bottom - top + NAME_AIR, 60), hw = 0, hh = 0;
    for (size_t h = 0; h < NH && h < MAX_HEADS; h++) {
        snprintf(names[h], sizeof names[h], "head %zu", h);
        hm[h] = (Heatmap){.v = att + h * T * T, .rows = T, .cols = T, .cell_w = cell,
                          .cell_h = cell, .vmin = 0.0, .vmax = vmax, .title = names[h],
                          .xlabel = "key", .ylabel = "query", .xnames = tok, .ynames = tok};
        int w, hgt;
        heatmap_size(&hm[h], &w, &hgt);
        hw = imax(hw, w);
        hh = imax(hh, hgt);
    }
    size_t shown = NH < MAX_HEADS ? NH : MAX_HEADS, cols = shown < HEADS_PER_ROW ? shown : HEADS_PER_ROW;
    int cbw = colorbar_width((int)T * cell, 0.0, vmax, false, "attention weight");
    while (cols > 1 && (int)cols * hw + BETWEEN + cbw > MAX_ROW_W)
        cols = (cols + 1) / 2;
    size_t rows = (shown + cols - 1) / cols;
    int th = text_height(TEXT_SCALE) + 2 * BETWEEN;
    int W = imax((int)cols * hw + BETWEEN + cbw, text_width(title, TEXT_SCALE));
    int rc = canvas_init(out, W + 2 * MARGIN, th + (int)rows * hh + 2 * MARGIN, e);
    if (rc)
        return rc;
    canvas_text(out, MARGIN + W / 2, MARGIN + BETWEEN / 2, title, TEXT_SCALE, RGB_BLACK,
                ALIGN_CENTER, false);
    Box first = {0, 0, 0, 0};
    for (size_t h = 0; h < shown; h++)
        heatmap_draw(out, MARGIN + (int)(h % cols) * hw, MARGIN + th + (int)(h / cols) * hh,
                     &hm[h], h == 0 ? &first : NULL);
    colorbar_draw(out, MARGIN + (int)cols * hw + BETWEEN, first.y, first.h, 0.0, vmax, false,
                  "attention weight");
    if (cells)
        *cells = first;
    return 0;
}

int fig_attention(Canvas *out, Box *cells, const Model *m, const Vocab *v, const char *sentence,
                  size_t layer, const char *about, Err *e) {
    if (layer >= m->cfg.n_layers)
        return err_set(e, ERR_INPUT, "--layer %zu is out of range: the model has layers 0..%zu",
                       layer, m->cfg.n_layers - 1);
    /* a model that pools by [CLS] reads it first: the picture shows it */
    char *text = NULL;
    if (m->cfg.pool == POOL_CLS && !(sentence = text = data_with_cls(sentence, e)))
        return ERR_RUNTIME;
    Words w;
    int *ids = NULL, rc = words_split(&w, sentence, e);
    if (rc) {
        free(text);
        return rc;
    }
    size_t n = 0, lead = config_lead_tokens(&m->cfg); /* w counts a [CLS]; messages do not */
    Acts a = {0};
    char words[96];
    if (w.n > lead && (rc = data_check_words(&w, lead, "the sentence", e)))
        goto done;
    if (w.n <= lead || w.n > MAX_TOKENS) {
        rc = err_set(e, ERR_INPUT, "the sentence has %zu words: draw 1 to %zu", w.n - lead,
                     MAX_TOKENS - lead);
        goto done;
    }
    if (w.n > model_max_positions(m)) {
        /* a trained model's table is what it is: the shorter sentence is
         * the advice that always holds (pe_plot adds --table-len for an
         * untrained model) */
        rc = err_set(e, ERR_INPUT, "the sentence has %s but the model's %s table has rows "
                     "for %zu positions; use a shorter sentence",
                     config_words(&m->cfg, w.n, words, sizeof words), m->pe.scheme->name,
                     model_max_positions(m));
        goto done;
    }
    if ((rc = tokenize(v, sentence, &ids, &n, NULL, e)) || (rc = acts_create(&a, m, 1, n, e)) ||
        (rc = encoder_forward(m, &a, ids, &n, 1, n, e)))
        goto done;
    char title[240];
    size_t NH = m->cfg.n_heads;
    snprintf(title, sizeof title, "attention weights, layer %zu of %zu: %s%s", layer,
             m->cfg.n_layers, about, NH > MAX_HEADS ? " (the first 16 heads)" : "");
    rc = draw_heads(out, cells, a.layer[layer].att, (const char *const *)w.w, n, NH, title, e);
done:
    acts_free(&a);
    free(ids);
    words_free(&w);
    free(text);
    return rc;
}

/* Fills x and y with log column col against step; false if it is empty. */
static bool log_series(Series *s, const TrainLog *log, int col) {
    if (!log->has[col])
        return false;
    for (size_t i = 0; i < log->n; i++)
        if (!isnan(log->col[col][i])) {
            *s = (Series){.x = log->step, .y = log->col[col], .n = log->n};
            return true;
        }
    return false;
}

/* Rows without a value would break the line; keep only the rows that
 * have one, so a validation run every k steps draws as one line. */
static void compact(TrainLog *log, int col, double **xs, double **ys, size_t *n) {
    *n = 0;
    for (size_t i = 0; i < log->n; i++)
        if (!isnan(log->col[col][i])) {
            (*xs)[*n] = log->step[i];
            (*ys)[*n] = log->col[col][i];
            (*n)++;
        }
}

int fig_curves(Canvas *out, const char *const *paths, const char *const *labels, size_t n,
               Err *e) {
    if (n == 0 || n > MAX_LOGS)
        return err_set(e, ERR_INPUT, "give 1 to %d training logs, not %zu", MAX_LOGS, n);
    TrainLog logs[MAX_LOGS];
    char names[MAX_LOGS][64];
    double *buf[MAX_LOGS][LOG_N_COLS][2];
    Series s[2][2 * MAX_LOGS + 2];
    size_t ns[2] = {0, 0};
    bool valid = false;
    int rc = 0;
    memset(buf, 0, sizeof buf);
    size_t loaded = 0;
    for (; loaded < n; loaded++)
        if ((rc = trainlog_read(&logs[loaded], paths[loaded], e)))
            goto done;
    for (size_t i = 0; i < n; i++) {
        if (labels && labels[i])
            snprintf(names[i], sizeof names[i], "%s", labels[i]);
        else
            trainlog_label(names[i], sizeof names[i], paths[i]);
        for (int c = 0; c < LOG_N_COLS; c++) {
            Series sr;
            if (!log_series(&sr, &logs[i], c))
                continue;
            double **xs = &buf[i][c][0], **ys = &buf[i][c][1];
            *xs = malloc(logs[i].n * sizeof **xs);
            *ys = malloc(logs[i].n * sizeof **ys);
            if (!*xs || !*ys) {
                rc = err_set(e, ERR_RUNTIME, "out of memory drawing curves");
                goto done;
            }
            compact(&logs[i], c, xs, ys, &sr.n);
            sr.x = *xs, sr.y = *ys;
            sr.color = series_color(i);
            sr.dashed = c == LOG_VALID_LOSS || c == LOG_VALID_ACCURACY;
            valid = valid || sr.dashed;
            /* one legend entry per log: on its train line, or its valid
             * line when it has no train line */
            int panel = c == LOG_LOSS || c == LOG_VALID_LOSS ? 0 : 1;
            int train = c == LOG_VALID_LOSS ? LOG_LOSS : c == LOG_VALID_ACCURACY ? LOG_ACCURACY : c;
            Series tmp;
            sr.label = !sr.dashed || !log_series(&tmp, &logs[i], train) ? names[i] : NULL;
            s[panel][ns[panel]++] = sr;
        }
    }
    if (ns[0] + ns[1] == 0) {
        rc = err_set(e, ERR_INPUT, "the logs have no values to draw: every loss and accuracy "
                     "field is empty");
        goto done;
    }
    /* Legend entries without points: what solid and dashed mean. */
    for (int p = 0; p < 2; p++)
        if (valid && ns[p]) {
            s[p][ns[p]++] = (Series){.label = "training", .color = RGB_GREY};
            s[p][ns[p]++] = (Series){.label = "validation", .color = RGB_GREY, .dashed = true};
        }
    LineChart lc[2] = {
        {.series = s[0], .n_series = ns[0], .title = "loss", .xlabel = "step", .ylabel = "loss",
         .x_integer = true},
        {.series = s[1], .n_series = ns[1], .title = "accuracy", .xlabel = "step",
         .ylabel = "accuracy", .x_integer = true},
    };
    for (int p = 0; p < 2; p++)
        lc[p].plot_w = 620, lc[p].plot_h = 260, lc[p].legend = true;
    rc = fig_stack(out, lc, 2, MARGIN, BETWEEN, NULL, e);
done:
    for (size_t i = 0; i < loaded; i++) {
        trainlog_free(&logs[i]);
        for (int c = 0; c < LOG_N_COLS; c++)
            free(buf[i][c][0]), free(buf[i][c][1]);
    }
    return rc;
}
