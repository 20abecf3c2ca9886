#include "overflow.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* Positions lo..hi that one layer's scheme prepares, and where they are
 * in words, for a message. */
typedef struct {
    size_t lo, hi;
    char where[96];
} Span;

static Span span_of(const size_t *pos, size_t T) {
    Span s = {.lo = pos[0], .hi = pos[0]};
    for (size_t t = 1; t < T; t++) {
        s.lo = pos[t] < s.lo ? pos[t] : s.lo;
        s.hi = pos[t] > s.hi ? pos[t] : s.hi;
    }
    return s;
}

/* The widest positions a scheme prepares for sentences b0..b0+n-1: each
 * sentence's (ties: the one with the most tokens, so that a batch of
 * positions 0..T-1 names its longest sentence, not a short one padded
 * to T), or under a draw per layer each layer's own draw (the batch's);
 * a layer's drawn distances are no positions (lo = hi). */
static Span widest(const Model *m, const Acts *a, const size_t *lens, size_t b0, size_t n,
                   size_t T) {
    Span best = {0};
    if (a->layers_in_use) {
        if (m->pe.scheme->ruoss_draw != PE_DRAW_LAYER_POSITIONS)
            return best;
        for (size_t l = 0; l < m->cfg.n_layers; l++) {
            Span s = span_of(a->layer_draw + l * T, T);
            if (l == 0 || s.hi - s.lo > best.hi - best.lo) {
                best = s;
                snprintf(best.where, sizeof best.where, "layer %zu's drawn positions %zu..%zu",
                         l + 1, s.lo, s.hi);
            }
        }
        return best;
    }
    size_t best_len = 0;
    for (size_t b = b0; b < b0 + n; b++) {
        Span s = span_of(a->pos + b * T, T);
        size_t wb = s.hi - s.lo, wa = best.hi - best.lo;
        if (b == b0 || wb > wa || (wb == wa && lens[b] > best_len)) {
            best = s;
            best_len = lens[b];
            snprintf(best.where, sizeof best.where, "sentence %zu (%zu tokens) at positions "
                     "%zu..%zu", b + 1, lens[b], s.lo, s.hi);
        }
    }
    return best;
}

int overflow_check_positions(const Model *m, const Acts *a, const size_t *lens, size_t B,
                             size_t T, Err *e) {
    if (!m->pe.scheme->score_gain)
        return 0;
    Span s = widest(m, a, lens, 0, B, T);
    return pe_check_span(&m->pe, &m->cfg.pe, s.lo, s.hi, s.where, e);
}

/* "layers.0.self_attn.in_proj_weight[3][5]": element i of the parameters */
static void weight_name(char *buf, size_t cap, const Model *m, size_t i) {
    for (size_t k = 0; k < m->n_specs; k++) {
        const ParamSpec *s = &m->specs[k];
        if (i < s->offset || i >= s->offset + s->rows * s->cols)
            continue;
        size_t j = i - s->offset;
        if (s->rows > 1 && s->cols > 1)
            snprintf(buf, cap, "%s[%zu][%zu]", s->name, j / s->cols, j % s->cols);
        else
            snprintf(buf, cap, "%s[%zu]", s->name, j);
        return;
    }
    snprintf(buf, cap, "parameter %zu", i);
}

OverflowCause overflow_cause(char *buf, size_t cap, const Model *m, const Acts *a,
                             const size_t *lens, size_t b0, size_t n, size_t T) {
    size_t big = 0;
    for (size_t i = 0; i < m->n_params; i++) {
        float w = m->mem[i];
        if (!isfinite(w)) {
            char name[128];
            weight_name(name, sizeof name, m, i);
            snprintf(buf, cap, "weight %s is %g", name, (double)w);
            return OVERFLOW_WEIGHT;
        }
        big = fabsf(w) > fabsf(m->mem[big]) ? i : big;
    }
    /* With every weight finite, a factor of the positions that takes more
     * than half of float's range is the larger part of the overflow: q.k
     * would need the other half. */
    Span s = widest(m, a, lens, b0, n, T);
    pe_gain_cause(buf, cap, &m->pe, &m->cfg.pe, s.lo, s.hi, s.where);
    if (buf[0])
        return OVERFLOW_SCHEME;
    char name[128];
    weight_name(name, sizeof name, m, big);
    snprintf(buf, cap, "the weights, the largest %g in magnitude (%s), overflow float "
             "arithmetic", (double)fabsf(m->mem[big]), name);
    return OVERFLOW_ARITHMETIC;
}
