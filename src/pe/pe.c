/* The registry of schemes (pe_list.h), and what every scheme shares: the
 * list of their options and the values a PeConfig gives them, the plan
 * of a scheme against a model's shape, the options each reads, the
 * code's fill and its meeting with the embedding. */
#include "pe.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PE_SCHEME(name) extern const PeScheme pe_##name;
#include "pe_list.h"
#undef PE_SCHEME

static const PeScheme *const schemes[] = {
#define PE_SCHEME(name) &pe_##name,
#include "pe_list.h"
#undef PE_SCHEME
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
    static char buf[64 * PE_NAME_MAX];
    if (!buf[0])
        for (size_t i = 0, len = 0; i < pe_count() && len < sizeof buf; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "",
                                    schemes[i]->name);
    return buf;
}

/* ---- the options of every scheme, and their values in a PeConfig ---- */

static const PeOption *const COMMON[] = {&pe_opt_combine, &pe_opt_width, NULL};

/* Group g of the options: --combine and --pe-dim, then scheme g-1's. */
static const PeOption *const *group(size_t g) { return g == 0 ? COMMON : pe_at(g - 1)->options; }

/* Whether o is listed before entry k of group g (--base is the sinusoid's
 * before it is rope's). */
static bool listed_before(const PeOption *o, size_t g, size_t k) {
    for (size_t t = 0; t <= g; t++) {
        const PeOption *const *list = group(t);
        for (size_t j = 0; list && list[j] && (t < g || j < k); j++)
            if (list[j] == o)
                return true;
    }
    return false;
}

/* The options in order, each once: entry `want`, or the one that is
 * `find`, with its index in *index (the count when neither is found).
 * The list is the registry's, walked again at each call: a few hundred
 * pointer comparisons, cheap beside the work of any caller, and no state
 * to set up or share between threads. */
static const PeOption *walk(size_t want, const PeOption *find, size_t *index) {
    size_t n = 0;
    for (size_t g = 0; g <= pe_count(); g++) {
        const PeOption *const *list = group(g);
        for (size_t k = 0; list && list[k]; k++) {
            if (listed_before(list[k], g, k))
                continue;
            if (n == want || list[k] == find) {
                *index = n;
                return list[k];
            }
            n++;
        }
    }
    *index = n;
    return NULL;
}

size_t pe_option_count(void) {
    size_t n;
    walk(SIZE_MAX, NULL, &n);
    return n;
}

const PeOption *pe_option_at(size_t i) {
    size_t n;
    return walk(i, NULL, &n);
}

size_t pe_option_index(const PeOption *o) {
    size_t n;
    walk(SIZE_MAX, o, &n);
    return n;
}

const PeOption *pe_option_find(const char *name) {
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    for (size_t i = 0; i < pe_option_count(); i++)
        if (strcmp(pe_option_at(i)->flag + 2, name) == 0)
            return pe_option_at(i);
    return NULL;
}

/* Where pc gives o, or NULL. A scan of the few options given, with no
 * walk of the registry: pe_get runs in every head of every step (rope's
 * layout, ALiBi's slopes). */
static const PeGiven *given_at(const PeConfig *pc, const PeOption *o) {
    for (size_t i = 0; i < pc->n_given && i < PE_GIVEN_MAX; i++)
        if (pc->given[i].option == o)
            return &pc->given[i];
    return NULL;
}

double pe_get(const PeConfig *pc, const PeOption *o) {
    const PeGiven *g = given_at(pc, o);
    return g ? g->value : o->def;
}

bool pe_given(const PeConfig *pc, const PeOption *o) { return o && given_at(pc, o); }

int pe_put(PeConfig *pc, const PeOption *o, double v) {
    PeGiven *g = (PeGiven *)given_at(pc, o);
    if (g) {
        g->value = v;
        return 0;
    }
    size_t at = pe_option_index(o);
    if (at == pe_option_count() || pc->n_given >= PE_GIVEN_MAX)
        return -1;
    /* in the registry's order, so that the same options given in any
     * order are the same bytes */
    size_t k = pc->n_given++;
    for (; k > 0 && pe_option_index(pc->given[k - 1].option) > at; k--)
        pc->given[k] = pc->given[k - 1];
    pc->given[k] = (PeGiven){o, v};
    return 0;
}

