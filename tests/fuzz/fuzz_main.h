/* fuzz_main.h -- the libFuzzer entry points of one target, included by
 * fuzz_<target>.c after defining NB_FUZZ_FN (its harness, nb_fuzz.h) and
 * NB_FUZZ_NAME.  An input that breaks an invariant aborts, so libFuzzer
 * keeps it as a crash. */
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
    if (NB_FUZZ_FN(data, size) == NB_FUZZ_BROKEN) {
        fprintf(stderr, "%s: %s\n", NB_FUZZ_NAME, nb_fuzz_why());
        abort();
    }
    return 0;
}
