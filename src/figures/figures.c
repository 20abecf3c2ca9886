/* The pictures of a position code alone: heatmap, lines, dots, naive. */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pe/analysis.h"
#include "../plot/chart.h"

#define MARGIN 10
#define BETWEEN 20 /* between panels */

static int imax(int a, int b) { return a > b ? a : b; }

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int check_size(const char *what, size_t v, size_t lo, size_t hi, const char *opt, Err *e) {
    if (v < lo || v > hi)
        return err_set(e, ERR_INPUT, "%zu %s is out of range: use %s from %zu to %zu", v, what,
                       opt, lo, hi);
    return 0;
}

static int check_shape(const Config *c, size_t T, Err *e) {
    int rc = check_size("positions", T, 1, FIG_MAX_POSITIONS, "--positions", e);
    if (!rc)
        rc = check_size("channels", c->d_model, 1, FIG_MAX_CHANNELS, "--d-model", e);
    return rc;
}

/* The code P (T,w) of c's scheme, or an error if it has no channels to
 * draw. */
static int code(float **P, PePlan *plan, const Config *c, size_t T, Err *e) {
    int rc = check_shape(c, T, e);
    if (!rc)
        rc = pe_table(P, plan, &c->pe, c->seed, c->d_model, c->n_heads, T, e);
    if (!rc && plan->w == 0) {
        free(*P);
        *P = NULL;
        rc = pe_in_attention(plan->scheme)
                 ? err_set(e, ERR_INPUT, "scheme '%s' adds nothing to the word vectors, so it "
                           "has no code to draw: draw --kind dots (or heatmap) for the part of "
                           "the attention logit it sets", c->pe.name)
                 : err_set(e, ERR_INPUT, "scheme '%s' adds nothing, so there is nothing to "
                           "draw: choose another --pe", c->pe.name);
    }
    return rc;
}

/* S (T,T) as floats, for a heatmap: X X^T of an input scheme, the
 * logit's position part of an attention scheme. */
static int similarity(float **Sf, double **S, PePlan *plan, const Config *c, size_t T, Err *e) {
    *Sf = NULL;
    int rc = check_shape(c, T, e);
    if (!rc)
        rc = pe_similarity(S, plan, &c->pe, c->seed, c->d_model, c->n_heads, T, e);
    if (!rc && !pe_in_attention(plan->scheme) && plan->w == 0)
        rc = err_set(e, ERR_INPUT, "scheme '%s' adds nothing, so there is nothing to draw: "
                     "choose another --pe", c->pe.name);
    if (!rc && !(*Sf = malloc(T * T * sizeof **Sf)))
        rc = err_set(e, ERR_RUNTIME, "out of memory drawing %zu x %zu positions", T, T);
    for (size_t i = 0; !rc && i < T * T; i++)
        (*Sf)[i] = (float)(*S)[i];
    if (rc) {
        free(*S);
        *S = NULL;
    }
    return rc;
}

static double max_abs(const float *v, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m > 0.0 ? m : 1.0;
}

static const char *channel_axis(const PePlan *plan, const PeConfig *pc) {
    return plan->scheme->channel_axis ? plan->scheme->channel_axis(pc) : "channel";
}

/* An attention scheme has no code: its heatmap is the logit's position
 * part, queries down and keys across. */
static int logit_heatmap(Canvas *out, Box *cells, const Config *c, size_t T, Err *e) {
    float *Sf;
    double *S;
    PePlan plan;
    int rc = similarity(&Sf, &S, &plan, c, T, e);
    if (rc)
        return rc;
    char title[160];
    snprintf(title, sizeof title, "%s: the logit's position part, head 0 (%zu heads of %zu)",
             plan.scheme->name, plan.n_heads, plan.head_size);
    int cell = clampi(400 / (int)T, 1, 40);
    Heatmap hm = {.v = Sf, .rows = T, .cols = T, .cell_w = cell, .cell_h = cell,
                  .vmax = max_abs(Sf, T * T), .diverging = true, .title = title,
                  .xlabel = "key position", .ylabel = "query position", .cbar_label = "logit"};
    int w, h;
    heatmap_size(&hm, &w, &h);
    if (!(rc = canvas_init(out, w + 2 * MARGIN, h + 2 * MARGIN, e)))
        heatmap_draw(out, MARGIN, MARGIN, &hm, cells);
    free(Sf);
    free(S);
    return rc;
}

