/* lint: clean -- what a lesson may write: a force loop, OpenMP, an attribute,
 * system macros, a variable named optimize, a comment about step #1 */
#include <stddef.h>
#include <stdio.h>
#include "nb_physics.h"

__attribute__((format(printf, 1, 2))) int say(const char *fmt, ...);

void forces(const float *x, const float *m, float *a, long n, float eps2)
{
    int optimize = 1;   /* see step #1 */
    const char *s = "# 1 \"not a directive\"";
    (void)s;
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (long j = 0; j < n; j++)
            nb_interact(x[i], 0.0f, 0.0f, x[j], 0.0f, 0.0f, m[j], eps2, &ax, &ay, &az);
        a[i] = optimize ? ax : ay + az;
    }
    if (a == NULL) printf("none\n");
}
