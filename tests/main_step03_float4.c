/* main_step03_float4.c -- the CUnit runner grading step03_float4 (its table runs in
 * tests/work_step03_float4, nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

int main(int argc, char **argv)
{
    static const nb_remote_spec gpu = { "gpu", "step03_float4", NB_OPT_BLOCK, 0, nb_grade_cuda_probe };
    const nb_step *g = nb_remote(WORKER, &gpu);
    nb_conformance_register(g, STEP_BINARY);
    nb_gpu_allpairs_register(g, STEP_BINARY);
    return nb_grade_main("step03_float4", argc, argv);
}
