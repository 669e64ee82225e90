/* step05_barneshut/tuned/main.c -- nbody_tuned, the tuned build of step05
 * (tuned.cu); `make bench-tree` and `make tables` measure it beside the
 * lesson's tree. */
#include "tuned.h"

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step05_tuned); }
