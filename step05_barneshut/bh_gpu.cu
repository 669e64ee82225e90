/* bh_gpu.cu -- step05_barneshut: the Barnes-Hut octree as a GPU kernel pipeline.
 *
 * The last file of the step: read bh_tree.h, bh_tree.c and bh_cpu.c first;
 * the CPU code there builds and walks the very same tree one body at a time.
 * The table nb_step05_gpu (in bh_gpu_host.cuh, included at the end, with the
 * rest of the host side) is the program's (main.c); its cpu_variant is the
 * CPU code.  C-style CUDA like the other steps: plain
 * structs, static functions; extern "C" only for what C code links to.
 *
 * After M. Burtscher and K. Pingali, "An Efficient CUDA Implementation of the
 * Tree-Based Barnes Hut n-Body Algorithm", GPU Computing Gems Emerald Edition
 * (2011), ch. 6: one step is
 *   integrate (kick + drift) -> bounding box -> tree build -> summarize
 *   (centre of mass) -> sort (bodies in tree order) -> force -> integrate (kick)
 * written anew for 3D, for independent thread scheduling (sm_70+) and for
 * bit-reproducible results.  What differs from the paper, and why:
 *  - build: lock-based insertion as in the paper (a child slot is locked with
 *    CAS, the new subtree built privately, published with a fence and an
 *    atomic exchange); acquire loads on the way down.  A thread only waits
 *    for a lock held by a running thread that holds no other lock, so it
 *    cannot deadlock, in a warp (ITS) or across blocks.  Depth cap
 *    BH_MAXDEPTH: below it a leaf holds a list of bodies sorted by index
 *    (coincident bodies), so the tree is a function of the positions alone.
 *  - summarize: bottom-up without waiting: each cell counts its child cells;
 *    the thread that completes a cell's last child goes on with the parent
 *    (atomic counter, fences), as in Karras (2012).  Children are summed in
 *    the fixed order 0..7, so cell masses are deterministic.
 *  - sort: top-down as in the paper: a cell waits until its parent gave it
 *    its start index.  Parents have smaller indices than their children and
 *    the grid is sized to be fully resident (occupancy API), so every wait
 *    ends.  It also writes the "more" (first child) and "next" (next
 *    sibling, else the parent's next) links of a stackless traversal.
 *  - force: one warp walks the tree for 32 bodies that are neighbours in tree
 *    order, with one decision per node for the whole warp (__all_sync: a
 *    cell is used as a point mass only if it is far from all 32 bodies, the
 *    paper's warp-uniform traversal).  The links make the walk stackless;
 *    every lane runs the same loop, lanes past N included, so full-mask votes
 *    are valid.
 * Opening criterion (the paper's code's): bh_open2() and bh_far() in
 * bh_tree.h -- a cell is measured by its parent's width; theta = 0 opens
 * everything (direct sum).
 *
 * Build:  nvcc -O3 -ftz=true -arch=sm_90 -c bh_gpu.cu  (see common/config.mk)
 *
 * Napkin math (N = 1M Plummer, theta = 0.5, H100): ~2-3 thousand
 * interactions per body = 2.5e9 interactions per step; each costs ~13
 * instructions plus the walk (~10 per node, shared by the warp): ~3e10
 * thread-instructions = 1e9 warp-instructions / (132 SMs x 4 x 1.7 GHz)
 * = 1.1 ms at full issue rate; the walk is latency-bound (one dependent
 * L1/L2 load per node), so expect 3-10x that.  Build and summarize touch
 * each body a few times: well under 1 ms at 3 TB/s. */
#include <cuda_runtime.h>
#include <cuda/atomic>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bh_cpu.h"
#include "bh_gpu.h"
#include "nb_cuda.h"
#include "nb_physics.h"

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

/* Device-side status of one build (one small struct, read back each step). */
typedef struct bh_status {
    int ncells;                     /* cells allocated */
    int overflow;                   /* a build ran out of cells */
    int maxdepth;                   /* deepest cell */
    unsigned int blocks_done;       /* bounding box: blocks finished */
    int nonfinite_seen;             /* bounding box: a block met a non-finite position */
    int nonfinite;                  /* the last bounding box met one: no tree was built */
    unsigned long long bb, bc;      /* interactions: body-body, body-cell */
} bh_status;

