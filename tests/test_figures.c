/* The pictures of src/figures, cell by cell: the code's lines, the dot
 * products and their colour scale, the naive schemes, the counter's bits,
 * a model's attention weights, and RoPE's long-term decay. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/figures/figures.h"
#include "../src/pe/analysis_rope.h"
#include "../src/plot/chart.h"
#include "../src/text/vocab.h"
#include "pixels.h"
#include "suites.h"

/* The pictures of docs/img that need no trained model, drawn again by the
 * commands of docs/pictures.md and 07: the same bytes (the pictures on the
 * pages are what the programs draw today, text and all). */
START_TEST(docs_pictures_are_what_pe_plot_draws) {
    static const char *const pics[][2] = {
        {"heatmap", "--kind heatmap"},
        {"heatmap_split", "--kind heatmap --layout split"},
        {"lines", "--kind lines"},
        {"dots", "--kind dots"},
        {"dots_rope", "--kind dots --pe rope --positions 64 --position 32"},
        {"dots_alibi", "--kind dots --pe alibi --positions 64 --position 32"},
        {"dots_t5", "--kind dots --pe t5 --positions 64 --position 32"},
        {"dots_shaw", "--kind dots --pe shaw --positions 64 --position 32"},
        {"bits", "--kind bits"},
        {"naive", "--kind naive"},
        {"attention", "--kind attention"},
        {"decay", "--kind decay"},
        {"wavelengths_llama", "--kind wavelengths"},
        {"wavelengths", "--kind wavelengths --d-model 32 --heads 4 --rope-original-len 8"},
    };
    char *dir = scratch();
    for (size_t i = 0; i < sizeof pics / sizeof *pics; i++) {
        char args[512], out[256], doc[128];
        snprintf(out, sizeof out, "%s/%s.png", dir, pics[i][0]);
        snprintf(args, sizeof args, "%s --out %s", pics[i][1], out);
        Run r = run("pe_plot", args);
        ck_assert_msg(r.status == 0, "pe_plot %s: %s", args, r.err);
        run_free(&r);
        snprintf(doc, sizeof doc, "docs/img/%s.png", pics[i][0]);
        ck_assert_msg(same_bytes(out, doc), "pe_plot %s does not draw %s: draw it again", args,
                      doc);
    }
    remove_dir(dir);
}
END_TEST

START_TEST(lines_draw_each_channel) {
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    Canvas cv;
    Err e;
    size_t ch[4] = {6, 7, 8, 9};
    ck_assert_int_eq(fig_lines(&cv, cfg_of(&pc, 32), ch, 4, 60, &e), 0);
    for (size_t k = 0; k < 4; k++)
        ck_assert_msg(count_color(&cv, series_color(k)) > 100, "channel %zu is missing", ch[k]);
    ck_assert_uint_eq(count_color(&cv, series_color(4)), 0);
    canvas_free(&cv);
    ch[2] = 32;
    ck_assert_int_eq(fig_lines(&cv, cfg_of(&pc, 32), ch, 4, 60, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "channel 32"));
}
END_TEST

START_TEST(dots_cells_hold_dot_products) {
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    Canvas cv;
    Box cells;
    Err e;
    size_t T = 100, d = 128;
    ck_assert_int_eq(fig_dots(&cv, &cells, cfg_of(&pc, d), 50, T, &e), 0);
    int cw = cells.w / (int)T;
    ck_assert_int_eq(cells.h, cells.w);
    /* <PE_p, PE_q> = sum_i cos(w_i (p - q)) = s(|p - q|); its largest value,
     * d/2, is the diagonal. Every value is positive (about 24 to 64), so
     * the colours run from the smallest (white) to the largest, not from
     * -64 to 64, which would paint them all nearly one red. */
    double s[100], lo = INFINITY;
    for (size_t k = 0; k < T; k++) {
        s[k] = 0.0;
        for (size_t i = 0; i < d / 2; i++)
            s[k] += cos((double)k / pow(10000.0, 2.0 * (double)i / (double)d));
        lo = fmin(lo, s[k]);
    }
    ck_assert(lo > 20.0 && lo < 30.0);
    for (size_t k = 0; k < 40; k += 13)
        for (size_t p = 0; p + k < T; p += 31) {
            Rgb want = colormap(colormap_position(s[k], lo, 64.0, false));
            expect_rgb(cell_at(&cv, cells, cw, cw, p, p + k), want, 1, "S[%zu][%zu]", p, p + k);
            expect_rgb(cell_at(&cv, cells, cw, cw, p + k, p), want, 1, "S[%zu][%zu]", p + k, p);
        }
    /* the smallest value is white, the diagonal the darkest red */
    size_t far = 0;
    for (size_t k = 0; k < T; k++)
        far = s[k] < s[far] ? k : far;
    expect_rgb(cell_at(&cv, cells, cw, cw, 0, far), colormap(0.0), 1, "the smallest value");
    expect_rgb(cell_at(&cv, cells, cw, cw, 7, 7), colormap(1.0), 1, "the diagonal");
    canvas_free(&cv);
    ck_assert_int_eq(fig_dots(&cv, NULL, cfg_of(&pc, d), 100, T, &e), ERR_INPUT);
    /* values of both signs, or none above zero, keep the scale centred on
     * zero: ALiBi's bias is 0 on the diagonal, white */
    pe_config_default(&pc, "alibi");
    ck_assert_int_eq(fig_dots(&cv, &cells, cfg_of(&pc, 64), 8, 16, &e), 0);
    cw = cells.w / 16;
    expect_rgb(cell_at(&cv, cells, cw, cw, 3, 3), colormap(0.0), 1, "alibi's diagonal");
    canvas_free(&cv);
}
END_TEST

