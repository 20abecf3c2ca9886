/* xl's scores as Ruoss et al.'s code computes them (google-deepmind/
 * randomized_positional_encodings, models/positional_encodings.py):
 * compute_attention_with_noisy_relative_encodings and compute_attention_
 * with_relative_encodings written again here in double, step by step as
 * that code takes them (its table of sinusoids, its row indexes, the
 * gather that JAX clamps, the relative logits and relative_shift's
 * reshapes), with the scheme's parameters, and held against the scheme's
 * scores: the randomized form under --xl-rows clamped, the plain form
 * under either value of it. The q.k term is attention's, not the
 * scheme's: their content logits are (q + u).k, of which the scheme adds
 * u.k. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/pe/pe.h"
#include "../src/run/session.h"
#include "suites.h"

enum { HS = 4, NH = 2, C = HS * NH, TMAX = 40 };

/* sinusoid_position_encoding(rows, C): row r holds, for each of the C/2
 * frequencies f = 10000^(-2k/C), sin((lo + r) f), then each cos((lo + r) f):
 * lo 0 (the noisy form's table, positions 0..N-1) or -T (the plain form's,
 * add_negative_side: -T..T-1). */
static double *their_table(long lo, size_t rows) {
    double *tab = malloc(rows * C * sizeof *tab);
    ck_assert_ptr_nonnull(tab);
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < C / 2; k++) {
            double inv = pow(10000.0, -(double)(2 * k) / (double)C), p = (double)(lo + (long)r);
            tab[r * C + k] = sin(p * inv);
            tab[r * C + C / 2 + k] = cos(p * inv);
        }
    return tab;
}

/* The scheme's part of head h's scores, (u.k_j + their relative term) /
 * sqrt(HS), from the table's rows idx[0..2T) as their code gathers them
 * (positional_encodings[indexes]: x[idx] in JAX is a gather whose default
 * mode, PROMISE_IN_BOUNDS, clamps an index past the end to the last row),
 * the relative keys W_R R (hk.Linear, the scheme's (out, in) rows of
 * head h), the relative logits (q_i + v).key_t (T, 2T), and relative_shift
 * (_rel_shift_inner with T_q = T_v = T): the (T, 2T) logits read as
 * (2T, T), the first row dropped, the rest read as (T, 2T - 1), its first
 * T columns kept. */
static void their_scores(double *want, const double *tab, const long *idx, size_t rows,
                         const float *params, const float *q, const float *k, size_t h,
                         size_t T) {
    const float *W = params + h * HS * C, *u = params + C * C + h * HS, *v = u + C;
    static double key[2 * TMAX][HS], rel[TMAX * 2 * TMAX];
    ck_assert(T <= TMAX);
    for (size_t t = 0; t < 2 * T; t++) {
        long r = idx[t] < 0 ? 0 : idx[t] >= (long)rows ? (long)rows - 1 : idx[t];
        for (size_t d = 0; d < HS; d++) {
            key[t][d] = 0.0;
            for (size_t c = 0; c < C; c++)
                key[t][d] += (double)W[d * C + c] * tab[(size_t)r * C + c];
        }
    }
    for (size_t i = 0; i < T; i++)
        for (size_t t = 0; t < 2 * T; t++) {
            double s = 0.0;
            for (size_t d = 0; d < HS; d++)
                s += ((double)q[i * HS + d] + v[d]) * key[t][d];
            rel[i * 2 * T + t] = s;
        }
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            double content = 0.0;
            for (size_t d = 0; d < HS; d++)
                content += (double)u[d] * k[j * HS + d];
            /* the flat index of (i, j) after the shift: the dropped row's T,
             * then i rows of 2T - 1 */
            double shifted = rel[T + i * (2 * T - 1) + j];
            want[i * T + j] = (content + shifted) / sqrt((double)HS);
        }
}

/* Their noisy form's indexes (randomize_both_sides False) for the
 * distances dist (dist[0] = 0, then 1..N-1 sorted): left (a leading 0 for
 * relative_shift, then the right ones negated in reverse), 0, right, all
 * plus N. */
static void noisy_indexes(long *idx, const size_t *dist, size_t T, size_t N) {
    idx[0] = 0;
    for (size_t t = 1; t < T; t++)
        idx[t] = -(long)dist[T - t];
    idx[T] = 0;
    for (size_t t = 1; t < T; t++)
        idx[T + t] = (long)dist[t];
    for (size_t t = 0; t < 2 * T; t++)
        idx[t] += (long)N;
}

