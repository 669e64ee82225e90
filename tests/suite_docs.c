/* suite_docs.c -- what the documents promise, checked against the tree:
 *  - each handout's line count of `make diff STEP=NN` is what the diff prints,
 *    and docs/lessons.tsv maps every source file of steps 02 on;
 *  - every relative link of the README, docs/ and handouts/ resolves;
 *  - every results folder has a provenance.tsv row, all fields filled, for
 *    each of its files, and none for a file that is not there;
 *  - the README's set-up, the students' README's and .ci/run name every
 *    package that `scripts/setup/ensure_deps.sh --list all` installs;
 *  - the README stays short (150 lines of 120 characters, the three users'
 *    first commands on its first screen), the students' README (the kit's
 *    README.md) too, and it says nothing of what the kit leaves out;
 *  - `make help` names only real targets, and every user-facing target;
 *  - `make tables` marks the cells whose repeats spread more than 10 %
 *    (fake programs with known timings), and nothing else;
 *  - `make report` writes one page whose images are inside it and whose
 *    links stay in it.
 * The runner runs in tests/, so the tree is "..".  In a student kit (a
 * .student_kit file at the top) the step sources are blanked and the
 * handouts' diff counts are the full tree's: there the diff test checks
 * that the diff shows every lesson file of the mapping instead. */
#define _DEFAULT_SOURCE   /* realpath */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_testutil.h"

#define TOP ".."
#define BIG (1 << 20)
#define STUDENT_README_NAME "student-README.md"   /* docs/: the kit's README.md */

static char *slurp_alloc(const char *path)
{
    char *buf = calloc(1, BIG);
    if (buf) nb_t_slurp(path, buf, BIG);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Run a shell command line of the kit in the top directory, its stdout into
 * out: unboxed (sh), for commands that run no program of the student's, or
 * in the sandbox (sh_boxed), for those that do (make report draws its
 * frames with step01_cpu/nbody): student code never runs unboxed, whatever
 * suite runs it. */
static int sh_in(const char *cmd, char *out, size_t outlen, int timeout_s, int boxed)
{
    char line[PATH_MAX + 4096], top[PATH_MAX];
    /* the box starts in its scratch directory: the top by its full path */
    if (!realpath(TOP, top)) snprintf(top, sizeof top, "%s", TOP);
    snprintf(line, sizeof line, "cd '%s' && %s", top, cmd);
    char *argv[] = { "/bin/sh", "-c", line, NULL };
    static char err[8192];
    int rc = boxed ? nb_t_run(argv, out, outlen, err, sizeof err, timeout_s)
                   : nb_t_run_kit(argv, out, outlen, err, sizeof err, timeout_s);
    if (rc) { printf("       %s: exit %d:\n", cmd, rc); nb_t_show(err); }
    return rc;
}
static int sh(const char *cmd, char *out, size_t outlen, int timeout_s)
{
    return sh_in(cmd, out, outlen, timeout_s, 0);
}
static int sh_boxed(const char *cmd, char *out, size_t outlen, int timeout_s)
{
    return sh_in(cmd, out, outlen, timeout_s, 1);
}

/* ---- make diff: the mapping and the handouts' counts ------------------------- */

static int in_kit(void) { return exists(TOP "/.student_kit"); }

/* The handout of step nn (handouts/NN_*.md) into path; 0 if none. */
static int handout_of(int nn, char *path, size_t len)
{
    DIR *d = opendir(TOP "/handouts");
    if (!d) return 0;
    char pre[8];
    snprintf(pre, sizeof pre, "%02d_", nn);
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, pre, 3) && strstr(e->d_name, ".md")) {
            snprintf(path, len, TOP "/handouts/%s", e->d_name);
            found = 1;
            break;
        }
    closedir(d);
    return found;
}

static void t_diff_counts(void)
{
    char *out = malloc(BIG), *doc = NULL;
    NB_ASSERT_FATAL(out != NULL, "out of memory");
    for (int nn = 2; nn <= 6; nn++) {
        char path[512], cmd[128], key[64];
        if (!handout_of(nn, path, sizeof path)) continue;
        snprintf(cmd, sizeof cmd, "bash scripts/setup/diff_step.sh %02d", nn);
        int rc = sh(cmd, out, BIG, 60);
        NB_ASSERT(rc == 0, "%s: exit %d", cmd, rc);
        int lines = nb_t_count_lines(out);
        if (in_kit()) {     /* blanked sources: every lesson file is shown */
            char map[64];
            snprintf(map, sizeof map, "awk -F'\\t' '$1 == \"%02d\" && $4 == \"lesson\"' docs/lessons.tsv", nn);
            static char rows[65536];
            sh(map, rows, sizeof rows, 10);
            int want = nb_t_count_lines(rows), got = 0;
            for (const char *p = out; (p = strstr(p, "\n=== ")); p++) got++;
            NB_ASSERT(got == want && want > 0, "kit: make diff STEP=%02d shows %d files, the map has %d",
                      nn, got, want);
            continue;
        }
        free(doc);
        doc = slurp_alloc(path);
        snprintf(key, sizeof key, "`make diff STEP=%02d` prints", nn);
        const char *p = doc ? strstr(doc, key) : NULL;
        NB_ASSERT(p != NULL, "%s does not say how many lines `make diff STEP=%02d` prints", path, nn);
        if (!p) continue;
        long quoted = 0;
        for (p += strlen(key); *p == ' ' || *p == '\n'; p++) {}
        for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
            if (*p != ',') quoted = 10 * quoted + (*p - '0');
        NB_ASSERT(quoted == lines, "%s quotes %ld lines for make diff STEP=%02d; it prints %d",
                  path, quoted, nn, lines);
    }
    free(doc);
    free(out);
}

