## cache/ - the kernel key, the store of verified variants, statistics.

libastra_a_SOURCES += \
	cache/key.c cache/key.h \
	cache/stats.c cache/stats.h
