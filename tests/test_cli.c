/* The programs, run as a user runs them: exit codes, messages, the claims
 * the README makes about demo_order's output, and the rules every option
 * of every program keeps (issue 25: a range's message states the bound
 * applied and its edges are accepted; an option given twice is refused). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/parse.h"
#include "../src/pe/pe.h"
#include "../web/pw.h"
#include "suites.h"

/* Expects exit code 2, nothing on stdout, and a message naming want. */
static void expect_usage_error(const char *args, const char *want) {
    expect_exit("demo_order", args, 2, want);
}

typedef struct {
    char scheme[32];
    double diff, cos;
} Row;

/* Parses --csv output, checking the header; returns the number of rows. */
static size_t parse_csv(const char *text, Row *rows, size_t cap) {
    const char *header = "scheme,max_abs_diff,pooled_cosine\n";
    ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "bad header: %s", text);
    const char *p = text + strlen(header);
    size_t n = 0;
    while (*p) {
        ck_assert(n < cap);
        int used = 0;
        ck_assert_msg(sscanf(p, "%31[^,],%lf,%lf\n%n", rows[n].scheme, &rows[n].diff,
                             &rows[n].cos, &used) == 3 && used > 0,
                      "bad csv line: %s", p);
        p += used;
        n++;
    }
    return n;
}

START_TEST(demo_default_runs) {
    Run r = run("demo_order", "");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Rohan killed the lion"));
    ck_assert_ptr_nonnull(strstr(r.out, "order-blind"));
    ck_assert_ptr_nonnull(strstr(r.out, "order-sensitive"));
    run_free(&r);
}
END_TEST

START_TEST(demo_csv_claims) {
    /* The README's claims: without position the rows are a permutation
     * (<= 1e-5) and the pooled vectors the same (>= 0.999999); every
     * scheme, those inside attention included, moves them by more than
     * 1e-3. */
    Run r = run("demo_order", "--pe all --csv");
    ck_assert_int_eq(r.status, 0);
    /* a row per scheme of the registry, and room for one too many */
    size_t cap = pe_count() + 1;
    Row *rows = calloc(cap, sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    size_t n = parse_csv(r.out, rows, cap);
    ck_assert_uint_eq(n, pe_count());
    ck_assert_str_eq(rows[0].scheme, "none");
    ck_assert_msg(rows[0].diff <= 1e-5 && rows[0].cos >= 0.999999, "none: %g %g", rows[0].diff,
                  rows[0].cos);
    for (size_t i = 1; i < n; i++)
        ck_assert_msg(rows[i].diff > 1e-3, "%s: max_abs_diff %g", rows[i].scheme, rows[i].diff);
    free(rows);
    run_free(&r);
}
END_TEST

/* Without --pe, the seven schemes the tutorial opens with (demo_default
 * in the registry), in the registry's order, each row as --pe all gives
 * it; its help names the same seven, and the text output says how to see
 * the rest. */
START_TEST(demo_default_is_the_tutorials_seven) {
    static const char *const SEVEN[] = {"none", "integer", "normalized", "sinusoidal",
                                        "learned", "rope", "alibi"};
    size_t n_seven = sizeof SEVEN / sizeof *SEVEN, k = 0;
    for (size_t i = 0; i < pe_count(); i++)
        if (pe_at(i)->demo_default) {
            ck_assert_msg(k < n_seven && strcmp(pe_at(i)->name, SEVEN[k]) == 0,
                          "demo_default %s is not the tutorial's scheme %zu", pe_at(i)->name, k);
            k++;
        }
    ck_assert_uint_eq(k, n_seven);
    Run r = run("demo_order", "--csv"), all = run("demo_order", "--pe all --csv");
    ck_assert_msg(r.status == 0 && all.status == 0, "%s %s", r.err, all.err);
    Row rows[16];
    ck_assert_uint_eq(parse_csv(r.out, rows, 16), n_seven);
    for (size_t i = 0; i < n_seven; i++) {
        ck_assert_str_eq(rows[i].scheme, SEVEN[i]);
        char line[128];
        snprintf(line, sizeof line, "\n%s,", SEVEN[i]);
        const char *in_all = strstr(all.out, line), *in_default = strstr(r.out, line);
        ck_assert_msg(in_all && in_default, "%s missing", SEVEN[i]);
        ck_assert_msg(strncmp(in_all, in_default, strcspn(in_default + 1, "\n") + 1) == 0,
                      "%s: its row differs between the default and --pe all", SEVEN[i]);
    }
    run_free(&r);
    run_free(&all);
    r = run("demo_order", "--help");
    ck_assert_ptr_nonnull(strstr(r.out, "default: the seven the tutorial opens with, none,\n"
                                        "                        integer, normalized, sinusoidal, "
                                        "learned, rope, alibi\n"));
    run_free(&r);
    r = run("demo_order", "");
    char tail[128];
    snprintf(tail, sizeof tail, "the tutorial opens with; --pe all runs all %zu.\n", pe_count());
    ck_assert_msg(r.status == 0 && strstr(r.out, tail), "%s", r.out);
    run_free(&r);
    r = run("demo_order", "--pe none,rope");
    ck_assert_msg(r.status == 0 && !strstr(r.out, "--pe all"), "a list given says nothing of the rest");
    run_free(&r);
}
END_TEST

START_TEST(demo_repeated_words) {
    Run r = run("demo_order", "--pe all --csv 'the cat sat on the mat' 'the mat sat on the cat'");
    ck_assert_msg(r.status == 0, "%s", r.err);
    size_t cap = pe_count() + 1;
    Row *rows = calloc(cap, sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    ck_assert_uint_eq(parse_csv(r.out, rows, cap), pe_count());
    ck_assert(rows[0].diff <= 1e-5);
    for (size_t i = 1; i < pe_count(); i++)
        ck_assert_msg(rows[i].diff > 1e-3, "%s: max_abs_diff %g", rows[i].scheme, rows[i].diff);
    run_free(&r);
    /* one sentence: compared with itself backwards */
    r = run("demo_order", "--csv --pe none 'a b c d e'");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, cap), 1);
    free(rows);
    run_free(&r);
}
END_TEST

