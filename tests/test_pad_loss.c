/* TaskOptions.pad_loss (train --pad-loss): the padding after '$' of
 * binary_addition, binary_multiplication and stack_manipulation in the
 * loss as the bit 0, as Ruoss et al.'s loss trains it, and in no score.
 * The tapes: without the option byte for byte those made before it
 * existed, with it the same but for the padding's labels. The loss: a
 * batch's changes by exactly the padding's terms, which carry gradient.
 * The scores: nothing the model predicts on the padding moves an
 * accuracy, an exact match or a per-length count. The data files: the
 * label "_=X" read and refused as docs/formats.md says. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/buf.h"
#include "../src/core/label.h"
#include "../src/model/layers.h"
#include "../src/run/session.h"
#include "../src/text/tape.h"
#include "suites.h"

static const char *const PADDED[3] = {"binary_addition", "binary_multiplication",
                                      "stack_manipulation"};

/* FNV-1a (buf_fnv1a) of data_format's text of each split of the three
 * tasks at lengths 1..30, seed 1, other options the task's, as the code
 * wrote them before pad_loss existed (make_data's files, their three
 * comment lines dropped): the option's default leaves them as they were. */
static const uint64_t BEFORE[3][3] = {
    {0x856701ef1fa39cdfULL, 0xe49bee8898fb4b48ULL, 0x9cd786a2a1c02eefULL},
    {0x26572cf3de7d9671ULL, 0xa8a9495ca04b6ce5ULL, 0xf7c0386f5d69ff12ULL},
    {0x71cc6c50b6434c23ULL, 0xd65c70142ea7aa7dULL, 0x6e8a810c753fc253ULL},
};

static uint64_t text_hash(const TextData *d) {
    Buf b = {0};
    data_format(d, &b);
    ck_assert(!b.failed);
    uint64_t h = buf_fnv1a(b.p, b.n);
    buf_free(&b);
    return h;
}

static void make(TextData s[3], const char *task, const TaskOptions *o) {
    Err e;
    ck_assert_msg(task_make(&s[0], &s[1], &s[2], task, o, &e) == 0, "%s: %s", task, e.msg);
}

START_TEST(tapes_change_at_the_padding_alone) {
    size_t padded = 0;
    for (int t = 0; t < 3; t++) {
        TaskOptions o = {.min_len = 1, .max_len = 30, .seed = 1}, p = o;
        p.pad_loss = true;
        TextData a[3], b[3];
        make(a, PADDED[t], &o);
        make(b, PADDED[t], &p);
        /* ck_check: a check for each of the tapes' million tokens */
        for (int k = 0; k < 3; k++) {
            ck_assert_msg(text_hash(&a[k]) == BEFORE[t][k], "%s split %d is not as before",
                          PADDED[t], k);
            ck_assert_uint_eq(a[k].n, b[k].n);
            for (size_t i = 0; i < a[k].n; i++) {
                size_t lo = a[k].start[i], hi = a[k].start[i + 1];
                ck_check(hi == b[k].start[i + 1], "%s split %d example %zu: ends at %zu and %zu",
                         PADDED[t], k, i, hi, b[k].start[i + 1]);
                bool after_end = false; /* past the blank of '$' */
                for (size_t j = lo; j < hi; j++) {
                    const char *la = a[k].label[j], *lb = b[k].label[j];
                    ck_check(strcmp(a[k].word[j], b[k].word[j]) == 0, "%s token %zu: '%s', '%s'",
                             PADDED[t], j, a[k].word[j], b[k].word[j]);
                    bool blank = strcmp(a[k].word[j], TAPE_BLANK) == 0;
                    if (blank && after_end) { /* the padding: '_', then "_=0" */
                        ck_check(strcmp(la, DATA_NO_LABEL) == 0 && strcmp(lb, "_=0") == 0,
                                 "%s token %zu, the padding: labels '%s', '%s'", PADDED[t], j,
                                 la, lb);
                        padded++;
                    } else {
                        ck_check(strcmp(la, lb) == 0, "%s token %zu: labels '%s', '%s'",
                                 PADDED[t], j, la, lb);
                        ck_check(!blank || strcmp(la, DATA_NO_LABEL) != 0,
                                 "%s token %zu: a blank before '$' without a label", PADDED[t],
                                 j);
                    }
                    after_end |= blank && strcmp(la, TAPE_END) == 0;
                }
                /* every output ends with '$' */
                ck_check(after_end, "%s split %d example %zu: no '$'", PADDED[t], k, i);
            }
        }
        for (int k = 0; k < 3; k++)
            textdata_free(&a[k]), textdata_free(&b[k]);
    }
    ck_assert_uint_gt(padded, 10000);
    /* a task without padding refuses it: pad_loss_is_refused_where_nothing_pads */
}
END_TEST

