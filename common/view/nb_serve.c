/* nb_serve.c -- the view in a browser (--serve PORT); see nb_serve.h for
 * what it serves, its safety rules and its threads.
 *
 * HTTP is libmicrohttpd's (its internal thread): the page, and the upgrade
 * of GET /ws to a WebSocket (RFC 6455: Sec-WebSocket-Accept is the base64
 * of the SHA-1 of the key and a fixed GUID, nettle's).  The upgraded socket
 * goes to the hub thread, where wslay frames the messages on it.
 *
 * The hub: poll() on a wake pipe and every viewer's socket.  The view's
 * thread fills one of two slots (a frame, a screenshot) and writes to the
 * pipe; the hub encodes the frame as JPEG (libjpeg-turbo), keeps it as the
 * newest, and queues it -- the status line, then the picture -- to every
 * viewer whose last one has gone out; a shot is encoded as PNG for the one
 * viewer who asked.  Controls from a viewer are checked against the page's
 * own (anything else closes that viewer) and queued for the view. */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <turbojpeg.h>
#include <wslay/wslay.h>
#include "nb_error.h"
#include "nb_render.h"
#include "nb_serve.h"
#include "nb_timer.h"

extern const char nb_serve_page[];           /* nb_serve_page.c, from nb_serve.html */

#define NB_EVENTS_MAX   256                  /* controls waiting for the view */
#define NB_EVENT_LEN    48
#define NB_CONTROL_MAX  64                   /* the longest control message accepted */
#define NB_SERVE_SNDBUF (256 * 1024)        /* a viewer socket's send buffer, bytes */

typedef struct slot {
    unsigned char *rgb;
    size_t cap;
    int    w, h, full, viewer;              /* full: handed over, the hub has not freed it */
    char   status[1024], name[128];
} slot;

typedef struct viewer {
    struct viewer *next;
    int            id, fd, inflight, bad;
    struct MHD_UpgradeResponseHandle *urh;
    wslay_event_context_ptr ws;
    unsigned char *extra;                   /* bytes MHD read past the request */
    size_t         extra_len, extra_off;
    int            pending;                 /* a newer frame waits for the one in flight */
    int64_t        frames, dropped;
    double         t_open, t_close;
    nb_serve      *s;
} viewer;

struct nb_serve {
    char           prog[64], token[33], addr[64];
    int            port, listen_fd, wake[2];
    struct MHD_Daemon *mhd;
    pthread_t      hub;
    int            hub_up;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* shared: under mu */
    int            stop, fresh, connected, next_id;
    viewer        *incoming;                /* from libmicrohttpd's thread */
    slot           slots[2];
    char           events[NB_EVENTS_MAX][NB_EVENT_LEN];
    int            ev_viewer[NB_EVENTS_MAX], ev_head, ev_n;
    int64_t        frames_dropped_busy, events_dropped;
    char           end_why[160];
    /* the hub's own */
    viewer        *viewers, *gone;
    tjhandle       tj;
    unsigned char *jpeg;
    unsigned long  jpeg_len, jpeg_cap;
    char           jpeg_status[1200];
    uint64_t       seq;
    int64_t        encoded, shots, viewers_total, viewers_max, refused;
    double         encode_ms, t_first;
};

int nb_serve_usable(void) { return 0; }

static void wake(nb_serve *s)
{
    char c = 1;
    ssize_t r = write(s->wake[1], &c, 1);
    (void)r;                                 /* a full pipe is already a wake-up */
}

/* ---- the token ------------------------------------------------------------- */

static int make_token(char *hex)
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got < sizeof b) {
        FILE *f = fopen("/dev/urandom", "rb");
        got = f ? fread(b, 1, sizeof b, f) : 0;
        if (f) fclose(f);
        if (got < sizeof b)
            return nb_fail(NB_EXIT_RUNTIME, "--serve: no random bytes for the token (getrandom and "
                           "/dev/urandom failed)");
    }
    for (int k = 0; k < 16; k++)
        snprintf(hex + 2 * k, 3, "%02x", b[k]);
    return 0;
}

/* The token given equals ours, in a time that does not depend on where
 * they differ. */
