# common/nccl.mk -- where NCCL is, for step06_multigpu (its Makefile, the
# test runners' list tests/runners.mk, tests/Makefile).  scripts/setup/find_nccl.sh
# looks in NCCL_HOME (when set: there only), $(CUDA_HOME)/include + lib64,
# /usr/include + /usr/lib/x86_64-linux-gnu, and a Python install's
# nvidia.nccl package.  Sets:
#   NCCL_FOUND   1, or empty when there is no NCCL (step06 is then not built,
#                and `make run` / `make check-all` say so)
#   NCCL_CFLAGS  -I...            NCCL_LIBS  -L... -Wl,-rpath,... -lnccl
#   NCCL_WHY     where it looked, when not found
# Override:  make NCCL_HOME=/opt/nccl   (DIR/include/nccl.h, DIR/lib64 or DIR/lib)
ifndef NB_NCCL_MK
NB_NCCL_MK := 1
NB_NCCL_SCRIPT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../scripts/setup/find_nccl.sh)
NB_NCCL := $(shell NCCL_HOME='$(NCCL_HOME)' CUDA_HOME='$(CUDA_HOME)' sh '$(NB_NCCL_SCRIPT)' 2>/dev/null)
ifneq ($(words $(NB_NCCL)),3)
NCCL_FOUND :=
NCCL_WHY := $(shell NCCL_HOME='$(NCCL_HOME)' CUDA_HOME='$(CUDA_HOME)' sh '$(NB_NCCL_SCRIPT)' 2>&1 >/dev/null)
else
NCCL_FOUND  := 1
NCCL_CFLAGS := -I$(word 1,$(NB_NCCL))
NCCL_LIBS   := -L$(word 2,$(NB_NCCL)) -Wl,-rpath,$(word 2,$(NB_NCCL)) $(word 3,$(NB_NCCL))
endif
endif
