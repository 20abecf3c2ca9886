#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PAD 10     /* around a chart */
#define GAP 8      /* between a label and what it labels */
#define TICK 5     /* tick mark length */
#define CBAR_W 20  /* colour bar strip */
#define SWATCH 30  /* legend line sample */
#define MAX_TICKS 64

static int th(void) { return text_height(TEXT_SCALE); }

static int imax(int a, int b) { return a > b ? a : b; }

/* Anchors of the map at t = -1, -0.5, 0, 0.5, 1; linear between them. */
static const Rgb ANCHOR[5] = {
    {35, 60, 140}, {115, 160, 210}, {246, 246, 246}, {225, 125, 95}, {145, 15, 35},
};

Rgb colormap(double t) {
    if (isnan(t))
        return (Rgb){160, 160, 160};
    t = t < -1.0 ? -1.0 : t > 1.0 ? 1.0 : t;
    double s = (t + 1.0) * 2.0; /* 0..4 over the anchors */
    int i = (int)floor(s);
    if (i >= 4)
        return ANCHOR[4];
    double f = s - i;
    Rgb a = ANCHOR[i], b = ANCHOR[i + 1];
    return (Rgb){(unsigned char)lround(a.r + (b.r - a.r) * f),
                 (unsigned char)lround(a.g + (b.g - a.g) * f),
                 (unsigned char)lround(a.b + (b.b - a.b) * f)};
}

double colormap_position(double v, double vmin, double vmax, bool diverging) {
    if (diverging)
        return vmax > 0.0 ? v / vmax : 0.0;
    return vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.0;
}

double nice_range(double *lo, double *hi, int target) {
    if (!(*hi > *lo)) {
        double pad = fabs(*lo) > 0.0 ? fabs(*lo) * 0.1 : 1.0;
        *lo -= pad;
        *hi += pad;
    }
    double raw = (*hi - *lo) / target, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    double step = (f < 1.5 ? 1.0 : f < 3.0 ? 2.0 : f < 7.0 ? 5.0 : 10.0) * mag;
    /* A small slack so that a bound already on a tick stays there. */
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
    return step;
}

void tick_label(char *buf, size_t cap, double v, double step) {
    int dec = (int)ceil(-log10(step) - 1e-9);
    if (dec < 0)
        dec = 0;
    if (fabs(v) < step * 1e-6)
        v = 0.0;
    snprintf(buf, cap, "%.*f", dec, v);
}

/* Ticks at multiples of step inside [lo, hi]; returns how many. */
static size_t ticks_inside(double *t, double lo, double hi, double step) {
    size_t n = 0;
    for (double k = ceil(lo / step - 1e-9); n < MAX_TICKS; k += 1.0) {
        double v = k * step;
        if (v > hi + step * 1e-9)
            break;
        t[n++] = v;
    }
    return n;
}

/* A chart's title, centred over its data area but never left of the
 * chart's own edge (x), at the top (y). */
static void draw_title(Canvas *cv, int x, int y, Box area, const char *title) {
    if (!title)
        return;
    int cx = area.x + area.w / 2, tw = text_width(title, TEXT_SCALE);
    if (cx - tw / 2 < x + PAD)
        cx = x + PAD + tw / 2;
    canvas_text(cv, cx, y + PAD, title, TEXT_SCALE, RGB_BLACK, ALIGN_CENTER, false);
}

/* ---- heatmaps ---- */

/* Every how many rows (or columns) of `px` pixels a numbered tick fits
 * labels `need` pixels apart: 1, 2, 5, 10, 20, 25, 50, ... */
static size_t tick_every(int px, int need) {
    static const size_t steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if ((long)steps[i] * px >= need)
            return steps[i];
    return 10000;
}

static int names_width(const char *const *names, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n; i++)
        w = imax(w, text_width(names[i], TEXT_SCALE));
    return w;
}

static int number_width(long first, size_t n) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%ld", first);
    snprintf(b, sizeof b, "%ld", first + (long)n - 1);
    return imax(text_width(a, TEXT_SCALE), text_width(b, TEXT_SCALE));
}

/* The label of row or column i: its name, or its number when the number
 * falls on a tick (every `every`); NULL when it gets none. */
