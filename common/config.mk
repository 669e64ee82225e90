# common/config.mk -- the one place where compilers and flags are chosen.
# Every step's Makefile includes this file, so every step is built the same way.
#
# Math flags, and why:
#  * Host code is C11 with -O3 -march=native and IEEE semantics everywhere
#    (NaN/range checks in the CLI, the double-precision references, the
#    energy diagnostics all rely on them).
#  * The CPU force loops (step01_cpu/forces.c, step05_barneshut/bh_cpu_eval.c:
#    one translation unit each, FORCE_SRCS) alone are built with
#    FORCE_CFLAGS = -ffast-math: it lets gcc vectorize the j-loop
#    with a reordered reduction and compute 1/sqrtf(r2) as rsqrt + one
#    Newton step, the CPU analogue of the GPU's rsqrtf.  Accuracy is still
#    checked against the 1e-4 all-pairs tolerance (docs/conventions.md, Verification and tolerances).
#  * FORCE_VECTOR_WIDTH: the widest vectors gcc may use in those loops
#    (-mprefer-vector-width=N).  Default: 512 where the force loops are
#    compiled for AVX-512 (the compiler defines __AVX512F__ with CFLAGS,
#    i.e. -march=native on an AVX-512 machine), none elsewhere (and never a
#    flag on other architectures).  gcc's own choice on Intel CPUs is 256
#    (and on some AMD ones 512).  The sources see it as NB_FORCE_VECTOR_WIDTH:
#    at 512, step05's bh_cpu_eval.c uses its AVX-512 kernel (gcc's 512-bit
#    code for 1/sqrtf is slow; see there).  Override on the command line:
#      make FORCE_VECTOR_WIDTH=      no flag: the compiler's choice
#      make FORCE_VECTOR_WIDTH=256   e.g. to compare (a change rebuilds)
#  * GPU code: -O3 and -ftz=true (flush denormals: positions and masses are
#    never denormal, and it makes rsqrtf a single MUFU.RSQ instruction).
#    Divisions and sqrt keep IEEE precision (-prec-div/-prec-sqrt default).
#    The same NVCCFLAGS serve every GPU step.

COMMON_DIR := $(dir $(lastword $(MAKEFILE_LIST)))

# Quiet build: by default every compile and archive runs silently (the
# compilers' warnings and errors still show) and each program built prints
# one line; `make V=1` shows every command.  Q prefixes a command, Q_PROG a
# program's link (its one line), Q_MAKE goes into a sub-make's flags
# (-s: no "Nothing to be done" lines).
ifeq ($(V),1)
Q      :=
Q_PROG :=
Q_MAKE :=
else
Q      := @
Q_PROG  = @echo '  built $(patsubst $(realpath $(TOP_DIR))/%,%,$(CURDIR))/$@' &&
Q_MAKE := -s
endif
TOP_DIR    := $(abspath $(COMMON_DIR)/..)

CC      ?= gcc
ifeq ($(origin CC),default)
CC      := gcc
endif
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra
CFLAGS  ?= -O3 -march=native -g
CFLAGS  += $(CSTD) $(WARN) -fopenmp -I$(TOP_DIR)/common -I$(TOP_DIR)/common/view
ifeq ($(origin FORCE_VECTOR_WIDTH),undefined)
FORCE_VECTOR_WIDTH := $(if $(shell $(CC) $(CFLAGS) -dM -E -x c /dev/null 2>/dev/null | \
                        grep -w __AVX512F__),512)
endif
FORCE_CFLAGS := -ffast-math $(if $(FORCE_VECTOR_WIDTH),-mprefer-vector-width=$(FORCE_VECTOR_WIDTH) \
                -DNB_FORCE_VECTOR_WIDTH=$(FORCE_VECTOR_WIDTH))
LDLIBS  += -lm -fopenmp

