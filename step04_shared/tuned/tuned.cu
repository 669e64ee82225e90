/* step04_shared/tuned/tuned.cu -- the tuned build of step04 (program nbody_tuned).
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
 * --precision single | double | mixed (handouts/08_precision.md): the
 * kernels and their launches are written once, in tuned_kernels.cuh, and
 * compiled once per precision (each name suffixed by NB_P: launch_forces_single,
 * launch_forces_double, launch_forces_mixed, ...); this file is the host code
 * they share: the tuning, the memory, the copies, the step's table.  double keeps the bodies as nb_double4 on the
 * device; mixed keeps the state in double (state, vel, acc) and gives the
 * force kernels float4 bodies relative to an origin.
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
 * pair once: (17 + 7 / R) / 2 instructions per interaction, 9.4 at R = 4;
 * mixed: (20 + 7 / R) / 2 plus the flushes (18 adds per lane and stage),
 * about 11 at R = 4, 85 % of single's rate; double: the same count of
 * operations on the FP64 pipe, half as wide as FP32's on an H100 (64
 * against 128 lanes per SM), plus its rsqrt (MUFU.RSQ64H and Newton steps).
 *
 *   nvcc -O3 -ftz=true -arch=sm_90 -c tuned.cu   (flags: common/config.mk) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "nb_cuda.h"
#include "nb_mem.h"
#include "nb_physics.h"

#define TILE_UNROLL 16              /* source bodies per unrolled trip of the tile loop */
#define NEWTON_MIN_N 16384          /* the picker: each pair once from this N on */
#define NEWTON_TILES 128            /* ... in at most this many tiles */

/* A double4 of the kit's own: CUDA 13 deprecates double4 for double4_16a
 * and double4_32a, which CUDA 12 lacks.  16-byte aligned: two 16-byte loads. */
typedef struct __align__(16) nb_double4 { double x, y, z, w; } nb_double4;
static __host__ __device__ __forceinline__ nb_double4 make_nb_double4(double x, double y, double z, double w)
{
    nb_double4 v = { x, y, z, w };
    return v;
}

typedef struct tuning {
    int block;                      /* threads per block; also the tile size */
    int r;                          /* target bodies per thread: 1, 2 or 4 */
    int slices;                     /* S: slices of the j-range (1: no split) */
    int slice_len;                  /* bodies per slice, a multiple of TILE_UNROLL */
    int fuse;                       /* the closing kick in the force kernel */
    int graph;                      /* each step replayed as a CUDA graph */
    int warp;                       /* a warp per R targets (forces_warp_kernel) */
    int newton;                     /* each pair once (forces_pairs_kernel) */
    int tiles;                      /* newton: P tiles of `tile` bodies, P * tile >= N */
    int tile;                       /* a multiple of block * R */
} tuning;

/* The leapfrog's kick + drift and kick kernels of single precision are the
 * lesson's (shared.cu): v += a dt/2; x += v dt before the forces, v += a dt/2
 * after them (the latter only when the force kernel does not fuse it);
 * double and mixed have theirs in tuned_kernels.cuh. */
__global__ void kick_drift_kernel(float4 *pos, float3 *vel, const float3 *acc, int n, float dt);
__global__ void kick_kernel(float3 *vel, const float3 *acc, int n, float dt);

typedef struct gpu_ctx {
    int n, poison, precision;
    float eps2, dt;                  /* single, mixed: the force kernels' */
    double eps2d, dtd;               /* double; the kicks of double and mixed */
    tuning t;
    void *pos;                       /* device: the force kernels' bodies (x, y, z, m): float4
                                      * (mixed: relative to origin) or nb_double4 (double) */
    nb_double4 *state;                  /* device: double, mixed: the positions and masses (double:
                                      * pos itself) */
    void *vel, *acc, *out;           /* device: float3 (single) or double3 */
    void *partial;                   /* device: S partial sums per body (S > 1), or newton's P:
                                      * float4 (single) or nb_double4 */
    unsigned *tickets;               /* device: one per block column */
    double origin[3];                /* mixed: pos = state - origin, in float */
    void *host;                      /* staging for copies: n float4 (single) or nb_double4 */
    double bytes;
    cudaStream_t stream;
    cudaEvent_t ev[3];               /* step start, forces start, step end */
    cudaGraphExec_t graph;           /* one step, captured at the first advance */
} gpu_ctx;