/* Every .c, .h, .cu of steps 02 on is in docs/lessons.tsv once; every file
 * and counterpart named there exists; each step has a lesson. */
static void t_lesson_map(void)
{
    char *map = slurp_alloc(TOP "/docs/lessons.tsv");
    NB_ASSERT_FATAL(map && *map, "docs/lessons.tsv is missing or empty");
    DIR *top = opendir(TOP);
    NB_ASSERT_FATAL(top != NULL, "cannot list the top directory");
    struct dirent *s;
    int steps = 0;
    while ((s = readdir(top))) {
        int nn;
        if (strncmp(s->d_name, "step", 4) || sscanf(s->d_name + 4, "%2d", &nn) != 1 || nn < 2) continue;
        steps++;
        char dir[512];
        snprintf(dir, sizeof dir, TOP "/%s", s->d_name);
        DIR *d = opendir(dir);
        if (!d) continue;
        struct dirent *f;
        while ((f = readdir(d))) {
            const char *dot = strrchr(f->d_name, '.');
            if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".cu"))) continue;
            char key[300];
            snprintf(key, sizeof key, "\n%02d\t%s\t", nn, f->d_name);
            const char *a = strstr(map, key);
            NB_ASSERT(a && !strstr(a + 1, key), "docs/lessons.tsv: %s/%s is %s", s->d_name, f->d_name,
                      a ? "mapped twice" : "not mapped");
        }
        closedir(d);
        char lesson[32];
        snprintf(lesson, sizeof lesson, "\n%02d\t", nn);
        int has = 0;
        for (const char *p = map; (p = strstr(p, lesson)); p++) {
            const char *end = strchr(p + 1, '\n');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            char row[1024];
            snprintf(row, sizeof row, "%.*s", (int)(len < 1000 ? len : 1000), p + 1);
            char file[256] = "", cp[256] = "", part[32] = "";
            if (sscanf(row, "%*d\t%255[^\t]\t%255[^\t]\t%31[^\t]", file, cp, part) != 3) {
                NB_ASSERT(0, "docs/lessons.tsv: malformed row '%s'", row);
                continue;
            }
            char path[700];
            snprintf(path, sizeof path, "%s/%s", dir, file);
            NB_ASSERT(exists(path), "docs/lessons.tsv names %s, which does not exist", path);
            snprintf(path, sizeof path, TOP "/%s", cp);
            NB_ASSERT(!strcmp(cp, "-") || exists(path), "docs/lessons.tsv: counterpart %s does not exist", cp);
            NB_ASSERT(!strcmp(part, "lesson") || !strcmp(part, "beside"), "docs/lessons.tsv: part '%s'", part);
            has |= !strcmp(part, "lesson");
        }
        NB_ASSERT(has, "docs/lessons.tsv: step %02d has no lesson file", nn);
    }
    closedir(top);
    NB_ASSERT(steps >= 1, "no step directories found");
    free(map);
}

/* ---- links --------------------------------------------------------------------- */

/* Every [text](target) of file whose target is a relative path (anchor
 * dropped) names an existing file or directory; returns the links checked. */
static int check_links(const char *file)
{
    char *doc = slurp_alloc(file);
    if (!doc || !*doc) {
        NB_ASSERT(0, "cannot read %s", file);
        free(doc);
        return 0;
    }
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    /* the students' README is the kit's README.md: its links are from the top */
    if (strstr(file, "/docs/" STUDENT_README_NAME)) snprintf(dir, sizeof dir, "%s", TOP);
    int n = 0;
    for (const char *p = doc; (p = strstr(p, "](")); p += 2) {
        const char *t = p + 2, *e = strchr(t, ')');
        if (!e || e - t > 400) continue;
        char target[512];
        snprintf(target, sizeof target, "%.*s", (int)(e - t), t);
        char *hash = strchr(target, '#');
        if (hash) *hash = 0;
        if (!*target || strstr(target, "://") || !strncmp(target, "mailto:", 7) || strchr(target, ' '))
            continue;
        char path[1700];
        snprintf(path, sizeof path, "%s/%s", dir, target);
        NB_ASSERT(exists(path), "%s: broken link to %s", file + 3, target);
        n++;
    }
    free(doc);
    return n;
}

static void t_links(void)
{
    static const char *dirs[] = { TOP, TOP "/docs", TOP "/handouts", TOP "/handouts/results/h100",
                                  TOP "/handouts/results/dev-cpu", TOP "/handouts/results/examples",
                                  TOP "/handouts/figures", TOP "/step05_barneshut" };
    int files = 0, links = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        DIR *d = opendir(dirs[k]);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 3, ".md")) continue;
            char path[700];
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            links += check_links(path);
            files++;
        }
        closedir(d);
    }
    NB_ASSERT(files >= 10 && links >= 50, "only %d Markdown files with %d links found", files, links);
}

