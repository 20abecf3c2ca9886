/* T5's relative bias (Raffel et al. 2020): a learned number per head for
 * each bucket of the signed offset key - query, added to the scores. Small
 * offsets have a bucket each; larger ones share log-spaced buckets up to a
 * maximum distance, past which all share the last. One table serves every
 * layer, as in T5. It adds nothing to the word vectors. */
#include <math.h>

#include "pe.h"
#include "pe_t5.h"

static const PeOption opt_buckets = {
    .flag = "--buckets",
    .arg = "N",
    .type = PE_VALUE_SIZE,
    .lo = 4,
    .hi = 4096,
    .def = 32, /* T5's */
    .def_text = "32",
    .help = "t5: buckets of the offset, half each way (default 32)",
    .example = "8",
};

static const PeOption opt_max_distance = {
    .flag = "--max-distance",
    .arg = "D",
    .type = PE_VALUE_SIZE,
    .lo = 2,
    .hi = 1000000,
    .def = 128, /* T5's */
    .def_text = "128",
    .help = "t5: offsets from D on share the last bucket (default 128)",
    .example = "12",
};

static size_t buckets_of(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_buckets); }

static size_t distance_of(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_max_distance); }

size_t t5_bucket(long offset, size_t buckets, size_t max_distance) {
    size_t half = buckets / 2, exact = half / 2;
    size_t first = offset > 0 ? half : 0; /* keys to the right of the query */
    size_t n = offset < 0 ? (size_t)-offset : (size_t)offset;
    if (n < exact)
        return first + n;
    /* log-spaced from exact to max_distance over the other half-exact buckets */
    double f = log((double)n / (double)exact) / log((double)max_distance / (double)exact);
    size_t b = exact + (size_t)(f * (double)(half - exact));
    return first + (b < half - 1 ? b : half - 1);
}

static int t5_check(const PeConfig *pc, const PeShape *sh, Err *e) {
    (void)sh;
    size_t B = buckets_of(pc), D = distance_of(pc);
    if (B < 4 || B % 2 != 0 || B > 4096)
        return err_set(e, ERR_INPUT, "t5 needs an even number of buckets from 4 to 4096 (half "
                       "for each direction), not %zu; set --buckets", B);
    if (D <= B / 4 && !pe_given(pc, &opt_max_distance)) /* the default, not given */
        return err_set(e, ERR_INPUT, "t5 with --buckets %zu has %zu exact offsets, no fewer than "
                       "the default --max-distance %zu: give --max-distance above %zu, or at "
                       "most %zu buckets", B, B / 4, D, B / 4, 4 * D - 2);
    if (D <= B / 4 || D > 1000000)
        return err_set(e, ERR_INPUT, "t5's --max-distance %zu must be above the %zu exact "
                       "offsets and at most 1000000", D, B / 4);
    return 0;
}

static void t5_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                     size_t *rows, size_t *cols) {
    (void)w, (void)HS, (void)max_len;
    *rows = buckets_of(pc);
    *cols = NH;
}

static void t5_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                    Rng *rng) {
    (void)pc, (void)NH;
    /* T5's own initialization, N(0, 1/d_model) */
    float std = 1.0f / sqrtf((float)C);
    for (size_t i = 0; i < n; i++)
        params[i] = std * rng_normal(rng);
}

/* Per sentence: the bucket of every (query, key) pair, as floats (exact). */
static size_t t5_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc;
    (void)HS;
    return T * T;
}

static void t5_prepare(float *S, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)HS;
    size_t B = buckets_of(pc), D = distance_of(pc);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            S[i * T + j] = (float)t5_bucket((long)pos[j] - (long)pos[i], B, D);
}

static void t5_score(const PeHead *hd) {
    /* params is (buckets,NH), scores and S are (T,T) */
    const float *S = hd->scratch;
    for (size_t i = 0; i < hd->T * hd->T; i++)
        hd->scores[i] += hd->params[(size_t)S[i] * hd->NH + hd->h];
}

static void t5_score_backward(const PeHead *hd) {
    /* forward: scores[i] += params[bucket(i), h] */
    const float *S = hd->scratch;
    if (!hd->dparams)
        return;
    for (size_t i = 0; i < hd->T * hd->T; i++)
        hd->dparams[(size_t)S[i] * hd->NH + hd->h] += hd->dscores[i];
}

static double t5_ref_score(const PeRefRow *r) {
    size_t b = t5_bucket((long)r->pj - (long)r->pi, buckets_of(r->pc), distance_of(r->pc));
    return r->params[b * r->NH + r->h];
}

const PeScheme pe_t5 = {
    .name = "t5",
    .since = 2,
    .options = (const PeOption *const[]){&opt_buckets, &opt_max_distance, NULL},
    .about = "a learned bias per head for each bucket of the offset j-i, log-spaced far "
             "away (T5)",
    .note = "nothing is added to the word vectors; an untrained table is random (std "
            "1/sqrt(d_model)): each head already prefers some offsets",
    .default_combine = COMBINE_ADD,
    .check = t5_check,
    .param_shape = t5_shape,
    .param_name = "relative_attention_bias.weight",
    .grad_by_head = true,
    .init = t5_init,
    .scratch = t5_scratch,
    .prepare = t5_prepare,
    .score = t5_score,
    .score_backward = t5_score_backward,
    .ref_score = t5_ref_score,
};
