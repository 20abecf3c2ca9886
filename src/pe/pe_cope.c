/* CoPE (Golovneva et al. 2024, "Contextual Position Encoding: Learning to
 * Count What's Important"): positions counted by the content. Query i
 * gates each key it sees, g_ij = sigmoid(q_i . k_j / sqrt(HS)), and the
 * position of key j is the sum of the gates between them,
 *     p_ij = sum_{k=j..i} g_ik,
 * a real number: the count of keys the query found worth counting. Its
 * vector is interpolated between the learned vectors of the integers
 * around it, e[p] = (1 - w) e[floor p] + w e[ceil p], w = p - floor p
 * (p at most P - 1, --cope-max-pos), and q_i . e[p_ij] is added to the
 * logit of the pair.
 *
 * As the paper's appendix code and x-transformers' CoPE (which this file
 * is written from): the gates read the logits as attention computes
 * them, scaled and masked (a masked key's gate is 0: the padding's, and
 * under the causal mask the keys after the query, so the sum stops at
 * the query); the term is q_i . e, q unscaled; one table of P vectors of
 * a head's width per layer, shared by the heads. Two differences:
 * - The code's table starts at zeros, so an untrained model adds nothing
 *   and is order-blind until a step moves it. Here it is drawn from
 *   N(0, s^2), s = --cope-init-std, 0.02 by default (BERT's learned
 *   tables'), so that a fresh model already tells orders apart; 0 gives
 *   the code's zeros.
 * - An encoder. The paper's model is causal. Here a query also reads the
 *   keys after it, and the sum of the gates between i and j, taken to
 *   either side, reads a sentence and its reverse alike (the position of
 *   a key counts the same gates whichever side it stands on). So the
 *   keys to the right count from the query the other way,
 *   p_ij = sum_{k=i..j} g_ik, and read a second table: the table is (2P,
 *   HS), rows 0..P-1 for the keys at or before the query, P..2P-1 for the
 *   keys after it. Under --causal no key is after the query: the paper's
 *   CoPE, and the second table is never read (it keeps its first draw).
 * The tokens' own positions are never read (their positions are the
 * gates'), so --random-positions does nothing for it. It adds nothing to
 * the word vectors. */
#include <math.h>
#include <string.h>

#include "pe.h"

static const PeOption opt_max_pos = {
    .flag = "--cope-max-pos",
    .arg = "P",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = 4096,
    .def = 16, /* x-transformers' cope_max_pos */
    .def_text = "16",
    .help = "cope: the learned position vectors, for counts 0..P-1; a larger count reads P-1's "
            "(default 16, x-transformers')",
    .example = "8",
};

static const PeOption opt_init_std = {
    .flag = "--cope-init-std",
    .arg = "S",
    .type = PE_VALUE_REAL,
    .lo = 0.0,
    .hi = 10.0,
    .def = 0.02,
    .def_text = "0.02",
    .help = "cope: the position vectors drawn from N(0, S^2); 0 starts them at zeros, as the "
            "paper's code (an untrained model is then order-blind) (default 0.02)",
    .example = "0",
};

static size_t max_pos(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_max_pos); }

/* Rows 0..P-1: the keys at or before the query; P..2P-1: after it. */
static void cope_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                       size_t *rows, size_t *cols) {
    (void)w, (void)NH, (void)max_len;
    *rows = 2 * max_pos(pc);
    *cols = HS;
}

static void cope_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                      Rng *rng) {
    (void)C, (void)NH;
    float std = (float)pe_get(pc, &opt_init_std);
    for (size_t i = 0; i < n; i++)
        params[i] = std > 0.0f ? std * rng_normal(rng) : 0.0f;
}

