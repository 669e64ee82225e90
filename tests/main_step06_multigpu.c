/* main_step06_multigpu.c -- the CUnit runner of step06_multigpu: the
 * conformance suite twice, on one GPU (--gpus=1) and on every GPU of the
 * machine (the default), and the step's own suite (suite_multigpu.c).  On a
 * machine with one GPU both conformance registrations run on it. */
#include "nb_grade.h"
#include "mg.h"

void nb_multigpu_register(void);    /* suite_multigpu.c */

int main(int argc, char **argv)
{
    mg_nccl_env();
    nb_conformance_register_as(&nb_step06_multigpu, STEP_BINARY, "conformance (P = 1)", "--gpus=1");
    nb_conformance_register_as(&nb_step06_multigpu, STEP_BINARY, "conformance (P = all)", NULL);
    nb_multigpu_register();
    return nb_grade_main("step06_multigpu", argc, argv);
}
