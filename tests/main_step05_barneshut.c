/* main_step05_barneshut.c -- the CUnit runner of step05_barneshut: the
 * conformance suite (tree tolerance) for both tables of the program, the GPU
 * pipeline and its --cpu variant, and the octree's own suites. */
#include "nb_grade.h"
#include "bh_cpu.h"
#include "bh_gpu.h"

void nb_tree_register(const char *step_binary);    /* suite_tree.c */

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step05_gpu, STEP_BINARY);
    nb_conformance_register(&nb_step05_cpu, STEP_BINARY);
    nb_tree_register(STEP_BINARY);
    nb_sanitizer_register(&nb_step05_gpu, STEP_BINARY, NULL, 1);
    return nb_grade_main("step05_barneshut", argc, argv);
}
