/*
 * probe.c - a hostile test program for the sandbox case: run by
 * astra-cc --verify --program in place of a generated one, it reports
 * what it can reach and do.  PROBE_ACTION picks what it tries (report,
 * write, forks, spin, sleep, fill, escape, crash); PROBE_REPORT is where it writes its findings and
 * PROBE_PORT a port a server listens on at 127.0.0.1.
 */
#include <errno.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *out;

static void limit(const char *name, int res)
{
	struct rlimit r;
	getrlimit(res, &r);
	if (r.rlim_cur == RLIM_INFINITY)
		fprintf(out, "%s unlimited\n", name);
	else
		fprintf(out, "%s %llu\n", name, (unsigned long long)r.rlim_cur);
}

int main(void)
{
	const char *action = getenv("PROBE_ACTION"), *port = getenv("PROBE_PORT");
	char cwd[4096];
	out = fopen(getenv("PROBE_REPORT"), "a");
	if (!out || !action)
		return 9;
	setvbuf(out, NULL, _IONBF, 0);
	if (!strcmp(action, "report")) {
		DIR *d = opendir(".");
		struct dirent *de;
		int n = 0, s;
		struct sockaddr_in a;
		struct rlimit r;
		while (d && (de = readdir(d)) != NULL)
			n += de->d_name[0] != '.';
		if (d)
			closedir(d);
		fprintf(out, "cwd %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		fprintf(out, "entries %d\n", n);
		fprintf(out, "tmpdir %s\n", getenv("TMPDIR") ? getenv("TMPDIR") : "(unset)");
		limit("cpu", RLIMIT_CPU);
		limit("data", RLIMIT_DATA);
		limit("fsize", RLIMIT_FSIZE);
		limit("core", RLIMIT_CORE);
		limit("nproc", RLIMIT_NPROC);
		getrlimit(RLIMIT_DATA, &r);
		if (r.rlim_cur != RLIM_INFINITY) {
			void *p = malloc((size_t)r.rlim_cur + ((size_t)1 << 30));
			fprintf(out, "malloc beyond the limit %s\n", p ? "succeeded" : "failed");
		}
		s = socket(AF_INET, SOCK_STREAM, 0);
		memset(&a, 0, sizeof(a));
		a.sin_family = AF_INET;
		a.sin_port = htons((unsigned short)atoi(port ? port : "9"));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fprintf(out, "connect %s\n", connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? "connected" : strerror(errno));
	} else if (!strcmp(action, "write")) {
		/* 256 MiB into a file of its directory. */
		static char buf[1 << 20];
		FILE *f = fopen("big", "w");
		long i;
		signal(SIGXFSZ, SIG_IGN);
		for (i = 0; f && i < 256; i++)
			if (fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fflush(f) != 0)
				break;
		fprintf(out, "wrote %ld MiB\n", i);
	} else if (!strcmp(action, "forks")) {
		int i;
		for (i = 0; i < 4000; i++) {
			pid_t pid = fork();
			if (pid < 0)
				break;
			if (pid == 0) {
				pause();
				_exit(0);
			}
		}
		fprintf(out, "forks %d\n", i);
		kill(0, SIGKILL);
	} else if (!strcmp(action, "spin")) {
		/* Burn CPU time until a limit stops it. */
		volatile unsigned long x = 0;
		fprintf(out, "spinning\n");
		for (;;)
			x++;
	} else if (!strcmp(action, "sleep")) {
		fprintf(out, "sleeping\n");
		sleep(600);
	} else if (!strcmp(action, "fill")) {
		/* 256 MiB into a file, SIGXFSZ left as it is. */
		static char buf[1 << 20];
		FILE *f = fopen("big", "w");
		long i;
		fprintf(out, "filling\n");
		for (i = 0; f && i < 256; i++)
			if (fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fflush(f) != 0)
				break;
		fprintf(out, "wrote %ld MiB\n", i);
	} else if (!strcmp(action, "escape")) {
		/* Writes outside its directory: PROBE_OUTSIDE is a directory elsewhere holding a file "existing". */
		const char *o = getenv("PROBE_OUTSIDE");
		char p[4096];
		FILE *f;
		snprintf(p, sizeof(p), "%s/escaped", o ? o : "/nonexistent");
		f = fopen(p, "w");
		fprintf(out, "create outside: %s\n", f ? "done" : strerror(errno));
		if (f)
			fclose(f);
		snprintf(p, sizeof(p), "%s/existing", o ? o : "/nonexistent");
		f = fopen(p, "a");
		fprintf(out, "append outside: %s\n", f && fputs("x", f) >= 0 && fflush(f) == 0 ? "done" : strerror(errno));
		if (f)
			fclose(f);
		fprintf(out, "truncate outside: %s\n", truncate(p, 0) == 0 ? "done" : strerror(errno));
		fprintf(out, "remove outside: %s\n", unlink(p) == 0 ? "done" : strerror(errno));
		snprintf(p, sizeof(p), "%s/dir", o ? o : "/nonexistent");
		fprintf(out, "mkdir outside: %s\n", mkdir(p, 0700) == 0 ? "done" : strerror(errno));
		/* The verification's workspace, beside the test program and its sources. */
		f = fopen("../planted", "w");
		fprintf(out, "create in the workspace: %s\n", f ? "done" : strerror(errno));
		if (f)
			fclose(f);
		f = fopen("inside", "w");
		fprintf(out, "create in its directory: %s\n", f ? "done" : strerror(errno));
		if (f)
			fclose(f);
		f = fopen("/dev/null", "w");
		fprintf(out, "write /dev/null: %s\n", f && fputs("x", f) >= 0 && fflush(f) == 0 ? "done" : strerror(errno));
		if (f)
			fclose(f);
		/* What the CUDA driver does when it starts: write its own process's files in /proc. */
		f = fopen("/proc/self/comm", "w");
		fprintf(out, "write /proc/self/comm: %s\n", f && fputs("probe", f) >= 0 && fflush(f) == 0 ? "done" : strerror(errno));
		if (f)
			fclose(f);
		f = fopen("/etc/passwd", "r");
		fprintf(out, "read /etc/passwd: %s\n", f ? "done" : strerror(errno));
		if (f)
			fclose(f);
	} else if (!strcmp(action, "crash")) {
		limit("core", RLIMIT_CORE);
		fclose(out);
		abort();
	}
	return 1;
}
