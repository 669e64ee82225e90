/* main_step02_naive.c -- the CUnit runner grading step02_naive. */
#include "nb_grade.h"

extern const nb_step nb_step02_naive, nb_step01_cpu;

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step02_naive, STEP_BINARY);
    nb_gpu_allpairs_register(&nb_step02_naive, &nb_step01_cpu, STEP_BINARY);
    return nb_grade_main("step02_naive", argc, argv);
}
