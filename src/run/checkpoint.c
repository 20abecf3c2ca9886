#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "checkpoint.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/fileio.h"

static const unsigned char MAGIC[8] = {'P', 'O', 'S', 'E', 'N', 'C', 'M', 'D'};
#define HEADER_BYTES 24 /* magic, version, flags, file size */
#define FLAG_TRAIN 1u
#define MAX_STRING 4096
#define MAX_FILE_BYTES ((uint64_t)16 << 30) /* no model here comes near; a header saying more is damaged */

/* ---- writing: the whole file is built in memory, little-endian ---- */

static void put_f32(Buf *b, float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    buf_put_u32(b, u);
}

static void put_f64(Buf *b, double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    buf_put_u64(b, u);
}

static void put_str(Buf *b, const char *s) {
    size_t n = strlen(s);
    buf_put_u32(b, (uint32_t)n);
    buf_put(b, s, n);
}

static void put_floats(Buf *b, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        put_f32(b, x[i]);
}

static void put_config(Buf *b, const Config *c) {
    buf_put_u64(b, c->vocab_size);
    buf_put_u64(b, c->d_model);
    buf_put_u64(b, c->n_heads);
    buf_put_u64(b, c->n_layers);
    buf_put_u64(b, c->d_ff);
    buf_put_u64(b, c->max_len);
    buf_put_u32(b, (uint32_t)c->norm);
    buf_put_u32(b, (uint32_t)c->act);
    buf_put_u32(b, c->scale_embed);
    buf_put_u64(b, c->n_classes);
    buf_put_u32(b, c->per_token);
    buf_put_u64(b, c->seed);
    put_str(b, c->pe.name);
    buf_put_u32(b, (uint32_t)c->pe.combine);
    buf_put_u64(b, c->pe.width);
    buf_put_u64(b, c->pe.pairs);
    buf_put_u32(b, (uint32_t)c->pe.layout);
    put_f64(b, c->pe.base);
    buf_put_u64(b, c->pe.buckets);
    buf_put_u64(b, c->pe.max_distance);
    put_f64(b, c->pe.init_std);
    buf_put_u32(b, c->causal);
    buf_put_u32(b, (uint32_t)c->pe.rope_scaling);
    put_f64(b, c->pe.rope_factor);
    buf_put_u64(b, c->pe.rope_original_len);
    buf_put_u64(b, c->pe.max_relative);
    buf_put_u32(b, (uint32_t)c->pe.alibi_slopes);
    put_f64(b, c->dropout);
    buf_put_u32(b, (uint32_t)c->pool);
}

static void put_train(Buf *b, const Trainer *t, const TrainMeta *mt) {
    const OptConfig *o = &t->opt;
    put_f32(b, o->lr);
    put_f32(b, o->beta1);
    put_f32(b, o->beta2);
    put_f32(b, o->eps);
    put_f32(b, o->weight_decay);
    put_f32(b, o->clip);
    buf_put_u32(b, (uint32_t)o->schedule);
    buf_put_u64(b, o->warmup);
    buf_put_u64(b, t->step);
    put_str(b, mt->task);
    put_str(b, mt->data);
    put_str(b, mt->valid);
    const TaskOptions *to = &mt->task_opt;
    buf_put_u64(b, to->min_len);
    buf_put_u64(b, to->max_len);
    buf_put_u64(b, to->max_train_len);
    buf_put_u64(b, to->n_train);
    buf_put_u64(b, to->n_valid);
    buf_put_u64(b, to->n_test);
    buf_put_u64(b, to->seed);
    buf_put_u64(b, mt->batch);
    buf_put_u64(b, mt->steps);
    buf_put_u64(b, mt->eval_every);
    buf_put_u64(b, mt->seed);
    for (int i = 0; i < 4; i++)
        buf_put_u64(b, mt->rng.s[i]);
    put_f64(b, mt->seconds);
    buf_put_u64(b, mt->random_positions);
    put_floats(b, t->m, t->n);
    put_floats(b, t->v, t->n);
}

