/* The positional-encoding family behind one interface.
 *
 * An input scheme turns positions into a matrix P (T,w) that meets the
 * token embeddings in one of two ways:
 *   concat  the embedding fills the first C - w channels and P the last w;
 *   add     P is added to the embedding. A scheme narrower than the model
 *           (w < C) is tiled across the channels: channel c gets P[c % w],
 *           so a one-channel scheme adds the same number to every channel.
 * An attention scheme adds nothing to the input (w = 0) and acts inside
 * each head's attention instead: RoPE rotates q and k by their positions,
 * ALiBi and T5 add a bias that depends on the two positions to the
 * scores; Shaw's adds learned vectors of the offset to the keys and the
 * values. Any scheme may own a table of parameters (learned, T5, shaw).
 *
 * Positions: the naive schemes of the notes (integer, normalized, sine,
 * sincos) count from 1, as the notes do ("Rohan" is word 1 of 4); the
 * other schemes count from 0. Inside the code a position is always the
 * 0-based index p; training may draw positions at random
 * (--random-positions), so a scheme never assumes p equals the row. */
#ifndef POSENC_PE_H
#define POSENC_PE_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "pe_option.h"

typedef enum { COMBINE_DEFAULT = 0, COMBINE_ADD = 1, COMBINE_CONCAT = 2 } Combine;

#define PE_NAME_MAX 24

/* The most options one configuration gives at once: every option of one
 * scheme (a test holds each scheme's own list, with --combine and
 * --pe-dim, within it), or what a program that runs several schemes is
 * given for them together. It bounds no scheme by the others' options:
 * the registry may declare any number. */
#define PE_GIVEN_MAX 32

/* An option given, and its value (a PE_VALUE_NAME option: the index of
 * its name). */
typedef struct {
    const PeOption *option;
    double value;
} PeGiven;

/* What the user chose, and what a checkpoint stores: the scheme, and the
 * options given with their values. An option not given reads as its
 * default (pe_get). Made by pe_config_default and changed through pe_put
 * and pe_unset alone, so that two configurations that give the same are
 * the same bytes (given in the registry's order of options, the rest
 * zero). */
typedef struct {
    char name[PE_NAME_MAX]; /* scheme, e.g. "sinusoidal" */
    size_t n_given;
    PeGiven given[PE_GIVEN_MAX];
} PeConfig;

/* ---- the registry's options (one PeOption is pe_option.h's) ---- */

/* Every option of every scheme, each once: --combine and --pe-dim, then
 * the schemes' in the registry's order. NULL past the last. */
size_t pe_option_count(void);
const PeOption *pe_option_at(size_t i);
/* The index of o in pe_option_at (pe_option_count() if it is none). */
size_t pe_option_index(const PeOption *o);
/* The option of a flag or key ("--pairs" or "pairs"), or NULL. */
const PeOption *pe_option_find(const char *name);

/* o's value in pc: the value given, or o's default. */
double pe_get(const PeConfig *pc, const PeOption *o);
bool pe_given(const PeConfig *pc, const PeOption *o);
/* Gives o the value v (a size, a real, or a name's index), unchecked:
 * pe_plan checks every option given. -1, pc unchanged, when o is no
 * option of the registry or pc gives PE_GIVEN_MAX others already. */
int pe_put(PeConfig *pc, const PeOption *o, double v);
/* Takes o back to not given. */
void pe_unset(PeConfig *pc, const PeOption *o);
/* Sets option o from its command-line text: the whole text, in the
 * option's range (both ends included) or among its names, or ERR_INPUT
 * with a message that names the option, states the range applied and
 * quotes the text. The command line and the checkpoint loader both parse
 * this way. */
int pe_set(PeConfig *pc, const PeOption *o, const char *text, Err *e);
/* pe_set by the option's flag or key: ERR_INPUT for a name no scheme has. */
int pe_set_named(PeConfig *pc, const char *name, const char *text, Err *e);
/* o's value in pc as the command line writes it ("split", "10000", "0.1":
 * a number in the shortest text that reads back as the same double);
 * pe_set of that text gives pc's value back exactly. */
void pe_option_text(const PeConfig *pc, const PeOption *o, char *buf, size_t cap);
/* ---- the schemes ---- */

/* Which operand a rotation turns: the query or the key. A rotation may
 * treat them alike (rope) or not (a rotation that also scales the query
 * by a factor of its position and the key by its inverse). */
