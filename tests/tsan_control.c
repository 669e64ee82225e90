/* tsan_control.c -- the kit's own controls of ThreadSanitizer with LLVM's
 * OpenMP (common/tsan.mk), run by the suite "races" (tests/suite_races.c)
 * in the sandbox before it looks at the student's loop; built like the
 * race-checking workers.
 *
 *   tsan_control clean   an OpenMP loop shaped like the force loop (private
 *                        sums, a reduction, a barrier, the master thread
 *                        writing between parallel regions): no race, so it
 *                        must exit 0 without a report -- a report here means
 *                        TSan does not see OpenMP's synchronization (Archer,
 *                        libarcher.so, not loaded) and would blame any loop
 *   tsan_control race    the same loop with the sums shared by every thread:
 *                        it must be reported ("data race ... tsan_control.c")
 *                        and exit 66 -- else TSan is not watching here
 * Arguments: clean|race THREADS N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float sums(const float *x, int n, int threads, int shared, float *out)
{
    float s = 0.0f, total = 0.0f;
    #pragma omp parallel num_threads(threads)
    {
        #pragma omp for schedule(static)
        for (int i = 0; i < n; i++) {
            float own = 0.0f;
            if (shared) {
                s = 0.0f;                              /* every thread's: the race */
                for (int j = 0; j < n; j++) s += x[i] * x[j];
                out[i] = s;
            } else {
                for (int j = 0; j < n; j++) own += x[i] * x[j];
                out[i] = own;
            }
        }
        #pragma omp barrier
        #pragma omp for schedule(static) reduction(+ : total)
        for (int i = 0; i < n; i++) total += out[i];
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "clean") && strcmp(argv[1], "race"))) {
        fprintf(stderr, "usage: tsan_control clean|race THREADS N\n");
        return 2;
    }
    const int shared = !strcmp(argv[1], "race"), threads = atoi(argv[2]), n = atoi(argv[3]);
    if (threads < 1 || n < 1 || n > 1 << 16) return 2;
    float *x = malloc((size_t)n * sizeof *x), *out = malloc((size_t)n * sizeof *out);
    if (!x || !out) return 3;
    double want = 0.0, sum = 0.0;
    for (int round = 0; round < 3; round++) {            /* the master writes between regions */
        for (int i = 0; i < n; i++) x[i] = (float)((i + round) % 7) / 8.0f;
        sum = sums(x, n, threads, shared, out);
    }
    for (int i = 0; i < n; i++) want += x[i];
    want *= want;
    printf("tsan_control %s: %d threads, N = %d: sum %.6g (exact %.6g)\n", argv[1], threads, n, sum, want);
    free(x);
    free(out);
    return shared ? 0 : (sum > 0.999 * want && sum < 1.001 * want ? 0 : 1);
}
