# tests/runners.mk -- the CUnit runners, one list for the top-level Makefile
# and tests/Makefile: common, one per step directory (step*/Makefile, found,
# not listed), and the tuned builds of step04 and step05 (second programs of
# their steps).
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
# $(call nb_runners,STEPS): the runners of those steps
# (the tuned builds only where their sources are: the student kit leaves them out)
NB_TUNED := $(wildcard $(NB_TOP)/step04_shared/tuned.cu)
NB_TUNED05 := $(wildcard $(NB_TOP)/step05_barneshut/tuned.cu)
nb_runners = common $(1) $(if $(and $(filter step04_shared,$(1)),$(NB_TUNED)),step04_tuned) \
             $(if $(and $(filter step05_barneshut,$(1)),$(NB_TUNED05)),step05_tuned)
NB_RUNNERS := $(call nb_runners,$(NB_STEPS))
