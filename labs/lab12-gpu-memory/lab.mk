# Lab 12: src/kernels.cu compiled as C++ for the kernel emulator (include/kemu.h), into the
# student's object (common/lab-build.mk compiles an editable .cu by this rule): include/kemu_cuda.h
# first, for CUDA's names; ThreadSanitizer's instrumentation (a call before every load and store
# the compiled code makes) without its run-time library, its calls renamed to the emulator's
# recorders (kemu_tsan_*) and its constructor dropped. Always -O2, whatever the sanitizer build
# around it; no loop turned into a memcpy call (which the recorders would not see).
# The student's file (EDITABLE) is first checked by common/student-cu.sh: no preprocessor
# conditional or predefined macro that would let it compile to other code here than for a GPU.
# For the GPU-timed metrics, with a working nvcc the same file is also compiled to device code
# only (nvcc -fatbin: no host code, nothing of it runs on the CPU), in the sandbox like the
# student's object; the benchmark embeds it as data (bench/gpu_image.c) with nvcc's verdict, and
# says why it cannot time where there is none.
# `kemuprobe` (tools/kemuprobe.c, kernels in tools/probes.cu) prints the model's counts for
# access patterns with known answers (grader/tests/test_lab12_kemu.py checks them).
CXX     ?= g++
OBJCOPY ?= objcopy
NM      ?= nm
LAB_PROGS := kemuprobe=tools/kemuprobe.c
KEMU_CXXFLAGS := -std=gnu++17 -O2 -g -fno-exceptions -fno-rtti -fno-threadsafe-statics \
  -fno-tree-loop-distribute-patterns -fsanitize=thread --param=tsan-instrument-func-entry-exit=0 \
  -Wall -Wextra -Wshadow $(if $(filter 1,$(WERROR)),-Werror) -include kemu_cuda.h

KEMU_STUDENT_HEADERS := gpu_memory.h kemu.h
kemu_student_check = $(if $(filter $1,$(EDITABLE)),sh $(ROOT)/common/student-cu.sh $< $1 \
  $(KEMU_STUDENT_HEADERS))

$(OUT)/obj/%.cu-emu.raw.o: $(LABSRC)/%.cu
	@mkdir -p $(@D)
	$(Q)$(call kemu_student_check,$*.cu)
	@echo "  CXX     $*.cu (kernel emulator)"
	$(Q)$(CXX) $(CPPFLAGS) -MF $(@:.raw.o=.d) $(KEMU_CXXFLAGS) -x c++ -c -o $@ $<

$(OUT)/obj/%.cu-emu.o: $(OUT)/obj/%.cu-emu.raw.o
	$(Q)$(OBJCOPY) --wildcard -R '.init_array*' -R '.rela.init_array*' \
	  $$($(NM) -u $< | awk '$$2 ~ /^__tsan_/ { s = $$2; sub(/^__tsan_/, "", s); \
	      printf " --redefine-sym %s=kemu_tsan_%s", $$2, s }') $< $@

$(OUT)/kemuprobe: $(OUT)/obj/tools/probes.cu-emu.o

# Device code of the student's file; kernels.cu.fatbin.log: "ok", or "nvcc: " and its first
# errors (the image is then empty: the GPU metrics fail, the emulated ones are still graded).
GM_CU := src/kernels.cu
ifneq ($(NVCC),)
student-object: $(OUT)/obj/$(GM_CU).fatbin
endif
$(OUT)/obj/%.cu.fatbin: $(LABSRC)/%.cu
	@mkdir -p $(@D)
	$(Q)$(call kemu_student_check,$*.cu)
	@echo "  NVCC    $*.cu (device code, for the GPU benchmark)"
	$(Q)if $(NVCC) -fatbin $(NVCC_ARCH) -I$(LABSRC)/include -o $@ $< > $@.out 2>&1; then \
	  printf ok > $@.log; else : > $@; { printf 'nvcc: '; grep -m3 -i error $@.out || \
	  head -n3 $@.out; } | sed 's|$(LABSRC)/||g' | tr '\n' ' ' > $@.log; fi; rm -f $@.out

# The trusted build takes the image the sandbox made (beside STUDENT_PREBUILT), or its own
# (make lab12), as plain files only; with neither, an empty image and the reason.
GM_FROM  := $(if $(STUDENT_PREBUILT),$(dir $(STUDENT_PREBUILT)),$(OUT)/obj/)$(GM_CU).fatbin
GM_IMAGE := $(OUT)/obj/gpu/image.fatbin
$(GM_IMAGE): $(if $(STUDENT_PREBUILT),$(STUDENT_PREBUILT),$(if $(NVCC),$(GM_FROM)))
	@mkdir -p $(@D)
	$(Q)if [ -f $(GM_FROM) ] && [ ! -L $(GM_FROM) ] && [ -f $(GM_FROM).log ] && \
	  [ ! -L $(GM_FROM).log ]; then cp $(GM_FROM) $@ && head -c 600 $(GM_FROM).log > $@.log; \
	  else : > $@; printf '%s' "no nvcc here compiled the kernels for a GPU (set CUDA_HOME)" \
	  > $@.log; fi
$(OUT)/obj/bench/gpu_image.o: $(GM_IMAGE)
$(OUT)/obj/bench/gpu_image.o: CPPFLAGS += -DGM_IMAGE='"$(GM_IMAGE)"' \
  -DGM_IMAGE_LOG='"$(GM_IMAGE).log"'

# The compiler's object before objcopy: kept, so that make does not say it removes it.
.PRECIOUS: $(OUT)/obj/%.cu-emu.raw.o
