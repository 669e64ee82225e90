/* nb_error.c -- the last error message and code (see nb_error.h).
 *
 * Per thread (_Thread_local): a program that drives several GPUs from one
 * thread each (step06_multigpu) gets each thread's own message, never two
 * messages written over each other; the thread that reports copies it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"

#define NB_MSG_MAX 1024          /* the message kept: one line on stderr */
#define NB_MSG_KEEP 400          /* a longer one keeps its first and last 400 bytes */

static _Thread_local char nb_msg[NB_MSG_MAX];
static _Thread_local int nb_code;

/* One line: control characters (a newline in a file name) become '?'. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

int nb_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char big[4 * NB_MSG_MAX];
    int len = vsnprintf(big, sizeof big, fmt, ap);
    va_end(ap);
    char *full = big;
    if (len >= (int)sizeof big) {             /* a long file name: format it all */
        full = malloc((size_t)len + 1);
        if (full) {
            va_start(ap, fmt);
            vsnprintf(full, (size_t)len + 1, fmt, ap);
            va_end(ap);
        } else {
            full = big;
            len = (int)strlen(big);
        }
    }
    if (len < 0) len = 0;
    if ((size_t)len < sizeof nb_msg) {
        memcpy(nb_msg, full, (size_t)len + 1);
    } else {                                  /* keep the start and the reason at the end */
        memcpy(nb_msg, full, NB_MSG_KEEP);
        memcpy(nb_msg + NB_MSG_KEEP, " [...] ", 7);
        memcpy(nb_msg + NB_MSG_KEEP + 7, full + len - NB_MSG_KEEP, NB_MSG_KEEP);
        nb_msg[2 * NB_MSG_KEEP + 7] = '\0';
    }
    if (full != big) free(full);
    one_line(nb_msg);
    nb_code = code;
    return code;
}

int nb_todo(const char *what, const char *handout)
{
    return nb_fail(NB_EXIT_TODO, "%s is not implemented yet (see handouts/%s.md)", what, handout);
}

const char *nb_short(const char *s)
{
    static _Thread_local char buf[4][2 * NB_SHORT_KEEP + 8];
    static _Thread_local int next;
    if (!s) return "(null)";
    size_t len = strlen(s);
    if (len <= 2 * NB_SHORT_KEEP + 5) return s;
    char *b = buf[next++ & 3];
    snprintf(b, sizeof buf[0], "%.*s[...]%s", NB_SHORT_KEEP, s, s + len - NB_SHORT_KEEP);
    return b;
}

const char *nb_errmsg(void) { return nb_msg; }
int nb_errcode(void) { return nb_code; }
void nb_clear_error(void) { nb_msg[0] = '\0'; nb_code = 0; }
