/* Lab 04 benchmark: where the pages of your nb_alloc_on_node went, read from your process's
 * /proc files: the tests' own code (tests/numa_maps.c, see tests/numa_maps.h), built into the
 * benchmark too. */
#include "../tests/numa_maps.c"
