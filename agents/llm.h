/*
 * llm.h - the chat client: settings, retries, budgets, transcripts, redaction.
 *
 * Everything astra-cc says to a language model goes through
 * astra_llm_chat().  It is separate from the roles (llm-prompt.c) and the
 * optimizer (opt-llm.c) because it is the part that must be right for
 * every API and every role alike: the key never leaves it except in the
 * request headers; every request and response is recorded in a transcript;
 * transient failures (429, 5xx, connection errors, timeouts) are retried
 * with exponential backoff and jitter; a per-kernel budget of calls, tokens
 * and seconds bounds what one kernel may cost; the statistics count
 * requests, retries, errors and tokens.
 *
 * Settings (lib/config.h): llm_api (provider), llm_url, llm_model,
 * llm_api_key, llm_extra, llm_timeout, llm_retries, llm_max_calls,
 * llm_max_tokens, llm_max_seconds.  The key is the `llm_api_key` setting
 * (ASTRA_CC_LLM_API_KEY or the config file); OPENAI_API_KEY is used only
 * when the endpoint is OpenAI's own host, so that a key meant for OpenAI is
 * never sent to another server.
 */
#ifndef ASTRA_LLM_H
#define ASTRA_LLM_H

#include "agents/provider.h"
#include "lib/buf.h"
#include "lib/json.h"

struct astra_llm {
	const struct astra_llm_provider *provider;
	char *url;                 /* the endpoint requests are posted to */
	char *model;
	char *key;                 /* NULL when none; never printed */
	char **url_secrets;        /* the values of llm_url's query (a key may be one): never printed */
	size_t nr_url_secrets;
	struct astra_json *extra;  /* llm_extra, or NULL */
	double timeout;            /* seconds per request */
	int retries;
	long max_calls, max_tokens; /* per kernel; 0: unlimited */
	double max_seconds;        /* per kernel, time inside astra_llm_chat; 0: unlimited */
	/* Spent on the current kernel. */
	long calls, tokens;
	double seconds;
	int exhausted;             /* the budget ran out (counted once per kernel) */
	int disabled;              /* the server refused the key or the model: stop asking */
	struct astra_json *transcript; /* array of exchanges for the current kernel */
	unsigned long rng;
};

/*
 * Read the settings into c.  Returns 0, or -1 when the client cannot work
 * (no model, an unknown llm_api, llm_extra not a JSON object, no key for
 * OpenAI's host) with the reason in why; c is usable for release either way.
 */
int astra_llm_init(struct astra_llm *c, struct astra_buf *why);
void astra_llm_release(struct astra_llm *c);

/* Start a kernel: a fresh budget and an empty transcript. */
void astra_llm_begin(struct astra_llm *c);

enum astra_llm_status {
	ASTRA_LLM_OK = 0,
	ASTRA_LLM_FAILED = -1,     /* the exchange failed after retries (logged, counted) */
	ASTRA_LLM_BUDGET = -2,     /* the kernel's budget is spent; nothing was sent */
};

/*
 * One conversation turn: send msgs, return the answer in out (initialized
 * by the callee, released by the caller with astra_chat_answer_release).
 * purpose ("plan", "code", "repair 1") labels the exchange in the
 * transcript and the log.  Returns an enum astra_llm_status.
 */
int astra_llm_chat(struct astra_llm *c, const char *purpose, const struct astra_chat_msg *msgs,
		   size_t nr, struct astra_chat_answer *out);

/*
 * The current kernel's transcript as JSON text (an array; pretty-printed),
 * redacted; malloc'd.  Each element: purpose, attempt, url, headers,
 * request (the body sent), status, outcome, seconds, tokens_in,
 * tokens_out, and response (the parsed body) or response_text.
 */
char *astra_llm_transcript(const struct astra_llm *c);

/*
 * THE redaction function: every piece of text that leaves the client (log
 * lines, error messages, transcripts) passes through it.  Replaces in text:
 * every occurrence of secret (raw and JSON-escaped; one shorter than 8
 * bytes only where it stands alone, not inside a longer word of letters
 * and digits, so that a placeholder such as vLLM's "EMPTY" does not mangle
 * the text around it), the value of Authorization, Proxy-Authorization,
 * api-key and x-api-key headers, the token after "Bearer ", user:password
 * in URLs, and in URLs the value of every query parameter whose name says
 * it is a credential (key, token, secret, password, sig, auth, code, in
 * any spelling: "?api-key=...", "&access_token=..."), each by "[REDACTED]".
 * secret may be NULL.
 */
void astra_llm_redact(struct astra_buf *text, const char *secret);

/* The client's redaction: its key and every value of llm_url's query. */
void astra_llm_redact_client(const struct astra_llm *c, struct astra_buf *text);

#endif
