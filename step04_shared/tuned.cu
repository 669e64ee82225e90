/* step04_shared/tuned.cu -- the tuned build of step04 (program nbody_tuned).
 *
 * The lesson kernel (shared.cu) is shared-memory tiling and nothing else.
 * This file keeps its data layout and its arithmetic (nb_interact) and adds
 * the performance engineering that handouts/04_shared.md "Going further"
 * measures one technique at a time:
 *
 *  1. Register tiling: each thread keeps R (1, 2 or 4) target bodies in
 *     registers, so one shared-memory read of a source body serves R
 *     interactions (the tile-loop overhead per interaction drops by R).
 *  2. j-slices for small N (GPU Gems 3 ch. 31, "several threads per body"):
 *     with fewer bodies than the GPU holds threads, the sum over j is split
 *     into S slices, one grid row (blockIdx.y) each; every block writes its
 *     partial sums, and the last block of a column to finish (a ticket,
 *     after a fence) adds the S partials of its bodies in the fixed order
 *     0..S-1.  No float atomics: the result is a function of the inputs and
 *     the tuning alone, so the same seed gives the same bits.
 *  3. Fused integration: the block that writes a_i also applies the closing
 *     half kick v_i += a_i dt/2, so a step is two kernels (kick + drift,
 *     forces + kick) instead of three.
 *  4. CUDA Graphs: the two kernels of a step and its timing events are
 *     captured once and replayed, which removes most of the launch overhead
 *     where a step takes microseconds (small N).
 *  5. A warp per target (the smallest N): the 32 lanes of a warp share R
 *     targets and split their sources (lane l takes l, l + 32, ...), then
 *     add their 32 partial sums with a butterfly of shuffles, a fixed order.
 *     No tile, no barrier, no partial sums in memory, no second pass: at
 *     N = 1024 the j-slices' ticket and reduction cost more than the sum.
 *  6. Each pair once (Newton's third law, the larger N): the pull of j on i
 *     and of i on j share r^2, the square root and inv^3, so a pair costs 17
 *     instructions instead of 2 x 13 (nb_interact_pair).  The reactions are
 *     the hard part: they belong to other blocks' bodies.  Here each one has
 *     an owner and a fixed order (forces_pairs_kernel), so this path too
 *     gives the same bits for the same input.
 *
 * The tuning -- block size, R, S, fused kick, graph, warp, newton, tiles --
 * is picked from N and the device by pick_tuning(); NB_TUNE="block=B,r=R,
 * slices=S,fuse=0|1,graph=0|1,warp=0|1,newton=0|1,tiles=P" overrides any of
 * them (a measuring knob for `make bench`; the results stay checked by the
 * same suites).  --block B sets the block size.
 *
 * Napkin math: 13 warp instructions per interaction (nb_physics.h) plus one
 * LDS.128 per R interactions and the loop overhead; for small N the floor
 * is the launch and the reduction: S partials per body, 16 bytes each.  Each
 * pair once: (17 + 7 / R) / 2 instructions per interaction, 9.4 at R = 4.
 *
 *   nvcc -O3 -ftz=true -arch=sm_90 -c tuned.cu   (flags: common/config.mk) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "nb_cuda.h"
#include "nb_physics.h"

#define TILE_UNROLL 16              /* source bodies per unrolled trip of the tile loop */
#define NEWTON_MIN_N 16384          /* the picker: each pair once from this N on */
#define NEWTON_TILES 128            /* ... in at most this many tiles */

typedef struct tuning {
    int block;                      /* threads per block; also the tile size */
    int r;                          /* target bodies per thread: 1 or 2 */
    int slices;                     /* S: slices of the j-range (1: no split) */
    int slice_len;                  /* bodies per slice, a multiple of TILE_UNROLL */
    int fuse;                       /* the closing kick in the force kernel */
    int graph;                      /* each step replayed as a CUDA graph */
    int warp;                       /* a warp per R targets (forces_warp_kernel) */
    int newton;                     /* each pair once (forces_pairs_kernel) */
    int tiles;                      /* newton: P tiles of `tile` bodies, P * tile >= N */
    int tile;                       /* a multiple of block * R */
} tuning;

/* Accumulate the pull of the first cnt bodies of a shared-memory tile (cnt
 * a multiple of TILE_UNROLL) on R targets. */
template <int R>
static __device__ __forceinline__ void tile_pull(const float4 *tile, int cnt, float eps2, const float4 *pi,
                                                 float *ax, float *ay, float *az)
{
    for (int k0 = 0; k0 < cnt; k0 += TILE_UNROLL) {
#pragma unroll
        for (int k = k0; k < k0 + TILE_UNROLL; k++) {
            float4 pj = tile[k];
#pragma unroll
            for (int r = 0; r < R; r++)
                nb_interact(pi[r].x, pi[r].y, pi[r].z, pj.x, pj.y, pj.z, pj.w, eps2, &ax[r], &ay[r], &az[r]);
        }
    }
}

