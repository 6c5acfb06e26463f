/*
 * opt-llm.c - the "llm" optimizer's rounds (see opt-llm.h).
 *
 * A kernel's budget and transcript start with its round 0 (or when another
 * kernel shows up), so that the transcript the loop stores with a cache
 * entry holds exactly the requests made for that entry's kernel.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "agents/opt-llm.h"
#include "agents/llm-prompt.h"
#include "agents/llm.h"
#include "lib/config.h"
#include "lib/log.h"
#include "cache/stats.h"

struct state {
	struct astra_llm client;
	int usable;
	char *why;              /* why the settings are unusable */
	int warned;
	int repairs;            /* llm_repairs */
	char *origin;           /* "llm: <model>" */
	char *kernel;           /* "file:name" of the kernel the budget belongs to */
	struct astra_attempt *notes; /* the LLM's own failures this kernel */
	size_t nr_notes, alloc_notes;
};

static void clear_notes(struct state *st)
{
	size_t i;
	for (i = 0; i < st->nr_notes; i++) {
		free(st->notes[i].origin);
		free(st->notes[i].text);
		free(st->notes[i].reason);
	}
	st->nr_notes = 0;
}

static void add_note(struct state *st, const char *text, const char *reason)
{
	struct astra_attempt *a;
	ALLOC_GROW(st->notes, st->nr_notes + 1, st->alloc_notes);
	a = &st->notes[st->nr_notes++];
	memset(a, 0, sizeof(*a));
	a->origin = xstrdup(st->origin);
	a->text = xstrdup(text);
	a->reason = xstrdup(reason);
}

/* A warning with the text redacted (answers and errors are outside input). */
static void note_warning(const struct state *st, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void note_warning(const struct state *st, const char *fmt, ...)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	astra_llm_redact_client(&st->client, &b);
	warning("%s", b.buf);
	astra_buf_release(&b);
}

/* The first line of s, for one-line log messages; malloc'd. */
static char *first_line(const char *s)
{
	return xstrndup(s, strcspn(s, "\n"));
}

static void start_kernel(struct state *st, const struct astra_opt_context *ctx)
{
	char *id = xasprintf("%s:%s", ctx->kernel->file ? ctx->kernel->file : "", ctx->kernel->name);
	if (ctx->round == 0 || !st->kernel || strcmp(st->kernel, id)) {
		free(st->kernel);
		st->kernel = id;
		clear_notes(st);
		if (st->usable)
			astra_llm_begin(&st->client);
		return;
	}
	free(id);
}

static int status_to_result(int r)
{
	/* A spent budget is the end of the LLM's work on this kernel, not a failure. */
	return r == ASTRA_LLM_BUDGET ? 0 : -1;
}

static int propose(struct astra_optimizer *self, const struct astra_opt_context *ctx,
		   struct astra_variant *out, size_t max)
{
	struct state *st = self->state;
	const struct astra_kernel *k = ctx->kernel;
	struct astra_llm_conv plan = { 0 }, code = { 0 };
	struct astra_chat_answer a;
	char *plan_text = NULL, *purpose = NULL;
	int r, attempt, ret = 0;

	if (!max)
		return 0;
	start_kernel(st, ctx);
	if (!st->usable) {
		if (!st->warned++)
			error("llm: not configured: %s", st->why);
		return -1;
	}
	if (st->client.disabled)
		return -1;

	astra_llm_prompt_plan(ctx, st->notes, st->nr_notes, &plan);
	r = astra_llm_chat(&st->client, "plan", plan.msgs, plan.nr, &a);
	astra_llm_conv_release(&plan);
	if (r != ASTRA_LLM_OK)
		return status_to_result(r);
	plan_text = a.content;
	a.content = NULL;
	astra_chat_answer_release(&a);

