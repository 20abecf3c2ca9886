#include "canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstb exports the image writer; the font is header-only and static. */
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

#include "../core/buf.h"
#include "../core/fileio.h"

int canvas_init(Canvas *c, int w, int h, Err *e) {
    c->w = c->h = 0;
    c->px = NULL;
    if (w < 1 || h < 1 || w > CANVAS_MAX_SIDE || h > CANVAS_MAX_SIDE)
        return err_set(e, ERR_INPUT,
                       "a picture of %d x %d pixels is out of range (1..%d a side): draw fewer "
                       "positions or channels", w, h, CANVAS_MAX_SIDE);
    c->px = xmalloc((size_t)w * (size_t)h * 3, "the picture", e);
    if (!c->px)
        return ERR_RUNTIME;
    memset(c->px, 255, (size_t)w * (size_t)h * 3);
    c->w = w;
    c->h = h;
    return 0;
}

void canvas_free(Canvas *c) {
    free(c->px);
    c->px = NULL;
    c->w = c->h = 0;
}

Rgb canvas_get(const Canvas *c, int x, int y) {
    const unsigned char *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    return (Rgb){p[0], p[1], p[2]};
}

static void put(Canvas *c, int x, int y, Rgb col) {
    unsigned char *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    p[0] = col.r;
    p[1] = col.g;
    p[2] = col.b;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void canvas_fill(Canvas *c, int x0, int y0, int x1, int y1, Rgb col) {
    x0 = clampi(x0, 0, c->w);
    x1 = clampi(x1, 0, c->w);
    y0 = clampi(y0, 0, c->h);
    y1 = clampi(y1, 0, c->h);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            put(c, x, y, col);
}

void canvas_frame(Canvas *c, Box b, Rgb col) {
    canvas_fill(c, b.x, b.y, b.x + b.w, b.y + 1, col);
    canvas_fill(c, b.x, b.y + b.h - 1, b.x + b.w, b.y + b.h, col);
    canvas_fill(c, b.x, b.y, b.x + 1, b.y + b.h, col);
    canvas_fill(c, b.x + b.w - 1, b.y, b.x + b.w, b.y + b.h, col);
}

static unsigned char mix(unsigned char under, unsigned char over, double a) {
    return (unsigned char)lround(under + (over - under) * a);
}

void canvas_line(Canvas *c, double x0, double y0, double x1, double y1, double width, Rgb col,
                 double dash, double phase) {
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy, len = sqrt(len2);
    double half = width / 2.0;
    /* Coverage falls from 1 to 0 over the pixel at the edge: soft edges
     * without supersampling. */
    int xa = (int)floor(fmin(x0, x1) - half - 1), xb = (int)ceil(fmax(x0, x1) + half + 1);
    int ya = (int)floor(fmin(y0, y1) - half - 1), yb = (int)ceil(fmax(y0, y1) + half + 1);
    xa = clampi(xa, 0, c->w);
    xb = clampi(xb, 0, c->w);
    ya = clampi(ya, 0, c->h);
    yb = clampi(yb, 0, c->h);
    for (int y = ya; y < yb; y++) {
        for (int x = xa; x < xb; x++) {
            double px = x + 0.5 - x0, py = y + 0.5 - y0;
            double t = len2 > 0.0 ? (px * dx + py * dy) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            if (dash > 0.0 && fmod(phase + t * len, 2.0 * dash) >= dash)
                continue;
            double ex = px - t * dx, ey = py - t * dy;
            double a = half + 0.5 - sqrt(ex * ex + ey * ey);
            if (a <= 0.0)
                continue;
            if (a > 1.0)
                a = 1.0;
            unsigned char *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
            p[0] = mix(p[0], col.r, a);
            p[1] = mix(p[1], col.g, a);
            p[2] = mix(p[2], col.b, a);
        }
    }
}

/* stb_easy_font indexes its glyph table by (char - 32), so anything outside
 * printable ASCII must not reach it. */
static char printable(char ch) { return ch >= 32 && ch < 127 ? ch : '?'; }

static int glyph_advance(char ch) {
    char s[2] = {printable(ch), '\0'};
    return stb_easy_font_width(s);
}

int text_width(const char *s, int scale) {
    int w = 0;
    for (; *s; s++)
        w += glyph_advance(*s);
    return w * scale;
}

/* Caps and digits fill rows 0..6 of a glyph, descenders reach row 9. */
int text_height(int scale) { return 9 * scale; }

void canvas_text(Canvas *c, int x, int y, const char *s, int scale, Rgb col, Align align,
                 bool vertical) {
    int total = text_width(s, scale);
    int start = align == ALIGN_LEFT ? 0 : align == ALIGN_CENTER ? total / 2 : total;
    int u = -start; /* distance along the text from the anchor */
    /* One glyph at a time keeps the vertex buffer small: a glyph has at
     * most a few dozen quads of 4 vertices x 16 bytes. */
    float vbuf[1024];
    for (; *s; s++) {
        char g[2] = {printable(*s), '\0'};
        int quads = stb_easy_font_print(0.0f, 0.0f, g, NULL, vbuf, (int)sizeof vbuf);
        for (int q = 0; q < quads; q++) {
            const float *v = vbuf + q * 16; /* 4 vertices of x, y, z, colour */
            int qx0 = (int)v[0], qy0 = (int)v[1], qx1 = (int)v[8], qy1 = (int)v[9];
            int u0 = u + qx0 * scale, u1 = u + qx1 * scale;
            int v0 = qy0 * scale, v1 = qy1 * scale;
            if (vertical)
                canvas_fill(c, x + v0, y - u1, x + v1, y - u0, col);
            else
                canvas_fill(c, x + u0, y + v0, x + u1, y + v1, col);
        }
        u += glyph_advance(*s) * scale;
    }
}

/* The encoder hands the PNG over in pieces; they gather in memory, so the
 * file is written in one go, atomically. */
static void gather(void *ctx, void *data, int size) { buf_put(ctx, data, (size_t)size); }

int canvas_write_png(const Canvas *c, const char *path, Err *e) {
    Buf b = {0};
    int ok = stbi_write_png_to_func(gather, &b, c->w, c->h, 3, c->px, c->w * 3);
    int rc = ok && !b.failed ? write_file_atomic(path, b.p, b.n, e)
                             : err_set(e, ERR_RUNTIME, "out of memory encoding a %dx%d PNG",
                                       c->w, c->h);
    buf_free(&b);
    return rc;
}
