/* nb_sandbox.c -- the box every student process of a grade runs in (see
 * nb_sandbox.h).
 *
 * Three processes make a box:
 *   outer  the grader's child: unshare(user, mount, PID, IPC, network); the grader
 *          writes its uid/gid maps; it forks the box's init and passes on
 *          its exit status;
 *   init   PID 1 of the new PID namespace: mounts (a fresh /proc, private
 *          /tmp and /dev/shm, the scratch directory, tests/results and
 *          NB_SANDBOX_HIDE's directories hidden,
 *          everything else but /proc read-only), drops to the box's uid, forks the
 *          program, reaps every orphan, and exits with the program's status
 *          -- which makes the kernel kill whatever else is left in the box;
 *   program  execv() of the student's executable, in the scratch directory,
 *          with no new privileges, and an environment without the grader's
 *          own variables (NB_SANDBOX_*, NB_GRADE_*).
 * outer and init die with their parent (PR_SET_PDEATHSIG), so a test killed
 * on its time limit takes the whole box with it.  The box's uid, when the
 * grader is root, is nobody (65534): the read-only mounts keep the program
 * from writing, the uid keeps it from opening what root owns (devices
 * among them).
 *
 * The scratch directory is the one place the box writes that the grader
 * sees: the grader, often root, must never follow a path the box placed
 * there.  So the box's own directory has a name no one knows in advance and
 * is closed to everyone else (nb_sandbox_mkdtemp); the box's stdout and
 * stderr are files the grader made without a name (memfd); the links a
 * box leaves are removed when it ends (nb_sandbox_unlink_links), and the
 * directory is removed in this process by a walk that opens every
 * directory with O_NOFOLLOW relative to its parent's descriptor
 * (nb_sandbox_remove): no rm(1) as root on the box's files, and no
 * command looked up where the box could have written. */
#define _GNU_SOURCE
#include "nb_sandbox.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NB_TOP_DIR
#define NB_TOP_DIR ".."
#endif

enum { MODE_UNKNOWN, MODE_USERNS, MODE_ROOTNS, MODE_NONE };
static int mode = MODE_UNKNOWN;
static char mode_line[400];

#define SETUP_FAILED 125            /* the box could not be made (its stderr says why) */
#define BOX_UID 1000                /* the program's uid inside a user namespace */
#define NOBODY 65534

/* ---- in the box's processes: async-signal-safe reporting ---- */

static void say(const char *what, int err)
{
    char buf[400];
    int n = snprintf(buf, sizeof buf, "nb_sandbox: %s: %s\n", what, strerror(err));
    if (n > 0 && write(2, buf, (size_t)n) < 0) {}
}

static void fail_setup(const char *what)
{
    say(what, errno);
    _exit(SETUP_FAILED);
}

/* Descriptors: io's five to 0..4 (-1: /dev/null for 0..2, closed for 3, 4),
 * sync[0], sync[1] to 5 and 6, everything else closed. */
static void place_fds(const nb_sandbox_io *io, int s0, int s1)
{
    int want[7] = { io->in, io->out, io->err, io->fd3, io->fd4, s0, s1 };
    int high[7];
    for (int k = 0; k < 7; k++) {
        if (want[k] < 0 && k < 3) want[k] = open("/dev/null", k ? O_WRONLY : O_RDONLY);
        high[k] = want[k] < 0 ? -1 : fcntl(want[k], F_DUPFD, 100);
    }
    for (int k = 0; k < 7; k++) {
        if (high[k] < 0) { close(k); continue; }
        if (dup2(high[k], k) < 0) fail_setup("dup2");
    }
    closefrom(7);
}

static void reset_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
}

static int status_code(int st)
{
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return SETUP_FAILED;
}

/* mkdir -p path (absolute), 0755 */
static void mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') { *p = '\0'; mkdir(buf, 0755); *p = '/'; }
    mkdir(buf, 0755);
}

/* Read-only on (off) for the mount at path; on: also every mount below it. */
static void set_rdonly(const char *path, int on)
{
    struct mount_attr a;
    memset(&a, 0, sizeof a);
    if (on) a.attr_set = MOUNT_ATTR_RDONLY;
    else a.attr_clr = MOUNT_ATTR_RDONLY;
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, on ? AT_RECURSIVE : 0, &a, sizeof a) != 0)
        fail_setup(on ? "a read-only view of the file systems" : "a writable scratch directory");
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An empty read-only mount over each directory of NB_SANDBOX_HIDE
 * (':'-separated absolute paths; those not there are left alone). */
