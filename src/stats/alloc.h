/* The statistics' memory (stats.c, paired.c): calloc that remembers a
 * failure, for stats_failed (stats.h). */
#ifndef POSENC_STATS_ALLOC_H
#define POSENC_STATS_ALLOC_H

#include <stddef.h>

void *stats_alloc(size_t n, size_t size);

#endif
