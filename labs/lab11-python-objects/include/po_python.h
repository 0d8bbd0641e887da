/* Lab 11: starting the debug interpreter the lab was built against (python3-dbg), in the
 * student's program (serve/interp.c) and in the benchmark's (bench/bench_lab11.c). Its home is
 * the build's (PO_PY_HOME, from python3-dbg-config --prefix, lab.mk): left to itself, an
 * embedded interpreter looks for its standard library beside the first `python3` on PATH, which
 * may be another Python's (pyenv's, conda's), without NumPy or the debug build's modules. */
#ifndef PO_PYTHON_H
#define PO_PYTHON_H
#include <Python.h>

#ifndef PO_PY_HOME
#error "PO_PY_HOME: the debug interpreter's prefix (lab.mk sets it)"
#endif

/* Starts the interpreter without its signal handlers (as Py_InitializeEx(0)). Returns its status:
 * PyStatus_Exception(st) on failure, st.err_msg then says why. */
static inline PyStatus po_python_start(void)
{
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    PyStatus st = PyConfig_SetBytesString(&config, &config.home, PO_PY_HOME);
    if (!PyStatus_Exception(st))
        st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    return st;
}

#endif
