/*
 * names.h - the names of the cache's objects.
 *
 * Every object of a tier is "<32 hex key>-<cc>.<kind>": the verified
 * variant's entry, the LLM transcript and the signature kept beside it, and on the local
 * tier the warmup queue's items and the device ceilings (whose "key" is a
 * digest of the device's name).  One module so that the store, cleanup and
 * the queue agree on them.
 */
#ifndef ASTRA_NAMES_H
#define ASTRA_NAMES_H

enum astra_object_kind {
	ASTRA_OBJ_OTHER = 0,       /* not one of ours (left alone, cleared by -C) */
	ASTRA_OBJ_ENTRY = 1,
	ASTRA_OBJ_TRANSCRIPT = 2,
	ASTRA_OBJ_QUEUE = 3,       /* local tier only: a kernel waiting for warmup */
	ASTRA_OBJ_DEVICE = 4,      /* local tier only: a device's measured ceilings */
	ASTRA_OBJ_SIG = 5,         /* an entry's detached signature (cache/sign.h) */
	ASTRA_OBJ_CAPTURE = 6,     /* local tier only: captured launches, "capture" or "capture-*" (cache/capture.h) */
};

/* "<key>-<cc>.<kind>", malloc'd; key must be 32 lowercase hex digits. */
char *astra_cache_object_name(const char *key, int cc, enum astra_object_kind kind);

/* Shorthands for the two kinds every tier holds. */
char *astra_cache_entry_name(const char *key, int cc);
char *astra_cache_transcript_name(const char *key, int cc);

/* Split a name into key (33 bytes) and cc; returns its kind (OTHER for anything else). */
enum astra_object_kind astra_cache_parse_name(const char *name, char *key, int *cc);

#endif
