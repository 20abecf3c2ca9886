/* The Check suites, one per module, and helpers they share. */
#ifndef POSENC_SUITES_H
#define POSENC_SUITES_H

#include <check.h>
#include <stddef.h>

#include "../src/model/encoder.h"
#include "../src/text/data.h"

Suite *suite_matmul(void);
Suite *suite_encoder(void);
Suite *suite_pe(void);
Suite *suite_attn(void);
/* part of suite_attn: one contract for the score hooks, every scheme
 * (test_conformance.c) */
TCase *tcase_conformance(void);
/* part of suite_attn: dpb's own checks (test_dpb.c) */
TCase *tcase_dpb(void);
Suite *suite_vocab(void);
Suite *suite_cli(void);
Suite *suite_docs(void);
/* part of suite_docs: the checks that read the pages (test_docs_read.c) */
TCase *tcase_docs_read(void);
TCase *tcase_docs_pictures(void);
Suite *suite_grad(void);
/* part of suite_grad: the whole encoder's (test_grad_encoder.c) */
TCase *tcase_grad_encoder(void);
Suite *suite_parity(void);
/* part of suite_parity: the encoder in one file against the library
 * (test_one_file.c) */
TCase *tcase_one_file(void);
Suite *suite_train(void);
Suite *suite_programs(void);
/* part of suite_programs: the modes end to end (test_program_modes.c) */
TCase *tcase_program_modes(void);
Suite *suite_plot(void);
Suite *suite_figures(void);
Suite *suite_probe(void);
Suite *suite_report(void);
Suite *suite_data(void);
Suite *suite_tasks(void);
/* parts of suite_tasks, in test_tasks_chomsky.c and test_make_data.c */
TCase *tcase_chomsky(void);
TCase *tcase_make_data(void);
Suite *suite_orderdemo(void);
Suite *suite_edges(void);
Suite *suite_fuzz(void);
Suite *suite_threads(void);
Suite *suite_stats(void);
/* part of suite_stats: the benchmark page's tests over tasks and pairs
 * (the signed-rank test, the bootstrap) and its chance floor
 * (test_paired.c) */
TCase *tcase_paired(void);
Suite *suite_rules(void);
Suite *suite_cells(void);
/* parts of suite_cells: the benchmark's grid, and its program (test_bench.c) */
TCase *tcase_bench(void);
TCase *tcase_bench_program(void);
/* part of suite_cells: scripts/bench_referee.py on the benchmark's page
 * (test_referee.c) */
TCase *tcase_referee(void);
/* every edit tests/referee_edits.py makes of the page, caught (slow) */
TCase *tcase_referee_edits(void);
/* part of suite_cells: the benchmark's protocol, its reference forms and
 * committed cells (test_protocol.c) */
TCase *tcase_protocol(void);
/* part of suite_cells: the cells another cell holds (test_held.c) */
TCase *tcase_held(void);
/* part of suite_cells: the pages' templates and their filler (test_prose.c) */
TCase *tcase_prose(void);
/* Edge cases round four (issue 36), suite_guards: the grid's folders,
 * records and publishing (test_guard_grid.c), train's resumes and logs
 * (test_guard_train.c), the programs' messages (test_guard_messages.c),
 * the formats as docs/formats.md states them (test_guard_formats.c). */
Suite *suite_guards(void);
TCase *tcase_guard_grid(void);
TCase *tcase_guard_train(void);
TCase *tcase_guard_messages(void);
TCase *tcase_guard_formats(void);
/* Edge cases round five (issue 47), suite_guards too: the benchmark's
 * committed cells as data (test_guard_cells.c). */
TCase *tcase_guard_cells(void);
/* Edge cases round five (issue 47), items 8 and 9: the command lines of
 * the programs, floor and the docs' scripts (test_guard_usage.c). */
TCase *tcase_guard_usage(void);
/* Round five (issue 47), also in suite_guards: xPos at long and random
 * positions, and what an overflow's message names (test_guard_xpos.c). */
TCase *tcase_guard_xpos(void);
/* train --pad-loss: the padding after '$' in the loss, in no score
 * (test_pad_loss.c), a case of the train suite. */
TCase *tcase_pad_loss(void);
/* The checkpoint's format (tests/test_checkpoint.c), a case of the train suite. */
TCase *tcase_checkpoint_format(void);
TCase *tcase_batches(void);
/* The benchmark's forms and draws as Ruoss et al.'s code makes them
 * (tests/test_draws.c), a case of the train suite. */
TCase *tcase_draws(void);
/* xl's keys against Ruoss et al.'s code written again (tests/test_xl_rows.c),
 * a case of the train suite. */
TCase *tcase_xl_rows(void);
/* The reference's first draws and its output projection without a bias
 * (tests/test_reference_model.c), a case of the train suite. */
TCase *tcase_reference_model(void);

/* POSENC_SHARD="K/N" (make check's runners): true and this runner's K of N
 * when it is set and well formed. Runner 0 runs every suite, the others
 * only their share of the docs' pages (test_docs.c). */