/* a_i = (x, y, z) into acc[i]; with vel != NULL also the closing half kick
 * v_i += a_i * hdt. */
static __device__ __forceinline__ void store_accel(float3 *acc, float3 *vel, long long i, float x, float y,
                                                   float z, float hdt)
{
    acc[i] = make_float3(x, y, z);
    if (vel) {
        float3 v = vel[i];
        v.x += hdt * x; v.y += hdt * y; v.z += hdt * z;
        vel[i] = v;
    }
}

/* Accumulate the pull of the sources [jlo, jhi) on R targets.  Every thread
 * of the block runs the same trips (the barriers), padded sources have mass
 * 0 and add exactly 0. */
template <int R>
static __device__ __forceinline__ void tile_sum(const float4 *pos, float4 *tile, int jlo, int jhi, float eps2,
                                         const float4 *pi, float *ax, float *ay, float *az)
{
    for (int base = jlo; base < jhi; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < jhi ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();                             /* the tile is loaded */
        int cnt = min((int)blockDim.x, jhi - base);
        cnt = (cnt + TILE_UNROLL - 1) / TILE_UNROLL * TILE_UNROLL;   /* <= blockDim.x */
        tile_pull<R>(tile, cnt, eps2, pi, ax, ay, az);
        __syncthreads();                             /* everyone is done with it */
    }
}

/* a_i of the targets of this block column; with vel != NULL also the closing
 * half kick v_i += a_i * hdt.  Grid: (columns of blockDim.x * R targets) x S
 * slices of slice_len sources.  S > 1: partial[s * n + i] holds slice s's
 * sum, tickets[column] counts the slices done (reset by the last one). */
template <int R>
static __global__ void forces_kernel(const float4 *pos, float3 *acc, float3 *vel, float4 *partial,
                              unsigned *tickets, int n, int slice_len, float eps2, float hdt)
{
    extern __shared__ float4 tile[];
    __shared__ int last;
    const int S = gridDim.y, s = blockIdx.y;
    const long long i0 = (long long)blockIdx.x * blockDim.x * R + threadIdx.x;
    float4 pi[R];
    float ax[R], ay[R], az[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        long long i = i0 + (long long)r * blockDim.x;
        pi[r] = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        ax[r] = ay[r] = az[r] = 0.0f;
    }
    const int jlo = s * slice_len, jhi = min(n, jlo + slice_len);
    tile_sum<R>(pos, tile, jlo, jhi, eps2, pi, ax, ay, az);
    if (S > 1) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + (long long)r * blockDim.x;
            if (i < n) partial[(long long)s * n + i] = make_float4(ax[r], ay[r], az[r], 0.0f);
        }
        __threadfence();                             /* the partials, before the ticket */
        __syncthreads();
        if (threadIdx.x == 0) last = atomicAdd(&tickets[blockIdx.x], 1u) == (unsigned)(S - 1);
        __syncthreads();
        if (!last) return;
        __threadfence();                             /* acquire the other slices' partials */
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + (long long)r * blockDim.x;
            float x = 0.0f, y = 0.0f, z = 0.0f;
            if (i < n)
#pragma unroll 8
                for (int q = 0; q < S; q++) {        /* the fixed order 0..S-1 */
                    float4 p = __ldcg(&partial[(long long)q * n + i]);
                    x += p.x; y += p.y; z += p.z;
                }
            ax[r] = x; ay[r] = y; az[r] = z;
        }
        if (threadIdx.x == 0) tickets[blockIdx.x] = 0;   /* for the next launch */
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        long long i = i0 + (long long)r * blockDim.x;
        if (i < n) store_accel(acc, vel, i, ax[r], ay[r], az[r], hdt);
    }
}

/* a_i of R targets per warp, the warp's lanes splitting the sources; with
 * vel != NULL also the closing half kick.  Grid: ceil(n / R) warps.  Each
 * lane sums its sources in index order; the butterfly then adds the 32 lane
 * sums in a fixed pattern (every lane ends with the same bits), so the result
 * depends on the inputs and R alone.  Sources come through L1 (__ldg): a few
 * tens of KiB at the N this kernel is picked for. */
