/* nb_verify.c -- the independent references: double-precision direct sum,
 * error statistics, energy, momentum, virial ratio, reference leapfrog.
 * Everything here is plain double arithmetic without fast-math, so it is the
 * yardstick for every float step. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_timer.h"
#include "nb_options.h"
#include "nb_verify.h"

/* Pair interactions below which a loop runs on one thread. */
#define NB_OMP_MIN_WORK 65536

/* The threads of the reference's loops: nb_ref_set_threads(), else
 * OpenMP's default (OMP_NUM_THREADS, or every core). */
static int ref_threads;

void nb_ref_set_threads(int threads) { ref_threads = threads > 0 ? threads : 0; }

static int team(void) { return ref_threads > 0 ? ref_threads : omp_get_max_threads(); }

static uint64_t sample_seed;          /* nb_ref_sample_seed() */
void nb_ref_sample_seed(uint64_t seed) { sample_seed = seed; }

static uint64_t mix64(uint64_t x)       /* splitmix64's finalizer */
{ x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL; x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL; return x ^ (x >> 31); }

int64_t nb_ref_sample(int64_t n, int64_t max_samples, int64_t *idx)
{
    const int64_t m = n <= max_samples ? n : max_samples;
    for (int64_t k = 0; k < m; k++)   /* all; evenly spread, the ends included; one of each m-th, seeded */
        idx[k] = n <= max_samples ? k
               : !sample_seed ? (int64_t)((double)k * (double)(n - 1) / (double)(m - 1) + 0.5)
               : k * n / m + (int64_t)(mix64(sample_seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1)) %
                                       (uint64_t)((k + 1) * n / m - k * n / m));
    return m;
}

/* The direct sum of targets idx[0..count) against all n sources at
 * positions X, Y, Z (float or double arrays: one loop, written once), and
 * the size of the pulls on each target where pull is not NULL. */
#define NB_REF_SUM(X, Y, Z)                                                                            \
    do {                                                                                               \
        const double eps2 = eps * eps;                                                                 \
        /* threads only where the work pays for them: a parallel region costs                          \
         * microseconds, far more on a machine whose cores are all busy */                            \
        _Pragma("omp parallel for schedule(dynamic, 4) num_threads(team()) if (count * n > NB_OMP_MIN_WORK)") \
        for (int64_t k = 0; k < count; k++) {                                                          \
            int64_t i = idx[k];                                                                        \
            double xi = X[i], yi = Y[i], zi = Z[i];                                                    \
            double sx = 0, sy = 0, sz = 0, sp = 0;                                                     \
            for (int64_t j = 0; j < n; j++) {                                                          \
                double dx = (double)X[j] - xi, dy = (double)Y[j] - yi, dz = (double)Z[j] - zi;         \
                double d2 = dx * dx + dy * dy + dz * dz, r2 = d2 + eps2;                               \
                double w = (double)m[j] / (r2 * sqrt(r2));                                             \
                sx += dx * w; sy += dy * w; sz += dz * w;                                              \
                if (pull) sp += sqrt(d2) * w;                                                          \
            }                                                                                          \
            ax[k] = sx; ay[k] = sy; az[k] = sz;                                                        \
            if (pull) pull[k] = sp;                                                                    \
        }                                                                                              \
    } while (0)

void nb_ref_accel_pulls(const nb_state *s, double eps, const int64_t *idx, int64_t count,
                        double *ax, double *ay, double *az, double *pull)
{
    const int64_t n = s->n;
    const float *m = s->m;
    NB_REF_SUM(s->x, s->y, s->z);
}

void nb_ref_accel(const nb_state *s, double eps, const int64_t *idx, int64_t count,
                  double *ax, double *ay, double *az)
{
    nb_ref_accel_pulls(s, eps, idx, count, ax, ay, az, NULL);
}

static void ref_pulls64(const nb_state64 *s, double eps, const int64_t *idx, int64_t count,
                        double *ax, double *ay, double *az, double *pull)
{
    const int64_t n = s->n;
    const float *m = s->m;
    NB_REF_SUM(s->x, s->y, s->z);
}

