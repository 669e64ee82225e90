/* nb_state.h -- the host-side system of bodies, structure of arrays, float.
 *
 * Every step starts from an nb_state and hands one back (download); what it
 * keeps in between -- float3, float4, device memory, a tree -- is its own
 * business.  Masses, positions and velocities are float as in every step. */
#ifndef NB_STATE_H
#define NB_STATE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define NB_MAX_N      2147483647LL   /* bodies are indexed with int32 on the GPU */

typedef struct nb_state {
    int64_t n;
    float  *m, *x, *y, *z, *vx, *vy, *vz;
} nb_state;

/* Allocate (uninitialized) arrays for n bodies; NB_EXIT_RUNTIME on failure. */
int  nb_state_alloc(nb_state *s, int64_t n);
void nb_state_free(nb_state *s);
int  nb_state_copy(nb_state *dst, const nb_state *src);   /* allocates dst */

#ifdef __cplusplus
}
#endif
#endif
