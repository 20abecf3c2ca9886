/* A second implementation of the encoder's forward pass, in double and
 * plain loops: the oracle for the float model and, through finite
 * differences accurate to about 1e-9, for its backward pass. */
#ifndef POSENC_REF_MODEL_H
#define POSENC_REF_MODEL_H

#include "../src/model/encoder.h"

/* Runs m's architecture with the parameters P (m->n_params doubles, laid
 * out as m->mem) on ids (B,T) with lengths lens, the tokens at positions
 * pos (B,T), or 0..T-1 when pos is NULL. Writes hidden (B,T,C) when not
 * NULL; with a head and labels, returns the mean cross-entropy over
 * labelled slots (labels < 0 ignored), else 0. The attention schemes are
 * applied here in double (RoPE's rotation written out again); ALiBi's
 * slopes and T5's buckets come from src/pe, whose tests pin them to
 * hand-computed values. */
double ref_forward(const Model *m, const double *P, const int *ids, const size_t *lens,
                   const size_t *pos, const int *labels, size_t B, size_t T, double *hidden);

/* Dropout for the ref_forward calls that follow, with the model's masks
 * (encoder.h's sites and dropout_keep); p 0 (the start) turns it off. */
void ref_set_dropout(Dropout d);

/* A draw per layer for the ref_forward calls that follow, as
 * encoder_draw_layers makes it for the model's scheme (its ruoss_draw):
 * each layer's positions of 0..N-1 or distances of 1..N-1, draw (L,T),
 * which stands for the positions pos in every layer; NULL (the start)
 * turns it off. */
void ref_set_layer_draw(const size_t *draw, size_t N);

#endif
