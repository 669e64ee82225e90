/* nb_validate.c -- accepted input and the non-finite watchdog (see
 * nb_validate.h for the bounds and why). */
#include <float.h>
#include <math.h>
#include "nb_error.h"
#include "nb_validate.h"

int nb_eps_check(double mass_total, double eps)
{
    double r = mass_total / (eps * eps * eps);
    if (r <= NB_MAX_M_EPS3) return NB_OK;
    return nb_fail(NB_EXIT_USAGE, "--eps %g is too small for these masses: M/eps^3 = %.3g (M = %g, "
                   "the total mass) %s float (accepted: M/eps^3 <= %g, i.e. eps >= %.3g here)",
                   eps, r, mass_total, r > FLT_MAX ? "overflows" : "leaves no margin in",
                   NB_MAX_M_EPS3, cbrt(mass_total / NB_MAX_M_EPS3) * (1 + 1e-9));
}

int nb_state_validate(const nb_state *s, double eps)
{
    static const char *const name[7] = { "mass", "x", "y", "z", "vx", "vy", "vz" };
    double mass = 0;
    for (int64_t i = 0; i < s->n; i++) {
        const float v[7] = { s->m[i], s->x[i], s->y[i], s->z[i], s->vx[i], s->vy[i], s->vz[i] };
        for (int k = 0; k < 7; k++)
            if (!isfinite(v[k]))
                return nb_fail(NB_EXIT_USAGE, "body %lld has a non-finite %s (%g)", (long long)i,
                               name[k], (double)v[k]);
        if (v[0] < 0)
            return nb_fail(NB_EXIT_USAGE, "body %lld has a negative mass (%g)", (long long)i, (double)v[0]);
        if (v[0] > 0 && v[0] < FLT_MIN)
            return nb_fail(NB_EXIT_USAGE, "body %lld has mass %g, below the smallest normal float %g "
                           "(the GPU flushes it to 0): use 0 or a larger mass", (long long)i,
                           (double)v[0], (double)FLT_MIN);
        for (int k = 1; k < 4; k++)
            if (fabs(v[k]) > NB_MAX_COORD)
                return nb_fail(NB_EXIT_USAGE, "body %lld has %s = %g, outside the accepted range "
                               "|coordinate| <= %g (separations near sqrt(FLT_MAX) = 1.8e19 overflow "
                               "float in r^2)", (long long)i, name[k], (double)v[k], NB_MAX_COORD);
        mass += v[0];
    }
    if (!(mass > 0))
        return nb_fail(NB_EXIT_USAGE, "every mass is 0: at least one body must have a mass > 0");
    return nb_eps_check(mass, eps);
}

static int first_bad(const float *a, const float *b, const float *c, int64_t n, int64_t *at,
                     const char **axis, double *val)
{
    for (int64_t i = 0; i < n; i++) {
        const float v[3] = { a[i], b[i], c[i] };
        for (int k = 0; k < 3; k++)
            if (!isfinite(v[k])) {
                *at = i;
                *axis = k == 0 ? "x" : k == 1 ? "y" : "z";
                *val = v[k];
                return 1;
            }
    }
    return 0;
}

int nb_state_finite(const nb_state *s, const char *when)
{
    int64_t ip = -1, iv = -1;
    const char *ap = "", *av = "";
    double xp = 0, xv = 0;
    int bp = first_bad(s->x, s->y, s->z, s->n, &ip, &ap, &xp);
    int bv = first_bad(s->vx, s->vy, s->vz, s->n, &iv, &av, &xv);
    if (!bp && !bv) return NB_OK;
    if (bp && (!bv || ip <= iv))
        return nb_fail(NB_EXIT_RUNTIME, "body %lld has a non-finite position (%s = %g) %s: the run "
                       "diverged", (long long)ip,
                       ap, xp, when);
    return nb_fail(NB_EXIT_RUNTIME, "body %lld has a non-finite velocity (v%s = %g) %s: the run "
                   "diverged", (long long)iv, av, xv,
                   when);
}

int nb_accel_finite(const float *ax, const float *ay, const float *az, int64_t n, const char *when)
{
    int64_t i;
    const char *a;
    double v;
    if (!first_bad(ax, ay, az, n, &i, &a, &v)) return NB_OK;
    return nb_fail(NB_EXIT_RUNTIME, "body %lld has a non-finite acceleration (a%s = %g) %s", (long long)i,
                   a, v, when);
}