int fig_heatmap(Canvas *out, Box *cells, const Config *c, size_t T, Err *e) {
    const PeScheme *s = pe_find(c->pe.name);
    if (s && pe_in_attention(s))
        return logit_heatmap(out, cells, c, T, e);
    float *P;
    PePlan plan;
    int rc = code(&P, &plan, c, T, e);
    if (rc)
        return rc;
    const PeConfig *pc = &c->pe;
    size_t C = c->d_model;
    char title[160];
    snprintf(title, sizeof title, "%s: %zu positions x %zu channel%s (d_model %zu, %s)",
             plan.scheme->name, T, plan.w, plan.w == 1 ? "" : "s", C, combine_name(plan.combine));
    /* About 800 x 400 pixels of cells, whole pixels per cell. */
    Heatmap hm = {
        .v = P, .rows = T, .cols = plan.w,
        .cell_w = clampi(800 / (int)plan.w, 1, 40), .cell_h = clampi(400 / (int)T, 1, 40),
        .vmax = max_abs(P, T * plan.w), .diverging = true,
        .title = title, .xlabel = channel_axis(&plan, pc), .ylabel = "position",
        .yfirst = (long)plan.scheme->first_position, .cbar_label = "value",
    };
    int w, h;
    heatmap_size(&hm, &w, &h);
    if (!(rc = canvas_init(out, w + 2 * MARGIN, h + 2 * MARGIN, e)))
        heatmap_draw(out, MARGIN, MARGIN, &hm, cells);
    free(P);
    return rc;
}

int fig_lines(Canvas *out, const Config *c, const size_t *channels, size_t n_channels, size_t T,
              Err *e) {
    if (n_channels == 0 || n_channels > 10)
        return err_set(e, ERR_INPUT, "draw 1 to 10 channels, not %zu", n_channels);
    if (T < 2)
        return err_set(e, ERR_INPUT, "a line needs 2 positions or more: raise --positions");
    float *P;
    PePlan plan;
    int rc = code(&P, &plan, c, T, e);
    if (rc)
        return rc;
    const PeConfig *pc = &c->pe;
    size_t C = c->d_model, w = plan.w, first = plan.scheme->first_position;
    for (size_t k = 0; k < n_channels; k++)
        if (channels[k] >= w) {
            free(P);
            return err_set(e, ERR_INPUT, "channel %zu is out of range: %s at d_model %zu has "
                           "channels 0..%zu", channels[k], plan.scheme->name, C, w - 1);
        }
    double *x = malloc(T * sizeof *x), *y = malloc(n_channels * T * sizeof *y);
    Series s[10];
    char labels[10][48];
    if (!x || !y) {
        rc = err_set(e, ERR_RUNTIME, "out of memory drawing lines");
        goto done;
    }
    for (size_t t = 0; t < T; t++)
        x[t] = (double)(t + first);
    for (size_t k = 0; k < n_channels; k++) {
        for (size_t t = 0; t < T; t++)
            y[k * T + t] = P[t * w + channels[k]];
        char name[32] = "";
        if (plan.scheme->channel_name)
            plan.scheme->channel_name(name, sizeof name, pc, w, channels[k]);
        snprintf(labels[k], sizeof labels[k], "channel %zu%s%s", channels[k], name[0] ? ": " : "",
                 name);
        s[k] = (Series){.x = x, .y = y + k * T, .n = T, .label = labels[k],
                        .color = series_color(k)};
    }
    char title[160];
    snprintf(title, sizeof title, "%s, d_model %zu: channels over %zu positions",
             plan.scheme->name, C, T);
    LineChart lc = {.series = s, .n_series = n_channels, .title = title, .xlabel = "position",
                    .ylabel = "value", .x_integer = true, .plot_w = 640, .plot_h = 340, .legend = true};
    int cw, ch;
    linechart_size(&lc, &cw, &ch);
    if (!(rc = canvas_init(out, cw + 2 * MARGIN, ch + 2 * MARGIN, e)))
        linechart_draw(out, MARGIN, MARGIN, &lc, NULL);
done:
    free(x);
    free(y);
    free(P);
    return rc;
}

