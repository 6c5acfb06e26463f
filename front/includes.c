/*
 * includes.c - following #include lines into headers (see includes.h).
 *
 * Separate from extraction because it runs on every compile, before any
 * decision to parse: it must stay a plain scan over bytes (no libclang, no
 * allocation per line) and cheap when a TU includes many headers.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <stddef.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/toolmemo.h"
#include "lib/vec.h"
#include "front/includes.h"

/* Is `ASTRA(` at p, first on its line (the annotation macro, doc/pragma.md)? */
static int annotation_macro_at(const char *s, const char *p, const char *end)
{
	const char *b = p, *q = p + 5;
	while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b > s && b[-1] != '\n')
		return 0;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	return q < end && *q == '(';
}

int astra_text_mentions_pragma(const char *s, size_t len)
{
	const char *end = s + len, *p = s;
	while ((p = memmem(p, (size_t)(end - p), "pragma", 6)) != NULL) {
		const char *q = p + 6;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q >= 5 && !memcmp(q, "astra", 5))
			return 1;
		p += 6;
	}
	for (p = s; (p = memmem(p, (size_t)(end - p), "ASTRA", 5)) != NULL; p += 5)
		if (annotation_macro_at(s, p, end))
			return 1;
	return 0;
}

/* ------------------------------------------------------- the search path */

/* The directories of a command line by class, before they are ordered. */
struct classes {
	struct astra_vec quote, inc_x, inc, sys_x, sys, after, pre;
};

/* Push each entry of a comma-separated list (nvcc's list options). */
static void push_list(struct astra_vec *v, const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ",");
		if (n)
			astra_vec_push_owned(v, xstrndup(list, n));
		list += n;
		if (*list == ',')
			list++;
	}
}

/* The include options among -Xcompiler's words (gcc's spellings). */
static void host_words(struct classes *c, const struct astra_vec *w)
{
	static const struct {
		const char *opt;
		size_t off; /* offsetof the class */
	} opts[] = {
		{ "-iquote", offsetof(struct classes, quote) },
		{ "-isystem", offsetof(struct classes, sys_x) },
		{ "-idirafter", offsetof(struct classes, after) },
		{ "-include", offsetof(struct classes, pre) },
		{ "-I", offsetof(struct classes, inc_x) },
	};
	size_t i, k;
	for (i = 0; i < w->nr; i++)
		for (k = 0; k < ARRAY_SIZE(opts); k++) {
			size_t n = strlen(opts[k].opt);
			struct astra_vec *v = (struct astra_vec *)((char *)c + opts[k].off);
			if (strncmp(w->v[i], opts[k].opt, n))
				continue;
			if (w->v[i][n])
				astra_vec_push(v, w->v[i] + n);
			else if (i + 1 < w->nr)
				astra_vec_push(v, w->v[++i]);
			break;
		}
}

static void collect(const struct astra_cmdline *cl, struct classes *c)
{
	size_t i;
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++) {
		const char *o = cl->preproc_flags.v[i], *v = cl->preproc_flags.v[i + 1];
		if (!strcmp(o, "-I"))
			push_list(&c->inc, v);
		else if (!strcmp(o, "-isystem"))
			push_list(&c->sys, v);
		else if (!strcmp(o, "-include"))
			push_list(&c->pre, v);
		else if (!strcmp(o, "-Xcompiler")) {
			struct astra_vec w = ASTRA_VEC_INIT;
			push_list(&w, v);
			host_words(c, &w);
			astra_vec_clear(&w);
		} else {
			continue;
		}
		i++;
	}
}

static void classes_release(struct classes *c)
{
	astra_vec_clear(&c->quote);
	astra_vec_clear(&c->inc_x);
	astra_vec_clear(&c->inc);
	astra_vec_clear(&c->sys_x);
	astra_vec_clear(&c->sys);
	astra_vec_clear(&c->after);
	astra_vec_clear(&c->pre);
}

