/*
 * provider.h - the wire format of one chat API, as a struct of functions.
 *
 * The LLM client (llm.c) owns everything that is the same for every API:
 * retries, budgets, transcripts, redaction, statistics.  What differs
 * between APIs - the URL to post to, the authentication header, the request
 * body and where the answer and the token counts sit in the response - is a
 * provider, one file each (provider-openai.c), registered in the table in
 * llm.c and chosen with the `llm_api` setting.  Providers are pure: no I/O,
 * no logging, so they can be fuzzed.
 */
#ifndef ASTRA_PROVIDER_H
#define ASTRA_PROVIDER_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/vec.h"

/* One message of a conversation; role is "system", "user" or "assistant". */
struct astra_chat_msg {
	const char *role;
	const char *content;
};

/* What a provider got out of a successful response; strings malloc'd. */
struct astra_chat_answer {
	char *content;        /* the assistant's text ("" when it gave none) */
	char *finish;         /* why it stopped ("stop", "length", ...), or NULL */
	long tokens_in;       /* prompt tokens the server counted, -1 unknown */
	long tokens_out;      /* completion tokens, -1 unknown */
};

void astra_chat_answer_release(struct astra_chat_answer *a);

struct astra_llm_provider {
	const char *name;        /* the `llm_api` value: "openai" */
	const char *default_url; /* base URL used when `llm_url` is empty */
	/* The URL to POST to, from the configured base URL; malloc'd. */
	char *(*url)(const char *base);
	/*
	 * Append the headers that carry the key ("Authorization: Bearer ...");
	 * key may be NULL (local servers need none).  Content-Type is added by
	 * the client.
	 */
	void (*auth_headers)(struct astra_vec *headers, const char *key);
	/*
	 * The request body for model and msgs; extra (may be NULL) is a JSON
	 * object whose members are copied into the body (temperature,
	 * max_tokens, reasoning_effort, ...).  The caller frees the result.
	 */
	struct astra_json *(*request)(const char *model, const struct astra_chat_msg *msgs,
				      size_t nr, const struct astra_json *extra);
	/*
	 * Parse a 2xx response body (len bytes, not necessarily NUL-terminated,
	 * hostile).  Returns 0 and fills out (initialized by the callee), or -1
	 * with the reason in why.
	 */
	int (*parse)(const char *body, size_t len, struct astra_chat_answer *out, struct astra_buf *why);
	/* A short description of an error response body for the log (appended to why). */
	void (*describe_error)(const char *body, size_t len, struct astra_buf *why);
};

/* OpenAI chat completions: OpenAI, vLLM, llama.cpp server, Ollama, LiteLLM... */
extern const struct astra_llm_provider astra_provider_openai;

#endif
