/* libFuzzer target for the cell-file reader (src/experiments/cellfile.c): any
 * bytes must give either a record or an error with a message, never a
 * crash, a leak or a read out of bounds. The fuzz build skips the checksum
 * (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION: a fuzzer cannot forge one)
 * so that every field check behind it is reached. A record checked as
 * done against its cell of the quick grid goes where the page takes it:
 * into the results and through the means per length band, which must not
 * crash on anything the loader accepts. `make fuzz` builds and runs it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/experiments/cellfile.h"
#include "../../src/experiments/page/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

/* What the page does with a cell's series: a run each, then bands. */
static void publish(const ExpSettings *set, const ExpCell *c, const ExpCellResult *r) {
    ExpResults res;
    Err e;
    if (exp_results_init(&res, set, &e))
        return;
    exp_results_add_cell(&res, c, r);
    for (size_t i = 0; i < res.n; i++)
        for (size_t lo = 0; lo <= 4 * set->L + 1; lo++)
            (void)exp_band(&res.runs[i], lo, 4 * set->L);
    exp_results_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    static ExpSettings set;
    static ExpCell *cells;
    static size_t n;
    if (!cells) {
        Err e;
        exp_settings(&set, true, 0);
        if (exp_cells(&set, &cells, &n, &e))
            abort();
    }
    char *buf = malloc(len ? len : 1); /* exact size: ASan sees a read past the end */
    if (!buf)
        return 0;
    if (len)
        memcpy(buf, bytes, len);
    ExpCellFile f;
    Err e;
    size_t used;
    bool old;
    int rc = exp_cell_parse(buf, len, &used, &f, &old, &e);
    if (rc == 0) {
        if (used > len)
            abort();
        const ExpCell *c = exp_cell_find(cells, n, f.id);
        if (c && exp_cell_check(&f, &set, c, f.source, &e) == CELL_DONE)
            publish(&set, c, &f.res);
        exp_cell_file_free(&f);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    free(buf);
    return 0;
}
