/*
 * Unit tests for the trust model (lib/trust.c) and what reads files that
 * other people may have planted: the cache's config file (lib/config.c),
 * the log file (lib/log.c), the per-user default cache directory.  Parts
 * that need other owners run as root (chown to other uids); elsewhere they
 * are left out and the test says so.  alarm() turns a read that blocks on
 * a FIFO into a failure instead of a hang.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/trust.h"
#include "testsuite/unit/unit.h"

static char dir[256];

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f;
	unlink(path);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	CHECK_INT(chmod(path, mode), 0);
}

/* Is there a config problem mentioning all of the words? */
/* A warning (astra_config_problems) or an error (astra_config_errors) mentioning a (and b). */
static int problem(const char *a, const char *b)
{
	const char *const *p;
	for (p = astra_config_problems(); *p; p++)
		if (strstr(*p, a) && (!b || strstr(*p, b)))
			return 1;
	for (p = astra_config_errors(); *p; p++)
		if (strstr(*p, a) && (!b || strstr(*p, b)))
			return 1;
	return 0;
}

static void on_alarm(int sig)
{
	static const char msg[] = "test-trust: a read blocked (a FIFO was opened for reading and waited)\n";
	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

static void test_rule(void)
{
	uid_t me = geteuid();
	struct astra_buf why = ASTRA_BUF_INIT;

	/* The user's own and root's files; others' only through trusted_group. */
	CHECK_INT(astra_trust_check(me, 0, 0100644, -1, NULL), 1);
	CHECK_INT(astra_trust_check(0, 0, 0100644, -1, NULL), 1);
	CHECK_INT(astra_trust_check(me == 4242 ? 4243 : 4242, 4242, 0100644, -1, &why), 0);
	CHECK(strstr(why.buf, "neither you nor root") != NULL);
	/* Writable by everyone: anybody may have rewritten it. */
	astra_buf_reset(&why);
	CHECK_INT(astra_trust_check(me, 0, 0100666, -1, &why), 0);
	CHECK(strstr(why.buf, "writable by everyone") != NULL);
	/* Writable by its group: only when that group is the trusted one. */
	CHECK_INT(astra_trust_check(me, 77, 0100664, -1, NULL), 0);
	CHECK_INT(astra_trust_check(me, 77, 0100664, 78, NULL), 0);
	CHECK_INT(astra_trust_check(me, 77, 0100664, 77, NULL), 1);
	/* The config file: owner strictly the user or root. */
	CHECK_INT(astra_trust_config(me, 0, 0100644, -1, NULL), 1);
	CHECK_INT(astra_trust_config(0, 0, 0100644, -1, NULL), 1);
	CHECK_INT(astra_trust_config(me == 4242 ? 4243 : 4242, 77, 0100644, 77, NULL), 0);
	CHECK_INT(astra_trust_config(me, 77, 0100664, 77, NULL), 1);
	CHECK_INT(astra_trust_config(me, 77, 0100664, -1, NULL), 0);
	CHECK_INT(astra_trust_config(me, 77, 0100646, 77, NULL), 0);
	/* A tier that cannot name the writer (HTTP): as trusted as its server; signatures are the store's. */
	CHECK_INT(astra_trust_unowned("x.entry", NULL), 1);

	{
		mode_t m;
		CHECK_INT(astra_trust_parse_umask("002", &m), 0);
		CHECK_INT(m, 02);
		CHECK_INT(astra_trust_parse_umask("0077", &m), 0);
		CHECK_INT(m, 077);
		CHECK_INT(astra_trust_parse_umask("8", &m), -1);
		CHECK_INT(astra_trust_parse_umask("01000", &m), -1);
		CHECK_INT(astra_trust_parse_umask("", &m), -1);
	}
}

/* Members of trusted_group: a system user whose primary group it is. */
static void test_group(void)
{
	struct passwd *pw = getpwnam("daemon");
	uid_t member = pw ? pw->pw_uid : 0, stranger;
	gid_t group = pw ? pw->pw_gid : 0, g;
	struct group *gr;
	pw = getpwnam("bin");
	stranger = pw ? pw->pw_uid : 0;
	gr = getgrgid(group);
	if (!member || !stranger || !pw || pw->pw_gid == group || !gr) {
		fprintf(stderr, "note: no users daemon and bin with different groups here; group membership not tested\n");
		return;
	}
	setenv("ASTRA_CC_TRUSTED_GROUP", gr->gr_name, 1);
	astra_config_load();
	CHECK_INT(astra_trust_group(&g), 1);
	CHECK_INT(g, group);
	CHECK_INT(astra_trust_content(member, 0, 0100644, NULL), 1);
	CHECK_INT(astra_trust_content(stranger, 0, 0100644, NULL), 0);
	setenv("ASTRA_CC_TRUSTED_GROUP", "no-such-group-astra", 1);
	astra_config_load();
	CHECK_INT(astra_trust_group(&g), -1);
	CHECK_INT(astra_trust_content(member, 0, 0100644, NULL), 0);
	unsetenv("ASTRA_CC_TRUSTED_GROUP");
	astra_config_load();
}

/* The cache's own config file: regular, no link, the user's or root's, nobody else's to write. */
static void test_config(void)
{
	char conf[300], target[300];
	snprintf(conf, sizeof(conf), "%s/astra-cc.conf", dir);
	snprintf(target, sizeof(target), "%s/elsewhere.conf", dir);
	unsetenv("ASTRA_CC_CONFIGPATH");
	setenv("ASTRA_CC_DIR", dir, 1);

	write_text(conf, "nvcc = /their/program\n", 0644);
	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "/their/program");

	/* Writable by everyone. */
	CHECK_INT(chmod(conf, 0666), 0);
	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "");
	CHECK(problem("astra-cc.conf: warning: not read", "writable by everyone"));

	/* Group-writable: read only when its group is trusted_group from the environment. */
	CHECK_INT(chmod(conf, 0664), 0);
	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "");
	{
		struct stat st;
		char gid[32];
		CHECK_INT(stat(conf, &st), 0);
		snprintf(gid, sizeof(gid), "%u", (unsigned)st.st_gid);
		setenv("ASTRA_CC_TRUSTED_GROUP", gid, 1);
		astra_config_load();
		CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "/their/program");
		unsetenv("ASTRA_CC_TRUSTED_GROUP");
		/* ... and never because the file itself names its group. */
		write_text(conf, "", 0664);
		{
			FILE *f = fopen(conf, "w");
			if (f) {
				fprintf(f, "trusted_group = %s\nnvcc = /their/program\n", gid);
				fclose(f);
			}
		}
		astra_config_load();
		CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "");
	}

	/* A symbolic link (to a file that would pass) is not followed. */
	write_text(target, "nvcc = /their/program\n", 0644);
	unlink(conf);
	CHECK_INT(symlink(target, conf), 0);
	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "");
	CHECK(problem("astra-cc.conf: warning: not read", "symbolic link"));

	/* A FIFO: refused without waiting for a writer. */
	unlink(conf);
	CHECK_INT(mkfifo(conf, 0600), 0);
	alarm(10);
	astra_config_load();
	alarm(0);
	CHECK(problem("astra-cc.conf: warning: not read", "not a regular file"));
	unlink(conf);

	/* Owned by another user (root can make one). */
	if (geteuid() == 0) {
		write_text(conf, "nvcc = /their/program\n", 0644);
		CHECK_INT(chown(conf, 4242, 4242), 0);
		astra_config_load();
		CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "");
		CHECK(problem("astra-cc.conf: warning: not read", "owned by uid 4242"));
		unlink(conf);
	} else {
		fprintf(stderr, "note: not root: a config file of another owner not tested\n");
	}

	/* ASTRA_CC_CONFIGPATH is the user's own choice: followed, but still only a regular file. */
	setenv("ASTRA_CC_CONFIGPATH", conf, 1);
	CHECK_INT(symlink(target, conf), 0);
	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_NVCC), "/their/program");
	unlink(conf);
	CHECK_INT(mkfifo(conf, 0600), 0);
	alarm(10);
	astra_config_load();
	alarm(0);
	CHECK(problem("astra-cc.conf: warning: not read", "not a regular file"));
	unlink(conf);
	unlink(target);
	unsetenv("ASTRA_CC_CONFIGPATH");
	unsetenv("ASTRA_CC_DIR");
}