static int token_ok(const nb_serve *s, const char *t)
{
    if (!t || strlen(t) != 32)
        return 0;
    unsigned d = 0;
    for (int k = 0; k < 32; k++)
        d |= (unsigned)(t[k] ^ s->token[k]);
    return d == 0;
}

/* ---- controls ------------------------------------------------------------------ */

/* A control of the page: a key it has, or drag:DX:DY, wheel:N with small
 * integers.  Anything else is not from the page. */
static int control_ok(const char *m, size_t len)
{
    static const char *keys[] = { "space", ".", "t", "[", "]", "c", "s", "r", "q", "esc", "left",
                                  "right", "up", "down", "+", "-", NULL };
    char buf[NB_CONTROL_MAX + 1], tail;
    int a, b;
    if (len == 0 || len > NB_CONTROL_MAX)
        return 0;
    memcpy(buf, m, len);
    buf[len] = '\0';
    for (size_t k = 0; k < len; k++)
        if (buf[k] < 0x21 || buf[k] > 0x7e)
            return 0;
    for (int k = 0; keys[k]; k++)
        if (!strcmp(buf, keys[k]))
            return 1;
    if (sscanf(buf, "drag:%d:%d%c", &a, &b, &tail) == 2)
        return a >= -10000 && a <= 10000 && b >= -10000 && b <= 10000;
    if (sscanf(buf, "wheel:%d%c", &a, &tail) == 1)
        return a >= -100 && a <= 100 && a != 0;
    return 0;
}

