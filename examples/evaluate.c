/* evaluate: the accuracy of a trained model, overall and per sentence
 * length, on a built-in task or on a data file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/run/session.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: evaluate --model MODEL (--task NAME | --data FILE) [options]\n"
    "\n"
    "Runs a model saved by train on the test split of a built-in task (the same\n"
    "held-out split it was trained beside, unless the options change it) or on\n"
    "a data file, and prints the accuracy for each sentence length, then overall.\n"
    "For per-token tasks accuracy counts tokens, and a second column counts whole\n"
    "sentences with every token right.\n"
    "\n"
    "Sentences longer than the model can encode (past a learned table's last row)\n"
    "are reported as such and count as wrong in the overall accuracy.\n"
    "\n"
    "Options:\n"
    "  --model MODEL         a model written by train --out\n"
    "  --task NAME           a built-in task (listed below)\n"
    "  --data FILE           your own labelled data (docs/formats.md)\n"
    "  --split test|valid    which split of the task (default test)\n"
    "  --min-len N, --max-len N, --data-seed S   change the task's lengths or data,\n"
    "                        e.g. --max-len 24 to test sentences longer than training\n"
    "  --examples N          sentences in the split (default: the task's)\n"
    "  --random-positions N  give each test sentence sorted positions drawn from\n"
    "                        0..N-1, as Ruoss et al. (2023) evaluate a model trained\n"
    "                        with train --random-positions N (give the same N), and\n"
    "                        report the mean over the draws; without it a sentence\n"
    "                        of T words sits at positions 0..T-1. A model trained\n"
    "                        with train --batches by-length gets one draw per batch\n"
    "                        of one length, as in its training\n"
    "  --draws D             draws of --random-positions (default 10; D times the\n"
    "                        data's tokens at most 10000000, one pass over the\n"
    "                        largest split a task makes)\n"
    "  and the options a trained model may change, for this evaluation, without\n"
    "  training (yarn's L defaults to the longest training sentence):\n",
    CLI_TUNABLE_OPTIONS,
    "  --csv                 print only length,examples,accuracy rows (accuracy is\n"
    "                        empty for lengths the model cannot encode)\n"
    CLI_MEMORY_HELP
    "  --help                show this help\n"
    "\n", CLI_TASKS,
    "\n"
    "The last line of the normal output is 'accuracy: X', X between 0 and 1.\n"
    "Exit status: 0 on success, 2 for bad options, model or data, 1 on failure.\n",
    NULL};

/* Sentences of one length run through the model at once. */
#define EVAL_BATCH 64

/* The command line, as given. */
typedef struct {
    const char *model, *task, *data, *split;
    char task_buf[32];
    const char *task_only, *split_opt; /* nothing to do with --data */
    TaskOptions over;
    bool csv;
    size_t random_n, draws;
    const char *draws_opt;
    double max_memory;
    Config scale; /* the --rope- options, if any */
    bool rescale;
} Args;

static void parse(Cli *cli, Args *a) {
    a->split = "test";
    a->over.seed = 1;
    a->draws = 10;
    a->max_memory = cli_default_memory();
    config_default(&a->scale, 0, pe_tunable_scheme()->name);
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_flag(cli, "--csv")) {
            a->csv = true;
        } else if (cli_memory_option(cli, &a->max_memory)) {
            /* the guard's limit, checked before the activations are made */
        } else if (cli_opt(cli, "--model")) {
            a->model = cli->val;
        } else if (cli_task(cli, a->task_buf, sizeof a->task_buf)) {
            a->task = a->task_buf;
        } else if (cli_opt(cli, "--data")) {
            a->data = cli->val;
        } else if (cli_opt(cli, "--split")) {
            if (strcmp(cli->val, "test") != 0 && strcmp(cli->val, "valid") != 0)
                cli_usage_error(cli, "--split is test or valid, not '%s'", cli->val);
            a->split = cli->val;
            a->split_opt = arg;
        } else if (cli_opt(cli, "--examples")) {
            a->task_only = arg;
            a->over.n_test = a->over.n_valid = cli_size(cli, "--examples", cli->val, 1,
                                                        TASK_MAX_EXAMPLES);
        } else if (cli_opt(cli, "--min-len")) {
            a->task_only = arg;
            a->over.min_len = cli_size(cli, "--min-len", cli->val, 1, TASK_MAX_LEN);
        } else if (cli_opt(cli, "--max-len")) {
            a->task_only = arg;
            a->over.max_len = cli_size(cli, "--max-len", cli->val, 1, TASK_MAX_LEN);
        } else if (cli_opt(cli, "--random-positions")) {
            a->random_n = cli_size(cli, "--random-positions", cli->val, 1, 1000000);
        } else if (cli_opt(cli, "--draws")) {
            a->draws = cli_size(cli, "--draws", cli->val, 1, 1000);
            a->draws_opt = arg;
        } else if (cli_is_tunable(arg) && cli_scheme_option(cli, &a->scale)) {
            a->rescale = true;
        } else if (cli_opt(cli, "--data-seed")) {
            a->task_only = arg;
            a->over.seed = cli_u64(cli, "--data-seed", cli->val);
        } else {
            cli_unknown(cli, arg);
        }
    }
}

