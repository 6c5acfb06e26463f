/*
 * substitute.c - compile a rewritten translation unit in place of the
 * original (see substitute.h for what is made to look like plain nvcc and
 * why).
 *
 * rewrite.c decides what the rewritten text says; this file owns everything
 * that touches the file system and the nvcc process: the temporary
 * directory, include pinning (which needs to know which files exist), the
 * rewritten header copies, the command line, the captured output and the
 * dependency file.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/arch.h"
#include "lib/hash.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/log.h"
#include "lib/config.h"
#include "lib/run.h"
#include "lib/workspace.h"
#include "front/key.h"
#include "cache/stats.h"
#include "cache/storage.h"
#include "passes/substitute.h"

/* ------------------------------------------------------------- path maps */

void astra_pathmap_init(struct astra_pathmap *m)
{
	astra_vec_init(&m->from);
	astra_vec_init(&m->to);
}

void astra_pathmap_add(struct astra_pathmap *m, const char *from, const char *to)
{
	astra_vec_push(&m->from, from);
	astra_vec_push(&m->to, to);
}

void astra_pathmap_release(struct astra_pathmap *m)
{
	astra_vec_clear(&m->from);
	astra_vec_clear(&m->to);
}

/* The mapped spelling of name (malloc'd), or NULL when no entry applies. */
static char *map_name(const struct astra_pathmap *m, const char *name)
{
	size_t i, best = 0, best_len = 0;
	for (i = 0; i < m->from.nr; i++) {
		const char *f = m->from.v[i];
		size_t n = strlen(f);
		int hit = n && f[n - 1] == '/' ? !strncmp(name, f, n) : !strcmp(name, f);
		if (hit && n > best_len) {
			best = i;
			best_len = n;
		}
	}
	if (!best_len)
		return NULL;
	return xasprintf("%s%s", m->to.v[best], name + best_len);
}

void astra_subst_map_text(const char *text, size_t len, const struct astra_pathmap *map,
			  struct astra_buf *out)
{
	size_t p = 0;
	while (p < len) {
		size_t i, best_len = 0, best = 0;
		for (i = 0; i < map->from.nr; i++) {
			size_t n = strlen(map->from.v[i]);
			if (n > best_len && n <= len - p && !memcmp(text + p, map->from.v[i], n)) {
				best = i;
				best_len = n;
			}
		}
		if (best_len) {
			astra_buf_adds(out, map->to.v[best]);
			p += best_len;
		} else {
			astra_buf_addch(out, text[p++]);
		}
	}
}

/* ------------------------------------------------------ dependency files */

int astra_subst_fix_deps(const char *text, size_t len, const struct astra_pathmap *map,
			 struct astra_buf *out)
{
	struct astra_vec deps = ASTRA_VEC_INIT, phony = ASTRA_VEC_INIT, seen = ASTRA_VEC_INIT;
	struct astra_buf target = ASTRA_BUF_INIT;
	const char *sep = " : ";
	size_t p = 0, i;
	int ret = -1;

	/* The rule: "T : D1 \\\n    D2 \\\n    DN\n". */
	for (;;) {
		size_t eol = p, b, e;
		int more;
		while (eol < len && text[eol] != '\n')
			eol++;
		if (eol >= len)
			goto out;
		more = eol > p && text[eol - 1] == '\\';
		b = p;
		e = more ? eol - 1 : eol;
		if (!deps.nr && !target.len) {
			const char *colon = NULL;
			size_t k;
			/* nvcc writes "T : D"; ccache, restoring a file from its cache, "T: D". */
			for (k = b; k + 2 <= e; k++)
				if (!memcmp(text + k, ": ", 2)) {
					colon = text + k;
					break;
				}
			if (!colon || colon == text + b)
				goto out;
			sep = colon > text + b + 1 && colon[-1] == ' ' ? " : " : ": ";
			astra_buf_add(&target, text + b, (size_t)(colon - (text + b)) - (strlen(sep) - 2));
			b = (size_t)(colon - text) + 2;
		} else {
			if (e - b < 4 || memcmp(text + b, "    ", 4))
				goto out;
			b += 4;
		}
		while (e > b && text[e - 1] == ' ')
			e--;
		if (e == b)
			goto out;
		{
			char *name = xstrndup(text + b, e - b);
			astra_vec_push_owned(&deps, name);
		}
		p = eol + 1;
		if (!more)
			break;
	}
	/* -MP: "\nNAME:\n" for every dependency but the first. */
	while (p < len) {
		size_t eol;
		if (text[p] != '\n')
			goto out;
		p++;
		eol = p;
		while (eol < len && text[eol] != '\n')
			eol++;
		if (eol >= len || eol == p || text[eol - 1] != ':')
			goto out;
		astra_vec_push_owned(&phony, xstrndup(text + p, eol - 1 - p));
		p = eol + 1;
	}
	if (phony.nr) {
		if (phony.nr + 1 != deps.nr)
			goto out;
		for (i = 0; i < phony.nr; i++)
			if (strcmp(phony.v[i], deps.v[i + 1]))
				goto out;
	}

