/* encode --npy: a model, one sentence's activations, the vocabulary and
 * the configuration as a directory of NumPy files (docs/formats.md). */
#ifndef POSENC_EXPORT_H
#define POSENC_EXPORT_H

#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../text/vocab.h"

/* Writes DIR/input_ids.npy, input.npy, output.npy, pooled.npy,
 * params/NAME.npy, vocab.txt and config.json for the sentence ids (T) and
 * its activations a. Everything is written into a temporary directory
 * beside dir (DIR.<pid>.tmp) and swapped in only when complete, so a
 * failed export (a full disk) leaves dir as it was and a new one leaves no
 * file of an earlier model. An existing dir must be empty or an earlier
 * export (only the names above): anything else is refused (ERR_INPUT)
 * rather than mixed into or deleted. */
/* The folder an export to dir replaces, into target (cap bytes): dir
 * without trailing slashes, and a symbolic link to a folder followed (the
 * folder is replaced, and the link keeps pointing at it). ERR_INPUT when
 * dir names something else than a folder (a file, a link to nothing),
 * saying what. A program locks it before the work (encode's --npy). */
int export_target(const char *dir, char *target, size_t cap, Err *e);

/* The check export_npy makes of dir first, for a program to make before
 * any work: ERR_INPUT if dir exists and is neither empty nor an export. */
int export_check(const char *dir, Err *e);

int export_npy(const char *dir, const Model *m, const Vocab *v, const int *ids, size_t T,
               const Acts *a, Err *e);

#endif
