# Lab 11: the code under test is C against CPython's C API, run by the debug interpreter
# (python3-dbg: sys.gettotalrefcount counts every reference), so the tests can see a leaked
# reference. The interpreter runs in the student's program (serve/interp.c; the benchmark's
# baselines run in one of its own): both link it. The Python sources the tests run there (py/*.py
# and the student's src/train_loop.py) are embedded in that program (common/mm_embed.h): a run
# folder holds only the programs.
PY_DBG_CONFIG := $(firstword $(shell command -v python3-dbg-config 2>/dev/null))
ifeq ($(PY_DBG_CONFIG),)
  $(error lab 11 needs the debug interpreter and its headers: apt-get install python3-dbg python3-dev python3-numpy (or run common/setup-deps.sh))
endif
# -I, not -isystem: Debian's python3.11d/ holds links to the release headers, and gcc resolves
# an -isystem link before Python.h's "pyconfig.h", which then finds the release build's (no
# Py_DEBUG: your references would go uncounted).
CPPFLAGS   += $(sort $(shell $(PY_DBG_CONFIG) --includes))
# Where the embedded interpreter finds its library (include/po_python.h), whatever `python3` is
# first on PATH.
CPPFLAGS   += -DPO_PY_HOME='"$(shell $(PY_DBG_CONFIG) --prefix)"'
LAB_LDLIBS += $(shell $(PY_DBG_CONFIG) --embed --libs)

# The embedded sources: rebuild the object that holds them when one changes.
$(OUT)/obj/serve/pysrc.o: $(LABSRC)/py/minigrad.py $(LABSRC)/py/harness.py $(LABSRC)/src/train_loop.py
$(OUT)/obj/serve/pysrc.o: CPPFLAGS += -DPO_PY_DIR='"$(LABSRC)/py"' -DPO_SRC_DIR='"$(LABSRC)/src"'
