/* libFuzzer target for the training-log reader (trainlog_parse, what
 * pe_plot --kind curves reads): any bytes give a log whose every step is a
 * finite number, or an error with a message; never a crash or a leak. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/plot/trainlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    char *buf = malloc(len ? len : 1); /* exact size: ASan sees a read past the end */
    if (!buf)
        return 0;
    if (len)
        memcpy(buf, bytes, len);
    TrainLog log;
    Err e;
    int rc = trainlog_parse(&log, buf, len, "fuzz.csv", &e);
    if (rc == 0) {
        for (size_t i = 0; i < log.n; i++)
            if (!isfinite(log.step[i]))
                abort();
        trainlog_free(&log);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    free(buf);
    return 0;
}
