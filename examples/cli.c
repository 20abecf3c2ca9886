#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "cli.h"

#include "../src/core/buf.h"
#include "../src/core/options.h"
#include "../src/core/parse.h"
#include "../src/model/kernels.h"
#include "../src/model/par.h"
#include "../src/run/train_options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tests/fuzz/fuzz_cli.c compiles this file with the fuzzing macro: a usage
 * error then jumps back to the fuzz target instead of ending the process,
 * and messages go nowhere. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
jmp_buf cli_fuzz_exit;
#define CLI_EXIT(code) longjmp(cli_fuzz_exit, 1 + (code))
static FILE *msg_out(void) {
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    return null ? null : stderr;
}
#else
#define CLI_EXIT(code) exit(code)
#define msg_out() stderr
#endif

static const char *prog_name = "posenc";

/* The names of the programs (the Makefile's), so that a help text's
 * "train --out" is told from the program's own options. */
#ifndef CLI_PROGRAMS
#define CLI_PROGRAMS ""
#endif
/* errno of a write to stdout that failed before the end (a text longer
 * than stdio's buffer goes out at once, and fails there, not at fclose) */
static int stdout_errno;

void cli_check_stdout(void) {
    /* what close_stdout does in GNU programs: the last buffered output is
     * written here, so this is where a full disk shows */
    int err = ferror(stdout);
    if (err && !stdout_errno && write(STDOUT_FILENO, "\n", 1) < 0)
        /* a write failed earlier, as the buffer filled, and its errno is
         * long gone: the descriptor says why (a full disk, mostly) */
        stdout_errno = errno;
    int errnum = fclose(stdout) != 0 ? errno : err ? (stdout_errno ? stdout_errno : EIO) : 0;
    if (err || errnum) {
        fprintf(stderr, "%s: writing the standard output failed: %s\n", prog_name,
                strerror(errnum ? errnum : EIO));
        _exit(1);
    }
}

void cli_init(Cli *cli, int argc, char **argv, const char *prog) {
    prog_name = prog;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* first: it may start the program again (kernels.h); then the team */
    kernels_choose(argv);
    par_start();
    atexit(cli_check_stdout);
#endif
    cli->argc = argc;
    cli->argv = argv;
    cli->i = 0;
    cli->val = NULL;
    cli->prog = prog;
    cli->usage = NULL;
    cli->n_given = 0;
}

const char *cli_next(Cli *cli) {
    if (cli->i + 1 >= cli->argc)
        return NULL;
    return cli->argv[++cli->i];
}

/* Notes that option name was given (with value val, NULL for a flag),
 * for cli_given; returns the value it was given before, or NULL. */
static const char *note_given(Cli *cli, const char *name, const char *val) {
    for (size_t i = 0; i < cli->n_given; i++)
        if (strcmp(cli->given[i], name) == 0)
            return cli->given_val[i];
    if (cli->n_given < CLI_MAX_GIVEN) {
        cli->given_val[cli->n_given] = val;
        cli->given[cli->n_given++] = name;
    }
    return NULL;
}

bool cli_flag(Cli *cli, const char *name) {
    if (strcmp(cli->argv[cli->i], name) != 0)
        return false;
    note_given(cli, name, NULL);
    return true;
}

static void usage_text(Buf *b, const char *const *usage);

/* The word the help text puts after option name ("N" of "  --steps N",
 * "S" of "--seed S, --data-seed S"), into buf (cap bytes); "" when the
 * help gives none. */
