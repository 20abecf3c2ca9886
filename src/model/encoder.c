/* The forward and backward passes of the encoder. */
#include "encoder.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "../core/options.h"
#include "attention.h"
#include "overflow.h"

/* Adds or concatenates the position code into x0 for sentences b0..b0+B-1
 * of the batch, the micro-batch x0 holds; padded positions get none.
 * natural: every pos[b,t] is t. */
static void position_forward(const Model *m, Acts *a, const size_t *lens, bool natural,
                             size_t b0, size_t B, size_t T) {
    const PePlan *plan = &m->pe;
    const PeScheme *s = plan->scheme;
    const PeConfig *pc = &m->cfg.pe;
    size_t C = m->cfg.d_model;
    if (plan->w == 0)
        return;
    for (size_t b = 0; b < B; b++) {
        const float *P = a->pe; /* a formula's code, computed once by acts_create */
        size_t n = lens[b0 + b];
        if (s->length_dependent)
            pe_fill(a->pe, plan, pc, NULL, n, n);
        else if (natural && !s->value)
            P = m->p.pe; /* a table's rows are the positions */
        else if (!natural)
            pe_fill_at(a->pe, plan, pc, m->p.pe, a->pos + (b0 + b) * T, n, n);
        pe_combine(a->x0 + b * T * C, P, n, plan->w, C, plan->combine);
    }
}

/* The attention scheme's view of sentences b0.. of the batch in layer l
 * (its table, and the table's gradient in g when g is not NULL), or NULL
 * for input schemes. */
static const AttnHook *attn_hook(AttnHook *hook, const Model *m, const Acts *a, Params *g,
                                 const size_t *lens, size_t b0, size_t T, size_t l) {
    if (!pe_in_attention(m->pe.scheme))
        return NULL;
    size_t stride = pe_scratch(&m->pe, &m->cfg.pe, T);
    *hook = (AttnHook){.scheme = m->pe.scheme, .pc = &m->cfg.pe,
                       .params = model_pe_table(m, &m->p, l),
                       .grad = g ? model_pe_table(m, g, l) : NULL,
                       .scratch = a->scratch + b0 * stride, .stride = stride,
                       .pos = a->pos + b0 * T, .layer = l, .lens = lens,
                       .causal = m->cfg.causal, .logits = a->layer[l].logits,
                       .work = a->work, .work_stride = pe_work(&m->pe, &m->cfg.pe, T)};
    if (a->layers_in_use) { /* the layer's own draw, the batch's */
        hook->shared = true;
        hook->scratch = a->layer_scratch + l * stride;
        if (m->pe.scheme->ruoss_draw == PE_DRAW_LAYER_POSITIONS)
            hook->pos = a->layer_draw + l * T;
        else
            hook->dist = a->layer_draw + l * T;
    }
    return hook;
}

/* A layer's dropout: the step's masks (d NULL: none), the layer, and the
 * first row of the micro-batch in the batch. Dropout acts where PyTorch's
 * nn.TransformerEncoderLayer puts it, and on embedding + code as in the
 * Annotated Transformer; each place of each layer is a site of its own
 * (encoder.h), so no two draw the same mask. */
typedef struct {
    const Dropout *d;
    size_t layer, row0;
} LayerDrop;

static size_t site_of(const LayerDrop *dr, int kind) {
    return dr->layer * ENC_SITES_PER_LAYER + (size_t)kind;
}

/* The FFN's hidden layer as the second linear reads it: ReLU's is la->ffh
 * itself, GELU's is computed from it into the shared buffer ffa; with
 * dropout, the same through the mask, in ffa. */
static const float *ffn_act(const Config *c, const LayerActs *la, float *ffa, size_t n,
                            const LayerDrop *dr) {
    const float *act = la->ffh;
    if (c->act != ACT_RELU) {
        activation_forward(ffa, la->ffh, n, c->act);
        act = ffa;
    }
    if (!dr->d)
        return act;
    if (act != ffa)
        memcpy(ffa, act, n * sizeof *ffa);
    dropout_apply(ffa, n, dr->d, site_of(dr, ENC_SITE_FFN_HIDDEN), dr->row0 * c->d_ff);
    return ffa;
}

