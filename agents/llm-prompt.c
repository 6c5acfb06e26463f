/*
 * llm-prompt.c - the planning, coding and repair prompts (see llm-prompt.h).
 *
 * The wording follows what made the Astra paper's agents work on SGLang
 * kernels (concrete profile numbers, the verifier's exact complaints, one
 * change at a time) plus the contract of a candidate in astra-cc (same
 * signature, device code only, the launch line).  Long inputs are clipped
 * so that a kernel with a long history cannot grow the request without
 * bound: the last 10 attempts, 600 bytes of each reason, 12 KiB of helpers,
 * 4 KiB of compiler output.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-prompt.h"
#include "lib/nvccopts.h"
#include "lib/util.h"

#define MAX_ATTEMPTS 10
#define MAX_REASON 600
#define MAX_HELPERS (12u << 10)
#define MAX_ERRORS (4u << 10)

void astra_llm_conv_add(struct astra_llm_conv *c, const char *role, const char *content)
{
	ALLOC_GROW(c->msgs, c->nr + 1, c->alloc);
	c->msgs[c->nr].role = role;
	c->msgs[c->nr].content = xstrdup(content);
	c->nr++;
}

void astra_llm_conv_release(struct astra_llm_conv *c)
{
	size_t i;
	for (i = 0; i < c->nr; i++)
		free((char *)c->msgs[i].content);
	free(c->msgs);
	memset(c, 0, sizeof(*c));
}

static const char plan_system[] =
	"You are the planning agent of astra-cc, a build tool that makes CUDA kernels faster. "
	"You study one kernel and decide what the next candidate version of it should change. "
	"A coding agent implements your plan; a verifier then runs the candidate against the "
	"original kernel on several shapes (including odd and tiny ones) with fresh random inputs, "
	"compares every output element, and times both. Only a candidate that gives the same "
	"results and is measurably faster is kept.\n"
	"\n"
	"A candidate keeps the kernel's name, template header and parameter list exactly; it may "
	"add __device__ helper functions and may choose its own launch geometry (grid, block, "
	"dynamic shared memory) as expressions of the kernel's parameters. It must stay correct "
	"for every size the original accepts, including sizes that are not multiples of the "
	"block size or of a vector width, and for pointers aligned only to their element type.\n"
	"\n"
	"Answer with a short numbered plan (at most 8 steps) of concrete changes for ONE "
	"candidate, the most promising first, and one sentence on why it should be faster given "
	"the profile. Do not write the kernel. Do not repeat an attempt that failed unless you "
	"say what is different this time.\n";

static const char code_system[] =
	"You are the coding agent of astra-cc. You write one CUDA kernel that implements the "
	"plan you are given. Your answer is machine-checked; follow these rules exactly:\n"
	"1. Reply with exactly one fenced code block (```cuda ... ```) holding the complete "
	"kernel definition and any new __device__ helper functions it needs. Text outside the "
	"block is ignored.\n"
	"2. Keep the kernel's name, template header and parameter list exactly as in the "
	"original: same types, same names, same order.\n"
	"3. Device code only: no #include, #define or other preprocessor directives (#pragma "
	"unroll is fine), no host functions, no kernel launches, no global, static, __constant__ "
	"or __device__ variables (constexpr constants and extern __shared__ arrays are fine), no "
	"namespaces or using-directives, no main.\n"
	"4. Everything defined in the original file before the kernel stays available: do not "
	"redefine it. Give new helpers new names.\n"
	"5. To change the launch geometry, put one line\n"
	"   #pragma astra launch(grid=EXPR, block=EXPR, shmem=EXPR)\n"
	"   directly above the kernel. The expressions may use only the kernel's parameters "
	"and template parameters, constants your code defines, literals, min, max, sizeof, casts "
	"and dim3(...); shmem may be left out. "
	"Without that line the original launch geometry is kept, so the kernel must then work "
	"with it.\n"
	"6. The kernel must give the same results as the original for every input it accepts: "
	"any size, including sizes that are not multiples of the block size or of a vector "
	"width, and pointers aligned only to their element type (check alignment before "
	"vector loads and keep a scalar path).\n";

static void add_code_block(struct astra_buf *b, const char *text, size_t len)
{
	astra_buf_adds(b, "```cuda\n");
	astra_buf_add(b, text, len);
	if (!len || text[len - 1] != '\n')
		astra_buf_addch(b, '\n');
	astra_buf_adds(b, "```\n");
}

/* The kernel as the user wrote it: its pragma lines, then its definition. */
static void add_kernel(struct astra_buf *b, const struct astra_opt_context *ctx, const char *label)
{
	const struct astra_kernel *k = ctx->kernel;
	const struct astra_tu *tu = ctx->tu;
	struct astra_buf code = ASTRA_BUF_INIT;

	if (tu && tu->text && k->pragma_end > k->pragma_start && k->pragma_end <= tu->len) {
		astra_buf_add(&code, tu->text + k->pragma_start, k->pragma_end - k->pragma_start);
		if (code.buf[code.len - 1] != '\n')
			astra_buf_addch(&code, '\n');
	}
	astra_buf_adds(&code, k->text);
	astra_buf_addf(b, "%s `%s` (%s:%u):\n", label, k->name, astra_basename(k->file ? k->file : "?"), k->line);
	add_code_block(b, code.buf, code.len);
	astra_buf_release(&code);
}

