# Lab 03: the simulated-miss tests (tests/trace.h) run your src/copy.c a second time, compiled
# with ThreadSanitizer's instrumentation (a call before every load and store) but without its
# run-time library: objcopy renames the calls (__tsan_*) and memcpy/memmove/memset to the
# recorders of tests/trace.c, your three functions to tvtrace_*, and makes every other global
# of that object local, so it links beside your normal copy.o. Always -O2, as the benchmark's
# build, whatever the sanitizer build around it.
# `tracemiss` (tools/tracemiss.c) prints those misses for a shape and tile of your choice.
LAB_PROGS := tracemiss=tools/tracemiss.c
OBJCOPY ?= objcopy
NM      ?= nm
TRACE_OBJ := $(OUT)/obj/trace/copy_traced.o
TRACE_API := tv_contiguous tv_transpose2d_f32 tv_transpose2d_f32_tiled
TRACE_MEM := memcpy memmove memset __memcpy_chk __memmove_chk __memset_chk

$(OUT)/check_lab: $(TRACE_OBJ)
$(OUT)/tracemiss: $(OUT)/obj/tests/trace.o $(TRACE_OBJ)
# The traced object comes after liblab.a on the link line: the library again, for what it calls.
$(OUT)/check_lab $(OUT)/tracemiss: LDLIBS += $(OUT)/liblab.a

$(OUT)/obj/trace/copy.o: $(LABSRC)/src/copy.c
	@mkdir -p $(@D)
	@echo "  CC      src/copy.c (traced)"
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -fsanitize% -fno-sanitize% -O%,$(CFLAGS)) -O2 \
	  -fsanitize=thread -c -o $@ $<

$(TRACE_OBJ): $(OUT)/obj/trace/copy.o
	$(Q)$(OBJCOPY) $(foreach f,$(TRACE_API),--redefine-sym $f=tvtrace_$(f:tv_%=%)) \
	  $(foreach f,$(TRACE_MEM),--redefine-sym $f=tvtrace_$(f:__%_chk=%_chk)) \
	  $$($(NM) -u $< | awk '$$2 ~ /^__tsan_/ { s = $$2; sub(/^__tsan_/, "", s); \
	      printf " --redefine-sym %s=tvtrace_tsan_%s", $$2, s }') \
	  $(foreach f,$(TRACE_API),--keep-global-symbol=tvtrace_$(f:tv_%=%)) $< $@
