/* What the programs share: strict option parsing, the model options, and
 * the way they report errors (message on stderr, exit 2 for bad input). */
#ifndef POSENC_CLI_H
#define POSENC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/model/model.h"
#include "../src/model/train.h"
#include "../src/run/checkpoint.h"
#include "../src/run/outputs.h"
#include "../src/text/tasks.h"

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#include <setjmp.h>
/* In the fuzz build a usage error longjmps here (with 1 + the exit
 * status) instead of exiting: tests/fuzz/fuzz_cli.c sets it. */
extern jmp_buf cli_fuzz_exit;
#endif

#define CLI_MAX_GIVEN 64

/* Iterates over argv. An option's value comes as "--name value" or
 * "--name=value". */
typedef struct {
    int argc;
    char **argv;
    int i;            /* index of the current argument */
    const char *val;  /* value of the option just matched */
    const char *prog; /* program name for messages */
    const char *const *usage; /* the help text, for "did you mean" (set by cli_help) */
    const char *given[CLI_MAX_GIVEN];     /* the options matched so far, once each */
    const char *given_val[CLI_MAX_GIVEN]; /* the value each was given (NULL: a flag) */
    size_t n_given;
} Cli;

void cli_init(Cli *cli, int argc, char **argv, const char *prog);
/* The next argument, or NULL at the end. */
const char *cli_next(Cli *cli);
/* True if the current argument is the flag name. */
bool cli_flag(Cli *cli, const char *name);
/* True if the current argument is option name; its value goes to cli->val.
 * A missing value (the option given last) is a usage error (exits 2) that
 * says what goes after it, as the help writes it ("give it as '--steps
 * N'"), and so is a second value: every option takes one, and a repeat is
 * refused, naming it, rather than silently replacing the first. */
bool cli_opt(Cli *cli, const char *name);

/* If the current argument is --help or -h, prints usage (pieces, ending
 * with NULL) and exits 0. A piece that is one of the markers below stands
 * for text the registries write: */
void cli_help(Cli *cli, const char *const *usage);
/* the schemes, each with its one line ("Schemes, each in one line: ..."); every
 * scheme option, with its help; the options a trained model may change
 * (PeOption.tunable); the built-in tasks, by level. */
extern const char CLI_SCHEMES[], CLI_SCHEME_OPTIONS[], CLI_TUNABLE_OPTIONS[], CLI_TASKS[];
/* Whether arg ("--flag" or "--flag=value") is an option a trained model
 * may change (PeOption.tunable). */
bool cli_is_tunable(const char *arg);

/* The current argument matched nothing: a usage error, with the closest
 * option of the help text as a suggestion ("did you mean '--steps'?"); an
 * option of the help given "=VALUE" is a flag given a value ("--causal
 * takes no value"). */
_Noreturn void cli_unknown(const Cli *cli, const char *arg);

/* The rule for the scheme options (pe_check_read): one given that none
 * of the schemes names[0..n) reads is a usage error that names it
 * ("--buckets applies to none of rope, alibi") and the schemes that do
 * read it. */
void cli_refuse_unread(const Cli *cli, const PeConfig *pc, const char *const *names, size_t n);
/* The same for the one scheme of c. */
void cli_refuse_unused(const Cli *cli, const Config *c);
/* For a program that trains nothing (it draws no positions): a scheme
 * option read only at the distances train --random-draw ruoss draws in
 * every layer (PeOption.layer_draws: xl's --xl-rows clamped), given another
 * value than its default, is a usage error, as train refuses it without
 * those draws, rather than ignored. */
void cli_refuse_layer_draws(const Cli *cli, const PeConfig *pc);

/* The first of names (NULL-terminated) given on the command line, or NULL. */
const char *cli_given(const Cli *cli, const char *const *names);
/* The rule for a program's modes: the first of names given is a usage
 * error, "OPTION does nothing WHY; drop it" (why: "with --relative"). */
void cli_refuse_given(const Cli *cli, const char *const *names, const char *why);

/* Matches --task NAME, checks NAME is a built-in task (a usage error
 * otherwise) and copies it into dst (cap bytes). */
bool cli_task(Cli *cli, char *dst, size_t cap);

/* Matches --pe NAME, checks NAME is a scheme (a usage error otherwise) and
 * sets pc->name. */
bool cli_pe(Cli *cli, PeConfig *pc);

/* Splits a comma-separated list of schemes ("none,sinusoidal"), or "all",
 * into the registry's names, in *names (allocated; free it); returns the
 * count. An unknown, repeated or empty entry is a usage error naming opt. */
size_t cli_scheme_list(const Cli *cli, const char *opt, const char *list, const char ***names);

/* calloc, or a message naming what was being allocated and exit 1. */
void *cli_alloc(const Cli *cli, size_t count, size_t size, const char *what);

/* Strict number parsers: the whole string, in range (both ends included),
 * or a usage error naming the option and the range applied (exits 2). */
