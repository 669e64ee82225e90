/* main.c -- the program: everything but the step is in common/. */
#include "nb_step.h"

extern const nb_step nb_step02_naive;

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step02_naive); }