typedef enum { PE_QUERY = 0, PE_KEY = 1 } PeOperand;

/* What a randomized run draws for a scheme under Ruoss et al.'s code
 * (train --random-draw ruoss; --random-draw positions, the default, draws
 * the input's positions for every scheme): the input's sorted positions
 * once a batch (its sinusoid and learned table); sorted positions afresh
 * in every layer (its RoPE); or, in every layer, one distance per offset,
 * dist[0] = 0 < dist[1] < ... < dist[T-1] drawn from 1..N-1, so that
 * tokens k apart are dist[k] apart whichever two they are (its ALiBi and
 * relative). A layer's draw is the whole batch's. */
typedef enum { PE_DRAW_INPUT = 0, PE_DRAW_LAYER_POSITIONS, PE_DRAW_LAYER_DISTANCES } PeDraw;

/* What a scheme checks its options against. */
typedef struct {
    size_t C, NH;    /* model width and heads (NH divides C) */
    size_t max_len;  /* positions the model accepts */
} PeShape;

/* One head of one sentence of one layer, as an attention scheme sees it
 * (attention.c fills it in; a field the hook has no use for may be NULL).
 * Rows of q, k, v, dq and dk are ld floats apart (the interleaved qkv of
 * attention.c), rows of out and dout ld_out apart. */
typedef struct {
    const PeConfig *pc;
    const float *params;  /* the scheme's table for this layer, or NULL */
    float *dparams;       /* backward: its gradient, added to; NULL at inference */
    const float *scratch; /* what prepare wrote from this sentence's positions */
    const size_t *pos;    /* the sentence's positions (T) */
    const size_t *dist;   /* PE_DRAW_LAYER_DISTANCES: the layer's distances (T): the key k
                           * to the right of its query is dist[k] from it, to its left
                           * -dist[k]; NULL: offsets are differences of pos */
    size_t T, HS, h, NH;  /* tokens, head size, this head, heads */
    size_t len;           /* the sentence's real tokens: keys len..T-1 are padding, masked */
    bool causal;          /* query i sees keys 0..i only */
    size_t layer;
    float scale;          /* 1/sqrt(HS): the scores' */
    const float *q, *k;   /* (T,HS) each: after rotate */
    const float *v;
    size_t ld;
    /* (T,T) the raw logits q k^T scale (after rotate, before any term and
     * the mask), read-only, for a scheme with reads_logits, forward and
     * backward alike (the model keeps them for the backward); NULL for the
     * others */
    const float *logits;
    float *work;          /* the scheme's per-head workspace (PeScheme.work floats), or NULL */
    float *scores;        /* forward: (T,T), where score adds its term; what it holds
                           * before is not the scheme's to read (hd->logits is) */
    const float *att;     /* (T,T): the weights the values read */
    float *out;           /* forward: (T,HS), att v */
    size_t ld_out;
    float *dq, *dk;       /* backward: (T,HS) each, added to */
    float *dscores;       /* backward: (T,T), the scores' gradient; writable in
                           * logits_backward only */
    float *datt;          /* backward: (T,T), the weights' gradient, added to */
    const float *dout;    /* backward: (T,HS) */
} PeHead;

/* One query's row and one of its keys in double, for the reference model
 * of the tests (tests/ref_model.c): a scheme's formula written plainly,
 * beside its fast float code. The row gives what a term of the content
 * needs (the raw logits of the query with every key it sees, the keys'
 * positions), the pair what a term of two positions needs. */
typedef struct {
    const PeConfig *pc;
    const double *params; /* the scheme's table for this layer, or NULL */
    const double *q, *k;  /* query i's and key j's rows of head h (HS each), rotated */
    size_t pi, pj;        /* their positions */
    size_t drawn;         /* N when pj - pi is an offset of a layer's drawn distances
                           * (PE_DRAW_LAYER_DISTANCES, drawn from 1..N-1); 0 otherwise */
    size_t i, j;          /* their rows */
    size_t n;             /* the keys query i sees, 0..n-1 (the mask applied) */
    const double *logits; /* (n) query i's raw logits with each of them, q.k / sqrt(HS) */
    const size_t *pos;    /* (n) their positions */
    bool causal;
    size_t h, NH, HS;
} PeRefRow;

/* What a scheme's factor of the positions comes to over a sentence
 * (PeScheme.score_gain): a factor that multiplies the scores q.k and
 * grows with how far apart two tokens are (xpos's scale). */
