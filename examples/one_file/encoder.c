/* posenc's transformer encoder in one file, read top to bottom.
 *
 *     cc -O2 -o encoder examples/one_file/encoder.c -lm
 *     ./encoder
 *
 * It runs "Rohan killed the lion" and "lion killed the Rohan" through an
 * untrained encoder with each of seven ways of giving it position (without
 * one, the two get the same rows, moved, and the same sentence vector),
 * then trains each to say who did it (data/README.md, the agent task) and
 * prints its test accuracy: one half without position, near 1 with it,
 * all in under 30 seconds on one core.
 *
 * It computes what posenc's library computes with its defaults (post-norm,
 * ReLU, mean pooling over the real words, PyTorch's nn.TransformerEncoder
 * layout and names), in float32 and plain loops: tests/test_one_file.c
 * gives a library model its weights, scheme by scheme, and holds its
 * outputs and every gradient to the library's. The library is this model
 * made fast and general; docs/09-reading-the-code.md reads both.
 *
 * Shapes are written as llm.c writes them: B sentences of T positions
 * (padded), C = d_model channels, NH heads of HS = C/NH channels, F =
 * d_ff, V words, K classes; (B,T,C) is row-major, the channel fastest. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------
 * The words and the vocabulary: the agent task's 27 words, each an id.
 * Id 0 is the padding that fills a 4-word sentence to the batch's 5 slots. */
static const char *const WORDS[] = {
    "<pad>",
    "Rohan",  "Priya", "Anna",   "Omar", "Mei",   "Lucas",    "Sara",   "Kofi",    /* 1..8 */
    "killed", "saw",   "chased", "fed",  "found", "followed", "helped", "watched", /* 9..16 */
    "lion",   "tiger", "bear",   "wolf", "snake", "eagle",    "shark",  "horse",   /* 17..24 */
    "the",    "yesterday", "today"};
enum { NAME0 = 1, VERB0 = 9, ANIMAL0 = 17, THE = 25, YESTERDAY = 26 };
#define N_WORDS (sizeof WORDS / sizeof WORDS[0]) /* V = 28 */

/* Splits text at spaces into at most cap ids; returns how many, or 0 if a
 * word is not in the vocabulary. */
static size_t tokenize(int *ids, size_t cap, const char *text) {
    size_t n = 0;
    for (size_t len; *text; text += len + strspn(text + len, " ")) {
        len = strcspn(text, " ");
        int id = 0;
        for (size_t w = 1; w < N_WORDS; w++)
            if (strlen(WORDS[w]) == len && strncmp(WORDS[w], text, len) == 0)
                id = (int)w;
        if (id == 0 || n == cap)
            return 0;
        ids[n++] = id;
    }
    return n;
}

/* ----------------------------------------------------------------------
 * The embedding: x (B,T,C) gets row ids[b,t] of wte (V,E) in its first E
 * channels. E = C, or C - 1 when a one-channel code is concatenated: the
 * last channel is then left at 0 for it. */
static void embedding_forward(float *x, const int *ids, const float *wte, size_t BT, size_t E,
                              size_t C) {
    for (size_t i = 0; i < BT; i++)
        for (size_t c = 0; c < C; c++)
            x[i * C + c] = c < E ? wte[(size_t)ids[i] * E + c] : 0.0f;
}

/* ----------------------------------------------------------------------
 * The positional encodings. Five act on the input, before the first
 * layer (position_forward); RoPE and ALiBi act inside each attention head
 * (rope_rotate, alibi_slope, called from head_forward). */
typedef enum { NONE, INTEGER, NORMALIZED, SINUSOIDAL, LEARNED, ROPE, ALIBI, N_SCHEMES } Scheme;
static const char *const SCHEME_NAMES[] = {"none",    "integer", "normalized", "sinusoidal",
                                           "learned", "rope",    "alibi"};

/* Channel c of the code of position t (from 0) in a sentence of n words,
 * w channels wide. In double, rounded once to float: the sinusoid's shift
 * stays a rotation to 1e-6 (float angles would miss by 5e-5). */
static float input_code(Scheme pe, size_t t, size_t c, size_t n, size_t w) {
    switch (pe) {
    case INTEGER: /* the count: word 1, 2, 3, ... (unbounded) */
        return (float)(t + 1);
    case NORMALIZED: /* the count over the sentence's length: in (0, 1] */
        return (float)((double)(t + 1) / (double)n);
    case SINUSOIDAL: { /* the paper's: pair i turns at 1/10000^(2i/w) */
        double angle = (double)t / pow(10000.0, (double)(2 * (c / 2)) / (double)w);
        return (float)(c % 2 ? cos(angle) : sin(angle));
    }
    default:
        return 0.0f;
    }
}

/* The input schemes, at each sentence's real words (padding gets none):
 * the count and pos/N fill the last channel (a code of one number added
 * to every channel would be erased by LayerNorm); the sinusoid and the
 * learned table wpe (T,C) are added to every channel. */
static void position_forward(float *x, const float *wpe, Scheme pe, const size_t *lens,
                             size_t B, size_t T, size_t C) {
    for (size_t b = 0; b < B; b++)
        for (size_t t = 0; t < lens[b]; t++) {
            float *row = x + (b * T + t) * C;
            if (pe == INTEGER || pe == NORMALIZED)
                row[C - 1] = input_code(pe, t, 0, lens[b], 1);
            for (size_t c = 0; pe == SINUSOIDAL && c < C; c++)
                row[c] += input_code(pe, t, c, lens[b], C);
            for (size_t c = 0; pe == LEARNED && c < C; c++)
                row[c] += wpe[t * C + c];
        }
}

/* RoPE: x is T rows of HS channels, ld floats apart (a head's q or k).
 * Channels 2i and 2i+1 of row t turn by the angle t theta_i, theta_i =
 * 10000^(-2i/HS); a query turned by t and a key by u then meet at the
 * angle u - t, their offset. inverse turns back (the backward). */