	for (i = 0; i < deps.nr; i++) {
		char *m = map_name(map, deps.v[i]);
		const char *name = m ? m : deps.v[i];
		if (astra_vec_find(&seen, name) < 0)
			astra_vec_push(&seen, name);
		free(m);
	}
	astra_buf_addf(out, "%s%s%s", target.buf, sep, seen.v[0]);
	for (i = 1; i < seen.nr; i++)
		astra_buf_addf(out, " \\\n    %s", seen.v[i]);
	astra_buf_addch(out, '\n');
	if (phony.nr)
		for (i = 1; i < seen.nr; i++)
			astra_buf_addf(out, "\n%s:\n", seen.v[i]);
	ret = 0;
out:
	astra_vec_clear(&deps);
	astra_vec_clear(&phony);
	astra_vec_clear(&seen);
	astra_buf_release(&target);
	return ret;
}

static int has_option(const struct astra_cmdline *cl, const char *shrt, const char *lng)
{
	size_t i, ns = strlen(shrt), nl = strlen(lng);
	for (i = 0; i < cl->expanded.nr; i++) {
		const char *a = cl->expanded.v[i];
		if (!strcmp(a, shrt) || !strcmp(a, lng) || (!strncmp(a, shrt, ns) && a[ns] == '=') ||
		    (!strncmp(a, lng, nl) && a[nl] == '='))
			return 1;
	}
	return 0;
}

/* path with its extension (in the last component) replaced by .d */
static char *with_d(const char *path)
{
	const char *base = astra_basename(path);
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	return xasprintf("%.*s.d", (int)n, path);
}

char *astra_subst_default_depfile(const struct astra_cmdline *cl)
{
	if (has_option(cl, "-odir", "--output-directory"))
		return NULL;
	if (cl->output)
		return with_d(cl->output);
	if (cl->inputs.nr != 1)
		return NULL;
	return with_d(astra_basename(cl->inputs.v[0]));
}

/* --------------------------------------------------------------- files */

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t done = 0;
	if (fd < 0)
		return error("cannot create %s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error("cannot write %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		return error("cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* Write path atomically: a temporary file beside it, then rename. */
static int write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.astra-tmp.%ld", path, (long)getpid());
	int ret, fd;
	/* A fresh file, never through a link planted under the temporary name. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = error("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	close(fd);
	ret = write_file(tmp, data, len);
	if (!ret && rename(tmp, path) < 0)
		ret = error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/*
 * Copy a rewritten source into dir (for inspection).  Never over a file
 * that exists: dir may be the user's source directory.
 */
static void save_copy(const char *dir, const char *name, const struct astra_buf *b)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("not saving the rewritten %s: %s", p, strerror(errno));
	} else {
		close(fd);
		write_file(p, b->buf, b->len);
	}
	free(p);
}

/*
 * Everything one substituted compile creates, to remove it afterwards.
 *
 * The directory is named after the command, not drawn at random: nvcc
 * writes the name of the file it compiles into the object (the
 * fatbinary's module identifier, line tables with -lineinfo and -G), so a
 * random name would make two identical builds give different objects, and
 * a compiler launcher (ccache) would never find the second one in its
 * cache.  It is $TMPDIR/astra-cc-workspaces-UID/DIGEST (lib/workspace.h:
 * a root of its own, never the cache directory), DIGEST naming the working
 * directory and the command line; a lock beside it (DIGEST.lock) keeps two
 * identical commands running at once apart (the second one takes a
 * directory of its own, drawn at random).  The private parent (mode 0700,
 * owned by this user, not a symbolic link) keeps other users out; if it
 * cannot be had, a random directory is used instead.
 */
struct workspace {
	char *dir;                 /* the private temporary directory */
	struct astra_vec files;    /* created files */
	struct astra_vec dirs;     /* created directories, dir first */
	char *lock_path;           /* DIGEST.lock, held while the directory is in use; NULL: random dir */
	int lock_fd;
};

static int ws_mkdir(struct workspace *ws, const char *path)
{
	if (mkdir(path, 0700) < 0)
		return error("cannot create %s: %s", path, strerror(errno));
	astra_vec_push(&ws->dirs, path);
	return 0;
}

/*
 * The named workspaces' root (lib/workspace.h: TMPDIR/astra-cc-workspaces-UID),
 * created private, or NULL when it is not ours alone or overlaps the cache.
 */
static char *private_parent(void)
{
	char *p = astra_workspace_root();
	struct stat st;
	if (!p)
		return NULL;
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		astra_trace(ASTRA_TRACE_DRIVER, "cannot create %s: %s", p, strerror(errno));
		free(p);
		return NULL;
	}
	if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		warning("%s is not a private directory of this user; using a random temporary directory", p);
		free(p);
		return NULL;
	}
	return p;
}

/* Remove what a killed compile left in dir (its layout: files, and directories of files). */
static void remove_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char *p;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (unlink(p) < 0 && (errno == EISDIR || errno == EPERM)) {
			remove_leftovers(p);
			rmdir(p);
		}
		free(p);
	}
	closedir(d);
}

/*
 * Take DIGEST.lock without waiting.  Returns 1 (held: *fd), 0 (another
 * process holds it) or -1.  The holder removes the file on release; the
 * race that opens (a locker holding a removed file) is closed here: after
 * flock succeeds, the path must still name the file locked.
 */