template <int R>
static __global__ void forces_warp_kernel(const float4 *pos, float3 *acc, float3 *vel, int n,
                                          float eps2, float hdt)
{
    const int lane = threadIdx.x & 31;
    const long long i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32 * R;
    if (i0 >= n) return;                             /* the whole warp: i0 is the warp's */
    float4 pi[R];
    float ax[R], ay[R], az[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        pi[r] = i0 + r < n ? __ldg(&pos[i0 + r]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        ax[r] = ay[r] = az[r] = 0.0f;
    }
#pragma unroll 4
    for (int j = lane; j < n; j += 32) {
        float4 pj = __ldg(&pos[j]);
#pragma unroll
        for (int r = 0; r < R; r++)
            nb_interact(pi[r].x, pi[r].y, pi[r].z, pj.x, pj.y, pj.z, pj.w, eps2,
                        &ax[r], &ay[r], &az[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        for (int off = 16; off > 0; off >>= 1) {
            ax[r] += __shfl_xor_sync(0xffffffffu, ax[r], off);
            ay[r] += __shfl_xor_sync(0xffffffffu, ay[r], off);
            az[r] += __shfl_xor_sync(0xffffffffu, az[r], off);
        }
#pragma unroll
    for (int r = 0; r < R; r++) {                    /* lane r writes target i0 + r */
        long long i = i0 + r;
        if (lane == r && i < n) store_accel(acc, vel, i, ax[r], ay[r], az[r], hdt);
    }
}

/* Each pair once (Newton's third law), for large N.  The bodies are cut
 * into P tiles of `tile` bodies (the last ones padded with massless bodies
 * at the origin); block (J, I) with I < J takes the pairs of tiles I and J,
 * block (I, I) the pairs inside tile I, one-sided; blocks with I > J have
 * nothing to do.  Within a block, chunks of blockDim.x * R bodies of tile I
 * stay in registers (R per thread) while tile J passes through shared
 * memory in pieces of blockDim.x bodies with their reaction sums.  Each warp
 * takes a 32-body subset of the piece and rotates it around its lanes (7
 * shuffles per step, position, mass and reaction), so in 32 steps every
 * lane's R bodies meet every body of the subset once; then the warps swap
 * subsets, W = blockDim.x / 32 stages, a barrier between them.
 *
 * Every sum is in a fixed order and has one owner, so the result does not
 * depend on scheduling: part[t * npad + i] is the pull of tile t on body i,
 * written by block (t, tile of i) or (tile of i, t) alone (the reactions
 * read-add-write across the block's chunks), and pairs_sum_kernel adds the P
 * of them for t = 0..P-1.  Per pair: 17 instructions (nb_interact_pair) plus
 * 7 / R shuffles, i.e. 9.4 per interaction at R = 4 against 13.4. */
template <int R>
static __global__ void forces_pairs_kernel(const float4 *__restrict__ pos, float4 *__restrict__ part, int n,
                                           int tile, float eps2)
{
    extern __shared__ float4 sm[];
    float4 *vpos = sm, *vacc = sm + blockDim.x;      /* the piece of tile J and its reactions */
    const int I = blockIdx.y, J = blockIdx.x;
    if (I > J) return;                               /* the whole block: the pair is (J, I)'s */
    const int V = blockDim.x, W = V / 32, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int next = (lane + 1) & 31;
    const long long npad = (long long)gridDim.x * tile, i0 = (long long)I * tile, j0 = (long long)J * tile;
    const float4 none = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int c = 0; c < tile; c += V * R) {          /* a chunk of tile I in registers */
        float4 hp[R];
        float hx[R], hy[R], hz[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + c + r * V + threadIdx.x;
            hp[r] = i < n ? pos[i] : none;
            hx[r] = hy[r] = hz[r] = 0.0f;
        }
        for (int v = 0; v < tile; v += V) {          /* a piece of tile J through shared memory */
            long long j = j0 + v + threadIdx.x;
            vpos[threadIdx.x] = j < n ? pos[j] : none;
            if (I != J) vacc[threadIdx.x] = c ? part[(long long)I * npad + j] : none;
            __syncthreads();                         /* the piece is loaded */
            if (I == J) {                            /* inside the tile: one-sided, every j */
                tile_pull<R>(vpos, V, eps2, hp, hx, hy, hz);
            } else {
                for (int st = 0; st < W; st++) {
                    int q = (warp + st) % W * 32 + lane;   /* warp w: subset w + st */
                    float4 p = vpos[q], a = vacc[q];
#pragma unroll 4
                    for (int k = 0; k < 32; k++) {
#pragma unroll
                        for (int r = 0; r < R; r++)
                            nb_interact_pair(hp[r].x, hp[r].y, hp[r].z, hp[r].w, p.x, p.y, p.z, p.w, eps2,
                                             &hx[r], &hy[r], &hz[r], &a.x, &a.y, &a.z);
                        p.x = __shfl_sync(0xffffffffu, p.x, next);
                        p.y = __shfl_sync(0xffffffffu, p.y, next);
                        p.z = __shfl_sync(0xffffffffu, p.z, next);
                        p.w = __shfl_sync(0xffffffffu, p.w, next);
                        a.x = __shfl_sync(0xffffffffu, a.x, next);
                        a.y = __shfl_sync(0xffffffffu, a.y, next);
                        a.z = __shfl_sync(0xffffffffu, a.z, next);
                    }
                    vacc[q] = a;                     /* 32 steps: back on its lane */
                    __syncthreads();                 /* the next stage reads other warps' subsets */
                }
                part[(long long)I * npad + j] = vacc[threadIdx.x];   /* tile I's pull on the piece */
            }
            __syncthreads();                         /* everyone is done with the piece */
        }
#pragma unroll
        for (int r = 0; r < R; r++)                  /* tile J's pull on the chunk */
            part[(long long)J * npad + i0 + c + r * V + threadIdx.x] = make_float4(hx[r], hy[r], hz[r], 0.0f);
    }
}

/* a_i = the P pulls part[t * npad + i] added for t = 0..P-1; with vel !=
 * NULL also the closing half kick. */
static __global__ void pairs_sum_kernel(const float4 *__restrict__ part, float3 *acc, float3 *vel, int n,
                                        long long npad, int tiles, float hdt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = 0.0f, y = 0.0f, z = 0.0f;
#pragma unroll 8
    for (int t = 0; t < tiles; t++) {
        float4 p = __ldg(&part[t * npad + i]);
        x += p.x; y += p.y; z += p.z;
    }
    store_accel(acc, vel, i, x, y, z, hdt);
}

/* The leapfrog's kick + drift and kick kernels are the lesson's
 * (shared.cu): v += a dt/2; x += v dt before the forces, v += a dt/2 after
 * them (the latter only when the force kernel does not fuse it). */
__global__ void kick_drift_kernel(float4 *pos, float3 *vel, const float3 *acc, int n, float dt);
__global__ void kick_kernel(float3 *vel, const float3 *acc, int n, float dt);

typedef struct gpu_ctx {
    int n, poison;
    float eps2, dt;
    tuning t;
    float4 *pos;                     /* device: x, y, z, m */
    float3 *vel, *acc, *out;         /* device */
    float4 *partial;                 /* device: S partial sums per body (S > 1), or newton's P */
    unsigned *tickets;               /* device: one per block column */
    float4 *host;                    /* staging for copies */
    double bytes;
    cudaStream_t stream;
    cudaEvent_t ev[3];               /* step start, forces start, step end */
    cudaGraphExec_t graph;           /* one step, captured at the first advance */
} gpu_ctx;

static void gpu_destroy(void *p)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (!c) return;
    cudaFree(c->pos); cudaFree(c->vel); cudaFree(c->acc); cudaFree(c->out);
    cudaFree(c->partial); cudaFree(c->tickets);
    if (c->graph) cudaGraphExecDestroy(c->graph);
    for (int k = 0; k < 3; k++) if (c->ev[k]) cudaEventDestroy(c->ev[k]);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c->host);
    free(c);
}

static int columns(const gpu_ctx *c)
{
    if (c->t.newton) return c->t.tiles;
    if (c->t.warp) {                                 /* blocks of block / 32 warps */
        long long per = (long long)c->t.block / 32 * c->t.r;
        return (int)((c->n + per - 1) / per);
    }
    long long per = (long long)c->t.block * c->t.r;
    return (int)((c->n + per - 1) / per);
}

/* Launch the force kernel on c->stream: accelerations into acc, and the
 * closing kick when vel != NULL. */
static int forces(gpu_ctx *c, float3 *acc, float3 *vel)
{
    if (c->poison) NB_CUDA(cudaMemsetAsync(acc, 0xff, (size_t)c->n * sizeof *acc, c->stream));
    dim3 grid((unsigned)columns(c), (unsigned)c->t.slices);
    size_t shm = (size_t)c->t.block * sizeof(float4);
    float hdt = 0.5f * c->dt;
    if (c->t.newton) {
        int P = c->t.tiles, T = c->t.tile;
        dim3 pg((unsigned)P, (unsigned)P);
        size_t pshm = 2 * shm;
        if (c->t.r == 4)
            forces_pairs_kernel<4><<<pg, c->t.block, pshm, c->stream>>>(c->pos, c->partial, c->n, T, c->eps2);
        else if (c->t.r == 2)
            forces_pairs_kernel<2><<<pg, c->t.block, pshm, c->stream>>>(c->pos, c->partial, c->n, T, c->eps2);
        else
            forces_pairs_kernel<1><<<pg, c->t.block, pshm, c->stream>>>(c->pos, c->partial, c->n, T, c->eps2);
        NB_LAUNCHED();
        pairs_sum_kernel<<<(c->n + 255) / 256, 256, 0, c->stream>>>(c->partial, acc, vel, c->n,
                                                                    (long long)P * T, P, hdt);
    } else if (c->t.warp) {
        grid.y = 1;
        if (c->t.r == 4)
            forces_warp_kernel<4><<<grid, c->t.block, 0, c->stream>>>(c->pos, acc, vel, c->n, c->eps2, hdt);
        else if (c->t.r == 2)
            forces_warp_kernel<2><<<grid, c->t.block, 0, c->stream>>>(c->pos, acc, vel, c->n, c->eps2, hdt);
        else
            forces_warp_kernel<1><<<grid, c->t.block, 0, c->stream>>>(c->pos, acc, vel, c->n, c->eps2, hdt);
    } else if (c->t.r == 4)
        forces_kernel<4><<<grid, c->t.block, shm, c->stream>>>(c->pos, acc, vel, c->partial, c->tickets,
                                                               c->n, c->t.slice_len, c->eps2, hdt);
    else if (c->t.r == 2)
        forces_kernel<2><<<grid, c->t.block, shm, c->stream>>>(c->pos, acc, vel, c->partial, c->tickets,
                                                               c->n, c->t.slice_len, c->eps2, hdt);
    else
        forces_kernel<1><<<grid, c->t.block, shm, c->stream>>>(c->pos, acc, vel, c->partial, c->tickets,
                                                               c->n, c->t.slice_len, c->eps2, hdt);
    NB_LAUNCHED();
    return NB_OK;
}

/* One leapfrog step on c->stream, with its three events. */
static int enqueue_step(gpu_ctx *c, unsigned ev_flags)
{
    int rc, grid = (c->n + 255) / 256;
    NB_CUDA(cudaEventRecordWithFlags(c->ev[0], c->stream, ev_flags));
    kick_drift_kernel<<<grid, 256, 0, c->stream>>>(c->pos, c->vel, c->acc, c->n, c->dt);
    NB_LAUNCHED();
    NB_CUDA(cudaEventRecordWithFlags(c->ev[1], c->stream, ev_flags));
    if ((rc = forces(c, c->acc, c->t.fuse ? c->vel : NULL))) return rc;
    if (!c->t.fuse) {
        kick_kernel<<<grid, 256, 0, c->stream>>>(c->vel, c->acc, c->n, c->dt);
        NB_LAUNCHED();
    }
    NB_CUDA(cudaEventRecordWithFlags(c->ev[2], c->stream, ev_flags));
    return NB_OK;
}

/* Capture one step as a graph (the events become event-record nodes). */
static int capture(gpu_ctx *c)
{
    cudaGraph_t g = NULL;
    NB_CUDA(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal));
    int rc = enqueue_step(c, cudaEventRecordExternal);
    cudaError_t e = cudaStreamEndCapture(c->stream, &g);
    if (rc) { if (g) cudaGraphDestroy(g); return rc; }
    NB_CUDA(e);
    e = cudaGraphInstantiate(&c->graph, g, 0);
    cudaGraphDestroy(g);
    NB_CUDA(e);
    return NB_OK;
}