/* The device arrays, passed by value to every kernel.  Per-cell links are
 * one 16-byte load in the force walk. */
typedef struct bh_dev {
    int n, cap;
    int lo, hi;                     /* k_force walks tree order [lo, hi): 0, n; step06 a slice */
    float4 *pos;                    /* x, y, z, m */
    float *vx, *vy, *vz, *ax, *ay, *az;
    int *chain;                     /* next body of the same leaf */
    int *bnext;                     /* walk: the node after body b */
    int *sorted;                    /* bodies in tree order */
    int *child;                     /* 8 per cell */
    float4 *geom;                   /* cube: centre, half */
    float4 *mass;                   /* centre of mass, mass */
    int4 *link;                     /* more (first child), next, open^2 (float bits), count */
    int *parent, *pending, *start;
    float4 *partial;                /* bounding box: 2 per block */
    bh_status *st;
} bh_dev;

enum { K_DRIFT, K_BBOX, K_BUILD, K_SUM, K_SORT, K_FORCE, K_KICK, K_EVENTS };
#define K_PHASES 6                  /* per-kernel split of --bench (k_names, bh_gpu_host.cuh) */

/* Acquire load and release store of one int in global memory, device scope
 * (ld.acquire.gpu / st.release.gpu).  cuda::atomic_ref from <cuda/atomic> is
 * the one C++ library type kept here: it states the memory order in the
 * source and lets the compiler emit exactly these instructions, where
 * volatile or __threadfence() pairs would be stronger or weaker than meant.
 * The kernels see only these two helpers. */
static __device__ __forceinline__ int ld_acquire(int *p)
{
    return cuda::atomic_ref<int, cuda::thread_scope_device>(*p).load(cuda::memory_order_acquire);
}
static __device__ __forceinline__ void st_release(int *p, int v)
{
    cuda::atomic_ref<int, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}

/* ---- integrate ---------------------------------------------------------- */

static __global__ void k_drift(bh_dev d, float hdt, float dt)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        float vx = d.vx[i] + d.ax[i] * hdt, vy = d.vy[i] + d.ay[i] * hdt;
        float vz = d.vz[i] + d.az[i] * hdt;
        float4 p = d.pos[i];
        p.x += vx * dt; p.y += vy * dt; p.z += vz * dt;
        d.pos[i] = p;
        d.vx[i] = vx; d.vy[i] = vy; d.vz[i] = vz;
    }
}

static __global__ void k_kick(bh_dev d, float hdt)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        d.vx[i] += d.ax[i] * hdt; d.vy[i] += d.ay[i] * hdt; d.vz[i] += d.az[i] * hdt;
    }
}

/* ---- bounding box ------------------------------------------------------- */
/* Block min/max with shuffles (every lane of every warp takes part: blocks
 * are whole warps), one partial per block; the last block to finish (ticket
 * after a fence) reduces the partials and sets up the root and the status.
 * min/max are exact, so the box does not depend on the order.  fminf and
 * fmaxf skip NaN, so a blown-up position would be left out of the box and
 * then sent down one octant to the depth cap (with every other NaN, into one
 * leaf list: a build of O(N^2) locked steps); the blocks report non-finite
 * positions instead, k_build builds nothing and the host fails the step. */