static int take_lock(const char *path, int *fd)
{
	int tries;
	for (tries = 0; tries < 8; tries++) {
		struct stat a, b;
		int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (f < 0)
			return -1;
		if (flock(f, LOCK_EX | LOCK_NB) < 0) {
			close(f);
			return errno == EWOULDBLOCK ? 0 : -1;
		}
		if (fstat(f, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			*fd = f;
			return 1;
		}
		close(f);
	}
	return -1;
}

/* The directory named after the command (see struct workspace), or -1. */
static int ws_open_named(struct workspace *ws, const char *cwd, const struct astra_vec *cmd)
{
	struct astra_buf id = ASTRA_BUF_INIT;
	struct astra_digest d;
	char *parent = private_parent(), *dir;
	size_t i;
	int r;

	if (!parent)
		return -1;
	astra_buf_adds(&id, cwd);
	for (i = 0; i < cmd->nr; i++) {
		astra_buf_addch(&id, '\0');
		astra_buf_adds(&id, cmd->v[i]);
	}
	astra_hash128(id.buf, id.len, &d);
	astra_buf_release(&id);
	dir = xasprintf("%s/%.*s", parent, ASTRA_WORKSPACE_NAME_LEN, d.hex);
	ws->lock_path = xasprintf("%s.lock", dir);
	free(parent);
	r = take_lock(ws->lock_path, &ws->lock_fd);
	if (r <= 0) {
		if (r == 0)
			astra_trace(ASTRA_TRACE_DRIVER, "%s is in use by the same command; using a random directory", dir);
		free(ws->lock_path);
		ws->lock_path = NULL;
		free(dir);
		return -1;
	}
	/* A compile that was killed may have left it behind. */
	remove_leftovers(dir);
	rmdir(dir);
	if (mkdir(dir, 0700) < 0 || astra_workspace_mark(dir) < 0) {
		astra_trace(ASTRA_TRACE_DRIVER, "cannot create %s: %s", dir, strerror(errno));
		rmdir(dir);
		unlink(ws->lock_path);
		close(ws->lock_fd);
		free(ws->lock_path);
		ws->lock_path = NULL;
		free(dir);
		return -1;
	}
	ws->dir = dir;
	astra_vec_push(&ws->dirs, dir);
	astra_vec_pushf(&ws->files, "%s/" ASTRA_WORKSPACE_MARKER, dir);
	return 0;
}

long astra_subst_sweep_workspaces(long long age)
{
	char *parent = astra_workspace_root();
	long n = parent ? astra_workspace_sweep_locked(parent, age) : 0;
	free(parent);
	return n + astra_workspace_sweep(ASTRA_SUBST_WORKSPACE, age);
}

/*
 * Sweep the workspaces of substituted compiles that were killed (kill -9
 * leaves them; astra_subst_sweep_workspaces), at most once an hour: a
 * stamp in the cache directory says when it last happened, so that a build
 * does not read TMPDIR on every compile (24 ms for 20,000 entries here).
 */
static void sweep_stale_workspaces(void)
{
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	struct astra_storage *s;
	struct astra_storage_stat st;
	if (!dir || !*dir)
		return;
	s = astra_storage_file_open(dir);
	memset(&st, 0, sizeof(st));
	if (astra_storage_file_present(s) &&
	    (s->ops->head(s, ASTRA_SUBST_SWEEP_STAMP, &st) == 0 ||
	     st.mtime / 1000000000LL < astra_time() - 3600) &&
	    s->ops->put(s, ASTRA_SUBST_SWEEP_STAMP, "", 0) == 0)
		astra_subst_sweep_workspaces(ASTRA_WORKSPACE_STALE);
	s->ops->close(s);
}

/* cmd: the command line that names this workspace (see struct workspace). */
static int ws_open(struct workspace *ws, const char *cwd, const struct astra_vec *cmd)
{
	memset(ws, 0, sizeof(*ws));
	ws->lock_fd = -1;
	astra_vec_init(&ws->files);
	astra_vec_init(&ws->dirs);
	sweep_stale_workspaces();
	if (ws_open_named(ws, cwd, cmd) == 0)
		return 0;
	/* A name nvcc's shell passes through unchanged (workspace.h). */
	ws->dir = astra_workspace_make(ASTRA_SUBST_WORKSPACE);
	if (!ws->dir)
		return -1;
	astra_vec_push(&ws->dirs, ws->dir);
	astra_vec_pushf(&ws->files, "%s/" ASTRA_WORKSPACE_MARKER, ws->dir);
	return 0;
}

static int ws_write(struct workspace *ws, const char *path, const struct astra_buf *b)
{
	astra_vec_push(&ws->files, path);
	return write_file(path, b->buf, b->len);
}

static void ws_close(struct workspace *ws)
{
	size_t i;
	for (i = 0; i < ws->files.nr; i++)
		unlink(ws->files.v[i]);
	for (i = ws->dirs.nr; i-- > 0;)
		rmdir(ws->dirs.v[i]);
	if (ws->lock_path) {
		unlink(ws->lock_path);
		close(ws->lock_fd);
		free(ws->lock_path);
		ws->lock_path = NULL;
	}
	astra_vec_clear(&ws->files);
	astra_vec_clear(&ws->dirs);
	free(ws->dir);
	ws->dir = NULL;
}

/*
 * Signals while nvcc compiles the rewritten TU.  nvcc runs in our process
 * group, so ^C (or a build tool stopping its job) reaches it and its tools
 * too; nvcc then stops and exits with a status of its own (2 for SIGINT:
 * "'cicc' died due to signal 2").  astra-cc must stop as nvcc does: the
 * interrupted compile is not a failure of the rewritten TU, and compiling
 * the original instead would turn ^C into a successful build.  So while
 * nvcc runs, a fatal signal is only noted, and passed on to nvcc a second
 * later if nvcc is still running then (the signal was sent to astra-cc
 * alone).  Not at once: nvcc has the signal too when it went to the group,
 * and a second one while nvcc cleans up can kill it, which made astra-cc
 * die of the signal where nvcc alone exits 2.  When nvcc has ended, the workspace is
 * removed and astra-cc ends with nvcc's status.  The handlers are set even
 * when a signal was ignored on entry (a background job of a script): nvcc
 * does the same for its tools, and stops on ^C in that case too.  nvcc
 * itself starts with the dispositions astra-cc was given.
 */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction saved_actions[ARRAY_SIZE(fatal_signals)];
static volatile sig_atomic_t got_signal;
static volatile pid_t compile_pid;

static void on_fatal_signal(int sig)
{
	if (!got_signal)
		alarm(1); /* on_forward_alarm, unless nvcc has ended by then */
	got_signal = sig;
}

/* A second after a fatal signal: nvcc still runs, so it did not get it; pass it on. */
static void on_forward_alarm(int sig)
{
	pid_t pid = compile_pid;
	(void)sig;
	if (pid > 0 && got_signal)
		kill(pid, got_signal);
}

/* In nvcc's process, before exec: the dispositions astra-cc started with. */
static void restore_signals_in_child(void *data)
{
	size_t i;
	(void)data;
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		if (saved_actions[i].sa_handler == SIG_IGN)
			signal(fatal_signals[i], SIG_IGN);
		else
			signal(fatal_signals[i], SIG_DFL);
}

static struct sigaction saved_alarm;

static void catch_signals(void)
{
	struct sigaction sa;
	size_t i;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGALRM);
	got_signal = 0;
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &saved_actions[i]);
	sa.sa_handler = on_forward_alarm;
	sigaction(SIGALRM, &sa, &saved_alarm);
}

