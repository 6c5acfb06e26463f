/*
 * sandbox.c - limits, a private directory and no network for the child
 * that runs a test program (see sandbox.h).
 *
 * Apart from verify.c because the child's side runs between fork and exec,
 * where only async-signal-safe calls are allowed: everything it needs is
 * computed beforehand (astra_sandbox_prepare), and astra_sandbox_enter
 * makes system calls only.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "lib/util.h"
#include "lib/workspace.h"
#include "verify/sandbox.h"

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0) {
			/* The mapping stays unset: the namespace works without it. */
		}
		close(fd);
	}
}

/* In a new user and network namespace: map the ids, raise the loopback interface. */
static int enter_netns(const struct astra_sandbox *sb)
{
	struct ifreq ifr;
	int s;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -1;
	write_file("/proc/self/uid_map", sb->uid_map);
	write_file("/proc/self/setgroups", "deny");
	write_file("/proc/self/gid_map", sb->gid_map);
	/* compute-sanitizer and its target talk over loopback: inside, only that works. */
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		memcpy(ifr.ifr_name, "lo", 3);
		if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
			ifr.ifr_flags |= IFF_UP;
			ioctl(s, SIOCSIFFLAGS, &ifr);
		}
		close(s);
	}
	return 0;
}

void astra_sandbox_enter(void *data)
{
	const struct astra_sandbox *sb = data;
	int isolated = sb->netns && enter_netns(sb) == 0;
	setrlimit(RLIMIT_CORE, &sb->core);
	setrlimit(RLIMIT_FSIZE, &sb->fsize);
	setrlimit(RLIMIT_DATA, &sb->data);
	setrlimit(RLIMIT_CPU, &sb->cpu);
	if (isolated) {
		/* Counted in the new namespace alone (Linux 5.14 and later: per-namespace counts). */
		struct rlimit n = { ASTRA_SANDBOX_NPROC, ASTRA_SANDBOX_NPROC };
		setrlimit(RLIMIT_NPROC, &n);
	} else {
		setrlimit(RLIMIT_NPROC, &sb->nproc);
	}
}

/* Threads of processes of this uid: what RLIMIT_NPROC counts without a namespace of its own. */
static long user_tasks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long n = 0;
	uid_t uid = getuid();
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		struct dirent *te;
		char path[300];
		DIR *t;
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (stat(path, &st) < 0 || st.st_uid != uid)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		t = opendir(path);
		if (!t) {
			n++;
			continue;
		}
		while ((te = readdir(t)) != NULL)
			n += te->d_name[0] != '.';
		closedir(t);
	}
	closedir(d);
	return n;
}

int astra_sandbox_netns_available(const char **why)
{
	static int probed = -1;
	static const char *reason;
	pid_t pid;
	int st;
	if (probed < 0) {
		/* Try it in a child: unshare() would change this process for good. */
		pid = fork();
		if (pid == 0)
			_exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : errno == EPERM ? 1 : errno == EINVAL ? 2 : 3);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
			probed = 0;
			reason = "the probe failed";
		} else {
			probed = WEXITSTATUS(st) == 0;
			reason = WEXITSTATUS(st) == 1 ? "the kernel does not allow unprivileged user namespaces"
				 : WEXITSTATUS(st) == 2 ? "this kernel has no user or network namespaces"
				 : "unshare(CLONE_NEWUSER|CLONE_NEWNET) failed";
		}
	}
	if (why)
		*why = probed ? NULL : reason;
	return probed;
}

static long long half_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	long long half = pages > 0 && size > 0 ? (long long)pages * size / 2 : 0;
	return half > (4LL << 30) ? half : (4LL << 30);
}

void astra_sandbox_limits(const struct astra_sandbox_work *w, struct astra_sandbox_limits *l)
{
	long cpus = w->cpus > 0 ? w->cpus : 1;
	double wall = ASTRA_SANDBOX_SLACK * (w->planned > 0 ? w->planned : 0);
	if (w->timeout > 0)
		wall = w->timeout;
	else if (wall < ASTRA_SANDBOX_MIN_WALL)
		wall = ASTRA_SANDBOX_MIN_WALL;
	l->wall = wall;
	/* The host threads, the launching thread, compute-sanitizer's process. */
	l->threads = (unsigned)(cpus < ASTRA_SANDBOX_THREADS ? cpus : ASTRA_SANDBOX_THREADS) + 2;
	l->cpu = ceil(wall * l->threads) + 10;
}