int checkpoint_save(const char *path, const Model *m, const Vocab *v, const LabelSet *labels,
                    const Trainer *t, const TrainMeta *meta, Err *e) {
    Buf b = {0};
    buf_put(&b, MAGIC, 8);
    buf_put_u32(&b, CHECKPOINT_VERSION);
    buf_put_u32(&b, t && meta ? FLAG_TRAIN : 0);
    buf_put_u64(&b, 0); /* the file size, filled in below */
    put_config(&b, &m->cfg);
    buf_put_u64(&b, v->n);
    for (size_t i = 0; i < v->n; i++)
        put_str(&b, v->words[i]);
    buf_put_u64(&b, labels ? labels->n : 0);
    for (size_t i = 0; labels && i < labels->n; i++)
        put_str(&b, labels->names[i]);
    buf_put_u64(&b, m->n_params);
    put_floats(&b, m->mem, m->n_params);
    if (t && meta)
        put_train(&b, t, meta);
    buf_put_u64(&b, 0); /* room for the checksum */
    if (b.failed) {
        buf_free(&b);
        return err_set(e, ERR_RUNTIME, "out of memory building the checkpoint");
    }
    for (int i = 0; i < 8; i++)
        b.p[16 + i] = (unsigned char)((uint64_t)b.n >> (8 * i));
    uint64_t sum = buf_fnv1a(b.p, b.n - 8);
    for (int i = 0; i < 8; i++)
        b.p[b.n - 8 + i] = (unsigned char)(sum >> (8 * i));
    int rc = write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}

/* ---- reading: a cursor that refuses to step past the end ---- */

typedef struct {
    const unsigned char *p;
    size_t n, off;
    const char *name;    /* the file, for messages */
    const char *section; /* what is being read, for messages */
    uint32_t version;    /* of the file */
    Err *e;
    int rc;
} Rd;

static int bad(Rd *r, const char *what) {
    if (!r->rc)
        r->rc = err_set(r->e, ERR_INPUT, "%s: bad checkpoint: %s (in the %s); it may come from "
                        "another program or be corrupted", r->name, what, r->section);
    return r->rc;
}

static const unsigned char *take_bytes(Rd *r, size_t n) {
    if (r->rc)
        return NULL;
    if (n > r->n - r->off) {
        bad(r, "the file ends early");
        return NULL;
    }
    const unsigned char *p = r->p + r->off;
    r->off += n;
    return p;
}

static uint64_t get_u64(Rd *r) {
    const unsigned char *c = take_bytes(r, 8);
    uint64_t x = 0;
    for (int i = 0; c && i < 8; i++)
        x |= (uint64_t)c[i] << (8 * i);
    return x;
}

static uint32_t get_u32(Rd *r) {
    const unsigned char *c = take_bytes(r, 4);
    uint32_t x = 0;
    for (int i = 0; c && i < 4; i++)
        x |= (uint32_t)c[i] << (8 * i);
    return x;
}

static float get_f32(Rd *r) {
    uint32_t u = get_u32(r);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static double get_f64(Rd *r) {
    uint64_t u = get_u64(r);
    double x;
    memcpy(&x, &u, 8);
    return x;
}

/* A size that must lie in [lo, hi]. */
static size_t get_size(Rd *r, size_t lo, size_t hi, const char *what) {
    uint64_t x = get_u64(r);
    if (!r->rc && (x < lo || x > hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s is %llu, outside %zu..%zu", what, (unsigned long long)x,
                 lo, hi);
        bad(r, msg);
    }
    return (size_t)x;
}

static uint32_t get_enum(Rd *r, uint32_t count, const char *what) {
    uint32_t x = get_u32(r);
    if (!r->rc && x >= count) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s has the unknown value %u", what, x);
        bad(r, msg);
    }
    return x;
}

/* A length-prefixed string into dst (cap bytes), without NUL bytes. */
static void get_str(Rd *r, char *dst, size_t cap) {
    uint32_t n = get_u32(r);
    if (!r->rc && n >= cap) {
        bad(r, "a string is too long");
        return;
    }
    const unsigned char *c = take_bytes(r, n);
    if (!c)
        return;
    if (memchr(c, '\0', n)) {
        bad(r, "a string holds a NUL byte");
        return;
    }
    memcpy(dst, c, n);
    dst[n] = '\0';
}

