/* dpb, x-transformers' dynamic position bias (src/pe/pe_dpb.c): its bias
 * worked by hand, the same floats whether f is taken once per offset or
 * once per pair and from positions or a layer's distances, and its
 * backward against central differences of the reference's formula on
 * both ways. Its gradients through the model are test_grad_encoder.c's,
 * its PyTorch fixtures test_parity.c's; FIRE's MLP, the same pe_mlp.c,
 * is checked as FIRE's (test_attn_pe.c, test_grad_encoder.c, parity). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/pe/pe.h"
#include "suites.h"

/* W = 2, depth 2, 2 heads: f_h(x) = bo_h + Wo_h . silu(W2 silu(w1 x + b1)
 * + b2), the table in PyTorch's parameter order. */
static const float TABLE[16] = {
    0.5f,  -1.0f,              /* w1 (2,1) */
    0.1f,  0.2f,               /* b1 */
    1.0f,  -0.5f, 0.25f, 0.75f, /* W2 (2,2), out x in */
    0.0f,  -0.1f,              /* b2 */
    1.0f,  2.0f,  -1.0f, 0.5f, /* Wo (2,2): head 0's row, head 1's */
    0.3f,  -0.2f,              /* bo */
};

/* The bias dpb adds for head h of NH (heads of HS = 4), T tokens at
 * positions pos or, when dist is not NULL, at the layer's distances. */
static void dpb_bias(float *S, const PeConfig *pc, const float *table, const size_t *pos,
                     const size_t *dist, size_t T, size_t h, size_t NH) {
    const PeScheme *s = pe_find("dpb");
    float *work = malloc(s->work(pc, T, 4, NH) * sizeof *work);
    ck_assert_ptr_nonnull(work);
    memset(S, 0, T * T * sizeof *S);
    PeHead hd = {.pc = pc, .params = table, .pos = pos, .dist = dist, .T = T, .HS = 4, .h = h,
                 .NH = NH, .scale = 0.5f, .scores = S, .work = work};
    s->score(&hd);
    free(work);
}

START_TEST(dpb_bias_by_hand) {
    /* at positions 0, 1, 3, 7: offsets i - j from -7 to 7, worked in
     * double from the formula */
    const double lin[2][15] = {
        {10.6942176027, 9.0851565043, 7.4205584987, 5.6804031673, 3.8681377735, 2.1058191915,
         0.7826916697, 0.2943680650, 0.4483688349, 0.9062015850, 1.5535720481, 2.3179561313,
         3.1309134521, 3.9503322627, 4.7592871994},
        {2.5095824939, 2.1484300804, 1.7824987292, 1.4050681078, 1.0098095693, 0.5994270567,
         0.1921807815, -0.1998564886, -0.5625288073, -0.9081415910, -1.3051472921,
         -1.7784226943, -2.2975109366, -2.8257186939, -3.3426831833}};
    /* head 0 reading sign(d) log(|d| + 1) */
    const double lg[15] = {2.2367132963, 2.0182200234, 1.7762330328, 1.5070237260, 1.2075187662,
                           0.8788751085, 0.5402664629, 0.2943680650, 0.3586289703, 0.4830495041,
                           0.5983761058, 0.7011193567, 0.7930178051, 0.8759880182, 0.9515810106};
    const size_t pos[4] = {0, 1, 3, 7};
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "dpb");
    ck_assert(pe_set_named(&pc, "--dpb-width", "2", &e) == 0);
    float S[16];
    for (size_t form = 0; form < 3; form++) { /* head 0, head 1, head 0 by log */
        if (form == 2)
            ck_assert(pe_set_named(&pc, "--dpb-distance", "log", &e) == 0);
        dpb_bias(S, &pc, TABLE, pos, NULL, 4, form == 1, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                long d = (long)pos[i] - (long)pos[j];
                double want = form == 2 ? lg[d + 7] : lin[form][d + 7];
                ck_assert_msg(fabs(S[i * 4 + j] - want) <= 2e-6 * (1.0 + fabs(want)),
                              "form %zu, positions %zu and %zu: bias %.9f, want %.9f", form,
                              pos[i], pos[j], (double)S[i * 4 + j], want);
            }
    }
}
END_TEST

START_TEST(dpb_gives_the_same_floats_every_way) {
    /* five tokens at 0, 3, .., 12 span offsets -12..12, 25 of them, no
     * more than the 25 pairs: f once per offset; the first four alone (19
     * offsets, 16 pairs) take f once per pair. The pairs they share get
     * the same floats, and so do the distances 0, 3, 6, 9 of a layer's
     * draw (positions given but unread) */
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "dpb");
    ck_assert(pe_set_named(&pc, "--dpb-depth", "3", &e) == 0);
    const size_t run[5] = {0, 3, 6, 9, 12}, dist[4] = {0, 3, 6, 9}, other[4] = {0, 1, 2, 5};
    float table[64], S5[25], S4[16], D4[16];
    Rng r;
    rng_seed(&r, 8);
    const PeScheme *s = pe_find("dpb");
    size_t rows, cols;
    s->param_shape(&pc, 0, 4, 2, 64, &rows, &cols); /* W = 8/4 = 2 */
    ck_assert(rows * cols <= 64);
    s->init(&pc, table, rows * cols, 8, 2, &r);
    for (size_t h = 0; h < 2; h++) {
        dpb_bias(S5, &pc, table, run, NULL, 5, h, 2);
        dpb_bias(S4, &pc, table, run, NULL, 4, h, 2);
        dpb_bias(D4, &pc, table, other, dist, 4, h, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                ck_assert_msg(S4[i * 4 + j] == S5[i * 5 + j], "head %zu (%zu, %zu): by pair "
                              "%.9g, by offset %.9g", h, i, j, (double)S4[i * 4 + j],
                              (double)S5[i * 5 + j]);
                ck_assert_msg(D4[i * 4 + j] == S4[i * 4 + j], "head %zu (%zu, %zu): by "
                              "distances %.9g, by positions %.9g", h, i, j,
                              (double)D4[i * 4 + j], (double)S4[i * 4 + j]);
            }
    }
}
END_TEST

