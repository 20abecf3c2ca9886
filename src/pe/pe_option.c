/* The schemes' options as data (pe.h): their list, their values in a
 * PeConfig, and their text, which the command line, the checkpoint and
 * config.json all read and write through pe_set and pe_option_text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe.h"

#include "../core/parse.h"

static const char *const COMBINE_NAMES[] = {"add", "concat", NULL};

/* Its value is the index of a name, so that "not given" (the scheme's own
 * mode) needs no name: pe_combine_given maps it to a Combine. */
const PeOption pe_opt_combine = {
    .flag = "--combine",
    .type = PE_VALUE_NAME,
    .names = COMBINE_NAMES,
    .def_text = "the scheme's own",
    .help = "how the position code meets the embedding (default: the scheme's own, concat "
            "for the one-channel counts, add for the rest; a scheme inside attention adds "
            "nothing to the input and takes none)",
    .example = "concat",
};

const PeOption pe_opt_width = {
    .flag = "--pe-dim",
    .arg = "W",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = PE_MAX_WIDTH,
    .def_text = "d_model/2",
    .help = "channels of sinusoidal/learned under concat (default d/2)",
    .example = "8",
};

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
    return o && walk(SIZE_MAX, o, &n) && n < PE_OPT_SLOTS ? n : PE_OPT_SLOTS;
}

const PeOption *pe_option_find(const char *name) {
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    for (size_t i = 0; i < pe_option_count(); i++)
        if (strcmp(pe_option_at(i)->flag + 2, name) == 0)
            return pe_option_at(i);
    return NULL;
}

double pe_get(const PeConfig *pc, const PeOption *o) {
    size_t i = pe_option_index(o);
    return i < PE_OPT_SLOTS && (pc->given >> i & 1u) ? pc->value[i] : o->def;
}

bool pe_given(const PeConfig *pc, const PeOption *o) {
    size_t i = pe_option_index(o);
    return i < PE_OPT_SLOTS && (pc->given >> i & 1u);
}

void pe_put(PeConfig *pc, const PeOption *o, double v) {
    size_t i = pe_option_index(o);
    if (i >= PE_OPT_SLOTS)
        return;
    pc->given |= (PeOptMask)1 << i;
    pc->value[i] = v;
}

void pe_unset(PeConfig *pc, const PeOption *o) {
    size_t i = pe_option_index(o);
    if (i >= PE_OPT_SLOTS)
        return;
    pc->given &= ~((PeOptMask)1 << i);
    pc->value[i] = 0.0;
}

PeOptMask pe_options_given(const PeConfig *pc) { return pc->given; }

Combine pe_combine_given(const PeConfig *pc) {
    return pe_given(pc, &pe_opt_combine) ? (Combine)(1 + (int)pe_get(pc, &pe_opt_combine))
                                         : COMBINE_DEFAULT;
}

static size_t name_count(const PeOption *o) {
    size_t n = 0;
    while (o->names && o->names[n])
        n++;
    return n;
}

bool pe_option_ok(const PeOption *o, double v) {
    if (o->type == PE_VALUE_NAME)
        return v >= 0.0 && v < (double)name_count(o) && v == floor(v);
    if (o->type == PE_VALUE_SIZE && v != floor(v))
        return false;
    /* NaN fails both comparisons */
    return v >= o->lo && v <= o->hi;
}

/* "a, b or c": the names of o, into buf. */
static void names_of(char *buf, size_t cap, const PeOption *o) {
    size_t len = 0, n = name_count(o);
    buf[0] = '\0';
    for (size_t v = 0; v < n && len < cap; v++) {
        const char *sep = v == 0 ? "" : v + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s%s", sep, o->names[v]);
        len += w > 0 ? (size_t)w : 0;
    }
}

int pe_set(PeConfig *pc, const PeOption *o, const char *text, Err *e) {
    switch (o->type) {
    case PE_VALUE_SIZE: {
        size_t v;
        if (parse_size_def(&v, o->flag, text, (size_t)o->lo, (size_t)o->hi, o->def_text, e))
            return ERR_INPUT;
        pe_put(pc, o, (double)v);
        return 0;
    }
    case PE_VALUE_REAL: {
        double v;
        if (parse_real_def(&v, o->flag, text, o->lo, o->hi, o->def_text, e))
            return ERR_INPUT;
        pe_put(pc, o, v);
        return 0;
    }
    case PE_VALUE_NAME:
        for (size_t v = 0; v < name_count(o); v++)
            if (strcmp(text, o->names[v]) == 0) {
                pe_put(pc, o, (double)v);
                return 0;
            }
        break;
    }
    char names[128];
    names_of(names, sizeof names, o);
    return err_set(e, ERR_INPUT, "%s is %s (default %s), not '%s'", o->flag, names, o->def_text,
                   text);
}

int pe_set_named(PeConfig *pc, const char *name, const char *text, Err *e) {
    const PeOption *o = pe_option_find(name);
    if (!o)
        return err_set(e, ERR_INPUT, "no scheme has an option '%s'", name);
    return pe_set(pc, o, text, e);
}

void pe_option_text(const PeConfig *pc, const PeOption *o, char *buf, size_t cap) {
    double v = pe_get(pc, o);
    if (o->type == PE_VALUE_SIZE && pe_option_ok(o, v))
        snprintf(buf, cap, "%.0f", v);
    else if (o->type == PE_VALUE_NAME)
        /* a value no name has is written so that it reads back as an error */
        snprintf(buf, cap, "%s", pe_option_ok(o, v) ? o->names[(size_t)v] : "?");
    else
        real_text(buf, cap, v, false);
}