static void get_floats(Rd *r, float *x, size_t n, const char *what) {
    for (size_t i = 0; i < n && !r->rc; i++) {
        x[i] = get_f32(r);
        if (!r->rc && !isfinite(x[i])) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s value %zu is not a finite number", what, i);
            bad(r, msg);
        }
    }
}

static void get_config(Rd *r, Config *c) {
    r->section = "configuration";
    memset(c, 0, sizeof *c);
    c->vocab_size = get_size(r, 2, MAX_DIM, "the vocabulary size");
    c->d_model = get_size(r, 1, MAX_DIM, "d_model");
    c->n_heads = get_size(r, 1, MAX_DIM, "the number of heads");
    c->n_layers = get_size(r, 1, MAX_LAYERS, "the number of layers");
    c->d_ff = get_size(r, 1, MAX_DIM, "d_ff");
    c->max_len = get_size(r, 1, MAX_DIM, "max_len");
    c->norm = (NormPlace)get_enum(r, 2, "the norm placement");
    c->act = (Activation)get_enum(r, 2, "the activation");
    c->scale_embed = get_enum(r, 2, "scale_embed");
    c->n_classes = get_size(r, 0, MAX_DIM, "the number of classes");
    c->per_token = get_enum(r, 2, "per_token");
    c->seed = get_u64(r);
    get_str(r, c->pe.name, sizeof c->pe.name);
    c->pe.combine = (Combine)get_enum(r, 3, "the combine mode");
    c->pe.width = get_size(r, 0, MAX_DIM, "the code width");
    c->pe.pairs = get_size(r, 0, MAX_DIM, "the number of sin/cos pairs");
    c->pe.layout = (SinLayout)get_enum(r, 2, "the sinusoid layout");
    c->pe.base = get_f64(r);
    /* rope, alibi and t5 came with version 2, shaw with version 5: an
     * older file that names one was not written by any build */
    const PeScheme *s = pe_find(c->pe.name);
    unsigned since = !s ? 1 : s->key_scores ? 5 : pe_in_attention(s) ? 2 : 1;
    if (r->version < since) {
        char msg[96];
        snprintf(msg, sizeof msg, "it is a version %u file, which cannot hold %s (it came with "
                 "version %u)", (unsigned)r->version, s->name, since);
        bad(r, msg);
    }
    if (r->version >= 2) {
        c->pe.buckets = get_size(r, 0, MAX_DIM, "the number of t5 buckets");
        c->pe.max_distance = get_size(r, 0, SIZE_MAX / 2, "t5's maximum distance");
        c->pe.init_std = get_f64(r);
    }
    if (r->version >= 3)
        c->causal = get_enum(r, 2, "causal");
    if (r->version >= 4) {
        c->pe.rope_scaling = (RopeScaling)get_enum(r, 4, "the rope scaling");
        c->pe.rope_factor = get_f64(r);
        c->pe.rope_original_len = get_size(r, 0, MAX_DIM, "rope's original length");
    }
    if (r->version >= 5) {
        c->pe.max_relative = get_size(r, 0, PE_MAX_RELATIVE_MAX, "shaw's clipping distance");
        c->pe.alibi_slopes = (AlibiSlopes)get_enum(r, 2, "alibi's slopes");
        c->dropout = (float)get_f64(r);
        c->pool = (Pooling)get_enum(r, 2, "the pooling");
    }
    Err e;
    PePlan plan;
    if (!r->rc && config_check(c, &e)) {
        char msg[sizeof e.msg + 32];
        snprintf(msg, sizeof msg, "its configuration is invalid: %s", e.msg);
        bad(r, msg);
    } else if (!r->rc && !pe_plan(&plan, &c->pe, c->d_model, c->n_heads, c->max_len, &e) &&
               pe_unused_option(&plan, &c->pe)) {
        /* what train refuses on its command line no file holds either */
        char msg[160];
        snprintf(msg, sizeof msg, "its configuration sets %s, which the %s scheme does not read",
                 pe_unused_option(&plan, &c->pe), c->pe.name);
        bad(r, msg);
    }
}