size_t cli_size(const Cli *cli, const char *opt, const char *s, size_t lo, size_t hi);
uint64_t cli_u64(const Cli *cli, const char *opt, const char *s);
double cli_double(const Cli *cli, const char *opt, const char *s, double lo, double hi);
/* cli_double for an option kept in a float, between float bounds taken as
 * the decimals they read as (MAX_DROPOUT 0.95f is 0.95): both accepted. */
float cli_float(const Cli *cli, const char *opt, const char *s, float lo, float hi);

/* The messages below name only options of the program (src/core/options.h):
 * the library's messages are written for every program that calls it, so
 * a "--name" this program does not take loses its dashes when printed
 * (evaluate: "choose another pe", not train's --pe); a library message
 * that suggests an option asks options_if or options_list first. */

/* Prints "prog: msg" and a pointer to --help, and exits 2. */
_Noreturn void cli_usage_error(const Cli *cli, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "prog: msg" for an error from the library and exits with its code. */
_Noreturn void cli_fail(const Cli *cli, const Err *e);

/* An error of the library: bad input (ERR_INPUT) as a usage error, exit 2
 * with the pointer to --help; anything else (out of memory, a failed
 * write) as cli_fail, exit 1. */
_Noreturn void cli_error(const Cli *cli, const Err *e);

/* Matches one of the options that shape a model (listed in
 * CLI_MODEL_HELP) and stores it in c; returns false if the current
 * argument is not one of them. --pe is left to each program. */
bool cli_model_option(Cli *cli, Config *c);

/* The options of the built-in tasks' data (lengths, sizes, seed). Parse
 * them before cli_model_option. */
bool cli_task_option(Cli *cli, TaskOptions *o);

/* Half the machine's physical memory: the default of --max-memory. */
double cli_default_memory(void);
/* Matches --max-memory MIB and stores it in *bytes, in bytes. */
bool cli_memory_option(Cli *cli, double *bytes);
/* The memory guard of the programs that run a model they build or load
 * (train's is the session's): bytes, the estimate of what `what` (say
 * "the model and the activations of one sentence of 9 words") needs, past
 * limit (0: none) is a usage error that gives the estimate and advice
 * ("use a shorter sentence"). */
void cli_check_memory(const Cli *cli, double bytes, double limit, const char *what,
                      const char *advice);
/* The advice for a model built from the command line. */
#define CLI_SMALLER_MODEL "use a smaller model (--d-model, --d-ff, --layers, --heads) or a " \
                          "shorter sentence"

#define CLI_MEMORY_HELP                                                                       \
    "  --max-memory MIB      refuse a model and activations that would need more\n"            \
    "                        (default: half the physical memory)\n"
/* "prog: about N MiB of memory (limit M MiB, --max-memory)" on stderr. */
void cli_print_memory(const char *prog, const TrainMeta *mt, double bytes);

/* The options of a training run: steps, batch, optimizer, --max-memory. */
bool cli_train_option(Cli *cli, TrainMeta *mt, OptConfig *o);
/* Matches option opt of train_options.h (TRAIN_OPT_KEEP, ...) alone. */
bool cli_run_option(Cli *cli, TrainMeta *mt, OptConfig *o, size_t opt);

/* train's outputs, before any training: checks --out and --log (each
 * writable, --out a regular file or new; neither the same file as the
 * other, as --out's lock file, or as an input: the data files of mt, the
 * model --init starts from, or the checkpoint resumed, which --out alone
 * may be) and locks both for the rest of the process (--out through
 * MODEL.lock, the log itself before it is emptied), so that a second run
 * on either is refused; the locks go at exit. out, log, resume and init
 * may be NULL. */
int cli_train_outputs(const TrainMeta *mt, const char *out, const char *log,
                      const char *resume, const char *init, Err *e);

/* One writer per output: locks path (output_lock: through PATH.lock with
 * sidecar, for a file replaced by a rename or a folder; else the file
 * itself, written in place) for the rest of the process, so that a second
 * run writing it is refused with the first's pid. Call it after the
 * checks and before the work, so that the second run is refused at its
 * start, not after it has done its work. */
int cli_hold_output(const char *path, const char *opt, bool sidecar, Err *e);
/* The same for a folder (output_lock_folder: DIR/NAME.lock, a refusal
 * naming DIR). */
int cli_hold_folder(const char *dir, const char *name, const char *opt, Err *e);

/* The rule that no output is an input or another output, for a program's
 * files (outputs_distinct): a usage error naming both otherwise. */
void cli_check_files(const Cli *cli, const FileArg *files, size_t n);

/* Checks stdout at exit: a write that failed (a full disk, /dev/full) ends
 * the program with status 1 and a message, not a silent 0. cli_init
 * registers it. */
void cli_check_stdout(void);

#define CLI_TASK_HELP                                                                         \
    "Task options (built-in tasks; data/README.md describes them):\n"                          \
    "  --min-len N           shortest sequence (default: the task's, 4 or 1)\n"                \
    "  --max-len N           longest sequence in the valid and test splits (default 12)\n"     \
    "  --max-train-len N     longest sequence in the training split (default --max-len);\n"    \
    "                        longer test sequences probe length generalization\n"              \
    "  --train-examples N    size of the training split (default: the task's)\n"               \
    "  --data-seed S         seed of the task's data (default 1)\n"                            \
    "  --pad-loss            train on the padding after '$' (binary_addition,\n"              \
    "                        binary_multiplication, stack_manipulation) as the bit 0,\n"      \
    "                        as Ruoss et al.'s loss does, and still score it nowhere\n"

#define CLI_TRAIN_HELP                                                                        \
    "Training options:\n"                                                                      \
    "  --steps N             optimizer steps (default 1500)\n"                                 \
    "  --batch B             sentences per step (default 32)\n"                                \
    "  --lr X                peak learning rate of AdamW (default 1e-3)\n"                     \
    "  --warmup N            steps of linear warm-up (default 100)\n"                          \
    "  --schedule constant|noam  constant after the warm-up, or the paper's inverse\n"         \
    "                        square root (section 5.3) peaking at --lr (default constant)\n"   \
    "  --weight-decay X      AdamW's decoupled decay of weight matrices (default 0.01)\n"      \
    "  --clip X              largest gradient norm, 0 for none (default 1.0)\n"                \
    "  --eval-every N        steps between evaluations (default 100)\n"                        \
    "  --max-memory MIB      refuse a run whose model, optimizer and activations would\n"      \
    "                        need more (default: half the physical memory)\n"              \
    "  --random-positions N  give each training sentence sorted positions drawn from\n"        \
    "                        0..N-1 instead of 0..T-1 (Ruoss et al. 2023), so that\n"          \
    "                        positions past the training lengths are seen; N at least\n"       \
    "                        the longest training sentence (evaluation uses 0..T-1;\n"  \
    "                        evaluate --random-positions N tests as Ruoss et al. do)\n"  \
    "  --batches mixed|by-length  draw each sentence of a batch on its own (mixed\n"       \
    "                        lengths, padded; the default), or a length uniformly\n"       \
    "                        from the training lengths, then B sentences of it, with\n"    \
    "                        one draw of --random-positions for the batch (Ruoss et\n"    \
    "                        al.'s protocol)\n"                                          \
    "  --random-draw positions|ruoss  what --random-positions draws: positions at the\n"    \
    "                        input for every scheme (the default), or what Ruoss et\n"    \
    "                        al.'s code draws: for rope positions afresh in every\n"    \
    "                        layer, for alibi and xl one distance per offset in every\n"  \
    "                        layer (tokens k apart are d_k apart, d_1 < d_2 < ...\n"   \
    "                        drawn from 1..N-1); evaluate draws the same way\n"         \
    "  --train-draw pool|fresh  a task's training sentences: a pool of\n"                 \
    "                        --train-examples made once (the default), or new ones\n"   \
    "                        every step (the benchmark code's); the pool still gives\n"  \
    "                        the words, the classes and the validation split\n"         \
    "  --embed-std X         std of the token embedding's first draw (default 1,\n"      \
    "                        nn.Embedding's; Ruoss et al.'s code draws 0.02); a new\n"    \
    "                        model's only, not with --init\n"

/* Matches only the model options that shape a position code (every scheme
 * option, --d-model, --heads, --seed), for programs that draw or measure a
 * scheme without a model. */
bool cli_scheme_option(Cli *cli, Config *c);

/* The model options: the schemes' (from the registry), then the shape's.
 * Pieces of a usage array, not one string. */
#define CLI_MODEL_HELP                                                                        \
    "Model options (a scheme reads the options its line names; pe_report\n"                    \
    "--options lists who reads each):\n", CLI_SCHEME_OPTIONS,                                  \
    "  --d-model C           model width\n"                                                    \
    "  --heads H             attention heads (must divide C)\n"                                \
    "  --layers L            encoder layers (1..16)\n"                                         \
    "  --d-ff F              width of the feed-forward layer\n"                                \
    "  --norm post|pre       LayerNorm after each sublayer (paper) or before it\n"             \
    "  --act relu|gelu       feed-forward activation (default relu)\n"                         \
    "  --scale-embed         multiply embeddings by sqrt(d_model) (paper 3.4)\n"               \
    "  --pool mean|cls       the sentence vector: the mean of the words' rows, or the\n"     \
    "                        row of a [CLS] word put before every sentence (BERT's;\n"   \
    "                        default mean)\n"                                               \
    "  --causal              a decoder's mask: word i attends to words 0..i only\n"           \
    "                        (train refuses reverse and sort, which need later words)\n"    \
    "  --first-draws pytorch|reference  the linear layers' first weights: PyTorch's\n"     \
    "                        (the default), or Ruoss et al.'s code's (Haiku's: a\n"      \
    "                        normal cut at 2 std, std 1/sqrt(fan_in), zero biases);\n"  \
    "                        the embedding and the schemes' tables are drawn as\n"      \
    "                        with pytorch\n"                                             \
    "  --no-out-bias         attention's output projection without its bias, as in\n"    \
    "                        Ruoss et al.'s code (the model file records it)\n"          \
    "  --table-len N         rows of the learned table (default 64; train: the longest\n"      \
    "                        training sentence)\n"                                            \
    "  --seed S              seed of the weights (default 42)\n"

#endif
