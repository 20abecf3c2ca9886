/* Every number the pages print from data, and every value of their CSV
 * files, rounds on the number's exact binary value with a half of the
 * last digit printed rounded away from zero (up, for the accuracies and
 * shares): printf rounds that half to even, so 56.25 would print as 56.2
 * on a page whose CSV says 0.5625 (templates/bench-6-how.md states the
 * rule; scripts/bench_referee_read.py's printed() applies the same). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../core/buf.h"
#include "prose.h"

/* 10^k, exact for k <= 22 (the largest power of ten a double holds) */
static double ten_to(int k) {
    double x = 1.0;
    while (k-- > 0)
        x *= 10.0;
    return x;
}

/* Whether v is exactly half a unit of its d-th decimal (d < 0: of the
 * digit -d places left of the point). Past 22 places either way the powers
 * of ten are not exact; the pages print at most six decimals, and a %e or
 * %g to n significant digits has no half past about 1.5 n places (a half
 * at d places is an odd multiple of 1/2^(d+1): it has d + 1 decimals, too
 * many digits for a number as small as one printed there). */
static bool half_at(double v, int d) {
    if (!isfinite(v) || v == 0.0 || d > 22 || d < -22)
        return false;
    if (d < 0) { /* fmod is exact: the remainder is half the unit */
        double unit = ten_to(-d);
        return fmod(fabs(v), unit) == 0.5 * unit;
    }
    /* a half when v * 2 * 10^d is an odd integer exactly: fma gives the
     * product's rounding error (0: the product is exact) */
    double twice = 2.0 * ten_to(d), p = v * twice;
    return isfinite(p) && fma(v, twice, -p) == 0.0 && p == floor(p) && fmod(p, 2.0) != 0.0;
}

/* The digit printf rounds at for conv ('f', 'e' or 'g') at precision
 * prec, in places right of the point. */
static int rounding_place(double v, char conv, int prec) {
    if (conv == 'f')
        return prec;
    if (v == 0.0 || !isfinite(v))
        return 0;
    /* the exponent before rounding: a half to at most 15 significant
     * digits is too far from a power of ten for log10 to land on the
     * wrong side of it (and a nudge at a place printf does not round at
     * changes nothing it prints) */
    int x = (int)floor(log10(fabs(v)));
    return conv == 'e' ? prec - x : (prec ? prec : 1) - 1 - x;
}

double exp_half_away(double v, char conv, int prec) {
    /* Only a half differs from printf, whose rounding is exact otherwise;
     * the next double away from zero is past the half and short of the
     * next one, so printf rounds it away. */
    if (half_at(v, rounding_place(v, conv, prec)))
        return nextafter(v, v > 0 ? INFINITY : -INFINITY);
    return v;
}

ExpNum exp_num(double v, int decimals, bool sign) {
    ExpNum n;
    snprintf(n.s, sizeof n.s, sign ? "%+.*f" : "%.*f", decimals, exp_half_away(v, 'f', decimals));
    return n;
}

void exp_fixed(Buf *b, double v, int decimals, bool sign) {
    buf_printf(b, "%s", exp_num(v, decimals, sign).s);
}

void exp_csv_value(Buf *b, double v) {
    exp_fixed(b, v, 6, false);
}
