/* The benchmark's forms as Ruoss et al.'s code computes them (google-
 * deepmind/randomized_positional_encodings, models/positional_encodings.py
 * and models/transformer.py): ALiBi's encoder form, the draws of the
 * randomized forms in every layer (train --random-draw ruoss), fresh
 * training sentences every step (--train-draw fresh) and the token
 * embedding's first scale (--embed-std). The values are worked by hand
 * from the reference's formulas. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/pe/pe_alibi.h"
#include "../src/run/session.h"
#include "suites.h"

/* The bias alibi adds for head h of NH, T tokens at 0..T-1, or at the
 * distances dist (T) when not NULL, in the form form. */
static void alibi_of(float *S, const char *form, const size_t *dist, size_t T, size_t h,
                     size_t NH) {
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "alibi");
    ck_assert(pe_set_named(&pc, "--alibi-slopes", form, &e) == 0);
    const PeScheme *s = pe_find("alibi");
    size_t pos[8];
    float scratch[64];
    ck_assert(T <= 8 && s->scratch(&pc, T, 4) <= 64);
    for (size_t t = 0; t < T; t++)
        pos[t] = t;
    s->prepare(scratch, &pc, pos, T, 4);
    memset(S, 0, T * T * sizeof *S);
    PeHead hd = {.pc = &pc, .scratch = scratch, .pos = pos, .dist = dist, .T = T, .HS = 4,
                 .h = h, .NH = NH, .scale = 0.5f, .scores = S};
    s->score(&hd);
}

START_TEST(alibi_encoder_form_as_the_reference) {
    /* compute_alibi_encodings_biases for 4 tokens: -|i - j|, plus 0.5 below
     * the diagonal (np.tri(k=-1): the keys left of the query), times the
     * slope; 2 heads: slopes 2^-4 and 2^-8 */
    const double want[4][4] = {{0, -1, -2, -3}, {-0.5, 0, -1, -2}, {-1.5, -0.5, 0, -1},
                               {-2.5, -1.5, -0.5, 0}};
    const double slope[2] = {1.0 / 16.0, 1.0 / 256.0};
    float S[16];
    for (size_t h = 0; h < 2; h++) {
        alibi_of(S, "ruoss", NULL, 4, h, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++)
                ck_assert_msg(S[i * 4 + j] == (float)(want[i][j] * slope[h]), "head %zu (%zu, "
                              "%zu): %.9g, want %.9g", h, i, j, (double)S[i * 4 + j],
                              want[i][j] * slope[h]);
    }
    /* the symmetric form stays -m|i - j| */
    alibi_of(S, "symmetric", NULL, 4, 0, 2);
    ck_assert(S[2 * 4 + 0] == -2.0f / 16.0f && S[0 * 4 + 2] == -2.0f / 16.0f);
}
END_TEST

START_TEST(alibi_drawn_distances_as_the_reference) {
    /* compute_noisy_alibi_encodings_biases, symmetric draw: distances 3, 7,
     * 20 sorted; right_positions -3, -7, -20; left_positions the same
     * flipped, plus 0.5: -19.5, -6.5, -2.5; row i of the shifted table
     * reads offsets -i..3-i */
    const size_t dist[4] = {0, 3, 7, 20};
    const double want[4][4] = {{0, -3, -7, -20}, {-2.5, 0, -3, -7}, {-6.5, -2.5, 0, -3},
                               {-19.5, -6.5, -2.5, 0}};
    float S[16];
    alibi_of(S, "ruoss", dist, 4, 1, 2);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++)
            ck_assert_msg(S[i * 4 + j] == (float)(want[i][j] / 256.0), "(%zu, %zu): %.9g, want "
                          "%.9g", i, j, (double)S[i * 4 + j], want[i][j] / 256.0);
}
END_TEST

/* xl's score of head h at distances dist drawn from 1..N-1 against its
 * formula in double (ref_score at two positions the pair's offset apart),
 * and its backward against differences of the forward. */
