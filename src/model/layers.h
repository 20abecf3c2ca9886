/* The layers of the encoder, each a function of plain arrays.
 *
 * Signature convention (llm.c's): outputs first, then values cached for the
 * backward pass, then inputs and weights, then the dimensions. The first
 * comment of each function gives the shapes. float32, row-major; B sentences
 * of T positions (padded), C channels; BT = B*T rows. */
#ifndef POSENC_LAYERS_H
#define POSENC_LAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { ACT_RELU = 0, ACT_GELU = 1 } Activation;

/* The LayerNorm epsilon of PyTorch's default, so fixtures made there agree. */
#define LAYERNORM_EPS 1e-5f

/* Each backward function differentiates the forward function above it.
 * Parameter gradients are always added (+=), so one zeroing clears a whole
 * step; a gradient with respect to an input is written (=) or, where the
 * flag says so, added to what the buffer holds (a residual branch). */

/* The sum of x[0..n), added in SUM_LANES interleaved lanes and then
 * across them: one running sum would make every addition wait for the
 * last, while lanes vectorize at -O3 (-ffast-math, which would let the
 * compiler reorder a sum itself, is not used). The order is fixed, so the
 * result is the same on every run. */
#define SUM_LANES 8
float sum_lanes(const float *x, size_t n);
/* The dot product of x and y[0..n), in the same lanes. */
float dot_lanes(const float *x, const float *y, size_t n);

/* Writes the token embeddings, times scale, into the first E of C channels
 * of each row; channels E..C-1 are left for a concatenated position code. */
void embedding_forward(float *out, const int *ids, const float *wte, size_t BT, size_t E,
                       size_t C, float scale);
/* dwte[ids[i]] += scale * dout[i, 0..E) */
void embedding_backward(float *dwte, const float *dout, const int *ids, size_t BT, size_t E,
                        size_t C, float scale);

/* out = res + inp W^T + b, the layout of torch.nn.Linear with a residual
 * res (BT,OC) added; res and b may be NULL. */
void linear_forward(float *out, const float *res, const float *inp, const float *w,
                    const float *b, size_t BT, size_t C, size_t OC);
/* dinp (=, or += with accumulate) dout W; dw += dout^T inp; db += column
 * sums of dout (db may be NULL). */
void linear_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                     const float *w, size_t BT, size_t C, size_t OC, bool accumulate);

/* Per-row LayerNorm with weight w and bias b; keeps mean and 1/std. */
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, size_t BT, size_t C);
void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                        const float *w, const float *mean, const float *rstd, size_t BT,
                        size_t C, bool accumulate);

/* Dropout at training time (Srivastava et al. 2014, scaled as PyTorch
 * scales it): each element is kept with probability 1 - p and then
 * multiplied by 1 / (1 - p), or set to 0. Whether element `index` of a
 * site (one place in the network, e.g. layer 1's attention weights) is
 * kept is a hash of (key, site, index): no state, so the backward draws
 * the same mask again, and the same whatever the threads or the
 * micro-batches (index counts over the whole batch). p = 0 keeps all. */
typedef struct {
    float p;      /* 0 <= p < 1 */
    uint64_t key; /* one per training step, from the run's seed */
} Dropout;
bool dropout_keep(const Dropout *d, size_t site, size_t index);
/* x[i] *= keep(first + i) / (1 - p) for i < n: the forward, and with the
 * same arguments the backward on the gradient. */
void dropout_apply(float *x, size_t n, const Dropout *d, size_t site, size_t first);

/* out = act(inp) elementwise; GELU is the exact erf form (PyTorch's default). */
void activation_forward(float *out, const float *inp, size_t n, Activation act);
/* dinp = act'(inp) * dout; dinp may be dout. For ReLU inp may be the
 * activation's output as well as its input: both are > 0 at the same
 * elements. */
void activation_backward(float *dinp, const float *dout, const float *inp, size_t n,
                         Activation act);

/* Mean over the real tokens of each sentence: pooled[b] = mean_{t<lens[b]} x[b,t]. */
void meanpool_forward(float *pooled, const float *x, const size_t *lens, size_t B, size_t T,
                      size_t C);
/* The first row of each sentence, BERT's [CLS]: pooled[b] = x[b,0]. */
void clspool_forward(float *pooled, const float *x, size_t B, size_t T, size_t C);
/* dx = dpooled[b] on each sentence's first row, 0 elsewhere */
void clspool_backward(float *dx, const float *dpooled, size_t B, size_t T, size_t C);
/* dx = dpooled[b] / lens[b] on real tokens, 0 on padding */
void meanpool_backward(float *dx, const float *dpooled, const size_t *lens, size_t B, size_t T,
                       size_t C);

/* Softmax cross-entropy over K classes for N rows, fused with its
 * gradient, on the labels of core/label.h: a row of class k >= 0 is in
 * the loss and scored, one of label_unscored(k) in the loss alone, one of
 * -1 ignored (padding). Returns the mean loss over the rows in the loss
 * and, if dlogits is not NULL, writes dlogits = (softmax - onehot) / (rows
 * in the loss) (0 on ignored rows). Counts the scored rows (labelled) and
 * those whose largest logit is the label. Without label_unscored rows both
 * counts are the same rows. */
float softmax_xent(float *dlogits, size_t *correct, size_t *labelled, const float *logits,
                   const int *labels, size_t N, size_t K);
/* The rows of N labels in the loss, and the scored ones in *scored (may be
 * NULL): the two counts softmax_xent divides and reports by. */
size_t xent_rows_in_loss(const int *labels, size_t N, size_t *scored);
/* The rows of softmax_xent, for a batch split into parts: adds the
 * losses of the rows in the loss to *loss and the scored rows' correct
 * predictions to *correct, and writes dlogits with the whole batch's
 * 1/(rows in the loss), inv_n. */
void softmax_xent_rows(float *dlogits, size_t *correct, double *loss, const float *logits,
                       const int *labels, size_t N, size_t K, float inv_n);

#endif
