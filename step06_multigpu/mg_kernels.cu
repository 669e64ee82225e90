/* mg_kernels.cu -- step06_multigpu: the two kernels around the exchange of
 * the accelerations (see mg.c, forces()).  The walk (step05's k_force)
 * writes the accelerations of a GPU's slice of the tree order at the
 * bodies' indices; k_pack lines them up in tree order, so that the slice is
 * one contiguous block of the all-gather; after the all-gather k_scatter
 * puts every GPU's block back at the bodies' indices.  Both are copies: the
 * bits do not change.  Streaming, one body per thread (grid-stride loops).
 *
 * Napkin math: 16 B read + 12 B written per body and kernel (plus the
 * index); 5M bodies: 140 MB, ~50 us at 3 TB/s, against ~35 ms of walk. */
#include <cuda_runtime.h>
#include "mg_kernels.h"
#include "nb_cuda.h"

#define MG_THREADS 256

static __global__ void k_pack(const int *sorted, const float *ax, const float *ay,
                              const float *az, float *at, int lo, int hi)
{
    for (int k = lo + blockIdx.x * blockDim.x + threadIdx.x; k < hi; k += gridDim.x * blockDim.x) {
        int i = sorted[k];
        size_t t = 3 * (size_t)k;
        at[t] = ax[i]; at[t + 1] = ay[i]; at[t + 2] = az[i];
    }
}

static __global__ void k_scatter(const int *sorted, const float *at, float *ax, float *ay,
                                 float *az, int n)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        int i = sorted[k];
        size_t t = 3 * (size_t)k;
        ax[i] = at[t]; ay[i] = at[t + 1]; az[i] = at[t + 2];
    }
}

static int blocks_for(int64_t count)
{
    int64_t b = (count + MG_THREADS - 1) / MG_THREADS;
    return (int)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

extern "C" int mg_pack(const int *sorted, const float *ax, const float *ay, const float *az,
                       float *at, int64_t lo, int64_t hi)
{
    if (hi <= lo) return 0;
    k_pack<<<blocks_for(hi - lo), MG_THREADS>>>(sorted, ax, ay, az, at, (int)lo, (int)hi);
    NB_LAUNCHED();
    return 0;
}

extern "C" int mg_scatter(const int *sorted, const float *at, float *ax, float *ay, float *az,
                          int64_t n)
{
    if (n <= 0) return 0;
    k_scatter<<<blocks_for(n), MG_THREADS>>>(sorted, at, ax, ay, az, (int)n);
    NB_LAUNCHED();
    return 0;
}
