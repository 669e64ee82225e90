/* serve_prog.c -- a kit program for the --serve tests (tests/suite_serve.c,
 * tests/serve_check.py): nb_main() -- the one command line, the view's loop,
 * the server -- with a step of known motion instead of a student's (the
 * bodies turn about the z axis by 0.01 rad a step, a step takes 2 ms), so
 * the server is tested on the kit's own code, in any tree, the student kit
 * too.  Its name in pictures and screenshots is "serveprog". */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "nb_error.h"
#include "nb_step.h"

typedef struct turn { nb_state s0; int64_t k; } turn;

static int tr_init(void **ctx, const nb_state *s, const nb_options *o)
{
    (void)o;
    turn *t = calloc(1, sizeof *t);
    *ctx = t;
    if (!t || nb_state_copy(&t->s0, s)) return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    return 0;
}

static int tr_accel(void *ctx, float *ax, float *ay, float *az)
{
    turn *t = ctx;
    for (int64_t i = 0; i < t->s0.n; i++) ax[i] = ay[i] = az[i] = 0.0f;
    return 0;
}

static int tr_advance(void *ctx, int steps, nb_step_time *tm)
{
    turn *t = ctx;
    struct timespec d = { 0, 2000000L * steps };
    nanosleep(&d, NULL);
    t->k += steps;
    if (tm) { tm->force_start_ms = 0.0; tm->force_ms = tm->step_ms = 2.0; tm->interactions = (double)t->s0.n; }
    return 0;
}

static int tr_download(void *ctx, nb_state *s)
{
    turn *t = ctx;
    double a = 0.01 * t->k, c = cos(a), sn = sin(a);
    for (int64_t i = 0; i < t->s0.n; i++) {
        s->x[i] = (float)(c * t->s0.x[i] - sn * t->s0.y[i]);
        s->y[i] = (float)(sn * t->s0.x[i] + c * t->s0.y[i]);
        s->z[i] = t->s0.z[i];
        s->m[i] = t->s0.m[i];
        s->vx[i] = t->s0.vx[i]; s->vy[i] = t->s0.vy[i]; s->vz[i] = t->s0.vz[i];
    }
    return 0;
}

static void tr_destroy(void *ctx)
{
    turn *t = ctx;
    if (t) nb_state_free(&t->s0);
    free(t);
}

static const nb_step serveprog = {
    .name = "serveprog", .idea = "bodies turning about z, 2 ms a step (the --serve tests' program)",
    .init = tr_init, .accel = tr_accel, .advance = tr_advance, .download = tr_download,
    .destroy = tr_destroy,
};

int main(int argc, char **argv) { return nb_main(argc, argv, &serveprog); }