#define BBOX_THREADS 512
static __global__ void __launch_bounds__(BBOX_THREADS) k_bbox(bh_dev d)
{
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    int bad = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        float4 p = d.pos[i];
        bad |= !(isfinite(p.x) && isfinite(p.y) && isfinite(p.z));
        lo[0] = fminf(lo[0], p.x); hi[0] = fmaxf(hi[0], p.x);
        lo[1] = fminf(lo[1], p.y); hi[1] = fmaxf(hi[1], p.y);
        lo[2] = fminf(lo[2], p.z); hi[2] = fmaxf(hi[2], p.z);
        d.chain[i] = BH_EMPTY;
    }
    for (int off = 16; off > 0; off >>= 1)
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], __shfl_xor_sync(0xffffffffu, lo[a], off));
            hi[a] = fmaxf(hi[a], __shfl_xor_sync(0xffffffffu, hi[a], off));
        }
    __shared__ float s_lo[3][BBOX_THREADS / 32], s_hi[3][BBOX_THREADS / 32];
    __shared__ bool s_last;
    int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0)
        for (int a = 0; a < 3; a++) { s_lo[a][w] = lo[a]; s_hi[a][w] = hi[a]; }
    bad = __syncthreads_or(bad);
    if (threadIdx.x == 0) {
        if (bad) atomicExch(&d.st->nonfinite_seen, 1);
        for (int v = 1; v < (int)(blockDim.x >> 5); v++)
            for (int a = 0; a < 3; a++) {
                lo[a] = fminf(lo[a], s_lo[a][v]);
                hi[a] = fmaxf(hi[a], s_hi[a][v]);
            }
        d.partial[2 * blockIdx.x] = make_float4(lo[0], lo[1], lo[2], 0);
        d.partial[2 * blockIdx.x + 1] = make_float4(hi[0], hi[1], hi[2], 0);
        __threadfence();
        s_last = atomicAdd(&d.st->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last || threadIdx.x != 0) return;
    __threadfence();
    for (unsigned b = 0; b < gridDim.x; b++) {
        float4 l = __ldcg(&d.partial[2 * b]), h = __ldcg(&d.partial[2 * b + 1]);
        lo[0] = fminf(lo[0], l.x); lo[1] = fminf(lo[1], l.y); lo[2] = fminf(lo[2], l.z);
        hi[0] = fmaxf(hi[0], h.x); hi[1] = fmaxf(hi[1], h.y); hi[2] = fmaxf(hi[2], h.z);
    }
    float cx, cy, cz, half;
    bh_root(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], &cx, &cy, &cz, &half);
    d.geom[0] = make_float4(cx, cy, cz, half);
    for (int o = 0; o < 8; o++) d.child[o] = BH_EMPTY;
    d.parent[0] = -1;
    d.pending[0] = 0;
    d.start[0] = 0;
    d.link[0] = make_int4(BH_EMPTY, BH_EMPTY, 0, 0);
    d.st->ncells = 1;
    d.st->overflow = 0;
    d.st->maxdepth = 0;
    d.st->blocks_done = 0;
    d.st->nonfinite = __ldcg(&d.st->nonfinite_seen);
    d.st->nonfinite_seen = 0;
    d.st->bb = 0;
    d.st->bc = 0;
}

/* ---- tree build --------------------------------------------------------- */

/* Insert body i into the sorted list headed by 'head' (slot locked by us). */
static __device__ int list_insert(const bh_dev *d, int head, int i)
{
    if (i < head) { d->chain[i] = head; return i; }
    int a = head, nx;
    while ((nx = __ldcg(&d->chain[a])) != BH_EMPTY && nx < i) a = nx;
    d->chain[i] = nx;
    d->chain[a] = i;
    return head;
}

/* The slot (cell, oct) held body b; we hold its lock.  Build the private
 * subtree that holds b and i and return what the slot must point to. */
static __device__ int split(const bh_dev *d, int cell, int dep, float cx, float cy, float cz,
                            float h, int b, int i, float4 p)
{
    if (dep + 1 >= BH_MAXDEPTH) return list_insert(d, b, i);
    float4 q = d->pos[b];
    int first = -1, prev = -1, prevoct = 0, cdep = dep + 1;
    for (;;) {
        int k = atomicAdd(&d->st->ncells, 1);
        if (k >= d->cap) {                      /* out of cells: undo, host regrows */
            atomicExch(&d->st->overflow, 1);
            return b;
        }
        for (int o = 0; o < 8; o++) d->child[k * 8 + o] = BH_EMPTY;
        d->geom[k] = make_float4(cx, cy, cz, h);
        d->parent[k] = prev >= 0 ? prev : cell;
        d->pending[k] = 0;
        d->start[k] = -1;
        if (prev >= 0) { d->child[prev * 8 + prevoct] = d->n + k; d->pending[prev] = 1; }
        else first = k;
        int ob = bh_octant(q.x, q.y, q.z, cx, cy, cz), oi = bh_octant(p.x, p.y, p.z, cx, cy, cz);
        if (ob != oi) {
            d->child[k * 8 + ob] = b;
            d->child[k * 8 + oi] = i;
            break;
        }
        if (cdep + 1 >= BH_MAXDEPTH) {
            d->child[k * 8 + ob] = list_insert(d, b, i);
            break;
        }
        prev = k; prevoct = ob;
        bh_child(ob, &cx, &cy, &cz, &h);
        cdep++;
    }
    atomicMax(&d->st->maxdepth, cdep);
    atomicAdd(&d->pending[cell], 1);            /* the cell gains a child cell */
    return d->n + first;
}