/* ---- provenance ------------------------------------------------------------------ */

static void check_provenance(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/provenance.tsv", dir);
    char *tsv = slurp_alloc(path);
    NB_ASSERT_FATAL(tsv != NULL, "out of memory");
    static const char hdr[] = "file\tcommand\tcommit\tgpu\tdriver\tdate\tspread\n";
    NB_ASSERT(!strncmp(tsv, hdr, sizeof hdr - 1),
              "%s: missing, or not the header file/command/commit/gpu/driver/date/spread", path + 3);
    /* each row: 7 fields, none empty, its file present */
    int rows = 0;
    for (char *line = strchr(tsv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *end = strchr(line + 1, '\n');
        char row[2048];
        snprintf(row, sizeof row, "%.*s", (int)(end ? end - line - 1 : (long)strlen(line + 1)), line + 1);
        int fields = 1, empty = row[0] == '\t';
        for (char *c = row; *c; c++)
            if (*c == '\t') { fields++; empty |= c[1] == '\t' || c[1] == 0; }
        char file[512];
        size_t fl = strcspn(row, "\t");
        snprintf(file, sizeof file, "%.*s", (int)(fl < 500 ? fl : 500), row);
        char fp[1300];
        snprintf(fp, sizeof fp, "%s/%s", dir, file);
        NB_ASSERT(fields == 7 && !empty, "%s: row '%.60s' has %d fields%s", path + 3, row, fields,
                  empty ? ", some empty" : "");
        NB_ASSERT(exists(fp), "%s: a row for %s, which is not there", path + 3, file);
        rows++;
    }
    /* each file of the folder, and of its logs/, has exactly one row; the
     * folder itself holds tables, CSVs and figures, its logs/ the logs
     * that they cite */
    static const char *const sub[] = { "", "logs/" };
    for (int k = 0; k < 2; k++) {
        char sd[700];
        snprintf(sd, sizeof sd, "%s/%s", dir, sub[k]);
        DIR *d = opendir(sd);
        if (!d && k == 1) break;                   /* no logs/: none cited */
        NB_ASSERT_FATAL(d != NULL, "cannot list %s", sd);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || (k == 0 && (!strcmp(e->d_name, "README.md") ||
                                                   !strcmp(e->d_name, "provenance.tsv") ||
                                                   !strcmp(e->d_name, "logs"))))
                continue;
            if (k == 0) {
                const char *dot = strrchr(e->d_name, '.');
                NB_ASSERT(dot && (!strcmp(dot, ".md") || !strcmp(dot, ".csv") || !strcmp(dot, ".png") ||
                                  !strcmp(dot, ".svg")),
                          "%s/%s: a results folder keeps tables, CSVs and figures; logs go to its logs/",
                          dir + 3, e->d_name);
            }
            char key[300];
            snprintf(key, sizeof key, "\n%s%s\t", sub[k], e->d_name);
            const char *a = strstr(tsv, key);
            NB_ASSERT(a && !strstr(a + 1, key), "%s: %s%s has %s", path + 3, sub[k], e->d_name,
                      a ? "two rows" : "no row (where it comes from: command, commit, GPU, date, spread)");
        }
        closedir(d);
    }
    NB_ASSERT(rows > 0, "%s: no rows", path + 3);
    free(tsv);
}

static void t_provenance(void)
{
    DIR *d = opendir(TOP "/handouts/results");
    NB_ASSERT_FATAL(d != NULL, "no handouts/results");
    struct dirent *e;
    int machines = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "examples")) continue;
        char dir[600];
        snprintf(dir, sizeof dir, TOP "/handouts/results/%s", e->d_name);
        struct stat st;
        if (stat(dir, &st) || !S_ISDIR(st.st_mode)) continue;
        check_provenance(dir);
        machines++;
    }
    closedir(d);
    NB_ASSERT(machines >= 2, "%d machine folders in handouts/results (h100, dev-cpu expected)", machines);
}

/* ---- set-up, make help ----------------------------------------------------------- */

/* The README's "## Set up" section, and the students' (in the kit: its
 * README.md, the same file), name every package of --list all; .ci/run
 * installs each. */
static void t_setup_packages(void)
{
    static char pkgs[4096];
    int rc = sh("scripts/setup/ensure_deps.sh --list all", pkgs, sizeof pkgs, 10);
    NB_ASSERT_FATAL(rc == 0 && *pkgs, "scripts/setup/ensure_deps.sh --list all: exit %d", rc);
    static const char *readmes[] = { TOP "/README.md", TOP "/docs/" STUDENT_README_NAME };
    char *doc[2] = { NULL, NULL }, *sec[2] = { NULL, NULL };
    int ndocs = in_kit() ? 1 : 2;
    for (int k = 0; k < ndocs; k++) {
        doc[k] = slurp_alloc(readmes[k]);
        NB_ASSERT_FATAL(doc[k] != NULL, "out of memory");
        char *a = strstr(doc[k], "\n## Set up"), *b = a ? strstr(a + 1, "\n## ") : NULL;
        NB_ASSERT(a != NULL, "%s has no '## Set up' section", readmes[k] + 3);
        if (b) *b = 0;
        sec[k] = a;
    }
    char *ci = slurp_alloc(TOP "/.ci/run");
    NB_ASSERT_FATAL(ci != NULL, "out of memory");
    int n = 0;
    for (char *p = strtok(pkgs, "\n"); p; p = strtok(NULL, "\n"), n++) {
        for (int k = 0; k < ndocs; k++)
            NB_ASSERT(!sec[k] || strstr(sec[k], p) != NULL, "%s's set-up does not name %s", readmes[k] + 3, p);
        NB_ASSERT(strstr(ci, p) != NULL, ".ci/run does not install %s", p);
    }
    NB_ASSERT(n >= 5, "ensure_deps.sh --list all names only %d packages", n);
    for (int k = 0; k < ndocs; k++) free(doc[k]);
    free(ci);
}

