/* fuzz_tipsy.c -- libFuzzer target: nb_fuzz_tipsy() (see nb_fuzz.h); an input
 * that breaks an invariant aborts, so libFuzzer keeps it as a crash. */
#include <stdio.h>
#include <stdlib.h>
#include "nb_fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nb_fuzz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (nb_fuzz_tipsy(data, size) == NB_FUZZ_BROKEN) {
        fprintf(stderr, "fuzz_tipsy: %s\n", nb_fuzz_why());
        abort();
    }
    return 0;
}