/* sum over heads and pairs of G_h,ij times the reference's bias, at
 * table P (double) */
static double ref_sum(const PeConfig *pc, const double *P, const size_t *pos, size_t T,
                      const float *G, size_t NH) {
    const PeScheme *s = pe_find("dpb");
    double sum = 0.0;
    for (size_t h = 0; h < NH; h++)
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++) {
                PeRefRow row = {.pc = pc, .params = P, .pi = pos[i], .pj = pos[j], .i = i,
                                .j = j, .h = h, .NH = NH, .HS = 4};
                sum += (double)G[(h * T + i) * T + j] * s->ref_score(&row);
            }
    return sum;
}

START_TEST(dpb_backward_is_the_references_derivative) {
    /* _i: linear, log; at positions 0, 1, 3, 7 (f once per offset) and
     * 0, 3, 6, 10 (once per pair): the float bias against the double
     * reference, and the table's gradient against its central differences */
    enum { T = 4, NH = 2 };
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "dpb");
    ck_assert(pe_set_named(&pc, "--dpb-depth", "3", &e) == 0);
    ck_assert(pe_set_named(&pc, "--dpb-width", "3", &e) == 0);
    if (_i)
        ck_assert(pe_set_named(&pc, "--dpb-distance", "log", &e) == 0);
    const PeScheme *s = pe_find("dpb");
    size_t rows, cols;
    s->param_shape(&pc, 0, 4, NH, 64, &rows, &cols);
    size_t n = rows * cols;
    float table[64], grad[64], G[NH * T * T], S[T * T];
    double P[64];
    ck_assert(n <= 64);
    Rng r;
    rng_seed(&r, 21 + (uint64_t)_i);
    s->init(&pc, table, n, 8, NH, &r);
    for (size_t k = 0; k < n; k++)
        P[k] = table[k];
    for (size_t k = 0; k < NH * T * T; k++)
        G[k] = rng_range(&r, -1.0f, 1.0f);
    const size_t sets[2][T] = {{0, 1, 3, 7}, {0, 3, 6, 10}};
    float *work = malloc(s->work(&pc, T, 4, NH) * sizeof *work);
    ck_assert_ptr_nonnull(work);
    for (size_t set = 0; set < 2; set++) {
        const size_t *pos = sets[set];
        memset(grad, 0, sizeof grad);
        for (size_t h = 0; h < NH; h++) {
            memset(S, 0, sizeof S);
            PeHead hd = {.pc = &pc, .params = table, .dparams = grad, .pos = pos, .T = T,
                         .HS = 4, .h = h, .NH = NH, .scores = S, .dscores = G + h * T * T,
                         .work = work};
            s->score(&hd);
            s->score_backward(&hd);
            for (size_t i = 0; i < T; i++)
                for (size_t j = 0; j < T; j++) {
                    PeRefRow row = {.pc = &pc, .params = P, .pi = pos[i], .pj = pos[j],
                                    .h = h, .NH = NH, .HS = 4};
                    double want = s->ref_score(&row);
                    ck_assert_msg(fabs(S[i * T + j] - want) <= 1e-5 * (1.0 + fabs(want)),
                                  "set %zu head %zu (%zu, %zu): %.9f, reference %.9f", set, h,
                                  i, j, (double)S[i * T + j], want);
                }
        }
        for (size_t k = 0; k < n; k++) {
            double keep = P[k], step = 1e-5, f[2];
            for (int side = 0; side < 2; side++) {
                P[k] = keep + (side ? step : -step);
                f[side] = ref_sum(&pc, P, pos, T, G, NH);
            }
            P[k] = keep;
            double num = (f[1] - f[0]) / (2.0 * step);
            ck_assert_msg(fabs(num - grad[k]) <= 1e-4 * (1.0 + fabs(num)), "set %zu, table[%zu]: "
                          "backward %.7f, differences %.7f", set, k, (double)grad[k], num);
        }
    }
    free(work);
}
END_TEST

START_TEST(dpb_refuses_an_mlp_past_its_width) {
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, "dpb");
    /* d_model 8192: a default width of 2048, past what it takes */
    ck_assert_int_eq(pe_plan(&plan, &pc, 8192, 8, 64, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--dpb-width"));
    ck_assert(pe_set_named(&pc, "--dpb-width", "512", &e) == 0);
    ck_assert_int_eq(pe_plan(&plan, &pc, 8192, 8, 64, &e), 0);
    /* the workspace follows the MLP (the work hook knows the heads) */
    ck_assert_uint_ge(pe_work(&plan, &pc, 4), 4 * 4 + 2 * 512 * 3);
    /* the table: 2W + (D-1)(W+1)W + NH(W+1) */
    ck_assert_uint_eq(plan.rows * plan.cols, 2 * 512 + 513 * 512 + 8 * 513);
}
END_TEST

TCase *tcase_dpb(void) {
    TCase *tc = tcase_create("dpb");
    tcase_add_test(tc, dpb_bias_by_hand);
    tcase_add_test(tc, dpb_gives_the_same_floats_every_way);
    tcase_add_loop_test(tc, dpb_backward_is_the_references_derivative, 0, 2);
    tcase_add_test(tc, dpb_refuses_an_mlp_past_its_width);
    return tc;
}