/* ---- the READMEs' limits --------------------------------------------------------- */

/* Lines of doc, and how many are longer than max characters (UTF-8
 * characters, not bytes); the first such line's number in *first. */
static int count_lines(const char *doc, int max, int *longer, int *first)
{
    int lines = 0, len = 0;
    *longer = 0;
    *first = 0;
    for (const char *p = doc; *p; p++) {
        if (*p == '\n') {
            lines++;
            if (len > max && !(*longer)++) *first = lines;
            len = 0;
        } else if ((*p & 0xC0) != 0x80) {
            len++;
        }
    }
    if (len) {
        lines++;
        if (len > max && !(*longer)++) *first = lines;
    }
    return lines;
}

/* The project's README: at most 150 lines of at most 120 characters, the
 * three users' first commands on its first screen (its first 30 lines).  The
 * students' README (docs/, the kit's README.md): at most 120 lines of at most
 * 120 characters, and not a word of what the kit leaves out.  In the kit
 * README.md is the students' README. */
static void t_readme_limits(void)
{
    int longer, first;
    if (!in_kit()) {
        char *doc = slurp_alloc(TOP "/README.md");
        NB_ASSERT_FATAL(doc && *doc, "cannot read README.md");
        int lines = count_lines(doc, 120, &longer, &first);
        NB_ASSERT(lines <= 150, "README.md has %d lines (at most 150: the rest goes to docs/)", lines);
        NB_ASSERT(longer == 0, "README.md has %d lines over 120 characters (the first: line %d)", longer, first);
        /* the first screen: 30 lines */
        char *p = doc;
        for (int k = 0; k < 30 && p; k++) p = strchr(p + 1, '\n');
        if (p) *p = 0;
        static const char *first_cmds[] = { "make student-kit", "make -C step01_cpu check", "make check-all",
                                            "make grade-class", "make tables", "make report", NULL };
        for (int k = 0; first_cmds[k]; k++)
            NB_ASSERT(strstr(doc, first_cmds[k]) != NULL, "README.md's first 30 lines do not show `%s`",
                      first_cmds[k]);
        free(doc);
    }
    const char *kit_readme = in_kit() ? TOP "/README.md" : TOP "/docs/" STUDENT_README_NAME;
    char *doc = slurp_alloc(kit_readme);
    NB_ASSERT_FATAL(doc && *doc, "cannot read %s", kit_readme + 3);
    NB_ASSERT(strstr(doc, "# nbody-lab: the student kit") == doc, "%s is not the students' README (its title: "
              "'# nbody-lab: the student kit')", kit_readme + 3);
    int lines = count_lines(doc, 120, &longer, &first);
    NB_ASSERT(lines <= 120, "%s has %d lines (at most 120)", kit_readme + 3, lines);
    NB_ASSERT(longer == 0, "%s has %d lines over 120 characters (the first: line %d)", kit_readme + 3, longer,
              first);
    /* what the kit leaves out, in any case */
    static const char *left_out[] = { "tuned", "mutant", "grade-class", "grade_class", "solution", "<details>",
                                      NULL };
    for (char *c = doc; *c; c++) *c = (char)((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
    for (int k = 0; left_out[k]; k++)
        NB_ASSERT(strstr(doc, left_out[k]) == NULL, "%s mentions '%s', which the kit leaves out",
                  kit_readme + 3, left_out[k]);
    free(doc);
}

/* `make setup` installs group by group: with every group missing and an
 * apt-get that cannot find "chromium" (as on Ubuntu, whose package is
 * chromium-browser), ensure_deps.sh all still installs every other group,
 * each in an apt-get call of its own with exactly the packages --list
 * gives it, names the group that failed with Ubuntu's command, and exits 1.
 * Nothing is installed: PATH holds only stand-ins (apt-get that logs its
 * arguments, dpkg that knows no package, id that says root) and sed. */
static void t_setup_group_by_group(void)
{
    const char *base = nb_t_tmpfile(0, ".setup");
    static char cmd[8192], out[1 << 15];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s/bin' && cd '%s/bin' && "
             "printf '#!/bin/sh\\necho 0\\n' > id && printf '#!/bin/sh\\nexit 1\\n' > dpkg && "
             "printf '#!/bin/sh\\necho \"$*\" >> %s/apt.log\\ncase \" $* \" in *\" chromium \"*) "
             "echo \"E: Unable to locate package chromium\" >&2; exit 100 ;; esac\\nexit 0\\n' > apt-get && "
             "chmod 755 id dpkg apt-get && ln -s \"$(command -v sed)\" sed && cd - >/dev/null && "
             "{ env -i PATH='%s/bin' CC=no-such-cc /bin/bash scripts/setup/ensure_deps.sh all 2>&1; echo \"exit $?\"; }",
             base, base, base, base, base);
    int rc = sh(cmd, out, sizeof out, 60);
    NB_ASSERT_FATAL(rc == 0, "the stand-in set-up could not run: exit %d", rc);
    printf("%s", out);
    NB_ASSERT(strstr(out, "exit 1\n") != NULL, "ensure_deps.sh all with a group that fails: not exit 1");
    NB_ASSERT(strstr(out, "the group 'chromium' was not installed") != NULL, "the failed group is not named");
    NB_ASSERT(strstr(out, "Ubuntu: sudo apt-get install -y chromium-browser") != NULL,
              "no command for Ubuntu, whose package is chromium-browser");
    NB_ASSERT(strstr(out, "not installed: chromium (of ") != NULL, "no closing line naming what was not installed");
    /* every group in a call of its own, its packages exactly --list's */
    static const char *const groups[] = { "png", "cunit", "grade", "tsan", "gnuplot", "ffmpeg", "chromium",
                                          "view", "serve" };
    char path[1200];
    snprintf(path, sizeof path, "%s/apt.log", base);
    char *log = slurp_alloc(path);
    NB_ASSERT_FATAL(log != NULL, "apt-get was never called");
    int installs = 0;
    for (const char *p = log; (p = strstr(p, "install -y")); p++) installs++;
    NB_ASSERT_EQ("apt-get install calls (one a group)", installs, 9);
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++) {
        static char pk[2048], want[2200];
        snprintf(cmd, sizeof cmd, "scripts/setup/ensure_deps.sh --list %s | tr '\\n' ' ' | sed 's/ $//'", groups[k]);
        NB_ASSERT_FATAL(sh(cmd, pk, sizeof pk, 10) == 0 && *pk, "--list %s", groups[k]);
        snprintf(want, sizeof want, "install -y -qq %s\n", pk);
        NB_ASSERT(strstr(log, want) != NULL, "no apt-get call for the group %s alone ('%s'); the calls:\n%s",
                  groups[k], pk, log);
    }
    free(log);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    sh(cmd, out, sizeof out, 10);
}

