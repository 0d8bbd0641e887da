# Builds one lab out of tree: the student's library, the Check test program and the benchmark.
#   make -f common/lab-build.mk LABSRC=<lab folder> OUT=<build folder> [SAN=..] [WERROR=1]
#        [EDITABLE="src/a.c src/b.c"] [LAB_CUDA=1]
# The lab folder holds include/, src/ (compiled into liblab.a), tests/ and bench/, and may add an
# optional lab.mk with LAB_LDLIBS (extra libraries), LAB_PROGS (extra programs: name=src/x.c) and
# extra prerequisites (e.g. data files copied into an object with MM_EMBED, common/mm_embed.h).
# EDITABLE and LAB_CUDA are the lab's lab.toml as the grader reads it (grader/rules/labs.py,
# Lab.make_vars): the callers pass them (`make labNN`, grader/grading/build.py); this file never reads
# lab.toml. Without them (common/selftest) every file is archived as it is and there is no CUDA.
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/flags.mk
ifeq ($(LABSRC),)
  $(error LABSRC is not set: use the top-level Makefile, e.g. `make lab01`)
endif
# HARNESS_LDFLAGS: link flags for the harness's programs only (check_lab, bench), e.g. a test's
# --wrap of a Check function; the student's program never gets them.
# V=1 shows full command lines.
Q := $(if $(filter 1,$(V)),,@)
# Rules in a lab's lab.mk never become the default.
.DEFAULT_GOAL := all
LAB_LDLIBS :=
LAB_PROGS  :=
-include $(LABSRC)/lab.mk
# The libraries the lab's own lab.mk links, before CUDA's are added: the student's object may use
# their names (common/student-object.sh).
LAB_OWN_LDLIBS := $(LAB_LDLIBS)

