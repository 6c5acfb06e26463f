/*
 * llm.c - the chat client (see llm.h).
 *
 * Retry policy: a request is retried when the failure is one that a second
 * try can cure - no connection, a broken connection or truncated body, a
 * timeout, HTTP 429 and 5xx.  A malformed or oversized answer, or a 4xx
 * other than 429, is the server's considered reply and is not retried (a
 * 401/403/404 also stops the client for the rest of the run: the key or the
 * model is wrong and every further request would fail the same way).  The
 * delay before retry n is 0.5 s * 2^n, capped at 20 s, with "equal jitter"
 * (uniformly between half and all of it) so that a parallel build does not
 * retry in lock step, and never shorter than a Retry-After header (capped
 * at 60 s).  A delay that would overrun the kernel's time budget ends the
 * request instead.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/http.h"
#include "agents/llm.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "cache/stats.h"

/* The providers, by `llm_api` name. */
static const struct astra_llm_provider *const providers[] = {
	&astra_provider_openai,
};

#define MAX_RESPONSE (4u << 20)
#define TRANSCRIPT_TEXT_MAX (64u << 10)
#define REDACTED "[REDACTED]"

/* ------------------------------------------------------------ redaction */

static int is_token_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
}

static int is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Replace every occurrence of needle in b by REDACTED; whole: only those
 * not inside a longer word (no letter or digit right before or after).
 */
static void replace_all(struct astra_buf *b, const char *needle, int whole)
{
	struct astra_buf out = ASTRA_BUF_INIT;
	size_t n = strlen(needle), i = 0, from = 0;
	const char *hit;
	if (!n || !memmem(b->buf, b->len, needle, n))
		return;
	while ((hit = memmem(b->buf + i, b->len - i, needle, n)) != NULL) {
		size_t at = (size_t)(hit - b->buf);
		if (whole && ((at > 0 && is_alnum((unsigned char)b->buf[at - 1]) && is_alnum((unsigned char)needle[0])) ||
			      (at + n < b->len && is_alnum((unsigned char)b->buf[at + n]) &&
			       is_alnum((unsigned char)needle[n - 1])))) {
			i = at + 1;
			continue;
		}
		astra_buf_add(&out, b->buf + from, at - from);
		astra_buf_adds(&out, REDACTED);
		i = from = at + n;
	}
	astra_buf_add(&out, b->buf + from, b->len - from);
	astra_buf_release(b);
	*b = out;
}

static int ci_match(const char *s, size_t avail, const char *word)
{
	size_t n = strlen(word);
	return avail >= n && !strncasecmp(s, word, n);
}

/* Does a URL query parameter's name (n bytes) say that its value is a credential? */
static int secret_param(const char *name, size_t n)
{
	static const char *const words[] = { "key", "token", "secret", "passw", "sig", "auth", "code", "cred" };
	size_t i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < ARRAY_SIZE(words); j++)
			if (ci_match(name + i, n - i, words[j]))
				return 1;
	return 0;
}

static void redact_secret(struct astra_buf *text, const char *secret)
{
	struct astra_buf esc = ASTRA_BUF_INIT;
	int whole;
	if (!secret || !*secret)
		return;
	/* A short secret is redacted where it stands alone, not inside every longer word. */
	whole = strlen(secret) < 8;
	replace_all(text, secret, whole);
	astra_buf_add_json_escaped(&esc, secret);
	if (strcmp(esc.buf, secret))
		replace_all(text, esc.buf, whole);
	astra_buf_release(&esc);
}