static void hide_dirs(void)
{
    const char *list = getenv("NB_SANDBOX_HIDE");
    char path[4096];
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s", (int)(len < sizeof path ? len : sizeof path - 1), p);
        p += len + (p[len] == ':');
        if (path[0] != '/' || !is_dir(path)) continue;
        if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555") != 0)
            fail_setup("hide a directory of NB_SANDBOX_HIDE");
    }
}

/* The box's own network namespace has a loopback only, down: up (NCCL's
 * bootstrap of a run on several GPUs of this one process uses it). */
static void loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0) say("loopback up", errno);
    }
    close(fd);
}

/* The grader's own variables: what it hides from the box (NB_SANDBOX_HIDE
 * names where the answers and the class's submissions are), how it grades
 * (NB_GRADE_*). */
static int grader_only(const char *var)
{
    return !strncmp(var, "NB_SANDBOX_", 11) || !strncmp(var, "NB_GRADE_", 9);
}

static void drop_grader_env(void)
{
    extern char **environ;
    char **w = environ;
    for (char **r = environ; r && *r; r++)
        if (!grader_only(*r)) *w++ = *r;
    if (w) *w = NULL;
}

static void program_main(char *const argv[], const char *dir)
{
    drop_grader_env();
    if (chdir(dir) != 0) fail_setup("chdir to the scratch directory");
    setenv("TMPDIR", dir, 1);
    setenv("HOME", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);   /* Mesa's shader cache goes by the passwd entry else */
    struct rlimit core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &core);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    reset_signals();
    execv(argv[0], argv);
    char what[300];
    snprintf(what, sizeof what, "cannot run %.200s", argv[0]);
    say(what, errno);
    _exit(127);
}

/* PID 1 of the box. */
static void init_main(char *const argv[], const char *dir, pid_t outer)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != outer) _exit(SETUP_FAILED);
    /* a private /tmp; the scratch directory and the tree (a clone in /tmp,
     * the mutants' copies) are bound back at their paths */
    int scratch = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (scratch < 0) fail_setup("open the scratch directory");
    const int tree_in_tmp = !strncmp(NB_TOP_DIR, "/tmp/", 5);
    int tree = tree_in_tmp ? open(NB_TOP_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    if (tree_in_tmp && tree < 0) fail_setup("open the tree");
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=1g") != 0)
        fail_setup("a private /tmp");
    char from[64];
    if (tree >= 0) {
        mkdir_p(NB_TOP_DIR);
        snprintf(from, sizeof from, "/proc/self/fd/%d", tree);
        if (mount(from, NB_TOP_DIR, NULL, MS_BIND | MS_REC, NULL) != 0) fail_setup("bind the tree");
        close(tree);
    }
    if (!strncmp(dir, "/tmp/", 5)) mkdir_p(dir);
    snprintf(from, sizeof from, "/proc/self/fd/%d", scratch);
    if (mount(from, dir, NULL, MS_BIND | MS_REC, NULL) != 0) fail_setup("bind the scratch directory");
    close(scratch);
    const int shm = is_dir("/dev/shm");
    if (shm && mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=1g") != 0)
        fail_setup("a private /dev/shm");
    if (is_dir(NB_TOP_DIR "/tests/results") &&
        mount("tmpfs", NB_TOP_DIR "/tests/results", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=4k,mode=0555") != 0)
        fail_setup("hide tests/results");
    hide_dirs();
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        fail_setup("a /proc of the box");
    loopback_up();
    set_rdonly("/", 1);
    set_rdonly("/proc", 0);                         /* the box's own (CUDA writes there); what it
                                                       could change outside needs capabilities */
    set_rdonly("/tmp", 0);
    set_rdonly(dir, 0);
    if (shm) set_rdonly("/dev/shm", 0);
    uid_t uid = mode == MODE_USERNS ? BOX_UID : NOBODY;
    if (mode == MODE_ROOTNS && setgroups(0, NULL) != 0) fail_setup("setgroups");
    if (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) fail_setup("the box's uid");
    pid_t prog = fork();
    if (prog < 0) fail_setup("fork");
    if (prog == 0) program_main(argv, dir);
    int code = SETUP_FAILED;
    for (;;) {                                      /* reap orphans until the program ends */
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w == prog) { code = status_code(st); break; }
        if (w < 0 && errno != EINTR) break;
    }
    _exit(code);                                    /* the kernel kills the rest of the box */
}

static void outer_main(char *const argv[], const nb_sandbox_io *io, pid_t grader, int s0, int s1)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != grader) _exit(SETUP_FAILED);
    place_fds(io, s0, s1);
    if (mode == MODE_NONE) {                        /* degraded: unboxed */
        close(5);
        close(6);
        program_main(argv, io->dir);
    }
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET;
    if (unshare(flags | (mode == MODE_USERNS ? CLONE_NEWUSER : 0)) != 0) fail_setup("unshare");
    char c = mode == MODE_USERNS ? 'u' : 'r';
    if (write(6, &c, 1) != 1 || read(5, &c, 1) != 1 || c != 'g') {
        errno = EPERM;
        fail_setup("the uid and gid maps");
    }
    close(5);
    close(6);
    /* in a user namespace, files are made (mkdir below) by a mapped uid only:
     * take the box's uid now; the capabilities in the namespace stay until
     * the program's execv() */
    if (mode == MODE_USERNS && (setresgid(BOX_UID, BOX_UID, BOX_UID) != 0 ||
                                setresuid(BOX_UID, BOX_UID, BOX_UID) != 0))
        fail_setup("the box's uid");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail_setup("private mounts");
    pid_t init = fork();
    if (init < 0) fail_setup("fork");
    if (init == 0) init_main(argv, io->dir, getppid());
    int st;
    while (waitpid(init, &st, 0) < 0)
        if (errno != EINTR) _exit(SETUP_FAILED);
    _exit(status_code(st));
}

