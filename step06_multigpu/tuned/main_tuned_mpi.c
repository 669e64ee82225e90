/* step06_multigpu/tuned, MPI launch: one process per GPU, started by mpirun
 *   mpirun -np 4 step06_multigpu/tuned/nbody_tuned_mpi -n 20000000 --bench
 * The lesson's launch (../mg_mpi.c) with this build's table (tmg.c) and
 * step05 tuned's default --theta. */
#include "mg_launch.h"
#include "tmg.h"
#include "tuned.h"

int main(int argc, char **argv)
{
    return mg_mpi_main(argc, argv, &nb_step06_tuned, TUNED_THETA, "step06_multigpu/tuned/nbody_tuned");
}
