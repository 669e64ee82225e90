/* nb_serve.h -- the view's front end in a browser (--serve PORT): an HTTP
 * server started by the program itself, for a GPU server reached over ssh
 * (`ssh -L PORT:localhost:PORT server`, then the URL the program prints).
 * common/view/nb_serve.c implements it where common/view/serve.mk finds its libraries
 * (libmicrohttpd, wslay, nettle, libjpeg-turbo), common/view/nb_serve_none.c
 * where it does not (--serve then exits 2 saying why).
 *
 * It serves one page (common/view/nb_serve.html, compiled in) and one WebSocket:
 * frames go out as JPEG, each after a line of JSON with the heads-up line's
 * facts; the page's controls come back on the same socket as the events of
 * the view's event language (nb_view.h: space . t [ ] c s r q, the arrows,
 * drag:DX:DY, wheel:N), so the browser drives the view's own key and mouse
 * handlers.  A screenshot ('s') is drawn by the view and sent to the viewer
 * that asked, as PNG, for the browser to save: the server reads and writes
 * no file.
 *
 * Safety: 127.0.0.1 unless told otherwise; a random token (128 bits) in the
 * URL, without which every request gets 403; only GET of "/" and "/ws"
 * (404 for any other path, 405 for any other method); libmicrohttpd's
 * limits on a request's size and idle time; at most NB_SERVE_MAX_VIEWERS at
 * once (503 past them).
 *
 * Threads: libmicrohttpd's own for HTTP, and one more (the hub) that
 * encodes the frames and does every viewer's WebSocket I/O on non-blocking
 * sockets.  The view's thread only fills a slot and hands it over: a slot
 * the hub still holds means the frame is dropped, never waited for; a
 * viewer still sending its last frame is skipped and gets the newest one
 * after it (its drops are counted), so a slow viewer never slows the run. */
#ifndef NB_SERVE_H
#define NB_SERVE_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

#define NB_SERVE_MAX_VIEWERS 8
#define NB_SERVE_JPEG_QUALITY 80
/* What frames may add to the simulation's time when the view only serves
 * (no window): nb_view.h's NB_VIEW_BUDGET for a window; 9% for a 10% target. */
#define NB_SERVE_BUDGET 0.09

enum { NB_SERVE_FRAME = 0, NB_SERVE_SHOT = 1 };

typedef struct nb_serve nb_serve;

/* 0 when --serve can run in this program, else NB_EXIT_USAGE with why
 * (built without it). */
int  nb_serve_usable(void);
/* Listen on addr:port (port 0: one the kernel picks) and start the threads;
 * prints the URL with its token, and the ssh line, on stderr.  prog: the
 * program's name (the page's title, the screenshots' names).  NB_EXIT_USAGE
 * when the address cannot be had (in use, not this machine's), naming it;
 * NB_EXIT_RUNTIME otherwise. */
int  nb_serve_open(nb_serve **s, const char *addr, int port, const char *prog);
/* The next control a viewer sent (one event of the view's language, already
 * checked against the page's controls) into buf, and the viewer's number
 * (1, 2, ...); 0 when there is none. */
int  nb_serve_event(nb_serve *s, char *buf, size_t len, int *viewer);
/* Wait until a control or a viewer comes, at most ms. */
void nb_serve_wait(nb_serve *s, int ms);
/* Viewers connected now; *fresh (may be NULL): 1 when one came since the
 * last call (it needs a frame even while nothing moves). */
int  nb_serve_viewers(nb_serve *s, int *fresh);
/* A w x h RGB buffer (row 0 on top) to draw a frame or a shot into, or NULL
 * when the hub still holds the last one of that kind (a frame: dropped and
 * counted).  Then nb_serve_submit() hands it over: status, the JSON object
 * sent before it; for a shot the file name the browser saves it as and the
 * viewer who asked. */
unsigned char *nb_serve_slot(nb_serve *s, int kind, int w, int h);
void nb_serve_submit(nb_serve *s, int kind, const char *status, const char *name, int viewer);
/* Tell the viewers the run has ended (why), stop, close the port, free s.
 * report: the report's lines (two spaces in front of each). */
void nb_serve_close(nb_serve *s, const char *why, char *report, size_t len);

#ifdef __cplusplus
}
#endif
#endif
