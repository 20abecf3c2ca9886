/* Versions 1 to 5 of the checkpoint: the scheme's options and the run's
 * in binary fields at fixed places, each version adding some at the end
 * of its section (docs/formats.md keeps their table). What they hold goes
 * through the command line's parser, as version 6's text does. */
#include <stdio.h>
#include <string.h>

#include "checkpoint_internal.h"

void ck_set_scheme_options(Rd *r, PeConfig *pc, const PeConfig *raw) {
    unsigned given = pe_options_given(raw);
    for (size_t i = 0; i < PE_OPT_COUNT && !r->rc; i++) {
        char text[64];
        Err e;
        pe_option_text(raw, i, text, sizeof text);
        if ((given & (1u << i)) && pe_option_set(pc, i, text, &e))
            ck_bad(r, e.msg);
    }
}

void ck_set_run_options(Rd *r, TrainMeta *mt, OptConfig *o, const TrainMeta *raw_mt,
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
    PeConfig raw;
    memset(&raw, 0, sizeof raw);
    ck_str(r, c->pe.name, sizeof c->pe.name);
    /* rope, alibi and t5 came with version 2, shaw with version 5: an
     * older file that names one was not written by any build */
    const PeScheme *s = pe_find(c->pe.name);
    unsigned since = !s ? 1 : s->key_scores ? 5 : pe_in_attention(s) ? 2 : 1;
    if (!r->rc && r->version < since) {
        char msg[96];
        snprintf(msg, sizeof msg, "it is a version %u file, which cannot hold %s (it came with "
                 "version %u)", (unsigned)r->version, s->name, since);
        ck_bad(r, msg);
    }
    raw.combine = (Combine)ck_enum(r, 3, "the combine mode");
    raw.width = ck_size(r, 0, SIZE_MAX, "the code width");
    raw.pairs = ck_size(r, 0, SIZE_MAX, "the number of sin/cos pairs");
    raw.layout = (SinLayout)ck_enum(r, 2, "the sinusoid layout");
    raw.base = ck_f64(r);
    if (r->version >= 2) {
        raw.buckets = ck_size(r, 0, SIZE_MAX, "the number of t5 buckets");
        raw.max_distance = ck_size(r, 0, SIZE_MAX, "t5's maximum distance");
        raw.init_std = ck_f64(r);
    }
    if (r->version >= 3)
        c->causal = ck_enum(r, 2, "causal");
    if (r->version >= 4) {
        raw.rope_scaling = (RopeScaling)ck_enum(r, 4, "the rope scaling");
        raw.rope_factor = ck_f64(r);
        raw.rope_original_len = ck_size(r, 0, SIZE_MAX, "rope's original length");
    }
    if (r->version >= 5) {
        raw.max_relative = ck_size(r, 0, SIZE_MAX, "shaw's clipping distance");
        raw.alibi_slopes = (AlibiSlopes)ck_enum(r, 2, "alibi's slopes");
    }
    if (r->layout & CK_DROPOUT)
        c->dropout = (float)ck_f64(r);
    if (r->layout & CK_POOL)
        c->pool = (Pooling)ck_enum(r, 2, "the pooling");
    ck_set_scheme_options(r, &c->pe, &raw);
}

void ck_legacy_train(Rd *r, Checkpoint *ck) {
    TrainMeta raw;
    OptConfig o;
    memset(&raw, 0, sizeof raw);
    opt_default(&o);
    o.lr = ck_f32(r);
    ck->opt.beta1 = ck_f32(r);
    ck->opt.beta2 = ck_f32(r);
    ck->opt.eps = ck_f32(r);
    o.weight_decay = ck_f32(r);
    o.clip = ck_f32(r);
    o.schedule = (Schedule)ck_enum(r, 2, "the schedule");
    o.warmup = ck_size(r, 0, SIZE_MAX, "the warm-up");
    ck->step = ck_size(r, 0, SIZE_MAX / 2, "the step");
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
    ck->meta.seed = ck_u64(r);
    for (int i = 0; i < 4; i++)
        ck->meta.rng.s[i] = ck_u64(r);
    if (r->layout & CK_SECONDS)
        ck->meta.seconds = ck_f64(r);
    if (r->version >= 2)
        raw.random_positions = ck_size(r, 0, SIZE_MAX, "the range of random positions");
    /* what these versions did not save, --keep, stays at its default */
    raw.keep = ck->meta.keep;
    ck_set_run_options(r, &ck->meta, &ck->opt, &raw, &o);
}
