#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/fileio.h"
#include "checkpoint_legacy.h"
#include "checkpoint_read.h"

_Static_assert(PE_MAX_WIDTH == MAX_DIM, "pe.h's widths are the model's");
_Static_assert(MODEL_OPT_COUNT <= PE_GIVEN_MAX, "the model's options fit the pairs' buffer");

static const unsigned char MAGIC[8] = {'P', 'O', 'S', 'E', 'N', 'C', 'M', 'D'};
#define HEADER_BYTES 24 /* magic, version, flags, file size */
#define FLAG_TRAIN 1u
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

/* A count, then (name, value) string pairs. */
static void put_pairs(Buf *b, const char (*pairs)[2][512], size_t n) {
    buf_put_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        put_str(b, pairs[i][0]);
        put_str(b, pairs[i][1]);
    }
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
    buf_put_u32(b, c->causal);
    put_f64(b, c->dropout);
    buf_put_u32(b, (uint32_t)c->pool);
    put_str(b, c->pe.name);
    /* the options given, by name, as the command line writes them */
    char pairs[PE_GIVEN_MAX][2][512];
    size_t n = 0;
    for (; n < c->pe.n_given && n < PE_GIVEN_MAX; n++) { /* in the registry's order */
        const PeOption *o = c->pe.given[n].option;
        snprintf(pairs[n][0], sizeof pairs[n][0], "%s", o->flag + 2);
        pe_option_text(&c->pe, o, pairs[n][1], sizeof pairs[n][1]);
    }
    put_pairs(b, (const char (*)[2][512])pairs, n);
    /* version 7: the model's options not at their defaults, the same way */
    n = 0;
    for (size_t i = 0; i < MODEL_OPT_COUNT; i++)
        if (model_option_given(c, i)) {
            snprintf(pairs[n][0], sizeof pairs[n][0], "%s", model_option_name(i));
            model_option_text(c, i, pairs[n][1], sizeof pairs[n][1]);
            n++;
        }
    put_pairs(b, (const char (*)[2][512])pairs, n);
}

static void put_train(Buf *b, const Trainer *t, const TrainMeta *mt) {
    char pairs[TRAIN_OPT_COUNT][2][512];
    size_t n = 0;
    for (size_t i = 0; i < TRAIN_OPT_COUNT; i++)
        if (train_option_given(mt, &t->opt, i)) {
            snprintf(pairs[n][0], sizeof pairs[n][0], "%s", train_option_name(i) + 2);
            train_option_text(mt, &t->opt, i, pairs[n][1], sizeof pairs[n][1]);
            n++;
        }
    put_pairs(b, (const char (*)[2][512])pairs, n);
    buf_put_u64(b, t->step);
    put_f32(b, t->opt.beta1);
    put_f32(b, t->opt.beta2);
    put_f32(b, t->opt.eps);
    buf_put_u64(b, mt->seed);
    for (int i = 0; i < 4; i++)
        buf_put_u64(b, mt->rng.s[i]);
    put_f64(b, mt->seconds);
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

static void get_floats(Rd *r, float *x, size_t n, const char *what) {
    for (size_t i = 0; i < n && !r->rc; i++) {
        x[i] = ck_f32(r);
        if (!r->rc && !isfinite(x[i])) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s value %zu is not a finite number", what, i);
            ck_bad(r, msg);
        }
    }
}

/* Version 6's (name, value) pairs: each name found by find (count: not
 * found) and its value set by set, once; kind names them in messages
 * ("scheme", "run"). */
static void get_pairs(Rd *r, const char *kind, size_t count, size_t (*find)(const char *),
                      int (*set)(void *, size_t, const char *, Err *), void *target) {
    size_t n = ck_size(r, 0, count, "the number of options");
    bool *seen = n ? calloc(count, sizeof *seen) : NULL;
    if (n && !seen) {
        r->rc = err_set(r->e, ERR_RUNTIME, "out of memory reading %s", r->name);
        return;
    }
    for (size_t i = 0; i < n && !r->rc; i++) {
        char name[256], value[CK_MAX_STRING];
        ck_str(r, name, sizeof name);
        ck_str(r, value, sizeof value);
        if (r->rc)
            break;
        size_t opt = find(name);
        char msg[sizeof((Err){0}.msg) + 64];
        if (opt == count) {
            r->rc = err_set(r->e, ERR_INPUT, "%s sets the %s option '%s', which this build does "
                            "not know: it was written by a newer version of posenc; use that "
                            "version", r->name, kind, name);
            break;
        }
        Err e;
        if (seen[opt]) {
            snprintf(msg, sizeof msg, "it sets the %s option '%s' twice", kind, name);
            ck_bad(r, msg);
        } else if (set(target, opt, value, &e)) {
            ck_bad(r, e.msg);
        }
        seen[opt] = true;
    }
    free(seen);
}