START_TEST(demo_layernorm_erases_a_constant_shift) {
    /* docs/: a count added to every channel is erased by pre-norm's
     * LayerNorm, but leaks through attention with post-norm. */
    Row rows[4];
    Run r = run("demo_order", "--csv --pe integer --combine add --norm pre");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, 4), 1);
    ck_assert_msg(rows[0].diff <= 1e-4, "pre-norm: %g", rows[0].diff);
    run_free(&r);
    r = run("demo_order", "--csv --pe integer --combine add --norm post");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, 4), 1);
    ck_assert_msg(rows[0].diff > 1e-3, "post-norm: %g", rows[0].diff);
    run_free(&r);
}
END_TEST

START_TEST(demo_bad_input) {
    expect_usage_error("'Rohan killed the lion' 'tiger killed the Rohan'", "'tiger'");
    expect_usage_error("'Rohan killed the lion' 'lion killed Rohan'", "3 words");
    expect_usage_error("'Rohan killed the lion' 'Rohan killed the lion'", "same order");
    expect_usage_error("''", "empty");
    expect_usage_error("'   ' 'x'", "empty");
    expect_usage_error("--pe learned --table-len 3", "--table-len 4");
    expect_usage_error("--heads 3", "--heads");
    expect_usage_error("--pe fourier", "unknown scheme 'fourier'");
    expect_usage_error("--d-model 2 --heads 1 --pe sincos", "--d-model");
    expect_usage_error("--d-model 1 --heads 1 --pe integer", "--d-model");
    expect_usage_error("--d-model abc", "--d-model");
    expect_usage_error("--d-model -4", "--d-model");
    expect_usage_error("--layers 0", "--layers");
    expect_usage_error("--combine both", "add or concat");
    expect_usage_error("--norm middle", "--norm");
    expect_usage_error("--frobnicate", "unknown option");
    expect_usage_error("--pe", "needs a value");
    expect_usage_error("a b c", "too many");
}
END_TEST

