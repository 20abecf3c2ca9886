/* Edge cases round four (issue 36): see test_guards.c. */
#include "suites.h"

TCase *tcase_guard_train(void) {
    TCase *tc = tcase_create("train");
    return tc;
}
