## agents/ - the optimization loop's roles: testing, profiling, planning
## and coding (rules or an LLM).

libastra_a_SOURCES +=