START_TEST(naive_marks_the_collisions) {
    Canvas cv;
    Err e;
    ck_assert_int_eq(fig_naive(&cv, 60, &e), 0);
    /* the two colliding pairs are dots in their own colours */
    ck_assert_uint_gt(count_color(&cv, series_color(1)), 40);
    ck_assert_uint_gt(count_color(&cv, series_color(3)), 40);
    /* the band of the embeddings' values, -1..1, beside the count */
    ck_assert_uint_gt(count_color(&cv, (Rgb){250, 190, 120}), 1000);
    canvas_free(&cv);
    ck_assert_int_eq(fig_naive(&cv, 2, &e), ERR_INPUT);
}
END_TEST

START_TEST(bits_show_the_sign_of_the_code) {
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    Canvas cv;
    Box cells;
    Err e;
    size_t T = 64, d = 32;
    ck_assert_int_eq(fig_bits(&cv, &cells, cfg_of(&pc, d), T, &e), 0);
    int cw = cells.w / (int)d, ch = cells.h / (int)T;
    for (size_t t = 1; t < T; t += 5)
        for (size_t c = 0; c < d; c += 3) {
            double a = (double)t / pow(10000.0, (double)(c / 2 * 2) / (double)d);
            double v = c % 2 ? cos(a) : sin(a);
            if (fabs(v) < 1e-3)
                continue; /* float and double may disagree about the sign */
            expect_rgb(cell_at(&cv, cells, cw, ch, t, c), colormap(v > 0 ? 1.0 : -1.0), 1,
                       "sign of PE(%zu, %zu)", t, c);
        }
    /* the bits panel, right of the code: 6 bits for positions 0..63, the
     * same colours, (-1)^bit */
    Rgb plus = colormap(1.0), minus = colormap(-1.0);
    ck_assert_uint_gt(count_color(&cv, plus), 100);
    ck_assert_uint_gt(count_color(&cv, minus), 100);
    canvas_free(&cv);
    pe_config_default(&pc, "rope");
    ck_assert_int_eq(fig_bits(&cv, NULL, cfg_of(&pc, d), T, &e), ERR_INPUT);
    ck_assert_int_eq(fig_bits(&cv, NULL, cfg_of(&pc, d), 1, &e), ERR_INPUT);
}
END_TEST

