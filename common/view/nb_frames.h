/* nb_frames.h -- --render's PNG frames, encoded and written by a writer
 * thread, so that the simulation never waits for libpng or the disk.
 *
 * The run fills a free slot of a bounded queue (nb_frames_slot) and hands
 * it over (nb_frames_submit); the writer encodes the slots in order and
 * writes DIR/frame_NNNNNN.png atomically (nb_png_write).  When every slot is
 * waiting to be written, the frame is dropped and counted: the run never
 * waits for the writer.  Frames are numbered as they are accepted, so the
 * files stay consecutive for `make movie` when some are dropped, and each
 * frame's text names its step.  The queue holds at most NB_FRAMES_BYTES of
 * images (and at least 2 frames). */
#ifndef NB_FRAMES_H
#define NB_FRAMES_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define NB_FRAMES_BYTES (256.0 * 1048576.0)

typedef struct nb_frames nb_frames;

/* Start the writer for w x h frames into dir (created with nb_render_setup
 * before).  NB_EXIT_RUNTIME when out of memory or no thread can start. */
int nb_frames_open(nb_frames **f, const char *dir, int w, int h);
/* A free slot (w*h*3 bytes, row 0 on top) to fill, or NULL: the queue is
 * full and this frame is dropped (counted).  Also NULL after a write error
 * (the rest of the frames are not written; nb_frames_close reports it). */
unsigned char *nb_frames_slot(nb_frames *f);
/* 1 once a frame could not be written (the run stops then: nb_frames_close
 * gives the error), else 0. */
int nb_frames_failed(nb_frames *f);
/* Hand the slot just filled to the writer. */
void nb_frames_submit(nb_frames *f);
/* For the tests: hold = 1 stops the writer before its next frame (a writer
 * stuck on a slow disk), hold = 0 lets it go on (so does nb_frames_close). */
void nb_frames_hold(nb_frames *f, int hold);
/* Wait for the writer to finish what was submitted and stop it.  The
 * counts of frames written and dropped; returns 0 or NB_EXIT_RUNTIME with
 * the first write error as the message ("--render: ...").  f is freed. */
int nb_frames_close(nb_frames *f, int64_t *written, int64_t *dropped);
/* The same, with the writer's time spent encoding and writing the frames
 * (nb_png_write: PNG, fsync, rename), in ms. */
int nb_frames_close_timed(nb_frames *f, int64_t *written, int64_t *dropped, double *busy_ms);

#ifdef __cplusplus
}
#endif
#endif
