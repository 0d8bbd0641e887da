# The CUDA emulator's unit tests (tests/*.c), built like a lab by common/lab-build.mk:
#   make -f common/lab-build.mk LABSRC=common/cudaemu/selftest OUT=<build folder> [SAN=..]
# The tests are written as a student would, against <cuda_runtime_api.h>: here the emulator's.
include $(ROOT)/common/cudaemu/cudaemu.mk
CPPFLAGS += -I$(CUDAEMU_DIR)/include
$(OUT)/check_lab: $(CUDAEMU_OBJS)
