/* step06_multigpu, MPI launch: one process per GPU, started by mpirun
 *   mpirun -np 4 step06_multigpu/nbody_mpi -n 5000000 --bench
 * The launch itself is mg_mpi.c (beside the lesson), shared with the tuned
 * build's; this program runs it with step06's table (start reading at mg.h). */
#include "mg_launch.h"

int main(int argc, char **argv)
{
    return mg_mpi_main(argc, argv, &nb_step06_multigpu, 0, "step06_multigpu/nbody");
}