CPPFLAGS += -I$(LABSRC)/include -I$(ROOT)/common -I$(ROOT)/common/harness
# common/*.c: helpers both sides use; common/harness/: the harness's own (the seal, the benchmark's
# report, the interposition check; Check's main and the call boundary's end are added below);
# common/student/: the student program's.
COMMON_SRCS := $(filter-out %/hwinfo.c,$(wildcard $(ROOT)/common/*.c))
COMMON_OBJS := $(patsubst $(ROOT)/common/%.c,$(OUT)/obj/common/%.o,$(COMMON_SRCS))
HARNESS_COMMON := $(patsubst $(ROOT)/common/%.c,$(OUT)/obj/common/%.o,$(filter-out \
                    %/mm_ck_main.c %/mm_call.c,$(wildcard $(ROOT)/common/harness/*.c)))
lab_objs = $(patsubst $(LABSRC)/%.c,$(OUT)/obj/%.o,$(wildcard $(LABSRC)/$1/*.c))
LIB_OBJS := $(call lab_objs,src)
CU_OBJS  :=
EMU_OBJS :=
# A lab that uses CUDA (LAB_CUDA=1: lab.toml's `cuda = true`) always builds its CUDA runtime
# code (MM_HAVE_CUDA) and links the emulated device (common/cudaemu/) behind a shim that picks the
# real runtime where a GPU is usable and the emulator elsewhere. With a working nvcc its kernels
# (src/*.cu) are compiled too (MM_HAVE_NVCC) against the toolkit's headers; without one the C
# code compiles against the emulator's <cuda_runtime_api.h> and the kernels are left out. An
# editable .cu is never one of them: nvcc's objects run host code before main (constructors),
# so a lab that times the student's kernels on a GPU builds them its own way (lab 12's lab.mk).
ifeq ($(LAB_CUDA),1)
  include $(ROOT)/common/cudaemu/cudaemu.mk
  CUDAEMU_DEFS := -DMM_EMU_PRIVATE_NAMES
  EMU_OBJS := $(filter-out %/mm_cuda_abi_check.o,$(CUDAEMU_OBJS)) $(OUT)/obj/cudaemu/mm_cuda_shim.o
  SHIM_DEFS :=
  CPPFLAGS += -DMM_HAVE_CUDA=1
  ifneq ($(NVCC),)
    CU_OBJS  := $(patsubst $(LABSRC)/%.cu,$(OUT)/obj/%.cu.o,$(filter-out \
                  $(addprefix $(LABSRC)/,$(EDITABLE)),$(wildcard $(LABSRC)/src/*.cu)))
    CPPFLAGS += -I$(CUDA_HOME)/include $(if $(CU_OBJS),-DMM_HAVE_NVCC=1)
    LAB_LDLIBS += $(if $(CU_OBJS),$(CUDA_LDLIBS))
  else
    CPPFLAGS += -I$(CUDAEMU_DIR)/include
    ifneq ($(wildcard $(LABSRC)/src/*.cu),)
      SHIM_DEFS := -DMM_CUDA_SHIM_NO_KERNELS
      $(info mlmem: no usable nvcc (none found, or it failed a probe compile; set CUDA_HOME): building $(notdir $(LABSRC)) without its GPU kernels: its CUDA code runs on the emulated device)
    endif
  endif
  LAB_LDLIBS += -ldl
endif

# A lab with a calls.toml runs the student's code in a program of its own (student_lab, made of
# common/student/, the lab's serve/ code, the calls generated from calls.toml, the student object
# and the lab's public code); check_lab and bench are the trusted harness and link no student
# code: they call it across the boundary (common/mm_call_abi.h, common/harness/mm_call.h).
SPLIT := $(if $(wildcard $(LABSRC)/calls.toml),1)
PROGS := $(OUT)/check_lab $(if $(wildcard $(LABSRC)/bench/*.c),$(OUT)/bench) $(foreach p,$(LAB_PROGS),$(OUT)/$(firstword $(subst =, ,$p))) $(if $(SPLIT),$(OUT)/student_lab)
all: $(PROGS)

# The student's code (the C files of EDITABLE) goes into liblab.a as one object that
# exports only the names the lab's headers declare (common/student-object.sh): a definition of
# memcpy, clock_gettime, pthread_create or a harness function there changes only the student's own
# calls, never the benchmark's baseline, its timer or the tests. The lab's provided sources are
# archived as they are. Without EDITABLE (common/selftest) everything is archived as it is.
# An editable CUDA file (src/x.cu) of a lab that emulates its kernels on the host joins the
# student's object as $(OUT)/obj/src/x.cu-emu.o, made by the rule its lab.mk gives (lab 12).
STUDENT_OBJS := $(strip $(filter $(patsubst %.c,$(OUT)/obj/%.o,$(filter %.c,$(EDITABLE))),$(LIB_OBJS)) \
                $(patsubst %.cu,$(OUT)/obj/%.cu-emu.o,$(filter %.cu,$(EDITABLE))))
# The grader compiles the student's files in its sandbox (goal student-object) and links the
# object it made here (STUDENT_PREBUILT=path): this build then never compiles them itself.
STUDENT_OBJ  := $(if $(STUDENT_PREBUILT),$(STUDENT_PREBUILT),$(if $(STUDENT_OBJS),$(OUT)/obj/student.o))
student-object: $(OUT)/obj/student.o
LAB_HEADERS  := $(abspath $(wildcard $(LABSRC)/include/*.h))

$(OUT)/liblab.a: $(STUDENT_OBJ) $(filter-out $(STUDENT_OBJS),$(LIB_OBJS)) $(CU_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

ifeq ($(STUDENT_PREBUILT),)
$(OUT)/obj/student.o: $(STUDENT_OBJS) $(OUT)/obj/lab-headers.i $(ROOT)/common/student-object.sh
	$(Q)sh $(ROOT)/common/student-object.sh $@ $(LABSRC) $(OUT)/obj/lab-headers.i "$(SAN)" \
	  "$(LAB_CUDA)" "$(strip $(LAB_OWN_LDLIBS))" $(STUDENT_OBJS)
endif

# The lab's headers together, preprocessed as the student's code is compiled.
$(OUT)/obj/lab-headers.i: $(LAB_HEADERS)
	@mkdir -p $(@D)
	$(Q)printf '#include "%s"\n' $^ | \
	  $(CC) $(filter-out -MMD -MP,$(CPPFLAGS)) $(CFLAGS) -E -x c -o $@ -

ifeq ($(SPLIT),1)
# The harness's side: the lab's public code without the student's, and a stub per student call.
GEN := $(OUT)/gen
HARNESS_OBJS := $(OUT)/obj/gen/calls_harness.o $(OUT)/obj/common/harness/mm_call.o \
                $(OUT)/libpublic.a
SERVE_OBJS := $(OUT)/obj/gen/calls_student.o $(OUT)/obj/common/student/mm_serve.o \
              $(OUT)/obj/common/student/mm_student_confine.o $(call lab_objs,serve)
CPPFLAGS += -I$(ROOT)/common/student
# The Python the grader uses (3.11+, or 3.10 with tomli, for tomllib).
PYTHON ?= $(shell sh $(ROOT)/common/find-python.sh 2>/dev/null || echo python3)

$(OUT)/libpublic.a: $(filter-out $(STUDENT_OBJS),$(LIB_OBJS)) $(CU_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(GEN)/calls_harness.c $(GEN)/calls_student.c &: $(LABSRC)/calls.toml $(ROOT)/common/gen-calls.py $(LAB_HEADERS)
	@mkdir -p $(GEN)
	$(Q)$(PYTHON) $(ROOT)/common/gen-calls.py $< $(GEN)/calls_harness.c $(GEN)/calls_student.c $(LAB_HEADERS)

$(OUT)/obj/gen/%.o: $(GEN)/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/student_lab: $(SERVE_OBJS) $(OUT)/liblab.a $(COMMON_OBJS) $(EMU_OBJS)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LAB_LDLIBS) $(LDLIBS)
else
HARNESS_OBJS := $(OUT)/liblab.a
endif

$(OUT)/check_lab: $(call lab_objs,tests) $(OUT)/obj/common/harness/mm_ck_main.o $(HARNESS_OBJS) $(HARNESS_COMMON) $(COMMON_OBJS) $(EMU_OBJS)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(HARNESS_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LAB_LDLIBS) $(LDLIBS)

$(OUT)/bench: $(call lab_objs,bench) $(HARNESS_OBJS) $(HARNESS_COMMON) $(COMMON_OBJS) $(EMU_OBJS)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(HARNESS_LDFLAGS) -o $@ $^ $(LAB_LDLIBS) $(LDLIBS)

define prog_rule
$(OUT)/$(firstword $(subst =, ,$1)): $(patsubst $(LABSRC)/%.c,$(OUT)/obj/%.o,$(LABSRC)/$(lastword $(subst =, ,$1))) $(OUT)/liblab.a $(COMMON_OBJS) $(EMU_OBJS)
	$$(Q)$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(LAB_LDLIBS) $$(LDLIBS)
endef
$(foreach p,$(LAB_PROGS),$(eval $(call prog_rule,$p)))

# The shim defines the CUDA runtime's names: compiled without the emulator's private names.
$(OUT)/obj/cudaemu/mm_cuda_shim.o: $(ROOT)/common/cudaemu/mm_cuda_shim.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(SHIM_DEFS) $(CFLAGS) -c -o $@ $<

$(OUT)/obj/common/%.o: $(ROOT)/common/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/obj/%.o: $(LABSRC)/%.c
	@mkdir -p $(@D)
	@echo "  CC      $*.c"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/obj/%.cu.o: $(LABSRC)/%.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $*.cu"
	$(Q)$(NVCC) $(NVCCFLAGS) -I$(LABSRC)/include -I$(ROOT)/common -c -o $@ $<

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)
.PHONY: all student-object