/* Is path (resolved) inside one of the toolkit's include roots? */
static int in_toolkit(const struct astra_search_path *sp, const char *path)
{
	char real[PATH_MAX];
	size_t i;
	if (!sp->nr_toolkit || !realpath(path, real))
		return 0;
	for (i = 0; i < sp->nr_toolkit; i++) {
		size_t n = strlen(sp->toolkit[i]);
		if (!strncmp(real, sp->toolkit[i], n) && (real[n] == '/' || !real[n]))
			return 1;
	}
	return 0;
}

static void add_dirs(struct astra_search_path *sp, const struct astra_vec *v, unsigned flags)
{
	size_t i;
	for (i = 0; i < v->nr; i++) {
		struct astra_search_dir *d;
		ALLOC_GROW(sp->dirs, sp->nr + 1, sp->alloc);
		d = &sp->dirs[sp->nr++];
		d->path = xstrdup(v->v[i]);
		d->flags = flags | (in_toolkit(sp, v->v[i]) ? ASTRA_DIR_TOOLKIT : 0);
	}
}

/* Order the classes as gcc searches them; toolkit and host lists may be empty. */
static void build(struct astra_search_path *sp, const struct classes *c, const struct astra_vec *tk_inc,
		  const struct astra_vec *tk_sys, const struct astra_vec *host)
{
	size_t i;
	for (i = 0; i < sp->nr; i++)
		free(sp->dirs[i].path);
	sp->nr = 0;
	add_dirs(sp, &c->quote, ASTRA_DIR_QUOTE);
	add_dirs(sp, &c->inc_x, 0);
	add_dirs(sp, &c->inc, 0);
	add_dirs(sp, tk_inc, ASTRA_DIR_TOOLKIT);
	add_dirs(sp, &c->sys_x, ASTRA_DIR_SYSTEM);
	add_dirs(sp, &c->sys, ASTRA_DIR_SYSTEM);
	add_dirs(sp, tk_sys, ASTRA_DIR_TOOLKIT);
	add_dirs(sp, host, ASTRA_DIR_SYSTEM);
	add_dirs(sp, &c->after, ASTRA_DIR_SYSTEM);
	if (!sp->nr_pre)
		for (i = 0; i < c->pre.nr; i++) {
			ALLOC_GROW(sp->pre_includes, sp->nr_pre + 1, sp->alloc_pre);
			sp->pre_includes[sp->nr_pre++] = xstrdup(c->pre.v[i]);
		}
}

void astra_search_path_from_cmdline(const struct astra_cmdline *cl, struct astra_search_path *sp)
{
	struct classes c;
	struct astra_vec none = ASTRA_VEC_INIT;
	memset(&c, 0, sizeof(c));
	collect(cl, &c);
	build(sp, &c, &none, &none, &none);
	classes_release(&c);
}

/* The toolkit's include roots, from nvcc's location: <root>/bin/nvcc. */
static void toolkit_dirs(struct astra_search_path *sp, const char *nvcc, struct astra_vec *inc,
			 struct astra_vec *sys)
{
	char real[PATH_MAX], got[PATH_MAX];
	char *bin, *root, *targets;
	DIR *d;
	struct dirent *de;
	if (!nvcc || !realpath(nvcc, real))
		return;
	bin = xstrndup(real, (size_t)(astra_basename(real) - real - 1));
	if (strcmp(astra_basename(bin), "bin")) {
		free(bin);
		return;
	}
	root = xstrndup(bin, (size_t)(astra_basename(bin) - bin - 1));
	targets = xasprintf("%s/targets", root);
	if ((d = opendir(targets)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			char *p;
			if (de->d_name[0] == '.')
				continue;
			p = xasprintf("%s/%s/include", targets, de->d_name);
			if (realpath(p, got)) {
				astra_vec_push(inc, got);
				astra_vec_pushf(sys, "%s/cccl", got);
			}
			free(p);
		}
		closedir(d);
	}
	{
		char *p = xasprintf("%s/include", root);
		if (realpath(p, got) && astra_vec_find(inc, got) < 0)
			astra_vec_push(inc, got);
		free(p);
	}
	for (size_t i = 0; i < inc->nr; i++) {
		ALLOC_GROW(sp->toolkit, sp->nr_toolkit + 1, sp->alloc_toolkit);
		sp->toolkit[sp->nr_toolkit++] = xstrdup(inc->v[i]);
	}
	free(targets);
	free(root);
	free(bin);
}

