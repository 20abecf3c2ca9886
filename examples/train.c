/* train: trains an encoder on a built-in task or on a data file, with one
 * position scheme, and saves it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/clock.h"
#include "../src/core/fileio.h"
#include "../src/model/par.h"
#include "../src/run/session.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: train (--task NAME | --data FILE [--valid FILE]) [options]\n"
    "       train --resume MODEL [--steps N] [--out MODEL] [--log CSV]\n"
    "                    [--keep best|last] [--max-memory MIB] [--quiet]\n"
    "       train --init MODEL (--task NAME | --data FILE) [--rope-scaling ...]\n"
    "                    [training and task options]\n"
    "\n"
    "Trains an encoder with one positional-encoding scheme on a built-in task (the\n"
    "list is below; data/README.md describes each) or on your own data\n"
    "(docs/formats.md), evaluating on the validation split as it goes.\n"
    "Progress goes to stderr (--quiet: only errors and warnings); the final\n"
    "accuracies to stdout.\n"
    "\n"
    "Options:\n"
    "  --task NAME           a built-in task\n"
    "  --data FILE           training data; --valid FILE for validation data\n"
    "  --pe SCHEME           one of the schemes below (default sinusoidal)\n"
    "  --keep best|last      the model to keep: the one of the evaluation with the best\n"
    "                        validation accuracy (ties: lower validation loss), or\n"
    "                        the last (default best; last without validation data;\n"
    "                        on --resume, the one the run kept)\n"
    "  --out MODEL           write the kept model here, with its training state, at\n"
    "                        each evaluation that changes it (to a temporary file,\n"
    "                        then renamed: never half-written)\n"
    "  --quiet               no progress on stderr: only errors and warnings\n"
    "  --log CSV             write step,loss,accuracy,valid_loss,valid_accuracy,\n"
    "                        seconds,lr,kept_step at every evaluation (appended on\n"
    "                        --resume)\n"
    "  --resume MODEL        continue a run saved with --out from the saved model's\n"
    "                        step (with --keep best, the best one); the model, data\n"
    "                        and options come from it, --steps may extend it\n"
    "  --init MODEL          fine-tune: start from MODEL's weights (its shape and\n"
    "                        scheme; the words and classes of this run's data must\n"
    "                        be its own) with a new optimizer and this command's\n"
    "                        task, lengths and training options; of the model\n"
    "                        options only those a trained model may change (rope's\n"
    "                        scalings: evaluate --help lists them; yarn's length\n"
    "                        defaults to MODEL's training length) and --seed apply\n"
    "  --dropout P           dropout while training, 0 to 0.95 (default 0): on the\n"
    "                        embedding + code, the attention weights, and after\n"
    "                        attention and the FFN's two layers, as PyTorch's\n"
    "                        encoder layer puts it; never at evaluation (kept in the\n"
    "                        model; with --init, for the fine-tuning)\n"
    "  --help                show this help\n"
    "\n", CLI_TRAIN_HELP, "\n", CLI_TASK_HELP, "\n", CLI_MODEL_HELP, "\n", CLI_SCHEMES, "\n",
    CLI_TASKS,
    "\n"
    "In train, a learned table gets one row per position of the longest training\n"
    "sentence (or of --random-positions N) unless --table-len asks for more.\n"
    "--seed sets the weights and the order of the batches. The results on stdout\n"
    "are the kept model's, then the last step's when that is another model.\n"
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
    char drop[32] = "no dropout";
    if (c->dropout > 0.0f)
        snprintf(drop, sizeof drop, "dropout %g", (double)c->dropout);
    fprintf(stderr, "train: %zu training, %zu validation examples; %zu words, %zu classes; "
            "batch %zu; %s; threads: %s\n", s->train.n, s->valid.n, s->vocab.n,
            s->labels.n, mt->batch, drop, par_describe());
}

/* The run so far. */
typedef struct {
    double start;  /* when this run started */
    double before; /* seconds of training before it (a resumed run) */
    size_t first, tokens;
    bool quiet; /* --quiet: no line of progress */
} Progress;

