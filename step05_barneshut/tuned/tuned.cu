/* step05_barneshut/tuned/tuned.cu -- the tuned build of step05 (program nbody_tuned).
 *
 * The lesson's tree code (bh_gpu.cu) builds the octree, sums its cells and
 * puts the bodies in tree order; this build runs those kernels unchanged,
 * through the library interface of bh_gpu.h (as step06 does), and replaces
 * what follows them -- the force -- with the two ideas that the tree codes
 * built for speed (Bonsai, GOTHIC) share:
 *
 *  1. Quadrupole moments.  Each cell also carries the traceless quadrupole
 *     of its bodies about its centre of mass,
 *         Q = sum_b m_b (3 r_b r_b^T - |r_b|^2 I),  r_b = x_b - centre,
 *     summed bottom-up (k_moments: a parent's Q is its children's Q moved to
 *     the parent's centre by the parallel-axis rule, and its own leaf
 *     bodies), in the fixed child order 0..7: the same bits every run.  A
 *     cell used as one body then pulls with
 *         a = M d / r^3 - Q d / r^5 + 5/2 (d.Q.d) d / r^7,
 *     d the vector from the body to the centre, r^2 = |d|^2 + eps^2 (the
 *     softening of nb_interact in every power).  The monopole's error falls
 *     as (s/d)^2 with the cell size s over its distance d, the quadrupole's
 *     as (s/d)^3 (the dipole about the centre of mass is zero), so a larger
 *     theta keeps the same accuracy with fewer, dearer interactions.
 *     NB_TUNE=order=1 drops Q (monopole, for comparison).
 *
 *  2. Walk once per group, evaluate like a tile.  A warp takes 64
 *     neighbours in tree order, two a lane (NI: lane l holds the group's
 *     bodies l and 32 + l), and walks the tree once for all of them,
 *     testing up to 32 nodes at a time (one a lane) from a stack in global
 *     memory: a body is appended to the group's body list; a cell is
 *     appended to its cell list if it is far from the box around the 64
 *     bodies, or else far from each of them (the lesson's vote, one near
 *     cell at a time; a cell whose opening sphere holds the whole box is
 *     near every body and skips it; so does a cell out of a pull's reach,
 *     T_FAR2); otherwise its children go on the stack.  The lists
 *     live in shared memory; when one fills, every lane reads each entry (a
 *     broadcast) and adds its pull to both its bodies, as the all-pairs
 *     tiles of step04 do.  Two bodies a lane halve the walk and the list
 *     reads per body; the larger box opens a few more cells (at 1M, theta
 *     1.05, 14% more interactions, each cheaper: 2-3% less time a step on
 *     the H100, and at theta 1.0 and 1.05 a smaller error).
 *     NB_TUNE=group=32 takes one body a lane: then the cells used are the lesson's (its walk's vote: far from
 *     all 32) up to float rounding at the threshold, and so are the
 *     interaction counts (the tests compare them with the CPU code's:
 *     equal on the H100).  Offsets come from warp scans, so the lists,
 *     their order and the sums are the same every run.
 *     The warps take groups from a counter (a persistent grid: the stacks
 *     are only for the warps that can be resident), the costliest first:
 *     each group's cost in the last force (its list entries, a cell's
 *     weighed T_COST_QUAD) sorts the groups into T_BINS bins of an eighth
 *     of an octave (k_order_count, k_order_place), so that the last groups
 *     taken are cheap and the warps finish together (NB_TUNE=sched=tree:
 *     tree order).  Which warp walks a group changes nothing in its sums.
 *     A stack that would overflow (theta near 0) sends the group to the
 *     lesson's stackless walk with the same acceptance and the same pull
 *     (counted, reported).
 *
 *  3. A tree kept for a few steps.  The tree is built on one step and
 *     refitted on the next R - 1 (NB_TUNE=rebuild=R, default T_KEEP = 4):
 *     k_moments<true> keeps the cells, links and tree order and recomputes
 *     the masses, centres of mass, quadrupoles and opening radii, each
 *     radius grown by 2 D / theta for the distance D its bodies moved since
 *     the build.  --bench prints the mean step beside the median: the
 *     steps are unequal, and a long run costs the mean.
 *
 * Step: drift (the lesson's) -> on a build step bbox, build, summarize,
 * sort (the lesson's), k_quad_count, k_moments<false>; on the others
 * k_quad_count, k_moments<true> -> k_group_force -> kick (the lesson's)
 * (handouts/05_barneshut.md, "The tuned tree", has the measurements and
 * what did not pay).
 *
 * As a library (tuned.h, "the tuned tree as a library"): the force is
 * t_refresh() (the tree: built or refitted, its quadrupoles) and t_walk()
 * of a range of groups, so that step06_multigpu/tuned walks a range on
 * each GPU; nbody_tuned walks them all, the same kernels in the same order.
 *
 * Interactions are counted as the lesson counts them: one per body-body and
 * one per body-cell pair, whatever the order of the cell's expansion (a
 * quadrupole pull is 31 instructions, a body's or a monopole's 13; --bench
 * also prints the rate in monopole pulls of equal flops, T_FLOPS_QUAD).
 *
 * NB_TUNE="order=1|2,stack=K,rebuild=R,group=G,sched=cost|tree" (default
 * order 2, stack 2048, rebuild 4, group 64, sched cost): measuring and
 * testing knobs, checked like the rest (a malformed value: exit 2 with one
 * line).  Opened as a library (bh_tuned_open(), step06 tuned), it also
 * takes parts=K, which it only keeps for its caller (bh_tuned_stats).
 *
 *   nvcc -O3 -ftz=true -arch=sm_90 -c tuned.cu   (flags: common/config.mk) */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bh_gpu.h"
#include "bh_tree.h"
#include "nb_cuda.h"
#include "nb_physics.h"
#include "tuned.h"

#ifndef T_WARPS
#define T_WARPS  8                  /* warps a block of k_group_force */
#endif
#ifndef T_BLOCKS
#define T_BLOCKS 4                  /* blocks an SM at least (__launch_bounds__: 64 registers) */
#endif
#ifndef T_GROUP
#define T_GROUP  64                 /* bodies a group: 32 or 64, one or two a lane (NB_TUNE=group=G) */
#endif
static_assert(T_GROUP == 32 || T_GROUP == 64, "T_GROUP: 32 or 64 bodies a group (one or two a lane)");
/* The reach of a cell's pull: (d s - Q d) / r^5 holds r^-5 in a float, which
 * flushes to zero past r = 3.8e7 (-ftz=true).  A cell whose centre of mass
 * is this far from any body of the group (measured to the far corner of
 * its box) is opened instead, down to the bodies (nb_interact: M / r^3
 * reaches 4e12). */
#define T_FAR2   281474976710656.0f /* (2^24)^2 */
#define T_STACK  2048               /* stack entries a resident warp (global memory); NB_TUNE=stack=K uses K */
#ifndef T_KEEP
#define T_PARTS_MAX 16              /* NB_TUNE=parts=K: step06 tuned's walk in at most 16 parts */
#define T_KEEP   4                  /* steps a tree serves (NB_TUNE=rebuild=R) */
#endif
#define T_KEEP_MAX 64
#ifndef T_BLIST
#define T_BLIST  128                /* body list entries a warp (shared) */
#endif
#ifndef T_CLIST
#define T_CLIST  64                 /* cell list entries a warp (shared) */
#endif
#define T_BINS   64                 /* cost bins of the group order: eight an octave from 2^7 */
#define T_COST_QUAD 2.4f            /* a quadrupole pull's cost in body pulls (31 / 13 instructions) */

typedef struct t_status {
    unsigned long long bb, bc;      /* interactions of the last force */
    int fallback;                   /* groups sent to the stackless walk (last force) */
    int deepest;                    /* the deepest stack (last force) */
    int next;                       /* the groups' counter */
    int nonfinite;                  /* a refit met a position that is not finite */
} t_status;

