# nbody-lab -- top-level Makefile (see README.md; `make help` lists every target)
#   make             build every step that exists (one line per program; V=1: every command)
#   make run         build and run every step this machine can run (the main job)
#   make check-all   build and run every CUnit runner; points table and total
#                    (quiet: a line a runner, the failures; V=1: every test)
#   make setup       install every Debian package the documented targets need
#   make bench | tables | plots | drift | profile | report | sanitize | movie | student-kit
#   make fuzz [FUZZ_SECONDS=60] | fuzz-regress   libFuzzer targets (tests/fuzz/Makefile)
#   make mutants [MUTANTS=cpu|gpu|all] [JOBS=N]  the mistakes in tests/mutants/ must fail the tests
#   make diff STEP=03   what step 03 changes relative to step 02 (docs/lessons.tsv)
#   make clean
# Variables: ARCH=sm_86 (one GPU target), CUNIT_PREFIX=DIR/usr (CUnit without root),
#   NCCL_HOME=DIR (step06's NCCL, found on its own otherwise: common/nccl.mk), MPI=0|1,
#   V=1 (show every build command)
# Without nvcc the steps with CUDA code are left out (step01_cpu and its
# exercise are built), without NCCL step06_multigpu; `make`, `make run` and
# `make check-all` say so, one line each, and exit 0 (tests/runners.mk).
NB_TOP := .
include tests/runners.mk
CC ?= gcc
include common/view/gl.mk
include common/view/serve.mk
STEPS   := $(NB_STEPS)
# STEPS=... on the command line narrows every target to those steps
RUNNERS  = $(call nb_runners,$(STEPS))
# the tuned builds of those steps (step04_shared/tuned ...: tests/runners.mk)
TUNED   := $(call nb_tuned_of,$(STEPS))
# their optional exercises in folders of their own (step01_cpu/precision)
EXERCISES := $(call nb_exercises_of,$(STEPS))
export CUNIT_PREFIX
export NB_SKIPPED_RUNNERS
$(foreach r,$(NB_SKIPPED_RUNNERS),$(eval export NB_SKIPPED_WHY_$(r)))
# sub-makes run silent (-s: no "Nothing to be done") unless V=1 (common/config.mk)
Q_MAKE := $(if $(filter 1,$(V)),,-s)

.PHONY: all run help setup check-all grade-class doc-counts layout lint-kit-files examples deps deps-test sanitize fuzz fuzz-regress mutants diff movie clean common $(STEPS) $(TUNED) $(EXERCISES)
all: deps $(STEPS) $(TUNED) $(EXERCISES)
	@$(foreach s,$(NB_SKIPPED_STEPS),echo 'make: $(s)$(foreach t,$(call nb_tuned_of,$(s)), and $(t)) left out: $(call nb_skip_why,$(s))';)
	@$(if $(GL_FOUND),,echo 'make: the GL view (--view, GL frames for --render) is left out: $(GL_WHY)')
	@$(if $(GL_FOUND),$(if $(GLFW_FOUND),,echo 'make: the --view window is left out ($(GLFW_WHY)); GL frames are built'))
	@$(if $(SERVE_FOUND),,echo 'make: --serve (the view in a browser) is left out: $(SERVE_WHY)')

# common/ first, once: the steps (built in parallel with -j) only link it.
common: deps
	@$(MAKE) $(Q_MAKE) --no-print-directory -C common all
$(STEPS): common
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $@
# a tuned build links its lesson's library: built after the lesson
$(TUNED): %/tuned: %
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $@
# so does an exercise folder
$(EXERCISES): %/precision: %
	@$(MAKE) $(Q_MAKE) --no-print-directory -C $@
# a step that links an earlier one (USES in its Makefile) is built after it
ifneq ($(filter step06_multigpu,$(STEPS)),)
step06_multigpu: $(filter step05_barneshut,$(STEPS))
endif
# ... and step06's tuned build links step05's tuned build too
ifneq ($(filter step06_multigpu/tuned,$(TUNED)),)
step06_multigpu/tuned: $(filter step05_barneshut/tuned,$(TUNED))
endif

deps:
	@scripts/setup/ensure_deps.sh png
# the race checks' clang, libomp and Archer when they can be installed; without
# them the suite "races" is SKIPPED and says why (common/tsan.mk)
deps-test:
	@scripts/setup/ensure_deps.sh png cunit grade
	@scripts/setup/ensure_deps.sh tsan || echo "make: without them the tests' race checks (suite \"races\") are SKIPPED"
