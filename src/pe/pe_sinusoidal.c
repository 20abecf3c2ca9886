/* The sinusoid of "Attention Is All You Need", section 3.5. */
#include <math.h>

#include "pe.h"

static double base_of(double base) { return base > 0.0 ? base : 10000.0; }

double sinusoid_value(double pos, size_t channel, size_t d, SinLayout layout, double base) {
    size_t i;   /* frequency index */
    int is_cos;
    if (layout == LAYOUT_INTERLEAVED) {
        i = channel / 2;
        is_cos = (int)(channel % 2);
    } else {
        size_t n_sin = (d + 1) / 2; /* an odd d has one more sine than cosines */
        is_cos = channel >= n_sin;
        i = is_cos ? channel - n_sin : channel;
    }
    /* The exponent 2i/d as in the paper: 2i is the even channel index, not
     * i (a known bug in published code). */
    double angle = pos / pow(base_of(base), (double)(2 * i) / (double)d);
    return is_cos ? cos(angle) : sin(angle);
}

void sinusoid_table(float *P, size_t first, size_t T, size_t d, SinLayout layout, double base) {
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < d; c++)
            P[t * d + c] = (float)sinusoid_value((double)(first + t), c, d, layout, base);
}

/* Under add the sinusoid is as wide as the model; under concat it takes
 * pc->width channels (half the model by default) and is the sinusoid of
 * that width. */
size_t pe_wide_width(const PeConfig *pc, size_t C, Combine combine) {
    if (combine == COMBINE_ADD)
        return C;
    return pc->width ? pc->width : C / 2;
}

static void fill_sinusoidal(float *P, const PeConfig *pc, const float *params, size_t T,
                            size_t n, size_t w) {
    (void)params, (void)n;
    sinusoid_table(P, 0, T, w, pc->layout, pc->base);
}

const PeScheme pe_sinusoidal = {
    .name = "sinusoidal",
    .about = "sin/cos at d/2 wavelengths from 2pi to 10000*2pi (the paper, 3.5)",
    .default_combine = COMBINE_ADD,
    .width = pe_wide_width,
    .fill = fill_sinusoidal,
};
