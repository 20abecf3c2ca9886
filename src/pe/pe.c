#include "pe.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* How an option's text reads: a whole number, a real number, or one of
 * a few names (an enum, value i named names(i)). */
typedef enum { VALUE_SIZE, VALUE_REAL, VALUE_NAME } ValueType;

static const char *combine_text(int v) { return combine_name((Combine)v); }
static const char *layout_text(int v) { return v == LAYOUT_SPLIT ? "split" : "interleaved"; }
static const char *scaling_text(int v) { return rope_scaling_name((RopeScaling)v); }
static const char *slopes_text(int v) { return alibi_slopes_name((AlibiSlopes)v); }

/* An enum field is read and written as an int through memcpy. */
_Static_assert(sizeof(Combine) == sizeof(int) && sizeof(SinLayout) == sizeof(int) &&
               sizeof(RopeScaling) == sizeof(int) && sizeof(AlibiSlopes) == sizeof(int),
               "PeConfig's enums are ints");

/* Each PeConfig option: its flag, the reads bit of the schemes that use it
 * (--combine is read by every scheme that adds a code to the input), its
 * field and type, its range (both ends included) or its names (values
 * first..last), and the default that 0 in the field stands for. One row
 * per option, in the order of PE_OPT_ (pe.h). */
static const struct {
    const char *flag;
    unsigned reads;
    size_t offset;
    ValueType type;
    double lo, hi;
    const char *(*name)(int value);
    int first, last;
    const char *def;
} OPTIONS[PE_OPT_COUNT] = {
    {"--combine", 0, offsetof(PeConfig, combine), VALUE_NAME, 0, 0, combine_text,
     COMBINE_ADD, COMBINE_CONCAT, "the scheme's own"},
    {"--pe-dim", PE_READS_WIDTH, offsetof(PeConfig, width), VALUE_SIZE, 1, PE_MAX_WIDTH, NULL, 0,
     0, "d_model/2"},
    {"--pairs", PE_READS_PAIRS, offsetof(PeConfig, pairs), VALUE_SIZE, 1, PE_MAX_WIDTH / 2, NULL,
     0, 0, "1"},
    {"--layout", PE_READS_LAYOUT, offsetof(PeConfig, layout), VALUE_NAME, 0, 0, layout_text,
     LAYOUT_INTERLEAVED, LAYOUT_SPLIT, "interleaved"},
    {"--base", PE_READS_BASE, offsetof(PeConfig, base), VALUE_REAL, PE_BASE_MIN, PE_BASE_MAX,
     NULL, 0, 0, "10000"},
    {"--buckets", PE_READS_BUCKETS, offsetof(PeConfig, buckets), VALUE_SIZE, 4, 4096, NULL, 0, 0,
     "32"},
    {"--max-distance", PE_READS_BUCKETS, offsetof(PeConfig, max_distance), VALUE_SIZE, 2,
     1000000, NULL, 0, 0, "128"},
    {"--pe-init-std", PE_READS_INIT, offsetof(PeConfig, init_std), VALUE_REAL, PE_INIT_STD_MIN,
     PE_INIT_STD_MAX, NULL, 0, 0, "0.02"},
    {"--rope-scaling", PE_READS_SCALING, offsetof(PeConfig, rope_scaling), VALUE_NAME, 0, 0,
     scaling_text, ROPE_SCALING_NONE, ROPE_SCALING_YARN, "none"},
    {"--rope-factor", PE_READS_SCALING, offsetof(PeConfig, rope_factor), VALUE_REAL, 1.0,
     PE_ROPE_FACTOR_MAX, NULL, 0, 0, "none"},
    {"--rope-original-len", PE_READS_SCALING, offsetof(PeConfig, rope_original_len), VALUE_SIZE,
     1, PE_MAX_WIDTH, NULL, 0, 0, "the training length"},
    {"--max-relative", PE_READS_RELATIVE, offsetof(PeConfig, max_relative), VALUE_SIZE, 1,
     PE_MAX_RELATIVE_MAX, NULL, 0, 0, "16"},
    {"--alibi-slopes", PE_READS_SLOPES, offsetof(PeConfig, alibi_slopes), VALUE_NAME, 0, 0,
     slopes_text, ALIBI_SYMMETRIC, ALIBI_ASYMMETRIC, "symmetric"},
};