/* ---- the grader's side ---- */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    int rc = close(fd);
    return n == (ssize_t)strlen(text) && rc == 0 ? 0 : -1;
}

static int write_maps(pid_t pid)
{
    char path[64], map[64];
    uid_t u = geteuid();
    gid_t g = getegid();
    snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
    if (write_file(path, "deny")) return -1;
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    snprintf(map, sizeof map, "%d %d 1\n", BOX_UID, u == 0 ? NOBODY : (int)u);
    if (write_file(path, map)) return -1;
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
    snprintf(map, sizeof map, "%d %d 1\n", BOX_UID, g == 0 ? NOBODY : (int)g);
    return write_file(path, map);
}

static pid_t spawn(char *const argv[], const nb_sandbox_io *io)
{
    int up[2], down[2];                   /* outer -> grader, grader -> outer */
    if (pipe2(up, O_CLOEXEC)) return -1;
    if (pipe2(down, O_CLOEXEC)) { close(up[0]); close(up[1]); return -1; }
    pid_t grader = getpid();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) outer_main(argv, io, grader, down[0], up[1]);
    close(up[1]);
    close(down[0]);
    if (pid > 0 && mode != MODE_NONE) {
        char c = 0;
        ssize_t n;
        while ((n = read(up[0], &c, 1)) < 0 && errno == EINTR) {}
        if (n == 1) {
            char go = c == 'r' || (c == 'u' && write_maps(pid) == 0) ? 'g' : 'x';
            if (write(down[1], &go, 1) != 1) {}
        }
    }
    close(up[0]);
    close(down[1]);
    return pid;
}

/* Try a mode: box a shell that exits 0.  0 if it worked, else the reason. */
static int try_mode(int m, char *why, size_t len)
{
    mode = m;
    char dir[] = "/tmp/nbsandbox.XXXXXX";
    const char *tmp = getenv("TMPDIR");
    char dirbuf[512];
    snprintf(dirbuf, sizeof dirbuf, "%s/nbsandbox.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *d = nb_sandbox_mkdtemp(dirbuf) == 0 ? dirbuf : nb_sandbox_mkdtemp(dir) == 0 ? dir : NULL;
    if (!d) { snprintf(why, len, "no scratch directory (%s)", strerror(errno)); return -1; }
    int err = memfd_create("nbsandbox.err", MFD_CLOEXEC);   /* no name in any directory */
    if (err < 0) {
        snprintf(why, len, "no file for the box's stderr (memfd_create: %s)", strerror(errno));
        rmdir(d);
        return -1;
    }
    char *argv[] = { "/bin/sh", "-c", "exit 0", NULL };
    nb_sandbox_io io = { -1, -1, err, -1, -1, d };
    pid_t pid = spawn(argv, &io);
    int st = 0, rc = -1;
    if (pid > 0) while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) rc = 0;
    else {
        char msg[300] = "";
        ssize_t n = pread(err, msg, sizeof msg - 1, 0);
        msg[n > 0 ? n : 0] = '\0';
        msg[strcspn(msg, "\n")] = '\0';
        snprintf(why, len, "%s", msg[0] ? msg + (strncmp(msg, "nb_sandbox: ", 12) ? 0 : 12)
                                        : "the box did not start");
    }
    close(err);
    rmdir(d);
    return rc;
}

