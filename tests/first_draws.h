/* The fixture of the first draws (tests/reference/first_draws.txt): a
 * model of each scheme in three shapes, its parameter count and the
 * checksum of its parameters' bytes. The test holds today's draws to it
 * (test_reference_model.c) and `make fixtures` adds the rows of a scheme
 * that has none (tests/regen/regen.c), with these same shapes. */
#ifndef POSENC_FIRST_DRAWS_H
#define POSENC_FIRST_DRAWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/core/err.h"
#include "../src/model/model.h"

#define FIRST_DRAWS_FILE "tests/reference/first_draws.txt"
/* The shapes, in the file's order. */
#define FIRST_DRAWS_SHAPES "abc"

/* c for scheme pe in shape which; false for a shape that is none. */
bool first_draws_shape(Config *c, char which, const char *pe);
/* The parameter count and checksum of a model of scheme pe in shape
 * which, as the file's rows hold them. */
int first_draws_row(size_t *n, uint64_t *sum, const char *pe, char which, Err *e);

#endif
