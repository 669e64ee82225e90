/* nb_frames.c -- the frame writer thread and its bounded queue (nb_frames.h).
 *
 * A ring of 'depth' slots: slots [head, head + queued) wait for the writer,
 * the one at head + queued is the next to fill.  The run thread only ever
 * takes a slot that no one else uses and never waits: with every slot
 * queued it drops the frame.  The writer takes the slot at head, encodes it
 * outside the lock, then frees it.  The first write error stops the writer;
 * the run sees it at close (and its later frames are not taken). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_frames.h"
#include "nb_render.h"
#include "nb_timer.h"

struct nb_frames {
    char           *dir;
    int             w, h, depth;
    unsigned char **slot;
    int            *number;        /* file number of each queued slot */
    int             head, queued;  /* ring: queued slots from head */
    int             filling;       /* 1 between nb_frames_slot and nb_frames_submit */
    int             next_number;
    int             stop, failed;
    int             hold;          /* 1: the writer takes no frame (nb_frames_hold) */
    int64_t         written, dropped;
    double          busy_ms;       /* the writer's time in nb_png_write */
    char            why[1200];
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    pthread_t       thread;
};

static void *writer(void *arg)
{
    nb_frames *f = arg;
    size_t plen = strlen(f->dir) + 32;
    char *path = malloc(plen);
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while ((!f->queued || f->hold) && !f->stop)
            pthread_cond_wait(&f->cv, &f->mu);
        if (!f->queued)
            break;                           /* stopped and drained */
        int k = f->head, number = f->number[k];
        pthread_mutex_unlock(&f->mu);
        char why[1200];
        int rc = 0;
        double took = 0.0;
        if (!path) {
            snprintf(why, sizeof why, "out of memory for a frame's file name");
            rc = 1;
        } else {
            snprintf(path, plen, "%s/frame_%06d.png", f->dir, number);
            took = nb_now_ms();
            rc = nb_png_write(path, f->slot[k], f->w, f->h, why, sizeof why);
            took = nb_now_ms() - took;
        }
        pthread_mutex_lock(&f->mu);
        f->busy_ms += took;
        f->head = (f->head + 1) % f->depth;
        f->queued--;
        if (rc && !f->failed) {
            f->failed = 1;
            snprintf(f->why, sizeof f->why, "%s", why);
        }
        if (!rc)
            f->written++;
        if (f->failed) {                     /* nothing more is written */
            f->head = (f->head + f->queued) % f->depth;
            f->queued = 0;
        }
    }
    pthread_mutex_unlock(&f->mu);
    free(path);
    return NULL;
}

int nb_frames_open(nb_frames **out, const char *dir, int w, int h)
{
    *out = NULL;
    nb_frames *f = calloc(1, sizeof *f);
    if (!f)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory for the frame writer");
    double bytes = 3.0 * w * h;
    f->depth = NB_FRAMES_BYTES / bytes >= 64 ? 64 : NB_FRAMES_BYTES / bytes >= 2 ? (int)(NB_FRAMES_BYTES / bytes) : 2;
    f->w = w;
    f->h = h;
    f->dir = strdup(dir);
    f->slot = calloc((size_t)f->depth, sizeof *f->slot);
    f->number = calloc((size_t)f->depth, sizeof *f->number);
    int ok = f->dir && f->slot && f->number;
    for (int k = 0; ok && k < f->depth; k++)
        ok = (f->slot[k] = malloc((size_t)bytes)) != NULL;
    if (ok && pthread_mutex_init(&f->mu, NULL) == 0) {
        if (pthread_cond_init(&f->cv, NULL) == 0) {
            if (pthread_create(&f->thread, NULL, writer, f) == 0) {
                *out = f;
                return 0;
            }
            pthread_cond_destroy(&f->cv);
        }
        pthread_mutex_destroy(&f->mu);
    }
    int depth = f->depth;
    for (int k = 0; f->slot && k < depth; k++)
        free(f->slot[k]);
    free(f->slot); free(f->number); free(f->dir); free(f);
    return nb_fail(NB_EXIT_RUNTIME, "cannot start the frame writer (out of memory for %d frames of "
                   "%dx%d?)", depth, w, h);
}

int nb_frames_failed(nb_frames *f)
{
    pthread_mutex_lock(&f->mu);
    int failed = f->failed;
    pthread_mutex_unlock(&f->mu);
    return failed;
}

unsigned char *nb_frames_slot(nb_frames *f)
{
    pthread_mutex_lock(&f->mu);
    unsigned char *p = NULL;
    if (f->failed || f->queued == f->depth)
        f->dropped += !f->failed;
    else {
        p = f->slot[(f->head + f->queued) % f->depth];
        f->filling = 1;
    }
    pthread_mutex_unlock(&f->mu);
    return p;
}

void nb_frames_submit(nb_frames *f)
{
    pthread_mutex_lock(&f->mu);
    if (f->filling) {
        f->filling = 0;
        if (!f->failed) {
            f->number[(f->head + f->queued) % f->depth] = f->next_number++;
            f->queued++;
            pthread_cond_signal(&f->cv);
        }
    }
    pthread_mutex_unlock(&f->mu);
}

void nb_frames_hold(nb_frames *f, int hold)
{
    pthread_mutex_lock(&f->mu);
    f->hold = hold;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

int nb_frames_close(nb_frames *f, int64_t *written, int64_t *dropped)
{
    return nb_frames_close_timed(f, written, dropped, NULL);
}

int nb_frames_close_timed(nb_frames *f, int64_t *written, int64_t *dropped, double *busy_ms)
{
    if (!f)
        return 0;
    pthread_mutex_lock(&f->mu);
    f->stop = 1;
    f->hold = 0;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    if (written) *written = f->written;
    if (dropped) *dropped = f->dropped;
    if (busy_ms) *busy_ms = f->busy_ms;
    int rc = f->failed ? nb_fail(NB_EXIT_RUNTIME, "--render: %s", f->why) : 0;
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    for (int k = 0; k < f->depth; k++)
        free(f->slot[k]);
    free(f->slot); free(f->number); free(f->dir); free(f);
    return rc;
}
