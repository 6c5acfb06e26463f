## agents/ - the optimization loop's roles: testing, profiling, planning
## and coding (rules or an LLM).

libastra_a_SOURCES += \
	agents/profile.c agents/profile.h \
	agents/verify.c agents/verify.h \
	agents/verify-cmd.c agents/verify-cmd.h \
	agents/optimizer.h \
	agents/http.c agents/http.h \
	agents/provider.h agents/provider-openai.c \
	agents/llm.c agents/llm.h \
	agents/llm-answer.c agents/llm-answer.h \
	agents/llm-prompt.c agents/llm-prompt.h \
	agents/llm-optimizer.c agents/llm-optimizer.h \
	agents/loop.c agents/loop.h \
	agents/warmup.c agents/warmup.h

EXTRA_DIST += doc/llm.md

EXTRA_DIST += doc/verify.md