typedef struct t_dev {
    int n, ncells, order;
    int ni;                         /* bodies a lane: groups of 32 ni */
    int depth;                      /* stack entries a group may use: T_STACK, or NB_TUNE's stack=K */
    float theta;
    const float4 *pos;
    const int *sorted, *child, *chain, *parent, *bnext;
    float4 *mass;                   /* this build's copy of the lesson's cells: centre of mass and mass ... */
    int4 *link;                     /* ... and links, open^2 in .z: a refit rewrites both here */
    const float4 *geom;             /* the lesson's cells: cube centre, half */
    const float4 *pos0;             /* the positions of the last build (refits) */
    float *moved;                   /* per cell: how far its bodies moved since the build */
    float *ax, *ay, *az;
    float4 *quad;                   /* per cell: qxx, qyy, qxy, qxz (qzz = -qxx - qyy) */
    float *qyz;                     /* per cell */
    int *pending;                   /* per cell: child cells not yet summed */
    int *stack;                     /* T_STACK per resident warp */
    float *gcost;                   /* per group: its cost in the last force */
    const int *gorder;              /* the order the groups are taken in; NULL: tree order */
    int gbase;                      /* the first group walked: walks groups gbase + [0, ngroups) */
    t_status *st;
} t_dev;

/* ---- quadrupoles --------------------------------------------------------- */

/* m (3 r r^T - |r|^2 I) added to the five stored components (T: float, or
 * double in a refit). */
template <typename T>
static __device__ __forceinline__ void q_point(T m, T rx, T ry, T rz, T q[5])
{
    T r2 = rx * rx + ry * ry + rz * rz;
    q[0] += m * (3 * rx * rx - r2);
    q[1] += m * (3 * ry * ry - r2);
    q[2] += m * 3 * rx * ry;
    q[3] += m * 3 * rx * rz;
    q[4] += m * 3 * ry * rz;
}

static __global__ void k_quad_count(t_dev d)
{
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d.ncells; c += gridDim.x * blockDim.x) {
        int k = 0;
        for (int o = 0; o < 8; o++) k += d.child[c * 8 + o] >= d.n;
        d.pending[c] = k;
    }
}

/* Bottom-up as the lesson's k_summarize: a cell with no child cells starts;
 * the thread that finishes a parent's last child cell goes on with it.
 *
 * REFIT false: after a build, the quadrupoles about the lesson's centres of
 * mass.  REFIT true: the tree of an earlier build kept for bodies that have
 * moved since (its cells, links and tree order unchanged): in one pass over
 * its children, each cell's mass and centre of mass, summed as k_summarize
 * sums them (in double: the same bits for bodies that did not move), and
 * its quadrupole; then its opening radius: the lesson's bh_open2() grown by 2 D / theta, D the
 * farthest any body below it has moved since the build.  The radius assumes
 * bodies inside the cube; a body that left it by D makes the cell as much
 * larger, and the cell is used only that much farther away (a body still
 * never uses a cell it lies inside). */
template <bool REFIT>
static __global__ void k_moments(t_dev d)
{
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d.ncells; c += gridDim.x * blockDim.x) {
        if (__ldcg(&d.pending[c]) != 0) continue;
        bool start = true;
        for (int o = 0; o < 8; o++) start &= d.child[c * 8 + o] < d.n;
        if (!start) continue;
        int k = c;
        for (;;) {
            float4 cm = d.mass[k];
            float q[5] = { 0, 0, 0, 0, 0 };
            if (REFIT) {
                /* one pass: mass, first moments and the quadrupole about the
                 * cube's centre g (double), then the quadrupole moved to the
                 * new centre of mass (the parallel-axis rule backwards) */
                const float4 g = d.geom[k];
                double m = 0, sx = 0, sy = 0, sz = 0, qg[5] = { 0, 0, 0, 0, 0 };
                float moved = 0.f;
                bool bad = false;
                for (int o = 0; o < 8; o++) {
                    int ch = d.child[k * 8 + o];
                    if (ch == BH_EMPTY) continue;
                    if (ch < d.n) {
                        for (int b = ch; b != BH_EMPTY; b = d.chain[b]) {
                            float4 p = d.pos[b], p0 = d.pos0[b];
                            m += p.w; sx += (double)p.w * p.x; sy += (double)p.w * p.y;
                            sz += (double)p.w * p.z;
                            q_point<double>(p.w, (double)p.x - g.x, (double)p.y - g.y, (double)p.z - g.z, qg);
                            float dx = p.x - p0.x, dy = p.y - p0.y, dz = p.z - p0.z;
                            float r2 = dx * dx + dy * dy + dz * dz;
                            bad |= !(r2 < INFINITY);
                            moved = fmaxf(moved, sqrtf(r2));
                        }
                    } else {
                        int kk = ch - d.n;
                        float4 c = __ldcg(&d.mass[kk]);
                        float4 cq = __ldcg(&d.quad[kk]);
                        m += c.w; sx += (double)c.w * c.x; sy += (double)c.w * c.y;
                        sz += (double)c.w * c.z;
                        qg[0] += cq.x; qg[1] += cq.y; qg[2] += cq.z; qg[3] += cq.w;
                        qg[4] += __ldcg(&d.qyz[kk]);
                        q_point<double>(c.w, (double)c.x - g.x, (double)c.y - g.y, (double)c.z - g.z, qg);
                        moved = fmaxf(moved, __ldcg(&d.moved[kk]));
                    }
                }
                cm = m > 0 ? make_float4((float)(sx / m), (float)(sy / m), (float)(sz / m), (float)m)
                           : make_float4(g.x, g.y, g.z, 0.f);
                q_point<double>(-m, (double)cm.x - g.x, (double)cm.y - g.y, (double)cm.z - g.z, qg);
                for (int j = 0; j < 5; j++) q[j] = (float)qg[j];
                float r = d.theta > 0 ? sqrtf(bh_open2(g.x, g.y, g.z, g.w, cm.x, cm.y, cm.z, d.theta)) +
                                        2.f * moved / d.theta
                                      : INFINITY;
                if (bad) atomicExch(&d.st->nonfinite, 1);
                d.mass[k] = cm;
                d.link[k].z = __float_as_int(r * r);
                d.moved[k] = moved;
            } else {
                for (int o = 0; o < 8; o++) {
                    int ch = d.child[k * 8 + o];
                    if (ch == BH_EMPTY) continue;
                    if (ch < d.n) {
                        for (int b = ch; b != BH_EMPTY; b = d.chain[b]) {
                            float4 p = d.pos[b];
                            q_point<float>(p.w, p.x - cm.x, p.y - cm.y, p.z - cm.z, q);
                        }
                    } else {
                        int kk = ch - d.n;
                        float4 cq = __ldcg(&d.quad[kk]);
                        float4 cc = d.mass[kk];
                        q[0] += cq.x; q[1] += cq.y; q[2] += cq.z; q[3] += cq.w;
                        q[4] += __ldcg(&d.qyz[kk]);
                        q_point<float>(cc.w, cc.x - cm.x, cc.y - cm.y, cc.z - cm.z, q);
                    }
                }
            }
            d.quad[k] = make_float4(q[0], q[1], q[2], q[3]);
            d.qyz[k] = q[4];
            __threadfence();
            int par = d.parent[k];
            if (par < 0 || atomicSub(&d.pending[par], 1) != 1) break;
            __threadfence();
            k = par;
        }
    }
}

/* ---- the pull of a cell -------------------------------------------------- */

/* Centre c (x, y, z, mass), quadrupole q (qxx, qyy, qzz, qxy) and q2 (qxz,
 * qyz), on a body at p; ORDER 1 leaves the quadrupole out.  The order is a
 * template parameter, not a run-time test: the pull is the inner loop of
 * the force (most of its instructions), and a branch in it costs what a
 * multiply does.  The quadrupole pull is written over one power of r:
 *     a = (d s - Q d) / r^5,   s = M r^2 + 5/2 (d.Q.d) / r^2,
 * which is the formula above with M d / r^3 = M r^2 d / r^5 (r^2 softened
 * as in every power): 31 instructions, 2 fewer than the three powers
 * r^-3, r^-5, r^-7 (each sum is one FMA). */
