/* Versions 1 to 5 of the checkpoint: the scheme's options and the run's
 * in binary fields at fixed places, each version adding some at the end
 * of its section (docs/formats.md keeps their table). What they hold goes
 * through the command line's parser, as version 6's text does. */
#include <stdio.h>
#include <string.h>

#include "checkpoint_legacy.h"

/* A field of the scheme's options at a fixed place: 0 was "not given";
 * anything else goes through the command line's parser as its text, for
 * the same checks and messages (an enum's field counts its names from 1
 * when 0 stood for the default, from 0 otherwise). */
static void legacy_option(Rd *r, PeConfig *pc, const char *key, double v, double first) {
    if (r->rc || v == 0.0)
        return;
    const PeOption *o = pe_option_find(key);
    PeConfig raw = *pc;
    pe_put(&raw, o, v - first);
    char text[64];
    pe_option_text(&raw, o, text, sizeof text);
    Err e;
    if (pe_set(pc, o, text, &e))
        ck_bad(r, e.msg);
}

/* Each option of raw's given, set into mt and o from its text: the
 * command line's ranges and messages for what a file holds. */
static void set_run_options(Rd *r, TrainMeta *mt, OptConfig *o, const TrainMeta *raw_mt,
                            const OptConfig *raw_o) {
    for (size_t i = 0; i < TRAIN_OPT_COUNT && !r->rc; i++) {
        char text[512];
        Err e;
        train_option_text(raw_mt, raw_o, i, text, sizeof text);
        if (train_option_given(raw_mt, raw_o, i) && train_option_set(mt, o, i, text, &e))
            ck_bad(r, e.msg);
    }
}

void ck_legacy_config(Rd *r, Config *c) {
    PeConfig *pc = &c->pe;
    ck_str(r, pc->name, sizeof pc->name);
    /* an older file than the scheme (rope, alibi and t5 came with version
     * 2, shaw with version 5) was not written by any build */
    const PeScheme *s = pe_find(pc->name);
    if (!r->rc && s && r->version < s->since) {
        char msg[96];
        snprintf(msg, sizeof msg, "it is a version %u file, which cannot hold %s (it came with "
                 "version %u)", (unsigned)r->version, s->name, s->since);
        ck_bad(r, msg);
    }
    legacy_option(r, pc, "combine", (double)ck_enum(r, 3, "the combine mode"), 1);
    legacy_option(r, pc, "pe-dim", (double)ck_size(r, 0, SIZE_MAX, "the code width"), 0);
    legacy_option(r, pc, "pairs", (double)ck_size(r, 0, SIZE_MAX, "the number of sin/cos pairs"),
                  0);
    legacy_option(r, pc, "layout", (double)ck_enum(r, 2, "the sinusoid layout"), 0);
    legacy_option(r, pc, "base", ck_f64(r), 0);
    if (r->version >= 2) {
        legacy_option(r, pc, "buckets", (double)ck_size(r, 0, SIZE_MAX, "the number of t5 buckets"),
                      0);
        legacy_option(r, pc, "max-distance",
                      (double)ck_size(r, 0, SIZE_MAX, "t5's maximum distance"), 0);
        legacy_option(r, pc, "pe-init-std", ck_f64(r), 0);
    }
    if (r->version >= 3)
        c->causal = ck_enum(r, 2, "causal");
    if (r->version >= 4) {
        legacy_option(r, pc, "rope-scaling", (double)ck_enum(r, 4, "the rope scaling"), 0);
        legacy_option(r, pc, "rope-factor", ck_f64(r), 0);
        legacy_option(r, pc, "rope-original-len",
                      (double)ck_size(r, 0, SIZE_MAX, "rope's original length"), 0);
    }
    if (r->version >= 5) {
        legacy_option(r, pc, "max-relative",
                      (double)ck_size(r, 0, SIZE_MAX, "shaw's clipping distance"), 0);
        legacy_option(r, pc, "alibi-slopes", (double)ck_enum(r, 2, "alibi's slopes"), 0);
    }
    if (r->layout & CK_DROPOUT)
        c->dropout = (float)ck_f64(r);
    if (r->layout & CK_POOL)
        c->pool = (Pooling)ck_enum(r, 2, "the pooling");
}

void ck_legacy_train(Rd *r, TrainMeta *mt, OptConfig *opt, size_t *step) {
    TrainMeta raw;
    OptConfig o;
    memset(&raw, 0, sizeof raw);
    opt_default(&o);
    o.lr = ck_f32(r);
    opt->beta1 = ck_f32(r);
    opt->beta2 = ck_f32(r);
    opt->eps = ck_f32(r);
    o.weight_decay = ck_f32(r);
    o.clip = ck_f32(r);
    o.schedule = (Schedule)ck_enum(r, 2, "the schedule");
    o.warmup = ck_size(r, 0, SIZE_MAX, "the warm-up");
    *step = ck_size(r, 0, SIZE_MAX / 2, "the step");
    ck_str(r, raw.task, sizeof raw.task);
    ck_str(r, raw.data, sizeof raw.data);
    ck_str(r, raw.valid, sizeof raw.valid);
    TaskOptions *to = &raw.task_opt;
    to->min_len = ck_size(r, 0, SIZE_MAX, "min_len");
    to->max_len = ck_size(r, 0, SIZE_MAX, "max_len");
    to->max_train_len = ck_size(r, 0, SIZE_MAX, "max_train_len");
    to->n_train = ck_size(r, 0, SIZE_MAX, "the training examples");
    to->n_valid = ck_size(r, 0, SIZE_MAX, "the validation examples");
    to->n_test = ck_size(r, 0, SIZE_MAX, "the test examples");
    to->seed = ck_u64(r);
    raw.batch = ck_size(r, 0, SIZE_MAX, "the batch");
    raw.steps = ck_size(r, 0, SIZE_MAX, "the steps");
    raw.eval_every = ck_size(r, 0, SIZE_MAX, "the evaluation interval");
    mt->seed = ck_u64(r);
    for (int i = 0; i < 4; i++)
        mt->rng.s[i] = ck_u64(r);
    if (r->layout & CK_SECONDS)
        mt->seconds = ck_f64(r);
    if (r->version >= 2)
        raw.random_positions = ck_size(r, 0, SIZE_MAX, "the range of random positions");
    /* what these versions did not save, --keep, stays at its default */
    raw.keep = mt->keep;
    set_run_options(r, mt, opt, &raw, &o);
}
