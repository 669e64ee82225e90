/* nb_ic_collision.c -- the two-galaxy collision model (--ic collision).
 *
 * Two `disk` models (nb_ic.c: a central mass holding half of the galaxy and a
 * thin disk of radius 1 on circular orbits) approach each other on a bound,
 * nearly parabolic orbit, so that a run shows tidal tails and bridges:
 *
 *   galaxy A: bodies [0, n/2),    nb_ic_single("disk", n/2,     seed_A)
 *   galaxy B: bodies [n/2, n),    nb_ic_single("disk", n - n/2, seed_B)
 *
 * with seed_A, seed_B two different 64-bit hashes of seed, so the model is a
 * deterministic function of (n, seed) like the others.
 *
 *  - Heavier centres: the disk model's positions are kept, but each central
 *    body gets 80% of its galaxy's mass (the disk model gives it 50%) and
 *    the disk bodies are put back on circular orbits for that mass.  A cold
 *    disk holding half of the mass breaks into clumps within one time unit,
 *    before the galaxies meet; at 20% the encounter (tails, bridge) comes
 *    first, close to Toomre & Toomre's (1972) classic pictures.
 *  - Masses: each galaxy gets the share of the total mass 1 that its bodies
 *    are of n (M_A = (n/2)/n), so every disk body has the same mass in both.
 *    A disk of mass M keeps circular orbits if its velocities are scaled by
 *    sqrt(M) (G M / r), positions unchanged.
 *  - Orientation: A is tilted by 25 degrees about the x axis, B by 60 degrees
 *    about the axis (cos 30, sin 30, 0) of the x-y plane; both still turn
 *    counter-clockwise seen from +z, i.e. prograde with the orbit, which
 *    gives the longest tails.
 *  - Orbit: the relative orbit of the two centres lies in the x-y plane (the
 *    plane the frames show), eccentricity 0.9 (bound), pericentre 1 (the disk
 *    radius: the disks graze each other), starting at separation 3 on the way
 *    in; in units G = M = 1 the pericentre comes after about 3 time units
 *    (~300 steps at --dt 0.01).  Each centre sits at its share of the
 *    relative vector so the centre of mass is fixed.
 *  - Finally the centre of mass is moved to rest at the origin (in double).
 *
 * Small n: n = 1 is a single body of mass 1 at rest at the origin (galaxy A
 * is empty); n = 2 is two point masses on the orbit; n = 3, 4, ... are two
 * central masses with 0, 1, ... disk bodies. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nb_error.h"
#include "nb_ic.h"
#include "nb_state.h"

#define NB_PI 3.14159265358979323846

/* Separation, pericentre and eccentricity of the relative orbit. */
#define COLL_D0   3.0
#define COLL_RP   1.0
#define COLL_ECC  0.9

/* Share of each galaxy's mass in its central body. */
#define COLL_CENTRAL 0.8

/* A 64-bit mix (splitmix64's finalizer) to derive the galaxies' seeds. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Rotation matrix for angle a (radians) about the unit axis (ux, uy, uz). */
static void rotation(double ux, double uy, double uz, double a, double R[3][3])
{
    double c = cos(a), s = sin(a), t = 1.0 - c;
    R[0][0] = t * ux * ux + c;      R[0][1] = t * ux * uy - s * uz; R[0][2] = t * ux * uz + s * uy;
    R[1][0] = t * ux * uy + s * uz; R[1][1] = t * uy * uy + c;      R[1][2] = t * uy * uz - s * ux;
    R[2][0] = t * ux * uz - s * uy; R[2][1] = t * uy * uz + s * ux; R[2][2] = t * uz * uz + c;
}

static void apply(const double R[3][3], const double v[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = R[k][0] * v[0] + R[k][1] * v[1] + R[k][2] * v[2];
}

typedef struct radius_rank { double r; int64_t i; } radius_rank;

static int cmp_radius(const void *a, const void *b)
{
    const radius_rank *x = a, *y = b;
    if (x->r != y->r) return (x->r > y->r) - (x->r < y->r);
    return (x->i > y->i) - (x->i < y->i);
}

/* Give the central body (body 0) the share fc of the galaxy's mass 1 and the
 * disk bodies equal shares of the rest, then put every disk body back on a
 * circular, counter-clockwise orbit in the x-y plane about body 0 with the
 * speed sqrt(M(<r) / r), M(<r) = central mass + the disk bodies at smaller
 * radius.  Positions are kept. */
static int reweight(nb_state *g, double fc)
{
    const int64_t n = g->n;
    if (n == 1) {
        g->m[0] = 1.0f;
        return 0;
    }
    radius_rank *rr = malloc((size_t)(n - 1) * sizeof *rr);
    if (!rr)
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the collision model (%lld bodies)",
                       (long long)n);
    const double x0 = g->x[0], y0 = g->y[0], vx0 = g->vx[0], vy0 = g->vy[0], vz0 = g->vz[0];
    for (int64_t i = 1; i < n; i++) {
        double dx = g->x[i] - x0, dy = g->y[i] - y0;
        rr[i - 1].r = sqrt(dx * dx + dy * dy);
        rr[i - 1].i = i;
    }
    qsort(rr, (size_t)(n - 1), sizeof *rr, cmp_radius);
    const double md = (1.0 - fc) / (double)(n - 1);
    g->m[0] = (float)fc;
    for (int64_t k = 0; k < n - 1; k++) {
        int64_t i = rr[k].i;
        double r = rr[k].r, dx = g->x[i] - x0, dy = g->y[i] - y0;
        double vc = r > 0.0 ? sqrt((fc + md * (double)k) / r) : 0.0;
        g->m[i]  = (float)md;
        g->vx[i] = (float)(vx0 - (r > 0.0 ? vc * dy / r : 0.0));
        g->vy[i] = (float)(vy0 + (r > 0.0 ? vc * dx / r : 0.0));
        g->vz[i] = (float)vz0;
    }
    free(rr);
    return 0;
}