static const char *cell_label(char *buf, size_t cap, const char *const *names, long first,
                              size_t i, size_t every) {
    if (names)
        return names[i];
    long num = first + (long)i;
    if (num % (long)every != 0)
        return NULL;
    snprintf(buf, cap, "%ld", num);
    return buf;
}

typedef struct {
    int left, top, below;  /* margins around the cells */
    bool x_vertical;       /* column names read upwards */
    int w, h;              /* the whole chart */
} HeatLayout;

static HeatLayout heat_layout(const Heatmap *hm) {
    HeatLayout L;
    int yw = hm->ynames ? names_width(hm->ynames, hm->rows) : number_width(hm->yfirst, hm->rows);
    L.left = PAD + (hm->ylabel ? th() + GAP : 0) + yw + TICK + 4;
    L.top = PAD + (hm->title ? th() + 2 * GAP : 0);
    int xh = th();
    L.x_vertical = false;
    if (hm->xnames) {
        int nw = names_width(hm->xnames, hm->cols);
        L.x_vertical = nw + 6 > hm->cell_w;
        if (L.x_vertical)
            xh = nw;
    }
    L.below = TICK + 4 + xh + (hm->xlabel ? GAP + th() : 0) + PAD;
    int cw = (int)hm->cols * hm->cell_w, ch = (int)hm->rows * hm->cell_h;
    int right = PAD;
    if (hm->cbar_label)
        right = 2 * GAP + colorbar_width(ch, hm->vmin, hm->vmax, hm->diverging, hm->cbar_label) +
                PAD;
    L.w = imax(L.left + cw + right, (hm->title ? text_width(hm->title, TEXT_SCALE) : 0) + 2 * PAD);
    L.h = L.top + ch + L.below;
    return L;
}

void heatmap_size(const Heatmap *hm, int *w, int *h) {
    HeatLayout L = heat_layout(hm);
    *w = L.w;
    *h = L.h;
}

void heatmap_draw(Canvas *cv, int x, int y, const Heatmap *hm, Box *cells) {
    HeatLayout L = heat_layout(hm);
    int cw = hm->cell_w, ch = hm->cell_h;
    Box b = {x + L.left, y + L.top, (int)hm->cols * cw, (int)hm->rows * ch};
    if (cells)
        *cells = b;
    draw_title(cv, x, y, b, hm->title);
    for (size_t r = 0; r < hm->rows; r++)
        for (size_t c = 0; c < hm->cols; c++) {
            double t = colormap_position(hm->v[r * hm->cols + c], hm->vmin, hm->vmax,
                                         hm->diverging);
            int x0 = b.x + (int)c * cw, y0 = b.y + (int)r * ch;
            canvas_fill(cv, x0, y0, x0 + cw, y0 + ch, colormap(t));
        }
    canvas_frame(cv, (Box){b.x - 1, b.y - 1, b.w + 2, b.h + 2}, RGB_GREY);

    /* rows: a name each, or numbers every few rows */
    size_t ey = hm->ynames ? 1 : tick_every(ch, th() + 6);
    char buf[32];
    for (size_t r = 0; r < hm->rows; r++) {
        const char *lab = cell_label(buf, sizeof buf, hm->ynames, hm->yfirst, r, ey);
        if (!lab)
            continue;
        int cy = b.y + (int)r * ch + ch / 2;
        canvas_fill(cv, b.x - 1 - TICK, cy, b.x - 1, cy + 1, RGB_BLACK);
        canvas_text(cv, b.x - TICK - 4, cy - th() / 2 + 1, lab, TEXT_SCALE, RGB_BLACK,
                    ALIGN_RIGHT, false);
    }
    /* columns */
    size_t ex = hm->xnames ? 1 : tick_every(cw, number_width(hm->xfirst, hm->cols) + 12);
    int ty = b.y + b.h + 1 + TICK + 4;
    for (size_t c = 0; c < hm->cols; c++) {
        const char *lab = cell_label(buf, sizeof buf, hm->xnames, hm->xfirst, c, ex);
        if (!lab)
            continue;
        int cx = b.x + (int)c * cw + cw / 2;
        canvas_fill(cv, cx, b.y + b.h + 1, cx + 1, b.y + b.h + 1 + TICK, RGB_BLACK);
        if (L.x_vertical)
            canvas_text(cv, cx - th() / 2, ty, lab, TEXT_SCALE, RGB_BLACK, ALIGN_RIGHT, true);
        else
            canvas_text(cv, cx, ty, lab, TEXT_SCALE, RGB_BLACK, ALIGN_CENTER, false);
    }
    int below_ticks = ty + (L.x_vertical ? names_width(hm->xnames, hm->cols) : th());
    if (hm->xlabel)
        canvas_text(cv, b.x + b.w / 2, below_ticks + GAP, hm->xlabel, TEXT_SCALE, RGB_BLACK,
                    ALIGN_CENTER, false);
    if (hm->ylabel)
        canvas_text(cv, x + PAD, b.y + b.h / 2, hm->ylabel, TEXT_SCALE, RGB_BLACK, ALIGN_CENTER,
                    true);
    if (hm->cbar_label)
        colorbar_draw(cv, b.x + b.w + 2 * GAP, b.y, b.h, hm->vmin, hm->vmax, hm->diverging,
                      hm->cbar_label);
}

