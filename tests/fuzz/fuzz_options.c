/* fuzz_options.c -- libFuzzer target: the option parser (NUL-separated words). */
#define NB_FUZZ_FN   nb_fuzz_options
#define NB_FUZZ_NAME "fuzz_options"
#include "fuzz_main.h"
