/* nb_threads.c -- OpenMP threads started once, before the run (see
 * nb_threads.h). */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_threads.h"

static void *idle(void *arg) { return arg; }

int nb_threads_start(int threads, const char *hint)
{
    if (threads <= 1) return NB_OK;
    pthread_t *t = malloc((size_t)threads * sizeof *t);
    if (!t) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %d threads", threads);
    int made = 0, err = 0;
    while (made < threads - 1 && !(err = pthread_create(&t[made], NULL, idle, NULL))) made++;
    for (int k = 0; k < made; k++) pthread_join(t[k], NULL);
    free(t);
    if (err)
        return nb_fail(NB_EXIT_RUNTIME, "cannot start %d threads (%d could): %s (a limit on "
                       "processes or on the stack size: ulimit -u, ulimit -s); %s", threads,
                       made + 1, strerror(err), hint);
    /* libgomp's pool, now: the run's parallel regions reuse it */
    #pragma omp parallel num_threads(threads)
    {
        (void)0;
    }
    return NB_OK;
}

/* not in nb_driver.c: the grader's workers link no nb_main(), no reference */
void nb_cpu_model(char *buf, size_t len)
{
    char line[512], *c;
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && (c = strchr(line, ':'))) {
            c += strspn(c + 1, " ") + 1;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, len, "%s", c);
            break;
        }
    if (f) fclose(f);
}
