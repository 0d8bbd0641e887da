/* Sealed results: what a test program or a benchmark tells the grader travels over a channel the
 * grader opened (fd MM_SEAL_FD) with an HMAC-SHA256 under a key read once at start-up from
 * another fd (MM_SEAL_KEY_FD), before any code under test runs. A line the code under test
 * writes on that channel carries no valid seal and counts for nothing; to forge one it would have
 * to dig the key out of the harness's memory (docs/grading.md, "Threat model").
 * Outside the grader (MLMEM_SEAL unset) nothing is sealed: results go where they always went. */
#ifndef MM_SEAL_H
#define MM_SEAL_H
#include "mm_attr.h"
#include <stddef.h>

#define MM_SEAL_FD 3
#define MM_SEAL_KEY_FD 4

/* The kinds of record: the first word of each one on the channel. grader/confinement/seal.py names the same
 * words (DONE, SKIP, REPORT; grader/tests/test_seal.py checks that the two agree).
 *   MM_SEAL_DONE    a test reached its end:         "DONE <test> <mac> "
 *   MM_SEAL_SKIP    a test skipped itself (MM_SKIP): "SKIP <test> <mac> <why>"
 *   MM_SEAL_REPORT  a benchmark's report:           "REPORT <len> <mac>\n" and the report */
#define MM_SEAL_DONE "DONE"
#define MM_SEAL_SKIP "SKIP"
#define MM_SEAL_REPORT "REPORT"

/* Reads the key (once; call first thing in main) when the grader asked for sealing
 * (MLMEM_SEAL=1, which it then removes). Returns 1 if sealing is on, 0 if not, -errno when the
 * grader asked for it and the key cannot be read (the caller then reports nothing). */
MM_MUST_CHECK int mm_seal_init(void);

/* 1 once mm_seal_init found the grader's channel. */
int mm_seal_on(void);

/* Writes one sealed record, "<kind> <name> <mac> <text>\n", in one write(2): mac seals kind, name
 * and text together. kind and name must hold no space or newline; text no newline (it is cut at
 * the first). Returns 0 or -errno (sealing off: -ENOTCONN). */
MM_MUST_CHECK int mm_seal_record(const char *kind, const char *name, const char *text);

/* Writes a benchmark's whole report, sealed: "REPORT <len> <mac>\n" (MM_SEAL_REPORT) then the len
 * bytes. */
MM_MUST_CHECK int mm_seal_report(const char *report, size_t len);

#endif