/* Which host compiler nvcc runs: -ccbin (a file or a directory), $NVCC_CCBIN, gcc. */
static char *host_compiler(const struct astra_cmdline *cl)
{
	const char *cc = astra_getenv("NVCC_CCBIN");
	struct stat st;
	size_t i;
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++)
		if (!strcmp(cl->preproc_flags.v[i], "-ccbin"))
			cc = cl->preproc_flags.v[++i];
	if (!cc)
		return xstrdup("gcc");
	if (stat(cc, &st) == 0 && S_ISDIR(st.st_mode))
		return xasprintf("%s/gcc", cc);
	return xstrdup(cc);
}

/*
 * The host compiler's file, for the key (sp->host_file): the version line
 * does not tell a wrapper script (`exec g++ -DSCALE=2 "$@"`) from the
 * compiler it wraps, nor two builds of one version.  As ccache's
 * compiler_check: "content" (the default) hashes the file nvcc would run,
 * found as nvcc finds it (PATH for a bare name) with symbolic links
 * resolved, a script's own text for a script, remembered per file in
 * <cache_dir>/host-compiler/ so a compile reads it once; "mtime" takes its
 * size and modification time; "string:TEXT" takes TEXT; "none" nothing
 * (the version line alone, as before).  NULL when the file cannot be read.
 */