/* At an evaluation (w's, session_advance's): a line of progress on stderr,
 * a row of the log, and the kept model saved to out when it changed.
 * Without validation data the validation fields are left out (empty). */
static int report(Session *s, Progress *p, const StepWindow *w, const Kept *k, bool *saved,
                  FILE *log, const char *logpath, const char *out, Err *e) {
    int rc;
    EvalStats valid = w->valid;
    size_t step = s->trainer.step;
    double t = clock_seconds() - p->start;
    s->meta.seconds = p->before + t; /* saved with the checkpoint */
    double left = t / (double)(step - p->first) * (double)(s->meta.steps - step);
    double loss = w->loss_sum / (double)w->steps;
    double acc = w->labelled ? (double)w->correct / (double)w->labelled : 0.0;
    double vloss = eval_loss(&valid);
    bool changed = w->kept_changed;
    char vtext[64] = "", vcsv[64] = ",";
    if (s->valid.n) {
        snprintf(vtext, sizeof vtext, "  valid loss %.4f  acc %5.1f%%%s", vloss,
                 100.0 * eval_accuracy(&valid), k->best && changed ? " *" : "");
        snprintf(vcsv, sizeof vcsv, "%.6f,%.6f", vloss, eval_accuracy(&valid));
    }
    /* the threads now: fewer while other programs keep CPUs busy (par.h) */
    int threads = par_threads();
    if (!p->quiet)
        fprintf(stderr, "step %6zu/%zu  loss %.4f  acc %5.1f%%%s  %6.0f tok/s, %d thread%s  %4.0fs "
                "left\n", step, s->meta.steps, loss, 100.0 * acc, vtext, (double)p->tokens / t,
                threads, threads == 1 ? "" : "s", left);
    /* saved before the log names it: a row's kept_step is a model on disk */
    if (out && changed) {
        if ((rc = session_save(s, out, e)))
            return rc;
        *saved = true;
    }
    if (log && (fprintf(log, "%zu,%.6f,%.6f,%s,%.3f,%.6g,%zu\n", step, loss, acc, vcsv,
                        s->meta.seconds, (double)w->lr, k->step) < 0 || fflush(log) != 0))
        return err_set(e, ERR_RUNTIME, "writing the log %s failed: %s", logpath,
                       strerror(errno));
    return 0;
}

/* One model's accuracies on stdout: validation (or, without validation
 * data, training) and test; prefix "" gives the lines "valid accuracy: X"
 * and "test accuracy: Y", another prefix one line. */
static int print_results(Session *s, const char *prefix, Err *e) {
    EvalStats st, test;
    const Dataset *d = s->valid.n ? &s->valid : &s->train;
    int rc = evaluate_dataset(&s->model, d, 64, NULL, &st, e);
    if (!rc && s->test.n)
        rc = evaluate_dataset(&s->model, &s->test, 64, NULL, &test, e);
    if (rc)
        return rc;
    const char *which = s->valid.n ? "valid" : "train";
    if (*prefix) {
        printf("%s: %s accuracy %.4f", prefix, which, eval_accuracy_all(&st));
        if (s->test.n)
            printf(", test accuracy %.4f", eval_accuracy_all(&test));
        printf("\n");
        return 0;
    }
    printf("%s accuracy: %.4f\n", which, eval_accuracy_all(&st));
    if (!s->test.n)
        return 0;
    printf("test accuracy: %.4f\n", eval_accuracy_all(&test));
    if (test.skipped)
        printf("(%zu test sentences are longer than the learned table and count as wrong)\n",
               test.skipped);
    return 0;
}

/* The end of a run: the last step's model, then the kept one put back
 * in its place (what --out holds). */