typedef struct {
    double log10;           /* the largest factor a score takes, as a power of ten (a factor
                             * past any float is still a number) */
    char formula[96];       /* what it is, after the scheme's name, e.g. "scale
                             * zeta_0^(-89/B) = 3.5^(89/1)" */
    const PeOption *option; /* the option that sets it, e.g. --xpos-scale-base */
    double option_min;      /* the least value of option that keeps the factor within the
                             * share asked */
    size_t span_max;        /* the widest span whose factor stays within the share at pc's
                             * value of option */
} PeGain;

typedef struct PeScheme {
    const char *name;
    const char *about;       /* one line, for --help and the demo */
    const char *note;        /* what the demo adds about an untrained model, or NULL */
    /* One of the seven the tutorial opens with (pages 1 to 4: none, the
     * count, pos/N, the sinusoid, a learned table, RoPE, ALiBi): what
     * demo_order and the web page run unless asked for every scheme
     * (--pe all), so that a newcomer's first screen stays one screen. */
    bool demo_default;
    unsigned since;          /* the checkpoint version that first stored it */
    /* the options it reads (--combine and --pe-dim aside, which pe_reads
     * gives every input scheme), NULL-terminated; NULL for none */
    const PeOption *const *options;
    /* What the experiments and pages need: the column of Ruoss et al.'s
     * Table 1 (ACL 2023) it stands for ("none", "sin/cos", "relative",
     * "rope", "alibi", "learned"), or NULL; and whether that paper draws
     * its positions at random (its randomized form). */
    const char *ruoss_column;
    bool ruoss_randomized;
    PeDraw ruoss_draw;       /* what its randomized form draws under --random-draw ruoss */
    /* The options its benchmark column sets ("--alibi-slopes ruoss": the form
     * of Ruoss et al.'s code), as the command line writes them, or NULL. */
    const char *bench_options;
    /* The options of its randomized form as the reference's code runs it,
     * where that differs from what its comments mean (xl's rows past its
     * table, clamped), a column of its own ("random xl (as run)") in a
     * grid with the reference's forms; NULL for none. */
    const char *bench_as_run;
    /* Its place among the standard run's columns of the benchmark, from 1
     * (Ruoss et al.'s first, in their Table 1's order, none to learned,
     * each followed by its randomized form; then ours); 0 for a column of
     * --all-schemes alone, after them in the registry's order. */
    unsigned bench_place;
    /* Not yet in the experiments' grids (docs/results.md, docs/benchmark.md):
     * a scheme that joins them when the pages are next made whole, so
     * that their published numbers stay those of the runs they show. */
    bool grids_later;
    Combine default_combine; /* concat for the one-channel counts, add for the wide ones */
    size_t first_position;   /* the number of the first word: 1 for the notes' counts, 0 for
                              * the others */
    bool length_dependent;   /* P depends on the sentence length (pos/N) */
    /* Its positions come from the content, never from the tokens' own
     * (CoPE counts gates): --random-positions does nothing for it. */
    bool ignores_positions;
    /* Channels P has, given the model width C and the resolved combine
     * mode; NULL for a scheme that adds nothing to the input. */
    size_t (*width)(const PeConfig *pc, size_t C, Combine combine);
    /* Checks the scheme's own options against the model; NULL when
     * anything goes. */
    int (*check)(const PeConfig *pc, const PeShape *shape, Err *e);
    /* Under a causal mask: why the options given do nothing there (a
     * message, for the model to refuse them), or NULL. */
    const char *(*causal_conflict)(const PeConfig *pc);
    /* Fills the options the run decides, not given by the user, from the
     * longest sentence the model trains on (yarn's original length);
     * NULL when there are none. Called through pe_fill_run. */
    void (*fill_run)(PeConfig *pc, size_t trained_len);

    /* -- a scheme with a formula -- */
    /* Channel c of a code w wide at position p (0-based; the scheme numbers
     * it from first_position) in a sentence of n tokens, in double. The
     * code is this, rounded once to float. */
    double (*value)(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n);
    /* The same value computed in float32 arithmetic as published code
     * computes it (the position and the angle in float): what the analysis
     * holds against value to measure float32 fidelity. */
    float (*value_f32)(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n);

    /* -- a scheme with parameters -- */
    /* The table's shape for a code w wide (the resolved width), heads of
     * HS channels, NH heads and max_len positions; NULL when the scheme has
     * none. An input scheme without a formula (learned) reads row p of its
     * table at position p, so the table also bounds the positions. */
    void (*param_shape)(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                        size_t *rows, size_t *cols);
    const char *param_name; /* the table's name among the model's tensors */
    bool per_layer;         /* one table per layer (else one the layers share) */
    /* The gradient of head h touches head h's part of the table only, so
     * heads can be summed on threads of their own (else one thread sums
     * them all, in a fixed order). */
    bool grad_by_head;
    /* Draws the initial table, n floats (param_shape's), for a model of C
     * channels in NH heads (each of C / NH). */
    void (*init)(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH, Rng *rng);

    /* -- an attention scheme: each head of each sentence of each layer --
     * The hooks, in the order a layer calls them (src/model/attention.c);
     * every one may be NULL, and the model, the property analysis
     * (analysis_attn.c) and the reference model (tests/ref_model.c) call
     * them with the same inputs:
     *   scratch, prepare  once a batch, before the first layer, per sentence:
     *                     what the positions give (cos and sin, buckets);
     *                     may write only the scratch; with a draw per
     *                     layer (PeDraw), once per layer for the batch
     *   rotate            forward: q, then k, in place, before the scores;
     *                     backward: dq and dk, after score_backward
     *   score             forward: adds its term to the scores, before the
     *                     mask and the softmax; a term of the content reads
     *                     the raw logits (reads_logits: hd->logits)
     *   mix               forward: adds to the heads' outputs
     *   mix_backward      backward: into datt and dparams
     *   logits_backward   backward, after the softmax's, before attention's
     *                     own dq and dk products: adds to dscores what its
     *                     term sends back through the logits it read, so
     *                     that it reaches q and k through those products
     *   score_backward    backward, after the products: into dq, dk and the
     *                     table's gradient (dparams), never the table
     *   constrain         after each optimizer step (and the initial draw):
     *                     the only hook that writes the table
     * work gives each head a workspace of its own (hd->work) for any hook. */
    /* Floats it keeps per sentence of T tokens (head size HS, options pc),
     * written once per forward pass by prepare from the tokens' positions
     * pos[0..T) (RoPE's cos and sin, T5's buckets) and read by the hooks
     * below. */
    size_t (*scratch)(const PeConfig *pc, size_t T, size_t HS);
    void (*prepare)(float *scratch, const PeConfig *pc, const size_t *pos, size_t T,
                    size_t HS);
    /* prepare's counterpart for a layer's drawn distances (PE_DRAW_LAYER_
     * DISTANCES: PeHead.dist, drawn from 1..N-1); NULL where the hooks
     * read hd->dist themselves. */
    void (*prepare_distances)(float *scratch, const PeConfig *pc, const size_t *dist, size_t T,
                              size_t N, size_t HS);
    /* Rotates x (T rows of HS at stride hd->ld: q or k, as which says, or
     * their gradients) in place, before the scores; inverse applies the
     * transpose, for the backward pass. */
    void (*rotate)(const PeHead *hd, float *x, PeOperand which, bool inverse);
    /* Adds the scheme's part to hd->scores (a bias of the two positions,
     * or a term of q or k and the offset, or of the logits: reads_logits),
     * before the softmax. */
    void (*score)(const PeHead *hd);
    /* Its backward, from hd->dscores, the scores' own gradient (as it was
     * before logits_backward added to it): into dq, dk and dparams. */
    void (*score_backward)(const PeHead *hd);
    /* score reads hd->logits, the raw logits (CoPE's gates): every caller
     * gives them, and the model keeps them for the backward (B x NH x T^2
     * floats a layer, for such a scheme only). */
    bool reads_logits;
    /* The part of score's backward that goes through the logits it read:
     * adds it to hd->dscores (dscores += d term / d logits, row by row),
     * before attention's dq and dk products carry dscores to q and k. */
    void (*logits_backward)(const PeHead *hd);
    /* Floats of per-head workspace its hooks use (hd->work), for sentences
     * of T tokens and NH heads of HS channels; NULL for none. */
    size_t (*work)(const PeConfig *pc, size_t T, size_t HS, size_t NH);
    /* Adds the scheme's part to hd->out (vectors of the offset weighted by
     * hd->att), and its backward: into datt and dparams from dout. */
    void (*mix)(const PeHead *hd);
    void (*mix_backward)(const PeHead *hd);

    /* Puts the table (n floats) back within the scheme's constraints after
     * an optimizer step, as the paper's code does before every forward
     * pass (KERPLE's r > 0); NULL when any value goes. */
    void (*constrain)(const PeConfig *pc, float *params, size_t n);

    /* A scheme whose scores take a factor of the positions that grows with
     * their distance (xpos's scale): what that factor comes to, at most, in
     * a sentence whose positions span `span` (the largest minus the
     * smallest, as prepare gets them) for heads of HS channels, and what
     * keeps it within 10^share (pe_check_span, pe_gain_cause); NULL when the
     * scores take no such factor. */
    void (*score_gain)(PeGain *g, const PeConfig *pc, size_t HS, size_t span, double share);

    /* -- the same in double, for the reference model of the tests -- */
    /* Row t of a sentence at positions pos[0..T) (the positions prepare
     * gets, so that a scheme that reads more than the row's own position,
     * xpos's centre, reads the same here), turned in place as which says. */
    void (*ref_rotate)(const PeConfig *pc, double *x, size_t HS, const size_t *pos, size_t T,
                       size_t t, PeOperand which);
    /* What the scheme adds to the score of query i and key j (after
     * q.k / sqrt(HS)), and to value j as query i reads it (HS values). */
    double (*ref_score)(const PeRefRow *r);
    void (*ref_value)(const PeRefRow *r, double *v);

    /* For pictures: what channel c is, e.g. "sin, i = 3" (NULL: its
     * number only), and what the channel axis shows (NULL: "channel"). */
    void (*channel_name)(char *buf, size_t cap, const PeConfig *pc, size_t w, size_t c);
    const char *(*channel_axis)(const PeConfig *pc);
} PeScheme;