static char *host_file_id(const char *cc, const char *memo_dir)
{
	const char *check = astra_config_str(ASTRA_CFG_COMPILER_CHECK);
	struct astra_buf b = ASTRA_BUF_INIT;
	char real[PATH_MAX], *found;
	struct stat st;

	if (!strcmp(check, "none"))
		return xstrdup("none");
	if (astra_starts_with(check, "string:"))
		return xstrdup(check);
	found = astra_which(cc);
	if (!found || !realpath(found, real) || stat(real, &st) < 0) {
		free(found);
		return NULL;
	}
	free(found);
	if (!strcmp(check, "mtime")) {
		astra_buf_addf(&b, "mtime %lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			       (long)st.st_mtim.tv_nsec);
		return astra_buf_detach(&b, NULL);
	}
	astra_buf_adds(&b, "content ");
	if (astra_toolmemo_file_hash(real, memo_dir, &b) < 0) {
		astra_buf_release(&b);
		return NULL;
	}
	return astra_buf_detach(&b, NULL);
}

/* -Xcompiler words that change the host compiler's own directories. */
static int changes_host_dirs(const char *w)
{
	static const char *const prefixes[] = { "-nostdinc", "--sysroot", "-isysroot", "-stdlib=", "--gcc-toolchain",
						"--target", "-target", "-m32", "-m64", "-nostdlibinc" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (astra_starts_with(w, prefixes[i]))
			return 1;
	return 0;
}

/* Parse `cc -E -v` on stderr: the version line and the <...> search list. */
static int parse_host_report(struct astra_search_path *sp, const char *report, struct astra_vec *dirs)
{
	const char *p = report;
	int in_list = 0, ended = 0;
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		if (!sp->host_id && strstr(line, " version "))
			sp->host_id = xstrdup(line);
		if (astra_starts_with(line, "#include <...> search starts here:")) {
			in_list = 1;
		} else if (astra_starts_with(line, "End of search list.")) {
			in_list = 0;
			ended = 1;
		} else if (in_list && line[0] == ' ') {
			char *d = line + 1, *fw = strstr(d, " (framework directory)");
			if (fw)
				*fw = '\0';
			astra_vec_push(dirs, d);
		}
		free(line);
		p += n;
		if (*p)
			p++;
	}
	return ended && sp->host_id ? 0 : -1;
}

int astra_search_path_add_toolchain(struct astra_search_path *sp, const struct astra_cmdline *cl,
				    const char *nvcc, const char *cache_dir)
{
	struct classes c;
	struct astra_vec tk_inc = ASTRA_VEC_INIT, tk_sys = ASTRA_VEC_INIT, host = ASTRA_VEC_INIT;
	struct astra_vec argv = ASTRA_VEC_INIT;
	struct astra_buf report = ASTRA_BUF_INIT;
	char *env, *cc = host_compiler(cl), *memo = cache_dir && *cache_dir ? xasprintf("%s/host-compiler", cache_dir) : NULL;
	size_t i;
	int ret = 0;

	memset(&c, 0, sizeof(c));
	collect(cl, &c);
	toolkit_dirs(sp, nvcc, &tk_inc, &tk_sys);

	astra_vec_push(&argv, cc);
	astra_vec_push(&argv, "-E");
	astra_vec_push(&argv, "-x");
	astra_vec_push(&argv, "c++");
	astra_vec_push(&argv, "-v");
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++)
		if (!strcmp(cl->preproc_flags.v[i], "-Xcompiler")) {
			struct astra_vec w = ASTRA_VEC_INIT;
			size_t k;
			push_list(&w, cl->preproc_flags.v[++i]);
			for (k = 0; k < w.nr; k++)
				if (changes_host_dirs(w.v[k]))
					astra_vec_push(&argv, w.v[k]);
			astra_vec_clear(&w);
		}
	astra_vec_push(&argv, "/dev/null");
	free(sp->host_id);
	sp->host_id = NULL;
	free(sp->host_file);
	sp->host_file = NULL;
	sp->host_known = 0;
	/* The variables that add directories to the host compiler's own list. */
	env = xasprintf("CPATH=%s\nCPLUS_INCLUDE_PATH=%s\nC_INCLUDE_PATH=%s", getenv("CPATH") ? getenv("CPATH") : "",
			getenv("CPLUS_INCLUDE_PATH") ? getenv("CPLUS_INCLUDE_PATH") : "",
			getenv("C_INCLUDE_PATH") ? getenv("C_INCLUDE_PATH") : "");
	if (astra_toolmemo_run(argv.v, ASTRA_TOOLMEMO_STDERR, env, memo, &report) < 0 ||
	    parse_host_report(sp, report.buf, &host) < 0) {
		ret = error("the host compiler %s does not say where its headers are: no key covers them", cc);
		free(sp->host_id);
		sp->host_id = NULL;
		astra_vec_clear(&host);
	} else if (!(sp->host_file = host_file_id(cc, memo))) {
		ret = error("the host compiler %s cannot be read (compiler_check): no key", cc);
		free(sp->host_id);
		sp->host_id = NULL;
		astra_vec_clear(&host);
	} else {
		sp->host_known = 1;
	}
	build(sp, &c, &tk_inc, &tk_sys, &host);

	classes_release(&c);
	astra_vec_clear(&tk_inc);
	astra_vec_clear(&tk_sys);
	astra_vec_clear(&host);
	astra_vec_clear(&argv);
	astra_buf_release(&report);
	free(memo);
	free(env);
	free(cc);
	return ret;
}

void astra_search_path_release(struct astra_search_path *sp)
{
	size_t i;
	for (i = 0; i < sp->nr; i++)
		free(sp->dirs[i].path);
	free(sp->dirs);
	for (i = 0; i < sp->nr_pre; i++)
		free(sp->pre_includes[i]);
	free(sp->pre_includes);
	for (i = 0; i < sp->nr_toolkit; i++)
		free(sp->toolkit[i]);
	free(sp->toolkit);
	free(sp->host_id);
	free(sp->host_file);
	memset(sp, 0, sizeof(*sp));
}

/* -------------------------------------------------------------- the scan */

static int is_system_path(const char *path)
{
	return astra_starts_with(path, "/usr/") || astra_starts_with(path, "/opt/");
}

struct scan {
	const struct astra_search_path *sp;
	unsigned flags;
	struct astra_includes *out;
	/* (device, inode) of every file entered, the main file included. */
	struct fileid {
		dev_t dev;
		ino_t ino;
	} *seen;
	size_t nr_seen, alloc_seen;
	int found;
	int stop;
};

