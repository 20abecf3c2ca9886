/* The picture of RoPE's long-term decay (src/pe/analysis_rope.h). */
#include <stdio.h>
#include <stdlib.h>

#include "../pe/analysis_rope.h"
#include "../plot/chart.h"
#include "figures.h"

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
