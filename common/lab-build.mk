# Builds one lab out of tree: the student's library, the Check test program and the benchmark.
#   make -f common/lab-build.mk LABSRC=<lab folder> OUT=<build folder> [SAN=..] [WERROR=1]
# The lab folder holds include/, src/ (compiled into liblab.a), tests/ and bench/, and may add an
# optional lab.mk with LAB_LDLIBS (extra libraries), LAB_PROGS (extra programs: name=src/x.c) and
# extra prerequisites (e.g. data files assembled into an object with .incbin).
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/flags.mk
ifeq ($(LABSRC),)
  $(error LABSRC is not set: use the top-level Makefile, e.g. `make lab01`)
endif
Q := $(if $(filter 1,$(V)),,@)   # V=1 shows full command lines
.DEFAULT_GOAL := all             # rules in a lab's lab.mk never become the default
LAB_LDLIBS :=
LAB_PROGS  :=
-include $(LABSRC)/lab.mk

CPPFLAGS += -I$(LABSRC)/include -I$(ROOT)/common
COMMON_SRCS := $(filter-out %/hwinfo.c %/mm_ck_main.c,$(wildcard $(ROOT)/common/*.c))
COMMON_OBJS := $(patsubst $(ROOT)/common/%.c,$(OUT)/obj/common/%.o,$(COMMON_SRCS))
lab_objs = $(patsubst $(LABSRC)/%.c,$(OUT)/obj/%.o,$(wildcard $(LABSRC)/$1/*.c))
LIB_OBJS := $(call lab_objs,src)
CU_OBJS  :=
ifneq ($(wildcard $(LABSRC)/src/*.cu),)
  ifneq ($(NVCC),)
    CU_OBJS  := $(patsubst $(LABSRC)/%.cu,$(OUT)/obj/%.cu.o,$(wildcard $(LABSRC)/src/*.cu))
    CPPFLAGS += $(CUDA_CPPFLAGS)
    LAB_LDLIBS += $(CUDA_LDLIBS)
  else
    $(info mlmem: no usable nvcc (none found, or it failed a probe compile; set CUDA_HOME): building $(notdir $(LABSRC)) without its GPU parts)
  endif
endif

PROGS := $(OUT)/check_lab $(if $(wildcard $(LABSRC)/bench/*.c),$(OUT)/bench) $(foreach p,$(LAB_PROGS),$(OUT)/$(firstword $(subst =, ,$p)))
all: $(PROGS)

$(OUT)/liblab.a: $(LIB_OBJS) $(CU_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(OUT)/check_lab: $(call lab_objs,tests) $(OUT)/obj/common/mm_ck_main.o $(OUT)/liblab.a $(COMMON_OBJS)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LAB_LDLIBS) $(LDLIBS)

$(OUT)/bench: $(call lab_objs,bench) $(OUT)/liblab.a $(COMMON_OBJS)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LAB_LDLIBS) $(LDLIBS)

define prog_rule
$(OUT)/$(firstword $(subst =, ,$1)): $(patsubst $(LABSRC)/%.c,$(OUT)/obj/%.o,$(LABSRC)/$(lastword $(subst =, ,$1))) $(OUT)/liblab.a $(COMMON_OBJS)
	$$(Q)$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(LAB_LDLIBS) $$(LDLIBS)
endef
$(foreach p,$(LAB_PROGS),$(eval $(call prog_rule,$p)))

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
.PHONY: all
