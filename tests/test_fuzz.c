/* The fuzz targets of tests/fuzz/ that issue 9 added, compiled into the
 * suites so that make test replays their seeds and every crash input kept
 * in tests/fuzz/regressions/ on the same code the fuzzer ran. Each target
 * is included under its own name; fuzz_cli brings examples/cli.c with it,
 * whose usage errors then return here instead of exiting. */
#define _POSIX_C_SOURCE 200809L
#define FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION

#define LLVMFuzzerTestOneInput fuzz_cli_one
#include "fuzz/fuzz_cli.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_trainlog_one
#include "fuzz/fuzz_trainlog.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_npy_one
#include "fuzz/fuzz_npy.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_vocab_one
#include "fuzz/fuzz_vocab.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_resume_one
#include "fuzz/fuzz_resume.c"
#undef LLVMFuzzerTestOneInput

#include "suites.h"

static void cli_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_cli_one(b, n);
}
static void trainlog_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_trainlog_one(b, n);
}
static void npy_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_npy_one(b, n);
}
static void vocab_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_vocab_one(b, n);
}
static void resume_one(const unsigned char *b, size_t n, const char *path) {
    (void)path;
    fuzz_resume_one(b, n);
}

START_TEST(new_fuzz_targets_replay_their_inputs) {
    /* a target aborts on a broken promise, which fails the test */
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_cli", cli_one), 0);
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_trainlog", trainlog_one), 0);
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_npy", npy_one), 0);
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_vocab", vocab_one), 0);
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_resume", resume_one), 0);
}
END_TEST

/* The trainlog defects the fuzzing section names. */
START_TEST(trainlog_reports_nul_and_reads_tiny_numbers) {
    TrainLog log;
    Err e;
    const char nul[] = "step,loss\n1,0.5\n2,0\0.4\n";
    ck_assert_int_eq(trainlog_parse(&log, nul, sizeof nul - 1, "l.csv", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "l.csv:3: the line holds a NUL byte"), "%s", e.msg);
    const char tiny[] = "step,loss\n1,1e-320\n2,1e999\n";
    ck_assert_int_eq(trainlog_parse(&log, tiny, sizeof tiny - 1, "l.csv", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "l.csv:3:") && strstr(e.msg, "'1e999'"), "%s", e.msg);
    ck_assert_int_eq(trainlog_parse(&log, tiny, 19, "l.csv", &e), 0);
    ck_assert_uint_eq(log.n, 1);
    ck_assert(log.col[LOG_LOSS][0] >= 0.0 && log.col[LOG_LOSS][0] < 1e-300);
    trainlog_free(&log);
}
END_TEST

Suite *suite_fuzz(void) {
    Suite *s = suite_create("fuzz");
    TCase *tc = tcase_create("fuzz inputs");
    tcase_add_test(tc, new_fuzz_targets_replay_their_inputs);
    tcase_add_test(tc, trainlog_reports_nul_and_reads_tiny_numbers);
    suite_add_tcase(s, tc);
    return s;
}
