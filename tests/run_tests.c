/* Runs every suite; the exit status is the number of failed tests (capped),
 * so make test fails when any test does. */
#include <stdlib.h>
#include <string.h>

#include "../src/model/par.h"
#include "suites.h"

float *run_model(const Model *m, const int *ids, const size_t *lens, size_t B, size_t T,
                 float **pooled) {
    Acts a;
    Err e;
    ck_assert_msg(acts_create(&a, m, B, T, &e) == 0, "%s", e.msg);
    ck_assert_msg(encoder_forward(m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    size_t C = m->cfg.d_model;
    float *out = malloc(B * T * C * sizeof *out);
    ck_assert_ptr_nonnull(out);
    memcpy(out, a.hidden, B * T * C * sizeof *out);
    if (pooled) {
        *pooled = malloc(B * C * sizeof **pooled);
        ck_assert_ptr_nonnull(*pooled);
        memcpy(*pooled, a.pooled, B * C * sizeof **pooled);
    }
    acts_free(&a);
    return out;
}

void make_model(Model *m, size_t V, size_t C, size_t NH, size_t L, size_t F, NormPlace norm,
                Activation act, const char *pe, Combine combine, uint64_t seed) {
    Config c;
    config_default(&c, V, pe);
    c.d_model = C;
    c.n_heads = NH;
    c.n_layers = L;
    c.d_ff = F;
    c.norm = norm;
    c.act = act;
    if (combine != COMBINE_DEFAULT)
        pe_put(&c.pe, &pe_opt_combine, combine == COMBINE_CONCAT ? 1 : 0);
    c.seed = seed;
    Err e;
    ck_assert_msg(model_create(m, &c, &e) == 0, "%s", e.msg);
}

size_t scheme_count(bool (*keep)(const PeScheme *s)) {
    size_t n = 0;
    for (size_t i = 0; i < pe_count(); i++)
        n += keep(pe_at(i));
    return n;
}

const PeScheme *scheme_nth(bool (*keep)(const PeScheme *s), size_t n) {
    for (size_t i = 0; i < pe_count(); i++)
        if (keep(pe_at(i)) && n-- == 0)
            return pe_at(i);
    ck_abort_msg("the registry has no scheme %zu of that kind", n);
    return NULL;
}

void set_opt(PeConfig *pc, const char *flag, const char *text) {
    Err e;
    ck_assert_msg(pe_set_named(pc, flag, text, &e) == 0, "%s", e.msg);
}

int main(int argc, char **argv) {
    (void)argc;
    /* as the programs do: spinning calmed, the team from the CPUs (the
     * Makefile's OMP_NUM_THREADS stands) */
    par_start(argv);
    SRunner *sr = srunner_create(suite_matmul());
    srunner_add_suite(sr, suite_encoder());
    srunner_add_suite(sr, suite_pe());
    srunner_add_suite(sr, suite_attn());
    srunner_add_suite(sr, suite_vocab());
    srunner_add_suite(sr, suite_cli());
    srunner_add_suite(sr, suite_grad());
    srunner_add_suite(sr, suite_parity());
    srunner_add_suite(sr, suite_train());
    srunner_add_suite(sr, suite_programs());
    srunner_add_suite(sr, suite_docs());
    srunner_add_suite(sr, suite_plot());
    srunner_add_suite(sr, suite_figures());
    srunner_add_suite(sr, suite_probe());
    srunner_add_suite(sr, suite_report());
    srunner_add_suite(sr, suite_data());
    srunner_add_suite(sr, suite_tasks());
    srunner_add_suite(sr, suite_orderdemo());
    srunner_add_suite(sr, suite_edges());
    srunner_add_suite(sr, suite_fuzz());
    srunner_add_suite(sr, suite_threads());
    srunner_add_suite(sr, suite_stats());
    srunner_add_suite(sr, suite_rules());
    srunner_add_suite(sr, suite_cells());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed > 100 ? 100 : failed;
}
