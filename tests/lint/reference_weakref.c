/* lint: 5: a reference to nb_ref_accel */
/* the reference under another name (a weak alias of it) */
#include "nb_verify.h"

static void mine(const nb_state *, double, const int64_t *, int64_t, double *, double *, double *) __attribute__((weakref("nb_ref_accel")));
void forces(const nb_state *s, double eps, const int64_t *idx, int64_t count, double *ax, double *ay, double *az)
{
    mine(s, eps, idx, count, ax, ay, az);
}
