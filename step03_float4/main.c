/* main.c -- the program: everything but the step is in common/. */
#include "nb_step.h"

extern const nb_step nb_step03_float4;

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step03_float4); }
