/* Lab 04 harness: where the pages of a range of your process are, read by the harness from
 * outside that process, in files the kernel writes: /proc/<pid>/maps (the mappings),
 * /proc/<pid>/numa_maps (each mapping's pages, node by node) and /proc/<pid>/pagemap (which
 * pages are present). The tests and the benchmark use it (bench/numa_maps.c builds this file's
 * code into the benchmark). */
#ifndef NB_NUMA_MAPS_H
#define NB_NUMA_MAPS_H
#include <stddef.h>
#include <sys/types.h>

/* Pages of the mappings around a range that nm_read reads in pagemap; beyond them, every page
 * of those mappings outside the range is taken to be present (see nm_proven). */
#define NM_AROUND_MAX ((size_t)1 << 18)

/* What the kernel says of the pages of a range. numa_maps counts per mapping, not per address:
 * a mapping that holds part of the range may reach beyond it, and its pages there are counted
 * too; `around` bounds those. */
typedef struct {
    size_t pages;     /* pages of the range (its bytes rounded up to pages) */
    size_t present;   /* of them, present (pagemap); a page only read may be the zero page */
    size_t on_node;   /* pages on the node in the mappings that overlap the range (numa_maps) */
    size_t elsewhere; /* pages on other nodes in those mappings (numa_maps) */
    size_t around;    /* present pages of those mappings outside the range (pagemap), or taken
                         to be present past NM_AROUND_MAX */
} nm_seen_t;

/* Reads *out for the pages of [addr, addr + bytes) of process pid (mm_proc_open: as their owner
 * where the harness runs as root). Returns 0;
 *   -EINVAL: pid <= 0, addr NULL or not page-aligned, bytes 0 or past the address space, node
 *            < 0, or out NULL;
 *   -EAGAIN: maps and numa_maps disagreed three times (the mappings changed while read);
 *   the -errno of a /proc file that cannot be opened or read. */
int nm_read(pid_t pid, const void *addr, size_t bytes, int node, nm_seen_t *out);

/* How many pages of the range are proven on the node: on_node - around, or 0.
 * For each page of a mapping's addresses that maps a page frame, numa_maps counts one page on
 * that frame's node (a huge page counts as the pages it holds), and it leaves out the shared
 * zero page (what a page only read maps): so at most `around` of on_node lie outside the range,
 * and at least on_node - around of the range's own pages have a frame of their own there. When that is `pages`, every page
 * of the range is present, and on the node, at the moment numa_maps was read. It cannot tell
 * who touched a page, nor whether the mapping's policy will keep later pages there. And the
 * files are read one after another, between calls, from a process that could still be running
 * threads of its own: maps and numa_maps must agree on the mappings (they are read again when
 * they do not), but pages moved or unmapped between the reads of numa_maps and pagemap could
 * be misread. */
size_t nm_proven(const nm_seen_t *s);

#endif