static __global__ void k_build(bh_dev d)
{
    if (d.st->nonfinite) return;                /* no tree of NaN: the host fails the step */
    const float4 rg = d.geom[0];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        const float4 p = d.pos[i];
        int cell = 0, dep = 0;
        float cx = rg.x, cy = rg.y, cz = rg.z, h = rg.w;
        for (;;) {
            int oct = bh_octant(p.x, p.y, p.z, cx, cy, cz);
            int *slot = &d.child[cell * 8 + oct];
            int ch = ld_acquire(slot);
            if (ch >= d.n) {                    /* a cell: go down */
                cell = ch - d.n;
                bh_child(oct, &cx, &cy, &cz, &h);
                dep++;
                continue;
            }
            if (ch == BH_LOCKED) { __nanosleep(32); continue; }
            if (ch == BH_EMPTY) {
                if (atomicCAS(slot, BH_EMPTY, i) == BH_EMPTY) break;
                continue;
            }
            if (atomicCAS(slot, ch, BH_LOCKED) != ch) continue;
            __threadfence();                    /* acquire: see the list behind ch */
            bh_child(oct, &cx, &cy, &cz, &h);
            int pub = split(&d, cell, dep, cx, cy, cz, h, ch, i, p);
            __threadfence();                    /* release the new cells, then unlock */
            atomicExch(slot, pub);
            break;
        }
    }
}

/* ---- summarize ---------------------------------------------------------- */
/* A cell whose children are all bodies starts; after writing a cell, a
 * thread decrements its parent's count of unfinished child cells and goes on
 * with the parent only if it finished the last one.  No thread waits.
 * The sums are in double, as in bh_cpu.c's summarize() (a float sum of
 * m x over a long leaf list moves a cluster's centre of mass): a float times
 * a float is exact in double, so an FMA changes nothing and both codes get
 * the same bits. */
static __global__ void k_summarize(bh_dev d, float theta)
{
    const int ncells = d.st->ncells;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ncells; c += gridDim.x * blockDim.x) {
        bool start = true;
        for (int o = 0; o < 8; o++) start &= d.child[c * 8 + o] < d.n;
        if (!start) continue;
        int k = c;
        for (;;) {
            double m = 0, sx = 0, sy = 0, sz = 0;
            int cnt = 0;
            for (int o = 0; o < 8; o++) {
                int ch = d.child[k * 8 + o];
                if (ch == BH_EMPTY) continue;
                if (ch < d.n) {
                    for (int b = ch; b != BH_EMPTY; b = d.chain[b]) {
                        float4 q = d.pos[b];
                        m += q.w; sx += (double)q.w * q.x; sy += (double)q.w * q.y;
                        sz += (double)q.w * q.z;
                        cnt++;
                    }
                } else {
                    int kk = ch - d.n;
                    float4 q = __ldcg(&d.mass[kk]);
                    m += q.w; sx += (double)q.w * q.x; sy += (double)q.w * q.y;
                    sz += (double)q.w * q.z;
                    cnt += __ldcg(&d.link[kk].w);
                }
            }
            float4 g = d.geom[k];
            float4 r = m > 0 ? make_float4((float)(sx / m), (float)(sy / m), (float)(sz / m),
                                           (float)m)
                             : make_float4(g.x, g.y, g.z, 0.f);
            float open2 = bh_open2(g.x, g.y, g.z, g.w, r.x, r.y, r.z, theta);
            d.mass[k] = r;
            d.link[k].z = __float_as_int(open2);
            d.link[k].w = cnt;
            __threadfence();
            int par = d.parent[k];
            if (par < 0 || atomicSub(&d.pending[par], 1) != 1) break;
            __threadfence();
            k = par;
        }
    }
}

/* ---- sort --------------------------------------------------------------- */
/* Cells in index order (parents first).  A cell waits for its start index,
 * then hands out consecutive ranges to its children in the order 0..7 and
 * writes the walk's links.  The grid is fully resident (see launch). */

/* Child 'node' of a cell gets its place in the tree order from s on, and
 * 'follow' as the node the walk visits after it: a leaf list is written out
 * (each body's next is the next body of the list, the last one's 'follow');
 * a cell gets its next link and its start index (released: its own thread
 * waits for it).  Returns the place after the node's bodies. */
