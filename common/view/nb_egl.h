/* nb_egl.h -- a headless OpenGL context (common/view/nb_egl.c): the NVIDIA EGL
 * device platform on a GPU server, Mesa (llvmpipe) on a machine without a
 * GPU, no display needed on either. */
#ifndef NB_EGL_H
#define NB_EGL_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_egl nb_egl;

/* Make a headless OpenGL >= 3.3 core context current on this thread.
 * NB_EXIT_RUNTIME with the reason when there is none. */
int  nb_egl_open(nb_egl **e);
/* "EGL 1.5 device platform, device 0 of 1" */
const char *nb_egl_describe(const nb_egl *e);
void nb_egl_close(nb_egl *e);

#ifdef __cplusplus
}
#endif
#endif