/* The rules of the top Makefile and the makefiles it includes: "name:" at
 * the start of a line (variable assignments have '=' after the colon). */
static int has_rule(const char *mk, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = mk; (p = strstr(p, name)); p += l)
        if ((p == mk || p[-1] == '\n') && (p[l] == ':' || p[l] == ' ') && strchr(p, ':') &&
            strchr(p, ':')[1] != '=' && strchr(p, ':') < strchr(p, '\n'))
            return 1;
    return 0;
}

static void t_make_help(void)
{
    static char help[16384];
    int rc = sh("make -s help", help, sizeof help, 30);
    NB_ASSERT_FATAL(rc == 0, "make help: exit %d", rc);
    static const char *mks[] = { TOP "/Makefile", TOP "/scripts/tables/targets.mk", TOP "/scripts/grade/student_kit.mk" };
    char *mk = calloc(1, 3 * BIG / 4);
    NB_ASSERT_FATAL(mk != NULL, "out of memory");
    for (int k = 0; k < 3; k++) {
        char *s = slurp_alloc(mks[k]);
        if (s) strncat(mk, s, BIG / 4 - 1);
        free(s);
    }
    /* each "  make TARGET" line names a rule (make -C DIR check: step.mk's) */
    int named = 0;
    for (const char *p = help; (p = strstr(p, "\n  make ")); p++) {
        char t[64] = "";
        sscanf(p + 8, "%63s", t);
        if (!strcmp(t, "-C")) continue;
        NB_ASSERT(has_rule(mk, t), "make help names '%s', which has no rule", t);
        named++;
    }
    NB_ASSERT(named >= 15, "make help names only %d targets", named);
    /* every user-facing .PHONY target is in the help */
    /* (the step folders, the tuned builds' and the exercises' folders: built by make) */
    static const char *internal[] = { "deps", "deps-test", "common", "$(STEPS)", "$(TUNED)", "$(EXERCISES)",
                                      "FORCE", NULL };
    for (const char *p = mk; (p = strstr(p, ".PHONY:")); p++) {
        char line[512];
        const char *e = strchr(p, '\n');
        snprintf(line, sizeof line, "%.*s", (int)(e ? e - p - 7 : 0), p + 7);
        for (char *t = strtok(line, " \t"); t; t = strtok(NULL, " \t")) {
            int skip = 0;
            for (int k = 0; internal[k]; k++) skip |= !strcmp(t, internal[k]);
            if (skip) continue;
            char want[80];
            snprintf(want, sizeof want, "make %s ", t);
            char want2[80];
            snprintf(want2, sizeof want2, "make %s\n", t);
            NB_ASSERT(strstr(help, want) || strstr(help, want2), "make help does not list '%s'", t);
        }
    }
    free(mk);
}

