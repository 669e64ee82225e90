/* step01_cpu/cpu.c -- the CPU reference step: data layout and leapfrog.
 *
 * Bodies live as float3 positions and velocities (array of structs) with the
 * masses in their own array.  One leapfrog kick-drift-kick step:
 *   v += a dt/2;  x += v dt;  a = a(x);  v += a dt/2
 * Timing: CLOCK_MONOTONIC at the start of the step, before and after the
 * force loop, and at the end of the step: where the force starts
 * (force_start_ms), the force loop (force_ms), the whole step (step_ms). */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "nb_step.h"

typedef struct cpu_ctx {
    int64_t n;
    float3 *pos, *vel, *acc, *tmp;
    float  *mass;
    float   eps2, dt;
    int     threads;
} cpu_ctx;

static void cpu_destroy(void *p)
{
    cpu_ctx *c = p;
    if (!c) return;
    free(c->pos); free(c->vel); free(c->acc); free(c->tmp); free(c->mass);
    free(c);
}

static int cpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    cpu_ctx *c = calloc(1, sizeof *c);
    *ctx = c;                        /* the caller destroys it, also after a failure */
    if (!c) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int64_t n = s->n;
    c->n = n;
    c->eps2 = (float)(o->eps * o->eps);
    c->dt = (float)o->dt;
    c->threads = o->threads;
    c->pos = malloc((size_t)n * sizeof *c->pos);
    c->vel = malloc((size_t)n * sizeof *c->vel);
    c->acc = malloc((size_t)n * sizeof *c->acc);
    c->tmp = malloc((size_t)n * sizeof *c->tmp);
    c->mass = malloc((size_t)n * sizeof *c->mass);
    if (!c->pos || !c->vel || !c->acc || !c->tmp || !c->mass)
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld bodies (%.1f MiB)", (long long)n,
                       (double)n * (4 * sizeof(float3) + sizeof(float)) / 1048576.0);
    for (int64_t i = 0; i < n; i++) {
        c->pos[i] = (float3){ s->x[i], s->y[i], s->z[i] };
        c->vel[i] = (float3){ s->vx[i], s->vy[i], s->vz[i] };
        c->mass[i] = s->m[i];
    }
    /* the leapfrog's first kick needs a(x0), the accelerations of the initial
     * positions: given code, so that the force loop is graded (accel()) as
     * soon as forces.c is written, before the leapfrog (handouts/01_cpu.md) */
    cpu_forces(c->pos, c->mass, c->acc, n, c->eps2, c->threads);
    return NB_OK;
}

static int cpu_accel(void *p, float *ax, float *ay, float *az)
{
    cpu_ctx *c = p;
    cpu_forces(c->pos, c->mass, c->tmp, c->n, c->eps2, c->threads);
    for (int64_t i = 0; i < c->n; i++) {
        ax[i] = c->tmp[i].x; ay[i] = c->tmp[i].y; az[i] = c->tmp[i].z;
    }
    return NB_OK;
}

static int cpu_advance(void *p, int steps, nb_step_time *times)
{
    cpu_ctx *c = p;
    /* BEGIN SOLUTION
     * 'steps' leapfrog kick-drift-kick steps: v += a dt/2; x += v dt; a = a(x) with
     * cpu_forces(); v += a dt/2.  When times != NULL, read nb_now_ms() at the start of the
     * step, before and after the force loop and at the end of the step, and fill times[k]:
     * force_start_ms (start to force), force_ms (the force loop), step_ms (the whole step)
     * and the interactions.
     * See handouts/01_cpu.md.
     */
    /* BLANK: (void)c; (void)steps; (void)times; */
    /* BLANK: return nb_todo("the leapfrog in cpu_advance()", "01_cpu"); */
    const float h = 0.5f * c->dt, dt = c->dt;
    for (int k = 0; k < steps; k++) {
        double t0 = nb_now_ms();
        for (int64_t i = 0; i < c->n; i++) {       /* kick, drift */
            c->vel[i].x += h * c->acc[i].x; c->vel[i].y += h * c->acc[i].y; c->vel[i].z += h * c->acc[i].z;
            c->pos[i].x += dt * c->vel[i].x; c->pos[i].y += dt * c->vel[i].y; c->pos[i].z += dt * c->vel[i].z;
        }
        double t1 = nb_now_ms();
        cpu_forces(c->pos, c->mass, c->acc, c->n, c->eps2, c->threads);
        double t2 = nb_now_ms();
        for (int64_t i = 0; i < c->n; i++) {       /* kick */
            c->vel[i].x += h * c->acc[i].x; c->vel[i].y += h * c->acc[i].y; c->vel[i].z += h * c->acc[i].z;
        }
        double t3 = nb_now_ms();
        if (times) {
            times[k].force_start_ms = t1 - t0;
            times[k].force_ms = t2 - t1;
            times[k].step_ms = t3 - t0;
            times[k].interactions = c->n * c->n;
        }
    }
    return NB_OK;
    /* END SOLUTION */
}

static int cpu_download(void *p, nb_state *s)
{
    cpu_ctx *c = p;
    for (int64_t i = 0; i < c->n; i++) {
        s->x[i] = c->pos[i].x; s->y[i] = c->pos[i].y; s->z[i] = c->pos[i].z;
        s->vx[i] = c->vel[i].x; s->vy[i] = c->vel[i].y; s->vz[i] = c->vel[i].z;
        s->m[i] = c->mass[i];
    }
    return NB_OK;
}

static void cpu_info(void *p, nb_run_info *info)
{
    cpu_ctx *c = p;
    nb_cpu_model(info->device, sizeof info->device);
    info->sms = c->threads;
}

const nb_step nb_step01_cpu = {
    .name = "step01_cpu",
    .idea = "the CPU reference: all-pairs forces, float3, leapfrog, OpenMP",
    .options = NB_OPT_THREADS,
    .tree = 0,
    .probe = NULL,
    .init = cpu_init,
    .accel = cpu_accel,
    .advance = cpu_advance,
    .download = cpu_download,
    .info = cpu_info,
    .report = NULL,
    .cells = NULL,
    .destroy = cpu_destroy,
    /* the nb_state (7 floats), cpu_init()'s pos, vel, acc, tmp (float3 each)
     * and mass, --check's accelerations (3 floats) */
    .host_bytes_per_body = (double)(11 * sizeof(float) + 4 * sizeof(float3)),
    .device_bytes_per_body = 0,
};
