#include "canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstb exports the image writer and stb_truetype; stb_easy_font is
 * header-only and static. */
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>
#include <stb/stb_truetype.h>
#include <threads.h>

#include "../core/buf.h"
#include "../core/fileio.h"

#ifndef CANVAS_FONT
#define CANVAS_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#endif

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

/* Blends col into the pixel (x,y), which is on the canvas, at coverage
 * a: none at 0 or below, all of it from 1. */
static void cover(Canvas *c, int x, int y, Rgb col, double a) {
    if (a <= 0.0)
        return;
    if (a > 1.0)
        a = 1.0;
    unsigned char *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    p[0] = mix(p[0], col.r, a);
    p[1] = mix(p[1], col.g, a);
    p[2] = mix(p[2], col.b, a);
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
            cover(c, x, y, col, half + 0.5 - sqrt(ex * ex + ey * ey));
        }
    }
}

/* The distance from (px,py) to the segment (x0,y0)-(x1,y1). */
static double segment_distance(double px, double py, const double *s) {
    double dx = s[2] - s[0], dy = s[3] - s[1], len2 = dx * dx + dy * dy;
    double t = len2 > 0.0 ? ((px - s[0]) * dx + (py - s[1]) * dy) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return hypot(px - s[0] - t * dx, py - s[1] - t * dy);
}

void canvas_strokes(Canvas *c, const double *seg, size_t n, double width, Rgb col) {
    if (n == 0)
        return;
    double half = width / 2.0, lo[2] = {seg[0], seg[1]}, hi[2] = {seg[0], seg[1]};
    for (size_t i = 0; i < 4 * n; i++) {
        lo[i % 2] = fmin(lo[i % 2], seg[i]);
        hi[i % 2] = fmax(hi[i % 2], seg[i]);
    }
    int xa = clampi((int)floor(lo[0] - half - 1), 0, c->w);
    int xb = clampi((int)ceil(hi[0] + half + 1), 0, c->w);
    int ya = clampi((int)floor(lo[1] - half - 1), 0, c->h);
    int yb = clampi((int)ceil(hi[1] + half + 1), 0, c->h);
    for (int y = ya; y < yb; y++)
        for (int x = xa; x < xb; x++) {
            /* the nearest stroke's coverage, blended once: where two
             * strokes meet, the corner is no darker than the strokes */
            double d = INFINITY;
            for (size_t i = 0; i < n; i++)
                d = fmin(d, segment_distance(x + 0.5, y + 0.5, seg + 4 * i));
            cover(c, x, y, col, half + 0.5 - d);
        }
}

/* Only printable ASCII reaches the fonts (stb_easy_font indexes its table
 * by char - 32); anything else is drawn as '?'. */
static char printable(char ch) { return ch >= 32 && ch < 127 ? ch : '?'; }

/* DejaVu Sans through stb_truetype, read once from Debian's
 * fonts-dejavu-core (scripts/deps.sh installs it). Without the file the
 * figures fall back to stb_easy_font's segment font, so a picture is
 * never lost for want of a font; the docs' pictures are drawn with it. */
static struct {
    once_flag once;
    char *ttf;
    stbtt_fontinfo info;
    bool ok;
    int ascent, descent; /* font units */
} font = {.once = ONCE_FLAG_INIT};

static void font_load(void) {
    FILE *f = fopen(CANVAS_FONT, "rb");
    size_t n;
    Err e;
    if (!f)
        return;
    int rc = read_stream(f, CANVAS_FONT, 16u << 20, &font.ttf, &n, &e);
    fclose(f);
    if (rc)
        return;
    const unsigned char *data = (const unsigned char *)font.ttf;
    int off = stbtt_GetFontOffsetForIndex(data, 0);
    font.ok = off >= 0 && stbtt_InitFont(&font.info, data, off) != 0;
    if (font.ok)
        stbtt_GetFontVMetrics(&font.info, &font.ascent, &font.descent, NULL);
}

static bool truetype(void) {
    call_once(&font.once, font_load);
    return font.ok;
}

/* The em at text scale 1, in pixels: DejaVu's capitals then stand about
 * 7 pixels a scale, as tall as the segment font's. */
#define EM_PER_SCALE 9.5f

static float font_scale(int scale) {
    return stbtt_ScaleForMappingEmToPixels(&font.info, EM_PER_SCALE * (float)scale);
}

/* The pixels from one glyph's pen position to the next: its advance, and
 * the kerning with the one after (0 at the end). */
