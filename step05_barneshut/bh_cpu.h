/* bh_cpu.h -- step05_barneshut: what the CPU tree code (bh_cpu.c) exports.
 *
 * The --cpu table of the program and the two accessors the tests use; the
 * rest of bh_cpu.c is static.  See bh_tree.h for the tree itself. */
#ifndef BH_CPU_H
#define BH_CPU_H
#include <stdint.h>
#include "nb_step.h"
#include "bh_tree.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The options of step05_barneshut that both tables accept.  The CPU table
 * adds NB_OPT_THREADS: nb_main() parses with the options of both tables
 * (one --help) and refuses --threads without --cpu. */
#define BH_STEP_OPTIONS (NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_CPU | NB_OPT_RENDER_TREE)

/* The CPU tree code (OpenMP, --threads): nb_step05_gpu.cpu_variant. */
extern const nb_step nb_step05_cpu;

/* ctx from nb_step05_cpu.init.  The tree of the current positions (the last
 * one built), into t (allocated: bh_tree_free() it). */
int bh_cpu_tree(void *ctx, bh_tree *t);
/* Interactions evaluated by the last force computation (whole system). */
int bh_cpu_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
