/* An RGB raster to draw on, and the PNG file it becomes.
 *
 * Coordinates are pixels, x to the right and y down, (0,0) the top-left
 * corner. Everything drawn is clipped to the canvas, so a caller may draw
 * partly outside it. Text is DejaVu Sans drawn by stb_truetype with
 * anti-aliased edges (stb_easy_font's segment font where the font file is
 * missing), lines have soft edges; the PNG is written by stb_image_write.
 * Nothing depends on the clock: the same calls with the same font file
 * give the same bytes. */
#ifndef POSENC_CANVAS_H
#define POSENC_CANVAS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"

typedef struct {
    unsigned char r, g, b;
} Rgb;

/* Pixel coordinates are int, not size_t: they go negative where a caller
 * draws past the left or top edge (clipped), and stb takes int. */
typedef struct {
    int w, h;          /* pixels, e.g. 1000 x 560 */
    unsigned char *px; /* (h,w,3) RGB, row-major */
} Canvas;

/* A rectangle of pixels: x..x+w-1, y..y+h-1. */
typedef struct {
    int x, y, w, h;
} Box;

#define RGB_WHITE ((Rgb){255, 255, 255})
#define RGB_BLACK ((Rgb){0, 0, 0})
#define RGB_GREY ((Rgb){110, 110, 110})
#define RGB_LIGHT ((Rgb){225, 225, 225})

/* Largest canvas side; keeps w * h * 3 far inside int and the files small. */
#define CANVAS_MAX_SIDE 8192

/* A white canvas of w x h pixels (1..CANVAS_MAX_SIDE each). */
int canvas_init(Canvas *c, int w, int h, Err *e);
void canvas_free(Canvas *c);

/* The colour at (x,y); (x,y) must be on the canvas. */
Rgb canvas_get(const Canvas *c, int x, int y);

/* Fills the pixels x0 <= x < x1, y0 <= y < y1. */
void canvas_fill(Canvas *c, int x0, int y0, int x1, int y1, Rgb col);

/* A one-pixel outline of the box. */
void canvas_frame(Canvas *c, Box b, Rgb col);

/* A straight line of the given width between two points in pixel
 * coordinates (pixel centres at .5), with soft edges. dash > 0 draws dashes
 * of that length with gaps of the same length; phase is how far along the
 * dash pattern the segment starts (for polylines). */
void canvas_line(Canvas *c, double x0, double y0, double x1, double y1, double width, Rgb col,
                 double dash, double phase);

/* n straight strokes of the given width, seg[4i..4i+3] = x0, y0, x1, y1 of
 * stroke i, drawn as one shape: each pixel takes the colour once, at the
 * coverage of the nearest stroke, so the corners of an outline (a
 * polygon's sides, the arms of a cross) are as even as its sides. */
void canvas_strokes(Canvas *c, const double *seg, size_t n, double width, Rgb col);

/* Text is drawn at an integer scale (2 is the figures' normal size: an em
 * of 19 pixels). Only printable ASCII is drawn; other bytes show as '?'. */
typedef enum { ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT } Align;

/* Pixel size of a line of text at the scale. */
int text_width(const char *s, int scale);
int text_height(int scale);

/* The rows s inks at the scale, top <= row < bottom, counted down from
 * the anchor y of canvas_text (both 0 for no ink): names drawn
 * bottom - top pixels apart never touch, though their boxes
 * (text_height, which keeps the font's room for accents) overlap. */
void text_ink(const char *s, int scale, int *top, int *bottom);

/* Draws one line of text. The anchor (x,y) is the top of the text and, by
 * align, its left end, middle or right end. vertical turns the text a
 * quarter turn to read upwards; the anchor is then its left side, and align
 * runs along the text (ALIGN_CENTER centres it vertically on y). */
void canvas_text(Canvas *c, int x, int y, const char *s, int scale, Rgb col, Align align,
                 bool vertical);

/* Writes the canvas as a PNG. The bytes go to a temporary file beside
 * path, which is renamed over path only when complete, so a failure
 * leaves no partial file. A path that cannot be written (no such directory,
 * no permission) is ERR_INPUT; a failed write ERR_RUNTIME. */
int canvas_write_png(const Canvas *c, const char *path, Err *e);

#endif