/* out (BT,OC) = res + dropout(inp W^T + b): a residual branch */
static void branch_forward(float *out, const float *res, const float *inp, const float *w,
                           const float *b, size_t BT, size_t C, size_t OC, const LayerDrop *dr,
                           int kind) {
    if (!dr->d) {
        linear_forward(out, res, inp, w, b, BT, C, OC);
        return;
    }
    linear_forward(out, NULL, inp, w, b, BT, C, OC);
    dropout_apply(out, BT * OC, dr->d, site_of(dr, kind), dr->row0 * OC);
    for (size_t i = 0; i < BT * OC; i++)
        out[i] += res[i];
}

/* The gradient that reaches a branch's linear layer: dout through the
 * branch's mask (in buf), or dout itself without dropout. */
static const float *branch_grad(const float *dout, float *buf, size_t BT, size_t OC,
                                const LayerDrop *dr, int kind) {
    if (!dr->d)
        return dout;
    memcpy(buf, dout, BT * OC * sizeof *buf);
    dropout_apply(buf, BT * OC, dr->d, site_of(dr, kind), dr->row0 * OC);
    return buf;
}

/* The step's dropout while a training step runs on a model that has one,
 * else NULL. */
static const Dropout *dropping(const Model *m, const Acts *a) {
    return a->drop.p > 0.0f && m->cfg.dropout > 0.0f ? &a->drop : NULL;
}

static AttnDrop attn_drop(const LayerActs *la, const LayerDrop *dr, size_t T) {
    return (AttnDrop){.d = dr->d, .site = site_of(dr, ENC_SITE_ATT), .b0 = dr->row0 / T,
                      .att = la->att_drop};
}

/* One encoder layer, step by step with its shapes: B sentences (the
 * micro-batch) of T slots, C = d_model, NH heads of HS = C/NH channels,
 * F = d_ff. Post-norm (the paper's and PyTorch's default):
 *
 *   x                                       (B,T,C)    the layer's input
 *   qkv = x in_proj_w^T + in_proj_b         (B,T,3C)   in_proj_w (3C,C); a row is [q | k | v]
 *   each sentence b and head h (attention.c's head_forward), on HS columns:
 *     q, k, v                               (T,HS)     head h's columns of q, k and v
 *     q, k = rotate(q), rotate(k)           (T,HS)     the scheme's rotate hook, if any
 *     scores = q k^T / sqrt(HS)             (T,T)
 *     scores += score(q, positions)         (T,T)      the scheme's score hook, if any
 *     att = softmax over the keys           (T,T)      kept in att (B,NH,T,T); padded keys,
 *                                                      and with --causal later ones, get 0
 *     atty[:, h] = dropout(att) v + mix(att)  (T,HS)   the scheme's mix hook, if any
 *   atty                                    (B,T,C)    the heads side by side
 *   s = x + dropout(atty out_proj_w^T + out_proj_b)    (B,T,C)   out_proj_w (C,C)
 *   ln1 = layernorm(s)                      (B,T,C)    ln1_mean, ln1_rstd (B,T)
 *   ffh = act(ln1 ff1_w^T + ff1_b)          (B,T,F)    ff1_w (F,C); ReLU in place, GELU in ffa
 *   u = ln1 + dropout(dropout(ffh) ff2_w^T + ff2_b)    (B,T,C)   ff2_w (C,F)
 *   ln2 = layernorm(u)                      (B,T,C)    the layer's output
 *
 * Pre-norm normalizes each branch's input instead: ln1 = layernorm(x)
 * feeds qkv, s = x + the attention branch, ln2 = layernorm(s) feeds the
 * FFN, and u = s + the FFN branch is the output (the encoder's last
 * layer is followed by lnf). */