static void get_train(Rd *r, Checkpoint *ck) {
    r->section = "training state";
    OptConfig *o = &ck->opt;
    o->lr = get_f32(r);
    o->beta1 = get_f32(r);
    o->beta2 = get_f32(r);
    o->eps = get_f32(r);
    o->weight_decay = get_f32(r);
    o->clip = get_f32(r);
    o->schedule = (Schedule)get_enum(r, 2, "the schedule");
    o->warmup = get_size(r, 0, SIZE_MAX, "the warm-up");
    Err e;
    if (!r->rc && (opt_check(o, &e) || !isfinite(o->weight_decay) || !isfinite(o->clip) ||
                   o->warmup > TRAIN_MAX_STEPS))
        bad(r, "the optimizer settings are invalid");
    ck->step = get_size(r, 0, SIZE_MAX / 2, "the step");
    TrainMeta *mt = &ck->meta;
    get_str(r, mt->task, sizeof mt->task);
    get_str(r, mt->data, sizeof mt->data);
    get_str(r, mt->valid, sizeof mt->valid);
    TaskOptions *to = &mt->task_opt;
    to->min_len = get_size(r, 0, MAX_DIM, "min_len");
    to->max_len = get_size(r, 0, MAX_DIM, "max_len");
    to->max_train_len = get_size(r, 0, MAX_DIM, "max_train_len");
    to->n_train = get_size(r, 0, SIZE_MAX, "the training examples");
    to->n_valid = get_size(r, 0, SIZE_MAX, "the validation examples");
    to->n_test = get_size(r, 0, SIZE_MAX, "the test examples");
    to->seed = get_u64(r);
    mt->batch = get_size(r, 1, MAX_DIM, "the batch");
    mt->steps = get_size(r, 0, SIZE_MAX / 2, "the steps");
    mt->eval_every = get_size(r, 0, SIZE_MAX / 2, "the evaluation interval");
    mt->seed = get_u64(r);
    uint64_t any = 0;
    for (int i = 0; i < 4; i++)
        any |= mt->rng.s[i] = get_u64(r);
    if (!r->rc && any == 0)
        bad(r, "the random generator's state is all zero");
    mt->seconds = get_f64(r);
    if (!r->rc && !(mt->seconds >= 0.0 && mt->seconds < 1e12))
        bad(r, "the training time is not a sensible number of seconds");
    if (r->version >= 2)
        mt->random_positions = get_size(r, 0, MAX_DIM, "the range of random positions");
    /* A checksum proves the bytes are the ones written, not that they make
     * sense: a state train's options could not have set is refused here,
     * for evaluate as for train --resume. */
    if (!r->rc && train_meta_check(mt, ck->step, &e)) {
        char msg[sizeof e.msg + 32];
        snprintf(msg, sizeof msg, "%s", e.msg);
        bad(r, msg);
    }
    size_t n = ck->model.n_params;
    ck->m = malloc(n * sizeof *ck->m);
    ck->v = malloc(n * sizeof *ck->v);
    if (!ck->m || !ck->v) {
        r->rc = err_set(r->e, ERR_RUNTIME, "out of memory loading %s", r->name);
        return;
    }
    get_floats(r, ck->m, n, "Adam's first moment");
    get_floats(r, ck->v, n, "Adam's second moment");
    for (size_t i = 0; i < n && !r->rc; i++)
        if (ck->v[i] < 0.0f)
            bad(r, "Adam's second moment is negative");
}

int train_meta_check(const TrainMeta *mt, size_t step, Err *e) {
    /* the same ranges as train's options (examples/cli.c) */
    if (mt->batch < 1 || mt->batch > TRAIN_MAX_BATCH)
        return err_set(e, ERR_INPUT, "the batch is %zu, outside 1..%d", mt->batch,
                       TRAIN_MAX_BATCH);
    if (mt->steps < 1 || mt->steps > TRAIN_MAX_STEPS)
        return err_set(e, ERR_INPUT, "the steps are %zu, outside 1..%d", mt->steps,
                       TRAIN_MAX_STEPS);
    if (mt->eval_every < 1 || mt->eval_every > TRAIN_MAX_STEPS)
        return err_set(e, ERR_INPUT, "the evaluation interval is %zu, outside 1..%d",
                       mt->eval_every, TRAIN_MAX_STEPS);
    if (step > mt->steps)
        return err_set(e, ERR_INPUT, "the step %zu is past the %zu steps the run was asked for",
                       step, mt->steps);
    if (mt->random_positions > MAX_DIM)
        return err_set(e, ERR_INPUT, "the range of random positions is %zu, more than %d",
                       mt->random_positions, MAX_DIM);
    if (mt->task[0]) {
        TaskOptions o;
        if (mt->data[0] || mt->valid[0])
            return err_set(e, ERR_INPUT, "it names both a task and a data file");
        return task_options_resolve(&o, &mt->task_opt, mt->task, e);
    }
    if (!mt->data[0])
        return err_set(e, ERR_INPUT, "it names neither a task nor a data file");
    return 0;
}