static void release_signals(void)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &saved_actions[i], NULL);
	alarm(0);
	sigaction(SIGALRM, &saved_alarm, NULL);
}

/* Did the compile end because of a signal (to astra-cc, or to nvcc itself)? */
static int interrupted(const struct astra_run_opts *ro)
{
	size_t i;
	if (got_signal)
		return 1;
	if (ro->signal == SIGKILL)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		if (ro->signal == fatal_signals[i])
			return 1;
	return 0;
}

/* ------------------------------------------------------ include pinning */

/* "dir/" of a path as GCC computes it (everything up to the last '/'). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path + 1)) : xstrdup("");
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* One header that defines substituted kernels. */
struct header {
	char *file;              /* kernel->file, as extract.c named it */
	struct stat st;
	char *spelling;          /* the name plain nvcc gives it (from the directive that includes it) */
	char *copy;              /* the rewritten copy (absolute) */
	int id;
};

struct job {
	struct astra_invocation *inv;
	const struct astra_tu *tu;
	const struct astra_subst *subs;
	size_t nr;
	struct workspace ws;
	char *cwd;
	char *pin;               /* "$PWD/./" */
	struct astra_pathmap map;
	struct header *hdrs;
	size_t nr_hdrs, alloc_hdrs;
	struct astra_vec idirs;  /* -I and -isystem directories, in search order */
};

static int pinnable(const char *s)
{
	return !strpbrk(s, "\"\n\r");
}

/* The spelling that opens `found` (a path relative to cwd or absolute) from anywhere. */
static char *pinned(const struct job *j, const char *found)
{
	if (found[0] == '/')
		return xstrdup(found);
	return xasprintf("%s%s", j->pin, found);
}

