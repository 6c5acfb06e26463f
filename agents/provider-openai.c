/*
 * provider-openai.c - OpenAI's chat completions format (see provider.h).
 *
 * This is the format that OpenAI serves at /v1/chat/completions and that
 * vLLM, the llama.cpp server, Ollama (/v1) and most proxies imitate, so it
 * is the first and default provider.  Responses are hostile input: every
 * member is looked up with the NULL-safe JSON getters and nothing is
 * assumed about types.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/provider.h"
#include "lib/util.h"

void astra_chat_answer_release(struct astra_chat_answer *a)
{
	free(a->content);
	free(a->finish);
	a->content = a->finish = NULL;
	a->tokens_in = a->tokens_out = -1;
}

static char *openai_url(const char *base)
{
	/* The path goes before a query or fragment ("...?api-key=X" stays at the end). */
	size_t end = strcspn(base, "?#"), n = end;
	while (n && base[n - 1] == '/')
		n--;
	/* A full endpoint URL is taken as given. */
	if (n >= 17 && !strncmp(base + n - 17, "/chat/completions", 17))
		return xasprintf("%.*s%s", (int)n, base, base + end);
	return xasprintf("%.*s/chat/completions%s", (int)n, base, base + end);
}

static void openai_auth(struct astra_vec *headers, const char *key)
{
	if (key && *key)
		astra_vec_pushf(headers, "Authorization: Bearer %s", key);
}

static struct astra_json *openai_request(const char *model, const struct astra_chat_msg *msgs,
					 size_t nr, const struct astra_json *extra)
{
	struct astra_json *req = astra_json_new_object(), *arr;
	size_t i;

	astra_json_set_str(req, "model", model);
	arr = astra_json_set_array(req, "messages");
	for (i = 0; i < nr; i++) {
		struct astra_json *m = astra_json_new_object();
		astra_json_set_str(m, "role", msgs[i].role);
		astra_json_set_str(m, "content", msgs[i].content);
		astra_json_push(arr, m);
	}
	astra_json_set_bool(req, "stream", 0);
	for (i = 0; i < astra_json_len(extra); i++) {
		const struct astra_json *member = astra_json_at(extra, i);
		const char *key = astra_json_key(member);
		if (!key || !strcmp(key, "model") || !strcmp(key, "messages") || !strcmp(key, "stream"))
			continue;
		astra_json_set(req, key, astra_json_dup(member));
	}
	return req;
}

/* The server's own words about an error: {"error": {"message": ...}} or {"error": "..."}. */
static const char *error_message(const struct astra_json *root)
{
	const struct astra_json *e = astra_json_get(root, "error");
	const char *s = astra_json_str(e);
	if (s)
		return s;
	s = astra_json_get_str(e, "message");
	if (s)
		return s;
	return e ? "(an error without a message)" : NULL;
}

/* At most max bytes of s, with control bytes shown as '?'. */
static void add_printable(struct astra_buf *b, const char *s, size_t len, size_t max)
{
	size_t i;
	for (i = 0; i < len && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		astra_buf_addch(b, c == '\n' || c == '\t' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : c);
	}
	if (len > max)
		astra_buf_adds(b, "...");
}

static int openai_parse(const char *body, size_t len, struct astra_chat_answer *out,
			struct astra_buf *why)
{
	struct astra_json *root = astra_json_parse(body, len);
	const struct astra_json *choice, *msg, *usage, *content;
	const char *err;
	int ret = -1;

	out->content = out->finish = NULL;
	out->tokens_in = out->tokens_out = -1;
	if (!root) {
		astra_buf_adds(why, "the response is not JSON: ");
		add_printable(why, body, len, 120);
		return -1;
	}
	err = error_message(root);
	if (err) {
		astra_buf_adds(why, "the server answered with an error: ");
		add_printable(why, err, strlen(err), 300);
		goto out;
	}
	choice = astra_json_at(astra_json_get(root, "choices"), 0);
	msg = astra_json_get(choice, "message");
	if (!astra_json_is_object(msg)) {
		astra_buf_adds(why, "the response has no choices[0].message");
		goto out;
	}
	content = astra_json_get(msg, "content");
	if (content && !astra_json_is_string(content) && !astra_json_is_null(content)) {
		astra_buf_adds(why, "choices[0].message.content is not a string");
		goto out;
	}
	out->content = xstrdup(astra_json_str(content) ? astra_json_str(content) : "");
	if (astra_json_get_str(choice, "finish_reason"))
		out->finish = xstrdup(astra_json_get_str(choice, "finish_reason"));
	usage = astra_json_get(root, "usage");
	out->tokens_in = (long)astra_json_get_num(usage, "prompt_tokens", -1);
	out->tokens_out = (long)astra_json_get_num(usage, "completion_tokens", -1);
	if (out->tokens_in < -1 || out->tokens_in > 1L << 40)
		out->tokens_in = -1;
	if (out->tokens_out < -1 || out->tokens_out > 1L << 40)
		out->tokens_out = -1;
	ret = 0;
out:
	astra_json_free(root);
	return ret;
}

static void openai_describe_error(const char *body, size_t len, struct astra_buf *why)
{
	struct astra_json *root = astra_json_parse(body, len);
	const char *err = error_message(root);
	if (err)
		add_printable(why, err, strlen(err), 300);
	else
		add_printable(why, body, len, 200);
	astra_json_free(root);
}

const struct astra_llm_provider astra_provider_openai = {
	.name = "openai",
	.default_url = "https://api.openai.com/v1",
	.url = openai_url,
	.auth_headers = openai_auth,
	.request = openai_request,
	.parse = openai_parse,
	.describe_error = openai_describe_error,
};
