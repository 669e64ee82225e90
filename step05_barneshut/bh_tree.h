/* bh_tree.h -- step05_barneshut: the octree that both codes build.
 *
 * Read the step in this order: this file (the layout of the tree and the
 * opening criterion), tests/nb_tree.c (the invariants of a correct tree,
 * checked by the grader), bh_cpu.c (the CPU tree code, --cpu: the readable
 * reference), then bh_gpu.cu (the same tree as a GPU kernel pipeline, after
 * Burtscher & Pingali, "An Efficient CUDA Implementation of the Tree-Based
 * Barnes Hut n-Body Algorithm", GPU Computing Gems Emerald Edition, 2011).
 * NOTES.md holds the design, the napkin math and the measurements.
 *
 * The layout:
 *  - the root is the cube around the bounding box (bh_root);
 *  - a body goes to octant bh_octant() of a cell: bit 0 x > cx, bit 1 y > cy,
 *    bit 2 z > cz (a body on a boundary goes to the lower side);
 *  - a leaf holds one body, except at the depth cap BH_MAXDEPTH where a leaf
 *    holds a list of bodies ("chain"), sorted by body index so that the tree
 *    is a deterministic function of the positions.  That is what keeps
 *    coincident bodies (same position to the last bit) from splitting cells
 *    forever;
 *  - node numbers: 0..n-1 are bodies, n + k is cell k; cell 0 is the root.
 *
 * Both codes build the same tree from the same positions (same float
 * operations), so their trees are the same cell by cell; only the cell
 * numbering differs.  The functions below are compiled for the host and, in
 * bh_gpu.cu, for the device too. */
#ifndef BH_TREE_H
#define BH_TREE_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "nb_state.h"
#ifdef __cplusplus
extern "C" {
#endif

#define BH_MAXDEPTH 64        /* cells live at depths 0..BH_MAXDEPTH-1 */
#define BH_EMPTY    (-1)      /* empty child slot, end of a list */
#define BH_LOCKED   (-2)      /* child slot locked by a thread of the GPU build */
#define BH_RESOLUTION 512.0f  /* a cell is used only at d >= |centre of mass| / this: bh_open2() */

#if defined(__CUDACC__)
#define BH_HD __host__ __device__ __forceinline__
#else
#define BH_HD static inline
#endif

/* The root cube: centre and half size around the bounding box, with a
 * relative margin so that every body lies strictly inside. */
BH_HD void bh_root(float minx, float miny, float minz, float maxx, float maxy, float maxz,
                   float *cx, float *cy, float *cz, float *half)
{
    float ex = maxx - minx, ey = maxy - miny, ez = maxz - minz;
    float e = ex > ey ? ex : ey;
    e = e > ez ? e : ez;
    *cx = 0.5f * minx + 0.5f * maxx;
    *cy = 0.5f * miny + 0.5f * maxy;
    *cz = 0.5f * minz + 0.5f * maxz;
    float h = 0.5f * e * 1.001f;
    *half = h > 1e-30f ? h : 1e-30f;   /* all bodies at one point: any small cube */
}

BH_HD int bh_octant(float px, float py, float pz, float cx, float cy, float cz)
{
    return (px > cx) | ((py > cy) << 1) | ((pz > cz) << 2);
}

/* Centre and half size of child 'oct' of the cell (cx, cy, cz, h). */
BH_HD void bh_child(int oct, float *cx, float *cy, float *cz, float *h)
{
    float q = 0.5f * *h;
    *cx += (oct & 1) ? q : -q;
    *cy += (oct & 2) ? q : -q;
    *cz += (oct & 4) ? q : -q;
    *h = q;
}

/* The opening radius squared, open2: a cell is far from a body when
 * d^2 >= open2 (d: distance from the body to the cell's centre of mass),
 * see bh_far().  theta follows Burtscher & Pingali's code (and ECL-BH, whose
 * speed and accuracy at theta = 0.5 are this step's targets): the cell is
 * measured by the width of its parent, 2s for a cell of width s, i.e.
 * 2s/d < theta -- the textbook s/d < theta/2.  At theta = 0.5 on a Plummer
 * sphere this gives median errors ~1e-4 (textbook s/d < 0.5: ~1e-3).  The
 * radius is at least the cube's half diagonal plus the offset of the centre
 * of mass (+1% for rounding), so a cell is never used by a body inside it:
 * matters for theta > ~1.1, and for tiny cells of coincident bodies whose
 * centre of mass is off their common point by rounding.  And the radius is
 * at least |centre of mass| / BH_RESOLUTION (|.| summed over the axes): the
 * centre of mass is a float, off the true one by up to 2^-24 of its
 * coordinates, which moves the cell's pull by up to 3 times that over d --
 * at d >= |centre| / 512, below 1e-4.  Nearer, a cell of a tight cluster
 * (bodies a few ulps apart, 1e-5 from the next cluster) cannot be one body
 * at that accuracy, so it is opened: its bodies' own separations are exact
 * in float.  A system far from the origin for its size opens more cells.
 * theta = 0: infinity, every cell is opened. */
BH_HD float bh_open2(float cx, float cy, float cz, float half, float mx, float my, float mz,
                     float theta)
{
    if (!(theta > 0)) return INFINITY;
    float dx = mx - cx, dy = my - cy, dz = mz - cz;
    float r = 4 * half / theta;                            /* 2s / theta, s = 2 half */
    float inner = 1.01f * (1.7320508f * half + sqrtf(dx * dx + dy * dy + dz * dz));
    float fine = (fabsf(mx) + fabsf(my) + fabsf(mz)) * (1.0f / BH_RESOLUTION);
    r = r > inner ? r : inner;
    r = r > fine ? r : fine;
    return r * r;
}

/* The walk's test, the same in both codes: is the cell far from the body
 * (d2: distance squared to the cell's centre of mass, open2: bh_open2()),
 * so that the cell may act as one body?  Only when the comparison means
 * something: d2 finite (then open2 <= d2 is finite too).  A body 1e20 away
 * from the others makes d2 and open2 of the root overflow to +inf, and
 * inf >= inf would use the root as one point mass for every body; NaN
 * compares false already.  Otherwise the cell is opened.  The two tests are
 * joined with & (both are evaluated, no branch), so that the CPU code's test
 * over the 32 bodies of a group is a loop the compiler vectorizes. */
BH_HD int bh_far(float d2, float open2)
{
    return (d2 >= open2) & (d2 < INFINITY);
}

#ifdef __cplusplus
}
#endif
#endif
