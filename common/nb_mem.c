/* nb_mem.c -- available host memory (see nb_mem.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_mem.h"
#include "nb_parse.h"

#define GIB 1073741824.0

/* The first number of a small file, or -1 ("max", missing, garbage). */
static double read_number(const char *dir, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[64] = "";
    char *ok = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!ok) return -1;
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? -1 : v;
}

/* The value of 'key' in a "key value" file such as memory.stat or
 * /proc/meminfo, or missing if the file or the key is not there. */
static double read_key(const char *dir, const char *name, const char *key, double missing)
{
    char path[4300], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return missing;
    double v = missing;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ' ') {
            v = strtod(line + klen + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

/* Room left in the cgroup directory dir (and its ancestors up to root), or
 * -1 if none of them has a limit. */
static double cgroup_room(const char *root, const char *rel, int v2)
{
    char dir[4200];
    double best = -1;
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    for (;;) {
        double limit = read_number(dir, v2 ? "memory.max" : "memory.limit_in_bytes");
        double used = read_number(dir, v2 ? "memory.current" : "memory.usage_in_bytes");
        /* v1 writes "no limit" as a huge page-aligned number */
        if (limit > 0 && limit < 4.0e18 && used >= 0) {
            double cache = read_key(dir, "memory.stat", v2 ? "inactive_file" : "total_inactive_file", 0);
            double room = limit - used + cache;
            if (room > limit) room = limit;
            if (room < 0) room = 0;
            if (best < 0 || room < best) best = room;
        }
        size_t rl = strlen(root), dl = strlen(dir);
        if (dl <= rl) break;
        char *slash = strrchr(dir + rl, '/');
        if (!slash) break;
        *slash = '\0';
    }
    return best;
}

/* The process's cgroups from /proc/self/cgroup: "0::/path" (v2) or
 * "N:memory,...:/path" (v1).  A path not visible under the mount (another
 * cgroup namespace) falls back to the mount's root. */
static double cgroup_available(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    char line[4096];
    double best = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = '\0';
        const char *ctrl = c1 + 1, *rel = c2 + 1;
        int v2 = !strcmp(line, "0") && !*ctrl;
        int v1 = 0;
        for (const char *p = ctrl; !v2 && *p;) {           /* "memory" in a list */
            size_t k = strcspn(p, ",");
            if (k == 6 && !strncmp(p, "memory", 6)) v1 = 1;
            p += k + (p[k] == ',');
        }
        if (!v1 && !v2) continue;
        const char *root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        char probe[4200];
        snprintf(probe, sizeof probe, "%s%s/%s", root, rel, v2 ? "memory.current" : "memory.usage_in_bytes");
        FILE *t = fopen(probe, "r");
        if (t) fclose(t);
        double room = cgroup_room(root, t ? (strcmp(rel, "/") ? rel : "") : "", v2);
        if (room >= 0 && (best < 0 || room < best)) best = room;
    }
    fclose(f);
    return best;
}

static double meminfo_available(void)
{
    double kib = read_key("/proc", "meminfo", "MemAvailable:", -1);
    return kib < 0 ? -1 : kib * 1024.0;
}

double nb_mem_available(char *why, size_t len)
{
    int64_t fake;
    if (nb_env_i64("NB_FAKE_MEM_AVAILABLE", 0, INT64_MAX, &fake) == 1) {
        if (why) snprintf(why, len, "NB_FAKE_MEM_AVAILABLE");
        return (double)fake;
    }
    double mem = meminfo_available(), cg = cgroup_available();
    const char *src = "MemAvailable";
    if (cg >= 0 && (mem < 0 || cg < mem)) {
        mem = cg;
        src = "cgroup limit";
    }
    if (why) snprintf(why, len, "%s", mem < 0 ? "unknown" : src);
    return mem;
}

/* "12.3 GiB", "4.5 MiB" or "678 KiB" */
static const char *human(double bytes, char *buf, size_t len)
{
    if (bytes >= GIB) snprintf(buf, len, "%.1f GiB", bytes / GIB);
    else if (bytes >= 1048576.0) snprintf(buf, len, "%.1f MiB", bytes / 1048576.0);
    else snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
    return buf;
}

int nb_mem_check_extra(int64_t n, double bytes_per_body, double held, double extra,
                       const char *extra_what, const char *context, const char *hint)
{
    char why[64], a[32], b[32], c[32];
    double avail = nb_mem_available(why, sizeof why);
    double need = (double)n * bytes_per_body + extra;
    if (avail < 0 || need - held <= avail) return NB_OK;
    avail += held;
    char plus[200] = "";
    if (extra > 0)
        snprintf(plus, sizeof plus, " plus %s for %s", human(extra, c, sizeof c),
                 extra_what ? extra_what : "the run");
    return nb_fail(NB_EXIT_RUNTIME, "out of host memory%s: %lld bodies need about %s "
                   "(%.0f B/body)%s, %s are available (%s)%s", context ? context : "",
                   (long long)n, human(need - extra, a, sizeof a), bytes_per_body, plus,
                   human(avail, b, sizeof b), why, hint ? hint : "");
}

int nb_mem_check(int64_t n, double bytes_per_body, double held, const char *context, const char *hint)
{
    return nb_mem_check_extra(n, bytes_per_body, held, 0, NULL, context, hint);
}
