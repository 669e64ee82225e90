# common/cuda.mk -- where the CUDA toolkit is (common/config.mk, the test
# runners' list tests/runners.mk).  Sets:
#   CUDA_HOME    CUDA_HOME as given, else the folder above nvcc's on PATH,
#                else /usr/local/cuda
#   NVCC         $(CUDA_HOME)/bin/nvcc unless given
#   NVCC_FOUND   1, or empty when there is no nvcc: the steps with CUDA code
#                (a .cu file in their folder) are then left out, and `make`,
#                `make run` and `make check-all` say so, one line each
#   NVCC_WHY     the reason, when not found
ifndef NB_CUDA_MK
NB_CUDA_MK := 1
CUDA_HOME ?= $(or $(shell dirname $$(dirname $$(command -v nvcc 2>/dev/null)) 2>/dev/null),/usr/local/cuda)
NVCC      ?= $(CUDA_HOME)/bin/nvcc
NVCC_FOUND := $(if $(shell command -v '$(firstword $(NVCC))' 2>/dev/null),1)
NVCC_WHY   := no CUDA compiler (nvcc) found (looked for $(firstword $(NVCC))); install the CUDA toolkit or set CUDA_HOME
endif
