/* nb_out.c -- output files written whole or not at all (see nb_io.h,
 * "Output files").
 *
 * The data goes to a temporary file beside the target, ".NAME.XXXXXX" in the
 * same directory (so that the rename stays on one file system), which is
 * flushed, fsync'ed and renamed over the target; then the directory is
 * fsync'ed.  A full disk, a file size limit (nb_main() ignores SIGXFSZ, so
 * the write fails with EFBIG), an I/O error, or a signal that ends the
 * program (SIGINT, SIGTERM, SIGHUP, SIGQUIT: the handler removes the
 * temporary file, then the signal does what it would have done) leave the
 * target as it was.  The program writes one file at a time, so the handler
 * has one path to remove. */
#define _XOPEN_SOURCE 700           /* realpath() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nb_error.h"
#include "nb_io.h"

/* ---- the temporary file a signal removes --------------------------------- */

static const int nb_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NB_NSIGS ((int)(sizeof nb_sigs / sizeof nb_sigs[0]))
static char pending[4200];
static volatile sig_atomic_t armed;
static struct sigaction saved[NB_NSIGS];
static int caught[NB_NSIGS];

static void on_signal(int sig)
{
    for (int k = 0; k < NB_NSIGS; k++)
        if (nb_sigs[k] == sig && saved[k].sa_handler != SIG_DFL && !(saved[k].sa_flags & SA_SIGINFO)) {
            saved[k].sa_handler(sig);   /* the program stops by itself (the view's */
            return;                     /* Ctrl-C): the write finishes as usual   */
        }
    if (armed) unlink(pending);
    signal(sig, SIG_DFL);
    raise(sig);                     /* delivered when the handler returns */
}

static void block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int k = 0; k < NB_NSIGS; k++) sigaddset(&set, nb_sigs[k]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Catch the signals (those not ignored: nohup keeps SIGHUP ignored) while
 * 'path' exists.  Called with the signals blocked. */
static void arm(const char *path)
{
    snprintf(pending, sizeof pending, "%s", path);
    armed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < NB_NSIGS; k++) {
        caught[k] = sigaction(nb_sigs[k], NULL, &saved[k]) == 0 && saved[k].sa_handler != SIG_IGN;
        if (caught[k]) sigaction(nb_sigs[k], &sa, NULL);
    }
}

static void disarm(void)
{
    armed = 0;
    for (int k = 0; k < NB_NSIGS; k++)
        if (caught[k]) sigaction(nb_sigs[k], &saved[k], NULL);
}

/* ---- the target ------------------------------------------------------------ */

/* The file the rename replaces: path, or where its symbolic link points
 * (writing through the link, as fopen() would).  NULL with the message
 * set (exit 2). */
static char *target_of(const char *what, const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *t = realpath(path, NULL);
        if (!t)
            nb_fail(NB_EXIT_USAGE, "%s: '%s' is a symbolic link that leads nowhere: %s", what,
                    nb_short(path), strerror(errno));
        return t;
    }
    char *t = strdup(path);
    if (!t) nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    return t;
}

/* The code of a failure to create a file: the user's path (2) or the
 * machine (3: a full disk, an I/O error). */
static int create_code(int err)
{
    return err == ENOSPC || err == EDQUOT || err == EIO || err == ENOMEM || err == EMFILE ||
           err == ENFILE ? NB_EXIT_RUNTIME : NB_EXIT_USAGE;
}

/* nb_out_open() with the code of a failure to create the temporary file:
 * 'code', or create_code() of its errno when code is 0. */
static int open_as(nb_out *o, const char *what, const char *path, int code)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->name = path;
    o->target = target_of(what, path);
    if (!o->target) return nb_errcode();
    const char *slash = strrchr(o->target, '/');
    size_t dirlen = slash ? (size_t)(slash - o->target) + 1 : 0;
    const char *base = o->target + dirlen;
    size_t len = dirlen + strlen(base) + 16;
    o->tmp = malloc(len);
    if (!o->tmp) {
        nb_out_abort(o);
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    }
    /* ".NAME.XXXXXX", the name cut to 200 bytes (a file name holds 255) */
    snprintf(o->tmp, len, "%.*s.%.200s.XXXXXX", (int)dirlen, o->target, base);
    struct stat st;
    mode_t mode;
    if (stat(o->target, &st) == 0) {
        mode = st.st_mode & 07777;              /* the file keeps its permissions */
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;                    /* what fopen(path, "w") would give */
    }
    sigset_t old;
    block(&old);
    int fd = mkstemp(o->tmp);
    int err = errno;
    if (fd >= 0) arm(o->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        nb_out_abort(o);
        return nb_fail(code ? code : create_code(err), "%s: cannot write '%s': %s", what,
                       nb_short(path), strerror(err));
    }
    if (fchmod(fd, mode) != 0) {}               /* best effort: the data matters more */
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        err = errno;
        close(fd);
        nb_out_abort(o);
        return nb_fail(NB_EXIT_RUNTIME, "%s: cannot write '%s': %s", what, nb_short(path),
                       strerror(err));
    }
    return NB_OK;
}

