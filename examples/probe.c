/* probe: does position survive to the upper layers? A linear probe reads
 * each word's position back from every layer of trained models; the table
 * and the picture compare them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/figures/figures.h"
#include "../src/plot/chart.h"
#include "../src/run/probe.h"
#include "../src/run/session.h"
#include "cli.h"

static const char *const USAGE[] = {
    "Usage: probe [options] MODEL...\n"
    "\n"
    "Reads each word's position back from every layer of trained models with a\n"
    "linear probe: for each layer, a ridge regression from a word's row to its\n"
    "position, fitted on the validation sentences of the task and scored on its\n"
    "test sentences, which neither the model nor the probe has seen. Layers are\n"
    "counted as a row goes through them: 0 is the encoder's input (embedding and\n"
    "position code), l the output of l layers (of the layer that pe_plot\n"
    "--layer l-1 draws), L the encoder's output.\n"
    "Prints, per model and layer, the share of test words whose position the\n"
    "probe gets right (the largest output of a map to one-hot positions) and\n"
    "the R^2 of the position read as a number.\n"
    "\n"
    "Options:\n"
    "  --task NAME           the sentences to probe with (default: the task the\n"
    "                        models were trained on, which must then be one)\n"
    "  --data FILE           sentences from a file instead (the format of train\n"
    "                        --data; labels are not read): the first half fits the\n"
    "                        probe, the second half scores it\n"
    "  --examples N          sentences of each split (default: the task's)\n"
    "  --min-len N           shortest sentence (default: as in training)\n"
    "  --max-len N           longest sentence (default: as in training)\n"
    "  --ridge X             penalty on the probe's weights, relative to the mean\n"
    "                        squared channel (default 0.001)\n"
    "  --plot FILE.png       draw the accuracy against the layer, a line per model\n"
    "                        (a colour and a mark per scheme, pre-norm dashed)\n"
    "  --csv                 print model,scheme,norm,layer,accuracy,r2 rows\n"
    CLI_MEMORY_HELP
    "  --help                show this help\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options or input, 1 on failure.\n",
    NULL};

#define MAX_MODELS 16

typedef struct {
    const char *path;
    char label[160];
    char scheme[32];
    const PeScheme *kind; /* the registry's entry: one colour and mark per scheme */
    bool pre;
    ProbeResult r;
} Probed;

static void probe_one(const Cli *cli, Probed *p, const char *task, const char *data,
                      const TaskOptions *over, double ridge, double max_memory) {
    Checkpoint ck;
    Err e;
    if (checkpoint_load(&ck, p->path, &e))
        cli_fail(cli, &e);
    const char *own = ck.has_train && ck.meta.task[0] ? ck.meta.task : NULL;
    if (!task && !data && !own)
        cli_usage_error(cli, "%s was not trained on a built-in task: give one with --task, or "
                        "sentences with --data", p->path);
    const Config *c = &ck.model.cfg;
    snprintf(p->scheme, sizeof p->scheme, "%s", c->pe.name);
    p->kind = ck.model.pe.scheme;
    p->pre = c->norm == NORM_PRE;
    snprintf(p->label, sizeof p->label, "%s, %s-norm", c->pe.name, p->pre ? "pre" : "post");
    Dataset fit, test;
    /* the words alone: a position needs no label, so any model reads any
     * task's sentences or a file's */
    const char *from = data ? NULL : task ? task : own;
    if (session_words_data(&fit, &ck, from, data, over, "valid", &e))
        cli_fail(cli, &e);
    if (session_words_data(&test, &ck, from, data, over, "test", &e)) {
        dataset_free(&fit);
        cli_fail(cli, &e);
    }
    size_t T = fit.max_len > test.max_len ? fit.max_len : test.max_len;
    char words[96], what[320];
    snprintf(what, sizeof what, "%s: the model and the activations of %d sentences of %s",
             p->path, PROBE_BATCH, config_words(c, T, words, sizeof words));
    cli_check_memory(cli, config_memory(c, PROBE_BATCH, T), max_memory, what,
                     "use shorter sentences");
    int rc = probe_position(&p->r, &ck.model, &fit, &test, ridge, &e);
    dataset_free(&fit);
    dataset_free(&test);
    checkpoint_free(&ck);
    if (rc)
        cli_fail(cli, &e);
}

