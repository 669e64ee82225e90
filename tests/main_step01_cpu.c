/* main_step01_cpu.c -- the CUnit runner grading step01_cpu. */
#include "nb_grade.h"

extern const nb_step nb_step01_cpu;

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step01_cpu, STEP_BINARY);
    return nb_grade_main("step01_cpu", argc, argv);
}