static int seen_before(struct scan *S, const struct stat *st)
{
	size_t i;
	for (i = 0; i < S->nr_seen; i++)
		if (S->seen[i].dev == st->st_dev && S->seen[i].ino == st->st_ino)
			return 1;
	ALLOC_GROW(S->seen, S->nr_seen + 1, S->alloc_seen);
	S->seen[S->nr_seen].dev = st->st_dev;
	S->seen[S->nr_seen].ino = st->st_ino;
	S->nr_seen++;
	return 0;
}

/* dir + "/" + name, or name itself when dir is empty or name absolute. */
static char *join(const char *dir, size_t dlen, const char *name)
{
	if (name[0] == '/' || !dlen)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)dlen, dir, name);
}

static int is_file(const char *p, struct stat *st)
{
	return stat(p, st) == 0 && S_ISREG(st->st_mode);
}

/* How an include is spelled. */
enum form { QUOTED, ANGLED, NEXT };

/*
 * Where does this include resolve?  A malloc'd path and *dir (the search
 * directory's index, or -1), or NULL: not found, or (*blocked) found where
 * this scan does not enter.
 */
static char *resolve(struct scan *S, const char *includer, long includer_dir, const char *name, enum form form,
		     struct stat *st, long *dir, int *blocked)
{
	const struct astra_search_path *sp = S->sp;
	int full = (S->flags & ASTRA_INCLUDES_SYSTEM) != 0;
	size_t i = 0;

	*dir = -1;
	*blocked = 0;
	if (name[0] == '/') {
		if (!is_file(name, st))
			return NULL;
		if (full ? sp && in_toolkit(sp, name) : is_system_path(name)) {
			*blocked = 1;
			return NULL;
		}
		return xstrdup(name);
	}
	if (form == QUOTED) {
		const char *slash = strrchr(includer, '/');
		char *p = join(includer, slash ? (size_t)(slash - includer) : 0, name);
		if (is_file(p, st)) {
			/* A climb out of the includer's directory may reach the toolkit. */
			if (full && sp && strstr(name, "..") && in_toolkit(sp, p)) {
				free(p);
				*blocked = 1;
				return NULL;
			}
			return p;
		}
		free(p);
	}
	if (form == NEXT && includer_dir >= 0)
		i = (size_t)includer_dir + 1;
	for (; sp && i < sp->nr; i++) {
		const struct astra_search_dir *d = &sp->dirs[i];
		char *p;
		if ((d->flags & ASTRA_DIR_QUOTE) && form != QUOTED)
			continue;
		if (!full && ((d->flags & (ASTRA_DIR_SYSTEM | ASTRA_DIR_TOOLKIT)) || is_system_path(d->path)))
			continue;
		p = join(d->path, strlen(d->path), name);
		if (is_file(p, st)) {
			if (d->flags & ASTRA_DIR_TOOLKIT) {
				free(p);
				*blocked = 1;
				return NULL;
			}
			*dir = (long)i;
			return p;
		}
		free(p);
	}
	return NULL;
}

static void scan_text(struct scan *S, const char *path, long dir, int sys, const char *text, size_t len,
		      unsigned depth, long self);

/* parent, at: where the #include is (see struct astra_header). */
static void follow(struct scan *S, const char *includer, long includer_dir, int includer_sys, const char *name,
		   enum form form, unsigned depth, long parent, size_t at)
{
	struct stat st;
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_header *h;
	char *path;
	long dir;
	int blocked;
	size_t i;