/* A scheme resolved against a model's shape. */
typedef struct {
    const PeScheme *scheme;
    Combine combine;      /* never COMBINE_DEFAULT */
    size_t w;             /* channels of P; 0 for none and the attention schemes */
    size_t E;             /* channels of the token embedding: C - w under concat, else C */
    size_t rows, cols;    /* the parameter table, 0 x 0 if none */
    size_t max_positions; /* positions 0..max_positions-1 exist: the rows of a learned
                           * table, SIZE_MAX for a formula */
    size_t n_heads;       /* NH of the model */
    size_t head_size;     /* HS = C / NH: what an attention scheme acts on */
} PePlan;

size_t pe_count(void);
const PeScheme *pe_at(size_t i);
/* NULL if no scheme has that name. */
const PeScheme *pe_find(const char *name);
/* "none, integer, ..." for messages. */
const char *pe_names(void);

const char *combine_name(Combine c);

/* Scheme name, and no option given: every option at its default. */
void pe_config_default(PeConfig *pc, const char *name);

/* Checks pc against a model of C channels and NH heads (NH divides C)
 * accepting max_len positions, and works out the channel split and the
 * parameter table. Fails with ERR_INPUT (and what to change) on an unknown
 * scheme, a width that leaves the embedding no channels, or a combine
 * mode given to a scheme that adds nothing to the input. */
