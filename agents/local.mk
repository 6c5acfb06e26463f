## agents/ - the optimization loop's roles (planning and coding by the
## optimizers in their table; testing and profiling through verify/), the
## LLM client, and warmup.

libastra_a_SOURCES += \
	agents/optimizer.h agents/optimizers.c \
	agents/opt-rules.c agents/opt-rules.h \
	agents/provider.h agents/provider-openai.c \
	agents/llm.c agents/llm.h \
	agents/llm-answer.c agents/llm-answer.h \
	agents/llm-prompt.c agents/llm-prompt.h \
	agents/opt-llm.c agents/opt-llm.h \
	agents/loop.c agents/loop.h \
	agents/select.c agents/select.h \
	agents/hints.c agents/hints.h \
	agents/policy.c agents/policy.h \
	agents/captured.c agents/captured.h \
	agents/evidence.c agents/evidence.h \
	agents/progress.c agents/progress.h \
	agents/gpus.c agents/gpus.h \
	agents/plan.c agents/plan.h \
	agents/warmup.c agents/warmup.h

EXTRA_DIST += doc/llm.md doc/cluster.md