static void layer_forward(const Model *m, const LayerParams *p, LayerActs *la, float *ffa,
                          const float *x, const size_t *lens, const AttnHook *hook,
                          const LayerDrop *dr, bool forward_only, size_t B, size_t T) {
    /* x is (B,T,C); the layer's output is la->ln2 (post-norm) or la->u (pre-norm) */
    const Config *c = &m->cfg;
    size_t C = c->d_model, F = c->d_ff, BT = B * T;
    bool pre = c->norm == NORM_PRE;

    const float *att_in = x;
    if (pre) {
        layernorm_forward(la->ln1, la->ln1_mean, la->ln1_rstd, x, p->ln1_w, p->ln1_b, BT, C);
        att_in = la->ln1;
    }
    linear_forward(la->qkv, NULL, att_in, p->in_proj_w, p->in_proj_b, BT, C, 3 * C);
    AttnDrop ad = attn_drop(la, dr, T);
    if (forward_only) /* the same numbers, the weights not kept (model.h) */
        attention_forward_only(la->atty, la->att, la->qkv, lens, c->causal, hook, B, T, C,
                               c->n_heads);
    else
        attention_forward(la->atty, la->att, la->qkv, lens, c->causal, hook,
                          dr->d ? &ad : NULL, B, T, C, c->n_heads);
    branch_forward(la->s, x, la->atty, p->out_proj_w, p->out_proj_b, BT, C, C, dr,
                   ENC_SITE_ATT_OUT);

    const float *ff_in;
    if (pre) {
        layernorm_forward(la->ln2, la->ln2_mean, la->ln2_rstd, la->s, p->ln2_w, p->ln2_b, BT, C);
        ff_in = la->ln2;
    } else {
        layernorm_forward(la->ln1, la->ln1_mean, la->ln1_rstd, la->s, p->ln1_w, p->ln1_b, BT, C);
        ff_in = la->ln1;
    }
    linear_forward(la->ffh, NULL, ff_in, p->ff1_w, p->ff1_b, BT, C, F);
    if (c->act == ACT_RELU)
        activation_forward(la->ffh, la->ffh, BT * F, c->act);
    const float *act = ffn_act(c, la, ffa, BT * F, dr);
    branch_forward(la->u, pre ? la->s : la->ln1, act, p->ff2_w, p->ff2_b, BT, F, C, dr,
                   ENC_SITE_FFN_OUT);
    if (!pre)
        layernorm_forward(la->ln2, la->ln2_mean, la->ln2_rstd, la->u, p->ln2_w, p->ln2_b, BT, C);
}

static int check_batch(const Model *m, const Acts *a, const int *ids, const size_t *lens,
                       const size_t *pos, size_t B, size_t T, Err *e) {
    if (B == 0 || T == 0 || B > a->B || T > a->T)
        return err_set(e, ERR_INPUT, "batch %zu x %zu does not fit the activations (%zu x %zu)",
                       B, T, a->B, a->T);
    size_t limit = model_max_positions(m);
    for (size_t b = 0; b < B; b++) {
        if (lens[b] == 0)
            return err_set(e, ERR_INPUT, "sentence %zu is empty: give at least one word", b + 1);
        if (lens[b] > T)
            return err_set(e, ERR_INPUT, "sentence %zu has length %zu, more than the %zu slots "
                           "of the batch", b + 1, lens[b], T);
        if (!pos && lens[b] > limit)
            return err_set(e, ERR_INPUT,
                           "sentence %zu has %zu tokens but the %s table has rows for "
                           "positions 0..%zu only; shorten it%s", b + 1, lens[b],
                           m->pe.scheme->name, limit - 1,
                           options_if("--table-len", ", or build the model with a longer "
                                      "table (--table-len)"));
        for (size_t t = 0; pos && t < lens[b]; t++)
            if (pos[b * T + t] >= limit)
                return err_set(e, ERR_INPUT, "token %zu of sentence %zu is at position %zu but "
                               "the %s table has rows for positions 0..%zu only", t + 1, b + 1,
                               pos[b * T + t], m->pe.scheme->name, limit - 1);
    }
    for (size_t i = 0; i < B * T; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= m->cfg.vocab_size)
            return err_set(e, ERR_INPUT, "token id %d at slot %zu is outside the vocabulary "
                           "(0..%zu)", ids[i], i, m->cfg.vocab_size - 1);
    return 0;
}

