/* The results page's design: the schemes its sections run (design.h). */
#include "design.h"

#include "../pe/pe_sinusoidal.h"

#include <stdio.h>
#include <string.h>

const char *const exp_scaling_names[EXP_SCALINGS] = {"none",   "linear-x2", "linear-x4",
                                                     "ntk-x2", "ntk-x4",    "yarn-x2",
                                                     "yarn-x4"};

/* previous needs the word before, first the sentence's first word: both
 * within what a causal reader sees */
const char *const exp_causal_tasks[EXP_CAUSAL_TASKS] = {"previous", "first"};
const char *const exp_causal_schemes[EXP_CAUSAL_SCHEMES] = {"none", "sinusoidal", "learned",
                                                           "rope", "alibi",      "t5"};
const char *const exp_probe_names[EXP_PROBES] = {"none, causal", "none"};

/* Schemes in another form, each a row of its own: ALiBi as an encoder can
 * use it (different slopes by side, or a [CLS] word at position 0 read as
 * the sentence vector), and KERPLE's second kernel, -r1 d^r2 */
static const struct {
    const char *name, *base;
    const char *option, *value; /* the scheme option the form gives, or NULL */
    Pooling pool;
} FORMS[] = {{"asymmetric alibi", "alibi", "--alibi-slopes", "asymmetric", POOL_MEAN},
             {"cls alibi", "alibi", NULL, NULL, POOL_CLS},
             {"power kerple", "kerple", "--kerple-form", "power", POOL_MEAN}};
#define N_FORMS (sizeof FORMS / sizeof *FORMS)

/* The index in FORMS of the form called name, N_FORMS for a scheme's own name. */
static size_t form_of(const char *name) {
    size_t i = 0;
    while (i < N_FORMS && strcmp(name, FORMS[i].name) != 0)
        i++;
    return i;
}

/* The registry's schemes the grids run, in its order: all but those that
 * join them later (pe.h, grids_later). */
static size_t grid_schemes(void) {
    size_t n = 0;
    for (size_t i = 0; i < pe_count(); i++)
        n += !pe_at(i)->grids_later;
    return n;
}

static const PeScheme *grid_scheme(size_t k) {
    for (size_t i = 0; i < pe_count(); i++)
        if (!pe_at(i)->grids_later && k-- == 0)
            return pe_at(i);
    return NULL;
}

size_t exp_scheme_count(void) { return grid_schemes() + N_FORMS; }

const char *exp_scheme_at(size_t i) {
    size_t n = grid_schemes();
    return i < n ? grid_scheme(i)->name : i < n + N_FORMS ? FORMS[i - n].name : NULL;
}

size_t exp_scheme_index(const char *name) {
    size_t i = 0;
    while (i < exp_scheme_count() && strcmp(exp_scheme_at(i), name) != 0)
        i++;
    return i;
}

const PeScheme *exp_scheme_base(const char *name) {
    size_t f = form_of(name);
    return pe_find(f < N_FORMS ? FORMS[f].base : name);
}

void exp_scheme_form(Config *c, const char *name) {
    size_t f = form_of(name);
    if (f == N_FORMS)
        return;
    c->pool = FORMS[f].pool;
    /* constants, which cannot fail (tests/test_cells.c holds each form to
     * its option) */
    Err e;
    if (FORMS[f].option)
        (void)pe_set_named(&c->pe, FORMS[f].option, FORMS[f].value, &e);
}

const char *const exp_random_schemes[EXP_RANDOM_SCHEMES] = {"sinusoidal", "learned", "rope"};
const char *const exp_variant_scheme = "sinusoidal";
const char *const exp_floor_scheme = "none";

const char *exp_scaling_scheme(void) {
    const PeScheme *s = pe_tunable_scheme();
    return s && !s->grids_later ? s->name : NULL;
}

const char *const exp_variant_names[EXP_VARIANTS] = {"interleaved, add", "split, add",
                                                     "interleaved, concat",
                                                     "interleaved, add, scaled"};

void exp_variant_config(Config *c, size_t variant) {
    if (variant == 1)
        pe_put(&c->pe, &pe_opt_layout, LAYOUT_SPLIT);
    pe_put(&c->pe, &pe_opt_combine, variant == 2 ? 1 : 0); /* concat, or add */
    c->scale_embed = variant == 3;
}
