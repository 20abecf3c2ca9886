/* libFuzzer target for the tokenizer and the alignment demo_order does:
 * the bytes up to the first newline build a vocabulary, the rest is
 * tokenized through it, and the two halves are lined up as a sentence and
 * its permutation. Never a crash, a leak or a read out of bounds; every id
 * in range; a failed alignment an ERR_INPUT. `make fuzz` runs it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/text/order.h"
#include "../../src/text/vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    char *text = malloc(len + 1);
    if (!text)
        return 0;
    memcpy(text, bytes, len);
    text[len] = '\0'; /* the tokenizer takes C strings; a NUL ends one early */
    char *second = strchr(text, '\n');
    if (second)
        *second++ = '\0';
    else
        second = text + strlen(text);
    Vocab v;
    Err e;
    if (vocab_init(&v, &e) != 0)
        abort();
    if (vocab_add_text(&v, text, &e) == 0) {
        int *ids;
        size_t n;
        if (tokenize(&v, second, &ids, &n, NULL, &e) == 0) {
            for (size_t i = 0; i < n; i++)
                if (ids[i] < 0 || (size_t)ids[i] >= v.n)
                    abort();
            free(ids);
        } else if (e.code != ERR_INPUT) {
            abort();
        }
    } else if (e.code != ERR_INPUT) {
        abort();
    }
    Words a, b;
    if (words_split(&a, text, &e) == 0 && words_split(&b, second, &e) == 0) {
        size_t *perm = malloc((a.n ? a.n : 1) * sizeof *perm);
        if (perm && align_permutation(perm, &a, &b, &e) == 0)
            for (size_t i = 0; i < b.n; i++)
                if (perm[i] >= a.n || strcmp(a.w[perm[i]], b.w[i]) != 0)
                    abort();
        free(perm);
        words_free(&b);
    }
    words_free(&a);
    vocab_free(&v);
    free(text);
    return 0;
}