/* Newton's tiles: P tiles (t->tiles if NB_TUNE set it, else N / (block *
 * R) up to NEWTON_TILES) of a multiple of block * R bodies each; the partial
 * pulls, P per body, 16 bytes each, in at most half the free device memory
 * (else fewer, longer tiles).  The picker's own choice (auto) falls back to
 * the tile kernel when that leaves fewer than 8 tiles: the pairs would not
 * fill the GPU. */
static int pick_tiles(tuning *t, long long n, int autopick)
{
    for (;;) {                                       /* registers: R bodies must fit the block */
        cudaFuncAttributes fa;
        if (t->r == 4) NB_CUDA(cudaFuncGetAttributes(&fa, forces_pairs_kernel<4>));
        else if (t->r == 2) NB_CUDA(cudaFuncGetAttributes(&fa, forces_pairs_kernel<2>));
        else NB_CUDA(cudaFuncGetAttributes(&fa, forces_pairs_kernel<1>));
        if (t->block <= fa.maxThreadsPerBlock || t->r == 1) break;
        t->r /= 2;
    }
    long long chunk = (long long)t->block * t->r;
    long long p = t->tiles ? t->tiles : (n + chunk - 1) / chunk;
    if (!t->tiles && p > NEWTON_TILES) p = NEWTON_TILES;
    if (p > n) p = n;
    size_t free_b = 0, total_b = 0;
    NB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    long long tile;
    for (;;) {
        tile = (n + p - 1) / p;
        tile = (tile + chunk - 1) / chunk * chunk;
        p = (n + tile - 1) / tile;
        if (p == 1 || (double)p * p * tile * sizeof(float4) <= 0.5 * (double)free_b) break;
        p = (p + 1) / 2;
    }
    if (autopick && p < 8) {                         /* too few pairs of tiles: the caller */
        t->newton = 0;                               /* picks again without them */
        return NB_OK;
    }
    if (tile > INT_MAX) return nb_fail(NB_EXIT_RUNTIME, "newton: tiles of %lld bodies do not fit an int", tile);
    t->tiles = (int)p;
    t->tile = (int)tile;
    t->slices = 1;
    t->slice_len = (int)n;
    t->warp = 0;
    return NB_OK;
}