/* A session of a padded task with pad_loss: a small model, lengths 1..8. */
static void padded_session(Session *s, const char *task, bool pad_loss) {
    TrainMeta mt;
    train_meta_default(&mt);
    snprintf(mt.task, sizeof mt.task, "%s", task);
    mt.task_opt = (TaskOptions){.min_len = 1, .max_len = 8, .n_train = 64, .n_valid = 40,
                                .n_test = 40, .seed = 2, .pad_loss = pad_loss};
    mt.batch = 16, mt.steps = 4, mt.eval_every = 2, mt.seed = 3;
    Config cfg;
    config_default(&cfg, 0, "rope");
    cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = 1, cfg.d_ff = 16, cfg.seed = 3;
    OptConfig opt;
    opt_default(&opt);
    Err e;
    ck_assert_msg(session_create(s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
}

/* The cross-entropy of one row in double, from the float logits. */
static double row_xent(const float *z, size_t K, int y) {
    double top = z[0], sum = 0.0;
    for (size_t k = 1; k < K; k++)
        top = z[k] > top ? z[k] : top;
    for (size_t k = 0; k < K; k++)
        sum += exp((double)z[k] - top);
    return log(sum) + top - (double)z[y];
}

/* One batch of the training pool, its loss with the padding in it and
 * with the padding as no label: the scored rows' loss and counts are the
 * same, the padding's rows add their own terms (computed here from the
 * logits) and are the only other rows that carry gradient. */
START_TEST(the_loss_gains_exactly_the_padding) {
    for (int t = 0; t < 3; t++) {
        Session s;
        padded_session(&s, PADDED[t], true);
        int zero = labelset_find(&s.labels, "0");
        ck_assert_int_ge(zero, 0); /* the padding's class is the bit 0 */
        size_t B = s.meta.batch, T = s.train.max_len, K = s.model.cfg.n_classes, BT = B * T;
        int *pad = malloc(BT * sizeof *pad), *none = malloc(BT * sizeof *none);
        ck_assert(pad && none);
        for (size_t b = 0; b < B; b++)
            s.idx[b] = b;
        dataset_batch(&s.train, s.idx, B, T, s.ids, s.lens, pad);
        size_t n_pad = 0;
        for (size_t i = 0; i < BT; i++) {
            none[i] = pad[i] < -1 ? -1 : pad[i];
            ck_assert(pad[i] >= -1 || pad[i] == label_unscored(zero));
            n_pad += pad[i] < -1;
        }
        ck_assert_uint_gt(n_pad, 0);
        /* "_=0" on the tapes of those examples, as many as the batch holds */
        TextData txt[3];
        TaskOptions r;
        Err e;
        ck_assert(task_options_resolve(&r, &s.meta.task_opt, PADDED[t], &e) == 0);
        make(txt, PADDED[t], &r);
        size_t written = 0;
        for (size_t j = 0; j < txt[0].start[B]; j++)
            written += strcmp(txt[0].label[j], "_=0") == 0;
        ck_assert_uint_eq(written, n_pad);
        for (int k = 0; k < 3; k++)
            textdata_free(&txt[k]);

        float loss_pad, loss_none;
        size_t right_pad, right_none, scored_pad, scored_none;
        Params *g = &s.trainer.g;
        ck_assert(encoder_train_batch(&s.model, g, &s.acts, &s.trainer.ga, s.ids, s.lens, NULL,
                                      pad, B, T, &loss_pad, &right_pad, &scored_pad, &e) == 0);
        double scored_sum = 0.0, pad_sum = 0.0;
        for (size_t i = 0; i < BT; i++) {
            const float *z = s.acts.logits + i * K, *dz = s.trainer.ga.dlogits + i * K;
            float any = 0.0f;
            for (size_t k = 0; k < K; k++)
                any += fabsf(dz[k]);
            /* gradient on the rows in the loss, and on them alone */
            ck_assert_msg((any > 0.0f) == (label_trained(pad[i]) >= 0), "row %zu", i);
            if (pad[i] >= 0)
                scored_sum += row_xent(z, K, pad[i]);
            else if (pad[i] < -1)
                pad_sum += row_xent(z, K, zero);
        }
        float *grad_pad = malloc(s.trainer.n * sizeof *grad_pad);
        ck_assert(grad_pad);
        memcpy(grad_pad, s.trainer.grad, s.trainer.n * sizeof *grad_pad);
        memset(s.trainer.grad, 0, s.trainer.n * sizeof *s.trainer.grad);
        ck_assert(encoder_train_batch(&s.model, g, &s.acts, &s.trainer.ga, s.ids, s.lens, NULL,
                                      none, B, T, &loss_none, &right_none, &scored_none,
                                      &e) == 0);
        /* the scores see the same rows, and the loss's means are the sums */
        ck_assert_uint_eq(scored_pad, scored_none);
        ck_assert_uint_eq(right_pad, right_none);
        double n_in = (double)(scored_none + n_pad);
        ck_assert_msg(fabs(loss_none * (double)scored_none - scored_sum) < 1e-5 * scored_sum,
                      "%g vs %g", loss_none * (double)scored_none, scored_sum);
        ck_assert_msg(fabs(loss_pad * n_in - (scored_sum + pad_sum)) <
                          1e-5 * (scored_sum + pad_sum),
                      "%g vs %g + %g", loss_pad * n_in, scored_sum, pad_sum);
        ck_assert(pad_sum > 0.0);
        bool differ = false; /* the padding's terms reach the weights */
        for (size_t i = 0; i < s.trainer.n && !differ; i++)
            differ = grad_pad[i] != s.trainer.grad[i];
        ck_assert(differ);
        free(grad_pad), free(pad), free(none);
        session_free(&s);
    }
}
END_TEST

/* softmax_xent: whatever the logits of a row trained on alone, the counts
 * stay; only the loss moves. */
START_TEST(a_padding_prediction_scores_nothing) {
    enum { N = 6, K = 3 };
    int labels[N] = {1, label_unscored(0), 2, -1, label_unscored(0), 0};
    float logits[N * K] = {0.1f, 2.0f, -1.f, 3.0f, 0.0f, 0.0f, 0.f, 0.f, 1.f,
                           5.0f, 1.0f, 1.0f, 0.5f, 0.2f, 0.1f, 2.f, 1.f, 0.f};
    size_t right[2], scored[2];
    float loss[2];
    for (int v = 0; v < 2; v++) {
        if (v) /* the padding rows now predict 1, not their class 0 */
            logits[1 * K + 1] = logits[4 * K + 1] = 9.0f;
        loss[v] = softmax_xent(NULL, &right[v], &scored[v], logits, labels, N, K);
    }
    ck_assert_uint_eq(scored[0], 3);
    ck_assert_uint_eq(scored[1], 3);
    ck_assert_uint_eq(right[0], 3);
    ck_assert_uint_eq(right[1], 3);
    ck_assert(loss[1] > loss[0]);
    size_t sc;
    ck_assert_uint_eq(xent_rows_in_loss(labels, N, &sc), 5);
    ck_assert_uint_eq(sc, 3);
}
END_TEST

/* Evaluation on the validation split with the padding in the loss, and on
 * the same split with the padding as no label, of a model made to predict
 * one class everywhere (its head's bias raised), each class in turn: the
 * padding's class 0 (every padding prediction right) and the others (all
 * wrong). Every count per length (what the benchmark's cells and evaluate
 * print) is the same; only the loss covers more predictions. */
START_TEST(evaluation_scores_as_without) {
    size_t exact_seen = 0; /* tapes all right: the exact counts were put to the test */
    for (int t = 0; t < 3; t++) {
        Session s;
        padded_session(&s, PADDED[t], true);
        Err e;
        Dataset plain = s.valid;
        size_t words = s.valid.start[s.valid.n], pads = 0;
        plain.labels = malloc(words * sizeof *plain.labels);
        ck_assert(plain.labels);
        for (size_t j = 0; j < words; j++) {
            plain.labels[j] = s.valid.labels[j] < -1 ? -1 : s.valid.labels[j];
            pads += s.valid.labels[j] < -1;
        }
        ck_assert_uint_gt(pads, 0);
        size_t L = s.valid.max_len;
        EvalStats *pa = calloc(L + 1, sizeof *pa), *pl = calloc(L + 1, sizeof *pl), ta, tl;
        ck_assert(pa && pl);
        for (size_t c = 0; c < s.labels.n; c++) {
            s.model.p.head_b[c] += 100.0f;
            ck_assert(evaluate_dataset(&s.model, &s.valid, 8, pa, &ta, &e) == 0);
            ck_assert(evaluate_dataset(&s.model, &plain, 8, pl, &tl, &e) == 0);
            s.model.p.head_b[c] -= 100.0f;
            for (size_t len = 0; len <= L; len++) {
                ck_assert_uint_eq(pa[len].examples, pl[len].examples);
                ck_assert_uint_eq(pa[len].labelled, pl[len].labelled);
                ck_assert_uint_eq(pa[len].correct, pl[len].correct);
                ck_assert_uint_eq(pa[len].exact, pl[len].exact);
                ck_assert_uint_eq(pl[len].in_loss, pl[len].labelled);
            }
            exact_seen += tl.exact;
            ck_assert_uint_eq(ta.in_loss, tl.in_loss + pads);
            ck_assert(eval_accuracy(&ta) == eval_accuracy(&tl));
            /* the padding's terms: about 0 where it is predicted at 100 (a
             * batch's loss is a float mean: the sums agree to its rounding) */
            if ((int)c == labelset_find(&s.labels, "0"))
                ck_assert(fabs(ta.loss_sum - tl.loss_sum) <= 1e-5 * tl.loss_sum);
            else
                ck_assert(ta.loss_sum > tl.loss_sum + (double)pads);
        }
        /* "0" is one class, whether it labels a bit or the padding */
        ck_assert_uint_eq(s.labels.n, 3);
        free(pa), free(pl), free(plain.labels);
        session_free(&s);
    }
    ck_assert_uint_gt(exact_seen, 0);
}
END_TEST

/* "_=X" in a data file: the class X in the loss alone; a sentence label
 * and a label of no class refused; evaluation data needs X known. */
START_TEST(files_say_it_with_a_label) {
    const char *text = "labels: token\n"
                       "1 + 1 ? ? ?\t_ _ _ 1 $ _=0\n"
                       "0 ? ?\t_ 0 $\n";
    TextData d;
    Err e;
    ck_assert_msg(data_parse(&d, text, strlen(text), "pad.txt", &e) == 0, "%s", e.msg);
    Vocab v;
    ck_assert(vocab_init(&v, &e) == 0);
    LabelSet ls;
    labelset_init(&ls);
    Dataset ds;
    ck_assert_msg(data_encode(&ds, &d, &v, &ls, true, NULL, &e) == 0, "%s", e.msg);
    /* classes in order of first appearance, "_=0" a first appearance of 0 */
    ck_assert_uint_eq(ls.n, 3);
    ck_assert_int_eq(labelset_find(&ls, "0"), 2);
    ck_assert_int_eq(labelset_find(&ls, "_=0"), -1);
    int want[9] = {-1, -1, -1, 0, 1, label_unscored(2), -1, 2, 1};
    for (int j = 0; j < 9; j++)
        ck_assert_int_eq(ds.labels[j], want[j]);
    dataset_free(&ds);
    /* evaluation data: a known class is encoded, an unknown one refused */
    LabelSet two;
    labelset_init(&two);
    int id;
    ck_assert(labelset_add(&two, "1", &id, &e) == 0 && labelset_add(&two, "$", &id, &e) == 0);
    ck_assert_str_eq(data_unknown_label(&d, &two, NULL), "0");
    ck_assert_int_eq(data_encode(&ds, &d, &v, &two, false, NULL, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "the label '0' is not one of the 2"), "%s", e.msg);
    ck_assert_ptr_null(data_unknown_label(&d, &ls, NULL));
    labelset_free(&two);
    textdata_free(&d);
    static const char *const BAD[][2] = {
        {"labels: token\na b\t_= a\n", "names no class"},
        {"labels: token\na b\t_=_ a\n", "names no class"},
        {"labels: token\na b\t_=_=0 a\n", "names no class"},
        {"labels: sentence\n_=0\ta b\n", "is for a word of per-token data"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        ck_assert_msg(data_parse(&d, BAD[i][0], strlen(BAD[i][0]), "bad.txt", &e) == 0, "%s",
                      e.msg);
        ck_assert_int_eq(data_encode(&ds, &d, &v, &ls, true, NULL, &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, BAD[i][1]) && strstr(e.msg, "bad.txt:2"), "%s", e.msg);
        textdata_free(&d);
    }
    labelset_free(&ls);
    vocab_free(&v);
}
END_TEST

/* The programs: make_data --pad-loss writes "_=0" and says so in the
 * command that makes the files again; train trains on such a file and
 * on the task with --pad-loss, and refuses --pad-loss with a file. */
START_TEST(programs_take_pad_loss) {
    char *dir = strdup(scratch()), args[768], path[300];
    snprintf(args, sizeof args, "--task binary_multiplication --out %s/d --max-len 6 "
             "--train-examples 40 --valid-examples 10 --test-examples 10 --pad-loss", dir);
    Run r = run("make_data", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/d/train.txt", dir);
    char *text = slurp(path);
    ck_assert_ptr_nonnull(strstr(text, "--test-examples 10 --seed 1 --pad-loss\n"));
    ck_assert_ptr_nonnull(strstr(text, " _=0"));
    free(text);
    snprintf(args, sizeof args, "--data %s/d/train.txt --valid %s/d/valid.txt --pe rope "
             "--steps 2 --eval-every 1 --d-model 16 --heads 2 --layers 1 --d-ff 16 --quiet",
             dir, dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--task stack_manipulation --pad-loss --pe rope --steps 2 "
             "--eval-every 1 --d-model 16 --heads 2 --layers 1 --d-ff 16 --max-len 6 "
             "--train-examples 64 --train-draw fresh --batches by-length --quiet "
             "--out %s/m.bin", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    /* the checkpoint keeps the option for a resumed run */
    Checkpoint ck;
    Err e;
    snprintf(path, sizeof path, "%s/m.bin", dir);
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert(ck.meta.task_opt.pad_loss);
    checkpoint_free(&ck);
    snprintf(args, sizeof args, "--data %s/d/train.txt --pad-loss", dir);
    expect_exit("train", args, 2, "--pad-loss applies to the built-in tasks");
    remove_dir(dir);
    free(dir);
}
END_TEST

/* A task without padding refuses the option, naming the tasks that have
 * it: nothing would read it. */
START_TEST(pad_loss_is_refused_where_nothing_pads) {
    TaskOptions o = {.pad_loss = true}, r;
    Err e;
    ck_assert_int_eq(task_options_resolve(&r, &o, "reverse_string", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--pad-loss") && strstr(e.msg, "binary_addition") &&
                      strstr(e.msg, "binary_multiplication") &&
                      strstr(e.msg, "stack_manipulation"), "%s", e.msg);
    ck_assert_int_eq(task_options_resolve(&r, &o, "binary_addition", &e), 0);
    o.pad_loss = false;
    ck_assert_int_eq(task_options_resolve(&r, &o, "reverse_string", &e), 0);
}
END_TEST

TCase *tcase_pad_loss(void) {
    TCase *tc = tcase_create("pad_loss");
    tcase_add_test(tc, tapes_change_at_the_padding_alone);
    tcase_add_test(tc, the_loss_gains_exactly_the_padding);
    tcase_add_test(tc, a_padding_prediction_scores_nothing);
    tcase_add_test(tc, evaluation_scores_as_without);
    tcase_add_test(tc, files_say_it_with_a_label);
    tcase_add_test(tc, programs_take_pad_loss);
    tcase_add_test(tc, pad_loss_is_refused_where_nothing_pads);
    return tc;
}
