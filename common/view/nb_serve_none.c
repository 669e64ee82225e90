/* nb_serve_none.c -- --serve in a build without its libraries (common/view/serve.mk
 * could not find them; NB_SERVE_WHY says why): --serve exits 2 with that
 * reason.  The view calls nothing else of nb_serve.h then. */
#include "nb_error.h"
#include "nb_serve.h"

#ifndef NB_SERVE_WHY
#define NB_SERVE_WHY "its libraries were not found at build time"
#endif

int nb_serve_usable(void)
{
    return nb_fail(NB_EXIT_USAGE, "--serve is not built into this program (%s); make setup installs "
                   "what it needs, then rebuild", NB_SERVE_WHY);
}

int nb_serve_open(nb_serve **s, const char *addr, int port, const char *prog)
{
    (void)addr; (void)port; (void)prog;
    *s = 0;
    return nb_serve_usable();
}

int nb_serve_event(nb_serve *s, char *buf, size_t len, int *viewer)
{
    (void)s; (void)buf; (void)len; (void)viewer;
    return 0;
}

void nb_serve_wait(nb_serve *s, int ms) { (void)s; (void)ms; }

int nb_serve_viewers(nb_serve *s, int *fresh)
{
    (void)s;
    if (fresh) *fresh = 0;
    return 0;
}

unsigned char *nb_serve_slot(nb_serve *s, int kind, int w, int h)
{
    (void)s; (void)kind; (void)w; (void)h;
    return 0;
}

void nb_serve_submit(nb_serve *s, int kind, const char *status, const char *name, int viewer)
{
    (void)s; (void)kind; (void)status; (void)name; (void)viewer;
}

void nb_serve_close(nb_serve *s, const char *why, char *report, size_t len)
{
    (void)s; (void)why;
    if (report && len) report[0] = '\0';
}
