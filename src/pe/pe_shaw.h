/* Shaw et al.'s window of offsets (pe_shaw.c), beside its scheme. */
#ifndef POSENC_PE_SHAW_H
#define POSENC_PE_SHAW_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* Shaw et al.'s index of the offset key - query clipped to [-k, k]: the
 * row 0..2k of its key (and value) table, k + offset inside the window. */
size_t shaw_row(long offset, size_t k);

#endif
