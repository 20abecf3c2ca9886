/* An option of a scheme, as data: its flag, type, range, default and
 * help, and its value's text, both ways. What an option is alone; the
 * list of every scheme's options and the values a PeConfig gives them
 * are the registry's (pe.h, pe.c). */
#ifndef POSENC_PE_OPTION_H
#define POSENC_PE_OPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"

#define PE_MAX_WIDTH 32768 /* the model's MAX_DIM (model.h; pe is below it) */

/* ---- options as data ----
 *
 * Each option a scheme reads is declared once, as a PeOption in the file
 * of the scheme that owns it (an option two schemes read, --base and
 * --layout, in the first one's; --combine and --pe-dim, which every input
 * scheme may read, in pe_option.c), and listed in each reader's
 * PeScheme.options. The command line, every --help list, the rule that
 * refuses an option no chosen scheme reads, the checkpoint (which stores
 * options by key, as text), config.json, the web page and the tests'
 * tables all loop over the registry's list, pe_option_at() of pe.h. */
typedef enum { PE_VALUE_SIZE, PE_VALUE_REAL, PE_VALUE_NAME } PeValueType;

typedef struct PeOption {
    const char *flag;         /* "--max-relative"; its key in files is the flag without "--" */
    const char *arg;          /* what --help shows after the flag, e.g. "K"; NULL for a
                               * PE_VALUE_NAME option, whose names show ("add|concat") */
    PeValueType type;
    double lo, hi;            /* PE_VALUE_SIZE and PE_VALUE_REAL: the range, both ends in */
    const char *const *names; /* PE_VALUE_NAME: value i is named names[i]; NULL-terminated */
    double def;               /* the value when the option is not given */
    const char *def_text;     /* the default as messages say it, e.g. "16", "d_model/2" */
    const char *help;         /* --help's text after the flag, one line (the programs wrap it) */
    const char *example;      /* a valid value other than the default, for the tests */
    bool tunable;             /* may change on a trained model (train --init, evaluate):
                               * it changes no parameter's shape (rope's scalings) */
    bool layer_draws;         /* read only at the distances --random-draw ruoss draws in
                               * every layer: training refuses another value than the
                               * default without them */
} PeOption;

/* Whether value v is one o takes (in range, a name's index, finite). */
bool pe_option_ok(const PeOption *o, double v);
/* The value of o's command-line text: the whole text, in o's range (both
 * ends included) or among its names, or ERR_INPUT with a message that
 * names the option, states the range applied and quotes the text. */
int pe_option_parse(const PeOption *o, const char *text, double *v, Err *e);
/* Value v of o as the command line writes it ("split", "10000", "0.1": a
 * number in the shortest text that reads back as the same double), so
 * that pe_option_parse of the text gives v back exactly. */
void pe_option_format(const PeOption *o, double v, char *buf, size_t cap);

/* The options every input scheme may read: --combine (add|concat; not
 * given: the scheme's own), and --pe-dim, the width of a wide scheme's
 * code under concat. */
extern const PeOption pe_opt_combine, pe_opt_width;

#endif