/* ---- colour bar ---- */

/* Ticks about every 50 pixels of an h-pixel bar. */
static double cbar_ticks(double *t, size_t *n, double vmin, double vmax, bool diverging, int h) {
    double lo = diverging ? -vmax : vmin, hi = vmax;
    double a = lo, b = hi;
    double step = nice_range(&a, &b, h < 100 ? 2 : h > 400 ? 8 : h / 50);
    *n = ticks_inside(t, lo, hi, step);
    return step;
}

int colorbar_width(int h, double vmin, double vmax, bool diverging, const char *label) {
    double t[MAX_TICKS];
    size_t n;
    double step = cbar_ticks(t, &n, vmin, vmax, diverging, h);
    int w = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        tick_label(buf, sizeof buf, t[i], step);
        w = imax(w, text_width(buf, TEXT_SCALE));
    }
    return CBAR_W + TICK + 4 + w + (label ? GAP + th() : 0);
}

void colorbar_draw(Canvas *cv, int x, int y, int h, double vmin, double vmax, bool diverging,
                   const char *label) {
    double lo = diverging ? -vmax : vmin, hi = vmax;
    if (h < 2)
        h = 2;
    /* Row k shows the value at its centre, top = hi, bottom = lo. */
    for (int k = 0; k < h; k++) {
        double v = hi - (hi - lo) * (k + 0.5) / h;
        canvas_fill(cv, x, y + k, x + CBAR_W, y + k + 1,
                    colormap(colormap_position(v, vmin, vmax, diverging)));
    }
    canvas_frame(cv, (Box){x - 1, y - 1, CBAR_W + 2, h + 2}, RGB_GREY);
    double t[MAX_TICKS];
    size_t n;
    double step = cbar_ticks(t, &n, vmin, vmax, diverging, h);
    int lw = 0;
    for (size_t i = 0; i < n; i++) {
        int ky = y + (int)lround((hi - t[i]) / (hi - lo) * (h - 1));
        char buf[32];
        tick_label(buf, sizeof buf, t[i], step);
        lw = imax(lw, text_width(buf, TEXT_SCALE));
        canvas_fill(cv, x + CBAR_W + 1, ky, x + CBAR_W + 1 + TICK, ky + 1, RGB_BLACK);
        canvas_text(cv, x + CBAR_W + TICK + 4, ky - th() / 2 + 1, buf, TEXT_SCALE, RGB_BLACK,
                    ALIGN_LEFT, false);
    }
    if (label)
        canvas_text(cv, x + CBAR_W + TICK + 4 + lw + GAP, y + h / 2, label, TEXT_SCALE,
                    RGB_BLACK, ALIGN_CENTER, true);
}

/* ---- line charts ---- */

Rgb series_color(size_t i) {
    static const Rgb pal[10] = {
        {30, 110, 180}, {210, 50, 40},  {40, 150, 60},   {235, 135, 20}, {135, 85, 180},
        {120, 80, 60},  {205, 80, 160}, {100, 100, 100}, {160, 160, 30}, {20, 170, 190},
    };
    return pal[i % 10];
}

