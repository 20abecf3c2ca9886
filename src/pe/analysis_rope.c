#include "analysis_rope.h"

#include <math.h>

double rope_decay_at(size_t r, size_t head_size, double base) {
    size_t half = head_size / 2;
    double re = 0.0, im = 0.0, sum = 0.0;
    for (size_t k = 0; k < half; k++) {
        /* S_{k+1} = S_k + e^{i r theta_k} */
        double angle = (double)r * pow(base, -(double)(2 * k) / (double)head_size);
        re += cos(angle);
        im += sin(angle);
        sum += hypot(re, im);
    }
    return sum / (double)half;
}

int rope_decay_bound(double *out, size_t n, size_t head_size, double base, Err *e) {
    if (head_size < 2 || head_size % 2)
        return err_set(e, ERR_INPUT, "RoPE turns a head's channels in pairs: its size must be "
                       "even, not %zu", head_size);
    if (!(base > 1.0))
        return err_set(e, ERR_INPUT, "the base must be above 1, not %g", base);
    for (size_t r = 0; r < n; r++)
        out[r] = rope_decay_at(r, head_size, base);
    return 0;
}
