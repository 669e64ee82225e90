/* nb_wire.c -- the grader-worker protocol (see nb_wire.h).  Each value in a
 * payload is one kind byte and its bytes: 's' a string (8-byte length,
 * bytes, NUL), 'i' an int64, 'd' a double, 'b' raw bytes (8-byte length),
 * 'f' floats, 'g' doubles and 'n' ints (8-byte count, elements). */
#include "nb_wire.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void nb_wbuf_free(nb_wbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void put(nb_wbuf *b, const void *p, size_t n)
{
    if (b->bad) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) { b->bad = 1; return; }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void put_kind(nb_wbuf *b, char kind, uint64_t count)
{
    put(b, &kind, 1);
    if (kind != 'i' && kind != 'd') put(b, &count, sizeof count);
}

void nb_wput_str(nb_wbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_kind(b, 's', n);
    put(b, s ? s : "", n);
    put(b, "", 1);
}

void nb_wput_i64(nb_wbuf *b, int64_t v) { put_kind(b, 'i', 0); put(b, &v, sizeof v); }
void nb_wput_f64(nb_wbuf *b, double v) { put_kind(b, 'd', 0); put(b, &v, sizeof v); }

void nb_wput_bytes(nb_wbuf *b, const void *p, size_t n)
{
    put_kind(b, 'b', n);
    put(b, p, n);
}

void nb_wput_raw(nb_wbuf *b, const void *p, size_t n) { put(b, p, n); }

void nb_wput_floats(nb_wbuf *b, const float *v, int64_t n)
{
    put_kind(b, 'f', (uint64_t)n);
    put(b, v, (size_t)n * sizeof *v);
}

void nb_wput_doubles(nb_wbuf *b, const double *v, int64_t n)
{
    put_kind(b, 'g', (uint64_t)n);
    put(b, v, (size_t)n * sizeof *v);
}

void nb_wput_ints(nb_wbuf *b, const int *v, int64_t n)
{
    put_kind(b, 'n', (uint64_t)n);
    put(b, v, (size_t)n * sizeof *v);
}

/* The next value must be of this kind: its count (or 0), advancing past the
 * kind and the count; -1 with b->bad set if not. */
static int64_t take_kind(nb_wbuf *b, char kind)
{
    if (b->bad || b->pos + 1 > b->len || b->p[b->pos] != (unsigned char)kind) { b->bad = 1; return -1; }
    b->pos++;
    if (kind == 'i' || kind == 'd') return 0;
    uint64_t count;
    if (b->pos + sizeof count > b->len) { b->bad = 1; return -1; }
    memcpy(&count, b->p + b->pos, sizeof count);
    b->pos += sizeof count;
    if (count > NB_WIRE_MAX) { b->bad = 1; return -1; }
    return (int64_t)count;
}

static int take(nb_wbuf *b, void *out, size_t n)
{
    if (b->bad || b->pos + n > b->len || b->pos + n < b->pos) { b->bad = 1; return -1; }
    if (out) memcpy(out, b->p + b->pos, n);
    b->pos += n;
    return 0;
}

const char *nb_wget_str(nb_wbuf *b)
{
    int64_t n = take_kind(b, 's');
    if (n < 0) return "";
    const char *s = (const char *)b->p + b->pos;
    if (take(b, NULL, (size_t)n + 1) || s[n] != '\0' || memchr(s, '\0', (size_t)n)) {
        b->bad = 1;
        return "";
    }
    return s;
}

int64_t nb_wget_i64(nb_wbuf *b)
{
    int64_t v = 0;
    if (take_kind(b, 'i') < 0 || take(b, &v, sizeof v)) return 0;
    return v;
}

double nb_wget_f64(nb_wbuf *b)
{
    double v = 0;
    if (take_kind(b, 'd') < 0 || take(b, &v, sizeof v)) return 0;
    return v;
}

static int get_array(nb_wbuf *b, char kind, void *out, int64_t n, size_t size)
{
    int64_t count = take_kind(b, kind);
    if (count < 0) return -1;
    if (count != n) { b->bad = 1; return -1; }
    return take(b, out, (size_t)n * size);
}

int nb_wget_bytes(nb_wbuf *b, void *out, size_t n) { return get_array(b, 'b', out, (int64_t)n, 1); }
int nb_wget_floats(nb_wbuf *b, float *out, int64_t n) { return get_array(b, 'f', out, n, sizeof *out); }
int nb_wget_doubles(nb_wbuf *b, double *out, int64_t n) { return get_array(b, 'g', out, n, sizeof *out); }
int nb_wget_ints(nb_wbuf *b, int *out, int64_t n) { return get_array(b, 'n', out, n, sizeof *out); }

int64_t nb_wpeek_count(nb_wbuf *b)
{
    size_t pos = b->pos;
    int bad = b->bad;
    int64_t n = -1;
    if (b->pos < b->len) n = take_kind(b, (char)b->p[b->pos]);
    b->pos = pos;
    b->bad = bad;
    return n;
}

static int write_all(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    unsigned char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n > (1u << 30) ? (1u << 30) : n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int nb_wire_send(int fd, uint32_t op, int32_t rc, const nb_wbuf *payload)
{
    if (payload && payload->bad) { errno = ENOMEM; return -1; }
    nb_wire_hdr h = { NB_WIRE_MAGIC, op, rc, 0, payload ? payload->len : 0 };
    if (write_all(fd, &h, sizeof h)) return -1;
    return payload && payload->len ? write_all(fd, payload->p, payload->len) : 0;
}

int nb_wire_recv(int fd, nb_wire_hdr *h, nb_wbuf *b, uint64_t max)
{
    b->len = b->pos = 0;
    b->bad = 0;
    if (read_all(fd, h, sizeof *h) || h->magic != NB_WIRE_MAGIC || h->len > max) return -1;
    if (h->len > b->cap) {
        unsigned char *q = realloc(b->p, (size_t)h->len);
        if (!q) return -1;
        b->p = q;
        b->cap = (size_t)h->len;
    }
    if (h->len && read_all(fd, b->p, (size_t)h->len)) return -1;
    b->len = (size_t)h->len;
    return 0;
}