static const char *value_word(const Cli *cli, const char *name, char *buf, size_t cap) {
    buf[0] = '\0';
    if (!cli->usage)
        return buf;
    Buf b = {0};
    usage_text(&b, cli->usage);
    buf_put(&b, "", 1);
    const char *text = b.failed ? "" : (const char *)b.p;
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p && !buf[0]; p = strstr(p + 1, name)) {
        /* an entry of the list ("\n  --steps N"), a second spelling after
         * a comma, or the usage line's "[--repeat N]" */
        bool entry = p - text >= 3 && p[-1] == ' ' && p[-2] == ' ' && p[-3] == '\n';
        bool spelling = p - text >= 2 && p[-1] == ' ' && p[-2] == ',';
        bool bracket = p > text && p[-1] == '[';
        const char *w = p + n;
        if ((!entry && !spelling && !bracket) || w[0] != ' ' || w[1] == ' ' || w[1] == '-' ||
            w[1] == '\n' || w[1] == '\0')
            continue;
        /* to the bracket that closes the usage line's, or to the blanks
         * before the entry's text or the comma before a second spelling:
         * "K=V[,K=V...]" and "constant|noam" are one word each */
        size_t k = 0;
        for (int depth = 0; w[1 + k] && w[1 + k] != '\n'; k++) {
            char c = w[1 + k], next = w[2 + k];
            if (bracket ? c == ' ' || (c == ']' && depth-- == 0)
                        : (c == ' ' && (next == ' ' || next == '\n' || next == '\0')) ||
                              (c == ',' && next == ' '))
                break;
            depth += c == '[';
        }
        if (k < cap)
            snprintf(buf, cap, "%.*s", (int)k, w + 1);
    }
    buf_free(&b);
    return buf;
}

bool cli_opt(Cli *cli, const char *name) {
    const char *a = cli->argv[cli->i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '=' && a[n] != '\0'))
        return false;
    if (a[n] == '=') {
        cli->val = a + n + 1;
    } else {
        /* the last argument: say what goes after it, never "unknown" */
        char word[64];
        if (cli->i + 1 >= cli->argc && *value_word(cli, name, word, sizeof word))
            cli_usage_error(cli, "option %s needs a value: give it as '%s %s'", name, name,
                            word);
        if (cli->i + 1 >= cli->argc)
            cli_usage_error(cli, "option %s needs a value: give one after it", name);
        cli->val = cli->argv[++cli->i];
    }
    /* one value each: a second would silently replace the first */
    const char *before = note_given(cli, name, cli->val);
    if (before)
        cli_usage_error(cli, "%s is given twice ('%s', then '%s'); give it once", name, before,
                        cli->val);
    return true;
}

/* Every message names only options of this program (options_tidy): the
 * library's are written for every program that calls it. */
void cli_usage_error(const Cli *cli, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    options_tidy(msg);
    fprintf(msg_out(), "%s: %s\nTry '%s --help'.\n", cli->prog, msg, cli->prog);
    CLI_EXIT(2);
}

void cli_fail(const Cli *cli, const Err *e) {
    char msg[sizeof e->msg];
    memcpy(msg, e->msg, sizeof msg);
    options_tidy(msg);
    fprintf(msg_out(), "%s: %s\n", cli->prog, msg);
    CLI_EXIT(e->code ? e->code : 1);
}

void cli_error(const Cli *cli, const Err *e) {
    if (e->code == ERR_INPUT)
        cli_usage_error(cli, "%s", e->msg);
    cli_fail(cli, e);
}

const char CLI_SCHEMES[] = "", CLI_SCHEME_OPTIONS[] = "", CLI_TUNABLE_OPTIONS[] = "",
           CLI_TASKS[] = "";

/* "  head" then text, at column 24 (two blanks after a longer head),
 * wrapped at column 80 with continued lines at column 24. */
static void entry(Buf *b, const char *head, const char *text) {
    size_t col = 2 + strlen(head);
    buf_printf(b, "  %s%*s", head, col < 24 ? (int)(24 - col) : 2, "");
    col = col < 24 ? 24 : col + 2;
    bool first = true;
    for (const char *w = text; *w;) {
        w += strspn(w, " ");
        size_t n = strcspn(w, " ");
        if (!n)
            break;
        if (!first && col + 1 + n > 80) {
            buf_printf(b, "\n%24s", "");
            col = 24;
        } else if (!first) {
            buf_printf(b, " ");
            col++;
        }
        buf_printf(b, "%.*s", (int)n, w);
        col += n;
        w += n;
        first = false;
    }
    buf_printf(b, "\n");
}

