# tests/runners.mk -- the CUnit runners, one list for the top-level Makefile
# and tests/Makefile: common, one per step directory (step*/Makefile, found,
# not listed), and step04's tuned build (a second program of step04_shared).
# Paths are relative to the including Makefile's directory (NB_TOP).
NB_STEPS   := $(patsubst $(NB_TOP)/%/Makefile,%,$(sort $(wildcard $(NB_TOP)/step0*/Makefile)))
# $(call nb_runners,STEPS): the runners of those steps
nb_runners = common $(1) $(if $(filter step04_shared,$(1)),step04_tuned)
NB_RUNNERS := $(call nb_runners,$(NB_STEPS))