static void rope_rotate(float *x, size_t ld, size_t T, size_t HS, int inverse) {
    for (size_t t = 0; t < T; t++)
        for (size_t i = 0; i < HS / 2; i++) {
            double angle = (double)t * (1.0 / pow(10000.0, (double)(2 * i) / (double)HS));
            float cs = (float)cos(angle), sn = inverse ? -(float)sin(angle) : (float)sin(angle);
            float *p = x + t * ld + 2 * i, a = p[0], b = p[1];
            p[0] = a * cs - b * sn;
            p[1] = a * sn + b * cs;
        }
}

/* ALiBi: head h of NH adds -m_h |i - j| to the score of query i and key j
 * (symmetric: the same to the left and to the right). The slopes are
 * 2^(-8(h+1)/NH) for NH a power of two; otherwise those of the largest
 * power of two p below NH, then every other slope of 2p. */
static float alibi_slope(size_t h, size_t NH) {
    size_t p = 1;
    while (p * 2 <= NH)
        p *= 2;
    if (h < p)
        return (float)pow(2.0, -8.0 * (double)(h + 1) / (double)p);
    return (float)pow(2.0, -8.0 * (double)(2 * (h - p) + 1) / (double)(2 * p));
}

/* ----------------------------------------------------------------------
 * One attention head: head h of sentence b, len real words. qkv (B,T,3C):
 * a row is [q | k | v], head h's HS channels of each at h*HS; att (T,T)
 * this head's weights; out (B,T,C) gets head h's HS channels. Padding
 * rows are computed like the others (nothing reads them); padding keys
 * get weight 0. */
static void head_forward(float *out, float *att, float *qkv, Scheme pe, size_t len, size_t b,
                         size_t h, size_t T, size_t C, size_t NH) {
    size_t HS = C / NH, C3 = 3 * C;
    float *q = qkv + b * T * C3 + h * HS, *k = q + C, *v = q + 2 * C;
    float scale = 1.0f / sqrtf((float)HS);
    if (pe == ROPE) { /* in place: the backward reads q and k as turned */
        rope_rotate(q, C3, T, HS, 0);
        rope_rotate(k, C3, T, HS, 0);
    }
    for (size_t i = 0; i < T; i++) {
        float *a = att + i * T;
        for (size_t j = 0; j < len; j++) { /* scores = q k^T / sqrt(HS) */
            float dot = 0.0f;
            for (size_t d = 0; d < HS; d++)
                dot += q[i * C3 + d] * k[j * C3 + d];
            a[j] = dot * scale;
            if (pe == ALIBI)
                a[j] -= alibi_slope(h, NH) * fabsf((float)i - (float)j);
        }
        /* softmax over the real keys, less the row's own maximum (no
         * sentinel: every exp is at most 1, and one is exactly 1) */
        float max = a[0], sum = 0.0f;
        for (size_t j = 1; j < len; j++)
            max = a[j] > max ? a[j] : max;
        for (size_t j = 0; j < len; j++)
            sum += a[j] = expf(a[j] - max);
        for (size_t j = 0; j < T; j++)
            a[j] = j < len ? a[j] * (1.0f / sum) : 0.0f;
        for (size_t d = 0; d < HS; d++) { /* out = att v */
            float o = 0.0f;
            for (size_t j = 0; j < len; j++)
                o += a[j] * v[j * C3 + d];
            out[(b * T + i) * C + h * HS + d] = o;
        }
    }
}

/* ----------------------------------------------------------------------
 * Multi-head attention: every head of every sentence, side by side in
 * atty (B,T,C); att (B,NH,T,T) keeps the weights for the backward. */
static void attention_forward(float *atty, float *att, float *qkv, Scheme pe,
                              const size_t *lens, size_t B, size_t T, size_t C, size_t NH) {
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < NH; h++)
            head_forward(atty, att + (b * NH + h) * T * T, qkv, pe, lens[b], b, h, T, C, NH);
}

/* ----------------------------------------------------------------------
 * The feed-forward layer: two linear layers with a ReLU between. A
 * linear layer is torch.nn.Linear: out (N,OC) = inp (N,IC) W^T + bias,
 * W (OC,IC). (The same function makes q, k, v and the classifier.) */
static void linear_forward(float *out, const float *inp, const float *w, const float *bias,
                           size_t N, size_t IC, size_t OC) {
    for (size_t n = 0; n < N; n++)
        for (size_t o = 0; o < OC; o++) {
            float sum = bias[o];
            for (size_t c = 0; c < IC; c++)
                sum += inp[n * IC + c] * w[o * IC + c];
            out[n * OC + o] = sum;
        }
}

