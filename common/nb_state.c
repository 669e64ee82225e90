/* nb_state.c -- allocation of the host-side system of bodies. */
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_state.h"

int nb_state_alloc(nb_state *s, int64_t n)
{
    memset(s, 0, sizeof *s);
    if (n < 1)
        return nb_fail(NB_EXIT_USAGE, "number of bodies must be >= 1 (got %lld)", (long long)n);
    size_t bytes = (size_t)n * sizeof(float);
    float **arrays[7] = { &s->m, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz };
    for (int k = 0; k < 7; k++) {
        *arrays[k] = malloc(bytes);
        if (!*arrays[k]) {
            nb_state_free(s);
            return nb_fail(NB_EXIT_RUNTIME, "out of host memory: %lld bodies need %.1f MiB",
                           (long long)n, 7.0 * (double)bytes / 1048576.0);
        }
    }
    s->n = n;
    return NB_OK;
}

void nb_state_free(nb_state *s)
{
    free(s->m); free(s->x); free(s->y); free(s->z);
    free(s->vx); free(s->vy); free(s->vz);
    memset(s, 0, sizeof *s);
}

int nb_state_copy(nb_state *dst, const nb_state *src)
{
    int rc = nb_state_alloc(dst, src->n);
    if (rc) return rc;
    size_t bytes = (size_t)src->n * sizeof(float);
    memcpy(dst->m, src->m, bytes);
    memcpy(dst->x, src->x, bytes); memcpy(dst->y, src->y, bytes); memcpy(dst->z, src->z, bytes);
    memcpy(dst->vx, src->vx, bytes); memcpy(dst->vy, src->vy, bytes); memcpy(dst->vz, src->vz, bytes);
    return NB_OK;
}
