/* Edge cases round four (issue 36): each test reproduces one defect as a
 * user would meet it and is named after what it guards. One case per
 * surface, each in its own file. */
#include "suites.h"

Suite *suite_guards(void) {
    Suite *s = suite_create("guards");
    suite_add_tcase(s, tcase_guard_grid());
    suite_add_tcase(s, tcase_guard_train());
    suite_add_tcase(s, tcase_guard_messages());
    suite_add_tcase(s, tcase_guard_formats());
    suite_add_tcase(s, tcase_guard_cells());
    suite_add_tcase(s, tcase_guard_usage());
    suite_add_tcase(s, tcase_guard_xpos());
    return s;
}