void astra_llm_redact(struct astra_buf *text, const char *secret)
{
	static const char *const headers[] = {
		"proxy-authorization:", "authorization:", "x-api-key:", "api-key:",
	};
	struct astra_buf out = ASTRA_BUF_INIT;
	size_t i = 0;
	int in_url = 0;

	redact_secret(text, secret);

	/* Header values, bearer tokens and URL credentials, in one pass. */
	while (i < text->len) {
		const char *s = text->buf + i;
		size_t avail = text->len - i, k, j;
		int done = 0;
		for (k = 0; k < ARRAY_SIZE(headers) && !done; k++) {
			size_t n = strlen(headers[k]);
			/* The header name must start a word ("x-api-key", not "my-api-key"). */
			if (!ci_match(s, avail, headers[k]))
				continue;
			if (i > 0 && is_token_char((unsigned char)s[-1]))
				continue;
			astra_buf_add(&out, s, n);
			j = n;
			while (j < avail && (s[j] == ' ' || s[j] == '\t'))
				astra_buf_addch(&out, s[j++]);
			/* The value runs to the end of the line or of a JSON string. */
			while (j < avail && s[j] != '\n' && s[j] != '\r' && s[j] != '"' && s[j] != '\\')
				j++;
			astra_buf_adds(&out, REDACTED);
			i += j;
			done = 1;
		}
		if (done)
			continue;
		if (avail > 7 && !memcmp(s, "Bearer ", 7) && is_token_char((unsigned char)s[7]) &&
		    strncmp(s + 7, REDACTED, strlen(REDACTED))) {
			astra_buf_add(&out, s, 7);
			for (j = 7; j < avail && is_token_char((unsigned char)s[j]); j++)
				;
			astra_buf_adds(&out, REDACTED);
			i += j;
			continue;
		}
		if (avail > 3 && !memcmp(s, "://", 3)) {
			/* scheme://user:password@host: the credentials go. */
			size_t at = 3;
			int colon = 0;
			in_url = 1;
			while (at < avail && s[at] != '@' && s[at] != '/' && s[at] != ' ' &&
			       s[at] != '"' && s[at] != '\n' && s[at] != '\\') {
				colon |= s[at] == ':';
				at++;
			}
			if (at < avail && s[at] == '@' && colon && at > 3) {
				astra_buf_adds(&out, "://" REDACTED "@");
				i += at + 1;
				continue;
			}
		}
		/* In a URL, ?name=value or &name=value with a credential's name: the value goes. */
		if (in_url && (*s == '?' || *s == '&')) {
			size_t nlen = 0;
			while (nlen + 1 < avail && s[1 + nlen] != '=' && s[1 + nlen] != '&' && s[1 + nlen] != '#' &&
			       s[1 + nlen] != ' ' && s[1 + nlen] != '"' && s[1 + nlen] != '\n')
				nlen++;
			if (nlen + 1 < avail && s[1 + nlen] == '=' && secret_param(s + 1, nlen) &&
			    strncmp(s + 2 + nlen, REDACTED, strlen(REDACTED))) {
				astra_buf_add(&out, s, nlen + 2);
				for (j = nlen + 2; j < avail && s[j] != '&' && s[j] != '#' && s[j] != ' ' && s[j] != '"' &&
						   s[j] != '\n' && s[j] != '\r' && s[j] != '\\' && s[j] != '\'';
				     j++)
					;
				astra_buf_adds(&out, REDACTED);
				i += j;
				continue;
			}
		}
		if (*s == ' ' || *s == '\n' || *s == '"' || *s == '\t')
			in_url = 0;
		astra_buf_addch(&out, *s);
		i++;
	}
	astra_buf_release(text);
	*text = out;
}

void astra_llm_redact_client(const struct astra_llm *c, struct astra_buf *text)
{
	size_t i;
	for (i = 0; i < c->nr_url_secrets; i++)
		redact_secret(text, c->url_secrets[i]);
	astra_llm_redact(text, c->key);
}

/* error()/trace with the text redacted first. */
static int llm_error(const struct astra_llm *c, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static int llm_error(const struct astra_llm *c, const char *fmt, ...)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	astra_llm_redact_client(c, &b);
	error("llm: %s", b.buf);
	astra_buf_release(&b);
	return -1;
}

static void llm_trace(const struct astra_llm *c, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void llm_trace(const struct astra_llm *c, const char *fmt, ...)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	va_list ap;
	if (!astra_trace_on(ASTRA_TRACE_LLM))
		return;
	va_start(ap, fmt);
	astra_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	astra_llm_redact_client(c, &b);
	astra_trace(ASTRA_TRACE_LLM, "%s", b.buf);
	astra_buf_release(&b);
}

/* ------------------------------------------------------------ settings */

/* The host part of an http(s) URL, lowercased, malloc'd. */
static char *url_host(const char *url)
{
	const char *p = strstr(url, "://"), *end;
	char *host;
	size_t i;
	p = p ? p + 3 : url;
	end = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(end - p)))
		p = (const char *)memchr(p, '@', (size_t)(end - p)) + 1;
	host = xstrndup(p, strcspn(p, ":/?#"));
	for (i = 0; host[i]; i++)
		if (host[i] >= 'A' && host[i] <= 'Z')
			host[i] = (char)(host[i] - 'A' + 'a');
	return host;
}

