# common/view/serve.mk -- the live view in a browser (--serve PORT), included by
# common/config.mk after gl.mk, so every Makefile of the kit sees the same
# answer.  Optional like the view: where a library is missing the kit builds
# without it, `make` prints why, and --serve exits 2 saying so.
#
# What it needs, found by a compile-and-link probe each:
#   the GL view (gl.mk)                  the pictures (EGL, the GL renderer)
#   libmicrohttpd (libmicrohttpd-dev)    HTTP: the page, the WebSocket's upgrade
#   wslay (libwslay-dev)                 WebSocket frames
#   nettle (nettle-dev)                  SHA-1 and base64 of the WebSocket handshake
#   libjpeg-turbo (libturbojpeg0-dev)    the frames, as JPEG
# Sets: SERVE_FOUND (1 or empty), SERVE_WHY, SERVE_CFLAGS, SERVE_LIBS.
# Override:
#   make NB_SERVE=0                 leave --serve out
#   make SERVE_PREFIX=/tmp/gl/usr   headers and libraries from unpacked .debs
#                                   (default: GL_PREFIX when that is given)
ifndef NB_SERVE_MK
NB_SERVE_MK := 1
SERVE_FOUND :=
SERVE_CFLAGS :=
SERVE_LIBS :=
SERVE_PREFIX ?= $(GL_PREFIX)
ifeq ($(NB_SERVE),0)
SERVE_WHY := NB_SERVE=0 was given
else ifeq ($(GL_FOUND),)
SERVE_WHY := it draws with the GL view, which is left out ($(GL_WHY))
else
ifdef SERVE_PREFIX
SERVE_LIBDIR    := $(firstword $(wildcard $(SERVE_PREFIX)/lib/x86_64-linux-gnu $(SERVE_PREFIX)/lib64 $(SERVE_PREFIX)/lib))
SERVE_TRY_CFLAGS := -I$(SERVE_PREFIX)/include
SERVE_TRY_LDIR   := -L$(SERVE_LIBDIR)
else
SERVE_TRY_CFLAGS :=
SERVE_TRY_LDIR   :=
endif
H := \#
NB_SERVE_PROBE = printf '%b' '$(1)' | $(or $(CC),cc) -x c - -o /dev/null $(SERVE_TRY_CFLAGS) $(SERVE_TRY_LDIR) $(2) >/dev/null 2>&1 && echo 1
SERVE_HAS_MHD   := $(shell $(call NB_SERVE_PROBE,$(H)include <stddef.h>\n$(H)include <stdint.h>\n$(H)include <sys/socket.h>\n$(H)include <microhttpd.h>\nint main(void){return MHD_create_response_for_upgrade(0,0)!=0;}\n,-lmicrohttpd))
SERVE_HAS_WSLAY := $(shell $(call NB_SERVE_PROBE,$(H)include <wslay/wslay.h>\nint main(void){wslay_event_context_ptr c;return wslay_event_context_server_init(&c,0,0);}\n,-lwslay))
SERVE_HAS_NETTLE := $(shell $(call NB_SERVE_PROBE,$(H)include <nettle/sha1.h>\n$(H)include <nettle/base64.h>\nint main(void){struct sha1_ctx c;sha1_init(&c);return 0;}\n,-lnettle))
SERVE_HAS_TJ    := $(shell $(call NB_SERVE_PROBE,$(H)include <turbojpeg.h>\nint main(void){return tjInitCompress()!=0;}\n,-lturbojpeg))
ifeq ($(SERVE_HAS_MHD),)
SERVE_WHY := libmicrohttpd not found (install libmicrohttpd-dev)
else ifeq ($(SERVE_HAS_WSLAY),)
SERVE_WHY := wslay not found (install libwslay-dev)
else ifeq ($(SERVE_HAS_NETTLE),)
SERVE_WHY := nettle not found (install nettle-dev)
else ifeq ($(SERVE_HAS_TJ),)
SERVE_WHY := libjpeg-turbo not found (install libturbojpeg0-dev)
else
SERVE_FOUND  := 1
SERVE_CFLAGS := $(SERVE_TRY_CFLAGS) -DNB_HAVE_SERVE=1
SERVE_LIBS   := $(SERVE_TRY_LDIR) -lmicrohttpd -lwslay -lnettle -lturbojpeg -lpthread
ifdef SERVE_PREFIX
SERVE_LIBS   += -Wl,-rpath-link,$(SERVE_LIBDIR)
endif
endif
endif
export NB_SERVE_MK SERVE_FOUND SERVE_WHY SERVE_CFLAGS SERVE_LIBS
endif