/* The tuning for n bodies on this device, fitted to the measurements of
 * tests/tune_step04 on an H100 (handouts/04_shared.md, "Going further"):
 *  - N >= half the threads the GPU holds (SMs x threads per SM): block 512,
 *    R = 4, no slices: the grid fills the GPU and register tiling pays;
 *  - fewer bodies: block 128 below 2048 bodies, else 256; R = 2 from 8192
 *    bodies; slices of clamp(N / 16, 64, 1024) sources, at most 2^22
 *    partial sums (S * N) in all;
 *  - up to 4096 bodies the warp per target kernel instead (R = 1, the same
 *    block): as fast as the slices at 4096 and 8192, faster below (at 1024:
 *    no partial sums, no ticket, no second pass);
 *  - from NEWTON_MIN_N bodies each pair once: block 128 and R = 2 below
 *    32768 bodies, block 256 and R = 4 below 65536, then block 512 and R = 4
 *    (the pairs of tiles must fill the GPU), up to NEWTON_TILES tiles
 *    (pick_tiles), unless that leaves fewer than 8 tiles.
 * Then the NB_TUNE overrides and --block. */
static int pick_tuning(gpu_ctx *c, int block_opt, tuning *t, int allow_newton)
{
    int dev = 0, sms = 1, per_sm = 2048;
    NB_CUDA(cudaGetDevice(&dev));
    NB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    NB_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    long long n = c->n, slots = (long long)sms * per_sm;   /* threads the GPU holds */
    memset(t, 0, sizeof *t);
    t->fuse = 1;
    t->graph = 1;
    if (2 * n >= slots) { t->block = 512; t->r = 4; t->slices = 1; }
    else {
        t->block = n < 2048 ? 128 : 256;
        t->r = n >= 8192 ? 2 : 1;
        long long len = n / 16 < 64 ? 64 : n / 16 > 1024 ? 1024 : n / 16;
        long long s = (n + len - 1) / len;
        while (s > 1 && s * n > (1LL << 22)) s--;
        t->slices = (int)s;
        t->warp = n <= 4096;         /* the same block and R = 1; NB_TUNE=warp=0: the slices */
    }
    int newton_auto = allow_newton && n >= NEWTON_MIN_N, newton_set = 0;
    if (newton_auto) {
        t->newton = 1;
        t->block = n < 32768 ? 128 : n < 65536 ? 256 : 512;
        t->r = n < 32768 ? 2 : 4;
        t->slices = 1;
        t->warp = 0;
    }
    const char *env = getenv("NB_TUNE");
    if (env && *env) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", env);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            char *eq = strchr(tok, '=');
            int64_t v64 = 0;
            if (!eq || eq == tok || nb_parse_i64(eq + 1, &v64) || v64 < -1000000 || v64 > 1000000)
                return nb_fail(NB_EXIT_USAGE, "NB_TUNE: expected key=integer items, got '%s'", tok);
            *eq = '\0';
            const char *key = tok;
            int v = (int)v64;
            if (!strcmp(key, "block") && v >= 32 && v <= 1024 && v % 32 == 0) t->block = v;
            else if (!strcmp(key, "r") && (v == 1 || v == 2 || v == 4)) t->r = v;
            else if (!strcmp(key, "slices") && v >= 1 && v <= 4096) t->slices = v;
            else if (!strcmp(key, "fuse") && (v == 0 || v == 1)) t->fuse = v;
            else if (!strcmp(key, "graph") && (v == 0 || v == 1)) t->graph = v;
            else if (!strcmp(key, "warp") && (v == 0 || v == 1)) t->warp = v;
            else if (!strcmp(key, "newton") && (v == 0 || v == 1)) { t->newton = v; newton_set = 1; }
            else if (!strcmp(key, "tiles") && v >= 1 && v <= 1024) t->tiles = v;
            else return nb_fail(NB_EXIT_USAGE, "NB_TUNE: bad item '%s=%d' (block=32..1024 in "
                                "32s, r=1|2|4, slices=1..4096, fuse=0|1, graph=0|1, warp=0|1, "
                                "newton=0|1, tiles=1..1024)", key, v);
        }
    }
    if (newton_auto && !t->newton)                   /* NB_TUNE=newton=0: the picker's other choice */
        return pick_tuning(c, block_opt, t, 0);
    if (block_opt) t->block = block_opt;
    if (t->newton) {
        int rc = pick_tiles(t, n, newton_auto && !newton_set);
        if (rc || t->newton) return rc;
        return pick_tuning(c, block_opt, t, 0);      /* too few tiles for the pairs */
    }
    if (t->warp) {                                   /* one slice: the lanes split the sources */
        t->slices = 1;
        t->slice_len = (int)n;
        return NB_OK;
    }
    if (t->slices < 1) t->slices = 1;
    for (;;) {                                       /* registers: R bodies must fit the block */
        cudaFuncAttributes fa;
        if (t->r == 4) NB_CUDA(cudaFuncGetAttributes(&fa, forces_kernel<4>));
        else if (t->r == 2) NB_CUDA(cudaFuncGetAttributes(&fa, forces_kernel<2>));
        else break;
        if (t->block <= fa.maxThreadsPerBlock) break;
        t->r /= 2;
    }
    /* slices of at least TILE_UNROLL sources, a multiple of it */
    long long len = (n + t->slices - 1) / t->slices;
    len = (len + TILE_UNROLL - 1) / TILE_UNROLL * TILE_UNROLL;
    t->slice_len = (int)len;
    t->slices = (int)((n + len - 1) / len);
    return NB_OK;
}