int encoder_forward(const Model *m, Acts *a, const int *ids, const size_t *lens, size_t B,
                    size_t T, Err *e) {
    return encoder_forward_at(m, a, ids, lens, NULL, B, T, e);
}

void encoder_draw_layers(const Model *m, Acts *a, Rng *rng, size_t T, size_t N) {
    PeDraw kind = m->pe.scheme->ruoss_draw;
    if (kind == PE_DRAW_INPUT || !a->layer_draw || T > a->T)
        return;
    for (size_t l = 0; l < m->cfg.n_layers; l++) {
        size_t *d = a->layer_draw + l * T;
        if (kind == PE_DRAW_LAYER_POSITIONS) {
            rng_sorted_subset(rng, d, T, N);
            continue;
        }
        d[0] = 0; /* distances 1..N-1: a subset of 0..N-2, each plus one */
        rng_sorted_subset(rng, d + 1, T - 1, N - 1);
        for (size_t k = 1; k < T; k++)
            d[k]++;
    }
    a->drawn_T = T, a->drawn_N = N;
    a->layers_drawn = true;
}

/* What each layer's scheme makes of its own draw, once for the batch. */
static void prepare_layers(const Model *m, Acts *a, size_t T) {
    const PeScheme *s = m->pe.scheme;
    size_t stride = pe_scratch(&m->pe, &m->cfg.pe, T), HS = m->pe.head_size;
    for (size_t l = 0; l < m->cfg.n_layers; l++) {
        float *S = a->layer_scratch + l * stride;
        const size_t *d = a->layer_draw + l * T;
        if (s->ruoss_draw == PE_DRAW_LAYER_POSITIONS && s->prepare)
            s->prepare(S, &m->cfg.pe, d, T, HS);
        else if (s->ruoss_draw == PE_DRAW_LAYER_DISTANCES && s->prepare_distances)
            s->prepare_distances(S, &m->cfg.pe, d, T, a->drawn_N, HS);
    }
}

/* Checks the batch, keeps its positions and lets an attention scheme
 * prepare them: what every micro-batch shares. */
static int batch_begin(const Model *m, Acts *a, const int *ids, const size_t *lens,
                       const size_t *pos, size_t B, size_t T, bool *natural, Err *e) {
    int rc = check_batch(m, a, ids, lens, pos, B, T, e);
    if (rc)
        return rc;
    *natural = true;
    for (size_t b = 0; b < B; b++)
        for (size_t t = 0; t < T; t++) {
            a->pos[b * T + t] = pos ? pos[b * T + t] : t;
            *natural = *natural && a->pos[b * T + t] == t;
        }
    if (!*natural && m->pe.scheme->length_dependent)
        return err_set(e, ERR_INPUT, "%s's code depends on the sentence length, not on "
                       "positions one by one: give it positions 0..T-1", m->pe.scheme->name);
    if (a->layers_drawn && a->drawn_T != T)
        return err_set(e, ERR_INPUT, "the layers drew positions for %zu slots and the batch "
                       "has %zu: draw them for the batch (encoder_draw_layers)", a->drawn_T, T);
    a->layers_in_use = a->layers_drawn;
    a->layers_drawn = false;
    /* a factor of the positions past float's range would make every pass
     * NaN, whatever the weights: refused before the pass */
    int over = overflow_check_positions(m, a, lens, B, T, e);
    if (over)
        return over;
    AttnHook hk;
    if (!attn_hook(&hk, m, a, NULL, lens, 0, T, 0))
        return 0;
    if (a->layers_in_use) {
        prepare_layers(m, a, T);
        return 0;
    }
    if (!m->pe.scheme->prepare)
        return 0;
    /* The sentences of a batch mostly share their positions (0..T-1, or
     * one draw a batch): what prepare made of the same positions is
     * copied, not made again (xl's sort of every offset was 6% of a
     * step). */
    for (size_t b = 0; b < B; b++) {
        float *S = a->scratch + b * hk.stride;
        const size_t *p = a->pos + b * T;
        if (b > 0 && memcmp(p, p - T, T * sizeof *p) == 0)
            memcpy(S, S - hk.stride, hk.stride * sizeof *S);
        else
            m->pe.scheme->prepare(S, &m->cfg.pe, p, T, m->pe.head_size);
    }
    return 0;
}

