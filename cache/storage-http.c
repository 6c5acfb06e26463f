/*
 * storage-http.c - the HTTP backend of the storage interface (see
 * storage.h): a shared remote tier on any server that stores whole files
 * under a URL with PUT and serves them back with GET (WebDAV: nginx with
 * its dav module, Apache mod_dav; bazel-remote; an object store behind an
 * HTTP front).
 *
 * Layout: object NAME lives at BASE/NAME[0..1]/NAME[2..3]/NAME, the same
 * two-level hex directories as the local tier, so a directory written by
 * a `file:` tier can be served as an `http:` tier and the other way round.
 * get = GET (200 found, 404/410 absent), put = PUT of the whole object
 * (on 409, which WebDAV servers answer when the parent collection is
 * missing, the two directories are made with MKCOL and the PUT is tried
 * once more; nginx does that itself with create_full_put_path), head =
 * HEAD, remove = DELETE.  touch does nothing (the server's own clean-up
 * owns its LRU) and list is not offered (nothing lists a remote tier).
 * The server must make a PUT atomic (nginx and Apache write a temporary
 * file and rename it); an entry that is torn anyway fails its checks and
 * is a miss.
 *
 * Attributes after the URL (ccache's names and units):
 * `|connect-timeout=MS` (default 1000) and `|operation-timeout=MS`
 * (default 5000, the limit of one whole request).  Credentials come from
 * the netrc file named by `remote_credentials` (default ~/.netrc when it
 * exists); a URL with user:password@ in it is refused, so that secrets
 * stay out of settings that `--show-config` prints, logs and `ps`.
 *
 * Errors are returned with errno set (ECONNREFUSED, ETIMEDOUT,
 * ECONNRESET, EACCES for 401/403, EROFS for 405, ENOSPC for 507, EIO for
 * the rest) and described in the `cache` trace; the store logs them and
 * skips the tier for the rest of the process.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/util.h"
#include "cache/storage.h"

/* The biggest object a get accepts: entries are kilobytes, transcripts more. */
#define MAX_OBJECT (64u << 20)

struct http_tier {
	char *base;             /* ends with '/' */
	char *netrc;            /* NULL: no credentials */
	double connect_timeout; /* seconds */
	double timeout;
};

static struct http_tier *tier(struct astra_storage *s)
{
	return s->state;
}

static char *object_url(struct astra_storage *s, const char *name)
{
	return xasprintf("%s%.2s/%.2s/%s", tier(s)->base, name, name + 2, name);
}

/* One request; resp filled.  Returns 0 when a response arrived, else -1 with errno. */
static int exchange(struct astra_storage *s, const char *method, const char *url, const void *body, size_t len,
		    struct astra_http_response *resp)
{
	struct astra_http_request req;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.url = url;
	req.body = body;
	req.len = len;
	req.netrc = tier(s)->netrc;
	req.connect_timeout = tier(s)->connect_timeout;
	req.timeout = tier(s)->timeout;
	req.max_body = MAX_OBJECT;
	if (astra_http_request(&req, resp) == 0) {
		astra_trace(ASTRA_TRACE_CACHE, "%s %s: HTTP %ld (%.3f s)", method, url, resp->status, resp->seconds);
		return 0;
	}
	astra_trace(ASTRA_TRACE_CACHE, "%s %s: %s", method, url, resp->error ? resp->error : "failed");
	switch (resp->fail) {
	case ASTRA_HTTP_CONNECT: errno = ECONNREFUSED; break;
	case ASTRA_HTTP_TIMEOUT: errno = ETIMEDOUT; break;
	case ASTRA_HTTP_BROKEN: errno = ECONNRESET; break;
	case ASTRA_HTTP_TOO_LARGE: errno = EFBIG; break;
	default: errno = EIO; break;
	}
	return -1;
}

/* errno for an HTTP status that is neither success nor "absent". */
static int status_errno(long status)
{
	switch (status) {
	case 401: case 403: return EACCES;
	case 405: return EROFS;
	case 413: return EFBIG;
	case 507: return ENOSPC;
	default: return EIO;
	}
}