START_TEST(demo_help) {
    Run r = run("demo_order", "--help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: demo_order"));
    ck_assert_ptr_nonnull(strstr(r.out, "--combine"));
    run_free(&r);
}
END_TEST

/* Groups of programs that share a parser of cli.c. */
#define SCHEME "train compare_pe demo_order encode pe_plot pe_report"
#define MODEL "train compare_pe demo_order encode pe_plot"
#define RUN "train compare_pe"
#define TASK RUN " make_data"
#define U64_MAX "18446744073709551615", "-1", "18446744073709551616", "0", "2^64-1"

/* Each numeric option of each program: the programs that take it, its
 * edges (both accepted), the values just outside them (both refused), and
 * the bounds as its message must state them. The schemes' options are
 * not typed here: ranges() adds a row for each from the registry. */
typedef struct {
    const char *progs, *opt;
    char lo[32], hi[32], below[32], above[32], lo_text[32], hi_text[32];
} Range;

static const Range FIXED_RANGES[] = {
    {SCHEME, "--d-model", "1", "32768", "0", "32769", "1", "32768"},
    {SCHEME, "--heads", "1", "32768", "0", "32769", "1", "32768"},
    {SCHEME, "--seed", "0", U64_MAX},
    {MODEL, "--layers", "1", "16", "0", "17", "1", "16"},
    {MODEL, "--d-ff", "1", "32768", "0", "32769", "1", "32768"},
    {MODEL, "--table-len", "1", "32768", "0", "32769", "1", "32768"},
    {TASK " evaluate probe", "--min-len", "1", "512", "0", "513", "1", "512"},
    {TASK " evaluate probe", "--max-len", "1", "512", "0", "513", "1", "512"},
    {TASK, "--max-train-len", "1", "512", "0", "513", "1", "512"},
    {TASK, "--train-examples", "1", "1000000", "0", "1000001", "1", "1000000"},
    {TASK " evaluate", "--data-seed", "0", U64_MAX},
    {RUN, "--steps", "1", "100000000", "0", "100000001", "1", "100000000"},
    {RUN, "--batch", "1", "4096", "0", "4097", "1", "4096"},
    {RUN, "--eval-every", "1", "100000000", "0", "100000001", "1", "100000000"},
    {RUN, "--random-positions", "1", "32768", "0", "32769", "1", "32768"},
    {RUN, "--lr", "1e-8", "10", "9.999999999999999e-09", "10.000000000000002", "1e-08", "10"},
    {RUN, "--warmup", "0", "100000000", "-1", "100000001", "0", "100000000"},
    {RUN, "--weight-decay", "0", "10", "-5e-324", "10.000000000000002", "0", "10"},
    {RUN, "--clip", "0", "1e6", "-5e-324", "1000000.0000000001", "0", "1e+06"},
    {RUN, "--embed-std", "1e-6", "100", "9.999999999999997e-07", "100.00000000000001", "1e-06",
     "100"},
    {RUN " demo_order encode pe_plot evaluate probe", "--max-memory", "1", "1073741824", "0",
     "1073741825", "1", "1073741824"},
    {"train", "--dropout", "0", "0.95", "-5e-324", "0.9500000000000001", "0", "0.95"},
    {"compare_pe", "--seeds", "1", "100", "0", "101", "1", "100"},
    {"make_data", "--seed", "0", U64_MAX},
    {"make_data", "--valid-examples", "1", "1000000", "0", "1000001", "1", "1000000"},
    {"make_data", "--test-examples", "1", "1000000", "0", "1000001", "1", "1000000"},
    {"evaluate probe", "--examples", "1", "1000000", "0", "1000001", "1", "1000000"},
    {"evaluate", "--random-positions", "1", "1000000", "0", "1000001", "1", "1000000"},
    {"evaluate", "--draws", "1", "1000", "0", "1001", "1", "1000"},
    {"probe", "--ridge", "1e-12", "1e6", "9.999999999999998e-13", "1000000.0000000001",
     "1e-12", "1e+06"},
    {"pe_plot", "--positions", "1", "1024", "0", "1025", "1", "1024"},
    {"pe_plot", "--position", "0", "1024", "-1", "1025", "0", "1024"},
    {"pe_plot", "--layer", "0", "15", "-1", "16", "0", "15"},
    {"pe_plot", "--channels", "0", "1023", "-1", "1024", "0", "1023"},
    {"pe_report", "--relative", "1", "1000", "0", "1001", "1", "1000"},
    {"pe_report", "--positions", "2", "2048", "1", "2049", "2", "2048"},
    {"pe_report", "--far", "1024", "1000000000", "1023", "1000000001", "1024", "1000000000"},
    {"experiments", "--seeds", "2", "20", "1", "21", "2", "20"},
    {"experiments", "--jobs", "1", "256", "0", "257", "1", "256"},
};
#define N_FIXED (sizeof FIXED_RANGES / sizeof *FIXED_RANGES)
static Range *RANGES; /* N_FIXED and a row for each scheme option at most */
static size_t N_RANGES;