static int wide(const gpu_ctx *c) { return c->precision != NB_PREC_SINGLE; }
/* bytes of a body as the kernels read it, of an acceleration or velocity,
 * of a partial sum */
static size_t body_bytes(const gpu_ctx *c) { return c->precision == NB_PREC_DOUBLE ? 32 : 16; }
static size_t vec_bytes(const gpu_ctx *c) { return wide(c) ? 24 : 12; }
static size_t part_bytes(const gpu_ctx *c) { return wide(c) ? 32 : 16; }

static void gpu_destroy(void *p)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (!c) return;
    if (c->state != c->pos) cudaFree(c->state);
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

/* The kernels, once per precision (tuned_kernels.cuh): every top-level name
 * of the file gets the precision's suffix, NB_P(name). */
#define NB_DOUBLE 0
#define NB_MIXED 0
#define NB_P(name) name##_single
#include "tuned_kernels.cuh"
#undef NB_P
#undef NB_DOUBLE
#undef NB_MIXED
#define NB_DOUBLE 1
#define NB_MIXED 0
#define NB_P(name) name##_double
#include "tuned_kernels.cuh"
#undef NB_P
#undef NB_DOUBLE
#undef NB_MIXED
#define NB_DOUBLE 0
#define NB_MIXED 1
#define NB_P(name) name##_mixed
#include "tuned_kernels.cuh"
#undef NB_P
#undef NB_DOUBLE
#undef NB_MIXED

/* Launch the force kernel on c->stream: accelerations into acc, and the
 * closing kick when vel != NULL. */
static int forces(gpu_ctx *c, void *acc, void *vel)
{
    if (c->precision == NB_PREC_DOUBLE) return launch_forces_double(c, acc, vel);
    if (c->precision == NB_PREC_MIXED) return launch_forces_mixed(c, acc, vel);
    return launch_forces_single(c, acc, vel);
}

/* One leapfrog step on c->stream, with its three events. */
static int enqueue_step(gpu_ctx *c, unsigned ev_flags)
{
    if (c->precision == NB_PREC_DOUBLE) return launch_step_double(c, ev_flags);
    if (c->precision == NB_PREC_MIXED) return launch_step_mixed(c, ev_flags);
    return launch_step_single(c, ev_flags);
}

/* The most threads per block a force kernel (pairs: the each-pair-once
 * one) of this precision takes with R bodies per thread: its registers. */