static void relu_forward(float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* ----------------------------------------------------------------------
 * Residual and LayerNorm: out = a + b, then each row (N,C) normalized to
 * mean 0 and variance 1, times w plus b (C). The mean and 1/std of each
 * row (N) are kept for the backward. */
static void residual_forward(float *out, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

static void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                              const float *w, const float *b, size_t N, size_t C) {
    for (size_t n = 0; n < N; n++) {
        const float *x = inp + n * C;
        float m = 0.0f, v = 0.0f;
        for (size_t c = 0; c < C; c++)
            m += x[c];
        m /= (float)C;
        /* the variance about the mean, not E[x^2] - m^2, which cancels
         * badly when a row carries a large constant (the count's channel) */
        for (size_t c = 0; c < C; c++)
            v += (x[c] - m) * (x[c] - m);
        float s = 1.0f / sqrtf(v / (float)C + 1e-5f); /* PyTorch's epsilon */
        for (size_t c = 0; c < C; c++)
            out[n * C + c] = (x[c] - m) * s * w[c] + b[c];
        mean[n] = m, rstd[n] = s;
    }
}

/* ----------------------------------------------------------------------
 * The layer (post-norm, as the paper and PyTorch's default):
 *   x                                  (B,T,C)   the layer's input
 *   qkv = x in_proj_w^T + in_proj_b    (B,T,3C)
 *   atty = attention(qkv)              (B,T,C)   the heads side by side
 *   s = x + atty out_proj_w^T + b      (B,T,C)
 *   ln1 = LayerNorm(s)                 (B,T,C)
 *   ffh = ReLU(ln1 ff1_w^T + ff1_b)    (B,T,F)
 *   u = ln1 + ffh ff2_w^T + ff2_b      (B,T,C)
 *   ln2 = LayerNorm(u)                 (B,T,C)   the layer's output */
typedef struct {
    float *in_proj_w, *in_proj_b;   /* (3C,C), (3C): q, k and v stacked, PyTorch's order */
    float *out_proj_w, *out_proj_b; /* (C,C), (C) */
    float *ff1_w, *ff1_b;           /* (F,C), (F) */
    float *ff2_w, *ff2_b;           /* (C,F), (C) */
    float *ln1_w, *ln1_b;           /* (C), (C): norm1, after attention */
    float *ln2_w, *ln2_b;           /* (C), (C): norm2, after the feed-forward layer */
} LayerParams;

typedef struct {
    float *qkv;                       /* (B,T,3C), q and k as RoPE turned them */
    float *att;                       /* (B,NH,T,T) */
    float *atty;                      /* (B,T,C) */
    float *s;                         /* (B,T,C) */
    float *ln1, *ln1_mean, *ln1_rstd; /* (B,T,C), (B,T), (B,T) */
    float *ffh;                       /* (B,T,F), after the ReLU */
    float *u;                         /* (B,T,C) */
    float *ln2, *ln2_mean, *ln2_rstd; /* (B,T,C), (B,T), (B,T) */
} LayerActs;

static void layer_forward(LayerActs *la, const LayerParams *p, const float *x, Scheme pe,
                          const size_t *lens, size_t B, size_t T, size_t C, size_t NH,
                          size_t F) {
    size_t BT = B * T;
    linear_forward(la->qkv, x, p->in_proj_w, p->in_proj_b, BT, C, 3 * C);
    attention_forward(la->atty, la->att, la->qkv, pe, lens, B, T, C, NH);
    linear_forward(la->s, la->atty, p->out_proj_w, p->out_proj_b, BT, C, C);
    residual_forward(la->s, x, la->s, BT * C);
    layernorm_forward(la->ln1, la->ln1_mean, la->ln1_rstd, la->s, p->ln1_w, p->ln1_b, BT, C);
    linear_forward(la->ffh, la->ln1, p->ff1_w, p->ff1_b, BT, C, F);
    relu_forward(la->ffh, BT * F);
    linear_forward(la->u, la->ffh, p->ff2_w, p->ff2_b, BT, F, C);
    residual_forward(la->u, la->ln1, la->u, BT * C);
    layernorm_forward(la->ln2, la->ln2_mean, la->ln2_rstd, la->u, p->ln2_w, p->ln2_b, BT, C);
}

/* ----------------------------------------------------------------------
 * The encoder: its shape, its parameters and its activations, each one
 * allocation carved into named tensors; embedding, position, L layers. */
#define MAX_LAYERS 4
typedef struct {
    size_t V;  /* words, 28 */
    size_t C;  /* d_model, 32 */
    size_t NH; /* heads, 4 */
    size_t F;  /* d_ff, 128 */
    size_t L;  /* layers, 2; at most MAX_LAYERS */
    size_t K;  /* classes, 16: the nouns that can be the doer */
    size_t B;  /* sentences in a batch, at most; 32 */
    size_t T;  /* positions: the longest sentence, 5 (and the learned table's rows) */
    Scheme pe;
} Config;

/* The shape this file trains: a quarter of the library's default width
 * (d_model 64, 4 heads, d_ff 256), which learns the task as well in the
 * same steps and trains four times as fast in plain loops. */
static Config config_default(Scheme pe) {
    Config c = {.V = N_WORDS, .C = 32, .NH = 4, .F = 128, .L = 2, .K = 16, .B = 32, .T = 5,
                .pe = pe};
    return c;
}

typedef struct {
    float *wte;                    /* (V,E) the embedding */
    float *wpe;                    /* (T,C) the learned table; NULL for other schemes */
    LayerParams layer[MAX_LAYERS];
    float *head_w, *head_b;        /* (K,C), (K): the classifier */
} Params;

typedef struct {
    float *x0;                    /* (B,T,C) embedding and code, the first layer's input */
    LayerActs layer[MAX_LAYERS];  /* the last one's ln2 is the encoder's output */
    float *pooled;                /* (B,C) the sentence vectors */
    float *logits, *probs;        /* (B,K), and their softmax (B,K) */
} Acts;

/* One tensor of the parameters, named as PyTorch's nn.TransformerEncoder
 * names it (the library's checkpoints and .npy files use these names). */
typedef enum { ZERO, ONE, NORMAL, UNIFORM } Init;
typedef struct {
    char name[48];
    size_t off, rows, cols; /* where in the block, and its shape */
    Init init;
    float scale;            /* NORMAL's std or UNIFORM's bound */
} Tensor;

#define MAX_TENSORS (3 + 12 * MAX_LAYERS)
typedef struct {
    Config cfg;
    size_t E;                    /* the embedding's channels: C, or C - 1 */
    Tensor tensors[MAX_TENSORS]; /* the parameters, in order */
    size_t n_tensors, n_params, n_acts;
    float *params, *grads;       /* (n_params) each, carved into p and g */
    float *m, *v;                /* AdamW's moments */
    Params p, g;
    Acts a, ga;                  /* the activations, and their gradients */
    size_t step;
} Model;

/* Hands out n floats of a block, one tensor after the other (base NULL:
 * counts only). With list, records the tensor as it goes. */
typedef struct { float *base; Tensor *list; size_t count, off; } Carver;

static float *take(Carver *cv, const char *name, size_t rows, size_t cols, Init init,
                   float scale) {
    if (cv->list) {
        Tensor *t = &cv->list[cv->count];
        snprintf(t->name, sizeof t->name, "%s", name);
        t->off = cv->off, t->rows = rows, t->cols = cols, t->init = init, t->scale = scale;
    }
    cv->count++;
    float *p = cv->base ? cv->base + cv->off : NULL;
    cv->off += rows * cols;
    return p;
}

/* "layers.l.what" into n (48 bytes) */
static const char *named(char *n, size_t l, const char *what) {
    snprintf(n, 48, "layers.%zu.%s", l, what);
    return n;
}

/* The parameters in the library's order (src/model/model.c), each with
 * PyTorch's first draw: the embedding N(0,1), q, k, v Xavier-uniform, the
 * other linear layers' weights and biases uniform within 1/sqrt(fan_in),
 * the learned table N(0,0.02), small so that it starts near "no position". */
static void params_carve(Carver *cv, Params *p, const Config *c, size_t E) {
    size_t C = c->C, F = c->F;
    float bc = 1.0f / sqrtf((float)C), bf = 1.0f / sqrtf((float)F);
    char n[48];
    p->wte = take(cv, "embedding.weight", c->V, E, NORMAL, 1.0f);
    p->wpe = c->pe == LEARNED ? take(cv, "pos_embedding.weight", c->T, C, NORMAL, 0.02f) : NULL;
    for (size_t l = 0; l < c->L; l++) {
        LayerParams *L = &p->layer[l];
        L->in_proj_w = take(cv, named(n, l, "self_attn.in_proj_weight"), 3 * C, C, UNIFORM,
                            sqrtf(6.0f / (float)(C + 3 * C)));
        L->in_proj_b = take(cv, named(n, l, "self_attn.in_proj_bias"), 1, 3 * C, ZERO, 0.0f);
        L->out_proj_w = take(cv, named(n, l, "self_attn.out_proj.weight"), C, C, UNIFORM, bc);
        L->out_proj_b = take(cv, named(n, l, "self_attn.out_proj.bias"), 1, C, ZERO, 0.0f);
        L->ff1_w = take(cv, named(n, l, "linear1.weight"), F, C, UNIFORM, bc);
        L->ff1_b = take(cv, named(n, l, "linear1.bias"), 1, F, UNIFORM, bc);
        L->ff2_w = take(cv, named(n, l, "linear2.weight"), C, F, UNIFORM, bf);
        L->ff2_b = take(cv, named(n, l, "linear2.bias"), 1, C, UNIFORM, bf);
        L->ln1_w = take(cv, named(n, l, "norm1.weight"), 1, C, ONE, 0.0f);
        L->ln1_b = take(cv, named(n, l, "norm1.bias"), 1, C, ZERO, 0.0f);
        L->ln2_w = take(cv, named(n, l, "norm2.weight"), 1, C, ONE, 0.0f);
        L->ln2_b = take(cv, named(n, l, "norm2.bias"), 1, C, ZERO, 0.0f);
    }
    p->head_w = take(cv, "head.weight", c->K, C, UNIFORM, bc);
    p->head_b = take(cv, "head.bias", 1, c->K, UNIFORM, bc);
}

/* n floats of the block for an activation: no name, nothing drawn */
static float *span(Carver *cv, size_t n) { return take(cv, "", 1, n, ZERO, 0.0f); }

static void acts_carve(Carver *cv, Acts *a, const Config *c) {
    size_t BTC = c->B * c->T * c->C, BT = c->B * c->T;
    a->x0 = span(cv, BTC); /* first: model_free frees the block by it */
    for (size_t l = 0; l < c->L; l++) {
        LayerActs *la = &a->layer[l];
        la->qkv = span(cv, 3 * BTC), la->att = span(cv, BT * c->NH * c->T);
        la->atty = span(cv, BTC), la->s = span(cv, BTC);
        la->ln1 = span(cv, BTC), la->ln1_mean = span(cv, BT), la->ln1_rstd = span(cv, BT);
        la->ffh = span(cv, BT * c->F), la->u = span(cv, BTC);
        la->ln2 = span(cv, BTC), la->ln2_mean = span(cv, BT), la->ln2_rstd = span(cv, BT);
    }
    a->pooled = span(cv, c->B * c->C);
    a->logits = span(cv, c->B * c->K), a->probs = span(cv, c->B * c->K);
}

/* Random numbers for the first weights (and main's batches): one seeded
 * generator, xorshift64*, never the clock, so every run prints the same
 * numbers. */
typedef struct { uint64_t s; } Rng;

static uint64_t rng_next(Rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) / 9007199254740992.0; }