	path = resolve(S, includer, includer_dir, name, form, &st, &dir, &blocked);
	if (!path) {
		if (blocked || !(S->flags & ASTRA_INCLUDES_MISSING) || form != QUOTED)
			return;
		for (i = 0; i < S->out->nr; i++)
			if (!S->out->items[i].text && !strcmp(S->out->items[i].spelled, name))
				return;
		ALLOC_GROW(S->out->items, S->out->nr + 1, S->out->alloc);
		h = &S->out->items[S->out->nr++];
		memset(h, 0, sizeof(*h));
		h->spelled = xstrdup(name);
		h->depth = depth;
		h->dir = -1;
		h->parent = parent;
		h->at = at;
		return;
	}
	if ((!(S->flags & ASTRA_INCLUDES_SYSTEM) && is_system_path(path)) || seen_before(S, &st)) {
		free(path);
		return;
	}
	if (depth > ASTRA_INCLUDES_MAX_DEPTH || S->out->nr >= ASTRA_INCLUDES_MAX_FILES) {
		S->out->truncated = 1;
		free(path);
		return;
	}
	if (astra_buf_read_file(&b, path, 1 << 26) < 0) {
		/* Unreadable: the set is incomplete. */
		astra_trace(ASTRA_TRACE_EXTRACT, "%s: cannot read %s", includer, path);
		S->out->truncated = 1;
		astra_buf_release(&b);
		free(path);
		return;
	}
	ALLOC_GROW(S->out->items, S->out->nr + 1, S->out->alloc);
	h = &S->out->items[S->out->nr++];
	h->path = path;
	h->spelled = xstrdup(name);
	h->text = astra_buf_detach(&b, &h->len);
	h->depth = depth;
	h->parent = parent;
	h->at = at;
	h->dir = dir;
	h->system = dir >= 0 ? (S->sp->dirs[dir].flags & ASTRA_DIR_SYSTEM) != 0 : includer_sys;
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->has_pragma = astra_text_mentions_pragma(h->text, h->len);
	if (h->has_pragma) {
		S->found++;
		if (S->flags & ASTRA_INCLUDES_STOP_AT_PRAGMA) {
			S->stop = 1;
			return;
		}
	}
	/* h may move when the array grows: scan from stable copies. */
	{
		size_t self = S->out->nr - 1;
		scan_text(S, S->out->items[self].path, dir, S->out->items[self].system, S->out->items[self].text,
			  S->out->items[self].len, depth + 1, (long)self);
	}
}

/* Find the #include and #include_next lines of one file (self: its index in S->out, -1 for the main file). */
static void scan_text(struct scan *S, const char *path, long dir, int sys, const char *text, size_t len,
		      unsigned depth, long self)
{
	const char *p = text, *end = text + len;
	while (p < end && !S->stop) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p, *name;
		char close;
		if (!eol)
			eol = end;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q < eol && *q == '#') {
			q++;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			if (eol - q > 7 && !memcmp(q, "include", 7)) {
				int next = 0;
				q += 7;
				if (eol - q > 5 && !memcmp(q, "_next", 5)) {
					next = 1;
					q += 5;
				}
				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				if (q < eol && (*q == '"' || *q == '<')) {
					close = *q == '"' ? '"' : '>';
					name = ++q;
					while (q < eol && *q != close)
						q++;
					if (q < eol && q > name) {
						char *n = xstrndup(name, (size_t)(q - name));
						follow(S, path, dir, sys, n, next ? NEXT : close == '"' ? QUOTED : ANGLED,
						       depth, self, (size_t)(p - text));
						free(n);
					}
				}
			}
		}
		p = eol + 1;
	}
}

int astra_includes_scan(const char *path, const char *text, size_t len, const struct astra_search_path *sp,
			int pre, unsigned flags, struct astra_includes *out)
{
	struct scan S;
	struct stat st;
	size_t i;
	memset(&S, 0, sizeof(S));
	S.sp = sp;
	S.flags = flags;
	S.out = out;
	if (stat(path, &st) == 0)
		seen_before(&S, &st);
	/* -include files come first, found from the current directory. */
	for (i = 0; pre && sp && i < sp->nr_pre && !S.stop; i++)
		follow(&S, "./-", -1, 0, sp->pre_includes[i], QUOTED, 1, -1, 0);
	if (!S.stop)
		scan_text(&S, path, -1, 0, text, len, 1, -1);
	free(S.seen);
	return S.found;
}

void astra_includes_release(struct astra_includes *inc)
{
	size_t i;
	for (i = 0; i < inc->nr; i++) {
		free(inc->items[i].path);
		free(inc->items[i].spelled);
		free(inc->items[i].text);
	}
	free(inc->items);
	memset(inc, 0, sizeof(*inc));
}
