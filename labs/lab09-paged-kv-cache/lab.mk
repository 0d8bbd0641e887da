# Lab 09: the shipped request traces (the .trace files of traces/, made by tools/gen_traces.py) are assembled
# into the programs (src/trace.c, MM_EMBED of common/mm_embed.h), so the benchmark has them wherever the grader runs it.
KV_TRACE_DIR := $(abspath $(LABSRC)/traces)
CPPFLAGS += -DKV_TRACE_DIR='"$(KV_TRACE_DIR)"'
$(OUT)/obj/src/trace.o: $(wildcard $(KV_TRACE_DIR)/*.trace)
# `sweep` (tools/sweep.c) replays the traces through your code at several block sizes.
LAB_PROGS := sweep=tools/sweep.c