static int absent(long status)
{
	return status == 404 || status == 410;
}

static void fill_stat(const struct astra_http_response *r, size_t len, struct astra_storage_stat *st)
{
	if (!st)
		return;
	st->size = r->length >= 0 ? r->length : (long long)len;
	st->mtime = r->mtime >= 0 ? r->mtime * 1000000000LL : 0;
}

static int http_get(struct astra_storage *s, const char *name, struct astra_buf *out, struct astra_storage_stat *st)
{
	struct astra_http_response r;
	char *url;
	int ret;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	url = object_url(s, name);
	astra_http_response_init(&r);
	if (exchange(s, "GET", url, NULL, 0, &r) < 0) {
		ret = -1;
	} else if (r.status == 200) {
		/* A body shorter than its Content-Length is a broken transfer (curl says so): never here. */
		astra_buf_add(out, r.body.buf, r.body.len);
		fill_stat(&r, r.body.len, st);
		ret = 1;
	} else if (absent(r.status)) {
		ret = 0;
	} else {
		errno = status_errno(r.status);
		ret = -1;
	}
	astra_http_response_release(&r);
	free(url);
	return ret;
}

/* MKCOL BASE/aa/ and BASE/aa/bb/ (405: it exists already). */
static int make_dirs(struct astra_storage *s, const char *name)
{
	struct astra_http_response r;
	char *urls[2];
	int i, ret = 0;
	urls[0] = xasprintf("%s%.2s/", tier(s)->base, name);
	urls[1] = xasprintf("%s%.2s/%.2s/", tier(s)->base, name, name + 2);
	astra_http_response_init(&r);
	for (i = 0; i < 2 && !ret; i++) {
		if (exchange(s, "MKCOL", urls[i], NULL, 0, &r) < 0)
			ret = -1;
		else if (!(r.status >= 200 && r.status < 300) && r.status != 405)
			ret = (errno = status_errno(r.status), -1);
	}
	astra_http_response_release(&r);
	free(urls[0]);
	free(urls[1]);
	return ret;
}

static int http_put(struct astra_storage *s, const char *name, const void *data, size_t len)
{
	struct astra_http_response r;
	char *url;
	int ret = -1, attempt;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	url = object_url(s, name);
	astra_http_response_init(&r);
	for (attempt = 0; attempt < 2; attempt++) {
		if (exchange(s, "PUT", url, data, len, &r) < 0)
			break;
		if (r.status >= 200 && r.status < 300) {
			ret = 0;
			break;
		}
		if (r.status != 409 || attempt || make_dirs(s, name) < 0) {
			if (r.status != 409 || attempt)
				errno = status_errno(r.status);
			break;
		}
	}
	astra_http_response_release(&r);
	free(url);
	return ret;
}

static int http_head(struct astra_storage *s, const char *name, struct astra_storage_stat *st)
{
	struct astra_http_response r;
	char *url;
	int ret;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	url = object_url(s, name);
	astra_http_response_init(&r);
	if (exchange(s, "HEAD", url, NULL, 0, &r) < 0)
		ret = -1;
	else if (r.status == 200)
		ret = (fill_stat(&r, 0, st), 1);
	else if (absent(r.status))
		ret = 0;
	else
		ret = (errno = status_errno(r.status), -1);
	astra_http_response_release(&r);
	free(url);
	return ret;
}

static int http_remove(struct astra_storage *s, const char *name)
{
	struct astra_http_response r;
	char *url;
	int ret;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	url = object_url(s, name);
	astra_http_response_init(&r);
	if (exchange(s, "DELETE", url, NULL, 0, &r) < 0)
		ret = -1;
	else if ((r.status >= 200 && r.status < 300) || absent(r.status))
		ret = 0;
	else
		ret = (errno = status_errno(r.status), -1);
	astra_http_response_release(&r);
	free(url);
	return ret;
}

static int http_touch(struct astra_storage *s, const char *name)
{
	(void)s;
	(void)name;
	return 0;
}

