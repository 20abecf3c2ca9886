#include "orderdemo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/encoder.h"
#include "../text/data.h"

void order_config_default(Config *c) {
    config_default(c, 0, "none");
    c->d_model = 16;
    c->n_heads = 2;
    c->d_ff = 64;
}

void order_pair_free(OrderPair *p) {
    words_free(&p->a);
    words_free(&p->b);
    free(p->perm);
    memset(p, 0, sizeof *p);
}

/* s1's words joined backwards, as the second sentence when none is given. */
static int split_reversed(Words *b, const Words *a, size_t len, Err *e) {
    char *rev = xcalloc(len + a->n + 1, 1, "the reversed sentence", e);
    if (!rev)
        return ERR_RUNTIME;
    for (size_t i = a->n; i-- > 0;)
        strcat(strcat(rev, a->w[i]), i ? " " : "");
    int rc = words_split(b, rev, e);
    free(rev);
    return rc;
}

int order_pair_init(OrderPair *p, const char *s1, const char *s2, Err *e) {
    memset(p, 0, sizeof *p);
    int rc = words_split(&p->a, s1, e);
    if (!rc && p->a.n == 0)
        rc = err_set(e, ERR_INPUT, "SENTENCE is empty: give at least two words, in quotes");
    if (!rc && p->a.n > ORDER_MAX_WORDS)
        rc = err_set(e, ERR_INPUT, "SENTENCE has %zu words; the demo takes at most %d", p->a.n,
                     ORDER_MAX_WORDS);
    if (!rc)
        rc = data_check_words(&p->a, 0, "SENTENCE", e);
    if (!rc)
        rc = s2 ? words_split(&p->b, s2, e) : split_reversed(&p->b, &p->a, strlen(s1), e);
    if (!rc && s2 && p->b.n) /* empty: align says so, as a reordering's failure */
        rc = data_check_words(&p->b, 0, "PERMUTED", e);
    if (!rc && !(p->perm = xcalloc(p->a.n, sizeof *p->perm, "the alignment", e)))
        rc = ERR_RUNTIME;
    if (!rc && align_permutation(p->perm, &p->a, &p->b, e)) {
        /* Prefix align's own message with the sentences' names; copy it
         * first, since the message is formatted into the buffer it reads. */
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        rc = err_set(e, ERR_INPUT, "PERMUTED is not a reordering of SENTENCE: %s", why);
    }
    if (rc)
        order_pair_free(p);
    return rc;
}

int order_pair_prepend(OrderPair *p, const char *word, Err *e) {
    size_t n = p->a.n;
    size_t *perm = xmalloc((n + 1) * sizeof *perm, "the alignment", e);
    int rc = perm ? words_prepend(&p->a, word, e) : ERR_RUNTIME;
    if (!rc)
        rc = words_prepend(&p->b, word, e);
    if (rc) {
        free(perm);
        return rc;
    }
    perm[0] = 0;
    for (size_t i = 0; i < n; i++)
        perm[i + 1] = p->perm[i] + 1;
    free(p->perm);
    p->perm = perm;
    return 0;
}

void order_config_scheme(Config *c, const char *scheme) {
    const PeScheme *s = pe_find(scheme); /* NULL: pe_plan will say it is unknown */
    if (s)
        c->pe = pe_config_for(&c->pe, s); /* each scheme takes the options it reads */
    else
        snprintf(c->pe.name, sizeof c->pe.name, "%s", scheme);
}

int order_check_scheme(const Config *cfg, const char *scheme, size_t n, Err *e) {
    Config probe = *cfg;
    order_config_scheme(&probe, scheme);
    PePlan plan;
    int rc = config_check(&probe, e);
    if (!rc)
        rc = pe_plan(&plan, &probe.pe, cfg->d_model, cfg->n_heads, cfg->max_len, e);
    char words[96];
    if (!rc && n > plan.max_positions)
        rc = err_set(e, ERR_INPUT, "the sentence has %s but the %s table has rows for "
                     "positions 0..%zu only; use --table-len %zu or more, or a shorter sentence",
                     config_words(cfg, n, words, sizeof words), scheme, plan.max_positions - 1, n);
    return rc;
}

int order_run(OrderResult *r, Acts *acts, const Model *m, const Vocab *v, const Words *a,
              const Words *b, const size_t *perm, Err *e) {
    size_t n = a->n, C = m->cfg.d_model;
    size_t lens[2] = {n, n};
    int *ids = xcalloc(2 * n, sizeof *ids, "the token ids", e);
    if (!ids)
        return ERR_RUNTIME;
    for (size_t i = 0; i < n; i++) {
        int ia = vocab_find(v, a->w[i]), ib = vocab_find(v, b->w[i]);
        ids[i] = ia < 0 ? VOCAB_UNK : ia;
        ids[n + i] = ib < 0 ? VOCAB_UNK : ib;
    }
    int rc = acts_create(acts, m, 2, n, e);
    if (!rc && (rc = encoder_forward(m, acts, ids, lens, 2, n, e)))
        acts_free(acts);
    free(ids);
    if (rc)
        return rc;
    const float *ya = acts->hidden, *yb = acts->hidden + n * C;
    r->max_diff = max_aligned_diff(ya, yb, perm, n, C);
    r->cos = cosine(acts->pooled, acts->pooled + C, C);
    return 0;
}

const char *order_verdict(double max_diff) {
    return max_diff <= ORDER_BLIND_TOL ? "order-blind" : "order-sensitive";
}
