# Lab 03: the simulated-miss tests (tests/check_trace.c) run your src/copy.c a second time, in
# your process (student_lab), compiled with ThreadSanitizer's instrumentation (a call before
# every load and store) but without its run-time library: objcopy renames the calls (__tsan_*)
# and memcpy/memmove/memset to the recorders of serve/trace_record.c, your three functions to
# tvtrace_*, and makes every other global of that object local, so it links beside your normal
# copy.o. Always -O2, as the benchmark's build, whatever the sanitizer build around it. The
# recorders log the accesses; the tests' model cache (tests/trace.c) replays the log.
# `tracemiss` (tools/tracemiss.c) prints those misses for a shape and tile of your choice.
LAB_PROGS := tracemiss=tools/tracemiss.c
OBJCOPY ?= objcopy
NM      ?= nm
READELF ?= readelf
TRACE_OBJ := $(OUT)/obj/trace/copy_traced.o
TRACE_API := tv_contiguous tv_transpose2d_f32 tv_transpose2d_f32_tiled
TRACE_MEM := memcpy memmove memset __memcpy_chk __memmove_chk __memset_chk

$(OUT)/student_lab: $(TRACE_OBJ)
$(OUT)/tracemiss: $(OUT)/obj/tests/trace.o $(OUT)/obj/serve/trace_record.o $(TRACE_OBJ)
# The traced object comes after liblab.a on the link line: the library again, for what it calls.
$(OUT)/student_lab $(OUT)/tracemiss: LDLIBS += $(OUT)/liblab.a

$(OUT)/obj/trace/copy.o: $(LABSRC)/src/copy.c
	@mkdir -p $(@D)
	@echo "  CC      src/copy.c (traced)"
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -fsanitize% -fno-sanitize% -O%,$(CFLAGS)) -O2 \
	  -fsanitize=thread -c -o $@ $<

# Your src/copy.c compiled this way never goes through common/student-object.sh, so the rules
# that script enforces for code that could run before any confinement are enforced here: the
# object's constructors and destructors are dropped (the instrumentation's own only calls
# __tsan_init, a no-op recorder; code that only this build of your file compiles, e.g. under
# __SANITIZE_THREAD__, would otherwise run in the student program before its first test), and an
# indirect function (IFUNC, whose resolver the dynamic loader runs) is refused.
TRACE_CTORS := .init_array* .fini_array* .ctors* .dtors* .preinit_array*
$(TRACE_OBJ): $(OUT)/obj/trace/copy.o
	$(Q)if $(READELF) -sW $< | awk '$$4 == "IFUNC" { f = 1 } END { exit !f }' || \
	    $(READELF) -rW $< | grep -q 'IRELATIVE'; then \
	  echo "src/copy.c: error: your code defines an indirect function (IFUNC), whose resolver" \
	    "would run in the dynamic loader before any of the lab's code" >&2; exit 1; fi
	$(Q)$(OBJCOPY) $(foreach s,$(TRACE_CTORS),--remove-section='$s' --remove-section='.rela$s') \
	  $(foreach f,$(TRACE_API),--redefine-sym $f=tvtrace_$(f:tv_%=%)) \
	  $(foreach f,$(TRACE_MEM),--redefine-sym $f=tvtrace_$(f:__%_chk=%_chk)) \
	  $$($(NM) -u $< | awk '$$2 ~ /^__tsan_/ { s = $$2; sub(/^__tsan_/, "", s); \
	      printf " --redefine-sym %s=tvtrace_tsan_%s", $$2, s }') \
	  $(foreach f,$(TRACE_API),--keep-global-symbol=tvtrace_$(f:tv_%=%)) $< $@