template <int ORDER>
static __device__ __forceinline__ void cell_pull(float px, float py, float pz, float4 c, float4 q,
                                                 float2 q2, float eps2,
                                                 float *ax, float *ay, float *az)
{
    float dx = c.x - px, dy = c.y - py, dz = c.z - pz;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float inv = nb_rsqrt(r2);
    float inv2 = inv * inv;
    if (ORDER == 2) {
        float gx = q.x * dx + q.w * dy + q2.x * dz;    /* Q d */
        float gy = q.w * dx + q.y * dy + q2.y * dz;
        float gz = q2.x * dx + q2.y * dy + q.z * dz;
        float dqd = dx * gx + dy * gy + dz * gz;
        float s = fmaf(dqd * inv2, 2.5f, c.w * r2);
        float inv5 = inv2 * inv2 * inv;
        *ax = fmaf(fmaf(dx, s, -gx), inv5, *ax);
        *ay = fmaf(fmaf(dy, s, -gy), inv5, *ay);
        *az = fmaf(fmaf(dz, s, -gz), inv5, *az);
    } else {
        float s = c.w * inv * inv2;                    /* M / r^3 */
        *ax += dx * s; *ay += dy * s; *az += dz * s;
    }
}

/* ---- the group walk ------------------------------------------------------ */

static __device__ __forceinline__ int warp_exclusive(int v, int lane, int *total)
{
    int x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    *total = __shfl_sync(0xffffffffu, x, 31);
    return x - v;
}

typedef struct t_lists {
    float4 body[T_BLIST];
    float4 cell[T_CLIST];
    float4 quad[T_CLIST];           /* qxx, qyy, qzz, qxy: the trace is undone once, here */
    float2 quad2[T_CLIST];          /* qxz, qyz */
} t_lists;

/* Each list entry is read once (a broadcast from shared memory) and pulls
 * on the NI bodies of the lane. */
template <int NI>
static __device__ __forceinline__ void eval_bodies(const t_lists *l, int cnt, const float4 *p,
                                                   float eps2, float *ax, float *ay, float *az)
{
#pragma unroll 4
    for (int e = 0; e < cnt; e++) {
        const float4 q = l->body[e];
#pragma unroll
        for (int j = 0; j < NI; j++)
            nb_interact(p[j].x, p[j].y, p[j].z, q.x, q.y, q.z, q.w, eps2, &ax[j], &ay[j], &az[j]);
    }
}

template <int ORDER, int NI>
static __device__ __forceinline__ void eval_cells(const t_lists *l, int cnt, const float4 *p,
                                                  float eps2, float *ax, float *ay, float *az)
{
    const float4 q0 = make_float4(0.f, 0.f, 0.f, 0.f);
    const float2 q20 = make_float2(0.f, 0.f);
#pragma unroll 4
    for (int e = 0; e < cnt; e++) {
        const float4 c = l->cell[e], q = ORDER == 2 ? l->quad[e] : q0;
        const float2 q2 = ORDER == 2 ? l->quad2[e] : q20;
#pragma unroll
        for (int j = 0; j < NI; j++)
            cell_pull<ORDER>(p[j].x, p[j].y, p[j].z, c, q, q2, eps2, &ax[j], &ay[j], &az[j]);
    }
}

/* A cell's quadrupole as the lists hold it, from the stored five. */
static __device__ __forceinline__ void quad_of(const t_dev *d, int c, float4 *q, float2 *q2)
{
    const float4 s = __ldg(&d->quad[c]);
    *q = make_float4(s.x, s.y, -s.x - s.y, s.z);
    *q2 = make_float2(s.w, __ldg(&d->qyz[c]));
}

/* The lesson's stackless walk (bh_gpu.cu, k_force) with this build's pull
 * and its group (the NI bodies of each lane vote): the same cells
 * accepted, for a group whose stack would overflow. */
template <int ORDER, int NI>
static __device__ void walk_stackless(const t_dev *d, const float4 *p, float eps2, float *ax,
                                      float *ay, float *az, long long *nbb, long long *nbc)
{
    const int n = d->n;
    int node = n;
    while (node != BH_EMPTY) {
        if (node < n) {
            float4 q = __ldg(&d->pos[node]);
#pragma unroll
            for (int j = 0; j < NI; j++)
                nb_interact(p[j].x, p[j].y, p[j].z, q.x, q.y, q.z, q.w, eps2, &ax[j], &ay[j], &az[j]);
            (*nbb)++;
            node = __ldg(&d->bnext[node]);
        } else {
            int c = node - n;
            float4 q = __ldg(&d->mass[c]);
            int4 l = __ldg(&d->link[c]);
            bool far = true;
#pragma unroll
            for (int j = 0; j < NI; j++) {
                float dx = q.x - p[j].x, dy = q.y - p[j].y, dz = q.z - p[j].z;
                float d2 = dx * dx + dy * dy + dz * dz;
                far &= bh_far(d2, __int_as_float(l.z)) & (d2 < T_FAR2);
            }
            if (__all_sync(0xffffffffu, far)) {
                float4 qq = make_float4(0.f, 0.f, 0.f, 0.f);
                float2 q2 = make_float2(0.f, 0.f);
                if (ORDER == 2) quad_of(d, c, &qq, &q2);
#pragma unroll
                for (int j = 0; j < NI; j++)
                    cell_pull<ORDER>(p[j].x, p[j].y, p[j].z, q, qq, q2, eps2, &ax[j], &ay[j], &az[j]);
                (*nbc)++;
                node = l.y;
            } else {
                node = l.x;
            }
        }
    }
}

