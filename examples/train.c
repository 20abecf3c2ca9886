/* train: trains an encoder on a built-in task or on a data file, with one
 * position scheme, and saves it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/clock.h"
#include "../src/model/matmul.h"
#include "../src/run/session.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: train (--task NAME | --data FILE [--valid FILE]) [options]\n"
    "       train --resume MODEL [--steps N] [--out MODEL] [--log CSV]\n"
    "                    [--max-memory MIB]\n"
    "\n"
    "Trains an encoder with one positional-encoding scheme on a built-in task\n"
    "(agent, direction, reverse, sort, previous, contains; see data/README.md) or on\n"
    "your own data (docs/formats.md), evaluating on the validation split as it goes.\n"
    "Progress goes to stderr; the final accuracies to stdout.\n"
    "\n"
    "Options:\n"
    "  --task NAME           a built-in task\n"
    "  --data FILE           training data; --valid FILE for validation data\n"
    "  --pe SCHEME           none, integer, normalized, sine, sincos, sinusoidal,\n"
    "                        learned, rope, alibi, t5 (default sinusoidal)\n"
    "  --out MODEL           write the model here, at every evaluation and at the end\n"
    "                        (to a temporary file, then renamed: never half-written)\n"
    "  --log CSV             write step,loss,accuracy,valid_loss,valid_accuracy,\n"
    "                        seconds,lr at every evaluation (appended on --resume)\n"
    "  --resume MODEL        continue a run saved with --out; the model, data and\n"
    "                        options come from it, --steps may extend it\n"
    "  --help                show this help\n"
    "\n", CLI_TRAIN_HELP, "\n", CLI_TASK_HELP, "\n", CLI_MODEL_HELP,
    "\n"
    "In train, --max-len is the task's longest sequence; a learned table gets one\n"
    "row per position of the longest training sentence. --seed sets the weights\n"
    "and the order of the batches.\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options or data, 1 when training fails\n"
    "(a loss that turns NaN stops the run; the last saved model stays intact).\n",
    NULL};

static void describe(const Session *s) {
    const Config *c = &s->model.cfg;
    const TrainMeta *mt = &s->meta;
    fprintf(stderr, "train: %s, %s (%s), d_model %zu, %zu heads, %zu layers, d_ff %zu, "
            "%s-norm, %zu parameters\n", mt->task[0] ? mt->task : mt->data, c->pe.name,
            pe_meets(&s->model.pe), c->d_model,
            c->n_heads, c->n_layers, c->d_ff, c->norm == NORM_PRE ? "pre" : "post",
            s->model.n_params);
    fprintf(stderr, "train: %zu training, %zu validation examples; %zu words, %zu classes; "
            "batch %zu; OpenBLAS threads: %d\n", s->train.n, s->valid.n, s->vocab.n,
            s->labels.n, mt->batch, matmul_threads());
}

/* What happened since the last evaluation. */
typedef struct {
    double start;    /* when this run started */
    double before;   /* seconds of training before it (a resumed run) */
    double loss_sum;
    size_t first, since, correct, labelled, tokens;
} Progress;

/* At an evaluation: a line of progress on stderr and a row of the log.
 * Without validation data the validation fields are left out (empty). */
static int report(Session *s, Progress *p, FILE *log, const char *logpath, float lr, Err *e) {
    EvalStats valid = {0};
    int rc = evaluate_dataset(&s->model, &s->valid, 64, NULL, &valid, e);
    if (rc)
        return rc;
    size_t step = s->trainer.step;
    double t = clock_seconds() - p->start;
    s->meta.seconds = p->before + t; /* saved with the checkpoint */
    double left = t / (double)(step - p->first) * (double)(s->meta.steps - step);
    double loss = p->loss_sum / (double)p->since;
    double acc = p->labelled ? (double)p->correct / (double)p->labelled : 0.0;
    double vloss = valid.labelled ? valid.loss_sum / (double)valid.labelled : 0.0;
    char vtext[64] = "", vcsv[64] = ",";
    if (s->valid.n) {
        snprintf(vtext, sizeof vtext, "  valid loss %.4f  acc %5.1f%%", vloss,
                 100.0 * eval_accuracy(&valid));
        snprintf(vcsv, sizeof vcsv, "%.6f,%.6f", vloss, eval_accuracy(&valid));
    }
    fprintf(stderr, "step %6zu/%zu  loss %.4f  acc %5.1f%%%s  %6.0f tok/s  %4.0fs left\n", step,
            s->meta.steps, loss, 100.0 * acc, vtext, (double)p->tokens / t, left);
    if (log && (fprintf(log, "%zu,%.6f,%.6f,%s,%.3f,%.6g\n", step, loss, acc, vcsv,
                        s->meta.seconds, (double)lr) < 0 || fflush(log) != 0))
        return err_set(e, ERR_RUNTIME, "writing the log %s failed: %s", logpath,
                       strerror(errno));
    p->loss_sum = 0.0;
    p->since = p->correct = p->labelled = 0;
    return 0;
}

/* The final accuracies on stdout: validation (or, without validation
 * data, training) and test. */
