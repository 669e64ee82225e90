/* mg.h -- step06_multigpu: step05's tree code over every GPU of a host (NCCL).
 *
 * Read handouts/06_multigpu.md first, then mg.c (the data flow, the NCCL
 * calls, the two launch modes), mg_kernels.cu (two small kernels around the
 * exchange of the accelerations).  The tree code itself is step05's,
 * linked, not copied: step05_barneshut/bh_gpu.h, "the pipeline as a
 * library".  This header holds no CUDA or NCCL type, so that the tests
 * include it as plain C. */
#ifndef MG_H
#define MG_H
#include <stddef.h>
#include <stdint.h>
#include "nb_step.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The options of step06_multigpu: step05's, but --cpu, plus --gpus. */
#define MG_STEP_OPTIONS (NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_GPUS)

/* The program's table (main.c and main_mpi.c). */
extern const nb_step nb_step06_multigpu;

/* NCCL_NVLS_ENABLE=0 in the environment unless it is set already: NVLink
 * multicast (NVLS) stays off, because on shared hosts it can put GPUs out
 * of service.  Called before any NCCL call: by main(), the probe and init. */
void mg_nccl_env(void);

/* The CUDA devices this process sees; 0 when there is none or the driver
 * fails (NB_FAKE_NO_DEVICE counts as none; NB_FAKE_GPU_COUNT=C says C, a
 * test hook for the MPI launch's check of ranks against GPUs). */
int mg_device_count(void);

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
/* Ranks other than 0: do what rank 0's calls ask until it quits; returns
 * the exit status rank 0 ended with. */
int  mg_follow(void);
/* Rank 0, after nb_main(): tell the others to leave with status rc;
 * returns rc. */
int  mg_quit(int rc);

/* ---- what the tests read (ctx from nb_step06_multigpu.init) ------------ */
int mg_gpus(void *ctx);            /* GPUs of the run */
/* Interactions evaluated by the last force computation, all GPUs summed. */
int mg_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
