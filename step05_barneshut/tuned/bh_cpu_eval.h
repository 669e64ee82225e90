/* bh_cpu_eval.h -- step05_barneshut --cpu: the interaction list of a group
 * of bodies and its evaluation (bh_cpu_eval.c).
 *
 * The walk (bh_cpu.c) collects, for a group of BH_GROUP neighbouring bodies,
 * every source the group interacts with -- the cells it accepts as point
 * masses and the bodies of the leaves it opens -- into a list in structure
 * of arrays.  bh_eval() then sums the list on every body of the group: the
 * group x list block is a small dense all-pairs problem. */
#ifndef BH_CPU_EVAL_H
#define BH_CPU_EVAL_H
#include <stdint.h>

/* Bodies per group: the width of a GPU warp, so that both codes decide the
 * same cells for the same 32 bodies and evaluate the same interactions. */
#define BH_GROUP 32

/* An interaction list: len sources (x, y, z, m), room for cap; 'bodies' and
 * 'cells' count the entries of each kind.  One per thread, reused by every
 * group and grown when short; oom is set when growing failed (entries
 * dropped, the force computation fails). */
typedef struct bh_list {
    float  *x, *y, *z, *m;
    int64_t len, cap;
    int64_t bodies, cells;
    int     oom;
} bh_list;

/* The pull of the len sources of list l on the cnt positions (x, y, z)[j],
 * written (not added) to (ax, ay, az)[j].  Each body sums the list in list
 * order, in the vector lanes' fixed pattern: the result depends only on the
 * positions and the list, not on the thread that computes it. */
void bh_eval(const float *x, const float *y, const float *z, int cnt, const bh_list *l,
             float eps2, float *ax, float *ay, float *az);

#endif
