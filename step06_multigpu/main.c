/* step06_multigpu: step05's tree code over every GPU of this host, one
 * process, one thread per GPU (start reading at mg.h; the MPI launch, one
 * process per GPU, is main_mpi.c). */
#include "mg.h"

int main(int argc, char **argv)
{
    mg_nccl_env();                  /* NVLink multicast off before any NCCL call */
    return nb_main(argc, argv, &nb_step06_multigpu);
}
