/* libFuzzer target for a checkpoint's training state, the class of issue
 * 9's first defect (eval_every 0 passed the checksum and divided by zero
 * in train --resume): whatever checkpoint_parse accepts with a training
 * state must hold what train's loop relies on (train_meta_check's ranges)
 * and survive the loop's arithmetic: the evaluation interval, the steps
 * left, the learning-rate schedule at the saved step, the batch buffers'
 * sizes and the task's options; and every option of the run, written back
 * as its text, must parse again as the command line parses it (version 6
 * stores them so, versions 1 to 5 in fixed fields). Built, like
 * fuzz_checkpoint, with the checksum check off. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/run/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    if (len)
        memcpy(buf, bytes, len);
    Checkpoint ck;
    Err e;
    int rc = checkpoint_parse(&ck, buf, len, "fuzz.bin", &e);
    if (rc == 0 && ck.has_train) {
        const TrainMeta *mt = &ck.meta;
        if (train_meta_check(mt, ck.step, &e) != 0)
            abort(); /* the loader let through what resume's checks refuse */
        for (size_t o = 0; o < TRAIN_OPT_COUNT; o++) {
            char text[512];
            TrainMeta m2 = *mt;
            OptConfig o2 = ck.opt;
            train_option_text(mt, &ck.opt, o, text, sizeof text);
            if (train_option_given(mt, &ck.opt, o) && train_option_set(&m2, &o2, o, text, &e))
                abort();
        }
        /* what train's loop computes from the state */
        volatile size_t r = ck.step % mt->eval_every, left = mt->steps - ck.step;
        (void)r;
        (void)left;
        if (!isfinite(opt_lr(&ck.opt, ck.step + 1)) || opt_lr(&ck.opt, ck.step + 1) < 0.0f)
            abort();
        size_t BT;
        if (size_mul(&BT, mt->batch, MAX_DIM, &e) != 0)
            abort();
        if (mt->task[0]) {
            TaskOptions o;
            if (task_options_resolve(&o, &mt->task_opt, mt->task, &e) != 0)
                abort();
        }
        checkpoint_free(&ck);
    } else if (rc == 0) {
        checkpoint_free(&ck);
    } else if (rc != ERR_INPUT && rc != ERR_RUNTIME) {
        abort();
    }
    free(buf);
    return 0;
}
