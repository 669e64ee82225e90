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
 * instructions, 20 "customary" flops. */
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

#endif
