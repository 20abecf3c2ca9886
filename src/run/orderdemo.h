/* The order demonstration, shared by build/demo_order and the web page
 * (web/): two sentences, the second a reordering of the first, run
 * through one model; how far each word's output row moved and how alike
 * the two pooled sentence vectors are. The checks and their messages live
 * here so that the program and the page say the same thing about the same
 * bad input. */
#ifndef POSENC_ORDERDEMO_H
#define POSENC_ORDERDEMO_H

#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../text/order.h"
#include "../text/vocab.h"

/* Longer sentences would only make the attention maps (T x T per head)
 * large; the symmetry shows at any length. */
#define ORDER_MAX_WORDS 1024

/* The two sentences, split into words and lined up. */
typedef struct {
    Words a;      /* sentence 1 (SENTENCE) */
    Words b;      /* sentence 2 (PERMUTED), the same words in another order */
    size_t *perm; /* (n) b's word i is a's word perm[i] */
} OrderPair;

/* What one model made of the pair. */
typedef struct {
    double max_diff; /* max |row of b's word i - row of a's word perm[i]| */
    double cos;      /* cosine of the two pooled vectors */
} OrderResult;

/* The demo's model: config_default with d_model 16, 2 heads, d_ff 64
 * (2 layers, post-norm, ReLU, seed 42), no head, scheme "none". */
void order_config_default(Config *c);

/* Splits s1 and s2 (NULL: s1 read backwards) and lines them up. Fails
 * with ERR_INPUT, saying what to change, when s1 is empty or too long or
 * s2 is not a reordering of it; p is then left empty (order_pair_free is
 * still safe). */
int order_pair_init(OrderPair *p, const char *s1, const char *s2, Err *e);
void order_pair_free(OrderPair *p);
/* Puts word before both sentences (a model that pools by [CLS] reads it
 * first), lined up with itself. On failure free the pair: one sentence may
 * have it and the other not. */
int order_pair_prepend(OrderPair *p, const char *word, Err *e);

/* Sets c's scheme to `scheme`; an attention scheme gets its own combine
 * mode (--combine is for the input schemes, and the demo runs them all
 * with one set of options). */
void order_config_scheme(Config *c, const char *scheme);

/* Checks cfg with the scheme `scheme` for sentences of n tokens (the
 * words, and the [CLS] before them when cfg pools by it) before anything
 * runs: the configuration, the scheme's fit to d_model, and a learned
 * table's rows. ERR_INPUT with what to change, counting words. */
int order_check_scheme(const Config *cfg, const char *scheme, size_t n, Err *e);

/* Runs m on sentences a and b (n words each, b's word i being a's word
 * perm[i], as in an OrderPair) as one batch of two, words looked up in v
 * (a word v lacks becomes <unk>), and measures them. acts is created here
 * for the caller to read (hidden (2,n,C), pooled (2,C), logits) and to
 * free with acts_free; on failure there is nothing to free. */
int order_run(OrderResult *r, Acts *acts, const Model *m, const Vocab *v, const Words *a,
              const Words *b, const size_t *perm, Err *e);

/* "order-blind" when max_diff <= ORDER_BLIND_TOL, else "order-sensitive". */
const char *order_verdict(double max_diff);

#endif