int astra_sandbox_prepare(struct astra_sandbox *sb, const char *dir, const struct astra_sandbox_limits *l)
{
	rlim_t cpu = (rlim_t)l->cpu;
	const char *test_cpu = astra_getenv("ASTRA_CC_TEST_CPU_LIMIT");
	if (test_cpu && atol(test_cpu) > 0)
		cpu = (rlim_t)atol(test_cpu);
	memset(sb, 0, sizeof(*sb));
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return error("cannot create the sandbox directory %s: %s", dir, strerror(errno));
	sb->dir = xstrdup(dir);
	astra_workspace_remove(dir);         /* empty: leftovers of an earlier run go */
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return error("cannot create the sandbox directory %s: %s", dir, strerror(errno));
	sb->tmpdir_env = xasprintf("TMPDIR=%s", dir);
	sb->cpu.rlim_cur = cpu;
	sb->cpu.rlim_max = cpu + 10;
	sb->data.rlim_cur = sb->data.rlim_max = (rlim_t)half_memory();
	sb->fsize.rlim_cur = sb->fsize.rlim_max = (rlim_t)ASTRA_SANDBOX_FSIZE;
	sb->core.rlim_cur = sb->core.rlim_max = 0;
	sb->netns = astra_sandbox_netns_available(NULL);
	if (!sb->netns)
		sb->nproc.rlim_cur = sb->nproc.rlim_max = (rlim_t)(user_tasks() + ASTRA_SANDBOX_NPROC);
	snprintf(sb->uid_map, sizeof(sb->uid_map), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	snprintf(sb->gid_map, sizeof(sb->gid_map), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
	/* Hard limits of our own that are lower stay: never ask for more than we have. */
	{
		struct rlimit have;
		const int res[] = { RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_NPROC };
		struct rlimit *want[] = { &sb->cpu, &sb->data, &sb->fsize, &sb->nproc };
		size_t i;
		for (i = 0; i < ARRAY_SIZE(res); i++) {
			if (res[i] == RLIMIT_NPROC && sb->netns)
				continue;
			if (getrlimit(res[i], &have) == 0 && have.rlim_max != RLIM_INFINITY) {
				if (want[i]->rlim_max > have.rlim_max)
					want[i]->rlim_max = have.rlim_max;
				if (want[i]->rlim_cur > want[i]->rlim_max)
					want[i]->rlim_cur = want[i]->rlim_max;
			}
		}
	}
	return 0;
}

char *astra_sandbox_stop_reason(const struct astra_sandbox *sb, int rc, const char *err)
{
	if (rc == 128 + SIGXCPU)
		return xasprintf("killed by the CPU-time limit (RLIMIT_CPU %llu s)",
				 (unsigned long long)sb->cpu.rlim_cur);
	if (rc == 128 + SIGKILL && sb->cpu.rlim_max != RLIM_INFINITY)
		/* SIGKILL at the hard limit: a program that ignored SIGXCPU (or the OOM killer). */
		return xasprintf("killed (SIGKILL): by the CPU-time limit's hard limit (RLIMIT_CPU %llu s), the "
				 "system's out-of-memory killer, or itself", (unsigned long long)sb->cpu.rlim_max);
	if (rc == 128 + SIGXFSZ)
		return xasprintf("killed by the file-size limit (RLIMIT_FSIZE %llu MiB)",
				 (unsigned long long)(sb->fsize.rlim_cur >> 20));
	if (err && strstr(err, "bad_alloc"))
		return xasprintf("stopped when an allocation failed: the memory limit (RLIMIT_DATA %llu MiB)",
				 (unsigned long long)(sb->data.rlim_cur >> 20));
	return NULL;
}

void astra_sandbox_release(struct astra_sandbox *sb)
{
	if (sb->dir) {
		/* Whatever the program left there goes; the directory stays for the next run. */
		astra_workspace_remove(sb->dir);
		free(sb->dir);
	}
	free(sb->tmpdir_env);
	memset(sb, 0, sizeof(*sb));
}
