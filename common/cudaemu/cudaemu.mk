# The CUDA emulator (common/cudaemu/) for programs built by common/lab-build.mk: the emulator's
# own tests (selftest/lab.mk) include this and link $(CUDAEMU_OBJS) into their programs; so does
# common/lab-build.mk for a lab that uses CUDA, with CUDAEMU_DEFS = -DMM_EMU_PRIVATE_NAMES and
# the shim (mm_cuda_shim.c) that chooses between the emulator and the real runtime.
CUDAEMU_DIR  := $(ROOT)/common/cudaemu
CUDAEMU_OBJS := $(patsubst $(CUDAEMU_DIR)/%.c,$(OUT)/obj/cudaemu/%.o,$(wildcard $(CUDAEMU_DIR)/mm_cudaemu*.c))
CUDAEMU_DEFS ?=
CPPFLAGS += -I$(CUDAEMU_DIR)

# Where the toolkit's driver_types.h exists, the emulator's numbers are compared with it at
# compile time (mm_cuda_abi_check.c); a machine without a toolkit builds without the check.
CUDAEMU_ABI_HEADER := $(wildcard $(CUDA_HOME)/include/driver_types.h)
ifneq ($(CUDAEMU_ABI_HEADER),)
  CUDAEMU_OBJS += $(OUT)/obj/cudaemu/mm_cuda_abi_check.o
endif

$(OUT)/obj/cudaemu/mm_cuda_abi_check.o: $(CUDAEMU_DIR)/mm_cuda_abi_check.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -I$(CUDA_HOME)/include $(CFLAGS) -c -o $@ $<

$(OUT)/obj/cudaemu/%.o: $(CUDAEMU_DIR)/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CUDAEMU_DEFS) $(CFLAGS) -c -o $@ $<
