/* Charts drawn on a Canvas: heatmaps with a colour bar, and line charts
 * with axes, ticks, labels and a legend.
 *
 * Each chart is measured first (chart_size) and then drawn with its top-left
 * corner at a given point, so a figure can place several side by side.
 * Text is at scale 2 (about 14 pixels tall), titles included. */
#ifndef POSENC_CHART_H
#define POSENC_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"

#define TEXT_SCALE 2

/* The diverging colour map: t = -1 is dark blue, 0 near-white (the
 * centre), +1 dark red; t is clamped to [-1, 1], and NaN is grey. Positive
 * data on its own (attention weights) uses the half from 0 to 1. */
Rgb colormap(double t);

/* Where the colour of value v lies on the map: v / vmax when diverging
 * (the range is -vmax..vmax, so 0 is the centre), else (v - vmin) /
 * (vmax - vmin) in [0, 1]. */
double colormap_position(double v, double vmin, double vmax, bool diverging);

/* Rounds [*lo, *hi] out to multiples of a 1-2-5 step giving about `target`
 * intervals, and returns the step. */
double nice_range(double *lo, double *hi, int target);

/* A tick label for v on an axis with that step: as many decimals as the
 * step needs, and never "-0". */
void tick_label(char *buf, size_t cap, double v, double step);

typedef struct {
    const float *v;            /* (rows, cols), row-major */
    size_t rows, cols;
    int cell_w, cell_h;        /* pixels per cell, e.g. 6 x 8 */
    double vmin, vmax;         /* colour range; diverging uses -vmax..vmax */
    bool diverging;
    const char *title;         /* above the cells, or NULL */
    const char *xlabel;        /* below the x tick labels */
    const char *ylabel;        /* left of the y tick labels, reading upwards */
    const char *const *xnames; /* one label per column (tokens), or NULL for numbers */
    const char *const *ynames; /* one label per row, or NULL for numbers */
    long xfirst, yfirst;       /* the number of column 0 and row 0, e.g. 0 or 1 */
    const char *cbar_label;    /* colour bar beside the cells with this label; NULL: none */
} Heatmap;

/* Pixel size of the whole heatmap: labels, cells and colour bar. */
void heatmap_size(const Heatmap *hm, int *w, int *h);

/* Draws hm with its top-left corner at (x,y); *cells (if not NULL) gets the
 * box of the cells: cell (r,c) is the cell_w x cell_h block at
 * cells->x + c * cell_w, cells->y + r * cell_h. */
void heatmap_draw(Canvas *cv, int x, int y, const Heatmap *hm, Box *cells);

/* A colour bar on its own, for several heatmaps sharing one range: the
 * strip is h pixels tall with its top-left at (x,y). */
int colorbar_width(int h, double vmin, double vmax, bool diverging, const char *label);
void colorbar_draw(Canvas *cv, int x, int y, int h, double vmin, double vmax, bool diverging,
                   const char *label);

/* The mark on a series' points and beside its legend entry. Lines that
 * overlap are told apart by their marks where colour alone would not do:
 * the hollow shapes and the strokes leave a mark beneath them visible. */
typedef enum {
    MARKER_DOT,      /* a filled disc, 8 pixels across (the default) */
    MARKER_CIRCLE,   /* hollow */
    MARKER_SQUARE,   /* hollow */
    MARKER_TRIANGLE, /* hollow, point up */
    MARKER_DIAMOND,  /* hollow */
    MARKER_CROSS,    /* x */
    MARKER_PLUS,     /* + */
    MARKER_COUNT
} Marker;

/* Draws marker m centred on (x,y), in pixel coordinates (centres at .5). */
void marker_draw(Canvas *cv, double x, double y, Marker m, Rgb col);

typedef struct {
    const double *x, *y; /* n points; a NaN y leaves a gap in the line */
    size_t n;            /* 0: a legend entry only (what dashes mean) */
    const char *label;   /* legend entry, or NULL for none */
    Rgb color;
    bool dashed;
    bool markers;        /* a mark on every point */
    bool no_line;        /* marks only */
    Marker marker;       /* the mark, e.g. MARKER_SQUARE (default MARKER_DOT) */
} Series;

typedef struct {
    const Series *series;
    size_t n_series;
    const char *title, *xlabel, *ylabel;
    int plot_w, plot_h;       /* the data area, e.g. 700 x 320 */
    bool fixed_x, fixed_y;    /* take the ranges below as they are */
    double xmin, xmax, ymin, ymax;
    bool x_integer;           /* x ticks on whole numbers only (positions, steps) */
    bool legend;              /* a legend to the right of the data area */
} LineChart;

/* The ten colours lines take in turn. */
Rgb series_color(size_t i);

void linechart_size(const LineChart *lc, int *w, int *h);

/* Draws lc with its top-left corner at (x,y); *area (if not NULL) gets the
 * data area. */
void linechart_draw(Canvas *cv, int x, int y, const LineChart *lc, Box *area);

/* One line chart alone on a canvas of its own size, written to path as a
 * PNG (canvas_write_png). */
int linechart_png(const char *path, const LineChart *lc, Err *e);

/* n charts as small multiples, cols to a row, each in a cell the size of
 * the largest, on one canvas written to path as a PNG. */
int linecharts_png(const char *path, const LineChart *lc, size_t n, size_t cols, Err *e);

#endif
