/* main_step04_shared.c -- the CUnit runner grading step04_shared. */
#include "nb_grade.h"

extern const nb_step nb_step04_shared, nb_step01_cpu;

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step04_shared, STEP_BINARY);
    nb_gpu_allpairs_register(&nb_step04_shared, &nb_step01_cpu, STEP_BINARY);
    return nb_grade_main("step04_shared", argc, argv);
}
