/* main_common.c -- the CUnit runner for common/ and the harness. */
#include <string.h>
#include "nb_grade.h"

extern const char *nb_harness_self;
int nb_harness_selftest(const char *mode);
void nb_suite_docs_register(void);
void nb_suite_view_register(void);     /* suite_view.c: the GL view, the frame writer */
void nb_suite_serve_register(void);    /* suite_serve.c: the view in a browser (--serve) */

int main(int argc, char **argv)
{
    nb_harness_self = argv[0];
    if (argc > 1 && !strncmp(argv[1], "--selftest-", 11)) return nb_harness_selftest(argv[1]);
    nb_suite_common_register();
    nb_suite_harness_register();
    nb_suite_tipsy_register();
    nb_suite_render_register();
    nb_suite_docs_register();
    nb_suite_view_register();
    nb_suite_serve_register();
    return nb_grade_main("common", argc, argv);
}