int pe_plan(PePlan *plan, const PeConfig *pc, size_t C, size_t NH, size_t max_len, Err *e);

/* How the plan's scheme meets the model, for messages: "add", "concat",
 * "inside attention", or "nothing added" (none). */
const char *pe_meets(const PePlan *plan);

/* The registry's first scheme that reads o, and its first with options a
 * trained model may change (PeOption.tunable: its long-context scalings):
 * what a program that shows or changes those options picks, not by name.
 * NULL if none. */
const PeScheme *pe_reader_of(const PeOption *o);
const PeScheme *pe_tunable_scheme(void);

/* pc's scheme's fill_run, if it has one: the options a run decides,
 * from the longest training sentence. */
void pe_fill_run(PeConfig *pc, size_t trained_len);

/* Whether scheme s reads option o when its code meets the embedding by
 * combine (COMBINE_DEFAULT: its own): its own options, --pe-dim only
 * under concat for a scheme that has a width, and --combine for every
 * scheme that adds a code to the input. */
bool pe_reads(const PeScheme *s, Combine combine, const PeOption *o);
/* The rule for the scheme options the programs and the web page apply:
 * an option given in pc that none of the schemes names[0..n) reads is
 * ERR_INPUT, naming it and the schemes that do read it ("--buckets does
 * nothing for the rope scheme, which does not read it; drop it or choose
 * a scheme that does (t5)"). Each scheme then takes the options it reads
 * (pe_config_for). */