/* A number as the programs write it: whole, or as real_text. */
static void number_text(char *buf, size_t cap, double v, bool whole) {
    if (whole)
        snprintf(buf, cap, "%.0f", v);
    else
        real_text(buf, cap, v, false);
}

/* RANGES: the fixed rows, then one for each numeric scheme option of the
 * registry, taken by the programs that take a scheme (and evaluate, for
 * the options a trained model may change). */
static void ranges(void) {
    free(RANGES);
    RANGES = malloc((N_FIXED + pe_option_count()) * sizeof *RANGES);
    ck_assert_ptr_nonnull(RANGES);
    N_RANGES = N_FIXED;
    memcpy(RANGES, FIXED_RANGES, sizeof FIXED_RANGES);
    for (size_t i = 0; i < pe_option_count(); i++) {
        const PeOption *o = pe_option_at(i);
        if (o->type == PE_VALUE_NAME)
            continue;
        bool whole = o->type == PE_VALUE_SIZE;
        Range *r = &RANGES[N_RANGES++];
        r->progs = o->tunable ? SCHEME " evaluate" : SCHEME;
        r->opt = o->flag;
        number_text(r->lo, sizeof r->lo, o->lo, whole);
        number_text(r->hi, sizeof r->hi, o->hi, whole);
        number_text(r->below, sizeof r->below, whole ? o->lo - 1 : nextafter(o->lo, -INFINITY),
                    whole);
        number_text(r->above, sizeof r->above, whole ? o->hi + 1 : nextafter(o->hi, INFINITY),
                    whole);
        memcpy(r->lo_text, r->lo, sizeof r->lo);
        memcpy(r->hi_text, r->hi, sizeof r->hi);
    }
}

