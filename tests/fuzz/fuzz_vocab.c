/* libFuzzer target for vocab_load (a vocabulary file, one word a line, as
 * encode --npy writes it): any file gives a vocabulary whose words are
 * distinct and tokenize to themselves, or an error with a message. The
 * bytes go through a file, as vocab_load reads one. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/text/vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_vocab.%ld.txt", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(bytes, 1, len, f);
    if (fclose(f) != 0 || put != len)
        return 0;
    Vocab v;
    Err e;
    int rc = vocab_load(&v, path, &e);
    if (rc == 0) {
        for (size_t i = 0; i < v.n; i++)
            if (vocab_find(&v, v.words[i]) != (int)i)
                abort();
        vocab_free(&v);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    return 0;
}
