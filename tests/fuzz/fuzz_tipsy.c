/* fuzz_tipsy.c -- libFuzzer target: tipsy:FILE: the TIPSY reader, as a file and as a stream. */
#define NB_FUZZ_FN   nb_fuzz_tipsy
#define NB_FUZZ_NAME "fuzz_tipsy"
#include "fuzz_main.h"
