/* nb_worker.h -- a step's worker: the one process of a grade that runs the
 * step's code (tests/nb_worker.c; protocol: nb_wire.h).
 *
 * tests/work_<runner> is nb_worker.c + tests/worker_<runner>.c + the step's
 * libstep.a + common/.  It serves one of the tables that worker_<runner>.c
 * lists (the grader names it by key in its first request) and, for the
 * tests that look inside a step (step05's tree, step06's GPUs), the
 * extensions it lists.  It runs in the sandbox (nb_sandbox.h) and is
 * untrusted: whatever it answers is data the grader checks. */
#ifndef NB_WORKER_H
#define NB_WORKER_H
#include "nb_step.h"
#include "nb_wire.h"

typedef struct nb_worker_table {
    const char *key;            /* "cpu", "gpu", ... as the grader's spec names it */
    const nb_step *step;
} nb_worker_table;

/* An extension: reads its arguments from in, writes its answer to out,
 * returns 0 or an NB_EXIT_* code (with nb_fail()'s message). */
typedef struct nb_worker_ext {
    const char *name;
    int (*fn)(const nb_worker_table *table, void *ctx, nb_wbuf *in, nb_wbuf *out);
} nb_worker_ext;

/* Defined by tests/worker_<runner>.c, each list ending in { NULL, NULL }. */
extern const nb_worker_table nb_worker_tables[];
extern const nb_worker_ext nb_worker_exts[];

#endif
