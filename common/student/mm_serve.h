/* The student's process: the program that holds the student's code (common/student/). It holds
 * the student object, the lab's public code, the calls generated from the lab's calls.toml and
 * the lab's serve code (labs/labNN/serve/: workloads), and nothing of the harness: no test,
 * oracle, seed, key or clock that scores. Started as a zygote by whoever grades (the grader,
 * confined; or the harness itself in `make labNN`), it forks one fresh process per test before
 * any student code has run; each serves the calls the harness sends (common/mm_call_abi.h). */
#ifndef MM_SERVE_H
#define MM_SERVE_H
#include <stddef.h>
#include <stdint.h>

/* One call the student process can serve: its name and the function that unpacks its arguments
 * from `args`, makes the call and packs the result into `ret` (common/gen-calls.py makes these). */
typedef struct {
    const char *name;
    void (*fn)(const unsigned char *args, unsigned char *ret);
} mm_serve_entry_t;

/* The lab's calls, generated from calls.toml. */
extern const mm_serve_entry_t mm_serve_table[];
extern const size_t mm_serve_table_len;

/* A workload a lab's serve code defines (named in calls.toml's [[workload]]): reads in[0..in_len),
 * writes out[0..out_len) (both in the arena's scratch), returns what the harness gets back. */
typedef int (*mm_serve_work_fn)(const void *in, size_t in_len, void *out, size_t out_len);

/* Asks the harness to run callback `name` (a lab's serve code forwarding a function pointer the
 * harness passed) with args[0..len); its answer goes to ret[0..ret_len). Callable from any thread
 * (one callback at a time). Returns 0, or -EPIPE when the harness is gone. */
int mm_serve_callback(const char *name, const void *args, size_t len, void *ret, size_t ret_len);

#endif
