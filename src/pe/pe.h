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

typedef enum { COMBINE_DEFAULT = 0, COMBINE_ADD = 1, COMBINE_CONCAT = 2 } Combine;

/* Channel order of the sinusoid: sin/cos interleaved as in the paper, or all
 * sines then all cosines as in tensor2tensor (the same channels, permuted).
 * For RoPE, the pairs rotated together: (x_2i, x_2i+1) as in the paper, or
 * (x_i, x_i+d/2) as in GPT-NeoX and LLaMA's code. */
typedef enum { LAYOUT_INTERLEAVED = 0, LAYOUT_SPLIT = 1 } SinLayout;

/* RoPE's frequencies stretched for contexts past the training length (see
 * rope_inv_freq): none, position interpolation (Chen et al. 2023), the
 * static NTK-aware change of base, YaRN (Peng et al. 2023). */
typedef enum {
    ROPE_SCALING_NONE = 0,
    ROPE_SCALING_LINEAR = 1,
    ROPE_SCALING_NTK = 2,
    ROPE_SCALING_YARN = 3
} RopeScaling;

/* ALiBi's slopes: the same to the left and to the right of the query, or
 * different (see alibi_slope_side). */
typedef enum { ALIBI_SYMMETRIC = 0, ALIBI_ASYMMETRIC = 1 } AlibiSlopes;

#define PE_NAME_MAX 24

/* The defaults a 0 in PeConfig stands for. */
#define PE_DEFAULT_BASE 10000.0         /* the paper's wavelength base */
#define PE_DEFAULT_BUCKETS 32           /* T5's */
#define PE_DEFAULT_MAX_DISTANCE 128     /* T5's */
#define PE_DEFAULT_MAX_RELATIVE 16      /* Shaw et al.'s clipping distance k */
#define PE_MAX_RELATIVE_MAX 4096        /* --max-relative's range: 1 to this */
#define PE_BASE_MIN 1.000001            /* --base's range, both ends included */
#define PE_BASE_MAX 1e12
#define PE_MAX_WIDTH 32768              /* the model's MAX_DIM (model.h; pe is below it) */
#define PE_DEFAULT_INIT_STD 0.02        /* BERT's and GPT-2's */
#define PE_INIT_STD_MIN 1e-6            /* --pe-init-std's range, for the command */
#define PE_INIT_STD_MAX 100.0           /* line and the checkpoint loader alike */
#define PE_ROPE_FACTOR_MAX 1024.0       /* --rope-factor's range: 1 to this */
#define PE_YARN_BETA_FAST 32.0          /* YaRN's ramp, in rotations over the original */
#define PE_YARN_BETA_SLOW 1.0           /* length: the paper's and Hugging Face's defaults */

/* What the user chose; a checkpoint stores it as it is. 0 in a field means
 * the scheme's default. */
typedef struct {
    char name[PE_NAME_MAX]; /* scheme, e.g. "sinusoidal" */
    Combine combine;        /* COMBINE_DEFAULT picks the scheme's own */
    size_t width;           /* channels under concat for the wide schemes, e.g. 32; 0 = C/2 */
    size_t pairs;           /* sincos: K pairs sin(p/k), cos(p/k), k = 1..K; 0 = 1 */
    SinLayout layout;       /* sinusoid channel order, RoPE's pairing */
    double base;            /* sinusoid and RoPE wavelength base; 0 = 10000, the paper's */
    size_t buckets;         /* t5: buckets of the signed offset, e.g. 32 (0) */
    size_t max_distance;    /* t5: offsets this far or farther share the last bucket, e.g. 128 (0) */
    double init_std;        /* learned: std of the table's first draw; 0 = 0.02 (BERT's) */
    RopeScaling rope_scaling; /* rope: how its frequencies are stretched */
    double rope_factor;       /* rope: the stretch S >= 1 of a scaling; 0 = none given */
    size_t rope_original_len; /* rope under yarn: the training length L its ramp counts
                               * rotations over; 0 = not given (train fills in the task's) */
    size_t max_relative;      /* shaw: offsets clipped to [-k, k]; 0 = 16 (the paper's) */
    AlibiSlopes alibi_slopes; /* alibi: symmetric (the default) or asymmetric */
} PeConfig;