typedef struct {
    double xmin, xmax, ymin, ymax, xstep, ystep;
    int left, top, legend_w;
    int w, h;
} LineLayout;

static void data_range(const LineChart *lc, bool want_x, double *lo, double *hi) {
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t s = 0; s < lc->n_series; s++)
        for (size_t i = 0; i < lc->series[s].n; i++) {
            double xv = lc->series[s].x[i], yv = lc->series[s].y[i];
            if (!isfinite(xv) || !isfinite(yv))
                continue;
            double v = want_x ? xv : yv;
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    if (!isfinite(*lo)) {
        *lo = 0.0;
        *hi = 1.0;
    }
}

static int legend_width(const LineChart *lc) {
    int w = 0;
    for (size_t s = 0; s < lc->n_series; s++)
        if (lc->series[s].label)
            w = imax(w, SWATCH + GAP + text_width(lc->series[s].label, TEXT_SCALE));
    return w;
}

static LineLayout line_layout(const LineChart *lc) {
    LineLayout L;
    L.xmin = lc->xmin, L.xmax = lc->xmax, L.ymin = lc->ymin, L.ymax = lc->ymax;
    if (!lc->fixed_x)
        data_range(lc, true, &L.xmin, &L.xmax);
    if (!lc->fixed_y)
        data_range(lc, false, &L.ymin, &L.ymax);
    /* x: ticks inside the data's own range, so the lines reach both ends;
     * y: rounded out to ticks, so every point sits inside the frame. */
    double a = L.xmin, b = L.xmax;
    L.xstep = nice_range(&a, &b, 6);
    if (lc->x_integer && L.xstep < 1.0)
        L.xstep = 1.0;
    if (!(L.xmax > L.xmin))
        L.xmin = a, L.xmax = b;
    if (lc->fixed_y) {
        a = L.ymin, b = L.ymax;
        L.ystep = nice_range(&a, &b, 5);
    } else {
        L.ystep = nice_range(&L.ymin, &L.ymax, 5);
    }
    double t[MAX_TICKS];
    size_t n = ticks_inside(t, L.ymin, L.ymax, L.ystep);
    int yw = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        tick_label(buf, sizeof buf, t[i], L.ystep);
        yw = imax(yw, text_width(buf, TEXT_SCALE));
    }
    L.left = PAD + (lc->ylabel ? th() + GAP : 0) + yw + TICK + 4;
    L.top = PAD + (lc->title ? th() + 2 * GAP : 0);
    L.legend_w = lc->legend ? legend_width(lc) : 0;
    int right = L.legend_w ? 3 * GAP + L.legend_w + PAD : 4 * PAD;
    L.w = imax(L.left + lc->plot_w + right,
               (lc->title ? text_width(lc->title, TEXT_SCALE) : 0) + 2 * PAD);
    L.h = L.top + lc->plot_h + TICK + 4 + th() + (lc->xlabel ? GAP + th() : 0) + PAD;
    return L;
}

void linechart_size(const LineChart *lc, int *w, int *h) {
    LineLayout L = line_layout(lc);
    *w = L.w;
    *h = L.h;
}

/* Clips the segment to the box [x0,x1] x [y0,y1] (Liang-Barsky); false if
 * nothing is left. */
static bool clip(double *ax, double *ay, double *bx, double *by, double x0, double y0, double x1,
                 double y1) {
    double dx = *bx - *ax, dy = *by - *ay, t0 = 0.0, t1 = 1.0;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0)
                return false;
            continue;
        }
        double r = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = fmax(t0, r);
        else
            t1 = fmin(t1, r);
    }
    if (t0 > t1)
        return false;
    double sx = *ax, sy = *ay;
    *ax = sx + t0 * dx, *ay = sy + t0 * dy;
    *bx = sx + t1 * dx, *by = sy + t1 * dy;
    return true;
}

/* Strokes from corner to corner of the polygon p (k corners), closed. */
static size_t polygon(double *seg, const double *p, size_t k) {
    for (size_t i = 0; i < k; i++) {
        size_t j = (i + 1) % k;
        seg[4 * i] = p[2 * i], seg[4 * i + 1] = p[2 * i + 1];
        seg[4 * i + 2] = p[2 * j], seg[4 * i + 3] = p[2 * j + 1];
    }
    return k;
}