bool shard_of(size_t *k, size_t *n);

/* The registry's schemes that keep holds for, in its order: how many,
 * and the n-th (n below that count). */
size_t scheme_count(bool (*keep)(const PeScheme *s));
const PeScheme *scheme_nth(bool (*keep)(const PeScheme *s), size_t n);

/* Sets pc's option flag (or key) from its command-line text, as the
 * command line would; the test fails on a value it refuses. */
void set_opt(PeConfig *pc, const char *flag, const char *text);

/* Runs m on B sentences of ids (B,T) with lengths lens and returns a copy
 * of the hidden states (B,T,C) (and the pooled vectors, if pooled is not
 * NULL); fails the test on error. */
float *run_model(const Model *m, const int *ids, const size_t *lens, size_t B, size_t T,
                 float **pooled);

/* A model with the given shape and scheme; fails the test on error. */
void make_model(Model *m, size_t V, size_t C, size_t NH, size_t L, size_t F, NormPlace norm,
                Activation act, const char *pe, Combine combine, uint64_t seed);

/* ck_assert_msg without Check's mark of a passing check: forking, Check
 * writes the file and line of every ck_assert that passes to the runner,
 * a system call each, which in a loop over a million tokens is the test's
 * whole cost. This one fails as ck_assert_msg does (the message is the
 * arguments after expr) and costs nothing when it passes. */
#define ck_check(expr, ...)                                                                      \
    do {                                                                                         \
        if (!(expr))                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                           \
    } while (0)

/* A program's exit code (-1 if it did not exit normally), stdout and
 * stderr. */
typedef struct {
    int status;
    char *out, *err;
} Run;

/* Runs "$POSENC_BIN/prog args" through the shell (args are quoted by the
 * caller) and captures what it printed. */
Run run(const char *prog, const char *args);
/* Runs "$POSENC_BIN/prog" with args (NULL-ended, at most 62) as they are,
 * without the shell, as run does otherwise: where this process runs
 * Haswell's kernels, the program is given them too and so does not start
 * itself again for them (src/model/kernels.h). For the many short runs of
 * the option rules, whose cost is a whole program's start. */
Run run_parse(const char *prog, const char *const *args);
/* run_parse of args split into words as the shell splits them at spaces
 * and single quotes ('a b' one word; nothing else is special). */
Run run_words(const char *prog, const char *args);
void run_free(Run *r);

/* r (a run of prog with args) ended with exit code `code`, nothing on
 * stdout, and a message on stderr containing want; frees r. */
void expect_run(Run r, const char *prog, const char *args, int code, const char *want);
/* expect_run of prog run with args. */
void expect_exit(const char *prog, const char *args, int code, const char *want);

/* Runs cmd through sh in dir, with $B the programs' folder (absolute), $TOP
 * the sources' (the tests run there: build/san's programs are not in it) and
 * $NOBODY, when root, a prefix that runs what follows as an unprivileged
 * user (root writes anywhere); returns its exit status, stderr in *err
 * (free it). expect_sh wants the status code and want in stderr (want may
 * be NULL); refute_sh wants unwanted absent from it. */
int sh_in(const char *dir, const char *cmd, char **err);
void expect_sh(const char *dir, const char *cmd, int code, const char *want);
void refute_sh(const char *dir, const char *cmd, const char *unwanted);

/* Every program's name (at most cap, each under 32 bytes): examples/NAME.c
 * but the code the programs share, cli*.c, as the Makefile finds them. */
size_t example_programs(char names[][32], size_t cap);

/* The whole file as a string; fails the test if it cannot be read. */
char *slurp(const char *path);
/* What a stream gives until its end, as a string (free it). */
char *slurp_stream(FILE *f);
/* Whether path exists (as anything). */
bool file_exists(const char *path);
/* Checks that DIR/name begins with header and has `lines` lines in all. */
void expect_csv(const char *dir, const char *name, const char *header, size_t lines);

/* An empty file under /tmp, newly made; the path lives until the next
 * call. The caller unlinks it. */
char *temp_file(void);
/* A new directory under /tmp (a static buffer, valid until the next
 * call), its removal with everything in it, and a text file written whole;
 * each fails the test on error. */
char *scratch(void);
void remove_dir(const char *dir);
void write_text(const char *path, const char *text);
/* True when the two files exist and hold the same bytes. */
bool same_bytes(const char *a, const char *b);

/* Calls fn on every file of tests/fuzz/seeds/TARGET and
 * tests/fuzz/regressions/TARGET (the inputs a fuzz target keeps: hand-made
 * seeds and the inputs of crashes it found); returns how many. */
size_t for_each_fuzz_input(const char *target,
                           void (*fn)(const unsigned char *bytes, size_t n, const char *path));
/* Example i's words, or its labels, joined by single spaces (free it). */
char *example_joined(const TextData *d, size_t i, bool labels);

#endif
