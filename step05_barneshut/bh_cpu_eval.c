/* bh_cpu_eval.c -- step05_barneshut --cpu: a group's interaction list,
 * evaluated (see bh_cpu_eval.h).
 *
 * This translation unit alone is compiled with -ffast-math (FORCE_SRCS in
 * the step's Makefile, FORCE_CFLAGS in common/config.mk), for the same
 * reason as step01's force loop (step01_cpu/forces.c): it lets gcc
 * vectorize the loop over the list (a reordered float reduction) and compute
 * 1/sqrtf as a vector rsqrt plus a Newton step.  The walk that builds the
 * list stays in bh_cpu.c with IEEE semantics: its opening test bh_far()
 * relies on comparisons with infinity that -ffinite-math-only would fold
 * away.
 *
 * The loop is step01's, on a smaller block: for each body of the group, sum
 * nb_interact() over the list, the list in structure of arrays (four
 * unit-stride loads per vector of sources, where step01 de-interleaves
 * float3).  Napkin math: a group of 32 bodies and a list of a few thousand
 * sources is a few hundred thousand interactions on a list of a few tens of
 * KiB, read 32 times from L1/L2: compute-bound like step01. */
#include "bh_cpu_eval.h"
#include "nb_physics.h"

void bh_eval(const float *x, const float *y, const float *z, int cnt, const bh_list *l,
             float eps2, float *ax, float *ay, float *az)
{
    const float *lx = l->x, *ly = l->y, *lz = l->z, *lm = l->m;
    const int64_t len = l->len;
    for (int j = 0; j < cnt; j++) {
        const float xi = x[j], yi = y[j], zi = z[j];
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        #pragma omp simd reduction(+ : sx, sy, sz)
        for (int64_t k = 0; k < len; k++)
            nb_interact(xi, yi, zi, lx[k], ly[k], lz[k], lm[k], eps2, &sx, &sy, &sz);
        ax[j] = sx;
        ay[j] = sy;
        az[j] = sz;
    }
}
