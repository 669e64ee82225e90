/* main_step04_tuned.c -- the CUnit runner grading step04's tuned build
 * (step04_shared/nbody_tuned, tuned.cu): the same suites as the lesson
 * kernel, and "tuned": every code path of the build, whatever its picker
 * chooses. */
#include "nb_grade.h"

extern const nb_step nb_step04_tuned, nb_step01_cpu;

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step04_tuned, STEP_BINARY);
    nb_gpu_allpairs_register(&nb_step04_tuned, &nb_step01_cpu, STEP_BINARY);
    nb_tuned_register(&nb_step04_tuned, STEP_BINARY);
    return nb_grade_main("step04_tuned", argc, argv);
}