int fig_dots(Canvas *out, Box *cells, const Config *c, size_t ref, size_t T, Err *e) {
    double *S = NULL, *x = NULL, *y = NULL;
    float *Sf = NULL;
    PePlan plan;
    if (T < 2)
        return err_set(e, ERR_INPUT, "dot products need 2 positions or more: raise --positions");
    int rc = similarity(&Sf, &S, &plan, c, T, e);
    if (rc)
        return rc;
    size_t first = plan.scheme->first_position;
    if (ref < first || ref - first >= T) {
        rc = err_set(e, ERR_INPUT, "--position %zu is out of range: the picture has positions "
                     "%zu..%zu", ref, first, first + T - 1);
        goto done;
    }
    x = malloc(T * sizeof *x);
    y = malloc(T * sizeof *y);
    if (!x || !y) {
        rc = err_set(e, ERR_RUNTIME, "out of memory drawing dot products");
        goto done;
    }
    size_t r = ref - first;
    for (size_t q = 0; q < T; q++) {
        x[q] = (double)(q + first);
        y[q] = S[r * T + q];
    }
    bool attn = pe_in_attention(plan.scheme);
    char t1[120], t2[120], yl[64];
    if (attn)
        snprintf(t1, sizeof t1, "%s, head 0 of %zu: logit S(p, q)", plan.scheme->name,
                 plan.n_heads);
    else
        snprintf(t1, sizeof t1, "%s, d_model %zu: PE_p . PE_q", plan.scheme->name, c->d_model);
    snprintf(t2, sizeof t2, "position %zu against all positions", ref);
    snprintf(yl, sizeof yl, attn ? "S(%zu, q)" : "PE_%zu . PE_q", ref);
    /* Where every value is positive (the sinusoid's lie between about 30
     * and 64 at d_model 128), a scale centred on zero would paint them all
     * one red and hide how they fall with distance: the colours then run
     * from the smallest value (white) to the largest. Values of both signs,
     * or none above zero (ALiBi), keep the scale centred on zero. */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < T * T; i++) {
        lo = fmin(lo, Sf[i]);
        hi = fmax(hi, Sf[i]);
    }
    bool positive = lo > 0.0 && hi > lo;
    int cell = clampi(400 / (int)T, 1, 200);
    Heatmap hm = {.v = Sf, .rows = T, .cols = T, .cell_w = cell, .cell_h = cell,
                  .vmin = positive ? lo : 0.0, .vmax = positive ? hi : max_abs(Sf, T * T),
                  .diverging = !positive, .title = t1, .xlabel = "q",
                  .ylabel = "p", .xfirst = (long)first, .yfirst = (long)first,
                  .cbar_label = attn ? "logit" : "dot product"};
    Series s = {.x = x, .y = y, .n = T, .color = series_color(0)};
    int hw, hh, lw, lh;
    heatmap_size(&hm, &hw, &hh);
    LineChart lc = {.series = &s, .n_series = 1, .title = t2, .xlabel = "position q",
                    .ylabel = yl, .x_integer = true, .plot_w = 440, .plot_h = imax(hh - 100, 260)};
    linechart_size(&lc, &lw, &lh);
    if (!(rc = canvas_init(out, hw + BETWEEN + lw + 2 * MARGIN, imax(hh, lh) + 2 * MARGIN, e))) {
        heatmap_draw(out, MARGIN, MARGIN, &hm, cells);
        linechart_draw(out, MARGIN + hw + BETWEEN, MARGIN, &lc, NULL);
    }
done:
    free(S);
    free(Sf);
    free(x);
    free(y);
    return rc;
}

