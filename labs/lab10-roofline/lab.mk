# Lab 10 is about speed at the memory roof, so it is built as a performance kernel is: -O3 (the
# vectorizer at full strength; sanitizer builds keep their -O1), -march=native (common/flags.mk:
# AVX2 or AVX-512 where this CPU has them) and -fopenmp-simd (the `#pragma omp simd` hints only:
# no OpenMP threads, no run-time library).
CFLAGS += $(if $(SAN),,-O3) $(MM_NATIVE) -fopenmp-simd
# Under a sanitizer (-O1) clang cannot honour every `omp simd` and says so (-Wpass-failed): there
# that is expected, not a defect.
CFLAGS += $(if $(SAN),$(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),-Wno-pass-failed))
# `stream` (tools/stream.c): STREAM's four kernels on 1 .. all cores pinned with hwloc, reported
# with your rl_stream_summary, then the roofline they and the FMA peak draw.
LAB_PROGS := stream=tools/stream.c
$(OUT)/stream: $(OUT)/obj/bench/measure.o
# The benchmark checks a few rows of every timed call against the tests' oracles.
$(OUT)/bench: $(OUT)/obj/tests/oracle.o
# The simd_reductions metric (bench/lanes.c) reads your compiled code: the listing objdump makes
# of the library your files were linked into is copied into the benchmark (MM_EMBED).
OBJDUMP ?= objdump
RL_LISTING := $(abspath $(OUT)/obj/student.lst)
$(RL_LISTING): $(OUT)/liblab.a
	$(Q)$(OBJDUMP) -dr --no-show-raw-insn $< | head -c 16000000 > $@
$(OUT)/obj/bench/lanes.o: $(RL_LISTING)
$(OUT)/obj/bench/lanes.o: CPPFLAGS += -DRL_LISTING='"$(RL_LISTING)"'
