/* What the page's tables and verdicts share: the bands of lengths, a band
 * table's header and cells, the rows of one per scheme, and the test
 * between two sets of seeds with its wording. */
#include <math.h>
#include <stdlib.h>

#include "tables.h"
#include "stats.h"

void exp_bands(const ExpResults *r, Band *b) {
    size_t L = r->set.L;
    b[0] = (Band){r->set.min_len, L};
    b[1] = (Band){L + 1, 2 * L};
    b[2] = (Band){2 * L + 1, 4 * L};
}

void exp_band_header(Buf *b, const Band *bands, const char *first) {
    buf_printf(b, "| %s | %zu..%zu (trained) | %zu..%zu | %zu..%zu |\n| --- | ---: | ---: | ---: |\n",
               first, bands[0].lo, bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo,
               bands[2].hi);
}

void *exp_table_alloc(Buf *b, size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        b->failed = true;
    return p;
}

void exp_cell_range(Buf *b, Stat s) {
    if (isnan(s.mean))
        buf_printf(b, " n/a |");
    else
        buf_printf(b, " %.4f ± %.4f [%.3f, %.3f] |", s.mean, s.sd, s.lo, s.hi);
}

double exp_p(Stat a, Stat b) { return mann_whitney_p(a.v, a.n, b.v, b.n); }

void exp_test_text(Buf *b, Stat x, Stat y) {
    double d = cliffs_delta(x.v, x.n, y.v, y.n);
    buf_printf(b, "p = %.3f, Cliff's delta %+.2f (%s)", exp_p(x, y), d, cliffs_size(d));
}