static void xl_scores(float *S, const PeConfig *pc, const float *params, const float *q,
                      const float *k, const size_t *dist, size_t N, size_t T, size_t HS,
                      size_t NH) {
    const PeScheme *s = pe_find("xl");
    float *scratch = malloc(s->scratch(pc, T, HS) * sizeof *scratch);
    ck_assert_ptr_nonnull(scratch);
    s->prepare_distances(scratch, pc, dist, T, N, HS);
    size_t pos[4] = {0, 1, 2, 3};
    memset(S, 0, T * T * sizeof *S);
    PeHead hd = {.pc = pc, .params = params, .scratch = scratch, .pos = pos, .dist = dist,
                 .T = T, .HS = HS, .h = 1, .NH = NH, .scale = 1.0f / sqrtf((float)HS),
                 .q = q, .k = k, .ld = HS, .scores = S};
    s->score(&hd);
    free(scratch);
}

START_TEST(xl_drawn_distances_score_their_offsets) {
    enum { T = 4, HS = 4, NH = 2, C = HS * NH };
    PeConfig pc;
    pe_config_default(&pc, "xl");
    const size_t dist[T] = {0, 2, 9, 40};
    float params[(C + 2) * C], q[T * HS], k[T * HS], S[T * T];
    Rng r;
    rng_seed(&r, 41);
    for (size_t i = 0; i < (C + 2) * C; i++)
        params[i] = rng_normal(&r) * 0.3f;
    for (size_t i = 0; i < T * HS; i++)
        q[i] = rng_normal(&r), k[i] = rng_normal(&r);
    xl_scores(S, &pc, params, q, k, dist, 64, T, HS, NH);
    double P[(C + 2) * C], dq[HS], dk[HS];
    for (size_t i = 0; i < (C + 2) * C; i++)
        P[i] = params[i];
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            for (size_t d = 0; d < HS; d++)
                dq[d] = q[i * HS + d], dk[d] = k[j * HS + d];
            /* the offset +dist[j - i] to the right, -dist[i - j] to the left */
            size_t far = j >= i ? dist[j - i] : dist[i - j];
            PeRefRow rp = {.pc = &pc, .params = P, .q = dq, .k = dk, .pi = j >= i ? 0 : far,
                            .pj = j >= i ? far : 0, .h = 1, .NH = NH, .HS = HS};
            double bias = pe_find("xl")->ref_score(&rp);
            ck_assert_msg(fabs(S[i * T + j] - bias) <= 1e-5, "(%zu, %zu): %.7f, want %.7f", i,
                          j, (double)S[i * T + j], bias);
        }
}
END_TEST

/* f = sum of the scores weighted by G, and its gradient through the
 * hook's backward: dq, dk and the table's; _i: the keys of the offsets,
 * then (--xl-rows clamped) of the rows Ruoss et al.'s code reads, of a
 * table of 12 */
