/* nb_validate.h -- what a run accepts, checked in float, the precision the
 * steps compute in (README.md, Conventions: "Accepted input"), and the
 * non-finite watchdog of nb_main().
 *
 * Accepted: every mass and coordinate/velocity finite as a float; masses
 * >= 0, each non-zero one at least FLT_MIN (the GPU flushes denormals to 0),
 * at least one > 0; every coordinate within +-NB_MAX_COORD; and
 * M / eps^3 <= NB_MAX_M_EPS3 for the total mass M.  Why these bounds:
 *  - r^2 = |r_j - r_i|^2 + eps^2 must stay finite in float: separations of
 *    1.84e19 (sqrt(FLT_MAX)) and more overflow it, and 1/sqrt(inf) times the
 *    fast-math Newton step is 0 * inf = NaN (measured with step01: 1.80e19
 *    along an axis computes, 1.85e19 gives NaN for every body).  Coordinates
 *    within +-1e18 keep every separation below 3.5e18, r^2 below 1.2e37;
 *  - the self term of every body is m * (1/eps)^3 * 0: with m/eps^3 past
 *    FLT_MAX (3.4e38) it is inf * 0 = NaN; and an acceleration is at most
 *    0.385 M / eps^2 (<= 3.85 M/eps^3 for eps <= 10), so M / eps^3 <= 1e36
 *    keeps every term and every sum finite with a margin of 340 / 88. */
#ifndef NB_VALIDATE_H
#define NB_VALIDATE_H
#include <stdint.h>
#include "nb_state.h"
#ifdef __cplusplus
extern "C" {
#endif

#define NB_MAX_COORD  1e18
#define NB_MAX_M_EPS3 1e36

/* NB_EXIT_USAGE with one message ("--eps 1e-14 is too small for these
 * masses: ...") if eps is too small for the total mass M, else 0. */
int nb_eps_check(double mass_total, double eps);
/* NB_EXIT_USAGE with one message naming the body, the value and the bound
 * if the state is outside the accepted ranges (see above), else 0.
 * Bodies are counted from 0. */
int nb_state_validate(const nb_state *s, double eps);

/* The watchdog: NB_EXIT_RUNTIME with "body 17 has a non-finite position
 * (x = nan) <when>" for the first non-finite position or velocity (or
 * acceleration), else 0.  when: e.g. "after step 3". */
int nb_state_finite(const nb_state *s, const char *when);
int nb_accel_finite(const float *ax, const float *ay, const float *az, int64_t n, const char *when);

#ifdef __cplusplus
}
#endif
#endif
