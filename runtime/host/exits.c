/* The ways out of a process image that run no atexit handler: _exit(),
 * _Exit() and the exec family. Unseen, each lost the image's profile and left
 * its live segment in /dev/shm: a prefork server whose children _exit filled
 * /dev/shm, and each image of an exec chain found its pid's segment name
 * taken by its predecessor (#27). They are interposed, as sigaction() is
 * (crash.c): the profile is written by a copy of the process, which is safe
 * in a signal handler and with any lock held, the copy removes the segment,
 * then the real call is made. If an exec fails the image goes on, its
 * counts whole; its profile is written again at its exit.
 *
 * A child made by vfork() shares its parent's memory and must touch none of
 * it: its pid is not the one the runtime knows (fork's atfork handler updates
 * that, vfork runs none), and then nothing is done. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static execve_fn real_execve;
static execvpe_fn real_execvpe;
static fexecve_fn real_fexecve;

void pp__exits_arm(void)
{
	real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	real_execvpe = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");
	real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
}

/* The image ends: its profile, once, unless this is a vfork child. */
static PP_NOINSTR void image_ends(void)
{
	static int done;
	if (!__atomic_load_n(&pp__g.exit_dump, __ATOMIC_ACQUIRE) ||
	    (uint64_t)syscall(SYS_getpid) != pp__g.pid)
		return;
	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	pp__dump_in_copy(0);
	__atomic_store_n(&done, 0, __ATOMIC_RELEASE); /* an exec that failed: again at exit */
}

PP_EXPORT PP_NOINSTR __attribute__((noreturn)) void _exit(int status)
{
	image_ends();
	for (;;)
		syscall(SYS_exit_group, status);
}

PP_EXPORT PP_NOINSTR __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

PP_EXPORT PP_NOINSTR int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!real_execve)
		return no_real();
	image_ends();
	return real_execve(path, argv, envp);
}

PP_EXPORT PP_NOINSTR int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!real_execvpe)
		return no_real();
	image_ends();
	return real_execvpe(file, argv, envp);
}

PP_EXPORT PP_NOINSTR int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!real_fexecve)
		return no_real();
	image_ends();
	return real_fexecve(fd, argv, envp);
}

PP_EXPORT PP_NOINSTR int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

PP_EXPORT PP_NOINSTR int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list forms: the arguments into an array on the stack, then as above
 * (what glibc's own execl does). */
#define LIST_TO_ARGV(first, last_arg, ap, argv)                        \
	size_t n_ = 1;                                                 \
	va_start(ap, first);                                           \
	while (va_arg(ap, const char *))                               \
		n_++;                                                  \
	va_end(ap);                                                    \
	const char *argv[n_ + 1];                                      \
	argv[0] = first;                                               \
	va_start(ap, first);                                           \
	for (size_t i_ = 1; i_ <= n_; i_++)                            \
		argv[i_] = va_arg(ap, const char *);                   \
	last_arg;                                                      \
	va_end(ap)

PP_EXPORT PP_NOINSTR int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	LIST_TO_ARGV(arg, (void)0, ap, argv);
	return execve(path, (char *const *)argv, environ);
}

PP_EXPORT PP_NOINSTR int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	LIST_TO_ARGV(arg, (void)0, ap, argv);
	return execvpe(file, (char *const *)argv, environ);
}

PP_EXPORT PP_NOINSTR int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;
	LIST_TO_ARGV(arg, envp = va_arg(ap, char *const *), ap, argv);
	return execve(path, (char *const *)argv, envp);
}