START_TEST(xl_drawn_distances_backward_is_the_forwards_derivative) {
    enum { T = 3, HS = 4, NH = 2, C = HS * NH, NP = (C + 2) * C, N = 12 };
    PeConfig pc;
    Err e;
    pe_config_default(&pc, "xl");
    ck_assert(pe_set_named(&pc, "--xl-rows", _i ? "clamped" : "offset", &e) == 0);
    const size_t dist[T] = {0, 5, 11};
    float params[NP], q[T * HS], k[T * HS], G[T * T], S[T * T];
    Rng r;
    rng_seed(&r, 43);
    for (size_t i = 0; i < NP; i++)
        params[i] = rng_normal(&r) * 0.3f;
    for (size_t i = 0; i < T * HS; i++)
        q[i] = rng_normal(&r), k[i] = rng_normal(&r);
    for (size_t i = 0; i < T * T; i++)
        G[i] = rng_normal(&r);
    const PeScheme *s = pe_find("xl");
    float *scratch = malloc(s->scratch(&pc, T, HS) * sizeof *scratch);
    ck_assert_ptr_nonnull(scratch);
    s->prepare_distances(scratch, &pc, dist, T, N, HS);
    float dq[T * HS] = {0}, dk[T * HS] = {0}, dp[NP] = {0};
    size_t pos[T] = {0, 1, 2};
    PeHead hd = {.pc = &pc, .params = params, .dparams = dp, .scratch = scratch, .pos = pos,
                 .dist = dist, .T = T, .HS = HS, .h = 1, .NH = NH, .scale = 0.5f, .q = q,
                 .k = k, .ld = HS, .dq = dq, .dk = dk, .dscores = G};
    s->score_backward(&hd);
    free(scratch);
    /* central differences in double of a function linear or quadratic in
     * each input: exact up to float rounding */
    float *what[3] = {q, k, params}, *grad[3] = {dq, dk, dp};
    size_t n[3] = {T * HS, T * HS, NP};
    const char *name[3] = {"q", "k", "the table"};
    for (size_t w = 0; w < 3; w++)
        for (size_t i = 0; i < n[w]; i++) {
            float keep = what[w][i], h = 1e-2f;
            double f[2];
            for (int side = 0; side < 2; side++) {
                what[w][i] = keep + (side ? h : -h);
                xl_scores(S, &pc, params, q, k, dist, N, T, HS, NH);
                f[side] = 0.0;
                for (size_t t = 0; t < T * T; t++)
                    f[side] += (double)G[t] * S[t];
            }
            what[w][i] = keep;
            double num = (f[1] - f[0]) / (2.0 * h);
            ck_assert_msg(fabs(num - grad[w][i]) <= 2e-3 * (1.0 + fabs(num)), "%s, %s[%zu]: "
                          "backward %.6f, differences %.6f", _i ? "clamped" : "offset",
                          name[w], i, (double)grad[w][i], num);
        }
}
END_TEST

/* A small model of scheme name with 1 or 2 layers, its acts for a batch
 * of 2 sentences of 5 tokens, and those tokens. */
typedef struct {
    Model m;
    Acts a;
    GradActs ga;
    int ids[10], labels[10];
    size_t lens[2];
} Small;

static void small_open(Small *s, const char *name, const char *form, size_t layers) {
    Config cfg;
    Err e;
    config_default(&cfg, 12, name);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = layers, cfg.d_ff = 12, cfg.n_classes = 3;
    cfg.per_token = true, cfg.max_len = 64, cfg.seed = 5;
    if (form)
        ck_assert(pe_set_named(&cfg.pe, "--alibi-slopes", form, &e) == 0);
    ck_assert_msg(model_create(&s->m, &cfg, &e) == 0, "%s", e.msg);
    ck_assert(acts_create(&s->a, &s->m, 2, 5, &e) == 0);
    ck_assert(gradacts_create(&s->ga, &s->m, 2, 5, &e) == 0);
    for (size_t i = 0; i < 10; i++)
        s->ids[i] = 2 + (int)(i * 7 % 10), s->labels[i] = (int)(i % 3);
    s->lens[0] = 5, s->lens[1] = 5;
}

static void small_close(Small *s) {
    gradacts_free(&s->ga);
    acts_free(&s->a);
    model_free(&s->m);
}

/* The forward's hidden states and the backward's gradients (into g, the
 * model's size) of one pass, at pos (NULL: 0..T-1). */
static void small_pass(Small *s, const size_t *pos, float *hidden, float *g) {
    Err e;
    Params gp;
    memset(g, 0, s->m.n_params * sizeof *g);
    params_carve(&s->m, &gp, g);
    ck_assert_msg(encoder_forward_at(&s->m, &s->a, s->ids, s->lens, pos, 2, 5, &e) == 0, "%s",
                  e.msg);
    memcpy(hidden, s->a.hidden, 2 * 5 * 8 * sizeof *hidden);
    encoder_loss(&s->m, &s->a, &s->ga, s->labels, 2, 5, NULL, NULL);
    ck_assert_msg(encoder_backward(&s->m, &gp, &s->a, &s->ga, s->ids, s->lens, 2, 5, &e) == 0,
                  "%s", e.msg);
}

