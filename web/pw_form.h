/* The training form's command line (web/posenc_form.c), for the trainer
 * (web/posenc_train.c). */
#ifndef POSENC_WEB_PW_FORM_H
#define POSENC_WEB_PW_FORM_H

#include "../src/core/err.h"
#include "../src/model/model.h"
#include "../src/model/train.h"
#include "../src/run/train_options.h"

/* args holds build/train's options one to a line, each option's value on
 * the line after it; they are parsed and checked as build/train does
 * (with its messages), then against the page's bounds, into mt, opt and
 * cfg. mt->max_memory is left for the caller. */
int pw_form_parse(TrainMeta *mt, OptConfig *opt, Config *cfg, const char *args, Err *e);

#endif
