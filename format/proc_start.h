/* Whether a live segment's writer still runs, from when its process started
 * (/proc): what tells the writer from a later process the kernel gave its
 * pid. The runtime asks it creating its segment over one left under its
 * name; the tool, finding and listing segments. */
#ifndef PP_PROC_START_H
#define PP_PROC_START_H

#include <stdint.h>

/* Is the writer pid, which began exporting at start_boot_ns
 * (CLOCK_BOOTTIME), still running: not a zombie, and started no later than
 * that (a process started after it was given the pid once the writer
 * died)? Without /proc the pid alone decides. */
int pp__shm_writer_alive(uint64_t pid, uint64_t start_boot_ns);

#endif