static int http_list(struct astra_storage *s, const char *prefix, astra_storage_list_fn fn, void *data)
{
	(void)s;
	(void)prefix;
	(void)fn;
	(void)data;
	return errno = ENOTSUP, -1;
}

static char *http_where(struct astra_storage *s, const char *name)
{
	return object_url(s, name);
}

static void http_close(struct astra_storage *s)
{
	struct http_tier *t = tier(s);
	free(t->base);
	free(t->netrc);
	free(t);
	free(s->url);
	free(s);
}

static const struct astra_storage_ops http_ops = {
	.scheme = "http",
	.get = http_get,
	.put = http_put,
	.head = http_head,
	.remove = http_remove,
	.touch = http_touch,
	.list = http_list,
	.sweep = NULL,
	.where = http_where,
	.close = http_close,
};

/* "connect-timeout=1000": 1 and *ms set when attr is `name=<milliseconds>`. */
static int ms_attr(const char *attr, size_t len, const char *name, double *seconds)
{
	size_t n = strlen(name);
	char buf[32], *end;
	long v;
	if (len <= n + 1 || strncmp(attr, name, n) || attr[n] != '=' || len - n - 1 >= sizeof(buf))
		return 0;
	memcpy(buf, attr + n + 1, len - n - 1);
	buf[len - n - 1] = '\0';
	v = strtol(buf, &end, 10);
	if (*end || v <= 0)
		return -1;
	*seconds = v / 1000.0;
	return 1;
}

/* The netrc file: the `remote_credentials` setting, else ~/.netrc when it exists. */
static char *netrc_path(void)
{
	const char *set = astra_config_str(ASTRA_CFG_REMOTE_CREDENTIALS);
	const char *home = getenv("HOME");
	char *p;
	if (set && *set)
		return xstrdup(set);
	if (!home || !*home)
		return NULL;
	p = xasprintf("%s/.netrc", home);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

struct astra_storage *astra_storage_http_open(const char *url, const char *attrs)
{
	struct astra_storage *s;
	struct http_tier *t;
	const char *rest, *at, *slash;
	size_t n;

	if (astra_starts_with(url, "https://"))
		rest = url + 8;
	else if (astra_starts_with(url, "http://"))
		rest = url + 7;
	else
		return NULL;
	slash = rest + strcspn(rest, "/");
	at = memchr(rest, '@', (size_t)(slash - rest));
	if (at) {
		/* Do not echo the URL: it holds the secret. */
		warning("remote_storage: an http(s) URL with credentials in it is refused "
			"(put them in a netrc file: the remote_credentials setting)");
		return NULL;
	}
	if (slash == rest) {
		warning("remote_storage %s: no host", url);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	n = strlen(url);
	t->base = n && url[n - 1] == '/' ? xstrdup(url) : xasprintf("%s/", url);
	t->connect_timeout = 1.0;
	t->timeout = 5.0;
	while (attrs && *attrs == '|') {
		size_t k;
		int r = 0;
		attrs++;
		k = strcspn(attrs, "|");
		if ((k == 9 && !strncmp(attrs, "read-only", 9)) ||
		    (r = ms_attr(attrs, k, "connect-timeout", &t->connect_timeout)) == 1 ||
		    (r = ms_attr(attrs, k, "operation-timeout", &t->timeout)) == 1)
			;
		else {
			/* A mistake in the tier's specification: the tier is not used (as a file: tier). */
			if (r < 0)
				warning("remote_storage %s: '%.*s': not a number of milliseconds: tier not used", t->base,
					(int)k, attrs);
			else
				warning("remote_storage %s: unknown attribute '%.*s': tier not used (read-only, "
					"connect-timeout=MS, operation-timeout=MS)", t->base, (int)k, attrs);
			free(t->base);
			free(t);
			return NULL;
		}
		attrs += k;
	}
	if (t->connect_timeout > t->timeout)
		t->connect_timeout = t->timeout;
	t->netrc = netrc_path();
	s = xcalloc(1, sizeof(*s));
	s->ops = &http_ops;
	s->url = xstrndup(t->base, strlen(t->base) - 1);
	s->state = t;
	return s;
}
