/* main_step06_multigpu.c -- the CUnit runner of step06_multigpu: the
 * conformance suite twice, on one GPU (--gpus=1) and on every GPU of the
 * machine (the default), and the step's own suite (suite_multigpu.c), which
 * compares step06 with step05's GPU code.  Both tables run in
 * tests/work_step06_multigpu (nb_remote.h).  On a machine with one GPU both
 * conformance registrations run on it. */
#include "nb_grade.h"
#include "nb_remote.h"

void nb_multigpu_register(const nb_step *step06, const nb_step *step05);   /* suite_multigpu.c */

int main(int argc, char **argv)
{
    static const nb_remote_spec mg = { "multigpu", "step06_multigpu",
                                       NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_GPUS, 1,
                                       nb_grade_cuda_probe };
    static const nb_remote_spec bh = { "gpu", "step05_barneshut",
                                       NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_CPU | NB_OPT_RENDER_TREE, 1,
                                       nb_grade_cuda_probe };
    const nb_step *s6 = nb_remote(WORKER, &mg), *s5 = nb_remote(WORKER, &bh);
    nb_conformance_register_as(s6, STEP_BINARY, "conformance (P = 1)", "--gpus=1");
    nb_conformance_register_as(s6, STEP_BINARY, "conformance (P = all)", NULL);
    nb_multigpu_register(s6, s5);
    return nb_grade_main("step06_multigpu", argc, argv);
}
