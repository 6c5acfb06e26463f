/*
 * http.h - one HTTP POST with limits: the only door to libcurl.
 *
 * The LLM client talks to chat-completions servers through this module
 * alone, so http.c is the one file that includes curl/curl.h (STYLE.md: one
 * adapter per foreign API).  It knows nothing about chat, JSON or retries:
 * it sends one request, enforces a connect timeout, a total timeout and a
 * cap on the response size, and says precisely how the exchange ended, so
 * that the caller can decide what is worth retrying.
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
	const char *url;
	char *const *headers;   /* "Name: value" lines, NULL-terminated, or NULL */
	const char *body;       /* the request body (sent as is) */
	size_t len;
	double connect_timeout; /* seconds; 0 = the library's default */
	double timeout;         /* seconds for the whole exchange; 0 = none */
	size_t max_body;        /* largest response body accepted; 0 = 4 MiB */
};

struct astra_http_response {
	enum astra_http_fail fail;
	long status;            /* HTTP status, 0 when none arrived */
	struct astra_buf body;  /* what arrived of the body (also on failure) */
	double retry_after;     /* seconds from a Retry-After header, -1 when absent */
	char *error;            /* fail != OK: what went wrong, malloc'd (may name the URL) */
	double seconds;         /* wall time of the exchange */
};

void astra_http_response_init(struct astra_http_response *r);
void astra_http_response_release(struct astra_http_response *r);

/*
 * POST req->body to req->url.  resp must be initialized; it is filled in
 * (previous contents released).  Returns 0 when a whole response arrived
 * (check resp->status), or -1 with resp->fail and resp->error set.  Never
 * logs and never follows redirects (a 3xx comes back as the status).
 * Proxy environment variables (https_proxy, no_proxy, ...) are honoured.
 */
int astra_http_post(const struct astra_http_request *req, struct astra_http_response *resp);

/* "connect", "timeout", ... for messages and statistics. */
const char *astra_http_fail_name(enum astra_http_fail f);

#endif
