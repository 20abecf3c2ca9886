#include "pe.h"

#include <string.h>

extern const PeScheme pe_none, pe_integer, pe_normalized, pe_sine, pe_sincos;
extern const PeScheme pe_sinusoidal, pe_learned;

/* The order of the notes: from no position to the paper's formula, then
 * the learned table. */
static const PeScheme *const schemes[] = {
    &pe_none, &pe_integer, &pe_normalized, &pe_sine, &pe_sincos, &pe_sinusoidal, &pe_learned,
};

size_t pe_count(void) { return sizeof schemes / sizeof schemes[0]; }

const PeScheme *pe_at(size_t i) { return i < pe_count() ? schemes[i] : NULL; }

const PeScheme *pe_find(const char *name) {
    for (size_t i = 0; i < pe_count(); i++)
        if (strcmp(schemes[i]->name, name) == 0)
            return schemes[i];
    return NULL;
}

const char *pe_names(void) {
    static char buf[256];
    if (!buf[0]) {
        for (size_t i = 0; i < pe_count(); i++) {
            if (i)
                strcat(buf, ", ");
            strcat(buf, schemes[i]->name);
        }
    }
    return buf;
}

const char *combine_name(Combine c) {
    return c == COMBINE_ADD ? "add" : c == COMBINE_CONCAT ? "concat" : "default";
}

int combine_parse(const char *s, Combine *out, Err *e) {
    if (strcmp(s, "add") == 0)
        *out = COMBINE_ADD;
    else if (strcmp(s, "concat") == 0)
        *out = COMBINE_CONCAT;
    else
        return err_set(e, ERR_INPUT, "unknown combine mode '%s': use add or concat", s);
    return 0;
}

void pe_config_default(PeConfig *pc, const char *name) {
    memset(pc, 0, sizeof *pc);
    strncpy(pc->name, name, PE_NAME_MAX - 1);
    pc->combine = COMBINE_DEFAULT;
    pc->layout = LAYOUT_INTERLEAVED;
}

int pe_plan(PePlan *plan, const PeConfig *pc, size_t C, size_t max_len, Err *e) {
    memset(plan, 0, sizeof *plan);
    const PeScheme *s = pe_find(pc->name);
    if (!s)
        return err_set(e, ERR_INPUT, "unknown positional encoding '%s': choose one of %s",
                       pc->name, pe_names());
    if (pc->combine != COMBINE_DEFAULT && pc->combine != COMBINE_ADD &&
        pc->combine != COMBINE_CONCAT)
        return err_set(e, ERR_INPUT, "combine mode %d is not add or concat", (int)pc->combine);
    if (pc->layout != LAYOUT_INTERLEAVED && pc->layout != LAYOUT_SPLIT)
        return err_set(e, ERR_INPUT, "sinusoid layout %d is not interleaved or split",
                       (int)pc->layout);
    if (pc->base < 0.0 || (pc->base > 0.0 && pc->base <= 1.0))
        return err_set(e, ERR_INPUT, "sinusoid base %g must be greater than 1 (the paper uses 10000)",
                       pc->base);
    plan->scheme = s;
    plan->combine = pc->combine == COMBINE_DEFAULT ? s->default_combine : pc->combine;
    plan->w = s->width(pc, C, plan->combine);
    if (plan->combine == COMBINE_CONCAT) {
        if (plan->w >= C)
            return err_set(e, ERR_INPUT,
                           "d_model %zu is too small for %s concatenated in %zu channels: "
                           "the embedding needs at least one channel; raise --d-model above %zu, "
                           "narrow the code (--pe-dim, --pairs) or use --combine add",
                           C, s->name, plan->w, plan->w);
        plan->E = C - plan->w;
    } else {
        if (plan->w > C)
            return err_set(e, ERR_INPUT,
                           "%s has %zu channels, more than d_model %zu: raise --d-model to "
                           "at least %zu or use fewer pairs",
                           s->name, plan->w, C, plan->w);
        plan->E = C;
    }
    plan->rows = s->param_rows ? s->param_rows(max_len) : 0;
    return 0;
}

void pe_combine(float *x, const float *P, size_t n, size_t w, size_t C, Combine combine) {
    /* P is (n,w), x is (n,C) */
    if (w == 0)
        return;
    for (size_t t = 0; t < n; t++) {
        float *row = x + t * C;
        const float *p = P + t * w;
        if (combine == COMBINE_CONCAT) {
            for (size_t j = 0; j < w; j++)
                row[C - w + j] = p[j];
        } else {
            /* tiled: channel c gets p[c % w], without a division per channel */
            for (size_t c0 = 0; c0 < C; c0 += w)
                for (size_t j = 0; j < w && c0 + j < C; j++)
                    row[c0 + j] += p[j];
        }
    }
}

void pe_combine_backward(float *dP, const float *dx, size_t n, size_t w, size_t C,
                         Combine combine) {
    /* dx is (n,C), dP is (n,w) */
    for (size_t t = 0; t < n; t++) {
        const float *row = dx + t * C;
        float *d = dP + t * w;
        if (combine == COMBINE_CONCAT) {
            for (size_t j = 0; j < w; j++)
                d[j] += row[C - w + j];
        } else {
            for (size_t c0 = 0; c0 < C; c0 += w)
                for (size_t j = 0; j < w && c0 + j < C; j++)
                    d[j] += row[c0 + j];
        }
    }
}