/* Without --task the models' own tasks give the sentences: one table
 * needs them all on one task. */
static void same_task(const Cli *cli, const Probed *p, size_t n) {
    char first[32] = "";
    for (size_t i = 0; i < n; i++) {
        Checkpoint ck;
        Err e;
        if (checkpoint_load(&ck, p[i].path, &e))
            cli_fail(cli, &e);
        char own[32];
        snprintf(own, sizeof own, "%s", ck.has_train ? ck.meta.task : "");
        checkpoint_free(&ck);
        if (i == 0)
            snprintf(first, sizeof first, "%s", own);
        else if (own[0] && first[0] && strcmp(own, first) != 0)
            cli_usage_error(cli, "%s was trained on %s and %s on %s: give --task to probe them "
                            "on the same sentences", p[0].path, first, p[i].path, own);
    }
}

/* Two models of one scheme and norm would share a row's name: the file
 * tells them apart. */
static void unique_labels(Probed *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && strcmp(p[i].scheme, p[j].scheme) == 0 && p[i].pre == p[j].pre) {
                const char *base = strrchr(p[i].path, '/');
                snprintf(p[i].label, sizeof p[i].label, "%s, %s-norm (%s)", p[i].scheme,
                         p[i].pre ? "pre" : "post", base ? base + 1 : p[i].path);
                break;
            }
}

static void print_table(const Probed *p, size_t n, size_t rows, bool r2) {
    int w = 22;
    for (size_t i = 0; i < n; i++)
        w = (int)strlen(p[i].label) > w ? (int)strlen(p[i].label) : w;
    printf("%-*s", w, "layer");
    for (size_t l = 0; l < rows; l++)
        printf("%8zu", l);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        printf("%-*s", w, p[i].label);
        for (size_t l = 0; l < p[i].r.n_rows; l++)
            /* a space first: a large negative R^2 must not run into its neighbour */
            printf(" %7.4f", r2 ? p[i].r.r2[l] : p[i].r.accuracy[l]);
        printf("\n");
    }
}

/* Three charts: accuracy; the models that stay near chance, enlarged;
 * R^2. A line per model, a colour and a mark per scheme, pre-norm dashed,
 * and chance, last and dashed grey, so that a model at chance (none's)
 * shows through its gaps. On the full range the schemes with no code in
 * the rows lie within a few pixels of each other; the middle chart, on
 * their own range, tells them apart. */
