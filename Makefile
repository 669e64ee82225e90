# nbody-lab -- top-level Makefile (see README.md)
#   make             build every step that exists
#   make run         build and run every step this machine can run (the main job)
#   make check-all   build and run every CUnit runner; points table and total
#   make bench | tables | plots | profile | sanitize | movie | student-kit
#   make fuzz [FUZZ_SECONDS=60] | fuzz-regress   libFuzzer targets (fuzz/Makefile)
#   make mutants [MUTANTS=cpu|gpu|all] [JOBS=N]  the mistakes in mutants/ must fail the tests
#   make diff STEP=03   what step 03 changes relative to step 02
#   make clean
# Variables: ARCH=sm_86 (one GPU target), CUNIT_PREFIX=DIR/usr (CUnit without root)
NB_TOP := .
include tests/runners.mk
STEPS   := $(NB_STEPS)
RUNNERS := $(NB_RUNNERS)
export CUNIT_PREFIX

.PHONY: all run check-all deps deps-test sanitize fuzz fuzz-regress mutants diff movie clean common $(STEPS)
all: deps $(STEPS)

# common/ first, once: the steps (built in parallel with -j) only link it.
common: deps
	@$(MAKE) --no-print-directory -C common all
$(STEPS): common
	@$(MAKE) --no-print-directory -C $@

deps:
	@scripts/ensure_deps.sh png
deps-test:
	@scripts/ensure_deps.sh png cunit

run: deps-test all
	@scripts/run.sh $(STEPS)

# check-all builds each runner with its step on its own (a step that does not
# build fails its own tests only), runs them, and grades (scripts/check_all.sh).
check-all: deps-test
	@MAKE='$(MAKE)' bash scripts/check_all.sh $(filter-out common,$(RUNNERS))

# the mutation catalog: every mistake in mutants/ must fail its step's tests
# (scripts/mutants.sh; MUTANTS=cpu|gpu|all, JOBS=N mutants at a time)
mutants: deps-test
	@MUTANTS='$(MUTANTS)' JOBS='$(JOBS)' ARCH='$(ARCH)' bash scripts/mutants.sh

sanitize: all
	@scripts/sanitize.sh $(filter-out step01_cpu,$(STEPS))

# libFuzzer targets of the readers and the option parser (fuzz/Makefile)
FUZZ_SECONDS ?= 60
fuzz:
	@$(MAKE) --no-print-directory -C fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)
fuzz-regress:
	@$(MAKE) --no-print-directory -C fuzz regress

# make diff STEP=03: the lesson of step 03 is its diff to step 02 (the two
# steps' LESSON sources with the student-kit markers stripped; DIFF_ALL=1:
# every file, raw)
STEP ?= 03
diff:
	@DIFF_ALL='$(DIFF_ALL)' scripts/diff_step.sh '$(STEP)'

# make movie FRAMES=DIR [MOVIE=out.mp4]: frames written by --render DIR
FRAMES ?= frames
movie:
	@scripts/movie.sh $(FRAMES) $(MOVIE)

-include scripts/targets.mk
-include scripts/student_kit.mk

clean:
	@for d in common tests fuzz $(STEPS); do $(MAKE) --no-print-directory -C $$d clean; done
	rm -rf dist