/* The scheme's scores of head h: at the layer's distances dist drawn from
 * 1..N-1, or (dist NULL) at positions 0..T-1; rows "offset" or "clamped". */
static void our_scores(float *S, const char *rows, const float *params, const float *q,
                       const float *k, const size_t *dist, size_t N, size_t T, size_t h) {
    const PeScheme *s = pe_find("xl");
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "xl");
    ck_assert_msg(pe_set_named(&pc, "--xl-rows", rows, &e) == 0, "%s", e.msg);
    float *scratch = malloc(s->scratch(&pc, T, HS) * sizeof *scratch);
    size_t pos[TMAX];
    ck_assert(scratch && T <= TMAX);
    for (size_t t = 0; t < T; t++)
        pos[t] = t;
    if (dist)
        s->prepare_distances(scratch, &pc, dist, T, N, HS);
    else
        s->prepare(scratch, &pc, pos, T, HS);
    memset(S, 0, T * T * sizeof *S);
    PeHead hd = {.pc = &pc, .params = params, .scratch = scratch, .pos = pos, .dist = dist,
                 .T = T, .HS = HS, .h = h, .NH = NH, .scale = 1.0f / sqrtf((float)HS), .q = q,
                 .k = k, .ld = HS, .scores = S};
    s->score(&hd);
    free(scratch);
}

/* A table of the scheme's (C+2, C) and T queries and keys. */
static void draw_inputs(float *params, float *q, float *k, size_t T, uint64_t seed) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < (C + 2) * C; i++)
        params[i] = rng_normal(&r) * 0.3f;
    for (size_t i = 0; i < T * HS; i++)
        q[i] = rng_normal(&r), k[i] = rng_normal(&r);
}

/* dist[0] = 0, then T - 1 sorted distinct distances of 1..N-1, as
 * encoder_draw_layers draws them */
static void draw_distances(size_t *dist, size_t T, size_t N, uint64_t seed) {
    Rng r;
    rng_seed(&r, seed);
    dist[0] = 0;
    rng_sorted_subset(&r, dist + 1, T - 1, N - 1);
    for (size_t t = 1; t < T; t++)
        dist[t]++;
}

/* The largest difference of S from want over T x T, relative to 1 + |want| */
static double worst(const float *S, const double *want, size_t T) {
    double w = 0.0;
    for (size_t i = 0; i < T * T; i++)
        w = fmax(w, fabs(S[i] - want[i]) / (1.0 + fabs(want[i])));
    return w;
}

START_TEST(clamped_reads_the_rows_their_noisy_form_reads) {
    /* _i: 5 tokens at distances 2, 3, 7, 11 of a table of 12 rows; 40 at
     * distances drawn from 1..255 (the benchmark's range) */
    size_t T = _i ? 40 : 5, N = _i ? 256 : 12, dist[TMAX] = {0, 2, 3, 7, 11};
    if (_i)
        draw_distances(dist, T, N, 61);
    static float params[(C + 2) * C], q[TMAX * HS], k[TMAX * HS], S[TMAX * TMAX];
    static double want[TMAX * TMAX];
    long idx[2 * TMAX];
    draw_inputs(params, q, k, T, 60 + (uint64_t)_i);
    double *tab = their_table(0, N);
    noisy_indexes(idx, dist, T, N);
    for (size_t h = 0; h < NH; h++) {
        their_scores(want, tab, idx, N, params, q, k, h, T);
        our_scores(S, "clamped", params, q, k, dist, N, T, h);
        double w = worst(S, want, T);
        ck_assert_msg(w <= 1e-5, "T %zu, head %zu: clamped differs from their code by %.3g", T,
                      h, w);
        /* and the default does not read those rows: R of the offsets */
        our_scores(S, "offset", params, q, k, dist, N, T, h);
        w = worst(S, want, T);
        ck_assert_msg(w > 1e-2, "T %zu, head %zu: offset is their code's too (%.3g)", T, h, w);
    }
    free(tab);
}
END_TEST