/* Whether the space-separated list progs holds prog. */
static bool takes(const char *progs, const char *prog) {
    size_t n = strlen(prog);
    for (const char *p = strstr(progs, prog); p; p = strstr(p + 1, prog))
        if ((p == progs || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* The row of RANGES for prog's opt, or N_RANGES. */
static size_t range_of(const char *prog, const char *opt) {
    size_t i = 0;
    if (!N_RANGES)
        ranges();
    while (i < N_RANGES && !(strcmp(RANGES[i].opt, opt) == 0 && takes(RANGES[i].progs, prog)))
        i++;
    return i;
}

/* prog OPT=VALUE, stopped by an unknown option right after it: the value
 * was accepted when the refusal names that option and no other. */
static Run parse_only(const char *prog, const char *opt, const char *value) {
    char arg[256];
    snprintf(arg, sizeof arg, "%s=%s", opt, value);
    const char *args[] = {arg, "--zz-end", NULL};
    return run_parse(prog, args);
}

static bool accepted(const Run *r) {
    return r->status == 2 && strstr(r->err, "unknown option '--zz-end'") != NULL;
}

/* The value-taking options of prog's --help, in names (at most cap), and
 * whether each refuses a word for a number, in numeric. A flag given
 * "=abc" is refused as taking no value (an unknown option, were it no
 * option of prog); a value-taking option takes "abc" (and meets --zz-end)
 * or refuses it as a value, naming a number when it takes one: one run
 * of prog for each. Nothing runs: every command line ends in an unknown
 * option. */
static size_t value_options(const char *prog, char names[][32], bool *numeric, size_t cap) {
    Run help = run(prog, "--help");
    ck_assert_int_eq(help.status, 0);
    size_t n = 0;
    for (const char *p = strstr(help.out, "--"); p && n < cap; p = strstr(p + 2, "--")) {
        size_t k = 2;
        while (p[k] >= 'a' && p[k] <= 'z' ? true : p[k] == '-' && p[k + 1] != '-')
            k++;
        if (k < 4 || k >= 32 || (p > help.out && p[-1] != ' ' && p[-1] != '(' && p[-1] != '\n'))
            continue;
        char opt[32], unknown[48];
        snprintf(opt, sizeof opt, "%.*s", (int)k, p);
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], opt) == 0;
        if (seen)
            continue;
        snprintf(unknown, sizeof unknown, "unknown option '%s", opt);
        Run r = parse_only(prog, opt, "abc");
        if (r.status == 2 && !strstr(r.err, unknown) && !strstr(r.err, " takes no value; ")) {
            numeric[n] = strstr(r.err, "number") != NULL;
            snprintf(names[n++], 32, "%s", opt);
        }
        run_free(&r);
    }
    run_free(&help);
    return n;
}

/* Every program's value-taking options (value_options), found once in
 * the runner before the options' tests (an unchecked fixture, whose
 * memory the tests' forks inherit): each of its runs is a program's start,
 * and both tests read them. */
static struct {
    char name[32], opts[128][32];
    bool numeric[128];
    size_t n;
} PROGS[32];
static size_t N_PROGS;

static void find_value_options(void) {
    char progs[32][32];
    N_PROGS = example_programs(progs, 32);
    for (size_t p = 0; p < N_PROGS; p++) {
        snprintf(PROGS[p].name, sizeof PROGS[p].name, "%s", progs[p]);
        PROGS[p].n = value_options(progs[p], PROGS[p].opts, PROGS[p].numeric, 128);
    }
}

/* Issue 25 item 16: --dropout 0.95 was refused as "from 0 to 0.95" (a
 * float bound against a double), --base 1.0000001 as not "greater than 1"
 * (the bound was 1.000001). Every numeric option of every program: its
 * edges accepted, the values just outside refused, with a message that
 * states the bounds applied; and every option that refuses a word for a
 * number has its row here. */
START_TEST(every_numeric_option_states_its_bounds_and_takes_its_edges) {
    ranges();
    ck_assert_uint_ge(N_PROGS, 10);
    char progs[32][32];
    size_t n_progs = N_PROGS;
    for (size_t p = 0; p < n_progs; p++) {
        memcpy(progs[p], PROGS[p].name, sizeof progs[p]);
        size_t n = PROGS[p].n;
        ck_assert_uint_gt(n, 0);
        for (size_t i = 0; i < n; i++) {
            if (PROGS[p].numeric[i])
                ck_assert_msg(range_of(progs[p], PROGS[p].opts[i]) < N_RANGES,
                              "%s %s takes a number but has no row in RANGES", progs[p],
                              PROGS[p].opts[i]);
        }
    }
    for (size_t i = 0; i < N_RANGES; i++)
        for (size_t p = 0; p < n_progs; p++) {
            const char *prog = progs[p], *opt = RANGES[i].opt;
            if (!takes(RANGES[i].progs, prog))
                continue;
            const char *in[2] = {RANGES[i].lo, RANGES[i].hi};
            for (int k = 0; k < 2; k++) {
                Run r = parse_only(prog, opt, in[k]);
                ck_assert_msg(accepted(&r), "%s %s=%s, an edge, was refused: %s", prog, opt,
                              in[k], r.err);
                run_free(&r);
            }
            char bounds[96];
            snprintf(bounds, sizeof bounds, "from %s to %s", RANGES[i].lo_text,
                     RANGES[i].hi_text);
            const char *out[2] = {RANGES[i].below, RANGES[i].above};
            for (int k = 0; k < 2; k++) {
                Run r = parse_only(prog, opt, out[k]);
                ck_assert_msg(r.status == 2 && !accepted(&r), "%s %s=%s, outside, was accepted",
                              prog, opt, out[k]);
                ck_assert_msg(strstr(r.err, opt) && strstr(r.err, bounds), "%s %s=%s: the "
                              "message does not state '%s': %s", prog, opt, out[k], bounds,
                              r.err);
                run_free(&r);
            }
        }
}
END_TEST

/* A value the first occurrence of opt takes: a number's lower edge, a
 * name where the option checks it, or a file name. */
static const char *valid_value(const char *prog, const char *opt) {
    static const char *const names[][2] = {
        {"--pe", "sinusoidal"},     {"--task", "agent"},    {"--combine", "add"},
        {"--norm", "pre"},          {"--act", "gelu"},
        {"--pool", "cls"},          {"--schedule", "noam"}, {"--keep", "last"},
        {"--split", "test"},        {"--schemes", "none"},  {"--batches", "by-length"},
        {"--random-draw", "ruoss"}, {"--train-draw", "fresh"}, {"--first-draws", "reference"},
    };
    size_t r = range_of(prog, opt);
    if (r < N_RANGES)
        return RANGES[r].lo;
    /* a scheme's option: the example its declaration gives */
    const PeOption *o = pe_option_find(opt);
    if (o)
        return o->example;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i][0], opt) == 0)
            return names[i][1];
    return "x.png";
}

