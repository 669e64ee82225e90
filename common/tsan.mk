# common/tsan.mk -- ThreadSanitizer with LLVM's OpenMP, for the grader's
# race-checking workers (tests/work_<runner>_tsan: the graded suite "races",
# tests/suite_races.c).  Included by common/config.mk, so every Makefile of
# the kit sees the same answer.
#
# TSan understands OpenMP only through LLVM's runtime, libomp, and its OMPT
# tool Archer (libarcher.so), which tells TSan about the runtime's barriers,
# forks and reductions; with GCC's libgomp it reports races that are not
# there.  So these objects are built with clang (-fsanitize=thread -fopenmp:
# LLVM's omp.h, linked with libomp), never with gcc, and the workers link
# libarcher.so by name (its directory in their RUNPATH) so that libomp finds
# the tool already loaded.  Debian packages (bookworm): clang-14 (clang),
# libclang-rt-14-dev (the TSan runtime), libomp-14-dev (omp.h, libomp.so,
# libarcher.so) and llvm-14 (llvm-symbolizer: the reports' file:line):
# scripts/setup/ensure_deps.sh tsan.
#
# Sets: TSAN_FOUND (1 or empty), TSAN_WHY (why not), TSAN_CC, NB_TSAN_FLAGS
# (compile), NB_TSAN_LIBS (link), TSAN_LLVM_BIN (llvm-symbolizer's directory).
# Override: make TSAN_CC=clang-15 (another clang with its libomp);
#           make NB_TSAN=0 (leave the race checks out: the suite is then SKIPPED).
ifndef NB_TSAN_MK
NB_TSAN_MK := 1
TSAN_CC ?= clang
TSAN_FOUND :=
NB_TSAN_FLAGS := -fsanitize=thread -fopenmp -fno-omit-frame-pointer
NB_TSAN_LIBS :=
# clang's own directory: /usr/lib/llvm-N/bin (Debian's clang is a link to it),
# its libraries beside it in ../lib
TSAN_LLVM_BIN := $(shell p=$$(command -v '$(TSAN_CC)' 2>/dev/null) && dirname "$$(readlink -f "$$p")")
TSAN_LLVM_LIB := $(if $(TSAN_LLVM_BIN),$(abspath $(TSAN_LLVM_BIN)/../lib))
ifeq ($(NB_TSAN),0)
TSAN_WHY := NB_TSAN=0 was given
else ifeq ($(TSAN_LLVM_BIN),)
TSAN_WHY := $(TSAN_CC) not found (install clang-14 libclang-rt-14-dev libomp-14-dev llvm-14: scripts/setup/ensure_deps.sh tsan)
else ifeq ($(wildcard $(TSAN_LLVM_LIB)/libarcher.so),)
TSAN_WHY := no libarcher.so (LLVM's OpenMP tool for TSan) in $(TSAN_LLVM_LIB) (install libomp-14-dev: scripts/setup/ensure_deps.sh tsan)
else
H := \#
# LLVM's omp.h (KMP_VERSION_MAJOR: not GCC's), libomp, the TSan runtime, Archer
TSAN_PROBE := $(shell printf '%b' '$(H)include <omp.h>\n$(H)ifndef KMP_VERSION_MAJOR\n$(H)error not LLVM omp.h\n$(H)endif\nint main(void){int s=0;\n$(H)pragma omp parallel for reduction(+:s)\nfor(int i=0;i<4;i++)s+=i;\nreturn s!=6;}\n' | \
                $(TSAN_CC) $(NB_TSAN_FLAGS) -x c - -o /dev/null -L$(TSAN_LLVM_LIB) -Wl,-rpath,$(TSAN_LLVM_LIB) \
                -Wl,--no-as-needed -larcher >/dev/null 2>&1 && echo 1)
ifeq ($(TSAN_PROBE),)
TSAN_WHY := $(TSAN_CC) -fsanitize=thread -fopenmp cannot build with LLVM's omp.h, libomp and libarcher (install clang-14 libclang-rt-14-dev libomp-14-dev: scripts/setup/ensure_deps.sh tsan)
else
TSAN_FOUND := 1
TSAN_WHY :=
NB_TSAN_LIBS := -L$(TSAN_LLVM_LIB) -Wl,-rpath,$(TSAN_LLVM_LIB) -Wl,--no-as-needed -larcher -Wl,--as-needed
endif
endif
export NB_TSAN_MK TSAN_CC TSAN_FOUND TSAN_WHY NB_TSAN_FLAGS NB_TSAN_LIBS TSAN_LLVM_BIN TSAN_LLVM_LIB
endif
