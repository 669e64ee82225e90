# common/step.mk -- the build of one step, included by each step's Makefile:
#
#   STEP    := step02_naive        # directory name = runner name
#   C_SRCS  := main.c              # host C sources (main.c holds main())
#   CU_SRCS := naive.cu            # CUDA sources (GPU steps)
#   FORCE_SRCS :=                  # C sources built with FORCE_CFLAGS too
#   EXTRA_PROGRAMS := nbody_x      # more programs: nbody_X is built from main_X.c
#   USES    := step05_barneshut    # earlier steps whose libstep.a this step links
#   PROGRAM := nbody_tuned         # the program's name (default nbody)
#   include ../common/step.mk
#
# A tuned build ("going further") is a folder of its own inside its step,
# step04_shared/tuned/: STEP is its runner (step04_tuned), USES the lesson,
# and it includes ../../common/step.mk.
#
# Targets: all (nbody), check (build and run this step's CUnit runner: its
# failures, each once, and its score; V=1: every test and its output),
# libstep.a (everything but main.o, linked into the step's worker,
# tests/work_<runner>: the grader itself links no step code), asan/libstep.a
# (the same with the host C code under ASan and UBSan, for the sanitized
# worker), tsan/libstep.a (with clang and TSan, for the race-checking
# worker: common/tsan.mk), clean.
#
# Every object of a step -- libstep.a's, asan/libstep.a's, tsan/libstep.a's,
# the programs' main objects, the tuned builds' too -- is compiled through
# scripts/grade/student_lint.sh: the student's code is the grade's untrusted input,
# and may neither switch off the grade's instruments (no_sanitize, optimize
# attributes and pragmas, inline assembly in C, code that differs under the
# sanitizers) nor borrow its answers (a call of common/nb_verify.h's
# references, dlsym, an #include of a source file).  A finding stops the
# build with one line "FILE:LINE: what: refused (why)".
include $(dir $(lastword $(MAKEFILE_LIST)))config.mk
NB_LINT      := $(TOP_DIR)/scripts/grade/student_lint.sh
NB_LINT_DEPS := $(NB_LINT) $(TOP_DIR)/scripts/grade/student_lint.awk
# common/'s headers, the core's and the view's (common/view/)
NB_COMMON_HDRS := $(wildcard $(TOP_DIR)/common/*.h $(TOP_DIR)/common/view/*.h)

IMPL_OBJS := $(filter-out main.o main_%.o,$(C_SRCS:.c=.o) $(FORCE_SRCS:.c=.o)) $(CU_SRCS:.cu=.o)
# An earlier step's code is linked, never copied: its libstep.a, built by its
# own Makefile, comes after this step's and before common/.
USES_LIBS := $(foreach s,$(USES),$(TOP_DIR)/$(s)/libstep.a)
LIBS      := $(USES_LIBS) $(COMMON_LIB)
ifneq ($(strip $(CU_SRCS)),)
LIBS      += $(CUDA_COMMON_LIB)
EXTRA_LIBS := $(CUDA_LIBS) -lstdc++
endif
# PNG frames come with common/ (view/nb_render.c).
EXTRA_LIBS += $(PNG_LIBS)
# A GPU step's view copies its bodies on the device (common/view/nb_gl_cuda.cu,
# which nb_gl.c refers to weakly: -u pulls it out of libnbcuda.a).
ifneq ($(strip $(CU_SRCS)),)
ifneq ($(GL_FOUND),)
EXTRA_LIBS += -Wl,-u,nb_glcuda_open
endif
endif

PROGRAM ?= nbody
.PHONY: all check clean common FORCE
all: $(PROGRAM) $(EXTRA_PROGRAMS)

$(PROGRAM): main.o libstep.a $(LIBS)
	$(Q_PROG)$(CC) $(CFLAGS) -o $@ main.o libstep.a $(LIBS) $(EXTRA_LIBS) $(LDLIBS)

nbody_%: main_%.o libstep.a $(LIBS)
	$(Q_PROG)$(CC) $(CFLAGS) -o $@ $< libstep.a $(LIBS) $(EXTRA_LIBS) $(LDLIBS)

libstep.a: $(IMPL_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# the host objects again, instrumented (CUDA objects as they are)
ASAN_OBJS := $(addprefix asan/,$(filter-out main.o main_%.o,$(C_SRCS:.c=.o) $(FORCE_SRCS:.c=.o)))
asan/libstep.a: $(ASAN_OBJS) $(CU_SRCS:.cu=.o)
	$(Q)rm -f $@ && ar rcs $@ $^
$(addprefix asan/,$(FORCE_SRCS:.c=.o)): FORCE_FLAGS = $(FORCE_CFLAGS)
asan/%.o: %.c $(wildcard *.h) $(NB_COMMON_HDRS) Makefile $(NB_MODE_FILE) $(NB_LINT_DEPS)
	@mkdir -p asan
	$(Q)$(NB_LINT) --san '$(NB_ASAN_FLAGS)' $@ $< -- $(CC) $(CFLAGS) $(FORCE_FLAGS)

# the host objects again, with clang and ThreadSanitizer (LLVM's OpenMP:
# tsan.mk), for the race-checking worker; CUDA objects as they are
TSAN_OBJS := $(patsubst asan/%,tsan/%,$(ASAN_OBJS))
tsan/libstep.a: $(TSAN_OBJS) $(CU_SRCS:.cu=.o)
	$(Q)rm -f $@ && ar rcs $@ $^
$(addprefix tsan/,$(FORCE_SRCS:.c=.o)): FORCE_FLAGS = $(FORCE_CFLAGS)
tsan/%.o: %.c $(wildcard *.h) $(NB_COMMON_HDRS) Makefile $(NB_MODE_FILE) $(NB_LINT_DEPS)
	@mkdir -p tsan
	$(Q)$(NB_LINT) $@ $< -- $(TSAN_CC) $(TSAN_CFLAGS) $(FORCE_FLAGS)

ifneq ($(USES_LIBS),)
$(USES_LIBS): FORCE
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $(dir $@) libstep.a
endif

$(COMMON_LIB) $(CUDA_COMMON_LIB): common
common:
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $(TOP_DIR)/common $(if $(strip $(CU_SRCS)),all,host)

$(FORCE_SRCS:.c=.o): %.o: %.c $(NB_COMMON_HDRS) Makefile $(NB_MODE_FILE) $(NB_LINT_DEPS)
	$(Q)$(NB_LINT) $@ $< -- $(CC) $(CFLAGS) $(FORCE_CFLAGS)

%.o: %.c $(NB_COMMON_HDRS) Makefile $(NB_MODE_FILE) $(NB_LINT_DEPS)
	$(Q)$(NB_LINT) $@ $< -- $(CC) $(CFLAGS)

%.o: %.cu $(NB_COMMON_HDRS) Makefile $(NB_LINT_DEPS)
	$(Q)$(NB_LINT) $@ $< -- $(NVCC) $(NVCCFLAGS)

# the main objects of the extra programs are kept (no "rm main_tuned.o")
.SECONDARY: $(EXTRA_PROGRAMS:nbody_%=main_%.o)

check: $(PROGRAM)
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $(TOP_DIR)/tests run_$(STEP)
	$(Q)cd $(TOP_DIR)/tests && NB_VERBOSE='$(V)' ./run_$(STEP)

clean:
	rm -f $(PROGRAM) main.o libstep.a $(IMPL_OBJS) $(EXTRA_PROGRAMS) $(EXTRA_PROGRAMS:nbody_%=main_%.o)
	rm -rf asan tsan
