/* RoPE's rotation, shared by the schemes that turn q and k pair by pair
 * (rope, and the rotary schemes built on it): the float rotation the hooks apply and the double one of
 * the reference model. Not part of the interface (pe.h): included by the
 * rotary schemes' files alone. */
#ifndef POSENC_PE_ROPE_H
#define POSENC_PE_ROPE_H

#include <stdbool.h>
#include <stddef.h>

/* Turns the pairs of x (T rows of HS at stride ld; pair i is (x_2i,
 * x_2i+1), or (x_i, x_i+HS/2) with split) by the table R (T,HS): per token
 * the HS/2 cosines, then the HS/2 sines, each already multiplied by the
 * pair's gain. With inverse, the transpose: the sines negated. */
void rope_turn(float *x, size_t ld, const float *R, size_t T, size_t HS, bool split,
               bool inverse);

/* The same in double, for one pair i of one row: turned by angle and
 * multiplied by gain. */
void rope_turn_pair_ref(double *x, size_t HS, bool split, size_t i, double angle, double gain);

#endif