# make SANITIZE=1: the host C code (and its links) with AddressSanitizer and
# UndefinedBehaviorSanitizer; CUDA objects keep their flags.  Every host
# object, and common's two libraries, depend on NB_MODE_FILE, rewritten
# when the mode changes (SANITIZE, FORCE_VECTOR_WIDTH, and which optional
# parts were found: GL, GLFW, --serve, TSan; set below), so switching rebuilds
# the host code and the libraries' lists of objects (the CUDA objects do
# not change).
# The same flags build the sanitized workers of the grader (asan/ beside
# each CPU step's objects and common/'s, tests/work_<runner>_asan: the graded
# suite "sanitizers", tests/suite_asan.c) in every mode.
NB_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
SAN_FLAGS := $(NB_ASAN_FLAGS)
CFLAGS    += $(SAN_FLAGS)
endif
# ThreadSanitizer with LLVM's OpenMP (clang, libomp, Archer), for the
# race-checking workers of the grader (tsan/ beside each CPU step's objects
# and common/'s, tests/work_<runner>_tsan: the graded suite "races",
# tests/suite_races.c): see tsan.mk.  Their compile line is TSAN_CFLAGS: the
# host flags without SANITIZE's (ASan and TSan do not mix), then NB_TSAN_FLAGS.
include $(COMMON_DIR)tsan.mk
# the OpenGL view (--view, GL frames): optional, see view/gl.mk.  Every
# program links it where it is found (nb_main() offers --view to every step).
include $(COMMON_DIR)view/gl.mk
CFLAGS  += $(GL_CFLAGS) $(STB_CFLAGS)
LDLIBS  += $(GL_LIBS)
# the view in a browser (--serve PORT): optional too, see view/serve.mk
include $(COMMON_DIR)view/serve.mk
CFLAGS  += $(SERVE_CFLAGS)
LDLIBS  += $(SERVE_LIBS)

TSAN_CFLAGS = $(filter-out $(SAN_FLAGS),$(CFLAGS)) $(NB_TSAN_FLAGS)

NB_MODE      := sanitize=$(SANITIZE) force-vector-width=$(FORCE_VECTOR_WIDTH) gl=$(GL_FOUND) \
                glfw=$(GLFW_FOUND) serve=$(SERVE_FOUND) tsan=$(TSAN_FOUND)
NB_MODE_FILE := $(TOP_DIR)/common/.build-mode
NB_MODE_SET  := $(shell [ "$$(cat '$(NB_MODE_FILE)' 2>/dev/null)" = '$(NB_MODE)' ] || \
                  echo '$(NB_MODE)' > '$(NB_MODE_FILE)')

# libpng (frames, --render)
PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS   := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)
# step01's programs and its grade's plain workers allocate through
# common/fence/nb_fence.c (in libnbcommon.a, pulled in by the wrapped names)
NB_FENCE_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=aligned_alloc,--wrap=posix_memalign

# CUDA: CUDA_HOME, NVCC, and NVCC_FOUND (empty without nvcc: the GPU steps
# are left out, common/ builds its host library alone)
include $(COMMON_DIR)cuda.mk
# Default targets: Turing (sm_75), Ampere (sm_80, sm_86), Ada (sm_89), native
# Hopper code (sm_90) and compute_90 PTX so newer chips JIT-compile it.
# Override with e.g.  make ARCH=sm_86   (builds only that target).
ifdef ARCH
GENCODE := -gencode=arch=compute_$(ARCH:sm_%=%),code=$(ARCH)
else
GENCODE := -gencode=arch=compute_75,code=sm_75 \
           -gencode=arch=compute_80,code=sm_80 \
           -gencode=arch=compute_86,code=sm_86 \
           -gencode=arch=compute_89,code=sm_89 \
           -gencode=arch=compute_90,code=sm_90 \
           -gencode=arch=compute_90,code=compute_90
endif
NVCCFLAGS ?= -O3 -g -lineinfo
NVCCFLAGS += -std=c++17 $(GENCODE) -ftz=true -I$(TOP_DIR)/common -I$(TOP_DIR)/common/view $(filter -I%,$(GL_CFLAGS)) \
             -Xcompiler -Wall,-Wextra,-fopenmp $(EXTRA_NVCCFLAGS)
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart

# CUnit: system package (libcunit1-dev), or a prefix such as the
# unpacked Debian package:  make check-all CUNIT_PREFIX=/tmp/cu/usr
ifdef CUNIT_PREFIX
CUNIT_CFLAGS := -I$(CUNIT_PREFIX)/include
CUNIT_LIBDIR := $(firstword $(wildcard $(CUNIT_PREFIX)/lib/x86_64-linux-gnu $(CUNIT_PREFIX)/lib64 $(CUNIT_PREFIX)/lib))
CUNIT_LIBS   := -L$(CUNIT_LIBDIR) -Wl,-rpath,$(CUNIT_LIBDIR) -lcunit
else
CUNIT_CFLAGS :=
CUNIT_LIBS   := -lcunit
endif

COMMON_LIB := $(TOP_DIR)/common/libnbcommon.a
CUDA_COMMON_LIB := $(TOP_DIR)/common/libnbcuda.a