static int finish(Session *s, const Kept *k, Err *e) {
    size_t last = s->trainer.step;
    bool other = k->best && k->step != last;
    if (other) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "last step (%zu)", last);
        int rc = print_results(s, prefix, e);
        if (rc)
            return rc;
        kept_restore(k, s);
    }
    printf("kept: the model of step %zu of %zu (%s)\n", k->step, last,
           k->best ? "the best validation accuracy" : "the last step");
    return print_results(s, "", e);
}

/* --log: a new file with its header, or on --resume the run's own log,
 * appended to when its header is this version's and it ends at the
 * checkpoint's step (a run kept at an earlier step than its last
 * evaluation would otherwise go back in time). */
static FILE *open_log(const char *path, bool append, size_t step, Err *e) {
    static const char header[] =
        "step,loss,accuracy,valid_loss,valid_accuracy,seconds,lr,kept_step\n";
    FILE *log = fopen(path, append ? "a+" : "w");
    if (!log) {
        err_set(e, ERR_INPUT, "cannot write the log %s: %s", path, strerror(errno));
        return NULL;
    }
    char first[sizeof header + 1] = "";
    rewind(log);
    if (!fgets(first, sizeof first, log) || !*first) {
        fputs(header, log);
    } else if (strcmp(first, header) != 0) {
        fclose(log);
        err_set(e, ERR_INPUT, "the log %s has other columns than this version writes (%s); "
                "give a new --log", path, "step,...,lr,kept_step");
        return NULL;
    }
    char row[256];
    size_t last = 0;
    while (fgets(row, sizeof row, log))
        if (strtoull(row, NULL, 10) > last)
            last = strtoull(row, NULL, 10);
    if (last > step) {
        fclose(log);
        err_set(e, ERR_INPUT, "the log %s goes on to step %zu, past the checkpoint's step %zu "
                "(the model kept by --keep best); give a new --log", path, last, step);
        return NULL;
    }
    return log;
}

/* What a failing run lets go of before it exits. */
typedef struct {
    Session *s;
    Kept *k;
    FILE *log;
} Run;

static void fail(const Cli *cli, Run *r, const Err *e) {
    if (r->log)
        fclose(r->log);
    kept_free(r->k);
    session_free(r->s);
    cli_fail(cli, e);
}

/* The command line, as given. */
typedef struct {
    TrainMeta mt;
    OptConfig opt;
    Config cfg;
    const char *out, *logpath, *resume, *init;
    const char *shaping;   /* an option that shapes a new run (refused with --resume) */
    const char *task_only; /* a task option, which does nothing with --data */
    const char *model_opt; /* a model option --init refuses */
    bool rescale;          /* an option a trained model may change (for --init) */
    bool steps_given, keep_given;
    bool quiet; /* --quiet */
} Args;

static void parse(Cli *cli, Args *a) {
    train_meta_default(&a->mt);
    opt_default(&a->opt);
    a->mt.max_memory = cli_default_memory();
    config_default(&a->cfg, 0, "sinusoidal");
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_task(cli, a->mt.task, sizeof a->mt.task)) {
            a->shaping = arg;
        } else if (cli_run_option(cli, &a->mt, &a->opt, TRAIN_OPT_DATA) ||
                   cli_run_option(cli, &a->mt, &a->opt, TRAIN_OPT_VALID)) {
            a->shaping = arg;
        } else if (cli_pe(cli, &a->cfg.pe)) {
            a->shaping = a->model_opt = arg;
        } else if (cli_opt(cli, "--out")) {
            a->out = cli->val;
        } else if (cli_flag(cli, "--quiet")) {
            a->quiet = true;
        } else if (cli_opt(cli, "--log")) {
            a->logpath = cli->val;
        } else if (cli_opt(cli, "--resume")) {
            a->resume = cli->val;
        } else if (cli_opt(cli, "--init")) {
            a->init = cli->val;
        } else if (cli_opt(cli, "--dropout")) {
            a->cfg.dropout = cli_float(cli, "--dropout", cli->val, 0.0f, MAX_DROPOUT);
            a->shaping = arg;
        } else if (cli_run_option(cli, &a->mt, &a->opt, TRAIN_OPT_KEEP)) {
            a->keep_given = true;
        } else if (cli_task_option(cli, &a->mt.task_opt)) {
            a->shaping = a->task_only = arg;
        } else if (cli_model_option(cli, &a->cfg)) {
            if (strncmp(arg, "--table-len", 11) == 0)
                a->mt.table_len = a->cfg.max_len;
            a->shaping = arg;
            if (cli_is_tunable(arg))
                a->rescale = true;
            else if (strncmp(arg, "--seed", 6) != 0)
                a->model_opt = arg;
        } else if (cli_train_option(cli, &a->mt, &a->opt)) {
            if (strncmp(arg, "--steps", 7) == 0)
                a->steps_given = true;
            else if (strncmp(arg, "--max-memory", 12) != 0)
                a->shaping = arg;
        } else {
            cli_unknown(cli, arg);
        }
    }
}

