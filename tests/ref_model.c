#include "ref_model.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static Dropout drop; /* ref_set_dropout's; p 0: none */

void ref_set_dropout(Dropout d) { drop = d; }

/* ref_set_layer_draw's: each layer's draw (L,T), or NULL, and its range */
static const size_t *layer_draw;
static size_t draw_N;

void ref_set_layer_draw(const size_t *draw, size_t N) { layer_draw = draw, draw_N = N; }

/* x[0..n) of a site's tensor through its mask, element i at first + i */
static void ref_dropout(double *x, size_t n, size_t site, size_t first) {
    for (size_t i = 0; drop.p > 0.0f && i < n; i++)
        x[i] = dropout_keep(&drop, site, first + i) ? x[i] / (1.0 - (double)drop.p) : 0.0;
}

/* offset of a parameter tensor of m, found through its float pointer */
#define OFF(ptr) ((size_t)((ptr) - m->mem))

static double *dalloc(size_t n) {
    double *x = calloc(n ? n : 1, sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

/* y (N,O) = x (N,I) W^T + b, W (O,I) at P + w */
static void ref_linear(double *y, const double *x, const double *W, const double *b, size_t N,
                       size_t I, size_t O) {
    for (size_t n = 0; n < N; n++)
        for (size_t o = 0; o < O; o++) {
            double s = b ? b[o] : 0.0;
            for (size_t i = 0; i < I; i++)
                s += x[n * I + i] * W[o * I + i];
            y[n * O + o] = s;
        }
}

static void ref_layernorm(double *y, const double *x, const double *w, const double *b,
                          size_t N, size_t C) {
    for (size_t n = 0; n < N; n++) {
        double m = 0.0, v = 0.0;
        for (size_t c = 0; c < C; c++)
            m += x[n * C + c];
        m /= (double)C;
        for (size_t c = 0; c < C; c++)
            v += (x[n * C + c] - m) * (x[n * C + c] - m);
        v /= (double)C;
        double s = 1.0 / sqrt(v + LAYERNORM_EPS);
        for (size_t c = 0; c < C; c++)
            y[n * C + c] = (x[n * C + c] - m) * s * w[c] + b[c];
    }
}

/* out (B,T,C) from qkv (B,T,3C), masked softmax over the real keys, with
 * the model's attention scheme at positions pos (B,T): its own formulas in
 * double (PeScheme.ref_rotate, ref_score, ref_value), beside its fast float
 * code, which the gradient checks hold against them. table is the
 * scheme's table for this layer (in P), or NULL. With the layer's drawn
 * distances dist (T, from 1..N-1), a pair's positions are two whose
 * difference is its drawn offset: dist[j - i] to the right of the query,
 * -dist[i - j] to its left. */
static void ref_attention(double *out, double *qkv, const Model *m, const double *table,
                          const size_t *lens, const size_t *pos, const size_t *dist, size_t N,
                          size_t layer, size_t B, size_t T) {
    const PeScheme *s = m->pe.scheme;
    const PeConfig *pc = &m->cfg.pe;
    size_t C = m->cfg.d_model, NH = m->cfg.n_heads, HS = C / NH;
    double *w = dalloc(T), *vj = dalloc(T * HS), *logits = dalloc(T);
    if (s->ref_rotate)
        for (size_t r = 0; r < B * T; r++)
            for (size_t h = 0; h < NH; h++)
                for (size_t part = 0; part < 2; part++)
                    s->ref_rotate(pc, qkv + r * 3 * C + part * C + h * HS, HS,
                                  pos + r / T * T, T, r % T, part ? PE_KEY : PE_QUERY);
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < NH; h++)
            for (size_t i = 0; i < T; i++) {
                const double *q = qkv + (b * T + i) * 3 * C + h * HS;
                /* the keys query i sees, and their raw logits: the row the
                 * scheme's term may read (PeRefRow) */
                size_t n = m->cfg.causal && i + 1 < lens[b] ? i + 1 : lens[b];
                for (size_t j = 0; j < n; j++) {
                    const double *k = qkv + (b * T + j) * 3 * C + C + h * HS;
                    double dot = 0.0;
                    for (size_t d = 0; d < HS; d++)
                        dot += q[d] * k[d];
                    logits[j] = dot / sqrt((double)HS);
                }
                double max = -INFINITY, sum = 0.0;
                for (size_t j = 0; j < n; j++) {
                    const double *k = qkv + (b * T + j) * 3 * C + C + h * HS;
                    const double *v = k + C;
                    PeRefRow row = {.pc = pc, .params = table, .q = q, .k = k,
                                    .pi = pos[b * T + i], .pj = pos[b * T + j], .i = i, .j = j,
                                    .n = n, .logits = logits, .pos = pos + b * T,
                                    .causal = m->cfg.causal, .h = h, .NH = NH, .HS = HS};
                    if (dist) {
                        size_t far = j >= i ? dist[j - i] : dist[i - j];
                        row.pi = j >= i ? 0 : far, row.pj = j >= i ? far : 0, row.drawn = N;
                    }
                    w[j] = logits[j] + (s->ref_score ? s->ref_score(&row) : 0.0);
                    max = fmax(max, w[j]);
                    /* value j as query i reads it */
                    memcpy(vj + j * HS, v, HS * sizeof *vj);
                    if (s->ref_value)
                        s->ref_value(&row, vj + j * HS);
                }
                for (size_t j = 0; j < n; j++)
                    sum += (w[j] = exp(w[j] - max));
                /* dropout on the weights, after the softmax */
                for (size_t j = 0; j < n; j++)
                    w[j] /= sum;
                ref_dropout(w, n, layer * ENC_SITES_PER_LAYER + ENC_SITE_ATT,
                            ((b * NH + h) * T + i) * T);
                for (size_t d = 0; d < HS; d++) {
                    double o = 0.0;
                    for (size_t j = 0; j < n; j++)
                        o += w[j] * vj[j * HS + d];
                    out[(b * T + i) * C + h * HS + d] = o;
                }
            }
    free(w);
    free(vj);
    free(logits);
}

double ref_forward(const Model *m, const double *P, const int *ids, const size_t *lens,
                   const size_t *positions, const int *labels, size_t B, size_t T,
                   double *hidden) {
    const Config *c = &m->cfg;
    size_t C = c->d_model, F = c->d_ff, BT = B * T, E = m->pe.E, w = m->pe.w;
    size_t *pos = malloc(BT * sizeof *pos), *lpos = malloc(BT * sizeof *lpos);
    ck_assert(pos && lpos);
    for (size_t i = 0; i < BT; i++)
        pos[i] = positions ? positions[i] : i % T;
    double *x = dalloc(BT * C), *a = dalloc(BT * C), *qkv = dalloc(BT * 3 * C);
    double *att = dalloc(BT * C), *s = dalloc(BT * C), *h = dalloc(BT * C);
    double *f1 = dalloc(BT * F), *f2 = dalloc(BT * C);
    float *code = malloc((T * w + 1) * sizeof *code);
    ck_assert_ptr_nonnull(code);
    double scale = c->scale_embed ? sqrt((double)C) : 1.0;
    /* embedding and position */
    for (size_t b = 0; b < B; b++) {
        if (!m->pe.rows)
            pe_fill_at(code, &m->pe, &c->pe, NULL, pos + b * T, T, lens[b]);
        for (size_t t = 0; t < T; t++) {
            double *row = x + (b * T + t) * C;
            const double *emb = P + OFF(m->p.tok_emb) + (size_t)ids[b * T + t] * E;
            for (size_t k = 0; k < E; k++)
                row[k] = emb[k] * scale;
            if (t >= lens[b] || w == 0)
                continue;
            for (size_t k = 0; k < (m->pe.combine == COMBINE_CONCAT ? w : C); k++) {
                size_t j = m->pe.combine == COMBINE_CONCAT ? k : k % w;
                double p = m->pe.rows ? P[OFF(m->p.pe) + pos[b * T + t] * w + j]
                                      : (double)code[t * w + j];
                if (m->pe.combine == COMBINE_CONCAT)
                    row[E + k] = p;
                else
                    row[k] += p;
            }
        }
    }
    ref_dropout(x, BT * C, ENC_SITE_EMBED, 0);
    bool pre = c->norm == NORM_PRE;
    for (size_t l = 0; l < c->n_layers; l++) {
        size_t site = l * ENC_SITES_PER_LAYER;
        const LayerParams *L = &m->p.layer[l];
#define W(f) (P + OFF(L->f))
        if (pre)
            ref_layernorm(a, x, W(ln1_w), W(ln1_b), BT, C);
        else
            memcpy(a, x, BT * C * sizeof *a);
        ref_linear(qkv, a, W(in_proj_w), W(in_proj_b), BT, C, 3 * C);
        const float *table = model_pe_table(m, &m->p, l);
        /* a draw per layer: the layer's positions for every sentence, or
         * its distances */
        PeDraw kind = layer_draw ? m->pe.scheme->ruoss_draw : PE_DRAW_INPUT;
        for (size_t i = 0; kind == PE_DRAW_LAYER_POSITIONS && i < BT; i++)
            lpos[i] = layer_draw[l * T + i % T];
        ref_attention(att, qkv, m, table ? P + OFF(table) : NULL, lens,
                      kind == PE_DRAW_LAYER_POSITIONS ? lpos : pos,
                      kind == PE_DRAW_LAYER_DISTANCES ? layer_draw + l * T : NULL, draw_N, l,
                      B, T);
        /* without its bias (Config.no_out_bias) the tensor is absent */
        ref_linear(s, att, W(out_proj_w), L->out_proj_b ? W(out_proj_b) : NULL, BT, C, C);
        ref_dropout(s, BT * C, site + ENC_SITE_ATT_OUT, 0);
        for (size_t i = 0; i < BT * C; i++)
            s[i] += x[i];
        /* the FFN reads h and adds to it */
        if (pre)
            ref_layernorm(h, s, W(ln2_w), W(ln2_b), BT, C);
        else
            ref_layernorm(h, s, W(ln1_w), W(ln1_b), BT, C);
        ref_linear(f1, h, W(ff1_w), W(ff1_b), BT, C, F);
        for (size_t i = 0; i < BT * F; i++)
            f1[i] = c->act == ACT_RELU ? fmax(f1[i], 0.0)
                                       : 0.5 * f1[i] * (1.0 + erf(f1[i] / sqrt(2.0)));
        ref_dropout(f1, BT * F, site + ENC_SITE_FFN_HIDDEN, 0);
        ref_linear(f2, f1, W(ff2_w), W(ff2_b), BT, F, C);
        ref_dropout(f2, BT * C, site + ENC_SITE_FFN_OUT, 0);
        for (size_t i = 0; i < BT * C; i++)
            f2[i] += pre ? s[i] : h[i];
        if (pre)
            memcpy(x, f2, BT * C * sizeof *x);
        else
            ref_layernorm(x, f2, W(ln2_w), W(ln2_b), BT, C);
#undef W
    }
    if (pre) {
        ref_layernorm(a, x, P + OFF(m->p.lnf_w), P + OFF(m->p.lnf_b), BT, C);
        memcpy(x, a, BT * C * sizeof *x);
    }
    if (hidden)
        memcpy(hidden, x, BT * C * sizeof *x);
    double loss = 0.0;
    size_t K = c->n_classes, counted = 0;
    if (K && labels) {
        size_t N = c->per_token ? BT : B;
        double *in = c->per_token ? x : a, *logits = dalloc(N * K);
        if (!c->per_token) /* mean over real tokens, or the first ([CLS]) */
            for (size_t b = 0; b < B; b++)
                for (size_t k = 0; k < C; k++) {
                    double sum = 0.0;
                    for (size_t t = 0; t < lens[b]; t++)
                        sum += x[(b * T + t) * C + k];
                    a[b * C + k] = c->pool == POOL_CLS ? x[b * T * C + k] : sum / (double)lens[b];
                }
        ref_linear(logits, in, P + OFF(m->p.head_w), P + OFF(m->p.head_b), N, C, K);
        for (size_t i = 0; i < N; i++) {
            if (labels[i] < 0)
                continue;
            double max = -INFINITY, sum = 0.0;
            for (size_t k = 0; k < K; k++)
                max = fmax(max, logits[i * K + k]);
            for (size_t k = 0; k < K; k++)
                sum += exp(logits[i * K + k] - max);
            loss += log(sum) + max - logits[i * K + (size_t)labels[i]];
            counted++;
        }
        free(logits);
        loss = counted ? loss / (double)counted : 0.0;
    }
    free(x), free(a), free(qkv), free(att), free(s), free(h), free(f1), free(f2), free(code);
    free(pos), free(lpos);
    return loss;
}
