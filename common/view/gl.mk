# common/view/gl.mk -- the OpenGL view (--view, GL frames for --render), included
# by common/config.mk, so every Makefile of the kit sees the same answer.
# It is optional: where its headers or libraries are missing, the kit builds
# without it, every other feature works, `make` prints why it was left out
# (GL_WHY, as step06 does for NCCL), --view exits 2 saying so, and --render
# draws its frames with the CPU splatter.
#
# What it needs, found by a compile-and-link probe with pkg-config's flags
# (or GL_PREFIX, below):
#   EGL + OpenGL (glvnd: libegl-dev, libopengl-dev)  headless frames (--render)
#   stb_easy_font.h (libstb-dev)                     the text on the frames
#   GLFW 3 (libglfw3-dev)                            the window (--view)
# A machine with EGL but no GLFW gets the GL frames and a --view that says
# the window was not built (GLFW_FOUND empty).
# Sets: GL_FOUND (1 or empty), GL_WHY, GL_CFLAGS, GL_LIBS, GLFW_FOUND,
# GLFW_WHY.  Override:
#   make NB_GL=0               leave the view out
#   make GL_PREFIX=/tmp/gl/usr headers and libraries from unpacked .debs
#                              (DIR/include, DIR/include/stb, DIR/lib/x86_64-linux-gnu)
ifndef NB_GL_MK
NB_GL_MK := 1
GL_FOUND :=
GLFW_FOUND :=
GL_CFLAGS :=
GL_LIBS :=
STB_CFLAGS :=
ifeq ($(NB_GL),0)
GL_WHY := NB_GL=0 was given
else
ifdef GL_PREFIX
GL_LIBDIR  := $(firstword $(wildcard $(GL_PREFIX)/lib/x86_64-linux-gnu $(GL_PREFIX)/lib64 $(GL_PREFIX)/lib))
GL_TRY_CFLAGS := -I$(GL_PREFIX)/include -I$(GL_PREFIX)/include/stb
GL_TRY_LIBS   := -L$(GL_LIBDIR) -lEGL -lOpenGL
GLFW_TRY_LIBS := -lglfw
else
GL_TRY_CFLAGS := $(shell pkg-config --cflags egl opengl stb 2>/dev/null)
GL_TRY_LIBS   := $(shell pkg-config --libs egl opengl 2>/dev/null || echo -lEGL -lOpenGL)
GLFW_TRY_LIBS := $(shell pkg-config --libs glfw3 2>/dev/null || echo -lglfw)
GL_TRY_CFLAGS += $(if $(findstring stb,$(GL_TRY_CFLAGS)),,-I/usr/include/stb)
endif
# One probe per part; the first missing piece is the reason.
H := \#
NB_GL_PROBE = printf '%b' '$(1)' | $(or $(CC),cc) -x c - -o /dev/null $(GL_TRY_CFLAGS) $(2) >/dev/null 2>&1 && echo 1
GL_HAS_EGL  := $(shell $(call NB_GL_PROBE,$(H)define EGL_NO_X11\n$(H)include <EGL/egl.h>\n$(H)include <GL/glcorearb.h>\nint main(void){return eglGetDisplay(EGL_DEFAULT_DISPLAY)!=0;}\n,$(GL_TRY_LIBS)))
GL_HAS_STB  := $(shell $(call NB_GL_PROBE,$(H)include <stb_easy_font.h>\nint main(void){return stb_easy_font_width((char*)"a")<0;}\n,-lm))
GL_HAS_GLFW := $(shell $(call NB_GL_PROBE,$(H)include <GLFW/glfw3.h>\nint main(void){return glfwInit()<0;}\n,$(GLFW_TRY_LIBS)))
ifeq ($(GL_HAS_EGL),)
GL_WHY := EGL/OpenGL headers or libraries not found (install libegl-dev libopengl-dev, or make GL_PREFIX=DIR/usr)
else ifeq ($(GL_HAS_STB),)
GL_WHY := stb_easy_font.h not found (install libstb-dev)
else
GL_FOUND  := 1
GL_CFLAGS := $(GL_TRY_CFLAGS) -DNB_HAVE_GL=1
GL_LIBS   := $(GL_TRY_LIBS)
ifeq ($(GL_HAS_GLFW),)
GLFW_WHY  := GLFW 3 not found (install libglfw3-dev)
else
GLFW_FOUND := 1
GL_CFLAGS += -DNB_HAVE_GLFW=1
GL_LIBS   := $(GLFW_TRY_LIBS) $(GL_LIBS)
endif
endif
endif
ifdef GL_PREFIX
ifdef GL_FOUND
GL_LIBS += -Wl,-rpath-link,$(GL_LIBDIR)
endif
endif
# the text on the frames needs stb_easy_font.h alone (the CPU splatter's
# frames carry it too)
STB_CFLAGS := $(if $(GL_HAS_STB),$(filter -I%,$(GL_TRY_CFLAGS)) -DNB_HAVE_STB=1)
endif
# sub-makes take the answer from the top (one probe per build)
export NB_GL_MK GL_FOUND GL_WHY GL_CFLAGS GL_LIBS GLFW_FOUND GLFW_WHY STB_CFLAGS
