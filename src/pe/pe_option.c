/* One option as data (pe_option.h): its range and its text, which the
 * command line, the checkpoint and config.json all read and write
 * through the registry's pe_set and pe_option_text; and the two options
 * every input scheme may read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_option.h"

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

int pe_option_parse(const PeOption *o, const char *text, double *v, Err *e) {
    switch (o->type) {
    case PE_VALUE_SIZE: {
        size_t n;
        if (parse_size_def(&n, o->flag, text, (size_t)o->lo, (size_t)o->hi, o->def_text, e))
            return ERR_INPUT;
        *v = (double)n;
        return 0;
    }
    case PE_VALUE_REAL:
        return parse_real_def(v, o->flag, text, o->lo, o->hi, o->def_text, e) ? ERR_INPUT : 0;
    case PE_VALUE_NAME:
        for (size_t k = 0; k < name_count(o); k++)
            if (strcmp(text, o->names[k]) == 0) {
                *v = (double)k;
                return 0;
            }
        break;
    }
    char names[128];
    names_of(names, sizeof names, o);
    return err_set(e, ERR_INPUT, "%s is %s (default %s), not '%s'", o->flag, names, o->def_text,
                   text);
}

void pe_option_format(const PeOption *o, double v, char *buf, size_t cap) {
    if (o->type == PE_VALUE_SIZE && pe_option_ok(o, v))
        snprintf(buf, cap, "%.0f", v);
    else if (o->type == PE_VALUE_NAME)
        /* a value no name has is written so that it reads back as an error */
        snprintf(buf, cap, "%s", pe_option_ok(o, v) ? o->names[(size_t)v] : "?");
    else
        real_text(buf, cap, v, false);
}
