/*
 * http.c - the libcurl adapter (see http.h).
 *
 * One easy handle per request: astra-cc makes a handful of requests per
 * kernel (LLM calls of seconds to minutes) or per compile (a cache lookup,
 * which misses locally only once per kernel), so connection reuse would
 * save little worth its state.  The size cap is enforced twice:
 * CURLOPT_MAXFILESIZE stops a transfer whose Content-Length announces too
 * much, and the write callback stops one that streams too much without
 * announcing it.
 *
 * libcurl is loaded with dlopen() on the first request, not linked: with
 * its TLS, Kerberos and LDAP dependencies it is about thirty shared
 * libraries, whose loading cost every astra-cc start about 5 ms, annotated
 * compile or not (DESIGN.md, invariant 6), and most builds never talk to
 * an LLM.  Each curl_* call below is a macro for a pointer that dlsym()
 * fills, typed from curl.h's prototype.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Plain prototypes: the type-checking macros would hide the pointers. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "lib/http.h"
#include "lib/log.h"
#include "lib/util.h"

#define CURL_FUNCTIONS(X) \
	X(curl_easy_cleanup) \
	X(curl_easy_getinfo) \
	X(curl_easy_init) \
	X(curl_easy_perform) \
	X(curl_easy_setopt) \
	X(curl_easy_strerror) \
	X(curl_global_init) \
	X(curl_slist_append) \
	X(curl_slist_free_all)

#define DECLARE(f) static __typeof__(&f) p_##f;
CURL_FUNCTIONS(DECLARE)
#undef DECLARE
#define SLOT(f) { #f, (void **)&p_##f },
static const struct {
	const char *name;
	void **slot;
} curl_symbols[] = { CURL_FUNCTIONS(SLOT) };
#undef SLOT

/* curl.h may define some of these as function-like macros of its own. */
#undef curl_easy_getinfo
#undef curl_easy_setopt
#define curl_easy_cleanup (*p_curl_easy_cleanup)
#define curl_easy_getinfo (*p_curl_easy_getinfo)
#define curl_easy_init (*p_curl_easy_init)
#define curl_easy_perform (*p_curl_easy_perform)
#define curl_easy_setopt (*p_curl_easy_setopt)
#define curl_easy_strerror (*p_curl_easy_strerror)
#define curl_global_init (*p_curl_global_init)
#define curl_slist_append (*p_curl_slist_append)
#define curl_slist_free_all (*p_curl_slist_free_all)

/* 1 when libcurl is loaded and resolved, else 0 (logged once). */
static int curl_loaded;

static void curl_load(void)
{
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so" };
	const char *env = getenv("ASTRA_CC_LIBCURL");
	void *h = NULL;
	size_t i;
	if (env && *env)
		h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
	for (i = 0; !h && i < ARRAY_SIZE(names); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		error("cannot load libcurl: %s", dlerror());
		return;
	}
	for (i = 0; i < ARRAY_SIZE(curl_symbols); i++) {
		*curl_symbols[i].slot = dlsym(h, curl_symbols[i].name);
		if (!*curl_symbols[i].slot) {
			error("libcurl lacks %s", curl_symbols[i].name);
			return;
		}
	}
	curl_loaded = 1;
}

#define DEFAULT_MAX_BODY (4u << 20)

struct sink {
	struct astra_http_response *resp;
	size_t max;
	int too_large;
};

/* The body of a PUT, handed to curl in pieces. */
struct source {
	const char *data;
	size_t len, off;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_code = CURLE_FAILED_INIT;

static void global_init(void)
{
	curl_load();
	if (curl_loaded)
		init_code = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void astra_http_response_init(struct astra_http_response *r)
{
	memset(r, 0, sizeof(*r));
	astra_buf_init(&r->body, 0);
	r->retry_after = -1;
	r->length = -1;
	r->mtime = -1;
}

void astra_http_response_release(struct astra_http_response *r)
{
	astra_buf_release(&r->body);
	free(r->error);
	astra_http_response_init(r);
}

const char *astra_http_fail_name(enum astra_http_fail f)
{
	static const char *const names[] = {
		[ASTRA_HTTP_OK] = "ok",
		[ASTRA_HTTP_CONNECT] = "connection failed",
		[ASTRA_HTTP_TIMEOUT] = "timeout",
		[ASTRA_HTTP_BROKEN] = "connection broken",
		[ASTRA_HTTP_TOO_LARGE] = "response too large",
		[ASTRA_HTTP_OTHER] = "transfer failed",
	};
	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "?";
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;
	if (s->resp->body.len + n > s->max) {
		s->too_large = 1;
		return 0; /* anything short of n makes curl stop with CURLE_WRITE_ERROR */
	}
	astra_buf_add(&s->resp->body, data, n);
	return n;
}

/* Headers arrive one line at a time; only Retry-After matters here. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;
	static const char name[] = "retry-after:";
	if (n > sizeof(name) - 1 && !strncasecmp(data, name, sizeof(name) - 1)) {
		char tmp[32];
		size_t i = sizeof(name) - 1, k = 0;
		while (i < n && (data[i] == ' ' || data[i] == '\t'))
			i++;
		while (i < n && k < sizeof(tmp) - 1 && isdigit((unsigned char)data[i]))
			tmp[k++] = data[i++];
		tmp[k] = '\0';
		/* Only delta-seconds; an HTTP date is ignored (the caller backs off). */
		if (k)
			s->resp->retry_after = strtod(tmp, NULL);
	}
	return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct source *src = arg;
	size_t n = size * nmemb;
	if (n > src->len - src->off)
		n = src->len - src->off;
	memcpy(buf, src->data + src->off, n);
	src->off += n;
	return n;
}

