/* replay.c -- replays fuzz inputs through the normal (non-fuzz) build:
 *   replay DIR...   each DIR is named after its target (.../state,
 *                   .../tipsy, .../options) and every file in it is run
 *                   through that harness.  Exit 1 if one broke an invariant. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_fuzz.h"

static int replay_dir(const char *dir)
{
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    nb_fuzz_fn fn = nb_fuzz_target(base);
    if (!fn) { fprintf(stderr, "replay: %s: not a target (state, tipsy, options)\n", dir); return 1; }
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "replay: cannot open %s\n", dir); return 1; }
    int bad = 0, count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static unsigned char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        count++;
        if (fn(buf, n) == NB_FUZZ_BROKEN) {
            fprintf(stderr, "replay: %s: %s\n", path, nb_fuzz_why());
            bad = 1;
        }
    }
    closedir(d);
    fprintf(stderr, "replay: %s: %d inputs, %s\n", dir, count, bad ? "FAILED" : "ok");
    return bad;
}

int main(int argc, char **argv)
{
    nb_fuzz_setup();
    int bad = 0;
    for (int k = 1; k < argc; k++) bad |= replay_dir(argv[k]);
    return bad;
}
