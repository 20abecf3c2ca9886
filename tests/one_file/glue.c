/* The one file's model (examples/one_file/encoder.c) behind a few plain
 * functions, for tests/test_one_file.c. The test compiles this file with
 * the copy of the one file it names (-DONE_FILE='"PATH"': the file itself,
 * or a copy it broke on purpose) into a shared object, as a reader would
 * compile the file (cc -O2), and loads it: the file's names (Config,
 * linear_forward, ...) and the library's never meet in one program. Not
 * built by the Makefile, which builds the .c files of tests/ only. */
#define ONE_FILE_NO_MAIN
/* main's helpers are compiled out with it; the rest is the model, of
 * which these functions call all but AdamW and the tokenizer */
#pragma GCC diagnostic ignored "-Wunused-function"
#include ONE_FILE

static Model model;

int onefile_schemes(void) { return N_SCHEMES; }

const char *onefile_scheme(int i) { return SCHEME_NAMES[i]; }

/* The file's model with scheme i and its default shape, its weights drawn
 * from seed; shape gets V, C, NH, F, L, K, B, T. */
void onefile_create(int scheme, unsigned long seed, size_t shape[8]) {
    Config c = config_default((Scheme)scheme);
    model_create(&model, &c, seed);
    size_t s[8] = {c.V, c.C, c.NH, c.F, c.L, c.K, c.B, c.T};
    memcpy(shape, s, sizeof s);
}

size_t onefile_tensors(void) { return model.n_tensors; }

/* Tensor i: its name and shape, its weights w and its gradient g. */
const char *onefile_tensor(size_t i, size_t *rows, size_t *cols, float **w, float **g) {
    const Tensor *t = &model.tensors[i];
    *rows = t->rows, *cols = t->cols;
    *w = model.params + t->off, *g = model.grads + t->off;
    return t->name;
}

/* The forward pass on B sentences (ids (B,T), lens (B), labels (B)), then
 * the backward: returns the loss; hidden (B,T,C), pooled (B,C) and logits
 * (B,K) point into the model. */
float onefile_run(const int *ids, const size_t *lens, const int *labels, size_t B,
                  const float **hidden, const float **pooled, const float **logits) {
    float loss = forward(&model, ids, lens, labels, B);
    backward(&model, ids, lens, labels, B);
    *hidden = model.a.layer[model.cfg.L - 1].ln2;
    *pooled = model.a.pooled;
    *logits = model.a.logits;
    return loss;
}

void onefile_free(void) { model_free(&model); }
