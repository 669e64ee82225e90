/* nb_io.h -- state files (DESIGN.md section 4) and TIPSY binaries.
 *
 * Text state file: one body per line "m x y z vx vy vz", '#' starts a
 * comment, numbers written with 9 significant digits (every float
 * round-trips bit for bit).  A malformed line gives NB_EXIT_USAGE and a
 * message with the file name and line number. */
#ifndef NB_IO_H
#define NB_IO_H
#include "nb_state.h"
#ifdef __cplusplus
extern "C" {
#endif

int nb_state_read(const char *path, nb_state *s);          /* allocates s */
int nb_state_write(const char *path, const nb_state *s);    /* NB_EXIT_RUNTIME on I/O error */

/* TIPSY (issue 6): 32-byte header, dark then star particles, float32,
 * native little-endian or big-endian (XDR) detected from the header. */
int nb_tipsy_is_tipsy(const char *path);                    /* 1 if the header looks like TIPSY */
int nb_tipsy_read(const char *path, nb_state *s);           /* allocates s */
int nb_tipsy_write(const char *path, const nb_state *s, int big_endian); /* dark particles */

#ifdef __cplusplus
}
#endif
#endif