bool pe_base_ok(double base) {
    return isfinite(base) && base >= PE_BASE_MIN && base <= PE_BASE_MAX;
}

const char *pe_option_name(size_t opt) { return opt < PE_OPT_COUNT ? OPTIONS[opt].flag : NULL; }

size_t pe_option_find(const char *name) {
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    size_t i = 0;
    while (i < PE_OPT_COUNT && strcmp(OPTIONS[i].flag + 2, name) != 0)
        i++;
    return i;
}

void pe_real_text(char *buf, size_t cap, double x, bool single) {
    /* %g's own 6 digits where they are enough (100, not 1e+02; 1e+06), more
     * where they are not: 9 always round-trip a float, 17 a double */
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, x);
        double back = strtod(buf, NULL);
        if (single ? (float)back == (float)x : back == x)
            return;
    }
}

/* The option's field as a size, a double or an int (an enum). */
static void *field(PeConfig *pc, size_t opt) { return (char *)pc + OPTIONS[opt].offset; }

static int get_int(const PeConfig *pc, size_t opt) {
    int v;
    memcpy(&v, field((PeConfig *)pc, opt), sizeof v);
    return v;
}

/* "a, b or c": the names of option opt, into buf. */
static void names_of(char *buf, size_t cap, size_t opt) {
    size_t len = 0;
    buf[0] = '\0';
    for (int v = OPTIONS[opt].first; v <= OPTIONS[opt].last && len < cap; v++) {
        const char *sep = v == OPTIONS[opt].first ? "" : v == OPTIONS[opt].last ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s%s", sep, OPTIONS[opt].name(v));
        len += w > 0 ? (size_t)w : 0;
    }
}

int pe_option_set(PeConfig *pc, size_t opt, const char *text, Err *e) {
    if (opt >= PE_OPT_COUNT)
        return err_set(e, ERR_INPUT, "no scheme option has the number %zu", opt);
    const char *flag = OPTIONS[opt].flag;
    /* the bounds as the value is written: whole numbers whole */
    char lo[32], hi[32];
    bool whole = OPTIONS[opt].type == VALUE_SIZE;
    pe_real_text(lo, sizeof lo, OPTIONS[opt].lo, false);
    pe_real_text(hi, sizeof hi, OPTIONS[opt].hi, false);
    if (whole) {
        snprintf(lo, sizeof lo, "%.0f", OPTIONS[opt].lo);
        snprintf(hi, sizeof hi, "%.0f", OPTIONS[opt].hi);
    }
    char *end;
    errno = 0;
    switch (OPTIONS[opt].type) {
    case VALUE_SIZE: {
        /* digits only: strtoull skips blanks and takes "-1" as 2^64-1 */
        unsigned long long v = strtoull(text, &end, 10);
        if (!isdigit((unsigned char)*text) || *end || errno == ERANGE || v < OPTIONS[opt].lo ||
            v > OPTIONS[opt].hi)
            return err_set(e, ERR_INPUT, "%s wants a whole number from %s to %s (default %s), "
                           "not '%s'", flag, lo, hi, OPTIONS[opt].def, text);
        size_t s = (size_t)v;
        memcpy(field(pc, opt), &s, sizeof s);
        return 0;
    }
    case VALUE_REAL: {
        double v = strtod(text, &end);
        /* NaN fails both comparisons */
        if (!*text || isspace((unsigned char)*text) || *end || errno == ERANGE ||
            !(v >= OPTIONS[opt].lo && v <= OPTIONS[opt].hi))
            return err_set(e, ERR_INPUT, "%s wants a number from %s to %s (default %s), not "
                           "'%s'", flag, lo, hi, OPTIONS[opt].def, text);
        memcpy(field(pc, opt), &v, sizeof v);
        return 0;
    }
    case VALUE_NAME:
        for (int v = OPTIONS[opt].first; v <= OPTIONS[opt].last; v++)
            if (strcmp(text, OPTIONS[opt].name(v)) == 0) {
                memcpy(field(pc, opt), &v, sizeof v);
                return 0;
            }
        break;
    }
    char names[128];
    names_of(names, sizeof names, opt);
    return err_set(e, ERR_INPUT, "%s is %s (default %s), not '%s'", flag, names,
                   OPTIONS[opt].def, text);
}