# every Debian package of every documented target (scripts/setup/ensure_deps.sh --list all)
setup:
	@scripts/setup/ensure_deps.sh all

# every program this machine can run, step05 --cpu too; a table at the end
RUN_PROGRAMS := $(foreach s,$(STEPS),$(s) $(foreach t,$(call nb_tuned_of,$(s)),$(t)/nbody_tuned) \
                  $(if $(filter step05_barneshut,$(s)),step05_barneshut:--cpu \
                    $(foreach t,$(call nb_tuned_of,$(s)),$(t)/nbody_tuned:--cpu)))
run: deps all
	@scripts/setup/run.sh $(RUN_PROGRAMS)

# every user-facing target, one line each (scripts/setup/help.txt)
help:
	@cat scripts/setup/help.txt

# check-all builds each runner with its step on its own (a step that does not
# build fails its own tests only), runs them, and grades (scripts/grade/check_all.sh).
check-all: deps-test
	@MAKE='$(MAKE)' V='$(V)' bash scripts/grade/check_all.sh $(filter-out common,$(RUNNERS))

# a class at once: every student repository under SUBMISSIONS graded in a
# copy of the kit, its changes to the grader flagged, a gradebook
# (scripts/grade/grade_class.sh; OUT=FILE on the command line, default
# SUBMISSIONS/grades.csv: an OUT in the environment is not taken for it)
grade-class: deps-test
	@MAKE='$(MAKE)' STEPS='$(STEPS)' bash scripts/grade/grade_class.sh '$(SUBMISSIONS)' $(if $(filter command line,$(origin OUT)),'$(OUT)')

# the documents' quoted counts (scripts/tables/doc_counts.sh) and test outputs
# (scripts/tables/examples.sh), from the tree as it is
doc-counts:
	@bash scripts/tables/doc_counts.sh
# the layout measured, now and at LAYOUT_BEFORE (the tree before its going-
# further builds had folders of their own): docs/layout.md (scripts/tables/layout.py)
LAYOUT_BEFORE ?= 90b0fdb
lint-kit-files:
	@bash scripts/grade/lint_kit_files.sh
layout:
	@python3 -I scripts/tables/layout.py --before '$(LAYOUT_BEFORE)' --write docs/layout.md && \
	  echo "make layout: wrote docs/layout.md (against $(LAYOUT_BEFORE))"
examples:
	@bash scripts/tables/examples.sh && bash scripts/tables/doc_counts.sh

# the mutation catalog: every mistake in tests/mutants/ must fail its step's tests
# (scripts/grade/mutants.sh; MUTANTS=cpu|gpu|all, JOBS=N mutants at a time)
mutants: deps-test
	@MUTANTS='$(MUTANTS)' JOBS='$(JOBS)' ARCH='$(ARCH)' bash scripts/grade/mutants.sh

sanitize: all
	@scripts/gpu/sanitize.sh $(filter-out step01_cpu,$(STEPS)) $(addsuffix /nbody_tuned,$(TUNED))

# libFuzzer targets of the readers and the option parser (tests/fuzz/Makefile)
FUZZ_SECONDS ?= 60
fuzz:
	@$(MAKE) --no-print-directory -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)
fuzz-regress:
	@$(MAKE) --no-print-directory -C tests/fuzz regress

# make diff STEP=03: the lesson of step 03, its files against their
# counterparts in the steps before, in reading order (docs/lessons.tsv; the
# student-kit markers stripped; DIFF_ALL=1: every file of the two steps, raw)
STEP ?= 03
diff:
	@DIFF_ALL='$(DIFF_ALL)' scripts/setup/diff_step.sh '$(STEP)'

# make movie FRAMES=DIR [MOVIE=out.mp4]: frames written by --render DIR
FRAMES ?= frames
movie:
	@scripts/setup/ensure_deps.sh ffmpeg
	@scripts/setup/movie.sh $(FRAMES) $(MOVIE)

-include scripts/tables/targets.mk
-include scripts/grade/student_kit.mk

clean:
	@for d in common tests tests/fuzz $(STEPS) $(TUNED) $(EXERCISES); do $(MAKE) $(Q_MAKE) --no-print-directory -C $$d clean; done
	@rm -rf dist
