/* The pictures of build/pe_plot, one function per kind. Each makes a new
 * canvas sized to fit (free it with canvas_free) and fails with ERR_INPUT,
 * saying what to change, on options that cannot be drawn. */
#ifndef POSENC_FIGURES_H
#define POSENC_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../plot/canvas.h"
#include "../plot/chart.h"
#include "../text/vocab.h"

/* Most positions and channels a picture draws. */
#define FIG_MAX_POSITIONS 1024
#define FIG_MAX_CHANNELS 1024

/* The pictures of a scheme take it from a model's configuration c: its
 * scheme (c->pe), width (d_model), heads and seed (tables are drawn from
 * it, as a fresh model draws them). */

/* heatmap: the code P (T,w), positions down, channels across; for an
 * attention scheme, which has no code, the logit's position part S (T,T)
 * (src/pe/analysis.h). *cells (may be NULL) is where the cells are (see
 * heatmap_draw). */
int fig_heatmap(Canvas *out, Box *cells, const Config *c, size_t T, Err *e);

/* lines: the given channels of P over positions 0..T-1. */
int fig_lines(Canvas *out, const Config *c, const size_t *channels, size_t n_channels, size_t T,
              Err *e);

/* dots: S over T positions (X X^T, or an attention scheme's logits) beside
 * the row of S for position ref (counted as the scheme counts positions). */
int fig_dots(Canvas *out, Box *cells, const Config *c, size_t ref, size_t T, Err *e);

/* bits: the sign of the code (T,w), positions down, beside the bits of
 * each position, drawn as (-1)^bit: the fast channels flip like the low
 * bits of a counter, the slow ones like the high bits. *cells (may be
 * NULL) is where the code's cells are. */
int fig_bits(Canvas *out, Box *cells, const Config *c, size_t T, Err *e);

/* Line charts stacked top to bottom on a new canvas, those without series
 * left out, margin around them and gap between; areas[i] (if not NULL)
 * gets chart i's plot area. The layout of the pictures of several panels. */
#define FIG_MAX_PANELS 8
int fig_stack(Canvas *out, LineChart *charts, size_t n, int margin, int gap, Box *areas,
              Err *e);

/* naive: the notes' three failures: the count unbounded over T positions,
 * pos/N at lengths 2 and 4, and sin(pos) colliding over T positions. */
int fig_naive(Canvas *out, size_t T, Err *e);

/* attention: the weights of every head of layer `layer` of m for the
 * sentence (words looked up in v; unknown words become <unk>), four heads
 * to a row, queries down and keys across; about is a line saying which
 * model this is. The colours run from 0 to the largest weight rounded up
 * to a tenth; *cells (may be NULL) is where head 0's cells are. Heads past
 * the 16th are left out, and the title says so. */
int fig_attention(Canvas *out, Box *cells, const Model *m, const Vocab *v, const char *sentence,
                  size_t layer, const char *about, Err *e);

/* decay: RoPE's long-term decay, the bound of RoFormer's section 3.4.3
 * (src/pe/analysis_rope.h) at offsets 0..T-1, for a head of d_model /
 * heads channels at the scheme's base; c->pe must be rope. */
int fig_decay(Canvas *out, const Config *c, size_t T, Err *e);
/* wavelengths: RoPE's wavelength 2 pi / theta_i per pair of one head of c,
 * as trained and under c's --rope-scaling (or under linear, ntk and yarn
 * when it has none), at its --rope-factor (default 4), with the original
 * length L (--rope-original-len, default 4096, LLaMA 2's) and S L marked. */
int fig_wavelengths(Canvas *out, const Config *c, Err *e);

/* curves: loss and accuracy against step from n training logs (CSV, see
 * trainlog.h), one colour per log; labels[i] names log i (NULL: its file
 * name). Validation columns are dashed. */
int fig_curves(Canvas *out, const char *const *paths, const char *const *labels, size_t n,
               Err *e);

#endif