static void add_helpers(struct astra_buf *b, const struct astra_kernel *k)
{
	struct astra_buf h = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < k->nr_deps; i++) {
		const char *t = k->dep_texts ? k->dep_texts[i] : NULL;
		if (!t)
			continue;
		if (h.len + strlen(t) > MAX_HELPERS) {
			astra_buf_addf(&h, "// ... %zu more definitions left out\n", k->nr_deps - i);
			break;
		}
		astra_buf_adds(&h, t);
		if (!astra_ends_with(t, "\n"))
			astra_buf_addch(&h, '\n');
	}
	if (h.len) {
		astra_buf_adds(b, "\nDefinitions from the same file that the kernel uses (unchanged, available to the candidate):\n");
		add_code_block(b, h.buf, h.len);
	}
	astra_buf_release(&h);
}

static void add_target(struct astra_buf *b, const struct astra_opt_context *ctx)
{
	size_t i;
	if (ctx->cc > 0)
		astra_buf_addf(b, "\nTarget GPU: compute capability %d.%d (sm_%d).\n", ctx->cc / 10, ctx->cc % 10, ctx->cc);
	if (ctx->cl && ctx->cl->device_flags.nr) {
		astra_buf_adds(b, ctx->cc > 0 ? "" : "\n");
		astra_buf_adds(b, "nvcc flags that affect device code:");
		for (i = 0; i < ctx->cl->device_flags.nr; i++)
			astra_buf_addf(b, " %s", ctx->cl->device_flags.v[i]);
		astra_buf_addch(b, '\n');
	}
}

static void add_profile(struct astra_buf *b, const struct astra_profile *p)
{
	astra_buf_adds(b, "\nBaseline profile (the original kernel, largest test shape):\n");
	if (!p) {
		astra_buf_adds(b, "- not measured yet\n");
		return;
	}
	astra_buf_addf(b, "- time per launch: %.2f us (spread +-%.1f %%)\n", p->time_us, p->spread * 100);
	if (p->bytes > 0)
		astra_buf_addf(b, "- memory traffic: %.3f MB per launch, %.1f %% of the measured device copy bandwidth\n",
			       p->bytes / 1e6, p->bw_frac * 100);
	if (p->flops > 0)
		astra_buf_addf(b, "- arithmetic: %.3f GFLOP per launch, %.1f %% of the measured FMA rate\n",
			       p->flops / 1e9, p->flop_frac * 100);
	if (p->regs >= 0)
		astra_buf_addf(b, "- registers per thread: %d; bytes spilled: %d\n", p->regs, p->spills >= 0 ? p->spills : 0);
	if (p->bytes > 0 && p->bw_frac >= 0.8)
		astra_buf_adds(b, "- the kernel is already near the memory roofline: only a large cut in bytes moved can help\n");
}

/* The reason, clipped, each line indented. */
static void add_reason(struct astra_buf *b, const char *reason)
{
	size_t i, n = strlen(reason);
	int clipped = n > MAX_REASON;
	if (clipped)
		n = MAX_REASON;
	while (n && (reason[n - 1] == '\n' || reason[n - 1] == ' '))
		n--;
	astra_buf_adds(b, "   ");
	for (i = 0; i < n; i++) {
		astra_buf_addch(b, reason[i]);
		if (reason[i] == '\n')
			astra_buf_adds(b, "   ");
	}
	astra_buf_adds(b, clipped ? " [...]\n" : "\n");
}