/* The rules between the options: what goes together, and what would do
 * nothing (refused, not silently ignored). */
static void check(Cli *cli, Args *a) {
    const TrainMeta *mt = &a->mt;
    if (a->resume && a->shaping)
        cli_usage_error(cli, "with --resume the model, data and options come from the "
                        "checkpoint; drop %s (only --steps, --keep, --out, --log, --max-memory "
                        "and --quiet apply)",
                        a->shaping);
    if (a->resume && a->init)
        cli_usage_error(cli, "give --resume (go on with a run) or --init (start a new one "
                        "from a model's weights), not both");
    if (a->init && a->model_opt)
        cli_usage_error(cli, "with --init the model's shape and scheme come from %s; drop %s "
                        "(of the model options, --init takes the --rope- ones and --seed)",
                        a->init, a->model_opt);
    if (!a->resume && !mt->task[0] && !mt->data[0])
        cli_usage_error(cli, "give a task (--task agent) or a data file (--data FILE)");
    if (mt->task[0] && mt->data[0])
        cli_usage_error(cli, "give --task or --data, not both");
    if (mt->valid[0] && !mt->data[0])
        cli_usage_error(cli, "--valid goes with --data");
    if (mt->data[0] && a->task_only)
        cli_usage_error(cli, "%s applies to the built-in tasks (--task), not to --data; drop "
                        "it", a->task_only);
    if (!a->resume && !a->init)
        cli_refuse_unused(cli, &a->cfg);
    a->mt.seed = a->cfg.seed;
}

/* The session: from --init's weights, from --resume's checkpoint, or new. */
static int open_session(Session *s, Args *a, Err *e) {
    if (a->resume)
        return session_resume(s, a->resume, a->steps_given ? a->mt.steps : 0, a->mt.max_memory,
                              e);
    if (!a->init)
        return session_create(s, &a->mt, &a->cfg, &a->opt, e);
    Checkpoint ck;
    int rc = checkpoint_load(&ck, a->init, e);
    if (rc)
        return rc;
    Config from = ck.model.cfg;
    from.seed = a->cfg.seed;
    from.dropout = a->cfg.dropout;
    rc = a->rescale ? session_tune(&from, &a->cfg.pe, e) : 0;
    if (!rc)
        rc = session_create_from(s, &a->mt, &ck.model, &ck.vocab, &ck.labels, &from, &a->opt,
                                 e);
    checkpoint_free(&ck);
    return rc;
}

/* Before the first step: the model to keep, the outputs checked and the
 * log opened; a resumed run's model saved to --out as the one to beat.
 * Sets *saved when out holds the kept model. */
