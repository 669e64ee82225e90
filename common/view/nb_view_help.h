/* nb_view_help.h -- the view's lines of --help: its keys (nb_view.h) and
 * how to reach --serve (nb_serve.h).  The command line's help
 * (nb_options.c) prints them; a header of its own that includes nothing,
 * so that the core's options need nothing else of the view. */
#ifndef NB_VIEW_HELP_H
#define NB_VIEW_HELP_H

#define NB_VIEW_KEYS_HELP \
    "view keys: space pause/resume, . one step, t tree overlay, [ ] tree depth, c colour mode,\n" \
    "  s screenshot (PNG in the current directory), r reset camera, arrows or mouse drag rotate,\n" \
    "  + - or wheel zoom, q or Esc quit; Ctrl-C stops the run as q does (a second one kills it);\n" \
    "  the window closes when the steps are done (--view-hold keeps it open until q)\n"
/* The one line of the keys that --view prints on stderr when its window
 * opens (nb_view.c); the rest of the line says how the window ends. */
#define NB_VIEW_KEYS_LINE \
    "view keys: space pause/resume, . one step, t tree, [ ] tree depth, c colour, s screenshot, " \
    "r reset camera, arrows or drag rotate, + - or wheel zoom, q or Esc quit"
#define NB_SERVE_HELP \
    "--serve PORT, for a GPU server reached over ssh (no display needed): the program prints a URL\n" \
    "  with a random token; on your own machine run  ssh -L PORT:localhost:PORT SERVER  and open\n" \
    "  that URL (http://localhost:PORT/?token=...).  The page shows the picture and the heads-up\n" \
    "  line and has the keys above as buttons; screenshots download to the browser.  The run\n" \
    "  goes on when the page closes; with its steps done it ends when no page is open.\n"

#endif
