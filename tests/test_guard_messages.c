/* Edge cases round four (issue 36): see test_guards.c. */
#include "suites.h"

TCase *tcase_guard_messages(void) {
    TCase *tc = tcase_create("messages");
    return tc;
}