static float rng_normal(Rng *r) { /* Box-Muller; 1 - u is never 0, so the log is finite */
    double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/* A model of shape c, its weights drawn from seed, and its activations. */
static void model_create(Model *m, const Config *c, uint64_t seed) {
    memset(m, 0, sizeof *m);
    m->cfg = *c;
    m->E = c->pe == INTEGER || c->pe == NORMALIZED ? c->C - 1 : c->C;
    Carver count = {NULL, m->tensors, 0, 0}, count_acts = {NULL, NULL, 0, 0};
    params_carve(&count, &m->p, c, m->E);
    acts_carve(&count_acts, &m->a, c);
    m->n_tensors = count.count, m->n_params = count.off, m->n_acts = count_acts.off;
    m->params = calloc(4 * m->n_params, sizeof *m->params); /* weights, gradients, m, v */
    float *acts = calloc(2 * m->n_acts, sizeof *acts);      /* and the activations' */
    if (!m->params || !acts)
        fprintf(stderr, "encoder: out of memory\n"), exit(1);
    m->grads = m->params + m->n_params;
    m->m = m->grads + m->n_params, m->v = m->m + m->n_params;
    Carver cp = {m->params, NULL, 0, 0}, cg = {m->grads, NULL, 0, 0};
    Carver ca = {acts, NULL, 0, 0}, cga = {acts + m->n_acts, NULL, 0, 0};
    params_carve(&cp, &m->p, c, m->E);
    params_carve(&cg, &m->g, c, m->E);
    acts_carve(&ca, &m->a, c);
    acts_carve(&cga, &m->ga, c);
    Rng r = {seed * 2654435761u + 1}; /* never 0, which xorshift keeps at 0 */
    for (size_t i = 0; i < m->n_tensors; i++) {
        const Tensor *t = &m->tensors[i];
        for (size_t k = 0; k < t->rows * t->cols; k++) {
            float *w = m->params + t->off + k;
            *w = t->init == ONE ? 1.0f : t->init == NORMAL ? t->scale * rng_normal(&r)
                 : t->init == UNIFORM ? t->scale * (float)(2.0 * rng_uniform(&r) - 1.0) : 0.0f;
        }
    }
}

static void model_free(Model *m) { free(m->params), free(m->a.x0); }

/* ids (B,T) padded with 0, lens (B) the real words: the encoder's output
 * is the last layer's ln2 (B,T,C). */
static const float *encoder_forward(Model *m, const int *ids, const size_t *lens, size_t B) {
    const Config *c = &m->cfg;
    embedding_forward(m->a.x0, ids, m->p.wte, B * c->T, m->E, c->C);
    position_forward(m->a.x0, m->p.wpe, c->pe, lens, B, c->T, c->C);
    const float *x = m->a.x0;
    for (size_t l = 0; l < c->L; l++) {
        layer_forward(&m->a.layer[l], &m->p.layer[l], x, c->pe, lens, B, c->T, c->C, c->NH,
                      c->F);
        x = m->a.layer[l].ln2;
    }
    return x;
}

/* ----------------------------------------------------------------------
 * Mean pooling and the classifier: the sentence vector is the mean of
 * its real words' rows (padding left out, since 4- and 5-word sentences
 * share a batch); the classifier is a linear layer, pooled (B,C) ->
 * logits (B,K). */
static void meanpool_forward(float *pooled, const float *x, const size_t *lens, size_t B,
                             size_t T, size_t C) {
    for (size_t b = 0; b < B; b++)
        for (size_t c = 0; c < C; c++) {
            float sum = 0.0f;
            for (size_t t = 0; t < lens[b]; t++)
                sum += x[(b * T + t) * C + c];
            pooled[b * C + c] = sum * (1.0f / (float)lens[b]);
        }
}

/* ----------------------------------------------------------------------
 * The loss: cross-entropy, the mean over B of -log softmax(logits)[label],
 * taken about each row's maximum so that no exp overflows. probs (B,K)
 * keeps the softmax for the backward. */
static float crossentropy_forward(float *probs, const float *logits, const int *labels,
                                  size_t B, size_t K) {
    double loss = 0.0;
    for (size_t b = 0; b < B; b++) {
        const float *z = logits + b * K;
        float max = z[0], sum = 0.0f;
        for (size_t k = 1; k < K; k++)
            max = z[k] > max ? z[k] : max;
        for (size_t k = 0; k < K; k++)
            sum += probs[b * K + k] = expf(z[k] - max);
        for (size_t k = 0; k < K; k++)
            probs[b * K + k] /= sum;
        loss += log(sum) - (z[labels[b]] - max);
    }
    return (float)(loss / (double)B);
}

/* The whole forward pass: the encoder, pooling, the classifier and, with
 * labels (B), the loss, which it returns (0 without). */
static float forward(Model *m, const int *ids, const size_t *lens, const int *labels, size_t B) {
    const Config *c = &m->cfg;
    const float *hidden = encoder_forward(m, ids, lens, B);
    meanpool_forward(m->a.pooled, hidden, lens, B, c->T, c->C);
    linear_forward(m->a.logits, m->a.pooled, m->p.head_w, m->p.head_b, B, c->C, c->K);
    return labels ? crossentropy_forward(m->a.probs, m->a.logits, labels, B, c->K) : 0.0f;
}

/* ======================================================================
 * The backward pass, from the loss back to the embedding. Each function
 * undoes one of the forward's, in reverse order, and adds (+=) into the
 * gradients: backward() zeroes them all first. A gradient has its
 * tensor's shape: d(logits) is (B,K), d(x) is (B,T,C). */

/* loss = mean over b of -log probs[b, label]: dlogits = (probs - onehot) / B */
static void crossentropy_backward(float *dlogits, const float *probs, const int *labels,
                                  size_t B, size_t K) {
    for (size_t b = 0; b < B; b++)
        for (size_t k = 0; k < K; k++)
            dlogits[b * K + k] += (probs[b * K + k] - (k == (size_t)labels[b])) / (float)B;
}

/* out = inp W^T + bias: dinp (N,IC) += dout W, dW (OC,IC) += dout^T inp,
 * dbias (OC) += the sum of dout's rows */
static void linear_backward(float *dinp, float *dw, float *dbias, const float *dout,
                            const float *inp, const float *w, size_t N, size_t IC, size_t OC) {
    for (size_t n = 0; n < N; n++)
        for (size_t o = 0; o < OC; o++) {
            float d = dout[n * OC + o];
            for (size_t c = 0; c < IC; c++) {
                dinp[n * IC + c] += d * w[o * IC + c];
                dw[o * IC + c] += d * inp[n * IC + c];
            }
            dbias[o] += d;
        }
}

/* pooled[b] = the mean of its len real rows: each gets dpooled[b] / len */
static void meanpool_backward(float *dx, const float *dpooled, const size_t *lens, size_t B,
                              size_t T, size_t C) {
    for (size_t b = 0; b < B; b++)
        for (size_t t = 0; t < lens[b]; t++)
            for (size_t c = 0; c < C; c++)
                dx[(b * T + t) * C + c] += dpooled[b * C + c] * (1.0f / (float)lens[b]);
}

/* out = xhat w + b, xhat = (x - mean) rstd. With g = dout w (C):
 * dx = rstd (g - mean(g) - xhat mean(g xhat)), the two means over the
 * row's C channels; dw += dout xhat, db += dout. */
static void layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                               const float *inp, const float *w, const float *mean,
                               const float *rstd, size_t N, size_t C) {
    for (size_t n = 0; n < N; n++) {
        const float *dy = dout + n * C, *x = inp + n * C;
        float g_mean = 0.0f, gx_mean = 0.0f;
        for (size_t c = 0; c < C; c++) {
            float xhat = (x[c] - mean[n]) * rstd[n];
            g_mean += dy[c] * w[c];
            gx_mean += dy[c] * w[c] * xhat;
        }
        g_mean /= (float)C, gx_mean /= (float)C;
        for (size_t c = 0; c < C; c++) {
            float xhat = (x[c] - mean[n]) * rstd[n];
            dinp[n * C + c] += rstd[n] * (dy[c] * w[c] - g_mean - xhat * gx_mean);
            dw[c] += dy[c] * xhat;
            db[c] += dy[c];
        }
    }
}