static void add_attempt(struct astra_buf *b, size_t no, const struct astra_attempt *a)
{
	astra_buf_addf(b, "%zu. %s: ", no, a->origin ? a->origin : "?");
	if (!a->compiled)
		astra_buf_adds(b, "did not compile or was not usable");
	else if (!a->accepted)
		astra_buf_adds(b, "rejected by the verifier");
	else if (a->speedup > 0)
		astra_buf_addf(b, "verified, %.2fx the speed of the original%s", a->speedup,
			       a->speedup < 1.03 ? " (not faster)" : "");
	else
		astra_buf_adds(b, "verified");
	astra_buf_adds(b, a->reason && *a->reason ? ":\n" : "\n");
	if (a->reason && *a->reason)
		add_reason(b, a->reason);
}

static void add_history(struct astra_buf *b, const struct astra_opt_context *ctx,
			const struct astra_attempt *notes, size_t nr_notes)
{
	size_t total = ctx->nr_history + nr_notes, skip, i, no = 0;
	if (!total) {
		astra_buf_adds(b, "\nEarlier attempts: none.\n");
		return;
	}
	skip = total > MAX_ATTEMPTS ? total - MAX_ATTEMPTS : 0;
	astra_buf_adds(b, "\nEarlier attempts (oldest first):\n");
	if (skip)
		astra_buf_addf(b, "(%zu older attempts left out)\n", skip);
	for (i = 0; i < total; i++) {
		const struct astra_attempt *a = i < ctx->nr_history ? &ctx->history[i] : &notes[i - ctx->nr_history];
		if (i < skip)
			continue;
		add_attempt(b, ++no + skip, a);
	}
}

static void add_best(struct astra_buf *b, const struct astra_opt_context *ctx)
{
	if (!ctx->best || !ctx->best->text)
		return;
	astra_buf_addf(b, "\nThe best verified version so far (%s):\n", ctx->best->origin ? ctx->best->origin : "?");
	add_code_block(b, ctx->best->text, strlen(ctx->best->text));
}

void astra_llm_prompt_plan(const struct astra_opt_context *ctx, const struct astra_attempt *notes,
			   size_t nr_notes, struct astra_llm_conv *out)
{
	struct astra_buf u = ASTRA_BUF_INIT;

	add_kernel(&u, ctx, "Kernel");
	add_helpers(&u, ctx->kernel);
	add_target(&u, ctx);
	add_profile(&u, ctx->baseline);
	add_history(&u, ctx, notes, nr_notes);
	add_best(&u, ctx);
	astra_buf_addf(&u, "\nThis is round %d. Plan the next candidate.\n", ctx->round + 1);
	astra_llm_conv_add(out, "system", plan_system);
	astra_llm_conv_add(out, "user", u.buf);
	astra_buf_release(&u);
}

void astra_llm_prompt_code(const struct astra_opt_context *ctx, const char *plan,
			   struct astra_llm_conv *out)
{
	struct astra_buf u = ASTRA_BUF_INIT;

	add_kernel(&u, ctx, "Original kernel");
	add_helpers(&u, ctx->kernel);
	add_target(&u, ctx);
	if (ctx->best && ctx->best->text) {
		astra_buf_adds(&u, "\nStart from the best verified version so far:\n");
		add_code_block(&u, ctx->best->text, strlen(ctx->best->text));
	}
	astra_buf_adds(&u, "\nPlan:\n");
	astra_buf_adds(&u, plan && *plan ? plan : "(no plan: make the kernel faster)");
	astra_buf_rtrim(&u);
	astra_buf_adds(&u, "\n\nWrite the kernel.\n");
	astra_llm_conv_add(out, "system", code_system);
	astra_llm_conv_add(out, "user", u.buf);
	astra_buf_release(&u);
}

void astra_llm_prompt_repair(struct astra_llm_conv *conv, const char *answer, const char *reason,
			     int compile_errors)
{
	struct astra_buf u = ASTRA_BUF_INIT;
	size_t n = strlen(reason);

	astra_llm_conv_add(conv, "assistant", answer);
	if (compile_errors) {
		astra_buf_adds(&u, "nvcc rejected this kernel:\n```\n");
		astra_buf_add(&u, reason, n > MAX_ERRORS ? MAX_ERRORS : n);
		astra_buf_rtrim(&u);
		astra_buf_adds(&u, n > MAX_ERRORS ? "\n[...]\n```\n" : "\n```\n");
	} else {
		astra_buf_addf(&u, "This answer was rejected: %s.\n", reason);
	}
	astra_buf_adds(&u, "\nReply with the corrected complete kernel in one ```cuda block, following the same rules.\n");
	astra_llm_conv_add(conv, "user", u.buf);
	astra_buf_release(&u);
}
