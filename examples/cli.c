#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "posenc";

void cli_check_stdout(void) {
    /* what close_stdout does in GNU programs: the last buffered output is
     * written here, so this is where a full disk shows */
    int err = ferror(stdout);
    int errnum = fclose(stdout) != 0 ? errno : err ? EIO : 0;
    if (err || errnum) {
        fprintf(stderr, "%s: writing the standard output failed: %s\n", prog_name,
                strerror(errnum ? errnum : EIO));
        _exit(1);
    }
}

void cli_init(Cli *cli, int argc, char **argv, const char *prog) {
    prog_name = prog;
    atexit(cli_check_stdout);
    cli->argc = argc;
    cli->argv = argv;
    cli->i = 0;
    cli->val = NULL;
    cli->prog = prog;
}

const char *cli_next(Cli *cli) {
    if (cli->i + 1 >= cli->argc)
        return NULL;
    return cli->argv[++cli->i];
}

bool cli_flag(Cli *cli, const char *name) { return strcmp(cli->argv[cli->i], name) == 0; }

bool cli_opt(Cli *cli, const char *name) {
    const char *a = cli->argv[cli->i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return false;
    if (a[n] == '=') {
        cli->val = a + n + 1;
        return true;
    }
    if (a[n] != '\0')
        return false;
    if (cli->i + 1 >= cli->argc)
        cli_usage_error(cli, "option %s needs a value", name);
    cli->val = cli->argv[++cli->i];
    return true;
}

void cli_usage_error(const Cli *cli, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cli->prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", cli->prog);
    exit(2);
}

void cli_fail(const Cli *cli, const Err *e) {
    fprintf(stderr, "%s: %s\n", cli->prog, e->msg);
    exit(e->code ? e->code : 1);
}

void cli_help(const Cli *cli, const char *const *usage) {
    const char *a = cli->argv[cli->i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        for (; *usage; usage++)
            fputs(*usage, stdout);
        exit(0);
    }
}

bool cli_task(Cli *cli, char *dst, size_t cap) {
    if (!cli_opt(cli, "--task"))
        return false;
    if (!task_exists(cli->val))
        cli_usage_error(cli, "unknown task '%s': choose one of %s", cli->val, task_names());
    snprintf(dst, cap, "%s", cli->val);
    return true;
}

bool cli_pe(Cli *cli, PeConfig *pc) {
    if (!cli_opt(cli, "--pe"))
        return false;
    if (!pe_find(cli->val))
        cli_usage_error(cli, "unknown scheme '%s' for --pe: choose one of %s", cli->val,
                        pe_names());
    snprintf(pc->name, sizeof pc->name, "%s", cli->val);
    return true;
}

void *cli_alloc(const Cli *cli, size_t count, size_t size, const char *what) {
    Err e;
    void *p = xcalloc(count, size, what, &e);
    if (!p)
        cli_fail(cli, &e);
    return p;
}

size_t cli_scheme_list(const Cli *cli, const char *opt, const char *list, const char ***names) {
    const char **out = cli_alloc(cli, pe_count(), sizeof *out, "the list of schemes");
    size_t n = 0;
    *names = out;
    if (strcmp(list, "all") == 0) {
        for (; n < pe_count(); n++)
            out[n] = pe_at(n)->name;
        return n;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const PeScheme *s = pe_find(tok);
        if (!s)
            cli_usage_error(cli, "unknown scheme '%s' for %s: choose from %s, or all", tok, opt,
                            pe_names());
        for (size_t i = 0; i < n; i++)
            if (out[i] == s->name)
                cli_usage_error(cli, "%s lists %s twice", opt, s->name);
        out[n++] = s->name; /* the registry's string outlives buf */
    }
    if (n == 0)
        cli_usage_error(cli, "%s is empty: give scheme names separated by commas, or all", opt);
    return n;
}

size_t cli_size(const Cli *cli, const char *opt, const char *s, size_t lo, size_t hi) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *s == '-' || *s == '+' || *end != '\0' || errno == ERANGE || v < lo ||
        v > hi)
        cli_usage_error(cli, "%s wants a whole number from %zu to %zu, not '%s'", opt, lo, hi, s);
    return (size_t)v;
}

