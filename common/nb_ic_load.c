/* nb_ic_load.c -- --ic: the models by name and the input files.
 *
 * The name dispatch of the initial conditions: the one-galaxy models
 * (nb_ic.c), the collision model (nb_ic_collision.c, built from two disks),
 * the offset clusters (nb_ic.c),
 * or a state file / TIPSY file (nb_io.c, nb_tipsy.c).  Kept apart from the
 * generators so that nb_ic.c and nb_ic_collision.c do not call each other. */
#include <string.h>
#include "nb_error.h"
#include "nb_ic.h"
#include "nb_io.h"

static const char *models[] = { "plummer", "cube", "disk", "collision", "clusters" };

int nb_ic_is_model(const char *name)
{
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
        if (!strcmp(name, models[k])) return 1;
    return 0;
}

const char *nb_ic_model_names(void) { return "plummer, cube, disk, collision, clusters"; }

int nb_ic_generate(const char *name, int64_t n, uint64_t seed, nb_state *s)
{
    if (!nb_ic_is_model(name))
        return nb_fail(NB_EXIT_USAGE, "--ic: unknown model '%s' (models: %s; or a file)",
                       name, nb_ic_model_names());
    if (!strcmp(name, "collision")) return nb_ic_collision(n, seed, s);
    if (!strcmp(name, "clusters")) return nb_ic_clusters(n, seed, s);
    return nb_ic_single(name, n, seed, s);
}

int nb_ic_read_src(nb_src *src, int tipsy, nb_state *s)
{
    char why[400];
    if (tipsy || nb_tipsy_detect(src, why, sizeof why)) return nb_tipsy_read_src(src, s);
    if (memchr(src->head, '\0', src->head_len))
        return nb_fail(NB_EXIT_USAGE, "--ic: '%s' is neither a text state file (it holds NUL bytes in "
                       "its first %zu bytes: binary data) nor a TIPSY file: %s", nb_short(src->path),
                       src->head_len, why);
    return nb_state_read_src(src, s);
}

static int load_file(const char *ic, nb_state *s)
{
    int tipsy = !strncmp(ic, "tipsy:", 6);
    const char *path = tipsy ? ic + 6 : ic;
    nb_src src;
    int rc = nb_src_open(&src, path, tipsy ? "TIPSY file" : "state file");
    if (rc) return rc;
    rc = nb_ic_read_src(&src, tipsy, s);
    nb_src_close(&src);
    return rc;
}

int nb_ic_load(const char *ic, int64_t n, int n_given, uint64_t seed, nb_state *s)
{
    if (nb_ic_is_model(ic)) return nb_ic_generate(ic, n, seed, s);
    int rc = load_file(ic, s);
    if (rc) return rc;
    if (n_given && s->n != n) {
        long long got = (long long)s->n;
        nb_state_free(s);
        return nb_fail(NB_EXIT_USAGE, "--ic %s holds %lld bodies but -n asks for %lld (drop -n to use the file's)",
                       nb_short(ic), got, (long long)n);
    }
    return NB_OK;
}
