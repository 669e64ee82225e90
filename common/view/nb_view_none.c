/* nb_view_none.c -- the view in a build without OpenGL (common/view/gl.mk could
 * not find it; NB_GL_WHY says why): --view exits 2 with that reason, and
 * --render's GL frames are not there, so nb_main() draws them with the CPU
 * splatter. */
#include "nb_error.h"
#include "nb_view.h"

#ifndef NB_GL_WHY
#define NB_GL_WHY "OpenGL was not found at build time"
#endif

int nb_view_usable(const nb_options *o)
{
    if (o->serve)
        return nb_fail(NB_EXIT_USAGE, "--serve is not built into this program: it draws with the GL "
                       "view, which is left out (%s)", NB_GL_WHY);
    if (!o->view)
        return 0;
    return nb_fail(NB_EXIT_USAGE, "--view is not built into this program: %s; use --render DIR "
                   "to write the frames instead", NB_GL_WHY);
}

int nb_view_run(nb_sim *sim, char *report, size_t len)
{
    (void)sim; (void)report; (void)len;
    return nb_view_usable(sim->o);
}

int nb_glframes_open(nb_glframes **f, nb_sim *sim, const nb_render_view *v)
{
    (void)sim; (void)v;
    *f = 0;
    return nb_fail(NB_EXIT_RUNTIME, "no OpenGL in this build: %s", NB_GL_WHY);
}

int nb_glframes_draw(nb_glframes *f, nb_sim *sim, unsigned char *rgb, int *downloaded)
{
    (void)f; (void)sim; (void)rgb;
    *downloaded = 0;
    return nb_fail(NB_EXIT_RUNTIME, "no OpenGL in this build");
}

const char *nb_glframes_describe(nb_glframes *f)
{
    (void)f;
    return "no OpenGL in this build";
}

void nb_glframes_timing(nb_glframes *f, char *buf, size_t len)
{
    (void)f;
    if (len) buf[0] = '\0';
}

void nb_glframes_close(nb_glframes *f) { (void)f; }
