/* Lab 11 (the student's process): the Python sources the tests run there, embedded in the
 * program (a run folder holds only the programs): the provided minigrad and harness, and your
 * src/train_loop.py. */
#include "mm_embed.h"
#include "pysrc.h"

MM_EMBED(po_src_minigrad, PO_PY_DIR "/minigrad.py");
MM_EMBED(po_src_harness, PO_PY_DIR "/harness.py");
MM_EMBED(po_src_train_loop, PO_SRC_DIR "/train_loop.py");
