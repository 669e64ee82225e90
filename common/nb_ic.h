/* nb_ic.h -- initial conditions and the kit's own random number generator.
 *
 * Generated models are deterministic functions of (n, seed), the same on
 * every step and every machine: the RNG is xoshiro256** seeded through
 * splitmix64 (integer arithmetic only), and the models use only libm
 * functions with correctly rounded or platform-independent results in
 * double precision before rounding to float.  Total mass 1, G = 1. */
#ifndef NB_IC_H
#define NB_IC_H
#include <stdint.h>
#include "nb_state.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_rng { uint64_t s[4]; } nb_rng;
void     nb_rng_seed(nb_rng *r, uint64_t seed);
uint64_t nb_rng_next(nb_rng *r);
double   nb_rng_uniform(nb_rng *r);          /* [0, 1), 53 random bits */

/* Models (docs/conventions.md, Initial conditions):
 *  plummer   Plummer sphere in Henon units (M = 1, E = -1/4), Aarseth,
 *            Henon & Wielen (1974) sampling, centre of mass at rest at 0;
 *  cube      uniform in [-1, 1]^3, at rest, equal masses;
 *  disk      thin disk on circular orbits around a central body of mass 1/2;
 *  collision two disks on an approaching orbit (nb_ic_collision.c);
 *  clusters  three tight Plummer spheres (scale 1e-7) 1e-5 apart near
 *            x = 0.3, at rest: the precision lesson's offset case.
 * nb_ic_generate allocates and fills s; NB_EXIT_USAGE for an unknown name. */
int nb_ic_generate(const char *name, int64_t n, uint64_t seed, nb_state *s);
/* One of the one-galaxy models plummer, cube, disk (nb_ic.c). */
int nb_ic_single(const char *name, int64_t n, uint64_t seed, nb_state *s);
/* The two-galaxy collision model (common/nb_ic_collision.c). */
int nb_ic_collision(int64_t n, uint64_t seed, nb_state *s);
/* The offset clusters (nb_ic.c). */
int nb_ic_clusters(int64_t n, uint64_t seed, nb_state *s);
int nb_ic_is_model(const char *name);        /* 1 if name is a generated model */
const char *nb_ic_model_names(void);         /* "plummer, cube, disk, collision, clusters" */

/* --ic: a model name, or a state file / TIPSY file; allocates s.
 * For files, n comes from the file (and must match -n if -n was given
 * explicitly: n_given != 0). */
int nb_ic_load(const char *ic, int64_t n, int n_given, uint64_t seed, nb_state *s);

/* The file part of nb_ic_load on an open input (nb_io.h): TIPSY if tipsy
 * != 0 (tipsy:FILE) or if the 32 bytes read ahead are a TIPSY header, else
 * a text state file -- unless those bytes hold a NUL byte: a binary file
 * that is not TIPSY is refused (NB_EXIT_USAGE) with what is wrong with its
 * header instead of being parsed as text.  A FIFO or a pipe is read once. */
struct nb_src;
int nb_ic_read_src(struct nb_src *src, int tipsy, nb_state *s);

#ifdef __cplusplus
}
#endif
#endif
