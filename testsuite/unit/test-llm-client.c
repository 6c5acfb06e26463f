/* Unit tests for the LLM client's pure parts: redaction, the OpenAI format. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm.h"
#include "agents/provider.h"
#include "testsuite/unit/unit.h"

static char *redact(const char *text, const char *secret)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_adds(&b, text);
	astra_llm_redact(&b, secret);
	return astra_buf_detach(&b, NULL);
}

#define CHECK_REDACT(in, secret, out)                 \
	do {                                          \
		char *r_ = redact((in), (secret));    \
		CHECK_STR(r_, (out));                 \
		free(r_);                             \
	} while (0)

int main(void)
{
	const struct astra_llm_provider *p = &astra_provider_openai;
	struct astra_chat_answer a;
	struct astra_buf why = ASTRA_BUF_INIT;
	struct astra_json *req, *extra;
	struct astra_chat_msg msgs[2] = { { "system", "be brief" }, { "user", "hi \"there\"" } };
	struct astra_vec h = ASTRA_VEC_INIT;
	char *s;
	const char *body;

	/* Redaction: the key itself, raw and JSON-escaped. */
	CHECK_REDACT("key sk-abc123456789 in text", "sk-abc123456789", "key [REDACTED] in text");
	CHECK_REDACT("{\"k\": \"ab\\\"cdefgh12\"}", "ab\"cdefgh12", "{\"k\": \"[REDACTED]\"}");
	/* A short key too, where it stands alone (not inside longer words). */
	CHECK_REDACT("key k3y in text, k3y.", "k3y", "key [REDACTED] in text, [REDACTED].");
	CHECK_REDACT("{\"error\": \"bad key 'abc'\"}", "abc", "{\"error\": \"bad key '[REDACTED]'\"}");
	CHECK_REDACT("abcdef xabc abcx", "abc", "abcdef xabc abcx");
	CHECK_REDACT("EMPTY placeholder", "EMPTY", "[REDACTED] placeholder");
	/* A credential in a URL's query, whatever the key. */
	CHECK_REDACT("POST https://h/v1/chat/completions?api-key=s3cr3t&api-version=2024-02-01 failed", NULL,
		     "POST https://h/v1/chat/completions?api-key=[REDACTED]&api-version=2024-02-01 failed");
	CHECK_REDACT("\"url\": \"http://h/x?a=1&access_token=t0k#frag\"", NULL,
		     "\"url\": \"http://h/x?a=1&access_token=[REDACTED]#frag\"");
	CHECK_REDACT("not a url ?key=value", NULL, "not a url ?key=value");
	/* Headers, whatever the key. */
	CHECK_REDACT("[\"Authorization: Bearer xyz\", \"Accept: */*\"]", NULL,
		     "[\"Authorization: [REDACTED]\", \"Accept: */*\"]");
	CHECK_REDACT("authorization:Basic Zm9vOmJhcg==\nnext", NULL, "authorization:[REDACTED]\nnext");
	CHECK_REDACT("x-api-key: k1\napi-key: k2\nProxy-Authorization: p\n", NULL,
		     "x-api-key: [REDACTED]\napi-key: [REDACTED]\nProxy-Authorization: [REDACTED]\n");
	CHECK_REDACT("Incorrect API key: Bearer sk-live_99.x", NULL, "Incorrect API key: Bearer [REDACTED]");
	CHECK_REDACT("see https://user:pw@host/v1 and http://host:80/x", NULL,
		     "see https://[REDACTED]@host/v1 and http://host:80/x");
	/* Text that merely looks close is left alone, and redaction is idempotent. */
	CHECK_REDACT("my-authorization_level: 3; the bearer of news", NULL, "my-authorization_level: 3; the bearer of news");
	CHECK_REDACT("Authorization: [REDACTED]", NULL, "Authorization: [REDACTED]");

	/* The OpenAI format: URL, headers, request. */
	s = p->url("http://127.0.0.1:8000/v1/");
	CHECK_STR(s, "http://127.0.0.1:8000/v1/chat/completions");
	free(s);
	s = p->url("http://h/openai/deployments/x/chat/completions");
	CHECK_STR(s, "http://h/openai/deployments/x/chat/completions");
	free(s);
	/* The query stays at the end. */
	s = p->url("https://h/openai/deployments/x?api-key=s3cr3t");
	CHECK_STR(s, "https://h/openai/deployments/x/chat/completions?api-key=s3cr3t");
	free(s);
	s = p->url("https://h/v1/?api-version=1&api-key=s#f");
	CHECK_STR(s, "https://h/v1/chat/completions?api-version=1&api-key=s#f");
	free(s);
	s = p->url("https://h/v1/chat/completions/?k=v");
	CHECK_STR(s, "https://h/v1/chat/completions?k=v");
	free(s);
	p->auth_headers(&h, NULL);
	CHECK_INT(h.nr, 0);
	p->auth_headers(&h, "k");
	CHECK_STR(h.v[0], "Authorization: Bearer k");
	astra_vec_clear(&h);
	body = "{\"temperature\": 0.2, \"model\": \"no\", \"max_tokens\": 100}";
	extra = astra_json_parse(body, strlen(body));
	CHECK(extra != NULL);
	req = p->request("m1", msgs, 2, extra);
	s = astra_json_print(req, 0);
	CHECK_STR(s, "{\"model\":\"m1\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
		     "{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"}],\"stream\":false,"
		     "\"temperature\":0.2,\"max_tokens\":100}");
	free(s);
	astra_json_free(req);
	astra_json_free(extra);

	/* Responses. */
	body = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"x\"},\"finish_reason\":\"stop\"}],"
	       "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), 0);
	CHECK_STR(a.content, "x");
	CHECK_STR(a.finish, "stop");
	CHECK_INT(a.tokens_in, 12);
	CHECK_INT(a.tokens_out, 3);
	astra_chat_answer_release(&a);
	body = "{\"choices\":[{\"message\":{\"content\":null}}]}";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), 0);
	CHECK_STR(a.content, "");
	CHECK_INT(a.tokens_in, -1);
	astra_chat_answer_release(&a);
	body = "{\"error\":{\"message\":\"model not found\"}}";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), -1);
	CHECK(strstr(why.buf, "model not found") != NULL);
	astra_buf_reset(&why);
	body = "{\"choices\": [ {\"message\": ";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), -1);
	CHECK(strstr(why.buf, "not JSON") != NULL);
	astra_buf_reset(&why);
	body = "{\"choices\":[]}";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), -1);
	CHECK(strstr(why.buf, "no choices[0].message") != NULL);
	astra_buf_reset(&why);
	body = "{\"choices\":[{\"message\":{\"content\":42}}]}";
	CHECK_INT(p->parse(body, strlen(body), &a, &why), -1);
	astra_buf_reset(&why);
	body = "{\"error\":\"busy\"}";
	p->describe_error(body, strlen(body), &why);
	CHECK_STR(why.buf, "busy");
	astra_buf_reset(&why);
	body = "<html>\n502\x01</html>";
	p->describe_error(body, strlen(body), &why);
	CHECK_STR(why.buf, "<html> 502?</html>");

	astra_buf_release(&why);
	return unit_done();
}