static __device__ __forceinline__ int emit(const bh_dev *d, int node, int follow, int s)
{
    if (node < d->n) {
        for (int b = node; b != BH_EMPTY;) {
            int nb = d->chain[b];
            d->sorted[s++] = b;
            d->bnext[b] = nb != BH_EMPTY ? nb : follow;
            b = nb;
        }
    } else {
        int kk = node - d->n;
        d->link[kk].y = follow;
        st_release(&d->start[kk], s);
        s += d->link[kk].w;
    }
    return s;
}

static __global__ void k_sort(bh_dev d)
{
    const int ncells = d.st->ncells;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ncells; c += gridDim.x * blockDim.x) {
        int s;
        while ((s = ld_acquire(&d.start[c])) < 0) __nanosleep(64);
        const int after = __ldcg(&d.link[c].y);   /* written by the parent before start */
        int prev = BH_EMPTY;
#pragma unroll
        for (int o = 0; o < 8; o++) {
            int ch = d.child[c * 8 + o];
            if (ch == BH_EMPTY) continue;
            if (prev == BH_EMPTY) d.link[c].x = ch;
            else s = emit(&d, prev, ch, s);
            prev = ch;
        }
        emit(&d, prev, after, s);
    }
}

/* ---- force -------------------------------------------------------------- */

static __global__ void k_force(bh_dev d, float eps2)
{
    /* BEGIN SOLUTION
     * One thread per body k of the tree order, i = d.sorted[k] (lanes past N take n - 1 and
     * write nothing; a warp entirely past N returns).  Start at node = n (the root) and loop
     * until BH_EMPTY: a body (node < n) is one nb_interact() with d.pos[node], then
     * node = d.bnext[node]; a cell c = node - n is used as one body (d.mass[c]) and skipped
     * (node = d.link[c].y) only if __all_sync() says that bh_far(distance^2,
     * __int_as_float(d.link[c].z)) holds on all 32 lanes, else opened (node = d.link[c].x).
     * Write d.ax/ay/az[i]; add the warp's body-body and body-cell counts to d.st->bb and
     * d.st->bc.  See handouts/05_barneshut.md.
     */
    /* BLANK: (void)d; (void)eps2; */
    const int n = d.n;
    const int k = d.lo + blockIdx.x * blockDim.x + threadIdx.x;
    const bool valid = k < d.hi;
    if (__all_sync(0xffffffffu, !valid)) return;   /* a warp past the range (uniform) */
    const int i = __ldg(&d.sorted[k < n ? k : n - 1]);
    const float4 p = __ldg(&d.pos[i]);
    float ax = 0, ay = 0, az = 0;
    int nbb = 0, nbc = 0;
    int node = n;                               /* the root */
    while (node != BH_EMPTY) {
        if (node < n) {
            float4 q = __ldg(&d.pos[node]);
            nb_interact(p.x, p.y, p.z, q.x, q.y, q.z, q.w, eps2, &ax, &ay, &az);
            nbb++;
            node = __ldg(&d.bnext[node]);
        } else {
            int c = node - n;
            float4 q = __ldg(&d.mass[c]);
            int4 l = __ldg(&d.link[c]);
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            bool far = bh_far(dx * dx + dy * dy + dz * dz, __int_as_float(l.z));
            if (__all_sync(0xffffffffu, far)) {
                nb_interact(p.x, p.y, p.z, q.x, q.y, q.z, q.w, eps2, &ax, &ay, &az);
                nbc++;
                node = l.y;
            } else {
                node = l.x;
            }
        }
    }
    if (valid) { d.ax[i] = ax; d.ay[i] = ay; d.az[i] = az; }
    unsigned long long bb = valid ? nbb : 0, bc = valid ? nbc : 0;
    for (int off = 16; off > 0; off >>= 1) {
        bb += __shfl_xor_sync(0xffffffffu, bb, off);
        bc += __shfl_xor_sync(0xffffffffu, bc, off);
    }
    if ((threadIdx.x & 31) == 0) { atomicAdd(&d.st->bb, bb); atomicAdd(&d.st->bc, bc); }
    /* END SOLUTION */
}

/* ---- host side ---------------------------------------------------------- */

