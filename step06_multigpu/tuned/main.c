/* step06_multigpu/tuned/main.c -- nbody_tuned, step06's tuned build
 * (tmg.c): step05's tuned tree over every GPU of a host, one process, one
 * thread per GPU (the MPI launch, one process per GPU: main_tuned_mpi.c). */
#include "mg.h"
#include "tmg.h"
#include "tuned.h"

/* its default --theta is step05 tuned's, TUNED_THETA (tuned.h) */
int main(int argc, char **argv)
{
    mg_nccl_env();                  /* NVLink multicast off before any NCCL call */
    return nb_main_theta(argc, argv, &nb_step06_tuned, TUNED_THETA);
}
