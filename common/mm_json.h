/* A minimal streaming JSON writer for benchmark output (one object per run, read by the grader).
 * Handles commas and string escaping; nesting up to MM_JSON_MAX_DEPTH. Non-finite numbers are
 * written as null, since JSON has no NaN or infinity. */
#ifndef MM_JSON_H
#define MM_JSON_H
#include <stdio.h>

#define MM_JSON_MAX_DEPTH 16

typedef struct mm_json {
    FILE *f;
    int depth;
    int count[MM_JSON_MAX_DEPTH]; /* members written so far at each depth */
    void (*on_end)(struct mm_json *j); /* called by mm_json_end once the object is written */
} mm_json_t;

/* Starts the top-level object on `f` (on_end: none). */
void mm_json_begin(mm_json_t *j, FILE *f);
/* Closes every open object/array, writes a newline, flushes, then calls j->on_end if set. */
void mm_json_end(mm_json_t *j);

/* Opens a nested object / array as member `key` (key NULL inside an array). */
void mm_json_object(mm_json_t *j, const char *key);
void mm_json_array(mm_json_t *j, const char *key);
/* Closes the innermost object or array. */
void mm_json_close(mm_json_t *j, char closer);

/* Writes member `key` (NULL inside an array) with a value. */
void mm_json_num(mm_json_t *j, const char *key, double v);
void mm_json_int(mm_json_t *j, const char *key, long long v);
void mm_json_str(mm_json_t *j, const char *key, const char *s);
void mm_json_bool(mm_json_t *j, const char *key, int v);
/* Writes member `key` as an array of the n numbers v[0..n) (a plot series' column). */
void mm_json_nums(mm_json_t *j, const char *key, const double *v, size_t n);

#endif
