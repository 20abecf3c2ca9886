/* The checkpoint's format (issue 25): the options of the scheme and of the
 * run stored by name as their command-line text and read back through
 * the command line's parser, with its ranges and messages; names unknown
 * or repeated refused; and each earlier version, as its own build wrote
 * it, loading and giving that build's outputs. Part of the train suite. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/buf.h"
#include "../src/pe/pe.h"
#include "../src/run/checkpoint.h"
#include "../src/run/session.h"
#include "suites.h"

/* The bytes of a checkpoint of a small model of scheme pe, with its
 * configuration edited by edit; *n its length. */
static unsigned char *checkpoint_bytes(const char *pe, void (*edit)(Config *), size_t *n) {
    Config c;
    config_default(&c, 4, pe);
    c.d_model = 8, c.n_heads = 2, c.d_ff = 8, c.n_layers = 1, c.n_classes = 2;
    if (edit)
        edit(&c);
    Model m;
    Vocab v;
    Err e;
    ck_assert_msg(model_create(&m, &c, &e) == 0, "%s", e.msg);
    ck_assert(vocab_init(&v, &e) == 0 && vocab_add_text(&v, "a b", &e) == 0);
    LabelSet l;
    labelset_init(&l);
    ck_assert(labelset_add(&l, "x", NULL, &e) == 0 && labelset_add(&l, "y", NULL, &e) == 0);
    char *path = temp_file();
    ck_assert_msg(checkpoint_save(path, &m, &v, &l, NULL, NULL, &e) == 0, "%s", e.msg);
    model_free(&m);
    vocab_free(&v);
    labelset_free(&l);
    char *bytes = slurp(path);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fclose(f);
    remove(path);
    return (unsigned char *)bytes;
}

