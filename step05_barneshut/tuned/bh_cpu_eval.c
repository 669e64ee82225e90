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
 * KiB, read 32 times from L1/L2: compute-bound like step01.
 *
 * With 512-bit vectors (FORCE_VECTOR_WIDTH=512, the default on AVX-512
 * machines: common/config.mk) the loop is written out with AVX-512
 * intrinsics instead, bh_eval_avx512() below.  gcc has a vector rsqrt for
 * 1/sqrtf in 128- and 256-bit vectors only: at 512 bits it computes sqrtf
 * (rsqrt, a Newton step, a product) and then its reciprocal (rcp, a Newton
 * step), 23 instructions per 16 interactions instead of 17.  Written out,
 * 512-bit vectors beat 256-bit ones: on Zen 4, which splits them in two,
 * evaluate -13% (and -28% against gcc's 512-bit code); on Sapphire Rapids,
 * with full 512-bit units, llvm-mca estimates -35%.  Each pass over the list
 * serves two bodies of the group (each load feeds both, and two independent
 * chains hide the latency of rsqrt).  The sums differ from the loop's in the
 * last bits (another rsqrt, another summation order), never with the
 * number of threads: each body's sum is a fixed function of its group and
 * the list. */
#include "bh_cpu_eval.h"
#include "nb_physics.h"

#if defined(__AVX512F__) && defined(NB_FORCE_VECTOR_WIDTH) && NB_FORCE_VECTOR_WIDTH == 512
#include <immintrin.h>

/* nb_interact() of 16 sources (sx, sy, sz, sm) on the body (xi, yi, zi),
 * added to (ax, ay, az). */
static inline void pull16(__m512 xi, __m512 yi, __m512 zi, __m512 sx, __m512 sy, __m512 sz,
                          __m512 sm, __m512 eps2, __m512 *ax, __m512 *ay, __m512 *az)
{
    __m512 dx = _mm512_sub_ps(sx, xi), dy = _mm512_sub_ps(sy, yi), dz = _mm512_sub_ps(sz, zi);
    __m512 r2 = _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_fmadd_ps(dx, dx, eps2)));
    /* 1/sqrt(r2): the estimate (14 bits), then one Newton step
     * inv = e (3/2 - r2/2 e^2), ~23 bits like the loop's */
    __m512 e = _mm512_rsqrt14_ps(r2);
    __m512 h = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), r2), e);
    __m512 inv = _mm512_mul_ps(e, _mm512_fnmadd_ps(h, e, _mm512_set1_ps(1.5f)));
    __m512 s = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(sm, inv), inv), inv);
    *ax = _mm512_fmadd_ps(dx, s, *ax);
    *ay = _mm512_fmadd_ps(dy, s, *ay);
    *az = _mm512_fmadd_ps(dz, s, *az);
}

/* bh_eval(), two bodies per pass over the list (an odd last one is paired
 * with itself), 16 sources per step; the last step loads the list's tail
 * with a mask, zeros beyond it: a mass of 0 adds 0. */
void bh_eval(const float *x, const float *y, const float *z, int cnt, const bh_list *l,
             float eps2, float *ax, float *ay, float *az)
{
    const float *lx = l->x, *ly = l->y, *lz = l->z, *lm = l->m;
    const int64_t len = l->len;
    const __m512 veps2 = _mm512_set1_ps(eps2);
    for (int j = 0; j < cnt; j += 2) {
        const int i = j + 1 < cnt ? j + 1 : j;
        const __m512 x0 = _mm512_set1_ps(x[j]), y0 = _mm512_set1_ps(y[j]), z0 = _mm512_set1_ps(z[j]);
        const __m512 x1 = _mm512_set1_ps(x[i]), y1 = _mm512_set1_ps(y[i]), z1 = _mm512_set1_ps(z[i]);
        __m512 ax0 = _mm512_setzero_ps(), ay0 = ax0, az0 = ax0, ax1 = ax0, ay1 = ax0, az1 = ax0;
        for (int64_t k = 0; k < len; k += 16) {
            __mmask16 in = len - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (len - k)) - 1);
            __m512 sx = _mm512_maskz_loadu_ps(in, lx + k), sy = _mm512_maskz_loadu_ps(in, ly + k);
            __m512 sz = _mm512_maskz_loadu_ps(in, lz + k), sm = _mm512_maskz_loadu_ps(in, lm + k);
            pull16(x0, y0, z0, sx, sy, sz, sm, veps2, &ax0, &ay0, &az0);
            pull16(x1, y1, z1, sx, sy, sz, sm, veps2, &ax1, &ay1, &az1);
        }
        ax[j] = _mm512_reduce_add_ps(ax0);
        ay[j] = _mm512_reduce_add_ps(ay0);
        az[j] = _mm512_reduce_add_ps(az0);
        ax[i] = _mm512_reduce_add_ps(ax1);
        ay[i] = _mm512_reduce_add_ps(ay1);
        az[i] = _mm512_reduce_add_ps(az1);
    }
}

#else

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

#endif
