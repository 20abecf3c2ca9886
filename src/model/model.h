/* A model: its configuration, its parameters (one allocation carved into
 * named tensors) and the activations of a batch (another). encoder.h runs
 * it. */
#ifndef POSENC_MODEL_H
#define POSENC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../pe/pe.h"
#include "layers.h"

#define MAX_LAYERS 16
/* Bounds every dimension so that products of two fit BLAS's int. */
#define MAX_DIM 32768
/* --dropout's bound: at p = 1 nothing is left to scale by 1/(1-p) */
#define MAX_DROPOUT 0.95f

typedef enum { NORM_POST = 0, NORM_PRE = 1 } NormPlace;

/* What the sentence head reads: the mean of the words' rows, or the first
 * row, where every sentence then begins with a [CLS] token (BERT's; the
 * data layer puts it there, text/data.h's DATA_CLS). */
typedef enum { POOL_MEAN = 0, POOL_CLS = 1 } Pooling;

/* How the linear layers' first weights are drawn (--first-draws): as
 * PyTorch's layers draw them (the default), or as Ruoss et al.'s code does
 * (Haiku's hk.Linear: a normal truncated at 2 std, std 1/sqrt(fan_in), and
 * zero biases; model.c says where in their code). The embedding, a learned
 * table and a scheme's own tables are drawn as today under both. */
typedef enum { DRAWS_PYTORCH = 0, DRAWS_REFERENCE = 1 } FirstDraws;

typedef struct {
    size_t vocab_size; /* V, e.g. 32 */
    size_t d_model;    /* C, e.g. 64 */
    size_t n_heads;    /* NH, e.g. 4; divides C */
    size_t n_layers;   /* L, e.g. 2; at most MAX_LAYERS */
    size_t d_ff;       /* F, e.g. 256 */
    size_t max_len;    /* longest sentence a learned table covers, e.g. 64 */
    NormPlace norm;    /* NORM_POST or NORM_PRE */
    Activation act;    /* ACT_RELU or ACT_GELU, in the FFN */
    bool scale_embed;  /* multiply embeddings by sqrt(C) (paper 3.4) */
    size_t n_classes;  /* K, width of the output head, e.g. 2; 0 for none */
    bool per_token;    /* head on every token (B,T,K) instead of the pooled vector (B,K) */
    bool causal;       /* query i sees keys 0..i only, a decoder's mask (--causal) */
    Pooling pool;      /* the sentence vector: mean (the default) or [CLS] (--pool) */
    float dropout;     /* p of training's dropout (--dropout), where PyTorch's encoder layer
                        * puts it, and on embedding + code; 0 = none; never at inference */
    PeConfig pe;       /* the position scheme */
    uint64_t seed;     /* weights are drawn from this seed only, e.g. 42 */
    FirstDraws first_draws; /* DRAWS_PYTORCH (0, the default) or DRAWS_REFERENCE */
    bool no_out_bias;  /* attention's output projection without its bias, as Ruoss et
                        * al.'s (--no-out-bias); false, the zero of a Config, keeps it */
} Config;

typedef struct {
    float *in_proj_w;  /* (3C,C) q, k, v projections stacked, torch's order */
    float *in_proj_b;  /* (3C) */
    float *out_proj_w; /* (C,C) */
    float *out_proj_b; /* (C), or NULL without it (Config.no_out_bias) */
    float *ff1_w;      /* (F,C) */
    float *ff1_b;      /* (F) */
    float *ff2_w;      /* (C,F) */
    float *ff2_b;      /* (C) */
    float *ln1_w;      /* (C) norm1: after attention (post) or before it (pre) */
    float *ln1_b;      /* (C) */
    float *ln2_w;      /* (C) norm2: after the FFN (post) or before it (pre) */
    float *ln2_b;      /* (C) */
    float *pe;         /* (rows,cols) the scheme's table of this layer (a per_layer scheme's),
                        * or NULL */
} LayerParams;

/* Named views into one allocation; gradients reuse the type. */
typedef struct {
    float *tok_emb; /* (V,E) */
    float *pe;      /* (rows,cols) the scheme's table the layers share (learned, T5,
                     * shaw), or NULL */
    LayerParams layer[MAX_LAYERS];
    float *lnf_w;   /* (C) final LayerNorm, pre-norm only */
    float *lnf_b;   /* (C) */
    float *head_w;  /* (K,C) */
    float *head_b;  /* (K) */
} Params;

/* One named tensor of the parameter block. Names are those of PyTorch's
 * nn.TransformerEncoder state_dict where the tensor exists there. */
typedef enum { INIT_ZERO, INIT_ONE, INIT_NORMAL, INIT_UNIFORM, INIT_SCHEME } InitKind;

typedef struct {
    char name[64];  /* e.g. "layers.0.self_attn.in_proj_weight" */
    size_t rows;    /* e.g. 3C; 1 for a vector */
    size_t cols;    /* e.g. C */
    size_t offset;  /* floats from the start of the block */
    InitKind init;
    float scale;    /* std (normal) or bound (uniform) */
    size_t fan_in;  /* a linear layer's weight or bias: the layer's input width (C or F),
                     * which --first-draws reference reads; 0 for every other tensor */
    bool bias;      /* a linear layer's bias (zero under --first-draws reference) */
} ParamSpec;