static void get_words(Rd *r, size_t n, int (*add)(void *, const char *, Err *), void *set,
                      const size_t *count) {
    char word[MAX_STRING];
    for (size_t i = 0; i < n && !r->rc; i++) {
        get_str(r, word, sizeof word);
        if (r->rc)
            return;
        size_t before = *count;
        Err e;
        if (add(set, word, &e) || *count != before + 1)
            bad(r, "a word or label is invalid or listed twice");
    }
}

static int add_word(void *v, const char *w, Err *e) { return vocab_add(v, w, NULL, e); }
static int add_label(void *s, const char *w, Err *e) { return labelset_add(s, w, NULL, e); }

int checkpoint_parse(Checkpoint *ck, const unsigned char *buf, size_t len, const char *name,
                     Err *e) {
    memset(ck, 0, sizeof *ck);
    Rd r = {.p = buf, .n = len, .name = name, .section = "header", .e = e};
    if (len < HEADER_BYTES + 8 || memcmp(buf, MAGIC, 8) != 0)
        return err_set(e, ERR_INPUT, "%s is not a posenc checkpoint (it lacks the POSENCMD "
                       "header); give a file written by build/train", name);
    r.off = 8;
    uint32_t version = get_u32(&r), flags = get_u32(&r);
    uint64_t size = get_u64(&r);
    if (version < 1 || version > CHECKPOINT_VERSION)
        return err_set(e, ERR_INPUT, "%s is a version %u checkpoint; this build reads versions "
                       "1 to %d: train the model again with this build", name, version,
                       CHECKPOINT_VERSION);
    r.version = version;
    if (size != len)
        return err_set(e, ERR_INPUT, "%s has %zu bytes but its header says %llu: the file was "
                       "truncated or damaged; save it again", name, len,
                       (unsigned long long)size);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* The fuzzer cannot forge a checksum; it skips this check to reach
     * the field checks behind it. */
    uint64_t sum = 0;
    for (int i = 0; i < 8; i++)
        sum |= (uint64_t)buf[len - 8 + i] << (8 * i);
    if (sum != buf_fnv1a(buf, len - 8))
        return err_set(e, ERR_INPUT, "%s is corrupted: its checksum does not match its "
                       "contents; use another copy or train again", name);
#endif
    if (flags & ~FLAG_TRAIN)
        return err_set(e, ERR_INPUT, "%s has unknown flags %u", name, flags);
    r.n = len - 8; /* the checksum is not a field */

    Config c;
    get_config(&r, &c);
    /* Size the model from the configuration before allocating anything,
     * so a header cannot ask for more memory than the file backs. */
    size_t n_params = r.rc ? 0 : config_param_count(&c);
    r.section = "parameters";
    if (!r.rc && n_params > (r.n - r.off) / 4)
        bad(&r, "the configuration needs more parameters than the file holds");
    int rc = r.rc ? r.rc : model_create(&ck->model, &c, e);
    if (rc) {
        checkpoint_free(ck);
        return rc;
    }
    if ((rc = vocab_init(&ck->vocab, e))) {
        checkpoint_free(ck);
        return rc;
    }
    labelset_init(&ck->labels);
    r.section = "vocabulary";
    size_t nv = get_size(&r, 2, MAX_DIM, "the vocabulary size");
    if (!r.rc && nv != c.vocab_size)
        bad(&r, "the vocabulary does not match the configuration");
    char word[MAX_STRING];
    get_str(&r, word, sizeof word);
    if (!r.rc && strcmp(word, "<pad>") != 0)
        bad(&r, "word 0 is not <pad>");
    get_str(&r, word, sizeof word);
    if (!r.rc && strcmp(word, "<unk>") != 0)
        bad(&r, "word 1 is not <unk>");
    get_words(&r, nv - 2, add_word, &ck->vocab, &ck->vocab.n);
    r.section = "classes";
    size_t nl = get_size(&r, 0, MAX_DIM, "the number of classes");
    if (!r.rc && nl != c.n_classes)
        bad(&r, "the classes do not match the configuration");
    get_words(&r, nl, add_label, &ck->labels, &ck->labels.n);
    r.section = "parameters";
    if (!r.rc && get_size(&r, 0, SIZE_MAX, "the parameter count") != n_params)
        bad(&r, "the parameter count does not match the configuration");
    get_floats(&r, ck->model.mem, n_params, "parameter");
    if (flags & FLAG_TRAIN) {
        ck->has_train = true;
        get_train(&r, ck);
    }
    r.section = "end";
    if (!r.rc && r.off != r.n)
        bad(&r, "bytes are left after the last field");
    if (r.rc) {
        checkpoint_free(ck);
        return r.rc;
    }
    return 0;
}