void nb_ref_accel64(const nb_state64 *s, double eps, const int64_t *idx, int64_t count,
                    double *ax, double *ay, double *az)
{
    ref_pulls64(s, eps, idx, count, ax, ay, az, NULL);
}

double nb_rel_error(double dx, double dy, double dz, double rx, double ry, double rz, double pull)
{
    double diff = sqrt(dx * dx + dy * dy + dz * dz);
    double ref = sqrt(rx * rx + ry * ry + rz * rz);
    double scale = ref > NB_REF_CANCEL * pull ? ref : NB_REF_CANCEL * pull;
    return scale > 0 ? diff / scale : diff;
}

/* The errors of a_i (float: af, or double: ad) against the reference on a
 * sample of at most max_samples targets; ref computes the reference and
 * the pulls. */
static int errors(int64_t n, int64_t max_samples, const void *st, double eps,
                  void (*ref)(const void *, double, const int64_t *, int64_t, double *, double *, double *,
                              double *),
                  const float *const af[3], const double *const ad[3], nb_errstats *out)
{
    memset(out, 0, sizeof *out);
    int64_t m = n < max_samples ? n : max_samples;
    int64_t *idx = malloc((size_t)m * sizeof *idx);
    double *r = malloc((size_t)m * 5 * sizeof *r);
    if (!idx || !r) {
        free(idx); free(r);
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the reference (%lld samples)", (long long)m);
    }
    m = nb_ref_sample(n, max_samples, idx);
    double *rx = r, *ry = r + m, *rz = r + 2 * m, *pull = r + 3 * m, *e = r + 4 * m;
    ref(st, eps, idx, m, rx, ry, rz, pull);
    for (int64_t k = 0; k < m; k++) {
        int64_t i = idx[k];
        double a[3] = { af ? af[0][i] : ad[0][i], af ? af[1][i] : ad[1][i], af ? af[2][i] : ad[2][i] };
        double ek = nb_rel_error(a[0] - rx[k], a[1] - ry[k], a[2] - rz[k], rx[k], ry[k], rz[k], pull[k]);
        if (!isfinite(ek)) { out->nonfinite++; ek = INFINITY; }
        e[k] = ek;
    }
    out->count = m;
    out->median = nb_percentile(e, m, 0.5);
    out->p99 = nb_percentile(e, m, 0.99);
    out->max = e[m - 1];                      /* sorted by nb_percentile */
    free(idx); free(r);
    return NB_OK;
}

static void ref32(const void *s, double eps, const int64_t *idx, int64_t count, double *ax, double *ay,
                  double *az, double *pull)
{
    nb_ref_accel_pulls(s, eps, idx, count, ax, ay, az, pull);
}

static void ref64(const void *s, double eps, const int64_t *idx, int64_t count, double *ax, double *ay,
                  double *az, double *pull)
{
    ref_pulls64(s, eps, idx, count, ax, ay, az, pull);
}

int nb_accel_errors(const nb_state *s, double eps, const float *ax, const float *ay,
                    const float *az, int64_t max_samples, nb_errstats *out)
{
    const float *const a[3] = { ax, ay, az };
    return errors(s->n, max_samples, s, eps, ref32, a, NULL, out);
}

int nb_accel_errors64(const nb_state64 *s, double eps, const double *ax, const double *ay,
                      const double *az, int64_t max_samples, nb_errstats *out)
{
    const double *const a[3] = { ax, ay, az };
    return errors(s->n, max_samples, s, eps, ref64, NULL, a, out);
}

int nb_within_tolerance(const nb_errstats *st, const nb_tolerance *tol)
{
    if (st->count <= 0 || st->nonfinite) return 0;
    if (tol->median > 0 && !(st->median <= tol->median)) return 0;
    if (tol->p99 > 0 && !(st->p99 <= tol->p99)) return 0;
    if (tol->max > 0 && !(st->max <= tol->max)) return 0;
    return 1;
}