int astra_llm_init(struct astra_llm *c, struct astra_buf *why)
{
	const char *api = astra_config_str(ASTRA_CFG_LLM_API);
	const char *base = astra_config_str(ASTRA_CFG_LLM_URL);
	const char *model = astra_config_str(ASTRA_CFG_LLM_MODEL);
	const char *key = astra_config_str(ASTRA_CFG_LLM_API_KEY);
	const char *extra = astra_config_str(ASTRA_CFG_LLM_EXTRA);
	size_t i;
	char *host;

	memset(c, 0, sizeof(*c));
	c->rng = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	c->timeout = (double)astra_config_int(ASTRA_CFG_LLM_TIMEOUT);
	c->retries = (int)astra_config_int(ASTRA_CFG_LLM_RETRIES);
	c->max_calls = (long)astra_config_int(ASTRA_CFG_LLM_MAX_CALLS);
	c->max_tokens = (long)astra_config_int(ASTRA_CFG_LLM_MAX_TOKENS);
	c->max_seconds = (double)astra_config_int(ASTRA_CFG_LLM_MAX_SECONDS);
	c->transcript = astra_json_new_array();
	if (c->retries > 10)
		c->retries = 10;

	for (i = 0; i < ARRAY_SIZE(providers); i++)
		if (!strcmp(providers[i]->name, api))
			c->provider = providers[i];
	if (!c->provider) {
		astra_buf_addf(why, "unknown llm_api `%s` (known: openai)", api);
		return -1;
	}
	c->url = c->provider->url(*base ? base : c->provider->default_url);
	{
		/* Every value of the URL's query is kept as a secret (a key may be there). */
		const char *q = strchr(base, '?');
		while (q && *q && *q != '#') {
			size_t n = strcspn(++q, "&#"), eq = strcspn(q, "=&#");
			if (eq < n && n > eq + 1) {
				c->url_secrets = xrealloc(c->url_secrets, (c->nr_url_secrets + 1) * sizeof(char *));
				c->url_secrets[c->nr_url_secrets++] = xstrndup(q + eq + 1, n - eq - 1);
			}
			q += n;
		}
	}
	if (*model)
		c->model = xstrdup(model);
	if (*extra) {
		c->extra = astra_json_parse(extra, strlen(extra));
		if (!astra_json_is_object(c->extra)) {
			astra_buf_adds(why, "llm_extra is not a JSON object");
			return -1;
		}
	}
	host = url_host(c->url);
	if (*key)
		c->key = xstrdup(key);
	else if (!strcmp(host, "api.openai.com") && astra_getenv("OPENAI_API_KEY"))
		c->key = xstrdup(astra_getenv("OPENAI_API_KEY"));
	if (!c->key && !strcmp(host, "api.openai.com")) {
		free(host);
		astra_buf_adds(why, "no API key: set OPENAI_API_KEY or ASTRA_CC_LLM_API_KEY (or point llm_url at a local server)");
		return -1;
	}
	free(host);
	if (!c->model) {
		astra_buf_adds(why, "no model: set llm_model (ASTRA_CC_LLM_MODEL)");
		return -1;
	}
	return 0;
}

void astra_llm_release(struct astra_llm *c)
{
	free(c->url);
	free(c->model);
	{
		size_t i;
		for (i = 0; i < c->nr_url_secrets; i++) {
			memset(c->url_secrets[i], 0, strlen(c->url_secrets[i]));
			free(c->url_secrets[i]);
		}
		free(c->url_secrets);
	}
	if (c->key)
		memset(c->key, 0, strlen(c->key));
	free(c->key);
	astra_json_free(c->extra);
	astra_json_free(c->transcript);
	memset(c, 0, sizeof(*c));
}

void astra_llm_begin(struct astra_llm *c)
{
	c->calls = c->tokens = 0;
	c->seconds = 0;
	c->exhausted = 0;
	astra_json_free(c->transcript);
	c->transcript = astra_json_new_array();
}

char *astra_llm_transcript(const struct astra_llm *c)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	char *text = astra_json_print(c->transcript, 1);
	astra_buf_adds(&b, text);
	free(text);
	astra_llm_redact_client(c, &b);
	astra_buf_addch(&b, '\n');
	return astra_buf_detach(&b, NULL);
}

/* ------------------------------------------------------------ requests */

static double jitter(struct astra_llm *c, double d)
{
	/* A small LCG is plenty for spreading retries; this is not security. */
	c->rng = c->rng * 6364136223846793005UL + 1442695040888963407UL;
	return d * (0.5 + 0.5 * (double)((c->rng >> 33) & 0xffff) / 65535.0);
}

