/* nb_gl_cuda.cu -- CUDA-GL interop for the view (nb_gl.h): the bodies and
 * the tree's cells go from the step's device arrays straight into the GL
 * buffers the renderer draws, without crossing to the host.
 *
 * The GL buffers are registered with CUDA once (write-discard: the kernels
 * overwrite them whole); each frame maps them, packs the step's layout
 * (float3, float4 or separate arrays: nb_bodies) into the renderer's
 * (float4 x, y, z, m and a speed per body), and unmaps them, on the legacy
 * default stream, so the copy follows the step's last kernel and the GL
 * draw follows the unmap.  Registration fails where the GL context is not
 * on the CUDA device (Mesa, another GPU): the view then uploads from the
 * host and says why.  The cells' buffer grows (a new GL buffer): it is
 * registered again.
 *
 * Napkin math: 1M bodies read 28 B and write 20 B each, 48 MB per frame:
 * ~20 us at H100 bandwidth, against the milliseconds of the draw.
 *
 * Built only where the kit finds OpenGL (common/view/gl.mk); the GPU steps link
 * it with -u nb_glcuda_open (common/step.mk), nb_gl.c refers to it weakly. */
#include <stdlib.h>
#include <string.h>
#include <cuda_gl_interop.h>
#include "nb_cuda.h"
#include "nb_gl.h"

typedef struct glcuda {
    cudaGraphicsResource_t pm, speed, cells;
    unsigned cells_buf;
    int64_t  cells_cap;
    int     *count;                   /* device: cells kept */
} glcuda;

__global__ void k_pack_bodies(nb_bodies b, float4 *pm, float *speed)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < b.n;
         i += (long long)gridDim.x * blockDim.x) {
        long long p = i * b.pos_stride, v = i * b.vel_stride;
        pm[i] = make_float4(b.x[p], b.y[p], b.z[p], b.m[i * b.m_stride]);
        float vx = b.vx[v], vy = b.vy[v], vz = b.vz[v];
        speed[i] = sqrtf(vx * vx + vy * vy + vz * vz);
    }
}

/* The cells down to 'depth' (depth <= D <=> half >= root / 2^D, as
 * nb_gl_cells_host decides it), compacted in any order. */
__global__ void k_pack_cells(nb_cells c, int depth, float4 *out, int *count)
{
    const int st = c.stride > 1 ? c.stride : 1;
    const float thr = depth < 0 ? 0.0f : c.half[0] * ldexpf(0.75f, -depth);
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < c.count;
         k += (long long)gridDim.x * blockDim.x) {
        float h = c.half[k * st];
        if (!(h > 0.0f) || h < thr) continue;
        int j = atomicAdd(count, 1);
        out[j] = make_float4(c.cx[k * st], c.cy[k * st], c.cz[k * st], h);
    }
}

static int grid_for(long long n)
{
    long long g = (n + 255) / 256;
    return (int)(g < 1 ? 1 : g > 4096 ? 4096 : g);
}

extern "C" int nb_glcuda_open(void **out, unsigned pos_mass, unsigned speed)
{
    *out = NULL;
    glcuda *ic = (glcuda *)calloc(1, sizeof *ic);
    if (!ic) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&ic->pm, pos_mass, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e == cudaSuccess)
        e = cudaGraphicsGLRegisterBuffer(&ic->speed, speed, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&ic->count, sizeof(int));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        int rc = nb_fail(NB_EXIT_RUNTIME, "CUDA cannot use this GL context's buffers (%s): the GL "
                         "context is not on the CUDA device", cudaGetErrorString(e));
        nb_glcuda_close(ic);
        return rc;
    }
    *out = ic;
    return NB_OK;
}

extern "C" int nb_glcuda_bodies(void *p, const nb_bodies *b)
{
    glcuda *ic = (glcuda *)p;
    cudaGraphicsResource_t res[2] = { ic->pm, ic->speed };
    float4 *pm;
    float *sp;
    size_t bytes;
    NB_CUDA(cudaGraphicsMapResources(2, res, 0));
    cudaError_t e = cudaGraphicsResourceGetMappedPointer((void **)&pm, &bytes, ic->pm);
    if (e == cudaSuccess && bytes < (size_t)b->n * sizeof(float4)) e = cudaErrorInvalidValue;
    if (e == cudaSuccess) e = cudaGraphicsResourceGetMappedPointer((void **)&sp, &bytes, ic->speed);
    if (e == cudaSuccess && bytes < (size_t)b->n * sizeof(float)) e = cudaErrorInvalidValue;
    if (e == cudaSuccess && b->n > 0) {
        k_pack_bodies<<<grid_for(b->n), 256>>>(*b, pm, sp);
        e = cudaGetLastError();
    }
    cudaError_t u = cudaGraphicsUnmapResources(2, res, 0);
    NB_CUDA(e);
    NB_CUDA(u);
    return NB_OK;
}

extern "C" int nb_glcuda_cells(void *p, unsigned buf, int64_t cap, const nb_cells *c, int depth,
                               int64_t *kept)
{
    glcuda *ic = (glcuda *)p;
    if (ic->cells && (buf != ic->cells_buf || cap != ic->cells_cap || !c)) {
        NB_CUDA(cudaGraphicsUnregisterResource(ic->cells));
        ic->cells = NULL;
    }
    if (!c) return NB_OK;                        /* only unregistered: the buffer will grow */
    if (!ic->cells) {
        NB_CUDA(cudaGraphicsGLRegisterBuffer(&ic->cells, buf, cudaGraphicsRegisterFlagsWriteDiscard));
        ic->cells_buf = buf;
        ic->cells_cap = cap;
    }
    int count = 0;
    NB_CUDA(cudaMemset(ic->count, 0, sizeof(int)));
    float4 *out;
    size_t bytes;
    NB_CUDA(cudaGraphicsMapResources(1, &ic->cells, 0));
    cudaError_t e = cudaGraphicsResourceGetMappedPointer((void **)&out, &bytes, ic->cells);
    if (e == cudaSuccess && bytes < (size_t)c->count * sizeof(float4)) e = cudaErrorInvalidValue;
    if (e == cudaSuccess && c->count > 0) {
        k_pack_cells<<<grid_for(c->count), 256>>>(*c, depth, out, ic->count);
        e = cudaGetLastError();
    }
    cudaError_t u = cudaGraphicsUnmapResources(1, &ic->cells, 0);
    NB_CUDA(e);
    NB_CUDA(u);
    NB_CUDA(cudaMemcpy(&count, ic->count, sizeof(int), cudaMemcpyDeviceToHost));
    *kept = count;
    return NB_OK;
}

extern "C" void nb_glcuda_close(void *p)
{
    glcuda *ic = (glcuda *)p;
    if (!ic) return;
    if (ic->pm) cudaGraphicsUnregisterResource(ic->pm);
    if (ic->speed) cudaGraphicsUnregisterResource(ic->speed);
    if (ic->cells) cudaGraphicsUnregisterResource(ic->cells);
    cudaFree(ic->count);
    (void)cudaGetLastError();
    free(ic);
}
