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

#include <sys/prctl.h>
#include <sys/syscall.h>
#if defined(__has_include)
#if __has_include(<linux/landlock.h>) && defined(SYS_landlock_create_ruleset)
#include <linux/landlock.h>
#define HAVE_LANDLOCK 1
#endif
#endif
#if defined(HAVE_LANDLOCK) && !defined(LANDLOCK_ACCESS_FS_TRUNCATE)
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)   /* ABI 3 (Linux 6.2); older headers lack it */
#endif

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

/* Confine the child's writes (the ruleset made by prepare); last, after /proc/self's maps are written. */
static void enter_landlock(const struct astra_sandbox *sb)
{
#ifdef HAVE_LANDLOCK
	static const char msg[] = "astra-cc: the sandbox could not confine the test program's writes (Landlock)\n";
	if (sb->ruleset < 0)
		return;
	/* Required of an unprivileged process; no set-user-ID program gains rights under it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_landlock_restrict_self, sb->ruleset, 0) < 0) {
		/* Never run unconfined while the notes say it is confined. */
		if (write(2, msg, sizeof(msg) - 1) < 0) {
			/* Nothing more to do: the exit status says it. */
		}
		_exit(ASTRA_SANDBOX_LANDLOCK_FAILED);
	}
	close(sb->ruleset);
#else
	(void)sb;
#endif
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
	enter_landlock(sb);
}

#ifdef HAVE_LANDLOCK
/* The write rights the ruleset handles (denies outside its rules), as far as Landlock's ABI knows them. */
static unsigned long long landlock_writes(int abi)
{
	unsigned long long m = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
		LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	if (abi >= 2)
		m |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		m |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return m;
}

/* Allow every handled right beneath directory path; 0, or -1 when it is not a directory we can open. */
static int landlock_allow(int ruleset, const char *path, unsigned long long rights)
{
	struct landlock_path_beneath_attr pb;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), rc;
	if (fd < 0)
		return -1;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = rights;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc < 0 ? -1 : 0;
}
#endif

int astra_sandbox_landlock_available(const char **why)
{
	static int abi = -2;
	static const char *reason;
	if (abi == -2) {
#ifdef HAVE_LANDLOCK
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
		abi = v > 0 ? (int)v : -1;
		reason = v > 0 ? NULL
			: errno == ENOSYS ? "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)"
			: errno == EOPNOTSUPP ? "Landlock is not enabled in this kernel (the lsm= boot parameter)"
			: "landlock_create_ruleset failed";
#else
		abi = -1;
		reason = "astra-cc was built without <linux/landlock.h>";
#endif
	}
	if (why)
		*why = abi > 0 ? NULL : reason;
	return abi > 0 ? abi : 0;
}

/*
 * The ruleset of a run: writes (creating, writing, truncating, removing,
 * renaming, linking) only beneath the private directory, also_writable,
 * /dev (the GPU's device files, /dev/null, /dev/shm), /proc (the CUDA
 * driver writes there when it starts), the CUDA driver's
 * cache (CUDA_CACHE_PATH, else ~/.nv) when it exists, and the test suite's
 * ASTRA_CC_TEST_SANDBOX_WRITABLE.  Reading and executing stay allowed
 * everywhere.  -1 (no ruleset) where Landlock is not available.
 */
static int make_ruleset(const struct astra_sandbox *sb, const char *also_writable)
{
#ifdef HAVE_LANDLOCK
	struct landlock_ruleset_attr attr;
	int abi = astra_sandbox_landlock_available(NULL), fd;
	const char *cache = astra_getenv("CUDA_CACHE_PATH"), *home = astra_getenv("HOME");
	const char *test_dir = astra_getenv("ASTRA_CC_TEST_SANDBOX_WRITABLE");
	char *nv = NULL;
	unsigned long long rights;
	if (!abi)
		return -1;
	rights = landlock_writes(abi);
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = rights;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -1;
	/* /proc: the CUDA driver writes there when it starts (cudaFree(0) fails with "OS call
	 * failed" without it; seen on an H200 host, Linux 6.18); its writable files are the
	 * process's own or need privileges the test program does not have. */
	if (landlock_allow(fd, sb->dir, rights) < 0 || landlock_allow(fd, "/dev", rights) < 0 ||
	    landlock_allow(fd, "/proc", rights) < 0 ||
	    (also_writable && landlock_allow(fd, also_writable, rights) < 0)) {
		error("cannot add a Landlock rule for the sandbox: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!cache && home)
		cache = nv = xasprintf("%s/.nv", home);
	if (cache)
		landlock_allow(fd, cache, rights);          /* a cache that is not there: none */
	if (test_dir)
		landlock_allow(fd, test_dir, rights);
	free(nv);
	return fd;
#else
	(void)sb;
	(void)also_writable;
	return -1;
#endif
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

int astra_sandbox_prepare(struct astra_sandbox *sb, const char *dir, const struct astra_sandbox_limits *l,
			  const char *also_writable)
{
	rlim_t cpu = (rlim_t)l->cpu;
	const char *test_cpu = astra_getenv("ASTRA_CC_TEST_CPU_LIMIT");
	if (test_cpu && atol(test_cpu) > 0)
		cpu = (rlim_t)atol(test_cpu);
	memset(sb, 0, sizeof(*sb));
	sb->ruleset = -1;
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
	sb->ruleset = make_ruleset(sb, also_writable);
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
	if (rc == ASTRA_SANDBOX_LANDLOCK_FAILED && sb->ruleset >= 0 && err && strstr(err, "(Landlock)"))
		return xstrdup("the sandbox could not confine its writes (landlock_restrict_self failed)");
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
	if (sb->ruleset >= 0)
		close(sb->ruleset);
	free(sb->tmpdir_env);
	memset(sb, 0, sizeof(*sb));
	sb->ruleset = -1;
}