/* out = a + b: each gets dout (the residual's gradient passes through) */
static void residual_backward(float *da, const float *dout, size_t n) {
    for (size_t i = 0; i < n; i++)
        da[i] += dout[i];
}

/* x = ReLU(x) in place: the gradient passes where the output is > 0 */
static void relu_backward(float *dx, const float *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        dx[i] = out[i] > 0.0f ? dx[i] : 0.0f;
}

/* One head's backward, head_forward's steps in reverse. datt (T,T) is
 * scratch. out = att v: datt = dout v^T, dv += att^T dout. att =
 * softmax(scores): dscores = att (datt - sum_j att_j datt_j), in datt.
 * scores = q k^T scale (+ ALiBi's constant bias): dq += dscores k scale,
 * dk += dscores^T q scale. Then RoPE's turn undone on dq and dk. */
static void head_backward(float *dqkv, float *datt, const float *dout, const float *qkv,
                          const float *att, Scheme pe, size_t len, size_t b, size_t h,
                          size_t T, size_t C, size_t NH) {
    size_t HS = C / NH, C3 = 3 * C;
    const float *q = qkv + b * T * C3 + h * HS, *k = q + C, *v = q + 2 * C;
    float *dq = dqkv + b * T * C3 + h * HS, *dk = dq + C, *dv = dq + 2 * C;
    const float *dy = dout + b * T * C + h * HS;
    float scale = 1.0f / sqrtf((float)HS);
    for (size_t i = 0; i < T; i++) {
        const float *a = att + i * T;
        float *da = datt + i * T, dot = 0.0f;
        for (size_t j = 0; j < len; j++) {
            da[j] = 0.0f;
            for (size_t d = 0; d < HS; d++) {
                da[j] += dy[i * C + d] * v[j * C3 + d];
                dv[j * C3 + d] += a[j] * dy[i * C + d];
            }
            dot += a[j] * da[j];
        }
        for (size_t j = 0; j < len; j++) {
            float ds = a[j] * (da[j] - dot) * scale;
            for (size_t d = 0; d < HS; d++) {
                dq[i * C3 + d] += ds * k[j * C3 + d];
                dk[j * C3 + d] += ds * q[i * C3 + d];
            }
        }
    }
    if (pe == ROPE) { /* the transpose of a rotation turns the other way */
        rope_rotate(dq, C3, T, HS, 1);
        rope_rotate(dk, C3, T, HS, 1);
    }
}

