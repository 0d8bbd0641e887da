/* Lab 11: starting the debug interpreter the lab was built against (python3-dbg), in the
 * student's program (serve/interp.c) and in the benchmark's (bench/bench_lab11.c). Its home is
 * the build's (PO_PY_HOME, from python3-dbg-config --prefix, lab.mk): left to itself, an
 * embedded interpreter looks for its standard library beside the first `python3` on PATH, which
 * may be another Python's (pyenv's, conda's), without NumPy or the debug build's modules. */
#ifndef PO_PYTHON_H
#define PO_PYTHON_H
#include <Python.h>
#include <stdio.h>

#ifndef PO_PY_HOME
#error "PO_PY_HOME: the debug interpreter's prefix (lab.mk sets it)"
#endif

/* Starts the interpreter without its signal handlers (as Py_InitializeEx(0)). Returns 0, or -1
 * with why[0..len) saying why it could not start. */
static inline int po_python_start(char *why, size_t len)
{
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    PyStatus st = PyConfig_SetBytesString(&config, &config.home, PO_PY_HOME);
    if (!PyStatus_Exception(st))
        st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (!PyStatus_Exception(st))
        return 0;
    snprintf(why, len, "the debug interpreter could not start (%s): %s", PO_PY_HOME,
             st.err_msg ? st.err_msg : "no reason given");
    return -1;
}

#endif
