/* One contract for the score hooks (src/pe/pe.h), held for every scheme
 * of the registry that acts inside attention, with no line of its own
 * here: the model, the property analysis and the reference model call
 * its hooks with the same inputs. The reference against the model, and
 * both backward passes against central differences, are
 * test_grad_encoder.c's (it loops over the registry too); here, the
 * analysis against the model, and the optional hooks left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/attention.h"
#include "../src/model/par.h"
#include "../src/pe/analysis_attn.h"
#include "suites.h"

#define N 7  /* positions */
#define C 16 /* two heads of 8 */
#define NH 2

/* The model's attention weights of head 0 (N,N) for a sentence whose
 * every query is q0 and every key k0 (the analysis's probe), the
 * scheme's table drawn as the analysis draws it from seed. */
static void model_weights(double *W, const PePlan *plan, const PeConfig *pc, uint64_t seed) {
    const PeScheme *s = plan->scheme;
    size_t HS = C / NH, n_table = plan->rows * plan->cols;
    float q0[C / NH], k0[C / NH];
    attention_probe_qk(q0, k0, HS);
    float *table = calloc(n_table + 1, sizeof *table);
    ck_assert_ptr_nonnull(table);
    if (n_table) {
        Rng r;
        rng_seed(&r, seed);
        s->init(pc, table, n_table, C, NH, &r);
    }
    size_t pos[N], lens[1] = {N}, n_scratch = pe_scratch(plan, pc, N) + 1;
    for (size_t t = 0; t < N; t++)
        pos[t] = t;
    float *qkv = calloc(N * 3 * C, sizeof *qkv), *scratch = calloc(n_scratch, sizeof *scratch);
    float *att = calloc(NH * N * N, sizeof *att), *out = calloc(N * C, sizeof *out);
    float *logits = calloc(NH * N * N, sizeof *logits);
    size_t work = pe_work(plan, pc, N);
    float *ws = calloc((size_t)par_max_threads() * work + 1, sizeof *ws);
    ck_assert(qkv && scratch && att && out && logits && ws);
    Rng r;
    rng_seed(&r, 5);
    for (size_t t = 0; t < N; t++)
        for (size_t c = 0; c < 3 * C; c++)
            qkv[t * 3 * C + c] = c < HS ? q0[c] : c >= C && c < C + HS ? k0[c - C]
                                                                      : rng_normal(&r);
    if (s->prepare)
        s->prepare(scratch, pc, pos, N, HS);
    AttnHook hook = {.scheme = s, .pc = pc, .params = n_table ? table : NULL,
                     .scratch = scratch, .stride = n_scratch, .pos = pos, .lens = lens,
                     .logits = s->reads_logits ? logits : NULL, .work = work ? ws : NULL,
                     .work_stride = work};
    attention_forward(out, att, qkv, lens, false, &hook, NULL, 1, N, C, NH);
    for (size_t i = 0; i < N * N; i++)
        W[i] = att[i];
    free(table), free(qkv), free(scratch), free(att), free(out), free(logits), free(ws);
}

/* _i: each scheme inside attention. The analysis measures S, the part of
 * head 0's logit the positions decide (the whole logit for a rotation,
 * the scheme's term for one that adds to the logits, with q0 . k0 given
 * it as the logits); the model's weights must be the softmax of S plus,
 * for a term, q0 . k0 / sqrt(HS). A scheme that reads the logits and got
 * zeros from either would fail here (cope: its gates would all be 1/2). */
START_TEST(the_analysis_sees_what_the_model_computes) {
    const PeScheme *s = scheme_nth(pe_in_attention, (size_t)_i);
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, s->name);
    ck_assert_msg(pe_plan(&plan, &pc, C, NH, 64, &e) == 0, "%s", e.msg);
    double S[N * N], W[N * N];
    ck_assert_msg(attention_logits(S, &plan, &pc, 11, N, &e) == 0, "%s: %s", s->name, e.msg);
    model_weights(W, &plan, &pc, 11);
    size_t HS = C / NH;
    float q0[C / NH], k0[C / NH];
    attention_probe_qk(q0, k0, HS);
    double base = 0.0;
    for (size_t d = 0; d < HS; d++)
        base += (double)q0[d] * k0[d];
    base = s->rotate ? 0.0 : base / sqrt((double)HS);
    double worst = 0.0;
    for (size_t i = 0; i < N; i++) {
        double max = -INFINITY, sum = 0.0, row[N];
        for (size_t j = 0; j < N; j++)
            max = fmax(max, row[j] = base + S[i * N + j]);
        for (size_t j = 0; j < N; j++)
            sum += (row[j] = exp(row[j] - max));
        for (size_t j = 0; j < N; j++)
            worst = fmax(worst, fabs(row[j] / sum - W[i * N + j]));
    }
    ck_assert_msg(worst < 2e-6, "%s: the model's weights differ from the softmax of the "
                  "analysis's logits by %.3g", s->name, worst);
}
END_TEST

/* A scheme with its score alone (no scratch, prepare, work or table):
 * the model, the analysis and the report run it. */
static void constant_score(const PeHead *hd) {
    for (size_t i = 0; i < hd->T; i++)
        for (size_t j = 0; j < hd->T; j++)
            hd->scores[i * hd->T + j] -= 0.1f * (float)(i > j ? i - j : j - i);
}

static double constant_ref_score(const PeRefRow *r) {
    return -0.1 * fabs((double)r->i - (double)r->j);
}

START_TEST(a_scheme_without_its_optional_hooks_runs_everywhere) {
    PeScheme bare = {.name = "alibi", .about = "a test's", .default_combine = COMBINE_ADD,
                     .score = constant_score, .ref_score = constant_ref_score};
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, "alibi");
    ck_assert_msg(pe_plan(&plan, &pc, C, NH, 64, &e) == 0, "%s", e.msg);
    plan.scheme = &bare;
    double S[N * N], W[N * N];
    ck_assert_msg(attention_logits(S, &plan, &pc, 11, N, &e) == 0, "%s", e.msg);
    ck_assert_double_eq_tol(S[0 * N + 3], -0.3, 1e-6);
    model_weights(W, &plan, &pc, 11);
    ck_assert(W[0] > W[1] && W[1] > W[2]);
    PeProps p;
    ck_assert_msg(attention_properties(&p, &plan, &pc, 11, N, 2 * N, &e) == 0, "%s", e.msg);
    /* and a registered scheme without scratch and prepare, through the
     * program */
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        if (!pe_in_attention(s) || s->prepare)
            continue;
        char args[96];
        snprintf(args, sizeof args, "--pe %s", s->name);
        Run run_ = run("pe_report", args);
        ck_assert_msg(run_.status == 0, "pe_report %s: %s", args, run_.err);
        run_free(&run_);
    }
}
END_TEST

TCase *tcase_conformance(void) {
    TCase *tc = tcase_create("contract");
    tcase_add_loop_test(tc, the_analysis_sees_what_the_model_computes, 0,
                        (int)scheme_count(pe_in_attention));
    tcase_add_test(tc, a_scheme_without_its_optional_hooks_runs_everywhere);
    return tc;
}
