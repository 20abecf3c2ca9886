/* The sinusoid of "Attention Is All You Need", section 3.5. */
#include <math.h>
#include <stdio.h>

#include "pe.h"
#include "pe_sinusoidal.h"

static const char *const LAYOUT_NAMES[] = {"interleaved", "split", NULL};

/* Rope reads these two as well: its pairs, and its wavelengths. */
const PeOption pe_opt_layout = {
    .flag = "--layout",
    .type = PE_VALUE_NAME,
    .names = LAYOUT_NAMES,
    .def = LAYOUT_INTERLEAVED,
    .def_text = "interleaved",
    .help = "sinusoid channel order, and rope's pairs: (2i, 2i+1) as in the paper, or (i, "
            "i+d/2) as in GPT-NeoX and LLaMA (default interleaved)",
    .example = "split",
};

const PeOption pe_opt_base = {
    .flag = "--base",
    .arg = "B",
    .type = PE_VALUE_REAL,
    .lo = PE_BASE_MIN,
    .hi = PE_BASE_MAX,
    .def = PE_DEFAULT_BASE,
    .def_text = "10000",
    .help = "sinusoid and rope wavelength base (default 10000)",
    .example = "500",
};

double pe_base(const PeConfig *pc) { return pe_get(pc, &pe_opt_base); }

SinLayout pe_layout(const PeConfig *pc) { return (SinLayout)pe_get(pc, &pe_opt_layout); }

static double base_of(double base) { return base > 0.0 ? base : PE_DEFAULT_BASE; }

/* Channel c of a sinusoid d wide: its frequency index i (the angle is
 * pos / base^(2i/d)) and whether it holds the cos. */
static size_t frequency_of(size_t c, size_t d, SinLayout layout, bool *is_cos) {
    if (layout == LAYOUT_INTERLEAVED) {
        *is_cos = c % 2;
        return c / 2;
    }
    size_t n_sin = (d + 1) / 2; /* an odd d has one more sine than cosines */
    *is_cos = c >= n_sin;
    return *is_cos ? c - n_sin : c;
}

double sinusoid_value(double pos, size_t channel, size_t d, SinLayout layout, double base) {
    bool is_cos;
    size_t i = frequency_of(channel, d, layout, &is_cos);
    /* The exponent 2i/d as in the paper: 2i is the even channel index, not
     * i (a known bug in published code). */
    double angle = pos / pow(base_of(base), (double)(2 * i) / (double)d);
    return is_cos ? cos(angle) : sin(angle);
}

static double sinusoidal_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    return sinusoid_value((double)p, c, w, pe_layout(pc), pe_base(pc));
}

/* PyTorch's recipe: div_term = exp(2i * -ln(base)/d) in float32, angle =
 * position * div_term in float32. */
static float sinusoidal_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    bool is_cos;
    size_t i = frequency_of(c, w, pe_layout(pc), &is_cos);
    float freq = expf((float)(2 * i) * (float)(-log(pe_base(pc)) / (double)w));
    float a = (float)p * freq;
    return is_cos ? cosf(a) : sinf(a);
}

void sinusoid_table(float *P, size_t first, size_t T, size_t d, SinLayout layout, double base) {
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < d; c++)
            P[t * d + c] = (float)sinusoid_value((double)(first + t), c, d, layout, base);
}

/* Under add the sinusoid is as wide as the model; under concat it takes
 * --pe-dim channels (half the model by default) and is the sinusoid of
 * that width. */
size_t pe_wide_width(const PeConfig *pc, size_t C, Combine combine) {
    if (combine == COMBINE_ADD)
        return C;
    return pe_given(pc, &pe_opt_width) ? (size_t)pe_get(pc, &pe_opt_width) : C / 2;
}

static void sinusoidal_channel(char *buf, size_t cap, const PeConfig *pc, size_t w, size_t c) {
    bool is_cos;
    size_t i = frequency_of(c, w, pe_layout(pc), &is_cos);
    snprintf(buf, cap, "%s, i = %zu", is_cos ? "cos" : "sin", i);
}

static const char *sinusoidal_axis(const PeConfig *pc) {
    return pe_layout(pc) == LAYOUT_SPLIT ? "channel (all sines, then all cosines)"
                                      : "channel (sin at even, cos at odd)";
}

const PeScheme pe_sinusoidal = {
    .name = "sinusoidal",
    .demo_default = true,
    .about = "sin/cos at d/2 wavelengths from 2pi to 10000*2pi (the paper, 3.5)",
    .since = 1,
    .options = (const PeOption *const[]){&pe_opt_layout, &pe_opt_base, NULL},
    .ruoss_column = "sin/cos",
    .ruoss_randomized = true,
    .bench_place = 2,
    .default_combine = COMBINE_ADD,
    .width = pe_wide_width,
    .value = sinusoidal_value,
    .value_f32 = sinusoidal_f32,
    .channel_name = sinusoidal_channel,
    .channel_axis = sinusoidal_axis,
};