static void choose_mode(void)
{
    if (mode != MODE_UNKNOWN) return;
    char why[300], why2[300] = "";
    if (try_mode(MODE_USERNS, why, sizeof why) == 0) {
        snprintf(mode_line, sizeof mode_line,
                 "student code runs boxed: own user, PID, mount and network namespaces, read-only files, uid %s",
                 geteuid() == 0 ? "nobody" : "of the grader");
        return;
    }
    if (geteuid() == 0 && try_mode(MODE_ROOTNS, why2, sizeof why2) == 0) {
        snprintf(mode_line, sizeof mode_line,
                 "student code runs boxed: own PID, mount and network namespaces, read-only files, uid nobody "
                 "(no user namespaces: %.100s)", why);
        return;
    }
    mode = MODE_NONE;
    snprintf(mode_line, sizeof mode_line,
             "DEGRADED: student code runs unboxed, with the grader's rights (no namespaces: %.150s%s%.100s)",
             why, why2[0] ? "; as root: " : "", why2);
}

pid_t nb_sandbox_spawn(char *const argv[], const nb_sandbox_io *io)
{
    choose_mode();
    return spawn(argv, io);
}

const char *nb_sandbox_mode(void)
{
    choose_mode();
    return mode_line;
}

int nb_sandbox_degraded(void)
{
    choose_mode();
    return mode == MODE_NONE;
}

/* ---- the box's files ---- */

uid_t nb_sandbox_uid(void)
{
    return geteuid() == 0 ? (uid_t)NOBODY : geteuid();
}

gid_t nb_sandbox_gid(void)
{
    return geteuid() == 0 ? (gid_t)NOBODY : getegid();
}

int nb_sandbox_mkdtemp(char *templ)
{
    if (!mkdtemp(templ)) return -1;
    if ((geteuid() == 0 && chown(templ, nb_sandbox_uid(), nb_sandbox_gid()) != 0) || chmod(templ, 0700) != 0) {
        int e = errno;
        rmdir(templ);
        errno = e;
        return -1;
    }
    return 0;
}

#define WALK_DEPTH 64                /* directories open at once in a walk */

/* One pass over the directory open at fd (which it closes): its symbolic
 * links removed, and with all, everything else too.  A directory is
 * entered only by openat(O_NOFOLLOW) from its parent and on the file
 * system dev; one deeper than depth levels is moved up to top (the
 * caller's next pass takes it), so that a deep tree costs no more than
 * WALK_DEPTH descriptors.  Returns how many entries it removed or moved,
 * -1 with errno when it could not read the directory; *stuck counts what
 * it could not remove. */
static long walk(int fd, int top, dev_t dev, int all, int depth, long *stuck)
{
    DIR *d = fdopendir(fd);
    if (!d) { int e = errno; close(fd); errno = e; return -1; }
    rewinddir(d);                   /* fd is a dup: its offset is where the last pass ended */
    long done = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) break;
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) { (*stuck)++; continue; }
        if (S_ISLNK(st.st_mode) || (all && !S_ISDIR(st.st_mode))) {
            if (unlinkat(dirfd(d), name, 0) == 0) done++;
            else (*stuck)++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) continue;
        if (st.st_dev != dev) { (*stuck)++; continue; }        /* a mount: never entered */
        if (depth == 0) {                                      /* too deep: up to the top */
            static unsigned serial;
            char moved[64];
            snprintf(moved, sizeof moved, ".nb_deep.%d.%u", (int)getpid(), serial++);
            if (all && renameat(dirfd(d), name, top, moved) == 0) done++;
            else (*stuck)++;
            continue;
        }
        int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 && errno == EACCES && all) {               /* made unreadable: ours to open */
            if (fchmodat(dirfd(d), name, 0700, 0) == 0)
                sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (sub < 0) { (*stuck)++; continue; }
        if (all && fchmod(sub, 0700) != 0) {}                  /* not ours: root removes it anyway */
        long k;
        do {                                                   /* until a pass removes nothing */
            int again = fcntl(sub, F_DUPFD_CLOEXEC, 0);
            long before = *stuck;
            k = again < 0 ? -1 : walk(again, top, dev, all, depth - 1, stuck);
            if (k > 0) *stuck = before;                        /* a later pass tells */
        } while (k > 0);
        close(sub);
        if (k < 0) (*stuck)++;
        if (all) {
            if (unlinkat(dirfd(d), name, AT_REMOVEDIR) == 0) done++;
            else (*stuck)++;
        }
    }
    int err = errno;                                           /* readdir's */
    closedir(d);
    errno = err;
    return err ? -1 : done;
}

