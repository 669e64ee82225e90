/* step05_barneshut/tuned/main.c -- nbody_tuned, the tuned build of step05
 * (tuned.cu); `make bench-tree` and `make tables` measure it beside the
 * lesson's tree. */
#include "tuned.h"

/* its default --theta is TUNED_THETA (tuned.h); --cpu's the lesson's 0.5 */
int main(int argc, char **argv) { return nb_main_theta(argc, argv, &nb_step05_tuned, TUNED_THETA); }
