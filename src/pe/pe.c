#include "pe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdint.h>

extern const PeScheme pe_none, pe_integer, pe_normalized, pe_sine, pe_sincos;
extern const PeScheme pe_sinusoidal, pe_learned, pe_rope, pe_alibi, pe_t5, pe_shaw;

/* The order of the notes: from no position to the paper's formula and the
 * learned table, then the schemes that act inside attention. */
static const PeScheme *const schemes[] = {
    &pe_none,       &pe_integer, &pe_normalized, &pe_sine,  &pe_sincos, &pe_sinusoidal,
    &pe_learned,    &pe_rope,    &pe_alibi,      &pe_t5,    &pe_shaw,
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

PeConfig pe_resolved(const PeConfig *pc) {
    PeConfig r = *pc;
    r.pairs = r.pairs ? r.pairs : 1;
    r.base = pe_base(pc);
    r.buckets = r.buckets ? r.buckets : PE_DEFAULT_BUCKETS;
    r.max_distance = r.max_distance ? r.max_distance : PE_DEFAULT_MAX_DISTANCE;
    r.init_std = r.init_std > 0.0 ? r.init_std : PE_DEFAULT_INIT_STD;
    r.max_relative = r.max_relative ? r.max_relative : PE_DEFAULT_MAX_RELATIVE;
    return r;
}

const char *pe_meets(const PePlan *plan) {
    if (pe_in_attention(plan->scheme))
        return "inside attention";
    return plan->w ? combine_name(plan->combine) : "nothing added";
}

/* The command line's spelling of each PeConfig option, in the order of
 * PE_OPT_ (pe.h), and the reads bit of the schemes that use it. --combine
 * is read by every scheme that adds a code to the input. */
static const struct {
    const char *name;
    unsigned reads;
} OPTIONS[PE_OPT_COUNT] = {
    {"--combine", 0},
    {"--pe-dim", PE_READS_WIDTH},
    {"--pairs", PE_READS_PAIRS},
    {"--layout", PE_READS_LAYOUT},
    {"--base", PE_READS_BASE},
    {"--buckets", PE_READS_BUCKETS},
    {"--max-distance", PE_READS_BUCKETS},
    {"--pe-init-std", PE_READS_INIT},
    {"--rope-scaling", PE_READS_SCALING},
    {"--rope-factor", PE_READS_SCALING},
    {"--rope-original-len", PE_READS_SCALING},
    {"--max-relative", PE_READS_RELATIVE},
    {"--alibi-slopes", PE_READS_SLOPES},
};

bool pe_base_ok(double base) { return isfinite(base) && base > 1.000001 && base <= 1e12; }

const char *pe_option_name(size_t opt) { return opt < PE_OPT_COUNT ? OPTIONS[opt].name : NULL; }

unsigned pe_options_given(const PeConfig *pc) {
    unsigned g = 0;
    g |= pc->combine != COMBINE_DEFAULT ? 1u << PE_OPT_COMBINE : 0;
    g |= pc->width ? 1u << PE_OPT_WIDTH : 0;
    g |= pc->pairs ? 1u << PE_OPT_PAIRS : 0;
    g |= pc->layout != LAYOUT_INTERLEAVED ? 1u << PE_OPT_LAYOUT : 0;
    g |= pc->base != 0.0 ? 1u << PE_OPT_BASE : 0;
    g |= pc->buckets ? 1u << PE_OPT_BUCKETS : 0;
    g |= pc->max_distance ? 1u << PE_OPT_MAX_DISTANCE : 0;
    g |= pc->init_std != 0.0 ? 1u << PE_OPT_INIT_STD : 0;
    g |= pc->rope_scaling != ROPE_SCALING_NONE ? 1u << PE_OPT_ROPE_SCALING : 0;
    g |= pc->rope_factor != 0.0 ? 1u << PE_OPT_ROPE_FACTOR : 0;
    g |= pc->rope_original_len ? 1u << PE_OPT_ROPE_ORIGINAL_LEN : 0;
    g |= pc->max_relative ? 1u << PE_OPT_MAX_RELATIVE : 0;
    g |= pc->alibi_slopes != ALIBI_SYMMETRIC ? 1u << PE_OPT_ALIBI_SLOPES : 0;
    return g;
}

unsigned pe_options_read(const PeScheme *s, Combine combine) {
    unsigned r = 0;
    for (size_t i = 0; i < PE_OPT_COUNT; i++)
        if (OPTIONS[i].reads & s->reads)
            r |= 1u << i;
    /* the width of a code that is added is the model's: --pe-dim is read
     * under concat only */
    if (combine == COMBINE_DEFAULT)
        combine = s->default_combine;
    if (combine != COMBINE_CONCAT)
        r &= ~(1u << PE_OPT_WIDTH);
    if (pe_in_input(s))
        r |= 1u << PE_OPT_COMBINE;
    return r;
}

const char *pe_unused_option(const PePlan *plan, const PeConfig *pc) {
    unsigned unused = pe_options_given(pc) & ~pe_options_read(plan->scheme, plan->combine);
    for (size_t i = 0; i < PE_OPT_COUNT; i++)
        if (unused & (1u << i))
            return OPTIONS[i].name;
    return NULL;
}

PeConfig pe_config_for(const PeConfig *pc, const PeScheme *s) {
    PeConfig r = *pc;
    snprintf(r.name, sizeof r.name, "%s", s->name);
    unsigned unread = ~pe_options_read(s, pc->combine);
    if (unread & (1u << PE_OPT_COMBINE))
        r.combine = COMBINE_DEFAULT;
    if (unread & (1u << PE_OPT_WIDTH))
        r.width = 0;
    if (unread & (1u << PE_OPT_PAIRS))
        r.pairs = 0;
    if (unread & (1u << PE_OPT_LAYOUT))
        r.layout = LAYOUT_INTERLEAVED;
    if (unread & (1u << PE_OPT_BASE))
        r.base = 0.0;
    if (unread & (1u << PE_OPT_BUCKETS))
        r.buckets = 0;
    if (unread & (1u << PE_OPT_MAX_DISTANCE))
        r.max_distance = 0;
    if (unread & (1u << PE_OPT_INIT_STD))
        r.init_std = 0.0;
    if (unread & (1u << PE_OPT_ROPE_SCALING))
        r.rope_scaling = ROPE_SCALING_NONE;
    if (unread & (1u << PE_OPT_ROPE_FACTOR))
        r.rope_factor = 0.0;
    if (unread & (1u << PE_OPT_ROPE_ORIGINAL_LEN))
        r.rope_original_len = 0;
    if (unread & (1u << PE_OPT_MAX_RELATIVE))
        r.max_relative = 0;
    if (unread & (1u << PE_OPT_ALIBI_SLOPES))
        r.alibi_slopes = ALIBI_SYMMETRIC;
    return r;
}

bool pe_in_attention(const PeScheme *s) { return s->rotate || s->bias || s->key_scores; }

bool pe_in_input(const PeScheme *s) { return s->width != NULL; }

void pe_config_default(PeConfig *pc, const char *name) {
    memset(pc, 0, sizeof *pc);
    strncpy(pc->name, name, PE_NAME_MAX - 1);
    pc->combine = COMBINE_DEFAULT;
    pc->layout = LAYOUT_INTERLEAVED;
}

int pe_plan(PePlan *plan, const PeConfig *pc, size_t C, size_t NH, size_t max_len, Err *e) {
    memset(plan, 0, sizeof *plan);
    const PeScheme *s = pe_find(pc->name);
    if (!s)
        return err_set(e, ERR_INPUT, "unknown positional encoding '%s': choose one of %s",
                       pc->name, pe_names());
    if (pc->combine != COMBINE_DEFAULT && pc->combine != COMBINE_ADD &&
        pc->combine != COMBINE_CONCAT)
        return err_set(e, ERR_INPUT, "combine mode %d is not add or concat", (int)pc->combine);
    if (pc->alibi_slopes != ALIBI_SYMMETRIC && pc->alibi_slopes != ALIBI_ASYMMETRIC)
        return err_set(e, ERR_INPUT, "alibi slopes %d are not symmetric or asymmetric",
                       (int)pc->alibi_slopes);
    if (pc->layout != LAYOUT_INTERLEAVED && pc->layout != LAYOUT_SPLIT)
        return err_set(e, ERR_INPUT, "sinusoid layout %d is not interleaved or split",
                       (int)pc->layout);
    if (pc->init_std != 0.0 &&
        !(pc->init_std >= PE_INIT_STD_MIN && pc->init_std <= PE_INIT_STD_MAX))
        return err_set(e, ERR_INPUT, "the learned table's first std %g must be from %g to %g",
                       pc->init_std, PE_INIT_STD_MIN, PE_INIT_STD_MAX);
    /* 0 is the default; anything else, a checkpoint's too, as the command
     * line takes it (NaN is not 0 and not in range) */
    if (pc->base != 0.0 && !pe_base_ok(pc->base))
        return err_set(e, ERR_INPUT, "the wavelength base %g must be greater than 1 and at most "
                       "1e12 (the paper uses 10000)", pc->base);
    if (!(pc->init_std >= 0.0 && pc->init_std <= 100.0))
        return err_set(e, ERR_INPUT, "the initial std %g of a learned table must be between 0 "
                       "and 100", pc->init_std);
    /* Only the attention schemes act per head (the model checks the heads
     * for itself). */
    if (pe_in_attention(s) && (NH == 0 || C % NH != 0))
        return err_set(e, ERR_INPUT, "%s acts in each head, but %zu heads do not divide d_model "
                       "%zu; choose --heads among the divisors of %zu", s->name, NH, C, C);
    if (pe_in_attention(s) && pc->combine != COMBINE_DEFAULT)
        return err_set(e, ERR_INPUT, "%s adds nothing to the word vectors (it acts inside "
                       "attention), so there is nothing to combine: drop --combine", s->name);
    plan->scheme = s;
    plan->n_heads = NH;
    plan->head_size = NH ? C / NH : 0;
    plan->combine = pc->combine == COMBINE_DEFAULT ? s->default_combine : pc->combine;
    plan->w = s->width ? s->width(pc, C, plan->combine) : 0;
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
    int rc = s->check ? s->check(pc, C, NH, e) : 0;
    if (rc)
        return rc;
    if (s->param_shape)
        s->param_shape(pc, plan->w, plan->head_size, NH, max_len, &plan->rows, &plan->cols);
    /* A table read row by position has no row past its last. */
    plan->max_positions = plan->w && !s->value && plan->rows ? plan->rows : SIZE_MAX;
    return 0;
}

/* Row t of P is position pos[t], or t when pos is NULL. */
static void fill_rows(float *P, const PePlan *plan, const PeConfig *pc, const float *params,
                      const size_t *pos, size_t T, size_t n) {
    const PeScheme *s = plan->scheme;
    size_t w = plan->w;
    if (w == 0)
        return;
    for (size_t t = 0; t < T; t++) {
        size_t p = pos ? pos[t] : t;
        if (!s->value) {
            memcpy(P + t * w, params + p * w, w * sizeof *P);
            continue;
        }
        /* Computed in double and rounded once: rounding the angle first
         * would cost two orders of magnitude in the sinusoid's rotation
         * property (measured 1.2e-7 against 5e-5; docs/architecture.md). */
        for (size_t c = 0; c < w; c++)
            P[t * w + c] = (float)s->value(pc, w, p, c, n);
    }
}

void pe_fill(float *P, const PePlan *plan, const PeConfig *pc, const float *params, size_t T,
             size_t n) {
    fill_rows(P, plan, pc, params, NULL, T, n);
}

void pe_fill_at(float *P, const PePlan *plan, const PeConfig *pc, const float *params,
                const size_t *pos, size_t T, size_t n) {
    fill_rows(P, plan, pc, params, pos, T, n);
}

size_t pe_scratch(const PePlan *plan, size_t T) {
    const PeScheme *s = plan->scheme;
    return s->scratch ? s->scratch(T, plan->head_size) : 0;
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
