# Lab 12: src/kernels.cu compiled as C++ for the kernel emulator (include/kemu.h), into the
# student's object (common/lab-build.mk compiles an editable .cu by this rule): include/kemu_cuda.h
# first, for CUDA's names; ThreadSanitizer's instrumentation (a call before every load and store
# the compiled code makes) without its run-time library, its calls renamed to the emulator's
# recorders (kemu_tsan_*) and its constructor dropped. Always -O2, whatever the sanitizer build
# around it; no loop turned into a memcpy call (which the recorders would not see).
# The student's file (EDITABLE) is first checked by common/student-cu.sh: no preprocessor
# conditional or predefined macro that would let it compile to other code here than for a GPU.
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

# The compiler's object before objcopy: kept, so that make does not say it removes it.
.PRECIOUS: $(OUT)/obj/%.cu-emu.raw.o