static int print_results(Session *s, Err *e) {
    EvalStats st;
    const Dataset *d = s->valid.n ? &s->valid : &s->train;
    int rc = evaluate_dataset(&s->model, d, 64, NULL, &st, e);
    if (rc)
        return rc;
    printf("%s accuracy: %.4f\n", s->valid.n ? "valid" : "train", eval_accuracy_all(&st));
    if (!s->test.n)
        return 0;
    if ((rc = evaluate_dataset(&s->model, &s->test, 64, NULL, &st, e)))
        return rc;
    printf("test accuracy: %.4f\n", eval_accuracy_all(&st));
    if (st.skipped)
        printf("(%zu test sentences are longer than the learned table and count as wrong)\n",
               st.skipped);
    return 0;
}

static void fail(const Cli *cli, Session *s, const Err *e) {
    session_free(s);
    cli_fail(cli, e);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "train");
    TrainMeta mt = {.batch = 32, .steps = 1500, .eval_every = 100, .task_opt = {.seed = 1}};
    OptConfig opt;
    opt_default(&opt);
    mt.max_memory = cli_default_memory();
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    const char *out = NULL, *logpath = NULL, *resume = NULL, *shaping = NULL;
    const char *task_only = NULL; /* a task option, which does nothing with --data */
    bool steps_given = false;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_task(&cli, mt.task, sizeof mt.task)) {
            shaping = arg;
        } else if (cli_opt(&cli, "--data") || cli_opt(&cli, "--valid")) {
            char *dst = strcmp(arg, "--valid") == 0 || strncmp(arg, "--valid=", 8) == 0
                            ? mt.valid : mt.data;
            if (strlen(cli.val) >= sizeof mt.data)
                cli_usage_error(&cli, "the path '%s' is too long", cli.val);
            snprintf(dst, sizeof mt.data, "%s", cli.val);
            shaping = arg;
        } else if (cli_pe(&cli, &cfg.pe)) {
            shaping = arg;
        } else if (cli_opt(&cli, "--out")) {
            out = cli.val;
        } else if (cli_opt(&cli, "--log")) {
            logpath = cli.val;
        } else if (cli_opt(&cli, "--resume")) {
            resume = cli.val;
        } else if (cli_task_option(&cli, &mt.task_opt)) {
            shaping = task_only = arg;
        } else if (cli_model_option(&cli, &cfg)) {
            shaping = arg;
        } else if (cli_train_option(&cli, &mt, &opt)) {
            if (strncmp(arg, "--steps", 7) == 0)
                steps_given = true;
            else if (strncmp(arg, "--max-memory", 12) != 0)
                shaping = arg;
        } else {
            cli_unknown(&cli, arg);
        }
    }
    if (resume && shaping)
        cli_usage_error(&cli, "with --resume the model, data and options come from the "
                        "checkpoint; drop %s (only --steps, --out, --log and --max-memory apply)", shaping);
    if (!resume && !mt.task[0] && !mt.data[0])
        cli_usage_error(&cli, "give a task (--task agent) or a data file (--data FILE)");
    if (mt.task[0] && mt.data[0])
        cli_usage_error(&cli, "give --task or --data, not both");
    if (mt.valid[0] && !mt.data[0])
        cli_usage_error(&cli, "--valid goes with --data");
    /* options that would do nothing are refused, not silently ignored */
    if (mt.data[0] && task_only)
        cli_usage_error(&cli, "%s applies to the built-in tasks (--task), not to --data; drop "
                        "it", task_only);
    if (!resume)
        cli_refuse_unused(&cli, &cfg);
    mt.seed = cfg.seed;

    Session s;
    Err e;
    int rc = resume ? session_resume(&s, resume, steps_given ? mt.steps : 0, mt.max_memory, &e)
                    : session_create(&s, &mt, &cfg, &opt, &e);
    if (rc)
        cli_fail(&cli, &e);
    describe(&s);
    cli_print_memory("train", &s.meta, s.memory);
    FILE *log = NULL;
    if (cli_train_outputs(&s.meta, out, logpath, resume, &log, &e))
        fail(&cli, &s, &e);
    if (s.trainer.step >= s.meta.steps)
        fprintf(stderr, "train: the run is already at step %zu of %zu; give --steps to go on\n",
                s.trainer.step, s.meta.steps);

    bool saved = false; /* by this run, to --out */
    Progress p = {.start = clock_seconds(), .before = s.meta.seconds, .first = s.trainer.step};
    while (s.trainer.step < s.meta.steps) {
        StepStats st;
        if (session_step(&s, &st, &e)) {
            if (log)
                fclose(log);
            if (out && saved)
                fprintf(stderr, "train: %s still holds the model of the last evaluation\n", out);
            else if (out)
                fprintf(stderr, "train: nothing was saved to %s in this run\n", out);
            fail(&cli, &s, &e);
        }
        p.loss_sum += st.loss;
        p.correct += st.correct;
        p.labelled += st.labelled;
        p.since++;
        for (size_t b = 0; b < s.meta.batch; b++)
            p.tokens += s.lens[b];
        if (s.trainer.step % s.meta.eval_every != 0 && s.trainer.step != s.meta.steps)
            continue;
        if (report(&s, &p, log, logpath, st.lr, &e) || (out && session_save(&s, out, &e)))
            fail(&cli, &s, &e);
        saved = out != NULL;
    }
    if (log && fclose(log) != 0) {
        err_set(&e, ERR_RUNTIME, "writing the log %s failed: %s", logpath, strerror(errno));
        fail(&cli, &s, &e);
    }
    if (print_results(&s, &e))
        fail(&cli, &s, &e);
    if (out)
        fprintf(stderr, "train: saved %s\n", out);
    session_free(&s);
    return 0;
}
