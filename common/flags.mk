# Compiler flags shared by every build (compile-time knobs in one place).
#   WERROR=1   warnings are errors (the project's own code is built this way by `make test`)
#   SAN=asan   AddressSanitizer + UndefinedBehaviorSanitizer;  SAN=ubsan  UndefinedBehaviorSanitizer
#              alone;  SAN=tsan  ThreadSanitizer (e.g. `make lab03 SAN=asan`)
#   CUDA_HOME  where the CUDA toolkit lives (nvcc, cudart); without a working nvcc the GPU parts
#              are off (see NVCC below)
CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
MM_FLAGS_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
NVCC_FOUND := $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))

WARN    := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wno-sign-conversion
CFLAGS  := -std=gnu11 -O2 -g -pthread $(WARN) $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS = -MMD -MP -D_GNU_SOURCE
# Full RELRO: the dynamic linker's tables (the GOT) are read-only once the program starts.
LDFLAGS += -Wl,-z,relro,-z,now
# libseccomp and libcrypto: the harness confines code under test and seals its results for the
# grader (common/mm_confine.c, common/harness/mm_seal.c).
LDLIBS  := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc) -lnuma -lm \
           $(shell pkg-config --libs libseccomp libcrypto 2>/dev/null || echo -lseccomp -lcrypto)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

# MM_NATIVE: -march=native where the compiler knows it (a lab built for the CPU it runs on, as
# performance courses do: labs 08 and 10 add it in their lab.mk), else -mcpu=native (clang 14 on
# Arm64 refuses -march=native and takes -mcpu=native), else empty. Probed with -Werror: x86 clang
# only warns that it ignores -mcpu.
mm_native_try = $(shell $(CC) $(1) -Werror -x c -S -o /dev/null /dev/null 2>/dev/null && echo $(1))
MM_NATIVE := $(or $(call mm_native_try,-march=native),$(call mm_native_try,-mcpu=native))

SAN_asan := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ubsan := -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_tsan := -fsanitize=thread -fno-omit-frame-pointer
ifneq ($(SAN),)
  ifeq ($(SAN_$(SAN)),)
    $(error SAN must be asan, ubsan or tsan, not '$(SAN)')
  endif
  CFLAGS  += $(SAN_$(SAN)) -O1
  LDFLAGS += $(SAN_$(SAN))
endif

# FLAGS_TAG: the build folder's suffix for this flag set, so that objects built with other flags
# are never reused: -<SAN>, -werror with WERROR=1, -<compiler> for a compiler other than cc/gcc
# (build/labs/lab03-tensor-strides-asan-clang). The one definition: grader/grading/build.py's flags_tag
# asks make for it to name the grader's build folders.
mm_cc_name := $(notdir $(firstword $(CC)))
FLAGS_TAG  := $(if $(SAN),-$(SAN))$(if $(filter 1,$(WERROR)),-werror)$(if \
  $(filter-out cc gcc,$(mm_cc_name)),-$(mm_cc_name))
FLAGS_SET  := $(strip $(if $(SAN),SAN=$(SAN)) $(if $(filter 1,$(WERROR)),WERROR=1) $(if \
  $(filter-out cc gcc,$(mm_cc_name)),CC=$(CC)))

# GPU code: SASS for Ampere (sm_80: A100) and Hopper (sm_90: H100, H200), plus compute_90 PTX that
# the driver compiles for newer GPUs. Prebuilt SASS also runs where the driver is older than the
# toolkit's PTX (PTX is then refused: "unsupported toolchain"); the driver must still meet the
# toolkit's minimum (CUDA 13.x: >= 580, CUDA 12.x: >= 525; `make hwinfo` says what is here).
NVCC_ARCH := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS := -O2 -g $(NVCC_ARCH) -Xcompiler -Wall,-fPIC -MMD -MP

# NVCC: the nvcc found, if it compiles a small kernel with these flags (common/nvcc-probe.sh);
# else empty, with a message, and the lab builds without its GPU parts. Probed once, only by a
# build that needs it; the answer is kept in the build folder (OUT) for the next build there.
mm_nvcc_probe = $(shell sh "$(MM_FLAGS_DIR)nvcc-probe.sh" "$(NVCC_FOUND)" \
  "$(if $(OUT),$(OUT)/nvcc-probe)" $(NVCC_ARCH))
mm_nvcc_check = $(if $(NVCC_FOUND),$(if $(filter ok,$(mm_nvcc_out)),$(NVCC_FOUND),$(info \
  mlmem: $(NVCC_FOUND) cannot compile CUDA on this machine ($(mm_nvcc_out)): building without the \
  GPU parts)))
NVCC = $(eval mm_nvcc_out := $$(mm_nvcc_probe))$(eval NVCC := $$(mm_nvcc_check))$(NVCC)

# With a working nvcc (else empty). nvcc's objects are C++: a C link needs the C++ runtime too.
mm_cuda_libs  := -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart -lstdc++
CUDA_CPPFLAGS = $(if $(NVCC),-DMM_HAVE_CUDA=1 -I$(CUDA_HOME)/include)
CUDA_LDLIBS   = $(if $(NVCC),$(mm_cuda_libs))
