/* nb_turning.c -- the test step of known motion: see nb_turning.h. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "nb_error.h"
#include "nb_turning.h"

typedef struct turning {
    nb_state s0;
    int64_t  k;
    float    cells[9 * 4];     /* cx, cy, cz, half: the root, then its 8 children */
} turning;

static double turning_ms;

static int tn_init(void **ctx, const nb_state *s, const nb_options *o)
{
    (void)o;
    turning *t = calloc(1, sizeof *t);
    *ctx = t;
    if (!t || nb_state_copy(&t->s0, s)) return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    t->cells[3] = 1.0f;
    for (int c = 0; c < 8; c++) {
        float *p = t->cells + 4 * (c + 1);
        p[0] = c & 1 ? 0.5f : -0.5f;
        p[1] = c & 2 ? 0.5f : -0.5f;
        p[2] = c & 4 ? 0.5f : -0.5f;
        p[3] = 0.5f;
    }
    return 0;
}

static int tn_accel(void *ctx, float *ax, float *ay, float *az)
{
    turning *t = ctx;
    for (int64_t i = 0; i < t->s0.n; i++) ax[i] = ay[i] = az[i] = 0.0f;
    return 0;
}

static int tn_advance(void *ctx, int steps, nb_step_time *tm)
{
    turning *t = ctx;
    if (turning_ms > 0) {
        long ns = (long)(turning_ms * 1e6) * steps;
        struct timespec d = { ns / 1000000000L, ns % 1000000000L };
        nanosleep(&d, NULL);
    }
    t->k += steps;
    if (tm) {
        tm->force_start_ms = 0.0;
        tm->force_ms = tm->step_ms = turning_ms > 0 ? turning_ms : 1.0;
        tm->interactions = (double)t->s0.n;
    }
    return 0;
}

static int tn_download(void *ctx, nb_state *s)
{
    turning *t = ctx;
    double a = 0.01 * t->k, c = cos(a), sn = sin(a);
    for (int64_t i = 0; i < t->s0.n; i++) {
        s->x[i] = (float)(c * t->s0.x[i] - sn * t->s0.y[i]);
        s->y[i] = (float)(sn * t->s0.x[i] + c * t->s0.y[i]);
        s->z[i] = t->s0.z[i];
        s->m[i] = t->s0.m[i];
        s->vx[i] = t->s0.vx[i];
        s->vy[i] = t->s0.vy[i];
        s->vz[i] = t->s0.vz[i];
    }
    return 0;
}

static int tn_cells(void *ctx, nb_cells *out)
{
    turning *t = ctx;
    *out = (nb_cells){ 9, t->cells, t->cells + 1, t->cells + 2, t->cells + 3, 4, 0 };
    return 0;
}

static void tn_destroy(void *ctx)
{
    turning *t = ctx;
    if (t) nb_state_free(&t->s0);
    free(t);
}

nb_step nb_turning_step(const char *name, const char *idea, unsigned options, double step_ms)
{
    turning_ms = step_ms;
    return (nb_step){
        .name = name, .idea = idea, .options = options,
        .init = tn_init, .accel = tn_accel, .advance = tn_advance, .download = tn_download,
        .cells = (options & NB_OPT_RENDER_TREE) ? tn_cells : NULL, .destroy = tn_destroy,
    };
}