template <int ORDER, int NI>
static __global__ void __launch_bounds__(32 * T_WARPS, T_BLOCKS) k_group_force(t_dev d, float eps2, int ngroups)
{
    __shared__ t_lists lists[T_WARPS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    t_lists *L = &lists[warp];
    int *stack = d.stack + (size_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * T_STACK;
    const int n = d.n;
    const unsigned below = (1u << lane) - 1u;
    long long wbb = 0, wbc = 0;                 /* this warp's interactions, all its groups */
    int wdeep = 0, wfall = 0;
    for (;;) {
        int g = 0;
        if (lane == 0) g = atomicAdd(&d.st->next, 1);
        g = __shfl_sync(0xffffffffu, g, 0);
        if (g >= ngroups) break;
        g = (d.gorder ? __ldg(&d.gorder[g]) : g) + d.gbase;
        bool valid[NI];
        int i[NI];
        float4 p[NI];
#pragma unroll
        for (int j = 0; j < NI; j++) {  /* a lane's bodies: 32 apart in tree order */
            const int k = (g * NI + j) * 32 + lane;
            valid[j] = k < n;
            i[j] = __ldg(&d.sorted[valid[j] ? k : n - 1]);
            p[j] = __ldg(&d.pos[i[j]]);
        }
        float lx = p[0].x, ly = p[0].y, lz = p[0].z, hx = p[0].x, hy = p[0].y, hz = p[0].z;
#pragma unroll
        for (int j = 1; j < NI; j++) {
            lx = fminf(lx, p[j].x); ly = fminf(ly, p[j].y); lz = fminf(lz, p[j].z);
            hx = fmaxf(hx, p[j].x); hy = fmaxf(hy, p[j].y); hz = fmaxf(hz, p[j].z);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            lx = fminf(lx, __shfl_xor_sync(0xffffffffu, lx, o));
            ly = fminf(ly, __shfl_xor_sync(0xffffffffu, ly, o));
            lz = fminf(lz, __shfl_xor_sync(0xffffffffu, lz, o));
            hx = fmaxf(hx, __shfl_xor_sync(0xffffffffu, hx, o));
            hy = fmaxf(hy, __shfl_xor_sync(0xffffffffu, hy, o));
            hz = fmaxf(hz, __shfl_xor_sync(0xffffffffu, hz, o));
        }
        const float bx = 0.5f * (lx + hx), by = 0.5f * (ly + hy), bz = 0.5f * (lz + hz);
        const float ex = 0.5f * (hx - lx), ey = 0.5f * (hy - ly), ez = 0.5f * (hz - lz);
        /* more than the rounding of the box's centre and extents */
        const float sl = 1e-6f * (fabsf(bx) + fabsf(by) + fabsf(bz) + ex + ey + ez);
        float ax[NI], ay[NI], az[NI];
#pragma unroll
        for (int j = 0; j < NI; j++) ax[j] = ay[j] = az[j] = 0.f;
        long long nbb = 0, nbc = 0;             /* the group's entries (uniform) */
        int top = 1, nb = 0, nc = 0;
        bool overflow = false;
        if (lane == 0) stack[0] = n;            /* the root */
        __syncwarp();
        while (top > 0) {
            const int take = top < 32 ? top : 32;
            const int node = lane < take ? stack[top - take + lane] : BH_EMPTY;
            __syncwarp();
            top -= take;
            bool isbody = false, iscell = false, near = false, sure = false;
            float4 e = make_float4(0.f, 0.f, 0.f, 0.f);
            float o2 = 0.f;
            int next = BH_EMPTY;
            if (node != BH_EMPTY) {
                if (node < n) {
                    e = __ldg(&d.pos[node]);
                    isbody = true;
                    next = __ldg(&d.chain[node]);
                } else {
                    e = __ldg(&d.mass[node - n]);
                    o2 = __int_as_float(__ldg(&d.link[node - n].z));
                    const float ux = fabsf(e.x - bx), uy = fabsf(e.y - by), uz = fabsf(e.z - bz);
                    float dx = fmaxf(ux - ex, 0.f), dy = fmaxf(uy - ey, 0.f);
                    float dz = fmaxf(uz - ez, 0.f);
                    /* the far corner of the box: beyond T_FAR2 the cell is opened (its reach) */
                    float fx = ux + (ex + sl), fy = uy + (ey + sl), fz = uz + (ez + sl);
                    const float f2 = fx * fx + fy * fy + fz * fz;
                    const bool out = !(f2 < T_FAR2);
                    iscell = !out && bh_far(dx * dx + dy * dy + dz * dz, o2);
                    near = !iscell;
                    /* the whole box inside the opening sphere: every body is near, no vote */
                    sure = near && (out || f2 < 0.9999f * o2);
                }
            }
            /* a cell near the box may still be far from each of the group's bodies */
            for (unsigned nm = __ballot_sync(0xffffffffu, near && !sure); nm; nm &= nm - 1) {
                const int j = __ffs(nm) - 1;
                float qx = __shfl_sync(0xffffffffu, e.x, j), qy = __shfl_sync(0xffffffffu, e.y, j);
                float qz = __shfl_sync(0xffffffffu, e.z, j), oo = __shfl_sync(0xffffffffu, o2, j);
                bool far = true;
#pragma unroll
                for (int b = 0; b < NI; b++) {
                    float dx = qx - p[b].x, dy = qy - p[b].y, dz = qz - p[b].z;
                    far &= bh_far(dx * dx + dy * dy + dz * dz, oo);
                }
                if (__all_sync(0xffffffffu, far) && lane == j) {
                    iscell = true;
                    near = false;
                }
            }
            int4 c0 = make_int4(BH_EMPTY, BH_EMPTY, BH_EMPTY, BH_EMPTY), c1 = c0;
            if (near) {
                c0 = __ldg((const int4 *)d.child + 2 * (node - n));
                c1 = __ldg((const int4 *)d.child + 2 * (node - n) + 1);
            }
            const int np = (next != BH_EMPTY) + (c0.x != BH_EMPTY) + (c0.y != BH_EMPTY) +
                           (c0.z != BH_EMPTY) + (c0.w != BH_EMPTY) + (c1.x != BH_EMPTY) +
                           (c1.y != BH_EMPTY) + (c1.z != BH_EMPTY) + (c1.w != BH_EMPTY);
            int tot;
            int w = top + warp_exclusive(np, lane, &tot);
            if (top + tot > d.depth) { overflow = true; break; }   /* tot is uniform */
            if (next != BH_EMPTY) stack[w++] = next;
            if (c0.x != BH_EMPTY) stack[w++] = c0.x;
            if (c0.y != BH_EMPTY) stack[w++] = c0.y;
            if (c0.z != BH_EMPTY) stack[w++] = c0.z;
            if (c0.w != BH_EMPTY) stack[w++] = c0.w;
            if (c1.x != BH_EMPTY) stack[w++] = c1.x;
            if (c1.y != BH_EMPTY) stack[w++] = c1.y;
            if (c1.z != BH_EMPTY) stack[w++] = c1.z;
            if (c1.w != BH_EMPTY) stack[w++] = c1.w;
            top += tot;
            wdeep = max(wdeep, top);
            const unsigned mb = __ballot_sync(0xffffffffu, isbody);
            const unsigned mc = __ballot_sync(0xffffffffu, iscell);
            if (isbody) L->body[nb + __popc(mb & below)] = e;
            if (iscell) {
                const int s = nc + __popc(mc & below), c = node - n;
                L->cell[s] = e;
                if (ORDER == 2) quad_of(&d, c, &L->quad[s], &L->quad2[s]);
            }
            nb += __popc(mb);
            nc += __popc(mc);
            nbb += __popc(mb);
            nbc += __popc(mc);
            __syncwarp();
            if (nb > T_BLIST - 32) {
                eval_bodies<NI>(L, nb, p, eps2, ax, ay, az);
                nb = 0;
                __syncwarp();
            }
            if (nc > T_CLIST - 32) {
                eval_cells<ORDER, NI>(L, nc, p, eps2, ax, ay, az);
                nc = 0;
                __syncwarp();
            }
        }
        if (!overflow) {
            eval_bodies<NI>(L, nb, p, eps2, ax, ay, az);
            eval_cells<ORDER, NI>(L, nc, p, eps2, ax, ay, az);
        } else {                                /* the stackless walk, from the start */
#pragma unroll
            for (int j = 0; j < NI; j++) ax[j] = ay[j] = az[j] = 0;
            nbb = nbc = 0;
            wfall++;
            walk_stackless<ORDER, NI>(&d, p, eps2, ax, ay, az, &nbb, &nbc);
        }
        if (lane == 0) d.gcost[g] = (float)nbb + (ORDER == 2 ? T_COST_QUAD : 1.f) * (float)nbc;
        __syncwarp();
        int nvalid = 0;
#pragma unroll
        for (int j = 0; j < NI; j++) {
            if (valid[j]) { d.ax[i[j]] = ax[j]; d.ay[i[j]] = ay[j]; d.az[i[j]] = az[j]; }
            nvalid += __popc(__ballot_sync(0xffffffffu, valid[j]));
        }
        wbb += nbb * nvalid;
        wbc += nbc * nvalid;
    }
    if (lane == 0 && (wbb || wbc || wfall)) {
        atomicAdd(&d.st->bb, (unsigned long long)wbb);
        atomicAdd(&d.st->bc, (unsigned long long)wbc);
        if (wfall) atomicAdd(&d.st->fallback, wfall);
        atomicMax(&d.st->deepest, wdeep);
    }
}

/* ---- the groups' order: the costliest first ------------------------------ */

/* Bin b holds the costs in (2^(15 - (b + 1) / 8), 2^(15 - b / 8)]: bin 0
 * the costliest (above 2^14.875), bin T_BINS - 1 the cheapest (2^7.125 and
 * less). */
static __device__ __forceinline__ int cost_bin(float c)
{
    const int b = (int)(8.f * (15.f - __log2f(fmaxf(c, 1.f))));
    return min(max(b, 0), T_BINS - 1);
}

/* bins[0..T_BINS): the groups in each bin (bins zeroed before). */
static __global__ void k_order_count(const float *gcost, int ngroups, int *bins)
{
    __shared__ int h[T_BINS];
    for (int k = threadIdx.x; k < T_BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < ngroups) atomicAdd(&h[cost_bin(gcost[g])], 1);
    __syncthreads();
    for (int k = threadIdx.x; k < T_BINS; k += blockDim.x)
        if (h[k]) atomicAdd(&bins[k], h[k]);
}

/* order: the groups bin by bin (within a bin in any order: a group's sums
 * do not depend on when or by which warp it is walked); bins[T_BINS..2
 * T_BINS): the bins' cursors (zeroed before). */
static __global__ void k_order_place(const float *gcost, int ngroups, int *bins, int *order)
{
    __shared__ int start[T_BINS];
    if (threadIdx.x == 0)
        for (int k = 0, a = 0; k < T_BINS; k++) {
            start[k] = a;
            a += bins[k];
        }
    __syncthreads();
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < ngroups) {
        const int b = cost_bin(gcost[g]);
        order[start[b] + atomicAdd(&bins[T_BINS + b], 1)] = g;
    }
}

/* ---- host side ----------------------------------------------------------- */

/* The force kernel of the run's order and group size (NB_TUNE): the one
 * that is launched and whose occupancy sizes the grid. */
typedef void (*t_force_kernel)(t_dev, float, int);
static t_force_kernel group_force_of(const t_dev *d)
{
    if (d->order == 2) return d->ni == 2 ? k_group_force<2, 2> : k_group_force<2, 1>;
    return d->ni == 2 ? k_group_force<1, 2> : k_group_force<1, 1>;
}

enum { E_DRIFT, E_BUILD, E_QUAD, E_FORCE, E_KICK, E_END, E_COUNT };
#define T_PHASES 5                  /* --bench's split: tree, quadrupoles, force, integrate, all */
static const char *const t_names[T_PHASES - 1] = { "tree (bbox build summarize sort)",
                                                   "moments (quadrupoles, or refit)", "force",
                                                   "integrate" };

typedef struct tuned {
    void *bh;                       /* the lesson's pipeline (bh_gpu_open) */
    t_dev d;
    int sched;                      /* 1: the costliest groups first (NB_TUNE=sched=cost) */
    int *gorder, *bins;             /* the next walk's order; 2 T_BINS counters */
    int costs;                      /* gcost holds every group's cost (a walk of all, or the caller's all-gather) */
    int own_bh;                     /* bh is this build's (t_init), not a caller's (bh_tuned_open) */
    float eps2;
    int poison, blocks, cap;        /* cap: cells the quadrupole arrays hold */
    int keep;                       /* a tree serves this many steps (NB_TUNE=rebuild=K; 1: rebuilt every step) */
    int parts;                      /* NB_TUNE=parts=K, for the library's caller (step06 tuned) */
    int age;                        /* drifts since the last build */
    int fresh;                      /* the tree (built or refitted) is of the current positions */
    int refits;                     /* refits since init (warm-up steps included) */
    float4 *pos0;                   /* the positions at the last build (keep > 1) */
    t_status hst;
    double bytes;                   /* this build's own device memory */
    cudaEvent_t ev[E_COUNT];
    double *split[T_PHASES];        /* per timed step: the phases, then the step */
    int nsplit, cap_split;
    double sum_bb, sum_bc;          /* the timed steps' interactions (their force kernels: split[2]) */
} tuned;

/* Flops of one pull as written (an FMA counts 2, the rsqrt 1): a body's
 * (nb_interact) and a monopole cell's 19, a quadrupole cell's 49 (cell_pull:
 * d, r^2, 1/r, 1/r^2 11, Q d 15, d.Q.d 5, s 4, 1/r^5 2, the sums 12).
 * --bench reports the force kernel's rate both in pulls and in monopole
 * pulls of equal flops. */
#define T_FLOPS_MONO 19.0
#define T_FLOPS_QUAD 49.0

/* A decimal integer in [lo, hi], the whole of [p, end): 1, else 0. */
static int tune_int(const char *p, const char *end, long lo, long hi, long *v)
{
    if (p == end || end - p > 9) return 0;
    long x = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return 0;
        x = 10 * x + (*p - '0');
    }
    *v = x;
    return x >= lo && x <= hi;
}

