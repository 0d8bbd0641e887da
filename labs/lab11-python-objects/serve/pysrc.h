/* Lab 11 (the student's process): the embedded Python sources (serve/pysrc.c), each a
 * NUL-terminated string. */
#ifndef PO_PYSRC_H
#define PO_PYSRC_H

#define PO_EMBEDDED(sym) extern const char sym[] __attribute__((visibility("hidden")))
PO_EMBEDDED(po_src_minigrad);
PO_EMBEDDED(po_src_harness);
PO_EMBEDDED(po_src_train_loop);

#endif