static size_t find_scheme(const char *name) {
    const PeOption *o = pe_option_find(name);
    return o ? pe_option_index(o) : pe_option_count();
}

static int set_scheme(void *pc, size_t opt, const char *text, Err *e) {
    return pe_set(pc, pe_option_at(opt), text, e);
}

static int set_model(void *c, size_t opt, const char *text, Err *e) {
    return model_option_set(c, opt, text, e);
}

static int set_run(void *ck, size_t opt, const char *text, Err *e) {
    Checkpoint *c = ck;
    return train_option_set(&c->meta, &c->opt, opt, text, e);
}

static void get_config(Rd *r, Config *c) {
    r->section = "configuration";
    memset(c, 0, sizeof *c);
    c->vocab_size = ck_size(r, 2, MAX_DIM, "the vocabulary size");
    c->d_model = ck_size(r, 1, MAX_DIM, "d_model");
    c->n_heads = ck_size(r, 1, MAX_DIM, "the number of heads");
    c->n_layers = ck_size(r, 1, MAX_LAYERS, "the number of layers");
    c->d_ff = ck_size(r, 1, MAX_DIM, "d_ff");
    c->max_len = ck_size(r, 1, MAX_DIM, "max_len");
    c->norm = (NormPlace)ck_enum(r, 2, "the norm placement");
    c->act = (Activation)ck_enum(r, 2, "the activation");
    c->scale_embed = ck_enum(r, 2, "scale_embed");
    c->n_classes = ck_size(r, 0, MAX_DIM, "the number of classes");
    c->per_token = ck_enum(r, 2, "per_token");
    c->seed = ck_u64(r);
    if (r->version < 6) {
        ck_legacy_config(r, c);
    } else {
        c->causal = ck_enum(r, 2, "causal");
        c->dropout = (float)ck_f64(r);
        c->pool = (Pooling)ck_enum(r, 2, "the pooling");
        ck_str(r, c->pe.name, sizeof c->pe.name);
        get_pairs(r, "scheme", pe_option_count(), find_scheme, set_scheme, &c->pe);
        /* before version 7 every model had the defaults */
        if (r->version >= 7)
            get_pairs(r, "model", MODEL_OPT_COUNT, model_option_find, set_model, c);
    }
    Err e;
    PePlan plan;
    if (!r->rc && config_check(c, &e)) {
        char msg[sizeof e.msg + 32];
        snprintf(msg, sizeof msg, "its configuration is invalid: %s", e.msg);
        ck_bad(r, msg);
    } else if (!r->rc && !pe_plan(&plan, &c->pe, c->d_model, c->n_heads, c->max_len, &e) &&
               pe_unused_option(&plan, &c->pe)) {
        /* what train refuses on its command line no file holds either */
        char msg[160];
        snprintf(msg, sizeof msg, "its configuration sets %s, which the %s scheme does not read",
                 pe_unused_option(&plan, &c->pe)->flag, c->pe.name);
        ck_bad(r, msg);
    }
}

