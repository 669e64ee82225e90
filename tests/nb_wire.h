/* nb_wire.h -- the protocol between the grader and a step's worker.
 *
 * The grader (tests/run_<runner>) links no student code.  To run a step's
 * nb_step table it starts the step's worker (tests/work_<runner>, built from
 * the step's library and tests/nb_worker.c) in the sandbox (nb_sandbox.h)
 * and speaks to it over two pipes, the worker's descriptors 3 (requests)
 * and 4 (replies).  Every message is a header and a payload:
 *   request  { magic, op, 0, 0, payload length }  payload
 *   reply    { magic, op, rc, 0, payload length }  payload
 * rc is the step's return code (0 or an NB_EXIT_* code); a reply's payload
 * starts with the step's message (nb_errmsg(), a string) and carries the
 * data of the op after it.  Payloads are built and read with the nb_wbuf
 * functions below: strings, 64-bit integers, doubles, float and double arrays,
 * each read back with its kind checked.  Everything a worker sends is data
 * to check: the grader validates every length against what it asked for and
 * judges the values against its own references. */
#ifndef NB_WIRE_H
#define NB_WIRE_H
#include <stddef.h>
#include <stdint.h>

#define NB_WIRE_MAGIC 0x4e42574bu       /* "NBWK" */
#define NB_WIRE_MAX   (1ull << 33)      /* the largest payload either side accepts: 8 GiB */

enum nb_wire_op {
    NB_OP_HELLO = 1,     /* req: table name              reply: the table's name, options, tree */
    NB_OP_PROBE,         /* req: has options, options    reply: - */
    NB_OP_INIT,          /* req: options, state          reply: - */
    NB_OP_ACCEL,         /* req: -                       reply: ax, ay, az */
    NB_OP_ADVANCE,       /* req: steps, timed            reply: timed records */
    NB_OP_DOWNLOAD,      /* req: -                       reply: state */
    NB_OP_INFO,          /* req: -                       reply: nb_run_info bytes */
    NB_OP_REPORT,        /* req: -                       reply: text */
    NB_OP_CELLS,         /* req: -                       reply: count, cx, cy, cz, half */
    NB_OP_DESTROY,       /* req: -                       reply: -, then the worker exits */
    NB_OP_EXT,           /* req: name, data              reply: data (tests/worker_*.c) */
    NB_OP_STATE64,       /* req: -                       reply: x, y, z, vx, vy, vz (doubles) */
    NB_OP_ACCEL64        /* req: -                       reply: ax, ay, az (doubles) */
};

typedef struct nb_wire_hdr {
    uint32_t magic, op;
    int32_t  rc;
    uint32_t pad;
    uint64_t len;
} nb_wire_hdr;

/* A payload being built or read. */
typedef struct nb_wbuf {
    unsigned char *p;
    size_t len, cap, pos;
    int bad;                   /* a read past the end or of the wrong kind */
} nb_wbuf;

void nb_wbuf_free(nb_wbuf *b);
void nb_wput_str(nb_wbuf *b, const char *s);
void nb_wput_i64(nb_wbuf *b, int64_t v);
void nb_wput_f64(nb_wbuf *b, double v);
void nb_wput_bytes(nb_wbuf *b, const void *p, size_t n);
/* Values built in another buffer, appended as they are. */
void nb_wput_raw(nb_wbuf *b, const void *p, size_t n);
void nb_wput_floats(nb_wbuf *b, const float *v, int64_t n);
void nb_wput_doubles(nb_wbuf *b, const double *v, int64_t n);
void nb_wput_ints(nb_wbuf *b, const int *v, int64_t n);
/* Readers: the value, or 0 / "" / NULL with b->bad set.  A string is
 * NUL-terminated inside the buffer; arrays are copied into out (n
 * elements, which must be what was sent). */
const char *nb_wget_str(nb_wbuf *b);
int64_t nb_wget_i64(nb_wbuf *b);
double  nb_wget_f64(nb_wbuf *b);
int     nb_wget_bytes(nb_wbuf *b, void *out, size_t n);
int     nb_wget_floats(nb_wbuf *b, float *out, int64_t n);
int     nb_wget_doubles(nb_wbuf *b, double *out, int64_t n);
int     nb_wget_ints(nb_wbuf *b, int *out, int64_t n);
/* The element count of the array at the read position (without reading it), -1. */
int64_t nb_wpeek_count(nb_wbuf *b);

/* Send one message (header + payload); 0 or -1 (errno). */
int nb_wire_send(int fd, uint32_t op, int32_t rc, const nb_wbuf *payload);
/* Receive one message into *h and b (b reset); 0, or -1: end of file, a
 * broken header (magic), a payload over max bytes, or a read error. */
int nb_wire_recv(int fd, nb_wire_hdr *h, nb_wbuf *b, uint64_t max);

#endif