static void push_event(nb_serve *s, const char *m, size_t len, int viewer)
{
    pthread_mutex_lock(&s->mu);
    if (s->ev_n == NB_EVENTS_MAX) {
        s->events_dropped++;
    } else {
        int k = (s->ev_head + s->ev_n) % NB_EVENTS_MAX;
        snprintf(s->events[k], NB_EVENT_LEN, "%.*s", (int)len, m);
        s->ev_viewer[k] = viewer;
        s->ev_n++;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- wslay's I/O on a viewer's non-blocking socket ---------------------------------- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *user)
{
    (void)flags;
    viewer *v = user;
    if (v->extra_off < v->extra_len) {       /* what MHD had read already comes first */
        size_t n = v->extra_len - v->extra_off < len ? v->extra_len - v->extra_off : len;
        memcpy(buf, v->extra + v->extra_off, n);
        v->extra_off += n;
        return (ssize_t)n;
    }
    ssize_t r;
    while ((r = recv(v->fd, buf, len, 0)) < 0 && errno == EINTR) {}
    if (r < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK ? WSLAY_ERR_WOULDBLOCK
                                                                           : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    if (r == 0) {                            /* the viewer went away */
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return r;
}

static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    (void)flags;
    viewer *v = user;
    ssize_t r;
    while ((r = send(v->fd, data, len, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    if (r < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK ? WSLAY_ERR_WOULDBLOCK
                                                                           : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return r;
}

static void ws_message(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a,
                       void *user)
{
    viewer *v = user;
    if (a->opcode != WSLAY_TEXT_FRAME)
        return;                              /* pings are answered by wslay; close is seen later */
    if (!control_ok((const char *)a->msg, a->msg_length)) {
        v->bad = 1;                          /* not the page: close it */
        wslay_event_queue_close(ctx, 1008, (const uint8_t *)"not a control of the page", 25);
        return;
    }
    push_event(v->s, (const char *)a->msg, a->msg_length, v->id);
}

/* ---- HTTP ------------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type,
                             const char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");     /* the token stays here */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "img-src blob:; connect-src 'self'; frame-ancestors 'none'");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    enum MHD_Result ok = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned code, const char *why)
{
    return reply(c, code, "text/plain; charset=utf-8", why, strlen(why), MHD_RESPMEM_PERSISTENT);
}

/* A comma-separated header value holds word (case-insensitive). */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',' || *p == '\t') p++;
        size_t l = strcspn(p, ",");
        while (l > 0 && (p[l - 1] == ' ' || p[l - 1] == '\t')) l--;
        if (l == n && !strncasecmp(p, word, n))
            return 1;
        p += strcspn(p, ",");
    }
    return 0;
}

static void on_upgraded(void *cls, struct MHD_Connection *c, void *con_cls, const char *extra,
                        size_t extra_len, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    (void)c; (void)con_cls;
    nb_serve *s = cls;
    viewer *v = calloc(1, sizeof *v);
    if (v && extra_len) {
        v->extra = malloc(extra_len);
        if (v->extra) { memcpy(v->extra, extra, extra_len); v->extra_len = extra_len; }
    }
    if (!v || (extra_len && !v->extra)) {
        if (v) free(v);
        MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
        return;
    }
    v->fd = sock;
    v->urh = urh;
    v->s = s;
    fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
    /* a small send buffer: a slow viewer holds a frame or so, not seconds of them */
    int sndbuf = NB_SERVE_SNDBUF;
    setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    pthread_mutex_lock(&s->mu);
    v->id = ++s->next_id;
    v->next = s->incoming;
    s->incoming = v;
    s->connected++;
    s->fresh = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    wake(s);
}

static enum MHD_Result websocket(nb_serve *s, struct MHD_Connection *c)
{
    const char *up = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Upgrade");
    const char *conn = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Connection");
    const char *ver = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Version");
    const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Key");
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!up || !has_word(up, "websocket") || !conn || !has_word(conn, "upgrade") || !ver ||
        strcmp(ver, "13") || !key || strlen(key) != 24)
        return refuse(c, MHD_HTTP_BAD_REQUEST, "400 bad request: /ws is the page's WebSocket\n");
    /* a page of another site may not open it (the token aside) */
    if (origin && (!host || strncmp(origin, "http://", 7) || strcmp(origin + 7, host)))
        return refuse(c, MHD_HTTP_FORBIDDEN, "403 forbidden: another site's page\n");
    pthread_mutex_lock(&s->mu);
    int full = s->connected >= NB_SERVE_MAX_VIEWERS || s->stop;
    if (full) s->refused++;
    pthread_mutex_unlock(&s->mu);
    if (full)
        return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, "503: too many viewers of this run\n");
    /* Sec-WebSocket-Accept: base64(SHA-1(key GUID)) */
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    struct sha1_ctx h;
    uint8_t dig[SHA1_DIGEST_SIZE];
    char acc[BASE64_ENCODE_RAW_LENGTH(SHA1_DIGEST_SIZE) + 1];
    sha1_init(&h);
    sha1_update(&h, 24, (const uint8_t *)key);
    sha1_update(&h, sizeof guid - 1, (const uint8_t *)guid);
    sha1_digest(&h, sizeof dig, dig);
    base64_encode_raw((char *)acc, sizeof dig, dig);
    acc[sizeof acc - 1] = '\0';
    struct MHD_Response *r = MHD_create_response_for_upgrade(on_upgraded, s);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Upgrade", "websocket");
    MHD_add_response_header(r, "Sec-WebSocket-Accept", acc);
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_SWITCHING_PROTOCOLS, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    (void)version; (void)upload; (void)upload_len; (void)con_cls;
    nb_serve *s = cls;
    if (!token_ok(s, MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token")))
        return refuse(c, MHD_HTTP_FORBIDDEN, "403 forbidden: open the URL with the token that "
                      "the program printed when it started\n");
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "405: only GET\n");
    if (!strcmp(url, "/"))
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", nb_serve_page, strlen(nb_serve_page),
                     MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/ws"))
        return websocket(s, c);
    return refuse(c, MHD_HTTP_NOT_FOUND, "404: this server has one page, /\n");
}

/* ---- the hub ----------------------------------------------------------------------- */

static void queue(viewer *v, uint8_t opcode, const void *p, size_t n)
{
    struct wslay_event_msg m = { opcode, p, n };
    if (wslay_event_queue_msg(v->ws, &m) != 0)
        v->bad = 1;
}

/* The newest frame to v; while v still sends its last one, the newest waits
 * (pending), and a frame that was pending when a newer one came is skipped. */