static void plot(const Cli *cli, const char *path, const Probed *p, size_t n, size_t rows) {
    static double x[MAX_LAYERS + 1], y[2][MAX_MODELS][MAX_LAYERS + 1], cx[2], cy[2];
    Series s[3][MAX_MODELS + 1];
    const PeScheme *seen[MAX_MODELS];
    size_t n_seen = 0, n_near = 0;
    double chance = p[0].r.chance;
    for (size_t l = 0; l < rows; l++)
        x[l] = (double)l;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < n_seen && seen[k] != p[i].kind)
            k++;
        if (k == n_seen)
            seen[n_seen++] = p[i].kind;
        bool near = true;
        for (size_t l = 0; l < p[i].r.n_rows; l++) {
            y[0][i][l] = p[i].r.accuracy[l];
            y[1][i][l] = p[i].r.r2[l];
            near = near && p[i].r.accuracy[l] < 2.0 * chance;
        }
        for (int c = 0; c < 2; c++) {
            /* hollow shapes: the schemes with no code in the rows sit on
             * one another at chance, and each shows through the others */
            s[c ? 2 : 0][i] = (Series){.x = x, .y = y[c][i], .n = p[i].r.n_rows,
                                       .label = c ? NULL : p[i].label, .color = series_color(k),
                                       .dashed = p[i].pre, .markers = true,
                                       .marker = (Marker)(MARKER_CIRCLE + k % (MARKER_COUNT - 1))};
        }
        if (near) {
            s[1][n_near] = s[0][i];
            s[1][n_near++].label = NULL;
        }
    }
    cx[0] = 0.0;
    cx[1] = (double)(rows - 1);
    cy[0] = cy[1] = chance;
    s[0][n] = (Series){.x = cx, .y = cy, .n = 2, .label = "chance", .color = RGB_GREY,
                       .dashed = true};
    s[1][n_near] = s[0][n];
    s[1][n_near].label = NULL;
    LineChart lc[3] = {
        {.series = s[0], .n_series = n + 1,
         .title = "Position read back by a linear probe: test accuracy", .xlabel = NULL,
         .ylabel = "accuracy", .fixed_y = true, .ymin = 0.0, .ymax = 1.0},
        /* its range the models' own: no chart is drawn when none is near */
        {.series = s[1], .n_series = n_near ? n_near + 1 : 0,
         .title = "Enlarged: the models that never reach twice chance", .xlabel = NULL,
         .ylabel = "accuracy"},
        /* R^2 goes below 0 where the probe does worse than the mean */
        {.series = s[2], .n_series = n, .title = "R^2 of the position read as a number",
         .xlabel = "layer (0: the input, embedding + code)", .ylabel = "R^2", .fixed_y = true,
         .ymin = -0.2, .ymax = 1.0},
    };
    for (int c = 0; c < 3; c++) {
        lc[c].plot_w = 560;
        lc[c].plot_h = 260;
        lc[c].x_integer = lc[c].legend = true;
    }
    Canvas cv;
    Err e;
    if (fig_stack(&cv, lc, 3, 10, 10, NULL, &e))
        cli_fail(cli, &e);
    int rc = canvas_write_png(&cv, path, &e);
    canvas_free(&cv);
    if (rc)
        cli_fail(cli, &e);
}

/* The command line, as given; the models in p, n of them. */
typedef struct {
    char task_buf[32];
    const char *task, *plot_path, *data;
    TaskOptions over;
    bool csv;
    double ridge, max_memory;
    Probed *p;
    size_t n;
} Args;

static void parse(Cli *cli, Args *a) {
    /* a task other than the model's own is drawn from the tasks' default seed */
    *a = (Args){.over = {.seed = 1}, .ridge = 1e-3, .max_memory = cli_default_memory()};
    a->p = cli_alloc(cli, MAX_MODELS, sizeof *a->p, "the models");
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_flag(cli, "--csv")) {
            a->csv = true;
        } else if (cli_memory_option(cli, &a->max_memory)) {
            /* the guard's limit, checked before each model runs */
        } else if (cli_task(cli, a->task_buf, sizeof a->task_buf)) {
            a->task = a->task_buf;
        } else if (cli_opt(cli, "--data")) {
            a->data = cli->val;
        } else if (cli_opt(cli, "--examples")) {
            a->over.n_valid = a->over.n_test = cli_size(cli, "--examples", cli->val, 1,
                                                        TASK_MAX_EXAMPLES);
        } else if (cli_opt(cli, "--min-len")) {
            a->over.min_len = cli_size(cli, "--min-len", cli->val, 1, TASK_MAX_LEN);
        } else if (cli_opt(cli, "--max-len")) {
            a->over.max_len = cli_size(cli, "--max-len", cli->val, 1, TASK_MAX_LEN);
        } else if (cli_opt(cli, "--ridge")) {
            a->ridge = cli_double(cli, "--ridge", cli->val, 1e-12, 1e6);
        } else if (cli_opt(cli, "--plot")) {
            a->plot_path = cli->val;
            size_t len = strlen(a->plot_path);
            if (len < 5 || strcmp(a->plot_path + len - 4, ".png") != 0)
                cli_usage_error(cli, "--plot '%s' must name a .png file", a->plot_path);
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_unknown(cli, arg);
        } else if (a->n < MAX_MODELS) {
            a->p[a->n++].path = arg;
        } else {
            cli_usage_error(cli, "more than %d models", MAX_MODELS);
        }
    }
}