/* NB_TUNE="order=1|2,stack=K,rebuild=R,group=G,sched=cost|tree": the
 * expansion order (default 2, quadrupoles), the stack entries a group may
 * use before it falls back to the stackless walk (32..T_STACK, default
 * T_STACK: a small K makes the tests take the fallback at any theta), the
 * steps a tree serves (1..T_KEEP_MAX: built on the first, refitted on the
 * others; default T_KEEP), the bodies a group (32 or 64: one or two a
 * lane; default T_GROUP), and the order the groups are taken in (default
 * cost: the costliest in the last force first; tree: tree order).  Each
 * key at most once, comma-separated.  parts: NULL refuses the key parts=K
 * (step05 tuned's own program: it walks every group at once); else the
 * parts its caller cuts its walk in (1..T_PARTS_MAX, default 1). */
static int parse_tune(t_dev *d, int *keep, int *sched, int *parts)
{
    d->order = 2;
    d->ni = T_GROUP / 32;
    d->depth = T_STACK;
    *keep = T_KEEP;
    *sched = 1;
    if (parts) *parts = 1;
    const char *env = getenv("NB_TUNE");
    if (!env || !*env) return 0;
    int seen = 0;
    for (const char *p = env;;) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        long v;
        if (!eq || eq > end) break;
        if (eq - p == 5 && !strncmp(p, "order", 5) && !(seen & 1) && tune_int(eq + 1, end, 1, 2, &v))
            d->order = (int)v, seen |= 1;
        else if (eq - p == 5 && !strncmp(p, "stack", 5) && !(seen & 2) &&
                 tune_int(eq + 1, end, 32, T_STACK, &v))
            d->depth = (int)v, seen |= 2;
        else if (eq - p == 7 && !strncmp(p, "rebuild", 7) && !(seen & 4) &&
                 tune_int(eq + 1, end, 1, T_KEEP_MAX, &v))
            *keep = (int)v, seen |= 4;
        else if (eq - p == 5 && !strncmp(p, "group", 5) && !(seen & 8) &&
                 tune_int(eq + 1, end, 32, 64, &v) && (v == 32 || v == 64))
            d->ni = (int)v / 32, seen |= 8;
        else if (eq - p == 5 && !strncmp(p, "sched", 5) && !(seen & 16) &&
                 end - eq == 5 && (!strncmp(eq + 1, "cost", 4) || !strncmp(eq + 1, "tree", 4)))
            *sched = eq[1] == 'c', seen |= 16;
        else if (parts && eq - p == 5 && !strncmp(p, "parts", 5) && !(seen & 32) &&
                 tune_int(eq + 1, end, 1, T_PARTS_MAX, &v))
            *parts = (int)v, seen |= 32;
        else
            break;
        if (*end == '\0') return 0;
        p = end + 1;
    }
    if (parts)
        return nb_fail(NB_EXIT_USAGE, "NB_TUNE=\"%s\": the tuned tree over the GPUs takes order=1|2 "
                       "(monopoles or quadrupoles), stack=K (32..%d), rebuild=R (1..%d), group=32|64, "
                       "sched=cost|tree and parts=K (1..%d), each at most once, separated by commas", env,
                       T_STACK, T_KEEP_MAX, T_PARTS_MAX);
    return nb_fail(NB_EXIT_USAGE, "NB_TUNE=\"%s\": the tuned tree takes order=1|2 (monopoles or "
                   "quadrupoles), stack=K (32..%d), rebuild=R (1..%d), group=32|64 and sched=cost|tree, "
                   "each at most once, separated by commas", env, T_STACK, T_KEEP_MAX);
}