static void option_entry(Buf *b, const PeOption *o) {
    char head[160];
    if (o->arg) {
        snprintf(head, sizeof head, "%s %s", o->flag, o->arg);
    } else {
        size_t len = (size_t)snprintf(head, sizeof head, "%s ", o->flag);
        for (size_t v = 0; o->names[v] && len < sizeof head; v++)
            len += (size_t)snprintf(head + len, sizeof head - len, "%s%s", v ? "|" : "",
                                    o->names[v]);
    }
    entry(b, head, o->help);
}

/* The usage pieces as text, the registries' markers written out. */
static void usage_text(Buf *b, const char *const *usage) {
    for (; *usage; usage++) {
        if (*usage == CLI_SCHEMES) {
            buf_printf(b, "Schemes, each in one line:\n");
            for (size_t i = 0; i < pe_count(); i++)
                entry(b, pe_at(i)->name, pe_at(i)->about);
        } else if (*usage == CLI_SCHEME_OPTIONS || *usage == CLI_TUNABLE_OPTIONS) {
            for (size_t i = 0; i < pe_option_count(); i++)
                if (*usage == CLI_SCHEME_OPTIONS || pe_option_at(i)->tunable)
                    option_entry(b, pe_option_at(i));
        } else if (*usage == CLI_TASKS) {
            buf_printf(b, "Tasks (--task; data/README.md describes each):\n");
            for (int level = TASK_TOY; level <= TASK_CS; level++) {
                char names[1024] = "";
                for (size_t i = 0, len = 0; task_at(i) && len < sizeof names; i++)
                    if ((int)task_at(i)->level == level)
                        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                                len ? ", " : "", task_at(i)->name);
                char head[32];
                snprintf(head, sizeof head, "%s:", task_level_name((TaskLevel)level));
                entry(b, head, names);
            }
        } else {
            buf_printf(b, "%s", *usage);
        }
    }
}

void cli_help(Cli *cli, const char *const *usage) {
    if (cli->usage != usage) { /* the options the messages may name */
        Buf b = {0};
        usage_text(&b, usage);
        buf_put(&b, "", 1);
        if (!b.failed)
            options_register((const char *)b.p, CLI_PROGRAMS, cli->prog);
        buf_free(&b);
    }
    cli->usage = usage;
    const char *a = cli->argv[cli->i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        Buf b = {0};
        usage_text(&b, usage);
        if (!b.failed && fwrite(b.p, 1, b.n, stdout) != b.n)
            stdout_errno = errno;
        buf_free(&b);
        CLI_EXIT(b.failed ? 1 : 0);
    }
}

bool cli_is_tunable(const char *arg) {
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; i < pe_option_count(); i++) {
        const PeOption *o = pe_option_at(i);
        if (o->tunable && strlen(o->flag) == n && strncmp(arg, o->flag, n) == 0)
            return true;
    }
    return false;
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
        if (!s) {
            free(out); /* a usage error may return (in the fuzz target) */
            cli_usage_error(cli, "unknown scheme '%s' for %s: choose from %s, or all", tok, opt,
                            pe_names());
        }
        for (size_t i = 0; i < n; i++)
            if (out[i] == s->name) {
                free(out);
                cli_usage_error(cli, "%s lists %s twice", opt, s->name);
            }
        out[n++] = s->name; /* the registry's string outlives buf */
    }
    if (n == 0) {
        free(out);
        cli_usage_error(cli, "%s is empty: give scheme names separated by commas, or all", opt);
    }
    return n;
}

size_t cli_size(const Cli *cli, const char *opt, const char *s, size_t lo, size_t hi) {
    size_t v = 0;
    Err e;
    if (parse_size(&v, opt, s, lo, hi, &e))
        cli_usage_error(cli, "%s", e.msg);
    return v;
}

uint64_t cli_u64(const Cli *cli, const char *opt, const char *s) {
    uint64_t v = 0;
    Err e;
    if (parse_u64(&v, opt, s, &e))
        cli_usage_error(cli, "%s", e.msg);
    return v;
}

