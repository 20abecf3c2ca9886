/* Pictures: the colour map, PNG files read back with stb_image, cells of
 * known value sampled, the programs' failures leaving no file behind. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "../src/text/vocab.h"
#include "../src/plot/chart.h"
#include "../src/figures/figures.h"
#include "../src/plot/trainlog.h"
#include "pixels.h"
#include "suites.h"
#include "../src/pe/pe_sinusoidal.h"

/* A fresh directory under /tmp; remove it with rm_dir. */
static char *tmp_dir(void) {
    char *d = malloc(64);
    ck_assert_ptr_nonnull(d);
    snprintf(d, 64, "/tmp/posenc_plotXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

static void rm_dir(char *d) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ck_assert_int_eq(system(cmd), 0);
    free(d);
}

static size_t count_entries(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *en; (en = readdir(d));)
        n += strcmp(en->d_name, ".") != 0 && strcmp(en->d_name, "..") != 0;
    closedir(d);
    return n;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static unsigned char *load_png(const char *path, int *w, int *h) {
    int comp;
    unsigned char *img = stbi_load(path, w, h, &comp, 3);
    ck_assert_msg(img != NULL, "%s: %s", path, stbi_failure_reason());
    return img;
}

static Rgb png_at(const unsigned char *img, int w, int x, int y) {
    const unsigned char *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
    return (Rgb){p[0], p[1], p[2]};
}

START_TEST(colormap_is_centred_on_zero) {
    Rgb mid = colormap(0.0), top = colormap(1.0), bot = colormap(-1.0);
    ck_assert(mid.r > 240 && mid.g > 240 && mid.b > 240);
    ck_assert(top.r > top.b && bot.b > bot.r); /* red above zero, blue below */
    expect_rgb(colormap(7.0), top, 0, "clamped above");
    expect_rgb(colormap(-7.0), bot, 0, "clamped below");
    /* darker the further from zero, on both sides */
    for (double t = 0.1; t <= 1.0; t += 0.1) {
        Rgb a = colormap(t - 0.1), b = colormap(t), c = colormap(-t + 0.1), d = colormap(-t);
        ck_assert(b.g <= a.g && d.g <= c.g);
    }
    ck_assert_double_eq(colormap_position(-2.0, 0.0, 4.0, true), -0.5);
    ck_assert_double_eq(colormap_position(3.0, 1.0, 5.0, false), 0.5);
}
END_TEST

START_TEST(ticks_are_round) {
    double lo = 0.0, hi = 0.93;
    double step = nice_range(&lo, &hi, 5);
    ck_assert_double_eq_tol(step, 0.2, 1e-12);
    ck_assert_double_eq_tol(hi, 1.0, 1e-12);
    lo = 3.0, hi = 3.0; /* a flat range still gets an axis */
    nice_range(&lo, &hi, 5);
    ck_assert(lo < 3.0 && hi > 3.0);
    char buf[32];
    tick_label(buf, sizeof buf, -1e-12, 0.5);
    ck_assert_str_eq(buf, "0.0");
    tick_label(buf, sizeof buf, 30.0, 10.0);
    ck_assert_str_eq(buf, "30");
    tick_label(buf, sizeof buf, 0.25, 0.05);
    ck_assert_str_eq(buf, "0.25");
}
END_TEST

START_TEST(text_stays_in_its_box) {
    Canvas cv;
    Err e;
    ck_assert_int_eq(canvas_init(&cv, 300, 200, &e), 0);
    const char *s = "Rohan 0.84";
    int tw = text_width(s, 2), th = text_height(2);
    ck_assert_int_gt(tw, 60);
    canvas_text(&cv, 20, 30, s, 2, RGB_BLACK, ALIGN_LEFT, false);
    canvas_text(&cv, 250, 180, s, 2, RGB_BLACK, ALIGN_LEFT, true);
    canvas_text(&cv, 150, 150, "caf\xc3\xa9\n", 1, RGB_BLACK, ALIGN_CENTER, false);
    size_t inside = 0;
    for (int y = 0; y < cv.h; y++)
        for (int x = 0; x < cv.w; x++) {
            if (same(canvas_get(&cv, x, y), RGB_WHITE, 0))
                continue;
            bool flat = x >= 20 && x < 20 + tw && y >= 30 && y < 30 + th;
            bool up = x >= 250 && x < 250 + th && y > 180 - tw && y <= 180;
            bool odd = y >= 150 && y < 150 + text_height(1);
            ck_assert_msg(flat || up || odd, "ink at (%d,%d) outside the text boxes", x, y);
            inside += flat;
        }
    ck_assert_uint_gt(inside, 100);
    canvas_free(&cv);
}
END_TEST

/* Text far larger than the figures' (glyphs past the small buffer) and
 * with the font's kerning: still inside the box text_width and
 * text_height give, and inked. */
START_TEST(large_text_stays_in_its_box) {
    Canvas cv;
    Err e;
    ck_assert_int_eq(canvas_init(&cv, 900, 200, &e), 0);
    const char *s = "AVWg";
    int tw = text_width(s, 9), th = text_height(9);
    ck_assert_int_lt(tw, 880);
    canvas_text(&cv, 10, 10, s, 9, RGB_BLACK, ALIGN_LEFT, false);
    size_t ink = 0;
    for (int y = 0; y < cv.h; y++)
        for (int x = 0; x < cv.w; x++) {
            if (same(canvas_get(&cv, x, y), RGB_WHITE, 0))
                continue;
            ck_assert_msg(x >= 10 && x < 10 + tw && y >= 10 && y < 10 + th,
                          "ink at (%d,%d) outside the box of %d x %d", x, y, tw, th);
            ink++;
        }
    ck_assert_uint_gt(ink, 1000);
    canvas_free(&cv);
}
END_TEST

/* text_ink names the rows a string inks, no more and no fewer, so names
 * that far apart never touch (the attention maps' labels rely on it):
 * digits need fewer rows than letters with ascenders and descenders,
 * and all of them fewer than text_height's box. */
START_TEST(text_ink_is_the_rows_inked) {
    static const char *const s[] = {"0?1", "Ajg|", "lion", "  "};
    int span[4];
    for (size_t i = 0; i < 4; i++) {
        Canvas cv;
        Err e;
        ck_assert_int_eq(canvas_init(&cv, 200, 100, &e), 0);
        canvas_text(&cv, 10, 20, s[i], 2, RGB_BLACK, ALIGN_LEFT, false);
        int top = cv.h, bottom = -1;
        for (int y = 0; y < cv.h; y++)
            for (int x = 0; x < cv.w; x++)
                if (!same(canvas_get(&cv, x, y), RGB_WHITE, 0))
                    top = y < top ? y : top, bottom = y > bottom ? y : bottom;
        int a, b;
        text_ink(s[i], 2, &a, &b);
        if (bottom < 0) {
            ck_assert_msg(a == 0 && b == 0, "'%s' inks nothing, not rows %d..%d", s[i], a, b);
        } else {
            ck_assert_msg(a == top - 20 && b == bottom + 1 - 20, "'%s': rows %d..%d, said %d..%d",
                          s[i], top - 20, bottom + 1 - 20, a, b);
        }
        span[i] = b - a;
        canvas_free(&cv);
    }
    ck_assert_int_lt(span[0], span[1]);
    ck_assert_int_lt(span[1], text_height(2));
    ck_assert_int_gt(span[0], 10);
}
END_TEST

START_TEST(png_round_trip_is_exact_and_atomic) {
    char *dir = tmp_dir(), path[128];
    snprintf(path, sizeof path, "%s/a.png", dir);
    Canvas cv;
    Err e;
    ck_assert_int_eq(canvas_init(&cv, 37, 23, &e), 0);
    canvas_fill(&cv, 3, 4, 20, 11, colormap(0.3));
    canvas_line(&cv, 0.5, 0.5, 36.5, 22.5, 2.5, (Rgb){10, 200, 30}, 4.0, 0.0);
    canvas_text(&cv, 2, 12, "PE", 1, RGB_BLACK, ALIGN_LEFT, false);
    ck_assert_int_eq(canvas_write_png(&cv, path, &e), 0);
    int w, h;
    unsigned char *img = load_png(path, &w, &h);
    ck_assert_int_eq(w, 37);
    ck_assert_int_eq(h, 23);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            expect_rgb(png_at(img, w, x, y), canvas_get(&cv, x, y), 0, "pixel");
    stbi_image_free(img);
    /* the same canvas gives the same bytes; only the picture is left */
    char *first = slurp(path);
    size_t n1 = strlen(first);
    ck_assert_int_eq(canvas_write_png(&cv, path, &e), 0);
    char *second = slurp(path);
    ck_assert(n1 == strlen(second) && memcmp(first, second, n1) == 0);
    ck_assert_uint_eq(count_entries(dir), 1);
    free(first);
    free(second);
    /* no such directory; a directory in the way of the file */
    snprintf(path, sizeof path, "%s/no/such/dir.png", dir);
    ck_assert_int_eq(canvas_write_png(&cv, path, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, path));
    snprintf(path, sizeof path, "%s/a.png", dir);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(canvas_write_png(&cv, path, &e), ERR_INPUT);
    ck_assert_uint_eq(count_entries(dir), 1);
    canvas_free(&cv);
    rm_dir(dir);
}
END_TEST

/* The sinusoid at position 0 is 0 on even channels (sin 0) and 1 on odd
 * ones (cos 0): the centre and the top of the map, since the range is
 * -1..1. Row 1 holds sin(1) and cos(1) in channels 0 and 1. */
static void check_sinusoid_cells(const Canvas *cv, Box cells, int cw, int ch, size_t d,
                                 SinLayout layout) {
    size_t n_sin = (d + 1) / 2;
    for (size_t c = 0; c < d; c++) {
        bool is_cos = layout == LAYOUT_INTERLEAVED ? c % 2 : c >= n_sin;
        expect_rgb(cell_at(cv, cells, cw, ch, 0, c), colormap(is_cos ? 1.0 : 0.0), 0,
                   "row 0 channel %zu", c);
    }
    size_t cos0 = layout == LAYOUT_INTERLEAVED ? 1 : n_sin;
    expect_rgb(cell_at(cv, cells, cw, ch, 1, 0), colormap(sin(1.0)), 0, "row 1 channel 0");
    expect_rgb(cell_at(cv, cells, cw, ch, 1, cos0), colormap(cos(1.0)), 0, "row 1 cos 0");
}

START_TEST(heatmap_cells_hold_known_values) {
    /* _i: the notes' 50 x 128, their 16 x 64, and the split layout */
    const size_t T[3] = {50, 16, 50}, C[3] = {128, 64, 128};
    SinLayout layout = _i == 2 ? LAYOUT_SPLIT : LAYOUT_INTERLEAVED;
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    if (layout == LAYOUT_SPLIT)
        set_opt(&pc, "--layout", "split");
    Canvas cv;
    Box cells;
    Err e;
    ck_assert_int_eq(fig_heatmap(&cv, &cells, cfg_of(&pc, C[_i]), T[_i], &e), 0);
    int cw = cells.w / (int)C[_i], ch = cells.h / (int)T[_i];
    ck_assert(cw >= 1 && ch >= 1 && cw * (int)C[_i] == cells.w && ch * (int)T[_i] == cells.h);
    check_sinusoid_cells(&cv, cells, cw, ch, C[_i], layout);
    /* and the same through the file */
    char *dir = tmp_dir(), path[128];
    snprintf(path, sizeof path, "%s/h.png", dir);
    ck_assert_int_eq(canvas_write_png(&cv, path, &e), 0);
    int w, h;
    unsigned char *img = load_png(path, &w, &h);
    ck_assert(w == cv.w && h == cv.h);
    for (size_t c = 0; c < C[_i]; c++) {
        int x = cells.x + (int)c * cw + cw / 2, y = cells.y + ch / 2;
        expect_rgb(png_at(img, w, x, y), canvas_get(&cv, x, y), 0, "file channel %zu", c);
    }
    stbi_image_free(img);
    rm_dir(dir);
    canvas_free(&cv);
}
END_TEST

/* A pixel col covers by three quarters or more, on white: each channel
 * within a quarter of the way from col to white (a stroke whose edge
 * falls between two pixel rows covers both at 90%, none fully; no grey of
 * the text is that near a colour of the palette). */
static bool covered(Rgb p, Rgb col) {
    return abs(p.r - col.r) * 4 <= 255 - col.r && abs(p.g - col.g) * 4 <= 255 - col.g &&
           abs(p.b - col.b) * 4 <= 255 - col.b;
}

/* The pixels col covers in r: their box, and how many lie on its top and
 * bottom rows (a square's sides fill them, a triangle's apex does not). */
typedef struct {
    int x0, y0, x1, y1, top, bottom;
    size_t n;
} Ink;

static Ink ink_of(const Canvas *cv, Box r, Rgb col) {
    Ink k = {r.x + r.w, r.y + r.h, -1, -1, 0, 0, 0};
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            if (covered(canvas_get(cv, x, y), col)) {
                k.x0 = x < k.x0 ? x : k.x0, k.x1 = x > k.x1 ? x : k.x1;
                k.y0 = y < k.y0 ? y : k.y0, k.y1 = y > k.y1 ? y : k.y1;
                k.n++;
            }
    for (int x = k.x0; k.n && x <= k.x1; x++) {
        k.top += covered(canvas_get(cv, x, k.y0), col);
        k.bottom += covered(canvas_get(cv, x, k.y1), col);
    }
    return k;
}

/* A hollow square and a hollow triangle, on the chart and in its legend,
 * where their points are; and a series that names no mark keeps the
 * filled dot of every other picture. */
static void expect_shape(const Canvas *cv, Box r, Rgb col, bool square, const char *where) {
    Ink k = ink_of(cv, r, col);
    int w = k.x1 - k.x0 + 1, h = k.y1 - k.y0 + 1;
    ck_assert_msg(k.n > 10, "%s: no mark", where);
    ck_assert_msg(w >= 8 && w <= 13 && h >= 8 && h <= 13, "%s: a mark of %d x %d", where, w, h);
    /* hollow: the middle is the white beneath */
    expect_rgb(canvas_get(cv, (k.x0 + k.x1) / 2, (k.y0 + k.y1) / 2), RGB_WHITE, 0, "%s: centre",
               where);
    ck_assert_msg(k.bottom >= w - 3, "%s: a bottom side of %d of %d pixels", where, k.bottom, w);
    if (square)
        ck_assert_msg(k.top >= w - 3, "%s: a top side of %d of %d pixels", where, k.top, w);
    else
        ck_assert_msg(k.top <= 3, "%s: the apex is %d pixels wide", where, k.top);
}

START_TEST(markers_are_told_apart_by_shape) {
    /* points between the grid lines (every 0.5), whose grey would fill
     * a hollow mark's middle */
    static const double x1[] = {1.25}, x3[] = {2.75}, y[] = {1.25};
    Rgb c0 = series_color(0), c1 = series_color(1), c2 = series_color(2);
    Series s[3] = {
        {.x = x1, .y = y, .n = 1, .label = "square", .color = c0, .markers = true,
         .no_line = true, .marker = MARKER_SQUARE},
        {.x = x3, .y = y, .n = 1, .label = "triangle", .color = c1, .markers = true,
         .no_line = true, .marker = MARKER_TRIANGLE},
        {.x = x3, .y = (const double[]){0.25}, .n = 1, .color = c2, .markers = true,
         .no_line = true},
    };
    LineChart lc = {.series = s, .n_series = 3, .plot_w = 200, .plot_h = 120, .fixed_x = true,
                    .fixed_y = true, .xmin = 0.0, .xmax = 4.0, .ymin = 0.0, .ymax = 2.0,
                    .legend = true};
    int w, h;
    linechart_size(&lc, &w, &h);
    Canvas cv;
    Err e;
    ck_assert_int_eq(canvas_init(&cv, w, h, &e), 0);
    Box a;
    linechart_draw(&cv, 0, 0, &lc, &a);
    /* a point's pixel, as draw_series places it (pixel centres at .5) */
    double sx = (a.w - 1) / 4.0, sy = (a.h - 1) / 2.0;
    int px1 = a.x + (int)(0.5 + 1.25 * sx), px3 = a.x + (int)(0.5 + 2.75 * sx);
    int py = a.y + (int)(0.5 + 0.75 * sy);
    expect_shape(&cv, (Box){px1 - 12, py - 12, 25, 25}, c0, true, "the square on the chart");
    expect_shape(&cv, (Box){px3 - 12, py - 12, 25, 25}, c1, false, "the triangle on the chart");
    Ink sq = ink_of(&cv, (Box){px1 - 12, py - 12, 25, 25}, c0);
    Ink tr = ink_of(&cv, (Box){px3 - 12, py - 12, 25, 25}, c1);
    ck_assert_int_le(abs((sq.x0 + sq.x1) / 2 - px1), 1);
    ck_assert_int_le(abs((sq.y0 + sq.y1) / 2 - py), 1);
    ck_assert_int_le(abs((tr.x0 + tr.x1) / 2 - px3), 1);
    ck_assert_int_le(tr.y0, py - 4); /* the apex above the point, the base below */
    ck_assert_int_ge(tr.y1, py + 2);
    /* the legend, right of the chart, shows each entry's mark */
    Box legend = {a.x + a.w + 2, 0, cv.w - (a.x + a.w + 2), cv.h};
    expect_shape(&cv, legend, c0, true, "the square in the legend");
    expect_shape(&cv, legend, c1, false, "the triangle in the legend");
    ck_assert_int_lt(ink_of(&cv, legend, c0).y1, ink_of(&cv, legend, c1).y0);
    /* the default: a filled dot, no legend entry */
    int py2 = a.y + (int)(0.5 + 1.75 * sy);
    expect_rgb(canvas_get(&cv, px3, py2), c2, 0, "the dot's centre");
    ck_assert_uint_eq(ink_of(&cv, legend, c2).n, 0);
    canvas_free(&cv);
}
END_TEST

START_TEST(pe_plot_heatmap_is_the_library_picture) {
    char *dir = tmp_dir(), args[256], path[128];
    snprintf(path, sizeof path, "%s/pe.png", dir);
    snprintf(args, sizeof args, "--kind heatmap --out %s", path);
    Run r = run("pe_plot", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "");
    run_free(&r);
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    Canvas cv;
    Box cells;
    Err e;
    ck_assert_int_eq(fig_heatmap(&cv, &cells, cfg_of(&pc, 128), 50, &e), 0);
    int w, h;
    unsigned char *img = load_png(path, &w, &h);
    ck_assert_int_eq(w, cv.w);
    ck_assert_int_eq(h, cv.h);
    ck_assert(memcmp(img, cv.px, (size_t)w * (size_t)h * 3) == 0);
    check_sinusoid_cells(&cv, cells, cells.w / 128, cells.h / 50, 128, LAYOUT_INTERLEAVED);
    stbi_image_free(img);
    /* deterministic: a second run writes the same bytes */
    char *a = slurp(path);
    size_t n = strlen(a);
    r = run("pe_plot", args);
    ck_assert_int_eq(r.status, 0);
    run_free(&r);
    char *b = slurp(path);
    ck_assert(strlen(b) == n && memcmp(a, b, n) == 0);
    free(a);
    free(b);
    canvas_free(&cv);
    rm_dir(dir);
}
END_TEST

START_TEST(pe_plot_draws_every_kind) {
    const char *const kinds[] = {
        "--kind heatmap",
        "--kind heatmap --pe learned --positions 16 --d-model 64",
        "--kind heatmap --pe normalized",
        "--kind lines",
        "--kind lines --d-model 20 --positions 100 --channels 4-7",
        "--kind dots",
        "--kind dots --pe sincos --pairs 4 --position 3",
        "--kind naive",
        "--kind bits",
        "--kind bits --pe sincos --pairs 4 --positions 100",
        "--kind attention",
        "--kind attention --sentence 'the cat sat on the mat' --layer 1 --pe learned",
    };
    char *dir = tmp_dir();
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char args[512], path[128];
        snprintf(path, sizeof path, "%s/k%zu.png", dir, i);
        snprintf(args, sizeof args, "%s --out %s", kinds[i], path);
        Run r = run("pe_plot", args);
        ck_assert_msg(r.status == 0, "pe_plot %s: %s", args, r.err);
        run_free(&r);
        int w, h;
        unsigned char *img = load_png(path, &w, &h);
        ck_assert_msg(w >= 300 && h >= 250, "%s: %d x %d", kinds[i], w, h);
        stbi_image_free(img);
    }
    rm_dir(dir);
}
END_TEST

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(training_logs_are_read_by_column_name) {
    char *dir = tmp_dir(), path[128];
    snprintf(path, sizeof path, "%s/log.csv", dir);
    /* columns out of order, an extra one, validation every other row */
    write_file(path, "lr,accuracy,step,loss,valid_loss\n"
                     "0.001,0.5,0,0.70,0.71\r\n"
                     "\n"
                     "0.001,0.6,10,0.60,\n"
                     "0.001, 0.7 ,20,0.50,0.52\n");
    TrainLog log;
    Err e;
    ck_assert_int_eq(trainlog_read(&log, path, &e), 0);
    ck_assert_uint_eq(log.n, 3);
    ck_assert(log.has[LOG_LOSS] && log.has[LOG_ACCURACY] && log.has[LOG_VALID_LOSS]);
    ck_assert(!log.has[LOG_VALID_ACCURACY]);
    ck_assert_double_eq(log.step[2], 20.0);
    ck_assert_double_eq(log.col[LOG_ACCURACY][2], 0.7);
    ck_assert_double_eq(log.col[LOG_LOSS][1], 0.6);
    ck_assert(isnan(log.col[LOG_VALID_LOSS][1]) && isnan(log.col[LOG_VALID_ACCURACY][0]));
    trainlog_free(&log);
    const struct {
        const char *text, *want;
    } bad[] = {
        {"loss,accuracy\n0.5,0.5\n", "'step'"},
        {"step,lr\n1,0.1\n", "'step'"},
        {"step,loss\n1,0.5\n2,abc\n", ":3: column 'loss' holds 'abc'"},
        {"step,loss\n1,0.5,9\n", ":2: 3 fields"},
        {"step,loss\n,0.5\n", ":2: the step is empty"},
        {"", "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_file(path, bad[i].text);
        ck_assert_int_eq(trainlog_read(&log, path, &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, bad[i].want) != NULL, "case %zu: %s", i, e.msg);
    }
    char label[64];
    trainlog_label(label, sizeof label, "runs/sinusoidal.csv");
    ck_assert_str_eq(label, "sinusoidal");
    rm_dir(dir);
}
END_TEST

START_TEST(pe_plot_curves_one_colour_per_log) {
    char *dir = tmp_dir(), a[128], b[128], out[128], args[512];
    snprintf(a, sizeof a, "%s/sinusoidal.csv", dir);
    snprintf(b, sizeof b, "%s/none.csv", dir);
    snprintf(out, sizeof out, "%s/curves.png", dir);
    write_file(a, "step,loss,accuracy,valid_loss,valid_accuracy\n0,0.7,0.5,0.7,0.5\n"
                  "50,0.4,0.8,,\n100,0.2,0.95,0.3,0.9\n");
    write_file(b, "step,accuracy,loss,wall_seconds\n0,0.5,0.7,1\n100,0.5,0.69,2\n");
    snprintf(args, sizeof args, "--kind curves --out %s %s %s", out, a, b);
    Run r = run("pe_plot", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    int w, h;
    unsigned char *img = load_png(out, &w, &h);
    size_t seen[2] = {0, 0};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < 2; k++)
                seen[k] += same(png_at(img, w, x, y), series_color((size_t)k), 0);
    ck_assert_msg(seen[0] > 200 && seen[1] > 200, "log colours: %zu, %zu", seen[0], seen[1]);
    stbi_image_free(img);
    snprintf(args, sizeof args, "--kind curves --labels 'with PE,without' --out %s %s %s", out, a,
             b);
    r = run("pe_plot", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    ck_assert_int_eq(unlink(out), 0);
    snprintf(args, sizeof args, "--kind curves --labels one --out %s %s %s", out, a, b);
    expect_exit("pe_plot", args, 2, "--labels names 1 logs but 2");
    snprintf(args, sizeof args, "--kind curves --out %s %s/missing.csv", out, dir);
    expect_exit("pe_plot", args, 2, "missing.csv");
    ck_assert(!exists(out));
    rm_dir(dir);
}
END_TEST

START_TEST(pe_plot_bad_options_write_nothing) {
    char *dir = tmp_dir(), out[128], args[512];
    snprintf(out, sizeof out, "%s/x.png", dir);
    const struct {
        const char *args, *want;
    } bad[] = {
        {"--kind pie", "unknown kind 'pie'"},
        {"--kind lines --channels 40", "channel 40 is out of range"},
        {"--kind lines --channels 9-6", "runs backwards"},
        {"--kind lines --channels 0-11", "more than 10"},
        {"--kind lines --positions 1", "2 positions or more"},
        {"--kind dots --positions 1", "2 positions or more"},
        {"--kind heatmap --pe none", "nothing to draw"},
        {"--kind heatmap --pe fourier", "unknown scheme 'fourier'"},
        {"--kind heatmap --positions 0", "--positions"},
        {"--kind heatmap --layers 4", "applies to --kind attention only"},
        {"--kind lines --pe rope", "adds nothing to the word vectors"},
        {"--kind dots --pe rope --d-model 18 --heads 2", "odd"},
        {"--kind dots --position 100", "--position 100 is out of range"},
        {"--kind attention --layer 2", "--layer 2 is out of range"},
        {"--kind attention --heads 3", "--heads"},
        {"--kind curves", "one or more training logs"},
        {"--kind naive extra.csv", "unexpected argument 'extra.csv'"},
        {"--kind naive --frobnicate", "unknown option"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "%s --out %s", bad[i].args, out);
        expect_exit("pe_plot", args, 2, bad[i].want);
        ck_assert_msg(!exists(out), "%s left %s", bad[i].args, out);
        ck_assert_uint_eq(count_entries(dir), 0);
    }
    expect_exit("pe_plot", "--kind heatmap", 2, "--out FILE.png is required");
    expect_exit("pe_plot", "--out /tmp/x.png", 2, "--kind is required");
    snprintf(args, sizeof args, "--kind heatmap --out %s/x.jpg", dir);
    expect_exit("pe_plot", args, 2, "must name a .png file");
    snprintf(args, sizeof args, "--kind heatmap --out %s/no/such/x.png", dir);
    expect_exit("pe_plot", args, 2, "cannot write");
    /* a directory where the file should go: refused, and no temporary left */
    ck_assert_int_eq(mkdir(out, 0700), 0);
    snprintf(args, sizeof args, "--kind naive --out %s", out);
    expect_exit("pe_plot", args, 2, "is a directory, which saving would replace");
    ck_assert_uint_eq(count_entries(dir), 1);
    rm_dir(dir);
    Run r = run("pe_plot", "--help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: pe_plot"));
    ck_assert_ptr_nonnull(strstr(r.out, "--channels"));
    run_free(&r);
}
END_TEST

Suite *suite_plot(void) {
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("library");
    tcase_add_test(tc, colormap_is_centred_on_zero);
    tcase_add_test(tc, ticks_are_round);
    tcase_add_test(tc, text_stays_in_its_box);
    tcase_add_test(tc, large_text_stays_in_its_box);
    tcase_add_test(tc, text_ink_is_the_rows_inked);
    tcase_add_test(tc, png_round_trip_is_exact_and_atomic);
    tcase_add_loop_test(tc, heatmap_cells_hold_known_values, 0, 3);
    tcase_add_test(tc, training_logs_are_read_by_column_name);
    tcase_add_test(tc, markers_are_told_apart_by_shape);
    suite_add_tcase(s, tc);
    tc = tcase_create("pe_plot");
    tcase_add_test(tc, pe_plot_heatmap_is_the_library_picture);
    tcase_add_test(tc, pe_plot_draws_every_kind);
    tcase_add_test(tc, pe_plot_curves_one_colour_per_log);
    tcase_add_test(tc, pe_plot_bad_options_write_nothing);
    suite_add_tcase(s, tc);
    return s;
}