/* Issue 25 item 17: a repeated --init or --keep silently took the last
 * while a repeated --task was refused. One rule: every option of every
 * program that takes a value refuses a second, naming it. */
START_TEST(every_option_given_twice_is_refused_naming_it) {
    ck_assert_uint_ge(N_PROGS, 10);
    for (size_t p = 0; p < N_PROGS; p++) {
        const char *prog = PROGS[p].name;
        char (*names)[32] = PROGS[p].opts;
        for (size_t i = 0; i < PROGS[p].n; i++) {
            const char *v = valid_value(prog, names[i]);
            char arg[256], want[64];
            snprintf(arg, sizeof arg, "%s=%s", names[i], v);
            snprintf(want, sizeof want, "%s is given twice", names[i]);
            const char *args[] = {arg, arg, "--zz-end", NULL};
            Run r = run_parse(prog, args);
            ck_assert_msg(r.status == 2 && strstr(r.err, want), "%s '%s' '%s' --zz-end: %s",
                          prog, arg, arg, r.err);
            run_free(&r);
        }
    }
    /* the issue's own */
    expect_exit("train", "--task agent --init a.bin --init b.bin", 2,
                "--init is given twice ('a.bin', then 'b.bin')");
    expect_exit("train", "--task agent --keep best --keep last", 2,
                "--keep is given twice ('best', then 'last')");
}
END_TEST

/* The message demo_order ARGS gives (its exit code 2, its first line
 * without the program's name), for the page's messages to match. */
static char *demo_message(const char *args) {
    Run r = run("demo_order", args);
    const char *colon = strstr(r.err, ": ");
    ck_assert_msg(r.status == 2 && colon, "demo_order %s: exit %d: %s", args, r.status, r.err);
    char *msg = strdup(colon + 2);
    msg[strcspn(msg, "\n")] = '\0';
    run_free(&r);
    return msg;
}

/* Issue 26 item 4: the page parsed numbers with code of its own and took
 * the seed " -1" as 2^64-1, which the programs refuse. Its entry points
 * (web/posenc_web.c, posenc_train.c, built natively here) read the texts
 * of its boxes through the programs' parser: each text demo_order refuses
 * they refuse, with demo_order's message. */