START_TEST(a_layers_draw_of_the_plain_places_is_the_plain_model) {
    /* rope's layer at positions p is the model at p; alibi's and xl's
     * layer at distances 0, 1, 2, ... is the model at 0..T-1: the same
     * floats, forward and backward, one layer and two */
    static const char *const name[3] = {"rope", "alibi", "xl"};
    const size_t p[5] = {3, 8, 9, 20, 33}, pos[10] = {3, 8, 9, 20, 33, 3, 8, 9, 20, 33};
    for (size_t layers = 1; layers <= 2; layers++)
        for (size_t k = 0; k < 3; k++) {
            Small s;
            small_open(&s, name[k], k == 1 ? "ruoss" : NULL, layers);
            size_t n = s.m.n_params;
            float h1[80], h2[80], *g1 = malloc(n * sizeof *g1), *g2 = malloc(n * sizeof *g2);
            ck_assert(g1 && g2);
            bool positions = s.m.pe.scheme->ruoss_draw == PE_DRAW_LAYER_POSITIONS;
            small_pass(&s, positions ? pos : NULL, h1, g1);
            Rng r;
            rng_seed(&r, 9);
            encoder_draw_layers(&s.m, &s.a, &r, 5, 64);
            for (size_t l = 0; l < layers; l++)
                for (size_t t = 0; t < 5; t++)
                    s.a.layer_draw[l * 5 + t] = positions ? p[t] : t;
            small_pass(&s, NULL, h2, g2);
            ck_assert_msg(memcmp(h1, h2, sizeof h1) == 0, "%s, %zu layers: hidden states differ",
                          name[k], layers);
            ck_assert_msg(memcmp(g1, g2, n * sizeof *g1) == 0, "%s, %zu layers: gradients differ",
                          name[k], layers);
            free(g1), free(g2);
            small_close(&s);
        }
}
END_TEST

START_TEST(each_layer_draws_its_own) {
    /* rope: sorted distinct positions of 0..N-1 in every layer; alibi and
     * xl: 0, then sorted distinct distances of 1..N-1; the layers' draws
     * differ, and the pass after the draw uses them (its outputs differ
     * from the plain model's), the pass after that no longer */
    static const char *const name[3] = {"rope", "alibi", "xl"};
    for (size_t k = 0; k < 3; k++) {
        Small s;
        small_open(&s, name[k], NULL, 2);
        float plain[80], drawn[80], again[80], *g = malloc(s.m.n_params * sizeof *g);
        ck_assert_ptr_nonnull(g);
        small_pass(&s, NULL, plain, g);
        Rng r;
        rng_seed(&r, 10);
        encoder_draw_layers(&s.m, &s.a, &r, 5, 12);
        const size_t *d = s.a.layer_draw;
        bool dist = s.m.pe.scheme->ruoss_draw == PE_DRAW_LAYER_DISTANCES;
        for (size_t l = 0; l < 2; l++) {
            ck_assert(!dist || d[l * 5] == 0);
            for (size_t t = 1; t < 5; t++)
                ck_assert_msg(d[l * 5 + t] > d[l * 5 + t - 1] && d[l * 5 + t] < 12, "%s layer "
                              "%zu: draw %zu is %zu after %zu", name[k], l, t, d[l * 5 + t],
                              d[l * 5 + t - 1]);
        }
        ck_assert_msg(memcmp(d, d + 5, 5 * sizeof *d) != 0, "%s: both layers drew the same",
                      name[k]);
        small_pass(&s, NULL, drawn, g);
        small_pass(&s, NULL, again, g);
        ck_assert(memcmp(plain, drawn, sizeof plain) != 0);
        ck_assert(memcmp(plain, again, sizeof plain) == 0);
        free(g);
        small_close(&s);
    }
}
END_TEST

