/* nb_error.c -- the last error message and code (see nb_error.h). */
#include <stdarg.h>
#include <stdio.h>
#include "nb_error.h"

static char nb_msg[512];
static int nb_code;

int nb_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nb_msg, sizeof nb_msg, fmt, ap);
    va_end(ap);
    nb_code = code;
    return code;
}

int nb_todo(const char *what, const char *handout)
{
    return nb_fail(NB_EXIT_TODO, "%s is not implemented yet (see handouts/%s.md)", what, handout);
}

const char *nb_errmsg(void) { return nb_msg; }
int nb_errcode(void) { return nb_code; }
void nb_clear_error(void) { nb_msg[0] = '\0'; nb_code = 0; }