static int advance_px(char ch, char next, float k) {
    int adv, lsb;
    stbtt_GetCodepointHMetrics(&font.info, printable(ch), &adv, &lsb);
    if (next)
        adv += stbtt_GetCodepointKernAdvance(&font.info, printable(ch), printable(next));
    return (int)lroundf((float)adv * k);
}

static int glyph_advance(char ch) {
    char s[2] = {printable(ch), '\0'};
    return stb_easy_font_width(s);
}

int text_width(const char *s, int scale) {
    int w = 0;
    if (truetype()) {
        float k = font_scale(scale);
        for (; *s; s++)
            w += advance_px(s[0], s[1], k);
        return w;
    }
    for (; *s; s++)
        w += glyph_advance(*s);
    return w * scale;
}

/* From the top of the tallest glyph to the bottom of the longest
 * descender. The segment font: caps and digits fill rows 0..6 of a glyph,
 * descenders reach row 9. */
int text_height(int scale) {
    if (truetype())
        return (int)ceilf((float)(font.ascent - font.descent) * font_scale(scale));
    return 9 * scale;
}

void text_ink(const char *s, int scale, int *top, int *bottom) {
    *top = *bottom = 0;
    if (!truetype()) { /* the segment font: its whole box */
        *bottom = text_height(scale);
        return;
    }
    /* the rows text_truetype inks: each glyph's box in whole pixels from
     * the baseline, which sits on a whole pixel */
    float k = font_scale(scale);
    int base = (int)lroundf((float)font.ascent * k), lo = 0, hi = 0;
    bool any = false;
    for (; *s; s++) {
        int x0, y0, x1, y1;
        stbtt_GetCodepointBitmapBox(&font.info, printable(*s), k, k, &x0, &y0, &x1, &y1);
        if (x1 <= x0 || y1 <= y0) /* a space */
            continue;
        lo = any && lo < y0 ? lo : y0;
        hi = any && hi > y1 ? hi : y1;
        any = true;
    }
    if (any)
        *top = base + lo, *bottom = base + hi;
}

/* Blends coverage a (0..255) of col into the pixel (x,y), if on the canvas. */
static void blend(Canvas *c, int x, int y, Rgb col, unsigned char a) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h || a == 0)
        return;
    unsigned char *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    double t = a / 255.0;
    p[0] = mix(p[0], col.r, t);
    p[1] = mix(p[1], col.g, t);
    p[2] = mix(p[2], col.b, t);
}

/* Anti-aliased glyphs on whole-pixel pen positions: the same calls give
 * the same pixels on every machine with the same font file. */
static void text_truetype(Canvas *c, int x, int y, const char *s, int scale, Rgb col,
                          Align align, bool vertical) {
    float k = font_scale(scale);
    int total = text_width(s, scale);
    int u = -(align == ALIGN_LEFT ? 0 : align == ALIGN_CENTER ? total / 2 : total);
    int base = (int)lroundf((float)font.ascent * k); /* the baseline below the top */
    unsigned char small[64 * 64], *glyph = small;
    size_t cap = sizeof small;
    for (; *s; s++) {
        int ch = printable(*s), x0, y0, x1, y1;
        stbtt_GetCodepointBitmapBox(&font.info, ch, k, k, &x0, &y0, &x1, &y1);
        int gw = x1 - x0, gh = y1 - y0;
        size_t need = gw > 0 && gh > 0 ? (size_t)gw * (size_t)gh : 0;
        if (need > cap) { /* a scale far above the figures' own */
            unsigned char *g = glyph == small ? malloc(need) : realloc(glyph, need);
            if (!g) /* out of memory: the rest of the line stays unwritten */
                break;
            glyph = g, cap = need;
        }
        if (need) {
            stbtt_MakeCodepointBitmap(&font.info, glyph, gw, gh, gw, k, k, ch);
            for (int gy = 0; gy < gh; gy++)
                for (int gx = 0; gx < gw; gx++) {
                    int along = u + x0 + gx, across = base + y0 + gy;
                    if (vertical)
                        blend(c, x + across, y - along, col, glyph[gy * gw + gx]);
                    else
                        blend(c, x + along, y + across, col, glyph[gy * gw + gx]);
                }
        }
        u += advance_px(s[0], s[1], k);
    }
    if (glyph != small)
        free(glyph);
}

void canvas_text(Canvas *c, int x, int y, const char *s, int scale, Rgb col, Align align,
                 bool vertical) {
    if (truetype()) {
        text_truetype(c, x, y, s, scale, col, align, vertical);
        return;
    }
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
