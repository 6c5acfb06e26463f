## cache/ - a leaf: verified variants by opaque key, storage tiers, locks,
## the warmup queue, statistics, cleanup.

libastra_a_SOURCES += \
	cache/capture.c cache/capture.h \
	cache/cleanup.c cache/cleanup.h \
	cache/fsio.c cache/fsio.h \
	cache/lock.c cache/lock.h \
	cache/manifest.c cache/manifest.h \
	cache/names.c cache/names.h \
	cache/queue.c cache/queue.h \
	cache/sign.c cache/sign.h \
	cache/stats.c cache/stats.h \
	cache/storage.h cache/storage-file.c cache/storage-http.c \
	cache/store.c cache/store.h
