# tests/runners.mk -- the CUnit runners, one list for the top-level Makefile
# and tests/Makefile: common, one per step directory (step*/Makefile, found,
# not listed), and the tuned builds (a tuned/ folder in a step).
# A step is left out where what it needs is missing; `make`, `make run` and
# `make check-all` say so, one line each (its runners SKIPPED with the
# reason in check-all); nothing fails:
#  - every step with CUDA code (a .cu file in its folder) without nvcc
#    (common/cuda.mk); step05_barneshut's --cpu code with it, since it is the
#    same program as the GPU pipeline (its main() links both);
#  - step06_multigpu without NCCL (common/nccl.mk).
# NB_SKIPPED_STEPS: those steps; $(call nb_skip_why,STEP): why.
# Paths are relative to the including Makefile's directory (NB_TOP).
include $(NB_TOP)/common/cuda.mk
include $(NB_TOP)/common/nccl.mk
NB_STEPS_FOUND := $(patsubst $(NB_TOP)/%/Makefile,%,$(sort $(wildcard $(NB_TOP)/step0*/Makefile)))
NB_GPU_STEPS_FOUND := $(foreach s,$(NB_STEPS_FOUND),$(if $(wildcard $(NB_TOP)/$(s)/*.cu),$(s)))
ifeq ($(NVCC_FOUND),)
NB_SKIPPED_STEPS := $(NB_GPU_STEPS_FOUND)
else ifeq ($(NCCL_FOUND),)
NB_SKIPPED_STEPS := $(filter step06_multigpu,$(NB_STEPS_FOUND))
else
NB_SKIPPED_STEPS :=
endif
NB_STEPS := $(filter-out $(NB_SKIPPED_STEPS),$(NB_STEPS_FOUND))
nb_skip_why = $(if $(NVCC_FOUND),NCCL not found: $(NCCL_WHY),$(NVCC_WHY)$(if \
  $(filter step05_barneshut,$(1)), (its --cpu code is in the same program as the GPU pipeline: it needs nvcc to link)))
# The tuned builds ("going further") are folders of their own, step*/tuned/
# (the student kit has none): a folder's runner is its step's number and
# "_tuned" (step04_shared/tuned: step04_tuned).
NB_TUNED_DIRS := $(patsubst $(NB_TOP)/%/Makefile,%,$(sort $(wildcard $(NB_TOP)/step0*/tuned/Makefile)))
# $(call nb_tuned_of,STEPS): the tuned folders of those steps
nb_tuned_of = $(foreach s,$(1),$(filter $(s)/tuned,$(NB_TUNED_DIRS)))
# $(call nb_tuned_runner,FOLDER): its runner
nb_tuned_runner = $(firstword $(subst _, ,$(patsubst %/tuned,%,$(1))))_tuned
NB_TUNED := $(filter step04_shared/tuned,$(NB_TUNED_DIRS))
# The optional exercises that are folders of their own, step*/precision/
# (step01_cpu/precision: --precision double and mixed): built after their
# step, graded by its runner (no runner of their own); the student kit keeps
# them, blanked.
NB_EXERCISE_DIRS := $(patsubst $(NB_TOP)/%/Makefile,%,$(sort $(wildcard $(NB_TOP)/step0*/precision/Makefile)))
# $(call nb_exercises_of,STEPS): the exercise folders of those steps
nb_exercises_of = $(foreach s,$(1),$(filter $(s)/precision,$(NB_EXERCISE_DIRS)))
# $(call nb_runners,STEPS): the runners of those steps, each with its tuned build's
nb_runners = common $(foreach s,$(1),$(s) $(foreach t,$(call nb_tuned_of,$(s)),$(call nb_tuned_runner,$(t))))
NB_RUNNERS := $(call nb_runners,$(NB_STEPS))
# the runners of the steps left out (their tuned builds' too), each with
# why, for scripts/grade/check_all.sh and scripts/setup/run.sh:
# NB_SKIPPED_RUNNERS and NB_SKIPPED_WHY_<runner> (exported by the top-level Makefile)
NB_SKIPPED_RUNNERS := $(foreach s,$(NB_SKIPPED_STEPS),$(filter-out common,$(call nb_runners,$(s))))
$(foreach s,$(NB_SKIPPED_STEPS),$(foreach r,$(filter-out common,$(call nb_runners,$(s))),\
  $(eval NB_SKIPPED_WHY_$(r) := $(call nb_skip_why,$(s)))))