static int free_quad(tuned *t)
{
    void *p[] = { t->d.quad, t->d.qyz, t->d.pending, t->d.moved, t->d.mass, t->d.link };
    for (size_t a = 0; a < sizeof p / sizeof *p; a++)
        if (p[a]) NB_CUDA(cudaFree(p[a]));
    t->d.quad = NULL; t->d.qyz = NULL; t->d.pending = NULL; t->d.moved = NULL;
    t->d.mass = NULL; t->d.link = NULL;
    t->cap = 0;
    return 0;
}

/* The lesson's arrays after a build, and room for the quadrupoles of its
 * cells.  The lesson exports its cells read-only: their centres of mass and
 * links (open^2) are copied into this build's own arrays, which a refit
 * rewrites. */
static int take_tree(tuned *t)
{
    bh_gpu_arrays_t a;
    int rc = bh_gpu_arrays(t->bh, &a);
    if (rc) return rc;
    t->d.n = a.n;
    t->d.ncells = a.ncells;
    t->d.pos = (const float4 *)a.pos;
    t->d.sorted = a.sorted;
    t->d.child = a.child; t->d.chain = a.chain; t->d.bnext = a.bnext; t->d.parent = a.parent;
    t->d.geom = (const float4 *)a.geom;
    t->d.ax = a.ax; t->d.ay = a.ay; t->d.az = a.az;
    if (a.ncells > t->cap) {
        if ((rc = free_quad(t))) return rc;
        size_t c = (size_t)a.ncells + a.ncells / 2 + 1024;
        double b = 0;
        if ((rc = nb_cuda_malloc((void **)&t->d.quad, c * sizeof(float4), "quadrupoles", &b)) ||
            (rc = nb_cuda_malloc((void **)&t->d.qyz, c * sizeof(float), "quadrupoles", &b)) ||
            (rc = nb_cuda_malloc((void **)&t->d.pending, c * sizeof(int), "quadrupole counters", &b)) ||
            (rc = nb_cuda_malloc((void **)&t->d.mass, c * sizeof(float4), "cells (centres of mass)", &b)) ||
            (rc = nb_cuda_malloc((void **)&t->d.link, c * sizeof(int4), "cells (links)", &b)) ||
            (t->keep > 1 &&
             (rc = nb_cuda_malloc((void **)&t->d.moved, c * sizeof(float), "refit distances", &b))))
            return rc;
        t->cap = (int)c;
    }
    NB_CUDA(cudaMemcpyAsync(t->d.mass, a.mass, (size_t)a.ncells * sizeof(float4), cudaMemcpyDeviceToDevice));
    NB_CUDA(cudaMemcpyAsync(t->d.link, a.link, (size_t)a.ncells * sizeof(int4), cudaMemcpyDeviceToDevice));
    return 0;
}

/* The tree of the current positions: the lesson's build (a build step) or
 * a refit of the kept tree, then the quadrupoles; nothing when the tree is
 * current already (fresh: no drift since).  It also zeroes the status (the
 * next walk's counters) and, with --poison, the accelerations.  ev: record
 * the events (timed steps). */
static bool t_refits(const tuned *t) { return !t->fresh && t->age > 0 && t->age < t->keep; }

static int t_refresh(tuned *t, bool ev)
{
    NB_CUDA(cudaMemset(t->d.st, 0, sizeof(t_status)));
    const bool refit = t_refits(t);
    if (ev) NB_CUDA(cudaEventRecord(t->ev[E_BUILD]));
    if (!t->fresh && !refit) {
        int rc = bh_gpu_build(t->bh);
        if (rc || (rc = take_tree(t))) return rc;
        t->age = 0;
        if (t->keep > 1)
            NB_CUDA(cudaMemcpyAsync(t->pos0, t->d.pos, (size_t)t->d.n * sizeof(float4),
                                    cudaMemcpyDeviceToDevice));
    }
    if (ev) NB_CUDA(cudaEventRecord(t->ev[E_QUAD]));
    const int nc = t->d.ncells, qb = (nc + 255) / 256;
    if (!t->fresh && (refit || t->d.order == 2)) {
        k_quad_count<<<qb, 256>>>(t->d);
        NB_LAUNCHED();
        if (refit) k_moments<true><<<qb, 256>>>(t->d);
        else k_moments<false><<<qb, 256>>>(t->d);
        NB_LAUNCHED();
        t->refits += refit;
    }
    t->fresh = 1;
    if (t->poison) {                /* an unwritten acceleration stays NaN */
        NB_CUDA(cudaMemset(t->d.ax, 0xFF, (size_t)t->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(t->d.ay, 0xFF, (size_t)t->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(t->d.az, 0xFF, (size_t)t->d.n * sizeof(float)));
    }
    return 0;
}

static int64_t t_groups(const tuned *t)
{
    const int64_t gs = 32 * t->d.ni;
    return ((int64_t)t->d.n + gs - 1) / gs;
}

/* The group walk of the groups [g0, g1) of the tree order (all of them on
 * one GPU): their accelerations at the body indices and their costs
 * (gcost[g0 .. g1)), the costliest first when every group's cost of the
 * last walk is known (t->costs), else in tree order.  Which warp walks a
 * group, and when, changes nothing in its sums: the same bits whatever the
 * range and the order. */
static int t_walk(tuned *t, int64_t g0, int64_t g1)
{
    const int ng = (int)(g1 - g0);
    t->d.gorder = NULL;
    t->d.gbase = (int)g0;
    if (ng <= 0) return 0;
    if (t->sched && t->costs) {     /* this walk's order, from the last walk's costs */
        NB_CUDA(cudaMemsetAsync(t->bins, 0, 2 * T_BINS * sizeof(int)));
        k_order_count<<<(ng + 255) / 256, 256>>>(t->d.gcost + g0, ng, t->bins);
        NB_LAUNCHED();
        k_order_place<<<(ng + 255) / 256, 256>>>(t->d.gcost + g0, ng, t->bins, t->gorder);
        NB_LAUNCHED();
        t->d.gorder = t->gorder;
    }
    NB_CUDA(cudaMemsetAsync(&t->d.st->next, 0, sizeof t->d.st->next));  /* several walks a refresh */
    group_force_of(&t->d)<<<t->blocks, 32 * T_WARPS>>>(t->d, t->eps2, ng);
    NB_LAUNCHED();
    if (g0 == 0 && g1 == t_groups(t)) t->costs = 1;
    return 0;
}

/* The accelerations of the current positions on one GPU: the lesson's
 * tree, then the quadrupoles and the group walk of every group.  ev:
 * record the events (timed steps). */
static int t_force(tuned *t, bool ev)
{
    int rc = t_refresh(t, ev);
    if (rc) return rc;
    if (ev) NB_CUDA(cudaEventRecord(t->ev[E_FORCE]));
    if ((rc = t_walk(t, 0, t_groups(t)))) return rc;
    if (ev) NB_CUDA(cudaEventRecord(t->ev[E_KICK]));
    return 0;
}

static int t_read_status(tuned *t)
{
    NB_CUDA(cudaMemcpy(&t->hst, t->d.st, sizeof t->hst, cudaMemcpyDeviceToHost));
    if (t->hst.nonfinite)           /* as the lesson's build says it */
        return nb_fail(NB_EXIT_RUNTIME, "a body's position is not finite (NaN or inf): the "
                       "integration blew up, no tree can hold it");
    return bh_gpu_read_status(t->bh);
}

/* device: the lesson's, plus per cell the quadrupole and a counter (24 B)
 * and the copy of the cell's centre of mass and links (32 B), 0.9 cells a
 * body at most, per group of 32 or more a cost and a place in
 * the order (8 B), and the stacks (fixed, not per body) */
#define TUNED_DEVICE_BYTES_PER_BODY (52.0 + 0.9 * (92.0 + 24.0 + 32.0) + 8.0 / 32.0)
#define TUNED_HOST_BYTES_PER_BODY   56.0

static int t_probe(const nb_options *o)
{
    return nb_step05_gpu.probe(o);
}

static void t_destroy(void *ctx)
{
    tuned *t = (tuned *)ctx;
    if (!t) return;
    if (t->bh && t->own_bh) nb_step05_gpu.destroy(t->bh);
    free_quad(t);
    if (t->d.stack) cudaFree(t->d.stack);
    if (t->d.gcost) cudaFree(t->d.gcost);
    if (t->gorder) cudaFree(t->gorder);
    if (t->bins) cudaFree(t->bins);
    if (t->pos0) cudaFree(t->pos0);
    if (t->d.st) cudaFree(t->d.st);
    for (int e = 0; e < E_COUNT; e++)
        if (t->ev[e]) cudaEventDestroy(t->ev[e]);
    for (int k = 0; k < T_PHASES; k++) free(t->split[k]);
    free(t);
}

/* What this build adds to the lesson's pipeline t->bh (NB_TUNE parsed):
 * the group walk's grid, stacks, costs and order, the positions of the
 * last build; no force yet. */
static int t_setup(tuned *t, const nb_options *o)
{
    bh_gpu_arrays_t a;
    int rc = bh_gpu_arrays(t->bh, &a);
    if (rc) return rc;
    const int64_t n = a.n;
    t->eps2 = (float)(o->eps * o->eps);
    t->d.theta = (float)o->theta;
    t->poison = o->poison;
    for (int e = 0; e < E_COUNT; e++) NB_CUDA(cudaEventCreate(&t->ev[e]));
    int dev, sms, occ;
    NB_CUDA(cudaGetDevice(&dev));
    NB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    NB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, group_force_of(&t->d), 32 * T_WARPS, 0));
    if (occ < 1) return nb_fail(NB_EXIT_RUNTIME, "k_group_force cannot be resident on this device");
    int64_t groups = (n + 32 * t->d.ni - 1) / (32 * t->d.ni), want = (groups + T_WARPS - 1) / T_WARPS;
    t->blocks = (int)(want < (int64_t)occ * sms ? want : (int64_t)occ * sms);
    if ((rc = nb_cuda_malloc((void **)&t->d.stack,
                             (size_t)t->blocks * T_WARPS * T_STACK * sizeof(int),
                             "the group walk's stacks", &t->bytes)) ||
        (rc = nb_cuda_malloc((void **)&t->d.st, sizeof(t_status), "tuned tree status", &t->bytes)) ||
        (rc = nb_cuda_malloc((void **)&t->d.gcost, (size_t)groups * sizeof(float), "the groups' costs",
                             &t->bytes)) ||
        (t->sched && (rc = nb_cuda_malloc((void **)&t->gorder, (size_t)groups * sizeof(int),
                                          "the groups' order", &t->bytes))) ||
        (t->sched && (rc = nb_cuda_malloc((void **)&t->bins, 2 * T_BINS * sizeof(int), "the order's bins",
                                          &t->bytes))) ||
        (t->keep > 1 && (rc = nb_cuda_malloc((void **)&t->pos0, (size_t)n * sizeof(float4),
                                             "positions at the build (refits)", &t->bytes))))
        return rc;
    t->d.pos0 = t->pos0;
    return 0;
}