static void check(Cli *cli, const Args *a) {
    if (a->n == 0)
        cli_usage_error(cli, "give one or more models saved by train --out");
    /* the picture must not replace a model or the data it reads */
    char lock[4096 + 8] = "";
    if (a->plot_path)
        snprintf(lock, sizeof lock, "%s.lock", a->plot_path);
    FileArg files[MAX_MODELS + 3] = {{a->plot_path, "--plot", FILE_OUTPUT, NULL},
                                     {lock, "--plot's lock file", FILE_OUTPUT, NULL},
                                     {a->data, "--data", FILE_INPUT, NULL}};
    for (size_t i = 0; i < a->n; i++)
        files[3 + i] = (FileArg){a->p[i].path, "the model", FILE_INPUT, NULL};
    cli_check_files(cli, files, 3 + a->n);
    if (a->task && a->data)
        cli_usage_error(cli, "give --task or --data, not both");
    static const char *const task_only[] = {"--examples", "--min-len", "--max-len", NULL};
    if (a->data)
        cli_refuse_given(cli, task_only, "with --data, whose sentences are the file's");
    if (!a->task && !a->data)
        same_task(cli, a->p, a->n);
    /* one writer per picture, and one that cannot be written refused
     * before the models are probed */
    Err e;
    if (a->plot_path && (output_check(a->plot_path, "--plot", true, &e) ||
                         cli_hold_output(a->plot_path, "--plot", true, &e)))
        cli_error(cli, &e);
}

static void print_csv(const Probed *p, size_t n) {
    printf("model,scheme,norm,layer,accuracy,r2\n");
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < p[i].r.n_rows; l++)
            printf("%s,%s,%s,%zu,%.4f,%.4f\n", p[i].path, p[i].scheme, p[i].pre ? "pre" : "post",
                   l, p[i].r.accuracy[l], p[i].r.r2[l]);
}

/* What the probes were fitted and scored on, then the two tables. */
static void print_report(const Probed *p, size_t n, size_t rows) {
    const ProbeResult *r = &p[0].r;
    printf("Fitted on %zu validation sentences (%zu words), scored on %zu test sentences\n"
           "(%zu words); positions 0..%zu; chance (always the commonest position): %.4f\n",
           r->fit_sentences, r->fit_words, r->test_sentences, r->test_words,
           r->n_positions - 1, r->chance);
    for (size_t i = 1; i < n; i++)
        if (p[i].r.test_words != r->test_words || p[i].r.fit_words != r->fit_words)
            printf("(%s: fitted on %zu words, scored on %zu, chance %.4f)\n", p[i].path,
                   p[i].r.fit_words, p[i].r.test_words, p[i].r.chance);
    for (size_t i = 0; i < n; i++)
        if (p[i].r.skipped)
            printf("(%s: %zu sentences longer than its learned table are left out)\n",
                   p[i].path, p[i].r.skipped);
    printf("\nTest accuracy of the position read back, by layer (0: the input):\n");
    print_table(p, n, rows, false);
    printf("\nR^2 of the position read back as a number:\n");
    print_table(p, n, rows, true);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "probe");
    Args a;
    parse(&cli, &a);
    check(&cli, &a);
    Probed *p = a.p;
    size_t rows = 0;
    for (size_t i = 0; i < a.n; i++) {
        probe_one(&cli, &p[i], a.task, a.data, &a.over, a.ridge, a.max_memory);
        rows = p[i].r.n_rows > rows ? p[i].r.n_rows : rows;
    }
    unique_labels(p, a.n);
    if (a.csv)
        print_csv(p, a.n);
    else
        print_report(p, a.n, rows);
    if (a.plot_path)
        plot(&cli, a.plot_path, p, a.n, rows);
    free(p);
    return 0;
}
