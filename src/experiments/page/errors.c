#include "errors.h"

#include <stdbool.h>
#include <stdlib.h>

#include "../../stats/stats.h"
#include "prose.h"

static bool page_oom; /* since exp_page_begin */

void *exp_page_alloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    page_oom |= p == NULL;
    return p;
}

void *exp_page_realloc(void *p, size_t size) {
    void *q = realloc(p, size);
    page_oom |= q == NULL;
    return q;
}

void exp_page_begin(void) {
    page_oom = false;
    stats_clear();
    prose_begin();
}

int exp_page_end(const char *page, Err *e) {
    if (page_oom || stats_failed())
        return err_set(e, ERR_RUNTIME, "out of memory computing the statistics of %s: the page "
                       "was not written", page);
    Err why;
    if (prose_end(&why))
        return err_set(e, ERR_INPUT, "the page was not written: %s", why.msg);
    return 0;
}
