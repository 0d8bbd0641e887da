/* Lab 07 benchmark: the harness's end of the forwarding back end, the tests' own code
 * (tests/host.c, see tests/host.h), built into the benchmark too. */
#include "../tests/host.c"
