/* nb_error.h -- exit codes and the one-line error message every program prints.
 *
 * docs/conventions.md, Exit codes: 0 ok, 1 --check failed, 2 bad usage or bad input,
 * 3 runtime failure (CUDA error, out of memory, I/O), 77 no usable CUDA
 * device.  The kit adds 4: "this step is not implemented yet" (student kit).
 * A failing function records one message with nb_fail() and returns its code;
 * the driver prints "<program>: <message>" on stderr and exits with the code. */
#ifndef NB_ERROR_H
#define NB_ERROR_H
#ifdef __cplusplus
extern "C" {
#endif

enum {
    NB_OK          = 0,
    NB_EXIT_CHECK  = 1,   /* --check: error past tolerance */
    NB_EXIT_USAGE  = 2,   /* bad option, bad value, bad or missing input file */
    NB_EXIT_RUNTIME = 3,  /* CUDA error, out of memory, I/O error */
    NB_EXIT_TODO   = 4,   /* student kit: the step's solution is still blank */
    NB_EXIT_NODEV  = 77   /* no usable CUDA device (automake's "skipped") */
};

/* Record a message (printf-style) and return code. Later calls overwrite.
 * The message and the code are per thread. */
int nb_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Student kit: "<what> is not implemented yet (see handouts/<handout>.md)",
 * code NB_EXIT_TODO.  The blanks of the solution regions return it. */
int nb_todo(const char *what, const char *handout);
const char *nb_errmsg(void);   /* the last message, "" if none */
/* Messages are one line (control characters become '?'); one longer than
 * 1024 bytes keeps its first and last 400 bytes, so the reason at its end
 * survives a huge file name. */

/* A file name or argument as a message quotes it: itself, or when longer
 * than 2 * NB_SHORT_KEEP + 5 bytes its first and last NB_SHORT_KEEP bytes
 * around "[...]" (one of 4 static buffers, in turn). */
#define NB_SHORT_KEEP 100
const char *nb_short(const char *s);
int nb_errcode(void);          /* the last code, 0 if none */
void nb_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