static void prepare(const Cli *cli, Run *r, const Args *a, bool *saved, Err *e) {
    Session *s = r->s;
    Kept *k = r->k;
    /* a resumed run keeps what it kept, unless --keep says otherwise; the
     * checkpoint saves what is kept, last wherever there is no validation */
    if (a->keep_given)
        s->meta.keep = a->mt.keep;
    bool best = s->meta.keep == KEEP_BEST && s->valid.n > 0;
    if (a->keep_given && a->mt.keep == KEEP_BEST && !s->valid.n) {
        /* --valid cannot be added to a resumed run: say what can be done */
        if (a->resume)
            err_set(e, ERR_INPUT, "--keep best needs validation data, and the run of %s has "
                    "none (it was trained on --data without --valid); use --keep last, or train "
                    "again with --valid FILE", a->resume);
        else
            err_set(e, ERR_INPUT, "--keep best needs validation data (--valid FILE)");
        fail(cli, r, e);
    }
    s->meta.keep = best ? KEEP_BEST : KEEP_LAST;
    if (kept_init(k, s, best, e))
        fail(cli, r, e);
    if (!a->quiet) {
        describe(s);
        cli_print_memory("train", &s->meta, s->memory);
    }
    /* every output checked and locked before any training (issue 9) */
    if (cli_train_outputs(&s->meta, a->out, a->logpath, a->resume, a->init, e))
        fail(cli, r, e);
    if (a->logpath && !(r->log = open_log(a->logpath, a->resume != NULL, s->trainer.step, e)))
        fail(cli, r, e);
    if (a->resume && s->trainer.step) {
        /* The saved model is the one to beat (--keep best saved the best). */
        EvalStats v = {0};
        if (evaluate_dataset(&s->model, &s->valid, 64, NULL, &v, e))
            fail(cli, r, e);
        kept_offer(k, s, &v);
        if (a->out && session_save(s, a->out, e)) /* out holds the kept model from the start */
            fail(cli, r, e);
        *saved = a->out != NULL;
    }
    if (s->trainer.step >= s->meta.steps)
        fprintf(stderr, "train: the run is already at step %zu of %zu; give --steps to go on\n",
                s->trainer.step, s->meta.steps);
}

/* The steps, with an evaluation every eval_every and at the last; then
 * the log closed. */
static void train(const Cli *cli, Run *r, const Args *a, bool *saved, Err *e) {
    Session *s = r->s;
    Progress p = {.start = clock_seconds(), .before = s->meta.seconds, .first = s->trainer.step,
                  .quiet = a->quiet};
    while (s->trainer.step < s->meta.steps) {
        StepWindow w = {0};
        if (session_advance(s, r->k, SIZE_MAX, &w, e)) {
            if (a->out && *saved)
                fprintf(stderr, "train: %s still holds the model of step %zu\n", a->out,
                        r->k->step);
            else if (a->out)
                fprintf(stderr, "train: nothing was saved to %s\n", a->out);
            fail(cli, r, e);
        }
        p.tokens += w.tokens;
        if (report(s, &p, &w, r->k, saved, r->log, a->logpath, a->out, e))
            fail(cli, r, e);
    }
    FILE *log = r->log;
    r->log = NULL;
    if (log && fclose(log)) {
        err_set(e, ERR_RUNTIME, "writing the log %s failed: %s", a->logpath, strerror(errno));
        fail(cli, r, e);
    }
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "train");
    Args a = {0};
    parse(&cli, &a);
    check(&cli, &a);

    Session s;
    Err e;
    if (open_session(&s, &a, &e))
        cli_fail(&cli, &e);
    Kept k = {0};
    Run r = {&s, &k, NULL};
    bool saved = false; /* out holds the kept model */
    prepare(&cli, &r, &a, &saved, &e);
    train(&cli, &r, &a, &saved, &e);
    if (!k.step)
        k.step = s.trainer.step;
    if (finish(&s, &k, &e))
        fail(&cli, &r, &e);
    if (!a.quiet && a.out)
        fprintf(stderr, "train: %s holds the model of step %zu\n", a.out, k.step);
    else if (!a.quiet)
        fprintf(stderr, "train: no --out was given, so the trained model was not saved\n");
    kept_free(&k);
    session_free(&s);
    return 0;
}