/* log_file: a FIFO or a link in its place means no log, and no hang. */
static void test_log(void)
{
	char path[300], target[300];
	struct astra_buf b = ASTRA_BUF_INIT;
	snprintf(path, sizeof(path), "%s/log", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);

	CHECK_INT(mkfifo(path, 0600), 0);
	alarm(10);
	astra_log_open(path, "");
	warning("into the FIFO?");
	alarm(0);
	astra_log_close();
	unlink(path);

	write_text(target, "victim's file\n", 0644);
	CHECK_INT(symlink(target, path), 0);
	astra_log_open(path, "");
	warning("through the link?");
	astra_log_close();
	CHECK_INT(astra_buf_read_file(&b, target, 0), 0);
	CHECK_STR(b.buf, "victim's file\n");
	unlink(path);
	unlink(target);

	astra_log_open(path, "");
	warning("into a file");
	astra_log_close();
	astra_buf_reset(&b);
	CHECK_INT(astra_buf_read_file(&b, path, 0), 0);
	CHECK(strstr(b.buf, "warning: into a file") != NULL);
	unlink(path);
	astra_buf_release(&b);
}

/* In a child running as uid: load the configuration without HOME; 1 when astra-cc stays enabled. */
static int enabled_as(uid_t uid)
{
	pid_t pid = fork();
	int st;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(3);
		unsetenv("HOME");
		unsetenv("XDG_CACHE_HOME");
		unsetenv("ASTRA_CC_DIR");
		unsetenv("ASTRA_CC_CONFIGPATH");
		unsetenv("ASTRA_CC_DISABLE");
		astra_config_load();
		_exit(astra_config_bool(ASTRA_CFG_DISABLE) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return -1;
	return WEXITSTATUS(st) == 0;
}

/* Without HOME: /tmp/astra-cc-<uid>, the user's own and private, or astra-cc steps aside. */
static void test_default_dir(void)
{
	char expect[64];
	struct stat st;
	uid_t u = 4271;
	unsetenv("HOME");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("ASTRA_CC_DIR");
	astra_config_load();
	snprintf(expect, sizeof(expect), "/tmp/astra-cc-%u", (unsigned)geteuid());
	CHECK_STR(astra_config_str(ASTRA_CFG_DIR), expect);
	CHECK_INT(lstat(expect, &st), 0);
	CHECK(S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0);

	if (geteuid() != 0) {
		fprintf(stderr, "note: not root: a default directory made first by someone else not tested\n");
		return;
	}
	/* Another user made uid 4271's directory first: 4271's astra-cc stays out of it. */
	snprintf(expect, sizeof(expect), "/tmp/astra-cc-%u", (unsigned)u);
	rmdir(expect);
	unlink(expect);
	CHECK_INT(enabled_as(u), 1);
	CHECK_INT(lstat(expect, &st), 0);
	CHECK(st.st_uid == u && (st.st_mode & 0777) == 0700);
	CHECK_INT(rmdir(expect), 0);
	CHECK_INT(mkdir(expect, 0777), 0);
	CHECK_INT(chmod(expect, 0777), 0);
	CHECK_INT(chown(expect, u + 1, u + 1), 0);
	CHECK_INT(enabled_as(u), 0);
	/* A link to a directory of the user's is refused too. */
	CHECK_INT(rmdir(expect), 0);
	{
		char real[300];
		snprintf(real, sizeof(real), "%s/mine", dir);
		CHECK_INT(mkdir(real, 0700), 0);
		CHECK_INT(chown(real, u, u), 0);
		CHECK_INT(symlink(real, expect), 0);
		CHECK_INT(enabled_as(u), 0);
		unlink(expect);
		rmdir(real);
	}
	/* The user's own, left open by an older astra-cc: made private. */
	CHECK_INT(mkdir(expect, 0755), 0);
	CHECK_INT(chown(expect, u, u), 0);
	CHECK_INT(enabled_as(u), 1);
	CHECK_INT(lstat(expect, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	rmdir(expect);
}

/* The umask of what astra-cc creates in the cache. */
static void test_umask(void)
{
	mode_t old = umask(002);
	unsetenv("ASTRA_CC_UMASK");
	astra_config_load();
	/* Unset: the process's, and never writable by group or others. */
	CHECK_INT(astra_trust_umask(), 022);
	setenv("ASTRA_CC_UMASK", "007", 1);
	astra_config_load();
	CHECK_INT(astra_trust_umask(), 007);
	CHECK_INT(astra_trust_umask_enter(), 002);
	CHECK_INT(umask(002), 007);
	unsetenv("ASTRA_CC_UMASK");
	setenv("ASTRA_CC_UMASK", "9", 1);
	astra_config_load();
	CHECK(problem("ASTRA_CC_UMASK", NULL));
	unsetenv("ASTRA_CC_UMASK");
	umask(old);
}

int main(void)
{
	char cwd[200];
	signal(SIGALRM, on_alarm);
	if (!getcwd(cwd, sizeof(cwd)))
		return 99;
	snprintf(dir, sizeof(dir), "%s/test-trust.%ld", cwd, (long)getpid());
	mkdir(dir, 0755);
	chmod(dir, 0755);
	unsetenv("ASTRA_CC_TRUSTED_GROUP");
	unsetenv("ASTRA_CC_NVCC");
	setenv("XDG_CACHE_HOME", dir, 1);

	test_rule();
	test_group();
	test_config();
	test_log();
	test_umask();
	test_default_dir();
	rmdir(dir);
	astra_config_release();
	return unit_done();
}
