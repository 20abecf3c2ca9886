/* The encoder's forward and backward passes over a Model (model.h).
 *
 *   ids (B,T) -> embedding (B,T,E) -> + position -> x (B,T,C)
 *     -> L x [ self-attention -> residual + LayerNorm -> FFN -> residual + LayerNorm ]
 *     -> hidden (B,T,C) -> mean over real tokens, or the first ([CLS]) (B,C)
 *     -> optional head
 *
 * Post-norm by default (the paper; torch.nn.TransformerEncoderLayer's
 * default): x = LN1(x + SA(x)); x = LN2(x + FFN(x)). Pre-norm as an option:
 * x = x + SA(LN1(x)); x = x + FFN(LN2(x)), with a final LayerNorm. */
#ifndef POSENC_ENCODER_H
#define POSENC_ENCODER_H

#include <stddef.h>

#include "../core/err.h"
#include "model.h"

/* Dropout (a->drop, set by a training step) acts at these sites, each
 * layer's numbered l * ENC_SITES_PER_LAYER + the kind; element i of a
 * site's tensor over the whole batch is kept or not by dropout_keep(d,
 * site, i): the attention weights (B,NH,T,T), the branches after
 * attention and after the FFN (B,T,C), the FFN's hidden layer (B,T,F), and
 * embedding + code (B,T,C) at ENC_SITE_EMBED. */
enum {
    ENC_SITE_ATT,
    ENC_SITE_ATT_OUT,
    ENC_SITE_FFN_HIDDEN,
    ENC_SITE_FFN_OUT,
    ENC_SITES_PER_LAYER
};
#define ENC_SITE_EMBED ((size_t)MAX_LAYERS * ENC_SITES_PER_LAYER)

/* Runs the model on B sentences padded to T (B <= a->B, T <= a->T): ids is
 * (B,T) with any valid id in padded slots, lens[b] the real tokens of
 * sentence b (1..T). Writes a->hidden, a->pooled and a->logits. Fails with
 * ERR_INPUT on an id out of range, a bad length, or a sentence longer than a
 * learned table. */
int encoder_forward(const Model *m, Acts *a, const int *ids, const size_t *lens, size_t B,
                    size_t T, Err *e);
/* The same with token t of sentence b at position pos[b,t] (B,T), each
 * below model_max_positions; training draws them at random to teach
 * positions past the training lengths (--random-positions). pos NULL
 * means 0..T-1, which is encoder_forward. The positions are kept in a->pos
 * for the backward pass. */
int encoder_forward_at(const Model *m, Acts *a, const int *ids, const size_t *lens,
                       const size_t *pos, size_t B, size_t T, Err *e);

/* Ruoss et al.'s randomized form (train --random-draw ruoss) for a scheme
 * that draws in every layer (its ruoss_draw, pe.h): each layer draws its
 * own sorted positions of 0..N-1, or its distances dist[1..T-1] sorted
 * from 1..N-1, one draw for the whole batch of T slots (T <= N), from rng.
 * The next forward pass of T slots uses them, and its backward; nothing
 * for the other schemes, whose positions are the pass's pos. */
void encoder_draw_layers(const Model *m, Acts *a, Rng *rng, size_t T, size_t N);

/* The loss of the model's head on the batch that encoder_forward just ran:
 * labels is (B) for a sentence head or (B,T) for a per-token head, as
 * core/label.h writes them (-1 to ignore a slot). Writes ga->dlogits for
 * encoder_backward and returns the mean cross-entropy over the slots in
 * the loss; counts the scored slots and their correct predictions
 * (softmax_xent). */
float encoder_loss(const Model *m, const Acts *a, GradActs *ga, const int *labels, size_t B,
                   size_t T, size_t *correct, size_t *labelled);

/* Adds the gradients of the loss with respect to every parameter into g
 * (laid out by params_carve), from ga->dlogits and the activations of the
 * forward pass on the same batch, which must fit one micro-batch of both
 * a and ga (ERR_INPUT otherwise). a->ffa (GELU's output, not kept per
 * layer) is scratch that it rewrites. */
int encoder_backward(const Model *m, Params *g, const Acts *a, GradActs *ga, const int *ids,
                     const size_t *lens, size_t B, size_t T, Err *e);

/* Forward, loss and backward of a batch in one call, micro-batch by
 * micro-batch (a->Bm sentences at a time; one micro-batch when a was made
 * by acts_create): adds every parameter's gradient into g and returns the
 * mean loss over the batch's slots in the loss, the scored slots and
 * their correct predictions (softmax_xent's counts). With one micro-batch the numbers are those of
 * encoder_forward_at, encoder_loss and encoder_backward; with more, the
 * weights' gradients are summed micro-batch by micro-batch, which rounds
 * differently. ga must hold a->Bm sentences and dlogits for B. */
int encoder_train_batch(const Model *m, Params *g, Acts *a, GradActs *ga, const int *ids,
                        const size_t *lens, const size_t *pos, const int *labels, size_t B,
                        size_t T, float *loss, size_t *correct, size_t *labelled, Err *e);

#endif