START_TEST(attention_cells_are_the_weights) {
    const char *sentence = "Rohan killed the lion";
    Vocab v;
    Err e;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    ck_assert_int_eq(vocab_add_text(&v, sentence, &e), 0);
    Model m;
    make_model(&m, v.n, 16, 2, 2, 32, NORM_POST, ACT_RELU, "sinusoidal", COMBINE_DEFAULT, 7);
    Canvas cv;
    Box cells;
    ck_assert_int_eq(fig_attention(&cv, &cells, &m, &v, sentence, 1, "test", &e), 0);
    /* the same weights, straight from the model */
    int ids[4];
    size_t n = 4;
    for (int i = 0; i < 4; i++)
        ids[i] = (int)i + 2; /* the sentence's words, in order of first use */
    Acts a;
    ck_assert_int_eq(acts_create(&a, &m, 1, 4, &e), 0);
    ck_assert_int_eq(encoder_forward(&m, &a, ids, &n, 1, 4, &e), 0);
    const float *att = a.layer[1].att;
    double vmax = 0.0;
    for (size_t i = 0; i < 2 * 16; i++)
        vmax = fmax(vmax, att[i]);
    vmax = fmin(1.0, ceil(vmax * 10.0 - 1e-9) / 10.0);
    int cw = cells.w / 4;
    for (size_t q = 0; q < 4; q++)
        for (size_t k = 0; k < 4; k++)
            expect_rgb(cell_at(&cv, cells, cw, cw, q, k), colormap(att[q * 4 + k] / vmax), 0,
                       "head 0 query %zu key %zu", q, k);
    acts_free(&a);
    canvas_free(&cv);
    ck_assert_int_eq(fig_attention(&cv, NULL, &m, &v, sentence, 2, "test", &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--layer 2"));
    model_free(&m);
    vocab_free(&v);
}
END_TEST

/* page 8's tape of 12 bits, 24 words: the four heads two to a row, in
 * cells that hold the labels' ink, so the picture is near a page's width
 * (2818 pixels in one row, cells of 25, before); 4 words keep their one
 * row. */
START_TEST(attention_of_a_long_sentence_fits_a_page) {
    const char *tape = "1 1 0 1 0 0 1 0 1 1 1 0 ? ? ? ? ? ? ? ? ? ? ? ?";
    Vocab v;
    Err e;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    ck_assert_int_eq(vocab_add_text(&v, tape, &e), 0);
    ck_assert_int_eq(vocab_add_text(&v, "Rohan killed the lion", &e), 0);
    Model m;
    make_model(&m, v.n, 32, 4, 2, 64, NORM_POST, ACT_RELU, "sinusoidal", COMBINE_DEFAULT, 7);
    Canvas cv;
    Box cells;
    ck_assert_int_eq(fig_attention(&cv, &cells, &m, &v, tape, 0, "test", &e), 0);
    int cell = cells.w / 24, top = 0, bottom = 0;
    ck_assert_int_eq(cells.w, 24 * cell);
    /* rows of names a cell apart: their ink does not touch */
    for (const char *c = "01?"; *c; c++) {
        int a, b;
        text_ink((char[]){*c, '\0'}, TEXT_SCALE, &a, &b);
        top = c[0] == '0' || a < top ? a : top;
        bottom = c[0] == '0' || b > bottom ? b : bottom;
    }
    ck_assert_int_gt(cell, bottom - top);
    ck_assert_int_lt(cell, text_height(TEXT_SCALE) + 2);
    ck_assert_msg(cv.w <= 1200, "%d pixels wide, cells of %d", cv.w, cell);
    ck_assert_msg(cv.w < 3 * cells.w, "more than two maps to a row: %d pixels", cv.w);
    ck_assert_msg(cv.h > 2 * cells.h, "one row of maps, %d pixels tall", cv.h);
    canvas_free(&cv);
    ck_assert_int_eq(fig_attention(&cv, &cells, &m, &v, "Rohan killed the lion", 0, "test", &e),
                     0);
    ck_assert_msg(cv.w > 4 * cells.w, "4 words: %d pixels wide, maps of %d", cv.w, cells.w);
    canvas_free(&cv);
    model_free(&m);
    vocab_free(&v);
}
END_TEST

/* RoFormer's bound, recomputed here with C's complex numbers: at distance
 * 0 every partial sum S_j is j, so the mean of |S_j| is (d/2 + 1)/2; far
 * away it has fallen (the decay the picture shows); and the picture draws
 * rope only. */
START_TEST(decay_is_roformers_bound) {
    enum { N = 256, D = 128 };
    static double got[N];
    Err e;
    ck_assert_int_eq(rope_decay_bound(got, N, D, 10000.0, &e), 0);
    double worst = 0.0;
    for (size_t r = 0; r < N; r++) {
        double complex S = 0.0;
        double sum = 0.0;
        for (size_t k = 0; k < D / 2; k++) {
            S += cexp(I * (double)r * pow(10000.0, -2.0 * (double)k / D));
            sum += cabs(S);
        }
        worst = fmax(worst, fabs(got[r] - sum / (D / 2)));
    }
    ck_assert_msg(worst < 1e-9, "the bound differs from the formula by %g", worst);
    ck_assert_double_eq_tol(got[0], (D / 2 + 1) / 2.0, 1e-12);
    double far = 0.0;
    for (size_t r = 200; r < N; r++)
        far += got[r] / (N - 200);
    ck_assert_msg(far < got[0] / 3.0, "no decay: %g far against %g at 0", far, got[0]);
    ck_assert_int_eq(rope_decay_bound(got, N, 7, 10000.0, &e), ERR_INPUT);

    PeConfig pc;
    pe_config_default(&pc, "rope");
    Canvas cv;
    Config c = *cfg_of(&pc, 128);
    c.n_heads = 1;
    ck_assert_int_eq(fig_decay(&cv, &c, 64, &e), 0);
    ck_assert_uint_gt(count_color(&cv, series_color(0)), 100);
    canvas_free(&cv);
    pe_config_default(&pc, "sinusoidal");
    ck_assert_int_eq(fig_decay(&cv, cfg_of(&pc, 128), 64, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--pe rope"));
}
END_TEST

Suite *suite_figures(void) {
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("figures");
    tcase_add_test(tc, lines_draw_each_channel);
    tcase_add_test(tc, dots_cells_hold_dot_products);
    tcase_add_test(tc, naive_marks_the_collisions);
    tcase_add_test(tc, bits_show_the_sign_of_the_code);
    tcase_add_test(tc, attention_cells_are_the_weights);
    tcase_add_test(tc, attention_of_a_long_sentence_fits_a_page);
    tcase_add_test(tc, decay_is_roformers_bound);
    tcase_add_test(tc, docs_pictures_are_what_pe_plot_draws);
    suite_add_tcase(s, tc);
    return s;
}
