/* nb_physics.h -- the one body-body interaction, shared by every step.
 *
 *   a_i += m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)       (G = 1)
 *
 * With eps > 0 the j = i term is exactly zero (dx = dy = dz = 0), so no
 * branch is needed.  On the GPU 1/sqrt is rsqrtf (one MUFU.RSQ with
 * -ftz=true, ~2 ulp); on the CPU it is 1.0f/sqrtf, which the force loop's
 * -ffast-math turns into a vectorized rsqrt plus one Newton step.
 *
 * Napkin math, per interaction: 3 FADD (dx, dy, dz), 3 FFMA (r2 with eps2
 * folded in), 1 MUFU.RSQ, 3 FMUL (inv^3 * m), 3 FFMA (accumulate) = 13
 * instructions, 20 "customary" flops.
 *
 * --precision (handouts/08_precision.md) adds two variants of the same
 * formula, used by step01 and step04's tuned build: nb_interact_d, every
 * operation in double, and nb_interact_mixed, float with a Newton step on
 * 1/r^3; nb_sum2 is the compensated addition of the mixed sums. */
#ifndef NB_PHYSICS_H
#define NB_PHYSICS_H

#if defined(__CUDACC__)
#define NB_HD __host__ __device__ __forceinline__
#else
#include <math.h>
#define NB_HD static inline
#endif

NB_HD float nb_rsqrt(float x)
{
#if defined(__CUDA_ARCH__)
    return rsqrtf(x);
#else
    return 1.0f / sqrtf(x);
#endif
}

NB_HD double nb_rsqrt_d(double x)
{
#if defined(__CUDA_ARCH__)
    return rsqrt(x);
#else
    return 1.0 / sqrt(x);
#endif
}

/* Pull of body j (xj, yj, zj, mj) on position (xi, yi, zi), added to *a. */
NB_HD void nb_interact(float xi, float yi, float zi,
                       float xj, float yj, float zj, float mj, float eps2,
                       float *ax, float *ay, float *az)
{
    float dx = xj - xi, dy = yj - yi, dz = zj - zi;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));   /* 3 FFMA */
    float inv = nb_rsqrt(r2);
    float s = mj * inv * inv * inv;
    *ax += dx * s;
    *ay += dy * s;
    *az += dz * s;
}

/* The same pull, both ways (Newton's third law): body j pulls (xi, yi, zi,
 * mi) and body i pulls j with the opposite direction, weighted by mi; the
 * first added to *ax.., the second to *bx...  17 instructions for the two
 * interactions (3 FADD, 3 FFMA, MUFU.RSQ, 4 FMUL, 6 FFMA): 8.5 each, against
 * 13 for nb_interact. */
NB_HD void nb_interact_pair(float xi, float yi, float zi, float mi,
                            float xj, float yj, float zj, float mj, float eps2,
                            float *ax, float *ay, float *az, float *bx, float *by, float *bz)
{
    float dx = xj - xi, dy = yj - yi, dz = zj - zi;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float inv = nb_rsqrt(r2);
    float inv3 = inv * inv * inv;
    float si = mj * inv3, sj = mi * inv3;
    *ax += dx * si;
    *ay += dy * si;
    *az += dz * si;
    *bx -= dx * sj;
    *by -= dy * sj;
    *bz -= dz * sj;
}

/* ---- --precision double: the same formulas, every operation in double ---- */

NB_HD void nb_interact_d(double xi, double yi, double zi,
                         double xj, double yj, double zj, double mj, double eps2,
                         double *ax, double *ay, double *az)
{
    double dx = xj - xi, dy = yj - yi, dz = zj - zi;
    double r2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)));
    double inv = nb_rsqrt_d(r2);
    double s = mj * inv * inv * inv;
    *ax += dx * s;
    *ay += dy * s;
    *az += dz * s;
}

NB_HD void nb_interact_pair_d(double xi, double yi, double zi, double mi,
                              double xj, double yj, double zj, double mj, double eps2,
                              double *ax, double *ay, double *az, double *bx, double *by, double *bz)
{
    double dx = xj - xi, dy = yj - yi, dz = zj - zi;
    double r2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)));
    double inv = nb_rsqrt_d(r2);
    double inv3 = inv * inv * inv;
    double si = mj * inv3, sj = mi * inv3;
    *ax += dx * si;
    *ay += dy * si;
    *az += dz * si;
    *bx -= dx * sj;
    *by -= dy * sj;
    *bz -= dz * sj;
}

/* ---- --precision mixed: float, 1/r^3 corrected by one Newton step ----
 * The approximate y = rsqrt(r2) (MUFU.RSQ: about 2 ulp; on the CPU a
 * vector rsqrt with its own Newton step) has a relative error d whose
 * pattern repeats over bodies at the same distance; where large pulls
 * cancel (bodies near the centre of a cluster) that pattern does not
 * average out.  With e = 1 - r2 y^2 = -2d + O(d^2), y^3 (1 + 3e/2) is 1/r^3
 * to O(d^2): about one rounding of float, whatever the seed.  3 more
 * instructions than nb_interact (FFMA e, FMUL 1.5 y^3, FFMA); the pair: 20
 * instead of 17.  dx must be a difference of positions near each other or
 * near the origin (the step stores positions relative to one). */
NB_HD float nb_inv3_mixed(float r2)
{
    float y = nb_rsqrt(r2);
    float y2 = y * y;
    float y3 = y2 * y;
    float e = fmaf(-r2, y2, 1.0f);
    return fmaf(1.5f * y3, e, y3);
}

NB_HD void nb_interact_mixed(float xi, float yi, float zi,
                             float xj, float yj, float zj, float mj, float eps2,
                             float *ax, float *ay, float *az)
{
    float dx = xj - xi, dy = yj - yi, dz = zj - zi;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float s = mj * nb_inv3_mixed(r2);
    *ax += dx * s;
    *ay += dy * s;
    *az += dz * s;
}

NB_HD void nb_interact_pair_mixed(float xi, float yi, float zi, float mi,
                                  float xj, float yj, float zj, float mj, float eps2,
                                  float *ax, float *ay, float *az, float *bx, float *by, float *bz)
{
    float dx = xj - xi, dy = yj - yi, dz = zj - zi;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float inv3 = nb_inv3_mixed(r2);
    float si = mj * inv3, sj = mi * inv3;
    *ax += dx * si;
    *ay += dy * si;
    *az += dz * si;
    *bx -= dx * sj;
    *by -= dy * sj;
    *bz -= dz * sj;
}

/* *hi + *lo += x, compensated: the rounding error of hi + x is recovered
 * exactly (Knuth's TwoSum, 6 additions, whatever the magnitudes) and kept
 * in *lo.  The mixed sums add short float chunks of interactions this way,
 * so the length of a sum no longer costs digits.  Never compile it with
 * reassociation (-ffast-math): (hi - (s - b)) + (x - b) is 0 in real
 * arithmetic, and the compiler may say so. */
NB_HD void nb_sum2(float *hi, float *lo, float x)
{
    float s = *hi + x, b = s - *hi;
    *lo += (*hi - (s - b)) + (x - b);
    *hi = s;
}

#endif
