/* A learned table of positions (BERT, GPT-2): one trainable row per
 * position the model accepts, so no row exists past max_len. */
#include "pe.h"

static size_t learned_rows(size_t max_len) { return max_len; }

static void learned_init(float *params, size_t n, Rng *rng) {
    /* Small, as in BERT and GPT-2 (std 0.02): the table starts close to
     * "no position" and training grows what it needs. */
    for (size_t i = 0; i < n; i++)
        params[i] = 0.02f * rng_normal(rng);
}

static void fill_learned(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                         size_t w) {
    (void)pc, (void)n;
    for (size_t i = 0; i < T * w; i++)
        P[i] = params[i];
}

const PeScheme pe_learned = {
    .name = "learned",
    .about = "a trainable table, one row per position up to max_len (BERT, GPT-2)",
    .default_combine = COMBINE_ADD,
    .width = pe_wide_width,
    .param_rows = learned_rows,
    .init = learned_init,
    .fill = fill_learned,
};
