/* nb_threads.h -- OpenMP threads started once, before the run
 * (docs/conventions.md, "Exit codes and messages").
 *
 * libgomp ends the program with exit(1) -- the kit's "--check failed" -- and
 * its own line when it cannot create a thread (a limit on processes,
 * ulimit -u; a stack limit too large to map, ulimit -s).  So the threads a
 * run will use are tried first with pthread_create(), which reports the
 * failure instead, and then libgomp's pool is started at that size: later
 * parallel regions of up to that many threads reuse it. */
#ifndef NB_THREADS_H
#define NB_THREADS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* 0, or NB_EXIT_RUNTIME with "cannot start T threads (...): <reason>;
 * <hint>".  threads <= 1: nothing to start. */
int nb_threads_start(int threads, const char *hint);

/* The CPU model name (/proc/cpuinfo; "unknown CPU"), nb_run_info.device of a CPU step. */
void nb_cpu_model(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
