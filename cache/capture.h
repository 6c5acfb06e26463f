/*
 * capture.h - the launches a capture build recorded, as the cache keeps
 * them (doc/capture.md).
 *
 * A capture build (ASTRA_CC_CAPTURE=1, or astra-cc --capture) compiles the
 * launch sites of annotated kernels through a generated launcher
 * (passes/capture.c, passes/capture-rt.cuh) that records every launch of
 * the program it is linked into.  Launches are grouped into *shapes*: one
 * shape per distinct (template instance, grid, block, dynamic shared
 * memory, scalar arguments).  For the first launch of each shape the
 * launcher also records each pointer argument's allocation (its size from
 * the pointer to the allocation's end, in elements), whether the launch
 * changed it (a checksum before and after), and, with capture_data, the
 * bytes it held before the launch.
 *
 * Objects, all on the local tier, all of kind ASTRA_OBJ_CAPTURE:
 *
 *   <key>-<cc>.capture            the merged capture of one kernel (JSON)
 *   <key>-<cc>.capture-r<P>-<T>   one process's records, written by the
 *                                 running program (same JSON schema), merged
 *                                 into the object above by the next reader
 *   <key>-<cc>.capture-d<ID>-<I>  the bytes of argument I before the first
 *                                 launch of shape ID (raw, no header)
 *
 * The running program is not astra-cc and cannot call this module: the
 * capture build gives it the path of "<key>-<cc>.capture"
 * (astra_capture_prefix) and it writes the records and data objects beside
 * it, under names that extend it as above, each atomically (a temporary
 * "<name>.tmp.<pid>.<n>" renamed into place).  Everything else (merging,
 * reading, removing) goes through the storage interface.  Captures are
 * kept like the warmup queue: not counted in the cache's size, never
 * evicted or cleared by -C (cache/cleanup.c).
 *
 * The JSON schema (format 1), for a record and for the merged object:
 *
 *   { "format": 1, "kernel": "name", "key": "<32 hex>", "cc": 90,
 *     "launches": N, "dropped": N (launches of shapes beyond the limit),
 *     "failed": N (launches that reported an error, or were made while an
 *                  earlier error was pending: not counted in launches, no
 *                  shape recorded from them; absent in older records: 0),
 *     "runs": N (processes merged; a record says 1),
 *     "shapes": [ { "id": "<16 hex>", "launches": N,
 *         "types": [ { "name": "T", "value": "__half" } ],   template arguments
 *         "grid": [x, y, z], "block": [x, y, z], "shmem": bytes,
 *         "checked": true when the written flags below were measured,
 *         "scalars": [ { "index": i, "name": "n", "type": "int",
 *                        "kind": "int|uint|bool|f32|f64|bytes",
 *                        "text": "4096" (exact: decimal, or %a for floats),
 *                        "hex": "00100000" (the argument's bytes) } ],
 *         "buffers": [ { "index": i, "name": "x", "elem": "const T",
 *                        "elem_size": 2, "count": N (elements the launch can
 *                        touch, -1: unknown), "to_end": N (elements to the
 *                        allocation's end), "bound": "allocation" |
 *                        "argument" | "written" (what ends count:
 *                        doc/capture.md, What is recorded),
 *                        "null": false, "same_as": j (index of the first
 *                        pointer into the same allocation; itself if none),
 *                        "written": true | false | null (not measured),
 *                        "data": "<object name>" | null, "data_bytes": N } ] } ] }
 *
 * This module is a leaf: it knows the format and the names, and talks to
 * the cache through the local storage tier.
 */
#ifndef ASTRA_CAPTURE_H
#define ASTRA_CAPTURE_H

#include <stddef.h>

#include "lib/buf.h"

#define ASTRA_CAPTURE_FORMAT 1

struct astra_cache;

/* A scalar argument, or a template argument (name and text only). */
struct astra_capture_value {
	int index;          /* parameter index; -1 for a template argument */
	char *name;
	char *type;         /* as the signature writes it; may be NULL */
	char *kind;         /* "int", "uint", "bool", "f32", "f64", "bytes"; NULL for template arguments */
	char *text;         /* exact value text, or NULL when only the bytes are known */
	char *hex;          /* the argument's bytes in hex; may be NULL */
};

