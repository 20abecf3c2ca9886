/* libFuzzer target for the checkpoint loader: any bytes must give either a
 * model or an error with a message, never a crash, a leak, a read out of
 * bounds or an allocation larger than the file backs. The fuzz build
 * defines FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which skips the
 * checksum (a fuzzer cannot forge one) so that every field check behind it
 * is reached. A model that loads must run, or be refused for outputs that
 * are not finite, and hold scheme options the command line would take: each
 * written back as its text parses again (version 6's pairs and versions 1
 * to 5's fields alike). `make fuzz` builds and runs it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/run/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    /* an exact-size copy, so ASan sees a read one past the end */
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    if (len)
        memcpy(buf, bytes, len);
    Checkpoint ck;
    Err e;
    int rc = checkpoint_parse(&ck, buf, len, "fuzz.bin", &e);
    if (rc == 0) {
        for (size_t i = 0; i < pe_option_count(); i++) {
            const PeOption *o = pe_option_at(i);
            char text[64];
            PeConfig copy = ck.model.cfg.pe;
            pe_option_text(&ck.model.cfg.pe, o, text, sizeof text);
            if (pe_given(&ck.model.cfg.pe, o) && pe_set(&copy, o, text, &e) != 0)
                abort(); /* the loader let through what the command line refuses */
        }
        /* what loads must run: a forward pass over every word id */
        Acts a;
        size_t T = ck.model.cfg.vocab_size < 8 ? ck.model.cfg.vocab_size : 8;
        int ids[8];
        size_t lens[1] = {T};
        for (size_t t = 0; t < T; t++)
            ids[t] = (int)t;
        if (T <= model_max_positions(&ck.model) && acts_create(&a, &ck.model, 1, T, &e) == 0) {
            /* the one refusal a loaded model may meet: weights whose
             * outputs overflow float (any finite bytes can be such) */
            if (encoder_forward(&ck.model, &a, ids, lens, 1, T, &e) != 0 &&
                !strstr(e.msg, "not a finite number"))
                abort();
            acts_free(&a);
        }
        checkpoint_free(&ck);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    free(buf);
    return 0;
}