int nb_out_open(nb_out *o, const char *what, const char *path)
{
    return open_as(o, what, path, NB_EXIT_RUNTIME);
}

int nb_out_ok(nb_out *o)
{
    if (o->err) return 0;
    if (ferror(o->f)) o->err = errno ? errno : EIO;
    return !o->err;
}

int nb_out_close(nb_out *o)
{
    int err = o->err;
    if (!err && (fflush(o->f) != 0 || ferror(o->f))) err = errno ? errno : EIO;
    if (!err && fsync(fileno(o->f)) != 0) err = errno;
    if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
    o->f = NULL;
    if (!err && rename(o->tmp, o->target) != 0) err = errno;
    if (err) {
        const char *what = o->what, *name = o->name;
        nb_out_abort(o);
        return nb_fail(NB_EXIT_RUNTIME, "%s: error writing '%s': %s", what, nb_short(name),
                       strerror(err));
    }
    disarm();
    /* the rename itself on the disk: fsync the directory (best effort: some
     * file systems refuse it) */
    const char *slash = strrchr(o->target, '/');
    if (slash) *(char *)slash = '\0';
    int dfd = open(slash ? (slash == o->target ? "/" : o->target) : ".", O_RDONLY);
    if (dfd >= 0) {
        if (fsync(dfd) != 0) {}
        close(dfd);
    }
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
    return NB_OK;
}

void nb_out_abort(nb_out *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        disarm();
    }
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
}

int nb_out_leftovers(const char *path)
{
    char *target = target_of("nb_out_leftovers", path);
    if (!target) return -1;
    const char *slash = strrchr(target, '/');
    char prefix[220];
    snprintf(prefix, sizeof prefix, ".%.200s.", slash ? slash + 1 : target);
    if (slash) *(char *)slash = '\0';
    DIR *d = opendir(slash ? (slash == target ? "/" : target) : ".");
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) count++;
    if (d) closedir(d);
    free(target);
    return count;
}

/* ---- before the run ------------------------------------------------------- */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int nb_out_check(const char *what, const char *path, const char *input)
{
    struct stat st, other;
    /* the program's own stdout or stderr through a magic link (/dev/stdout):
     * a pipe or a file without a name has no path the link resolves to */
    if (stat(path, &st) == 0 && fstat(1, &other) == 0 && same_file(&st, &other))
        return nb_fail(NB_EXIT_USAGE, "%s: '%s' is this program's standard output, where the "
                       "results go; name another file", what, nb_short(path));
    if (stat(path, &st) == 0 && fstat(2, &other) == 0 && same_file(&st, &other))
        return nb_fail(NB_EXIT_USAGE, "%s: '%s' is this program's standard error; name another "
                       "file", what, nb_short(path));
    char *target = target_of(what, path);
    if (!target) return nb_errcode();
    int rc = NB_OK;
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is a directory", what, nb_short(path));
        else if (!S_ISREG(st.st_mode))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is not a regular file (a device, a pipe, "
                         "/dev/stdout): the file is written beside it and renamed; name a file",
                         what, nb_short(path));
        else if (fstat(1, &other) == 0 && same_file(&st, &other))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is this program's standard output, where the "
                         "results go; name another file", what, nb_short(path));
        else if (fstat(2, &other) == 0 && same_file(&st, &other))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is this program's standard error; name another "
                         "file", what, nb_short(path));
        else if (!(st.st_mode & 0222))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is read-only (no write permission): it is kept; "
                         "name another file or make it writable", what, nb_short(path));
        else if (input && stat(input, &other) == 0 && same_file(&st, &other))
            rc = nb_fail(NB_EXIT_USAGE, "%s: '%s' is the --ic file: the run would replace its own "
                         "input; name another file", what, nb_short(path));
    } else if (errno != ENOENT) {
        rc = nb_fail(NB_EXIT_USAGE, "%s: cannot write '%s': %s", what, nb_short(path),
                     strerror(errno));
    }
    free(target);
    if (rc) return rc;
    /* the directory exists and takes a file: make the temporary file once */
    nb_out o;
    if ((rc = open_as(&o, what, path, 0))) return rc;
    nb_out_abort(&o);
    return NB_OK;
}
