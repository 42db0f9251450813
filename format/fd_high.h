/* Descriptors the runtime holds in the program's own table (the exit
 * dump's files, a symbolizer's module files on a program's thread) moved
 * where the program's lowest-free opens do not reach. */
#ifndef PP_FD_HIGH_H
#define PP_FD_HIGH_H

/* fd moved near the top of the table (below min(RLIMIT_NOFILE, 1024),
 * close-on-exec), the old number closed; fd itself when there is no room
 * there or the limit is small (64 or less). A program that closes every
 * descriptor still closes it: the runtime's next use then fails (the exit
 * dump says so in one line; a symbolizer names by address). One that
 * opens a file after that gets a low number, never this one, so the
 * runtime's writes and its close never land on the program's file. */
int pp__fd_high(int fd);

#endif
