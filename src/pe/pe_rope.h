/* RoPE's helpers (pe_rope.c), beside its scheme: its rotation, shared by
 * the schemes that turn q and k pair by pair (the float rotation the hooks
 * apply and the double one of the reference model), and its long-context
 * scalings, which the experiments' section 6, the export, the report and
 * the pictures read. Not the interface (pe.h). */
#ifndef POSENC_PE_ROPE_H
#define POSENC_PE_ROPE_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* Turns the pairs of x (T rows of HS at stride ld; pair i is (x_2i,
 * x_2i+1), or (x_i, x_i+HS/2) with split) by the table R (T,HS): per token
 * the HS/2 cosines, then the HS/2 sines, each already multiplied by the
 * pair's gain. With inverse, the transpose: the sines negated. */
void rope_turn(float *x, size_t ld, const float *R, size_t T, size_t HS, bool split,
               bool inverse);

/* ERR_INPUT unless each head of the shape has an even number of channels
 * (the pairs a rotation turns); name names the scheme in the message. */
int rope_check_pairs(const char *name, const PeShape *sh, Err *e);

/* The same in double, for one pair i of one row: turned by angle and
 * multiplied by gain. */
void rope_turn_pair_ref(double *x, size_t HS, bool split, size_t i, double angle, double gain);

/* RoPE's frequencies stretched for contexts past the training length (see
 * rope_inv_freq): none, position interpolation (Chen et al. 2023), the
 * static NTK-aware change of base, YaRN (Peng et al. 2023). */
typedef enum {
    ROPE_SCALING_NONE = 0,
    ROPE_SCALING_LINEAR = 1,
    ROPE_SCALING_NTK = 2,
    ROPE_SCALING_YARN = 3
} RopeScaling;

#define PE_YARN_BETA_FAST 32.0          /* YaRN's ramp, in rotations over the original */
#define PE_YARN_BETA_SLOW 1.0           /* length: the paper's and Hugging Face's defaults */

/* Rope's scaling options (pe_rope.c), which a trained model may change
 * (PeOption.tunable): --rope-scaling (a RopeScaling), --rope-factor S and
 * --rope-original-len L. */
extern const PeOption pe_opt_rope_scaling, pe_opt_rope_factor, pe_opt_rope_original_len;
/* "none", "linear", "ntk" or "yarn". */
const char *rope_scaling_name(RopeScaling r);
/* pc's scaling, and its factor S (1 without a scaling). */
RopeScaling rope_scaling_of(const PeConfig *pc);
double rope_factor_of(const PeConfig *pc);
/* Gives pc scaling r with factor S and, for yarn, original length L (the
 * options r does not read are taken back; none takes all three back). */
void rope_set_scaling(PeConfig *pc, RopeScaling r, double S, size_t L);

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

#endif
