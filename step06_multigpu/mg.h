/* mg.h -- step06_multigpu: step05's tree code over every GPU of a host (NCCL).
 *
 * Read handouts/06_multigpu.md first, then mg_state.h (the run's state),
 * mg.c (the data flow, the NCCL calls, the two launch modes), mg_kernels.cu
 * (two small kernels around the exchange of the accelerations); beside the
 * lesson, mg_launch.c (the MPI launch, the waits that cannot hang, a
 * failure that stops every GPU) and mg_bench.c (what --bench prints).  The
 * tree code itself is step05's, linked, not copied:
 * step05_barneshut/bh_gpu.h, "the pipeline as a library".  This header
 * holds no CUDA or NCCL type, so that the tests include it as plain C. */
#ifndef MG_H
#define MG_H
#include <stdint.h>
#include "nb_step.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The options of step06_multigpu: step05's, but --cpu, plus --gpus. */
#define MG_STEP_OPTIONS (NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_GPUS)

/* The program's table (main.c and main_mpi.c). */
extern const nb_step nb_step06_multigpu;

/* Defined beside the lesson in mg_launch.c (with the MPI launch's team,
 * mg_launch.h).  NCCL_NVLS_ENABLE=0 in the environment unless it is set
 * already: NVLink multicast (NVLS) stays off, because on shared hosts it
 * can put GPUs out of service.  Called before any NCCL call: by main(),
 * the probe and init. */
void mg_nccl_env(void);

/* The CUDA devices this process sees; 0 when there is none or the driver
 * fails (NB_FAKE_NO_DEVICE counts as none; NB_FAKE_GPU_COUNT=C says C, a
 * test hook for the MPI launch's check of ranks against GPUs). */
int mg_device_count(void);

/* ---- what the tests read (ctx from nb_step06_multigpu.init) ------------ */
int mg_gpus(void *ctx);            /* GPUs of the run */
/* Interactions evaluated by the last force computation, all GPUs summed. */
int mg_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
