/* step01_cpu/precision/wide.c -- step 01 in double and in mixed precision
 * (--precision double | mixed; handouts/08_precision.md).
 *
 * nb_main() runs this table instead of step 01's own when --precision is
 * not single (nb_step.precision_variant, set by precision.c): the same
 * options, layout (arrays of structs) and leapfrog as ../cpu.c and
 * ../forces.c, with other numbers:
 *  double  positions, velocities, accelerations and every interaction and
 *          sum in double (nb_interact_d);
 *  mixed   the state in double; before each force computation the positions
 *          are taken relative to an origin and rounded to float (rel), and
 *          the O(N^2) loop runs in float on those (nb_interact_mixed: 1/r^3
 *          with a Newton step), summing chunks of MIXED_CHUNK sources in
 *          float and adding each chunk's sum with compensation (nb_sum2).
 * The origin, per axis, is 0 where the bodies' extent contains 0 (the
 * floats are then exact) and else the float nearest the middle of it: a
 * system far from 0 (the offset clusters near x = 0.3) keeps float's
 * resolution around its own centre, not around 0.
 * The force loops and the leapfrog are the optional exercise of
 * handouts/08_precision.md (solution regions); this file is built without
 * -ffast-math (nb_sum2 must not be reassociated), with -fno-math-errno so
 * that sqrt vectorizes (Makefile). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nb_physics.h"
#include "nb_step.h"
#include "precision.h"

#define MIXED_CHUNK 256              /* sources per float chunk of a mixed sum */

typedef struct double3 { double x, y, z; } double3;

typedef struct wide_ctx {
    int64_t n;
    int     precision, threads;
    double  eps2, dt;
    double3 *pos, *vel, *acc, *tmp;  /* the state and a(x), in double */
    float   *mass;
    double   origin[3];              /* mixed: rel = pos - origin, in float */
    float3  *rel;
} wide_ctx;

/* acc[i] = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps2)^(3/2) in double. */
static int forces_double(const double3 *pos, const float *mass, double3 *acc, int64_t n, double eps2,
                         int threads)
{
    /* BEGIN SOLUTION
     * Your force loop of forces.c, in double: the positions, eps2, the three sums and the
     * interaction (nb_interact_d).  See handouts/08_precision.md.
     */
    /* BLANK: (void)pos; (void)mass; (void)acc; (void)n; (void)eps2; (void)threads; */
    /* BLANK: return nb_todo("forces_double() in wide.c (an optional exercise)", "08_precision"); */
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const double xi = pos[i].x, yi = pos[i].y, zi = pos[i].z;
        double sx = 0.0, sy = 0.0, sz = 0.0;
        #pragma omp simd reduction(+ : sx, sy, sz)
        for (int64_t j = 0; j < n; j++)
            nb_interact_d(xi, yi, zi, pos[j].x, pos[j].y, pos[j].z, mass[j], eps2, &sx, &sy, &sz);
        acc[i] = (double3){ sx, sy, sz };
    }
    return NB_OK;
    /* END SOLUTION */
}

/* The same in mixed precision: the positions relative to the origin,
 * rounded to float (rel); then each chunk of MIXED_CHUNK sources summed in
 * float with nb_interact_mixed, the chunk sums added with compensation
 * (hi + lo), the total in double. */
