/* nb_io.h -- state files, TIPSY binaries and the input source they are read
 * from (README.md, Conventions: "State files").
 *
 * Text state file: one body per line "m x y z vx vy vz", '#' starts a
 * comment, numbers written with 9 significant digits (every float
 * round-trips bit for bit).  Lines are at most NB_LINE_MAX bytes and hold no
 * NUL byte; every number must be finite as a float.  A malformed line gives
 * NB_EXIT_USAGE and a message with the file name and line number. */
#ifndef NB_IO_H
#define NB_IO_H
#include <stdint.h>
#include <stdio.h>
#include "nb_state.h"
#ifdef __cplusplus
extern "C" {
#endif

#define NB_LINE_MAX 4096   /* bytes per line of a text state file, '\n' excluded */

/* ---- input sources ----------------------------------------------------
 * A file is opened once.  A regular file has a size; anything else (FIFO,
 * pipe, /dev/stdin, a character device) is a stream, read once from the
 * front.  head[] holds the first 32 bytes (fewer if the input is shorter),
 * read ahead for the TIPSY detection; the read functions return them first. */
typedef struct nb_src {
    FILE         *f;
    const char   *path;        /* for messages */
    int           regular;     /* 1: a regular file of 'size' bytes */
    int64_t       size;        /* -1 for a stream */
    unsigned char head[32];
    size_t        head_len, head_pos;
} nb_src;

/* stat() first: missing or unreadable -> NB_EXIT_USAGE "cannot open";
 * a directory -> NB_EXIT_USAGE; a read error -> NB_EXIT_RUNTIME.
 * kind names the file in messages ("state file", "TIPSY file"). */
int    nb_src_open(nb_src *s, const char *path, const char *kind);
/* An already open FILE (tests, fuzzers): size >= 0 a regular file of that
 * size, -1 a stream.  nb_src_close() closes f. */
int    nb_src_from_file(nb_src *s, FILE *f, const char *name, int64_t size);
size_t nb_src_read(nb_src *s, void *buf, size_t n);
int    nb_src_getc(nb_src *s);
/* One line without its '\n' into buf (cap bytes, NUL-terminated). */
enum { NB_LINE_OK = 0, NB_LINE_EOF = 1, NB_LINE_LONG = 2, NB_LINE_NUL = 3,
       NB_LINE_NOEOL = 4 /* a last line without its '\n' (read like NB_LINE_OK) */ };
int    nb_src_line(nb_src *s, char *buf, size_t cap, size_t *len);
int    nb_src_error(const nb_src *s);          /* a read error happened (errno says which) */
void   nb_src_close(nb_src *s);

/* ---- output files (nb_out.c) -----------------------------------------------
 * Written whole or not at all: into a temporary file ".NAME.XXXXXX" in the
 * target's directory, then flushed, fsync'ed and renamed over the target
 * (through a symbolic link, to where it points).  A failed write, a full
 * disk, a file size limit or a signal that ends the program (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT) removes the temporary file and leaves the
 * target as it was.  what names the option in messages ("--save"). */
typedef struct nb_out {
    FILE       *f;           /* write here */
    const char *what, *name; /* for messages: the option, the path as given */
    char       *target, *tmp;
    int         err;         /* the first write error (errno), 0 if none */
} nb_out;

/* Before the run: 0 if path can be written -- not a directory, not a
 * device, pipe or other non-regular file, not read-only (no write bit: the
 * rename would replace it), not the program's stdout or stderr, not the
 * file 'input' (may be NULL), in a directory that exists and
 * takes a new file (one is made and removed) -- else NB_EXIT_USAGE (or
 * NB_EXIT_RUNTIME: a full disk) with the reason. */
int  nb_out_check(const char *what, const char *path, const char *input);
/* The temporary file, open in o->f: 0, or NB_EXIT_RUNTIME with the reason. */
int  nb_out_open(nb_out *o, const char *what, const char *path);
/* 1 while every write so far worked (keeps the first error for the message). */
int  nb_out_ok(nb_out *o);
/* Flush, fsync, rename: 0, or NB_EXIT_RUNTIME with the target untouched. */
int  nb_out_close(nb_out *o);
/* Give up: the temporary file removed, the target untouched. */
void nb_out_abort(nb_out *o);
/* How many temporary files of path (".NAME.XXXXXX") lie beside it: left by
 * a write that was killed (SIGKILL); the tests check that there are none. */
int  nb_out_leftovers(const char *path);

/* ---- text state files ---------------------------------------------------- */
int nb_state_read(const char *path, nb_state *s);          /* allocates s */
int nb_state_read_src(nb_src *src, nb_state *s);           /* allocates s; src stays open */
/* Atomically (nb_out): a header line "# nbody-lab state file: N bodies", then
 * N lines.  NB_EXIT_RUNTIME on an I/O error, the file at path untouched. */
int nb_state_write(const char *path, const nb_state *s);

/* ---- TIPSY: 32-byte header, gas, dark then star particles, float32,
 * native little-endian or big-endian (XDR) detected from the header. ----- */
int nb_tipsy_is_tipsy(const char *path);                    /* 1 if a regular file with a TIPSY header */
/* 1 if the header read ahead in src looks like TIPSY (regular files: the
 * byte order whose counts match the size wins); else 0 and, in why, what
 * is wrong with it as a TIPSY header. */
int nb_tipsy_detect(const nb_src *src, char *why, size_t len);
int nb_tipsy_read(const char *path, nb_state *s);           /* allocates s */
int nb_tipsy_read_src(nb_src *src, nb_state *s);            /* allocates s; src stays open */
int nb_tipsy_write(const char *path, const nb_state *s, int big_endian); /* dark particles */

#ifdef __cplusplus
}
#endif
#endif
