/* main_step03_float4.c -- the CUnit runner grading step03_float4. */
#include "nb_grade.h"

extern const nb_step nb_step03_float4, nb_step01_cpu;

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step03_float4, STEP_BINARY);
    nb_gpu_allpairs_register(&nb_step03_float4, &nb_step01_cpu, STEP_BINARY);
    return nb_grade_main("step03_float4", argc, argv);
}