/* Walk dir until a pass removes nothing; 0, or -1 with errno when
 * something stayed that had to go. */
static int walk_all(const char *dir, int all)
{
    int top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0) return -1;
    struct stat st;
    if (fstat(top, &st) != 0) { int e = errno; close(top); errno = e; return -1; }
    long k, stuck;
    int passes = 0;
    do {
        stuck = 0;
        int fd = fcntl(top, F_DUPFD_CLOEXEC, 0);
        k = fd < 0 ? -1 : walk(fd, top, st.st_dev, all, WALK_DEPTH, &stuck);
    } while (k > 0 && ++passes < 100000);
    int e = errno;
    close(top);
    if (k < 0) { errno = e ? e : EIO; return -1; }
    if (stuck) { errno = ENOTEMPTY; return -1; }
    return 0;
}

int nb_sandbox_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    int rc = walk_all(path, 1), e = errno;
    if (rmdir(path) == 0) return 0;
    if (rc) errno = e;
    return -1;
}

void nb_sandbox_unlink_links(const char *dir)
{
    struct stat st;                 /* only a box's own directory (nb_sandbox_mkdtemp) */
    if (dir && *dir && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == nb_sandbox_uid() &&
        (st.st_mode & 07777) == 0700)
        walk_all(dir, 0);
}

/* ---- /proc ---- */

/* Parent pid of pid, from /proc/PID/stat (after the command's ')'); -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    int ppid;
    return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

/* The children of pid, up to max, into out; returns how many. */
static int children_of(pid_t pid, pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int k = 0;
    for (struct dirent *e; (e = readdir(d)) && k < max;) {
        char *end;
        long p = strtol(e->d_name, &end, 10);
        if (*end || p <= 0) continue;
        if (parent_of((pid_t)p) == pid) out[k++] = (pid_t)p;
    }
    closedir(d);
    return k;
}

/* A "Name: value" number of /proc/PID/status; for NSpid the last field. */
static long status_field(pid_t pid, const char *name, int last)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    long v = -1;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            char *p = line + len + 1, *end;
            for (long x; (x = strtol(p, &end, 10)), end != p; p = end) {
                v = x;
                if (!last) break;
            }
            break;
        }
    fclose(f);
    return v;
}

pid_t nb_sandbox_program(pid_t outer)
{
    if (mode == MODE_NONE) return outer;
    pid_t init[4], prog[64];
    if (children_of(outer, init, 4) < 1) return -1;
    int k = children_of(init[0], prog, 64);
    for (int i = 0; i < k; i++)
        if (status_field(prog[i], "NSpid", 1) == 2) return prog[i];   /* the init's first child */
    return -1;
}

int nb_sandbox_threads(pid_t pid)
{
    return (int)status_field(pid, "Threads", 0);
}

void nb_sandbox_kill_descendants(void)
{
    pid_t self = getpid();
    for (int round = 0; round < 20; round++) {
        pid_t all[4096], parent[4096];
        int n = 0;
        DIR *d = opendir("/proc");
        if (!d) return;
        for (struct dirent *e; (e = readdir(d)) && n < 4096;) {
            char *end;
            long p = strtol(e->d_name, &end, 10);
            if (*end || p <= 0) continue;
            all[n] = (pid_t)p;
            parent[n++] = parent_of((pid_t)p);
        }
        closedir(d);
        int killed = 0;
        for (int i = 0; i < n; i++) {               /* descendants: follow parents up to self */
            pid_t p = parent[i];
            for (int depth = 0; depth < 64 && p > 1 && p != self; depth++) {
                int j;
                for (j = 0; j < n && all[j] != p; j++) {}
                p = j < n ? parent[j] : -1;
            }
            if (p == self && all[i] != self) { kill(all[i], SIGKILL); killed++; }
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        if (!killed) return;
        usleep(10000);
    }
}
