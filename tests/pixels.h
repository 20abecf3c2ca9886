/* Helpers of the picture tests (test_plot.c, test_figures.c): pixels
 * compared with a tolerance, heatmap cells sampled, colours counted. Static
 * inline, so a file that uses some of them is not warned about the rest. */
#ifndef POSENC_TEST_PIXELS_H
#define POSENC_TEST_PIXELS_H

#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/model/model.h"
#include "../src/plot/canvas.h"

static inline bool same(Rgb a, Rgb b, int tol) {
    return abs(a.r - b.r) <= tol && abs(a.g - b.g) <= tol && abs(a.b - b.b) <= tol;
}

/* Fails unless got is want within tol per channel; fmt names the pixel. */
static inline void expect_rgb(Rgb got, Rgb want, int tol, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline void expect_rgb(Rgb got, Rgb want, int tol, const char *fmt, ...) {
    if (same(got, want, tol))
        return;
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ck_abort_msg("%s: got (%d,%d,%d), want (%d,%d,%d)", what, got.r, got.g, got.b, want.r,
                 want.g, want.b);
}

/* The centre of cell (r,c) of a heatmap. */
static inline Rgb cell_at(const Canvas *cv, Box cells, int cw, int ch, size_t r, size_t c) {
    return canvas_get(cv, cells.x + (int)c * cw + cw / 2, cells.y + (int)r * ch + ch / 2);
}

static inline size_t count_color(const Canvas *cv, Rgb col) {
    size_t n = 0;
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++)
            n += same(canvas_get(cv, x, y), col, 0);
    return n;
}

/* A model configuration for the pictures of scheme pc at width C (the
 * defaults' 4 heads and seed 42). */
static inline const Config *cfg_of(const PeConfig *pc, size_t C) {
    static Config c;
    config_default(&c, 2, pc->name);
    c.pe = *pc;
    c.d_model = C;
    return &c;
}

#endif