static enum astra_http_fail classify(CURLcode rc, int too_large)
{
	switch (rc) {
	case CURLE_OK:
		return ASTRA_HTTP_OK;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return ASTRA_HTTP_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return ASTRA_HTTP_TIMEOUT;
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
		return ASTRA_HTTP_BROKEN;
	case CURLE_FILESIZE_EXCEEDED:
		return ASTRA_HTTP_TOO_LARGE;
	case CURLE_WRITE_ERROR:
		return too_large ? ASTRA_HTTP_TOO_LARGE : ASTRA_HTTP_OTHER;
	default:
		return ASTRA_HTTP_OTHER;
	}
}

int astra_http_request(const struct astra_http_request *req, struct astra_http_response *resp)
{
	struct curl_slist *hdrs = NULL;
	struct sink sink;
	struct source src;
	char errbuf[CURL_ERROR_SIZE];
	const char *method = req->method ? req->method : "POST";
	CURL *h;
	CURLcode rc;
	char *const *hp;
	double t0 = astra_now();

	astra_http_response_release(resp);
	sink.resp = resp;
	sink.max = req->max_body ? req->max_body : DEFAULT_MAX_BODY;
	sink.too_large = 0;
	src.data = req->body ? req->body : "";
	src.len = req->body ? req->len : 0;
	src.off = 0;
	errbuf[0] = '\0';

	pthread_once(&init_once, global_init);
	h = init_code == CURLE_OK ? curl_easy_init() : NULL;
	if (!h) {
		resp->fail = ASTRA_HTTP_OTHER;
		resp->error = xstrdup("cannot initialize libcurl");
		return -1;
	}
	for (hp = req->headers; hp && *hp; hp++)
		hdrs = curl_slist_append(hdrs, *hp);
	/* No "Expect: 100-continue" round trip for large bodies. */
	hdrs = curl_slist_append(hdrs, "Expect:");

	curl_easy_setopt(h, CURLOPT_URL, req->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	/* The defaults, said out loud: nothing here turns verification off. */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, src.data);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)src.len);
	} else if (!strcmp(method, "PUT")) {
		curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(h, CURLOPT_READDATA, &src);
		curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)src.len);
	} else if (!strcmp(method, "HEAD")) {
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	}
	if (req->netrc) {
		curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		curl_easy_setopt(h, CURLOPT_NETRC_FILE, req->netrc);
	}
	curl_easy_setopt(h, CURLOPT_FILETIME, 1L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &sink);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)sink.max);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (req->connect_timeout > 0)
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(req->connect_timeout * 1000));
	if (req->timeout > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(req->timeout * 1000));

	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
	{
		curl_off_t v = -1;
		if (curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &v) == CURLE_OK && v >= 0)
			resp->length = (long long)v;
		v = -1;
		if (curl_easy_getinfo(h, CURLINFO_FILETIME_T, &v) == CURLE_OK && v >= 0)
			resp->mtime = (long long)v;
	}
	resp->fail = classify(rc, sink.too_large);
	if (resp->fail != ASTRA_HTTP_OK)
		resp->error = xasprintf("%s (%s)", errbuf[0] ? errbuf : curl_easy_strerror(rc),
					astra_http_fail_name(resp->fail));
	resp->seconds = astra_now() - t0;
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return resp->fail == ASTRA_HTTP_OK ? 0 : -1;
}

int astra_http_post(const struct astra_http_request *req, struct astra_http_response *resp)
{
	struct astra_http_request r = *req;
	r.method = "POST";
	return astra_http_request(&r, resp);
}