/* Finite weights can still overflow float (every weight 3e38): the
 * outputs are then NaN or infinite, and what reads them (an accuracy, a
 * cosine, a probe) would report a number that means nothing. Every
 * program's forward pass ends here, so one check covers them all, and
 * its message names the cause it finds (overflow.h). */
static int check_finite(const Model *m, const Acts *a, const size_t *lens, size_t B, size_t T,
                        Err *e) {
    size_t C = m->cfg.d_model, K = m->cfg.n_classes;
    for (size_t b = 0; b < B; b++) {
        bool ok = true;
        for (size_t t = 0; t < lens[b]; t++)
            for (size_t c = 0; c < C; c++)
                ok &= isfinite(a->hidden[(b * T + t) * C + c]) != 0;
        if (K && m->cfg.per_token)
            for (size_t i = 0; i < lens[b] * K; i++)
                ok &= isfinite(a->logits[b * T * K + i]) != 0;
        else
            for (size_t k = 0; k < K; k++)
                ok &= isfinite(a->logits[b * K + k]) != 0;
        if (ok)
            continue;
        char why[400];
        OverflowCause cause = overflow_cause(why, sizeof why, m, a, lens, b, 1, T);
        return err_set(e, ERR_INPUT, "the model's output for sentence %zu is not a finite number "
                       "(NaN or infinity): %s%s", b + 1, why, cause == OVERFLOW_SCHEME ? ""
                       : "; the model cannot be used");
    }
    return 0;
}

/* The forward pass of sentences b0..b0+B-1 of the batch (B <= a->Bm):
 * the layers in the micro-batch's buffers, then its rows of hidden,
 * pooled and logits. */
static void micro_forward(const Model *m, Acts *a, const int *ids, const size_t *lens,
                          bool natural, size_t b0, size_t B, size_t T) {
    const Config *c = &m->cfg;
    size_t C = c->d_model, BT = B * T;
    float scale = c->scale_embed ? sqrtf((float)C) : 1.0f;
    /* Activations are laid out for a->T; a shorter batch uses them as
     * (B,T) with the shorter stride, so every layer sees contiguous rows. */
    embedding_forward(a->x0, ids + b0 * T, m->p.tok_emb, BT, m->pe.E, C, scale);
    position_forward(m, a, lens, natural, b0, B, T);
    const Dropout *drop = dropping(m, a);
    if (drop)
        dropout_apply(a->x0, BT * C, drop, ENC_SITE_EMBED, b0 * T * C);
    lens += b0;
    const float *x = a->x0;
    for (size_t l = 0; l < c->n_layers; l++) {
        LayerActs *la = &a->layer[l];
        LayerDrop dr = {drop, l, b0 * T};
        AttnHook hk;
        const AttnHook *hook = attn_hook(&hk, m, a, NULL, lens, b0, T, l);
        layer_forward(m, &m->p.layer[l], la, a->ffa, x, lens, hook, &dr, a->forward_only, B, T);
        x = c->norm == NORM_PRE ? la->u : la->ln2;
    }
    if (c->norm == NORM_PRE) {
        layernorm_forward(a->lnf, a->lnf_mean, a->lnf_rstd, x, m->p.lnf_w, m->p.lnf_b, BT, C);
        x = a->lnf;
    }
    float *hidden = a->hidden + b0 * T * C;
    if (hidden != x)
        memcpy(hidden, x, BT * C * sizeof *x);
    if (c->pool == POOL_CLS)
        clspool_forward(a->pooled + b0 * C, hidden, B, T, C);
    else
        meanpool_forward(a->pooled + b0 * C, hidden, lens, B, T, C);
    size_t K = c->n_classes;
    if (K && c->per_token)
        linear_forward(a->logits + b0 * T * K, NULL, hidden, m->p.head_w, m->p.head_b, BT, C, K);
    else if (K)
        linear_forward(a->logits + b0 * K, NULL, a->pooled + b0 * C, m->p.head_w, m->p.head_b, B,
                       C, K);
}

