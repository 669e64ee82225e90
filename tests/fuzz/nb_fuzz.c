/* nb_fuzz.c -- the fuzz harnesses (see nb_fuzz.h). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_fuzz.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_options.h"
#include "nb_validate.h"

static char why[256];

const char *nb_fuzz_why(void) { return why; }

static int broken(const char *what)
{
    snprintf(why, sizeof why, "%s (code %d, message '%.150s')", what, nb_errcode(), nb_errmsg());
    return NB_FUZZ_BROKEN;
}

void nb_fuzz_setup(void)
{
    /* a header may claim 2^31 bodies: refuse what exceeds 256 MiB instead
     * of allocating it (the memory check itself is fuzzed that way) */
    setenv("NB_FAKE_MEM_AVAILABLE", "268435456", 1);
    if (!freopen("/dev/null", "w", stdout)) {}   /* --help and --version */
}

/* A refusal: a known code and one line of message. */
static int refused(int rc)
{
    if (rc != NB_EXIT_USAGE && rc != NB_EXIT_RUNTIME) return broken("unexpected code");
    if (!nb_errmsg()[0]) return broken("refused without a message");
    if (strchr(nb_errmsg(), '\n')) return broken("a message of several lines");
    return rc;
}

/* An accepted state: bodies, finite values, then the validation. */
static int accepted(nb_state *s)
{
    int rc = 0;
    if (s->n < 1) rc = broken("accepted no bodies");
    for (int64_t i = 0; !rc && i < s->n; i++) {
        const float v[7] = { s->m[i], s->x[i], s->y[i], s->z[i], s->vx[i], s->vy[i], s->vz[i] };
        for (int k = 0; k < 7; k++)
            if (!isfinite(v[k])) { rc = broken("accepted a non-finite value"); break; }
        if (!rc && !(s->m[i] >= 0)) rc = broken("accepted a negative mass");
    }
    if (!rc) {
        int v = nb_state_validate(s, 0.01);
        if (v) rc = refused(v);
        if (rc == NB_EXIT_RUNTIME) rc = broken("validation failed with exit 3");
    }
    nb_state_free(s);
    return rc;
}

/* Read data through an nb_src: as a regular file of its size, or a stream. */
static int read_as(const uint8_t *data, size_t size, int stream, int tipsy, int direct)
{
    if (size == 0) return 0;                 /* fmemopen wants a buffer */
    void *copy = malloc(size);
    if (!copy) return 0;
    memcpy(copy, data, size);
    FILE *f = fmemopen(copy, size, "rb");
    if (!f) { free(copy); return 0; }
    nb_src src;
    nb_state s;
    memset(&s, 0, sizeof s);
    nb_clear_error();
    int rc = nb_src_from_file(&src, f, "fuzz", stream ? -1 : (int64_t)size);
    if (!rc) rc = direct ? nb_tipsy_read_src(&src, &s) : nb_ic_read_src(&src, tipsy, &s);
    nb_src_close(&src);
    free(copy);
    return rc ? refused(rc) : accepted(&s);
}

int nb_fuzz_state(const uint8_t *data, size_t size)
{
    int rc = read_as(data, size, 0, 0, 0);
    if (rc == NB_FUZZ_BROKEN) return rc;
    int rs = read_as(data, size, 1, 0, 0);   /* a FIFO holding the same bytes */
    if (rs == NB_FUZZ_BROKEN) return rs;
    /* text (no NUL in the first 32 bytes, so never TIPSY, whose ndim needs
     * three): a file and a stream of the same bytes must give the same */
    if (rs != rc && !memchr(data, '\0', size < 32 ? size : 32))
        return broken("a file and a stream of the same bytes disagree");
    return rc;
}

int nb_fuzz_tipsy(const uint8_t *data, size_t size)
{
    int rc = read_as(data, size, 0, 1, 1);
    if (rc == NB_FUZZ_BROKEN) return rc;
    int rs = read_as(data, size, 1, 1, 1);
    return rs == NB_FUZZ_BROKEN ? rs : rc;
}

int nb_fuzz_options(const uint8_t *data, size_t size)
{
    enum { MAXARGS = 40 };
    char *argv[MAXARGS + 2];
    int argc = 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    unsigned caps = size ? data[0] & 31u : 0;
    if (size) memcpy(buf, data + 1, size - 1);
    buf[size ? size - 1 : 0] = '\0';
    argv[argc++] = "nbody";
    for (size_t k = 0; size && k < size - 1 && argc < MAXARGS;) {
        argv[argc++] = buf + k;
        k += strlen(buf + k) + 1;
    }
    argv[argc] = NULL;
    nb_options o;
    nb_clear_error();
    int rc = nb_parse_options(argc, argv, caps, "nbody", &o);
    if (rc == 0) {
        if (o.n < 1 || o.n > NB_MAX_N || !(o.dt > 0 && o.dt <= 1) || !(o.eps > 0 && o.eps <= 10) ||
            o.steps < 0 || !o.ic || !*o.ic)
            rc = broken("accepted a value out of its range");
        else if (nb_ic_is_model(o.ic) && nb_eps_check(1.0, o.eps))   /* as nb_main() does */
            rc = refused(nb_errcode());
    } else if (rc != -1) {
        rc = refused(rc);
        if (rc == NB_EXIT_RUNTIME) rc = broken("the parser failed with exit 3");
    }
    free(buf);
    return rc;
}

nb_fuzz_fn nb_fuzz_target(const char *name)
{
    if (!strcmp(name, "state")) return nb_fuzz_state;
    if (!strcmp(name, "tipsy")) return nb_fuzz_tipsy;
    if (!strcmp(name, "options")) return nb_fuzz_options;
    return NULL;
}

int nb_fuzz_replay(const char *dir, const char *target, int *count)
{
    static unsigned char buf[1 << 20];
    nb_fuzz_fn fn = nb_fuzz_target(target);
    DIR *d = fn ? opendir(dir) : NULL;
    if (!d) return 0;
    int broke = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        (*count)++;
        if (fn(buf, n) == NB_FUZZ_BROKEN) {
            fprintf(stderr, "%s: %s\n", path, nb_fuzz_why());
            broke++;
        }
    }
    closedir(d);
    return broke;
}