static void check(const Cli *cli, const Args *a) {
    if (!a->model)
        cli_usage_error(cli, "give the model to evaluate: --model MODEL");
    if (!a->task == !a->data)
        cli_usage_error(cli, "give a task (--task NAME) or a data file (--data FILE)");
    if (a->data && (a->task_only || a->split_opt))
        cli_usage_error(cli, "%s applies to a built-in task (--task), not to --data, which is "
                        "read as it is; drop it", a->split_opt ? a->split_opt : a->task_only);
    if (a->draws_opt && !a->random_n)
        cli_usage_error(cli, "%s goes with --random-positions N", a->draws_opt);
}

/* The model (with --rope- changes), and the sentences to score with it,
 * checked against the model's positions and the memory allowed. */
static void load(const Cli *cli, const Args *a, Checkpoint *ck, Dataset *d) {
    Err e;
    if (checkpoint_load(ck, a->model, &e))
        cli_fail(cli, &e);
    if (a->rescale && session_tune(&ck->model.cfg, &a->scale.pe, &e)) {
        checkpoint_free(ck);
        cli_fail(cli, &e);
    }
    size_t random_n = a->random_n;
    /* the model's own options are as it was trained (--xl-rows clamped
     * among them, its run's draws or not): only N is this run's */
    TrainMeta rp = {.random_positions = random_n};
    size_t rows = model_max_positions(&ck->model);
    if (random_n > rows)
        err_set(&e, ERR_INPUT, "--random-positions %zu: the %s table of %s has rows for "
                "positions 0..%zu only; give at most %zu", random_n, ck->model.cfg.pe.name,
                a->model, rows - 1, rows);
    if (random_n > rows || session_check_positions(&rp, &ck->model.cfg, 0, &e)) {
        checkpoint_free(ck);
        cli_fail(cli, &e);
    }
    size_t unknown = 0;
    if (session_eval_data(d, ck, a->task, a->data, &a->over, a->split, &unknown, &e)) {
        checkpoint_free(ck);
        cli_fail(cli, &e);
    }
    /* each draw scores the whole split again: no more tokens in all than
     * one pass over the largest split a task makes */
    size_t tokens = d->start[d->n], draws = a->draws;
    if (random_n && (double)draws * (double)tokens > (double)TASK_MAX_TOKENS)
        cli_usage_error(cli, "%zu draws of the %zu tokens of the data would score %.3g tokens, "
                        "more than the %d one evaluation scores at most; give --draws %zu or "
                        "fewer, or fewer sentences", draws, tokens,
                        (double)draws * (double)tokens, TASK_MAX_TOKENS,
                        TASK_MAX_TOKENS / tokens > 0 ? TASK_MAX_TOKENS / tokens : 1);
    char words[96], what[192];
    snprintf(what, sizeof what, "the model and the activations of %d sentences of %s",
             EVAL_BATCH, config_words(&ck->model.cfg, d->max_len, words, sizeof words));
    cli_check_memory(cli, config_memory(&ck->model.cfg, EVAL_BATCH, d->max_len), a->max_memory,
                     what, "use shorter sentences");
    if (unknown)
        fprintf(stderr, "evaluate: %zu word%s not in the model's vocabulary became <unk>\n",
                unknown, unknown == 1 ? "" : "s");
}

