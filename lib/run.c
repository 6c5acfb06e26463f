/*
 * run.c - starting programs with time limits and captured output (see run.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"

extern char **environ;

const char *astra_getenv(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

char *astra_which(const char *name)
{
	const char *path = getenv("PATH");
	const char *p;
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path; ; ) {
		size_t n = strcspn(p, ":");
		char *cand = n ? xasprintf("%.*s/%s", (int)n, p, name) : xasprintf("./%s", name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!p[n])
			break;
		p += n + 1;
	}
	return NULL;
}

char *astra_self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

char *astra_parent_path(void)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	snprintf(link, sizeof(link), "/proc/%ld/exe", (long)getppid());
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

int astra_exec(char *const *argv)
{
	if (strchr(argv[0], '/'))
		execv(argv[0], argv);
	else
		execvp(argv[0], argv);
	return -1;
}

static void child_env(const struct astra_run_opts *o)
{
	char *const *e;
	if (o->env_remove)
		for (e = o->env_remove; *e; e++)
			unsetenv(*e);
	if (o->env_add)
		for (e = o->env_add; *e; e++)
			putenv(*e);
}

static void drain(int *fd, struct astra_buf *b, size_t max)
{
	char tmp[65536];
	ssize_t n = read(*fd, tmp, sizeof(tmp));
	if (n > 0) {
		if (b->len < max)
			astra_buf_add(b, tmp, (size_t)n < max - b->len ? (size_t)n : max - b->len);
		return;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	close(*fd);
	*fd = -1;
}

int astra_run(char *const *argv, struct astra_run_opts *o)
{
	struct astra_run_opts none = { 0 };
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int status = 0;
	pid_t pid;
	double start = astra_now();
	size_t max;

	if (!o)
		o = &none;
	max = o->max_capture ? o->max_capture : (size_t)64 << 20;
	o->timed_out = 0;
	o->signal = 0;
	if ((o->out && pipe(outp) < 0) || (o->err && pipe(errp) < 0))
		return error("cannot create a pipe: %s", strerror(errno));

	if (astra_trace_on(ASTRA_TRACE_EXEC)) {
		struct astra_buf b = ASTRA_BUF_INIT;
		char *const *a;
		for (a = argv; *a; a++) {
			astra_buf_addch(&b, ' ');
			astra_buf_add_shell_quoted(&b, *a);
		}
		astra_trace(ASTRA_TRACE_EXEC, "run%s%s%s", b.buf, o->cwd ? " in " : "", o->cwd ? o->cwd : "");
		astra_buf_release(&b);
	}

	pid = fork();
	if (pid < 0)
		return error("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		if (!o->foreground)
			setpgid(0, 0);
		if (o->out) {
			dup2(outp[1], 1);
			close(outp[0]);
			close(outp[1]);
		} else if (o->quiet) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1);
		}
		if (o->err) {
			dup2(errp[1], 2);
			close(errp[0]);
			close(errp[1]);
		} else if (o->quiet) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 2);
		}
		if (o->cwd && chdir(o->cwd) < 0)
			_exit(127);
		child_env(o);
		if (o->child_setup)
			o->child_setup(o->child_data);
		astra_exec(argv);
		_exit(127);
	}
	if (o->pid_out)
		*o->pid_out = pid;
	if (o->out)
		close(outp[1]);
	if (o->err)
		close(errp[1]);

	for (;;) {
		struct pollfd fds[2];
		int nfds = 0, timeout_ms = -1, r;
		if (o->timeout > 0) {
			double left = o->timeout - (astra_now() - start);
			if (left <= 0) {
				kill(o->foreground ? pid : -pid, SIGKILL);
				o->timed_out = 1;
				break;
			}
			timeout_ms = (int)(left * 1000) + 1;
		}
		if (outp[0] >= 0)
			fds[nfds++] = (struct pollfd){ .fd = outp[0], .events = POLLIN };
		if (errp[0] >= 0)
			fds[nfds++] = (struct pollfd){ .fd = errp[0], .events = POLLIN };
		if (!nfds) {
			/* Nothing to read: wait for the child, in slices when there is a limit. */
			pid_t w;
			if (timeout_ms < 0) {
				break;
			}
			w = waitpid(pid, &status, WNOHANG);
			if (w == pid)
				goto reaped;
			usleep(timeout_ms < 20 ? (useconds_t)timeout_ms * 1000 : 20000);
			continue;
		}
		r = poll(fds, (nfds_t)nfds, timeout_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (outp[0] >= 0 && fds[0].fd == outp[0] && fds[0].revents)
			drain(&outp[0], o->out, max);
		if (errp[0] >= 0) {
			int k = fds[0].fd == errp[0] ? 0 : 1;
			if (k < nfds && fds[k].revents)
				drain(&errp[0], o->err, max);
		}
	}
	if (outp[0] >= 0)
		close(outp[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	outp[0] = errp[0] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
reaped:
	if (o->pid_out)
		*o->pid_out = 0;
	/* Anything the child left behind in its group goes too. */
	if (!o->foreground)
		kill(-pid, SIGKILL);
	if (outp[0] >= 0)
		close(outp[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	o->seconds = astra_now() - start;
	if (o->timed_out)
		return 128 + SIGKILL;
	if (WIFSIGNALED(status)) {
		o->signal = WTERMSIG(status);
		return 128 + o->signal;
	}
	if (WEXITSTATUS(status) == 127 && o->out == NULL && o->err == NULL && access(argv[0], X_OK) < 0 && strchr(argv[0], '/'))
		return error("cannot execute %s", argv[0]);
	return WEXITSTATUS(status);
}
