/* tmg_kernels.cu -- step06_multigpu/tuned: the bodies kept in tree order.
 *
 * After each walk the lesson's machinery puts every GPU's accelerations,
 * which arrive in tree order, back at the bodies' indices (mg_scatter).  In
 * the order the initial conditions give, a body's index says nothing of
 * where it is: the scatter writes at random places, 3.7 ms of a 20M-body
 * step on an H200, and as much on every GPU whatever P.  So this build moves
 * the bodies themselves into the tree order whenever the tree is built anew
 * (tmg.c, forces()): the tree order of the next build is then nearly the
 * identity, and the scatter, the pack and the walk's own writes stream.  A
 * body keeps its initial index in id, for the copies out (tmg.c).
 *
 * The tree does not depend on the order of the bodies (the lesson's build:
 * a function of the positions alone), so the run is the same bits as
 * without the reordering, body for body. */
#include <cuda_runtime.h>
#include "nb_cuda.h"
#include "tmg_kernels.h"

#define TK_THREADS 256

static __global__ void k_ids(int *id, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) id[i] = i;
}

/* dst[k] = src[sorted[k]], 16 B or 4 B a body: bits, not numbers. */
static __global__ void k_gather16(const int *sorted, const uint4 *src, uint4 *dst, int n)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        dst[k] = src[sorted[k]];
}

static __global__ void k_gather4(const int *sorted, const unsigned *src, unsigned *dst, int n)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        dst[k] = src[sorted[k]];
}

static int blocks_for(int64_t count)
{
    int64_t b = (count + TK_THREADS - 1) / TK_THREADS;
    return (int)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

extern "C" int tmg_ids(int *id, int64_t n)
{
    if (n <= 0) return 0;
    k_ids<<<blocks_for(n), TK_THREADS>>>(id, (int)n);
    NB_LAUNCHED();
    return 0;
}

extern "C" int tmg_reorder(const int *sorted, float *pos, float *vx, float *vy, float *vz, int *id,
                           void *tmp, int64_t n)
{
    if (n <= 0) return 0;
    const int nb = blocks_for(n);
    k_gather16<<<nb, TK_THREADS>>>(sorted, (const uint4 *)pos, (uint4 *)tmp, (int)n);
    NB_LAUNCHED();
    NB_CUDA(cudaMemcpyAsync(pos, tmp, 16 * (size_t)n, cudaMemcpyDeviceToDevice));
    unsigned *four[4] = { (unsigned *)vx, (unsigned *)vy, (unsigned *)vz, (unsigned *)id };
    for (int c = 0; c < 4; c++) {
        k_gather4<<<nb, TK_THREADS>>>(sorted, four[c], (unsigned *)tmp, (int)n);
        NB_LAUNCHED();
        NB_CUDA(cudaMemcpyAsync(four[c], tmp, 4 * (size_t)n, cudaMemcpyDeviceToDevice));
    }
    return 0;
}
