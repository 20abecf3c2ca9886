/* A learned table of positions (BERT, GPT-2): one trainable row per
 * position the model accepts, so no row exists past max_len. */
#include "pe.h"

static void learned_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                          size_t *rows, size_t *cols) {
    (void)pc, (void)HS, (void)NH;
    *rows = max_len;
    *cols = w;
}

static void learned_init(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng) {
    (void)C;
    /* Small, as in BERT and GPT-2 (std 0.02): the table starts close to
     * "no position" and training grows what it needs. */
    float std = (float)pe_resolved(pc).init_std;
    for (size_t i = 0; i < n; i++)
        params[i] = std * rng_normal(rng);
}

const PeScheme pe_learned = {
    .name = "learned",
    .reads = PE_READS_WIDTH | PE_READS_INIT,
    .about = "a trainable table, one row per position up to max_len (BERT, GPT-2)",
    .note = "an untrained table is small (std 0.02): the rows move a little; training grows them",
    .default_combine = COMBINE_ADD,
    .width = pe_wide_width,
    .param_shape = learned_shape,
    .param_name = "pos_embedding.weight",
    .init = learned_init,
};
