/* libFuzzer target for what `experiments --store` reads: the bytes, cut
 * into lines, go through the record reader (exp_record_line) as they would
 * arrive from GNU parallel; each complete record is parsed and checked
 * against its cell of the quick grid, as --store does before it writes.
 * Nothing may crash, leak or read out of bounds, and the reader must never
 * hand back a record that does not begin with a magic line and end with
 * "end". `make fuzz` builds and runs it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/experiments/cellfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

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
    ExpRecordReader r = {0};
    Err e;
    size_t any = strlen(EXP_CELL_MAGIC_ANY);
    for (size_t at = 0; at < len;) {
        const uint8_t *nl = memchr(bytes + at, '\n', len - at);
        size_t k = nl ? (size_t)(nl - (bytes + at)) + 1 : len - at;
        char *line = malloc(k); /* exact size: ASan sees a read past the end */
        if (!line)
            break;
        memcpy(line, bytes + at, k);
        int got = exp_record_line(&r, line, k, &e);
        free(line);
        at += k;
        if (got != EXP_RECORD_DONE)
            continue;
        const char *text = (const char *)r.text.p;
        if (r.text.n < any + 4 || memcmp(text, EXP_CELL_MAGIC_ANY, any) != 0 ||
            memcmp(text + r.text.n - 4, "end\n", 4) != 0)
            abort();
        ExpCellFile f;
        size_t used;
        bool old;
        if (exp_cell_parse(text, r.text.n, &used, &f, &old, &e) == 0) {
            const ExpCell *c = exp_cell_find(cells, n, f.id);
            if (c)
                (void)exp_cell_check(&f, &set, c, f.source, &e);
            exp_cell_file_free(&f);
        }
    }
    (void)exp_record_end(&r, &e);
    exp_record_reader_free(&r);
    return 0;
}
