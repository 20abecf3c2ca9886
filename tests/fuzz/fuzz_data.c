/* libFuzzer target for the data-file parser: any bytes must give either
 * examples or an ERR_INPUT error naming the line, never a crash, a leak or
 * a read out of bounds; and what parses must write and read back the same.
 * `make fuzz` builds and runs it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/text/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

static bool same_strings(char *const *a, char *const *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

/* data_write then data_read gives back d, as data.h promises. */
static void check_round_trip(const TextData *d) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/posenc_fuzz_data_%ld.txt", (long)getpid());
    TextData back;
    Err e;
    if (data_write(d, path, &e) != 0)
        return; /* a full disk is not the parser's fault */
    if (data_read(&back, path, &e) != 0)
        abort();
    size_t nw = d->start[d->n], nl = d->kind == LABELS_TOKEN ? nw : d->n;
    if (back.kind != d->kind || back.n != d->n ||
        memcmp(back.start, d->start, (d->n + 1) * sizeof *d->start) != 0 ||
        !same_strings(back.word, d->word, nw) || !same_strings(back.label, d->label, nl))
        abort();
    textdata_free(&back);
    unlink(path);
}

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
    if (rc == 0)
        check_round_trip(&d);
    textdata_free(&d);
    free(text);
    return 0;
}
