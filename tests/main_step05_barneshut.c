/* run_step05_barneshut.c -- the CUnit runner of step05_barneshut: the
 * conformance suite (tree tolerance) and the octree's own suites. */
#include "nb_grade.h"
#include "bh.h"

void nb_tree_register(const nb_step *step);    /* suite_tree.c */

int main(int argc, char **argv)
{
    nb_conformance_register(&nb_step05_barneshut, STEP_BINARY);
    nb_tree_register(&nb_step05_barneshut);
    return nb_grade_main("step05_barneshut", argc, argv);
}
