/* main_step05_barneshut.c -- the CUnit runner of step05_barneshut: the
 * conformance suite (tree tolerance) and the octree's own suites. */
#include "nb_grade.h"
#include "bh_gpu.h"

void nb_tree_register(void);    /* suite_tree.c */

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step05_gpu, STEP_BINARY);
    nb_tree_register();
    return nb_grade_main("step05_barneshut", argc, argv);
}
