# Compiler flags shared by every build (compile-time knobs in one place).
#   WERROR=1   warnings are errors (the project's own code is built this way by `make test`)
#   SAN=asan   AddressSanitizer + UndefinedBehaviorSanitizer;  SAN=tsan  ThreadSanitizer
#   CUDA_HOME  where the CUDA toolkit lives (nvcc, cudart); without nvcc the GPU parts are off
CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
NVCC      := $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))

WARN    := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wno-sign-conversion
CFLAGS  := -std=gnu11 -O2 -g -pthread $(WARN) $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS = -MMD -MP -D_GNU_SOURCE
LDLIBS  := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc) -lnuma -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

SAN_asan := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_tsan := -fsanitize=thread -fno-omit-frame-pointer
ifneq ($(SAN),)
  ifeq ($(SAN_$(SAN)),)
    $(error SAN must be asan or tsan, not '$(SAN)')
  endif
  CFLAGS  += $(SAN_$(SAN)) -O1
  LDFLAGS += $(SAN_$(SAN))
endif

ifneq ($(NVCC),)
  CUDA_CPPFLAGS := -DMM_HAVE_CUDA=1 -I$(CUDA_HOME)/include
  # nvcc's objects are C++: a C link needs the C++ runtime with them.
  CUDA_LDLIBS   := -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart -lstdc++
  NVCCFLAGS     := -O2 -g -Xcompiler -Wall,-fPIC -MMD -MP
endif
