/* main_step04_tuned.c -- the CUnit runner grading step04's tuned build
 * (step04_shared/tuned/nbody_tuned, tuned.cu): the same suites as the lesson
 * kernel, and "tuned": every code path of the build, whatever its picker
 * chooses, in each --precision; "precision": double and mixed against the
 * grader's references.  The table runs in tests/work_step04_tuned
 * (nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

int main(int argc, char **argv)
{
    static const nb_remote_spec gpu = { "gpu", "step04_tuned", NB_OPT_BLOCK | NB_OPT_PRECISION, 0,
                                        nb_grade_cuda_probe };
    const nb_step *g = nb_remote(WORKER, &gpu);
    nb_conformance_register(g, STEP_BINARY);
    nb_gpu_allpairs_register(g, STEP_BINARY);
    nb_tuned_register(g, STEP_BINARY);
    nb_precision_register(g, STEP_BINARY);
    return nb_grade_main("step04_tuned", argc, argv);
}
