/* libFuzzer target for the data-file parser: any bytes must give either
 * examples or an ERR_INPUT error naming the line, never a crash, a leak or
 * a read out of bounds. `make fuzz` builds and runs it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    /* a copy of exactly len bytes, so ASan catches a read one past the end
     * (libFuzzer's own buffer may have slack after it) */
    char *text = malloc(len ? len : 1);
    if (!text)
        return 0;
    if (len)
        memcpy(text, bytes, len);
    TextData d;
    Err e;
    int rc = data_parse(&d, text, len, "fuzz.txt", &e);
    if (rc != 0 && (rc != ERR_INPUT || strncmp(e.msg, "fuzz.txt:", 9) != 0))
        abort(); /* every failure on bad input is ERR_INPUT at a line */
    if (rc == 0) {
        /* what was parsed holds the promises textdata_add makes */
        for (size_t i = 0; i < d.n; i++)
            if (d.start[i + 1] <= d.start[i])
                abort();
    }
    textdata_free(&d);
    free(text);
    return 0;
}