typedef struct bh_gpu {
    bh_dev d;
    float dt, eps2, theta;
    int block, poison;
    int bbox_blocks, build_blocks, sort_blocks, sum_blocks, body_blocks;
    double bytes_bodies, bytes_cells;
    bh_status hst;                  /* after the last build / force */
    cudaEvent_t ev[K_EVENTS + 1];
    double *split[K_PHASES];        /* per timed step: bbox build sum sort force integrate */
    int nsplit, cap_split;
    void *stage;                    /* host staging of the float4/int4 copies */
    size_t stage_bytes;
    float *hcells;                  /* cells(): cx, cy, cz, half, ncells floats each */
} bh_gpu;

/* The cells' memory (bh_gpu_host.cuh): grown by tree_build() when a build
 * runs out of cells. */
static int alloc_cells(bh_gpu *g, int64_t cap);

/* bbox .. sort: the tree of the current positions, in tree order.  ev:
 * record the events K_BBOX..K_SORT (timed steps). */
static int tree_build(bh_gpu *g, bool ev)
{
    for (;;) {
        if (ev) NB_CUDA(cudaEventRecord(g->ev[K_BBOX]));
        k_bbox<<<g->bbox_blocks, BBOX_THREADS>>>(g->d);
        NB_LAUNCHED();
        if (ev) NB_CUDA(cudaEventRecord(g->ev[K_BUILD]));
        k_build<<<g->build_blocks, 256>>>(g->d);
        NB_LAUNCHED();
        NB_CUDA(cudaMemcpy(&g->hst, g->d.st, sizeof g->hst, cudaMemcpyDeviceToHost));
        if (g->hst.nonfinite)
            return nb_fail(NB_EXIT_RUNTIME, "a body's position is not finite (NaN or inf): the "
                           "integration blew up, no tree can hold it");
        if (!g->hst.overflow && g->hst.ncells <= g->d.cap) break;
        /* Out of cells: regrow by half and rebuild (rare: the first steps). */
        int64_t cap = (int64_t)g->d.cap + g->d.cap / 2 + 1024;
        if ((int64_t)g->d.cap >= 2147483647LL - g->d.n)
            return nb_fail(NB_EXIT_RUNTIME, "the tree needs more than 2^31 nodes");
        int rc = alloc_cells(g, cap);
        if (rc) return rc;
    }
    if (ev) NB_CUDA(cudaEventRecord(g->ev[K_SUM]));
    int nc = g->hst.ncells;
    int sum_blocks = imin((nc + 255) / 256, g->sum_blocks);
    k_summarize<<<sum_blocks, 256>>>(g->d, g->theta);
    NB_LAUNCHED();
    if (ev) NB_CUDA(cudaEventRecord(g->ev[K_SORT]));
    k_sort<<<imin((nc + 255) / 256, g->sort_blocks), 256>>>(g->d);
    NB_LAUNCHED();
    return 0;
}

/* bbox .. force: the accelerations of the current positions.  ev: record
 * the events K_BBOX..K_FORCE+1 (timed steps). */
static int tree_force(bh_gpu *g, bool ev)
{
    int rc = tree_build(g, ev);
    if (rc) return rc;
    if (g->poison) {                /* an unwritten acceleration stays NaN */
        NB_CUDA(cudaMemset(g->d.ax, 0xFF, (size_t)g->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.ay, 0xFF, (size_t)g->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.az, 0xFF, (size_t)g->d.n * sizeof(float)));
    }
    if (ev) NB_CUDA(cudaEventRecord(g->ev[K_FORCE]));
    /* BEGIN SOLUTION
     * Launch k_force with one thread per body, g->block threads per block (enough blocks to
     * cover g->d.n), on (g->d, g->eps2), then NB_LAUNCHED().  See handouts/05_barneshut.md.
     */
    /* BLANK: (void)k_force; */
    /* BLANK: return nb_todo("the tree walk k_force and its launch in tree_force()", "05_barneshut"); */
    k_force<<<(g->d.n + g->block - 1) / g->block, g->block>>>(g->d, g->eps2);
    NB_LAUNCHED();
    /* END SOLUTION */
    if (ev) NB_CUDA(cudaEventRecord(g->ev[K_KICK]));
    return 0;
}

/* Beside the lesson, in this translation unit (it launches the kernels): memory,
 * the nb_step interface and table, what the tests and step06 call. */
#include "bh_gpu_host.cuh"