int fig_bits(Canvas *out, Box *cells, const Config *c, size_t T, Err *e) {
    if (T < 2)
        return err_set(e, ERR_INPUT, "a counter needs 2 positions or more: raise --positions");
    float *P;
    PePlan plan;
    int rc = code(&P, &plan, c, T, e);
    if (rc)
        return rc;
    size_t w = plan.w, first = plan.scheme->first_position, last = first + T - 1, nbits = 1;
    while (nbits < 20 && (last >> nbits) != 0)
        nbits++;
    float *bits = malloc(T * nbits * sizeof *bits);
    if (!bits) {
        free(P);
        return err_set(e, ERR_RUNTIME, "out of memory drawing the bits");
    }
    for (size_t t = 0; t < T * w; t++)
        P[t] = (float)((P[t] > 0.0f) - (P[t] < 0.0f));
    /* (-1)^bit: bit k of p is the sign of a square wave of period 2^(k+1)
     * that starts positive, as a sine does, so the colours of the two
     * panels mean the same thing */
    for (size_t t = 0; t < T; t++)
        for (size_t k = 0; k < nbits; k++)
            bits[t * nbits + k] = ((t + first) >> k) & 1u ? -1.0f : 1.0f;
    char t1[160];
    snprintf(t1, sizeof t1, "sign of %s (d_model %zu): red +, blue -", plan.scheme->name,
             c->d_model);
    int ch = clampi(448 / (int)T, 1, 40), cw = clampi(480 / (int)w, 4, 40);
    Heatmap code_hm = {.v = P, .rows = T, .cols = w, .cell_w = cw, .cell_h = ch, .vmax = 1.0,
                       .diverging = true, .title = t1, .xlabel = channel_axis(&plan, &c->pe),
                       .ylabel = "position", .yfirst = (long)first};
    Heatmap bits_hm = {.v = bits, .rows = T, .cols = nbits, .cell_w = imax(cw, 24), .cell_h = ch,
                       .vmax = 1.0, .diverging = true, .title = "the position in binary: red 0, blue 1",
                       .xlabel = "bit (0: the lowest)", .yfirst = (long)first};
    int w1, h1, w2, h2;
    heatmap_size(&code_hm, &w1, &h1);
    heatmap_size(&bits_hm, &w2, &h2);
    if (!(rc = canvas_init(out, w1 + BETWEEN + w2 + 2 * MARGIN, imax(h1, h2) + 2 * MARGIN, e))) {
        heatmap_draw(out, MARGIN, MARGIN, &code_hm, cells);
        heatmap_draw(out, MARGIN + w1 + BETWEEN, MARGIN, &bits_hm, NULL);
    }
    free(bits);
    free(P);
    return rc;
}

/* The colour of the embeddings' band in the naive picture: light, so the
 * count's line stays in front. */
#define EMBED_BAND ((Rgb){250, 190, 120})

/* Tints the white pixels of a chart's data area between the values lo and
 * hi (the chart's y range is fixed), leaving its lines and grid in front. */
static void band(Canvas *cv, Box a, const LineChart *lc, double lo, double hi, Rgb col) {
    double scale = (a.h - 1) / (lc->ymax - lc->ymin);
    int top = a.y + (int)lround((lc->ymax - hi) * scale);
    int bottom = a.y + (int)lround((lc->ymax - lo) * scale);
    for (int y = imax(top, a.y); y <= bottom && y < a.y + a.h; y++)
        for (int x = a.x; x < a.x + a.w; x++) {
            Rgb p = canvas_get(cv, x, y);
            if (p.r == 255 && p.g == 255 && p.b == 255)
                canvas_fill(cv, x, y, x + 1, y + 1, col);
        }
}

/* The code of a one-channel naive scheme for a sentence of T words. */
static int naive_code(float **P, const char *name, size_t T, Err *e) {
    PeConfig pc;
    PePlan plan;
    pe_config_default(&pc, name);
    return pe_table(P, &plan, &pc, 0, 2, 1, T, e);
}

/* The two closest pairs (a, b) of values v[0..n) that share no position. */
static void two_closest(size_t pair[2][2], const float *v, size_t n) {
    double best[2] = {INFINITY, INFINITY};
    for (int round = 0; round < 2; round++)
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++) {
                if (round == 1 && (a == pair[0][0] || a == pair[0][1] || b == pair[0][0] ||
                                   b == pair[0][1]))
                    continue;
                double d = fabs((double)v[a] - v[b]);
                if (d < best[round]) {
                    best[round] = d;
                    pair[round][0] = a;
                    pair[round][1] = b;
                }
            }
}