int encoder_forward_at(const Model *m, Acts *a, const int *ids, const size_t *lens,
                       const size_t *pos, size_t B, size_t T, Err *e) {
    bool natural;
    int rc = batch_begin(m, a, ids, lens, pos, B, T, &natural, e);
    if (rc)
        return rc;
    for (size_t b0 = 0; b0 < B; b0 += a->Bm)
        micro_forward(m, a, ids, lens, natural, b0, B - b0 < a->Bm ? B - b0 : a->Bm, T);
    return check_finite(m, a, lens, B, T, e);
}

float encoder_loss(const Model *m, const Acts *a, GradActs *ga, const int *labels, size_t B,
                   size_t T, size_t *correct, size_t *labelled) {
    size_t N = m->cfg.per_token ? B * T : B;
    return softmax_xent(ga ? ga->dlogits : NULL, correct, labelled, a->logits, labels, N,
                        m->cfg.n_classes);
}

/* The backward of layer_forward: ga->dy (B,T,C) holds the gradient of
 * the layer's output on entry and that of its input x on return. */
static void layer_backward(const Model *m, const LayerParams *p, LayerParams *g,
                           const LayerActs *la, float *ffa, GradActs *ga, const float *x,
                           const AttnHook *hook, const LayerDrop *dr, size_t B, size_t T) {
    const Config *c = &m->cfg;
    size_t C = c->d_model, F = c->d_ff, BT = B * T;
    float *dy = ga->dy, *du = ga->du, *ds = ga->ds;
    /* the FFN's hidden layer as W2 read it, recomputed for GELU and
     * dropout (the same mask: it is drawn from the step's key) */
    const float *act = ffn_act(c, la, ffa, BT * F, dr);
    AttnDrop ad = attn_drop(la, dr, T);
    const AttnDrop *drop = dr->d ? &ad : NULL;
    if (c->norm == NORM_POST) {
        /* y = LN2(u) */
        layernorm_backward(du, g->ln2_w, g->ln2_b, dy, la->u, p->ln2_w, la->ln2_mean,
                           la->ln2_rstd, BT, C, false);
        /* u = h + dropout(ffa W2^T + b2) */
        linear_backward(ga->dffa, g->ff2_w, g->ff2_b,
                        branch_grad(du, ga->dres, BT, C, dr, ENC_SITE_FFN_OUT), act, p->ff2_w,
                        BT, F, C, false);
        /* ffa = dropout(act(ffh)), its gradient in place */
        if (dr->d)
            dropout_apply(ga->dffa, BT * F, dr->d, site_of(dr, ENC_SITE_FFN_HIDDEN),
                          dr->row0 * F);
        activation_backward(ga->dffa, ga->dffa, la->ffh, BT * F, c->act);
        /* ffh = h W1^T + b1; dh = du (residual) + this */
        linear_backward(du, g->ff1_w, g->ff1_b, ga->dffa, la->ln1, p->ff1_w, BT, C, F, true);
        /* h = LN1(s) */
        layernorm_backward(ds, g->ln1_w, g->ln1_b, du, la->s, p->ln1_w, la->ln1_mean,
                           la->ln1_rstd, BT, C, false);
        /* s = x + dropout(atty Wo^T + bo); datty goes to du, now free */
        linear_backward(du, g->out_proj_w, g->out_proj_b,
                        branch_grad(ds, ga->dres, BT, C, dr, ENC_SITE_ATT_OUT), la->atty,
                        p->out_proj_w, BT, C, C, false);
        attention_backward(ga->dqkv, ga->dscores, ga->n_scratch, du, la->qkv, la->att, hook, drop,
                           B, T, C, c->n_heads);
        /* qkv = x Win^T + bin; dx = ds (residual) + this */
        linear_backward(ds, g->in_proj_w, g->in_proj_b, ga->dqkv, x, p->in_proj_w, BT, C,
                        3 * C, true);
        /* the next layer down reads its dy from ds: swap the buffers */
        ga->ds = dy;
        ga->dy = ds;
        return;
    }
    /* pre-norm: y = u = s + dropout(ffa W2^T + b2), so du = dy */
    linear_backward(ga->dffa, g->ff2_w, g->ff2_b,
                    branch_grad(dy, ga->dres, BT, C, dr, ENC_SITE_FFN_OUT), act, p->ff2_w, BT,
                    F, C, false);
    if (dr->d)
        dropout_apply(ga->dffa, BT * F, dr->d, site_of(dr, ENC_SITE_FFN_HIDDEN),
                      dr->row0 * F);
    activation_backward(ga->dffa, ga->dffa, la->ffh, BT * F, c->act);
    /* ffh = LN2(s) W1^T + b1 */
    linear_backward(du, g->ff1_w, g->ff1_b, ga->dffa, la->ln2, p->ff1_w, BT, C, F, false);
    /* ds = du (residual) + LN2's backward */
    layernorm_backward(dy, g->ln2_w, g->ln2_b, du, la->s, p->ln2_w, la->ln2_mean, la->ln2_rstd,
                       BT, C, true);
    /* s = x + dropout(atty Wo^T + bo) */
    linear_backward(du, g->out_proj_w, g->out_proj_b,
                    branch_grad(dy, ga->dres, BT, C, dr, ENC_SITE_ATT_OUT), la->atty, p->out_proj_w,
                    BT, C, C, false);
    attention_backward(ga->dqkv, ga->dscores, ga->n_scratch, du, la->qkv, la->att, hook, drop, B,
                       T, C, c->n_heads);
    /* qkv = LN1(x) Win^T + bin */
    linear_backward(du, g->in_proj_w, g->in_proj_b, ga->dqkv, la->ln1, p->in_proj_w, BT, C,
                    3 * C, false);
    /* dx = ds (residual) + LN1's backward */
    layernorm_backward(dy, g->ln1_w, g->ln1_b, du, x, p->ln1_w, la->ln1_mean, la->ln1_rstd,
                       BT, C, true);
}