/* reverse_string on inputs of 1..8 by length, width 16, scheme pe */
static void fresh_run(TrainMeta *mt, Config *cfg, OptConfig *opt, const char *pe) {
    train_meta_default(mt);
    snprintf(mt->task, sizeof mt->task, "reverse_string");
    mt->task_opt = (TaskOptions){.min_len = 1, .max_len = 8, .n_train = 50, .n_valid = 20,
                                 .n_test = 40, .seed = 4};
    mt->batch = 8, mt->steps = 30, mt->seed = 7;
    mt->batches = BATCHES_BY_LENGTH;
    mt->random_positions = 32;
    mt->random_draw = RANDOM_DRAW_RUOSS;
    mt->train_draw = TRAIN_DRAW_FRESH;
    config_default(cfg, 0, pe);
    cfg->d_model = 16, cfg->n_heads = 2, cfg->d_ff = 32, cfg->seed = 7;
    opt_default(opt);
}

START_TEST(fresh_sentences_every_step) {
    /* the batches are new sentences, not the pool's: a pool of 50 holds
     * about 6 of the 256 inputs of 8 words, 6 of the 128 of 7, ...; each
     * batch is of one length */
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    fresh_run(&mt, &cfg, &opt, "rope");
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    size_t outside = 0, seen = 0;
    for (size_t step = 0; step < 30; step++) {
        StepStats st;
        ck_assert_msg(session_step(&s, &st, &e) == 0, "%s", e.msg);
        size_t T = s.lens[0];
        for (size_t b = 0; b < mt.batch; b++) {
            ck_assert_uint_eq(s.lens[b], T);
            bool found = false;
            for (size_t i = 0; i < s.train.n && !found; i++)
                found = s.train.start[i + 1] - s.train.start[i] == T &&
                        memcmp(s.train.ids + s.train.start[i], s.ids + b * T,
                               T * sizeof *s.ids) == 0;
            outside += !found;
            seen++;
        }
    }
    ck_assert_msg(outside > 0, "every one of %zu sentences was in the pool", seen);
    session_free(&s);
}
END_TEST