typedef struct {
    Config cfg;
    PePlan pe;        /* the scheme resolved against the model's shape */
    size_t n_params;  /* floats */
    float *mem;       /* every parameter */
    Params p;
    ParamSpec *specs;
    size_t n_specs;
} Model;

typedef struct {
    float *ln1, *ln1_mean, *ln1_rstd; /* (B,T,C), (B,T), (B,T) */
    float *qkv;                       /* (B,T,3C) */
    float *att;                       /* (B,NH,T,T) softmax weights */
    float *att_drop;                  /* (B,NH,T,T) the same after dropout (training with
                                       * dropout only, else NULL) */
    float *atty;                      /* (B,T,C) heads' outputs before out_proj */
    float *s;                         /* (B,T,C) residual after attention */
    float *ln2, *ln2_mean, *ln2_rstd; /* (B,T,C), (B,T), (B,T) */
    float *ffh;                       /* (B,T,F) ReLU: after the activation, in place
                                       * (relu(x) > 0 exactly where x > 0: all its
                                       * backward needs); GELU: before it */
    float *u;                         /* (B,T,C) residual after the FFN */
    float *logits;                    /* (B,NH,T,T) the raw logits, for a scheme that reads
                                       * them (PeScheme.reads_logits), else NULL */
} LayerActs;

/* Everything the forward pass writes, sized for at most B x T. The
 * layers' activations (LayerActs, x0, ffa, lnf) hold Bm of the B
 * sentences: a batch of more runs through the layers Bm sentences at a
 * time (a micro-batch), and only the last micro-batch's stay; pos,
 * scratch, hidden, pooled and logits hold the whole batch. */
typedef struct {
    size_t B, T;
    size_t Bm;                        /* sentences per micro-batch, 1..B */
    size_t *pos;                      /* (B,T) the position of each token in the last pass */
    float *x0;                        /* (Bm,T,C) embedding + position */
    float *pe;                        /* (T,w) the position code */
    float *scratch;                   /* (B,pe_scratch(T)) an attention scheme's per-sentence
                                       * preparation of the positions */
    float *work;                      /* (threads,pe_work(T)) an attention scheme's per-head
                                       * workspace, one per thread, or NULL */
    /* A draw per layer (encoder_draw_layers, for a scheme whose ruoss_draw
     * is one; else NULL): each layer's positions or distances, and what
     * prepare made of them, for the whole batch. drawn: made for the next
     * forward pass; in_use: the last pass used them (its backward does). */
    size_t *layer_draw;               /* (L,T) */
    float *layer_scratch;             /* (L,pe_scratch(T)) */
    size_t drawn_T;                   /* the slots they were drawn for */
    size_t drawn_N;                   /* and the range: positions 0..N-1, distances 1..N-1 */
    bool layers_drawn, layers_in_use;
    LayerActs layer[MAX_LAYERS];
    float *ffa;                       /* (B,T,F) GELU or dropout only: the FFN's hidden
                                       * layer as the second linear reads it, one buffer
                                       * for all layers (the backward recomputes it) */
    float *lnf, *lnf_mean, *lnf_rstd; /* (B,T,C), (B,T), (B,T) pre-norm only */
    float *hidden;                    /* (B,T,C) the encoder's output (points into the above
                                       * when Bm = B, else a buffer of its own) */
    float *pooled;                    /* (B,C) */
    float *logits;                    /* (B,K), or (B,T,K) per token; NULL without a head */
    Dropout drop;                     /* p 0 (none) but while a training step runs, which
                                       * sets p to the model's dropout and a new key */
    /* Made for forward passes alone (acts_create_forward): the layers take
     * turns in two sets of buffers (layer l's are set l % 2: its input,
     * the layer before's output, is in the other), and a head's weights
     * and logits sit in a block of its thread's (par_max_threads x T x T
     * each) while the head is computed, never kept; no backward reads
     * them. */
    bool forward_only;
    float *mem;
} Acts;

/* Gradients of the activations for the backward pass, sized for a
 * micro-batch of Bm x T (dlogits: the whole B x T). The layers run one at
 * a time, so one set of buffers serves them all. */
typedef struct {
    size_t B, T, Bm;
    float *dy, *du, *ds;  /* (B,T,C) each: the residual stream and scratch */
    float *dres;          /* (B,T,C) with dropout: a residual branch's gradient through its
                           * mask, else NULL */
    float *dqkv;          /* (B,T,3C) */
    float *dffa;          /* (B,T,F) the FFN's hidden layer, after and (in place)
                           * before the activation */
    float *dscores;       /* (n_scratch,T,T): one head at a time per thread */
    size_t n_scratch;     /* threads at creation (par.h), at most this many share the heads */
    float *dpooled;       /* (B,C) */
    float *dlogits;       /* (B,K) or (B,T,K): the loss writes it */
    float *mem;
} GradActs;

