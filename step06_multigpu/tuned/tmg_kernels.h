/* tmg_kernels.h -- step06_multigpu/tuned: the bodies kept in tree order
 * (tmg_kernels.cu), on the current device's default stream.  Both return
 * 0, or NB_EXIT_RUNTIME with the message set. */
#ifndef TMG_KERNELS_H
#define TMG_KERNELS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* id[i] = i for i in [0, n): every body where the initial state put it. */
int tmg_ids(int *id, int64_t n);
/* The bodies moved into the tree order sorted[0 .. n) of the last build:
 * the body at sorted[k] goes to k, its position and mass (pos, float4),
 * velocity (vx, vy, vz) and initial index (id) with it.  tmp: scratch of
 * 16 B a body.  A copy: no bit changes. */
int tmg_reorder(const int *sorted, float *pos, float *vx, float *vy, float *vz, int *id,
                void *tmp, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