static void print_csv(const Dataset *d, const EvalStats *per) {
    printf("length,examples,accuracy\n");
    for (size_t len = 1; len <= d->max_len; len++) {
        if (!per[len].examples)
            continue;
        if (per[len].skipped)
            printf("%zu,%zu,\n", len, per[len].examples);
        else
            printf("%zu,%zu,%.4f\n", len, per[len].examples, eval_accuracy(&per[len]));
    }
}

/* The accuracy per length as a table, with what the model is and what it
 * was scored on above it and the totals below. */
static void print_table(const Args *a, const Checkpoint *ck, const Dataset *d,
                        const EvalStats *per, const EvalStats *total) {
    const Config *c = &ck->model.cfg;
    size_t random_n = a->random_n;
    bool token = d->kind == LABELS_TOKEN;
    size_t limit = model_max_positions(&ck->model);
    bool no_room = random_n && random_n < limit; /* lengths past N: no draw fits */
    /* the lengths are in words; a [CLS] before them takes a position */
    bool cls = config_lead_tokens(c) > 0;
    const char *after_cls = cls ? " after the [CLS]" : "";
    const char *hold = cls ? " hold after the [CLS]" : "";
    size_t words_max = limit - config_lead_tokens(c);
    size_t passes = random_n ? a->draws : 1; /* each sentence was scored this often */
    printf("model: %s (%s, %s%s%s)\n", a->model, c->pe.name, pe_meets(&ck->model.pe),
           ck->has_train && ck->meta.task[0] ? "; trained on " : "",
           ck->has_train ? ck->meta.task : "");
    printf("data: %s%s%s, %zu sentences\n", a->task ? a->task : a->data, a->task ? " " : "",
           a->task ? a->split : "", d->n);
    if (random_n)
        printf("positions: sorted draws from 0..%zu, %zu draw%s per sentence (accuracy: "
               "their mean)\n", random_n - 1, a->draws, a->draws == 1 ? "" : "s");
    printf("length  examples  accuracy%s\n", token ? "  sentences right" : "");
    for (size_t len = 1; len <= d->max_len; len++) {
        const EvalStats *p = &per[len];
        if (!p->examples)
            continue;
        if (p->skipped && no_room)
            printf("%6zu  %8zu  more words than the %zu positions of --random-positions%s\n",
                   len, p->examples, random_n, hold);
        else if (p->skipped)
            printf("%6zu  %8zu  not encodable: the %s table has rows up to length %zu%s\n",
                   len, p->examples, c->pe.name, words_max, after_cls);
        else if (token)
            printf("%6zu  %8zu  %8.4f  %15.4f\n", len, p->examples, eval_accuracy(p),
                   (double)p->exact / ((double)p->examples * (double)passes));
        else
            printf("%6zu  %8zu  %8.4f\n", len, p->examples, eval_accuracy(p));
    }
    if (total->skipped)
        printf("%zu of %zu sentences cannot be encoded; they count as wrong below\n",
               total->skipped, d->n);
    if (token)
        printf("sentences with every token right: %.4f\n",
               (double)total->exact / ((double)d->n * (double)passes));
    printf("accuracy: %.4f\n", eval_accuracy_all(total));
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "evaluate");
    Args a = {0};
    parse(&cli, &a);
    check(&cli, &a);
    Checkpoint ck;
    Dataset d;
    load(&cli, &a, &ck, &d);
    Err e;
    EvalStats *per = calloc(d.max_len + 1, sizeof *per), total;
    if (!per) {
        err_set(&e, ERR_RUNTIME, "out of memory");
        cli_fail(&cli, &e);
    }
    /* the draws' generator: the same numbers on every run */
    bool shared = ck.has_train && ck.meta.batches == BATCHES_BY_LENGTH;
    RandomDraw how = ck.has_train ? ck.meta.random_draw : RANDOM_DRAW_POSITIONS;
    if (evaluate_dataset_at(&ck.model, &d, EVAL_BATCH, a.random_n, a.draws, shared, how, 1, per,
                            &total, &e))
        cli_fail(&cli, &e);
    if (a.csv)
        print_csv(&d, per);
    else
        print_table(&a, &ck, &d, per, &total);
    free(per);
    dataset_free(&d);
    checkpoint_free(&ck);
    return 0;
}