void pe_unset(PeConfig *pc, const PeOption *o) {
    const PeGiven *g = given_at(pc, o);
    if (!g)
        return;
    size_t k = (size_t)(g - pc->given);
    memmove(&pc->given[k], &pc->given[k + 1], (pc->n_given - k - 1) * sizeof *pc->given);
    pc->given[--pc->n_given] = (PeGiven){0};
}

Combine pe_combine_given(const PeConfig *pc) {
    return pe_given(pc, &pe_opt_combine) ? (Combine)(1 + (int)pe_get(pc, &pe_opt_combine))
                                         : COMBINE_DEFAULT;
}

int pe_set(PeConfig *pc, const PeOption *o, const char *text, Err *e) {
    double v;
    if (pe_option_parse(o, text, &v, e))
        return ERR_INPUT;
    if (pe_put(pc, o, v))
        return err_set(e, ERR_INPUT, "%s: more than %d scheme options given at once; give "
                       "fewer", o->flag, PE_GIVEN_MAX);
    return 0;
}

int pe_set_named(PeConfig *pc, const char *name, const char *text, Err *e) {
    const PeOption *o = pe_option_find(name);
    if (!o)
        return err_set(e, ERR_INPUT, "no scheme has an option '%s'", name);
    return pe_set(pc, o, text, e);
}

void pe_option_text(const PeConfig *pc, const PeOption *o, char *buf, size_t cap) {
    pe_option_format(o, pe_get(pc, o), buf, cap);
}

const char *combine_name(Combine c) {
    return c == COMBINE_ADD ? "add" : c == COMBINE_CONCAT ? "concat" : "default";
}

const char *pe_meets(const PePlan *plan) {
    if (pe_in_attention(plan->scheme))
        return "inside attention";
    return plan->w ? combine_name(plan->combine) : "nothing added";
}

bool pe_reads(const PeScheme *s, Combine combine, const PeOption *o) {
    for (size_t k = 0; s->options && s->options[k]; k++)
        if (s->options[k] == o)
            return true;
    if (combine == COMBINE_DEFAULT)
        combine = s->default_combine;
    /* the width of a code that is added is the model's: --pe-dim is read
     * under concat only, by the schemes whose width it sets */
    if (o == &pe_opt_width)
        return combine == COMBINE_CONCAT && s->width == pe_wide_width;
    return o == &pe_opt_combine && pe_in_input(s);
}

/* "a, b, c": the schemes that read option o (--pe-dim: under concat),
 * into buf. */
static void readers(char *buf, size_t cap, const PeOption *o, const PeConfig *pc) {
    size_t len = 0, count = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        Combine k = o == &pe_opt_width ? COMBINE_CONCAT : pe_combine_given(pc);
        if (!pe_reads(s, k, o))
            continue;
        int w = snprintf(buf + len, cap - len, "%s%s", count++ ? ", " : "", s->name);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
}

/* Whether one of the schemes names[0..n) reads o. */
static bool read_by_any(const PeConfig *pc, const char *const *names, size_t n,
                        const PeOption *o) {
    for (size_t i = 0; i < n; i++) {
        const PeScheme *s = pe_find(names[i]);
        if (s && pe_reads(s, pe_combine_given(pc), o))
            return true;
    }
    return false;
}