static void offer(nb_serve *s, viewer *v)
{
    if (!v->ws || v->bad || !s->jpeg_len || wslay_event_get_close_sent(v->ws) ||
        wslay_event_get_close_received(v->ws))
        return;
    if (v->inflight) {
        v->dropped += v->pending;
        v->pending = 1;
        return;
    }
    v->pending = 0;
    queue(v, WSLAY_TEXT_FRAME, s->jpeg_status, strlen(s->jpeg_status));
    queue(v, WSLAY_BINARY_FRAME, s->jpeg, s->jpeg_len);
    v->inflight = 1;
}

static void viewer_open(nb_serve *s, viewer *v)
{
    struct wslay_event_callbacks cb = { ws_recv, ws_send, NULL, NULL, NULL, NULL, ws_message };
    if (wslay_event_context_server_init(&v->ws, &cb, v) != 0) {
        v->ws = NULL;
        v->bad = 1;
        return;
    }
    wslay_event_config_set_max_recv_msg_length(v->ws, NB_CONTROL_MAX);
    v->t_open = nb_now_ms();
    v->next = s->viewers;
    s->viewers = v;
    s->viewers_total++;
    int64_t now = 0;
    for (viewer *w = s->viewers; w; w = w->next) now++;
    if (now > s->viewers_max) s->viewers_max = now;
    /* no frame yet: the newest may be old (nothing is drawn while no one
     * watches); the view draws one for it at its next turn */
}

/* v leaves the list (kept in 'gone' for the report); the socket goes back to MHD. */
static void viewer_close(nb_serve *s, viewer *v)
{
    viewer **p = &s->viewers;
    while (*p && *p != v) p = &(*p)->next;
    if (*p) *p = v->next;
    if (v->ws) wslay_event_context_free(v->ws);
    v->ws = NULL;
    v->dropped += v->pending;
    MHD_upgrade_action(v->urh, MHD_UPGRADE_ACTION_CLOSE);
    v->t_close = nb_now_ms();
    free(v->extra);
    v->extra = NULL;
    v->next = s->gone;
    s->gone = v;
    pthread_mutex_lock(&s->mu);
    s->connected--;
    pthread_mutex_unlock(&s->mu);
}

static int encode_frame(nb_serve *s, slot *f)
{
    unsigned long cap = tjBufSize(f->w, f->h, TJSAMP_444);
    if (cap > s->jpeg_cap) {
        tjFree(s->jpeg);
        s->jpeg = tjAlloc((int)cap);
        s->jpeg_cap = s->jpeg ? cap : 0;
        if (!s->jpeg) return -1;
    }
    unsigned long len = s->jpeg_cap;
    double t0 = nb_now_ms();
    if (tjCompress2(s->tj, f->rgb, f->w, 0, f->h, TJPF_RGB, &s->jpeg, &len, TJSAMP_444,
                    NB_SERVE_JPEG_QUALITY, TJFLAG_NOREALLOC | TJFLAG_FASTDCT) != 0)
        return -1;
    s->encode_ms += nb_now_ms() - t0;
    s->jpeg_len = len;
    s->seq++;
    s->encoded++;
    pthread_mutex_lock(&s->mu);
    int connected = s->connected;
    pthread_mutex_unlock(&s->mu);
    /* the status, with the frame's number and the viewers in front */
    snprintf(s->jpeg_status, sizeof s->jpeg_status, "{\"frame\":%llu,\"viewers\":%d,%s",
             (unsigned long long)s->seq, connected, f->status[0] == '{' ? f->status + 1 : "}");
    return 0;
}

static void send_shot(nb_serve *s, slot *f)
{
    viewer *v = s->viewers;
    while (v && v->id != f->viewer) v = v->next;
    if (!v || v->bad || !v->ws)
        return;
    unsigned char *png = NULL;
    size_t len = 0;
    char head[256];
    if (nb_png_encode(f->rgb, f->w, f->h, &png, &len)) {
        snprintf(head, sizeof head, "{\"type\":\"error\",\"why\":\"out of memory for the screenshot\"}");
        queue(v, WSLAY_TEXT_FRAME, head, strlen(head));
        return;
    }
    snprintf(head, sizeof head, "{\"type\":\"shot\",\"name\":\"%s\",\"bytes\":%zu}", f->name, len);
    queue(v, WSLAY_TEXT_FRAME, head, strlen(head));
    queue(v, WSLAY_BINARY_FRAME, png, len);
    free(png);
    s->shots++;
}

