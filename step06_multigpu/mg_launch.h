/* mg_launch.h -- step06_multigpu, beside the lesson: declarations of
 * mg_launch.c, the machinery around mg.c -- the MPI launch (rank 0's calls
 * forwarded to the other ranks), the waits that cannot hang, a failure
 * that stops every GPU -- of mg_bench.c (what --bench prints), and the
 * calls of mg.c that mg_launch.c runs on the other ranks.  Host C with
 * CUDA and NCCL types (mg_state.h). */
#ifndef MG_LAUNCH_H
#define MG_LAUNCH_H
#include <stddef.h>
#include "mg.h"
#include "mg_state.h"

/* ---- the second launch mode: one process per GPU under mpirun ----------
 * main_mpi.c (built when MPI is found) fills a team and calls
 * mg_set_team() before anything else; then rank 0 runs nb_main() and
 * mg_quit(), every other rank mg_follow().  The GPU code is the same in
 * both modes: only who tells a GPU what to do next differs (a thread of
 * this process, or rank 0 through bcast()).  Without a team, one process
 * drives every GPU with one OpenMP thread each (main.c). */
typedef struct mg_team {
    int rank, size;               /* this process, and the processes (one per GPU) */
    int local_rank;               /* on its host: the CUDA device it drives */
    /* bytes from rank 0 to every rank, in place; 0 or non-zero on error */
    int (*bcast)(void *buf, size_t bytes);
    /* every rank's 'bytes' at mine into all (size * bytes, rank order) */
    int (*allgather)(const void *mine, void *all, size_t bytes);
    /* stop every process of the run with exit status code (never returns) */
    void (*abort_all)(int code);
} mg_team;
void mg_set_team(const mg_team *team);
/* The main() of an MPI program (mg_mpi.c, built when MPI is found): the
 * checks of the launch, the team, rank 0 runs step (nb_main_theta() with
 * theta), the others follow; one_process names the program that drives
 * every GPU from one process (said when started without mpirun). */
int  mg_mpi_main(int argc, char **argv, const nb_step *step, double theta, const char *one_process);
/* Ranks other than 0: do what rank 0's calls ask until it quits; returns
 * the exit status rank 0 ended with. */
int  mg_follow(void);
/* Rank 0, after nb_main(): tell the others to leave with status rc;
 * returns rc. */
int  mg_quit(int rc);

/* ---- for mg.c ------------------------------------------------------------ */

/* The team main_mpi.c set, or NULL (one process drives every GPU). */
const mg_team *mg_get_team(void);
/* The probe's check of --gpus against count GPUs here, or under mpirun
 * against the processes; 0 or NB_EXIT_USAGE. */
int  mg_check_gpus(const nb_options *o, int count);
/* The test hooks of m (NB_NCCL_TIMEOUT_S, NB_FAKE_GPU_FAIL): its timeout
 * and the GPU that fails. */
void mg_hooks(mg *m);
/* NB_FAKE_GPU_FAIL: NB_EXIT_RUNTIME once if it names w, else 0. */
int  mg_fake_failure(mg_gpu *w);

/* The waits: a collective (or any NCCL call on w's communicator) never
 * blocks the host; it polls, and gives up when another GPU failed or past
 * the timeout.  r: what the NCCL call returned. */
int  mg_nccl_ready(mg *m, mg_gpu *w, ncclResult_t r, const char *what);
/* Around a collective on w->stream, ordered with the default stream; after
 * it, the host waits for it. */
int  mg_before_collective(mg_gpu *w);
int  mg_after_collective(mg *m, mg_gpu *w, ncclResult_t r, const char *what);

/* run_all(): before the call (a dead run fails at once), each GPU's
 * outcome, and after it the first failure, which ends the run: every
 * communicator aborted, under mpirun every process. */
int  mg_run_begin(mg *m);
void mg_keep_failure(mg *m, mg_gpu *w, int rc);
int  mg_run_end(mg *m);
/* GPU w's teardown: a healthy communicator finalized and destroyed (with
 * the other GPUs'), a dead one (m->dead) left alone; its buffers, events
 * and stream freed. */
int  mg_gpu_destroy(mg *m, mg_gpu *w);

/* The header of a call sent from rank 0 to the other ranks (MPI mode). */
typedef struct mg_msg { int op, steps, timed, rc; } mg_msg;
typedef struct mg_params {
    int64_t n;
    double dt, eps, theta;
    int block, poison, gpus, pad;
} mg_params;
/* MPI mode: the bodies from rank 0 to every rank (7 arrays of n floats). */
int  mg_bcast_state(nb_state *s);

/* Rank 0 under mpirun: the other ranks do the call too (no-op otherwise);
 * mg_tell_init() sends OP_INIT, the options and the bodies. */
int  mg_tell(mg *m, int op, int steps, int timed);
int  mg_tell_init(mg *m, const nb_state *s, const nb_options *o);

/* mg.c's calls that mg_follow() (mg_follow.c) runs on the other ranks. */
int  mg_create(mg **out, int64_t n, const nb_options *o);
int  mg_start(mg *m, const nb_state *s);
int  mg_run_all(mg *m, const mg_call *c);
void mg_destroy(void *ctx);

/* ---- mg_bench.c: what --bench and --csv print ---------------------------- */

/* GPU w's record of the step it just finished (its events). */
int  mg_bench_rec(mg_gpu *w, mg_rec *rec);
/* *p holds at least need records (*cap of them). */
int  mg_grow_recs(mg_rec **p, int *cap, size_t need);
/* times[0 .. steps) from the records of the last advance (m->cur), each
 * step as slow as its slowest GPU; the records kept for the report. */
int  mg_bench_times(mg *m, int steps, nb_step_time *times);
/* The table's info and report. */
void mg_info(void *ctx, nb_run_info *info);
void mg_report(void *ctx, FILE *out);

#endif