void marker_draw(Canvas *cv, double x, double y, Marker m, Rgb col) {
    /* The shapes a little larger than the dot, so that their outlines
     * weigh about as much to the eye; sizes are half-widths in pixels. */
    const double pi = 3.14159265358979323846, sq = 4.5, di = 6.0, tri = 6.0, arm = 4.5;
    double seg[4 * 24], p[2 * 24];
    size_t n = 0;
    switch (m) {
    case MARKER_CIRCLE: /* a 24-gon of radius 5: within 0.05 pixel of the circle */
        for (int i = 0; i < 24; i++)
            p[2 * i] = x + 5.0 * cos(i * pi / 12.0), p[2 * i + 1] = y + 5.0 * sin(i * pi / 12.0);
        n = polygon(seg, p, 24);
        break;
    case MARKER_SQUARE:
        n = polygon(seg, (double[]){x - sq, y - sq, x + sq, y - sq, x + sq, y + sq, x - sq, y + sq},
                    4);
        break;
    case MARKER_DIAMOND:
        n = polygon(seg, (double[]){x, y - di, x + di, y, x, y + di, x - di, y}, 4);
        break;
    case MARKER_TRIANGLE: /* equilateral, its centre on the point */
        n = polygon(seg, (double[]){x, y - tri, x + tri * 0.8660254, y + tri / 2, x - tri * 0.8660254,
                                    y + tri / 2}, 3);
        break;
    case MARKER_CROSS:
        memcpy(seg, (double[]){x - arm, y - arm, x + arm, y + arm, x - arm, y + arm, x + arm,
                               y - arm}, 8 * sizeof *seg);
        n = 2;
        break;
    case MARKER_PLUS: /* arms a pixel longer: the cross's run on the diagonal */
        memcpy(seg, (double[]){x - arm - 1, y, x + arm + 1, y, x, y - arm - 1, x, y + arm + 1},
               8 * sizeof *seg);
        n = 2;
        break;
    default: /* MARKER_DOT: the one mark before there were others, drawn as then */
        canvas_line(cv, x, y, x, y, 8.0, col, 0.0, 0.0);
        return;
    }
    /* the strokes of a cross a little heavier: two lines against an outline's four */
    canvas_strokes(cv, seg, n, m == MARKER_CROSS || m == MARKER_PLUS ? 2.2 : 1.8, col);
}

static void draw_series(Canvas *cv, const Series *s, const LineLayout *L, Box a) {
    double sx = (a.w - 1) / (L->xmax - L->xmin), sy = (a.h - 1) / (L->ymax - L->ymin);
    double along = 0.0; /* keeps dashes running across segments */
    for (size_t i = 0; i + 1 < s->n && !s->no_line; i++) {
        double y0 = s->y[i], y1 = s->y[i + 1];
        if (!isfinite(y0) || !isfinite(y1))
            continue;
        double ax = a.x + 0.5 + (s->x[i] - L->xmin) * sx, ay = a.y + 0.5 + (L->ymax - y0) * sy;
        double bx = a.x + 0.5 + (s->x[i + 1] - L->xmin) * sx;
        double by = a.y + 0.5 + (L->ymax - y1) * sy;
        double seg = hypot(bx - ax, by - ay);
        if (clip(&ax, &ay, &bx, &by, a.x, a.y, a.x + a.w, a.y + a.h))
            canvas_line(cv, ax, ay, bx, by, 2.5, s->color, s->dashed ? 8.0 : 0.0, along);
        along += seg;
    }
    if (!s->markers && !s->no_line && s->n != 1) /* a lone point has no line to show it */
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->y[i]) || s->x[i] < L->xmin || s->x[i] > L->xmax || s->y[i] < L->ymin ||
            s->y[i] > L->ymax)
            continue;
        double px = a.x + 0.5 + (s->x[i] - L->xmin) * sx, py = a.y + 0.5 + (L->ymax - s->y[i]) * sy;
        marker_draw(cv, px, py, s->marker, s->color);
    }
}