START_TEST(the_plain_form_reads_inside_its_table_either_way) {
    /* their plain form at 0..T-1: a table of -T..T-1, every row read once,
     * none past it; both values of --xl-rows give its scores, the same
     * floats */
    size_t T = _i ? 40 : 5;
    static float params[(C + 2) * C], q[TMAX * HS], k[TMAX * HS], S[TMAX * TMAX],
        S2[TMAX * TMAX];
    static double want[TMAX * TMAX];
    long idx[2 * TMAX];
    draw_inputs(params, q, k, T, 70 + (uint64_t)_i);
    double *tab = their_table(-(long)T, 2 * T);
    for (size_t t = 0; t < 2 * T; t++)
        idx[t] = (long)t;
    for (size_t h = 0; h < NH; h++) {
        their_scores(want, tab, idx, 2 * T, params, q, k, h, T);
        our_scores(S, "offset", params, q, k, NULL, 0, T, h);
        double w = worst(S, want, T);
        ck_assert_msg(w <= 1e-5, "T %zu, head %zu: differs from their plain form by %.3g", T, h,
                      w);
        our_scores(S2, "clamped", params, q, k, NULL, 0, T, h);
        ck_assert_msg(memcmp(S, S2, T * T * sizeof *S) == 0, "T %zu, head %zu: --xl-rows "
                      "clamped changed the plain form's scores", T, h);
    }
    free(tab);
}
END_TEST

START_TEST(clamped_gives_the_word_and_its_right_one_encoding) {
    /* with the keys' content at 0 (u.k = 0) the score is the relative
     * term alone: under clamped the query's own and every key to its right
     * read row N - 1, a key d to the left row N - d, and two keys of a
     * query score alike, the same floats, exactly when they read one row
     * (the distance 1 to the left reads N - 1 too); under offset every
     * offset reads its own */
    enum { T = 7, N = 30 };
    const size_t dist[T] = {0, 1, 4, 5, 9, 17, 29};
    float params[(C + 2) * C], q[T * HS], k[T * HS], S[T * T];
    draw_inputs(params, q, k, T, 81);
    memset(k, 0, sizeof k);
    for (size_t h = 0; h < NH; h++) {
        our_scores(S, "clamped", params, q, k, dist, N, T, h);
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++)
                for (size_t j2 = 0; j2 < T; j2++) {
                    size_t row = j >= i ? N - 1 : N - dist[i - j];
                    size_t row2 = j2 >= i ? N - 1 : N - dist[i - j2];
                    ck_assert_msg((S[i * T + j] == S[i * T + j2]) == (row == row2), "head %zu, "
                                  "query %zu: keys %zu and %zu read rows %zu and %zu and score "
                                  "%.9g and %.9g", h, i, j, j2, row, row2, (double)S[i * T + j],
                                  (double)S[i * T + j2]);
                }
        our_scores(S, "offset", params, q, k, dist, N, T, h);
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++)
                for (size_t j2 = 0; j2 < j; j2++)
                    ck_assert_msg(S[i * T + j] != S[i * T + j2], "head %zu, query %zu: offset "
                                  "scores keys %zu and %zu alike", h, i, j, j2);
    }
}
END_TEST

/* Training refuses the clamped rows where no layer draws distances (the
 * option would change nothing); the default given, or the draws, pass. */
START_TEST(clamped_rows_need_the_layer_draws) {
    TrainMeta mt;
    train_meta_default(&mt);
    Config c;
    config_default(&c, 0, "xl");
    Err e;
    ck_assert_int_eq(pe_set_named(&c.pe, "--xl-rows", "clamped", &e), 0);
    ck_assert_int_eq(session_check_options(&mt, &c, 10, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--xl-rows clamped") && strstr(e.msg, "--random-draw ruoss"),
                  "%s", e.msg);
    mt.random_positions = 64, mt.random_draw = RANDOM_DRAW_RUOSS;
    ck_assert_msg(session_check_options(&mt, &c, 10, &e) == 0, "%s", e.msg);
    train_meta_default(&mt);
    config_default(&c, 0, "xl");
    ck_assert_int_eq(pe_set_named(&c.pe, "--xl-rows", "offset", &e), 0);
    ck_assert_msg(session_check_options(&mt, &c, 10, &e) == 0, "%s", e.msg);
}
END_TEST

TCase *tcase_xl_rows(void) {
    TCase *tc = tcase_create("xl's rows as Ruoss et al.'s code reads them");
    tcase_add_loop_test(tc, clamped_reads_the_rows_their_noisy_form_reads, 0, 2);
    tcase_add_loop_test(tc, the_plain_form_reads_inside_its_table_either_way, 0, 2);
    tcase_add_test(tc, clamped_gives_the_word_and_its_right_one_encoding);
    tcase_add_test(tc, clamped_rows_need_the_layer_draws);
    return tc;
}