static int forces_mixed(const double3 *pos, const double origin[3], float3 *rel, const float *mass,
                        double3 *acc, int64_t n, float eps2, int threads)
{
    /* BEGIN SOLUTION
     * rel[i] = pos[i] - origin, the difference taken in double, then rounded to float.  For every
     * body i: for each chunk of MIXED_CHUNK bodies j, a float sum of nb_interact_mixed()
     * (vectorized); add each chunk's sum to a compensated total with nb_sum2(&hi, &lo, chunk);
     * acc[i] = hi + lo in double.  See handouts/08_precision.md.
     */
    /* BLANK: (void)pos; (void)origin; (void)rel; (void)mass; (void)acc; (void)n; (void)eps2; (void)threads; */
    /* BLANK: return nb_todo("forces_mixed() in wide.c (an optional exercise)", "08_precision"); */
    for (int64_t i = 0; i < n; i++)
        rel[i] = (float3){ (float)(pos[i].x - origin[0]), (float)(pos[i].y - origin[1]),
                           (float)(pos[i].z - origin[2]) };
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const float xi = rel[i].x, yi = rel[i].y, zi = rel[i].z;
        float hx = 0.0f, hy = 0.0f, hz = 0.0f, lx = 0.0f, ly = 0.0f, lz = 0.0f;
        for (int64_t j0 = 0; j0 < n; j0 += MIXED_CHUNK) {
            const int64_t j1 = j0 + MIXED_CHUNK < n ? j0 + MIXED_CHUNK : n;
            float cx = 0.0f, cy = 0.0f, cz = 0.0f;
            #pragma omp simd reduction(+ : cx, cy, cz)
            for (int64_t j = j0; j < j1; j++)
                nb_interact_mixed(xi, yi, zi, rel[j].x, rel[j].y, rel[j].z, mass[j], eps2, &cx, &cy, &cz);
            nb_sum2(&hx, &lx, cx);
            nb_sum2(&hy, &ly, cy);
            nb_sum2(&hz, &lz, cz);
        }
        acc[i] = (double3){ (double)hx + lx, (double)hy + ly, (double)hz + lz };
    }
    return NB_OK;
    /* END SOLUTION */
}

/* a(x) of the current state into acc, in the run's precision. */
static int forces(wide_ctx *c, double3 *acc)
{
    if (c->precision == NB_PREC_DOUBLE)
        return forces_double(c->pos, c->mass, acc, c->n, c->eps2, c->threads);
    return forces_mixed(c->pos, c->origin, c->rel, c->mass, acc, c->n, (float)c->eps2, c->threads);
}

/* The origin of the mixed positions, per axis: 0 where [lo, hi] holds 0,
 * else the float nearest (lo + hi) / 2 -- a float, so that the differences
 * of float positions near it stay exact. */
static void pick_origin(const nb_state *s, double origin[3])
{
    const float *v[3] = { s->x, s->y, s->z };
    for (int q = 0; q < 3; q++) {
        double lo = v[q][0], hi = v[q][0];
        for (int64_t i = 1; i < s->n; i++) {
            lo = fmin(lo, v[q][i]);
            hi = fmax(hi, v[q][i]);
        }
        origin[q] = lo <= 0.0 && hi >= 0.0 ? 0.0 : (double)(float)(0.5 * (lo + hi));
    }
}

static void wide_destroy(void *p)
{
    wide_ctx *c = p;
    if (!c) return;
    free(c->pos); free(c->vel); free(c->acc); free(c->tmp); free(c->mass); free(c->rel);
    free(c);
}

static int wide_init(void **ctx, const nb_state *s, const nb_options *o)
{
    wide_ctx *c = calloc(1, sizeof *c);
    *ctx = c;                        /* the caller destroys it, also after a failure */
    if (!c) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int64_t n = s->n;
    c->n = n;
    c->precision = o->precision;
    c->threads = o->threads;
    c->eps2 = o->eps * o->eps;
    c->dt = o->dt;
    c->pos = malloc((size_t)n * sizeof *c->pos);
    c->vel = malloc((size_t)n * sizeof *c->vel);
    c->acc = malloc((size_t)n * sizeof *c->acc);
    c->tmp = malloc((size_t)n * sizeof *c->tmp);
    c->mass = malloc((size_t)n * sizeof *c->mass);
    c->rel = malloc((size_t)n * sizeof *c->rel);
    if (!c->pos || !c->vel || !c->acc || !c->tmp || !c->mass || !c->rel)
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld bodies in double (%.1f MiB)",
                       (long long)n, (double)n * (4 * sizeof(double3) + sizeof(float) + sizeof(float3)) /
                                     1048576.0);
    for (int64_t i = 0; i < n; i++) {
        c->pos[i] = (double3){ s->x[i], s->y[i], s->z[i] };
        c->vel[i] = (double3){ s->vx[i], s->vy[i], s->vz[i] };
        c->mass[i] = s->m[i];
    }
    pick_origin(s, c->origin);
    return forces(c, c->acc);        /* a(x0) for the first kick */
}