static int gpu_setup(gpu_ctx *c, const nb_state *s, int block_opt)
{
    size_t n = (size_t)c->n;
    int rc;
    if ((rc = pick_tuning(c, block_opt, &c->t, 1))) return rc;
    if ((rc = nb_cuda_malloc((void **)&c->pos, n * sizeof(float4), "positions and masses", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->vel, n * sizeof(float3), "velocities", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->acc, n * sizeof(float3), "accelerations", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->out, n * sizeof(float3), "accelerations (copy)", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->tickets, (size_t)columns(c) * sizeof(unsigned), "tickets",
                             &c->bytes)))
        return rc;
    if (c->t.newton &&
        (rc = nb_cuda_malloc((void **)&c->partial,
                             (size_t)c->t.tiles * c->t.tiles * c->t.tile * sizeof(float4),
                             "partial pulls of the tiles (newton)", &c->bytes)))
        return rc;
    if (!c->t.newton && c->t.slices > 1 &&
        (rc = nb_cuda_malloc((void **)&c->partial, (size_t)c->t.slices * n * sizeof(float4),
                             "partial sums of the j-slices", &c->bytes)))
        return rc;
    NB_CUDA(cudaMemset(c->tickets, 0, (size_t)columns(c) * sizeof(unsigned)));
    NB_CUDA(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    for (int k = 0; k < 3; k++) NB_CUDA(cudaEventCreate(&c->ev[k]));
    c->host = (float4 *)malloc(n * sizeof(float4));
    if (!c->host) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %zu bodies", n);
    for (size_t i = 0; i < n; i++) c->host[i] = make_float4(s->x[i], s->y[i], s->z[i], s->m[i]);
    NB_CUDA(cudaMemcpy(c->pos, c->host, n * sizeof(float4), cudaMemcpyHostToDevice));
    float3 *v3 = (float3 *)c->host;
    for (size_t i = 0; i < n; i++) v3[i] = make_float3(s->vx[i], s->vy[i], s->vz[i]);
    NB_CUDA(cudaMemcpy(c->vel, v3, n * sizeof(float3), cudaMemcpyHostToDevice));
    if ((rc = forces(c, c->acc, NULL))) return rc;               /* a(x0) */
    NB_CUDA(cudaStreamSynchronize(c->stream));
    return NB_OK;
}

static int gpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    gpu_ctx *c = (gpu_ctx *)calloc(1, sizeof *c);
    *ctx = c;                        /* the caller destroys it, also after a failure */
    if (!c) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    c->n = (int)s->n;
    c->eps2 = (float)(o->eps * o->eps);
    c->dt = (float)o->dt;
    c->poison = o->poison;
    return gpu_setup(c, s, o->block);
}