/* A valid checksum over edited bytes, as a forger would write it. */
static void fix_checksum(unsigned char *b, size_t n) {
    uint64_t h = POSENC_FNV_BASIS;
    for (size_t i = 0; i + 8 < n; i++)
        h = (h ^ b[i]) * POSENC_FNV_PRIME;
    for (int i = 0; i < 8; i++)
        b[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void base_1234(Config *c) { set_opt(&c->pe, "--base", "1234.5"); }
static void rope_buckets(Config *c) { pe_put(&c->pe, pe_option_find("buckets"), 8); }

/* b (*n bytes of a checkpoint) with its first string `from` (a name or a
 * value: a u32 length, then the bytes) replaced by `to`, the size in the
 * header and the checksum made right, as a forger would write them. */
static unsigned char *splice(unsigned char *b, size_t *n, const char *from, const char *to) {
    size_t nf = strlen(from), nt = strlen(to), at = 0;
    for (size_t i = 24; i + 4 + nf <= *n && !at; i++)
        if (b[i] == (unsigned char)nf && !b[i + 1] && !b[i + 2] && !b[i + 3] &&
            memcmp(b + i + 4, from, nf) == 0)
            at = i;
    ck_assert_msg(at, "'%s' is not in the file", from);
    unsigned char *c = malloc(*n - nf + nt);
    ck_assert_ptr_nonnull(c);
    memcpy(c, b, at);
    c[at] = (unsigned char)nt, c[at + 1] = c[at + 2] = c[at + 3] = 0;
    memcpy(c + at + 4, to, nt);
    memcpy(c + at + 4 + nt, b + at + 4 + nf, *n - at - 4 - nf);
    free(b);
    *n = *n - nf + nt;
    for (int i = 0; i < 8; i++)
        c[16 + i] = (unsigned char)((uint64_t)*n >> (8 * i));
    fix_checksum(c, *n);
    return c;
}

/* A fixture of tests/reference/checkpoints, whole. */
static unsigned char *fixture(const char *name, size_t *n) {
    char path[256];
    snprintf(path, sizeof path, "tests/reference/checkpoints/%s.bin", name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no %s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n);
    ck_assert(b && fread(b, 1, *n, f) == *n);
    fclose(f);
    return b;
}

/* Refused, with the message of the command line's parser for opt's text. */
static void refused_as_the_command_line(const unsigned char *b, size_t n, const char *opt,
                                        const char *text) {
    Checkpoint ck;
    Err e, cli;
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    ck_assert_msg(pe_set_named(&pc, opt, text, &cli) == ERR_INPUT, "%s %s is in range", opt,
                  text);
    ck_assert_msg(checkpoint_parse(&ck, b, n, "forged", &e) == ERR_INPUT, "%s %s loaded", opt,
                  text);
    ck_assert_msg(strstr(e.msg, cli.msg) != NULL, "the loader's message is not the command "
                  "line's '%s': %s", cli.msg, e.msg);
}

/* The loader refuses what the command line refuses, with its message (it
 * took a base of NaN as 10000, and inf, 1e300, 1.0000001; a version 1
 * file naming rope or t5; an option the scheme does not read): version
 * 6's text and the binary fields of versions 1 to 5 go through one parser. */
START_TEST(the_loader_refuses_what_the_command_line_refuses) {
    const char *bad[] = {"nan", "inf", "1e300", "1.0000001", "-5", "1.0000009999999997",
                         "0x10", " 500", "500 "};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        size_t n;
        unsigned char *b = checkpoint_bytes("sinusoidal", base_1234, &n);
        b = splice(b, &n, "1234.5", bad[k]);
        if (strcmp(bad[k], "0x10") != 0) /* strtod reads hex: 16 is a base */
            refused_as_the_command_line(b, n, "--base", bad[k]);
        free(b);
    }
    /* the command line says the same */
    expect_exit("pe_report", "--pe sinusoidal --base nan", 2,
                "--base wants a number from 1.000001 to 1e+12 (default 10000), not 'nan'");
    /* version 1's base, an f64 (500 in the fixture) */
    const double nan = NAN, was = 500.0;
    size_t n;
    unsigned char *b = fixture("v1", &n);
    size_t at = 0;
    for (size_t i = 24; i + 8 <= n && !at; i++)
        if (memcmp(b + i, &was, 8) == 0)
            at = i;
    ck_assert_msg(at, "the base is not in the file");
    memcpy(b + at, &nan, 8);
    fix_checksum(b, n);
    refused_as_the_command_line(b, n, "--base", "nan");
    free(b);
    /* rope, alibi and t5 came with version 2, shaw with version 5 */
    const char *at_v1[] = {"rope", "alibi", "t5"};
    for (size_t k = 0; k < 3; k++) {
        Checkpoint ck;
        Err e;
        b = splice(fixture("v1", &n), &n, "sinusoidal", at_v1[k]);
        ck_assert_int_eq(checkpoint_parse(&ck, b, n, "forged", &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, "version 1") != NULL, "%s", e.msg);
        free(b);
    }
    {
        Checkpoint ck;
        Err e;
        b = splice(fixture("v4", &n), &n, "rope", "shaw");
        ck_assert_int_eq(checkpoint_parse(&ck, b, n, "forged", &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, "version 4 file, which cannot hold shaw") != NULL, "%s",
                      e.msg);
        free(b);
    }
    b = checkpoint_bytes("rope", rope_buckets, &n);
    Checkpoint ck;
    Err e;
    ck_assert_int_eq(checkpoint_parse(&ck, b, n, "forged", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--buckets") != NULL, "%s", e.msg);
    free(b);
}
END_TEST

/* Each option a scheme reads at its example value (PeOption.example: not
 * the default, as the command line takes it). */
static void set_read(Config *c, const PeScheme *s) {
    for (size_t o = 0; o < pe_option_count(); o++)
        if (pe_reads(s, COMBINE_CONCAT, pe_option_at(o)))
            set_opt(&c->pe, pe_option_at(o)->flag, pe_option_at(o)->example);
}

static const PeScheme *scheme_now;
static void read_all(Config *c) {
    c->d_model = 16;
    set_read(c, scheme_now);
}

/* Version 6 stores the scheme's options by name, as their command-line
 * text (only those set), and reads every one of every scheme back as it
 * was; the run's options likewise (--keep among them, which a resume
 * forgot). */
START_TEST(options_are_stored_by_name_and_read_back) {
    for (size_t i = 0; i < pe_count(); i++) {
        scheme_now = pe_at(i);
        size_t n;
        unsigned char *b = checkpoint_bytes(scheme_now->name, read_all, &n);
        Config want;
        config_default(&want, 4, scheme_now->name);
        read_all(&want);
        Checkpoint ck;
        Err e;
        ck_assert_msg(checkpoint_parse(&ck, b, n, scheme_now->name, &e) == 0, "%s", e.msg);
        ck_assert_msg(memcmp(&ck.model.cfg.pe, &want.pe, sizeof want.pe) == 0, "%s: the options "
                      "read back differ", scheme_now->name);
        for (size_t o = 0; o < pe_option_count(); o++)
            if (pe_given(&want.pe, pe_option_at(o))) {
                /* the pair (name, value) is in the file, as text */
                const char *name = pe_option_at(o)->flag + 2, *val = pe_option_at(o)->example;
                bool found = false;
                for (size_t k = 0; k + strlen(name) + strlen(val) + 4 <= n && !found; k++)
                    found = memcmp(b + k, name, strlen(name)) == 0 &&
                            b[k + strlen(name)] == strlen(val) &&
                            memcmp(b + k + strlen(name) + 4, val, strlen(val)) == 0;
                ck_assert_msg(found, "%s: no pair %s = %s", scheme_now->name, name, val);
            }
        checkpoint_free(&ck);
        free(b);
    }
    /* the run's: every one set away from train's defaults */
    TrainMeta mt;
    train_meta_default(&mt);
    OptConfig opt;
    opt_default(&opt);
    const char *run_set[][2] = {
        {"--task", "stack_manipulation"}, {"--min-len", "3"}, {"--max-len", "7"},
        {"--max-train-len", "6"}, {"--train-examples", "90"}, {"--valid-examples", "30"},
        {"--test-examples", "40"}, {"--data-seed", "9"},   {"--pad-loss", "on"},
        {"--steps", "12"},
        {"--batch", "5"},        {"--eval-every", "4"},   {"--random-positions", "32"},
        {"--batches", "by-length"}, {"--random-draw", "ruoss"}, {"--train-draw", "fresh"},
        {"--embed-std", "0.02"},
        {"--lr", "0.003"},       {"--warmup", "3"},       {"--schedule", "noam"},
        {"--weight-decay", "0.05"}, {"--clip", "0.5"},    {"--keep", "last"}};
    /* all but a data file's four (--data, --valid and their contents'
     * hashes), which a task's run has none of */
    ck_assert_uint_eq(sizeof run_set / sizeof *run_set, TRAIN_OPT_COUNT - 4);
    for (size_t i = 0; i < sizeof run_set / sizeof *run_set; i++) {
        Err e;
        size_t o = train_option_find(run_set[i][0]);
        ck_assert_msg(o < TRAIN_OPT_COUNT && train_option_set(&mt, &opt, o, run_set[i][1], &e)
                      == 0, "%s", run_set[i][0]);
    }
    Config cfg;
    config_default(&cfg, 0, "rope");
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 8, cfg.n_layers = 1;
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    char *path = temp_file();
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    Checkpoint ck;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    for (size_t o = 0; o < TRAIN_OPT_COUNT; o++) {
        char was[512], now[512];
        train_option_text(&s.meta, &s.trainer.opt, o, was, sizeof was);
        train_option_text(&ck.meta, &ck.opt, o, now, sizeof now);
        ck_assert_msg(strcmp(was, now) == 0, "%s was %s, read back %s", train_option_name(o),
                      was, now);
    }
    ck_assert_int_eq(ck.meta.keep, KEEP_LAST);
    ck_assert_int_eq(ck.meta.batches, BATCHES_BY_LENGTH);
    checkpoint_free(&ck);
    session_free(&s);
    remove(path);
    /* config.json carries them by the same names */
    char *dir = scratch(), args[256], json[256];
    snprintf(args, sizeof args, "--layout split --base 500 --npy %s/x 'a b'", dir);
    Run r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(json, sizeof json, "%s/x/config.json", dir);
    char *text = slurp(json);
    ck_assert_msg(strstr(text, "\"pe_options\": {\"layout\": \"split\", \"base\": \"500\"}"),
                  "%s", text);
    free(text);
    remove_dir(dir);
}
END_TEST

/* A name this build does not know (a newer version's option) is refused,
 * naming it, and so is a name given twice. */
START_TEST(unknown_or_repeated_names_are_refused) {
    const char *renames[][3] = {{"layout", "lay-out", "'lay-out', which this build does not "
                                 "know"},
                                {"base", "layout", "sets the scheme option 'layout' twice"},
                                {"keep", "keeps", "'keeps', which this build does not know"}};
    for (size_t k = 0; k < 3; k++) {
        Config c;
        config_default(&c, 0, "sinusoidal");
        set_opt(&c.pe, "--layout", "split");
        set_opt(&c.pe, "--base", "500");
        c.d_model = 8, c.n_heads = 2, c.d_ff = 8, c.n_layers = 1;
        TrainMeta mt;
        train_meta_default(&mt);
        snprintf(mt.task, sizeof mt.task, "agent");
        mt.batch = 4, mt.steps = 2;
        OptConfig opt;
        opt_default(&opt);
        Session s;
        Err e;
        ck_assert_msg(session_create(&s, &mt, &c, &opt, &e) == 0, "%s", e.msg);
        char *path = temp_file();
        ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
        session_free(&s);
        char *bytes = slurp(path);
        FILE *f = fopen(path, "rb");
        fseek(f, 0, SEEK_END);
        size_t n = (size_t)ftell(f);
        fclose(f);
        remove(path);
        unsigned char *b = splice((unsigned char *)bytes, &n, renames[k][0], renames[k][1]);
        Checkpoint ck;
        ck_assert_int_eq(checkpoint_parse(&ck, b, n, "newer", &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, renames[k][2]) != NULL, "%s", e.msg);
        free(b);
    }
}
END_TEST

static void reference_draws(Config *c) { c->first_draws = DRAWS_REFERENCE; }
static void no_out_bias(Config *c) { c->no_out_bias = true; }
static void both(Config *c) { reference_draws(c), no_out_bias(c); }

/* Whether the string s (a u32 length, then its bytes) is in the file. */
static bool holds_string(const unsigned char *b, size_t n, const char *s) {
    size_t k = strlen(s);
    for (size_t i = 24; i + 4 + k <= n; i++)
        if (b[i] == (unsigned char)k && !b[i + 1] && !b[i + 2] && !b[i + 3] &&
            memcmp(b + i + 4, s, k) == 0)
            return true;
    return false;
}

/* Version 7's model options: the first draws and the output projection's
 * bias are written by name when not at their defaults (a model at the
 * defaults writes none) and read back into the same configuration and
 * parameters, the bias's tensor absent. */
START_TEST(model_options_are_stored_and_read_back) {
    void (*edits[])(Config *) = {NULL, reference_draws, no_out_bias, both};
    for (size_t k = 0; k < 4; k++) {
        size_t n;
        unsigned char *b = checkpoint_bytes("xl", edits[k], &n);
        Config want;
        config_default(&want, 4, "xl");
        want.d_model = 8, want.n_heads = 2, want.d_ff = 8, want.n_layers = 1, want.n_classes = 2;
        if (edits[k])
            edits[k](&want);
        ck_assert_uint_eq(b[8], CHECKPOINT_VERSION);
        ck_assert(holds_string(b, n, "first-draws") == (want.first_draws == DRAWS_REFERENCE));
        ck_assert(holds_string(b, n, "out-bias") == want.no_out_bias);
        Checkpoint ck;
        Err e;
        ck_assert_msg(checkpoint_parse(&ck, b, n, "saved", &e) == 0, "%s", e.msg);
        ck_assert(ck.model.cfg.first_draws == want.first_draws);
        ck_assert(ck.model.cfg.no_out_bias == want.no_out_bias);
        Model m;
        ck_assert(model_create(&m, &want, &e) == 0);
        ck_assert_uint_eq(ck.model.n_params, m.n_params);
        ck_assert(memcmp(ck.model.mem, m.mem, m.n_params * sizeof *m.mem) == 0);
        ck_assert((ck.model.p.layer[0].out_proj_b == NULL) == want.no_out_bias);
        model_free(&m);
        checkpoint_free(&ck);
        free(b);
    }
}
END_TEST

/* A file whose tensors disagree with its recorded choice of the output
 * projection's bias (edited to record the other, checksum made right) is
 * refused saying so, by the loader and by a program, with exit 2. */
START_TEST(tensors_that_disagree_with_the_recorded_bias_are_refused) {
    size_t n;
    /* records the bias, holds none */
    unsigned char *b = checkpoint_bytes("sinusoidal", no_out_bias, &n);
    b = splice(b, &n, "false", "true");
    Checkpoint ck;
    Err e;
    ck_assert_int_eq(checkpoint_parse(&ck, b, n, "edited", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "records a model with the attention output projection's bias") &&
                  strstr(e.msg, "the tensors disagree with the recorded choice (out-bias true)"),
                  "%s", e.msg);
    char *path = temp_file();
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(b, 1, n, f) == n && fclose(f) == 0);
    char args[512];
    snprintf(args, sizeof args, "--model %s --task agent", path);
    expect_exit("evaluate", args, 2, "the tensors disagree with the recorded choice");
    free(b);
    /* records none, holds one: a reference model's pair made (out-bias, false) */
    b = checkpoint_bytes("sinusoidal", reference_draws, &n);
    b = splice(b, &n, "first-draws", "out-bias");
    b = splice(b, &n, "reference", "false");
    ck_assert_int_eq(checkpoint_parse(&ck, b, n, "edited", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "records a model without the attention output projection's "
                         "bias") && strstr(e.msg, "(out-bias false)"), "%s", e.msg);
    f = fopen(path, "wb");
    ck_assert(f && fwrite(b, 1, n, f) == n && fclose(f) == 0);
    snprintf(args, sizeof args, "--model %s 'a b'", path);
    expect_exit("encode", args, 2, "the tensors disagree");
    free(b);
    remove(path);
}
END_TEST

/* The numbers with a decimal point in text (a program's output), in x. */
static size_t numbers(const char *text, double *x, size_t cap) {
    size_t n = 0;
    for (const char *p = text; *p && n < cap;) {
        size_t k = strcspn(p, " \t\n");
        char *end;
        double v = strtod(p, &end);
        if (k && end == p + k && memchr(p, '.', k))
            x[n++] = v;
        p += k ? k : 1;
    }
    return n;
}

/* What a program prints for fixture name now, held against what the
 * build that wrote it printed (saved beside it): the same numbers, to the
 * last digit printed but for a rounding. */
static void same_output(const char *name, const char *prog, const char *args) {
    char path[256], cmd[512];
    snprintf(path, sizeof path, "tests/reference/checkpoints/%s.%s.txt", name, prog);
    if (access(path, F_OK) != 0)
        return;
    char *then = slurp(path);
    snprintf(cmd, sizeof cmd, "--model tests/reference/checkpoints/%s.bin %s", name, args);
    Run r = run(prog, cmd);
    ck_assert_msg(r.status == 0, "%s %s: %s", prog, cmd, r.err);
    static double a[512], b[512];
    size_t na = numbers(then, a, 512), nb = numbers(r.out, b, 512);
    ck_assert_msg(na > 4 && na == nb, "%s of %s: %zu numbers then, %zu now:\n%s", prog, name, na,
                  nb, r.out);
    for (size_t i = 0; i < na; i++)
        ck_assert_msg(fabs(a[i] - b[i]) <= 2e-5, "%s of %s: number %zu was %g, is %g", prog,
                      name, i, a[i], b[i]);
    free(then);
    run_free(&r);
}

/* Each earlier version of the checkpoint, written by the build that
 * introduced it (tests/reference/checkpoints/README.md), loads with what
 * it held (its options as the command line writes them) and gives the
 * outputs that build gave. Version 1's first layout (no training time)
 * and version 5's first two (no pooling; no dropout either) did not load
 * before issue 25. */
START_TEST(earlier_versions_load_and_give_the_same_outputs) {
    static const struct {
        const char *name, *sentence;
        unsigned version;
        const char *options; /* "name=value ..." of the scheme and the run */
    } FIX[] = {
        {"v1", NULL, 1, "layout=split base=500 data=tests/reference/checkpoints/train.txt"},
        {"v1-seconds", "'a b c d'", 1, "pairs=2 steps=6 eval-every=3 batch=4"},
        {"v2", "'Rohan killed the wolf'", 2, "buckets=8 max-distance=16 task=agent min-len=3 "
         "max-len=6 train-examples=50 data-seed=4"},
        {"v3", "'a b c d'", 3, "keep=best"},
        {"v4", "'a b c d'", 4, "rope-scaling=linear rope-factor=2 base=1000 "
         "random-positions=8"},
        {"v5", "'a b c d'", 5, "max-relative=3 lr=0.003 warmup=2 schedule=noam"},
        {"v5-dropout", "'a b c d'", 5, "alibi-slopes=asymmetric weight-decay=0.05 clip=0.5"},
        {"v5-pool", "'a b c d'", 5, "combine=concat pe-dim=4 pe-init-std=0.05"},
        {"v6", "'a b c d'", 6, "fire-width=4 embed-std=0.5 steps=6 eval-every=3 batch=4"},
    };
    for (size_t i = 0; i < sizeof FIX / sizeof *FIX; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/reference/checkpoints/%s.bin", FIX[i].name);
        size_t n;
        unsigned char *b = fixture(FIX[i].name, &n);
        ck_assert_uint_eq(b[8], FIX[i].version);
        free(b);
        Checkpoint ck;
        Err e;
        ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
        ck_assert_msg(ck.has_train, "%s: no training state", path);
        char opts[256];
        snprintf(opts, sizeof opts, "%s", FIX[i].options);
        for (char *save, *kv = strtok_r(opts, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(kv, '='), now[512];
            *eq = '\0';
            const PeOption *o = pe_option_find(kv);
            if (o)
                pe_option_text(&ck.model.cfg.pe, o, now, sizeof now);
            else
                train_option_text(&ck.meta, &ck.opt, train_option_find(kv), now, sizeof now);
            ck_assert_msg(strcmp(now, eq + 1) == 0, "%s: %s is %s, not %s", path, kv, now,
                          eq + 1);
        }
        ck_assert_msg(strcmp(FIX[i].name, "v1") == 0 ? ck.meta.seconds == 0.0
                                                      : ck.meta.seconds > 0.0,
                      "%s: the training time is %g", path, ck.meta.seconds);
        /* before version 7 every model had the defaults of the model options */
        ck_assert(ck.model.cfg.first_draws == DRAWS_PYTORCH && !ck.model.cfg.no_out_bias);
        checkpoint_free(&ck);
        same_output(FIX[i].name, "evaluate", "--data tests/reference/checkpoints/train.txt");
        if (FIX[i].sentence)
            same_output(FIX[i].name, "encode", FIX[i].sentence);
    }
    /* and a run goes on from one */
    char *out = temp_file(), args[512];
    snprintf(args, sizeof args, "--resume tests/reference/checkpoints/v5.bin --steps 8 --out %s",
             out);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0 && strstr(r.out, "of step 8 of 8"), "%s", r.err);
    run_free(&r);
    remove(out);
}
END_TEST

TCase *tcase_checkpoint_format(void) {
    TCase *tc = tcase_create("format");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, the_loader_refuses_what_the_command_line_refuses);
    tcase_add_test(tc, options_are_stored_by_name_and_read_back);
    tcase_add_test(tc, unknown_or_repeated_names_are_refused);
    tcase_add_test(tc, earlier_versions_load_and_give_the_same_outputs);
    tcase_add_test(tc, model_options_are_stored_and_read_back);
    tcase_add_test(tc, tensors_that_disagree_with_the_recorded_bias_are_refused);
    return tc;
}