/* ---- make tables: spread over repeats ------------------------------------------- */

/* The permission bits of path (-1: no such file), and those that a file
 * made by `> FILE` (open(2) with 0666) gets under this process's umask. */
static int file_mode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}
static int out_mode(void)
{
    mode_t m = umask(0);
    umask(m);
    return (int)(0666 & ~m);
}

/* A fake program for every step: prints one --csv line whose step_ms_med is
 * 2.0, except step01 on 1 thread at N = 512, whose three runs take 1.0,
 * 1.0 and 1.5 ms (a spread of 50 %); GPU steps exit 77. */
static const char fake_prog[] =
    "#!/bin/sh\n"
    "d=$(cd \"$(dirname \"$0\")\" && pwd); s=$(basename \"$d\")\n"
    "case $s in step01_cpu|step05_barneshut) ;; *) echo \"$s: no usable CUDA device: fake\" >&2; exit 77 ;; esac\n"
    "n=0 t=0 cpu=0; while [ $# -gt 0 ]; do case $1 in -n) n=$2; shift ;; --threads) t=$2; shift ;; --cpu) cpu=1 ;; esac; shift; done\n"
    "[ $s = step01_cpu ] || [ $cpu = 1 ] || { echo \"$s: no usable CUDA device: fake\" >&2; exit 77; }\n"
    "ms=2.0\n"
    "if [ $s = step01_cpu ] && [ $n = 512 ] && [ $t = 1 ]; then\n"
    "  c=$(cat \"$d/count\" 2>/dev/null || echo 0); c=$((c + 1)); echo $c > \"$d/count\"\n"
    "  [ $c -lt 3 ] && ms=1.0 || ms=1.5\n"
    "fi\n"
    "echo step,n,steps,step_ms_med,force_ms_med,inter_per_s,device\n"
    "echo $s,$n,3,$ms,$ms,1e9,fake\n";

static void t_tables_spread(void)
{
    const char *base = nb_t_tmpfile(0, ".tables");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/bin' '%s/out'", base, base, base);
    static char out[1 << 16];
    NB_ASSERT_FATAL(sh(cmd, out, sizeof out, 10) == 0, "cannot make %s", base);
    static const char *steps[] = { "step01_cpu", "step02_naive", "step03_float4", "step04_shared",
                                   "step05_barneshut" };
    for (int k = 0; k < 5; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/bin/%s", base, steps[k]);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/bin/%s/nbody", base, steps[k]);
        FILE *f = fopen(path, "w");
        NB_ASSERT_FATAL(f != NULL, "cannot write %s", path);
        fputs(fake_prog, f);
        fclose(f);
        chmod(path, 0755);
    }
    snprintf(cmd, sizeof cmd,
             "QUICK=1 REPEATS=3 THREADS=2 TABLES_BUDGET_S=100000 NB_BIN_DIR='%s/bin' RESULTS_DIR='%s/out' "
             "bash scripts/tables/tables.sh > '%s/stdout' 2> '%s/stderr'", base, base, base, base);
    /* (no time budget that a loaded machine could reach -- a case past it
     * would be skipped -- and a hang detector: 5 s idle, 33 s loaded) */
    int rc = sh(cmd, out, sizeof out, 300);
    NB_ASSERT_FATAL(rc == 0, "make tables on fake programs: exit %d", rc);
    char path[1200];
    snprintf(path, sizeof path, "%s/out/table1_cpu_vs_gpu.md", base);
    char *md = slurp_alloc(path);
    NB_ASSERT_FATAL(md != NULL, "out of memory");
    /* the one wide cell: its median 1.00, marked; its runs listed */
    NB_ASSERT(strstr(md, "| 512 | 1.00 ‡ |") != NULL, "N = 512, CPU 1 thread (runs 1.0, 1.0, 1.5 ms) "
              "is not shown as '1.00 ‡'");
    NB_ASSERT(strstr(md, "1.00 / 1.00 / 1.50 ms (spread 50.0 %)") != NULL, "the wide cell's runs are not listed");
    int marks = 0;
    for (const char *p = md; (p = strstr(p, " ‡ |")); p++) marks++;
    NB_ASSERT_EQ("cells marked ‡ in table 1", marks, 1);
    free(md);
    /* the CSV and the provenance carry it */
    snprintf(path, sizeof path, "%s/out/table1_cpu_vs_gpu.csv", base);
    char *csv = slurp_alloc(path);
    NB_ASSERT(csv && strstr(csv, "cpu1_spread") && strstr(csv, ",0.5000,"), "table1's CSV has no spread 0.5000");
    free(csv);
    snprintf(path, sizeof path, "%s/out/provenance.tsv", base);
    char *prov = slurp_alloc(path);
    NB_ASSERT(prov && strstr(prov, "table1_cpu_vs_gpu.md\tmake tables QUICK=1\t") &&
              strstr(prov, "3 runs per cell; 1 cells spread more than 10 %"),
              "provenance.tsv has no row for table 1 with its spread");
    free(prov);
    /* before measuring, one line states the sizes, the budget and the ETA */
    snprintf(path, sizeof path, "%s/stderr", base);
    char *err = slurp_alloc(path);
    NB_ASSERT(err && strstr(err, "tables: sizes 'quick'") && strstr(err, "  budget ") && strstr(err, "  ETA ~"),
              "make tables did not state its sizes, budget and ETA first");
    NB_ASSERT(err && strstr(err, "tables: sizes") < strstr(err, "[tables "), "the ETA line comes after the first run");
    free(err);
    /* written through a temporary file of mktemp (0600) and renamed: the
     * mode a plain `> FILE` gives, 0666 less the umask */
    NB_ASSERT(file_mode(path) == out_mode(), "provenance.tsv: mode %o, expected %o (0666 less the umask)",
              file_mode(path), out_mode());
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    sh(cmd, out, sizeof out, 10);
}

