/* Lab 11 tests: the embedded Python sources (tests/pysrc.c), each a NUL-terminated string. */
#ifndef TU_PYSRC_H
#define TU_PYSRC_H

#define TU_EMBEDDED(sym) extern const char sym[] __attribute__((visibility("hidden")))
TU_EMBEDDED(po_src_minigrad);
TU_EMBEDDED(po_src_harness);
TU_EMBEDDED(po_src_train_loop);

#endif