int pe_check_read(const PeConfig *pc, const char *const *names, size_t n, Err *e);
/* The first option given in pc that the plan's scheme does not read, or
 * NULL. */
const PeOption *pe_unused_option(const PePlan *plan, const PeConfig *pc);
/* pc for scheme s: its name, and the options s does not read taken back;
 * for programs that run a list of schemes with one set of options, each
 * scheme taking the ones it reads. */
PeConfig pe_config_for(const PeConfig *pc, const PeScheme *s);
/* The combine mode pc gives (COMBINE_DEFAULT: none given). */
Combine pe_combine_given(const PeConfig *pc);

/* True for the schemes that act inside attention (a rotation of q and k,
 * a term of the scores, or vectors mixed into the output). */
bool pe_in_attention(const PeScheme *s);
/* True for the schemes that add a code to the input (w > 0 at some width). */
bool pe_in_input(const PeScheme *s);

/* P (T,w): the code of positions 0..T-1 of a sentence of n tokens (n <= T;
 * only the length-dependent schemes look at n), from the scheme's formula
 * or from its table params (NULL when it has none). Nothing for w = 0. */
void pe_fill(float *P, const PePlan *plan, const PeConfig *pc, const float *params, size_t T,
             size_t n);
/* P (T,w) at the positions pos[0..T) instead: row t is position pos[t]
 * (each below plan->max_positions). */
void pe_fill_at(float *P, const PePlan *plan, const PeConfig *pc, const float *params,
                const size_t *pos, size_t T, size_t n);

/* A scheme's factor of the positions (PeScheme.score_gain) against
 * float32, whose largest number is 3.4e38 = 10^PE_FLOAT_LOG10. A score is
 * that factor times q.k: a factor past float's range overflows the
 * scores of the two tokens farthest apart whatever the weights, and one
 * past half of it (10^PE_GAIN_SHARE) is the larger part of any overflow
 * (q.k would need the other half). The advice keeps it within that half. */
#define PE_FLOAT_LOG10 38.5318394 /* log10(FLT_MAX) */
#define PE_GAIN_SHARE (PE_FLOAT_LOG10 / 2)
/* ERR_INPUT, before any harm, when the factor of positions lo..hi (lo <=
 * hi) is past float's range: the message names the factor, where the
 * positions are (where, e.g. "sentence 1 (90 tokens) at positions
 * 0..89"), and what to change (the scheme's option, or a narrower span).
 * 0 for the schemes without score_gain. */
int pe_check_span(const PePlan *plan, const PeConfig *pc, size_t lo, size_t hi, const char *where,
                  Err *e);
/* The same words for a pass that overflowed with the factor of lo..hi
 * past half of float's range (above 10^PE_GAIN_SHARE): the factor's
 * doing, more than q.k's. Into buf (cap bytes), a clause that
 * ends with what to change; "" when the factor stays within that half. */
void pe_gain_cause(char *buf, size_t cap, const PePlan *plan, const PeConfig *pc, size_t lo,
                   size_t hi, const char *where);

/* Floats of an attention scheme's scratch for one sentence of T tokens
 * (0 for the other schemes). */
size_t pe_scratch(const PePlan *plan, const PeConfig *pc, size_t T);
/* Floats of an attention scheme's per-head workspace for sentences of T
 * tokens (PeScheme.work; 0 for none). */
size_t pe_work(const PePlan *plan, const PeConfig *pc, size_t T);
/* The scratch and prepare of the schemes that read the positions alone
 * (alibi, a learned bias of the offset): each token's position, as a
 * float (exact below 2^24). */
size_t pe_positions_scratch(const PeConfig *pc, size_t T, size_t HS);
void pe_positions_prepare(float *P, const PeConfig *pc, const size_t *pos, size_t T, size_t HS);

/* Puts P (n,w) into the first n rows of x (rows of C channels), by the
 * plan's combine mode. */
void pe_combine(float *x, const float *P, size_t n, size_t w, size_t C, Combine combine);
/* Its backward: dP (n,w) += the part of dx (n,C) that reached P. */
void pe_combine_backward(float *dP, const float *dx, size_t n, size_t w, size_t C,
                         Combine combine);

/* Width of the schemes as wide as the model (sinusoidal, learned): C under
 * add; under concat --pe-dim, or C/2 when it is not given. */
size_t pe_wide_width(const PeConfig *pc, size_t C, Combine combine);

#endif