static void get_train(Rd *r, Checkpoint *ck) {
    r->section = "training state";
    /* what a file does not hold stays at train's defaults */
    train_meta_default(&ck->meta);
    opt_default(&ck->opt);
    TrainMeta *mt = &ck->meta;
    if (r->version < 6) {
        ck_legacy_train(r, &ck->meta, &ck->opt, &ck->step);
    } else {
        get_pairs(r, "run", TRAIN_OPT_COUNT, train_option_find, set_run, ck);
        ck->step = ck_size(r, 0, SIZE_MAX / 2, "the step");
        ck->opt.beta1 = ck_f32(r);
        ck->opt.beta2 = ck_f32(r);
        ck->opt.eps = ck_f32(r);
        mt->seed = ck_u64(r);
        for (int i = 0; i < 4; i++)
            mt->rng.s[i] = ck_u64(r);
        mt->seconds = ck_f64(r);
    }
    Err e;
    char msg[sizeof e.msg + 64];
    if (!r->rc && opt_check(&ck->opt, &e)) {
        snprintf(msg, sizeof msg, "the optimizer settings are invalid: %s", e.msg);
        ck_bad(r, msg);
    }
    if (!r->rc && !(mt->rng.s[0] | mt->rng.s[1] | mt->rng.s[2] | mt->rng.s[3]))
        ck_bad(r, "the random generator's state is all zero");
    if (!r->rc && !(mt->seconds >= 0.0 && mt->seconds < 1e12))
        ck_bad(r, "the training time is not a sensible number of seconds");
    /* A checksum proves the bytes are the ones written, not that they make
     * sense: a state train's options could not have set is refused here,
     * for evaluate as for train --resume. */
    if (!r->rc && train_meta_check(mt, ck->step, &e))
        ck_bad(r, e.msg);
    /* the model's own options and the run's: xl's --xl-rows clamped is
     * read only at the distances --random-draw ruoss draws, which train
     * refuses without them */
    char text[64];
    const PeOption *unread = r->rc ? NULL : train_layer_draws_unread(mt, &ck->model.cfg.pe,
                                                                     text, sizeof text);
    if (unread) {
        snprintf(msg, sizeof msg, "its model reads %s %s, which only the distances "
                 "--random-draw ruoss draws in every layer reach, and its run drew none "
                 "(%s)", unread->flag, text, mt->random_positions ? "its --random-draw is "
                 "positions" : "no --random-positions");
        ck_bad(r, msg);
    }
    if (r->rc)
        return;
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
            ck_bad(r, "Adam's second moment is negative");
}

static void get_words(Rd *r, size_t n, int (*add)(void *, const char *, Err *), void *set,
                      const size_t *count) {
    char word[CK_MAX_STRING];
    for (size_t i = 0; i < n && !r->rc; i++) {
        ck_str(r, word, sizeof word);
        if (r->rc)
            return;
        size_t before = *count;
        Err e;
        if (add(set, word, &e) || *count != before + 1)
            ck_bad(r, "a word or label is invalid or listed twice");
    }
}

static int add_word(void *v, const char *w, Err *e) { return vocab_add(v, w, NULL, e); }
static int add_label(void *s, const char *w, Err *e) { return labelset_add(s, w, NULL, e); }

/* The file holds held parameters where its configuration c gives want:
 * refused, and where they are the floats of c with the other choice of the
 * output projection's bias, the message says that the tensors and the
 * recorded choice disagree. */
static void count_refused(Rd *r, const Config *c, size_t held, size_t want) {
    Config other = *c;
    other.no_out_bias = !c->no_out_bias;
    if (held != config_param_count(&other)) {
        ck_bad(r, "the parameter count does not match the configuration");
        return;
    }
    char msg[512];
    snprintf(msg, sizeof msg, "its configuration records a model %s the attention output "
             "projection's bias (%zu parameters), and it holds the %zu parameters of one %s it: "
             "the tensors disagree with the recorded choice (out-bias %s)",
             c->no_out_bias ? "without" : "with", want, held,
             c->no_out_bias ? "with" : "without", c->no_out_bias ? "false" : "true");
    ck_bad(r, msg);
}

/* Everything after the header, in the layout r names; on failure ck is
 * freed. */
