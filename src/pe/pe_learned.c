/* A learned table of positions (BERT, GPT-2): one trainable row per
 * position the model accepts, so no row exists past max_len. */
#include "pe.h"

#define INIT_STD_MIN 1e-6 /* --pe-init-std's range, for the command line and the */
#define INIT_STD_MAX 100.0 /* checkpoint loader alike */

static const PeOption opt_init_std = {
    .flag = "--pe-init-std",
    .arg = "X",
    .type = PE_VALUE_REAL,
    .lo = INIT_STD_MIN,
    .hi = INIT_STD_MAX,
    .def = 0.02, /* BERT's and GPT-2's */
    .def_text = "0.02",
    .help = "learned: std of the table's first draw (default 0.02)",
    .example = "0.1",
};

static void learned_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                          size_t *rows, size_t *cols) {
    (void)pc, (void)HS, (void)NH;
    *rows = max_len;
    *cols = w;
}

static void learned_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                         Rng *rng) {
    (void)C, (void)NH;
    /* Small, as in BERT and GPT-2 (std 0.02): the table starts close to
     * "no position" and training grows what it needs. */
    float std = (float)pe_get(pc, &opt_init_std);
    for (size_t i = 0; i < n; i++)
        params[i] = std * rng_normal(rng);
}

const PeScheme pe_learned = {
    .name = "learned",
    .demo_default = true,
    .since = 1,
    .options = (const PeOption *const[]){&opt_init_std, NULL},
    .ruoss_column = "learned",
    .ruoss_randomized = true,
    .bench_options = "--pe-init-std 1", /* Haiku's Embed: TruncatedNormal(1) */
    .bench_place = 6,
    .about = "a trainable table, one row per position up to max_len (BERT, GPT-2)",
    .note = "an untrained table is small (std 0.02): the rows move a little; training grows them",
    .default_combine = COMBINE_ADD,
    .width = pe_wide_width,
    .param_shape = learned_shape,
    .param_name = "pos_embedding.weight",
    .init = learned_init,
};