static void *hub(void *arg)
{
    nb_serve *s = arg;
    struct pollfd pf[2 * NB_SERVE_MAX_VIEWERS + 2];
    viewer *who[2 * NB_SERVE_MAX_VIEWERS + 2];
    for (;;) {
        int n = 0;
        pf[n++] = (struct pollfd){ s->wake[0], POLLIN, 0 };
        for (viewer *v = s->viewers; v && n < 2 * NB_SERVE_MAX_VIEWERS + 2; v = v->next) {
            who[n] = v;
            pf[n++] = (struct pollfd){ v->fd, (short)(POLLIN | (wslay_event_want_write(v->ws) ? POLLOUT : 0)), 0 };
        }
        if (poll(pf, (nfds_t)n, 500) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN) {
            char buf[64];
            while (read(s->wake[0], buf, sizeof buf) > 0) {}
        }
        /* what the other threads handed over */
        pthread_mutex_lock(&s->mu);
        viewer *in = s->incoming;
        s->incoming = NULL;
        int stop = s->stop;
        slot *fr = s->slots[NB_SERVE_FRAME].full ? &s->slots[NB_SERVE_FRAME] : NULL;
        slot *sh = s->slots[NB_SERVE_SHOT].full ? &s->slots[NB_SERVE_SHOT] : NULL;
        pthread_mutex_unlock(&s->mu);
        while (in) {
            viewer *next = in->next;
            viewer_open(s, in);
            if (in->bad) {
                in->next = s->viewers;             /* closed below, with the others */
                s->viewers = in;
            }
            in = next;
        }
        /* slots: the view does not touch a full one */
        if (fr) {
            if (encode_frame(s, fr) == 0)
                for (viewer *v = s->viewers; v; v = v->next) offer(s, v);
            pthread_mutex_lock(&s->mu);
            fr->full = 0;
            pthread_mutex_unlock(&s->mu);
        }
        if (sh) {
            send_shot(s, sh);
            pthread_mutex_lock(&s->mu);
            sh->full = 0;
            pthread_mutex_unlock(&s->mu);
        }
        /* the sockets */
        for (int k = 1; k < n; k++) {
            viewer *v = who[k];
            if (!v->ws) continue;
            if ((pf[k].revents & (POLLIN | POLLHUP | POLLERR)) && wslay_event_recv(v->ws) != 0)
                v->bad = 1;
        }
        for (viewer *v = s->viewers; v; v = v->next) {
            if (!v->ws) continue;
            if (v->extra_off < v->extra_len && wslay_event_recv(v->ws) != 0) v->bad = 1;
            if (!v->bad && wslay_event_want_write(v->ws) && wslay_event_send(v->ws) != 0) v->bad = 1;
            if (v->inflight && wslay_event_get_queued_msg_count(v->ws) == 0) {
                v->inflight = 0;
                v->frames++;
                if (v->pending) offer(s, v);
                if (wslay_event_want_write(v->ws) && wslay_event_send(v->ws) != 0) v->bad = 1;
            }
        }
        for (viewer *v = s->viewers, *next; v; v = next) {
            next = v->next;
            if (v->bad || !v->ws || (!wslay_event_want_read(v->ws) && !wslay_event_want_write(v->ws)))
                viewer_close(s, v);
        }
        if (stop)
            break;
    }
    /* the end: each viewer is told why (wslay sends a close frame before
     * queued messages, so the close is queued once the text has gone), then
     * closed; a second's grace for each part */
    char end[256];
    snprintf(end, sizeof end, "{\"type\":\"end\",\"why\":\"%s\"}", s->end_why);
    for (viewer *v = s->viewers; v; v = v->next)
        if (v->ws) queue(v, WSLAY_TEXT_FRAME, end, strlen(end));
    for (int phase = 0; phase < 2; phase++) {
        double t_end = nb_now_ms() + 1000.0;
        int busy = 1;
        while (busy && nb_now_ms() < t_end) {
            busy = 0;
            for (viewer *v = s->viewers; v; v = v->next) {
                if (!v->ws || v->bad) continue;
                if (wslay_event_want_write(v->ws) && wslay_event_send(v->ws) != 0) v->bad = 1;
                else busy |= wslay_event_want_write(v->ws);
            }
            if (busy) poll(NULL, 0, 5);
        }
        for (viewer *v = s->viewers; v && phase == 0; v = v->next)
            if (v->ws && !v->bad)
                wslay_event_queue_close(v->ws, 1001, (const uint8_t *)"the run has ended", 17);
    }
    while (s->viewers)
        viewer_close(s, s->viewers);
    return NULL;
}

