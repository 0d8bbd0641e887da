/* Lab {{N}} — {{TITLE}}: the contract of the code you write (src/{{ID}}.c).
 * TODO(course): the example's one function; declare your lab's API here. Only what this folder's
 * headers declare is visible outside the student's object (common/student-object.sh). */
#ifndef {{GUARD}}
#define {{GUARD}}
#include <stddef.h>

/* The sum of the rows * cols floats of the row-major matrix m (element (i, j) at m[i * cols + j]),
 * added in double precision, into *sum; reads every element once and writes nothing else.
 * Returns 0, or:
 *   -EINVAL: sum is NULL, or m is NULL while rows * cols > 0 (*sum is left as it was). */
int {{ID}}_sum(const float *m, size_t rows, size_t cols, double *sum);

#endif