/* Multi-head attention: each head's backward into its own columns of
 * dqkv (B,T,3C); datt (B,NH,T,T) is the heads' scratch. */
static void attention_backward(float *dqkv, float *datt, const float *datty, const float *qkv,
                               const float *att, Scheme pe, const size_t *lens, size_t B,
                               size_t T, size_t C, size_t NH) {
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < NH; h++) {
            size_t off = (b * NH + h) * T * T;
            head_backward(dqkv, datt + off, datty, qkv, att + off, pe, lens[b], b, h, T, C, NH);
        }
}

/* The input schemes: only the learned table has weights; row t gets the
 * gradient of every real word at position t. (The count, pos/N and the
 * sinusoid are constants; RoPE and ALiBi had theirs in the heads.) */
static void position_backward(float *dwpe, const float *dx, Scheme pe, const size_t *lens,
                              size_t B, size_t T, size_t C) {
    for (size_t b = 0; b < B && pe == LEARNED; b++)
        for (size_t t = 0; t < lens[b]; t++)
            for (size_t c = 0; c < C; c++)
                dwpe[t * C + c] += dx[(b * T + t) * C + c];
}

/* x[i] = wte[ids[i]] in its first E channels: the row gets them back */
static void embedding_backward(float *dwte, const float *dx, const int *ids, size_t BT,
                               size_t E, size_t C) {
    for (size_t i = 0; i < BT; i++)
        for (size_t c = 0; c < E; c++)
            dwte[(size_t)ids[i] * E + c] += dx[i * C + c];
}

/* The layer's backward: dy (B,T,C), the gradient of its output, in ga's
 * ln2; dx, that of its input x, gets added to. */