/* ---- the view's side ----------------------------------------------------------------- */

int nb_serve_event(nb_serve *s, char *buf, size_t len, int *viewer)
{
    int got = 0;
    pthread_mutex_lock(&s->mu);
    if (s->ev_n) {
        snprintf(buf, len, "%s", s->events[s->ev_head]);
        *viewer = s->ev_viewer[s->ev_head];
        s->ev_head = (s->ev_head + 1) % NB_EVENTS_MAX;
        s->ev_n--;
        got = 1;
    }
    pthread_mutex_unlock(&s->mu);
    return got;
}

void nb_serve_wait(nb_serve *s, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&s->mu);
    if (!s->ev_n && !s->fresh)
        pthread_cond_timedwait(&s->cv, &s->mu, &until);
    pthread_mutex_unlock(&s->mu);
}

int nb_serve_viewers(nb_serve *s, int *fresh)
{
    pthread_mutex_lock(&s->mu);
    int n = s->connected;
    if (fresh) *fresh = s->fresh;
    s->fresh = 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}

unsigned char *nb_serve_slot(nb_serve *s, int kind, int w, int h)
{
    slot *f = &s->slots[kind];
    pthread_mutex_lock(&s->mu);
    int busy = f->full;
    if (busy && kind == NB_SERVE_FRAME) s->frames_dropped_busy++;
    pthread_mutex_unlock(&s->mu);
    if (busy)
        return NULL;
    size_t need = (size_t)w * h * 3;
    if (need > f->cap) {
        unsigned char *p = realloc(f->rgb, need);
        if (!p) return NULL;
        f->rgb = p;
        f->cap = need;
    }
    f->w = w;
    f->h = h;
    return f->rgb;
}

void nb_serve_submit(nb_serve *s, int kind, const char *status, const char *name, int viewer)
{
    slot *f = &s->slots[kind];
    snprintf(f->status, sizeof f->status, "%s", status ? status : "{}");
    snprintf(f->name, sizeof f->name, "%s", name ? name : "");
    f->viewer = viewer;
    pthread_mutex_lock(&s->mu);
    if (s->t_first == 0) s->t_first = nb_now_ms();
    f->full = 1;
    pthread_mutex_unlock(&s->mu);
    wake(s);
}

/* ---- open, close ---------------------------------------------------------------------- */

/* A socket listening on addr:port; its port into *bound. */
static int listen_on(const char *addr, int port, int *fd_out, int *bound)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
    } else {
        return nb_fail(NB_EXIT_USAGE, "--serve-addr: '%.60s' is not an IPv4 or IPv6 address", addr);
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0)
        return nb_fail(NB_EXIT_RUNTIME, "--serve: no socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 16) != 0) {
        int e = errno;
        close(fd);
        return nb_fail(NB_EXIT_USAGE, "--serve: cannot listen on %s port %d: %s%s", addr, port, strerror(e),
                       e == EADDRINUSE ? " (choose another port, or 0 for any free one)" : "");
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *bound = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
    *fd_out = fd;
    return 0;
}

