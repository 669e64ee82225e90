/* nb_tipsy.c -- TIPSY binary snapshots (--ic file.bin, --ic tipsy:FILE).
 *
 * The format of the CUDA samples' n-body demo and of the GPU tree codes:
 *
 *   header, 32 bytes:  double time; int32 nbodies, ndim, nsph, ndark, nstar;
 *                      4 pad bytes
 *   nsph  gas  particles, 48 bytes: mass, pos[3], vel[3], rho, temp, hsmooth,
 *                                   metals, phi
 *   ndark dark particles, 36 bytes: mass, pos[3], vel[3], eps, phi
 *   nstar star particles, 44 bytes: mass, pos[3], vel[3], metals, tform, eps, phi
 *
 * all numbers float32 except time.  The programs that write it dump their
 * structs, so the usual byte order is little-endian; the classic tipsy tools
 * write the same layout through XDR, i.e. big-endian.  The byte order is
 * found from the header: the one in which the counts make sense
 * (all >= 0, nbodies = nsph + ndark + nstar, 1 <= ndim <= 3) and, if both
 * do, the one whose particle counts match the size of the file.  Bytes are
 * decoded explicitly, so the code is the same on any host.
 *
 * Reading is strict: the file size must be exactly what the header says
 * (shorter = truncated, longer = wrong counts or not TIPSY), ndim must be 3,
 * masses must be finite and >= 0, positions and velocities finite.  Every
 * refusal is NB_EXIT_USAGE with one message naming the file.  The host
 * memory for the header's count is checked before allocating (exit 3 with
 * the sizes).  A stream (FIFO, pipe) has no size: its header is detected
 * from the counts alone and it is read to its end, which must come right
 * after the last particle.
 *
 * Gas: the kit has gravity only, so gas particles are read as bodies like the
 * others (their mass, position and velocity; rho, temp, hsmooth, metals, phi
 * are ignored).  Bodies come in file order: gas, dark, star.  Dropping them
 * instead would silently lose mass and change the dynamics.
 *
 * Writing (nb_tipsy_write) produces nbodies = ndark = n, nsph = nstar = 0,
 * time 0, dark particles with eps = 0 and phi = 0, little-endian or, with
 * big_endian != 0, the XDR byte order; atomically (nb_out: a temporary file
 * renamed). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nb_error.h"
#include "nb_io.h"
#include "nb_mem.h"
#include "nb_state.h"

#define TIPSY_HEADER 32
#define TIPSY_GAS    48   /* 12 floats */
#define TIPSY_DARK   36   /*  9 floats */
#define TIPSY_STAR   44   /* 11 floats */
#define TIPSY_CHUNK  4096 /* particles per read/write */

typedef struct tipsy_header {
    double  time;
    int64_t nbodies, ndim, nsph, ndark, nstar;   /* decoded int32 */
} tipsy_header;

/* ---- explicit byte order ---------------------------------------------- */

static uint32_t get_u32(const unsigned char *p, int big)
{
    if (big)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void put_u32(unsigned char *p, uint32_t v, int big)
{
    for (int k = 0; k < 4; k++) {
        int shift = big ? 24 - 8 * k : 8 * k;
        p[k] = (unsigned char)(v >> shift);
    }
}

static int32_t get_i32(const unsigned char *p, int big)
{
    uint32_t u = get_u32(p, big);
    int32_t v;
    memcpy(&v, &u, 4);          /* two's complement on every host we target */
    return v;
}

static float get_f32(const unsigned char *p, int big)
{
    uint32_t u = get_u32(p, big);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put_f32(unsigned char *p, float f, int big)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u, big);
}

static double get_f64(const unsigned char *p, int big)
{
    uint64_t hi = get_u32(p + (big ? 0 : 4), big), lo = get_u32(p + (big ? 4 : 0), big);
    uint64_t u = hi << 32 | lo;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void put_f64(unsigned char *p, double d, int big)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_u32(p + (big ? 0 : 4), (uint32_t)(u >> 32), big);
    put_u32(p + (big ? 4 : 0), (uint32_t)u, big);
}