static void layer_backward(LayerParams *g, LayerActs *ga, float *dx, const LayerParams *p,
                           const LayerActs *la, const float *x, Scheme pe, const size_t *lens,
                           size_t B, size_t T, size_t C, size_t NH, size_t F) {
    size_t BT = B * T;
    /* ln2 = LayerNorm(u) */
    layernorm_backward(ga->u, g->ln2_w, g->ln2_b, ga->ln2, la->u, p->ln2_w, la->ln2_mean,
                       la->ln2_rstd, BT, C);
    /* u = ln1 + ffh ff2_w^T + ff2_b */
    residual_backward(ga->ln1, ga->u, BT * C);
    linear_backward(ga->ffh, g->ff2_w, g->ff2_b, ga->u, la->ffh, p->ff2_w, BT, F, C);
    /* ffh = ReLU(ln1 ff1_w^T + ff1_b) */
    relu_backward(ga->ffh, la->ffh, BT * F);
    linear_backward(ga->ln1, g->ff1_w, g->ff1_b, ga->ffh, la->ln1, p->ff1_w, BT, C, F);
    /* ln1 = LayerNorm(s) */
    layernorm_backward(ga->s, g->ln1_w, g->ln1_b, ga->ln1, la->s, p->ln1_w, la->ln1_mean,
                       la->ln1_rstd, BT, C);
    /* s = x + atty out_proj_w^T + out_proj_b */
    residual_backward(dx, ga->s, BT * C);
    linear_backward(ga->atty, g->out_proj_w, g->out_proj_b, ga->s, la->atty, p->out_proj_w, BT,
                    C, C);
    /* atty = attention(qkv) */
    attention_backward(ga->qkv, ga->att, ga->atty, la->qkv, la->att, pe, lens, B, T, C, NH);
    /* qkv = x in_proj_w^T + in_proj_b */
    linear_backward(dx, g->in_proj_w, g->in_proj_b, ga->qkv, x, p->in_proj_w, BT, C, 3 * C);
}

/* The whole backward pass, after forward() on the same batch with labels:
 * every parameter's gradient into m->g. */
static void backward(Model *m, const int *ids, const size_t *lens, const int *labels,
                     size_t B) {
    const Config *c = &m->cfg;
    size_t T = c->T, C = c->C;
    Acts *a = &m->a, *ga = &m->ga;
    memset(m->grads, 0, m->n_params * sizeof *m->grads);
    memset(ga->x0, 0, m->n_acts * sizeof *ga->x0);
    crossentropy_backward(ga->logits, a->probs, labels, B, c->K);
    linear_backward(ga->pooled, m->g.head_w, m->g.head_b, ga->logits, a->pooled, m->p.head_w, B,
                    C, c->K);
    meanpool_backward(ga->layer[c->L - 1].ln2, ga->pooled, lens, B, T, C);
    for (size_t l = c->L; l-- > 0;) {
        const float *x = l ? a->layer[l - 1].ln2 : a->x0;
        float *dx = l ? ga->layer[l - 1].ln2 : ga->x0;
        layer_backward(&m->g.layer[l], &ga->layer[l], dx, &m->p.layer[l], &a->layer[l], x, c->pe,
                       lens, B, T, C, c->NH, c->F);
    }
    position_backward(m->g.wpe, ga->x0, c->pe, lens, B, T, C);
    embedding_backward(m->g.wte, ga->x0, ids, B * T, m->E, C);
}

/* ======================================================================
 * AdamW (Loshchilov and Hutter), with the library's defaults: learning
 * rate 1e-3 after a linear warm-up of 100 steps, betas 0.9 and 0.98 and
 * eps 1e-9 (the paper's), the gradient clipped to norm 1, and a weight
 * decay of 0.01 on the weight matrices only (decaying biases, LayerNorm
 * and the embedding tables only hurts). */
static void adamw_step(Model *m) {
    double norm2 = 0.0;
    for (size_t i = 0; i < m->n_params; i++)
        norm2 += (double)m->grads[i] * m->grads[i];
    float norm = (float)sqrt(norm2), clip = norm > 1.0f ? 1.0f / norm : 1.0f;
    m->step++;
    float lr = 1e-3f * (m->step < 100 ? (float)m->step / 100.0f : 1.0f);
    float b1 = 0.9f, b2 = 0.98f;
    float c1 = (float)(1.0 / (1.0 - pow(b1, (double)m->step)));
    float c2 = (float)(1.0 / (1.0 - pow(b2, (double)m->step)));
    for (size_t t = 0; t < m->n_tensors; t++) {
        const Tensor *ts = &m->tensors[t];
        float wd = ts->rows > 1 && ts->init == UNIFORM ? 0.01f : 0.0f;
        for (size_t i = ts->off; i < ts->off + ts->rows * ts->cols; i++) {
            float g = m->grads[i] * clip;
            m->m[i] = b1 * m->m[i] + (1.0f - b1) * g;
            m->v[i] = b2 * m->v[i] + (1.0f - b2) * g * g;
            float mhat = m->m[i] * c1, vhat = m->v[i] * c2;
            m->params[i] -= lr * (mhat / (sqrtf(vhat) + 1e-9f) + wd * m->params[i]);
        }
    }
}

/* ======================================================================
 * main: the order demo, then training on the agent task. A test includes
 * everything above with ONE_FILE_NO_MAIN (tests/one_file/glue.c). */
#ifndef ONE_FILE_NO_MAIN

/* The agent task (data/README.md): triple i is (name i/64, verb i/8 % 8,
 * animal i % 8); form 0 is "DOER VERB the OTHER", forms 1 and 2 put
 * "yesterday" or "today" first, 3 and 4 last; the name or the animal is
 * the doer. The 16 nouns are the classes: name k is class k, animal k
 * class 8 + k. Writes the ids (T, padded with 0) and the label; returns
 * the length. */
