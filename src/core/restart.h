/* Starting the program again with a few environment variables set, for
 * the libraries that read their settings once, while they load, before
 * main: OpenBLAS's OPENBLAS_CORETYPE (chosen in src/model/kernels.c). */
#ifndef POSENC_RESTART_H
#define POSENC_RESTART_H

#include <stdbool.h>
#include <stddef.h>

/* A variable to set for the second start. */
typedef struct {
    const char *name, *value;
} EnvSetting;

/* In the first start: sets the n variables and runs the program again
 * (execv of /proc/self/exe with the same argv); returns only if exec
 * failed (then nothing is set, and the libraries keep their defaults).
 * In the second start (found by a marker in the environment): takes the
 * variables it set out of the environment again, so that a program this
 * one starts sees the user's, and returns. Call it first thing in main,
 * before any thread starts; n = 0 does nothing. */
void restart_with(char **argv, const EnvSetting *set, size_t n);

/* Whether this start set name (restart_with in the first start), for the
 * programs' lines on their threads. */
bool restart_set(const char *name);

#endif
