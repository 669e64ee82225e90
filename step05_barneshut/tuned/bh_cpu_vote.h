/* bh_cpu_vote.h -- step05_barneshut --cpu: the vote of a group of BH_GROUP
 * bodies on a cell (bh_cpu.c's group_far()): is the cell far from every
 * body, bh_far(d2, open2) for each of the 32 lanes, d2 the squared distance
 * from the body to the cell's centre of mass (mx, my, mz)?  The GPU warp
 * asks the same with __all_sync().
 *
 * Two forms that must give the same answer bit for bit (a test in
 * tests/suite_tree.c checks it, near the threshold, with NaN and overflow):
 *  - bh_vote_loop(): the definition, a loop over the lanes without an early
 *    exit, which gcc vectorizes;
 *  - bh_vote_avx512(), with AVX-512: the same float operations per lane in
 *    the same order (host code is ISO C11: no FMA contraction), written out
 *    with mask compares.
 * Why both: the walk waits for this answer at every cell it pops (it decides
 * what the walk does next; a branch mispredicted on it costs the whole test),
 * so the test's latency is most of the walk's time.  gcc compiles the loop
 * into 16-lane compares too, but then turns their bit masks into integers
 * and ANDs the 32 answers through a chain of shuffles; bh_vote_avx512() ANDs
 * the two masks and tests them at once, the CPU's __all_sync(): 13-22% less
 * walk time on Zen 4. */
#ifndef BH_CPU_VOTE_H
#define BH_CPU_VOTE_H
#include <math.h>
#include "bh_cpu_eval.h"    /* BH_GROUP */
#include "bh_tree.h"        /* bh_far() */
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* The BH_GROUP positions (x, y, z)[j] against the cell (mx, my, mz, open2). */
static inline int bh_vote_loop(const float *x, const float *y, const float *z, float mx,
                               float my, float mz, float open2)
{
    int far = 1;
    for (int j = 0; j < BH_GROUP; j++) {
        float dx = mx - x[j], dy = my - y[j], dz = mz - z[j];
        far &= bh_far(dx * dx + dy * dy + dz * dz, open2);
    }
    return far;
}

#if defined(__AVX512F__)
static inline int bh_vote_avx512(const float *x, const float *y, const float *z, float mx,
                                 float my, float mz, float open2)
{
    _Static_assert(BH_GROUP == 32, "the vote is two vectors of 16 lanes");
    const __m512 vmx = _mm512_set1_ps(mx), vmy = _mm512_set1_ps(my), vmz = _mm512_set1_ps(mz);
    const __m512 vopen2 = _mm512_set1_ps(open2), vinf = _mm512_set1_ps(INFINITY);
    __mmask16 far[2];
    for (int h = 0; h < 2; h++) {
        __m512 dx = _mm512_sub_ps(vmx, _mm512_loadu_ps(x + 16 * h));
        __m512 dy = _mm512_sub_ps(vmy, _mm512_loadu_ps(y + 16 * h));
        __m512 dz = _mm512_sub_ps(vmz, _mm512_loadu_ps(z + 16 * h));
        __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                                  _mm512_mul_ps(dz, dz));
        /* bh_far(): (d2 >= open2) & (d2 < INFINITY), ordered compares (NaN: 0) */
        far[h] = _mm512_cmp_ps_mask(d2, vopen2, _CMP_GE_OQ) &
                 _mm512_cmp_ps_mask(d2, vinf, _CMP_LT_OQ);
    }
    return (far[0] & far[1]) == 0xffff;
}
#endif

/* The walk's vote: the vector form where the compiler targets AVX-512. */
static inline int bh_vote(const float *x, const float *y, const float *z, float mx, float my,
                          float mz, float open2)
{
#if defined(__AVX512F__)
    return bh_vote_avx512(x, y, z, mx, my, mz, open2);
#else
    return bh_vote_loop(x, y, z, mx, my, mz, open2);
#endif
}

#endif
