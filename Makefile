# nbody-lab -- top-level Makefile (see README.md)
#   make             build every step that exists
#   make run         build and run every step this machine can run (the main job)
#   make check-all   build and run every CUnit runner; points table and total
#   make bench | tables | plots | profile | sanitize | movie | student-kit
#   make fuzz [FUZZ_SECONDS=60] | fuzz-regress   libFuzzer targets (fuzz/Makefile)
#   make diff STEP=03   what step 03 changes relative to step 02
#   make clean
# Variables: ARCH=sm_86 (one GPU target), CUNIT_PREFIX=DIR/usr (CUnit without root)
STEPS := $(patsubst %/Makefile,%,$(sort $(wildcard step0*/Makefile)))
export CUNIT_PREFIX

.PHONY: all run check-all deps deps-test sanitize fuzz fuzz-regress diff movie clean common $(STEPS)
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

check-all: deps-test all
	@rm -rf tests/results && mkdir -p tests/results
	@printf '%s\n' common $(STEPS) > tests/results/.expected
	@$(MAKE) --no-print-directory -C tests run_common $(addprefix run_,$(STEPS))
	@status=0; for r in common $(STEPS); do \
	  (cd tests && timeout 3600 ./run_$$r) || status=1; done; \
	scripts/grade_table.sh tests/results || status=1; exit $$status

sanitize: all
	@scripts/sanitize.sh $(filter-out step01_cpu,$(STEPS))

# libFuzzer targets of the readers and the option parser (fuzz/Makefile)
FUZZ_SECONDS ?= 60
fuzz:
	@$(MAKE) --no-print-directory -C fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)
fuzz-regress:
	@$(MAKE) --no-print-directory -C fuzz regress

# make diff STEP=03: the lesson of step 03 is its diff to step 02 (the
# step's own source file against the previous step's; DIFF_ALL=1: every file)
STEP ?= 03
diff:
	@cur=$$(ls -d step$(STEP)_* 2>/dev/null | head -1); \
	 num=$$(echo "$(STEP)" | sed 's/^0*//'); prev=""; \
	 [ -n "$$num" ] && prev=$$(ls -d step$$(printf '%02d' $$((num - 1)))_* 2>/dev/null | head -1); \
	 if [ -z "$$cur" ] || [ -z "$$prev" ]; then echo "make diff: no step $(STEP) or no step before it" >&2; exit 2; fi; \
	 a=$$(ls $$prev/*.cu 2>/dev/null | head -1); [ -n "$$a" ] || a=$$prev/forces.c; \
	 b=$$(ls $$cur/*.cu 2>/dev/null | head -1); \
	 if [ -n "$(DIFF_ALL)" ]; then diff -ru -x '*.o' -x '*.a' -x nbody $$prev $$cur || true; \
	 else echo "diff -u $$a $$b"; diff -u $$a $$b || true; fi

# make movie FRAMES=DIR [MOVIE=out.mp4]: frames written by --render DIR
FRAMES ?= frames
movie:
	@scripts/movie.sh $(FRAMES) $(MOVIE)

-include scripts/targets.mk
-include scripts/student_kit.mk

clean:
	@for d in common tests fuzz $(STEPS); do $(MAKE) --no-print-directory -C $$d clean; done
	rm -rf dist