/* The backward pass of sentences b0..b0+B-1 of the batch, the micro-batch
 * whose activations micro_forward left in a. */
static void micro_backward(const Model *m, Params *g, const Acts *a, GradActs *ga,
                           const int *ids, const size_t *lens, size_t b0, size_t B, size_t T) {
    const Config *c = &m->cfg;
    size_t C = c->d_model, BT = B * T, K = c->n_classes;
    const Dropout *drop = dropping(m, a);
    lens += b0;
    ids += b0 * T;
    /* logits = pooled Wh^T + bh, or hidden Wh^T + bh per token */
    if (c->per_token) {
        linear_backward(ga->dy, g->head_w, g->head_b, ga->dlogits + b0 * T * K,
                        a->hidden + b0 * T * C, m->p.head_w, BT, C, K, false);
    } else {
        linear_backward(ga->dpooled, g->head_w, g->head_b, ga->dlogits + b0 * K,
                        a->pooled + b0 * C, m->p.head_w, B, C, K, false);
        if (c->pool == POOL_CLS)
            clspool_backward(ga->dy, ga->dpooled, B, T, C);
        else
            meanpool_backward(ga->dy, ga->dpooled, lens, B, T, C);
    }
    if (c->norm == NORM_PRE) {
        /* hidden = LNf(x_L) */
        const float *xl = a->layer[c->n_layers - 1].u;
        layernorm_backward(ga->du, g->lnf_w, g->lnf_b, ga->dy, xl, m->p.lnf_w, a->lnf_mean,
                           a->lnf_rstd, BT, C, false);
        float *t = ga->dy;
        ga->dy = ga->du;
        ga->du = t;
    }
    for (size_t l = c->n_layers; l-- > 0;) {
        const float *x = l == 0 ? a->x0 : c->norm == NORM_PRE ? a->layer[l - 1].u
                                                              : a->layer[l - 1].ln2;
        LayerDrop dr = {drop, l, b0 * T};
        AttnHook hk;
        const AttnHook *hook = attn_hook(&hk, m, a, g, lens, b0, T, l);
        layer_backward(m, &m->p.layer[l], &g->layer[l], &a->layer[l], a->ffa, ga, x, hook, &dr, B,
                       T);
    }
    /* x0 = [embedding * scale | code] or embedding * scale + code, where a
     * table's code of token t is row pos[b,t] */
    float *dx0 = ga->dy;
    if (drop)
        dropout_apply(dx0, BT * C, drop, ENC_SITE_EMBED, b0 * T * C);
    const size_t *pos = a->pos + b0 * T;
    if (m->pe.w && m->pe.rows)
        for (size_t b = 0; b < B; b++)
            for (size_t t = 0; t < lens[b]; t++)
                pe_combine_backward(g->pe + pos[b * T + t] * m->pe.w, dx0 + (b * T + t) * C,
                                    1, m->pe.w, C, m->pe.combine);
    float scale = c->scale_embed ? sqrtf((float)C) : 1.0f;
    embedding_backward(g->tok_emb, dx0, ids, BT, m->pe.E, C, scale);
}

