/*
 * includes.c - following #include lines into project headers (see
 * includes.h).
 *
 * Separate from extraction because it runs on every compile, before any
 * decision to parse: it must stay a plain scan over bytes (no libclang, no
 * allocation per line) and cheap when a TU includes many headers.
 */
#include "autoconfig.h"

#include <string.h>
#include <sys/stat.h>

#include "astra-cc/buf.h"
#include "astra-cc/log.h"
#include "astra-cc/vec.h"
#include "passes/includes.h"

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
	return 0;
}

void astra_includes_dirs(const struct astra_cmdline *cl, struct astra_vec *dirs)
{
	size_t i;
	for (i = 0; i + 1 < cl->preproc_flags.nr; i++) {
		const char *v;
		if (strcmp(cl->preproc_flags.v[i], "-I"))
			continue;
		v = cl->preproc_flags.v[++i];
		/* nvcc takes comma-separated lists here. */
		while (*v) {
			size_t n = strcspn(v, ",");
			if (n)
				astra_vec_push_owned(dirs, xstrndup(v, n));
			v += n;
			if (*v == ',')
				v++;
		}
	}
}

static int is_system_path(const char *path)
{
	return astra_starts_with(path, "/usr/") || astra_starts_with(path, "/opt/");
}

struct scan {
	char *const *dirs;
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

/* Where does this include resolve?  A malloc'd path, or NULL. */
static char *resolve(struct scan *S, const char *includer, const char *name, int quoted, struct stat *st)
{
	size_t i;
	if (quoted) {
		const char *slash = strrchr(includer, '/');
		char *p = join(includer, slash ? (size_t)(slash - includer) : 0, name);
		if (stat(p, st) == 0 && S_ISREG(st->st_mode))
			return p;
		free(p);
	}
	for (i = 0; S->dirs && S->dirs[i]; i++) {
		char *p;
		if (is_system_path(S->dirs[i]))
			continue;
		p = join(S->dirs[i], strlen(S->dirs[i]), name);
		if (stat(p, st) == 0 && S_ISREG(st->st_mode))
			return p;
		free(p);
	}
	return NULL;
}

static void scan_text(struct scan *S, const char *path, const char *text, size_t len, unsigned depth);

static void follow(struct scan *S, const char *includer, const char *name, int quoted, unsigned depth)
{
	struct stat st;
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_header *h;
	char *path;
	size_t i;

	if (name[0] == '/' && is_system_path(name))
		return;
	path = resolve(S, includer, name, quoted, &st);
	if (!path) {
		if (!(S->flags & ASTRA_INCLUDES_MISSING) || !quoted)
			return;
		for (i = 0; i < S->out->nr; i++)
			if (!S->out->items[i].text && !strcmp(S->out->items[i].spelled, name))
				return;
		ALLOC_GROW(S->out->items, S->out->nr + 1, S->out->alloc);
		h = &S->out->items[S->out->nr++];
		memset(h, 0, sizeof(*h));
		h->spelled = xstrdup(name);
		h->depth = depth;
		return;
	}
	if (is_system_path(path) || seen_before(S, &st)) {
		free(path);
		return;
	}
	if (depth > ASTRA_INCLUDES_MAX_DEPTH || S->out->nr >= ASTRA_INCLUDES_MAX_FILES) {
		S->out->truncated = 1;
		free(path);
		return;
	}
	if (astra_buf_read_file(&b, path, 1 << 26) < 0) {
		astra_trace(ASTRA_TRACE_EXTRACT, "%s: cannot read %s", includer, path);
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
		size_t at = S->out->nr - 1;
		scan_text(S, S->out->items[at].path, S->out->items[at].text, S->out->items[at].len, depth + 1);
	}
}

/* Find the #include lines of one file. */
static void scan_text(struct scan *S, const char *path, const char *text, size_t len, unsigned depth)
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
				q += 7;
				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				if (q < eol && (*q == '"' || *q == '<')) {
					close = *q == '"' ? '"' : '>';
					name = ++q;
					while (q < eol && *q != close)
						q++;
					if (q < eol && q > name) {
						char *n = xstrndup(name, (size_t)(q - name));
						follow(S, path, n, close == '"', depth);
						free(n);
					}
				}
			}
		}
		p = eol + 1;
	}
}

int astra_includes_scan(const char *path, const char *text, size_t len, char *const *include_dirs,
			unsigned flags, struct astra_includes *out)
{
	struct scan S;
	struct stat st;
	memset(&S, 0, sizeof(S));
	S.dirs = include_dirs;
	S.flags = flags;
	S.out = out;
	if (stat(path, &st) == 0)
		seen_before(&S, &st);
	scan_text(&S, path, text, len, 1);
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
