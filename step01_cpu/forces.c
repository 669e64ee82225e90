/* step01_cpu/forces.c -- the all-pairs force loop, the O(N^2) heart of step 1.
 *
 * This translation unit alone is compiled with -ffast-math (FORCE_CFLAGS in
 * common/config.mk): it allows gcc to vectorize the j-loop (a reordered
 * float reduction) and to compute 1/sqrtf as a vector rsqrt plus a Newton
 * step.  The i-loop is split over OpenMP threads.  The loads of pos[j] are
 * stride-3 (array of structs); the compiler de-interleaves them with
 * permutes, which the later GPU steps replace by better layouts. */
#include "cpu.h"
#include "nb_physics.h"

void cpu_forces(const float3 *pos, const float *mass, float3 *acc, int64_t n, float eps2,
                int threads)
{
    /* BEGIN SOLUTION
     * For every body i (an OpenMP parallel for over i), sum nb_interact() over all bodies j
     * into ax, ay, az, then store acc[i].  See handouts/01_cpu.md.
     */
    /* BLANK: (void)pos; (void)mass; (void)eps2; (void)threads; */
    /* BLANK: for (int64_t i = 0; i < n; i++) acc[i] = (float3){ 0.0f, 0.0f, 0.0f }; */
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const float xi = pos[i].x, yi = pos[i].y, zi = pos[i].z;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        #pragma omp simd reduction(+ : ax, ay, az)
        for (int64_t j = 0; j < n; j++)
            nb_interact(xi, yi, zi, pos[j].x, pos[j].y, pos[j].z, mass[j], eps2, &ax, &ay, &az);
        acc[i].x = ax;
        acc[i].y = ay;
        acc[i].z = az;
    }
    /* END SOLUTION */
}