static int t_init(void **ctx, const nb_state *s, const nb_options *o)
{
    tuned *t = (tuned *)calloc(1, sizeof *t);
    *ctx = t;                       /* on failure nb_main() calls t_destroy() */
    if (!t) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int rc = parse_tune(&t->d, &t->keep, &t->sched, NULL);
    if (rc) return rc;
    if ((rc = bh_gpu_open(&t->bh, s, o, s->n))) return rc;
    t->own_bh = 1;
    if ((rc = t_setup(t, o))) return rc;
    if ((rc = t_force(t, false))) return rc;
    NB_CUDA(cudaDeviceSynchronize());
    return t_read_status(t);
}

static int t_accel(void *ctx, float *ax, float *ay, float *az)
{
    tuned *t = (tuned *)ctx;
    int rc = t_force(t, false);
    if (rc) return rc;
    size_t nb = (size_t)t->d.n * sizeof(float);
    NB_CUDA(cudaMemcpy(ax, t->d.ax, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(ay, t->d.ay, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(az, t->d.az, nb, cudaMemcpyDeviceToHost));
    return t_read_status(t);
}

static int record_split(tuned *t, const double ms[T_PHASES])
{
    if (t->nsplit == t->cap_split) {
        int cap = t->cap_split ? 2 * t->cap_split : 64;
        for (int k = 0; k < T_PHASES; k++) {
            double *p = (double *)realloc(t->split[k], (size_t)cap * sizeof(double));
            if (!p) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the kernel timings");
            t->split[k] = p;
        }
        t->cap_split = cap;
    }
    for (int k = 0; k < T_PHASES; k++) t->split[k][t->nsplit] = ms[k];
    t->nsplit++;
    return 0;
}

static int t_advance(void *ctx, int steps, nb_step_time *times)
{
    tuned *t = (tuned *)ctx;
    const int64_t n = t->d.n;
    for (int k = 0; k < steps; k++) {
        bool ev = times != NULL;
        if (ev) NB_CUDA(cudaEventRecord(t->ev[E_DRIFT]));
        int rc = bh_gpu_drift(t->bh, 0, n);
        t->age++;
        t->fresh = 0;
        if (rc || (rc = t_force(t, ev)) || (rc = bh_gpu_kick(t->bh, 0, n))) return rc;
        if (ev) NB_CUDA(cudaEventRecord(t->ev[E_END]));
        if ((rc = t_read_status(t))) return rc;     /* also waits for the step */
        if (!ev) continue;
        float ms[E_COUNT - 1];
        for (int e = 0; e < E_COUNT - 1; e++)
            NB_CUDA(cudaEventElapsedTime(&ms[e], t->ev[e], t->ev[e + 1]));
        float f, st;
        NB_CUDA(cudaEventElapsedTime(&f, t->ev[E_BUILD], t->ev[E_KICK]));
        NB_CUDA(cudaEventElapsedTime(&st, t->ev[E_DRIFT], t->ev[E_END]));
        const double split[T_PHASES] = { ms[E_BUILD], ms[E_QUAD], ms[E_FORCE],
                                         ms[E_DRIFT] + ms[E_KICK], st };
        if ((rc = record_split(t, split))) return rc;
        t->sum_bb += (double)t->hst.bb;
        t->sum_bc += (double)t->hst.bc;
        times[k].force_start_ms = ms[E_DRIFT];
        times[k].force_ms = f;
        times[k].step_ms = st;
        times[k].interactions = (int64_t)(t->hst.bb + t->hst.bc);
    }
    return 0;
}

static int t_download(void *ctx, nb_state *s)
{
    return nb_step05_gpu.download(((tuned *)ctx)->bh, s);
}

static int t_bodies(void *ctx, nb_bodies *b)
{
    return nb_step05_gpu.bodies(((tuned *)ctx)->bh, b);
}

static int t_cells(void *ctx, nb_cells *out)
{
    return nb_step05_gpu.cells(((tuned *)ctx)->bh, out);
}

static void t_info(void *ctx, nb_run_info *info)
{
    tuned *t = (tuned *)ctx;
    nb_step05_gpu.info(t->bh, info);
    info->block = 32 * T_WARPS;
    info->device_bytes += t->bytes + (double)t->cap * (2 * sizeof(float4) + sizeof(int4) + sizeof(float) +
                                                       sizeof(int));
}

static void t_report(void *ctx, FILE *out)
{
    tuned *t = (tuned *)ctx;
    fprintf(out, "    kernels (median of %d timed steps, ms, CUDA events):", t->nsplit);
    for (int k = 0; k < T_PHASES - 1; k++)
        fprintf(out, " %s %.3f", t_names[k], t->nsplit ? nb_median(t->split[k], t->nsplit) : 0.0);
    fputc('\n', out);
    /* a kept tree makes the steps unequal: the mean is what a step costs */
    fprintf(out, "    mean of the %d timed steps (ms):", t->nsplit);
    for (int k = 0; k < T_PHASES; k++) {
        double sum = 0;
        for (int j = 0; j < t->nsplit; j++) sum += t->split[k][j];
        fprintf(out, " %s %.4f", k < T_PHASES - 1 ? t_names[k] : "step", t->nsplit ? sum / t->nsplit : 0.0);
    }
    fputc('\n', out);
    double n = t->d.n, fms = 0;
    for (int j = 0; j < t->nsplit; j++) fms += t->split[2][j];
    if (fms > 0 && t->d.order == 2)
        fprintf(out, "    force kernel over the timed steps: %.3f T pulls/s; %.3f T monopole pulls/s of "
                "equal flops (a quadrupole pull %.0f flops, a body or monopole pull %.0f)\n",
                (t->sum_bb + t->sum_bc) / fms * 1e-9,
                (t->sum_bb + T_FLOPS_QUAD / T_FLOPS_MONO * t->sum_bc) / fms * 1e-9, T_FLOPS_QUAD, T_FLOPS_MONO);
    else if (fms > 0)
        fprintf(out, "    force kernel over the timed steps: %.3f T pulls/s (monopoles: %.0f flops each)\n",
                (t->sum_bb + t->sum_bc) / fms * 1e-9, T_FLOPS_MONO);
    fprintf(out, "    interactions per step: body-body %llu, body-cell %llu (%.1f + %.1f per body); "
            "cells pull as %s\n", t->hst.bb, t->hst.bc, t->hst.bb / n, t->hst.bc / n,
            t->d.order == 2 ? "quadrupoles" : "monopoles (NB_TUNE=order=1)");
    const int gs = 32 * t->d.ni;
    fprintf(out, "    group walk: %lld groups of %d on %d blocks of %d warps, %s, deepest stack %d of %d, "
            "%d groups sent to the stackless walk; tree: %d cells\n", (long long)((t->d.n + gs - 1) / gs),
            gs, t->blocks, T_WARPS, t->sched ? "the costliest first" : "in tree order (NB_TUNE=sched=tree)",
            t->hst.deepest, t->d.depth, t->hst.fallback, t->d.ncells);
    if (t->keep > 1)
        fprintf(out, "    tree kept for %d steps (NB_TUNE=rebuild=%d): built on the first, refitted on the "
                "others; %d refits in this run\n", t->keep, t->keep, t->refits);
}

/* ---- the tuned tree as a library, for step06_multigpu/tuned (tuned.h) ---- */

extern "C" int bh_tuned_open(void **ctx, void *bh, const nb_options *o)
{
    tuned *t = (tuned *)calloc(1, sizeof *t);
    *ctx = t;                       /* on failure the caller calls bh_tuned_close() */
    if (!t) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int rc = parse_tune(&t->d, &t->keep, &t->sched, &t->parts);
    if (rc) return rc;
    t->bh = bh;                     /* the caller's: not destroyed here */
    return t_setup(t, o);
}

extern "C" void bh_tuned_close(void *ctx) { t_destroy(ctx); }

extern "C" void bh_tuned_moved(void *ctx)
{
    tuned *t = (tuned *)ctx;
    t->age++;
    t->fresh = 0;
}

extern "C" int bh_tuned_builds_next(void *ctx)
{
    const tuned *t = (const tuned *)ctx;
    return !t->fresh && !t_refits(t);   /* t_refresh()'s test */
}

extern "C" int bh_tuned_refresh(void *ctx) { return t_refresh((tuned *)ctx, false); }

extern "C" int64_t bh_tuned_groups(void *ctx, int *gs)
{
    tuned *t = (tuned *)ctx;
    bh_gpu_arrays_t a;              /* before the first build t->d.n is not set yet */
    if (bh_gpu_arrays(t->bh, &a)) return 0;
    *gs = 32 * t->d.ni;
    return ((int64_t)a.n + *gs - 1) / *gs;
}

extern "C" int bh_tuned_walk(void *ctx, int64_t g0, int64_t g1)
{
    tuned *t = (tuned *)ctx;
    if (g0 < 0 || g1 > t_groups(t) || g0 > g1)
        return nb_fail(NB_EXIT_RUNTIME, "internal error: groups [%lld, %lld) of %lld", (long long)g0,
                       (long long)g1, (long long)t_groups(t));
    return t_walk(t, g0, g1);
}

extern "C" float *bh_tuned_costs(void *ctx) { return ((tuned *)ctx)->d.gcost; }

extern "C" void bh_tuned_costs_known(void *ctx) { ((tuned *)ctx)->costs = 1; }

extern "C" int bh_tuned_read_status(void *ctx) { return t_read_status((tuned *)ctx); }

extern "C" void bh_tuned_get_stats(void *ctx, bh_tuned_stats *s)
{
    tuned *t = (tuned *)ctx;
    memset(s, 0, sizeof *s);
    s->groups = bh_tuned_groups(ctx, &s->group);
    s->blocks = t->blocks;
    s->warps = T_WARPS;
    s->depth = t->d.depth;
    s->deepest = t->hst.deepest;
    s->fallback = t->hst.fallback;
    s->keep = t->keep;
    s->refits = t->refits;
    s->ncells = t->d.ncells;
    s->order = t->d.order;
    s->sched = t->sched;
    s->parts = t->parts;
    s->bytes = t->bytes + (double)t->cap * (2 * sizeof(float4) + sizeof(int4) + sizeof(float) + sizeof(int));
}

/* ---- what the tests read (bh_gpu.h) -------------------------------------- */

/* The lesson's tree, with this build's centres of mass and masses (a
 * refit's, when the tree was refitted). */
extern "C" int bh_tuned_tree(void *ctx, bh_tree *tr)
{
    tuned *t = (tuned *)ctx;
    int rc = bh_gpu_tree(t->bh, tr);
    if (rc) return rc;
    size_t c = (size_t)tr->ncells;
    float4 *h = (float4 *)malloc((c ? c : 1) * sizeof(float4));
    if (!h) {
        bh_tree_free(tr);
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the tree's cells");
    }
    cudaError_t e = cudaMemcpy(h, t->d.mass, c * sizeof(float4), cudaMemcpyDeviceToHost);
    for (size_t k = 0; e == cudaSuccess && k < c; k++) {
        tr->mx[k] = h[k].x; tr->my[k] = h[k].y; tr->mz[k] = h[k].z; tr->m[k] = h[k].w;
    }
    free(h);
    if (e != cudaSuccess) {
        bh_tree_free(tr);
        return nb_cuda_error(e, "cudaMemcpy(the tuned build's cells)", __FILE__, __LINE__);
    }
    return 0;
}

extern "C" int bh_tuned_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    tuned *t = (tuned *)ctx;
    *bb = (int64_t)t->hst.bb;
    *bc = (int64_t)t->hst.bc;
    return 0;
}

extern "C" const nb_step nb_step05_tuned = {
    .name = "step05_tuned",
    .idea = "Barnes-Hut tuned: the lesson's tree, quadrupole cells, one walk per group of 64 bodies "
            "evaluated like a tile",
    .options = NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_CPU,
    .tree = 1,
    .probe = t_probe,
    .init = t_init,
    .accel = t_accel,
    .advance = t_advance,
    .download = t_download,
    .info = t_info,
    .report = t_report,
    .cells = t_cells,
    .destroy = t_destroy,
    .cpu_variant = &nb_step05_tuned_cpu,       /* --cpu: cpu_tuned.c */
    .host_bytes_per_body = TUNED_HOST_BYTES_PER_BODY,
    .device_bytes_per_body = TUNED_DEVICE_BYTES_PER_BODY,
    .bodies = t_bodies,
    .state64 = NULL,                 /* float only */
    .accel64 = NULL,
    .precision_variant = NULL,
};
