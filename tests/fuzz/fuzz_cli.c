/* libFuzzer target for the option parser of the programs (examples/cli.c,
 * compiled in here): the bytes, split at NUL bytes, are an argv that goes
 * through every matcher train, evaluate and compare_pe use, then the rule
 * of the scheme options for the schemes chosen (--pe, or a --schemes
 * list). Any argv must give values in range or a usage error, never a
 * crash, a leak or undefined behaviour; and an argv accepted has no scheme
 * option that none of its schemes reads (checked here against pe.c's
 * table, scheme by scheme). In this build a usage error longjmps back here
 * instead of exiting. */
#define _POSIX_C_SOURCE 200809L /* as examples/cli.c defines it: strdup */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/cli.c"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);

static const char *const USAGE[] = {
    "--task --data --valid --pe --out --log --resume --schemes --help\n", CLI_TRAIN_HELP,
    CLI_TASK_HELP, CLI_MODEL_HELP, NULL};

/* The --schemes list of the argv being parsed: freed by the caller of
 * parse, which a usage error's longjmp skips. */
static const char **list;

/* Apart from the function that calls setjmp, so that no variable of that
 * one changes between the setjmp and a longjmp. */
static size_t n_list;

static void parse(Cli *c) {
    Cli cli = *c;
    TrainMeta mt = {.batch = 32, .steps = 1500, .eval_every = 100};
    OptConfig opt;
    opt_default(&opt);
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    for (const char *arg; (arg = cli_next(&cli));) {
        if (cli_task(&cli, mt.task, sizeof mt.task) || cli_pe(&cli, &cfg.pe) ||
            cli_task_option(&cli, &mt.task_opt) || cli_scheme_option(&cli, &cfg) ||
            cli_model_option(&cli, &cfg) || cli_train_option(&cli, &mt, &opt))
            continue;
        if (cli_opt(&cli, "--schemes")) {
            free(list);
            list = NULL;
            /* through a local: on a usage error the parser frees its list */
            const char **got;
            n_list = cli_scheme_list(&cli, "--schemes", cli.val, &got);
            list = got;
            if (n_list == 0 || n_list > pe_count())
                abort();
            continue;
        }
        cli_unknown(&cli, arg);
    }
    /* what the parsers promise: values in their ranges */
    if (mt.batch < 1 || mt.batch > TRAIN_MAX_BATCH || mt.steps < 1 || mt.eval_every < 1 ||
        !(opt.lr > 0.0f) || !pe_find(cfg.pe.name))
        abort();
    const char *one = cfg.pe.name;
    const char *const *names = list ? list : &one;
    size_t n = list ? n_list : 1;
    cli_refuse_unread(&cli, &cfg.pe, names, n);
    /* accepted: each option given is read by some scheme chosen */
    for (size_t o = 0; o < pe_option_count(); o++) {
        const PeOption *opt = pe_option_at(o);
        bool read = false;
        for (size_t i = 0; i < n; i++)
            read |= pe_reads(pe_find(names[i]), pe_combine_given(&cfg.pe), opt);
        if (pe_given(&cfg.pe, opt) && !read)
            abort();
    }
}

/* The setjmp alone in its function: nothing here changes after it. */
static void guarded(Cli *cli) {
    if (setjmp(cli_fuzz_exit) == 0)
        parse(cli);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
    if (len > 4096)
        return 0;
    /* argv: "fuzz" then the NUL-separated pieces, each its own allocation
     * so that ASan sees a read past any one of them */
    char *args[66] = {0};
    int argc = 0;
    args[argc++] = strdup("fuzz");
    for (size_t a = 0; a < len && argc < 65;) {
        const uint8_t *nul = memchr(bytes + a, 0, len - a);
        size_t n = nul ? (size_t)(nul - (bytes + a)) : len - a;
        char *s = malloc(n + 1);
        if (!s)
            break;
        memcpy(s, bytes + a, n);
        s[n] = '\0';
        args[argc++] = s;
        a += n + 1;
    }
    Cli cli;
    cli_init(&cli, argc, args, "fuzz");
    cli.usage = USAGE;
    guarded(&cli);
    free(list);
    list = NULL;
    for (int i = 0; i < argc; i++)
        free(args[i]);
    return 0;
}
