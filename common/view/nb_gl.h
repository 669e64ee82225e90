/* nb_gl.h -- the OpenGL renderer of the view and of --render's GL frames
 * (common/view/nb_gl.c), for a current OpenGL 3.3 core context of either kind:
 * a window (nb_view.c, GLFW) or a headless one (nb_egl.c, EGL).
 *
 * What it draws, in three passes over a w x h image:
 *  1. the bodies, summed: each adds (colour * w, w) to the pixels of its
 *     sprite, w its mass times the sprite's profile (1 at the centre).  A
 *     body of the lightest mass is a 1-pixel sprite, each decade heavier 2
 *     pixels wider (at most 9).  With OpenGL >= 4.3 a compute shader adds
 *     them into exact 64-bit integer sums (a fixed point of 1/256 of the
 *     lightest mass, coarser only where the total would overflow), and a
 *     body on a pixel's edge lands where the CPU splatter puts it; where
 *     that form cannot run (below 4.3, buffers past the storage limit or
 *     the memory, NB_GL_SPRITES=1 in the environment) they are point
 *     sprites blended into a 32-bit float image (nb_gl.c says more).
 *  2. the tree's cells as the 12 edges of their cubes (instanced lines)
 *     into a mask, culled where narrower than 3 pixels;
 *  3. a full-screen pass: a pixel's brightness is its summed weight on the
 *     log scale of nb_render.c (level = 255 (log10 w - lo) / (hi - lo),
 *     clamped to [1, 255]); in the density mode the level picks the colour
 *     from the density map, exactly as the CPU splatter does, in the mass
 *     and speed modes the pixel's mean colour is dimmed to 0.4 + 0.6 level /
 *     255 (a lone light body stays visible, a core is full bright); the
 *     tree's mask blends it half way towards pale cyan, once.
 * Then the frame's facts (nb_annot.h) on top.  The camera is orthographic:
 * at yaw = pitch = 0 the image is the x-y plane seen from +z with +y up, the
 * same projection as the CPU splatter's (nb_render.h), so a body lands in
 * the same pixel in both. */
#ifndef NB_GL_H
#define NB_GL_H
#include <stdint.h>
#include "nb_annot.h"
#include "nb_render.h"
#include "nb_state.h"
#include "nb_step.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_gl nb_gl;

typedef struct nb_gl_camera {
    double cx, cy, cz;      /* the point at the centre of the image */
    double half;            /* half the image's smaller side, in length units */
    double yaw, pitch;      /* radians: the view turned about the image's vertical, then horizontal, axis */
} nb_gl_camera;

typedef struct nb_gl_scene {
    nb_gl_camera cam;
    int    mode;            /* NB_COLOUR_DENSITY, _MASS or _SPEED */
    double log_lo, log_hi;  /* brightness: log10 of the weight per pixel at level 0 and 255 */
    double lo[NB_COLOUR_MODES], hi[NB_COLOUR_MODES];   /* colour range of each mode (log10
                                                         * mass; speed; density = log_lo/hi) */
    double m_ref;           /* the lightest mass > 0: a 1-pixel sprite */
    double m_sum;           /* all the masses: the compute form's sums never pass 2^63 */
    int    tree;            /* draw the cells given last (nb_gl_cells_*) */
    const nb_facts *facts;  /* the text, scale bar and legend, or NULL */
} nb_gl_scene;

enum { NB_GL_WINDOW = 0, NB_GL_OFFSCREEN = 1 };

/* The GL objects for n bodies, in the current context (OpenGL >= 3.3 core).
 * NB_EXIT_RUNTIME with the reason when the context cannot do it. */
int  nb_gl_create(nb_gl **g, int64_t n);
void nb_gl_destroy(nb_gl *g);
/* Upload the bodies from the host (glBufferSubData). */
int  nb_gl_bodies_host(nb_gl *g, const nb_state *s);
/* The vertex buffers the bodies are drawn from, for CUDA-GL interop:
 * n float4 (x, y, z, m) and n floats (speed). */