static int gpu_accel(void *p, float *ax, float *ay, float *az)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc = forces(c, c->out, NULL);
    if (rc) return rc;
    NB_CUDA(cudaStreamSynchronize(c->stream));
    float3 *a3 = (float3 *)c->host;
    NB_CUDA(cudaMemcpy(a3, c->out, (size_t)c->n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < c->n; i++) { ax[i] = a3[i].x; ay[i] = a3[i].y; az[i] = a3[i].z; }
    return NB_OK;
}

static int gpu_advance(void *p, int steps, nb_step_time *times)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc;
    if (c->t.graph && !c->graph && (rc = capture(c))) return rc;
    for (int k = 0; k < steps; k++) {
        if (c->t.graph) NB_CUDA(cudaGraphLaunch(c->graph, c->stream));
        else if ((rc = enqueue_step(c, cudaEventRecordDefault))) return rc;
        if (times) {
            float f0 = 0, f = 0, st = 0;
            NB_CUDA(cudaEventSynchronize(c->ev[2]));
            NB_CUDA(cudaEventElapsedTime(&f0, c->ev[0], c->ev[1]));
            NB_CUDA(cudaEventElapsedTime(&f, c->ev[1], c->ev[2]));
            NB_CUDA(cudaEventElapsedTime(&st, c->ev[0], c->ev[2]));
            times[k].force_start_ms = f0;
            times[k].force_ms = f;
            times[k].step_ms = st;
            times[k].interactions = (int64_t)c->n * c->n;
        }
    }
    NB_CUDA(cudaStreamSynchronize(c->stream));
    return NB_OK;
}