int fig_naive(Canvas *out, size_t T, Err *e) {
    int rc = check_size("positions", T, 4, FIG_MAX_POSITIONS, "--positions", e);
    if (rc)
        return rc;
    float *cnt = NULL, *two = NULL, *four = NULL, *sine = NULL;
    double *x = malloc(T * sizeof *x), *y = malloc(4 * T * sizeof *y);
    if (!x || !y) {
        rc = err_set(e, ERR_RUNTIME, "out of memory drawing the naive schemes");
        goto done;
    }
    if ((rc = naive_code(&cnt, "integer", T, e)) || (rc = naive_code(&two, "normalized", 2, e)) ||
        (rc = naive_code(&four, "normalized", 4, e)) || (rc = naive_code(&sine, "sine", T, e)))
        goto done;
    /* positions 1..T in x; y holds the four series side by side */
    double *yc = y, *y2 = y + T, *y4 = y + 2 * T, *ys = y + 3 * T;
    for (size_t t = 0; t < T; t++) {
        x[t] = (double)(t + 1);
        yc[t] = cnt[t];
        ys[t] = sine[t];
        y2[t] = t < 2 ? two[t] : NAN;
        y4[t] = t < 4 ? four[t] : NAN;
    }
    size_t pair[2][2];
    two_closest(pair, sine, T);
    double px[2][2], py[2][2];
    char lab[2][64];
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < 2; j++) {
            px[k][j] = (double)(pair[k][j] + 1);
            py[k][j] = sine[pair[k][j]];
        }
        snprintf(lab[k], sizeof lab[k], "sin %zu = %.4f, sin %zu = %.4f", pair[k][0] + 1,
                 py[k][0], pair[k][1] + 1, py[k][1]);
    }
    Series s_cnt[2] = {
        {.x = x, .y = yc, .n = T, .label = "pos = 1, 2, 3, ...", .color = series_color(0)},
        {.n = 0, .label = "word embedding entries, N(0,1): about -1..1", .color = EMBED_BAND},
    };
    Series s_len[2] = {
        {.x = x, .y = y2, .n = 2, .label = "Thank you (N = 2)", .color = series_color(1),
         .markers = true},
        {.x = x, .y = y4, .n = 4, .label = "Rohan killed the lion (N = 4)",
         .color = series_color(0), .markers = true},
    };
    Series s_sin[3] = {
        {.x = x, .y = ys, .n = T, .label = "sin(pos)", .color = series_color(0), .markers = true},
        {.x = px[0], .y = py[0], .n = 2, .label = lab[0], .color = series_color(1),
         .no_line = true},
        {.x = px[1], .y = py[1], .n = 2, .label = lab[1], .color = series_color(3),
         .no_line = true},
    };
    LineChart charts[3] = {
        {.series = s_cnt, .n_series = 2,
         .title = "integer: the count grows without bound, and dwarfs the word",
         .xlabel = "position", .ylabel = "value", .x_integer = true, .fixed_y = true,
         .ymin = -(double)T / 12.0, .ymax = (double)T, .legend = true},
        {.series = s_len, .n_series = 2,
         .title = "pos/N: word 2 is 1.0 in one sentence and 0.5 in another",
         .xlabel = "position", .ylabel = "code", .x_integer = true, .fixed_y = true, .ymin = 0.0, .ymax = 1.0,
         .legend = true},
        {.series = s_sin, .n_series = 3,
         .title = "sin(pos): bounded, but far-apart positions collide", .xlabel = "position",
         .ylabel = "code", .x_integer = true, .legend = true},
    };
    Box areas[3];
    for (int i = 0; i < 3; i++)
        charts[i].plot_w = 620, charts[i].plot_h = 220;
    if (!(rc = fig_stack(out, charts, 3, MARGIN, BETWEEN, areas, e)))
        band(out, areas[0], &charts[0], -1.0, 1.0, EMBED_BAND);
done:
    free(x);
    free(y);
    free(cnt);
    free(two);
    free(four);
    free(sine);
    return rc;
}