static void sleep_seconds(double s)
{
	struct timespec ts;
	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Why the budget forbids another request, or NULL. */
static const char *over_budget(const struct astra_llm *c)
{
	if (c->max_calls > 0 && c->calls >= c->max_calls)
		return "calls";
	if (c->max_tokens > 0 && c->tokens >= c->max_tokens)
		return "tokens";
	if (c->max_seconds > 0 && c->seconds >= c->max_seconds)
		return "seconds";
	return NULL;
}

static int budget_spent(struct astra_llm *c, const char *what)
{
	if (!c->exhausted) {
		c->exhausted = 1;
		astra_stats_inc(ASTRA_STAT_LLM_BUDGET);
		warning("llm: the kernel's budget of %s is spent (%ld calls, %ld tokens, %.1f s)",
			what, c->calls, c->tokens, c->seconds);
	}
	return ASTRA_LLM_BUDGET;
}

/* Record one exchange in the transcript. */
static void record(struct astra_llm *c, const char *purpose, int attempt, const struct astra_vec *headers,
		   const struct astra_json *body, const struct astra_http_response *r, const char *outcome,
		   const struct astra_chat_answer *a)
{
	struct astra_json *e = astra_json_new_object(), *h, *parsed = NULL;
	size_t i;

	astra_json_set_str(e, "purpose", purpose);
	astra_json_set_num(e, "attempt", attempt);
	astra_json_set_str(e, "url", c->url);
	h = astra_json_set_array(e, "headers");
	for (i = 0; i < headers->nr; i++)
		astra_json_push_str(h, headers->v[i]);
	astra_json_set(e, "request", astra_json_dup(body));
	astra_json_set_num(e, "status", (double)r->status);
	astra_json_set_str(e, "outcome", outcome);
	astra_json_set_num(e, "seconds", (double)(long)(r->seconds * 1000) / 1000.0);
	if (a && a->tokens_in >= 0)
		astra_json_set_num(e, "tokens_in", (double)a->tokens_in);
	if (a && a->tokens_out >= 0)
		astra_json_set_num(e, "tokens_out", (double)a->tokens_out);
	if (r->body.len && r->body.len <= TRANSCRIPT_TEXT_MAX)
		parsed = astra_json_parse(r->body.buf, r->body.len);
	if (parsed) {
		astra_json_set(e, "response", parsed);
	} else if (r->body.len) {
		/* Not JSON (or too big to keep whole): the beginning, as text. */
		size_t n = r->body.len < TRANSCRIPT_TEXT_MAX ? r->body.len : TRANSCRIPT_TEXT_MAX;
		char *t = xstrndup(r->body.buf, n);
		astra_json_set_str(e, "response_text", t);
		astra_json_set_num(e, "response_bytes", (double)r->body.len);
		free(t);
	}
	astra_json_push(c->transcript, e);
}

static int retryable(const struct astra_http_response *r, int rc)
{
	if (rc < 0)
		return r->fail == ASTRA_HTTP_CONNECT || r->fail == ASTRA_HTTP_TIMEOUT || r->fail == ASTRA_HTTP_BROKEN;
	return r->status == 429 || r->status >= 500;
}

int astra_llm_chat(struct astra_llm *c, const char *purpose, const struct astra_chat_msg *msgs,
		   size_t nr, struct astra_chat_answer *out)
{
	struct astra_vec headers = ASTRA_VEC_INIT;
	struct astra_http_response resp;
	struct astra_json *body;
	char *text;
	int attempt, ret = ASTRA_LLM_FAILED;

	out->content = out->finish = NULL;
	out->tokens_in = out->tokens_out = -1;
	if (c->disabled)
		return ASTRA_LLM_FAILED;

	body = c->provider->request(c->model, msgs, nr, c->extra);
	text = astra_json_print(body, 0);
	astra_vec_push(&headers, "Content-Type: application/json");
	astra_vec_push(&headers, "Accept: application/json");
	c->provider->auth_headers(&headers, c->key);
	astra_http_response_init(&resp);

	for (attempt = 0; ; attempt++) {
		struct astra_http_request req;
		struct astra_buf why = ASTRA_BUF_INIT;
		const char *over = over_budget(c);
		double left = c->max_seconds > 0 ? c->max_seconds - c->seconds : 0, delay;
		int rc;

		if (over) {
			ret = budget_spent(c, over);
			break;
		}
		memset(&req, 0, sizeof(req));
		req.url = c->url;
		req.headers = headers.v;
		req.body = text;
		req.len = strlen(text);
		req.timeout = c->timeout;
		if (left > 0 && (req.timeout <= 0 || left < req.timeout))
			req.timeout = left;
		req.connect_timeout = req.timeout > 0 && req.timeout < 10 ? req.timeout : 10;
		req.max_body = MAX_RESPONSE;

		c->calls++;
		astra_stats_inc(ASTRA_STAT_LLM_REQUESTS);
		llm_trace(c, "%s: POST %s (%zu bytes, attempt %d)", purpose, c->url, req.len, attempt + 1);
		rc = astra_http_post(&req, &resp);
		c->seconds += resp.seconds;

		if (rc == 0 && resp.status >= 200 && resp.status < 300) {
			if (c->provider->parse(resp.body.buf, resp.body.len, out, &why) == 0) {
				long in = out->tokens_in >= 0 ? out->tokens_in : (long)(req.len / 4);
				long o = out->tokens_out >= 0 ? out->tokens_out : (long)(strlen(out->content) / 4);
				c->tokens += in + o;
				astra_stats_add(ASTRA_STAT_LLM_TOKENS_IN, in);
				astra_stats_add(ASTRA_STAT_LLM_TOKENS_OUT, o);
				record(c, purpose, attempt + 1, &headers, body, &resp, "ok", out);
				llm_trace(c, "%s: %ld status, %zu bytes, %ld+%ld tokens, %.2f s, finish %s",
					  purpose, resp.status, resp.body.len, in, o, resp.seconds,
					  out->finish ? out->finish : "?");
				ret = ASTRA_LLM_OK;
				astra_buf_release(&why);
				break;
			}
			/* A malformed answer is not retried: the server meant it. */
			record(c, purpose, attempt + 1, &headers, body, &resp, why.buf, NULL);
			astra_stats_inc(ASTRA_STAT_LLM_ERRORS);
			llm_error(c, "%s: %s: malformed response: %s", purpose, c->url, why.buf);
			astra_buf_release(&why);
			break;
		}

		if (rc < 0) {
			astra_buf_addf(&why, "%s", resp.error);
		} else {
			astra_buf_addf(&why, "HTTP %ld: ", resp.status);
			c->provider->describe_error(resp.body.buf, resp.body.len, &why);
		}
		record(c, purpose, attempt + 1, &headers, body, &resp, why.buf, NULL);

		if (!retryable(&resp, rc) || attempt >= c->retries) {
			astra_stats_inc(ASTRA_STAT_LLM_ERRORS);
			llm_error(c, "%s: %s: %s%s", purpose, c->url, why.buf,
				  retryable(&resp, rc) ? " (no retries left)" : "");
			if (rc == 0 && (resp.status == 401 || resp.status == 403 || resp.status == 404)) {
				c->disabled = 1;
				llm_error(c, "giving up on %s for this run (HTTP %ld: check llm_api_key, llm_url and llm_model)",
					  c->url, resp.status);
			}
			astra_buf_release(&why);
			break;
		}

		delay = jitter(c, attempt < 6 ? 0.5 * (double)(1 << attempt) : 20.0);
		if (delay > 20)
			delay = 20;
		if (resp.retry_after > delay)
			delay = resp.retry_after < 60 ? resp.retry_after : 60;
		left = c->max_seconds > 0 ? c->max_seconds - c->seconds : 0;
		if (c->max_seconds > 0 && delay >= left) {
			astra_stats_inc(ASTRA_STAT_LLM_ERRORS);
			llm_error(c, "%s: %s: %s (no time left in the budget to retry)", purpose, c->url, why.buf);
			astra_buf_release(&why);
			ret = budget_spent(c, "seconds");
			break;
		}
		astra_stats_inc(ASTRA_STAT_LLM_RETRIES);
		warning("llm: %s: attempt %d failed (%s); retrying in %.1f s", purpose, attempt + 1,
			rc < 0 ? astra_http_fail_name(resp.fail) : "server busy or failing", delay);
		llm_trace(c, "%s: %s", purpose, why.buf);
		astra_buf_release(&why);
		sleep_seconds(delay);
		c->seconds += delay;
	}

	astra_http_response_release(&resp);
	astra_json_free(body);
	free(text);
	astra_vec_clear(&headers);
	return ret;
}