/* The options of PeConfig a scheme reads (PeScheme.reads). */
enum {
    PE_READS_WIDTH = 1,    /* --pe-dim, under concat */
    PE_READS_PAIRS = 2,    /* --pairs */
    PE_READS_LAYOUT = 4,   /* --layout */
    PE_READS_BASE = 8,     /* --base */
    PE_READS_BUCKETS = 16, /* --buckets, --max-distance */
    PE_READS_INIT = 32,    /* --pe-init-std */
    PE_READS_SCALING = 64, /* --rope-scaling, --rope-factor, --rope-original-len */
    PE_READS_RELATIVE = 128, /* --max-relative */
    PE_READS_SLOPES = 256,   /* --alibi-slopes */
};

typedef struct PeScheme {
    const char *name;
    unsigned reads;          /* the PE_READS_ options it uses */
    const char *about;       /* one line, for --help and the demo */
    const char *note;        /* what the demo adds about an untrained model, or NULL */
    Combine default_combine; /* concat for the one-channel counts, add for the wide ones */
    size_t first_position;   /* the number of the first word: 1 for the notes' counts, 0 for
                              * the others */
    bool length_dependent;   /* P depends on the sentence length (pos/N) */
    /* Channels P has, given the model width C and the resolved combine
     * mode; NULL for a scheme that adds nothing to the input. */
    size_t (*width)(const PeConfig *pc, size_t C, Combine combine);
    /* Checks the scheme's own options against the model (C channels, NH
     * heads); NULL when anything goes. */
    int (*check)(const PeConfig *pc, size_t C, size_t NH, Err *e);

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
    /* Draws the initial table, n floats, for a model of C channels. */
    void (*init)(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng);

    /* -- an attention scheme: each head of each layer, after q k^T / sqrt(HS) -- */
    /* Floats it keeps per sentence of T tokens (head size HS), written once
     * per forward pass by prepare from the tokens' positions pos[0..T)
     * (RoPE's cos and sin, T5's buckets) and read by the functions below. */
    size_t (*scratch)(size_t T, size_t HS);
    void (*prepare)(float *scratch, const PeConfig *pc, const size_t *pos, size_t T,
                    size_t HS);
    /* Rotates x (T rows of HS, row stride ld; q or k of one head) in
     * place; inverse applies the transpose, for the backward pass. */
    void (*rotate)(const PeConfig *pc, float *x, size_t ld, const float *scratch, size_t T,
                   size_t HS, bool inverse);
    /* Adds to the scores (T,T) of head h of NH the bias between query i
     * and key j; params is the scheme's table or NULL. */
    void (*bias)(const PeConfig *pc, const float *params, float *scores, const float *scratch,
                 size_t T, size_t h, size_t NH);
    /* Its backward: dparams += what dscores (T,T) says of each entry used. */
    void (*bias_backward)(const PeConfig *pc, float *dparams, const float *dscores,
                          const float *scratch, size_t T, size_t h, size_t NH);
    /* Shaw et al.: a vector aK of the clipped offset j - i added to key j
     * as query i sees it, and aV to value j, from one table (params) that
     * every head and layer shares. key_scores adds scale * q_i . aK(i,j)
     * to scores (T,T), q's rows at stride ld; value_mix adds
     * sum_j att_ij aV(i,j) to out's row i (stride ld). */
    void (*key_scores)(const PeConfig *pc, const float *params, float *scores, const float *q,
                       size_t ld, const float *scratch, size_t T, size_t HS, float scale);
    void (*value_mix)(const PeConfig *pc, const float *params, float *out, size_t ld,
                      const float *att, const float *scratch, size_t T, size_t HS);
    /* Their backwards: dq_i += scale sum_j ds_ij aK(i,j), with aK's rows
     * of dparams += scale ds_ij q_i; datt_ij += dout_i . aV(i,j), with
     * aV's rows += att_ij dout_i. */
    void (*key_scores_backward)(const PeConfig *pc, const float *params, float *dparams,
                                float *dq, const float *ds, const float *q, size_t ld,
                                const float *scratch, size_t T, size_t HS, float scale);
    void (*value_mix_backward)(const PeConfig *pc, const float *params, float *dparams,
                               float *datt, const float *dout, size_t ld, const float *att,
                               const float *scratch, size_t T, size_t HS);

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

/* The defaults: scheme name, combine by the scheme, paper's base. */
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

/* The options of PeConfig as the command line spells them, one row each in
 * pe.c's table (its flag, field, type, range and default) and one bit each
 * in the masks below: what a user gave, and what a scheme reads. The one
 * table behind the command line's parsing of these options, the
 * checkpoint's (which stores them by name, as text), the programs' rule
 * that an option no chosen scheme reads is refused, and the reference's
 * table of options. */
enum {
    PE_OPT_COMBINE,
    PE_OPT_WIDTH,
    PE_OPT_PAIRS,
    PE_OPT_LAYOUT,
    PE_OPT_BASE,
    PE_OPT_BUCKETS,
    PE_OPT_MAX_DISTANCE,
    PE_OPT_INIT_STD,
    PE_OPT_ROPE_SCALING,
    PE_OPT_ROPE_FACTOR,
    PE_OPT_ROPE_ORIGINAL_LEN,
    PE_OPT_MAX_RELATIVE,
    PE_OPT_ALIBI_SLOPES,
    PE_OPT_COUNT
};
/* "--pairs" for PE_OPT_PAIRS; NULL past the last. */
const char *pe_option_name(size_t opt);
/* The option named name, with or without its dashes ("pairs", "--pairs"),
 * or PE_OPT_COUNT. */
size_t pe_option_find(const char *name);
/* Sets option opt of pc from its command-line text: the whole text, in the
 * option's range (both ends included), or ERR_INPUT with a message that
 * names the option, states the range applied and quotes the text. The
 * command line and the checkpoint loader both parse this way. */
int pe_option_set(PeConfig *pc, size_t opt, const char *text, Err *e);
/* Option opt of pc as the command line writes it ("split", "10000", "0.1":
 * a number in the shortest text that reads back as the same double);
 * pe_option_set of that text gives pc's value back exactly. */
void pe_option_text(const PeConfig *pc, size_t opt, char *buf, size_t cap);
/* x as %g writes it, with more digits where its 6 do not read back as x
 * exactly (as float, with single): how options' numbers and their bounds
 * are written, so that a message states the bound that is applied
 * ("1.000001", where %g says 1) and a checkpoint's value reads back as
 * it was. */
void pe_real_text(char *buf, size_t cap, double x, bool single);
/* The options set in pc (not 0, not the default). */
unsigned pe_options_given(const PeConfig *pc);
/* The options scheme s reads when its code meets the embedding by combine
 * (COMBINE_DEFAULT: its own): --pe-dim only under concat, --combine only
 * for a scheme that adds a code to the input. */
unsigned pe_options_read(const PeScheme *s, Combine combine);
/* The first option set in pc that the plan's scheme does not read, as the
 * command line spells it ("--pairs"), or NULL. */
const char *pe_unused_option(const PePlan *plan, const PeConfig *pc);
/* pc for scheme s: its name, and the options s does not read back to
 * their defaults; for programs that run a list of schemes with one set of
 * options, each scheme taking the ones it reads. */
PeConfig pe_config_for(const PeConfig *pc, const PeScheme *s);

/* True for the schemes that act inside attention (rotate, bias or key
 * and value vectors). */
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

/* Floats of an attention scheme's scratch for one sentence of T tokens
 * (0 for the other schemes). */
size_t pe_scratch(const PePlan *plan, size_t T);

/* Puts P (n,w) into the first n rows of x (rows of C channels), by the
 * plan's combine mode. */
void pe_combine(float *x, const float *P, size_t n, size_t w, size_t C, Combine combine);
/* Its backward: dP (n,w) += the part of dx (n,C) that reached P. */
void pe_combine_backward(float *dP, const float *dx, size_t n, size_t w, size_t C,
                         Combine combine);

/* Width of the schemes as wide as the model (sinusoidal, learned): C under
 * add; under concat pc->width, or C/2 when that is 0. */
size_t pe_wide_width(const PeConfig *pc, size_t C, Combine combine);

/* The sinusoid of section 3.5 for one position and channel, in double:
 * channel 2i is sin(pos / base^(2i/d)) and 2i+1 the cos (interleaved), or
 * channel i < ceil(d/2) is the sin of frequency i and ceil(d/2)+i the cos
 * (split). An odd d ends with the sin of frequency (d-1)/2. */
double sinusoid_value(double pos, size_t channel, size_t d, SinLayout layout, double base);

/* P (T,d) of the sinusoid for positions first..first+T-1: pe_fill of the
 * sinusoidal scheme, for the tests and the report. */
void sinusoid_table(float *P, size_t first, size_t T, size_t d, SinLayout layout, double base);

/* The wavelength base of pc: its base, or the paper's 10000. */
double pe_base(const PeConfig *pc);
/* A wavelength base the schemes take: finite, from PE_BASE_MIN to
 * PE_BASE_MAX (at 1 every channel has one wavelength; within 1e-6 of it
 * float32 cannot tell them apart); --base's range. */
bool pe_base_ok(double base);

/* pc with every 0 that stands for a default replaced by the default. */
PeConfig pe_resolved(const PeConfig *pc);

/* ALiBi's slope m_h of head h (0-based) of NH: Press et al.'s geometric
 * sequence 2^(-8(h+1)/NH) for a power of two; otherwise the slopes of the
 * largest power of two below NH, then every other slope of twice that. */
double alibi_slope(size_t h, size_t NH);
/* The slope head h of NH applies to keys on one side of the query: m_h on
 * both sides when symmetric; when asymmetric, m_h to the left (the paper's
 * causal bias) and to the right the slope of the head at the other end of
 * the list, m_(NH-1-h), so that every head but the middle one of an odd
 * NH weighs the two sides differently and a sentence differs from its
 * reverse. */
double alibi_slope_side(const PeConfig *pc, size_t h, size_t NH, bool right);
/* "symmetric" or "asymmetric"; the parse returns 0 or ERR_INPUT. */
const char *alibi_slopes_name(AlibiSlopes a);
int alibi_slopes_parse(const char *s, AlibiSlopes *out, Err *e);

/* "none", "linear", "ntk" or "yarn". */
const char *rope_scaling_name(RopeScaling r);
/* Parses one of those names; returns 0 or ERR_INPUT. */
int rope_scaling_parse(const char *s, RopeScaling *out, Err *e);

/* RoPE's inverse frequencies theta_i, i < HS/2, for a head of HS channels
 * under pc's scaling (the base, factor S and original length L of pc), in
 * double, as Hugging Face transformers' modeling_rope_utils computes them:
 *   none    theta_i = base^(-2i/HS)
 *   linear  theta_i / S: positions divided by S (position interpolation)
 *   ntk     base' = base * S^(HS/(HS-2)) in place of base (static NTK-aware)
 *   yarn    theta_i / S for the pairs that turn fewer than beta_slow = 1
 *           times over L, theta_i for those that turn more than beta_fast =
 *           32 times, a linear ramp between (_compute_yarn_parameters)
 * Returns the factor cos and sin are multiplied by, so that q.k is scaled
 * by its square: 0.1 ln S + 1 under yarn, 1 otherwise. */
double rope_inv_freq(const PeConfig *pc, size_t HS, double *theta);

/* T5's bucket of the signed offset key - query (bidirectional): offsets
 * to the right take the upper half of the buckets; within each half,
 * distances below half of it are exact and the rest are log-spaced up to
 * max_distance, from where on all share the last bucket. */
size_t t5_bucket(long offset, size_t buckets, size_t max_distance);

/* Shaw et al.'s index of the offset key - query clipped to [-k, k]: the
 * row 0..2k of its key (and value) table, k + offset inside the window. */
size_t shaw_row(long offset, size_t k);

#endif
