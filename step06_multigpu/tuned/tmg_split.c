/* tmg_split.c -- step06_multigpu/tuned: the split of the walk by measured
 * cost (declared in tmg.h; tmg.c calls it on every GPU after each walk,
 * with every group's cost all-gathered).  Host C, no GPU: a function of
 * its arguments only, summed in one order, so that every GPU (every rank
 * under mpirun) computes the same bounds from the same costs; the tests
 * check it without a GPU (tests/suite_multigpu_tuned.c). */
#include <math.h>
#include "tmg.h"

static double weight(float c)
{
    return c > 0 && c < INFINITY ? (double)c : 1.0;   /* NaN too */
}

void tmg_split(const float *cost, int64_t ng, int P, int64_t *b)
{
    double total = 0;
    for (int64_t g = 0; cost && g < ng; g++) total += weight(cost[g]);
    b[0] = 0;
    b[P] = ng;
    if (!(total > 0)) {             /* no costs yet: by count */
        for (int r = 1; r < P; r++) b[r] = ng * r / P;
        return;
    }
    /* boundary r: the first group whose middle lies past r/P of the total */
    double run = 0;
    int r = 1;
    for (int64_t g = 0; g < ng && r < P; g++) {
        double c = weight(cost[g]);
        while (r < P && run + 0.5 * c > total * r / P) b[r++] = g;
        run += c;
    }
    while (r < P) b[r++] = ng;
}