/* A small model (C = 64, 4 heads, 2 layers, F = 256, post-norm, ReLU) with
 * the given vocabulary size and scheme; the caller adjusts fields. */
void config_default(Config *c, size_t vocab_size, const char *pe_name);

/* Checks every field; the message names the option to change. */
int config_check(const Config *c, Err *e);

/* Number of parameters (floats) of a model built from c, computed without
 * allocating; 0 if c does not pass config_check. */
size_t config_param_count(const Config *c);

/* The model's options a checkpoint stores by name (version 7 on), each as
 * its command-line text, when it is not at its default: --first-draws
 * (pytorch or reference) and the output projection's bias, "out-bias"
 * (true, or false from --no-out-bias). In model_options.c. */
enum { MODEL_OPT_FIRST_DRAWS, MODEL_OPT_OUT_BIAS, MODEL_OPT_COUNT };
/* "first-draws" for MODEL_OPT_FIRST_DRAWS (the name without dashes); NULL
 * past the last. */
const char *model_option_name(size_t opt);
/* The option of that name, or MODEL_OPT_COUNT. */
size_t model_option_find(const char *name);
/* Sets option opt of c from its text: one of its two names, or ERR_INPUT
 * naming the option and them. */
int model_option_set(Config *c, size_t opt, const char *text, Err *e);
/* Option opt of c as its text ("reference", "false"). */
void model_option_text(const Config *c, size_t opt, char *buf, size_t cap);
/* Whether option opt of c is not at its default (and so is stored). */
bool model_option_given(const Config *c, size_t opt);

/* Allocates and initializes a model from c (weights drawn from c->seed). */
int model_create(Model *m, const Config *c, Err *e);
void model_free(Model *m);

/* Points the fields of p into base, laid out as m's parameters; base holds
 * m->n_params floats (used for gradients and optimizer state). */
void params_carve(const Model *m, Params *p, float *base);

/* Floats of the activations for a batch of B sentences of T tokens (and,
 * with train, of their gradients) of a model built from c, counted the
 * way acts_create and gradacts_create carve them, without allocating; 0
 * if c does not pass config_check. For memory estimates before a model
 * is made. */
size_t config_act_floats(const Config *c, size_t B, size_t T, bool train);

/* Activations for batches of up to B x T, every sentence's kept. */
int acts_create(Acts *a, const Model *m, size_t B, size_t T, Err *e);
/* The same keeping the layers' activations of Bm sentences only (1..B;
 * micro_sentences gives a good Bm): far less memory for a large batch,
 * and the training step runs the micro-batches through forward and
 * backward one after the other. */
int acts_create_micro(Acts *a, const Model *m, size_t B, size_t T, size_t Bm, Err *e);
/* Activations for forward passes alone (Acts.forward_only): the same
 * numbers, in a fraction of the memory, sized for what one pass needs. */
int acts_create_forward(Acts *a, const Model *m, size_t B, size_t T, Err *e);
void acts_free(Acts *a);
int gradacts_create(GradActs *g, const Model *m, size_t B, size_t T, Err *e);
int gradacts_create_micro(GradActs *g, const Model *m, size_t B, size_t T, size_t Bm, Err *e);
void gradacts_free(GradActs *g);

/* Tokens per micro-batch: the activations of about this many tokens stay
 * in the caches between a layer's forward and the next's. */
#define MICRO_TOKENS 512
/* Sentences of T positions per micro-batch: MICRO_TOKENS / T, at least 1,
 * at most B. */
size_t micro_sentences(size_t B, size_t T);

/* Positions the model can encode, 0..n-1: max_len for a learned table,
 * SIZE_MAX for schemes defined at every position. */
size_t model_max_positions(const Model *m);
/* The scheme's table that layer l reads in p (the model's parameters or
 * their gradients): the layer's own (PeScheme.per_layer) or the shared
 * one; NULL for a scheme without one. */
float *model_pe_table(const Model *m, const Params *p, size_t l);
/* Puts the scheme's tables back within its constraints (PeScheme.constrain),
 * after each optimizer step; nothing for a scheme without any. */
void model_pe_constrain(Model *m);

/* Tokens every sentence of a model built from c begins with before its
 * words: 1, the [CLS], when it pools by [CLS], else 0. A length the model
 * reads (a batch's lens, a position count) is words plus these; a message
 * counts words. */
size_t config_lead_tokens(const Config *c);

/* A sentence of n_tokens tokens as a model built from c reads it, in
 * words, for a message: "9 words", or with a [CLS], "9 words (and the
 * [CLS] before them: 10 positions)". Written into buf (cap bytes), which
 * it returns. */
const char *config_words(const Config *c, size_t n_tokens, char *buf, size_t cap);

/* Bytes a model built from c needs to run (not train) B sentences of T
 * tokens: its parameters and the activations, counted without allocating;
 * 0 if c does not pass config_check. For a program's memory guard. */
double config_memory(const Config *c, size_t B, size_t T);

#endif
