/* The model's options a checkpoint stores by name (model.h), as data: each
 * takes one of two names, the first its default, so that a checkpoint of
 * a model at the defaults holds none of them. */
#include <stdio.h>
#include <string.h>

#include "model.h"

static const struct {
    const char *name;      /* in a checkpoint, without dashes */
    const char *said;      /* in a message: the flag that sets it, where there is one */
    const char *values[2]; /* values[0] is the default */
} OPTS[MODEL_OPT_COUNT] = {
    {"first-draws", "--first-draws", {"pytorch", "reference"}},
    /* --no-out-bias is a flag: the checkpoint says what it leaves */
    {"out-bias", "out-bias", {"true", "false"}},
};

static int value_of(const Config *c, size_t opt) {
    return opt == MODEL_OPT_FIRST_DRAWS ? (int)c->first_draws : c->no_out_bias ? 1 : 0;
}

const char *model_option_name(size_t opt) {
    return opt < MODEL_OPT_COUNT ? OPTS[opt].name : NULL;
}

size_t model_option_find(const char *name) {
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    size_t i = 0;
    while (i < MODEL_OPT_COUNT && strcmp(OPTS[i].name, name) != 0)
        i++;
    return i;
}

int model_option_set(Config *c, size_t opt, const char *text, Err *e) {
    if (opt >= MODEL_OPT_COUNT)
        return err_set(e, ERR_INPUT, "no option of a model has the number %zu", opt);
    for (int v = 0; v < 2; v++)
        if (strcmp(text, OPTS[opt].values[v]) == 0) {
            if (opt == MODEL_OPT_FIRST_DRAWS)
                c->first_draws = (FirstDraws)v;
            else
                c->no_out_bias = v == 1;
            return 0;
        }
    return err_set(e, ERR_INPUT, "%s is %s or %s, not '%s'", OPTS[opt].said, OPTS[opt].values[0],
                   OPTS[opt].values[1], text);
}

void model_option_text(const Config *c, size_t opt, char *buf, size_t cap) {
    int v = opt < MODEL_OPT_COUNT ? value_of(c, opt) : -1;
    /* a value no name has is written so that it reads back as an error */
    snprintf(buf, cap, "%s", v == 0 || v == 1 ? OPTS[opt].values[v] : "?");
}

bool model_option_given(const Config *c, size_t opt) {
    return opt < MODEL_OPT_COUNT && value_of(c, opt) != 0;
}