/* What ends a buffer's count. */
enum astra_capture_bound {
	ASTRA_CAPTURE_BOUND_ALLOCATION, /* the allocation's end */
	ASTRA_CAPTURE_BOUND_ARGUMENT,   /* the next pointer argument into the same allocation */
	ASTRA_CAPTURE_BOUND_WRITTEN,    /* the end of what the launch changed (its last changed chunk) */
};

/* A pointer argument at the first launch of a shape. */
struct astra_capture_buffer {
	int index;
	char *name;
	char *elem;         /* element type as the signature writes it */
	long long elem_size;
	long long count;    /* elements the launch can touch (see bound); -1 unknown */
	long long to_end;   /* elements from the pointer to the allocation's end; -1 unknown */
	int bound;          /* what ends count: ASTRA_CAPTURE_BOUND_* */
	int null;
	int same_as;        /* index of the first pointer into the same allocation */
	int written;        /* 1 changed by the launch, 0 unchanged, -1 not measured */
	char *data;         /* object name of the bytes before the launch, or NULL */
	long long data_bytes;
};

struct astra_capture_shape {
	char *id;
	long long launches;
	struct astra_capture_value *types;
	size_t nr_types;
	long long grid[3], block[3], shmem;
	int checked;
	struct astra_capture_value *scalars;
	size_t nr_scalars;
	struct astra_capture_buffer *bufs;
	size_t nr_bufs;
};

struct astra_capture {
	char *kernel;
	char key[33];
	int cc;
	long long launches, dropped, runs;
	long long failed;   /* launches the runtime refused: not recorded */
	struct astra_capture_shape *shapes;
	size_t nr_shapes, alloc_shapes;
};

void astra_capture_init(struct astra_capture *c);
void astra_capture_release(struct astra_capture *c);

/*
 * Parse a record or a merged capture.  Returns 0, or -1 with the reason
 * appended to why (why may be NULL).  Names of data objects must extend
 * "<key>-<cc>.capture-d" and be valid object names (they become paths).
 */
int astra_capture_parse(const char *text, size_t len, struct astra_capture *out, struct astra_buf *why);

/* The JSON text of c (malloc'd), shapes most launched first. */
char *astra_capture_print(const struct astra_capture *c);

/*
 * Add from's launches to into (same kernel, key and cc).  Shapes are
 * matched by id: their launch counts add up; a shape's buffers take the
 * measured written flags (changed in either run wins) and the first data
 * object.  At most max_shapes shapes stay (the most launched; 0: no
 * limit); the launches of the others count as dropped.  Returns 0, or -1
 * when the two captures are not of the same kernel.
 */
int astra_capture_merge(struct astra_capture *into, const struct astra_capture *from, size_t max_shapes);

/* Bytes a shape's buffers span (count * elem_size, unknown counts as 0). */
long long astra_capture_shape_bytes(const struct astra_capture_shape *s);

/* "<key>-<cc>.capture" (malloc'd). */
char *astra_capture_object_name(const char *key, int cc);

/*
 * The path of "<key>-<cc>.capture" on the local tier: a capture build
 * writes it into the generated launcher, and the running program writes
 * its records and data objects beside it (malloc'd).
 */
char *astra_capture_prefix(struct astra_cache *cache, const char *key, int cc);

/* The local path of a data object, for the test program (malloc'd). */
char *astra_capture_data_path(struct astra_cache *cache, const char *object);

/* Is anything captured for (key, cc) on the local tier (a merged object or a record)?  1 or 0. */
int astra_capture_present(struct astra_cache *cache, const char *key, int cc);

/*
 * The capture of (key, cc): the merged object with every pending record
 * merged into it.  Under the capture's lock the records are folded into
 * the merged object, which is written back, and removed; data objects no
 * shape refers to any more (older than an hour: a running program writes
 * its data before its record) are removed too.  When the cache cannot be
 * written the merge is done in memory only.  A record or merged object
 * that does not parse is logged and removed.  max_shapes as for
 * astra_capture_merge.  Returns 1 (out filled), 0 (nothing captured) or
 * -1 (the cache cannot be read).
 */
int astra_capture_load(struct astra_cache *cache, const char *key, int cc, size_t max_shapes,
		       struct astra_capture *out);

#endif