START_TEST(a_resumed_fresh_ruoss_run_is_the_run_it_continues) {
    /* the last: xl reading the rows Ruoss et al.'s code reads, which the
     * file keeps (--xl-rows clamped), a run of other losses */
    static const char *const name[4] = {"rope", "alibi", "xl", "xl"};
    float xl_losses[2][30];
    for (size_t k = 0; k < 4; k++) {
        TrainMeta mt;
        Config cfg;
        OptConfig opt;
        fresh_run(&mt, &cfg, &opt, name[k]);
        if (k == 3)
            set_opt(&cfg.pe, "--xl-rows", "clamped");
        Session whole, half, rest;
        Err e;
        float lw[30], lr[15];
        ck_assert_msg(session_create(&whole, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
        ck_assert(session_create(&half, &mt, &cfg, &opt, &e) == 0);
        for (size_t i = 0; i < 30; i++) {
            StepStats st;
            ck_assert_msg(session_step(&whole, &st, &e) == 0, "%s", e.msg);
            lw[i] = st.loss;
            if (i < 15)
                ck_assert(session_step(&half, &st, &e) == 0);
        }
        char *path = temp_file();
        ck_assert_msg(session_save(&half, path, &e) == 0, "%s", e.msg);
        ck_assert_msg(session_resume(&rest, path, 0, 0.0, &e) == 0, "%s", e.msg);
        ck_assert_int_eq(rest.meta.random_draw, RANDOM_DRAW_RUOSS);
        ck_assert_int_eq(rest.meta.train_draw, TRAIN_DRAW_FRESH);
        ck_assert(memcmp(&rest.model.cfg.pe, &cfg.pe, sizeof cfg.pe) == 0);
        for (size_t i = 0; i < 15; i++) {
            StepStats st;
            ck_assert(session_step(&rest, &st, &e) == 0);
            lr[i] = st.loss;
        }
        ck_assert_msg(memcmp(lw + 15, lr, sizeof lr) == 0, "%s%s: resumed steps differ",
                      name[k], k == 3 ? " (clamped)" : "");
        if (k >= 2)
            memcpy(xl_losses[k - 2], lw, sizeof lw);
        session_free(&whole), session_free(&half), session_free(&rest);
        unlink(path);
    }
    ck_assert_msg(memcmp(xl_losses[0], xl_losses[1], sizeof xl_losses[0]) != 0,
                  "xl: --xl-rows clamped trained the same losses as offset");
}
END_TEST

START_TEST(embed_std_scales_the_first_draw) {
    /* the reference's TruncatedNormal(0.02) against nn.Embedding's N(0,1):
     * the same draw times 0.02 */
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    fresh_run(&mt, &cfg, &opt, "none");
    mt.random_positions = 0, mt.random_draw = RANDOM_DRAW_POSITIONS;
    Session a, b;
    Err e;
    ck_assert_msg(session_create(&a, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    mt.embed_std = 0.02f;
    ck_assert_msg(session_create(&b, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    size_t n = a.model.cfg.vocab_size * a.model.pe.E;
    for (size_t i = 0; i < n; i++)
        ck_assert(b.model.p.tok_emb[i] == a.model.p.tok_emb[i] * 0.02f);
    size_t off = (size_t)(a.model.p.tok_emb - a.model.mem); /* the other tensors: the same */
    for (size_t i = 0; i < a.model.n_params; i++)
        ck_assert(i - off < n || a.model.mem[i] == b.model.mem[i]);
    session_free(&a), session_free(&b);
}
END_TEST

START_TEST(the_draws_refuse_what_they_cannot_do) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    fresh_run(&mt, &cfg, &opt, "rope");
    mt.random_positions = 0;
    Session s;
    Err e;
    ck_assert_int_eq(session_create(&s, &mt, &cfg, &opt, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--random-positions N") != NULL, "%s", e.msg);
    fresh_run(&mt, &cfg, &opt, "rope");
    mt.task[0] = '\0';
    snprintf(mt.data, sizeof mt.data, "data/toy.txt");
    ck_assert_int_eq(train_draw_check(&mt, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "give --task") != NULL, "%s", e.msg);
    /* --embed-std scales a first draw, which a fine-tuning (--init) has not */
    fresh_run(&mt, &cfg, &opt, "rope");
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    Session t;
    mt.embed_std = 0.02f;
    ck_assert_int_eq(session_create_from(&t, &mt, &s.model, &s.vocab, &s.labels, &s.model.cfg,
                                         &opt, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--embed-std") && strstr(e.msg, "--init"), "%s", e.msg);
    session_free(&s);
}
END_TEST

TCase *tcase_draws(void) {
    TCase *tc = tcase_create("the reference's forms and draws");
    tcase_add_test(tc, alibi_encoder_form_as_the_reference);
    tcase_add_test(tc, alibi_drawn_distances_as_the_reference);
    tcase_add_test(tc, xl_drawn_distances_score_their_offsets);
    tcase_add_loop_test(tc, xl_drawn_distances_backward_is_the_forwards_derivative, 0, 2);
    tcase_add_test(tc, a_layers_draw_of_the_plain_places_is_the_plain_model);
    tcase_add_test(tc, each_layer_draws_its_own);
    tcase_add_test(tc, fresh_sentences_every_step);
    tcase_add_test(tc, a_resumed_fresh_ruoss_run_is_the_run_it_continues);
    tcase_add_test(tc, embed_std_scales_the_first_draw);
    tcase_add_test(tc, the_draws_refuse_what_they_cannot_do);
    return tc;
}