/* ---- header ------------------------------------------------------------ */

static void decode_header(const unsigned char *b, int big, tipsy_header *h)
{
    h->time    = get_f64(b, big);
    h->nbodies = get_i32(b + 8, big);
    h->ndim    = get_i32(b + 12, big);
    h->nsph    = get_i32(b + 16, big);
    h->ndark   = get_i32(b + 20, big);
    h->nstar   = get_i32(b + 24, big);
}

/* Counts that make sense in this byte order (the time is checked apart:
 * a NaN time with good counts is a broken TIPSY file, and says so). */
static int header_plausible(const tipsy_header *h)
{
    return h->nbodies >= 0 && h->nsph >= 0 && h->ndark >= 0 && h->nstar >= 0 &&
           h->nbodies == h->nsph + h->ndark + h->nstar &&
           h->ndim >= 1 && h->ndim <= 3;
}

static int64_t expected_size(const tipsy_header *h)
{
    return TIPSY_HEADER + TIPSY_GAS * h->nsph + TIPSY_DARK * h->ndark + TIPSY_STAR * h->nstar;
}

/* Pick the byte order of a 32-byte header b of a file of 'size' bytes (-1:
 * a stream, size unknown).  Returns 1 (and *h, *big) if it looks like TIPSY,
 * else 0 and, in why, what is wrong with it. */
static int probe_header(const unsigned char *b, int64_t size, tipsy_header *h, int *big,
                        char *why, size_t len)
{
    tipsy_header le, be;
    decode_header(b, 0, &le);
    decode_header(b, 1, &be);
    int ok_le = header_plausible(&le), ok_be = header_plausible(&be);
    if (ok_le && ok_be && size >= 0) {  /* both make sense: trust the file size */
        if (expected_size(&be) == size && expected_size(&le) != size)
            ok_le = 0;
    }
    if (ok_le && ok_be && size < 0 && !isfinite(le.time) && isfinite(be.time))
        ok_le = 0;                      /* a stream: the order whose time is a number */
    if (ok_le || ok_be) {
        *h = ok_le ? le : be;
        *big = !ok_le;
        if (isfinite(h->time)) return 1;
        if (why)
            snprintf(why, len, "the header's counts are right (%s-endian: %lld gas + %lld dark + "
                     "%lld star) but its time is %g, not a number: a damaged header",
                     *big ? "big" : "little", (long long)h->nsph, (long long)h->ndark,
                     (long long)h->nstar, h->time);
        return 0;
    }
    if (why)
        snprintf(why, len, "the header's particle counts make no sense in either byte order "
                 "(little-endian: nbodies %lld, ndim %lld, gas %lld + dark %lld + star %lld; "
                 "big-endian: nbodies %lld, ndim %lld, gas %lld + dark %lld + star %lld; "
                 "TIPSY needs nbodies = gas + dark + star and ndim 1..3)",
                 (long long)le.nbodies, (long long)le.ndim, (long long)le.nsph, (long long)le.ndark,
                 (long long)le.nstar, (long long)be.nbodies, (long long)be.ndim, (long long)be.nsph,
                 (long long)be.ndark, (long long)be.nstar);
    return 0;
}

int nb_tipsy_detect(const nb_src *src, char *why, size_t len)
{
    tipsy_header h;
    int big;
    if (src->head_len < TIPSY_HEADER) {
        if (why) snprintf(why, len, "%zu bytes, shorter than the 32-byte TIPSY header", src->head_len);
        return 0;
    }
    return probe_header(src->head, src->regular ? src->size : -1, &h, &big, why, len);
}

int nb_tipsy_is_tipsy(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    nb_src src;
    if (nb_src_open(&src, path, "TIPSY file"))
        return 0;
    int yes = nb_tipsy_detect(&src, NULL, 0);
    nb_src_close(&src);
    return yes;
}

/* ---- reading ------------------------------------------------------------ */