/* ---- make report ----------------------------------------------------------------- */

static void t_report_self_contained(void)
{
    const char *page = nb_t_tmpfile(1, ".html");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "REPORT_RUN=0 SLUG=h100 REPORT='%s' bash scripts/tables/report.sh", page);
    static char out[4096];
    int rc = sh_boxed(cmd, out, sizeof out, 60);     /* it runs step01_cpu/nbody */
    NB_ASSERT_FATAL(rc == 0, "make report: exit %d", rc);
    char *html = slurp_alloc(page);
    NB_ASSERT_FATAL(html && *html, "no page written");
    /* (through a temporary file of mktemp, 0600, renamed: readable as `> FILE` would make it) */
    NB_ASSERT(file_mode(page) == out_mode(), "report/index.html: mode %o, expected %o (0666 less the umask)",
              file_mode(page), out_mode());
    int imgs = 0, links = 0;
    for (const char *p = html; (p = strstr(p, " src=\"")); p++) {
        imgs++;
        NB_ASSERT(!strncmp(p + 6, "data:image/", 11), "an image that is not inside the page: %.40s", p);
    }
    for (const char *p = html; (p = strstr(p, " href=\"")); p++) {
        links++;
        char id[80] = "", want[100];
        NB_ASSERT(sscanf(p + 7, "#%79[^\"]", id) == 1, "a link out of the page: %.40s", p);
        snprintf(want, sizeof want, "id=\"%s\"", id);
        NB_ASSERT(strstr(html, want) != NULL, "a link to #%s, a section the page does not have", id);
    }
    /* h100's three tables and three plots are in it */
    NB_ASSERT(imgs >= 3 && strstr(html, "Table 1") && strstr(html, "Table 3"),
              "the page has %d images and %s tables", imgs, strstr(html, "Table 1") ? "some" : "no");
    NB_ASSERT(links >= 5, "the page has %d links (its sections)", links);
    /* every table and figure of the folder, table 5 and precision.png too */
    static const char *files[] = { "table1_cpu_vs_gpu.md", "table3_barnes_hut.md", "table5_precision.md",
                                   "table5_energy.md", "rate.png", "precision.png", "drift.png" };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char want[120];
        snprintf(want, sizeof want, "data-file=\"%s\"", files[k]);
        NB_ASSERT(strstr(html, want) != NULL, "the page leaves out h100's %s", files[k]);
    }
    free(html);
    remove(page);
}

/* The layout, measured (scripts/tables/layout.py): docs/layout.md's "now" column is
 * the tree's, `make diff` STEP=05 and STEP=06 stay under their targets, no
 * lesson folder holds a tuned build's file, no circle between files (the
 * student kit, whose tree is not the table's and whose blanked sources make
 * other diffs: the targets but the make diff counts). */
/* scripts/tables/timeline_plot.sh draws --bench's timeline of step06's
 * tuned build (NB_TUNE=parts=K): from a log of two runs, the run asked for,
 * every GPU's walk and exchange lanes, every part a box; a log with no
 * timeline, a run past the last, a wrong picture type: exit 2, no picture. */