int pe_check_read(const PeConfig *pc, const char *const *names, size_t n, Err *e) {
    for (size_t g = 0; g < pc->n_given; g++) { /* in the registry's order */
        const PeOption *o = pc->given[g].option;
        if (read_by_any(pc, names, n, o))
            continue;
        char chosen[256], who[256];
        readers(who, sizeof who, o, pc);
        const char *under = o == &pe_opt_width ? " under --combine concat" : "";
        if (n == 1)
            return err_set(e, ERR_INPUT, "%s does nothing for the %s scheme, which does not read "
                           "it; drop it or choose a scheme that does (%s%s)", o->flag, names[0],
                           who, under);
        size_t len = 0;
        chosen[0] = '\0';
        for (size_t i = 0; i < n && len < sizeof chosen; i++) {
            int w = snprintf(chosen + len, sizeof chosen - len, "%s%s", i ? ", " : "", names[i]);
            len += w > 0 ? (size_t)w : 0;
        }
        return err_set(e, ERR_INPUT, "%s applies to none of %s; drop it or add a scheme that reads "
                       "it (%s%s)", o->flag, chosen, who, under);
    }
    return 0;
}

const PeOption *pe_unused_option(const PePlan *plan, const PeConfig *pc) {
    for (size_t g = 0; g < pc->n_given; g++)
        if (!pe_reads(plan->scheme, plan->combine, pc->given[g].option))
            return pc->given[g].option;
    return NULL;
}

PeConfig pe_config_for(const PeConfig *pc, const PeScheme *s) {
    PeConfig r = *pc;
    snprintf(r.name, sizeof r.name, "%s", s->name);
    Combine combine = pe_combine_given(pc);
    for (size_t g = pc->n_given; g-- > 0;)
        if (!pe_reads(s, combine, pc->given[g].option))
            pe_unset(&r, pc->given[g].option);
    return r;
}

bool pe_in_attention(const PeScheme *s) { return s->rotate || s->score || s->mix; }

bool pe_in_input(const PeScheme *s) { return s->width != NULL; }

void pe_config_default(PeConfig *pc, const char *name) {
    memset(pc, 0, sizeof *pc);
    snprintf(pc->name, sizeof pc->name, "%s", name);
}

