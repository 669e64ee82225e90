/* replay.c -- replays fuzz inputs through the normal (non-fuzz) build:
 *   replay DIR...   each DIR is named after its target (.../state,
 *                   .../tipsy, .../options) and every file in it is run
 *                   through that harness.  Exit 1 if one broke an invariant. */
#include <stdio.h>
#include <string.h>
#include "nb_fuzz.h"

int main(int argc, char **argv)
{
    nb_fuzz_setup();
    int bad = 0;
    for (int k = 1; k < argc; k++) {
        const char *base = strrchr(argv[k], '/');
        base = base && base[1] ? base + 1 : argv[k];
        if (!nb_fuzz_target(base)) {
            fprintf(stderr, "replay: %s: not a target directory (state, tipsy, options)\n", argv[k]);
            bad = 1;
            continue;
        }
        int count = 0, broke = nb_fuzz_replay(argv[k], base, &count);
        fprintf(stderr, "replay: %s: %d inputs, %s\n", argv[k], count, broke ? "FAILED" : "ok");
        bad |= broke > 0;
    }
    return bad;
}