static int parse_body(Checkpoint *ck, Rd *r, uint32_t flags, Err *e) {
    memset(ck, 0, sizeof *ck);
    Config c;
    get_config(r, &c);
    /* Size the model from the configuration before allocating anything,
     * so a header cannot ask for more memory than the file backs. */
    size_t n_params = r->rc ? 0 : config_param_count(&c);
    r->section = "parameters";
    if (!r->rc && n_params > (r->n - r->off) / 4)
        ck_bad(r, "the configuration needs more parameters than the file holds");
    int rc = r->rc ? r->rc : model_create(&ck->model, &c, e);
    if (!rc)
        rc = vocab_init(&ck->vocab, e);
    if (rc) {
        checkpoint_free(ck);
        return rc;
    }
    labelset_init(&ck->labels);
    r->section = "vocabulary";
    size_t nv = ck_size(r, 2, MAX_DIM, "the vocabulary size");
    if (!r->rc && nv != c.vocab_size)
        ck_bad(r, "the vocabulary does not match the configuration");
    char word[CK_MAX_STRING];
    ck_str(r, word, sizeof word);
    if (!r->rc && strcmp(word, "<pad>") != 0)
        ck_bad(r, "word 0 is not <pad>");
    ck_str(r, word, sizeof word);
    if (!r->rc && strcmp(word, "<unk>") != 0)
        ck_bad(r, "word 1 is not <unk>");
    get_words(r, nv - 2, add_word, &ck->vocab, &ck->vocab.n);
    r->section = "classes";
    size_t nl = ck_size(r, 0, MAX_DIM, "the number of classes");
    if (!r->rc && nl != c.n_classes)
        ck_bad(r, "the classes do not match the configuration");
    get_words(r, nl, add_label, &ck->labels, &ck->labels.n);
    r->section = "parameters";
    size_t held = ck_size(r, 0, SIZE_MAX, "the parameter count");
    if (!r->rc && held != n_params)
        count_refused(r, &c, held, n_params);
    get_floats(r, ck->model.mem, n_params, "parameter");
    if (flags & FLAG_TRAIN) {
        ck->has_train = true;
        get_train(r, ck);
    }
    r->section = "end";
    if (!r->rc && r->off != r->n)
        ck_bad(r, "bytes are left after the last field");
    if (r->rc)
        checkpoint_free(ck);
    return r->rc;
}

int checkpoint_parse(Checkpoint *ck, const unsigned char *buf, size_t len, const char *name,
                     Err *e) {
    memset(ck, 0, sizeof *ck);
    Rd r = {.p = buf, .n = len, .name = name, .section = "header", .e = e};
    if (len < HEADER_BYTES + 8 || memcmp(buf, MAGIC, 8) != 0)
        return err_set(e, ERR_INPUT, "%s is not a posenc checkpoint (it lacks the POSENCMD "
                       "header); give a file written by build/train", name);
    r.off = 8;
    uint32_t version = ck_u32(&r), flags = ck_u32(&r);
    uint64_t size = ck_u64(&r);
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

    /* Every layout of this version, newest first: version 1 gained the
     * training time, and version 5 dropout and the pooling, without a new
     * number. Each layout reads the same content in a different number of
     * bytes, so at most one of them reads the file to its last byte. */
    static const unsigned LAYOUTS[][3] = {
        {0},                                        /* 7 (and 6): no fixed optional fields */
        {CK_SECONDS, 0},                            /* 1 */
        {CK_SECONDS},                               /* 2 */
        {CK_SECONDS},                               /* 3 */
        {CK_SECONDS},                               /* 4 */
        {CK_SECONDS | CK_DROPOUT | CK_POOL, CK_SECONDS | CK_DROPOUT, CK_SECONDS}, /* 5 */
    };
    static const size_t N_LAYOUTS[] = {1, 2, 1, 1, 1, 3};
    /* 6 and 7 are one layout but for 7's model options (get_config) */
    size_t v = version >= 6 ? 0 : version;
    Err first;
    for (size_t k = 0; k < N_LAYOUTS[v]; k++) {
        Rd try = r;
        try.layout = LAYOUTS[v][k];
        int rc = parse_body(ck, &try, flags, e);
        if (rc != ERR_INPUT)
            return rc; /* loaded, or out of memory: another layout would not help */
        if (k == 0)
            first = *e; /* the newest layout's error is the one reported */
    }
    *e = first;
    return ERR_INPUT;
}

int checkpoint_load(Checkpoint *ck, const char *path, Err *e) {
    memset(ck, 0, sizeof *ck);
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_open(e, errno, "the model", path, 0);
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
        errno = 0;
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    int why = errno;
    if (!rc && ferror(f))
        rc = err_set(e, ERR_INPUT, "cannot read %s: %s; is it a model file?", path,
                     why ? strerror(why) : "a read error");
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