void pe_option_text(const PeConfig *pc, size_t opt, char *buf, size_t cap) {
    if (opt >= PE_OPT_COUNT) {
        snprintf(buf, cap, "?");
        return;
    }
    const void *f = field((PeConfig *)pc, opt);
    if (OPTIONS[opt].type == VALUE_SIZE) {
        size_t s;
        memcpy(&s, f, sizeof s);
        snprintf(buf, cap, "%zu", s);
    } else if (OPTIONS[opt].type == VALUE_REAL) {
        double d;
        memcpy(&d, f, sizeof d);
        pe_real_text(buf, cap, d, false);
    } else {
        int v = get_int(pc, opt);
        /* a value no name has is written so that it reads back as an error */
        bool named = v >= OPTIONS[opt].first && v <= OPTIONS[opt].last;
        snprintf(buf, cap, "%s", named ? OPTIONS[opt].name(v) : "?");
    }
}

/* Whether option opt holds anything but 0, the default. */
static bool given(const PeConfig *pc, size_t opt) {
    const void *f = field((PeConfig *)pc, opt);
    if (OPTIONS[opt].type == VALUE_SIZE) {
        size_t s;
        memcpy(&s, f, sizeof s);
        return s != 0;
    }
    if (OPTIONS[opt].type == VALUE_REAL) {
        double d;
        memcpy(&d, f, sizeof d);
        return d != 0.0;
    }
    return get_int(pc, opt) != 0;
}

/* Option opt back to 0, its default (all bits 0, for a double too). */
static void clear(PeConfig *pc, size_t opt) {
    static const PeConfig zero;
    size_t bytes = OPTIONS[opt].type == VALUE_SIZE   ? sizeof(size_t)
                   : OPTIONS[opt].type == VALUE_REAL ? sizeof(double)
                                                     : sizeof(int);
    memcpy(field(pc, opt), (const char *)&zero + OPTIONS[opt].offset, bytes);
}

unsigned pe_options_given(const PeConfig *pc) {
    unsigned g = 0;
    for (size_t i = 0; i < PE_OPT_COUNT; i++)
        g |= given(pc, i) ? 1u << i : 0;
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
            return OPTIONS[i].flag;
    return NULL;
}

PeConfig pe_config_for(const PeConfig *pc, const PeScheme *s) {
    PeConfig r = *pc;
    snprintf(r.name, sizeof r.name, "%s", s->name);
    unsigned unread = ~pe_options_read(s, pc->combine);
    for (size_t i = 0; i < PE_OPT_COUNT; i++)
        if (unread & (1u << i))
            clear(&r, i);
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
    /* The options a scheme cannot check for itself, a checkpoint's or a
     * library caller's too, as the command line takes them: by their text
     * (0 is the default; NaN is not 0 and reads back as no number). */
    static const size_t checked[] = {PE_OPT_COMBINE, PE_OPT_LAYOUT, PE_OPT_BASE,
                                     PE_OPT_INIT_STD, PE_OPT_ALIBI_SLOPES};
    for (size_t i = 0; i < sizeof checked / sizeof *checked; i++) {
        PeConfig copy = *pc;
        char text[64];
        pe_option_text(pc, checked[i], text, sizeof text);
        if (given(pc, checked[i]) && pe_option_set(&copy, checked[i], text, e))
            return ERR_INPUT;
    }
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