int pe_plan(PePlan *plan, const PeConfig *pc, size_t C, size_t NH, size_t max_len, Err *e) {
    memset(plan, 0, sizeof *plan);
    const PeScheme *s = pe_find(pc->name);
    if (!s)
        return err_set(e, ERR_INPUT, "unknown positional encoding '%s': choose one of %s",
                       pc->name, pe_names());
    if (pc->n_given > PE_GIVEN_MAX)
        return err_set(e, ERR_INPUT, "%zu scheme options given, more than the %d a "
                       "configuration holds", pc->n_given, PE_GIVEN_MAX);
    for (size_t g = 0; g < pc->n_given; g++)
        if (pe_option_index(pc->given[g].option) == pe_option_count())
            return err_set(e, ERR_INPUT, "an option no scheme has is set");
    /* Every option given, a checkpoint's or a library caller's too, as the
     * command line takes it: in range, or one of its names. */
    for (size_t g = 0; g < pc->n_given; g++) {
        const PeOption *o = pc->given[g].option;
        if (!pe_option_ok(o, pe_get(pc, o))) {
            char text[64];
            pe_option_text(pc, o, text, sizeof text);
            PeConfig copy = *pc;
            return pe_set(&copy, o, text, e) ? ERR_INPUT
                                             : err_set(e, ERR_INPUT, "%s: a bad value", o->flag);
        }
    }
    /* Only the attention schemes act per head (the model checks the heads
     * for itself). */
    if (pe_in_attention(s) && (NH == 0 || C % NH != 0))
        return err_set(e, ERR_INPUT, "%s acts in each head, but %zu heads do not divide d_model "
                       "%zu; choose --heads among the divisors of %zu", s->name, NH, C, C);
    Combine given = pe_combine_given(pc);
    if (pe_in_attention(s) && given != COMBINE_DEFAULT)
        return err_set(e, ERR_INPUT, "%s adds nothing to the word vectors (it acts inside "
                       "attention), so there is nothing to combine: drop --combine", s->name);
    plan->scheme = s;
    plan->n_heads = NH;
    plan->head_size = NH ? C / NH : 0;
    plan->combine = given == COMBINE_DEFAULT ? s->default_combine : given;
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
    PeShape shape = {.C = C, .NH = NH, .max_len = max_len};
    int rc = s->check ? s->check(pc, &shape, e) : 0;
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

const PeScheme *pe_reader_of(const PeOption *o) {
    for (size_t i = 0; o && i < pe_count(); i++)
        if (pe_reads(pe_at(i), COMBINE_DEFAULT, o))
            return pe_at(i);
    return NULL;
}

const PeScheme *pe_tunable_scheme(void) {
    for (size_t i = 0; i < pe_option_count(); i++)
        if (pe_option_at(i)->tunable)
            return pe_reader_of(pe_option_at(i));
    return NULL;
}

void pe_fill_run(PeConfig *pc, size_t trained_len) {
    const PeScheme *s = pe_find(pc->name);
    if (s && s->fill_run)
        s->fill_run(pc, trained_len);
}

size_t pe_scratch(const PePlan *plan, const PeConfig *pc, size_t T) {
    const PeScheme *s = plan->scheme;
    return s->scratch ? s->scratch(pc, T, plan->head_size) : 0;
}

size_t pe_work(const PePlan *plan, const PeConfig *pc, size_t T) {
    const PeScheme *s = plan->scheme;
    return s->work ? s->work(pc, T, plan->head_size, plan->n_heads) : 0;
}

/* The factor of positions lo..hi, true; false (g untouched) for a scheme
 * whose scores take none. */
static bool gain_of(PeGain *g, const PePlan *plan, const PeConfig *pc, size_t lo, size_t hi) {
    const PeScheme *s = plan->scheme;
    if (!s->score_gain)
        return false;
    *g = (PeGain){0};
    s->score_gain(g, pc, plan->head_size, hi - lo, PE_GAIN_SHARE);
    return true;
}

/* "raise --xpos-scale-base to 3 or more, ...": what brings the factor
 * back within half of float's range, the share the advice keeps. */
static void gain_advice(char *buf, size_t cap, const PeGain *g) {
    snprintf(buf, cap, "raise %s to %g or more, or keep a sentence's positions within %zu of "
             "each other (either keeps the factor within 10^%.1f, half of float's range, the "
             "other half q.k's)", g->option ? g->option->flag : "its option", g->option_min,
             g->span_max, PE_GAIN_SHARE);
}

/* where: the scheme's factor over positions lo..hi, how far it goes past
 * float's range or half of it (past), and what to change. */
static void gain_words(char *buf, size_t cap, const PePlan *plan, const PeGain *g,
                       const char *where, const char *past) {
    int n = snprintf(buf, cap, "%s: %s's %s = 10^%.1f multiplies the score of the two tokens "
                     "farthest apart, %s; ", where, plan->scheme->name, g->formula, g->log10,
                     past);
    if (n > 0 && (size_t)n < cap)
        gain_advice(buf + n, cap - (size_t)n, g);
}

int pe_check_span(const PePlan *plan, const PeConfig *pc, size_t lo, size_t hi, const char *where,
                  Err *e) {
    PeGain g;
    if (!gain_of(&g, plan, pc, lo, hi) || g.log10 <= PE_FLOAT_LOG10)
        return 0;
    char msg[sizeof e->msg];
    gain_words(msg, sizeof msg, plan, &g, where, "past float32's largest number (10^38.5): "
               "attention would overflow to NaN whatever the weights");
    return err_set(e, ERR_INPUT, "%s", msg);
}

void pe_gain_cause(char *buf, size_t cap, const PePlan *plan, const PeConfig *pc, size_t lo,
                   size_t hi, const char *where) {
    PeGain g;
    buf[0] = '\0';
    if (!gain_of(&g, plan, pc, lo, hi) || g.log10 <= PE_GAIN_SHARE)
        return;
    gain_words(buf, cap, plan, &g, where, g.log10 > PE_FLOAT_LOG10
               ? "past float32's largest number (10^38.5)"
               : "more than half of float32's range (10^38.5), and q.k took it past");
}

size_t pe_positions_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc, (void)HS;
    return T;
}

void pe_positions_prepare(float *P, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)pc, (void)HS;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)pos[t];
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
