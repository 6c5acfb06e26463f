## agents/ - the optimization loop's roles: testing, profiling, planning
## and coding (rules or an LLM).

libastra_a_SOURCES += \
	agents/profile.c agents/profile.h \
	agents/verify.c agents/verify.h \
	agents/verify-cmd.c agents/verify-cmd.h

EXTRA_DIST += doc/verify.md
