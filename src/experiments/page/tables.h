/* What the page's tables and verdicts share (tables.c): the bands of
 * lengths, a band table's header and cells, the rows of one per scheme,
 * and the test between two sets of seeds with its wording. */
#ifndef POSENC_TABLES_H
#define POSENC_TABLES_H

#include <stddef.h>

#include "../../core/buf.h"
#include "results.h"

#define EXP_SOLVED 0.95 /* an accuracy this high solves a task */
#define EXP_P_REAL 0.05 /* two sets of seeds differ when the U test gives less */

/* The three bands of every length table: trained (min_len..L), up to 2L,
 * up to 4L. */
void exp_bands(const ExpResults *r, Band *b);
/* "| first | 4..8 (trained) | 9..16 | 17..32 |" and its rule line. */
void exp_band_header(Buf *b, const Band *bands, const char *first);
/* n zeroed items of size bytes for a table's rows (one per scheme: as
 * many as the grid has, never a fixed most); NULL when out of memory,
 * which marks b failed as its own allocations do, so that exp_write
 * reports the page as not written. */
void *exp_table_alloc(Buf *b, size_t n, size_t size);
/* " mean ± SD [lowest, highest] |": a table cell, "n/a" when undefined. */
void exp_cell_range(Buf *b, Stat s);
/* Two-sided p of the U test between the seeds of a and b. */
double exp_p(Stat a, Stat b);
/* "p = 0.008, Cliff's delta 0.84 (large)" for a against b. */
void exp_test_text(Buf *b, Stat x, Stat y);
/* A Buf's bytes for "%.*s" (a Buf holds no terminating NUL). */
#define TEXT(buf) (buf).failed ? 0 : (int)(buf).n, (buf).p ? (const char *)(buf).p : ""

#endif