static int max_threads(const gpu_ctx *c, int pairs, int r, int *threads)
{
    if (c->precision == NB_PREC_DOUBLE) return max_threads_double(pairs, r, threads);
    if (c->precision == NB_PREC_MIXED) return max_threads_mixed(pairs, r, threads);
    return max_threads_single(pairs, r, threads);
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
 * pulls, P per body, 16 bytes each (32 in double and mixed), in at most half
 * the free device memory (else fewer, longer tiles).  The picker's own
 * choice (auto) falls back to the tile kernel when that leaves fewer than 8
 * tiles: the pairs would not fill the GPU. */
static int pick_tiles(const gpu_ctx *c, tuning *t, long long n, int autopick)
{
    for (;;) {                                       /* registers: R bodies must fit the block */
        int most = 0, rc = max_threads(c, 1, t->r, &most);
        if (rc) return rc;
        if (t->block <= most || t->r == 1) break;
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
        if (p == 1 || (double)p * p * tile * part_bytes(c) <= 0.5 * (double)free_b) break;
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
 *    (pick_tiles), unless that leaves fewer than 8 tiles;
 *  - double and mixed, each pair once from 65536 bodies: block 256 (their
 *    sums take more registers: twice as wide, or compensated), R = 2 in
 *    double (the FP64 pipe, not the shuffles, is the limit), R = 4 in mixed
 *    (handouts/08_precision.md; NB_TUNE sweeps the others).
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
        t->block = n < 32768 ? 128 : n < 65536 || wide(c) ? 256 : 512;
        t->r = n < 32768 || c->precision == NB_PREC_DOUBLE ? 2 : 4;
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
        int rc = pick_tiles(c, t, n, newton_auto && !newton_set);
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
        int most = 0, rc = max_threads(c, 0, t->r, &most);
        if (rc) return rc;
        if (t->block <= most || t->r == 1) break;
        t->r /= 2;
    }
    /* slices of at least TILE_UNROLL sources, a multiple of it */
    long long len = (n + t->slices - 1) / t->slices;
    len = (len + TILE_UNROLL - 1) / TILE_UNROLL * TILE_UNROLL;
    t->slice_len = (int)len;
    t->slices = (int)((n + len - 1) / len);
    return NB_OK;
}

/* The each-pair-once kernel's shared memory past the default 48 KiB (double,
 * blocks of more than 768): asked for, once, before any launch. */
static int allow_shared(gpu_ctx *c)
{
    if (!c->t.newton || c->precision != NB_PREC_DOUBLE) return NB_OK;
    size_t shm = (size_t)c->t.block * 2 * sizeof(nb_double4);
    if (shm <= 48 * 1024) return NB_OK;
    if (c->t.r == 4)
        NB_CUDA(cudaFuncSetAttribute(forces_pairs_kernel_double<4>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    else if (c->t.r == 2)
        NB_CUDA(cudaFuncSetAttribute(forces_pairs_kernel_double<2>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    else
        NB_CUDA(cudaFuncSetAttribute(forces_pairs_kernel_double<1>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    return NB_OK;
}

/* mixed: the origin of the force kernels' positions, per axis: 0 where the
 * bodies' extent holds 0, else the float nearest its middle (the
 * differences of float positions near it stay exact). */
static void pick_origin(const nb_state *s, double origin[3])
{
    const float *v[3] = { s->x, s->y, s->z };
    for (int q = 0; q < 3; q++) {
        double lo = v[q][0], hi = v[q][0];
        for (long long i = 1; i < s->n; i++) {
            lo = v[q][i] < lo ? v[q][i] : lo;
            hi = v[q][i] > hi ? v[q][i] : hi;
        }
        origin[q] = lo <= 0.0 && hi >= 0.0 ? 0.0 : (double)(float)(0.5 * (lo + hi));
    }
}

/* The bodies from s onto the device, in c's precision. */
static int upload(gpu_ctx *c, const nb_state *s)
{
    size_t n = (size_t)c->n;
    if (!wide(c)) {
        float4 *h = (float4 *)c->host;
        for (size_t i = 0; i < n; i++) h[i] = make_float4(s->x[i], s->y[i], s->z[i], s->m[i]);
        NB_CUDA(cudaMemcpy(c->pos, h, n * sizeof(float4), cudaMemcpyHostToDevice));
        float3 *v3 = (float3 *)c->host;
        for (size_t i = 0; i < n; i++) v3[i] = make_float3(s->vx[i], s->vy[i], s->vz[i]);
        NB_CUDA(cudaMemcpy(c->vel, v3, n * sizeof(float3), cudaMemcpyHostToDevice));
        return NB_OK;
    }
    nb_double4 *h = (nb_double4 *)c->host;
    for (size_t i = 0; i < n; i++) h[i] = make_nb_double4(s->x[i], s->y[i], s->z[i], s->m[i]);
    NB_CUDA(cudaMemcpy(c->state, h, n * sizeof(nb_double4), cudaMemcpyHostToDevice));
    if (c->precision == NB_PREC_MIXED) {
        float4 *f = (float4 *)c->host;                 /* the float bodies, relative to the origin */
        for (size_t i = 0; i < n; i++)
            f[i] = make_float4((float)(s->x[i] - c->origin[0]), (float)(s->y[i] - c->origin[1]),
                               (float)(s->z[i] - c->origin[2]), s->m[i]);
        NB_CUDA(cudaMemcpy(c->pos, f, n * sizeof(float4), cudaMemcpyHostToDevice));
    }
    double3 *v3 = (double3 *)c->host;
    for (size_t i = 0; i < n; i++) v3[i] = make_double3(s->vx[i], s->vy[i], s->vz[i]);
    NB_CUDA(cudaMemcpy(c->vel, v3, n * sizeof(double3), cudaMemcpyHostToDevice));
    return NB_OK;
}

static int gpu_setup(gpu_ctx *c, const nb_state *s, int block_opt)
{
    size_t n = (size_t)c->n;
    int rc;
    if ((rc = pick_tuning(c, block_opt, &c->t, 1)) || (rc = allow_shared(c))) return rc;
    if ((rc = nb_cuda_malloc(&c->pos, n * body_bytes(c), "positions and masses", &c->bytes)) ||
        (rc = nb_cuda_malloc(&c->vel, n * vec_bytes(c), "velocities", &c->bytes)) ||
        (rc = nb_cuda_malloc(&c->acc, n * vec_bytes(c), "accelerations", &c->bytes)) ||
        (rc = nb_cuda_malloc(&c->out, n * vec_bytes(c), "accelerations (copy)", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->tickets, (size_t)columns(c) * sizeof(unsigned), "tickets",
                             &c->bytes)))
        return rc;
    if (c->precision == NB_PREC_DOUBLE) c->state = (nb_double4 *)c->pos;
    if (c->precision == NB_PREC_MIXED &&
        (rc = nb_cuda_malloc((void **)&c->state, n * sizeof(nb_double4), "positions and masses in double",
                             &c->bytes)))
        return rc;
    if (c->t.newton &&
        (rc = nb_cuda_malloc(&c->partial, (size_t)c->t.tiles * c->t.tiles * c->t.tile * part_bytes(c),
                             "partial pulls of the tiles (newton)", &c->bytes)))
        return rc;
    if (!c->t.newton && c->t.slices > 1 &&
        (rc = nb_cuda_malloc(&c->partial, (size_t)c->t.slices * n * part_bytes(c),
                             "partial sums of the j-slices", &c->bytes)))
        return rc;
    NB_CUDA(cudaMemset(c->tickets, 0, (size_t)columns(c) * sizeof(unsigned)));
    NB_CUDA(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    for (int k = 0; k < 3; k++) NB_CUDA(cudaEventCreate(&c->ev[k]));
    c->host = malloc(n * (wide(c) ? sizeof(nb_double4) : sizeof(float4)));
    if (!c->host) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %zu bodies", n);
    if (c->precision == NB_PREC_MIXED) pick_origin(s, c->origin);
    if ((rc = upload(c, s))) return rc;
    if ((rc = forces(c, c->acc, NULL))) return rc;               /* a(x0) */
    NB_CUDA(cudaStreamSynchronize(c->stream));
    return NB_OK;
}

/* Host bytes per body: the state (28), the staging buffer (16: float4; 32:
 * nb_double4), --check's accelerations (12) or, in double and mixed, its double
 * state and accelerations (72). */
#define HOST_BYTES_PER_BODY (double)(10 * sizeof(float) + sizeof(float4))
#define HOST_BYTES_PER_BODY_WIDE (double)(7 * sizeof(float) + sizeof(nb_double4) + 9 * sizeof(double))

static int gpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    gpu_ctx *c = (gpu_ctx *)calloc(1, sizeof *c);
    *ctx = c;                        /* the caller destroys it, also after a failure */
    if (!c) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    c->n = (int)s->n;
    c->precision = o->precision;
    c->eps2 = (float)(o->eps * o->eps);
    c->dt = (float)o->dt;
    c->eps2d = o->eps * o->eps;
    c->dtd = o->dt;
    c->poison = o->poison;
    return gpu_setup(c, s, o->block);
}

/* The accelerations of the current positions into c->out, on the host in
 * c->host (float3 or double3). */
static int accel_host(gpu_ctx *c)
{
    int rc = forces(c, c->out, NULL);
    if (rc) return rc;
    NB_CUDA(cudaStreamSynchronize(c->stream));
    NB_CUDA(cudaMemcpy(c->host, c->out, (size_t)c->n * vec_bytes(c), cudaMemcpyDeviceToHost));
    return NB_OK;
}

static int gpu_accel(void *p, float *ax, float *ay, float *az)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc = accel_host(c);
    if (rc) return rc;
    if (wide(c)) {
        const double3 *a3 = (const double3 *)c->host;
        for (int i = 0; i < c->n; i++) { ax[i] = (float)a3[i].x; ay[i] = (float)a3[i].y; az[i] = (float)a3[i].z; }
    } else {
        const float3 *a3 = (const float3 *)c->host;
        for (int i = 0; i < c->n; i++) { ax[i] = a3[i].x; ay[i] = a3[i].y; az[i] = a3[i].z; }
    }
    return NB_OK;
}

static int gpu_accel64(void *p, double *ax, double *ay, double *az)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc = accel_host(c);
    if (rc) return rc;
    if (wide(c)) {
        const double3 *a3 = (const double3 *)c->host;
        for (int i = 0; i < c->n; i++) { ax[i] = a3[i].x; ay[i] = a3[i].y; az[i] = a3[i].z; }
    } else {
        const float3 *a3 = (const float3 *)c->host;
        for (int i = 0; i < c->n; i++) { ax[i] = a3[i].x; ay[i] = a3[i].y; az[i] = a3[i].z; }
    }
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
    size_t n = (size_t)c->n;
    if (!wide(c)) return nb_cuda_download_float4((const float4 *)c->pos, (const float3 *)c->vel, c->n,
                                                 (float4 *)c->host, s);
    nb_double4 *x = (nb_double4 *)c->host;
    NB_CUDA(cudaMemcpy(x, c->state, n * sizeof(nb_double4), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) { s->x[i] = (float)x[i].x; s->y[i] = (float)x[i].y; s->z[i] = (float)x[i].z; }
    double3 *v = (double3 *)c->host;
    NB_CUDA(cudaMemcpy(v, c->vel, n * sizeof(double3), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) { s->vx[i] = (float)v[i].x; s->vy[i] = (float)v[i].y; s->vz[i] = (float)v[i].z; }
    return NB_OK;
}

static int gpu_state64(void *p, double *x, double *y, double *z, double *vx, double *vy, double *vz)
{
    gpu_ctx *c = (gpu_ctx *)p;
    size_t n = (size_t)c->n;
    if (!wide(c)) {
        float4 *h = (float4 *)c->host;
        NB_CUDA(cudaMemcpy(h, c->pos, n * sizeof(float4), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) { x[i] = h[i].x; y[i] = h[i].y; z[i] = h[i].z; }
        float3 *v3 = (float3 *)c->host;
        NB_CUDA(cudaMemcpy(v3, c->vel, n * sizeof(float3), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) { vx[i] = v3[i].x; vy[i] = v3[i].y; vz[i] = v3[i].z; }
        return NB_OK;
    }
    nb_double4 *h = (nb_double4 *)c->host;
    NB_CUDA(cudaMemcpy(h, c->state, n * sizeof(nb_double4), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) { x[i] = h[i].x; y[i] = h[i].y; z[i] = h[i].z; }
    double3 *v3 = (double3 *)c->host;
    NB_CUDA(cudaMemcpy(v3, c->vel, n * sizeof(double3), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) { vx[i] = v3[i].x; vy[i] = v3[i].y; vz[i] = v3[i].z; }
    return NB_OK;
}

/* The bodies on the device, for the GL view (nb_step.h): single only (double
 * and mixed hold no float copy of the state there: the view downloads). */
static int gpu_bodies(void *p, nb_bodies *b)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (wide(c)) {
        memset(b, 0, sizeof *b);
        return NB_OK;
    }
    float4 *pos = (float4 *)c->pos;
    float3 *vel = (float3 *)c->vel;
    *b = (nb_bodies){ c->n, &pos->x, &pos->y, &pos->z, &pos->w, &vel->x, &vel->y, &vel->z, 4, 4, 3 };
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
    if (c->precision == NB_PREC_MIXED)
        fprintf(out, "    mixed: the state in double, the force kernels' bodies in float relative to "
                "(%.9g, %.9g, %.9g)\n", c->origin[0], c->origin[1], c->origin[2]);
}

/* Device bytes per body: the bodies, and the partial sums of up to 64
 * slices (the picker keeps S * N <= 2^22: at most 64 per body from N = 65536
 * on, and then only 64 MiB in all).  Each pair once adds P partial pulls per
 * body, sized by pick_tiles() against the free memory after this check.
 * double: nb_double4 bodies and double3 vectors; mixed: float4 bodies beside
 * the nb_double4 state, double3 vectors. */
#define BYTES_PER_BODY (sizeof(float4) + 3 * sizeof(float3))
#define BYTES_PER_BODY_DOUBLE (sizeof(nb_double4) + 3 * sizeof(double3))
#define BYTES_PER_BODY_MIXED (sizeof(float4) + sizeof(nb_double4) + 3 * sizeof(double3))

static int gpu_probe(const nb_options *o)
{
    int rc = nb_cuda_probe();
    double bytes = !o || o->precision == NB_PREC_SINGLE ? (double)BYTES_PER_BODY
                 : o->precision == NB_PREC_DOUBLE ? (double)BYTES_PER_BODY_DOUBLE : (double)BYTES_PER_BODY_MIXED;
    if (!rc && o) rc = nb_cuda_fits(o->n, bytes);
    return rc;
}

/* --precision double and mixed: the same code, with the memory they need
 * (nb_main() runs this table then, nb_step.precision_variant). */
static const nb_step nb_step04_tuned_wide = {
    .name = "step04_tuned",
    .idea = "shared-memory tiling, tuned: register tiling, j-slices, fused kick, CUDA graphs, "
            "each pair once",
    .options = NB_OPT_BLOCK | NB_OPT_PRECISION,
    .tree = 0,
    .probe = gpu_probe,
    .init = gpu_init,
    .accel = gpu_accel,
    .advance = gpu_advance,
    .download = gpu_download,
    .info = gpu_info,
    .report = gpu_report,
    .cells = NULL,
    .destroy = gpu_destroy,
    .cpu_variant = NULL,
    .host_bytes_per_body = HOST_BYTES_PER_BODY_WIDE,
    .device_bytes_per_body = (double)BYTES_PER_BODY_MIXED,
    .bodies = gpu_bodies,
    .state64 = gpu_state64,
    .accel64 = gpu_accel64,
    .precision_variant = NULL,
};

extern "C" const nb_step nb_step04_tuned = {
    .name = "step04_tuned",
    .idea = "shared-memory tiling, tuned: register tiling, j-slices, fused kick, CUDA graphs, "
            "each pair once",
    .options = NB_OPT_BLOCK | NB_OPT_PRECISION,
    .tree = 0,
    .probe = gpu_probe,
    .init = gpu_init,
    .accel = gpu_accel,
    .advance = gpu_advance,
    .download = gpu_download,
    .info = gpu_info,
    .report = gpu_report,
    .cells = NULL,
    .destroy = gpu_destroy,
    .cpu_variant = NULL,
    .host_bytes_per_body = HOST_BYTES_PER_BODY,
    .device_bytes_per_body = (double)BYTES_PER_BODY,
    .bodies = gpu_bodies,
    .state64 = gpu_state64,
    .accel64 = gpu_accel64,
    .precision_variant = &nb_step04_tuned_wide,
};
