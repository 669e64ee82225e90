/* nb_ic.c -- the kit's RNG and the generated initial conditions.
 *
 * RNG: xoshiro256** (Blackman & Vigna, 2018), seeded by expanding the 64-bit
 * seed with splitmix64; portable, fast, and identical on every machine.
 * Models are computed in double and rounded to float once, then the centre
 * of mass is moved to rest at the origin (in double). */
#include <math.h>
#include <string.h>
#include "nb_error.h"
#include "nb_ic.h"

#define NB_PI 3.14159265358979323846

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void nb_rng_seed(nb_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < 4; k++) r->s[k] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t v, int k) { return (v << k) | (v >> (64 - k)); }

uint64_t nb_rng_next(nb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double nb_rng_uniform(nb_rng *r) { return (double)(nb_rng_next(r) >> 11) * 0x1.0p-53; }

/* Move the centre of mass to the origin and at rest (sums in double). */
static void to_com_frame(nb_state *s)
{
    double M = 0, c[6] = { 0 };
    for (int64_t i = 0; i < s->n; i++) {
        double m = s->m[i];
        M += m;
        c[0] += m * s->x[i];  c[1] += m * s->y[i];  c[2] += m * s->z[i];
        c[3] += m * s->vx[i]; c[4] += m * s->vy[i]; c[5] += m * s->vz[i];
    }
    if (M <= 0) return;
    for (int k = 0; k < 6; k++) c[k] /= M;
    for (int64_t i = 0; i < s->n; i++) {
        s->x[i]  = (float)(s->x[i] - c[0]);  s->y[i]  = (float)(s->y[i] - c[1]);
        s->z[i]  = (float)(s->z[i] - c[2]);  s->vx[i] = (float)(s->vx[i] - c[3]);
        s->vy[i] = (float)(s->vy[i] - c[4]); s->vz[i] = (float)(s->vz[i] - c[5]);
    }
}

/* A random direction times length: (out[0], out[1], out[2]). */
static void isotropic(nb_rng *r, double len, double out[3])
{
    double z = 1.0 - 2.0 * nb_rng_uniform(r);
    double phi = 2.0 * NB_PI * nb_rng_uniform(r);
    double rho = sqrt(fmax(0.0, 1.0 - z * z));
    out[0] = len * rho * cos(phi);
    out[1] = len * rho * sin(phi);
    out[2] = len * z;
}

/* Plummer sphere, Aarseth, Henon & Wielen (1974): radii from the inverted
 * cumulative mass, drawn from mass fractions up to 0.999 (the sphere is
 * infinite; cutting its outer 0.1% keeps E within ~0.1% of -1/4),
 * speeds by von Neumann rejection on g(q) = q^2 (1 - q^2)^(7/2), then scaled
 * from a = 1 to Henon units (r * 3 pi / 16, v / sqrt(3 pi / 16)): E = -1/4. */
static void plummer(nb_state *s, nb_rng *r)
{
    const double rscale = 3.0 * NB_PI / 16.0, vscale = 1.0 / sqrt(rscale);
    double p[3], v[3];
    for (int64_t i = 0; i < s->n; i++) {
        double rad;
        do {   /* mass fraction in (0, 0.999]: the outermost 0.1% is left out */
            double x1 = 0.999 * (1.0 - nb_rng_uniform(r));
            rad = 1.0 / sqrt(pow(x1, -2.0 / 3.0) - 1.0);
        } while (!(rad > 0.0 && isfinite(rad)));
        isotropic(r, rad, p);
        double q, y;
        do {
            q = nb_rng_uniform(r);
            y = 0.1 * nb_rng_uniform(r);
        } while (y > q * q * pow(1.0 - q * q, 3.5));
        double vesc = sqrt(2.0) * pow(1.0 + rad * rad, -0.25);
        isotropic(r, q * vesc, v);
        s->m[i] = (float)(1.0 / (double)s->n);
        s->x[i] = (float)(p[0] * rscale); s->y[i] = (float)(p[1] * rscale); s->z[i] = (float)(p[2] * rscale);
        s->vx[i] = (float)(v[0] * vscale); s->vy[i] = (float)(v[1] * vscale); s->vz[i] = (float)(v[2] * vscale);
    }
}

/* Uniform in [-1, 1]^3, at rest, equal masses (the course reports' setup). */
static void cube(nb_state *s, nb_rng *r)
{
    for (int64_t i = 0; i < s->n; i++) {
        s->m[i] = (float)(1.0 / (double)s->n);
        s->x[i] = (float)(2.0 * nb_rng_uniform(r) - 1.0);
        s->y[i] = (float)(2.0 * nb_rng_uniform(r) - 1.0);
        s->z[i] = (float)(2.0 * nb_rng_uniform(r) - 1.0);
        s->vx[i] = s->vy[i] = s->vz[i] = 0.0f;
    }
}

/* Thin disk: body 0 is a central mass 1/2; the other n-1 bodies share 1/2,
 * with uniform surface density between r = 0.1 and r = 1, thickness +-1% of
 * r, on circular orbits in the x-y plane (counter-clockwise) with the speed
 * sqrt(M(<r) / r) set by the central mass plus the disk mass inside r. */
static void disk(nb_state *s, nb_rng *r)
{
    const double rin = 0.1, rout = 1.0;
    const int64_t n = s->n;
    const double mc = n > 1 ? 0.5 : 1.0, md = 1.0 - mc;
    s->m[0] = (float)mc;
    s->x[0] = s->y[0] = s->z[0] = s->vx[0] = s->vy[0] = s->vz[0] = 0.0f;
    for (int64_t i = 1; i < n; i++) {
        double u = nb_rng_uniform(r);
        double rad = sqrt(rin * rin + u * (rout * rout - rin * rin));
        double phi = 2.0 * NB_PI * nb_rng_uniform(r);
        double z = 0.01 * rad * (2.0 * nb_rng_uniform(r) - 1.0);
        double menc = mc + md * u;
        double vc = sqrt(menc / rad);
        s->m[i] = (float)(md / (double)(n - 1));
        s->x[i] = (float)(rad * cos(phi)); s->y[i] = (float)(rad * sin(phi)); s->z[i] = (float)z;
        s->vx[i] = (float)(-vc * sin(phi)); s->vy[i] = (float)(vc * cos(phi)); s->vz[i] = 0.0f;
    }
}

/* plummer, cube or disk (the one-galaxy models; collision is built from two
 * disks in nb_ic_collision.c, the name dispatch is nb_ic_load.c). */
int nb_ic_single(const char *name, int64_t n, uint64_t seed, nb_state *s)
{
    int which = !strcmp(name, "plummer") ? 0 : !strcmp(name, "cube") ? 1 : !strcmp(name, "disk") ? 2 : -1;
    if (which < 0) return nb_fail(NB_EXIT_USAGE, "--ic: '%s' is not a one-galaxy model", name);
    int rc = nb_state_alloc(s, n);
    if (rc) return rc;
    nb_rng r;
    nb_rng_seed(&r, seed);
    if (which == 0) plummer(s, &r);
    else if (which == 1) cube(s, &r);
    else disk(s, &r);
    if (which != 1) to_com_frame(s);
    return NB_OK;
}

/* Three tight clusters near x = 0.3 (the precision lesson's offset case,
 * handouts/08_precision.md): body i belongs to cluster i mod 3, a Plummer
 * sphere of scale 1e-7 centred at (0.3 + (k - 1) 1e-5, 0, 0), k = 0, 1, 2;
 * equal masses, at rest.  Float resolves x near 0.3 only to 3e-8, and with
 * the default softening (0.01, far larger than the clusters) every body
 * feels nearly equal and opposite pulls from the other two clusters: a sum
 * of large terms that cancel, where float's rounding shows. */
int nb_ic_clusters(int64_t n, uint64_t seed, nb_state *s)
{
    int rc = nb_ic_single("plummer", n, seed, s);
    if (rc) return rc;
    for (int64_t i = 0; i < n; i++) {
        double cx = 0.3 + (double)(i % 3 - 1) * 1e-5;
        s->x[i] = (float)(cx + 1e-7 * s->x[i]);
        s->y[i] = (float)(1e-7 * s->y[i]);
        s->z[i] = (float)(1e-7 * s->z[i]);
        s->vx[i] = s->vy[i] = s->vz[i] = 0.0f;
    }
    return NB_OK;
}