double cli_double(const Cli *cli, const char *opt, const char *s, double lo, double hi) {
    double v = 0.0;
    Err e;
    if (parse_real(&v, opt, s, lo, hi, &e))
        cli_usage_error(cli, "%s", e.msg);
    return v;
}

float cli_float(const Cli *cli, const char *opt, const char *s, float lo, float hi) {
    float v = 0.0f;
    Err e;
    if (parse_float(&v, opt, s, lo, hi, &e))
        cli_usage_error(cli, "%s", e.msg);
    return v;
}

/* Matches one of the schemes' options (the registry's), parsed by its
 * declaration. */
static bool scheme_option(Cli *cli, PeConfig *pc) {
    for (size_t i = 0; i < pe_option_count(); i++)
        if (cli_opt(cli, pe_option_at(i)->flag)) {
            Err e;
            if (pe_set(pc, pe_option_at(i), cli->val, &e))
                cli_usage_error(cli, "%s", e.msg);
            return true;
        }
    return false;
}

bool cli_model_option(Cli *cli, Config *c) {
    if (scheme_option(cli, &c->pe)) {
    } else if (cli_opt(cli, "--pool")) {
        if (strcmp(cli->val, "mean") == 0)
            c->pool = POOL_MEAN;
        else if (strcmp(cli->val, "cls") == 0)
            c->pool = POOL_CLS;
        else
            cli_usage_error(cli, "--pool is mean or cls, not '%s'", cli->val);
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
    } else if (cli_flag(cli, "--causal")) {
        c->causal = true;
    } else if (cli_opt(cli, "--first-draws")) {
        Err e;
        if (model_option_set(c, MODEL_OPT_FIRST_DRAWS, cli->val, &e))
            cli_usage_error(cli, "%s", e.msg);
    } else if (cli_flag(cli, "--no-out-bias")) {
        c->no_out_bias = true;
    } else if (cli_opt(cli, "--table-len")) {
        c->max_len = cli_size(cli, "--table-len", cli->val, 1, MAX_DIM);
    } else if (cli_opt(cli, "--seed")) {
        c->seed = cli_u64(cli, "--seed", cli->val);
    } else {
        return false;
    }
    return true;
}

/* Matches one of the options first..last of train_options.c's table,
 * parsed by its row. */
static bool run_option(Cli *cli, TrainMeta *mt, OptConfig *o, size_t first, size_t last) {
    for (size_t i = first; i <= last; i++)
        if (cli_opt(cli, train_option_name(i))) {
            Err e;
            if (train_option_set(mt, o, i, cli->val, &e))
                cli_usage_error(cli, "%s", e.msg);
            return true;
        }
    return false;
}

bool cli_run_option(Cli *cli, TrainMeta *mt, OptConfig *o, size_t opt) {
    return run_option(cli, mt, o, opt, opt);
}

bool cli_task_option(Cli *cli, TaskOptions *o) {
    if (cli_flag(cli, "--pad-loss")) { /* a flag here; a checkpoint writes its row's "on" */
        o->pad_loss = true;
        return true;
    }
    TrainMeta mt = {.task_opt = *o};
    OptConfig none;
    opt_default(&none);
    /* the sizes of the other splits are no option of a command line */
    if (!run_option(cli, &mt, &none, TRAIN_OPT_MIN_LEN, TRAIN_OPT_TRAIN_EXAMPLES) &&
        !run_option(cli, &mt, &none, TRAIN_OPT_DATA_SEED, TRAIN_OPT_DATA_SEED))
        return false;
    *o = mt.task_opt;
    return true;
}

bool cli_train_option(Cli *cli, TrainMeta *mt, OptConfig *o) {
    if (cli_memory_option(cli, &mt->max_memory))
        return true;
    return run_option(cli, mt, o, TRAIN_OPT_STEPS, TRAIN_OPT_CLIP);
}

