/* main_step06_tuned.c -- the CUnit runner of step06's tuned build
 * (step06_multigpu/tuned/nbody_tuned: step05's tuned tree over every GPU of
 * a host): the conformance suite twice, on one GPU (--gpus=1) and on every
 * GPU of the machine (the default), and the build's own suites
 * (suite_multigpu_tuned.c): the walk's split by cost (no GPU needed) and
 * the comparison with step05's tuned build, body for body.  The tables run
 * in tests/work_step06_tuned (nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

void nb_multigpu_tuned_register(const nb_step *step06t, const nb_step *step05t,
                                const nb_step *split);         /* suite_multigpu_tuned.c */

int main(int argc, char **argv)
{
    static const nb_remote_spec tuned = { "tuned", "step06_tuned",
                                          NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_GPUS, 1,
                                          nb_grade_cuda_probe };
    static const nb_remote_spec tuned05 = { "tuned05", "step05_tuned",
                                            NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_CPU, 1,
                                            nb_grade_cuda_probe };
    static const nb_remote_spec split = { "split", "step06_tuned split", 0, 0, NULL };
    const nb_step *s6 = nb_remote(WORKER, &tuned), *s5 = nb_remote(WORKER, &tuned05),
                  *sp = nb_remote(WORKER, &split);
    nb_conformance_register_as(s6, STEP_BINARY, "conformance (P = 1)", "--gpus=1");
    nb_conformance_register_as(s6, STEP_BINARY, "conformance (P = all)", NULL);
    nb_multigpu_tuned_register(s6, s5, sp);
    return nb_grade_main("step06_tuned", argc, argv);
}
