## cache/ - the kernel key, the store of verified variants, statistics.

libastra_a_SOURCES += \
	cache/key.c cache/key.h \
	cache/cachecmd.c cache/cachecmd.h \
	cache/cleanup.c cache/cleanup.h \
	cache/device.c cache/device.h \
	cache/fsio.c cache/fsio.h \
	cache/lock.c cache/lock.h \
	cache/manifest.c cache/manifest.h \
	cache/queue.c cache/queue.h \
	cache/stats.c cache/stats.h \
	cache/storage.h cache/storage-file.c \
	cache/store.c cache/store.h