void nb_gl_body_buffers(nb_gl *g, unsigned *pos_mass, unsigned *speed);
/* Cells to draw: the cells of c down to depth (0: the root alone; < 0:
 * all), from the host.  The depth of a cell is read from its size: a cell
 * at depth d has half size root / 2^d (cell 0 is the root). */
int  nb_gl_cells_host(nb_gl *g, const nb_cells *c, int depth);
/* The same filled on the device: a buffer with room for at least count
 * float4 cells (cx, cy, cz, half); its name changes when it grows. */
int  nb_gl_cells_buffer(nb_gl *g, int64_t count, unsigned *buf, int64_t *cap);
void nb_gl_cells_count(nb_gl *g, int64_t count);
/* Draw the scene into a w x h image: the current default framebuffer
 * (NB_GL_WINDOW) or the renderer's own (NB_GL_OFFSCREEN). */
int  nb_gl_draw(nb_gl *g, int target, int w, int h, const nb_gl_scene *sc);
/* The image drawn last, as RGB with row 0 on top (w*h*3 bytes). */
int  nb_gl_read(nb_gl *g, int target, int w, int h, unsigned char *rgb);
/* Wait until the GL work issued so far is done (glFinish). */
void nb_gl_finish(void);
/* GPU time of a recent draw (a GL timer query), ms; wait: of the last one,
 * waiting for it.  -1 when none is known yet. */
double nb_gl_draw_ms(nb_gl *g, int wait);
/* "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits)" */
void nb_gl_describe(char *buf, size_t len);
/* How g added the bodies up in its last draw (before any: how it means
 * to): "added up by a compute shader (64-bit integer sums)" or "point
 * sprites blended into a float image", with the reason in parentheses
 * when the compute form was there but could not be used. */
const char *nb_gl_bodies_how(const nb_gl *g);

/* The camera that shows the view v of the CPU splatter (nb_render_setup). */
nb_gl_camera nb_gl_camera_of(const nb_render_view *v);
/* The scene's colour scales from the first state s and the view v: the
 * brightness scale is v's, the mass range the masses', the speed range 0 to
 * the 99th percentile of the speeds. */
void nb_gl_scales(nb_gl_scene *sc, const nb_state *s, const nb_render_view *v);

/* ---- where the bodies come from -----------------------------------------
 * A GPU step with a bodies() hook has them copied on the device into the
 * GL buffers (CUDA-GL interop, common/view/nb_gl_cuda.cu) when the GL context is
 * on the CUDA device; otherwise -- a CPU step, Mesa, a failed registration
 * -- they are downloaded (step->download) and uploaded.  NB_GL_NO_INTEROP=1
 * in the environment takes the host path on purpose (the GPU check compares
 * the two paths' frames). */
typedef struct nb_gl_feed {
    int   tried;            /* interop was tried */
    void *ic;               /* the interop state when it works, else NULL */
    char  why[256];         /* why the bodies go through the host */
} nb_gl_feed;
/* Bring the step's current bodies (and cells down to depth when cells >= 0
 * ... tree < 0: none) into g.  *downloaded: 1 when s now holds the state
 * (the caller checks it with the watchdog). */
int  nb_gl_fetch(nb_gl *g, nb_gl_feed *fd, const nb_step *step, void *ctx, nb_state *s,
                int tree_depth, int want_cells, int *downloaded);
void nb_gl_feed_close(nb_gl_feed *fd);
/* "CUDA-GL interop (no host copy)" or "uploaded from the host (<why>)" */
const char *nb_gl_feed_describe(const nb_gl_feed *fd);

/* The interop, in libnbcuda.a (GPU steps only; weak references here). */
int  nb_glcuda_open(void **ic, unsigned pos_mass, unsigned speed);
int  nb_glcuda_bodies(void *ic, const nb_bodies *b);
int  nb_glcuda_cells(void *ic, unsigned buf, int64_t cap, const nb_cells *c, int depth,
                     int64_t *kept);
void nb_glcuda_close(void *ic);

#ifdef __cplusplus
}
#endif
#endif