/* Copy galaxy g (a disk of mass 1) into s at body 'first': mass scaled to M,
 * velocities by sqrt(M), rotated by R, moved to centre pos/vel. */
static void place(nb_state *s, int64_t first, const nb_state *g, double M,
                  const double R[3][3], const double pos[3], const double vel[3])
{
    double vs = sqrt(M);
    for (int64_t i = 0; i < g->n; i++) {
        double p[3] = { g->x[i], g->y[i], g->z[i] }, v[3] = { g->vx[i], g->vy[i], g->vz[i] };
        double pr[3], vr[3];
        apply(R, p, pr);
        apply(R, v, vr);
        int64_t j = first + i;
        s->m[j]  = (float)((double)g->m[i] * M);
        s->x[j]  = (float)(pr[0] + pos[0]);
        s->y[j]  = (float)(pr[1] + pos[1]);
        s->z[j]  = (float)(pr[2] + pos[2]);
        s->vx[j] = (float)(vr[0] * vs + vel[0]);
        s->vy[j] = (float)(vr[1] * vs + vel[1]);
        s->vz[j] = (float)(vr[2] * vs + vel[2]);
    }
}

int nb_ic_collision(int64_t n, uint64_t seed, nb_state *s)
{
    memset(s, 0, sizeof *s);
    if (n < 1)
        return nb_fail(NB_EXIT_USAGE, "number of bodies must be >= 1 (got %lld)", (long long)n);
    const int64_t na = n / 2, nb = n - na;
    const double Ma = (double)na / (double)n, Mb = (double)nb / (double)n;
    nb_state ga, gb;
    memset(&ga, 0, sizeof ga);
    memset(&gb, 0, sizeof gb);
    int rc = nb_state_alloc(s, n);
    if (!rc && na > 0)
        rc = nb_ic_single("disk", na, mix64(seed ^ 0x636F6C6C69736E41ULL), &ga);
    if (!rc)
        rc = nb_ic_single("disk", nb, mix64(seed ^ 0x636F6C6C69736E42ULL), &gb);
    if (!rc && na > 0)
        rc = reweight(&ga, COLL_CENTRAL);
    if (!rc)
        rc = reweight(&gb, COLL_CENTRAL);
    if (rc) {
        nb_state_free(&gb);
        nb_state_free(&ga);
        nb_state_free(s);
        return rc;
    }

    /* Relative orbit (of B about A), G = M = 1: at distance d on an orbit of
     * eccentricity e and pericentre rp, h = sqrt(M rp (1 + e)),
     * v^2 = M (2/d - 1/a) with a = rp / (1 - e). Radial velocity < 0: in. */
    const double M = 1.0, d = COLL_D0, rp = COLL_RP, e = COLL_ECC;
    const double a = rp / (1.0 - e), h = sqrt(M * rp * (1.0 + e));
    const double v2 = M * (2.0 / d - 1.0 / a), vt = h / d;
    const double vr = -sqrt(fmax(0.0, v2 - vt * vt));
    const double rel_p[3] = { d, 0.0, 0.0 }, rel_v[3] = { vr, vt, 0.0 };

    double Ra[3][3], Rb[3][3];
    rotation(1.0, 0.0, 0.0, 25.0 * NB_PI / 180.0, Ra);
    rotation(cos(NB_PI / 6.0), sin(NB_PI / 6.0), 0.0, 60.0 * NB_PI / 180.0, Rb);

    if (na == 0) {                      /* n = 1: one body at rest at the origin */
        const double zero[3] = { 0.0, 0.0, 0.0 };
        place(s, 0, &gb, 1.0, Rb, zero, zero);
    } else {
        double pa[3], va[3], pb[3], vb[3];
        for (int k = 0; k < 3; k++) {   /* each centre at its share of the relative vector */
            pa[k] = -Mb * rel_p[k];  va[k] = -Mb * rel_v[k];
            pb[k] =  Ma * rel_p[k];  vb[k] =  Ma * rel_v[k];
        }
        place(s, 0, &ga, Ma, Ra, pa, va);
        place(s, na, &gb, Mb, Rb, pb, vb);
    }
    nb_state_free(&ga);
    nb_state_free(&gb);

    /* Centre of mass to rest at the origin (the disks' own are at rest up
     * to float rounding; sums in double). */
    double mt = 0.0, c[6] = { 0.0 };
    for (int64_t i = 0; i < n; i++) {
        double m = s->m[i];
        mt += m;
        c[0] += m * s->x[i];  c[1] += m * s->y[i];  c[2] += m * s->z[i];
        c[3] += m * s->vx[i]; c[4] += m * s->vy[i]; c[5] += m * s->vz[i];
    }
    for (int k = 0; k < 6; k++)
        c[k] /= mt;
    for (int64_t i = 0; i < n; i++) {
        s->x[i]  = (float)(s->x[i] - c[0]);  s->y[i]  = (float)(s->y[i] - c[1]);
        s->z[i]  = (float)(s->z[i] - c[2]);  s->vx[i] = (float)(s->vx[i] - c[3]);
        s->vy[i] = (float)(s->vy[i] - c[4]); s->vz[i] = (float)(s->vz[i] - c[5]);
    }
    return NB_OK;
}