/* The keys query i sees: 0..n-1. */
static size_t seen(const PeHead *hd, size_t i) {
    return hd->causal && i + 1 < hd->len ? i + 1 : hd->len;
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* Where p falls among the integer vectors: floor f, ceil c, weight w of
 * c; clamped reports p cut at P - 1 (no gradient through it there). */
typedef struct {
    size_t f, c;
    float w;
    bool clamped;
} Slot;

static Slot slot_of(float p, size_t P) {
    float top = (float)(P - 1);
    Slot s = {.clamped = p > top};
    float q = s.clamped ? top : p;
    float f = floorf(q);
    s.f = (size_t)f, s.c = (size_t)ceilf(q), s.w = q - f;
    return s;
}

/* Row i's gates into g (T; 0 past the keys it sees) and the counts of the
 * keys into p (T): to the left of the query, the sum from j to i; to its
 * right, from i to j. */
static void counts(const PeHead *hd, size_t i, float *g, float *p) {
    size_t T = hd->T, n = seen(hd, i);
    for (size_t j = 0; j < T; j++)
        g[j] = j < n ? sigmoid(hd->logits[i * T + j]) : 0.0f;
    float sum = 0.0f;
    for (size_t j = i + 1; j-- > 0;)
        p[j] = (sum += g[j]);
    sum = i < T ? g[i] : 0.0f;
    for (size_t j = i + 1; j < T; j++)
        p[j] = (sum += g[j]);
}

/* z (2P): q_i . e_t for every vector of the table. */
static void query_dots(const PeHead *hd, size_t i, float *z, size_t P) {
    const float *q = hd->q + i * hd->ld;
    for (size_t t = 0; t < 2 * P; t++) {
        const float *e = hd->params + t * hd->HS;
        float dot = 0.0f;
        for (size_t d = 0; d < hd->HS; d++)
            dot += q[d] * e[d];
        z[t] = dot;
    }
}

/* The workspace: a row's gates, counts, the counts' gradient (T each)
 * and the query's dots with the vectors and their gradient (2P each). */
static size_t cope_work(const PeConfig *pc, size_t T, size_t HS, size_t NH) {
    (void)HS, (void)NH;
    return 3 * T + 4 * max_pos(pc);
}

static void cope_score(const PeHead *hd) {
    size_t T = hd->T, P = max_pos(hd->pc);
    float *g = hd->work, *p = g + T, *z = p + 2 * T;
    for (size_t i = 0; i < T; i++) {
        counts(hd, i, g, p);
        query_dots(hd, i, z, P);
        for (size_t j = 0; j < seen(hd, i); j++) {
            const float *zs = z + (j > i ? P : 0);
            Slot s = slot_of(p[j], P);
            hd->scores[i * T + j] += zs[s.c] * s.w + zs[s.f] * (1.0f - s.w);
        }
    }
}

/* forward: score_ij += zs[c] w + zs[f] (1 - w), zs_t = q_i . e_t (of j's
 * side), w = p_ij - f, p_ij a sum of gates g_ik = sigmoid(logit_ik). The
 * part through w, p and the gates, added to dscores as the logits'
 * gradient, which attention's products then carry to q and k. Row i's
 * gradient is read whole before it is added to. */
static void cope_logits_backward(const PeHead *hd) {
    size_t T = hd->T, P = max_pos(hd->pc);
    float *g = hd->work, *p = g + T, *dp = p + T, *z = dp + T;
    for (size_t i = 0; i < T; i++) {
        float *ds = hd->dscores + i * T;
        size_t n = seen(hd, i);
        counts(hd, i, g, p);
        query_dots(hd, i, z, P);
        for (size_t j = 0; j < T; j++) {
            dp[j] = 0.0f;
            if (j >= n)
                continue;
            size_t side = j > i ? P : 0;
            Slot s = slot_of(p[j], P);
            if (!s.clamped) /* dw/dp = 1 */
                dp[j] = ds[j] * (z[side + s.c] - z[side + s.f]);
        }
        /* p_ij holds g_ik for k between j and i: to the left, every j <= k
         * counts k; to the right, every j >= k (and g_ii counts on both) */
        float left = 0.0f, right = 0.0f, *dg = p; /* p is read: its room takes dg */
        for (size_t k = 0; k < T; k++)
            dg[k] = 0.0f;
        for (size_t k = 0; k <= i; k++)
            dg[k] += (left += dp[k]);
        for (size_t k = T; k-- > i + 1;)
            dg[k] += (right += dp[k]);
        dg[i] += right;
        for (size_t k = 0; k < n; k++)
            ds[k] += dg[k] * g[k] * (1.0f - g[k]);
    }
}

/* forward: the same term through zs_t = q_i . e_t: dz_t from the scores'
 * gradient (the model gives it as it was before logits_backward added
 * to it), then dq_i += sum_t dz_t e_t and de_t += dz_t q_i. */
static void cope_score_backward(const PeHead *hd) {
    size_t T = hd->T, HS = hd->HS, P = max_pos(hd->pc);
    float *g = hd->work, *p = g + T, *dz = p + 2 * T;
    for (size_t i = 0; i < T; i++) {
        const float *ds = hd->dscores + i * T, *q = hd->q + i * hd->ld;
        float *dq = hd->dq + i * hd->ld;
        counts(hd, i, g, p);
        memset(dz, 0, 2 * P * sizeof *dz);
        for (size_t j = 0; j < seen(hd, i); j++) {
            size_t side = j > i ? P : 0;
            Slot s = slot_of(p[j], P);
            dz[side + s.c] += ds[j] * s.w;
            dz[side + s.f] += ds[j] * (1.0f - s.w);
        }
        for (size_t t = 0; t < 2 * P; t++) {
            if (dz[t] == 0.0f)
                continue;
            const float *e = hd->params + t * HS;
            for (size_t d = 0; d < HS; d++)
                dq[d] += dz[t] * e[d];
            if (hd->dparams)
                for (size_t d = 0; d < HS; d++)
                    hd->dparams[t * HS + d] += dz[t] * q[d];
        }
    }
}

/* The same in double, from the query's row as the reference sees it. */
static double cope_ref_score(const PeRefRow *r) {
    size_t P = max_pos(r->pc), lo = r->j <= r->i ? r->j : r->i,
           hi = r->j <= r->i ? (r->i < r->n ? r->i : r->n - 1) : r->j;
    double p = 0.0;
    for (size_t k = lo; k <= hi; k++)
        p += 1.0 / (1.0 + exp(-r->logits[k]));
    double q = fmin(p, (double)(P - 1)), f = floor(q), w = q - f;
    const double *e = r->params + (r->j > r->i ? P : 0) * r->HS;
    double zf = 0.0, zc = 0.0;
    for (size_t d = 0; d < r->HS; d++) {
        zf += r->q[d] * e[(size_t)f * r->HS + d];
        zc += r->q[d] * e[(size_t)ceil(q) * r->HS + d];
    }
    return zc * w + zf * (1.0 - w);
}

const PeScheme pe_cope = {
    .name = "cope",
    .since = 6,
    .options = (const PeOption *const[]){&opt_max_pos, &opt_init_std, NULL},
    .about = "positions counted by the content: each key gated by sigmoid(q.k), a key's "
             "position the sum of the gates between it and the query, its learned vector "
             "interpolated and read by q (CoPE, Golovneva et al. 2024)",
    .note = "nothing is added to the word vectors; a key's position counts the keys the query "
            "gates open between them, so it depends on the words, not only on where they stand; "
            "keys after the query count on a table of their own, which tells left from right",
    .default_combine = COMBINE_ADD,
    .ignores_positions = true,
    .param_shape = cope_shape,
    .param_name = "cope.weight",
    .per_layer = true,
    .init = cope_init,
    .work = cope_work,
    .reads_logits = true,
    .score = cope_score,
    .logits_backward = cope_logits_backward,
    .score_backward = cope_score_backward,
    .ref_score = cope_ref_score,
};