/* Read 'count' particles of 'rec' bytes each into s starting at body 'first'.
 * Layout shared by all three kinds: mass, pos[3], vel[3] come first. */
static int read_block(nb_src *src, const char *path, int big, int64_t count, int rec,
                      const char *kind, int64_t first, nb_state *s, unsigned char *buf)
{
    for (int64_t done = 0; done < count;) {
        int64_t k = count - done < TIPSY_CHUNK ? count - done : TIPSY_CHUNK;
        size_t want = (size_t)rec * (size_t)k;
        if (nb_src_read(src, buf, want) != want) {
            if (nb_src_error(src))
                return nb_fail(NB_EXIT_RUNTIME, "--ic: error reading '%s': %s", path, strerror(errno));
            return nb_fail(NB_EXIT_USAGE, "%s: TIPSY file shorter than its header says "
                           "(it ends in the %s particles): truncated file", path, kind);
        }
        for (int64_t j = 0; j < k; j++) {
            const unsigned char *p = buf + j * rec;
            int64_t i = first + done + j;
            float v[7];
            for (int c = 0; c < 7; c++)
                v[c] = get_f32(p + 4 * c, big);
            for (int c = 0; c < 7; c++)
                if (!isfinite(v[c]))
                    return nb_fail(NB_EXIT_USAGE, "%s: %s particle %lld has a non-finite %s",
                                   path, kind, (long long)(done + j),
                                   c == 0 ? "mass" : c < 4 ? "position" : "velocity");
            if (v[0] < 0.0f)
                return nb_fail(NB_EXIT_USAGE, "%s: %s particle %lld has negative mass %g",
                               path, kind, (long long)(done + j), (double)v[0]);
            s->m[i] = v[0];
            s->x[i] = v[1];  s->y[i] = v[2];  s->z[i] = v[3];
            s->vx[i] = v[4]; s->vy[i] = v[5]; s->vz[i] = v[6];
        }
        done += k;
    }
    return 0;
}

int nb_tipsy_read_src(nb_src *src, nb_state *s)
{
    memset(s, 0, sizeof *s);
    const char *path = nb_short(src->path);
    int64_t size = src->regular ? src->size : -1;
    tipsy_header h;
    int big;
    char why[400];
    if (src->head_len < TIPSY_HEADER)
        return nb_fail(NB_EXIT_USAGE, "%s: not a TIPSY file: %zu bytes, shorter than "
                       "the 32-byte header", path, src->head_len);
    if (!probe_header(src->head, size, &h, &big, why, sizeof why))
        return nb_fail(NB_EXIT_USAGE, "%s: not a TIPSY file: %s", path, why);
    src->head_pos = TIPSY_HEADER;                  /* the particles follow */
    int rc = 0;
    int64_t want = expected_size(&h);
    if (h.ndim != 3)
        rc = nb_fail(NB_EXIT_USAGE, "%s: TIPSY file has ndim = %lld; only 3-D snapshots "
                     "are supported", path, (long long)h.ndim);
    else if (h.nbodies < 1)
        rc = nb_fail(NB_EXIT_USAGE, "%s: TIPSY file holds no particles", path);
    else if (h.nbodies > NB_MAX_N)
        rc = nb_fail(NB_EXIT_USAGE, "%s: TIPSY file holds %lld particles, more than the "
                     "kit's limit %lld", path, (long long)h.nbodies, (long long)NB_MAX_N);
    else if (size >= 0 && size < want)
        rc = nb_fail(NB_EXIT_USAGE, "%s: truncated TIPSY file: the header says %lld gas + "
                     "%lld dark + %lld star particles (%lld bytes) but the file has %lld bytes",
                     path, (long long)h.nsph, (long long)h.ndark, (long long)h.nstar,
                     (long long)want, (long long)size);
    else if (size > want)
        rc = nb_fail(NB_EXIT_USAGE, "%s: TIPSY header counts do not match the file: "
                     "%lld gas + %lld dark + %lld star particles make %lld bytes but the "
                     "file has %lld (%lld extra)", path, (long long)h.nsph,
                     (long long)h.ndark, (long long)h.nstar, (long long)want,
                     (long long)size, (long long)(size - want));
    if (!rc) {
        char ctx[300];
        snprintf(ctx, sizeof ctx, " reading TIPSY file '%s'", path);
        rc = nb_mem_check(h.nbodies, 7.0 * sizeof(float), 0, ctx, " (the count its header gives)");
    }
    if (rc)
        return rc;
    unsigned char *buf = malloc((size_t)TIPSY_CHUNK * TIPSY_GAS);
    if (!buf)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory reading %s", path);
    rc = nb_state_alloc(s, h.nbodies);
    if (!rc)
        rc = read_block(src, path, big, h.nsph, TIPSY_GAS, "gas", 0, s, buf);
    if (!rc)
        rc = read_block(src, path, big, h.ndark, TIPSY_DARK, "dark", h.nsph, s, buf);
    if (!rc)
        rc = read_block(src, path, big, h.nstar, TIPSY_STAR, "star", h.nsph + h.ndark, s, buf);
    if (!rc && size < 0 && nb_src_getc(src) != EOF)   /* a stream: nothing may follow */
        rc = nb_fail(NB_EXIT_USAGE, "%s: TIPSY header counts do not match the data: more "
                     "bytes follow the %lld gas + %lld dark + %lld star particles (%lld bytes)",
                     path, (long long)h.nsph, (long long)h.ndark, (long long)h.nstar,
                     (long long)want);
    free(buf);
    if (rc)
        nb_state_free(s);
    return rc;
}

