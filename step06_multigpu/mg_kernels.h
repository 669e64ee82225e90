/* mg_kernels.h -- step06_multigpu: the two kernels around the exchange of
 * the accelerations (mg_kernels.cu), on the current device's default
 * stream.  at: 3 floats per body (x, y, z) in tree order, the buffer of the
 * all-gather.  Both return 0, or NB_EXIT_RUNTIME with the message set. */
#ifndef MG_KERNELS_H
#define MG_KERNELS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* at[k] = a[sorted[k]] for the walked slice k in [lo, hi) of the tree order. */
int mg_pack(const int *sorted, const float *ax, const float *ay, const float *az, float *at,
            int64_t lo, int64_t hi);
/* a[sorted[k]] = at[k] for every k in [0, n): every GPU's slice back at the
 * bodies' indices. */
int mg_scatter(const int *sorted, const float *at, float *ax, float *ay, float *az, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
