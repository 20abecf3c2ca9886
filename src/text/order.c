#include "order.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t count_word(const Words *w, const char *word) {
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += strcmp(w->w[i], word) == 0;
    return n;
}

int align_permutation(size_t *perm, const Words *a, const Words *b, Err *e) {
    if (a->n == 0 || b->n == 0)
        return err_set(e, ERR_INPUT, "the %s sentence is empty: give at least one word",
                       a->n == 0 ? "first" : "second");
    if (a->n != b->n)
        return err_set(e, ERR_INPUT, "the second sentence has %zu words but the first has %zu: "
                       "it must use exactly the same words in another order", b->n, a->n);
    bool *used = calloc(a->n, sizeof *used);
    if (!used)
        return err_set(e, ERR_RUNTIME, "out of memory aligning %zu words", a->n);
    int rc = 0;
    bool same_order = true;
    for (size_t i = 0; i < b->n && !rc; i++) {
        size_t j = 0;
        while (j < a->n && (used[j] || strcmp(a->w[j], b->w[i]) != 0))
            j++;
        if (j == a->n) {
            size_t na = count_word(a, b->w[i]), nb = count_word(b, b->w[i]);
            rc = err_set(e, ERR_INPUT, "'%s' appears %zu time%s in the second sentence but %zu "
                         "in the first: the second must use exactly the same words in another "
                         "order", b->w[i], nb, nb == 1 ? "" : "s", na);
            break;
        }
        used[j] = true;
        perm[i] = j;
        same_order = same_order && strcmp(a->w[i], b->w[i]) == 0;
    }
    free(used);
    if (!rc && same_order)
        rc = err_set(e, ERR_INPUT, "the two sentences have their words in the same order: "
                     "give the second in another order, such as the first read backwards");
    return rc;
}

double max_aligned_diff(const float *ya, const float *yb, const size_t *perm, size_t n,
                        size_t C) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < C; c++) {
            double d = fabs((double)yb[i * C + c] - (double)ya[perm[i] * C + c]);
            /* a NaN must not hide behind "not greater than" */
            if (d > worst || isnan(d))
                worst = d;
        }
    return worst;
}

double cosine(const float *u, const float *v, size_t n) {
    double uv = 0.0, uu = 0.0, vv = 0.0;
    for (size_t i = 0; i < n; i++) {
        uv += (double)u[i] * v[i];
        uu += (double)u[i] * u[i];
        vv += (double)v[i] * v[i];
    }
    if (uu == 0.0 || vv == 0.0)
        return 0.0;
    return uv / sqrt(uu * vv);
}
