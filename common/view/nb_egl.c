/* nb_egl.c -- a headless OpenGL context through EGL, for --render's GL
 * frames and the view without a display (nb_egl.h).
 *
 * The display, in this order:
 *  1. EGL's device platform (EGL_EXT_platform_device): the device that is
 *     CUDA device 0 when one says so (EGL_NV_device_cuda, the NVIDIA driver),
 *     else the first device listed (Mesa lists its software rasterizer,
 *     llvmpipe, as a device too);
 *  2. Mesa's surfaceless platform (EGL_MESA_platform_surfaceless);
 *  3. the default display.
 * Then an OpenGL core context, asking for 4.6 and stepping down to 3.3
 * (Mesa's llvmpipe gives 4.5), made current without a surface where
 * EGL_KHR_surfaceless_context allows it, else with a 16 x 16 pbuffer: the
 * renderer draws into its own framebuffer anyway.  No X11 headers: EGL_NO_X11. */
#define EGL_NO_X11 1
#define MESA_EGL_NO_X11_HEADERS 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_egl.h"
#include "nb_error.h"

#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif
#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

struct nb_egl {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLSurface surf;
    char       how[160];
};

static int has_ext(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; p && (p = strstr(p, ext)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* An initialized display and what it is, or EGL_NO_DISPLAY. */
static EGLDisplay pick_display(char *how, size_t len)
{
    const char *cl = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLint major, minor;
    if (get_platform && has_ext(cl, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC query_devices =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        PFNEGLQUERYDEVICESTRINGEXTPROC device_string =
            (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
        PFNEGLQUERYDEVICEATTRIBEXTPROC device_attrib =
            (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
        EGLDeviceEXT dev[16];
        EGLint nd = 0;
        if (query_devices && query_devices(16, dev, &nd) && nd > 0) {
            int pick = 0;
            for (int k = 0; k < nd && device_string && device_attrib; k++) {
                const char *de = device_string(dev[k], EGL_EXTENSIONS);
                EGLAttrib cuda = -1;
                if (has_ext(de, "EGL_NV_device_cuda") &&
                    device_attrib(dev[k], EGL_CUDA_DEVICE_NV, &cuda) && cuda == 0) {
                    pick = k;
                    break;
                }
            }
            EGLDisplay d = get_platform(EGL_PLATFORM_DEVICE_EXT, dev[pick], NULL);
            if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
                snprintf(how, len, "EGL %d.%d device platform, device %d of %d", major, minor,
                         pick, nd);
                return d;
            }
        }
    }
    if (get_platform && has_ext(cl, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d = get_platform(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
            snprintf(how, len, "EGL %d.%d surfaceless platform", major, minor);
            return d;
        }
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
        snprintf(how, len, "EGL %d.%d default display", major, minor);
        return d;
    }
    return EGL_NO_DISPLAY;
}

int nb_egl_open(nb_egl **out)
{
    *out = NULL;
    nb_egl *e = calloc(1, sizeof *e);
    if (!e)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    e->dpy = pick_display(e->how, sizeof e->how);
    if (e->dpy == EGL_NO_DISPLAY) {
        free(e);
        return nb_fail(NB_EXIT_RUNTIME, "no EGL display (EGL error 0x%04x): no GL driver found "
                       "(install libegl-mesa0 or the NVIDIA driver's EGL)", (unsigned)eglGetError());
    }
    const EGLint cfg_attr[] = {
        EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
        EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE
    };
    EGLConfig cfg;
    EGLint ncfg = 0;
    if (!eglChooseConfig(e->dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg < 1 || !eglBindAPI(EGL_OPENGL_API)) {
        nb_egl_close(e);
        return nb_fail(NB_EXIT_RUNTIME, "EGL (%s) offers no OpenGL configuration", e->how);
    }
    static const int versions[][2] = { {4, 6}, {4, 5}, {4, 3}, {4, 1}, {3, 3} };
    for (size_t k = 0; k < sizeof versions / sizeof versions[0] && !e->ctx; k++) {
        const EGLint ctx_attr[] = {
            EGL_CONTEXT_MAJOR_VERSION, versions[k][0], EGL_CONTEXT_MINOR_VERSION, versions[k][1],
            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE
        };
        e->ctx = eglCreateContext(e->dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
        if (e->ctx == EGL_NO_CONTEXT)
            e->ctx = NULL;
    }
    if (!e->ctx) {
        nb_egl_close(e);
        return nb_fail(NB_EXIT_RUNTIME, "EGL (%s) gives no OpenGL 3.3 core context", e->how);
    }
    const char *dx = eglQueryString(e->dpy, EGL_EXTENSIONS);
    int ok = has_ext(dx, "EGL_KHR_surfaceless_context") &&
             eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, e->ctx);
    if (!ok) {
        const EGLint pb[] = { EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE };
        e->surf = eglCreatePbufferSurface(e->dpy, cfg, pb);
        ok = e->surf != EGL_NO_SURFACE && eglMakeCurrent(e->dpy, e->surf, e->surf, e->ctx);
    }
    if (!ok) {
        nb_egl_close(e);
        return nb_fail(NB_EXIT_RUNTIME, "EGL (%s): cannot make the OpenGL context current", e->how);
    }
    *out = e;
    return 0;
}

const char *nb_egl_describe(const nb_egl *e) { return e->how; }

void nb_egl_close(nb_egl *e)
{
    if (!e)
        return;
    if (e->dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (e->ctx) eglDestroyContext(e->dpy, e->ctx);
        if (e->surf) eglDestroySurface(e->dpy, e->surf);
        /* no eglTerminate: the display stays initialized for the process
         * (a later nb_egl_open gets it again), and the driver stays loaded:
         * Mesa unloads its driver at eglTerminate with a few allocations
         * still held, which LeakSanitizer (make SANITIZE=1) then reports
         * as leaks of an unknown module */
        eglReleaseThread();
    }
    free(e);
}