nb_tolerance nb_tolerance_for(int tree, double theta)
{
    nb_tolerance t = { 0, 0, 0, NULL };
    if (tree && theta > 0) {
        t.median = NB_TOL_TREE_MEDIAN;
        t.p99 = NB_TOL_TREE_P99;
        t.why = "tree code at theta > 0: median <= 1e-3, p99 <= 1e-2 (monopole truncation error)";
    } else {
        t.max = NB_TOL_ALLPAIRS_MAX;
        t.why = "all-pairs float32, N <= 65536: max <= 1e-4 (measured float32 errors are ~1e-6)";
    }
    return t;
}

nb_tolerance nb_tolerance_for_n(int tree, double theta, int64_t n)
{
    if (tree || n <= NB_TOL_ALLPAIRS_MAX_N) return nb_tolerance_for(tree, theta);
    nb_tolerance t = { NB_TOL_TREE_MEDIAN, NB_TOL_TREE_P99, 0,
                       "all-pairs float32 above N = 65536: median <= 1e-3, p99 <= 1e-2 "
                       "(float32 sums of N terms lose digits as N grows)" };
    return t;
}

nb_tolerance nb_tolerance_for_precision(int tree, double theta, int64_t n, int precision)
{
    nb_tolerance t = { 0, 0, 0, NULL };
    if (tree || precision == NB_PREC_SINGLE) return nb_tolerance_for_n(tree, theta, n);
    if (precision == NB_PREC_MIXED) {
        t = nb_tolerance_for_n(0, 0, n);
        t.why = n <= NB_TOL_ALLPAIRS_MAX_N
                    ? "all-pairs mixed, float interactions: single's bound, max <= 1e-4"
                    : "all-pairs mixed, float interactions: single's bounds, median <= 1e-3, p99 <= 1e-2";
        return t;
    }
    t.max = NB_TOL_DOUBLE_MAX;
    t.why = "all-pairs double: max <= 1e-10 (double sums lose ~1e-15; a float operation costs >= 1e-8)";
    return t;
}

/* E = K + W of masses m, positions X, Y, Z and velocities VX, VY, VZ
 * (float or double arrays), into e[0] = K, e[1] = W. */
#define NB_ENERGY(X, Y, Z, VX, VY, VZ)                                                                 \
    do {                                                                                               \
        const double eps2 = eps * eps;                                                                 \
        double k = 0, w = 0;                                                                           \
        for (int64_t i = 0; i < n; i++)                                                                \
            k += 0.5 * m[i] * ((double)VX[i] * VX[i] + (double)VY[i] * VY[i] + (double)VZ[i] * VZ[i]); \
        _Pragma("omp parallel for reduction(+ : w) schedule(dynamic, 16) num_threads(team()) if (n * n > 2 * NB_OMP_MIN_WORK)") \
        for (int64_t i = 0; i < n; i++) {                                                              \
            double wi = 0, xi = X[i], yi = Y[i], zi = Z[i];                                            \
            for (int64_t j = i + 1; j < n; j++) {                                                      \
                double dx = X[j] - xi, dy = Y[j] - yi, dz = Z[j] - zi;                                 \
                wi += (double)m[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);                         \
            }                                                                                          \
            w -= m[i] * wi;                                                                            \
        }                                                                                              \
        e[0] = k;                                                                                      \
        e[1] = w;                                                                                      \
    } while (0)

double nb_energy(const nb_state *s, double eps, double *kin, double *pot)
{
    const int64_t n = s->n;
    const float *m = s->m;
    double e[2];
    NB_ENERGY(s->x, s->y, s->z, s->vx, s->vy, s->vz);
    if (kin) *kin = e[0];
    if (pot) *pot = e[1];
    return e[0] + e[1];
}

double nb_energy64(const nb_state64 *s, double eps, double *kin, double *pot)
{
    const int64_t n = s->n;
    const float *m = s->m;
    double e[2];
    NB_ENERGY(s->x, s->y, s->z, s->vx, s->vy, s->vz);
    if (kin) *kin = e[0];
    if (pot) *pot = e[1];
    return e[0] + e[1];
}