void linechart_draw(Canvas *cv, int x, int y, const LineChart *lc, Box *area) {
    LineLayout L = line_layout(lc);
    Box a = {x + L.left, y + L.top, lc->plot_w, lc->plot_h};
    if (area)
        *area = a;
    draw_title(cv, x, y, a, lc->title);
    double t[MAX_TICKS];
    /* y grid and labels */
    size_t n = ticks_inside(t, L.ymin, L.ymax, L.ystep);
    for (size_t i = 0; i < n; i++) {
        int py = a.y + (int)lround((L.ymax - t[i]) / (L.ymax - L.ymin) * (a.h - 1));
        char buf[32];
        tick_label(buf, sizeof buf, t[i], L.ystep);
        canvas_fill(cv, a.x, py, a.x + a.w, py + 1, fabs(t[i]) < L.ystep * 1e-6 ? RGB_GREY : RGB_LIGHT);
        canvas_fill(cv, a.x - TICK, py, a.x, py + 1, RGB_BLACK);
        canvas_text(cv, a.x - TICK - 4, py - th() / 2 + 1, buf, TEXT_SCALE, RGB_BLACK,
                    ALIGN_RIGHT, false);
    }
    /* x grid and labels */
    n = ticks_inside(t, L.xmin, L.xmax, L.xstep);
    for (size_t i = 0; i < n; i++) {
        int px = a.x + (int)lround((t[i] - L.xmin) / (L.xmax - L.xmin) * (a.w - 1));
        char buf[32];
        tick_label(buf, sizeof buf, t[i], L.xstep);
        canvas_fill(cv, px, a.y, px + 1, a.y + a.h, RGB_LIGHT);
        canvas_fill(cv, px, a.y + a.h, px + 1, a.y + a.h + TICK, RGB_BLACK);
        canvas_text(cv, px, a.y + a.h + TICK + 4, buf, TEXT_SCALE, RGB_BLACK, ALIGN_CENTER, false);
    }
    for (size_t s = 0; s < lc->n_series; s++)
        draw_series(cv, &lc->series[s], &L, a);
    canvas_frame(cv, (Box){a.x - 1, a.y - 1, a.w + 2, a.h + 2}, RGB_BLACK);
    if (lc->xlabel)
        canvas_text(cv, a.x + a.w / 2, a.y + a.h + TICK + 4 + th() + GAP, lc->xlabel, TEXT_SCALE,
                    RGB_BLACK, ALIGN_CENTER, false);
    if (lc->ylabel)
        canvas_text(cv, x + PAD, a.y + a.h / 2, lc->ylabel, TEXT_SCALE, RGB_BLACK, ALIGN_CENTER,
                    true);
    if (!L.legend_w)
        return;
    int lx = a.x + a.w + 3 * GAP, ly = a.y;
    for (size_t s = 0; s < lc->n_series; s++) {
        const Series *sr = &lc->series[s];
        if (!sr->label)
            continue;
        double my = ly + th() / 2.0;
        if (!sr->no_line)
            canvas_line(cv, lx, my, lx + SWATCH, my, 2.5, sr->color, sr->dashed ? 8.0 : 0.0, 0.0);
        if (sr->markers || sr->no_line)
            marker_draw(cv, lx + SWATCH / 2.0, my, sr->marker, sr->color);
        canvas_text(cv, lx + SWATCH + GAP, ly, sr->label, TEXT_SCALE, RGB_BLACK, ALIGN_LEFT, false);
        ly += th() + GAP;
    }
}

int linechart_png(const char *path, const LineChart *lc, Err *e) {
    return linecharts_png(path, lc, 1, 1, e);
}

int linecharts_png(const char *path, const LineChart *lc, size_t n, size_t cols, Err *e) {
    const int margin = 10;
    int w = 0, h = 0;
    for (size_t i = 0; i < n; i++) {
        int cw, ch;
        linechart_size(&lc[i], &cw, &ch);
        w = cw > w ? cw : w;
        h = ch > h ? ch : h;
    }
    size_t rows = (n + cols - 1) / cols;
    Canvas cv;
    int rc = canvas_init(&cv, (int)cols * (w + margin) + margin, (int)rows * (h + margin) + margin,
                         e);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        linechart_draw(&cv, margin + (int)(i % cols) * (w + margin),
                       margin + (int)(i / cols) * (h + margin), &lc[i], NULL);
    rc = canvas_write_png(&cv, path, e);
    canvas_free(&cv);
    return rc;
}
