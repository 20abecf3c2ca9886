/* RoPE's pictures: its long-term decay (src/pe/analysis_rope.h) and its
 * wavelengths under the scalings (rope_inv_freq, pe.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../pe/analysis_rope.h"
#include "../plot/chart.h"
#include "figures.h"
#include "../pe/pe_sinusoidal.h"
#include "../pe/pe_rope.h"

#define MARGIN 10

int fig_decay(Canvas *out, const Config *c, size_t T, Err *e) {
    const PeScheme *scheme = pe_find(c->pe.name);
    if (!scheme || !scheme->rotate) /* the bound is about rotated queries and keys */
        return err_set(e, ERR_INPUT, "the decay is a rotation's: --kind decay draws a scheme "
                       "that turns queries and keys (--pe rope), not %s", c->pe.name);
    if (T < 2 || T > FIG_MAX_POSITIONS)
        return err_set(e, ERR_INPUT, "%zu offsets is out of range: use --positions from 2 to %d",
                       T, FIG_MAX_POSITIONS);
    if (c->n_heads == 0 || c->d_model % c->n_heads)
        return err_set(e, ERR_INPUT, "--heads %zu does not divide --d-model %zu", c->n_heads,
                       c->d_model);
    size_t d = c->d_model / c->n_heads;
    double base = pe_base(&c->pe);
    double *x = malloc(T * sizeof *x), *y = malloc(T * sizeof *y);
    int rc = x && y ? rope_decay_bound(y, T, d, base, e)
                    : err_set(e, ERR_RUNTIME, "out of memory drawing the decay");
    if (!rc) {
        for (size_t r = 0; r < T; r++)
            x[r] = (double)r;
        char title[160], label[96];
        snprintf(title, sizeof title, "RoPE's long-term decay: head of %zu channels, base %g",
                 d, base);
        snprintf(label, sizeof label, "(1/%zu) sum of |S_j|, j = 1..%zu", d / 2, d / 2);
        Series s = {.x = x, .y = y, .n = T, .label = label, .color = series_color(0)};
        LineChart lc = {.series = &s, .n_series = 1, .title = title,
                        .xlabel = "relative distance m - n", .ylabel = "relative upper bound",
                        .plot_w = 640, .plot_h = 320, .fixed_y = true, .ymin = 0.0,
                        .ymax = (double)(d / 2 + 1) / 2.0, .x_integer = true, .legend = true};
        int cw, ch;
        linechart_size(&lc, &cw, &ch);
        if (!(rc = canvas_init(out, cw + 2 * MARGIN, ch + 2 * MARGIN, e)))
            linechart_draw(out, MARGIN, MARGIN, &lc, NULL);
    }
    free(x);
    free(y);
    return rc;
}

/* wavelengths: 2 pi / theta_i per pair of a head, log10, for rope as
 * trained and under each scaling; L and S L drawn across. The pairs below
 * the L line turn a full circle within the training length (every angle
 * seen); those above it never do, and past L meet angles never trained. */
int fig_wavelengths(Canvas *out, const Config *c, Err *e) {
    if (c->n_heads == 0 || c->d_model % c->n_heads || (c->d_model / c->n_heads) % 2 ||
        c->d_model / c->n_heads < 4)
        return err_set(e, ERR_INPUT, "--kind wavelengths draws the pairs of one head: --heads "
                       "%zu must divide --d-model %zu into heads of an even number of channels, "
                       "4 or more", c->n_heads, c->d_model);
    size_t HS = c->d_model / c->n_heads, half = HS / 2;
    const PeConfig *given = &c->pe;
    /* the scaling asked for, or all three at its factor (default 4) */
    double S = pe_given(given, &pe_opt_rope_factor) ? pe_get(given, &pe_opt_rope_factor) : 4.0;
    size_t L = pe_given(given, &pe_opt_rope_original_len)
                   ? (size_t)pe_get(given, &pe_opt_rope_original_len)
                   : 4096;
    RopeScaling which[4] = {ROPE_SCALING_NONE, ROPE_SCALING_LINEAR, ROPE_SCALING_NTK,
                            ROPE_SCALING_YARN};
    size_t n_sc = 4;
    if (rope_scaling_of(given) != ROPE_SCALING_NONE)
        which[1] = rope_scaling_of(given), n_sc = 2;
    double *x = malloc(half * sizeof *x), *y = malloc(4 * half * sizeof *y),
           *theta = malloc(half * sizeof *theta);
    if (!x || !y || !theta) {
        free(x), free(y), free(theta);
        return err_set(e, ERR_RUNTIME, "out of memory drawing the wavelengths");
    }
    char labels[4][48], lab_l[2][48];
    Series s[6];
    for (size_t k = 0; k < n_sc; k++) {
        PeConfig pc = *given;
        rope_set_scaling(&pc, which[k], S, L);
        rope_inv_freq(&pc, HS, theta);
        for (size_t i = 0; i < half; i++)
            x[i] = (double)i, y[k * half + i] = log10(2.0 * 3.14159265358979323846 / theta[i]);
        if (which[k] == ROPE_SCALING_NONE)
            snprintf(labels[k], sizeof labels[k], "as trained");
        else
            snprintf(labels[k], sizeof labels[k], "%s x%g", rope_scaling_name(which[k]), S);
        s[k] = (Series){.x = x, .y = y + k * half, .n = half, .label = labels[k],
                        .color = series_color(k), .markers = half <= 32};
    }
    /* L and S L as flat lines over the pairs */
    double xl[2] = {0.0, (double)(half - 1)}, yl[2][2];
    yl[0][0] = yl[0][1] = log10((double)L);
    yl[1][0] = yl[1][1] = log10(S * (double)L);
    snprintf(lab_l[0], sizeof lab_l[0], "L = %zu", L);
    snprintf(lab_l[1], sizeof lab_l[1], "S L = %g", S * (double)L);
    for (int j = 0; j < 2; j++)
        s[n_sc + (size_t)j] = (Series){.x = xl, .y = yl[j], .n = 2, .label = lab_l[j],
                                       .color = {96, 96, 96}, .dashed = j == 1};
    char title[160];
    snprintf(title, sizeof title, "RoPE's wavelengths: head of %zu channels, base %g, "
             "scalings x%g", HS, pe_base(given), S);
    LineChart lc = {.series = s, .n_series = n_sc + 2, .title = title,
                    .xlabel = "pair i", .ylabel = "log10 wavelength (positions)",
                    .plot_w = 640, .plot_h = 360, .x_integer = true, .legend = true};
    int cw, ch;
    linechart_size(&lc, &cw, &ch);
    int rc = canvas_init(out, cw + 2 * MARGIN, ch + 2 * MARGIN, e);
    if (!rc)
        linechart_draw(out, MARGIN, MARGIN, &lc, NULL);
    free(x), free(y), free(theta);
    return rc;
}