int nb_state64_from(nb_state64 *d, const nb_state *s)
{
    memset(d, 0, sizeof *d);
    double *b = malloc((size_t)(s->n > 0 ? s->n : 1) * 6 * sizeof *b);
    if (!b) return nb_fail(NB_EXIT_RUNTIME, "out of host memory: %lld bodies in double need %.1f MiB",
                           (long long)s->n, 48.0 * (double)s->n / 1048576.0);
    const int64_t n = s->n;
    d->n = n;
    d->m = s->m;
    d->x = b; d->y = b + n; d->z = b + 2 * n; d->vx = b + 3 * n; d->vy = b + 4 * n; d->vz = b + 5 * n;
    for (int64_t i = 0; i < n; i++) {
        d->x[i] = s->x[i]; d->y[i] = s->y[i]; d->z[i] = s->z[i];
        d->vx[i] = s->vx[i]; d->vy[i] = s->vy[i]; d->vz[i] = s->vz[i];
    }
    return NB_OK;
}

void nb_state64_free(nb_state64 *d)
{
    free(d->x);
    memset(d, 0, sizeof *d);
}

void nb_momentum(const nb_state *s, double p[3])
{
    p[0] = p[1] = p[2] = 0;
    for (int64_t i = 0; i < s->n; i++) {
        p[0] += (double)s->m[i] * s->vx[i];
        p[1] += (double)s->m[i] * s->vy[i];
        p[2] += (double)s->m[i] * s->vz[i];
    }
}

double nb_momentum_scale(const nb_state *s)
{
    double sum = 0;
    for (int64_t i = 0; i < s->n; i++)
        sum += (double)s->m[i] * sqrt((double)s->vx[i] * s->vx[i] + (double)s->vy[i] * s->vy[i] +
                                      (double)s->vz[i] * s->vz[i]);
    return sum;
}

double nb_virial_ratio(const nb_state *s, double eps)
{
    double k, w;
    nb_energy(s, eps, &k, &w);
    return w != 0 ? 2.0 * k / fabs(w) : 0.0;
}

int nb_ref_leapfrog64(nb_state64 *s, double eps, double dt, int steps)
{
    const int64_t n = s->n;
    double *b = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *b);
    if (!b) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    double *x = s->x, *y = s->y, *z = s->z, *vx = s->vx, *vy = s->vy, *vz = s->vz;
    double *ax = b, *ay = b + n, *az = b + 2 * n;
    const double eps2 = eps * eps;
    for (int st = 0; st <= steps; st++) {
        /* a(x), in double, from the double positions */
        #pragma omp parallel for schedule(static) num_threads(team()) if (n * n > NB_OMP_MIN_WORK)
        for (int64_t i = 0; i < n; i++) {
            double sx = 0, sy = 0, sz = 0;
            for (int64_t j = 0; j < n; j++) {
                double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
                double r2 = dx * dx + dy * dy + dz * dz + eps2;
                double w = (double)s->m[j] / (r2 * sqrt(r2));
                sx += dx * w; sy += dy * w; sz += dz * w;
            }
            ax[i] = sx; ay[i] = sy; az[i] = sz;
        }
        if (st > 0)
            for (int64_t i = 0; i < n; i++) {           /* closing kick */
                vx[i] += 0.5 * dt * ax[i]; vy[i] += 0.5 * dt * ay[i]; vz[i] += 0.5 * dt * az[i];
            }
        if (st == steps) break;
        for (int64_t i = 0; i < n; i++) {               /* kick, drift */
            vx[i] += 0.5 * dt * ax[i]; vy[i] += 0.5 * dt * ay[i]; vz[i] += 0.5 * dt * az[i];
            x[i] += dt * vx[i]; y[i] += dt * vy[i]; z[i] += dt * vz[i];
        }
    }
    free(b);
    return NB_OK;
}

int nb_ref_leapfrog(nb_state *s, double eps, double dt, int steps)
{
    nb_state64 d;
    int rc = nb_state64_from(&d, s);
    if (!rc) rc = nb_ref_leapfrog64(&d, eps, dt, steps);
    for (int64_t i = 0; !rc && i < s->n; i++) {
        s->x[i] = (float)d.x[i]; s->y[i] = (float)d.y[i]; s->z[i] = (float)d.z[i];
        s->vx[i] = (float)d.vx[i]; s->vy[i] = (float)d.vy[i]; s->vz[i] = (float)d.vz[i];
    }
    nb_state64_free(&d);
    return rc;
}