int checkpoint_load(Checkpoint *ck, const char *path, Err *e) {
    memset(ck, 0, sizeof *ck);
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, ERR_INPUT, "cannot open the model %s; check the path (build/train "
                       "--out writes one)", path);
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return err_set(e, ERR_INPUT, "%s is a directory; give a model file written by "
                       "build/train --out", path);
    }
    /* The header says how long the file is. A regular file's real size is
     * known before anything is allocated, so a damaged header cannot ask
     * for more memory than the file holds; for anything else (a pipe,
     * /dev/zero) the buffer grows only with the bytes that really come,
     * and stops one byte past the header's size. */
    unsigned char head[HEADER_BYTES];
    size_t got = fread(head, 1, sizeof head, f), limit = got;
    if (got == sizeof head && memcmp(head, MAGIC, 8) == 0) {
        uint64_t want = 0;
        for (int i = 0; i < 8; i++)
            want |= (uint64_t)head[16 + i] << (8 * i);
        if (S_ISREG(st.st_mode) && want != (uint64_t)st.st_size) {
            fclose(f);
            return err_set(e, ERR_INPUT, "%s has %lld bytes but its header says %llu: the file "
                           "was truncated or damaged; save it again", path,
                           (long long)st.st_size, (unsigned long long)want);
        }
        if (want >= HEADER_BYTES && want <= MAX_FILE_BYTES)
            limit = (size_t)want + 1;
    }
    size_t cap = got, n = got;
    unsigned char *buf = malloc(cap ? cap : 1);
    int rc = buf ? 0 : err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
    if (buf)
        memcpy(buf, head, got);
    while (!rc && n < limit) {
        if (n == cap) {
            size_t grow = cap < ((size_t)1 << 16) ? (size_t)1 << 16 : cap;
            cap = limit - cap < grow ? limit : cap + grow;
            unsigned char *b = realloc(buf, cap);
            if (!b) {
                rc = err_set(e, ERR_RUNTIME, "out of memory reading %s (%zu bytes)", path, cap);
                break;
            }
            buf = b;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    if (!rc && ferror(f))
        rc = err_set(e, ERR_INPUT, "cannot read %s; is it a model file?", path);
    else if (!rc)
        rc = checkpoint_parse(ck, buf, n, path, e);
    fclose(f);
    free(buf);
    return rc;
}

void checkpoint_free(Checkpoint *ck) {
    model_free(&ck->model);
    vocab_free(&ck->vocab);
    labelset_free(&ck->labels);
    free(ck->m);
    free(ck->v);
    memset(ck, 0, sizeof *ck);
}

void checkpoint_restore_trainer(const Checkpoint *ck, Trainer *t) {
    memcpy(t->m, ck->m, t->n * sizeof *t->m);
    memcpy(t->v, ck->v, t->n * sizeof *t->v);
    t->step = ck->step;
    t->opt = ck->opt;
}