static void t_timeline_plot(void)
{
    const char *base = nb_t_tmpfile(2, ".timeline");
    char cmd[2400], path[1200], out[4096];
    mkdir(base, 0755);
    snprintf(path, sizeof path, "%s/log.txt", base);
    FILE *f = fopen(path, "w");
    NB_ASSERT_FATAL(f != NULL, "cannot write %s", path);
    const char *head = "    timeline of the last timed step, GPU %d (ms from its start; walk: a part's walk "
                       "and pack, default stream; exchange: its all-gather, NCCL's stream, from when it may begin):";
    fputs("$ first run\n", f);
    fprintf(f, head, 0);
    fputs(" walk1 1.0 2.0 exchange1 2.0 2.5\n", f);
    fputs("$ second run\n", f);
    for (int g = 0; g < 2; g++) {
        fprintf(f, head, g);
        fputs(" walk1 0.5 10.25 exchange1 10.3 17.0 walk2 10.26 20.0 exchange2 20.1 27.0 walk3 20.1 30.0"
              " exchange3 30.1 37.75\n", f);
    }
    fclose(f);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        snprintf(cmd, sizeof cmd, "bash scripts/tables/timeline_plot.sh '%s/log.txt' '%s/t.svg' 2>&1", base, base);
        int rc = sh(cmd, out, sizeof out, 60);
        NB_ASSERT(rc == 2 && strstr(out, "gnuplot is not installed"), "no gnuplot: exit %d: %s", rc, out);
        return;
    }
    snprintf(cmd, sizeof cmd, "bash scripts/tables/timeline_plot.sh '%s/log.txt' '%s/t.svg' 2 2>&1", base, base);
    int rc = sh(cmd, out, sizeof out, 60);
    NB_ASSERT_FATAL(rc == 0 && strstr(out, "(2 GPUs, 12 boxes)"), "the second run: exit %d: %s", rc, out);
    snprintf(path, sizeof path, "%s/t.svg", base);
    char *svg = slurp_alloc(path);
    NB_ASSERT_FATAL(svg != NULL, "no %s", path);
    static const char *const labels[] = { "GPU 0 walk", "GPU 0 exchange", "GPU 1 walk", "GPU 1 exchange",
                                          "second run" };
    for (size_t k = 0; k < sizeof labels / sizeof *labels; k++)
        NB_ASSERT(strstr(svg, labels[k]) != NULL, "the picture has no '%s'", labels[k]);
    free(svg);
    snprintf(cmd, sizeof cmd, "bash scripts/tables/timeline_plot.sh '%s/log.txt' '%s/u.png' 2>&1", base, base);
    rc = sh(cmd, out, sizeof out, 60);
    NB_ASSERT(rc == 0 && strstr(out, "(2 GPUs, 12 boxes)"), "the last run by default: exit %d: %s", rc, out);
    snprintf(cmd, sizeof cmd, "bash scripts/tables/timeline_plot.sh '%s/log.txt' '%s/v.png' 1 2>&1", base, base);
    rc = sh(cmd, out, sizeof out, 60);
    NB_ASSERT(rc == 0 && strstr(out, "(1 GPU, 2 boxes)"), "the first run: exit %d: %s", rc, out);
    /* no timeline in the log; a run past the last; a picture type it does not draw */
    snprintf(path, sizeof path, "%s/log.txt", base);
    char bad[3][2400];
    snprintf(bad[0], sizeof bad[0], "bash scripts/tables/timeline_plot.sh README.md '%s/w.png' 2>&1", base);
    snprintf(bad[1], sizeof bad[1], "bash scripts/tables/timeline_plot.sh '%s' '%s/w.png' 3 2>&1", path, base);
    snprintf(bad[2], sizeof bad[2], "bash scripts/tables/timeline_plot.sh '%s' '%s/w.gif' 2>&1", path, base);
    for (int k = 0; k < 3; k++) {
        rc = sh(bad[k], out, sizeof out, 60);
        NB_ASSERT(rc == 2 && strstr(out, "timeline_plot: "), "%s: exit %d, not 2: %s", bad[k], rc, out);
    }
    snprintf(path, sizeof path, "%s/w.png", base);
    NB_ASSERT(!exists(path), "a refused call left a picture: %s", path);
    snprintf(path, sizeof path, "%s/w.gif", base);
    NB_ASSERT(!exists(path), "a refused call left a picture: %s", path);
}

static void t_layout(void)
{
    static char out[1 << 14];
    int rc = sh(in_kit() ? "python3 -I scripts/tables/layout.py --targets 2>&1"
                         : "python3 -I scripts/tables/layout.py --check docs/layout.md 2>&1", out, sizeof out, 120);
    NB_ASSERT(rc == 0, "the layout (make layout): %.300s", out);
}

/* Every count a document quotes after a <!--count:KEY--> marker (points,
 * tests, runners, mutants, solution regions) and the generated list of
 * solution regions: what scripts/tables/doc_counts.sh computes from the tree now;
 * and the facts it checks with scripts/tables/doc_facts.py: the tests the
 * documents name, the messages they quote, the figures after a
 * <!--figure:PATH:REGEX--> marker, the grade lines they quote, the example
 * outputs' points and tests. */
static void t_quoted_counts(void)
{
    static char out[1 << 14];
    int rc = sh("bash scripts/tables/doc_counts.sh --check 2>&1", out, sizeof out, 120);
    if (rc) printf("%s       regenerate them with: make doc-counts\n", out);
    NB_ASSERT(rc == 0, "quoted counts out of date (make doc-counts): %.150s", out);
}

void nb_suite_docs_register(void)
{
    static const nb_test tests[] = {
        { "quoted_counts_are_the_trees", t_quoted_counts, 1 },
        { "make_diff_counts_in_handouts", t_diff_counts, 2 },
        { "lesson_map_covers_every_source", t_lesson_map, 1 },
        { "relative_links_resolve", t_links, 2 },
        { "results_have_provenance", t_provenance, 2 },
        { "setup_names_every_package", t_setup_packages, 1 },
        { "readmes_within_their_limits", t_readme_limits, 1 },
        { "setup_installs_group_by_group", t_setup_group_by_group, 1 },
        { "make_help_names_real_targets", t_make_help, 1 },
        { "tables_mark_spread_over_10_percent", t_tables_spread, 2 },
        { "report_is_self_contained", t_report_self_contained, 1 },
        { "layout_keeps_its_targets", t_layout, 1 },
        { "timeline_plot_draws_the_parts", t_timeline_plot, 1 },
        NB_TEST_END
    };
    nb_grade_suite("docs", tests, NULL);
}
