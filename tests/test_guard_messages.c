/* Edge cases round four (issue 36), the programs' messages: each test
 * reproduces one defect as a user meets it and is named after what it
 * guards. See test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/run/npy.h"
#include "suites.h"

/* 12h: "cannot open" said nothing of why (a missing folder, a file where a
 * folder should be, a folder where a file should be): every failed open
 * carries its reason, and the advice follows the reason. */
START_TEST(cannot_open_says_why) {
    expect_exit("train", "--data /nonexistent/d.txt --steps 1", 2,
                "cannot open the data file /nonexistent/d.txt: No such file or directory; "
                "check the path");
    expect_exit("train", "--data /etc/passwd/d.txt --steps 1", 2,
                "/etc/passwd/d.txt: Not a directory");
    expect_exit("train", "--data /tmp --steps 1", 2, "cannot read /tmp: Is a directory");
    expect_exit("compare_pe", "--schemes none --steps 1 --out /nonexistent/r.csv", 2,
                "cannot write --out /nonexistent/r.csv: No such file or directory; check that "
                "its folder exists");
    float *x, one = 1.0f;
    size_t shape[4], nd;
    Err e;
    ck_assert_int_eq(npy_read_f32("/nonexistent/a.npy", &x, shape, &nd, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "a.npy: No such file or directory"), "%s", e.msg);
    ck_assert_int_eq(npy_write_f32("/nonexistent/a.npy", &one, (size_t[]){1}, 1, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "cannot write /nonexistent/a.npy: No such file"), "%s", e.msg);
}
END_TEST

TCase *tcase_guard_messages(void) {
    TCase *tc = tcase_create("messages");
    tcase_add_test(tc, cannot_open_says_why);
    return tc;
}