int encoder_backward(const Model *m, Params *g, const Acts *a, GradActs *ga, const int *ids,
                     const size_t *lens, size_t B, size_t T, Err *e) {
    if (B > a->Bm || B > ga->Bm)
        return err_set(e, ERR_INPUT, "a batch of %zu sentences does not fit the micro-batch of "
                       "the activations (%zu) or of their gradients (%zu): train it with "
                       "encoder_train_batch", B, a->Bm, ga->Bm);
    micro_backward(m, g, a, ga, ids, lens, 0, B, T);
    return 0;
}

int encoder_train_batch(const Model *m, Params *g, Acts *a, GradActs *ga, const int *ids,
                        const size_t *lens, const size_t *pos, const int *labels, size_t B,
                        size_t T, float *loss, size_t *correct, size_t *labelled, Err *e) {
    if (a->forward_only) /* its heads' weights are not kept for a backward */
        return err_set(e, ERR_INPUT, "these activations were made for forward passes alone "
                       "(acts_create_forward); a training step needs acts_create's");
    bool natural;
    int rc = batch_begin(m, a, ids, lens, pos, B, T, &natural, e);
    if (rc)
        return rc;
    if (ga->Bm < a->Bm || ga->B < B)
        return err_set(e, ERR_INPUT, "the gradients of the activations hold %zu x %zu "
                       "sentences, fewer than the activations' %zu x %zu", ga->B, ga->Bm, B,
                       a->Bm);
    const Config *c = &m->cfg;
    size_t K = c->n_classes, rows = c->per_token ? T : 1;
    /* The loss is the mean over the whole batch's slots in the loss (the
     * labelled ones and those trained on alone, core/label.h): count them
     * first, so that each micro-batch's gradient has its share. */
    size_t scored, n = xent_rows_in_loss(labels, B * rows, &scored), right = 0;
    float inv_n = n ? 1.0f / (float)n : 0.0f;
    double sum = 0.0;
    for (size_t b0 = 0; b0 < B; b0 += a->Bm) {
        size_t nb = B - b0 < a->Bm ? B - b0 : a->Bm;
        micro_forward(m, a, ids, lens, natural, b0, nb, T);
        size_t off = b0 * rows;
        softmax_xent_rows(ga->dlogits + off * K, &right, &sum, a->logits + off * K,
                          labels + off, nb * rows, K, inv_n);
        micro_backward(m, g, a, ga, ids, lens, b0, nb, T);
    }
    *loss = n ? (float)(sum / (double)n) : 0.0f;
    *correct = right;
    *labelled = scored;
    return 0;
}
