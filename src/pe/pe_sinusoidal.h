/* The sinusoid's helpers (pe_sinusoidal.c), beside its scheme: its
 * formula, its layout and wavelength base, which rope, xpos, xl and the
 * analysis read too. Not the interface (pe.h): included where the
 * sinusoid itself is meant. */
#ifndef POSENC_PE_SINUSOIDAL_H
#define POSENC_PE_SINUSOIDAL_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* Channel order of the sinusoid: sin/cos interleaved as in the paper, or all
 * sines then all cosines as in tensor2tensor (the same channels, permuted).
 * For RoPE, the pairs rotated together: (x_2i, x_2i+1) as in the paper, or
 * (x_i, x_i+d/2) as in GPT-NeoX and LLaMA's code. */
typedef enum { LAYOUT_INTERLEAVED = 0, LAYOUT_SPLIT = 1 } SinLayout;

/* Ranges and defaults the schemes' options and checks share. */
#define PE_DEFAULT_BASE 10000.0         /* the paper's wavelength base */
#define PE_BASE_MIN 1.000001            /* --base's range, both ends included */
#define PE_BASE_MAX 1e12


/* The sinusoid's, which rope reads too (pe_sinusoidal.c): its layout (a
 * SinLayout) and wavelength base. */
extern const PeOption pe_opt_layout, pe_opt_base;

/* The sinusoid of section 3.5 for one position and channel, in double:
 * channel 2i is sin(pos / base^(2i/d)) and 2i+1 the cos (interleaved), or
 * channel i < ceil(d/2) is the sin of frequency i and ceil(d/2)+i the cos
 * (split). An odd d ends with the sin of frequency (d-1)/2. */
double sinusoid_value(double pos, size_t channel, size_t d, SinLayout layout, double base);

/* P (T,d) of the sinusoid for positions first..first+T-1: pe_fill of the
 * sinusoidal scheme, for the tests and the report. */
void sinusoid_table(float *P, size_t first, size_t T, size_t d, SinLayout layout, double base);

/* The wavelength base of pc (--base, or the paper's 10000) and the
 * sinusoid's layout (--layout): what the sinusoid and rope read. */
double pe_base(const PeConfig *pc);
SinLayout pe_layout(const PeConfig *pc);
/* A wavelength base the schemes take: finite, from PE_BASE_MIN to
 * PE_BASE_MAX (at 1 every channel has one wavelength; within 1e-6 of it
 * float32 cannot tell them apart); --base's range. */
bool pe_base_ok(double base);

#endif