static size_t agent_sentence(int *ids, int *label, size_t triple, size_t form, int name_first,
                             size_t T) {
    int name = NAME0 + (int)(triple / 64), verb = VERB0 + (int)(triple / 8 % 8);
    int animal = ANIMAL0 + (int)(triple % 8);
    int doer = name_first ? name : animal, other = name_first ? animal : name;
    size_t n = 0;
    memset(ids, 0, T * sizeof *ids);
    if (form == 1 || form == 2)
        ids[n++] = YESTERDAY + (int)form - 1;
    ids[n++] = doer, ids[n++] = verb, ids[n++] = THE, ids[n++] = other;
    if (form == 3 || form == 4)
        ids[n++] = YESTERDAY + (int)form - 3;
    *label = name_first ? (int)(triple / 64) : 8 + (int)(triple % 8); /* the doer's class */
    return n;
}

/* Whole triples are held out for test, one in eight by a hash of the
 * triple (0, "Rohan killed the lion", among them): a test sentence shares
 * no three words with a training one, so the model must learn the rule. */
static int is_test(size_t triple) { return (triple * 2654435761u >> 11) % 8 == 0; }

/* The share of the test sentences (every test triple in its 5 forms, the
 * name first and the animal first) whose doer the model names. */
static float test_accuracy(Model *m) {
    const Config *c = &m->cfg;
    int ids[32 * 5], labels[32];
    size_t lens[32], right = 0, n = 0, total = 0;
    for (size_t s = 0; s < 512 * 10; s++) {
        if (is_test(s / 10)) {
            lens[n] = agent_sentence(ids + n * c->T, labels + n, s / 10, s % 10 / 2, s % 2, c->T);
            n++, total++;
        }
        if (n < c->B && s + 1 < 512 * 10)
            continue;
        forward(m, ids, lens, NULL, n);
        for (size_t b = 0; b < n; b++) {
            size_t best = 0;
            for (size_t k = 1; k < c->K; k++)
                best = m->a.logits[b * c->K + k] > m->a.logits[b * c->K + best] ? k : best;
            right += best == (size_t)labels[b];
        }
        n = 0;
    }
    return (float)right / (float)total;
}

/* Trains a new model with scheme pe for steps steps of B sentences drawn
 * from the training triples; returns its test accuracy. Every scheme gets
 * the same first weights' seed and the same batches. */
static float train(Scheme pe, size_t steps) {
    Config c = config_default(pe);
    Model m;
    model_create(&m, &c, 42);
    Rng r = {12345};
    int ids[32 * 5], labels[32];
    size_t lens[32];
    for (size_t step = 0; step < steps; step++) {
        for (size_t b = 0; b < c.B; b++) {
            size_t triple;
            do
                triple = (size_t)(rng_uniform(&r) * 512);
            while (is_test(triple));
            lens[b] = agent_sentence(ids + b * c.T, labels + b, triple,
                                     (size_t)(rng_uniform(&r) * 5), rng_uniform(&r) < 0.5, c.T);
        }
        forward(&m, ids, lens, labels, c.B);
        backward(&m, ids, lens, labels, c.B);
        adamw_step(&m);
    }
    float acc = test_accuracy(&m);
    model_free(&m);
    return acc;
}

/* Two sentences of the same distinct words through an untrained model of
 * each scheme: the largest difference between a word's row in one and
 * its row in the other, and the cosine of the two sentence vectors. */
static void order_demo(const char *s1, const char *s2) {
    int ids[2 * 5] = {0};
    size_t lens[2] = {tokenize(ids, 5, s1), tokenize(ids + 5, 5, s2)}, perm[5] = {0};
    for (size_t i = 0; i < lens[1]; i++) /* word i of s2 is word perm[i] of s1 */
        for (size_t j = 0; j < lens[0]; j++)
            perm[i] = ids[j] == ids[5 + i] ? j : perm[i];
    printf("\"%s\" against \"%s\", untrained:\n", s1, s2);
    printf("%-11s %-26s %s\n", "scheme", "largest row difference", "pooled cosine");
    for (int pe = 0; pe < N_SCHEMES; pe++) {
        Config c = config_default((Scheme)pe);
        Model m;
        model_create(&m, &c, 42);
        forward(&m, ids, lens, NULL, 2);
        const float *h = m.a.layer[c.L - 1].ln2, *p = m.a.pooled;
        float diff = 0.0f;
        double dot = 0.0, n1 = 0.0, n2 = 0.0;
        for (size_t i = 0; i < lens[1]; i++)
            for (size_t k = 0; k < c.C; k++)
                diff = fmaxf(diff, fabsf(h[(5 + i) * c.C + k] - h[perm[i] * c.C + k]));
        for (size_t k = 0; k < c.C; k++)
            dot += (double)p[k] * p[c.C + k], n1 += (double)p[k] * p[k],
                n2 += (double)p[c.C + k] * p[c.C + k];
        printf("%-11s %-26.2e %.6f\n", SCHEME_NAMES[pe], diff, dot / sqrt(n1 * n2));
        model_free(&m);
    }
}

int main(void) {
    order_demo("Rohan killed the lion", "lion killed the Rohan");
    /* the steps each scheme needs to learn the task: ALiBi's bias fades
     * with distance alike to either side, and it takes longer */
    static const size_t steps[N_SCHEMES] = {300, 300, 300, 300, 300, 300, 1000};
    size_t held = 0;
    for (size_t t = 0; t < 512; t++)
        held += is_test(t);
    printf("\nTrained to say who did it, tested on the %zu sentences of %zu unseen triples:\n",
           held * 10, held);
    printf("%-11s %-6s %s\n", "scheme", "steps", "test accuracy");
    for (int pe = 0; pe < N_SCHEMES; pe++) {
        printf("%-11s %-6zu %.3f\n", SCHEME_NAMES[pe], steps[pe], train((Scheme)pe, steps[pe]));
        fflush(stdout); /* each line as it comes: the whole takes seconds */
    }
    return 0;
}
#endif
