/* main_step02_naive.c -- the CUnit runner grading step02_naive (its table runs in
 * tests/work_step02_naive, nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

int main(int argc, char **argv)
{
    static const nb_remote_spec gpu = { "gpu", "step02_naive", NB_OPT_BLOCK, 0, nb_grade_cuda_probe };
    const nb_step *g = nb_remote(WORKER, &gpu);
    nb_conformance_register(g, STEP_BINARY);
    nb_gpu_allpairs_register(g, STEP_BINARY);
    return nb_grade_main("step02_naive", argc, argv);
}
