/* fuzz_state.c -- libFuzzer target: --ic FILE: the detection and the text state-file reader. */
#define NB_FUZZ_FN   nb_fuzz_state
#define NB_FUZZ_NAME "fuzz_state"
#include "fuzz_main.h"