int nb_tipsy_read(const char *path, nb_state *s)
{
    memset(s, 0, sizeof *s);
    nb_src src;
    int rc = nb_src_open(&src, path, "TIPSY file");
    if (rc)
        return rc;
    rc = nb_tipsy_read_src(&src, s);
    nb_src_close(&src);
    return rc;
}

/* ---- writing ------------------------------------------------------------ */

int nb_tipsy_write(const char *path, const nb_state *s, int big_endian)
{
    int big = big_endian != 0;
    if (s->n < 1 || s->n > INT32_MAX)
        return nb_fail(NB_EXIT_USAGE, "cannot write %lld bodies to TIPSY file %s",
                       (long long)s->n, path);
    unsigned char *buf = malloc((size_t)TIPSY_CHUNK * TIPSY_DARK);
    if (!buf)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory writing %s", path);
    nb_out o;
    int rc = nb_out_open(&o, "TIPSY file", path);
    if (rc) {
        free(buf);
        return rc;
    }
    unsigned char hdr[TIPSY_HEADER];
    memset(hdr, 0, sizeof hdr);
    put_f64(hdr, 0.0, big);
    put_u32(hdr + 8, (uint32_t)s->n, big);    /* nbodies */
    put_u32(hdr + 12, 3, big);                /* ndim */
    put_u32(hdr + 16, 0, big);                /* nsph */
    put_u32(hdr + 20, (uint32_t)s->n, big);   /* ndark */
    put_u32(hdr + 24, 0, big);                /* nstar; then 4 pad bytes of 0 */
    fwrite(hdr, 1, sizeof hdr, o.f);
    for (int64_t done = 0; nb_out_ok(&o) && done < s->n;) {
        int64_t k = s->n - done < TIPSY_CHUNK ? s->n - done : TIPSY_CHUNK;
        for (int64_t j = 0; j < k; j++) {
            int64_t i = done + j;
            const float v[9] = { s->m[i], s->x[i], s->y[i], s->z[i],
                                 s->vx[i], s->vy[i], s->vz[i], 0.0f, 0.0f };  /* eps, phi */
            for (int c = 0; c < 9; c++)
                put_f32(buf + j * TIPSY_DARK + 4 * c, v[c], big);
        }
        fwrite(buf, TIPSY_DARK, (size_t)k, o.f);
        done += k;
    }
    free(buf);
    nb_out_ok(&o);
    return nb_out_close(&o);
}
