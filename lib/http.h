/*
 * http.h - one HTTP request with limits: the only door to libcurl.
 *
 * The LLM client (agents/llm.c) and the HTTP cache tier
 * (cache/storage-http.c) talk HTTP through this module alone, so http.c is
 * the one file that includes curl/curl.h (STYLE.md: one adapter per foreign
 * API).  It lives on the ground floor because both layers above use it; it
 * knows nothing about chat, JSON, cache entries or retries: it sends one
 * request (POST, GET, PUT, HEAD, DELETE, MKCOL), enforces a connect
 * timeout, a total timeout and a cap on the response size, and says
 * precisely how the exchange ended, so that the caller can decide what is
 * worth retrying.
 *
 * TLS is always verified (peer and host name, against the system's CA
 * store); no option turns that off.  Credentials come
 * only from a netrc file (req->netrc), never from the URL or the command
 * line, so that they appear in no log line, no `ps` listing and no
 * setting that --show-config prints.
 *
 * Nothing here logs: a URL, a header or a server's error text may contain a
 * secret, and only the caller knows which (it redacts, then logs).
 */
#ifndef ASTRA_HTTP_H
#define ASTRA_HTTP_H

#include <stddef.h>

#include "lib/buf.h"

/* How an exchange ended, from the transport's point of view. */
enum astra_http_fail {
	ASTRA_HTTP_OK = 0,     /* a whole response arrived (whatever its status) */
	ASTRA_HTTP_CONNECT,    /* no connection: refused, unreachable, name not resolved */
	ASTRA_HTTP_TIMEOUT,    /* the connect or the total time limit ran out */
	ASTRA_HTTP_BROKEN,     /* the connection broke: closed early, truncated body, reset */
	ASTRA_HTTP_TOO_LARGE,  /* the body was larger than max_body; the transfer was stopped */
	ASTRA_HTTP_OTHER,      /* anything else: bad URL, TLS, protocol errors */
};

struct astra_http_request {
	const char *method;     /* "POST" (when NULL), "GET", "PUT", "HEAD", "DELETE", "MKCOL" */
	const char *url;
	char *const *headers;   /* "Name: value" lines, NULL-terminated, or NULL */
	const char *body;       /* the request body of a POST or PUT (sent as is) */
	size_t len;
	const char *netrc;      /* a netrc file for the server's login, or NULL: none */
	double connect_timeout; /* seconds; 0 = the library's default */
	double timeout;         /* seconds for the whole exchange; 0 = none */
	size_t max_body;        /* largest response body accepted; 0 = 4 MiB */
};

struct astra_http_response {
	enum astra_http_fail fail;
	long status;            /* HTTP status, 0 when none arrived */
	struct astra_buf body;  /* what arrived of the body (also on failure) */
	double retry_after;     /* seconds from a Retry-After header, -1 when absent */
	long long length;       /* Content-Length of the response (HEAD too), -1 when unknown */
	long long mtime;        /* Last-Modified, seconds since the epoch, -1 when unknown */
	char *error;            /* fail != OK: what went wrong, malloc'd (may name the URL) */
	double seconds;         /* wall time of the exchange */
};

void astra_http_response_init(struct astra_http_response *r);
void astra_http_response_release(struct astra_http_response *r);

/*
 * Send req (req->method, default POST) to req->url.  resp must be
 * initialized; it is filled in (previous contents released).  Returns 0
 * when a whole response arrived (check resp->status), or -1 with
 * resp->fail and resp->error set.  Never logs and never follows redirects
 * (a 3xx comes back as the status).  Only http: and https: URLs are
 * accepted.  Proxy environment variables (https_proxy, no_proxy, ...) are
 * honoured.
 */
int astra_http_request(const struct astra_http_request *req, struct astra_http_response *resp);

/* The same with method POST, whatever req->method says. */
int astra_http_post(const struct astra_http_request *req, struct astra_http_response *resp);

/* "connect", "timeout", ... for messages and statistics. */
const char *astra_http_fail_name(enum astra_http_fail f);

#endif
