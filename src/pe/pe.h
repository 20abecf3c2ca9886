/* The positional-encoding family behind one interface.
 *
 * An input scheme turns positions into a matrix P (T,w) that meets the
 * token embeddings in one of two ways:
 *   concat  the embedding fills the first C - w channels and P the last w;
 *   add     P is added to the embedding. A scheme narrower than the model
 *           (w < C) is tiled across the channels: channel c gets P[c % w],
 *           so a one-channel scheme adds the same number to every channel.
 * Attention schemes (RoPE, ALiBi, T5) act inside attention through an
 * AttnHook (attention.h); any scheme may own parameters.
 *
 * Positions: the naive schemes of the notes (integer, normalized, sine,
 * sincos) count from 1, as the notes do ("Rohan" is word 1 of 4); the
 * sinusoid of the paper and the learned table count from 0. */
#ifndef POSENC_PE_H
#define POSENC_PE_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/err.h"
#include "../model/rng.h"

typedef enum { COMBINE_DEFAULT = 0, COMBINE_ADD = 1, COMBINE_CONCAT = 2 } Combine;

/* Channel order of the sinusoid: sin/cos interleaved as in the paper, or all
 * sines then all cosines as in tensor2tensor (the same channels, permuted). */
typedef enum { LAYOUT_INTERLEAVED = 0, LAYOUT_SPLIT = 1 } SinLayout;

#define PE_NAME_MAX 24

/* What the user chose; a checkpoint stores it as it is. */
typedef struct {
    char name[PE_NAME_MAX]; /* scheme, e.g. "sinusoidal" */
    Combine combine;        /* COMBINE_DEFAULT picks the scheme's own */
    size_t width;           /* channels under concat for the wide schemes, e.g. 32; 0 = C/2 */
    size_t pairs;           /* sincos: K pairs sin(p/k), cos(p/k), k = 1..K; 0 = 1 */
    SinLayout layout;       /* sinusoid channel order */
    double base;            /* sinusoid wavelength base; 0 = 10000, the paper's */
} PeConfig;

typedef struct PeScheme {
    const char *name;
    const char *about;       /* one line, for --help and the demo */
    Combine default_combine; /* concat for the one-channel counts, add for the wide ones */
    size_t first_position;   /* the number of the first word: 1 for the notes' counts, 0 for
                              * the paper's sinusoid and the learned table */
    bool length_dependent;   /* P depends on the sentence length (pos/N) */
    /* Channels P has, given the model width C and the resolved combine mode. */
    size_t (*width)(const PeConfig *pc, size_t C, Combine combine);
    /* Rows of the parameter table (each w wide) for a model accepting
     * max_len positions; NULL when the scheme has no parameters. The table
     * also bounds the positions: position max_len does not exist. */
    size_t (*param_rows)(size_t max_len);
    /* Draws the initial parameters, n floats. */
    void (*init)(float *params, size_t n, Rng *rng);
    /* P (T,w): the code of positions 0..T-1 of a sentence with n real
     * tokens (n <= T). params is the table, or NULL when there is none. */
    void (*fill)(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                 size_t w);
} PeScheme;

/* A scheme resolved against a model width. */
typedef struct {
    const PeScheme *scheme;
    Combine combine; /* never COMBINE_DEFAULT */
    size_t w;        /* channels of P */
    size_t E;        /* channels of the token embedding: C - w under concat, else C */
    size_t rows;     /* rows of the parameter table, 0 if none */
} PePlan;

size_t pe_count(void);
const PeScheme *pe_at(size_t i);
/* NULL if no scheme has that name. */
const PeScheme *pe_find(const char *name);
/* "none, integer, ..." for messages. */
const char *pe_names(void);

const char *combine_name(Combine c);
/* Parses "add" or "concat"; returns 0 or ERR_INPUT. */
int combine_parse(const char *s, Combine *out, Err *e);

/* The defaults: scheme name, combine by the scheme, paper's base. */
void pe_config_default(PeConfig *pc, const char *name);

/* Checks pc against the model width C and works out the channel split.
 * Fails with ERR_INPUT (and what to change) on an unknown scheme or a
 * width that leaves the embedding no channels. */
int pe_plan(PePlan *plan, const PeConfig *pc, size_t C, size_t max_len, Err *e);

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

/* P (T,d) of the sinusoid for positions first..first+T-1, computed in
 * double and rounded once to float: rounding the angle first would cost two
 * orders of magnitude in the rotation property (measured 1.2e-7
 * against 5e-5; docs/architecture.md). */
void sinusoid_table(float *P, size_t first, size_t T, size_t d, SinLayout layout, double base);

#endif
