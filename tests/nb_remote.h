/* nb_remote.h -- a step's nb_step table, run in its worker (nb_worker.h)
 * in the sandbox (nb_sandbox.h): the suites call the table as they would
 * the step's own, and every call travels to the worker and back.
 *
 * What the grader knows of a table -- its name, the options its program
 * accepts, whether it is tree code (its tolerance) or needs a GPU -- is the
 * grader's own (the spec below), never what the student's code says of
 * itself.  init() starts a fresh worker (a fresh process: its own CUDA
 * context, its own OpenMP threads) with the environment of that moment
 * (NB_TUNE, OMP_NUM_THREADS, ...), destroy() ends it.  A worker that dies
 * or breaks the protocol makes the call fail with NB_EXIT_RUNTIME and the
 * reason ("the step's process was killed by SIGSEGV", with the first
 * lines of its output); what it prints (captured in a file without a name)
 * is shown under the test, each line behind "       | " with control
 * characters as visible escapes (nb_t_show, nb_testutil.h), so that it
 * can never pass for a line of the grade. */
#ifndef NB_REMOTE_H
#define NB_REMOTE_H
#include <sys/types.h>
#include "nb_step.h"
#include "nb_wire.h"

typedef struct nb_remote_spec {
    const char *key;           /* the worker's table (nb_worker_table.key) */
    const char *name;          /* the step's name, as the grade shows it */
    unsigned    options;       /* NB_OPT_* its program accepts */
    int         tree;          /* 1: tree code (nb_tolerance_for) */
    /* GPU tables: the grader's own device probe (nb_grade_cuda_probe, run in
     * a child of the grader: a student's probe could claim there is no
     * device); NULL: the table needs none. */
    int       (*probe)(const nb_options *o);
} nb_remote_spec;

/* The kit's device probe (common/nb_cuda.cu), for GPU specs (tests/nb_gpuprobe.c). */
int nb_grade_cuda_probe(const nb_options *o);

/* The table whose calls run in worker (a path) with spec's table. */
const nb_step *nb_remote(const char *worker, const nb_remote_spec *spec);
/* step05: the table that --cpu runs (nb_step.cpu_variant). */
void nb_remote_set_variant(const nb_step *table, const nb_step *variant);

/* A step-specific request (nb_worker_ext) on a context of a remote table:
 * args (may be NULL) go out, the reply's data is read from *reply (reset;
 * free it with nb_wbuf_free).  0 or the worker's code (message in
 * nb_errmsg()). */
int nb_remote_ext(void *ctx, const char *name, const nb_wbuf *args, nb_wbuf *reply);
/* The worker's pid in the grader's view (for the kernel's thread count,
 * nb_sandbox_threads()), -1 if unknown. */
pid_t nb_remote_pid(void *ctx);
/* destroy() (the context is gone after it), and how the worker ended: 0 if
 * it exited 0 and printed no sanitizer report, else -1 with the reason in
 * why (the first line of the report).  destroy() itself fails the running
 * CUnit test on such an end. */
int nb_remote_finish(void *ctx, char *why, size_t len);

#endif