	astra_llm_prompt_code(ctx, plan_text, &code);
	r = astra_llm_chat(&st->client, "code", code.msgs, code.nr, &a);
	for (attempt = 0; ; attempt++) {
		struct astra_buf text = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
		struct astra_variant v;
		int compile_failed = 0;
		char *line;

		if (r != ASTRA_LLM_OK) {
			ret = status_to_result(r);
			break;
		}
		if (astra_llm_answer_code(a.content, k->name, &text, &why) == 0 &&
		    astra_llm_check_candidate(k, text.buf, &v, &why) == 0) {
			v.origin = xstrdup(st->origin);
			if (!ctx->try_compile || ctx->try_compile(ctx->loop, &v, &why) == 0) {
				out[0] = v;
				ret = 1;
				astra_stats_inc(ASTRA_STAT_LLM_CANDIDATES);
				astra_trace(ASTRA_TRACE_LLM, "%s: round %d: a candidate for the verifier (%zu bytes%s%s)",
					    k->name, ctx->round, strlen(v.text), v.grid ? ", own launch: grid=" : "",
					    v.grid ? v.grid : "");
				astra_buf_release(&text);
				astra_buf_release(&why);
				astra_chat_answer_release(&a);
				break;
			}
			compile_failed = 1;
			astra_variant_release(&v);
			astra_stats_inc(ASTRA_STAT_LLM_COMPILE_ERRORS);
		} else {
			astra_stats_inc(ASTRA_STAT_LLM_REJECTED);
			if (a.finish && !strcmp(a.finish, "length"))
				astra_buf_adds(&why, " (the answer reached the length limit)");
		}
		line = first_line(why.buf);
		note_warning(st, "llm: %s: round %d, %s: %s: %s", k->name, ctx->round, attempt ? purpose : "code",
			     compile_failed ? "the kernel does not compile" : "answer rejected", line);
		free(line);
		if (attempt >= st->repairs) {
			add_note(st, text.buf, why.buf);
			astra_buf_release(&text);
			astra_buf_release(&why);
			astra_chat_answer_release(&a);
			break;
		}
		astra_llm_prompt_repair(&code, a.content, why.buf, compile_failed);
		astra_chat_answer_release(&a);
		astra_buf_release(&text);
		astra_buf_release(&why);
		astra_stats_inc(ASTRA_STAT_LLM_REPAIRS);
		free(purpose);
		purpose = xasprintf("repair %d", attempt + 1);
		r = astra_llm_chat(&st->client, purpose, code.msgs, code.nr, &a);
	}
	free(purpose);
	free(plan_text);
	astra_llm_conv_release(&code);
	return ret;
}

static char *transcript(struct astra_optimizer *self)
{
	struct state *st = self->state;
	if (!st->usable || !astra_json_len(st->client.transcript))
		return NULL;
	return astra_llm_transcript(&st->client);
}

static void opt_free(struct astra_optimizer *self)
{
	struct state *st = self->state;
	if (st) {
		astra_llm_release(&st->client);
		clear_notes(st);
		free(st->notes);
		free(st->why);
		free(st->origin);
		free(st->kernel);
		free(st);
	}
	free(self);
}

struct astra_optimizer *astra_llm_optimizer_new(void)
{
	struct astra_optimizer *opt = xcalloc(1, sizeof(*opt));
	struct state *st = xcalloc(1, sizeof(*st));
	struct astra_buf why = ASTRA_BUF_INIT;

	st->usable = astra_llm_init(&st->client, &why) == 0;
	if (!st->usable)
		st->why = astra_buf_detach(&why, NULL);
	astra_buf_release(&why);
	st->repairs = (int)astra_config_int(ASTRA_CFG_LLM_REPAIRS);
	if (st->repairs > 10)
		st->repairs = 10;
	st->origin = xasprintf("llm: %s", st->client.model ? st->client.model : "?");
	opt->name = "llm";
	opt->propose = propose;
	opt->free = opt_free;
	opt->transcript = transcript;
	opt->state = st;
	return opt;
}
