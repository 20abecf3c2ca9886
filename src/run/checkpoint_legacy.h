/* Versions 1 to 5 of the checkpoint, for checkpoint.c's loader. Not part
 * of the library's interface. */
#ifndef POSENC_CHECKPOINT_LEGACY_H
#define POSENC_CHECKPOINT_LEGACY_H

#include <stddef.h>

#include "../model/model.h"
#include "../model/train.h"
#include "checkpoint_read.h"
#include "train_options.h"

/* The configuration's fields after the seed, and the optimizer's settings,
 * step and run options of the training state, as versions 1 to 5 wrote
 * them (binary, at fixed places): each option given is put into c->pe, or
 * mt and o, through the parser of the command line (pe_set,
 * train_option_set), as version 6's options are. mt and o hold train's
 * defaults on entry. */
void ck_legacy_config(Rd *r, Config *c);
void ck_legacy_train(Rd *r, TrainMeta *mt, OptConfig *o, size_t *step);

#endif
