/* nb_sandbox.h -- the box every student process of a grade runs in.
 *
 * The grader never runs student code in its own process: a step's program
 * and the worker that serves its nb_step table (nb_remote.h) are started
 * with nb_sandbox_spawn(), which puts them in
 *  - their own user, PID, mount, IPC and network namespaces: the program
 *    sees only its own processes (a fresh /proc) and its own loopback (no
 *    network, no socket of another box: boxes whose programs all have
 *    pid 2 must not meet), cannot signal or read the grader,
 *    and everything it starts dies with it (the box's init is killed
 *    with the program, and the kernel kills the rest of the namespace);
 *  - a read-only view of every file system, but for a scratch directory
 *    (its working directory, TMPDIR and HOME), a private /tmp and a private
 *    /dev/shm; tests/results is hidden behind an empty read-only mount,
 *    and so is every directory of NB_SANDBOX_HIDE (':'-separated absolute
 *    paths, from the grader's environment: `make grade-class` hides the
 *    instructor's tree, whose sources and programs are the answers, and
 *    the class's submissions);
 *  - the uid "nobody" when the grader runs as root (files the grader owns
 *    are then not the program's to open), else the grader's own uid;
 *  - only the descriptors it is handed: 0, 1, 2 and, for the worker, its
 *    two protocol pipes as 3 and 4 (the grader captures 1 and 2 in files
 *    that have no name: nothing the box places in a directory can become
 *    the file the grader writes a later output into or reads one from);
 *  - the grader's environment without the grader's own variables
 *    (NB_SANDBOX_*: the hidden paths, NB_GRADE_*).
 * Its scratch directory is the box's own: a name made by mkdtemp(), owned
 * by the box's uid, 0700 (nb_sandbox_mkdtemp); whatever the box leaves
 * there is removed without following a link (nb_sandbox_remove), and the
 * links it planted are removed when it ends (nb_sandbox_unlink_links), so
 * that the grader, opening a name there later, never opens a path the box
 * chose.
 * Where the kernel allows no namespaces (no user namespaces and not root),
 * the program runs unboxed and nb_sandbox_mode() says so: the grade is then
 * marked "sandbox: degraded" (nb_grade.h) and NB_GRADE_REQUIRE_SANDBOX=1
 * makes such a grade fail. */
#ifndef NB_SANDBOX_H
#define NB_SANDBOX_H
#include <sys/types.h>

typedef struct nb_sandbox_io {
    int in, out, err;          /* descriptors for 0, 1, 2 (-1: /dev/null) */
    int fd3, fd4;              /* passed as 3 and 4 (-1: none) */
    const char *dir;           /* scratch directory: writable, the working directory */
} nb_sandbox_io;

/* Start argv[0] (a path) with argv in the box.  Returns the pid of the
 * box's outer process, whose exit status is the program's: its exit code,
 * or 128 + the signal that killed it; 127: it could not be started (a line
 * on its stderr says why).  Killing that pid (SIGKILL) kills everything in
 * the box.  -1 on failure of fork() (errno set). */
pid_t nb_sandbox_spawn(char *const argv[], const nb_sandbox_io *io);

/* One line: how student processes are contained on this machine. */
const char *nb_sandbox_mode(void);
/* 1 if they are not (no namespaces could be made), else 0. */
int nb_sandbox_degraded(void);

/* The pid (in the grader's namespace) of the program started in the box
 * whose outer process is outer, once it runs; -1 if not found. */
pid_t nb_sandbox_program(pid_t outer);
/* Threads of process pid (the kernel's count, /proc/PID/status), -1 if unknown. */
int nb_sandbox_threads(pid_t pid);

/* The owner the box's files have in the grader's view: nobody when the
 * grader is root, else the grader's own uid and group. */
uid_t nb_sandbox_uid(void);
gid_t nb_sandbox_gid(void);
/* A scratch directory for boxes: templ (".../NAMEXXXXXX") made by
 * mkdtemp(), then given to the box's uid with mode 0700: no one else may
 * enter it, and no one knows its name in advance.  0, or -1 with errno. */
int nb_sandbox_mkdtemp(char *templ);
/* Remove path and everything below it, in this process (no command is
 * run): never following a symbolic link, never entering another file
 * system, whatever the box left there (links, directories it made
 * unreadable, a tree too deep to walk).  0, or -1 with errno if something
 * stayed. */
int nb_sandbox_remove(const char *path);
/* Remove every symbolic link below dir, a box's scratch directory, once
 * the boxes that worked in it have ended: the grader's later open() of a
 * name there opens a file or directory of the scratch directory, never a
 * path the box chose.  Only a directory nb_sandbox_mkdtemp() made (the
 * box's uid, 0700): NULL, /tmp or another directory is left alone. */
void nb_sandbox_unlink_links(const char *dir);

/* Kill every process that descends from the calling process (used after
 * each test when the box is degraded; harmless otherwise). */
void nb_sandbox_kill_descendants(void);

#endif
