/* The page writers' one error style (docs/architecture.md, STYLE 14): a
 * number that could not be computed is an error, never a NaN or a "cannot
 * tell" verdict on the page. Memory for the tables and the verdicts comes
 * from exp_page_alloc (zeroed, as calloc) and exp_page_realloc, which
 * remember a failure, as the statistics remember theirs
 * (src/stats/stats.h, stats_failed); the writers call exp_page_begin
 * first and exp_page_end before they write the page, which then fails:
 * ERR_RUNTIME for memory, ERR_INPUT for a template that does not fill
 * (prose.h). Single-threaded, as the page is written. */
#ifndef POSENC_EXP_ERRORS_H
#define POSENC_EXP_ERRORS_H

#include <stddef.h>

#include "../../core/err.h"

void *exp_page_alloc(size_t n, size_t size);
void *exp_page_realloc(void *p, size_t size);
void exp_page_begin(void);
int exp_page_end(const char *page, Err *e);

#endif