uint64_t cli_u64(const Cli *cli, const char *opt, const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *s == '-' || *s == '+' || *end != '\0' || errno == ERANGE)
        cli_usage_error(cli, "%s wants a whole number from 0 to 2^64-1, not '%s'", opt, s);
    return (uint64_t)v;
}

double cli_double(const Cli *cli, const char *opt, const char *s, double lo, double hi) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        cli_usage_error(cli, "%s wants a number from %g to %g, not '%s'", opt, lo, hi, s);
    return v;
}

bool cli_model_option(Cli *cli, Config *c) {
    Err e;
    if (cli_opt(cli, "--combine")) {
        if (combine_parse(cli->val, &c->pe.combine, &e))
            cli_usage_error(cli, "%s", e.msg);
    } else if (cli_opt(cli, "--pe-dim")) {
        c->pe.width = cli_size(cli, "--pe-dim", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--pairs")) {
        c->pe.pairs = cli_size(cli, "--pairs", cli->val, 1, MAX_DIM / 2);
    } else if (cli_opt(cli, "--layout")) {
        if (strcmp(cli->val, "interleaved") == 0)
            c->pe.layout = LAYOUT_INTERLEAVED;
        else if (strcmp(cli->val, "split") == 0)
            c->pe.layout = LAYOUT_SPLIT;
        else
            cli_usage_error(cli, "--layout is interleaved or split, not '%s'", cli->val);
    } else if (cli_opt(cli, "--base")) {
        c->pe.base = cli_double(cli, "--base", cli->val, 1.000001, 1e12);
    } else if (cli_opt(cli, "--buckets")) {
        c->pe.buckets = cli_size(cli, "--buckets", cli->val, 4, 4096);
    } else if (cli_opt(cli, "--max-distance")) {
        c->pe.max_distance = cli_size(cli, "--max-distance", cli->val, 2, 1000000);
    } else if (cli_opt(cli, "--pe-init-std")) {
        c->pe.init_std = cli_double(cli, "--pe-init-std", cli->val, 1e-6, 100.0);
    } else if (cli_opt(cli, "--d-model")) {
        c->d_model = cli_size(cli, "--d-model", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--heads")) {
        c->n_heads = cli_size(cli, "--heads", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--layers")) {
        c->n_layers = cli_size(cli, "--layers", cli->val, 1, MAX_LAYERS);
    } else if (cli_opt(cli, "--d-ff")) {
        c->d_ff = cli_size(cli, "--d-ff", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--norm")) {
        if (strcmp(cli->val, "post") == 0)
            c->norm = NORM_POST;
        else if (strcmp(cli->val, "pre") == 0)
            c->norm = NORM_PRE;
        else
            cli_usage_error(cli, "--norm is post or pre, not '%s'", cli->val);
    } else if (cli_opt(cli, "--act")) {
        if (strcmp(cli->val, "relu") == 0)
            c->act = ACT_RELU;
        else if (strcmp(cli->val, "gelu") == 0)
            c->act = ACT_GELU;
        else
            cli_usage_error(cli, "--act is relu or gelu, not '%s'", cli->val);
    } else if (cli_flag(cli, "--scale-embed")) {
        c->scale_embed = true;
    } else if (cli_opt(cli, "--max-len")) {
        c->max_len = cli_size(cli, "--max-len", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--seed")) {
        c->seed = cli_u64(cli, "--seed", cli->val);
    } else {
        return false;
    }
    return true;
}

bool cli_task_option(Cli *cli, TaskOptions *o) {
    if (cli_opt(cli, "--min-len"))
        o->min_len = cli_size(cli, "--min-len", cli->val, 1, TASK_MAX_LEN);
    else if (cli_opt(cli, "--max-len"))
        o->max_len = cli_size(cli, "--max-len", cli->val, 1, TASK_MAX_LEN);
    else if (cli_opt(cli, "--max-train-len"))
        o->max_train_len = cli_size(cli, "--max-train-len", cli->val, 1, TASK_MAX_LEN);
    else if (cli_opt(cli, "--train-examples"))
        o->n_train = cli_size(cli, "--train-examples", cli->val, 1, TASK_MAX_EXAMPLES);
    else if (cli_opt(cli, "--data-seed"))
        o->seed = cli_u64(cli, "--data-seed", cli->val);
    else
        return false;
    return true;
}

bool cli_train_option(Cli *cli, TrainMeta *mt, OptConfig *o) {
    if (cli_opt(cli, "--steps"))
        mt->steps = cli_size(cli, "--steps", cli->val, 1, TRAIN_MAX_STEPS);
    else if (cli_opt(cli, "--random-positions"))
        mt->random_positions = cli_size(cli, "--random-positions", cli->val, 1, MAX_DIM);
    else if (cli_opt(cli, "--batch"))
        mt->batch = cli_size(cli, "--batch", cli->val, 1, TRAIN_MAX_BATCH);
    else if (cli_opt(cli, "--eval-every"))
        mt->eval_every = cli_size(cli, "--eval-every", cli->val, 1, TRAIN_MAX_STEPS);
    else if (cli_opt(cli, "--lr"))
        o->lr = (float)cli_double(cli, "--lr", cli->val, 1e-8, 10.0);
    else if (cli_opt(cli, "--warmup"))
        o->warmup = cli_size(cli, "--warmup", cli->val, 0, TRAIN_MAX_STEPS);
    else if (cli_opt(cli, "--weight-decay"))
        o->weight_decay = (float)cli_double(cli, "--weight-decay", cli->val, 0.0, 10.0);
    else if (cli_opt(cli, "--clip"))
        o->clip = (float)cli_double(cli, "--clip", cli->val, 0.0, 1e6);
    else if (cli_opt(cli, "--schedule")) {
        if (strcmp(cli->val, "constant") == 0)
            o->schedule = SCHEDULE_CONSTANT;
        else if (strcmp(cli->val, "noam") == 0)
            o->schedule = SCHEDULE_NOAM;
        else
            cli_usage_error(cli, "--schedule is constant or noam, not '%s'", cli->val);
    } else
        return false;
    return true;
}

bool cli_scheme_option(Cli *cli, Config *c) {
    static const char *const names[] = {"--combine", "--pe-dim",       "--pairs",
                                        "--layout",  "--base",         "--buckets",
                                        "--max-distance", "--pe-init-std", "--d-model",
                                        "--heads",   "--seed"};
    const char *a = cli->argv[cli->i];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(a, names[i], n) == 0 && (a[n] == '\0' || a[n] == '='))
            return cli_model_option(cli, c);
    }
    return false;
}

static OutputLock out_lock = {.fd = -1};

static void release_out_lock(void) { output_unlock(&out_lock); }

int cli_train_outputs(const TrainMeta *mt, const char *out, const char *log,
                      const char *resume, FILE **logf, Err *e) {
    *logf = NULL;
    const char *inputs[4] = {mt->data, mt->valid, out, resume};
    const char *in_opts[4] = {"--data", "--valid", "--out", "--resume"};
    int rc = 0;
    if (out)
        rc = output_check(out, "--out", true, inputs, in_opts, 2, e);
    if (!rc && log)
        rc = output_check(log, "--log", false, inputs, in_opts, 4, e);
    if (!rc && out && log && strcmp(out, log) == 0)
        rc = err_set(e, ERR_INPUT, "--out and --log are both %s; give two paths", out);
    if (!rc && out && !(rc = output_lock(&out_lock, out, "--out", e)))
        atexit(release_out_lock);
    bool empty = true;
    if (!rc && log)
        rc = output_open_log(logf, log, resume != NULL, &empty, e);
    if (!rc && *logf && empty &&
        fputs("step,loss,accuracy,valid_loss,valid_accuracy,seconds,lr\n", *logf) < 0)
        rc = err_set(e, ERR_RUNTIME, "writing the log %s failed: %s", log, strerror(errno));
    return rc;
}
