/* libFuzzer target for the .npy reader (npy_read_f32, which the tests use
 * on PyTorch's fixtures): any file gives an array no larger than the file,
 * or an error with a message; never a crash, a leak or an allocation the
 * file does not back. The bytes go through a file, as the reader reads
 * one. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/run/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_npy.%ld.npy", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(bytes, 1, len, f);
    if (fclose(f) != 0 || put != len)
        return 0;
    float *x;
    size_t shape[4], nd;
    Err e;
    int rc = npy_read_f32(path, &x, shape, &nd, &e);
    if (rc == 0) {
        size_t count = 1;
        for (size_t i = 0; i < nd; i++)
            count *= shape[i];
        if (count * sizeof *x > len)
            abort();
        free(x);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    return 0;
}