static int gpu_download(void *p, nb_state *s)
{
    gpu_ctx *c = (gpu_ctx *)p;
    return nb_cuda_download_float4(c->pos, c->vel, c->n, c->host, s);
}

/* The bodies on the device, for the GL view (nb_step.h). */
static int gpu_bodies(void *p, nb_bodies *b)
{
    gpu_ctx *c = (gpu_ctx *)p;
    *b = (nb_bodies){ c->n, &c->pos->x, &c->pos->y, &c->pos->z, &c->pos->w,
                      &c->vel->x, &c->vel->y, &c->vel->z, 4, 4, 3 };
    return NB_OK;
}

static void gpu_info(void *p, nb_run_info *info)
{
    gpu_ctx *c = (gpu_ctx *)p;
    nb_cuda_info(info);
    info->block = c->t.block;
    info->device_bytes = c->bytes;
}

static void gpu_report(void *p, FILE *out)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (c->t.newton)
        fprintf(out, "    tuning: each pair once (Newton's third law), %d tiles of %d bodies, block %d, "
                "%d bod%s per thread, %s kick, %s (NB_TUNE=newton=1,tiles=%d,block=%d,r=%d,fuse=%d,"
                "graph=%d)\n", c->t.tiles, c->t.tile, c->t.block, c->t.r, c->t.r == 1 ? "y" : "ies",
                c->t.fuse ? "fused" : "separate", c->t.graph ? "CUDA graph" : "plain launches",
                c->t.tiles, c->t.block, c->t.r, c->t.fuse, c->t.graph);
    else
        fprintf(out, "    tuning: block %d, %d bod%s per %s, %d j-slice%s of %d, %s kick, %s "
                "(NB_TUNE=newton=0,block=%d,r=%d,slices=%d,fuse=%d,graph=%d,warp=%d)\n", c->t.block,
                c->t.r, c->t.r == 1 ? "y" : "ies", c->t.warp ? "warp (lanes split the sources)" : "thread",
                c->t.slices, c->t.slices == 1 ? "" : "s", c->t.slice_len,
                c->t.fuse ? "fused" : "separate", c->t.graph ? "CUDA graph" : "plain launches",
                c->t.block, c->t.r, c->t.slices, c->t.fuse, c->t.graph, c->t.warp);
}

/* Device bytes per body: the bodies, and the partial sums of up to 64
 * slices (the picker keeps S * N <= 2^22: at most 64 per body from N = 65536
 * on, and then only 64 MiB in all).  Each pair once adds P partial pulls per
 * body, sized by pick_tiles() against the free memory after this check. */
#define BYTES_PER_BODY (sizeof(float4) + 3 * sizeof(float3))
/* Host bytes per body: the state (28), the staging buffer (16), --check's
 * accelerations (12). */
#define HOST_BYTES_PER_BODY (double)(10 * sizeof(float) + sizeof(float4))

static int gpu_probe(const nb_options *o)
{
    int rc = nb_cuda_probe();
    if (!rc && o) rc = nb_cuda_fits(o->n, (double)BYTES_PER_BODY);
    return rc;
}

extern "C" const nb_step nb_step04_tuned = {
    "step04_tuned", "shared-memory tiling, tuned: register tiling, j-slices, fused kick, CUDA graphs, "
    "each pair once",
    NB_OPT_BLOCK, 0, gpu_probe, gpu_init, gpu_accel, gpu_advance, gpu_download, gpu_info,
    gpu_report, NULL, gpu_destroy, NULL,
    HOST_BYTES_PER_BODY, (double)BYTES_PER_BODY, gpu_bodies,
};