bool cli_scheme_option(Cli *cli, Config *c) {
    static const char *const shape[] = {"--d-model", "--heads", "--seed"};
    const char *a = cli->argv[cli->i];
    size_t n = strcspn(a, "="), count = pe_option_count();
    for (size_t i = 0; i < count + 3; i++) {
        const char *name = i < count ? pe_option_at(i)->flag : shape[i - count];
        if (strlen(name) == n && strncmp(a, name, n) == 0)
            return cli_model_option(cli, c);
    }
    return false;
}

void cli_unknown(const Cli *cli, const char *arg) {
    if (arg[0] != '-' || arg[1] != '-')
        cli_usage_error(cli, "unknown option or stray argument '%s'", arg);
    /* an option of the help that matched no cli_opt: a flag given a value */
    const char *eq = strchr(arg, '=');
    if (eq && cli->usage && options_has(arg))
        cli_usage_error(cli, "%.*s takes no value; give it alone, without '%s'", (int)(eq - arg),
                        arg, eq);
    /* the "--name" words of the help text itself (cli_help registered it),
     * so the suggestions can never name an option the program lacks */
    size_t n = strcspn(arg, "=");
    char found[64];
    if (options_closest(arg, n, found, sizeof found))
        cli_usage_error(cli, "unknown option '%.*s'; did you mean '%s'?", (int)n, arg, found);
    cli_usage_error(cli, "unknown option '%s'", arg);
}

void cli_refuse_unread(const Cli *cli, const PeConfig *pc, const char *const *names, size_t n) {
    Err e;
    if (pe_check_read(pc, names, n, &e))
        cli_usage_error(cli, "%s", e.msg);
}

void cli_refuse_unused(const Cli *cli, const Config *c) {
    const char *name = c->pe.name;
    cli_refuse_unread(cli, &c->pe, &name, 1);
}

void cli_refuse_layer_draws(const Cli *cli, const PeConfig *pc) {
    for (size_t g = 0; g < pc->n_given; g++) {
        const PeOption *o = pc->given[g].option;
        char text[64];
        if (!o->layer_draws || pc->given[g].value == o->def)
            continue;
        pe_option_format(o, pc->given[g].value, text, sizeof text);
        cli_usage_error(cli, "%s %s is read only at the distances train --random-draw ruoss "
                        "draws in every layer, and %s draws none, so it would change nothing; "
                        "drop %s", o->flag, text, cli->prog, o->flag);
    }
}

const char *cli_given(const Cli *cli, const char *const *names) {
    for (const char *const *n = names; *n; n++)
        for (size_t i = 0; i < cli->n_given; i++)
            if (strcmp(cli->given[i], *n) == 0)
                return *n;
    return NULL;
}

void cli_refuse_given(const Cli *cli, const char *const *names, const char *why) {
    const char *opt = cli_given(cli, names);
    if (opt)
        cli_usage_error(cli, "%s does nothing %s; drop it", opt, why);
}

double cli_default_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    /* unknown: no limit rather than a wrong one */
    return pages > 0 && size > 0 ? 0.5 * (double)pages * (double)size : 0.0;
}

bool cli_memory_option(Cli *cli, double *bytes) {
    if (!cli_opt(cli, "--max-memory"))
        return false;
    *bytes = 1048576.0 * (double)cli_size(cli, "--max-memory", cli->val, 1, (size_t)1 << 30);
    return true;
}

void cli_check_memory(const Cli *cli, double bytes, double limit, const char *what,
                      const char *advice) {
    if (limit > 0.0 && bytes > limit)
        cli_usage_error(cli, "%s would need about %.0f MiB, more than --max-memory %.0f MiB; %s, "
                        "or raise --max-memory", what, bytes / 1048576.0, limit / 1048576.0,
                        advice);
}

void cli_print_memory(const char *prog, const TrainMeta *mt, double bytes) {
    if (mt->max_memory > 0.0)
        fprintf(stderr, "%s: about %.0f MiB of memory (limit %.0f MiB, --max-memory)\n", prog,
                bytes / 1048576.0, mt->max_memory / 1048576.0);
    else
        fprintf(stderr, "%s: about %.0f MiB of memory\n", prog, bytes / 1048576.0);
}