static int wide_accel64(void *p, double *ax, double *ay, double *az)
{
    wide_ctx *c = p;
    int rc = forces(c, c->tmp);
    for (int64_t i = 0; !rc && i < c->n; i++) {
        ax[i] = c->tmp[i].x; ay[i] = c->tmp[i].y; az[i] = c->tmp[i].z;
    }
    return rc;
}

static int wide_accel(void *p, float *ax, float *ay, float *az)
{
    wide_ctx *c = p;
    int rc = forces(c, c->tmp);
    for (int64_t i = 0; !rc && i < c->n; i++) {
        ax[i] = (float)c->tmp[i].x; ay[i] = (float)c->tmp[i].y; az[i] = (float)c->tmp[i].z;
    }
    return rc;
}

static int wide_advance(void *p, int steps, nb_step_time *times)
{
    wide_ctx *c = p;
    /* BEGIN SOLUTION
     * Your leapfrog of cpu.c with the state in double: kick and drift in double, a(x) with
     * forces(c, c->acc) (which also takes mixed's positions relative to the origin), the
     * closing kick; the same timing.  See handouts/08_precision.md.
     */
    /* BLANK: (void)c; (void)steps; (void)times; */
    /* BLANK: return nb_todo("wide_advance() in wide.c (an optional exercise)", "08_precision"); */
    const double h = 0.5 * c->dt, dt = c->dt;
    for (int k = 0; k < steps; k++) {
        double t0 = nb_now_ms();
        for (int64_t i = 0; i < c->n; i++) {       /* kick, drift: in double */
            double3 *v = &c->vel[i], *x = &c->pos[i];
            const double3 a = c->acc[i];
            v->x += h * a.x; v->y += h * a.y; v->z += h * a.z;
            x->x += dt * v->x; x->y += dt * v->y; x->z += dt * v->z;
        }
        double t1 = nb_now_ms();
        int rc = forces(c, c->acc);
        if (rc) return rc;
        double t2 = nb_now_ms();
        for (int64_t i = 0; i < c->n; i++) {       /* the closing kick */
            double3 *v = &c->vel[i];
            v->x += h * c->acc[i].x; v->y += h * c->acc[i].y; v->z += h * c->acc[i].z;
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

static int wide_download(void *p, nb_state *s)
{
    wide_ctx *c = p;
    for (int64_t i = 0; i < c->n; i++) {
        s->x[i] = (float)c->pos[i].x; s->y[i] = (float)c->pos[i].y; s->z[i] = (float)c->pos[i].z;
        s->vx[i] = (float)c->vel[i].x; s->vy[i] = (float)c->vel[i].y; s->vz[i] = (float)c->vel[i].z;
        s->m[i] = c->mass[i];
    }
    return NB_OK;
}

static int wide_state64(void *p, double *x, double *y, double *z, double *vx, double *vy, double *vz)
{
    wide_ctx *c = p;
    for (int64_t i = 0; i < c->n; i++) {
        x[i] = c->pos[i].x; y[i] = c->pos[i].y; z[i] = c->pos[i].z;
        vx[i] = c->vel[i].x; vy[i] = c->vel[i].y; vz[i] = c->vel[i].z;
    }
    return NB_OK;
}

static void wide_info(void *p, nb_run_info *info)
{
    wide_ctx *c = p;
    nb_cpu_model(info->device, sizeof info->device);
    info->sms = c->threads;
}

const nb_step nb_step01_wide = {
    .name = "step01_cpu",
    .idea = "the CPU reference: all-pairs forces, float3, leapfrog, OpenMP",
    .options = NB_OPT_THREADS | NB_OPT_PRECISION,
    .init = wide_init,
    .accel = wide_accel,
    .advance = wide_advance,
    .download = wide_download,
    .info = wide_info,
    .destroy = wide_destroy,
    /* the nb_state (7 floats), pos, vel, acc, tmp (double3 each), mass, rel
     * (float3), --check's double state and accelerations (9 doubles) */
    .host_bytes_per_body = (double)(8 * sizeof(float) + 4 * sizeof(double3) + sizeof(float3) +
                                    9 * sizeof(double)),
    .state64 = wide_state64,
    .accel64 = wide_accel64,
};
