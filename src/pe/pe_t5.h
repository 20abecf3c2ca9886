/* T5's buckets (pe_t5.c), beside its scheme: for the report and the tests. */
#ifndef POSENC_PE_T5_H
#define POSENC_PE_T5_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"

/* T5's bucket of the signed offset key - query (bidirectional): offsets
 * to the right take the upper half of the buckets; within each half,
 * distances below half of it are exact and the rest are log-spaced up to
 * max_distance, from where on all share the last bucket. */
size_t t5_bucket(long offset, size_t buckets, size_t max_distance);

#endif
