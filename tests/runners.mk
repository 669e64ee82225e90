# tests/runners.mk -- the CUnit runners, one list for the top-level Makefile
# and tests/Makefile: common, one per step directory (step*/Makefile, found,
# not listed), and the tuned builds (a tuned/ folder in a step).
# step06_multigpu needs NCCL (common/nccl.mk): without it, it is left out of
# the steps and NB_SKIPPED says why (`make`, `make run` and `make check-all`
# print it; nothing fails).
# Paths are relative to the including Makefile's directory (NB_TOP).
include $(NB_TOP)/common/nccl.mk
NB_STEPS_FOUND := $(patsubst $(NB_TOP)/%/Makefile,%,$(sort $(wildcard $(NB_TOP)/step0*/Makefile)))
NB_SKIPPED :=
ifeq ($(NCCL_FOUND),)
ifneq ($(filter step06_multigpu,$(NB_STEPS_FOUND)),)
NB_SKIPPED := step06_multigpu (not built: NCCL not found: $(NCCL_WHY))
endif
NB_STEPS   := $(filter-out step06_multigpu,$(NB_STEPS_FOUND))
else
NB_STEPS   := $(NB_STEPS_FOUND)
endif
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
