/* Lab 04: the machines the lab plans for, shipped as hwloc XML exports in topologies/ and built
 * into the programs (src/shipped.c), so tests and benchmark find them wherever they run.
 * `lstopo --input topologies/<name>.xml` draws one. */
#ifndef NB_SHIPPED_H
#define NB_SHIPPED_H
#include <stddef.h>

typedef struct {
    const char *name;  /* the file name without .xml, e.g. "two-socket-8gpu" */
    const char *about; /* one line on the machine */
    const char *xml;   /* the file's text, NUL-terminated */
    size_t len;        /* its length without the NUL */
} nb_shipped_t;

/* The shipped topology called `name`, or NULL if there is none. */
const nb_shipped_t *nb_shipped(const char *name);

/* The k-th shipped topology (k = 0, 1, ...), or NULL past the last. */
const nb_shipped_t *nb_shipped_at(unsigned k);

#endif
