# The CUDA emulator (common/cudaemu/) for programs built by common/lab-build.mk: a lab.mk includes
# this and adds $(CUDAEMU_OBJS) to the programs that use it (as selftest/lab.mk does). Not part
# of any lab's build by default: common/lab-build.mk compiles only common/*.c.
CUDAEMU_DIR  := $(ROOT)/common/cudaemu
CUDAEMU_OBJS := $(patsubst $(CUDAEMU_DIR)/%.c,$(OUT)/obj/cudaemu/%.o,$(wildcard $(CUDAEMU_DIR)/mm_cudaemu*.c))
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
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