static int is_loopback(const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

static void quiet(void *cls, const char *fmt, va_list ap) { (void)cls; (void)fmt; (void)ap; }

int nb_serve_open(nb_serve **out, const char *addr, int port, const char *prog)
{
    *out = NULL;
    nb_serve *s = calloc(1, sizeof *s);
    if (!s)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory for --serve");
    s->listen_fd = s->wake[0] = s->wake[1] = -1;
    snprintf(s->prog, sizeof s->prog, "%s", prog);
    snprintf(s->addr, sizeof s->addr, "%s", addr);
    snprintf(s->end_why, sizeof s->end_why, "the run has ended");
    int rc = make_token(s->token);
    if (!rc) rc = listen_on(addr, port, &s->listen_fd, &s->port);
    if (rc) {
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0 || !(s->tj = tjInitCompress())) {
        nb_serve_close(s, NULL, NULL, 0);
        return nb_fail(NB_EXIT_RUNTIME, "--serve: cannot start (no pipe or no JPEG encoder)");
    }
    s->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_UPGRADE |
                              (strchr(addr, ':') ? MHD_USE_IPv6 : 0),
                              (uint16_t)s->port, NULL, NULL, on_request, s,
                              MHD_OPTION_EXTERNAL_LOGGER, quiet, NULL,
                              MHD_OPTION_LISTEN_SOCKET, s->listen_fd,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)32,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                              MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
                              MHD_OPTION_END);
    if (!s->mhd) {
        nb_serve_close(s, NULL, NULL, 0);
        return nb_fail(NB_EXIT_RUNTIME, "--serve: libmicrohttpd did not start on %s port %d", addr, port);
    }
    s->listen_fd = -1;                        /* MHD's now: it closes it */
    if (pthread_create(&s->hub, NULL, hub, s) != 0) {
        nb_serve_close(s, NULL, NULL, 0);
        return nb_fail(NB_EXIT_RUNTIME, "--serve: cannot start its thread");
    }
    s->hub_up = 1;
    char host[80];
    snprintf(host, sizeof host, strchr(addr, ':') ? "[%s]" : "%s", addr);
    if (!is_loopback(addr))
        fprintf(stderr, "%s: warning: --serve-addr %s is not a loopback address: anyone who can reach "
                "it and has the URL below can watch and control this run\n", prog, addr);
    fprintf(stderr, "%s: serving the view on http://%s:%d/?token=%s\n", prog, host, s->port,
            s->token);
    fprintf(stderr, "%s:   from your own machine: ssh -L %d:localhost:%d THIS_SERVER, then open "
            "http://localhost:%d/?token=%s\n", prog, s->port, s->port, s->port, s->token);
    *out = s;
    return 0;
}

void nb_serve_close(nb_serve *s, const char *why, char *report, size_t len)
{
    if (!s)
        return;
    if (s->hub_up) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        if (why) snprintf(s->end_why, sizeof s->end_why, "%s", why);
        pthread_mutex_unlock(&s->mu);
        wake(s);
        pthread_join(s->hub, NULL);
    }
    if (s->mhd) MHD_stop_daemon(s->mhd);      /* after the upgraded sockets went back to it */
    if (s->listen_fd >= 0) close(s->listen_fd);
    if (report && len) {
        double now = nb_now_ms();
        snprintf(report, len, "  serve: port %d, %lld viewer%s in all (at most %lld at once, %lld "
                 "refused); %lld frames encoded (JPEG, quality %d, %.2f ms each), %lld frames "
                 "dropped while the encoder was busy, %lld screenshots sent\n", s->port,
                 (long long)s->viewers_total, s->viewers_total == 1 ? "" : "s",
                 (long long)s->viewers_max, (long long)s->refused, (long long)s->encoded,
                 NB_SERVE_JPEG_QUALITY, s->encoded ? s->encode_ms / s->encoded : 0.0,
                 (long long)s->frames_dropped_busy, (long long)s->shots);
        int k = 0;
        for (viewer *v = s->gone; v && k < NB_SERVE_MAX_VIEWERS; v = v->next, k++) {
            size_t at = strlen(report);
            double secs = ((v->t_close > 0 ? v->t_close : now) - v->t_open) * 1e-3;
            snprintf(report + at, len - at, "    viewer %d: %lld frames in %.1f s (%.1f frames/s), "
                     "%lld skipped while it was still receiving\n", v->id, (long long)v->frames,
                     secs, secs > 0 ? v->frames / secs : 0.0, (long long)v->dropped);
        }
    }
    while (s->gone) {
        viewer *v = s->gone;
        s->gone = v->next;
        free(v);
    }
    for (int k = 0; k < 2; k++) free(s->slots[k].rgb);
    if (s->tj) tjDestroy(s->tj);
    tjFree(s->jpeg);
    if (s->wake[0] >= 0) { close(s->wake[0]); close(s->wake[1]); }
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
