/* The scratch scheme of the check that adding a scheme takes its file,
 * its registry line and its docs rows, nothing else
 * (tests/scratch_scheme/check.sh, run by make check): copied into a copy
 * of the tree as src/pe/pe_scratchbias.c, never built here. A learned
 * slope per head, -w_h |i - j| on the scores, with one option: the
 * slopes' first draw. */
#include <math.h>

#include "pe.h"

static const PeOption opt_init = {
    .flag = "--scratchbias-init",
    .arg = "W",
    .type = PE_VALUE_REAL,
    .lo = 0.0,
    .hi = 1.0,
    .def = 0.5,
    .def_text = "0.5",
    .help = "scratchbias: the largest first slope; each head's is drawn from 0..W",
    .example = "0.25",
};

static void shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                  size_t *rows, size_t *cols) {
    (void)pc, (void)w, (void)HS, (void)max_len;
    *rows = 1;
    *cols = NH;
}

static void init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH, Rng *rng) {
    (void)C, (void)n;
    float w = (float)pe_get(pc, &opt_init);
    for (size_t h = 0; h < NH; h++)
        params[h] = w * (float)rng_uniform(rng);
}

static void score(const PeHead *hd) {
    const float *P = hd->scratch;
    float w = hd->params[hd->h];
    for (size_t i = 0; i < hd->T; i++)
        for (size_t j = 0; j < hd->T; j++)
            hd->scores[i * hd->T + j] -= w * fabsf(P[i] - P[j]);
}

static void score_backward(const PeHead *hd) {
    if (!hd->dparams)
        return;
    const float *P = hd->scratch;
    float g = 0.0f;
    for (size_t i = 0; i < hd->T; i++)
        for (size_t j = 0; j < hd->T; j++)
            g -= hd->dscores[i * hd->T + j] * fabsf(P[i] - P[j]);
    hd->dparams[hd->h] += g;
}

static double ref_score(const PeRefRow *r) {
    return -r->params[r->h] * fabs((double)r->pi - (double)r->pj);
}

const PeScheme pe_scratchbias = {
    .name = "scratchbias",
    .since = 7,
    .options = (const PeOption *const[]){&opt_init, NULL},
    .about = "a learned slope per head, -w_h |i-j| on its scores (the scratch scheme of make "
             "check)",
    .grids_later = true,
    .default_combine = COMBINE_ADD,
    .param_shape = shape,
    .param_name = "scratchbias.weight",
    .grad_by_head = true,
    .init = init,
    .scratch = pe_positions_scratch,
    .prepare = pe_positions_prepare,
    .score = score,
    .score_backward = score_backward,
    .ref_score = ref_score,
};
