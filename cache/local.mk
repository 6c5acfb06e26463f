## cache/ - the kernel key, the store of verified variants, statistics.

libastra_a_SOURCES += \
	cache/stats.c cache/stats.h