START_TEST(the_page_reads_numbers_as_the_programs_do) {
    static const char *const WHOLE[] = {" -1", "-1", "+1", " 7", "7 ", "", "0x10", "1e3",
                                        "18446744073709551616"};
    static const char *const REAL[] = {" 10", "10 ", "", "-1", "nan", "1e999", "10000x"};
    const char *s1 = "Rohan killed the lion", *s2 = "lion killed the Rohan";
    char args[128], *want;
    for (size_t i = 0; i < sizeof WHOLE / sizeof *WHOLE; i++) {
        const char *t = WHOLE[i];
        snprintf(args, sizeof args, "--seed '%s'", t);
        want = demo_message(args);
        ck_assert_msg(pw_order(s1, s2, "sinusoidal", "16", "2", "2", "64", 0, t) != 0 &&
                      strcmp(pw_error(), want) == 0, "order, seed '%s': '%s', want '%s'", t,
                      pw_error(), want);
        ck_assert_msg(pw_code("sinusoidal", "16", "2", "10000", 0, 0, "32", t) != 0 &&
                      strcmp(pw_error(), want) == 0, "code, seed '%s': '%s', want '%s'", t,
                      pw_error(), want);
        char train_args[128];
        snprintf(train_args, sizeof train_args,
                 "--task\nagent\n--d-model\n16\n--steps\n10\n--seed\n%s", t);
        ck_assert_msg(pw_train_begin(train_args) != 0 &&
                      strcmp(pw_error(), want) == 0, "train, seed '%s': '%s', want '%s'", t,
                      pw_error(), want);
        free(want);
        snprintf(args, sizeof args, "--d-model '%s'", t);
        want = demo_message(args);
        ck_assert_msg(pw_order(s1, s2, "sinusoidal", t, "2", "2", "64", 0, "42") != 0 &&
                      strcmp(pw_error(), want) == 0, "order, d_model '%s': '%s', want '%s'", t,
                      pw_error(), want);
        free(want);
    }
    for (size_t i = 0; i < sizeof REAL / sizeof *REAL; i++) {
        const char *t = REAL[i];
        snprintf(args, sizeof args, "--base '%s'", t);
        want = demo_message(args);
        ck_assert_msg(pw_code("sinusoidal", "16", "2", t, 0, 0, "32", "42") != 0 &&
                      strcmp(pw_error(), want) == 0, "code, base '%s': '%s', want '%s'", t,
                      pw_error(), want);
        ck_assert_msg(pw_rotation("16", t, 0, "5", "3") != 0 && strcmp(pw_error(), want) == 0,
                      "rotation, base '%s': '%s', want '%s'", t, pw_error(), want);
        free(want);
    }
    /* and what the programs take, the page takes */
    ck_assert_msg(pw_order(s1, s2, "sinusoidal", "16", "2", "2", "64", 0,
                           "18446744073709551615") == 0, "%s", pw_error());
    ck_assert_msg(pw_code("sinusoidal", "16", "2", "1.000001", 0, 0, "32", "0") == 0, "%s",
                  pw_error());
    ck_assert_msg(pw_rotation("16", "1e12", 0, "5", "3") == 0, "%s", pw_error());
}
END_TEST

Suite *suite_cli(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("demo_order");
    tcase_add_test(tc, demo_default_runs);
    tcase_add_test(tc, demo_csv_claims);
    tcase_add_test(tc, demo_default_is_the_tutorials_seven);
    tcase_add_test(tc, demo_repeated_words);
    tcase_add_test(tc, demo_layernorm_erases_a_constant_shift);
    tcase_add_test(tc, demo_bad_input);
    tcase_add_test(tc, demo_help);
    suite_add_tcase(s, tc);
    tc = tcase_create("options");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, find_value_options, NULL);
    tcase_add_test(tc, every_numeric_option_states_its_bounds_and_takes_its_edges);
    tcase_add_test(tc, every_option_given_twice_is_refused_naming_it);
    suite_add_tcase(s, tc);
    tc = tcase_create("page");
    tcase_add_test(tc, the_page_reads_numbers_as_the_programs_do);
    suite_add_tcase(s, tc);
    return s;
}