static void collect_idirs(struct job *j)
{
	const struct astra_cmdline *cl = &j->inv->cl;
	size_t i;
	int pass;
	/* -I directories are searched before -isystem ones. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i + 1 < cl->preproc_flags.nr; i++) {
			const char *f = cl->preproc_flags.v[i];
			if (!strcmp(f, pass ? "-isystem" : "-I")) {
				char *copy = xstrdup(cl->preproc_flags.v[i + 1]), *tok, *save = NULL;
				for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
					astra_vec_push(&j->idirs, tok);
				free(copy);
				i++;
			}
		}
}

/*
 * Where GCC finds an included name: for "name", the includer's directory
 * first, then (like <name>) the -I and -isystem directories.  Returns the
 * path as GCC spells it (malloc'd) and fills *st, or NULL.  *local tells
 * whether it was found next to the includer.
 */
static char *resolve(const struct job *j, const char *includer_dir, const struct astra_incref *inc,
		     struct stat *st, int *local)
{
	size_t i;
	*local = 0;
	if (inc->name[0] == '/')
		return stat(inc->name, st) == 0 && !S_ISDIR(st->st_mode) ? xstrdup(inc->name) : NULL;
	if (!inc->angle) {
		char *cand = xasprintf("%s%s", includer_dir, inc->name);
		if (stat(cand, st) == 0 && !S_ISDIR(st->st_mode)) {
			*local = 1;
			return cand;
		}
		free(cand);
	}
	for (i = 0; i < j->idirs.nr; i++) {
		const char *d = j->idirs.v[i];
		size_t n = strlen(d);
		char *cand = xasprintf("%s%s%s", d, n && d[n - 1] == '/' ? "" : "/", inc->name);
		if (stat(cand, st) == 0 && !S_ISDIR(st->st_mode))
			return cand;
		free(cand);
	}
	return NULL;
}

/*
 * Pin the quoted includes of a file (spelled `spelling`) found next to it,
 * and redirect includes of rewritten headers to their copies.
 */
static int pin_includes(struct job *j, struct astra_edits *e, const char *src, size_t len,
			const char *spelling, int is_main)
{
	struct astra_increfs incs;
	char *dir = dir_of(spelling);
	size_t i, h;
	int ret = 0;

	astra_increfs_scan(&incs, src, len);
	if (incs.computed) {
		ret = error("%s: a computed #include (#include MACRO) cannot be followed into the rewritten copy",
			    spelling);
		goto out;
	}
	for (i = 0; i < incs.nr && !ret; i++) {
		const struct astra_incref *inc = &incs.v[i];
		struct stat st;
		int local;
		char *found = resolve(j, dir, inc, &st, &local);
		char *text = NULL;
		if (!found)
			continue;
		for (h = 0; is_main && h < j->nr_hdrs; h++)
			if (same_file(&st, &j->hdrs[h].st)) {
				if (j->hdrs[h].spelling && strcmp(j->hdrs[h].spelling, found)) {
					ret = error("%s: %s is included under two names", spelling, found);
					break;
				}
				free(j->hdrs[h].spelling);
				j->hdrs[h].spelling = xstrdup(found);
				text = xasprintf("\"%s\"", j->hdrs[h].copy);
				break;
			}
		if (!text && local) {
			char *p = pinned(j, found);
			if (!pinnable(p))
				ret = error("%s: cannot pin the include of %s", spelling, found);
			else
				text = xasprintf("\"%s\"", p);
			free(p);
		}
		if (text)
			astra_edits_add(e, inc->start, inc->end, text, 0);
		free(found);
	}
out:
	astra_increfs_release(&incs);
	free(dir);
	return ret;
}

/* ---------------------------------------------------------------- the job */

static struct header *header_for(struct job *j, const char *file)
{
	size_t i;
	struct stat st;
	if (stat(file, &st) < 0) {
		error("cannot find %s: %s", file, strerror(errno));
		return NULL;
	}
	for (i = 0; i < j->nr_hdrs; i++)
		if (same_file(&st, &j->hdrs[i].st))
			return &j->hdrs[i];
	ALLOC_GROW(j->hdrs, j->nr_hdrs + 1, j->alloc_hdrs);
	memset(&j->hdrs[j->nr_hdrs], 0, sizeof(j->hdrs[0]));
	j->hdrs[j->nr_hdrs].file = xstrdup(file);
	j->hdrs[j->nr_hdrs].st = st;
	j->hdrs[j->nr_hdrs].id = (int)j->nr_hdrs;
	return &j->hdrs[j->nr_hdrs++];
}

/* Write the rewritten copy of header h (its directive has been found). */
static int write_header(struct job *j, struct header *h, const char *save_dir)
{
	struct astra_buf src = ASTRA_BUF_INIT, out = ASTRA_BUF_INIT;
	struct astra_edits e = ASTRA_EDITS_INIT;
	char *extra = xasprintf("#define __ASTRA_SUBST_%d 1\n", h->id);
	size_t i;
	int ret = -1;

	if (astra_buf_read_file(&src, h->file, 0) < 0) {
		error("cannot read %s: %s", h->file, strerror(errno));
		goto out;
	}
	for (i = 0; i < j->nr; i++) {
		const struct astra_kernel *k = j->subs[i].kernel;
		struct stat st;
		if (astra_rewrite_in_main(j->tu, k) || stat(k->file, &st) < 0 || !same_file(&st, &h->st))
			continue;
		if (astra_rewrite_kernel(&e, src.buf, src.len, h->spelling, &j->subs[i], extra) < 0)
			goto out;
		free(extra);
		extra = NULL;
	}
	if (pin_includes(j, &e, src.buf, src.len, h->spelling, 0) < 0)
		goto out;
	if (astra_edits_apply(&e, src.buf, src.len, h->spelling, &out) < 0)
		goto out;
	if (ws_write(&j->ws, h->copy, &out) < 0)
		goto out;
	if (save_dir)
		save_copy(save_dir, astra_basename(h->copy), &out);
	astra_pathmap_add(&j->map, h->copy, h->spelling);
	ret = 0;
out:
	free(extra);
	astra_edits_release(&e);
	astra_buf_release(&src);
	astra_buf_release(&out);
	return ret;
}

/*
 * Make nvcc write the dependency file to path: replace the value of every
 * -MF on the command line (nvcc warns about two different -MF values), or
 * add one.  An -MF that comes from an options file or NVCC_*_FLAGS cannot
 * be replaced: -1.
 */
static int redirect_depfile(struct astra_vec *argv, const struct astra_cmdline *cl, const char *path)
{
	static const char *const names[] = { "-MF", "--dependency-output" };
	size_t i, k;
	int found = 0;
	for (i = 1; i < argv->nr; i++) {
		for (k = 0; k < ARRAY_SIZE(names); k++) {
			size_t n = strlen(names[k]);
			if (!strcmp(argv->v[i], names[k]) && i + 1 < argv->nr) {
				astra_vec_set(argv, ++i, path);
				found = 1;
				break;
			}
			if (!strncmp(argv->v[i], names[k], n) && argv->v[i][n] == '=') {
				char *v = xasprintf("%s=%s", names[k], path);
				astra_vec_set(argv, i, v);
				free(v);
				found = 1;
				break;
			}
		}
	}
	if (found)
		return 0;
	if (cl->dep_file)
		return error("the -MF option is not on the command line itself; cannot redirect it");
	astra_vec_push(argv, "-MF");
	astra_vec_push(argv, path);
	return 0;
}

/* Can s go into an -Xcompiler list (and a dependency file) as it is? */
static int passable(const char *s)
{
	return !strpbrk(s, ", \t\n\r\\\"'");
}

/* The nvcc command for the rewritten TU. */
static int build_argv(struct job *j, const char *main_copy, const char *deps_tmp, struct astra_vec *argv)
{
	const struct astra_cmdline *cl = &j->inv->cl;
	const char *input = j->tu->path;
	char *dir = dir_of(input), *src_dir = dir_of(main_copy);
	char *abs = realpath(input, NULL);
	char *xc, *xf;
	int ret = -1;

	if (!abs) {
		error("cannot resolve %s: %s", input, strerror(errno));
		goto out;
	}
	/* The launcher (ccache) runs this compile too: it caches the rewritten TU. */
	astra_invocation_command(j->inv, j->inv->argv.v, j->inv->argv.nr, argv);
	astra_vec_set(argv, j->inv->launcher.nr + (size_t)cl->input_argi + 1, main_copy);
	/*
	 * cudafe++ records the source's absolute path; when the current
	 * directory's name is one a shell would change, the same file is
	 * named through the workspace's link to it instead.
	 */
	if (!astra_workspace_shell_safe(abs) && input[0] != '/') {
		free(abs);
		abs = xasprintf("%s%s", j->pin, input);
	}
	xc = xasprintf("-ffile-prefix-map=%s=,-ffile-prefix-map=%s=%s", j->pin, src_dir, dir);
	xf = xasprintf("--orig_src_file_name=%s,--orig_src_path_name=%s", input, abs);
	/*
	 * nvcc splits -Xcompiler and -Xcudafe values at commas and hands them
	 * to the host compiler's shell unquoted: no commas, no blanks, and
	 * nothing a shell would expand (`$`, a backtick, quotes, globs).
	 */
	if (!passable(j->pin) || strchr(j->pin, '=') || !passable(src_dir) || strchr(src_dir, '=') ||
	    !passable(input) || !passable(abs) || !astra_workspace_shell_safe(dir) ||
	    !astra_workspace_shell_safe(input) || !astra_workspace_shell_safe(abs) ||
	    !astra_workspace_shell_safe(j->pin)) {
		error("%s: a path with a blank, ',', '=' or a character a shell would change cannot be passed "
		      "through -Xcompiler", input);
		free(xc);
		free(xf);
		goto out;
	}
	astra_vec_push(argv, "-Xcompiler");
	astra_vec_push_owned(argv, xc);
	astra_vec_push(argv, "-Xcudafe");
	astra_vec_push_owned(argv, xf);
	if (deps_tmp && redirect_depfile(argv, cl, deps_tmp) < 0)
		goto out;
	ret = 0;
out:
	free(dir);
	free(src_dir);
	free(abs);
	return ret;
}

static int fix_deps(struct job *j, const char *deps_tmp)
{
	const struct astra_cmdline *cl = &j->inv->cl;
	struct astra_buf in = ASTRA_BUF_INIT, out = ASTRA_BUF_INIT;
	char *dest = cl->dep_file ? xstrdup(cl->dep_file) : astra_subst_default_depfile(cl);
	int ret = -1;

	if (!dest) {
		error("cannot tell where nvcc writes the dependency file");
		goto out;
	}
	if (astra_buf_read_file(&in, deps_tmp, 0) < 0) {
		error("nvcc wrote no dependency file %s: %s", deps_tmp, strerror(errno));
		goto out;
	}
	if (astra_subst_fix_deps(in.buf, in.len, &j->map, &out) < 0) {
		error("%s: unexpected dependency file format", deps_tmp);
		goto out;
	}
	ret = write_file_atomic(dest, out.buf, out.len);
out:
	free(dest);
	astra_buf_release(&in);
	astra_buf_release(&out);
	return ret;
}

static void replay(const struct astra_buf *b, FILE *f, const struct astra_pathmap *map)
{
	struct astra_buf m = ASTRA_BUF_INIT;
	if (!b->len)
		return;
	astra_subst_map_text(b->buf, b->len, map, &m);
	fwrite(m.buf, 1, m.len, f);
	fflush(f);
	astra_buf_release(&m);
}

/* Prepare the sources; returns 0 and sets *main_copy, or -1. */
static int prepare(struct job *j, const struct astra_subst_opts *opts, char **main_copy)
{
	const struct astra_tu *tu = j->tu;
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;
	char *src_dir = NULL;
	size_t i;
	int ret = -1;

	*main_copy = NULL;
	/* Headers first: their copies' paths go into the main file. */
	for (i = 0; i < j->nr; i++) {
		const struct astra_kernel *k = j->subs[i].kernel;
		struct header *h;
		if (astra_rewrite_in_main(tu, k))
			continue;
		if (!(h = header_for(j, k->file)))
			goto out;
		if (!h->copy) {
			char *d = xasprintf("%s/h%d", j->ws.dir, h->id);
			if (ws_mkdir(&j->ws, d) < 0) {
				free(d);
				goto out;
			}
			h->copy = xasprintf("%s/%s", d, astra_basename(k->file));
			free(d);
		}
	}
	if (pin_includes(j, &e, tu->text, tu->len, tu->path, 1) < 0)
		goto out;
	for (i = 0; i < j->nr_hdrs; i++) {
		struct header *h = &j->hdrs[i];
		if (!h->spelling) {
			error("%s: %s is not included directly by %s; its kernels are compiled unchanged",
			      h->file, h->file, tu->path);
			goto out;
		}
		if (!passable(h->spelling)) {
			error("%s: a header name with blanks or quotes cannot be mapped back", h->spelling);
			goto out;
		}
		if (write_header(j, h, opts ? opts->save_dir : NULL) < 0)
			goto out;
		astra_edits_add(&e, tu->len, tu->len,
				xasprintf("#ifndef __ASTRA_SUBST_%d\n#error \"astra-cc: the rewritten %s was not used\"\n#endif\n",
					  h->id, astra_basename(h->file)), 1);
	}
	for (i = 0; i < j->nr; i++) {
		const struct astra_subst *s = &j->subs[i];
		if (astra_rewrite_in_main(tu, s->kernel) &&
		    astra_rewrite_kernel(&e, tu->text, tu->len, tu->path, s, NULL) < 0)
			goto out;
		if (astra_subst_has_launcher(s)) {
			int n = astra_rewrite_launches(&e, tu, s);
			astra_trace(ASTRA_TRACE_DRIVER, "%s: %d launch site(s) of %s call the launcher", tu->path, n,
				    s->kernel->name);
		}
	}
	if (opts && opts->edit_main && opts->edit_main(&e, tu, opts->edit_data) < 0)
		goto out;
	if (astra_edits_apply(&e, tu->text, tu->len, tu->path, &out) < 0)
		goto out;

	src_dir = xasprintf("%s/src", j->ws.dir);
	if (ws_mkdir(&j->ws, src_dir) < 0)
		goto out;
	*main_copy = xasprintf("%s/%s", src_dir, astra_basename(tu->path));
	if (ws_write(&j->ws, *main_copy, &out) < 0)
		goto out;
	if (opts && opts->save_dir)
		save_copy(opts->save_dir, astra_basename(tu->path), &out);
	astra_pathmap_add(&j->map, *main_copy, tu->path);
	{
		char *sd = xasprintf("%s/", src_dir), *od = dir_of(tu->path);
		astra_pathmap_add(&j->map, sd, od);
		free(sd);
		free(od);
	}
	ret = 0;
out:
	if (ret) {
		free(*main_copy);
		*main_copy = NULL;
	}
	free(src_dir);
	astra_edits_release(&e);
	astra_buf_release(&out);
	return ret;
}

static void job_release(struct job *j)
{
	size_t i;
	for (i = 0; i < j->nr_hdrs; i++) {
		free(j->hdrs[i].file);
		free(j->hdrs[i].spelling);
		free(j->hdrs[i].copy);
	}
	free(j->hdrs);
	free(j->cwd);
	free(j->pin);
	astra_pathmap_release(&j->map);
	astra_vec_clear(&j->idirs);
	if (j->ws.dir)
		ws_close(&j->ws);
}

/*
 * A copy of subs with `direct` set for the variants with their own
 * geometry, and the variant sets, whose verified architectures include
 * every device pass of the command: their launch sites can launch the
 * variant with no run-time test, since no code this command builds lacks
 * it (rewrite.h).
 */
static struct astra_subst *mark_direct(const struct astra_invocation *inv, const struct astra_tu *tu,
				       const struct astra_subst *subs, size_t nr)
{
	struct astra_subst *mine = xcalloc(nr ? nr : 1, sizeof(*mine));
	int ccs[32];
	size_t nr_ccs = 0, i, a, b;
	int known = astra_arch_device_ccs(&inv->cl, ccs, ARRAY_SIZE(ccs), &nr_ccs) == 0;

	for (i = 0; i < nr; i++) {
		int all = known;
		mine[i] = subs[i];
		mine[i].direct = 0;
		if (!astra_subst_has_launcher(&subs[i]))
			continue;
		for (a = 0; a < nr_ccs && all; a++) {
			int found = 0;
			for (b = 0; b < subs[i].nr_ccs; b++)
				found |= subs[i].ccs[b] == ccs[a];
			all = found;
		}
		mine[i].direct = all;
		astra_trace(ASTRA_TRACE_DRIVER, "%s: %s launches its variant %s", tu->path, subs[i].kernel->name,
			    all ? "directly (every device pass is for a verified architecture)"
				: "after a run-time test (some device pass is for another architecture)");
	}
	return mine;
}

int astra_subst_compile(struct astra_invocation *inv, const struct astra_tu *tu,
			const struct astra_subst *subs, size_t nr, const struct astra_subst_opts *opts)
{
	struct job j;
	struct astra_vec argv = ASTRA_VEC_INIT;
	struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
	struct astra_run_opts ro;
	char *main_copy = NULL, *deps_tmp = NULL;
	struct astra_subst *mine;
	int status, ret = -1, internal = 1;

	memset(&j, 0, sizeof(j));
	j.inv = inv;
	j.tu = tu;
	j.nr = nr;
	j.subs = mine = mark_direct(inv, tu, subs, nr);
	astra_pathmap_init(&j.map);
	astra_vec_init(&j.idirs);

	if ((!nr && !(opts && opts->edit_main)) || inv->cl.reason || inv->cl.input_argi < 0) {
		error("substitute: not a single-file compile");
		goto out;
	}
	if (!(j.cwd = getcwd(NULL, 0))) {
		error("cannot get the current directory: %s", strerror(errno));
		goto out;
	}
	{
		/* The workspace is named after the command (struct workspace). */
		struct astra_vec id = ASTRA_VEC_INIT;
		int r;
		astra_invocation_command(inv, inv->argv.v, inv->argv.nr, &id);
		r = ws_open(&j.ws, j.cwd, &id);
		astra_vec_clear(&id);
		if (r < 0)
			goto out;
	}
	/*
	 * Includes found next to the sources are pinned through a link to
	 * the current directory inside the workspace, "<ws>/cwd/./": that
	 * name reaches nvcc's shell (-ffile-prefix-map), and the directory's
	 * own name may hold `$` or a backtick, which the shell would expand.
	 */
	{
		char *link = xasprintf("%s/cwd", j.ws.dir);
		if (symlink(j.cwd, link) < 0) {
			error("cannot link %s to %s: %s", link, j.cwd, strerror(errno));
			free(link);
			goto out;
		}
		astra_vec_push(&j.ws.files, link);
		j.pin = xasprintf("%s/./", link);
		free(link);
	}
	astra_pathmap_add(&j.map, j.pin, "");
	collect_idirs(&j);
	if (prepare(&j, opts, &main_copy) < 0)
		goto out;
	if (inv->cl.deps) {
		deps_tmp = xasprintf("%s/deps.d", j.ws.dir);
		astra_vec_push(&j.ws.files, deps_tmp);
	}
	if (build_argv(&j, main_copy, deps_tmp, &argv) < 0)
		goto out;

	memset(&ro, 0, sizeof(ro));
	ro.out = &out;
	ro.err = &err;
	if (astra_trace_on(ASTRA_TRACE_EXEC)) {
		struct astra_buf cmd = ASTRA_BUF_INIT;
		size_t i;
		for (i = 0; i < argv.nr; i++) {
			if (i)
				astra_buf_addch(&cmd, ' ');
			astra_buf_add_shell_quoted(&cmd, argv.v[i]);
		}
		astra_trace(ASTRA_TRACE_EXEC, "substituted compile: %s", cmd.buf);
		astra_buf_release(&cmd);
	}
	ro.foreground = 1;
	ro.child_setup = restore_signals_in_child;
	ro.pid_out = &compile_pid;
	astra_guard_prepare(inv->nvcc); /* as the passthrough: the compiler decides */
	catch_signals();
	status = astra_run(argv.v, &ro);
	release_signals();
	if (status != 0 && interrupted(&ro)) {
		/* Stop as nvcc stops (see catch_signals): its status, its messages, no fallback. */
		int sig = got_signal ? (int)got_signal : ro.signal;
		internal = 0;
		astra_log(ASTRA_LOG_WARNING, "%s: the compile was interrupted (signal %d); nvcc's status %d", tu->path,
			  sig, status);
		replay(&out, stdout, &j.map);
		replay(&err, stderr, &j.map);
		job_release(&j);
		if (ro.signal) {
			/* nvcc itself was killed: so is astra-cc, by the same signal. */
			astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
			signal(ro.signal, SIG_DFL);
			raise(ro.signal);
		}
		ret = status < 0 ? 128 + sig : status;
		goto out_released;
	}
	if (status != 0) {
		internal = 0;
		astra_log(ASTRA_LOG_WARNING, "%s: the rewritten translation unit did not compile (status %d); "
			  "compiling the original", tu->path, status);
		if (err.len)
			astra_log(ASTRA_LOG_INFO, "nvcc said:\n%s", err.buf);
		astra_stats_inc(ASTRA_STAT_FALLBACK_REWRITE);
		goto out;
	}
	if (deps_tmp && fix_deps(&j, deps_tmp) < 0)
		goto out;
	replay(&out, stdout, &j.map);
	replay(&err, stderr, &j.map);
	astra_stats_add(ASTRA_STAT_SUBSTITUTIONS, (long long)nr);
	ret = 0;
out:
	if (ret < 0 && internal)
		astra_stats_inc(ASTRA_STAT_FALLBACK_INTERNAL);
	job_release(&j);
out_released:
	free(main_copy);
	free(deps_tmp);
	astra_vec_clear(&argv);
	astra_buf_release(&out);
	astra_buf_release(&err);
	free(mine);
	return ret;
}
